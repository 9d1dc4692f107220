/* parse_subscript.c - right-hand-side subscripts of tensors, tiles and
 * arrays, lowered as the reference's parser lowers them:
 *   A[i, j]      (all indices scalar, full rank)  -> tensor.read / tile.read
 *   A[a:b, j]... (anything else)                  -> tensor.slice / tile.slice
 *   arr[i]                                        -> array.get_element
 * numpy style: a scalar index takes a unit window and drops the axis
 * (drop_dims), a slice keeps it, missing trailing indices are `:`.  A
 * tensor slice's extent is upper - lower (folded, or simplified when it is
 * linear); a tile keeps a static allocation extent and carries a runtime
 * narrowing as valid_shape (lower bounds must be constants), and a tile
 * that would drop below 2-D gets leading unit axes. */
#include <inttypes.h>
#include <string.h>

#include "parse_int.h"
#include "ptoopt/types.h"

typedef struct Index {
	Expr *lo, *hi; /* NULL: absent */
	bool slice;
} Index;

static bool const_of(const Expr *e, int64_t *v)
{
	if (e && e->kind == EX_INT) {
		*v = e->ival;
		return true;
	}
	return false;
}

/* ---- a small linear simplifier for upper - lower */

#define LIN_TERMS 4

typedef struct Lin {
	int64_t c;
	Var *v[LIN_TERMS];
	int64_t k[LIN_TERMS];
	int n;
	bool ok;
} Lin;

static void lin_add(Lin *L, const Expr *e, int64_t sign, int depth)
{
	int64_t c;
	if (!L->ok)
		return;
	if (depth > 32) {
		L->ok = false;
		return;
	}
	if (const_of(e, &c)) {
		L->c += sign * c;
		return;
	}
	if (e->kind == EX_VAR) {
		for (int i = 0; i < L->n; i++)
			if (L->v[i] == e->var) {
				L->k[i] += sign;
				return;
			}
		if (L->n == LIN_TERMS) {
			L->ok = false;
			return;
		}
		L->v[L->n] = e->var;
		L->k[L->n++] = sign;
		return;
	}
	if (e->kind == EX_UNARY && e->op == UOP_NEG) {
		lin_add(L, e->lhs, -sign, depth + 1);
		return;
	}
	if (e->kind == EX_BINARY && (e->op == OP_ADD || e->op == OP_SUB)) {
		lin_add(L, e->lhs, sign, depth + 1);
		lin_add(L, e->rhs, e->op == OP_ADD ? sign : -sign, depth + 1);
		return;
	}
	if (e->kind == EX_BINARY && e->op == OP_MUL) {
		if (const_of(e->rhs, &c)) {
			lin_add(L, e->lhs, sign * c, depth + 1);
			return;
		}
		if (const_of(e->lhs, &c)) {
			lin_add(L, e->rhs, sign * c, depth + 1);
			return;
		}
	}
	L->ok = false;
}

/* upper - lower, folded when constant, simplified when it is one variable
 * plus a constant, else as written */
static Expr *extent(Parser *p, Expr *upper, Expr *lower, SrcPos at)
{
	int64_t u, l;
	if (const_of(upper, &u) && const_of(lower, &l))
		return pp_int(p, u - l, DT_INDEX, at);
	Lin L = { .ok = true };
	lin_add(&L, upper, 1, 0);
	lin_add(&L, lower, -1, 0);
	if (L.ok) {
		Var *v = NULL;
		int live = 0;
		int64_t k = 0;
		for (int i = 0; i < L.n; i++)
			if (L.k[i]) {
				live++;
				v = L.v[i];
				k = L.k[i];
			}
		if (live == 0)
			return pp_int(p, L.c, DT_INDEX, at);
		if (live == 1 && k == 1 && v->type && v->type->kind == TY_SCALAR && v->type->dtype == DT_INDEX) {
			Expr *r = ir_var_ref(p->a, v);
			if (L.c == 0)
				return r;
			return pp_binary(p, L.c > 0 ? OP_ADD : OP_SUB, r, pp_int(p, L.c > 0 ? L.c : -L.c, DT_INDEX, at), at);
		}
	}
	if (const_of(lower, &l) && l == 0)
		return upper;
	return pp_binary(p, OP_SUB, upper, lower, at);
}

/* max(upper - lower, 0) */
static Expr *clamped_extent(Parser *p, Expr *upper, Expr *lower, SrcPos at)
{
	int64_t u, l;
	if (const_of(upper, &u) && const_of(lower, &l))
		return pp_int(p, u - l > 0 ? u - l : 0, DT_INDEX, at);
	return pp_binary(p, OP_MAX, extent(p, upper, lower, at), pp_int(p, 0, DT_INDEX, at), at);
}

/* min(requested, source) */
static Expr *intersect(Parser *p, Expr *req, Expr *src, SrcPos at)
{
	int64_t a, b;
	if (const_of(req, &a) && const_of(src, &b))
		return pp_int(p, a < b ? a : b, DT_INDEX, at);
	return pp_binary(p, OP_MIN, req, src, at);
}

/* The static extent backing a tile slice (valid_shape narrows it at run time). */
static Expr *alloc_extent(Parser *p, Expr *stat, Expr *lower, Expr *upper, SrcPos at)
{
	int64_t l = 0, s = 0, u = 0;
	bool lc = const_of(lower, &l), sc = const_of(stat, &s), uc = upper && const_of(upper, &u);
	bool have_max = lc && sc;
	int64_t mx = have_max ? (s - l > 0 ? s - l : 0) : 0;
	if (uc) {
		int64_t e = lc ? (u - l > 0 ? u - l : 0) : u;
		if (have_max && mx < e)
			e = mx;
		if (e <= 0)
			pp_error(p, at.line, at.col, "Tile subscript must produce a positive static extent");
		return pp_int(p, e, DT_INDEX, at);
	}
	if (have_max) {
		if (mx <= 0)
			pp_error(p, at.line, at.col, "Tile subscript must produce a positive static extent");
		return pp_int(p, mx, DT_INDEX, at);
	}
	return stat;
}

static bool extents_match(const Expr *a, const Expr *b)
{
	int64_t x, y;
	if (const_of(a, &x) && const_of(b, &y))
		return x == y;
	return expr_equal(a, b);
}

/* a copy of call (a shared node must not change) with its axes in drop
 * dropped from the result type; a tile keeps at least two axes */
static Expr *drop_axes(Parser *p, Expr *call, const bool *drop, int rank, bool tile, Expr *valid_arg, Expr *drops,
		       SrcPos at)
{
	Arena *a = p->a;
	Type *t = ir_expr_type(call);
	Expr *c = ir_expr_copy(a, call);
	if (tile) {
		/* tile.slice(t, shape, offset, valid_shape, drop_dims) */
		c->args = arena_alloc(a, 6 * sizeof *c->args);
		memcpy(c->args, call->args, (size_t)call->nargs * sizeof *c->args);
		c->args[3] = valid_arg ? valid_arg : pp_list(p, NULL, 0, at);
		c->args[4] = drops;
		c->nargs = 5;
	}
	if (!t || (t->kind != TY_TENSOR && t->kind != TY_TILE && t->kind != TY_DIST_TENSOR) || t->ndim != rank)
		return c;
	Type *n = ir_type_new(a, t->kind);
	*n = *t;
	int kept = 0;
	for (int d = 0; d < rank; d++)
		kept += !drop[d];
	int lead = tile && kept < 2 ? 2 - kept : 0;
	n->ndim = kept + lead;
	n->shape = arena_alloc(a, (size_t)(n->ndim + 1) * sizeof *n->shape);
	for (int i = 0; i < lead; i++)
		n->shape[i] = pp_int(p, 1, DT_INDEX, at);
	for (int d = 0, i = lead; d < rank; d++)
		if (!drop[d])
			n->shape[i++] = t->shape[d];
	if (t->view) {
		/* a valid_shape loses the same axes */
		ViewSpec *vs = arena_alloc(a, sizeof *vs);
		*vs = *t->view;
		vs->kw = arena_alloc(a, (size_t)(vs->nkw + 1) * sizeof *vs->kw);
		if (vs->nkw)
			memcpy(vs->kw, t->view->kw, (size_t)vs->nkw * sizeof *vs->kw);
		for (int i = 0; i < vs->nkw; i++) {
			Expr *v = vs->kw[i].value;
			if (strcmp(vs->kw[i].name, "valid_shape") || v->kind != EX_TUPLE || v->nargs != rank)
				continue;
			Expr **items = arena_alloc(a, (size_t)(n->ndim + 1) * sizeof *items);
			for (int j = 0; j < lead; j++)
				items[j] = pp_int(p, 1, DT_INDEX, at);
			for (int d = 0, j = lead; d < rank; d++)
				if (!drop[d])
					items[j++] = v->args[d];
			vs->kw[i].value = pp_list(p, items, n->ndim, at);
		}
		n->view = vs;
	}
	if (!tile)
		n->view = NULL;
	c->type = n;
	return c;
}

/* a raw call of an op the registry lacks, typed t */
static Expr *raw_call(Parser *p, const char *op, Expr **args, int n, Type *t, SrcPos at)
{
	Arena *a = p->a;
	Expr *c = ir_expr_new(a, EX_OP_CALL, at);
	c->str = intern_cstr(a, op);
	c->nargs = n;
	c->args = arena_alloc(a, (size_t)(n + 1) * sizeof *c->args);
	if (n)
		memcpy(c->args, args, (size_t)n * sizeof *args);
	c->type = t;
	return c;
}

Expr *pp_subscript(Parser *p, Expr *value, SrcPos at)
{
	Arena *a = p->a;
	Type *t = ir_expr_type(value);
	if (t->kind == TY_ARRAY) {
		Expr *idx = pp_expr(p);
		if (tok_is_op(peek_at(p, 0), ",")) {
			const Token *c = peek_at(p, 0);
			pp_error(p, c->line, c->col, "Array subscript requires a single index (rank-1 in v1); use arr[i], not arr[i, j]");
		}
		expect_op(p, "]");
		Expr *args[2] = { value, idx };
		return pp_op(p, "array.get_element", args, 2, at);
	}
	bool tile = t->kind == TY_TILE;
	const char *what = tile ? "tile" : "tensor";
	int rank = t->ndim;
	Index *ix = arena_alloc(a, (size_t)(rank + 1) * sizeof *ix);
	int n = 0;
	bool any_slice = false;
	while (!tok_is_op(peek_at(p, 0), "]")) {
		Index cur = { 0 };
		if (!tok_is_op(peek_at(p, 0), ":"))
			cur.lo = pp_expr(p);
		if (accept_op(p, ":")) {
			cur.slice = any_slice = true;
			const Token *q = peek_at(p, 0);
			if (!tok_is_op(q, ",") && !tok_is_op(q, "]") && !tok_is_op(q, ":"))
				cur.hi = pp_expr(p);
			if (tok_is_op(peek_at(p, 0), ":"))
				pp_error(p, at.line, at.col, "Slice step is not supported in %s subscript; use A[start:stop] without step",
					 what);
		}
		if (n < rank)
			ix[n] = cur;
		n++;
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, "]");
	if (n > rank)
		pp_error(p, at.line, at.col, "%s subscript has %d indices but the %s is %dD", tile ? "Tile" : "Tensor", n, what,
			 rank);
	if (n == 0)
		pp_error(p, at.line, at.col, "empty subscript");
	if (!any_slice && n == rank) {
		Expr **idx = arena_alloc(a, (size_t)(rank + 1) * sizeof *idx);
		for (int d = 0; d < rank; d++)
			idx[d] = ix[d].lo;
		Expr *args[2] = { value, pp_list(p, idx, rank, at) };
		const char *op = tile ? "tile.read" : "tensor.read";
		if (pp_has_op(p, op))
			return pp_op(p, op, args, 2, at);
		return raw_call(p, op, args, 2, ir_scalar_type(a, t->dtype), at);
	}
	Expr **shape = arena_alloc(a, (size_t)(rank + 1) * sizeof *shape);
	Expr **offs = arena_alloc(a, (size_t)(rank + 1) * sizeof *offs);
	Expr **valid = arena_alloc(a, (size_t)(rank + 1) * sizeof *valid);
	bool *drop = arena_alloc(a, (size_t)(rank + 1) * sizeof *drop);
	Expr **drops = arena_alloc(a, (size_t)(rank + 1) * sizeof *drops);
	int ndrop = 0;
	bool needs_valid = false;
	Expr *const *logical = t->shape;
	if (tile && t->view)
		for (int i = 0; i < t->view->nkw; i++)
			if (!strcmp(t->view->kw[i].name, "valid_shape") && t->view->kw[i].value->kind == EX_TUPLE &&
			    t->view->kw[i].value->nargs == rank)
				logical = t->view->kw[i].value->args;
	Expr *zero = pp_int(p, 0, DT_INDEX, at), *one = pp_int(p, 1, DT_INDEX, at);
	for (int d = 0; d < rank; d++) {
		drop[d] = false;
		if (d >= n) {
			offs[d] = zero;
			shape[d] = t->shape[d];
			valid[d] = logical[d];
			needs_valid |= !extents_match(t->shape[d], logical[d]);
			continue;
		}
		Index *x = &ix[d];
		if (!x->slice) {
			offs[d] = x->lo;
			shape[d] = valid[d] = one;
			drop[d] = true;
			drops[ndrop++] = pp_int(p, d, DT_INDEX, at);
			continue;
		}
		if (!tile) {
			offs[d] = x->lo ? x->lo : zero;
			if (!x->lo)
				shape[d] = x->hi ? x->hi : t->shape[d];
			else
				shape[d] = extent(p, x->hi ? x->hi : t->shape[d], x->lo, at);
			continue;
		}
		int64_t lc;
		if (x->lo && !const_of(x->lo, &lc))
			pp_error(p, at.line, at.col, "Dynamic lower bounds are not supported in tile subscript; use a constant "
				 "tile slice lower bound or rewrite the logic with explicit tile ops");
		Expr *lower = x->lo ? x->lo : zero;
		offs[d] = lower;
		Expr *vu = x->hi ? intersect(p, x->hi, logical[d], at) : logical[d];
		valid[d] = x->lo ? clamped_extent(p, vu, lower, at) : vu;
		shape[d] = alloc_extent(p, t->shape[d], lower, x->hi, at);
		needs_valid |= !extents_match(shape[d], valid[d]);
	}
	Expr *drop_list = ndrop ? pp_list(p, drops, ndrop, at) : NULL;
	if (!tile) {
		Expr *args[5] = { value, pp_list(p, shape, rank, at), pp_list(p, offs, rank, at), pp_list(p, NULL, 0, at),
				  drop_list };
		if (!ndrop)
			return pp_op(p, "tensor.slice", args, 3, at);
		return drop_axes(p, pp_op(p, "tensor.slice", args, 5, at), drop, rank, false, NULL, NULL, at);
	}
	Expr *valid_arg = needs_valid ? pp_list(p, valid, rank, at) : NULL;
	Expr *args[4] = { value, pp_list(p, shape, rank, at), pp_list(p, offs, rank, at), valid_arg };
	Expr *call = pp_op(p, "tile.slice", args, valid_arg ? 4 : 3, at);
	if (!ndrop)
		return call;
	return drop_axes(p, call, drop, rank, true, valid_arg, drop_list, at);
}
