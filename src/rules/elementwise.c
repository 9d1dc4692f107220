/* rules/elementwise.c - the rule kinds of the reference's elementwise
 * families: unary, binary and scalar-operand arithmetic, bitwise and shift
 * ops, comparisons and selects, on tensors and tiles (data/ops.yaml's header
 * documents each kind's fields).
 *
 * What the results carry, as the reference's deducers build them:
 * - a tensor result is a fresh tensor (no stride, layout or memref of its
 *   operands); it keeps the operand's valid region where the deducer says
 *   so (unary ops and scalar operands always, binary ops when both operands
 *   have the same shape and provably the same valid region);
 * - a tile result is a fresh Vec tile whose TileView takes the first tile
 *   operand's valid shape and its block / scatter layouts, pad and compact
 *   mode, printed only where they differ from the implicit view of the
 *   result's own shape.
 * The checks report the reference's messages (dtype names as its
 * DataType::ToString spells them).
 */
#include <stdio.h>
#include <string.h>

#include "ptoopt/typerule.h"
#include "ptoopt/types.h"

/* ------------------------------------------------------------ facts */

static bool is_tensor(const Type *t)
{
	return t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR);
}

static bool is_tile(const Type *t)
{
	return t && t->kind == TY_TILE;
}

static bool is_scalar(const Type *t)
{
	return t && t->kind == TY_SCALAR;
}


/* The op's name as the reference spells it: tile.and_ is tile.and. */
static const char *ref_name(RuleCtx *rc, char *buf, size_t n)
{
	const char *name = rc->op->name;
	size_t l = strlen(name);
	if (!l || name[l - 1] != '_')
		return name; /* (every call asks: no copy unless needed) */
	snprintf(buf, n, "%.*s", (int)(l - 1), name);
	return buf;
}

static bool const_dim(const Expr *e, int64_t *v)
{
	if (e->kind != EX_INT)
		return false;
	*v = e->ival;
	return true;
}

/* DimensionsEqual / ProveValidExtentEqual, as far as it is provable here:
 * constants by value, anything else structurally. */
static bool dims_equal(const Expr *a, const Expr *b)
{
	int64_t x, y;
	if (a == b)
		return true;
	if (const_dim(a, &x) && const_dim(b, &y))
		return x == y;
	return expr_equal(a, b);
}

static bool shapes_equal(Expr **a, int na, Expr **b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (!dims_equal(a[i], b[i]))
			return false;
	return true;
}

/* FormatShape: "[16, N]". */
static const char *fmt_shape(Expr **dims, int n, char *buf, size_t size)
{
	Type t = { .kind = TY_TENSOR, .dtype = DT_FP32, .shape = dims, .ndim = n };
	char tmp[1024];
	type_to_string(&t, tmp, sizeof tmp);
	/* pl.Tensor[[...], pl.FP32] */
	const char *s = strchr(tmp, '['), *e = strrchr(tmp, ',');
	if (!s || !e || e <= s + 1) {
		snprintf(buf, size, "[]");
		return buf;
	}
	snprintf(buf, size, "%.*s", (int)(e - s - 1), s + 1);
	return buf;
}

/* The effective valid shape of a tensor / tile type (GetValidShape). */
static Expr **valid_of(const Type *t, int *n)
{
	Expr *v = tr_view_kw(t, "valid_shape");
	if (v && v->kind == EX_TUPLE && v->nargs) {
		*n = v->nargs;
		return v->args;
	}
	*n = t->ndim;
	return t->shape;
}

/* ------------------------------------------------------------ results */

/* A fresh tensor (MakeFreshTensorType): valid (NULL: none) printed as a
 * TensorView only where it differs from the shape. */
static Type *tensor_result(SugarCtx *c, const Type *like, Expr **shape, int n, DType dt, Expr **valid, int nv)
{
	bool view = valid && !shapes_equal(valid, nv, shape, n);
	if (like && like->kind == TY_TENSOR && !like->view && !like->memref && like->dtype == dt && like->shape == shape &&
	    like->ndim == n && !view)
		return (Type *)like;
	Type *t = ir_type_new(c->a, TY_TENSOR);
	t->dtype = dt;
	t->shape = shape;
	t->ndim = n;
	if (view)
		t->view = tr_tensor_view(c, tr_list(c, valid, nv, (SrcPos){ 0, 0 }), "pl.TensorLayout.ND", NULL);
	return t;
}

typedef struct Layout {
	const char *blayout, *slayout; /* TileLayout names */
	const char *pad, *compact;     /* PadValue / CompactMode names, NULL: null */
	int fractal;
} Layout;

/* GetImplicitTileView's layouts for a shape in a memory space. */
static Layout implicit_layout(Expr **shape, int n, MemSpace mem)
{
	Layout l = { "row_major", "none_box", NULL, NULL, 512 };
	int64_t r, k;
	if (n == 2 && const_dim(shape[0], &r) && const_dim(shape[1], &k) && k == 1 && r > 1)
		l.blayout = "col_major";
	switch (mem) {
	case MS_MAT: case MS_LEFT: l.blayout = "col_major", l.slayout = "row_major"; break;
	case MS_RIGHT: l.slayout = "col_major"; break;
	case MS_LEFT_SCALE: l.blayout = "row_major", l.slayout = "row_major", l.fractal = 32; break;
	case MS_RIGHT_SCALE: l.blayout = "col_major", l.slayout = "col_major", l.fractal = 32; break;
	case MS_ACC: l.blayout = "col_major", l.slayout = "row_major", l.fractal = 1024; break;
	default: break;
	}
	return l;
}

static const char *symbol_tail(const Expr *v, const char *prefix)
{
	size_t n = strlen(prefix);
	return v && v->kind == EX_SYMBOL && !strncmp(v->str, prefix, n) ? v->str + n : NULL;
}

/* A tile type's effective view (GetEffectiveTileView): what its TileView
 * states, the implicit view of its shape and memory space elsewhere. */
static Layout effective_layout(const Type *t)
{
	Layout l = implicit_layout(t->shape, t->ndim, t->mem);
	const char *s;
	if ((s = symbol_tail(tr_view_kw(t, "blayout"), "pl.TileLayout.")))
		l.blayout = s;
	if ((s = symbol_tail(tr_view_kw(t, "slayout"), "pl.TileLayout.")))
		l.slayout = s;
	if ((s = symbol_tail(tr_view_kw(t, "pad"), "pl.PadValue.")))
		l.pad = strcmp(s, "null") ? s : NULL;
	if ((s = symbol_tail(tr_view_kw(t, "compact"), "pl.CompactMode.")))
		l.compact = strcmp(s, "null") ? s : NULL;
	return l;
}

/* A tile of shape / dtype in mem whose TileView has valid_shape `valid` and
 * src's layouts, pad and compact mode (InheritTileViewLayout; the fractal
 * is the default one), or pad `pad` when given; keeps src's memref when
 * asked (fillpad).  The view holds what differs from the implicit one. */
static Type *tile_result(SugarCtx *c, const Type *src, Expr **shape, int n, DType dt, Expr **valid, int nv, MemSpace mem,
			 bool keep_memref, const char *pad)
{
	Layout l = effective_layout(src), imp = implicit_layout(shape, n, mem);
	if (pad)
		l.pad = pad;
	const char *names[6];
	Expr *vals[6];
	int k = 0;
	char buf[64];
	if (valid && !shapes_equal(valid, nv, shape, n)) {
		names[k] = "valid_shape";
		vals[k++] = tr_list(c, valid, nv, (SrcPos){ 0, 0 });
	}
	if (strcmp(l.blayout, imp.blayout)) {
		snprintf(buf, sizeof buf, "pl.TileLayout.%s", l.blayout);
		names[k] = "blayout";
		vals[k++] = tr_symbol(c, buf);
	}
	if (strcmp(l.slayout, imp.slayout)) {
		snprintf(buf, sizeof buf, "pl.TileLayout.%s", l.slayout);
		names[k] = "slayout";
		vals[k++] = tr_symbol(c, buf);
	}
	if (imp.fractal != 512) {
		names[k] = "fractal";
		vals[k++] = tr_int(c, 512, DT_INDEX, (SrcPos){ 0, 0 });
	}
	if (l.pad) {
		snprintf(buf, sizeof buf, "pl.PadValue.%s", l.pad);
		names[k] = "pad";
		vals[k++] = tr_symbol(c, buf);
	}
	if (l.compact) {
		snprintf(buf, sizeof buf, "pl.CompactMode.%s", l.compact);
		names[k] = "compact";
		vals[k++] = tr_symbol(c, buf);
	}
	if (!k && src->kind == TY_TILE && !src->view && src->dtype == dt && src->shape == shape && src->ndim == n &&
	    src->mem == mem && (keep_memref || !src->memref))
		return (Type *)src;
	Type *t = ir_type_new(c->a, TY_TILE);
	t->dtype = dt;
	t->shape = shape;
	t->ndim = n;
	t->mem = mem;
	t->memref = keep_memref ? src->memref : NULL;
	if (k)
		t->view = tr_view(c, names, vals, k);
	return t;
}

/* The common tile result: shaped like `shape`, valid and layouts of src. */
static Type *tile_like(SugarCtx *c, const Type *src, Expr **shape, int n, DType dt)
{
	int nv;
	Expr **valid = valid_of(src, &nv);
	return tile_result(c, src, shape, n, dt, valid, nv, MS_VEC, false, NULL);
}

static bool kwarg_true(RuleCtx *rc, const char *kw)
{
	Expr *v = tr_kwarg(rc, kw);
	return v && (v->kind == EX_BOOL || v->kind == EX_INT) && v->ival;
}

static bool opt_is(RuleCtx *rc, const char *key, const char *value)
{
	const char *v = tr_opt(rc->r, key);
	return v && !strcmp(v, value);
}

static bool in_set(DType t, const DType *set, int n)
{
	for (int i = 0; i < n; i++)
		if (set[i] == t)
			return true;
	return false;
}

static const DType tdiv_set[] = { DT_INT16, DT_INT32, DT_FP16, DT_FP32 };
static const DType tsubs_set[] = { DT_INT8, DT_INT16, DT_INT32, DT_FP16, DT_FP32, DT_BF16 };

/* Replace the value m of a kwarg by n, in the call and in the slots (the
 * reference stores a normalized value, and prints that). */
static void replace_kwarg(RuleCtx *rc, const Expr *m, Expr *n)
{
	for (int i = 0; i < rc->call->nkw; i++)
		if (rc->call->kw[i].value == m)
			rc->call->kw[i].value = n;
	for (int i = 0; i < rc->op->nkwargs; i++)
		if (rc->slots[rc->op->nparams + i] == m)
			rc->slots[rc->op->nparams + i] = n;
}

/* A cast's rounding mode (resolve_cast_mode): a name, or its code 0..6,
 * which prints as the name (the reference stores the code); false after
 * reporting an invalid one. */
static bool cast_mode(RuleCtx *rc)
{
	static const char *const names[] = { "none", "rint", "round", "floor", "ceil", "trunc", "odd" };
	Expr *m = tr_kwarg(rc, "mode");
	if (!m)
		return true;
	if (m->kind == EX_STR) {
		for (int i = 0; i < 7; i++)
			if (!strcmp(m->str, names[i]))
				return true;
		tr_error(rc, "Invalid rounding mode '%s'. Expected one of ['none', 'rint', 'round', 'floor', 'ceil', 'trunc', 'odd'].",
			 m->str);
		return false;
	}
	if (m->kind == EX_BOOL) {
		tr_error(rc, "Invalid rounding mode %s. Expected str name or int in range [0, 6].", m->ival ? "True" : "False");
		return false;
	}
	if (m->kind != EX_INT)
		return true;
	if (m->ival < 0 || m->ival > 6) {
		tr_error(rc, "Invalid rounding mode %lld. Expected int in range [0, 6].", (long long)m->ival);
		return false;
	}
	Expr *n = ir_expr_new(rc->c->a, EX_STR, m->pos);
	n->str = intern_cstr(rc->c->a, names[m->ival]);
	replace_kwarg(rc, m, n);
	return true;
}

/* ------------------------------------------------------------ tensors */

/* DeduceTensorOpElementwiseScalarType and the checks layered on it. */
static Type *tensor_scalar_with(RuleCtx *rc, const Type *t0, const Type *t1, bool keep_valid)
{
	char nb[96];
	const char *name = ref_name(rc, nb, sizeof nb);
	if (!is_scalar(t1))
		return tr_error(rc, "The operator %s requires second argument to be a ScalarType, but got %s", name,
				tr_type_name(t1));
	bool lhs_dtype = opt_is(rc, "dtype", "lhs");
	DType dt = lhs_dtype ? t0->dtype : tr_promote(t0->dtype, t1->dtype);
	const char *check = tr_opt(rc->r, "check");
	if (check && !strcmp(check, "tsubs")) {
		if (!in_set(t0->dtype, tsubs_set, 6))
			return tr_error(rc, "The operator %s requires tensor dtype in {INT8, INT16, INT32, FP16, FP32, BF16}, but got %s",
					name, tr_dtype_str(t0->dtype));
		if (!in_set(t1->dtype, tsubs_set, 6))
			return tr_error(rc, "The operator %s requires scalar dtype in {INT8, INT16, INT32, FP16, FP32, BF16}, but got %s",
					name, tr_dtype_str(t1->dtype));
	} else if (check && (!strcmp(check, "bitwise") || !strcmp(check, "shift"))) {
		if (!ir_dtype_is_int(t0->dtype))
			return tr_error(rc, "The operator %s requires an integer tensor dtype, but got %s", name, tr_dtype_str(t0->dtype));
		if (!ir_dtype_is_int(t1->dtype))
			return tr_error(rc, "The operator %s requires the shift/bitwise scalar to be an integer type, but got %s", name,
					tr_dtype_str(t1->dtype));
		Expr *s = tr_arg(rc, rc->r->arg2);
		if (!strcmp(check, "shift") && s && s->kind == EX_INT && s->ival < 0)
			return tr_error(rc, "The operator %s requires a non-negative shift count, but got %lld. A negative shift distance has no defined result.",
					name, (long long)s->ival);
	}
	int nv = 0;
	Expr **valid = keep_valid && t0->kind == TY_TENSOR ? valid_of(t0, &nv) : NULL;
	return tensor_result(rc->c, t0, t0->shape, t0->ndim, dt, valid, nv);
}

static Type *tensor_scalar(RuleCtx *rc)
{
	Type *t0 = tr_type(tr_arg(rc, rc->r->arg)), *t1 = tr_type(tr_arg(rc, rc->r->arg2));
	if (!is_tensor(t0) || !t1)
		return NULL;
	return tensor_scalar_with(rc, t0, t1, !opt_is(rc, "valid", "drop"));
}

/* DeduceTensorOpElementwiseBinaryType / DeduceTensorOpBitwiseBinaryType,
 * routing a scalar rhs to the scalar deducer where the op takes one. */
static Type *tensor_binary(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	Type *t0 = tr_type(tr_arg(rc, rc->r->arg)), *t1 = tr_type(tr_arg(rc, rc->r->arg2));
	if (!is_tensor(t0) || !t1)
		return NULL;
	const char *scalar = tr_opt(rc->r, "scalar");
	if (scalar && !is_tensor(t1))
		return tensor_scalar_with(rc, t0, t1, strcmp(scalar, "drop") != 0);
	char nb[96], s0[512], s1[512];
	const char *name = ref_name(rc, nb, sizeof nb);
	if (!is_tensor(t1))
		return tr_error(rc, "The operator %s requires second argument to be a TensorType or DistributedTensorType, but got %s",
				name, tr_type_name(t1));
	const char *bitwise = tr_opt(rc->r, "bitwise");
	DType dt;
	Expr **shape;
	int n;
	if (bitwise) {
		if (!ir_dtype_is_int(t0->dtype))
			return tr_error(rc, "The operator %s requires an integer tensor dtype, but got %s", name, tr_dtype_str(t0->dtype));
		if (!ir_dtype_is_int(t1->dtype))
			return tr_error(rc, "The operator %s requires an integer tensor dtype, but got %s", name, tr_dtype_str(t1->dtype));
		if (!shapes_equal(t0->shape, t0->ndim, t1->shape, t1->ndim))
			return tr_error(rc, "The operator %s requires both operands to have the same shape, but got %s and %s. "
					"Broadcasting is not supported for bitwise/shift operators because the hardware provides no "
					"row/col-expand form; reshape or expand the operand explicitly first.",
					name, fmt_shape(t0->shape, t0->ndim, s0, sizeof s0), fmt_shape(t1->shape, t1->ndim, s1, sizeof s1));
		dt = !strcmp(bitwise, "lhs") ? t0->dtype : tr_promote(t0->dtype, t1->dtype);
		shape = t0->shape;
		n = t0->ndim;
	} else {
		dt = tr_promote(t0->dtype, t1->dtype);
		if (!(shape = tr_broadcast(c, t0->shape, t0->ndim, t1->shape, t1->ndim, &n)))
			return tr_error(rc, "The operator %s requires compatible shapes, but got %s and %s", name,
					fmt_shape(t0->shape, t0->ndim, s0, sizeof s0), fmt_shape(t1->shape, t1->ndim, s1, sizeof s1));
	}
	if (opt_is(rc, "check", "tdiv")) {
		for (int i = 0; i < 2; i++) {
			const Type *t = i ? t1 : t0;
			if (!in_set(t->dtype, tdiv_set, 4))
				return tr_error(rc, "The operator %s requires operand dtype in {INT16, INT32, FP16, FP32}, but got %s", name,
						tr_dtype_str(t->dtype));
		}
		if (kwarg_true(rc, "high_precision") && !ir_dtype_is_float(dt))
			return tr_error(rc, "The operator %s supports high_precision only for FP16 or FP32 because the PTOAS "
					"high-precision template does not implement integer division", name);
	}
	/* GetMatchingElementwiseValidShape: plain tensors of one shape whose
	 * valid regions are provably equal keep it */
	Expr **valid = NULL;
	int nv = 0;
	if (!opt_is(rc, "valid", "drop") && t0->kind == TY_TENSOR && t1->kind == TY_TENSOR &&
	    shapes_equal(t0->shape, t0->ndim, t1->shape, t1->ndim)) {
		int nv1;
		Expr **v0 = valid_of(t0, &nv), **v1 = valid_of(t1, &nv1);
		valid = shapes_equal(v0, nv, v1, nv1) ? v0 : NULL;
	}
	return tensor_result(c, t0, shape, n, dt, valid, nv);
}

/* The unary deducers of tensor_ops/unary.cpp: the input's shape and valid
 * region, its dtype (FP32 for an integer input with opts float: fp32), or
 * the dtype of kwarg `dtype:` (cast). */
static Type *tensor_unary(RuleCtx *rc)
{
	Type *t0 = tr_type(tr_arg(rc, rc->r->arg));
	if (!is_tensor(t0))
		return NULL;
	char nb[96];
	const char *name = ref_name(rc, nb, sizeof nb);
	DType dt = t0->dtype;
	const char *only = tr_opt(rc->r, "only");
	if (only && !strcmp(only, "fp32") && dt != DT_FP32)
		return tr_error(rc, "%s is FP32-only, but got input with dtype %s. Cast the input to FP32 explicitly via "
				"pl.cast(x, pl.FP32) before applying %s.", name, tr_dtype_str(dt), name);
	if (only && !strcmp(only, "fp16-fp32") && dt != DT_FP16 && dt != DT_FP32)
		return tr_error(rc, "%s requires an FP16 or FP32 tensor operand, but got %s", name, tr_dtype_str(dt));
	if (only && !strcmp(only, "int16") && dt != DT_INT16 && dt != DT_UINT16)
		return tr_error(rc, "%s requires an int16 or uint16 tensor dtype, but got %s. Reinterpret or cast the tensor "
				"to a 16-bit integer dtype first.", name, tr_dtype_str(dt));
	if (opt_is(rc, "hp", "fp") && kwarg_true(rc, "high_precision") && dt != DT_FP16 && dt != DT_FP32)
		return tr_error(rc, "The operator %s supports high_precision only for FP16 or FP32 because the PTOAS "
				"high-precision template does not implement other dtypes", name);
	if (rc->r->dtype_kw) {
		int target = tr_dtype_symbol(rc->c, tr_kwarg(rc, rc->r->dtype_kw));
		if (!cast_mode(rc) || target < 0)
			return NULL;
		if ((DType)target == dt)
			return tr_error(rc, "%s: target_type %s equals input dtype; same-dtype cast is not a valid operation. "
					"Remove the cast or use a different target_type.", name, tr_dtype_str(dt));
		dt = (DType)target;
	} else if (opt_is(rc, "float", "fp32") && !ir_dtype_is_float(dt)) {
		dt = DT_FP32;
	}
	int nv;
	Expr **valid = valid_of(t0, &nv);
	return tensor_result(rc->c, t0, t0->shape, t0->ndim, dt, valid, nv);
}

/* ------------------------------------------------------------ tiles */

/* DeduceTileOpElementwiseBinaryType and its relatives: two tiles (args 0
 * and 1), with opts int (integer dtypes), shift (lhs dtype, integer shift
 * tile), tdiv (tile.div's same-shape contract), third: tmp (a scratch tile,
 * arg 2) or tile (a third operand joining dtype and shape). */
static Type *tile_binary(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const OpsResult *r = rc->r;
	Type *t0 = tr_type(tr_arg(rc, r->arg)), *t1 = tr_type(tr_arg(rc, r->arg2));
	const char *third = tr_opt(r, "third");
	Type *t2 = third && r->nargs > 2 ? tr_type(tr_arg(rc, r->args[2])) : NULL;
	if (!is_tile(t0) || !t1 || (third && !t2))
		return NULL;
	char nb[96], s0[512], s1[512];
	const char *name = ref_name(rc, nb, sizeof nb);
	if (!is_tile(t1))
		return tr_error(rc, "The operator %s requires second argument to be a TileType, but got %s", name, tr_type_name(t1));
	if (third && !is_tile(t2))
		return tr_error(rc, "The operator %s requires third argument%s to be a TileType, but got %s", name,
				strcmp(third, "tmp") ? "" : " (tmp)", tr_type_name(t2));
	bool shift = opt_is(rc, "shift", "true");
	if (opt_is(rc, "int", "true") || shift) {
		if (!ir_dtype_is_int(t0->dtype))
			return tr_error(rc, "The operator %s requires integer tile dtype, but got %s", name, tr_dtype_str(t0->dtype));
		if (!ir_dtype_is_int(t1->dtype))
			return tr_error(rc, "The operator %s requires integer %stile dtype, but got %s", name, shift ? "shift " : "",
					tr_dtype_str(t1->dtype));
	}
	if (opt_is(rc, "tdiv", "true")) {
		if (t0->dtype != t1->dtype)
			return tr_error(rc, "The operator %s requires src0, src1, and dst to have the same dtype, but got %s and %s", name,
					tr_dtype_str(t0->dtype), tr_dtype_str(t1->dtype));
		if (!in_set(t0->dtype, tdiv_set, 4))
			return tr_error(rc, "The operator %s requires dtype in {INT16, INT32, FP16, FP32}, but got %s", name,
					tr_dtype_str(t0->dtype));
		if (t0->ndim != t1->ndim)
			return tr_error(rc, "The operator %s requires src0, src1, and dst to have the same physical shape rank, but got %d and %d",
					name, t0->ndim, t1->ndim);
		for (int i = 0; i < t0->ndim; i++)
			if (!dims_equal(t0->shape[i], t1->shape[i]))
				return tr_error(rc, "The operator %s requires src0, src1, and dst to have the same physical shape, but dimension %d "
						"differs; got src0 shape %s and src1 shape %s", name, i,
						fmt_shape(t0->shape, t0->ndim, s0, sizeof s0), fmt_shape(t1->shape, t1->ndim, s1, sizeof s1));
		int n0, n1;
		Expr **v0 = valid_of(t0, &n0), **v1 = valid_of(t1, &n1);
		if (n0 != n1)
			return tr_error(rc, "The operator %s requires src0, src1, and dst to have the same valid_shape rank, but got %d and %d",
					name, n0, n1);
		for (int i = 0; i < n0; i++)
			if (!dims_equal(v0[i], v1[i]))
				return tr_error(rc, "The operator %s requires src0, src1, and dst to have the same valid_shape, but dimension %d "
						"differs; got src0 valid_shape %s and src1 valid_shape %s", name, i,
						fmt_shape(v0, n0, s0, sizeof s0), fmt_shape(v1, n1, s1, sizeof s1));
		if (kwarg_true(rc, "high_precision") && !ir_dtype_is_float(t0->dtype))
			return tr_error(rc, "The operator %s supports high_precision only for FP16 or FP32 because the PTOAS "
					"high-precision template does not implement integer division", name);
		return tile_like(c, t0, t0->shape, t0->ndim, t0->dtype);
	}
	DType dt = shift ? t0->dtype : tr_promote(t0->dtype, t1->dtype);
	int n;
	Expr **shape = tr_broadcast(c, t0->shape, t0->ndim, t1->shape, t1->ndim, &n);
	if (shape && third && !strcmp(third, "tile")) {
		dt = tr_promote(dt, t2->dtype);
		shape = tr_broadcast(c, shape, n, t2->shape, t2->ndim, &n);
	}
	if (!shape) {
		if (shift || third)
			return tr_error(rc, "The operator %s requires compatible shapes", name);
		return tr_error(rc, "The operator %s requires compatible shapes, but got %s and %s", name,
				fmt_shape(t0->shape, t0->ndim, s0, sizeof s0), fmt_shape(t1->shape, t1->ndim, s1, sizeof s1));
	}
	return tile_like(c, t0, shape, n, dt);
}

/* DeduceTileOpScalarBinaryType and its relatives: a tile (arg 0) and a
 * scalar (arg 1): the tile's type; opts check: tsubs | int (integer tile
 * and scalar) | xor (and a scratch tile, arg 2); third: promote (a tile,
 * arg 2, joining the scalar's and its dtype and its shape: addsc, rems). */
static Type *tile_scalar(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const OpsResult *r = rc->r;
	Type *t0 = tr_type(tr_arg(rc, r->arg)), *t1 = tr_type(tr_arg(rc, r->arg2));
	Type *t2 = r->nargs > 2 ? tr_type(tr_arg(rc, r->args[2])) : NULL;
	if (!is_tile(t0) || !t1 || (r->nargs > 2 && !t2))
		return NULL;
	char nb[96];
	const char *name = ref_name(rc, nb, sizeof nb);
	const char *check = tr_opt(r, "check");
	bool xor = check && !strcmp(check, "xor");
	if (check && (xor || !strcmp(check, "int")) && !ir_dtype_is_int(t0->dtype))
		return tr_error(rc, "The operator %s requires integer tile dtype, but got %s", name, tr_dtype_str(t0->dtype));
	if (!is_scalar(t1))
		return tr_error(rc, "The operator %s requires second argument to be a ScalarType, but got %s", name, tr_type_name(t1));
	if (check && !strcmp(check, "int") && !ir_dtype_is_int(t1->dtype))
		return tr_error(rc, "The operator %s requires shift/bitwise scalar to be an integer type, but got %s", name,
				tr_dtype_str(t1->dtype));
	if (xor && !ir_dtype_is_int(t1->dtype))
		return tr_error(rc, "The operator %s requires scalar to be an integer type, but got %s", name, tr_dtype_str(t1->dtype));
	if (t2 && !is_tile(t2))
		return tr_error(rc, "The operator %s requires third argument to be a TileType, but got %s", name, tr_type_name(t2));
	if (check && !strcmp(check, "tsubs")) {
		if (!in_set(t0->dtype, tsubs_set, 6))
			return tr_error(rc, "The operator %s requires tile dtype in {INT8, INT16, INT32, FP16, FP32, BF16}, but got %s",
					name, tr_dtype_str(t0->dtype));
		if (!in_set(t1->dtype, tsubs_set, 6))
			return tr_error(rc, "The operator %s requires scalar dtype in {INT8, INT16, INT32, FP16, FP32, BF16}, but got %s",
					name, tr_dtype_str(t1->dtype));
	}
	if (t2 && opt_is(rc, "third", "promote")) {
		DType dt = tr_promote(tr_promote(t0->dtype, t1->dtype), t2->dtype);
		int n;
		Expr **shape = tr_broadcast(c, t0->shape, t0->ndim, t2->shape, t2->ndim, &n);
		if (!shape)
			return tr_error(rc, "The operator %s requires compatible shapes", name);
		return tile_like(c, t0, shape, n, dt);
	}
	return tile_like(c, t0, t0->shape, t0->ndim, t0->dtype);
}

/* The unary deducers of tile_ops/unary.cpp: the input's type; opts only:
 * fp32 | fp16-fp32 | int16, hp: fp (high_precision needs FP16 / FP32),
 * tmp: N (tile.rsqrt's optional scratch tile), or the dtype of kwarg
 * `dtype:` (cast). */
static Type *tile_unary(RuleCtx *rc)
{
	Type *t0 = tr_type(tr_arg(rc, rc->r->arg));
	if (!is_tile(t0))
		return NULL;
	char nb[96], d0[64], d1[64];
	const char *name = ref_name(rc, nb, sizeof nb);
	DType dt = t0->dtype;
	const char *only = tr_opt(rc->r, "only");
	if (only && !strcmp(only, "fp32") && dt != DT_FP32)
		return tr_error(rc, "%s is FP32-only, but got input with dtype %s. Cast the input to FP32 explicitly via "
				"pl.cast(tile, pl.FP32) before applying %s.", name, tr_dtype_str(dt), name);
	if (only && !strcmp(only, "fp16-fp32") && dt != DT_FP16 && dt != DT_FP32)
		return tr_error(rc, "%s requires an FP16 or FP32 tile operand, but got %s", name, tr_dtype_str(dt));
	if (only && !strcmp(only, "int16") && dt != DT_INT16 && dt != DT_UINT16)
		return tr_error(rc, "The operator %s requires int16 or uint16 tile dtype, but got %s", name, tr_dtype_str(dt));
	if (opt_is(rc, "hp", "fp") && kwarg_true(rc, "high_precision") && dt != DT_FP16 && dt != DT_FP32)
		return tr_error(rc, "The operator %s supports high_precision only for FP16 or FP32 because the PTOAS "
				"high-precision template does not implement other dtypes", name);
	int tmp = (int)tr_opt_int(rc->r, "tmp", -1);
	Type *tt = tmp >= 0 ? tr_type(tr_arg(rc, tmp)) : NULL;
	if (tt) {
		if (!is_tile(tt))
			return tr_error(rc, "The operator %s requires tmp argument to be a TileType, but got %s", name, tr_type_name(tt));
		if (tt->dtype != dt)
			return tr_error(rc, "%s: tmp tile dtype (%s) must match input dtype (%s)", name, tr_dtype_str(tt->dtype), tr_dtype_str(dt));
		if (tt->ndim != t0->ndim)
			return tr_error(rc, "%s: tmp tile rank (%d) must match input rank (%d)", name, tt->ndim, t0->ndim);
		for (int i = 0; i < t0->ndim; i++)
			if (!dims_equal(tt->shape[i], t0->shape[i]))
			{
				/* (the reference streams the two dims' pointers here) */
				fmt_shape(&tt->shape[i], 1, d0, sizeof d0);
				fmt_shape(&t0->shape[i], 1, d1, sizeof d1);
				d0[strlen(d0) - 1] = d1[strlen(d1) - 1] = 0;
				return tr_error(rc, "%s: tmp tile shape mismatch at dimension %d (tmp: %s, input: %s)", name, i, d0 + 1,
						d1 + 1);
			}
	}
	if (rc->r->dtype_kw) {
		int target = tr_dtype_symbol(rc->c, tr_kwarg(rc, rc->r->dtype_kw));
		if (!cast_mode(rc) || target < 0)
			return NULL;
		if ((DType)target == dt)
			return tr_error(rc, "%s: target_type %s equals input dtype; same-dtype cast is not a valid operation. "
					"Remove the cast or use a different target_type.", name, tr_dtype_str(dt));
		dt = (DType)target;
	}
	return tile_like(rc->c, t0, t0->shape, t0->ndim, dt);
}

/* ceil(v / d) and v rounded up to a multiple of d, folded for constants. */
static Expr *ceil_div(SugarCtx *c, Expr *v, int64_t d)
{
	int64_t k;
	if (const_dim(v, &k))
		return tr_int(c, (k + d - 1) / d, DT_INDEX, v->pos);
	Expr *s = type_make_binary(c->a, OP_ADD, v, tr_int(c, d - 1, DT_INDEX, v->pos), v->pos, c->d);
	return s ? type_make_binary(c->a, OP_FLOORDIV, s, tr_int(c, d, DT_INDEX, v->pos), v->pos, c->d) : NULL;
}

static Expr *round_up(SugarCtx *c, Expr *v, int64_t d)
{
	int64_t k;
	if (const_dim(v, &k))
		return tr_int(c, (k + d - 1) / d * d, DT_INDEX, v->pos);
	Expr *q = ceil_div(c, v, d);
	return q ? type_make_binary(c->a, OP_MUL, q, tr_int(c, d, DT_INDEX, v->pos), v->pos, c->d) : NULL;
}

/* DeduceTileCmpType: a packed predicate mask, UINT8, one bit per element
 * of the broadcast shape (tile rhs) or the lhs shape (scalar rhs), its
 * last dim rounded up to 32 bytes; valid columns ceil(valid / 8). */
static Type *tile_cmp(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	Type *t0 = tr_type(tr_arg(rc, rc->r->arg)), *t1 = tr_type(tr_arg(rc, rc->r->arg2));
	if (!is_tile(t0) || !t1)
		return NULL;
	char nb[96], s0[512], s1[512];
	const char *name = ref_name(rc, nb, sizeof nb);
	Expr **shape = t0->shape;
	int n = t0->ndim;
	if (opt_is(rc, "rhs", "scalar")) {
		if (!is_scalar(t1))
			return tr_error(rc, "The operator %s requires second argument to be a ScalarType, but got %s", name, tr_type_name(t1));
	} else {
		if (!is_tile(t1))
			return tr_error(rc, "The operator %s requires second argument to be a TileType, but got %s", name, tr_type_name(t1));
		if (!(shape = tr_broadcast(c, t0->shape, t0->ndim, t1->shape, t1->ndim, &n)))
			return tr_error(rc, "The operator %s requires compatible shapes, but got %s and %s", name,
					fmt_shape(t0->shape, t0->ndim, s0, sizeof s0), fmt_shape(t1->shape, t1->ndim, s1, sizeof s1));
	}
	int nv;
	Expr **v0 = valid_of(t0, &nv);
	if (!n || nv != t0->ndim)
		return NULL;
	Expr **mask = arena_alloc(c->a, (size_t)(n + 1) * sizeof *mask), **valid = arena_alloc(c->a, (size_t)(nv + 1) * sizeof *valid);
	memcpy(mask, shape, (size_t)n * sizeof *mask);
	memcpy(valid, v0, (size_t)nv * sizeof *valid);
	Expr *q = ceil_div(c, shape[n - 1], 8);
	if (!q || !(mask[n - 1] = round_up(c, q, 32)) || !(valid[nv - 1] = ceil_div(c, v0[nv - 1], 8)))
		return NULL;
	return tile_result(c, t0, mask, n, DT_UINT8, valid, nv, MS_VEC, false, NULL);
}

/* tile.sels's scalar constant (the DSL's _normalize_sels_scalar_operand):
 * any number literal takes the src element dtype, and on an unsigned src
 * the signed type of its width with the same bits (4294967295 on UINT32 is
 * pl.const(-1, pl.INT32)).  Rewrites the call's argument in place; false
 * after reporting a fractional value for an integer src. */
static bool retype_sels_scalar(RuleCtx *rc, int slot, DType dt)
{
	SugarCtx *c = rc->c;
	Expr *s = tr_arg(rc, slot);
	if (!s || (s->kind != EX_INT && s->kind != EX_FLOAT) || (!ir_dtype_is_float(dt) && !ir_dtype_is_int(dt)))
		return true;
	Expr *n;
	if (ir_dtype_is_float(dt)) {
		n = tr_float(c, s->kind == EX_FLOAT ? s->fval : (double)s->ival, dt, s->pos);
	} else {
		int64_t v = s->ival;
		if (s->kind == EX_FLOAT) {
			if (s->fval != (double)(int64_t)s->fval) {
				tr_error(rc, "Cannot retype non-integral floating-point constant %g to integer dtype %s; use an "
					 "integral value or an explicit cast", s->fval, tr_dtype_str(dt));
				return false;
			}
			v = (int64_t)s->fval;
		}
		int bits = dt == DT_UINT8 ? 8 : dt == DT_UINT16 ? 16 : dt == DT_UINT32 ? 32 : 0;
		if (bits) {
			dt = bits == 8 ? DT_INT8 : bits == 16 ? DT_INT16 : DT_INT32;
			if (v >= (int64_t)1 << (bits - 1))
				v -= (int64_t)1 << bits;
		}
		n = tr_int(c, v, dt, s->pos);
	}
	if (slot < rc->call->nargs && rc->call->args[slot] == s)
		rc->call->args[slot] = n;
	rc->slots[slot] = n;
	return true;
}

/* DeduceTileSelsType: mask (arg 0), src (arg 1), tmp (arg 2), scalar
 * (arg 3); the result mirrors src. */
static Type *tile_sels(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const OpsResult *r = rc->r;
	if (r->nargs < 4)
		return NULL;
	Type *mk = tr_type(tr_arg(rc, r->args[0])), *src = tr_type(tr_arg(rc, r->args[1])),
	     *tmp = tr_type(tr_arg(rc, r->args[2])), *sc = tr_type(tr_arg(rc, r->args[3]));
	if (!mk || !src || !tmp || !sc)
		return NULL;
	char nb[96], s0[512], s1[512];
	const char *name = ref_name(rc, nb, sizeof nb);
	static const DType mask_set[] = { DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, DT_UINT32 };
	static const DType src_set[] = { DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, DT_INT32, DT_UINT32, DT_FP16, DT_FP32 };
	const char *what[4] = { "mask", "src", "tmp", "scalar" };
	const Type *ts[4] = { mk, src, tmp, sc };
	for (int i = 0; i < 4; i++)
		if (i == 3 ? !is_scalar(ts[i]) : !is_tile(ts[i]))
			return tr_error(rc, "The operator %s requires %s to be a %s, but got %s", name, what[i],
					i == 3 ? "ScalarType" : "TileType", tr_type_name(ts[i]));
	if (mk->ndim != 2)
		return tr_error(rc, "The operator %s requires a rank-2 mask tile, but got rank %d", name, mk->ndim);
	if (!in_set(mk->dtype, mask_set, 6))
		return tr_error(rc, "The operator %s requires an 8-, 16-, or 32-bit integer mask, but got %s", name, tr_dtype_str(mk->dtype));
	if (src->ndim != 2)
		return tr_error(rc, "The operator %s requires a rank-2 src tile, but got rank %d", name, src->ndim);
	if (!in_set(src->dtype, src_set, 8))
		return tr_error(rc, "The operator %s requires src dtype in {INT8, UINT8, INT16, UINT16, INT32, UINT32, FP16, FP32}, but got %s",
				name, tr_dtype_str(src->dtype));
	if (tmp->ndim != 2)
		return tr_error(rc, "The operator %s requires a rank-2 tmp tile, but got rank %d", name, tmp->ndim);
	if (!retype_sels_scalar(rc, r->args[3], src->dtype))
		return NULL;
	sc = tr_type(tr_arg(rc, r->args[3]));
	DType want = src->dtype == DT_UINT8 ? DT_INT8 : src->dtype == DT_UINT16 ? DT_INT16 : src->dtype == DT_UINT32 ? DT_INT32
												  : src->dtype;
	if (sc->dtype != want)
		return tr_error(rc, "The operator %s requires scalar dtype %s for src dtype %s, but got %s", name, tr_dtype_str(want),
				tr_dtype_str(src->dtype), tr_dtype_str(sc->dtype));
	int nm, ns;
	Expr **mv = valid_of(mk, &nm), **sv = valid_of(src, &ns);
	int64_t a, b;
	if (nm == 2 && ns == 2) {
		if (const_dim(sv[0], &a) && const_dim(mv[0], &b) && a > b)
			return tr_error(rc, "The operator %s requires mask carrier rows to cover src valid rows, but got mask valid_shape %s "
					"and src valid_shape %s", name, fmt_shape(mv, nm, s0, sizeof s0), fmt_shape(sv, ns, s1, sizeof s1));
		if (const_dim(sv[1], &a) && const_dim(mv[1], &b) && (a + 7) / 8 > b * (ir_dtype_bits(mk->dtype) / 8))
			return tr_error(rc, "The operator %s requires each mask carrier row to hold at least ceil(src valid columns / 8) "
					"packed bytes, but got mask valid_shape %s with dtype %s and src valid_shape %s", name,
					fmt_shape(mv, nm, s0, sizeof s0), tr_dtype_str(mk->dtype), fmt_shape(sv, ns, s1, sizeof s1));
	}
	return tile_like(c, src, src->shape, src->ndim, src->dtype);
}

/* DeduceTilePreluType: src (arg 0), slope (arg 1), tmp (arg 2); the result
 * mirrors src. */
static Type *tile_prelu(RuleCtx *rc)
{
	const OpsResult *r = rc->r;
	if (r->nargs < 3)
		return NULL;
	Type *src = tr_type(tr_arg(rc, r->args[0])), *sl = tr_type(tr_arg(rc, r->args[1])), *tmp = tr_type(tr_arg(rc, r->args[2]));
	if (!src || !sl || !tmp)
		return NULL;
	char nb[96], s0[512], s1[512];
	const char *name = ref_name(rc, nb, sizeof nb);
	const char *what[3] = { "src", "slope", "tmp" };
	const Type *ts[3] = { src, sl, tmp };
	for (int i = 0; i < 3; i++)
		if (!is_tile(ts[i]))
			return tr_error(rc, "The operator %s requires %s to be a TileType, but got %s", name, what[i], tr_type_name(ts[i]));
	if (src->dtype != DT_FP16 && src->dtype != DT_FP32)
		return tr_error(rc, "The operator %s requires src dtype in {FP16, FP32}, but got %s", name, tr_dtype_str(src->dtype));
	if (sl->dtype != src->dtype)
		return tr_error(rc, "The operator %s requires slope dtype to match src dtype, but got %s and %s", name,
				tr_dtype_str(sl->dtype), tr_dtype_str(src->dtype));
	if (src->ndim != 2)
		return tr_error(rc, "The operator %s requires a rank-2 src tile, but got rank %d", name, src->ndim);
	if (sl->ndim != src->ndim)
		return tr_error(rc, "The operator %s requires slope and src to have the same rank, but got %d and %d", name, sl->ndim,
				src->ndim);
	for (int i = 0; i < src->ndim; i++)
		if (!dims_equal(src->shape[i], sl->shape[i]))
			return tr_error(rc, "The operator %s requires slope and src to have the same physical shape, but dimension %d "
					"differs; got slope shape %s and src shape %s", name, i, fmt_shape(sl->shape, sl->ndim, s0, sizeof s0),
					fmt_shape(src->shape, src->ndim, s1, sizeof s1));
	int ns, nl;
	Expr **sv = valid_of(src, &ns), **lv = valid_of(sl, &nl);
	if (ns != nl)
		return tr_error(rc, "The operator %s requires slope and src to have the same valid_shape rank", name);
	for (int i = 0; i < ns; i++)
		if (!dims_equal(sv[i], lv[i]))
			return tr_error(rc, "The operator %s requires slope and src to have the same valid_shape, but dimension %d "
					"differs; got slope valid_shape %s and src valid_shape %s", name, i, fmt_shape(lv, nl, s0, sizeof s0),
					fmt_shape(sv, ns, s1, sizeof s1));
	if (tmp->ndim != 2)
		return tr_error(rc, "The operator %s requires a rank-2 tmp tile, but got rank %d", name, tmp->ndim);
	return tile_like(rc->c, src, src->shape, src->ndim, src->dtype);
}

/* The fillpad pad_value kwarg as the DSL normalizes it (normalize_pad_value):
 * a PadValue other than null, or 0 / 0.0 for zero (the kwarg replaced by
 * pl.PadValue.zero); its name ("zero" when absent), NULL after an error. */
const char *tr_fillpad_pad(RuleCtx *rc)
{
	static const char hint[] = "Use pl.PadValue.zero / pl.PadValue.max / pl.PadValue.min, or one of the literals 0, 0.0, "
				   "math.inf, -math.inf.";
	Expr *pv = tr_kwarg(rc, "pad_value");
	const char *ps = symbol_tail(pv, "pl.PadValue.");
	if (ps) {
		if (!strcmp(ps, "null"))
			return tr_error(rc, "fillpad pad_value cannot be PadValue.null \u2014 that means no padding mode. %s", hint), NULL;
		return ps;
	}
	if (pv && pv->kind == EX_BOOL)
		return tr_error(rc, "fillpad pad_value cannot be bool (%s). %s", pv->ival ? "True" : "False", hint), NULL;
	if (pv && pv->kind == EX_INT && pv->ival)
		return tr_error(rc, "fillpad pad_value only accepts the integer literal 0 (mapped to PadValue.zero); got %lld. %s",
				(long long)pv->ival, hint), NULL;
	if (pv && pv->kind == EX_FLOAT && pv->fval != 0.0)
		return tr_error(rc, "fillpad pad_value only accepts the float literals 0.0, math.inf, or -math.inf; got %g. %s",
				pv->fval, hint), NULL;
	if (pv && (pv->kind == EX_INT || pv->kind == EX_FLOAT))
		replace_kwarg(rc, pv, tr_symbol(rc->c, "pl.PadValue.zero"));
	return "zero";
}

/* tile.fillpad / fillpad_inplace / fillpad_expand: the input (or, with
 * shape: N, a larger destination of that literal shape) wholly valid, with
 * TileView pad set from kwarg pad_value; keeps the input's memory space
 * and memref. */
static Type *tile_fillpad(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	Type *t0 = tr_type(tr_arg(rc, rc->r->arg));
	if (!is_tile(t0))
		return NULL;
	char nb[96];
	const char *name = ref_name(rc, nb, sizeof nb);
	Expr **shape = t0->shape;
	int n = t0->ndim;
	if (rc->r->shape >= 0) {
		Expr *s = tr_arg(rc, rc->r->shape);
		if (!s)
			return NULL;
		if (s->kind != EX_TUPLE)
			return tr_error(rc, "%s shape must be a literal tuple of constants, but got %s", name, tr_type_name(tr_type(s)));
		if (s->nargs != t0->ndim)
			return tr_error(rc, "%s shape rank (%d) must match source rank (%d)", name, s->nargs, t0->ndim);
		for (int i = 0; i < s->nargs; i++) {
			int64_t d, sd;
			if (!const_dim(s->args[i], &d))
				return tr_error(rc, "%s shape dimension %d must be a constant integer", name, i);
			if (d <= 0)
				return tr_error(rc, "%s shape dimension %d must be positive, got %lld", name, i, (long long)d);
			if (const_dim(t0->shape[i], &sd) && d < sd)
				return tr_error(rc, "%s destination dimension %d (%lld) must be >= source dimension (%lld)", name, i,
						(long long)d, (long long)sd);
		}
		shape = s->args;
		n = s->nargs;
	}
	const char *pad = tr_fillpad_pad(rc);
	if (!pad)
		return NULL;
	MemSpace mem = t0->mem == MS_NONE ? MS_VEC : t0->mem;
	return tile_result(c, t0, shape, n, t0->dtype, NULL, 0, mem, true, pad);
}

static const char *const opts_tensor_binary[] = { "scalar", "valid", "check", "bitwise", NULL };
static const char *const opts_tensor_scalar[] = { "dtype", "valid", "check", NULL };
static const char *const opts_tensor_unary[] = { "float", "only", "hp", NULL };
static const char *const opts_tile_binary[] = { "int", "shift", "tdiv", "third", NULL };
static const char *const opts_tile_scalar[] = { "check", "third", NULL };
static const char *const opts_tile_unary[] = { "only", "hp", "tmp", NULL };
static const char *const opts_tile_cmp[] = { "rhs", NULL };

const RuleKind typerule_elementwise[] = {
	{ "tensor-binary", tensor_binary, "arg,arg2", opts_tensor_binary, false },
	{ "tensor-scalar", tensor_scalar, "arg,arg2", opts_tensor_scalar, false },
	{ "tensor-unary", tensor_unary, "arg", opts_tensor_unary, false },
	{ "tile-binary", tile_binary, "arg,arg2", opts_tile_binary, false },
	{ "tile-scalar", tile_scalar, "arg,arg2", opts_tile_scalar, false },
	{ "tile-unary", tile_unary, "arg", opts_tile_unary, false },
	{ "tile-cmp", tile_cmp, "arg,arg2", opts_tile_cmp, false },
	{ "tile-sels", tile_sels, "args", NULL, false },
	{ "tile-prelu", tile_prelu, "args", NULL, false },
	{ "tile-fillpad", tile_fillpad, "arg", NULL, false },
	{ NULL, NULL, NULL, NULL, false },
};
