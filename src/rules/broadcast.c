/* rules/broadcast.c - the rule kinds of the reference's row / column
 * expansion and reduction families, on tensors and tiles (data/ops.yaml's
 * header documents each kind's fields).
 *
 * Tensor results are fresh values: no view, except a reduction's valid
 * region.  Tile results land in Vec with a TileView that is written out
 * only where it differs from the implicit one of the result's shape (the
 * reference canonicalises a view equal to the implicit one away, and its
 * printer elides each field equal to the implicit / default value).
 */
#include <stdio.h>
#include <string.h>

#include "ptoopt/typerule.h"
#include "ptoopt/types.h"

/* ------------------------------------------------------------ helpers */

static bool tensorish(const Type *t)
{
	return t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR);
}

static bool tileish(const Type *t)
{
	return t && t->kind == TY_TILE;
}


static bool const_dim(const Expr *e, int64_t *v)
{
	if (!e || e->kind != EX_INT)
		return false;
	*v = e->ival;
	return true;
}

/* One dimension as the reference prints it in messages (integers and
 * names; other expressions only roughly). */
static size_t fmt_dim(const Expr *e, char *buf, size_t n)
{
	if (!n)
		return 0;
	if (e->kind == EX_INT)
		return (size_t)snprintf(buf, n, "%lld", (long long)e->ival);
	if (e->kind == EX_VAR && e->var && e->var->name)
		return (size_t)snprintf(buf, n, "%s", e->var->name);
	if (e->kind == EX_BINARY) {
		static const char *const ops[] = { [OP_ADD] = " + ", [OP_SUB] = " - ", [OP_MUL] = " * ",
						   [OP_FLOORDIV] = " // ", [OP_MOD] = " % " };
		if (e->op == OP_MIN || e->op == OP_MAX) {
			size_t k = (size_t)snprintf(buf, n, "pl.%s(", e->op == OP_MIN ? "min" : "max");
			if (k < n)
				k += fmt_dim(e->lhs, buf + k, n - k);
			if (k < n)
				k += (size_t)snprintf(buf + k, n - k, ", ");
			if (k < n)
				k += fmt_dim(e->rhs, buf + k, n - k);
			if (k < n)
				k += (size_t)snprintf(buf + k, n - k, ")");
			return k;
		}
		if (e->op < sizeof ops / sizeof ops[0] && ops[e->op]) {
			size_t k = fmt_dim(e->lhs, buf, n);
			if (k < n)
				k += (size_t)snprintf(buf + k, n - k, "%s", ops[e->op]);
			if (k < n)
				k += fmt_dim(e->rhs, buf + k, n - k);
			return k;
		}
	}
	return (size_t)snprintf(buf, n, "?");
}

/* FormatShape: "[16, 1]" */
static const char *fmt_shape(Expr *const *dims, int ndim, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "[");
	for (int i = 0; i < ndim && k < n; i++) {
		if (i)
			k += (size_t)snprintf(buf + k, n - k, ", ");
		if (k < n)
			k += fmt_dim(dims[i], buf + k, n - k);
	}
	if (k < n)
		snprintf(buf + k, n - k, "]");
	return buf;
}

/* The effective valid shape: the view's valid_shape of the type's rank,
 * else the shape (GetValidShape). */
static Expr **valid_dims(const Type *t)
{
	Expr *v = tr_view_kw(t, "valid_shape");
	if (v && v->kind == EX_TUPLE && v->nargs == t->ndim && v->nargs)
		return v->args;
	return t->shape;
}

/* Provably equal extents (ProveValidExtentEqual == kTrue, without the
 * reference's arithmetic analyzer: equal expressions or constants). */
static bool provably_equal(const Expr *a, const Expr *b)
{
	return expr_equal(a, b);
}

/* ---- tile layouts */

enum { L_NONE_BOX, L_ROW_MAJOR, L_COL_MAJOR };
static const char *const layout_names[] = { "none_box", "row_major", "col_major" };

typedef struct TileLayouts {
	int blayout, slayout;
	Expr *pad, *compact; /* symbols, NULL when null */
} TileLayouts;

static int layout_of(const Expr *v, int def)
{
	if (!v || v->kind != EX_SYMBOL || strncmp(v->str, "pl.TileLayout.", 14) != 0)
		return def;
	for (int i = 0; i < 3; i++)
		if (!strcmp(v->str + 14, layout_names[i]))
			return i;
	return def;
}

/* The layouts a tile of this shape carries in memory space ms when its
 * view does not say (GetImplicitTileLayout). */
static void implicit_layouts(Expr *const *shape, int ndim, MemSpace ms, int *bl, int *sl)
{
	int64_t r, c;
	*bl = ndim == 2 && const_dim(shape[0], &r) && const_dim(shape[1], &c) && c == 1 && r > 1 ? L_COL_MAJOR : L_ROW_MAJOR;
	*sl = L_NONE_BOX;
	switch (ms) {
	case MS_MAT: case MS_LEFT: case MS_ACC: *bl = L_COL_MAJOR; *sl = L_ROW_MAJOR; break;
	case MS_RIGHT: *sl = L_COL_MAJOR; break;
	case MS_LEFT_SCALE: *bl = L_ROW_MAJOR; *sl = L_ROW_MAJOR; break;
	case MS_RIGHT_SCALE: *bl = L_COL_MAJOR; *sl = L_COL_MAJOR; break;
	default: break;
	}
}

/* GetEffectiveTileView's layout fields. */
static TileLayouts effective_layouts(const Type *t)
{
	TileLayouts l = { 0, 0, NULL, NULL };
	implicit_layouts(t->shape, t->ndim, t->mem, &l.blayout, &l.slayout);
	l.blayout = layout_of(tr_view_kw(t, "blayout"), l.blayout);
	l.slayout = layout_of(tr_view_kw(t, "slayout"), l.slayout);
	Expr *p = tr_view_kw(t, "pad");
	if (p && !(p->kind == EX_SYMBOL && !strcmp(p->str, "pl.PadValue.null")))
		l.pad = p;
	Expr *k = tr_view_kw(t, "compact");
	if (k && !(k->kind == EX_SYMBOL && !strcmp(k->str, "pl.CompactMode.null")))
		l.compact = k;
	return l;
}

/* A Vec tile of this shape, dtype, valid shape and layouts, with its view
 * in canonical form. */
static Type *vec_tile(SugarCtx *c, Expr **shape, int ndim, DType dt, Expr **valid, const TileLayouts *l)
{
	Type *t = ir_type_new(c->a, TY_TILE);
	t->dtype = dt;
	t->shape = shape;
	t->ndim = ndim;
	t->mem = MS_VEC;
	int ibl, isl;
	implicit_layouts(shape, ndim, MS_VEC, &ibl, &isl);
	const char *names[5];
	Expr *vals[5];
	int n = 0;
	bool full = true;
	for (int i = 0; i < ndim && valid; i++)
		full &= expr_equal(valid[i], shape[i]);
	if (!full) {
		names[n] = "valid_shape";
		vals[n++] = tr_list(c, valid, ndim, (SrcPos){ 0, 0 });
	}
	char buf[64];
	if (l->blayout != ibl) {
		snprintf(buf, sizeof buf, "pl.TileLayout.%s", layout_names[l->blayout]);
		names[n] = "blayout";
		vals[n++] = tr_symbol(c, buf);
	}
	if (l->slayout != isl) {
		snprintf(buf, sizeof buf, "pl.TileLayout.%s", layout_names[l->slayout]);
		names[n] = "slayout";
		vals[n++] = tr_symbol(c, buf);
	}
	if (l->pad) {
		names[n] = "pad";
		vals[n++] = l->pad;
	}
	if (l->compact) {
		names[n] = "compact";
		vals[n++] = l->compact;
	}
	if (n)
		t->view = tr_view(c, names, vals, n);
	return t;
}

/* A fresh tensor of this shape and dtype with its own valid region
 * (MakeFreshTensorType): a view only where the region is not the whole. */
static Type *fresh_tensor(SugarCtx *c, Expr **shape, int ndim, DType dt, Expr **valid)
{
	Type *t = ir_type_new(c->a, TY_TENSOR);
	t->dtype = dt;
	t->shape = shape;
	t->ndim = ndim;
	bool full = true;
	for (int i = 0; i < ndim && valid; i++)
		full &= expr_equal(valid[i], shape[i]);
	if (!full)
		t->view = tr_tensor_view(c, tr_list(c, valid, ndim, (SrcPos){ 0, 0 }), "pl.TensorLayout.ND", NULL);
	return t;
}

static bool dtype_in(DType dt, const DType *set, int n)
{
	for (int i = 0; i < n; i++)
		if (set[i] == dt)
			return true;
	return false;
}

static bool opt_is(const OpsResult *r, const char *key, const char *value)
{
	const char *v = tr_opt(r, key);
	return v && !strcmp(v, value);
}

/* ------------------------------------------------------------ expand */

/* The TROWEXPANDADD dtypes */
static const DType expand_add_dtypes[] = { DT_INT8, DT_INT16, DT_INT32, DT_FP16, DT_FP32 };

/* tile.row_expand_add (DeduceTileRowExpandAddType): a row-major src0 of a
 * supported dtype, the carrier's valid rows matching and its valid last
 * dimension one scalar (non-row-major) or one 32-byte block (row-major). */
static Type *tile_row_expand_add(RuleCtx *rc, const Type *t0, const Type *t1)
{
	const char *op = rc->op->name;
	char b0[256], b1[256];
	if (rc->r->nargs > 2) {
		Expr *tmp = tr_arg(rc, rc->r->args[2]);
		Type *t2 = tmp ? tr_type(tmp) : NULL;
		if (tmp && t2 && !tileish(t2))
			return tr_error(rc, "The operator %s requires optional third argument tmp to be a TileType, but got %s", op,
					tr_type_name(t2));
	}
	if (t0->ndim < 2)
		return tr_error(rc, "The operator %s requires first argument to have at least 2 dimensions, but got %d dimensions", op,
				t0->ndim);
	if (t1->ndim < 2)
		return tr_error(rc, "The operator %s requires second argument to have at least 2 dimensions, but got %d dimensions", op,
				t1->ndim);
	TileLayouts l0 = effective_layouts(t0);
	if (l0.blayout != L_ROW_MAJOR)
		return tr_error(rc, "The operator %s requires src0 effective blayout to be row_major", op);
	if (t0->dtype != t1->dtype)
		return tr_error(rc, "The operator %s requires src0 and src1 to have the same dtype, but got %s and %s", op,
				tr_dtype_str(t0->dtype), tr_dtype_str(t1->dtype));
	if (!dtype_in(t0->dtype, expand_add_dtypes, 5))
		return tr_error(rc, "The operator %s requires dtype in {INT8, INT16, INT32, FP16, FP32}, but got %s", op,
				tr_dtype_str(t0->dtype));
	Expr **v0 = valid_dims(t0), **v1 = valid_dims(t1);
	if (!provably_equal(v0[t0->ndim - 2], v1[t1->ndim - 2]))
		return tr_error(rc, "The operator %s requires src1 valid row extent to match src0/dst, but got src0 valid_shape %s "
				"and src1 valid_shape %s", op, fmt_shape(v0, t0->ndim, b0, sizeof b0),
				fmt_shape(v1, t1->ndim, b1, sizeof b1));
	bool packed = effective_layouts(t1).blayout == L_ROW_MAJOR;
	int64_t want = packed ? 32 / (ir_dtype_bits(t1->dtype) / 8) : 1, got;
	if (!const_dim(v1[t1->ndim - 1], &got) || got != want)
		return tr_error(rc, "The operator %s requires %s src1 valid last dimension to be %lld, but got valid_shape %s", op,
				packed ? "row-major" : "non-row-major", (long long)want, fmt_shape(v1, t1->ndim, b1, sizeof b1));
	return vec_tile(rc->c, t0->shape, t0->ndim, t0->dtype, v0, &l0);
}

/* {rule: expand, args: [MAIN, VEC(, TMP)], opts: {dir: row|col, check: add}}
 * row / col expansions of a tensor or tile (DeduceTensorRowExpandType,
 * ...ColExpandType, DeduceTileRowExpandType, ...ColExpandType): MAIN's
 * shape, the promoted dtype.  Tensors check the vector's unit dimension and
 * the matching one; tile column expansions check nothing but the kinds.
 * check: add - the same-dtype / dtype-set checks of row_expand_add (on
 * tiles its own deduction). */
static Type *expand(RuleCtx *rc)
{
	const OpsResult *r = rc->r;
	const char *op = rc->op->name;
	Type *t0 = tr_type(tr_arg(rc, r->arg)), *t1 = tr_type(tr_arg(rc, r->arg2));
	bool col = opt_is(r, "dir", "col"), add = opt_is(r, "check", "add");
	if (!t0 || !t1)
		return NULL;
	bool tile = !strncmp(op, "tile.", 5);
	const char *want = tile ? "TileType" : "TensorType";
	if (tile ? !tileish(t0) : !tensorish(t0))
		return tr_error(rc, "The operator %s requires first argument to be a %s, but got %s", op, want, tr_type_name(t0));
	if (tile ? !tileish(t1) : !tensorish(t1))
		return tr_error(rc, "The operator %s requires second argument to be a %s, but got %s", op, want, tr_type_name(t1));
	if (tile && add)
		return tile_row_expand_add(rc, t0, t1);
	DType dt = tr_promote(t0->dtype, t1->dtype);
	if (tile && col) {
		TileLayouts l = effective_layouts(t0);
		return vec_tile(rc->c, t0->shape, t0->ndim, dt, valid_dims(t0), &l);
	}
	char b[256];
	if (t0->ndim < 2)
		return tr_error(rc, "The operator %s requires first argument to have at least 2 dimensions, but got %d dimensions", op,
				t0->ndim);
	if (t1->ndim < 2)
		return tr_error(rc, "The operator %s requires second argument to have at least 2 dimensions, but got %d dimensions", op,
				t1->ndim);
	int64_t a, v;
	if (!col) {
		if (!const_dim(t1->shape[t1->ndim - 1], &v) || v != 1)
			return tr_error(rc, "The operator %s requires second argument's last dimension to be 1, but got %s", op,
					fmt_shape(t1->shape, t1->ndim, b, sizeof b));
		if (const_dim(t0->shape[t0->ndim - 2], &a) && const_dim(t1->shape[t1->ndim - 2], &v) && a != v)
			return tr_error(rc, "The operator %s requires matching row dimensions, but got %s rows=%lld and row_vec rows=%lld",
					op, tile ? "tile" : "tensor", (long long)a, (long long)v);
	} else {
		if (!const_dim(t1->shape[t1->ndim - 2], &v) || v != 1) {
			fmt_dim(t1->shape[t1->ndim - 2], b, sizeof b);
			return tr_error(rc, "The operator %s requires second argument's second-to-last dimension (row) to be 1, but got %s",
					op, b);
		}
		if (const_dim(t0->shape[t0->ndim - 1], &a) && const_dim(t1->shape[t1->ndim - 1], &v) && a != v)
			return tr_error(rc, "The operator %s requires matching column dimensions, but got tensor cols=%lld and col_vec "
					"cols=%lld", op, (long long)a, (long long)v);
	}
	if (add) {
		if (t0->dtype != t1->dtype)
			return tr_error(rc, "The operator %s requires src0 and src1 to have the same dtype, but got %s and %s", op,
					tr_dtype_str(t0->dtype), tr_dtype_str(t1->dtype));
		if (!dtype_in(t0->dtype, expand_add_dtypes, 5))
			return tr_error(rc, "The operator %s requires dtype in {INT8, INT16, INT32, FP16, FP32}, but got %s", op,
					tr_dtype_str(t0->dtype));
	}
	if (tile) {
		TileLayouts l = effective_layouts(t0);
		return vec_tile(rc->c, t0->shape, t0->ndim, dt, valid_dims(t0), &l);
	}
	return fresh_tensor(rc->c, t0->shape, t0->ndim, dt, NULL);
}

/* {rule: expand-scalar, args: [TARGET, SCALAR]}  a scalar broadcast to
 * TARGET's shape: a tensor keeps TARGET's dtype; a tile promotes it with the
 * scalar's and keeps TARGET's valid shape and layouts. */
static Type *expand_scalar(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Type *t0 = tr_type(tr_arg(rc, rc->r->arg)), *t1 = tr_type(tr_arg(rc, rc->r->arg2));
	if (!t0 || !t1)
		return NULL;
	bool tile = !strncmp(op, "tile.", 5);
	if (tile ? !tileish(t0) : !tensorish(t0))
		return tr_error(rc, "The operator %s requires first argument to be a %s, but got %s", op,
				tile ? "TileType" : "TensorType", tr_type_name(t0));
	if (t1->kind != TY_SCALAR)
		return tr_error(rc, "The operator %s requires second argument to be a ScalarType, but got %s", op, tr_type_name(t1));
	if (!tile)
		return fresh_tensor(rc->c, t0->shape, t0->ndim, t0->dtype, NULL);
	TileLayouts l = effective_layouts(t0);
	return vec_tile(rc->c, t0->shape, t0->ndim, tr_promote(t0->dtype, t1->dtype), valid_dims(t0), &l);
}

/* {rule: expand-clone, args: [INPUT, TARGET]}  tensor.expand_clone: a rank-3
 * INPUT cloned to TARGET's shape, broadcasting from 1 in at most one
 * dimension; the promoted dtype. */
static Type *expand_clone(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Type *t0 = tr_type(tr_arg(rc, rc->r->arg)), *t1 = tr_type(tr_arg(rc, rc->r->arg2));
	if (!t0 || !t1)
		return NULL;
	/* (the reference's two messages below lack the space after the name) */
	if (!tensorish(t0))
		return tr_error(rc, "%srequires first argument to be a TensorType, but got %s", op, tr_type_name(t0));
	if (!tensorish(t1))
		return tr_error(rc, "%srequires second argument to be a TensorType, but got %s", op, tr_type_name(t1));
	if (t0->ndim != 3)
		return tr_error(rc, "%s requires input rank to be 3, but got %d", op, t0->ndim);
	if (t0->ndim != t1->ndim)
		return tr_error(rc, "%s requires input rank (%d) to match target rank (%d)", op, t0->ndim, t1->ndim);
	int broadcast = 0;
	char b0[256], b1[256], d0[64], d1[64];
	for (int i = 0; i < t0->ndim; i++) {
		if (expr_equal(t0->shape[i], t1->shape[i]))
			continue;
		int64_t v;
		if (!const_dim(t0->shape[i], &v) || v != 1) {
			fmt_dim(t0->shape[i], d0, sizeof d0);
			fmt_dim(t1->shape[i], d1, sizeof d1);
			return tr_error(rc, "%s only allows broadcasting from dimension 1, but input shape %s cannot be expanded to %s "
					"at dim %d (got %s -> %s)", op, fmt_shape(t0->shape, t0->ndim, b0, sizeof b0),
					fmt_shape(t1->shape, t1->ndim, b1, sizeof b1), i, d0, d1);
		}
		broadcast++;
	}
	if (broadcast > 1)
		return tr_error(rc, "%s allows broadcasting in at most one dimension, but got %d (input shape %s, target shape %s)", op,
				broadcast, fmt_shape(t0->shape, t0->ndim, b0, sizeof b0), fmt_shape(t1->shape, t1->ndim, b1, sizeof b1));
	return fresh_tensor(rc->c, t1->shape, t1->ndim, tr_promote(t0->dtype, t1->dtype), NULL);
}

/* ------------------------------------------------------------ reduce */

static const DType row_min_dtypes[] = { DT_INT16, DT_INT32, DT_FP16, DT_FP32 };

/* CheckReductionInputNonEmpty */
static bool nonempty(RuleCtx *rc, Expr **valid, int ndim)
{
	char b[256];
	for (int i = 0; i < ndim; i++) {
		int64_t v;
		if (const_dim(valid[i], &v) && v == 0) {
			tr_error(rc, "%s: input valid extent on axis %d is 0 (valid_shape %s), so the reduction has no real data to "
				 "consume. The backend reduction kernels require a non-empty valid region on every axis and assert "
				 "on an empty one, and an empty region also leaves max/min with no value to return. Widen the valid "
				 "region, or guard the reduction so it does not run when the axis can be empty.",
				 rc->op->name, i, fmt_shape(valid, ndim, b, sizeof b));
			return false;
		}
	}
	return true;
}

/* tensor reductions (DeduceTensorReductionType / ...ColReductionType, with
 * the default axis and keep_dim: the DSL passes neither) */
static Type *tensor_reduce(RuleCtx *rc, const Type *t0, bool col, int out_dt)
{
	const char *op = rc->op->name;
	SugarCtx *c = rc->c;
	if (!tensorish(t0))
		return tr_error(rc, "The operator %s requires first argument to be a TensorType, but got %s", op, tr_type_name(t0));
	int n = t0->ndim;
	if (col && n < 2)
		return tr_error(rc, "The operator %s requires at least a 2D tensor, but got %d dimensions", op, n);
	int axis = n + (col ? -2 : -1);
	if (axis < 0 || axis >= n)
		return tr_error(rc, "The operator %s axis %d is out of range for shape with %d dimensions", op, axis, n);
	Expr **valid = valid_dims(t0);
	if (!nonempty(rc, valid, n))
		return NULL;
	Expr **shape = arena_alloc(c->a, (size_t)(n + 1) * sizeof *shape);
	Expr **vs = arena_alloc(c->a, (size_t)(n + 1) * sizeof *vs);
	Expr *one = tr_int(c, 1, DT_INDEX, (SrcPos){ 0, 0 });
	for (int i = 0; i < n; i++) {
		shape[i] = i == axis ? one : t0->shape[i];
		vs[i] = i == axis ? one : valid[i];
	}
	Type *t = fresh_tensor(c, shape, n, out_dt >= 0 ? (DType)out_dt : t0->dtype, vs);
	if (opt_is(rc->r, "check", "row-min") && !dtype_in(t0->dtype, row_min_dtypes, 4))
		return tr_error(rc, "The operator %s requires input dtype in {INT16, INT32, FP16, FP32}, but got %s", op,
				tr_dtype_str(t0->dtype));
	return t;
}

/* The scratch tile of a tile row reduction: same dtype and rank, each
 * dimension at least the input's (exactly it with `exact`). */
static bool check_row_tmp(RuleCtx *rc, const Type *t0, const Type *tt, bool exact)
{
	const char *op = rc->op->name;
	char b0[256], b1[256];
	if (!tileish(tt)) {
		tr_error(rc, "The operator %s requires tmp_tile to be a TileType, but got %s", op, tr_type_name(tt));
		return false;
	}
	if (tt->dtype != t0->dtype) {
		tr_error(rc, "The operator %s requires tmp_tile dtype to match input dtype, but got tmp_tile dtype %s and input dtype %s",
			 op, tr_dtype_str(tt->dtype), tr_dtype_str(t0->dtype));
		return false;
	}
	if (tt->ndim != t0->ndim) {
		tr_error(rc, "The operator %s requires tmp_tile to have the same rank as the input, but got tmp_tile shape %s and "
			 "input shape %s", op, fmt_shape(tt->shape, tt->ndim, b0, sizeof b0), fmt_shape(t0->shape, t0->ndim, b1, sizeof b1));
		return false;
	}
	for (int i = 0; i < t0->ndim; i++) {
		int64_t a, b;
		bool known = const_dim(t0->shape[i], &a) && const_dim(tt->shape[i], &b);
		if (exact && !expr_equal(t0->shape[i], tt->shape[i])) {
			tr_error(rc, "The operator %s requires tmp_tile shape to exactly match the input shape, but dimension %d differs; "
				 "got tmp_tile shape %s and input shape %s", op, i, fmt_shape(tt->shape, tt->ndim, b0, sizeof b0),
				 fmt_shape(t0->shape, t0->ndim, b1, sizeof b1));
			return false;
		}
		if (!exact && known && b < a) {
			tr_error(rc, "The operator %s requires tmp_tile shape to be at least the input shape in every dimension, but "
				 "tmp_tile dimension %d is undersized; got tmp_tile shape %s and input shape %s", op, i,
				 fmt_shape(tt->shape, tt->ndim, b0, sizeof b0), fmt_shape(t0->shape, t0->ndim, b1, sizeof b1));
			return false;
		}
	}
	return true;
}

/* tile reductions (DeduceTileRowReductionType / ...ColReductionType): the
 * reduced axis (last / first) becomes 1, the others keep their valid
 * extents; row results are col_major, column results row_major. */
static Type *tile_reduce(RuleCtx *rc, const Type *t0, bool col, int out_dt)
{
	const char *op = rc->op->name;
	SugarCtx *c = rc->c;
	const char *tmp = tr_opt(rc->r, "tmp");
	Expr *targ = rc->r->nargs > 1 ? tr_arg(rc, rc->r->args[1]) : NULL;
	Type *tt = targ ? tr_type(targ) : NULL;
	if (!tileish(t0))
		return tr_error(rc, "The operator %s requires first argument to be a TileType, but got %s", op, tr_type_name(t0));
	if (col && tmp && !strcmp(tmp, "same-dtype") && targ && tt) {
		if (!tileish(tt))
			return tr_error(rc, "The operator %s requires tmp_tile to be a TileType, but got %s", op, tr_type_name(tt));
		if (tt->dtype != t0->dtype)
			return tr_error(rc, "The operator %s requires tmp_tile dtype to match input dtype", op);
	}
	int n = t0->ndim;
	if (n < 2)
		return tr_error(rc, "The operator %s requires at least a 2D tile, but got %d dimensions", op, n);
	if (!col && tmp && targ && tt && !check_row_tmp(rc, t0, tt, !strcmp(tmp, "exact")))
		return NULL;
	Expr **valid = valid_dims(t0);
	if (!nonempty(rc, valid, n))
		return NULL;
	Expr **shape = arena_alloc(c->a, (size_t)(n + 1) * sizeof *shape);
	Expr **vs = arena_alloc(c->a, (size_t)(n + 1) * sizeof *vs);
	Expr *one = tr_int(c, 1, DT_INDEX, (SrcPos){ 0, 0 });
	int axis = col ? 0 : n - 1;
	for (int i = 0; i < n; i++) {
		shape[i] = i == axis ? one : t0->shape[i];
		vs[i] = i == axis ? one : valid[i];
	}
	TileLayouts l = { col ? L_ROW_MAJOR : L_COL_MAJOR, L_NONE_BOX, NULL, NULL };
	Type *t = vec_tile(c, shape, n, out_dt >= 0 ? (DType)out_dt : t0->dtype, vs, &l);
	if (opt_is(rc->r, "check", "row-min")) {
		if (!dtype_in(t0->dtype, row_min_dtypes, 4))
			return tr_error(rc, "The operator %s requires input dtype in {INT16, INT32, FP16, FP32}, but got %s", op,
					tr_dtype_str(t0->dtype));
		TileLayouts l0 = effective_layouts(t0);
		if (l0.blayout != L_ROW_MAJOR || l0.slayout != L_NONE_BOX)
			return tr_error(rc, "The operator %s requires an ND input layout (blayout=row_major, slayout=none_box), but got "
					"blayout=%s, slayout=%s", op, layout_names[l0.blayout], layout_names[l0.slayout]);
	}
	return t;
}

/* {rule: reduce, args: [INPUT(, TMP)], opts: {axis: row|col, dtype: DTYPE,
 * tmp: at-least|exact|same-dtype, check: row-min}}  row (last axis) / column
 * (second-to-last for tensors, first for tiles) reductions keeping the
 * reduced axis as 1. */
static Type *reduce(RuleCtx *rc)
{
	Type *t0 = tr_type(tr_arg(rc, rc->r->arg));
	if (!t0)
		return NULL;
	bool col = opt_is(rc->r, "axis", "col");
	const char *d = tr_opt(rc->r, "dtype");
	int out_dt = d ? ir_dtype_parse(d) : -1;
	return !strncmp(rc->op->name, "tile.", 5) ? tile_reduce(rc, t0, col, out_dt) : tensor_reduce(rc, t0, col, out_dt);
}

static const char *const expand_opts[] = { "dir", "check", NULL };
static const char *const reduce_opts[] = { "axis", "dtype", "tmp", "check", NULL };

const RuleKind typerule_broadcast[] = {
	{ "expand", expand, "arg,arg2", expand_opts, false },
	{ "expand-scalar", expand_scalar, "arg,arg2", NULL, false },
	{ "expand-clone", expand_clone, "arg,arg2", NULL, false },
	{ "reduce", reduce, "arg", reduce_opts, false },
	{ NULL, NULL, NULL, NULL, false },
};
