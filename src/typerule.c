/* typerule.c - the rule kinds of every family in one lookup, their
 * evaluation, and the helpers rule functions build types with.
 *
 * A rule is evaluated after a call's arguments are bound and checked
 * (sugar.c); its `when:` condition and the shape operand are settled here
 * so that each kind sees only what it computes from.
 */
#include "ptoopt/typerule.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/types.h"

static const RuleKind *const families[] = { typerule_core, typerule_elementwise, typerule_broadcast, typerule_layout,
						    typerule_system };

const RuleKind *typerule_find(const char *name)
{
	for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
		for (const RuleKind *k = families[f]; k->name; k++)
			if (!strcmp(k->name, name))
				return k;
	return NULL;
}

/* An op's deduced type carries no pl.MemRef (the reference's deductions
 * build new types): a rule that passes an operand's type through leaves
 * the operand's memref behind. */
static Type *no_memref(SugarCtx *c, Type *t)
{
	Type **elems = NULL;
	for (int i = 0; i < t->nelems; i++) {
		Type *e = no_memref(c, t->elems[i]);
		if (e != t->elems[i] && !elems) {
			elems = arena_alloc(c->a, (size_t)t->nelems * sizeof *elems);
			memcpy(elems, t->elems, (size_t)t->nelems * sizeof *elems);
		}
		if (elems)
			elems[i] = e;
	}
	if (!t->memref && !elems)
		return t;
	Type *n = tr_copy_type(c, t);
	n->memref = NULL;
	if (elems)
		n->elems = elems;
	return n;
}

/* dims as the reference's FormatShape writes them: [16, n, ?] */
void tr_fmt_shape(char *buf, size_t n, Expr **d, int nd)
{
	size_t k = (size_t)snprintf(buf, n, "[");
	for (int i = 0; i < nd && k < n; i++) {
		if (d[i]->kind == EX_INT)
			k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? ", " : "", (long long)d[i]->ival);
		else if (d[i]->kind == EX_VAR && d[i]->var)
			k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", d[i]->var->name);
		else
			k += (size_t)snprintf(buf + k, n - k, "%s?", i ? ", " : "");
	}
	if (k < n)
		snprintf(buf + k, n - k, "]");
}

/* The reference's ResolveValidShape, as its deducers ask every operand's
 * effective valid shape: an explicit valid_shape of another rank than the
 * shape is rejected; false after reporting it.  The kinds whose deducers
 * never ask (tile.move) or check it in words of their own (tile.load) are
 * passed over. */
static bool valid_ranks_ok(RuleCtx *rc, const RuleKind *k)
{
	static const char *const own[] = { "moved", "tile-move", "tile-load", NULL };
	for (int i = 0; i < rc->op->nparams; i++) {
		Type *t = rc->slots[i] ? ir_expr_type(rc->slots[i]) : NULL;
		if (!t || !t->view || (t->kind != TY_TILE && t->kind != TY_TENSOR && t->kind != TY_DIST_TENSOR))
			continue;
		Expr *v = tr_view_kw(t, "valid_shape");
		if (!v || v->kind != EX_TUPLE || !v->nargs || v->nargs == t->ndim)
			continue;
		/* the rules that make this check themselves (or never do) */
		for (int j = 0; own[j]; j++)
			if (!strcmp(k->name, own[j]))
				return true;
		char vs[256], ss[256];
		tr_fmt_shape(vs, sizeof vs, v->args, v->nargs);
		tr_fmt_shape(ss, sizeof ss, t->shape, t->ndim);
		tr_error(rc, "%s valid_shape rank (%d) must match the physical shape rank (%d): valid_shape %s vs shape %s",
			 t->kind == TY_TILE ? "TileType" : "TensorType", v->nargs, t->ndim, vs, ss);
		return false;
	}
	return true;
}

Type *typerule_infer(RuleCtx *rc, const OpsResult *r)
{
	if (!r->kind || !r->kind->fn)
		return NULL;
	if (r->when_kw) {
		Expr *w = tr_kwarg(rc, r->when_kw);
		if (!w || w->kind != EX_INT || w->ival != r->when_equals)
			return NULL;
	}
	if (!valid_ranks_ok(rc, r->kind))
		return NULL;
	const OpsResult *saved = rc->r;
	rc->r = r;
	Type *t = r->kind->fn(rc);
	rc->r = saved;
	/* a Tensor result that is an operand's own type (tile.store's output,
	 * tensor.assemble's target: the same Type object) keeps that operand's
	 * memref, as the reference returns the operand's type itself */
	if (!t || (!t->memref && t->kind != TY_TUPLE))
		return t; /* (nearly always: nothing to drop) */
	if (t->kind != TY_TILE)
		for (int i = 0; i < rc->op->nparams + rc->op->nkwargs; i++)
			if (rc->slots[i] && ir_expr_type(rc->slots[i]) == t)
				return t;
	return no_memref(rc->c, t);
}

Type *tr_error(RuleCtx *rc, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (!rc->failed)
		diag_error(rc->c->d, rc->call->pos.line, rc->call->pos.col, "%s", buf);
	rc->failed = true;
	return NULL;
}

Expr *tr_kwarg(RuleCtx *rc, const char *kw)
{
	/* kw may be a registry-interned name or any string */
	for (int i = 0; i < rc->op->nkwargs; i++) {
		const char *n = rc->op->kwargs[i].name;
		if (n == kw || (n[0] == kw[0] && !strcmp(n, kw)))
			return rc->slots[rc->op->nparams + i];
	}
	return NULL;
}

const char *tr_type_name(const Type *t)
{
	if (!t)
		return "UnknownType";
	switch (t->kind) {
	case TY_SCALAR: return "ScalarType";
	case TY_TENSOR: return "TensorType";
	case TY_DIST_TENSOR: return "DistributedTensorType";
	case TY_TILE: return "TileType";
	case TY_TUPLE: return "TupleType";
	case TY_ARRAY: return "ArrayType";
	case TY_PTR: return "PtrType";
	case TY_NAMED:
		/* pl.MemRefType -> MemRefType; the comm context's class is CommCtxType */
		return strchr(t->name, '.') ? strchr(t->name, '.') + 1 : t->name;
	default: return "UnknownType";
	}
}

const char *tr_dtype_str(DType t)
{
	static char names[DT_COUNT][16];
	if (t == DT_BF16)
		return "bfloat16";
	if (!names[t][0]) {
		const char *s = ir_dtype_name(t);
		size_t i = 0;
		for (; s[i] && i < sizeof names[t] - 1; i++)
			names[t][i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
		names[t][i] = 0;
	}
	return names[t];
}

int64_t tr_opt_int(const OpsResult *r, const char *key, int64_t def)
{
	const char *v = tr_opt(r, key);
	return v ? strtoll(v, NULL, 0) : def;
}

int tr_elem_dtype(Expr *e)
{
	Type *t = e ? ir_expr_type(e) : NULL;
	if (!t || (t->kind != TY_TENSOR && t->kind != TY_TILE && t->kind != TY_SCALAR && t->kind != TY_DIST_TENSOR &&
		   t->kind != TY_ARRAY))
		return -1;
	return t->dtype;
}

/* PromoteDataTypes: float beats int, wider bits win, equal bits prefer
 * signed, else the left operand. */
DType tr_promote(DType a, DType b)
{
	if (a == b)
		return a; /* what the rules below give, without the table lookups */
	bool af = ir_dtype_is_float(a), bf = ir_dtype_is_float(b);
	if (af != bf)
		return af ? a : b;
	int ab = ir_dtype_bits(a), bb = ir_dtype_bits(b);
	if (ab != bb)
		return ab > bb ? a : b;
	bool au = a >= DT_UINT4 && a <= DT_UINT64, bu = b >= DT_UINT4 && b <= DT_UINT64;
	if (au && !bu)
		return b;
	return a;
}

/* ------------------------------------------------------------ values */

Expr *tr_int(SugarCtx *c, int64_t v, DType dt, SrcPos pos)
{
	Expr *e = ir_expr_new(c->a, dt == DT_BOOL ? EX_BOOL : EX_INT, pos);
	e->ival = v;
	e->dtype = (uint8_t)dt;
	e->type = ir_scalar_type(c->a, dt);
	return e;
}

Expr *tr_float(SugarCtx *c, double v, DType dt, SrcPos pos)
{
	Expr *e = ir_expr_new(c->a, EX_FLOAT, pos);
	e->fval = v;
	e->dtype = (uint8_t)dt;
	e->type = ir_scalar_type(c->a, dt);
	return e;
}

Expr *tr_list(SugarCtx *c, Expr **elems, int n, SrcPos pos)
{
	Expr *e = ir_expr_new(c->a, EX_TUPLE, pos);
	e->nargs = n;
	e->args = arena_alloc(c->a, (size_t)(n + 1) * sizeof *e->args);
	for (int i = 0; i < n; i++)
		e->args[i] = elems[i];
	return e;
}

Expr *tr_symbol(SugarCtx *c, const char *s)
{
	Expr *e = ir_expr_new(c->a, EX_SYMBOL, (SrcPos){ 0, 0 });
	e->str = intern_cstr(c->a, s);
	return e;
}

/* ------------------------------------------------------------ types */

Type *tr_copy_type(SugarCtx *c, const Type *t)
{
	Type *n = ir_type_new(c->a, t->kind);
	*n = *t;
	return n;
}

static __attribute__((noinline)) Type *fresh_copy(SugarCtx *c, const Type *t)
{
	Type *n = tr_copy_type(c, t);
	if (n->kind == TY_TENSOR)
		n->view = NULL, n->memref = NULL;
	else
		n->mem = MS_VEC;
	return n;
}

Type *tr_fresh(SugarCtx *c, const Type *t)
{
	if (t->kind != TY_TENSOR && t->kind != TY_TILE)
		return (Type *)t;
	if (t->kind == TY_TENSOR ? !t->view && !t->memref : t->mem != MS_NONE)
		return (Type *)t;
	return fresh_copy(c, t);
}

static __attribute__((noinline)) Type *reshaped_copy(SugarCtx *c, const Type *t, DType dt, Expr **shape, int ndim)
{
	Type *n = tr_copy_type(c, t);
	n->dtype = dt;
	n->shape = shape;
	n->ndim = ndim;
	return n;
}

/* (types are immutable, so a result equal to an operand's type shares it) */
Type *tr_reshaped_as(SugarCtx *c, const Type *t, DType dt, Expr **shape, int ndim)
{
	if (t->dtype == dt && t->shape == shape && t->ndim == ndim)
		return (Type *)t;
	return reshaped_copy(c, t, dt, shape, ndim);
}

Type *tr_shaped(SugarCtx *c, TypeKind k, Expr *shape, DType dt)
{
	Type *t = ir_type_new(c->a, k);
	t->dtype = dt;
	t->shape = shape->args;
	t->ndim = shape->nargs;
	return t;
}

bool tr_same_dims(const Expr *a, Expr **dims, int n)
{
	if (a->nargs != n)
		return false;
	for (int i = 0; i < n; i++)
		if (!expr_equal(a->args[i], dims[i]))
			return false;
	return true;
}

ViewSpec *tr_view(SugarCtx *c, const char **names, Expr **vals, int n)
{
	ViewSpec *vs = arena_alloc(c->a, sizeof *vs);
	vs->kw = arena_alloc(c->a, (size_t)(n + 1) * sizeof *vs->kw);
	for (int i = 0; i < n; i++)
		vs->kw[i] = (Kwarg){ intern_cstr(c->a, names[i]), vals[i] };
	vs->nkw = n;
	return vs;
}

ViewSpec *tr_tensor_view_strided(SugarCtx *c, Expr *valid, Expr *stride, const char *layout, Expr *pad)
{
	const char *names[4];
	Expr *vals[4];
	int n = 0;
	if (valid) {
		names[n] = "valid_shape";
		vals[n++] = valid;
	}
	names[n] = "stride";
	vals[n++] = stride ? stride : ir_expr_new(c->a, EX_TUPLE, (SrcPos){ 0, 0 });
	names[n] = "layout";
	vals[n++] = tr_symbol(c, layout);
	if (pad) {
		names[n] = "pad";
		vals[n++] = pad;
	}
	return tr_view(c, names, vals, n);
}

ViewSpec *tr_tensor_view(SugarCtx *c, Expr *valid, const char *layout, Expr *pad)
{
	return tr_tensor_view_strided(c, valid, NULL, layout, pad);
}

Expr *tr_view_kw(const Type *t, const char *kw)
{
	if (!t || !t->view)
		return NULL;
	for (int i = 0; i < t->view->nkw; i++)
		if (!strcmp(t->view->kw[i].name, kw))
			return t->view->kw[i].value;
	return NULL;
}

/* (Mat: col_major / row_major; otherwise row_major, or col_major for an
 * [N, 1] Vec tile, / none_box) */
void tr_tile_layouts(const Type *t, const char *out[2])
{
	bool mat = t->mem == MS_MAT;
	out[0] = mat || (t->ndim == 2 && ir_is_int_const(t->shape[1], 1, DT_INDEX) && t->mem == MS_VEC) ? "col_major" : "row_major";
	out[1] = mat ? "row_major" : "none_box";
	for (int i = 0; t->view && i < t->view->nkw; i++) {
		const Expr *v = t->view->kw[i].value;
		int slot = !strcmp(t->view->kw[i].name, "blayout") ? 0 : !strcmp(t->view->kw[i].name, "slayout") ? 1 : -1;
		if (slot >= 0 && v->kind == EX_SYMBOL && !strncmp(v->str, "pl.TileLayout.", 14))
			out[slot] = v->str + 14;
	}
}

/* a <= b, provably: equal, constants compared, or through min / max. */
/* DimensionsEqual as far as it is provable here: constants by value,
 * anything else structurally. */
static bool dim_equal(const Expr *a, const Expr *b)
{
	if (a == b)
		return true;
	if (a->kind == EX_INT && b->kind == EX_INT)
		return a->ival == b->ival;
	return expr_equal(a, b);
}

Expr **tr_broadcast(SugarCtx *c, Expr **s1, int n1, Expr **s2, int n2, int *nout)
{
	int n = n1 > n2 ? n1 : n2;
	*nout = n;
	if (!n1 || !n2)
		return n1 ? s1 : s2;
	Expr **out = arena_alloc(c->a, (size_t)(n + 1) * sizeof *out);
	bool same1 = n == n1;
	for (int i = 0; i < n; i++) {
		int i1 = n1 - 1 - i, i2 = n2 - 1 - i;
		Expr *d1 = i1 >= 0 ? s1[i1] : NULL, *d2 = i2 >= 0 ? s2[i2] : NULL, *r;
		if (!d1)
			r = d2;
		else if (!d2 || dim_equal(d1, d2))
			r = d1;
		else if (d1->kind == EX_INT && d1->ival == 1)
			r = d2;
		else if (d2->kind == EX_INT && d2->ival == 1)
			r = d1;
		else
			return NULL;
		out[n - 1 - i] = r;
		same1 &= r == d1;
	}
	return same1 ? s1 : out;
}

bool tr_extent_le(const Expr *a, const Expr *b)
{
	if (expr_equal(a, b))
		return true;
	if (a->kind == EX_INT && b->kind == EX_INT)
		return a->ival <= b->ival;
	if (a->kind == EX_BINARY && a->op == OP_MIN && (tr_extent_le(a->lhs, b) || tr_extent_le(a->rhs, b)))
		return true;
	if (b->kind == EX_BINARY && b->op == OP_MAX && (tr_extent_le(a, b->lhs) || tr_extent_le(a, b->rhs)))
		return true;
	return false;
}

/* min(a, b), settled when one side is provably the smaller. */
Expr *tr_extent_min(SugarCtx *c, Expr *a, Expr *b)
{
	if (tr_extent_le(a, b))
		return a;
	if (tr_extent_le(b, a))
		return b;
	return type_make_binary(c->a, OP_MIN, a, b, a->pos, c->d);
}
