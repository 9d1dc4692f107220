/* rules/layout.c - the rule kinds of the reference's data-movement and
 * layout families: memory (create, load, store, move, views), transforms
 * (reshape, transpose, concat, fillpad, slices), matmuls, gathers,
 * scatters and sorts, on tensors and tiles (data/ops.yaml's header
 * documents each kind's fields).
 *
 * Tile results carry a TileView only where it differs from the implicit
 * one of their shape and memory space (the reference canonicalises the
 * implicit view away): valid_shape, blayout, slayout, fractal, pad, in
 * that order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/typerule.h"
#include "ptoopt/types.h"

static const SrcPos nopos = { 0, 0 };

/* ------------------------------------------------------------ helpers */

static Type *targ(RuleCtx *rc, int i)
{
	return i < 0 ? NULL : tr_type(tr_arg(rc, i));
}

static bool is_tensor(const Type *t)
{
	return t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR);
}

static bool is_tile(const Type *t)
{
	return t && t->kind == TY_TILE;
}

static const char *opt_str(RuleCtx *rc, const char *key, const char *def)
{
	const char *v = tr_opt(rc->r, key);
	return v ? v : def;
}

static int opt_arg(RuleCtx *rc, const char *key)
{
	return (int)tr_opt_int(rc->r, key, -1);
}

static bool form_is(RuleCtx *rc, const char *f)
{
	return !strcmp(opt_str(rc, "form", ""), f);
}

static Expr *idx(SugarCtx *c, int64_t v)
{
	return tr_int(c, v, DT_INDEX, nopos);
}

static bool cint(const Expr *e, int64_t *v)
{
	if (!e || e->kind != EX_INT)
		return false;
	*v = e->ival;
	return true;
}

/* A compile-time integer: a literal, or a negated one. */
static bool cint_signed(const Expr *e, int64_t *v)
{
	if (e && e->kind == EX_UNARY && e->op == UOP_NEG && cint(e->lhs, v)) {
		*v = -*v;
		return true;
	}
	return cint(e, v);
}

static Expr **dims_copy(SugarCtx *c, Expr **d, int n)
{
	Expr **o = arena_alloc(c->a, (size_t)(n + 1) * sizeof *o);
	for (int i = 0; i < n; i++)
		o[i] = d[i];
	return o;
}

/* The valid extents of a tensor or tile type: its view's valid_shape, else
 * its shape. */
static Expr **valid_of(const Type *t)
{
	Expr *v = tr_view_kw(t, "valid_shape");
	if (v && v->kind == EX_TUPLE && v->nargs == t->ndim)
		return v->args;
	return t->shape;
}

static bool has_valid(const Type *t)
{
	Expr *v = tr_view_kw(t, "valid_shape");
	return v && v->kind == EX_TUPLE && v->nargs == t->ndim && t->ndim > 0;
}

static bool dims_equal(Expr **a, Expr **b, int n)
{
	for (int i = 0; i < n; i++)
		if (!expr_equal(a[i], b[i]))
			return false;
	return true;
}



/* The reference's implicit block / scatter layout of a tile of this shape
 * in this memory space. */
static void implicit_layouts(Expr **shape, int ndim, MemSpace mem, const char *out[2])
{
	bool column = ndim == 2 && ir_is_int_const(shape[1], 1, DT_INDEX) && !ir_is_int_const(shape[0], 1, DT_INDEX);
	out[0] = column ? "col_major" : "row_major";
	out[1] = "none_box";
	switch (mem) {
	case MS_MAT: case MS_LEFT: case MS_ACC:
		out[0] = "col_major";
		out[1] = "row_major";
		break;
	case MS_RIGHT:
		out[1] = "col_major";
		break;
	case MS_LEFT_SCALE:
		out[0] = "row_major", out[1] = "row_major";
		break;
	case MS_RIGHT_SCALE:
		out[0] = "col_major", out[1] = "col_major";
		break;
	default:
		break;
	}
}

/* The effective layouts of a tile type (its view's, else the implicit). */
static void layouts_of(const Type *t, const char *out[2])
{
	implicit_layouts(t->shape, t->ndim, t->mem == MS_NONE ? MS_VEC : t->mem, out);
	for (int i = 0; t->view && i < t->view->nkw; i++) {
		const Expr *v = t->view->kw[i].value;
		int slot = !strcmp(t->view->kw[i].name, "blayout") ? 0 : !strcmp(t->view->kw[i].name, "slayout") ? 1 : -1;
		if (slot >= 0 && v->kind == EX_SYMBOL && !strncmp(v->str, "pl.TileLayout.", 14))
			out[slot] = v->str + 14;
	}
}

/* A tile type; valid: its valid extents (NULL: the shape), blay / slay:
 * its layouts (NULL: implicit), pad: a pl.PadValue symbol (NULL: none). */
static Type *mk_tile(SugarCtx *c, Expr **shape, int n, DType dt, MemSpace mem, Expr **valid, const char *blay,
		     const char *slay, Expr *pad)
{
	Type *t = ir_type_new(c->a, TY_TILE);
	t->dtype = dt;
	t->shape = shape;
	t->ndim = n;
	t->mem = mem;
	const char *imp[2];
	implicit_layouts(shape, n, mem, imp);
	const char *names[5];
	Expr *vals[5];
	int k = 0;
	if (valid && n && !dims_equal(valid, shape, n)) {
		names[k] = "valid_shape";
		vals[k++] = tr_list(c, valid, n, nopos);
	}
	const char *lay[2] = { blay, slay };
	static const char *const kw[2] = { "blayout", "slayout" };
	for (int i = 0; i < 2; i++)
		if (lay[i] && strcmp(lay[i], imp[i]) != 0) {
			char buf[64];
			snprintf(buf, sizeof buf, "pl.TileLayout.%s", lay[i]);
			names[k] = kw[i];
			vals[k++] = tr_symbol(c, buf);
		}
	if (pad && !(pad->kind == EX_SYMBOL && !strcmp(pad->str, "pl.PadValue.null"))) {
		names[k] = "pad";
		vals[k++] = pad;
	}
	if (k)
		t->view = tr_view(c, names, vals, k);
	return t;
}

/* t with compact=pl.CompactMode.normal last in its view (an Acc / Left /
 * Right tile whose valid rows may be narrower than its physical rows). */
static Type *with_compact(SugarCtx *c, Type *t)
{
	int n = t->view ? t->view->nkw : 0;
	const char *names[8];
	Expr *vals[8];
	for (int i = 0; i < n && i < 7; i++)
		names[i] = t->view->kw[i].name, vals[i] = t->view->kw[i].value;
	names[n] = "compact";
	vals[n++] = tr_symbol(c, "pl.CompactMode.normal");
	t->view = tr_view(c, names, vals, n);
	return t;
}

/* A tile type inheriting src's layouts and pad (InheritTileViewLayout). */
static Type *mk_tile_like(SugarCtx *c, const Type *src, Expr **shape, int n, DType dt, MemSpace mem, Expr **valid)
{
	const char *lay[2];
	layouts_of(src, lay);
	return mk_tile(c, shape, n, dt, mem, valid, lay[0], lay[1], tr_view_kw(src, "pad"));
}

/* pl.TensorView(valid_shape=V?, stride=S, layout=L, pad=P?) */
static ViewSpec *mk_tensor_view(SugarCtx *c, Expr *valid, Expr *stride, const char *layout, Expr *pad)
{
	if (pad && pad->kind == EX_SYMBOL && !strcmp(pad->str, "pl.PadValue.null"))
		pad = NULL; /* (no padding: printed as no pad) */
	return tr_tensor_view_strided(c, valid, stride, layout, pad);
}

/* t's TensorView, canonical: a valid shape equal to the shape is dropped,
 * and a view of nothing but defaults (no strides, ND, no pad) is none */
static void set_tensor_view(SugarCtx *c, Type *t, Expr *valid, Expr *stride, const char *layout, Expr *pad)
{
	if (valid && valid->kind == EX_TUPLE && valid->nargs == t->ndim && dims_equal(valid->args, t->shape, t->ndim))
		valid = NULL;
	if (stride && stride->kind == EX_TUPLE && stride->nargs == 0)
		stride = NULL;
	if (pad && pad->kind == EX_SYMBOL && !strcmp(pad->str, "pl.PadValue.null"))
		pad = NULL;
	t->view = valid || stride || pad || strcmp(layout, "pl.TensorLayout.ND") ? mk_tensor_view(c, valid, stride, layout, pad) : NULL;
}

static Type *mk_tensor(SugarCtx *c, Expr **shape, int n, DType dt)
{
	Type *t = ir_type_new(c->a, TY_TENSOR);
	t->dtype = dt;
	t->shape = shape;
	t->ndim = n;
	return t;
}

static const char *tensor_layout(const Type *t)
{
	Expr *l = tr_view_kw(t, "layout");
	return l && l->kind == EX_SYMBOL ? l->str : "pl.TensorLayout.ND";
}

static bool kw_bool(RuleCtx *rc, const char *kw)
{
	Expr *e = tr_kwarg(rc, kw);
	return e && (e->kind == EX_BOOL || e->kind == EX_INT) && e->ival;
}

static Expr *mul_dims(SugarCtx *c, Expr *a, Expr *b)
{
	int64_t x, y;
	if (cint(a, &x) && cint(b, &y))
		return idx(c, x * y);
	return type_make_binary(c->a, OP_MUL, a, b, nopos, c->d);
}

/* ------------------------------------------------------------ matmul */

/* {rule: matmul, args: [LHS, RHS], opts: {form: F, acc: N, bias: N}}
 *   form tensor: tensor.matmul (out_dtype kwarg or the promoted dtype,
 *   a_trans / b_trans, 1-D / 2-D / batched); tensor-acc: tensor.matmul_acc;
 *   tile / tile-acc / tile-bias: the Acc-resident product; gemv / gemv-acc /
 *   gemv-bias: the [16, N] GEMV accumulator; batch / batch-acc: batched
 *   tile products. */
static Type *matmul_tensor(RuleCtx *rc, Type *lt, Type *rt)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	int dt;
	Expr *od = tr_kwarg(rc, "out_dtype");
	if (od && od->kind != EX_SYMBOL)
		return tr_error(rc, "Invalid kwarg type for out_dtype: Invalid type for kwarg key: out_dtype, expected DataType, but got %s",
				od->kind == EX_INT ? "int" : od->kind == EX_FLOAT ? "float" : od->kind == EX_BOOL ? "bool" : "str");
	if (od)
		dt = tr_dtype_symbol(c, od);
	else
		dt = tr_promote(lt->dtype, rt->dtype);
	if (dt < 0)
		return NULL;
	bool at = kw_bool(rc, "a_trans"), bt = kw_bool(rc, "b_trans");
	int ln = lt->ndim, rn = rt->ndim;
	if (ln < 1)
		return tr_error(rc, "%s requires lhs to have at least 1 dimension", op);
	if (rn < 1)
		return tr_error(rc, "%s requires rhs to have at least 1 dimension", op);
	if (at && ln < 2)
		return tr_error(rc, "%s: a_trans does not apply to a 1D lhs (a vector has no axes to swap); drop a_trans or pass a 2D lhs", op);
	if (bt && rn < 2)
		return tr_error(rc, "%s: b_trans does not apply to a 1D rhs (a vector has no axes to swap); drop b_trans or pass a 2D rhs", op);
	Expr **out = arena_alloc(c->a, (size_t)(ln + rn + 1) * sizeof *out);
	int n = 0;
	Expr *kl, *kr;
	const char *ctx = "requires matching inner dimensions";
	if (ln == 1 && rn == 1) {
		kl = lt->shape[0], kr = rt->shape[0];
		ctx = "dot product requires matching dimensions";
	} else if (ln == 2 && rn == 1) {
		out[n++] = at ? lt->shape[1] : lt->shape[0];
		kl = at ? lt->shape[0] : lt->shape[1];
		kr = rt->shape[0];
	} else if (ln == 1 && rn == 2) {
		kl = lt->shape[0];
		kr = bt ? rt->shape[1] : rt->shape[0];
		out[n++] = bt ? rt->shape[0] : rt->shape[1];
	} else {
		if (ln < 2 || rn < 2)
			return tr_error(rc, "%s requires both tensors to have at least 2 dimensions for batched matmul, but got lhs shape size %d and rhs shape size %d", op, ln, rn);
		if (ln > 2 || rn > 2) {
			/* broadcast the batch dims, right-aligned */
			int lb = ln - 2, rb = rn - 2, nb = lb > rb ? lb : rb;
			for (int i = 0; i < nb; i++) {
				Expr *a = i - (nb - lb) >= 0 ? lt->shape[i - (nb - lb)] : NULL;
				Expr *b = i - (nb - rb) >= 0 ? rt->shape[i - (nb - rb)] : NULL;
				if (!a)
					out[n++] = b;
				else if (!b || ir_is_int_const(b, 1, DT_INDEX))
					out[n++] = a;
				else if (ir_is_int_const(a, 1, DT_INDEX))
					out[n++] = b;
				else {
					int64_t x, y;
					if (cint(a, &x) && cint(b, &y) && x != y)
						return tr_error(rc, "Cannot broadcast batch dimensions for %s", op);
					out[n++] = a;
				}
			}
			ctx = "requires matching inner dimensions for batched matmul";
		}
		out[n++] = at ? lt->shape[ln - 1] : lt->shape[ln - 2];
		kl = at ? lt->shape[ln - 2] : lt->shape[ln - 1];
		kr = bt ? rt->shape[rn - 1] : rt->shape[rn - 2];
		out[n++] = bt ? rt->shape[rn - 2] : rt->shape[rn - 1];
	}
	int64_t x, y;
	if (cint(kl, &x) && cint(kr, &y) && x != y)
		return tr_error(rc, "%s %s, but got lhs K=%lld and rhs K=%lld", op, ctx, (long long)x, (long long)y);
	return mk_tensor(c, out, n, (DType)dt);
}

static Type *matmul_tensor_acc(RuleCtx *rc, Type *acc, Type *lt, Type *rt)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	if (acc->ndim < 2)
		return tr_error(rc, "%s requires acc to be at least 2D, but got %dD", op, acc->ndim);
	if (lt->ndim < 2)
		return tr_error(rc, "%s requires lhs to be at least 2D, but got %dD", op, lt->ndim);
	if (rt->ndim < 2)
		return tr_error(rc, "%s requires rhs to be at least 2D, but got %dD", op, rt->ndim);
	if (lt->dtype != rt->dtype)
		return tr_error(rc, "%s requires identical lhs and rhs dtypes, but got %s and %s", op,
				tr_dtype_str(lt->dtype), tr_dtype_str(rt->dtype));
	DType rd = ir_dtype_is_float(lt->dtype) ? DT_FP32 : DT_INT32;
	if (acc->dtype != rd)
		return tr_error(rc, "%s requires accumulator dtype %s, but got %s", op, tr_dtype_str(rd), tr_dtype_str(acc->dtype));
	bool at = kw_bool(rc, "a_trans"), bt = kw_bool(rc, "b_trans");
	int ln = lt->ndim, rn = rt->ndim, an = acc->ndim;
	Expr *m = at ? lt->shape[ln - 1] : lt->shape[ln - 2], *kl = at ? lt->shape[ln - 2] : lt->shape[ln - 1];
	Expr *kr = bt ? rt->shape[rn - 1] : rt->shape[rn - 2], *nn = bt ? rt->shape[rn - 2] : rt->shape[rn - 1];
	int64_t x, y;
	if (cint(kl, &x) && cint(kr, &y) && x != y)
		return tr_error(rc, "%s: lhs K=%lld != rhs K=%lld", op, (long long)x, (long long)y);
	if (cint(acc->shape[an - 2], &x) && cint(m, &y) && x != y)
		return tr_error(rc, "%s: acc M=%lld != matmul M=%lld", op, (long long)x, (long long)y);
	if (cint(acc->shape[an - 1], &x) && cint(nn, &y) && x != y)
		return tr_error(rc, "%s: acc N=%lld != matmul N=%lld", op, (long long)x, (long long)y);
	int nb;
	Expr **batch = tr_broadcast(c, lt->shape, ln - 2, rt->shape, rn - 2, &nb);
	if (!batch)
		return tr_error(rc, "Cannot broadcast batch dimensions for %s", op);
	if (nb != an - 2)
		return tr_error(rc, "%s: acc batch rank (%d) must equal broadcast(lhs, rhs) batch rank (%d)", op, an - 2, nb);
	for (int i = 0; i < nb; i++)
		if (cint(acc->shape[i], &x) && cint(batch[i], &y) && x != y)
			return tr_error(rc, "%s: acc batch dim %d (%lld) must equal broadcast(lhs, rhs) batch dim %d (%lld)", op, i, (long long)x, i,
					(long long)y);
	return mk_tensor(c, acc->shape, acc->ndim, rd);
}

/* DeduceMatmulProductInfo: the checks shared by the tile products */
static bool tile_product(RuleCtx *rc, Type *lt, Type *rt, DType *acc_dt)
{
	const char *op = rc->op->name;
	if (lt->ndim != 2) {
		tr_error(rc, "The operator %s requires lhs to be 2D, but got %d dimensions", op, lt->ndim);
		return false;
	}
	if (rt->ndim != 2) {
		tr_error(rc, "The operator %s requires rhs to be 2D, but got %d dimensions", op, rt->ndim);
		return false;
	}
	int64_t x, y;
	if (cint(lt->shape[1], &x) && cint(rt->shape[0], &y) && x != y) {
		tr_error(rc, "The operator %s requires matching physical inner dimensions (physical K), but got lhs K=%lld and rhs K=%lld",
			 op, (long long)x, (long long)y);
		return false;
	}
	Expr **lv = valid_of(lt), **rv = valid_of(rt);
	if (cint(lv[1], &x) && cint(rv[0], &y) && x > y) {
		tr_error(rc, "The operator %s requires rhs valid K to cover lhs valid K, but got lhs K=%lld and rhs K=%lld", op,
			 (long long)x, (long long)y);
		return false;
	}
	if (lt->dtype != rt->dtype) {
		tr_error(rc, "The operator %s requires identical lhs and rhs data types, but got %s and %s", op,
			 tr_dtype_str(lt->dtype), tr_dtype_str(rt->dtype));
		return false;
	}
	*acc_dt = ir_dtype_is_float(lt->dtype) && ir_dtype_is_float(rt->dtype) ? DT_FP32 : DT_INT32;
	return true;
}

static bool acc_phase_ok(RuleCtx *rc)
{
	Expr *ph = tr_kwarg(rc, "acc_phase");
	if (ph && ph->kind == EX_STR && strcmp(ph->str, "unspecified") && strcmp(ph->str, "partial") && strcmp(ph->str, "final"))
		return tr_error(rc, "The operator %s requires acc_phase to be one of {unspecified, partial, final}, but got %s", rc->op->name,
				ph->str), false;
	return true;
}

static Type *gemv_result(RuleCtx *rc, Type *lt, Type *rt, DType *dt_out)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	DType in = lt->dtype;
	if (in != DT_INT8 && in != DT_FP16 && in != DT_BF16 && in != DT_FP32)
		return tr_error(rc, "The operator %s supports only INT8 x INT8 -> INT32 and same-type FP16/BF16/FP32 inputs -> FP32, but got %s",
				op, tr_dtype_str(in));
	DType dt = in == DT_INT8 ? DT_INT32 : DT_FP32;
	*dt_out = dt;
	char buf[128];
	if (!ir_is_int_const(lt->shape[0], 1, DT_INDEX)) {
		tr_fmt_shape(buf, sizeof buf, lt->shape, lt->ndim);
		return tr_error(rc, "GEMV requires lhs physical row extent to be exactly 1, but got shape %s", buf);
	}
	Expr **lv = valid_of(lt), **rv = valid_of(rt);
	if (!ir_is_int_const(lv[0], 1, DT_INDEX)) {
		tr_fmt_shape(buf, sizeof buf, lv, 2);
		return tr_error(rc, "GEMV requires lhs logical row extent to be exactly 1, but got valid_shape %s", buf);
	}
	Expr **shape = arena_alloc(c->a, 3 * sizeof *shape), **valid = arena_alloc(c->a, 3 * sizeof *valid);
	shape[0] = idx(c, 16);
	shape[1] = rt->shape[1];
	valid[0] = lv[0];
	valid[1] = rv[1];
	return mk_tile(c, shape, 2, dt, MS_ACC, valid, NULL, NULL, NULL);
}

/* DeduceTileBatchMatMul(Acc)Type: [..., M, K] x [..., K, N] with the batch
 * dims broadcast (into acc's, when given) -> a wholly valid Acc tile */
static Type *batch_matmul(RuleCtx *rc, Type *acc, Type *lt, Type *rt)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	const Type *opnd[3] = { acc, lt, rt };
	static const char *const nm[3] = { "acc", "lhs", "rhs" };
	for (int i = 0; i < 3; i++)
		if (opnd[i] && opnd[i]->ndim < 2)
			return tr_error(rc, "The operator %s requires %s to have at least 2 dimensions, but got %d dimensions", op, nm[i],
					opnd[i]->ndim);
	int ln = lt->ndim, rn = rt->ndim;
	int64_t x, y;
	if (acc && cint(acc->shape[acc->ndim - 2], &x) && cint(lt->shape[ln - 2], &y) && x != y)
		return tr_error(rc, "The operator %s requires matching M dimensions, but got acc M=%lld and lhs M=%lld", op, (long long)x,
				(long long)y);
	if (acc && cint(acc->shape[acc->ndim - 1], &x) && cint(rt->shape[rn - 1], &y) && x != y)
		return tr_error(rc, "The operator %s requires matching N dimensions, but got acc N=%lld and rhs N=%lld", op, (long long)x,
				(long long)y);
	if (cint(lt->shape[ln - 1], &x) && cint(rt->shape[rn - 2], &y) && x != y)
		return tr_error(rc, "The operator %s requires matching inner dimensions, but got lhs K=%lld and rhs K=%lld", op, (long long)x,
				(long long)y);
	int nb;
	Expr **batch = tr_broadcast(c, lt->shape, ln - 2, rt->shape, rn - 2, &nb);
	if (!batch)
		return tr_error(rc, "Cannot broadcast batch dimensions for %s", op);
	if (acc && nb != acc->ndim - 2)
		return tr_error(rc, "The operator %s requires acc batch rank (%d) to equal broadcast(lhs, rhs) batch rank (%d)", op,
				acc->ndim - 2, nb);
	for (int i = 0; acc && i < nb; i++)
		if (cint(acc->shape[i], &x) && cint(batch[i], &y) && x != y)
			return tr_error(rc, "The operator %s requires acc batch dim %d to equal broadcast(lhs, rhs) batch dim %d, but got acc=%lld "
					"and broadcast=%lld", op, i, i, (long long)x, (long long)y);
	if (lt->dtype != rt->dtype)
		return tr_error(rc, "The operator %s requires identical lhs and rhs data types, but got %s and %s", op, tr_dtype_str(lt->dtype),
				tr_dtype_str(rt->dtype));
	DType adt = ir_dtype_is_float(lt->dtype) ? DT_FP32 : DT_INT32;
	if (acc && acc->dtype != adt)
		return tr_error(rc, "The operator %s requires accumulator dtype %s, but got %s", op, tr_dtype_str(adt), tr_dtype_str(acc->dtype));
	if (acc)
		return mk_tile(c, acc->shape, acc->ndim, adt, MS_ACC, NULL, NULL, NULL, NULL);
	Expr **shape = arena_alloc(c->a, (size_t)(nb + 3) * sizeof *shape);
	for (int i = 0; i < nb; i++)
		shape[i] = batch[i];
	shape[nb] = lt->shape[ln - 2];
	shape[nb + 1] = rt->shape[rn - 1];
	return mk_tile(c, shape, nb + 2, adt, MS_ACC, NULL, NULL, NULL, NULL);
}

/* DeduceTileMatMulBiasType's checks of a [1, N] bias against the rhs and
 * the accumulator dtype */
static bool bias_fits(RuleCtx *rc, const Type *bias, const Type *rt, DType adt)
{
	const char *op = rc->op->name;
	char buf[128];
	if (bias->ndim != 2)
		return tr_error(rc, "The operator %s requires bias to be 2D, but got %d dimensions", op, bias->ndim), false;
	if (!ir_is_int_const(bias->shape[0], 1, DT_INDEX)) {
		tr_fmt_shape(buf, sizeof buf, bias->shape, bias->ndim);
		return tr_error(rc, "The operator %s requires bias to have shape [1, N], but got %s", op, buf), false;
	}
	int64_t x, y;
	Expr **bv = valid_of(bias), **rv = valid_of(rt);
	if (cint(bv[0], &x) && x < 1)
		return tr_error(rc, "The operator %s requires bias valid rows to cover one broadcast row, but got %lld", op, (long long)x), false;
	if (cint(bias->shape[1], &x) && cint(rt->shape[1], &y) && x != y)
		return tr_error(rc, "The operator %s requires bias N dimension to match output N=%lld, but got bias N=%lld", op,
				(long long)y, (long long)x), false;
	if (cint(rv[1], &x) && cint(bv[1], &y) && x > y)
		return tr_error(rc, "The operator %s requires bias valid N to cover output valid N=%lld, but got bias valid N=%lld", op,
				(long long)x, (long long)y), false;
	if (bias->dtype != adt)
		return tr_error(rc, "The operator %s requires bias dtype %s to match the accumulator, but got %s", op,
				tr_dtype_str(adt), tr_dtype_str(bias->dtype)), false;
	return true;
}

/* CheckMatmulInitCond: the optional split-K predicate must be a BOOL scalar */
static bool init_cond_ok(RuleCtx *rc)
{
	int i = opt_arg(rc, "init");
	Expr *e = i >= 0 ? tr_arg(rc, i) : NULL;
	if (!e || (e->kind == EX_TUPLE && e->nargs == 0))
		return true;
	Type *t = tr_type(e);
	if (t && t->kind == TY_SCALAR && t->dtype != DT_BOOL)
		return tr_error(rc, "The operator %s requires init_cond to have dtype BOOL, but got %s. Write a comparison such as `k == 0` "
				"rather than passing the index itself.", rc->op->name, tr_dtype_str(t->dtype)), false;
	return true;
}

static Type *matmul(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	const OpsResult *r = rc->r;
	Expr *le = tr_arg(rc, r->arg), *re = tr_arg(rc, r->arg2);
	Type *lt = tr_type(le), *rt = tr_type(re);
	int acc_i = opt_arg(rc, "acc"), bias_i = opt_arg(rc, "bias");
	Type *acc = targ(rc, acc_i), *bias = targ(rc, bias_i);
	if (!lt || !rt || (acc_i >= 0 && !acc) || (bias_i >= 0 && !bias) || !init_cond_ok(rc))
		return NULL;
	if (form_is(rc, "tensor") || form_is(rc, "tensor-acc")) {
		if (acc && !is_tensor(acc))
			return tr_error(rc, "%s requires first argument (acc) to be a TensorType, but got %s", op, tr_type_name(acc));
		if (!is_tensor(lt))
			return tr_error(rc, acc ? "%s requires second argument (lhs) to be a TensorType, but got %s"
					    : "%s requires first argument to be a TensorType, but got %s", op, tr_type_name(lt));
		if (!is_tensor(rt))
			return tr_error(rc, acc ? "%s requires third argument (rhs) to be a TensorType, but got %s"
					    : "%s requires second argument to be a TensorType, but got %s", op, tr_type_name(rt));
		return acc ? matmul_tensor_acc(rc, acc, lt, rt) : matmul_tensor(rc, lt, rt);
	}
	bool three = acc || bias;
	if (acc && !is_tile(acc))
		return tr_error(rc, "The operator %s requires first argument (acc) to be a TileType, but got %s", op, tr_type_name(acc));
	if (!is_tile(lt))
		return tr_error(rc, three ? "The operator %s requires %s argument (lhs) to be a TileType, but got %s"
				      : "The operator %s requires %s argument to be a TileType, but got %s", op,
				acc ? "second" : "first", tr_type_name(lt));
	if (!is_tile(rt))
		return tr_error(rc, three ? "The operator %s requires %s argument (rhs) to be a TileType, but got %s"
				      : "The operator %s requires %s argument to be a TileType, but got %s", op,
				acc ? "third" : "second", tr_type_name(rt));
	if (bias && !is_tile(bias))
		return tr_error(rc, "The operator %s requires third argument (bias) to be a TileType, but got %s", op, tr_type_name(bias));
	DType adt;
	if (form_is(rc, "batch"))
		return batch_matmul(rc, acc, lt, rt);
	bool gemv = form_is(rc, "gemv");
	if (gemv && !acc_phase_ok(rc))
		return NULL;
	if (acc && gemv) {
		if (acc->ndim != 2)
			return tr_error(rc, "The operator %s requires acc to be 2D, but got %d dimensions", op, acc->ndim);
	}
	if (!tile_product(rc, lt, rt, &adt))
		return NULL;
	if (gemv && bias && !bias_fits(rc, bias, rt, adt))
		return NULL;
	if (gemv) {
		DType dt = DT_FP32;
		Type *t = gemv_result(rc, lt, rt, &dt);
		if (!t)
			return NULL;
		char want[128], got[128];
		if (acc) {
			for (int a = 0; a < 2; a++) {
				int64_t x, y;
				if (cint(acc->shape[a], &x) && cint(t->shape[a], &y) && x != y) {
					tr_fmt_shape(want, sizeof want, t->shape, 2);
					tr_fmt_shape(got, sizeof got, acc->shape, 2);
					return tr_error(rc, "The operator %s requires accumulator physical shape %s, but got %s", op, want, got);
				}
			}
			if (acc->dtype != dt)
				return tr_error(rc, "The operator %s requires accumulator dtype %s, but got %s", op, tr_dtype_str(dt), tr_dtype_str(acc->dtype));
			Expr **av = valid_of(acc), **ev = valid_of(t);
			if (!dims_equal(av, ev, 2)) {
				tr_fmt_shape(want, sizeof want, ev, 2);
				tr_fmt_shape(got, sizeof got, av, 2);
				return tr_error(rc, "The operator %s requires accumulator valid_shape %s, but got %s", op, want, got);
			}
		}
		if (bias) {
			if (bias->dtype != dt)
				return tr_error(rc, "The operator %s requires bias dtype %s to match the accumulator output, but got %s", op,
						tr_dtype_str(dt), tr_dtype_str(bias->dtype));
			int64_t v;
			if (!cint(valid_of(bias)[0], &v) || v != 1) {
				tr_fmt_shape(got, sizeof got, valid_of(bias), 1); /* "[rows]" */
				got[strlen(got) - 1] = 0;
				return tr_error(rc, "The operator %s requires bias to have exactly one valid row, but got %s", op, got + 1);
			}
		}
		return t;
	}
	if (acc) {
		if (acc->ndim != 2)
			return tr_error(rc, "The operator %s requires acc to be 2D, but got %d dimensions", op, acc->ndim);
		int64_t x, y;
		if (cint(acc->shape[0], &x) && cint(lt->shape[0], &y) && x != y)
			return tr_error(rc, "The operator %s requires matching physical M dimensions, but got acc M=%lld and product M=%lld", op,
					(long long)x, (long long)y);
		if (cint(acc->shape[1], &x) && cint(rt->shape[1], &y) && x != y)
			return tr_error(rc, "The operator %s requires matching physical N dimensions, but got acc N=%lld and product N=%lld", op,
					(long long)x, (long long)y);
		Expr **av = valid_of(acc), **lv = valid_of(lt), **rv = valid_of(rt);
		if (cint(lv[0], &x) && cint(av[0], &y) && x > y)
			return tr_error(rc, "The operator %s requires acc valid M to cover lhs valid M, but got acc M=%lld and lhs M=%lld", op,
					(long long)y, (long long)x);
		if (cint(rv[1], &x) && cint(av[1], &y) && x > y)
			return tr_error(rc, "The operator %s requires acc valid N to cover rhs valid N, but got acc N=%lld and rhs N=%lld", op,
					(long long)y, (long long)x);
		if (acc->dtype != adt)
			return tr_error(rc, "The operator %s requires accumulator dtype %s, but got %s", op, tr_dtype_str(adt),
					tr_dtype_str(acc->dtype));
		Type *t = mk_tile(c, acc->shape, 2, adt, MS_ACC, valid_of(acc), NULL, NULL, NULL);
		return tr_view_kw(acc, "compact") ? with_compact(c, t) : t;
	}
	if (bias && !bias_fits(rc, bias, rt, adt))
		return NULL;
	Expr **lv = valid_of(lt), **rv = valid_of(rt);
	Expr **shape = arena_alloc(c->a, 3 * sizeof *shape), **valid = arena_alloc(c->a, 3 * sizeof *valid);
	shape[0] = lt->shape[0], shape[1] = rt->shape[1];
	valid[0] = lv[0], valid[1] = rv[1];
	Type *t = mk_tile(c, shape, 2, adt, MS_ACC, valid, NULL, NULL, NULL);
	return expr_equal(valid[0], shape[0]) ? t : with_compact(c, t);
}

/* ------------------------------------------------------------ MX matmuls */

/* CheckDimMatch: a constant extent of a scale / acc / bias tile against
 * the one the product needs */
static bool mx_dim(RuleCtx *rc, const Expr *want, const Expr *got, const char *what, const char *which, const char *axis)
{
	int64_t w, g;
	if (want && cint(want, &w) && cint(got, &g) && w != g)
		return tr_error(rc, "The operator %s requires %s %s %s=%lld, but got %lld", rc->op->name, what, which, axis, (long long)w,
				(long long)g), false;
	return true;
}

/* The scale-group count ceil(K / 32) of a constant K, NULL when K is not
 * constant. */
static Expr *mx_groups(RuleCtx *rc, const Expr *k, bool *bad)
{
	int64_t v;
	if (!cint(k, &v))
		return NULL;
	if (v <= 0) {
		tr_error(rc, "MX scale K must be positive, got K=%lld", (long long)v);
		*bad = true;
		return NULL;
	}
	return idx(rc->c, (v + 31) / 32);
}

/* CheckMxScaleTile: an FP8E8M0 2-D scale tile of physical [rows, cols] and
 * valid [vrows, vcols] */
static bool mx_scale(RuleCtx *rc, const Type *s, Expr *rows, Expr *cols, Expr *vrows, Expr *vcols, const char *what)
{
	const char *op = rc->op->name;
	if (s->dtype != DT_FP8E8M0)
		return tr_error(rc, "The operator %s requires %s dtype FP8E8M0, but got %s", op, what, tr_dtype_str(s->dtype)), false;
	if (s->ndim != 2)
		return tr_error(rc, "The operator %s requires %s to be 2D, but got %d dimensions", op, what, s->ndim), false;
	Expr **sv = valid_of(s);
	return mx_dim(rc, rows, s->shape[0], what, "physical", "rows") && mx_dim(rc, cols, s->shape[1], what, "physical", "cols") &&
	       mx_dim(rc, vrows, sv[0], what, "valid", "rows") && mx_dim(rc, vcols, sv[1], what, "valid", "cols");
}

/* The K-side checks of one MX operand: physical K divisible by 64, valid K
 * positive and in the same scale groups as the physical K. */
static bool mx_k(RuleCtx *rc, const Expr *k, const Expr *vk, const char *side)
{
	const char *op = rc->op->name;
	int64_t x, y;
	if (cint(k, &x) && (x <= 0 || x % 64))
		return tr_error(rc, "The operator %s requires physical K divisible by 64 (ISA/PTOAS tmatmul_mx), but got %s K=%lld", op, side,
				(long long)x), false;
	if (cint(vk, &y) && y <= 0)
		return tr_error(rc, "The operator %s requires positive valid K, but got %s valid K=%lld", op, side, (long long)y), false;
	if (cint(k, &x) && cint(vk, &y) && (x + 31) / 32 != (y + 31) / 32)
		return tr_error(rc, "The operator %s requires %s valid K to round up to the same scale-group count as physical K "
				"(ceil(validK/32) == ceil(physicalK/32)); otherwise the PTOAS matmul_mx and tget_scale_addr verifiers "
				"conflict. Got physical K=%lld, valid K=%lld", op, side, (long long)x, (long long)y), false;
	return true;
}

/* DeduceTileMatMulMxType: FP8E4M3FN [M, K] x [K, N] with FP8E8M0 scales
 * [M, ceil(K/32)] and [ceil(K/32), N] -> an FP32 Acc [M, N] */
static Type *mx_product(RuleCtx *rc, Type *lt, Type *ls, Type *rt, Type *rs)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	if (lt->ndim != 2 || rt->ndim != 2)
		return tr_error(rc, "The operator %s requires 2D lhs/rhs tiles", op);
	const Type *side[2] = { lt, rt };
	static const char *const nm[2] = { "lhs", "rhs" };
	for (int i = 0; i < 2; i++)
		if (side[i]->dtype != DT_FP8E4M3FN)
			return tr_error(rc, "The operator %s requires %s dtype FP8E4M3FN, but got %s%s%s%s", op, nm[i], tr_dtype_str(side[i]->dtype),
					side[i]->dtype == DT_FP4 ? "; native FP4 matmul is not supported, so cast the FP4 " : "",
					side[i]->dtype == DT_FP4 ? nm[i] : "", side[i]->dtype == DT_FP4 ? " to FP8E4M3FN with pl.cast first" : "");
	Expr **lv = valid_of(lt), **rv = valid_of(rt);
	int64_t x, y;
	if (cint(lt->shape[0], &x) && (x <= 0 || x % 16))
		return tr_error(rc, "The operator %s requires physical M divisible by 16 (ISA/PTOAS tmatmul_mx), but got M=%lld", op, (long long)x);
	if (cint(rt->shape[1], &x) && (x <= 0 || x % 32))
		return tr_error(rc, "The operator %s requires physical N divisible by 32 for %s (ISA/PTOAS tmatmul_mx 32-byte row), but got N=%lld",
				op, tr_dtype_str(rt->dtype), (long long)x);
	if (cint(lt->shape[1], &x) && cint(rt->shape[0], &y) && x != y)
		return tr_error(rc, "The operator %s requires matching physical K, but got lhs K=%lld and rhs K=%lld", op, (long long)x, (long long)y);
	if (cint(lt->shape[1], &x) && (x <= 0 || x % 64))
		return tr_error(rc, "The operator %s requires physical K divisible by 64 (ISA/PTOAS tmatmul_mx), but got lhs K=%lld", op, (long long)x);
	if (cint(rt->shape[0], &x) && (x <= 0 || x % 64))
		return tr_error(rc, "The operator %s requires physical K divisible by 64 (ISA/PTOAS tmatmul_mx), but got rhs K=%lld", op, (long long)x);
	if (cint(lv[1], &x) && cint(rv[0], &y) && x != y)
		return tr_error(rc, "The operator %s requires matching valid K, but got lhs valid K=%lld and rhs valid K=%lld", op, (long long)x,
				(long long)y);
	if (!mx_k(rc, NULL, lv[1], "lhs") || !mx_k(rc, NULL, rv[0], "rhs") || !mx_k(rc, lt->shape[1], lv[1], "lhs") ||
	    !mx_k(rc, rt->shape[0], rv[0], "rhs"))
		return NULL;
	bool bad = false;
	Expr *lk = mx_groups(rc, lt->shape[1], &bad), *lvk = bad ? NULL : mx_groups(rc, lv[1], &bad);
	Expr *rk = bad ? NULL : mx_groups(rc, rt->shape[0], &bad), *rvk = bad ? NULL : mx_groups(rc, rv[0], &bad);
	if (bad)
		return NULL;
	/* (a scale of unknown type - a `late:` one of the wrong kind - ends the
	 * checks where the reference's deducer checks its kind) */
	if (!lk) {
		if (!ls)
			return NULL;
		if (ls->ndim != 2)
			return tr_error(rc, "The operator %s requires lhs_scale to be 2D, but got %d dimensions", op, ls->ndim);
		lk = ls->shape[1];
	}
	if (!rk) {
		if (!rs)
			return NULL;
		if (rs->ndim != 2)
			return tr_error(rc, "The operator %s requires rhs_scale to be 2D, but got %d dimensions", op, rs->ndim);
		rk = rs->shape[0];
	}
	if (!ls || !mx_scale(rc, ls, lt->shape[0], lk, lv[0], lvk ? lvk : lk, "lhs_scale") ||
	    !rs || !mx_scale(rc, rs, rk, rt->shape[1], rvk ? rvk : rk, rv[1], "rhs_scale"))
		return NULL;
	Expr **shape = arena_alloc(c->a, 3 * sizeof *shape), **valid = arena_alloc(c->a, 3 * sizeof *valid);
	shape[0] = lt->shape[0], shape[1] = rt->shape[1];
	valid[0] = lv[0], valid[1] = rv[1];
	Type *t = mk_tile(c, shape, 2, DT_FP32, MS_ACC, valid, NULL, NULL, NULL);
	return expr_equal(valid[0], shape[0]) ? t : with_compact(c, t);
}

/* {rule: matmul-mx, args: [LHS, LHS_SCALE, RHS, RHS_SCALE], opts: {acc: N, bias: N}}:
 * tile.matmul_mx(_acc, _bias); an FP32 2-D accumulator matching the
 * product, or an FP32 [1, N] bias */
static Type *matmul_mx(RuleCtx *rc)
{
	const char *op = rc->op->name;
	const OpsResult *r = rc->r;
	Type *lt = targ(rc, r->args[0]), *ls = targ(rc, r->args[1]), *rt = targ(rc, r->args[2]), *rs = targ(rc, r->args[3]);
	int acc_i = opt_arg(rc, "acc"), bias_i = opt_arg(rc, "bias");
	Type *acc = targ(rc, acc_i), *bias = targ(rc, bias_i);
	if (!lt || !rt || (acc_i >= 0 && !acc) || (bias_i >= 0 && !bias))
		return NULL;
	Type *extra = acc ? acc : bias;
	const char *en = acc ? "acc" : "bias";
	if (extra && extra->ndim != 2)
		return tr_error(rc, "The operator %s requires %s to be 2D, but got %d dimensions", op, en, extra->ndim);
	if (extra && extra->dtype != DT_FP32)
		return tr_error(rc, "The operator %s requires %s dtype FP32, but got %s", op, en, tr_dtype_str(extra->dtype));
	Type *t = mx_product(rc, lt, ls, rt, rs);
	if (!t || !extra)
		return t;
	Expr **ev = valid_of(extra), **tv = valid_of(t);
	int64_t x, y;
	if (acc) {
		if (cint(acc->shape[0], &x) && cint(t->shape[0], &y) && x != y)
			return tr_error(rc, "The operator %s requires acc rows to match output M", op);
		if (cint(acc->shape[1], &x) && cint(t->shape[1], &y) && x != y)
			return tr_error(rc, "The operator %s requires acc cols to match output N", op);
		return mx_dim(rc, tv[0], ev[0], "acc", "valid", "rows") && mx_dim(rc, tv[1], ev[1], "acc", "valid", "cols") ? t : NULL;
	}
	if (cint(bias->shape[0], &x) && x != 1)
		return tr_error(rc, "The operator %s requires bias shape [1, N]", op);
	if (cint(t->shape[1], &x) && cint(bias->shape[1], &y) && x != y)
		return tr_error(rc, "The operator %s requires bias cols to match N", op);
	if (cint(ev[0], &x) && x != 1)
		return tr_error(rc, "The operator %s requires bias valid rows to be 1, but got %lld", op, (long long)x);
	return mx_dim(rc, tv[1], ev[1], "bias", "valid", "cols") ? t : NULL;
}

/* {rule: scale-addr, args: [DST_SCALE, SRC]}: tile.tget_scale_addr, the
 * FP8E8M0 DST_SCALE (LeftScale for a Left SRC, RightScale for a Right one)
 * shaped as SRC's MX scales */
static Type *scale_addr(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Type *dt = targ(rc, rc->r->arg), *st = targ(rc, rc->r->arg2);
	if (!dt || !st)
		return NULL;
	if (dt->dtype != DT_FP8E8M0)
		return tr_error(rc, "The operator %s requires dst_scale dtype FP8E8M0, but got %s", op, tr_dtype_str(dt->dtype));
	if (st->dtype != DT_FP8E4M3FN)
		return tr_error(rc, "The operator %s requires src dtype FP8E4M3FN, but got %s", op, tr_dtype_str(st->dtype));
	if (dt->ndim != 2 || st->ndim != 2)
		return tr_error(rc, "The operator %s requires 2D dst_scale and src tiles", op);
	if (dt->mem == MS_NONE || st->mem == MS_NONE)
		return tr_error(rc, "The operator %s requires resolved dst_scale and src memory spaces", op);
	bool left = dt->mem == MS_LEFT_SCALE && st->mem == MS_LEFT, right = dt->mem == MS_RIGHT_SCALE && st->mem == MS_RIGHT;
	if (!left && !right)
		return tr_error(rc, "The operator %s requires LeftScale\u2194Left or RightScale\u2194Right pairing, but got dst=%s src=%s", op,
				ir_mem_name(dt->mem), ir_mem_name(st->mem));
	Expr **sv = valid_of(st), **dv = valid_of(dt);
	int k = left ? 1 : 0; /* the K axis of SRC */
	bool bad = false;
	Expr *g = mx_groups(rc, st->shape[k], &bad), *vg = bad ? NULL : mx_groups(rc, sv[k], &bad);
	if (bad)
		return NULL;
	if (!g)
		return left ? (mx_dim(rc, st->shape[0], dt->shape[0], "dst_scale", "physical", "rows") &&
			       mx_dim(rc, sv[0], dv[0], "dst_scale", "valid", "rows") ? dt : NULL)
			    : (mx_dim(rc, st->shape[1], dt->shape[1], "dst_scale", "physical", "cols") &&
			       mx_dim(rc, sv[1], dv[1], "dst_scale", "valid", "cols") ? dt : NULL);
	if (!vg)
		vg = g;
	bool ok = left ? mx_scale(rc, dt, st->shape[0], g, sv[0], vg, "dst_scale") : mx_scale(rc, dt, g, st->shape[1], vg, sv[1], "dst_scale");
	return ok ? dt : NULL;
}

/* ------------------------------------------------------------ transpose */

/* {rule: transposed, args: [T, AXIS1, AXIS2], opts: {form: tensor|tile|view}}
 *   tensor: the axes swapped, strides recorded (a trailing swap flips ND /
 *   DN); tile: a fresh Vec tile of the swapped shape; view
 *   (tile.transpose_view): the trailing axes swapped, layouts flipped, in
 *   the source's memory. */
static int norm_axis(RuleCtx *rc, Expr *e, int nd, const char *which, bool *ok)
{
	*ok = false;
	if (!e || e->kind != EX_INT) {
		tr_error(rc, "%s requires %s argument (%s) to be a ConstInt", rc->op->name, which[4] == '1' ? "second" : "third", which);
		return 0;
	}
	int64_t a = e->ival;
	if (a < 0)
		a += nd;
	if (a < 0 || a >= nd) {
		tr_error(rc, "Axis %lld is out of range for %dD tensor", (long long)e->ival, nd);
		return 0;
	}
	*ok = true;
	return (int)a;
}

static Type *transposed(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *t0 = targ(rc, rc->r->arg);
	if (!t0)
		return NULL;
	int nd = t0->ndim;
	if (form_is(rc, "view")) {
		if (!is_tile(t0))
			return tr_error(rc, "%s requires input to be a TileType, but got %s", op, tr_type_name(t0));
		if (nd < 2)
			return tr_error(rc, "%s requires at least 2 dimensions, but got %d", op, nd);
		Expr **shape = dims_copy(c, t0->shape, nd), **valid = dims_copy(c, valid_of(t0), nd);
		Expr *x = shape[nd - 1];
		shape[nd - 1] = shape[nd - 2], shape[nd - 2] = x;
		x = valid[nd - 1];
		valid[nd - 1] = valid[nd - 2], valid[nd - 2] = x;
		const char *lay[2];
		layouts_of(t0, lay);
		for (int i = 0; i < 2; i++)
			lay[i] = !strcmp(lay[i], "row_major") ? "col_major" : !strcmp(lay[i], "col_major") ? "row_major" : lay[i];
		MemSpace mem = t0->mem;
		/* the flipped layouts are written out whatever the implicit ones */
		Type *t = mk_tile(c, shape, nd, t0->dtype, mem, valid, NULL, NULL, NULL);
		const char *names[5];
		Expr *vals[5];
		int k = 0;
		if (!dims_equal(valid, shape, nd)) {
			names[k] = "valid_shape";
			vals[k++] = tr_list(c, valid, nd, nopos);
		}
		const char *imp[2];
		implicit_layouts(shape, nd, mem, imp);
		static const char *const kw[2] = { "blayout", "slayout" };
		for (int i = 0; i < 2; i++)
			if (strcmp(lay[i], imp[i])) {
				char buf[64];
				snprintf(buf, sizeof buf, "pl.TileLayout.%s", lay[i]);
				names[k] = kw[i];
				vals[k++] = tr_symbol(c, buf);
			}
		Expr *pad = tr_view_kw(t0, "pad");
		if (pad) {
			names[k] = "pad";
			vals[k++] = pad;
		}
		t->view = k ? tr_view(c, names, vals, k) : NULL;
		return t;
	}
	bool ok;
	int a1 = 0, a2 = 0;
	if (form_is(rc, "tensor")) {
		if (!is_tensor(t0))
			return tr_error(rc, "%s requires first argument to be a TensorType, but got %s", op, tr_type_name(t0));
		if (nd < 2)
			return tr_error(rc, "%s requires at least 2 dimensions, but got %d", op, nd);
	} else {
		if (!is_tile(t0))
			return tr_error(rc, "The operator %s requires first argument to be a TileType, but got %s", op, tr_type_name(t0));
	}
	a1 = norm_axis(rc, tr_arg(rc, rc->r->args[1]), nd, "axis1", &ok);
	if (!ok)
		return NULL;
	a2 = norm_axis(rc, tr_arg(rc, rc->r->args[2]), nd, "axis2", &ok);
	if (!ok)
		return NULL;
	if (a1 == a2)
		return tr_error(rc, "%s: axis1 and axis2 must be different, but got axis1=%d, axis2=%d", op, a1, a2);
	Expr **shape = dims_copy(c, t0->shape, nd);
	Expr *x = shape[a1];
	shape[a1] = shape[a2], shape[a2] = x;
	if (!form_is(rc, "tensor"))
		return mk_tile(c, shape, nd, t0->dtype, MS_VEC, NULL, NULL, NULL, NULL);
	bool trailing = (a1 == nd - 1 && a2 == nd - 2) || (a1 == nd - 2 && a2 == nd - 1);
	const char *in_layout = tensor_layout(t0);
	const char *out_layout = in_layout;
	if (trailing)
		out_layout = !strcmp(in_layout, "pl.TensorLayout.ND") ? "pl.TensorLayout.DN" : "pl.TensorLayout.ND";
	Expr *pad = tr_view_kw(t0, "pad");
	Expr *st = tr_view_kw(t0, "stride");
	Expr **stride = arena_alloc(c->a, (size_t)(nd + 1) * sizeof *stride);
	if (st && st->kind == EX_TUPLE && st->nargs == nd) {
		for (int i = 0; i < nd; i++)
			stride[i] = st->args[i];
	} else {
		Expr *acc = idx(c, 1);
		for (int i = nd - 1; i >= 0; i--) {
			stride[i] = acc;
			if (i && !(acc = mul_dims(c, acc, t0->shape[i])))
				return NULL;
		}
	}
	x = stride[a1];
	stride[a1] = stride[a2], stride[a2] = x;
	Expr *valid = NULL;
	Expr *vs = tr_kwarg(rc, "valid_shape");
	if (vs && vs->kind == EX_TUPLE) {
		if (vs->nargs != nd)
			return tr_error(rc, "%s: valid_shape rank (%d) must match tensor rank (%d)", op, vs->nargs, nd);
		valid = vs;
	} else if (has_valid(t0)) {
		Expr **v = dims_copy(c, valid_of(t0), nd);
		x = v[a1];
		v[a1] = v[a2], v[a2] = x;
		valid = tr_list(c, v, nd, nopos);
	}
	bool record = true;
	if (!strcmp(out_layout, "pl.TensorLayout.ND")) {
		/* strides equal to the row-major ones of the new shape are not recorded */
		Expr *acc = idx(c, 1);
		record = false;
		for (int i = nd - 1; i >= 0 && !record; i--) {
			if (!expr_equal(acc, stride[i]))
				record = true;
			if (i && !(acc = mul_dims(c, acc, shape[i])))
				return NULL;
		}
	}
	Type *t = mk_tensor(c, shape, nd, t0->dtype);
	bool has_pad = pad && !(pad->kind == EX_SYMBOL && !strcmp(pad->str, "pl.PadValue.null"));
	if (record || strcmp(out_layout, "pl.TensorLayout.ND") || valid || has_pad)
		t->view = mk_tensor_view(c, valid, record ? tr_list(c, stride, nd, nopos) : NULL, out_layout, pad);
	return t;
}

/* ------------------------------------------------------------ concat */

/* {rule: concat, args: [A, B]}: two 2-D operands side by side (columns
 * added); a tile result is a fresh Vec tile */
static Type *concat(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *a = targ(rc, rc->r->arg), *b = targ(rc, rc->r->arg2);
	if (!a || !b)
		return NULL;
	bool tile = rc->op->name[1] == 'i';
	if (tile ? !is_tile(a) : !is_tensor(a))
		return tr_error(rc, "%s: src0 must be %s, got %s", op, tile ? "TileType" : "TensorType", tr_type_name(a));
	if (tile ? !is_tile(b) : !is_tensor(b))
		return tr_error(rc, "%s: src1 must be %s, got %s", op, tile ? "TileType" : "TensorType", tr_type_name(b));
	if (a->dtype != b->dtype)
		return tr_error(rc, "%s: src0 and src1 must have same dtype, got %s and %s", op, tr_dtype_str(a->dtype),
				tr_dtype_str(b->dtype));
	if (a->ndim != 2 || b->ndim != 2)
		return tr_error(rc, "%s requires 2D %s", op, tile ? "tiles" : "tensors");
	int64_t x, y;
	if (cint(a->shape[0], &x) && cint(b->shape[0], &y) && x != y)
		return tr_error(rc, "%s: row count must match, got %lld vs %lld", op, (long long)x, (long long)y);
	Expr **shape = arena_alloc(c->a, 3 * sizeof *shape);
	shape[0] = a->shape[0];
	if (cint(a->shape[1], &x) && cint(b->shape[1], &y))
		shape[1] = idx(c, x + y);
	else if (!(shape[1] = type_make_binary(c->a, OP_ADD, a->shape[1], b->shape[1], nopos, c->d)))
		return NULL;
	if (tile)
		return mk_tile(c, shape, 2, a->dtype, MS_VEC, NULL, NULL, NULL, NULL);
	return mk_tensor(c, shape, 2, a->dtype);
}

/* ------------------------------------------------------------ valid shapes */

/* {rule: set-valid, args: [T, ROWS, COLS]}: T with valid_shape [ROWS, COLS] */
static Type *set_valid(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *t0 = targ(rc, rc->r->arg);
	Expr *rows = tr_arg(rc, rc->r->args[1]), *cols = tr_arg(rc, rc->r->args[2]);
	if (!t0 || !rows || !cols)
		return NULL;
	bool tile = op[1] == 'i';
	if (tile ? !is_tile(t0) : !is_tensor(t0))
		return tr_error(rc, "%s requires first argument to be a %s, but got %s", op, tile ? "TileType" : "TensorType", tr_type_name(t0));
	if (t0->ndim != 2)
		return tr_error(rc, "%s requires a 2D %s, but got rank %d", op, tile ? "tile" : "tensor", t0->ndim);
	Expr *vals[2] = { rows, cols };
	static const char *const nm[2] = { "valid_rows", "valid_cols" };
	for (int i = 0; i < 2; i++) {
		Type *st = tr_type(vals[i]);
		if (st && st->kind != TY_SCALAR)
			return tr_error(rc, "%s %s must be ScalarType, but got %s", op, nm[i], tr_type_name(st));
		if (st && st->dtype != DT_INDEX && st->dtype != DT_INT64 && st->dtype != DT_UINT64)
			return tr_error(rc, "%s %s must have dtype INT64, UINT64, or INDEX, but got %s", op, nm[i], tr_dtype_str(st->dtype));
		int64_t v, b;
		if (cint(vals[i], &v)) {
			if (v < 0)
				return tr_error(rc, "%s %s must be >= 0, got %lld", op, nm[i], (long long)v);
			if (cint(t0->shape[i], &b) && v > b)
				return tr_error(rc, "%s %s (%lld) exceeds %s bound %lld", op, nm[i], (long long)v, tile ? "tile" : "tensor", (long long)b);
		}
	}
	Expr **valid = arena_alloc(c->a, 3 * sizeof *valid);
	valid[0] = rows, valid[1] = cols;
	if (tile)
		return mk_tile_like(c, t0, t0->shape, 2, t0->dtype, t0->mem, valid);
	Type *t = mk_tensor(c, t0->shape, 2, t0->dtype);
	t->memref = t0->memref;
	Expr *st = tr_view_kw(t0, "stride");
	set_tensor_view(c, t, tr_list(c, valid, 2, nopos), st, tensor_layout(t0), tr_view_kw(t0, "pad"));
	return t;
}

/* ------------------------------------------------------------ padding */

/* {rule: padded, arg: T, shape: N?, opts: {form: tensor|tile}}: fillpad
 * (the whole shape valid, the pad mode recorded on tiles) and, with a
 * shape, fillpad_expand (the larger shape, the pad recorded) */
static Type *padded(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *t0 = targ(rc, rc->r->arg);
	if (!t0)
		return NULL;
	bool tile = form_is(rc, "tile");
	if (tile ? !is_tile(t0) : !is_tensor(t0))
		return tr_error(rc, tile ? "The operator %s requires first argument to be a TileType, but got %s"
					 : "%s requires first argument to be a TensorType, but got %s", op, tr_type_name(t0));
	if (!tr_fillpad_pad(rc))
		return NULL;
	Expr *pad = tr_kwarg(rc, "pad_value");
	Expr **shape = t0->shape;
	int nd = t0->ndim;
	if (rc->r->shape >= 0) {
		Expr *s = tr_arg(rc, rc->r->shape);
		if (!s || s->kind != EX_TUPLE)
			return tr_error(rc, "%s shape must be a literal tuple of constants, but got %s", op, tr_type_name(tr_type(s)));
		if (s->nargs != nd)
			return tr_error(rc, "%s shape rank (%d) must match source rank (%d)", op, s->nargs, nd);
		for (int i = 0; i < nd; i++) {
			int64_t d, sd;
			if (!cint(s->args[i], &d))
				return tr_error(rc, "%s shape dimension %d must be a constant integer", op, i);
			if (d <= 0)
				return tr_error(rc, "%s shape dimension %d must be positive, got %lld", op, i, (long long)d);
			if (cint(t0->shape[i], &sd) && d < sd)
				return tr_error(rc, "%s destination dimension %d (%lld) must be >= source dimension (%lld)", op, i,
						(long long)d, (long long)sd);
		}
		shape = s->args;
	}
	if (tile) {
		const char *lay[2];
		layouts_of(t0, lay);
		Type *t = mk_tile(c, shape, nd, t0->dtype, t0->mem, NULL, lay[0], lay[1],
				  pad ? pad : tr_symbol(c, "pl.PadValue.zero"));
		t->memref = t0->memref;
		return t;
	}
	Type *t = mk_tensor(c, shape, nd, t0->dtype);
	if (rc->r->shape >= 0) {
		t->view = mk_tensor_view(c, NULL, NULL, tensor_layout(t0), pad ? pad : tr_symbol(c, "pl.PadValue.zero"));
		return t;
	}
	t->memref = t0->memref;
	if (t0->view) {
		/* the view kept, its valid shape now the whole shape */
		ViewSpec *vs = arena_alloc(c->a, sizeof *vs);
		vs->kw = arena_alloc(c->a, (size_t)(t0->view->nkw + 1) * sizeof *vs->kw);
		vs->nkw = 0;
		bool plain = true; /* only the defaults left: no view */
		for (int i = 0; i < t0->view->nkw; i++) {
			const Kwarg *k = &t0->view->kw[i];
			if (!strcmp(k->name, "valid_shape"))
				continue;
			vs->kw[vs->nkw++] = *k;
			if (!strcmp(k->name, "stride"))
				plain &= k->value->kind == EX_TUPLE && k->value->nargs == 0;
			else if (!strcmp(k->name, "layout"))
				plain &= k->value->kind == EX_SYMBOL && !strcmp(k->value->str, "pl.TensorLayout.ND");
			else
				plain = false;
		}
		t->view = plain ? NULL : vs;
	}
	return t;
}

/* ------------------------------------------------------------ sorts */

/* {rule: sorted, arg: SRC, opts: {form: sort32|format1|format2}}
 *   sort32: the last dim doubled (value-index pairs); format1: SRC's shape;
 *   format2: tensors, the last dims of the inputs summed; tiles, the shape
 *   of the tmp workspace (the last given operand) */
static Type *sorted(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *t0 = targ(rc, rc->r->arg);
	if (!t0)
		return NULL;
	bool tile = op[1] == 'i';
	if (tile ? !is_tile(t0) : !is_tensor(t0))
		return tr_error(rc, "The operator %s requires %s to be a %s, but got %s", op,
				form_is(rc, "sort32") ? "first argument" : "argument 0", tile ? "TileType" : "TensorType", tr_type_name(t0));
	if (t0->dtype != DT_FP16 && t0->dtype != DT_FP32)
		return tr_error(rc, "The operator %s requires src dtype to be FP16 or FP32, but got %s", op,
				tr_dtype_str(t0->dtype));
	int nd = t0->ndim;
	if (nd == 0)
		return tr_error(rc, "The operator %s requires non-empty input shape", op);
	Expr **shape = dims_copy(c, t0->shape, nd);
	if (form_is(rc, "sort32")) {
		int64_t v;
		if (!tile && cint(shape[nd - 1], &v) && (v <= 0 || v % 32))
			return tr_error(rc, "The operator %s requires the last dimension to be a positive multiple of 32, but got %lld", op, (long long)v);
		Type *it = targ(rc, 1);
		if (!it)
			return NULL;
		if (tile ? !is_tile(it) : !is_tensor(it))
			return tr_error(rc, "The operator %s requires second argument to be a %s, but got %s", op,
					tile ? "TileType" : "TensorType", tr_type_name(it));
		if (!tile && it->dtype != DT_UINT32)
			return tr_error(rc, "The operator %s requires idx dtype to be UINT32, but got %s", op, tr_dtype_str(it->dtype));
		if (!tile && it->ndim != nd)
			return tr_error(rc, "The operator %s requires idx rank (%d) to match src rank (%d)", op, it->ndim, nd);
		for (int i = 0; !tile && i < nd; i++)
			if (!dims_equal(&shape[i], &it->shape[i], 1))
				return tr_error(rc, "The operator %s requires idx shape to match src shape at axis %d", op, i);
		if (cint(shape[nd - 1], &v))
			shape[nd - 1] = idx(c, v * 2);
		else if (!(shape[nd - 1] = type_make_binary(c->a, OP_MUL, shape[nd - 1], idx(c, 2), nopos, c->d)))
			return NULL;
	} else if (form_is(rc, "format1")) {
		Expr *bl = tr_arg(rc, rc->r->arg2);
		int bd = bl ? tr_elem_dtype(bl) : -1;
		if (bd >= 0 && !ir_dtype_is_int((DType)bd))
			return tr_error(rc, "The operator %s requires block_len to be an integer type, but got %s", op,
					tr_dtype_str((DType)bd));
		int64_t v;
		if (bl && cint(bl, &v) && (v <= 0 || v % 64))
			return tr_error(rc, "The operator %s requires block_len to be a positive multiple of 64, but got %lld", op, (long long)v);
	} else {
		/* the given operands after the first */
		int last = rc->r->arg;
		for (int i = rc->r->arg + 1; i < rc->op->nparams; i++)
			if (rc->slots[i] && !(rc->slots[i]->kind == EX_TUPLE && rc->slots[i]->nargs == 0))
				last = i;
		for (int i = rc->r->arg + 1; i <= last; i++) {
			Type *ti = i < last || !tile ? targ(rc, i) : t0;
			if (!ti)
				return NULL;
			if (ti->dtype != t0->dtype)
				return tr_error(rc, "The operator %s requires all src %s to have matching dtype, but argument %d has %s (expected %s)",
						op, tile ? "tiles" : "tensors", i, tr_dtype_str(ti->dtype), tr_dtype_str(t0->dtype));
			if (tile)
				continue;
			if (ti->ndim != nd)
				return tr_error(rc, "The operator %s requires all src tensors to have matching rank", op);
			for (int a = 0; a + 1 < nd; a++)
				if (!dims_equal(&ti->shape[a], &shape[a], 1))
					return tr_error(rc, "The operator %s requires all src tensors to match shape on non-concat axis %d, but argument %d differs",
							op, a, i);
		}
		if (tile) {
			Type *tmp = targ(rc, last);
			if (!tmp)
				return NULL;
			if (!is_tile(tmp))
				return tr_error(rc, "The operator %s requires argument %d (tmp) to be a TileType, but got %s", op, last,
						tr_type_name(tmp));
			return mk_tile_like(c, t0, tmp->shape, tmp->ndim, t0->dtype, MS_VEC, NULL);
		}
		Expr *sum = shape[nd - 1];
		for (int i = rc->r->arg + 1; i <= last; i++) {
			Type *ti = targ(rc, i);
			if (!ti)
				return NULL;
			int64_t x, y;
			if (cint(sum, &x) && cint(ti->shape[ti->ndim - 1], &y))
				sum = idx(c, x + y);
			else if (!(sum = type_make_binary(c->a, OP_ADD, sum, ti->shape[ti->ndim - 1], nopos, c->d)))
				return NULL;
		}
		shape[nd - 1] = sum;
	}
	if (tile)
		return mk_tile_like(c, t0, shape, nd, t0->dtype, MS_VEC, NULL);
	return mk_tensor(c, shape, nd, t0->dtype);
}

/* ------------------------------------------------------------ gathers */

/* tile.gatherb's element types (8-, 16- and 32-bit integers, FP16, BF16, FP32) */
static bool gatherb_dtype(DType t)
{
	return t == DT_INT8 || t == DT_UINT8 || t == DT_INT16 || t == DT_UINT16 || t == DT_INT32 || t == DT_UINT32 ||
	       t == DT_FP16 || t == DT_BF16 || t == DT_FP32;
}

/* {rule: gathered, args: [SRC, IDX?], opts: {form: index|mask|block|compare}}
 *   index: IDX's shape, SRC's dtype (tensor.gather, tile.gather);
 *   mask: the columns cut by mask_pattern (1-2: /2, 3-6: /4, 7: all),
 *   output_dtype or SRC's; block (tile.gatherb): IDX's columns times the
 *   elements of a 32-byte block; compare: a (dst, count) tuple */
/* tensor.gather's index form: index's shape, input's dtype, after the
 * reference's dtype, rank, dim and non-gather-axis checks */
static Type *tensor_gather(RuleCtx *rc, const Type *src, const Type *it)
{
	const char *op = rc->op->name;
	bool src16 = src->dtype == DT_FP16 || src->dtype == DT_INT16;
	if (!src16 && src->dtype != DT_FP32 && src->dtype != DT_INT32)
		return tr_error(rc, "The operator %s requires input dtype to be FP16, FP32, INT16, or INT32, but got %s", op,
				tr_dtype_str(src->dtype));
	if (!is_tensor(it))
		return tr_error(rc, "The operator %s requires index to be a TensorType, but got %s", op, tr_type_name(it));
	if (it->dtype != DT_INT32 && !(it->dtype == DT_INT16 && src16))
		return tr_error(rc, "The operator %s requires index dtype INT32 (any input), or INT16 with a 16-bit input (FP16/INT16); "
				"INT16 indices with a 32-bit input are unsafe (tgather b32 reads them as u32). Got index %s with input %s",
				op, tr_dtype_str(it->dtype), tr_dtype_str(src->dtype));
	int n = src->ndim;
	if (n < 2)
		return tr_error(rc, "The operator %s requires rank >= 2, but got rank %d", op, n);
	if (it->ndim != n)
		return tr_error(rc, "The operator %s requires index rank (%d) to match input rank (%d)", op, it->ndim, n);
	int64_t d, a, b;
	if (!cint_signed(tr_kwarg(rc, "dim"), &d))
		return NULL;
	int64_t nd = d < 0 ? d + n : d;
	if (nd < 0 || nd >= n)
		return tr_error(rc, "The operator %s requires dim in [%d, %d], but got dim=%lld", op, -n, n - 1, (long long)d);
	for (int i = 0; i < n; i++)
		if (i != nd && cint(it->shape[i], &a) && cint(src->shape[i], &b) && a > b)
			return tr_error(rc, "The operator %s requires index.shape[%d] (%lld) <= input.shape[%d] (%lld) on non-gather axes", op,
					i, (long long)a, i, (long long)b);
	return mk_tensor(rc->c, it->shape, it->ndim, src->dtype);
}

static Type *gathered(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *src = targ(rc, rc->r->arg);
	if (!src)
		return NULL;
	bool tile = op[1] == 'i';
	if (tile ? !is_tile(src) : !is_tensor(src))
		return tr_error(rc, "The operator %s requires first argument to be a %s, but got %s", op, tile ? "TileType" : "TensorType",
				tr_type_name(src));
	if (form_is(rc, "index")) {
		Type *it = targ(rc, rc->r->arg2);
		if (!it)
			return NULL;
		if (tile) {
			bool src16 = src->dtype == DT_FP16 || src->dtype == DT_INT16;
			if (!src16 && src->dtype != DT_FP32 && src->dtype != DT_INT32)
				return tr_error(rc, "The operator %s requires src dtype to be FP16, FP32, INT16, or INT32, but got %s", op,
						tr_dtype_str(src->dtype));
			if (it->dtype != DT_INT32 && !(it->dtype == DT_INT16 && src16))
				return tr_error(rc, "The operator %s requires indices dtype INT32 (any src), or INT16 with a 16-bit src "
						"(FP16/INT16); INT16 indices with a 32-bit src are unsafe (tgather b32 reads them as u32). "
						"Got indices %s with src %s", op, tr_dtype_str(it->dtype), tr_dtype_str(src->dtype));
			return mk_tile_like(c, src, it->shape, it->ndim, src->dtype, MS_VEC, NULL);
		}
		return tensor_gather(rc, src, it);
	}
	if (form_is(rc, "block")) {
		if (!gatherb_dtype(src->dtype))
			return tr_error(rc, "The operator %s requires src dtype to be an 8/16/32-bit int/uint or FP16/BF16/FP32, but got %s",
					op, tr_dtype_str(src->dtype));
		int dt = src->dtype;
		Expr *od = tr_kwarg(rc, "output_dtype");
		if (od && (dt = tr_dtype_symbol(c, od)) < 0)
			return NULL;
		if (!gatherb_dtype((DType)dt))
			return tr_error(rc, "The operator %s requires output_dtype to be an 8/16/32-bit int/uint or FP16/BF16/FP32, but got %s",
					op, tr_dtype_str((DType)dt));
		Type *ot = targ(rc, rc->r->arg2);
		if (!ot)
			return NULL;
		if (ot->dtype != DT_UINT32)
			return tr_error(rc, "The operator %s requires offset dtype to be UINT32, but got %s", op, tr_dtype_str(ot->dtype));
		if (src->ndim != 2)
			return tr_error(rc, "The operator %s requires a 2D src tile, but got rank %d", op, src->ndim);
		if (ot->ndim != 2)
			return tr_error(rc, "The operator %s requires a 2D offset tile, but got rank %d", op, ot->ndim);
		int64_t ocols;
		if (!cint(ot->shape[1], &ocols))
			return tr_error(rc, "The operator %s requires static offset columns", op);
		if (ocols <= 0 || ocols % 8)
			return tr_error(rc, "The operator %s requires offset columns to be a positive multiple of 8 (32-byte UINT32 row), but got %lld",
					op, (long long)ocols);
		int bytes = ir_dtype_bits((DType)dt) / 8;
		if (bytes <= 0 || 32 % bytes)
			return tr_error(rc, "The operator %s requires a byte-addressable output dtype that divides 32 bytes, but got %s", op,
					tr_dtype_str((DType)dt));
		Expr *per = idx(c, 32 / bytes);
		Expr **shape = arena_alloc(c->a, 3 * sizeof *shape), **valid = arena_alloc(c->a, 3 * sizeof *valid);
		Expr **ov = valid_of(ot);
		shape[0] = ot->shape[0];
		valid[0] = ov[0];
		if (!(shape[1] = mul_dims(c, ot->shape[1], per)) || !(valid[1] = mul_dims(c, ov[1], per)))
			return NULL;
		return mk_tile(c, shape, 2, (DType)dt, MS_VEC, valid, "row_major", NULL, NULL);
	}
	if (src->ndim != 2)
		return NULL;
	/* the reference's name of the operand: src (tiles), input (tensors) */
	const char *what = tile ? "src" : "input";
	bool dt4 = src->dtype == DT_FP16 || src->dtype == DT_FP32 || src->dtype == DT_INT16 || src->dtype == DT_INT32;
	if (form_is(rc, "mask")) {
		if (!dt4)
			return tr_error(rc, "The operator %s requires %s dtype to be FP16, FP32, INT16, or INT32, but got %s", op, what,
					tr_dtype_str(src->dtype));
		if (!tile && src->ndim != 2)
			return tr_error(rc, "The operator %s requires 2D input, but got rank %d", op, src->ndim);
		Expr *mp = tr_kwarg(rc, "mask_pattern");
		int64_t p;
		if (!cint(mp, &p))
			return NULL;
		if (p < 1 || p > 7)
			return tr_error(rc, "The operator %s requires mask_pattern in range [1, 7], but got %lld", op, (long long)p);
		Expr **shape = arena_alloc(c->a, 3 * sizeof *shape);
		shape[0] = src->shape[0];
		shape[1] = src->shape[1];
		if (p != 7) {
			int64_t dv = p <= 2 ? 2 : 4, cols;
			if (cint(src->shape[1], &cols)) {
				if (cols % dv)
					return tr_error(rc, "The operator %s with mask_pattern=%lld requires src columns divisible by %lld, got %lld", op,
							(long long)p, (long long)dv, (long long)cols);
				shape[1] = idx(c, cols / dv);
			} else if (!(shape[1] = type_make_binary(c->a, OP_FLOORDIV, src->shape[1], idx(c, dv), nopos, c->d))) {
				return NULL;
			}
		}
		int dt = src->dtype;
		Expr *od = tr_kwarg(rc, "output_dtype");
		if (od) {
			if ((dt = tr_dtype_symbol(c, od)) < 0)
				return NULL;
			if (ir_dtype_bits((DType)dt) != ir_dtype_bits(src->dtype))
				return tr_error(rc, "The operator %s output_dtype must have the same bit width as %s dtype (%s = %d bits), but got %s = %d bits",
						op, what, tr_dtype_str(src->dtype), ir_dtype_bits(src->dtype), tr_dtype_str((DType)dt),
						ir_dtype_bits((DType)dt));
		}
		if (tile)
			return mk_tile_like(c, src, shape, 2, (DType)dt, MS_VEC, NULL);
		return mk_tensor(c, shape, 2, (DType)dt);
	}
	/* compare */
	if (!dt4)
		return tr_error(rc, "The operator %s requires %s dtype in {FP16, FP32, INT16, INT32}, but got %s", op, what,
				tr_dtype_str(src->dtype));
	if (!tile && src->ndim != 2)
		return tr_error(rc, "The operator %s requires 2D input, but got rank %d", op, src->ndim);
	Type *kt = targ(rc, rc->r->arg2);
	if (kt && kt->kind != TY_SCALAR)
		return tr_error(rc, "The operator %s requires kvalue to be a ScalarType, but got %s", op, tr_type_name(kt));
	if (kt && kt->dtype != src->dtype)
		return tr_error(rc, "The operator %s requires kvalue dtype equal to src dtype %s , but got %s", op, tr_dtype_str(src->dtype),
				tr_dtype_str(kt->dtype));
	Expr *oc = tr_kwarg(rc, "out_cols");
	int64_t cols;
	if (!cint(oc, &cols))
		return NULL;
	if (cols <= 0)
		return tr_error(rc, "The operator %s requires out_cols > 0, but got %lld", op, (long long)cols);
	int cdt = DT_INT32;
	Expr *cd = tr_kwarg(rc, "count_dtype");
	if (cd && (cdt = tr_dtype_symbol(c, cd)) < 0)
		return NULL;
	if (cdt != DT_INT32 && cdt != DT_UINT32)
		return tr_error(rc, "The operator %s requires count_dtype to be INT32 or UINT32, but got %s", op, tr_dtype_str((DType)cdt));
	Expr **d0 = arena_alloc(c->a, 3 * sizeof *d0), **d1 = arena_alloc(c->a, 3 * sizeof *d1);
	d0[0] = src->shape[0], d0[1] = idx(c, cols);
	d1[0] = idx(c, 1), d1[1] = src->shape[0];
	Type *t = ir_type_new(c->a, TY_TUPLE);
	t->elems = arena_alloc(c->a, 3 * sizeof *t->elems);
	t->nelems = 2;
	if (tile) {
		t->elems[0] = mk_tile_like(c, src, d0, 2, DT_INT32, MS_VEC, NULL);
		t->elems[1] = mk_tile(c, d1, 2, (DType)cdt, MS_VEC, NULL, "row_major", NULL, NULL);
	} else {
		t->elems[0] = mk_tensor(c, d0, 2, DT_INT32);
		t->elems[1] = mk_tensor(c, d1, 2, (DType)cdt);
	}
	return t;
}

/* ------------------------------------------------------------ others */

/* {rule: ptr}: pl.Ptr (tensor.alloc, tile.alloc) */
static Type *ptr(RuleCtx *rc)
{
	return ir_type_new(rc->c->a, TY_PTR);
}

static Expr **packed_strides(SugarCtx *c, Expr **shape, int n, bool dn);

/* Byte-addressable dtypes a reinterpret view takes. */
static bool reinterpret_dtype(DType d)
{
	switch (d) {
	case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64: case DT_UINT8: case DT_UINT16: case DT_UINT32:
	case DT_UINT64: case DT_FP16: case DT_FP32: case DT_BF16:
		return true;
	default:
		return false;
	}
}

/* Extent e of sb-byte elements counted in db-byte ones.  diag: report
 * what cannot be represented (WHAT dimension AXIS); else NULL silently
 * (and the inverse of a widening product, (e * k) / k, is recognised). */
static Expr *scale_extent(RuleCtx *rc, Expr *e, int sb, int db, const char *what, int axis, bool diag)
{
	const char *op = rc->op->name;
	int64_t v;
	if (sb == db)
		return e;
	if ((sb > db ? sb % db : db % sb) != 0) {
		if (diag)
			tr_error(rc, "%s cannot represent dtype byte ratio %d:%d", op, sb, db);
		return NULL;
	}
	if (sb > db) {
		if (cint(e, &v))
			return idx(rc->c, v * (sb / db));
		return type_make_binary(rc->c->a, OP_MUL, e, idx(rc->c, sb / db), nopos, rc->c->d);
	}
	int k = db / sb;
	if (cint(e, &v)) {
		if (v % k == 0)
			return idx(rc->c, v / k);
		if (diag)
			tr_error(rc, "%s %s dimension %d (%lld) is not divisible by %d for the wider target dtype", op, what, axis, (long long)v, k);
		return NULL;
	}
	if (diag) {
		tr_error(rc, "%s cannot prove that dynamic %s dimension %d is divisible by %d for the wider target dtype; provide a static divisible extent",
			 op, what, axis, k);
		return NULL;
	}
	if (e->kind == EX_BINARY && e->op == OP_MUL) {
		if (cint(e->rhs, &v) && v == k)
			return e->lhs;
		if (cint(e->lhs, &v) && v == k)
			return e->rhs;
	}
	return NULL;
}

/* dims with the contiguous axis scaled (NULL as scale_extent) */
static Expr **scale_dims(RuleCtx *rc, Expr **d, int n, int axis, int sb, int db, const char *what, bool diag)
{
	Expr **r = dims_copy(rc->c, d, n);
	return (r[axis] = scale_extent(rc, d[axis], sb, db, what, axis, diag)) ? r : NULL;
}

/* The static element count of dims, -1 when one is dynamic; -2 after
 * reporting a non-positive one. */
static int64_t reinterpret_count(RuleCtx *rc, Expr **d, int n, const char *what)
{
	int64_t p = 1, v;
	for (int i = 0; i < n; i++) {
		if (!cint(d[i], &v))
			return -1;
		if (v <= 0)
			return tr_error(rc, "%s %s dimension %d must be positive, got %lld", rc->op->name, what, i, (long long)v), -2;
		p *= v;
	}
	return p;
}

/* The reference's byte-preserving plan of a reinterpret view of t0 as dt:
 * the requested shape req (rank rn, NULL: the contiguous axis scaled by the
 * byte ratio) into *shape / *nd, and the valid shape (NULL: the whole
 * shape) into *valid; false after reporting an error. */
static bool reinterpret_plan(RuleCtx *rc, const Type *t0, DType dt, int axis, Expr **req, int rn, Expr ***shape, int *nd,
			     Expr ***valid)
{
	const char *op = rc->op->name;
	int n = t0->ndim;
	static const char *const supported = "supported dtypes are byte-addressable int/uint8/16/32/64, FP16, BF16, and FP32";
	if (!reinterpret_dtype(t0->dtype))
		return tr_error(rc, "%s does not support source dtype %s; %s", op, tr_dtype_str(t0->dtype), supported), false;
	if (!reinterpret_dtype(dt))
		return tr_error(rc, "%s does not support target dtype %s; %s", op, tr_dtype_str(dt), supported), false;
	if (dt == t0->dtype)
		return tr_error(rc, "%s requires source and target dtypes to differ; use reshape/view for shape-only changes", op), false;
	int64_t v, pv;
	for (int i = 0; i < n; i++)
		if (cint(t0->shape[i], &v) && v <= 0)
			return tr_error(rc, "%s source shape dimension %d must be positive, got %lld", op, i, (long long)v), false;
	Expr **sv = has_valid(t0) ? valid_of(t0) : NULL;
	for (int i = 0; sv && i < n; i++) {
		if (!cint(sv[i], &v))
			continue;
		if (v < 0)
			return tr_error(rc, "%s source valid_shape dimension %d must be non-negative, got %lld", op, i, (long long)v), false;
		if (cint(t0->shape[i], &pv) && v > pv)
			return tr_error(rc, "%s source valid_shape dimension %d (%lld) exceeds physical dimension %lld", op, i, (long long)v,
					(long long)pv), false;
	}
	int sb = (ir_dtype_bits(t0->dtype) + 7) / 8, db = (ir_dtype_bits(dt) + 7) / 8;
	Expr **aut = scale_dims(rc, t0->shape, n, axis, sb, db, "shape", false);
	if (req) {
		for (int i = 0; i < rn; i++)
			if (cint(req[i], &v) && v <= 0)
				return tr_error(rc, "%s target shape dimension %d must be positive, got %lld", op, i, (long long)v), false;
		if (!(aut && rn == n && dims_equal(req, aut, n))) {
			int64_t a = reinterpret_count(rc, t0->shape, n, "source shape"), b = reinterpret_count(rc, req, rn, "target shape");
			if (a == -2 || b == -2)
				return false;
			if (a < 0 || b < 0)
				return tr_error(rc, "%s cannot prove byte-size equality for an explicit shape with dynamic dimensions; omit shape to use layout-aware auto detection, or provide fully static shapes",
						op), false;
			if (a * sb != b * db)
				return tr_error(rc, "%s requires equal source and target byte sizes, but source has %lld bytes and target has %lld bytes",
						op, (long long)(a * sb), (long long)(b * db)), false;
		}
		*shape = req, *nd = rn;
	} else {
		if (!aut && !(aut = scale_dims(rc, t0->shape, n, axis, sb, db, "shape", true)))
			return false;
		*shape = aut, *nd = n;
	}
	*valid = NULL;
	if (!sv || dims_equal(sv, t0->shape, n))
		return true;
	if (req) {
		if (!aut && !(aut = scale_dims(rc, t0->shape, n, axis, sb, db, "shape", true)))
			return false;
		if (rn != n || !dims_equal(req, aut, n))
			return tr_error(rc, "%s cannot preserve a partial valid_shape through an arbitrary explicit reshape; omit shape or use the layout-aware auto-detected shape",
					op), false;
	}
	return (*valid = scale_dims(rc, sv, n, axis, sb, db, "valid_shape", true)) != NULL;
}

/* {rule: reinterpreted, arg: T, shape: N?, dtype: KW, opts: {shape-kw: KW}?}: T's bytes as dtype
 * KW (the reference's reinterpret_view checks and plan): the given shape,
 * else the contiguous dim scaled by the ratio of the element widths */
static const char *const reinterpreted_opts[] = { "shape-kw", NULL };

static Type *reinterpreted(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *t0 = targ(rc, rc->r->arg);
	if (!t0)
		return NULL;
	bool tile = op[1] == 'i';
	if (!tile && t0->kind == TY_DIST_TENSOR)
		return tr_error(rc, "%s does not support DistributedTensorType in the initial implementation", op);
	if (tile ? !is_tile(t0) : !is_tensor(t0))
		return tr_error(rc, "%s requires data to be a %s, but got %s", op, tile ? "TileType" : "TensorType", tr_type_name(t0));
	int nd = t0->ndim;
	const char *tl = tile ? NULL : tensor_layout(t0), *lay[2] = { NULL, NULL };
	if (!tile && strstr(tl, ".MX_"))
		return tr_error(rc, "%s does not support MX-layout tensors", op);
	if (nd == 0)
		return tile ? tr_error(rc, "%s requires a tile rank >= 1, but got 0", op) : tr_error(rc, "%s requires a tensor rank >= 1", op);
	int dt = rc->r->dtype_kw ? tr_dtype_symbol(c, tr_kwarg(rc, rc->r->dtype_kw)) : -1;
	if (dt < 0)
		return NULL;
	/* the second-minor axis is the contiguous one of DN tensors and col_major tiles */
	bool minor2;
	Expr *sst = tile ? NULL : tr_view_kw(t0, "stride");
	if (tile) {
		layouts_of(t0, lay);
		if (strcmp(lay[1], "none_box"))
			return tr_error(rc, "%s only supports flat tiles with slayout=none_box; boxed/fractal tiles are unsupported", op);
		if (strcmp(lay[0], "row_major") && strcmp(lay[0], "col_major"))
			return tr_error(rc, "%s requires row_major or col_major blayout", op);
		minor2 = !strcmp(lay[0], "col_major");
		if (minor2 && nd < 2)
			return tr_error(rc, "%s requires rank >= 2 for col_major layout", op);
	} else {
		if (!strcmp(tl, "pl.TensorLayout.NZ"))
			return tr_error(rc, "%s does not support boxed/fractal NZ tensor layout", op);
		minor2 = !strcmp(tl, "pl.TensorLayout.DN");
		if (minor2 && nd < 2)
			return tr_error(rc, "%s requires rank >= 2 for DN layout", op);
		if (sst && sst->kind == EX_TUPLE && sst->nargs) {
			Expr **canon = packed_strides(c, t0->shape, nd, minor2);
			if (canon && (sst->nargs != nd || !dims_equal(sst->args, canon, nd)))
				return tr_error(rc, "%s only supports packed tensors with canonical strides for their layout", op);
		} else {
			sst = NULL;
		}
	}
	const char *skw = tr_opt(rc->r, "shape-kw");
	Expr *s = skw ? tr_kwarg(rc, skw) : rc->r->shape >= 0 ? tr_arg(rc, rc->r->shape) : NULL;
	if (s && s->kind != EX_TUPLE)
		return NULL;
	if (s) {
		if (!s->nargs)
			return tr_error(rc, "%s shape must have rank >= 1", op);
		for (int i = 0; i < s->nargs; i++) {
			int ed = tr_elem_dtype(s->args[i]);
			if (ed >= 0 && ed != DT_INT64 && ed != DT_UINT64 && ed != DT_INDEX)
				return tr_error(rc, "%s shape element %d must have dtype INT64, UINT64, or INDEX, but got %s", op, i,
						tr_dtype_str((DType)ed));
		}
		if (minor2 && s->nargs < 2)
			return tr_error(rc, "%s requires target rank >= 2 for %s layout", op, tile ? "col_major" : "DN");
	}
	Expr **shape, **valid;
	if (!reinterpret_plan(rc, t0, (DType)dt, minor2 ? nd - 2 : nd - 1, s ? s->args : NULL, s ? s->nargs : 0, &shape, &nd, &valid))
		return NULL;
	/* only a zero pad means the same in every dtype */
	Expr *pad = tr_view_kw(t0, "pad");
	if (pad && !(pad->kind == EX_SYMBOL && !strcmp(pad->str, "pl.PadValue.zero")))
		pad = NULL;
	if (tile)
		return mk_tile(c, shape, nd, (DType)dt, t0->mem, valid, lay[0], lay[1], pad);
	Type *t = mk_tensor(c, shape, nd, (DType)dt);
	t->memref = t0->memref;
	Expr **st = sst ? packed_strides(c, shape, nd, minor2) : NULL;
	set_tensor_view(c, t, valid ? tr_list(c, valid, nd, nopos) : NULL, st ? tr_list(c, st, nd, nopos) : NULL, tl, pad);
	return t;
}

/* {rule: extracted, arg: SRC, shape: N, mem: KW}: a window of a 2-D tile
 * (tile.extract) in memory KW: Left / Right take their own layouts */
static Type *extracted(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *t0 = targ(rc, rc->r->arg);
	Expr *s = tr_arg(rc, rc->r->shape);
	if (!t0)
		return NULL;
	if (!is_tile(t0))
		return tr_error(rc, "%s requires src to be a TileType, but got %s", op, tr_type_name(t0));
	if (t0->ndim != 2)
		return tr_error(rc, "%s requires a 2D source tile, but got rank %d", op, t0->ndim);
	if (!s || s->kind != EX_TUPLE)
		return tr_error(rc, "%s shape must be a literal MakeTuple of ConstInt", op);
	if (s->nargs != 2)
		return tr_error(rc, "%s shape must be 2D, got rank %d", op, s->nargs);
	static const char *const an[2] = { "row", "col" };
	for (int i = 0; i < 2; i++) {
		int64_t d, sd, off;
		if (!cint(s->args[i], &d))
			return tr_error(rc, "%s shape[%d] must be a compile-time ConstInt", op, i);
		if (d <= 0)
			return tr_error(rc, "%s shape[%d] must be positive, got %lld", op, i, (long long)d);
		if (!cint(t0->shape[i], &sd))
			continue;
		if (d > sd)
			return tr_error(rc, "%s shape[%d]=%lld exceeds src %s %lld", op, i, (long long)d, an[i], (long long)sd);
		if (!cint(tr_arg(rc, rc->r->arg + 1 + i), &off))
			continue;
		if (off < 0)
			return tr_error(rc, "%s index_%s must be >= 0, got %lld", op, an[i], (long long)off);
		if (off + d > sd)
			return tr_error(rc, "%s index_%s=%lld + shape[%d]=%lld exceeds src %s %lld", op, an[i], (long long)off, i,
					(long long)d, an[i], (long long)sd);
	}
	int ms = MS_VEC;
	Expr *m = rc->r->mem_kw ? tr_kwarg(rc, rc->r->mem_kw) : NULL;
	if (m && (ms = tr_mem_symbol(c, m)) < 0)
		return NULL;
	/* the source's valid region under the window */
	Expr **sv = valid_of(t0), **valid = dims_copy(c, s->args, 2);
	for (int i = 0; i < 2; i++) {
		int64_t v, off, d;
		if (!expr_equal(sv[i], t0->shape[i]) && cint(sv[i], &v) && cint(tr_arg(rc, rc->r->arg + 1 + i), &off) &&
		    cint(s->args[i], &d)) {
			int64_t rest = v > off ? v - off : 0;
			valid[i] = idx(c, rest < d ? rest : d);
		}
	}
	const char *bl = NULL, *sl = NULL;
	if (ms == MS_LEFT)
		bl = "row_major", sl = "row_major";
	else if (ms == MS_RIGHT)
		bl = "row_major", sl = "col_major";
	Type *t = mk_tile(c, s->args, 2, t0->dtype, (MemSpace)ms, valid, bl, sl, NULL);
	return (ms == MS_LEFT || ms == MS_RIGHT) && !dims_equal(valid, s->args, 2) ? with_compact(c, t) : t;
}

/* {rule: paged, arg: SRC}: tensor.paged_gather, [max_indices, size] rows of
 * SRC ([size, max_indices] with is_trans, which needs space Mat) */
static Type *paged(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *t0 = targ(rc, rc->r->arg);
	int64_t size, mx, off = 0, bs;
	if (!t0 || !is_tensor(t0))
		return NULL;
	DType sd = t0->dtype;
	if (sd != DT_FP16 && sd != DT_BF16 && sd != DT_FP32 && sd != DT_INT8)
		return tr_error(rc, "The operator %s requires src dtype in {FP16, BF16, FP32, INT8}, but got %s", op, tr_dtype_str(sd));
	if (t0->ndim != 2)
		return tr_error(rc, "The operator %s requires 2D src, but got rank %d", op, t0->ndim);
	Type *it = targ(rc, rc->r->arg + 1), *bt = targ(rc, rc->r->arg + 2);
	int64_t r0;
	if (it && is_tensor(it) && it->dtype != DT_INT32)
		return tr_error(rc, "The operator %s requires indices dtype to be INT32, but got %s", op, tr_dtype_str(it->dtype));
	if (it && is_tensor(it) && it->ndim != 1 && it->ndim != 2)
		return tr_error(rc, "The operator %s requires 1D or 2D indices, but got rank %d", op, it->ndim);
	if (it && is_tensor(it) && it->ndim == 2 && (!cint(it->shape[0], &r0) || r0 != 1)) {
		if (cint(it->shape[0], &r0))
			return tr_error(rc, "The operator %s requires 2D indices to have shape [1, n], but got first dim %lld", op, (long long)r0);
		return tr_error(rc, "The operator %s requires 2D indices to have shape [1, n], but got first dim dynamic", op);
	}
	if (bt && is_tensor(bt) && bt->dtype != DT_INT32)
		return tr_error(rc, "The operator %s requires block_table dtype to be INT32, but got %s", op, tr_dtype_str(bt->dtype));
	if (bt && is_tensor(bt) && bt->ndim != 1 && bt->ndim != 2)
		return tr_error(rc, "The operator %s requires 1D or 2D block_table, but got rank %d", op, bt->ndim);
	if (bt && is_tensor(bt) && bt->ndim == 2 && (!cint(bt->shape[0], &r0) || r0 != 1)) {
		if (cint(bt->shape[0], &r0))
			return tr_error(rc, "The operator %s requires 2D block_table to have shape [1, n], but got first dim %lld", op, (long long)r0);
		return tr_error(rc, "The operator %s requires 2D block_table to have shape [1, n], but got first dim dynamic", op);
	}
	/* the int attributes, in the reference's order */
	if (cint(tr_kwarg(rc, "block_size"), &bs) && bs <= 0)
		return tr_error(rc, "The operator %s requires block_size > 0, but got %lld", op, (long long)bs);
	if (!cint(tr_kwarg(rc, "size"), &size))
		return NULL;
	if (size <= 0)
		return tr_error(rc, "The operator %s requires size > 0, but got %lld", op, (long long)size);
	cint(tr_kwarg(rc, "col_off"), &off);
	if (off < 0)
		return tr_error(rc, "The operator %s requires col_off >= 0, but got %lld", op, (long long)off);
	if (!cint(tr_kwarg(rc, "max_indices"), &mx))
		return NULL;
	if (mx <= 0)
		return tr_error(rc, "The operator %s requires max_indices > 0, but got %lld", op, (long long)mx);
	bool tr = kw_bool(rc, "is_trans");
	Expr *sp = tr_kwarg(rc, "space");
	if (tr && sp && tr_mem_symbol(c, sp) != MS_MAT)
		return tr_error(rc, "The operator %s requires space=MemorySpace::Mat (L1) when is_trans=true", op);
	int64_t cols;
	if (t0->ndim == 2 && cint(t0->shape[1], &cols) && off + size > cols)
		return tr_error(rc, "The operator %s requires col_off + size (%lld) <= src columns (%lld)", op, (long long)(off + size),
				(long long)cols);
	Expr **shape = arena_alloc(c->a, 3 * sizeof *shape);
	shape[0] = idx(c, tr ? size : mx);
	shape[1] = idx(c, tr ? mx : size);
	return mk_tensor(c, shape, 2, t0->dtype);
}

/* {rule: scatter-update, arg: INPUT, args: [INPUT, INDEX, SRC]}: INPUT's
 * type once index, src and the dim kwarg are all given (the entry's forms:
 * see to that) */
static Type *scatter_update(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	if (!tr_arg(rc, rc->r->args[1]) || !tr_arg(rc, rc->r->args[2]) || !tr_kwarg(rc, "dim"))
		return NULL;
	Type *t0 = targ(rc, rc->r->arg), *it = targ(rc, rc->r->args[1]), *st = targ(rc, rc->r->args[2]);
	if (!t0)
		return NULL;
	const char *op = rc->op->name, *k = is_tile(t0) ? "TileType" : "TensorType";
	if (!is_tile(t0) && !is_tensor(t0))
		return tr_error(rc, "%s: input must be %s, got %s", op, op[1] == 'i' ? "TileType" : "TensorType", tr_type_name(t0));
	if (t0->ndim != 2 && t0->ndim != 4)
		return tr_error(rc, "%s: input must be 2D or 4D, got rank %d", op, t0->ndim);
	if (it && it->kind != t0->kind)
		return tr_error(rc, "%s: index must be %s, got %s", op, k, tr_type_name(it));
	if (it && it->ndim != 2)
		return tr_error(rc, "%s: index must be 2D [b, s], got rank %d", op, it->ndim);
	if (it && !ir_dtype_is_int(it->dtype))
		return tr_error(rc, "%s: index dtype must be integer, got %s", op, tr_dtype_str(it->dtype));
	if (st && st->kind != t0->kind)
		return tr_error(rc, "%s: src must be %s, got %s", op, k, tr_type_name(st));
	if (st && st->ndim != t0->ndim)
		return tr_error(rc, "%s: src rank (%d) must match input rank (%d)", op, st->ndim, t0->ndim);
	if (st && st->dtype != t0->dtype)
		return tr_error(rc, "%s: src dtype (%s) must match input dtype (%s)", op, tr_dtype_str(st->dtype), tr_dtype_str(t0->dtype));
	int64_t d;
	if (cint(tr_kwarg(rc, "dim"), &d) && d != -2)
		return tr_error(rc, "%s: only dim=-2 is currently supported, got %lld", op, (long long)d);
	Expr *de = tr_kwarg(rc, "dim");
	if (de && de->kind == EX_UNARY && de->op == UOP_NEG && de->lhs && de->lhs->kind == EX_INT && de->lhs->ival != 2)
		return tr_error(rc, "%s: only dim=-2 is currently supported, got %lld", op, -(long long)de->lhs->ival);
	if (is_tile(t0))
		return mk_tile_like(c, t0, t0->shape, t0->ndim, t0->dtype, t0->mem, valid_of(t0));
	return is_tensor(t0) ? mk_tensor(c, t0->shape, t0->ndim, t0->dtype) : NULL;
}

/* The product of constant dims, -1 when one is not constant. */
static int64_t const_product(Expr **d, int n)
{
	int64_t p = 1, v;
	for (int i = 0; i < n; i++) {
		if (!cint(d[i], &v))
			return -1;
		p *= v;
	}
	return p;
}

/* Packed strides of a shape in an ND (row-major) or DN (the trailing two
 * dims column-major) layout; NULL when a product cannot be built. */
static Expr **packed_strides(SugarCtx *c, Expr **shape, int n, bool dn)
{
	Expr **st = arena_alloc(c->a, (size_t)(n + 1) * sizeof *st);
	Expr *acc = idx(c, 1);
	if (dn && n >= 2) {
		st[n - 2] = idx(c, 1);
		st[n - 1] = shape[n - 2];
		if (!(acc = mul_dims(c, shape[n - 2], shape[n - 1])))
			return NULL;
		for (int i = n - 3; i >= 0; i--) {
			st[i] = acc;
			if (i && !(acc = mul_dims(c, acc, shape[i])))
				return NULL;
		}
		return st;
	}
	for (int i = n - 1; i >= 0; i--) {
		st[i] = acc;
		if (i && !(acc = mul_dims(c, acc, shape[i])))
			return NULL;
	}
	return st;
}

/* {rule: viewed, arg: T, shape: N, valid-shape: M, layout: KW}: tensor.view,
 * T reinterpreted with a new shape and / or layout; the view records its
 * strides (the source's when only the layout changes, else the packed ones
 * of the new shape); a layout change alone swaps the trailing dims */
static Type *viewed(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	Type *t0 = targ(rc, rc->r->arg);
	if (!t0)
		return NULL;
	if (!is_tensor(t0))
		return tr_error(rc, "tensor.view: src must be TensorType or DistributedTensorType, got %s", tr_type_name(t0));
	Expr *s = tr_arg(rc, rc->r->shape), *v = tr_arg(rc, rc->r->valid_shape), *l = rc->r->layout_kw ? tr_kwarg(rc, rc->r->layout_kw) : NULL;
	if (!s && !l)
		return NULL; /* (the entry's checks: report it first, as the reference's builder does) */
	const char *sl = tensor_layout(t0), *nl = l && l->kind == EX_SYMBOL ? l->str : sl;
	if (strstr(sl, ".MX_") || strstr(nl, ".MX_"))
		return tr_error(rc, "tensor.view does not support MX layouts");
	if (!strcmp(nl, "pl.TensorLayout.NZ"))
		return tr_error(rc, "tensor.view: NZ layout is not allowed on TensorType (NZ is tile-only)");
	bool cross = strcmp(sl, nl) != 0, explicit_valid = v && v->kind == EX_TUPLE;
	Expr *sst = tr_view_kw(t0, "stride");
	bool src_strided = sst && sst->kind == EX_TUPLE && sst->nargs == t0->ndim && t0->ndim;
	Expr **shape;
	int n;
	if (s) {
		if (s->kind != EX_TUPLE)
			return NULL;
		shape = s->args, n = s->nargs;
		for (int i = 0; i < n; i++)
			if (shape[i]->kind == EX_INT && shape[i]->ival <= 0)
				return tr_error(rc, "tensor.view shape dimension %d must be positive, got %lld", i, (long long)shape[i]->ival);
		int64_t a = const_product(t0->shape, t0->ndim), b = const_product(shape, n);
		if (a > 0 && b > 0 && a != b)
			return tr_error(rc, "tensor.view: cannot reinterpret tensor of size %lld as shape with size %lld", (long long)a, (long long)b);
		if (!explicit_valid && has_valid(t0) && !dims_equal(valid_of(t0), t0->shape, t0->ndim))
			return tr_error(rc, "tensor.view: shape reinterpret does not support a source with a partial valid_shape");
	} else {
		n = t0->ndim;
		shape = dims_copy(c, t0->shape, n);
		if (cross) {
			if (n < 2)
				return tr_error(rc, "tensor.view: cross-layout reinterpret requires rank >= 2, got %d", n);
			Expr *x = shape[n - 2];
			shape[n - 2] = shape[n - 1], shape[n - 1] = x;
		}
	}
	if (!n)
		return tr_error(rc, "tensor.view: target shape must have rank >= 1");
	if (!strcmp(nl, "pl.TensorLayout.DN") && n < 2)
		return tr_error(rc, "tensor.view: DN layout requires rank >= 2, got %d", n);
	Expr **stride;
	if (!s && src_strided) {
		stride = dims_copy(c, sst->args, n);
		if (cross) {
			Expr *x = stride[n - 2];
			stride[n - 2] = stride[n - 1], stride[n - 1] = x;
		}
	} else if (!(stride = packed_strides(c, shape, n, !strcmp(nl, "pl.TensorLayout.DN")))) {
		return NULL;
	}
	Expr *valid = NULL, *pad = NULL;
	if (explicit_valid) {
		if (v->nargs && v->nargs != n)
			return tr_error(rc, "tensor.view: valid_shape rank (%d) must match target shape rank (%d)", v->nargs, n);
		for (int i = 0; i < v->nargs; i++) {
			Expr *d = v->args[i];
			int dt = tr_elem_dtype(d);
			if (dt >= 0 && !ir_dtype_is_int((DType)dt))
				return tr_error(rc, "tensor.view valid_shape dimension %d must have integer dtype", i);
			if (d->kind != EX_INT)
				continue;
			if (d->ival <= 0)
				return tr_error(rc, "tensor.view valid_shape dimension %d must be positive, got %lld", i, (long long)d->ival);
			if (shape[i]->kind == EX_INT && d->ival > shape[i]->ival)
				return tr_error(rc, "tensor.view valid_shape dimension %d (%lld) exceeds target shape dimension %lld", i,
						(long long)d->ival, (long long)shape[i]->ival);
		}
		if (v->nargs && !has_valid(t0))
			return tr_error(rc, "tensor.view: an explicit target valid_shape requires a source valid_shape");
		if (v->nargs && (strcmp(sl, "pl.TensorLayout.ND") || strcmp(nl, "pl.TensorLayout.ND")))
			return tr_error(rc, "tensor.view: explicit valid_shape shape reinterpretation only supports ND layout");
		if (!v->nargs && has_valid(t0))
			return tr_error(rc, "tensor.view: a partial source valid_shape requires a non-empty target valid_shape");
		valid = v->nargs ? v : NULL;
	} else if (!s && has_valid(t0)) {
		Expr **vd = dims_copy(c, valid_of(t0), n);
		if (cross && n >= 2) {
			Expr *x = vd[n - 2];
			vd[n - 2] = vd[n - 1], vd[n - 1] = x;
		}
		valid = tr_list(c, vd, n, nopos);
	}
	if (!s || explicit_valid)
		pad = tr_view_kw(t0, "pad");
	Type *t = mk_tensor(c, shape, n, t0->dtype);
	t->kind = t0->kind;
	t->memref = t0->memref;
	t->view = mk_tensor_view(c, valid, tr_list(c, stride, n, nopos), nl, pad);
	return t;
}

/* IsMgatherElementDtype */
static bool mgather_elem_dtype(DType d)
{
	switch (d) {
	case DT_INT8: case DT_UINT8: case DT_INT16: case DT_UINT16: case DT_INT32: case DT_UINT32: case DT_FP16: case DT_BF16:
	case DT_FP32: case DT_FP8E4M3FN: case DT_FP8E5M2: case DT_HF8:
		return true;
	default:
		return false;
	}
}

static bool nd_tensor(const Type *t)
{
	return !strcmp(tensor_layout(t), "pl.TensorLayout.ND");
}

/* The Mat form's GM scratch (elem mode): a distinct, contiguous ND tensor
 * of MEM's dtype holding at least the output's elements. */
static bool mgather_scratch(RuleCtx *rc, Expr *se, const Type *mt, Expr **out)
{
	const char *op = rc->op->name;
	Type *st = tr_type(se);
	if (!se)
		return tr_error(rc, "The operator %s Mat elem mode requires GM scratch and optionally accepts valid_shape", op), false;
	if (se == tr_arg(rc, rc->r->arg) || se == tr_arg(rc, rc->r->arg2) ||
	    (se->kind == EX_VAR && (expr_equal(se, tr_arg(rc, rc->r->arg)) || expr_equal(se, tr_arg(rc, rc->r->arg2)))))
		return tr_error(rc, "The operator %s Mat elem scratch must not alias mem or idx; use a distinct GM tensor", op), false;
	if (!st)
		return true;
	if (!is_tensor(st))
		return tr_error(rc, "The operator %s Mat elem scratch must be a GM tensor", op), false;
	if (st->dtype != mt->dtype)
		return tr_error(rc, "The operator %s Mat elem scratch dtype must match mem dtype", op), false;
	if (!nd_tensor(st) || tr_view_kw(st, "stride"))
		return tr_error(rc, "The operator %s Mat elem scratch must be a contiguous ND tensor", op), false;
	int64_t need = const_product(out, 2), have = const_product(st->shape, st->ndim);
	if (need < 0)
		return tr_error(rc, "The operator %s Mat elem output shape must be static", op), false;
	if (have < 0)
		return tr_error(rc, "The operator %s Mat elem scratch shape must be static", op), false;
	if (have < need)
		return tr_error(rc, "The operator %s Mat elem scratch requires at least %lld elements, but got %lld", op, (long long)need,
				(long long)have), false;
	return true;
}

/* {rule: mgathered, args: [MEM, IDX]}: tile.mgather (DeduceTileMgatherType).
 * Vec: an INT32 2-D index tile; element mode takes its shape, row mode one
 * row of MEM per index of a [1, R] / [R, 1] IDX.  Mat: an INT32 2-D ND GM
 * index tensor; element mode IDX's shape (with the kwarg scratch), row
 * mode [R, MEM cols] of a [1, R] IDX; rows a multiple of 16, cols of 32
 * bytes, the kwarg valid_shape static within the shape */
static Type *mgathered(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *mt = targ(rc, rc->r->arg), *it = targ(rc, rc->r->arg2);
	Expr *ce = tr_kwarg(rc, "coalesce"), *me = tr_kwarg(rc, "target_memory"), *oe = tr_kwarg(rc, "gather_oob");
	Expr *se = tr_kwarg(rc, "scratch"), *vs = tr_kwarg(rc, "valid_shape");
	if (!mt || !it)
		return NULL;
	if (!is_tensor(mt))
		return tr_error(rc, "The operator %s requires mem to be a TensorType or DistributedTensorType, but got %s", op, tr_type_name(mt));
	if (!mgather_elem_dtype(mt->dtype))
		return tr_error(rc, "The operator %s requires mem dtype in {I8, U8, I16, U16, I32, U32, FP16, BF16, FP32, FP8E4M3FN, FP8E5M2, "
				"HF8}, but got %s", op, tr_dtype_str(mt->dtype));
	if (!mt->ndim)
		return tr_error(rc, "The operator %s requires mem to have at least one dimension", op);
	int64_t co = 0, oob = 0;
	if (ce && (!cint(ce, &co) || (co != 0 && co != 1)))
		return tr_error(rc, "The operator %s requires coalesce in {0 (row), 1 (elem)}, but got %lld", op, (long long)co);
	if (oe && (!cint(oe, &oob) || oob < 0 || oob > 3))
		return tr_error(rc, "The operator %s requires gather_oob in {0 (undefined), 1 (clamp), 2 (wrap), 3 (zero)}, but got %lld", op,
				(long long)oob);
	int ms = me ? tr_mem_symbol(c, me) : MS_VEC;
	if (ms != MS_VEC && ms != MS_MAT)
		return tr_error(rc, "mgather target_memory must be MemorySpace.Vec or MemorySpace.Mat, got MemorySpace.%s",
				ms < 0 ? "?" : ir_mem_name((MemSpace)ms));
	bool elem = co == 1;
	Expr **shape = arena_alloc(c->a, 3 * sizeof *shape), **valid = arena_alloc(c->a, 3 * sizeof *valid);
	Expr *last = mt->shape[mt->ndim - 1];
	int64_t r, k;
	if (ms == MS_VEC) {
		if (se || vs)
			return tr_error(rc, "The operator %s permits scratch only for Mat elem mode", op);
		if (!is_tile(it))
			return tr_error(rc, "The operator %s with Vec output requires idx to be a TileType, but got %s", op, tr_type_name(it));
		if (it->dtype != DT_INT32)
			return tr_error(rc, "The operator %s requires idx dtype to be INT32, but got %s", op, tr_dtype_str(it->dtype));
		if (it->ndim != 2)
			return tr_error(rc, "The operator %s requires a 2D idx tile, but got rank %d", op, it->ndim);
		Expr **iv = valid_of(it);
		if (elem)
			return mk_tile(c, it->shape, 2, mt->dtype, MS_VEC, iv, "row_major", NULL, NULL);
		if (mt->ndim < 2)
			return tr_error(rc, "The operator %s row mode requires mem rank >= 2 so rows have an element dimension, but got rank %d", op,
					mt->ndim);
		if (!cint(it->shape[0], &r) || !cint(it->shape[1], &k))
			return tr_error(rc, "The operator %s row mode requires a static [1, R] or [R, 1] idx shape", op);
		if (r != 1 && k != 1)
			return tr_error(rc, "The operator %s row mode requires a [1, R] or [R, 1] idx shape, but got [%lld, %lld]", op, (long long)r,
					(long long)k);
		int rd = r == 1 ? 1 : 0;
		shape[0] = it->shape[rd], shape[1] = last;
		valid[0] = iv[rd], valid[1] = last;
		return mk_tile(c, shape, 2, mt->dtype, MS_VEC, valid, "row_major", NULL, NULL);
	}
	if (!nd_tensor(mt))
		return tr_error(rc, "The operator %s with Mat output requires mem to use ND tensor layout", op);
	if (!is_tensor(it))
		return tr_error(rc, "The operator %s with Mat output requires idx to be a GM TensorType, but got %s", op, tr_type_name(it));
	if (!nd_tensor(it))
		return tr_error(rc, "The operator %s with Mat output requires idx to use ND tensor layout", op);
	if (it->dtype != DT_INT32)
		return tr_error(rc, "The operator %s requires Mat idx dtype to be INT32, but got %s", op, tr_dtype_str(it->dtype));
	if (it->ndim != 2)
		return tr_error(rc, "The operator %s requires a 2D Mat idx tensor, but got rank %d", op, it->ndim);
	if (elem) {
		shape = it->shape;
		if (!mgather_scratch(rc, se, mt, shape))
			return NULL;
	} else {
		if (se)
			return tr_error(rc, "The operator %s Mat row mode accepts only an optional valid_shape", op);
		if (mt->ndim < 2)
			return tr_error(rc, "The operator %s Mat row mode requires mem rank >= 2", op);
		if (!cint(it->shape[0], &r) || r != 1)
			return tr_error(rc, "The operator %s Mat row mode requires a [1, R] GM idx tensor", op);
		shape[0] = it->shape[1], shape[1] = last;
	}
	if (!cint(shape[0], &r) || !cint(shape[1], &k))
		return tr_error(rc, "The operator %s Mat output shape must be static", op);
	int64_t c0 = 32 / (ir_dtype_bits(mt->dtype) / 8);
	if (r % 16)
		return tr_error(rc, "The operator %s Mat output rows must be a multiple of 16", op);
	if (k % c0)
		return tr_error(rc, "The operator %s Mat output cols must be a multiple of %lld", op, (long long)c0);
	valid = shape;
	if (vs && vs->kind == EX_TUPLE) {
		if (vs->nargs != 2)
			return tr_error(rc, "The operator %s Mat valid_shape must have rank 2, but got %d", op, vs->nargs);
		for (int i = 0; i < 2; i++) {
			int64_t v, d = 0;
			if (!cint(vs->args[i], &v))
				return tr_error(rc, "The operator %s Mat valid_shape element %d must be a compile-time constant", op, i);
			cint(shape[i], &d);
			if (v <= 0 || v > d)
				return tr_error(rc, "The operator %s requires 0 < Mat valid_shape[%d] <= output_shape[%d], but got %lld and %lld", op, i, i,
						(long long)v, (long long)d);
		}
		valid = vs->args;
	}
	return mk_tile(c, shape, 2, mt->dtype, MS_MAT, valid, "col_major", "row_major", NULL);
}

/* {rule: tile-move, arg: T, mem: KW}: tile.move.  A destination whose
 * implicit layout differs from the memory-less one (Mat, Left, Right, Acc,
 * the scale spaces) dictates the layouts, others keep the source's; Right
 * takes a row-major block layout; blayout / slayout kwargs override; the
 * valid shape and pad carry over; UINT8 moved into a scale space is
 * FP8E8M0 */
static Type *tile_move(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *t0 = targ(rc, rc->r->arg);
	if (!t0)
		return NULL;
	if (!is_tile(t0))
		return tr_error(rc, "The operator %s requires first argument to be a TileType, but got %s", op, tr_type_name(t0));
	int ms = rc->r->mem_kw ? tr_mem_symbol(c, tr_kwarg(rc, rc->r->mem_kw)) : rc->r->mem;
	if (ms < 0)
		return NULL;
	const char *dst[2], *bare[2], *lay[2];
	implicit_layouts(t0->shape, t0->ndim, (MemSpace)ms, dst);
	implicit_layouts(t0->shape, t0->ndim, MS_VEC, bare);
	bool dictates = strcmp(dst[0], bare[0]) || strcmp(dst[1], bare[1]) || ms == MS_ACC;
	if (dictates) {
		lay[0] = dst[0], lay[1] = dst[1];
	} else {
		layouts_of(t0, lay);
	}
	if (ms == MS_RIGHT)
		lay[0] = "row_major";
	static const char *const kw[2] = { "blayout", "slayout" };
	bool scale = ms == MS_LEFT_SCALE || ms == MS_RIGHT_SCALE;
	for (int i = 0; i < 2; i++) {
		Expr *e = tr_kwarg(rc, kw[i]);
		if (e && e->kind == EX_SYMBOL && !strncmp(e->str, "pl.TileLayout.", 14)) {
			if (scale && strcmp(lay[i], e->str + 14))
				return tr_error(rc, "The operator %s does not allow blayout/slayout to override the hardware-fixed layout for %s", op,
						ir_mem_name((MemSpace)ms));
			lay[i] = e->str + 14;
		}
	}
	DType dt = t0->dtype;
	if (scale) {
		/* the scale spaces take a 2-D Mat tile of UINT8 / FP8E8M0 in the
		 * MX scale layout (row/row or col/col, fractal 32) */
		const char *src[2];
		layouts_of(t0, src);
		const char *need = ms == MS_LEFT_SCALE ? "row_major" : "col_major";
		int64_t fr = 0;
		cint(tr_view_kw(t0, "fractal"), &fr);
		if (t0->ndim != 2)
			return tr_error(rc, "The operator %s into LeftScale/RightScale requires a 2D tile, got rank %d", op, t0->ndim);
		if (t0->mem != MS_MAT)
			return tr_error(rc, "The operator %s into LeftScale/RightScale requires the input tile to be in Mat memory", op);
		if (dt != DT_UINT8 && dt != DT_FP8E8M0)
			return tr_error(rc, "The operator %s into LeftScale/RightScale requires UINT8 or FP8E8M0 dtype, but got %s", op,
					tr_dtype_str(dt));
		if (strcmp(src[0], need) || strcmp(src[1], need) || fr != 32)
			return tr_error(rc, "The operator %s into %s requires the source Mat tile to use the matching %s layout", op,
					ir_mem_name((MemSpace)ms), ms == MS_LEFT_SCALE ? "row/row/32" : "col/col/32");
		dt = DT_FP8E8M0;
	}
	return mk_tile(c, t0->shape, t0->ndim, dt, (MemSpace)ms, valid_of(t0), lay[0], lay[1], tr_view_kw(t0, "pad"));
}

/* {rule: sequence, args: [START, SHAPE], dtype: KW}: tensor.ci / tile.ci,
 * an integer sequence along the last dim of a [1, ..., 1, N] shape; an
 * integer literal start takes the destination dtype */
static Type *sequence(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	bool tile = op[1] == 'i';
	const char *pf = tile ? "The operator " : "";
	int dt = rc->r->dtype_kw ? tr_dtype_symbol(c, tr_kwarg(rc, rc->r->dtype_kw)) : -1;
	Expr *start = tr_arg(rc, rc->r->arg), *shape = tr_arg(rc, rc->r->arg2);
	if (dt < 0 || !start || !shape)
		return NULL;
	if (dt != DT_INT16 && dt != DT_INT32 && dt != DT_UINT16 && dt != DT_UINT32)
		return tr_error(rc, tile ? "The operator %s requires dtype to be one of {INT16, INT32, UINT16, UINT32}, but got %s"
					 : "%s dtype must be one of {INT16, INT32, UINT16, UINT32}, but got %s", op, tr_dtype_str((DType)dt));
	/* an integer-literal expression (31 written 32 - 1) is a literal to the
	 * reference's parser */
	if (start->kind == EX_BINARY && start->lhs && start->rhs && start->lhs->kind == EX_INT && start->rhs->kind == EX_INT &&
	    (start->op == OP_ADD || start->op == OP_SUB || start->op == OP_MUL)) {
		int64_t a = start->lhs->ival, b = start->rhs->ival;
		start = tr_int(c, start->op == OP_ADD ? a + b : start->op == OP_SUB ? a - b : a * b, DT_INDEX, start->pos);
	}
	if (start->kind == EX_INT && start->dtype != dt) {
		start = tr_int(c, start->ival, (DType)dt, start->pos);
		rc->slots[rc->r->arg] = start;
		if (rc->call->nargs > rc->r->arg)
			rc->call->args[rc->r->arg] = start;
	}
	Type *st = tr_type(start);
	if (st && st->kind != TY_SCALAR)
		return tr_error(rc, "%s%s requires first argument 'start' to be a scalar, but got %s", pf, op, tr_type_name(st));
	if (st && (int)st->dtype != dt)
		return tr_error(rc, tile ? "The operator %s requires 'start' dtype (%s) to match destination dtype (%s)"
					 : "%s 'start' dtype (%s) must match destination dtype (%s)", op, tr_dtype_str(st->dtype),
				tr_dtype_str((DType)dt));
	if (shape->kind != EX_TUPLE)
		return NULL;
	int n = shape->nargs;
	if (!n)
		return tr_error(rc, "%s%s requires non-empty shape", pf, op);
	int64_t v;
	if (cint(shape->args[n - 1], &v) && v == 1)
		return tr_error(rc, "%s%s requires the innermost dimension (Cols) to be != 1, got 1", pf, op);
	for (int i = 0; i + 1 < n; i++) {
		bool k = cint(shape->args[i], &v);
		if ((k && v != 1) || (tile && !k))
			return tr_error(rc, "%s%s only populates the first row because pto.tci ignores valid rows; leading dimensions must be 1, "
					"but got %lld at index %d", pf, op, k ? (long long)v : -1LL, i);
	}
	if (tile)
		return mk_tile(c, shape->args, n, (DType)dt, MS_VEC, NULL, NULL, NULL, NULL);
	return mk_tensor(c, shape->args, n, (DType)dt);
}

/* {rule: sliced, arg: T, shape: N, valid-shape: M, opts: {drop: K}}:
 * tensor.slice: the window's shape with the drop_dims axes (argument K)
 * erased; a valid shape other than the shape, or a pad (the pad_value
 * kwarg, else the source's), makes a view */
static Type *sliced(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	Type *t0 = targ(rc, rc->r->arg);
	Expr *s = tr_arg(rc, rc->r->shape);
	if (!t0 || (!is_tensor(t0) && !is_tile(t0)) || !s || s->kind != EX_TUPLE)
		return NULL;
	int n = s->nargs;
	Expr *v = tr_arg(rc, rc->r->valid_shape);
	Expr *wo = is_tile(t0) && rc->r->window_offsets >= 0 ? tr_arg(rc, rc->r->window_offsets) : NULL;
	if (wo && wo->kind == EX_TUPLE && wo->nargs != n)
		return tr_error(rc, "%s requires offset and shape to have the same rank, but got offset rank %d and shape rank %d", op,
				wo->nargs, n);
	if (v && v->kind == EX_TUPLE && v->nargs && v->nargs != n) {
		char vs[256];
		tr_fmt_shape(vs, sizeof vs, v->args, v->nargs);
		return tr_error(rc, "%s requires valid_shape to have the same rank as the window, but got valid_shape rank %d %s "
			    "and window rank %d", op, v->nargs, vs, n);
	}
	Expr **valid = v && v->kind == EX_TUPLE && v->nargs == n ? v->args : s->args;
	if (is_tile(t0) && rc->r->window_offsets >= 0) {
		/* the part of the source tile's valid region under the window */
		Expr *w = tr_window_read_valid(rc, t0, tr_arg(rc, rc->r->window_offsets), s,
					       v && v->kind == EX_TUPLE && v->nargs ? v : NULL, false, TR_WIN_EXACT, op,
					       "An on-chip window has no clamping mechanism, so it must fit: keep offset + shape "
					       "inside the source tile, or clamp the read at the tensor boundary with "
					       "pl.load(..., clamp=True) and slice the resulting tile in bounds");
		if (rc->failed)
			return NULL;
		if (w && w->nargs == n)
			valid = w->args;
	}
	Expr *dd = tr_arg(rc, opt_arg(rc, "drop"));
	bool *drop = arena_alloc(c->a, (size_t)n + 1);
	int nd = 0;
	for (int i = 0; dd && dd->kind == EX_TUPLE && i < dd->nargs; i++) {
		int64_t a, dim;
		if (!cint_signed(dd->args[i], &a))
			return tr_error(rc, "%s drop_dims element %d must be a compile-time int constant", op, i);
		if (a < 0 || a >= n)
			return tr_error(rc, "%s drop_dims index %lld out of range for rank %d", op, (long long)a, n);
		if (drop[a])
			return tr_error(rc, "%s drop_dims index %lld is repeated", op, (long long)a);
		if (!cint(s->args[a], &dim) || dim != 1) {
			char d[32] = "dynamic";
			if (cint(s->args[a], &dim))
				snprintf(d, sizeof d, "%lld", (long long)dim);
			return tr_error(rc, "%s drop_dims index %lld must select a static unit dimension (rank reduction only erases "
				    "size-1 dims), but dim %lld is %s", op, (long long)a, (long long)a, d);
		}
		nd += !drop[a];
		drop[a] = true;
	}
	if (nd && nd >= n)
		return tr_error(rc, "%s drop_dims cannot erase every dimension; keep one unit axis or use tensor.read for a scalar result", op);
	Expr **shape = arena_alloc(c->a, (size_t)(n + 1) * sizeof *shape), **vd = arena_alloc(c->a, (size_t)(n + 1) * sizeof *vd);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (!drop[i]) {
			shape[k] = s->args[i];
			vd[k++] = valid[i];
		}
	Expr *pad = tr_kwarg(rc, "pad_value");
	if (!pad)
		pad = tr_view_kw(t0, "pad");
	if (is_tile(t0)) {
		if (k < 2) { /* tiles keep two dims: unit axes in front */
			Expr **s2 = arena_alloc(c->a, 3 * sizeof *s2), **v2 = arena_alloc(c->a, 3 * sizeof *v2);
			s2[0] = v2[0] = idx(c, 1);
			s2[1] = shape[0], v2[1] = vd[0];
			shape = s2, vd = v2, k = 2;
		}
		/* an explicit source view lends its layouts, else they follow the
		 * shape; a view that says no more than a memoryless tile's implicit
		 * one is none, so the result takes its memory space's implicit
		 * layouts (a Mat slice's col / row) */
		const char *lay[2] = { NULL, "none_box" }, *imp[2];
		implicit_layouts(shape, k, MS_VEC, imp);
		if (t0->view)
			layouts_of(t0, lay);
		else
			lay[0] = imp[0], lay[1] = imp[1];
		bool pad_none = !pad || (pad->kind == EX_SYMBOL && !strcmp(pad->str, "pl.PadValue.null"));
		if (!strcmp(lay[0], imp[0]) && !strcmp(lay[1], imp[1]) && pad_none && dims_equal(vd, shape, k))
			lay[0] = lay[1] = NULL;
		return mk_tile(c, shape, k, t0->dtype, t0->mem, vd, lay[0], lay[1], pad);
	}
	Type *t = mk_tensor(c, shape, k, t0->dtype);
	t->kind = t0->kind;
	set_tensor_view(c, t, tr_list(c, vd, k, nopos), NULL, "pl.TensorLayout.ND", pad);
	return t;
}

/* {rule: tile-load, ...tile-from-shape's fields}: tile.load, the core
 * tile-from-shape window read (shape, dtype, memory, valid shape) with the
 * reference's layouts: MX-layout scale tensors (row/row or, MX_B_NN,
 * col/col, fractal 32); Mat reads col/row, swapped from a DN source, and
 * row/none_box for a single row; a read whose last dim is 1 col_major
 * (printed where that is not the implicit layout: [1, 1]) */
static Type *tile_load(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	static const RuleKind *core;
	if (!core)
		core = typerule_find("tile-from-shape"); /* (found once: a search by name) */
	Type *t = core && core->fn ? core->fn(rc) : NULL;
	Type *src = targ(rc, rc->r->window_source);
	if (!t || !src || t->kind != TY_TILE)
		return t;
	const char *sl = tensor_layout(src);
	bool mx = !strcmp(sl, "pl.TensorLayout.MX_A_ZZ") || !strcmp(sl, "pl.TensorLayout.MX_B_NN");
	const char *lay[2] = { NULL, NULL };
	if (mx) {
		bool b = !strcmp(sl, "pl.TensorLayout.MX_B_NN");
		lay[0] = lay[1] = b ? "col_major" : "row_major";
	} else if (t->mem == MS_MAT) {
		bool dn = !strcmp(sl, "pl.TensorLayout.DN");
		lay[0] = dn ? "row_major" : "col_major";
		lay[1] = dn ? "col_major" : "row_major";
		if (t->ndim == 2 && ir_is_int_const(t->shape[dn ? 1 : 0], 1, DT_INDEX))
			lay[0] = "row_major", lay[1] = "none_box";
	} else if (t->ndim && t->shape[t->ndim - 1]->kind == EX_INT && t->shape[t->ndim - 1]->ival == 1) {
		lay[0] = "col_major"; /* a column read, whatever its rows: [1, 1] too */
	} else {
		return t; /* the core's view already */
	}
	Expr **valid = valid_of(t);
	Type *r = mk_tile(c, t->shape, t->ndim, t->dtype, t->mem, valid, lay[0], lay[1], NULL);
	if (mx) {
		/* fractal 32 after the layouts */
		int n = r->view ? r->view->nkw : 0;
		const char *names[6];
		Expr *vals[6];
		for (int i = 0; i < n; i++)
			names[i] = r->view->kw[i].name, vals[i] = r->view->kw[i].value;
		names[n] = "fractal";
		vals[n++] = idx(c, 32);
		r->view = tr_view(c, names, vals, n);
	}
	return r;
}

/* {rule: element, args: [T, INDICES, VALUE?]}: tensor / tile read (a
 * scalar of T's dtype) and write (T itself): one integer index per dim,
 * a written value of T's dtype */
static Type *element(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	bool tile = op[1] == 'i', write = rc->r->nargs > 2;
	const char *what = tile ? "tile" : "tensor";
	Type *t0 = targ(rc, rc->r->arg);
	Expr *ix = tr_arg(rc, rc->r->arg2);
	if (!t0 || !ix)
		return NULL;
	if (tile ? !is_tile(t0) : !is_tensor(t0))
		return tr_error(rc, "%s requires first argument to be a %s, but got %s", op, tile ? "TileType" : "TensorType", tr_type_name(t0));
	if (ix->kind != EX_TUPLE)
		return NULL;
	if (ix->nargs != t0->ndim)
		return tr_error(rc, "%s indices count (%d) must match %s rank (%d)", op, ix->nargs, what, t0->ndim);
	for (int i = 0; i < ix->nargs; i++) {
		Type *it = tr_type(ix->args[i]);
		if (!it)
			continue;
		if (it->kind != TY_SCALAR)
			return tr_error(rc, "%s index element %d must be ScalarType, but got %s", op, i, tr_type_name(it));
		if (!ir_dtype_is_int(it->dtype))
			return tr_error(rc, "%s index element %d must have integer dtype, but got %s", op, i, tr_dtype_str(it->dtype));
	}
	if (!write)
		return ir_scalar_type(c->a, t0->dtype);
	Expr *v = tr_arg(rc, rc->r->args[2]);
	Type *vt = tr_type(v);
	if (vt) {
		if (vt->kind != TY_SCALAR)
			return tr_error(rc, "%s requires third argument (value) to be a ScalarType, but got %s", op, tr_type_name(vt));
		if (vt->dtype != t0->dtype)
			return tr_error(rc, "%s requires value dtype to match %s dtype, but got value dtype %s and %s dtype %s", op, what,
					tr_dtype_str(vt->dtype), what, tr_dtype_str(t0->dtype));
	}
	return t0;
}

/* {rule: dim, args: [T, AXIS]}: tensor.dim, an INDEX scalar; the axis a
 * constant within the rank (negative counts from the end) */
static Type *dim(RuleCtx *rc)
{
	Type *t0 = targ(rc, rc->r->arg);
	Expr *ax = tr_arg(rc, rc->r->arg2);
	if (!t0)
		return NULL;
	if (!is_tensor(t0))
		return tr_error(rc, "tensor.dim requires first argument to be a TensorType, but got %s", tr_type_name(t0));
	int64_t a;
	if (!cint(ax, &a))
		return tr_error(rc, "tensor.dim requires axis to be a constant integer");
	int64_t n = t0->ndim, b = a < 0 ? a + n : a;
	if (b < 0 || b >= n)
		return tr_error(rc, "tensor.dim axis %lld out of range for tensor of rank %lld", (long long)a, (long long)n);
	return ir_scalar_type(rc->c->a, DT_INDEX);
}

/* The valid extents of target t0 once source s0's valid region is written
 * at offsets off: per dim the larger of the two ends (constants; else
 * t0's) */
static Expr **union_valid(RuleCtx *rc, const Type *t0, const Type *s0, const Expr *off)
{
	SugarCtx *c = rc->c;
	int n = t0->ndim;
	Expr **tv = valid_of(t0), **valid = dims_copy(c, tv, n);
	if (!s0 || s0->ndim != n || !off || off->kind != EX_TUPLE || off->nargs != n)
		return valid;
	Expr **sv = valid_of(s0);
	/* the reference's CheckWriteDimBounds: a write starts inside the target
	 * and what it moves (opts reach: physical - the whole source; else its
	 * valid region) ends inside it; remedy: the op's advice */
	Expr **reach = !strcmp(opt_str(rc, "reach", "valid"), "physical") ? s0->shape : sv;
	const char *remedy = opt_str(rc, "remedy", "");
	for (int i = 0; i < n; i++) {
		int64_t o, e, p;
		if (cint_signed(off->args[i], &o) && o < 0) {
			tr_error(rc, "%s offset %d is provably negative (%lld); a write must start inside its target", rc->op->name, i,
				 (long long)o);
			return NULL;
		}
		if (cint_signed(off->args[i], &o) && cint(reach[i], &e) && cint(t0->shape[i], &p) && o + e > p) {
			tr_error(rc, "%s writes past the end of dimension %d: offset %lld + extent %lld exceeds the target extent %lld%s%s",
				 rc->op->name, i, (long long)o, (long long)e, (long long)p, *remedy ? ". " : "", remedy);
			return NULL;
		}
	}
	for (int i = 0; i < n; i++) {
		int64_t a, o, b, p;
		if (expr_equal(tv[i], t0->shape[i]))
			continue;
		if (cint(tv[i], &a) && cint(off->args[i], &o) && cint(sv[i], &b)) {
			if (o > a) {
				tr_error(rc, "%s leaves a gap in dimension %d: the write starts at %lld, which is not provably at or before the target valid extent %lld. A valid shape names one contiguous origin-anchored rectangle, so a write that grows it must abut the region already there",
					 rc->op->name, i, (long long)o, (long long)a);
				return NULL;
			}
			int64_t e = o + b;
			if (cint(t0->shape[i], &p) && e > p)
				e = p;
			valid[i] = idx(c, e > a ? e : a);
		}
	}
	return valid;
}

/* {rule: mscattered, args: [SRC, IDX, OUTPUT]}: tile.mscatter, OUTPUT's
 * type after the reference's dtype and shape checks */
static Type *mscattered(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Type *st = targ(rc, rc->r->arg), *it = targ(rc, rc->r->arg2), *ot = targ(rc, rc->r->args[2]);
	if (!st || !it)
		return ot;
	if (!is_tile(st))
		return tr_error(rc, "The operator %s requires first argument to be a TileType, but got %s", op, tr_type_name(st));
	if (st->dtype != DT_FP16 && st->dtype != DT_FP32 && st->dtype != DT_INT16 && st->dtype != DT_INT32)
		return tr_error(rc, "The operator %s requires src dtype to be FP16, FP32, INT16, or INT32, but got %s", op, tr_dtype_str(st->dtype));
	if (!is_tile(it))
		return tr_error(rc, "The operator %s requires second argument to be a TileType, but got %s", op, tr_type_name(it));
	if (it->dtype != DT_INT32)
		return tr_error(rc, "The operator %s requires idx dtype to be INT32, but got %s", op, tr_dtype_str(it->dtype));
	if (it->ndim != st->ndim)
		return tr_error(rc, "The operator %s requires idx rank to match src rank (%d), but got %d", op, st->ndim, it->ndim);
	for (int i = 0; i < st->ndim; i++) {
		int64_t a, b;
		if (cint(st->shape[i], &a) && cint(it->shape[i], &b) && a != b)
			return tr_error(rc, "The operator %s requires idx shape to match src shape at dimension %d, but got %lld vs %lld", op, i,
					(long long)b, (long long)a);
	}
	if (!ot)
		return NULL;
	if (!is_tensor(ot))
		return tr_error(rc, "The operator %s requires third argument to be a TensorType or DistributedTensorType, but got %s", op,
				tr_type_name(ot));
	if (!ot->ndim)
		return tr_error(rc, "The operator %s requires output_tensor to have at least 1 dimension (scalar not supported)", op);
	if (ot->dtype != st->dtype)
		return tr_error(rc, "The operator %s requires output_tensor dtype (%s) to match src dtype (%s)", op, tr_dtype_str(ot->dtype), tr_dtype_str(st->dtype));
	return ot;
}

/* {rule: stored, args: [TILE, OFFSETS, OUTPUT, SHAPES]}: tile.store, the
 * output tensor's type, its valid region grown over the stored tile's
 * (without explicit shapes); atomic=Add needs a hardware atomic dtype */
static Type *stored(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	Type *tt = targ(rc, rc->r->arg), *ot = targ(rc, rc->r->args[2]);
	Expr *off = tr_arg(rc, rc->r->arg2), *sh = tr_arg(rc, rc->r->args[3]), *at = tr_kwarg(rc, "atomic");
	if (!ot)
		return NULL;
	if (tt && is_tile(tt) && at && at->kind == EX_SYMBOL && !strcmp(at->str, "pl.AtomicType.Add")) {
		DType d = tt->dtype;
		if (d != DT_FP32 && d != DT_BF16 && d != DT_FP16 && d != DT_INT32 && d != DT_INT16 && d != DT_INT8)
			return tr_error(rc, "The operator %s with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8 tile (hardware atomic-add dtypes), but got %s",
					rc->op->name, tr_dtype_str(d));
	}
	if (sh || !tt || !is_tile(tt) || !is_tensor(ot))
		return ot;
	Expr **valid = union_valid(rc, ot, tt, off);
	if (!valid)
		return NULL;
	if (dims_equal(valid, valid_of(ot), ot->ndim))
		return ot;
	Type *t = tr_copy_type(c, ot);
	ViewSpec *vs = arena_alloc(c->a, sizeof *vs);
	int n0 = ot->view ? ot->view->nkw : 0;
	vs->kw = arena_alloc(c->a, (size_t)(n0 + 3) * sizeof *vs->kw);
	if (!has_valid(ot))
		vs->kw[vs->nkw++] = (Kwarg){ intern_cstr(c->a, "valid_shape"), tr_list(c, valid, ot->ndim, nopos) };
	for (int i = 0; i < n0; i++)
		vs->kw[vs->nkw++] = strcmp(ot->view->kw[i].name, "valid_shape") ? ot->view->kw[i]
			: (Kwarg){ ot->view->kw[i].name, tr_list(c, valid, ot->ndim, nopos) };
	if (!n0) {
		vs->kw[vs->nkw++] = (Kwarg){ intern_cstr(c->a, "stride"), tr_list(c, NULL, 0, nopos) };
		vs->kw[vs->nkw++] = (Kwarg){ intern_cstr(c->a, "layout"), tr_symbol(c, "pl.TensorLayout.ND") };
	}
	t->view = vs;
	return t;
}

/* {rule: assembled, args: [TARGET, SOURCE, OFFSET]}: tensor / tile
 * assemble, TARGET's type whose valid region grows to cover the source's
 * valid region written at OFFSET (constant extents; else TARGET's) */
static Type *assembled(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	Type *t0 = targ(rc, rc->r->arg), *s0 = targ(rc, rc->r->arg2);
	Expr *off = tr_arg(rc, rc->r->args[2]);
	if (!t0 || (!is_tensor(t0) && !is_tile(t0)))
		return t0;
	int n = t0->ndim;
	/* tile.assemble: one dtype, or the Acc->Mat FIXPIPE downcast of an FP32
	 * source into a BF16 / FP16 target */
	if (is_tile(t0) && s0 && is_tile(s0) && t0->dtype != s0->dtype &&
	    !(s0->dtype == DT_FP32 && (t0->dtype == DT_BF16 || t0->dtype == DT_FP16)))
		return tr_error(rc, "%s requires target and source to have the same dtype (or an Acc->Mat FIXPIPE downcast to bf16/f16), but got %s and %s",
				rc->op->name, tr_dtype_str(t0->dtype), tr_dtype_str(s0->dtype));
	Expr **valid = union_valid(rc, t0, s0, off);
	if (!valid)
		return NULL;
	if (is_tile(t0)) {
		Type *t = mk_tile_like(c, t0, t0->shape, n, t0->dtype, t0->mem, valid);
		return tr_view_kw(t0, "compact") ? with_compact(c, t) : t;
	}
	Type *t = mk_tensor(c, t0->shape, n, t0->dtype);
	t->kind = t0->kind;
	set_tensor_view(c, t, tr_list(c, valid, n, nopos), NULL, "pl.TensorLayout.ND", NULL);
	return t;
}

/* {rule: reshape, arg: T, shape: N, valid-shape: M}: the core reshaped
 * kind, after the reference's element-count check */
/* Extents that are provably the same: constants by value, others by form
 * (the reference's ExtentsProvablyEqual, without its arithmetic prover). */
static bool ext_eq(const Expr *a, const Expr *b)
{
	int64_t x, y;
	if (cint(a, &x) && cint(b, &y))
		return x == y;
	return expr_equal(a, b);
}

/* The reference's MapUnitAxisRankChange: a reshape that only inserts or
 * erases unit axes maps any valid box exactly.  Fills out[od..] and
 * returns true when input axes id.. align with output axes od..; failed
 * memoizes the (id, od) states already shown not to align. */
static bool unit_axis_map(Expr **valid, Expr **in, int nin, Expr **ns, int nout, int id, int od, char *failed,
			  Expr **out)
{
	char *f = &failed[id * (nout + 1) + od];
	if (*f)
		return false;
	if (id == nin && od == nout)
		return true;
	if (id < nin && od < nout && ext_eq(in[id], ns[od]) &&
	    unit_axis_map(valid, in, nin, ns, nout, id + 1, od + 1, failed, out)) {
		out[od] = valid[id];
		return true;
	}
	if (id < nin && ir_is_int_const(in[id], 1, DT_INDEX) && ext_eq(valid[id], in[id]) &&
	    unit_axis_map(valid, in, nin, ns, nout, id + 1, od, failed, out))
		return true;
	if (od < nout && ir_is_int_const(ns[od], 1, DT_INDEX) &&
	    unit_axis_map(valid, in, nin, ns, nout, id, od + 1, failed, out)) {
		out[od] = ns[od];
		return true;
	}
	*f = 1;
	return false;
}

/* The reference's ComputeReshapeValidShape for tile.reshape: the valid
 * extents of the result (NULL: all of it, or after an error, *err set). */
static Expr **reshape_valid(RuleCtx *rc, const Type *t0, Expr **ns, int nout, bool row_major, bool *err)
{
	SugarCtx *c = rc->c;
	Expr **valid = valid_of(t0), **in = t0->shape;
	int nin = t0->ndim;
	*err = false;
	if (nin == 0 || nout == 0) {
		*err = true;
		tr_error(rc, "%s: reshape validity mapping requires non-empty input and output ranks", rc->op->name);
		return NULL;
	}
	bool full = true;
	for (int i = 0; i < nin && full; i++)
		full = ext_eq(valid[i], in[i]);
	if (full)
		return NULL;
	Expr **out = arena_alloc(c->a, (size_t)(nout + 1) * sizeof *out);
	for (int i = 0; i < nin; i++)
		if (ir_is_int_const(valid[i], 0, DT_INDEX) || (valid[i]->kind == EX_INT && valid[i]->ival == 0)) {
			for (int k = 0; k < nout; k++)
				out[k] = idx(c, 0);
			return out;
		}
	char *failed = arena_alloc(c->a, (size_t)(nin + 1) * (size_t)(nout + 1));
	memset(failed, 0, (size_t)(nin + 1) * (size_t)(nout + 1));
	if (unit_axis_map(valid, in, nin, ns, nout, 0, 0, failed, out))
		return out;
	char sin[256], sout[256], sval[256];
	tr_fmt_shape(sin, sizeof sin, in, nin);
	tr_fmt_shape(sout, sizeof sout, ns, nout);
	tr_fmt_shape(sval, sizeof sval, valid, nin);
	const char *op = rc->op->name;
	*err = true;
	if (!row_major) {
		tr_error(rc, "%s: cannot reshape %s to %s because only part of it holds real data (valid_shape %s) and its "
			 "elements are not stored row-major, so the real data does not occupy a contiguous run that the new "
			 "shape can describe. Reshape the full extent and narrow afterwards, or copy the real data out first "
			 "(pl.slice / pl.store).", op, sin, sout, sval);
		return NULL;
	}
	int free_dim = 0;
	while (free_dim + 1 < nin && ir_is_int_const(valid[free_dim], 1, DT_INDEX))
		free_dim++;
	for (int i = free_dim + 1; i < nin; i++)
		if (!ext_eq(valid[i], in[i])) {
			char dv[64], dp[64];
			tr_fmt_shape(dv, sizeof dv, &valid[i], 1);
			tr_fmt_shape(dp, sizeof dp, &in[i], 1);
			dv[strlen(dv) - 1] = dp[strlen(dp) - 1] = 0;
			tr_error(rc, "%s: cannot reshape %s to %s because only part of it holds real data (valid_shape %s). "
				 "Dimension %d is valid for %s of %s, so the real data is scattered across the buffer rather "
				 "than filling it from the start, and no region of the new shape describes the same cells. "
				 "Reshape the full extent and narrow afterwards, or copy the real data out first (pl.slice / "
				 "pl.store).", op, sin, sout, sval, i, dv + 1, dp + 1);
			return NULL;
		}
	int64_t trailing = 1, v;
	for (int i = free_dim + 1; i < nin; i++) {
		if (!cint(in[i], &v)) {
			tr_error(rc, "%s: cannot reshape a partially-valid %s because dimension %d has a runtime extent", op, sin, i);
			return NULL;
		}
		trailing *= v;
	}
	int64_t *target = arena_alloc(c->a, (size_t)nout * 2 * sizeof *target), *suffix = target + nout;
	for (int i = 0; i < nout; i++)
		if (!cint(ns[i], &target[i])) {
			tr_error(rc, "%s: cannot reshape a partially-valid %s into %s because target dimension %d has a "
				 "runtime extent", op, sin, sout, i);
			return NULL;
		}
	for (int i = nout; i-- > 0;)
		suffix[i] = i + 1 < nout ? suffix[i + 1] * target[i + 1] : 1;
	int at = -1;
	Expr *free_ext = NULL;
	if (cint(valid[free_dim], &v)) {
		int64_t prefix = v * trailing;
		for (int i = 0; i < nout && at < 0; i++)
			if (suffix[i] != 0 && prefix % suffix[i] == 0 && prefix / suffix[i] <= target[i]) {
				at = i;
				free_ext = idx(c, prefix / suffix[i]);
			}
		if (at < 0) {
			tr_error(rc, "%s: cannot reshape %s to %s because only %lld of its %s hold real data (valid_shape %s), "
				 "and no region of %s covers exactly those %lld elements -- they do not fill a whole number of "
				 "rows there. Pick a target shape whose trailing dimensions divide it, or copy the real data out "
				 "first (pl.slice / pl.store).", op, sin, sout, (long long)prefix,
				 prefix == 1 ? "element" : "elements", sval, sout, (long long)prefix);
			return NULL;
		}
	} else {
		int64_t phys;
		if (cint(in[free_dim], &phys))
			for (int i = 0; i < nout && at < 0; i++)
				if (suffix[i] == trailing && phys <= target[i]) {
					at = i;
					free_ext = valid[free_dim];
				}
		if (at < 0) {
			tr_error(rc, "%s: cannot reshape %s to %s because its real data extends a runtime number of rows", op,
				 sin, sout);
			return NULL;
		}
	}
	for (int i = 0; i < nout; i++)
		out[i] = i < at ? idx(c, 1) : i == at ? free_ext : ns[i];
	*err = false;
	return out;
}

/* tile.reshape (DeduceTileReshapeType): the new shape, the source's memory
 * space (inherited, none stays none), its valid box mapped onto the new
 * shape, its pad and compact mode. */
static Type *tile_reshape(RuleCtx *rc, const Type *t0, Expr *s)
{
	SugarCtx *c = rc->c;
	const char *lay[2];
	layouts_of(t0, lay);
	bool err;
	Expr **valid = reshape_valid(rc, t0, s->args, s->nargs, !strcmp(lay[0], "row_major"), &err);
	if (err)
		return NULL;
	/* the layouts are the shape's implicit ones without a memory space,
	 * which the reference's type canonicalises away before the memory
	 * space is inherited: no layout is printed */
	Type *t = mk_tile(c, s->args, s->nargs, t0->dtype, t0->mem, valid, NULL, NULL, tr_view_kw(t0, "pad"));
	return tr_view_kw(t0, "compact") ? with_compact(c, t) : t;
}

/* tensor.reshape (DeduceTensorReshapeType) without an explicit valid
 * shape: the source's valid region mapped through the reshape, in flat
 * row-major order when the source is ND with packed row-major strides;
 * the result has a fresh ND view of that region (none when all valid). */
static Type *tensor_reshape(RuleCtx *rc, const Type *t0, Expr *s)
{
	SugarCtx *c = rc->c;
	Expr *lay = tr_view_kw(t0, "layout"), *st = tr_view_kw(t0, "stride");
	bool rm = !lay || (lay->kind == EX_SYMBOL && !strcmp(lay->str, "pl.TensorLayout.ND"));
	if (rm && st && st->kind == EX_TUPLE && st->nargs) {
		/* packed row-major: stride[i] = product of shape[i+1..] */
		int64_t acc = 1, v, d;
		rm = st->nargs == t0->ndim;
		for (int i = t0->ndim - 1; i >= 0 && rm; i--) {
			rm = cint(st->args[i], &v) && v == acc;
			if (rm && i)
				rm = cint(t0->shape[i], &d) && (acc *= d, true);
		}
	}
	bool err;
	Expr **valid = reshape_valid(rc, t0, s->args, s->nargs, rm, &err);
	if (err)
		return NULL;
	Type *t = mk_tensor(c, s->args, s->nargs, t0->dtype);
	set_tensor_view(c, t, valid ? tr_list(c, valid, s->nargs, nopos) : NULL, NULL, "pl.TensorLayout.ND",
			tr_view_kw(t0, "pad"));
	return t;
}

static Type *reshape(RuleCtx *rc)
{
	Type *t0 = targ(rc, rc->r->arg);
	Expr *s = tr_arg(rc, rc->r->shape);
	if (t0 && s && s->kind == EX_TUPLE && (is_tensor(t0) || is_tile(t0))) {
		int64_t a = const_product(t0->shape, t0->ndim), b = const_product(s->args, s->nargs);
		const char *w = is_tile(t0) ? "tile" : "tensor";
		if (a > 0 && b > 0 && a != b)
			return tr_error(rc, "%s: cannot reshape %s of size %lld into shape with size %lld", rc->op->name, w, (long long)a,
					(long long)b);
		if (is_tile(t0) && s->nargs > 0)
			return tile_reshape(rc, t0, s);
		if (t0->kind == TY_TENSOR && s->nargs > 0 && !tr_arg(rc, 2) && t0->view && tr_view_kw(t0, "valid_shape"))
			return tensor_reshape(rc, t0, s);
	}
	static const RuleKind *core;
	if (!core)
		core = typerule_find("reshaped");
	return core && core->fn ? core->fn(rc) : NULL;
}

/* {rule: random, args: [SHAPE], dtype: KW, opts: {valid: N}}: tensor.random /
 * tile.random, a 2-D INT32 / UINT32 shape (rounds 7 or 10); tiles in Vec
 * with the optional valid shape of argument N */
static Type *random_rule(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	bool tile = op[1] == 'i';
	const char *pf = tile ? "The operator " : "";
	int dt = rc->r->dtype_kw ? tr_dtype_symbol(c, tr_kwarg(rc, rc->r->dtype_kw)) : -1;
	Expr *s = tr_arg(rc, rc->r->arg), *ro = tr_kwarg(rc, "rounds");
	if (dt < 0 || !s || s->kind != EX_TUPLE)
		return NULL;
	if (dt != DT_INT32 && dt != DT_UINT32)
		return tr_error(rc, "%s%s dtype must be one of {INT32, UINT32}, but got %s", pf, op, tr_dtype_str((DType)dt));
	int64_t r;
	if (cint(ro, &r) && r != 7 && r != 10)
		return tr_error(rc, "%s%s requires rounds to be 7 or 10, but got %lld", pf, op, (long long)r);
	for (int i = 0; i < 6; i++) {
		Type *st = targ(rc, i);
		if (st && st->kind == TY_SCALAR && st->dtype != DT_INT32)
			return tr_error(rc, "%s%s requires seed argument %d to have INT32 dtype, but got %s", pf, op, i, tr_dtype_str(st->dtype));
	}
	if (!s->nargs)
		return tr_error(rc, "%s%s requires non-empty shape", pf, op);
	if (s->nargs != 2)
		return tr_error(rc, "%s%s requires a 2D shape (rows, cols), but got rank %d", pf, op, s->nargs);
	if (!tile)
		return mk_tensor(c, s->args, 2, (DType)dt);
	Expr *v = tr_arg(rc, opt_arg(rc, "valid"));
	if (v && v->kind == EX_TUPLE) {
		if (v->nargs != 2)
			return tr_error(rc, "%s%s valid_shape rank (%d) must match shape rank (2)", pf, op, v->nargs);
		for (int i = 0; i < 2; i++) {
			int64_t x, d = -1;
			if (!cint(v->args[i], &x))
				return tr_error(rc, "%s%s valid_shape element %d must be a compile-time constant (ConstInt)", pf, op, i);
			bool sd = cint(s->args[i], &d);
			if (x <= 0 || (sd && x > d))
				return tr_error(rc, "%s%s valid_shape element %d (%lld) must be in (0, shape dim %lld]", pf, op, i, (long long)x,
						sd ? (long long)d : -1LL);
		}
	}
	return mk_tile(c, s->args, 2, (DType)dt, MS_VEC, v && v->kind == EX_TUPLE && v->nargs == 2 ? v->args : NULL, NULL, NULL, NULL);
}

/* {rule: tile-create, ...tile-from-shape's fields}: tile.create, the core
 * tile-from-shape with the reference's layouts for transpose=True (Mat:
 * row / col major) and flat_layout=True (Mat: the flat layout of the
 * shape) */
static Type *tile_create(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	static const RuleKind *core;
	if (!core)
		core = typerule_find("tile-from-shape"); /* (found once: a search by name) */
	Expr *se = tr_arg(rc, rc->r->shape);
	for (int i = 0; se && se->kind == EX_TUPLE && i < se->nargs; i++) {
		int64_t v;
		if (!cint_signed(se->args[i], &v))
			return tr_error(rc, "The operator %s shape element %d must be a compile-time constant (ConstInt), but got %s", op, i,
					se->args[i]->kind == EX_VAR ? "Var" : "an expression");
		if (v <= 0)
			return tr_error(rc, "The operator %s shape element %d must be positive, got %lld", op, i, (long long)v);
	}
	Type *t = core && core->fn ? core->fn(rc) : NULL;
	if (!t || t->kind != TY_TILE)
		return t;
	if (t->mem == MS_LEFT_SCALE || t->mem == MS_RIGHT_SCALE)
		return tr_error(rc, "The operator %s does not support target_memory=LeftScale/RightScale; create the scale tile with tile.load "
				"to Mat followed by tile.move", op);
	bool tr = kw_bool(rc, "transpose"), flat = kw_bool(rc, "flat_layout");
	if (tr && (t->ndim != 2 || t->mem != MS_MAT))
		return tr_error(rc, "The operator %s supports transpose=true only for a 2D tile with target_memory=Mat (L1)", op);
	if (flat && (t->mem != MS_MAT || tr))
		return tr_error(rc, "The operator %s supports flat_layout=true only for target_memory=Mat (L1) without transpose", op);
	if (!tr && !flat)
		return t;
	const char *lay[2];
	if (tr)
		lay[0] = "row_major", lay[1] = "col_major";
	else
		implicit_layouts(t->shape, t->ndim, MS_VEC, lay);
	return mk_tile(c, t->shape, t->ndim, t->dtype, t->mem, valid_of(t), lay[0], lay[1], NULL);
}

/* ------------------------------------------------------------ gather_row, scatter, tri */

/* {rule: gather-row, args: [DST, SRC, SHAPES]}: tile / tensor.gather_row
 * (CheckGatherRowOperands): DST's type once DST and SRC share a dtype, the
 * window SHAPES is static and the valid_shape kwarg fits it (integer
 * extents, static under transpose=True, none provably outside the window) */
static Type *gather_row(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Type *dt = targ(rc, rc->r->arg), *st = targ(rc, rc->r->arg2);
	Expr *sh = tr_arg(rc, rc->r->args[2]), *vs = tr_kwarg(rc, "valid_shape");
	if (!dt || !st || !sh || sh->kind != EX_TUPLE)
		return dt;
	if (dt->dtype != st->dtype)
		return tr_error(rc, "The operator %s requires %s and %s to share dtype, but got %s and %s", op,
				rc->op->params[rc->r->arg].name, rc->op->params[rc->r->arg2].name, tr_dtype_str(dt->dtype),
				tr_dtype_str(st->dtype));
	for (int i = 0; i < sh->nargs; i++)
		if (sh->args[i]->kind != EX_INT)
			return tr_error(rc, "The operator %s requires shapes[%d] to be a compile-time constant (it sizes pto.subview, whose "
					"sizes is a static attribute), but got a runtime value. Pass a dynamic row count through "
					"valid_shape instead — it keeps the window (and so the tile allocation and box alignment) "
					"static while varying only the transfer length.", op, i);
	if (!vs || vs->kind != EX_TUPLE)
		return dt;
	if (vs->nargs != sh->nargs)
		return tr_error(rc, "The operator %s requires valid_shape to have the same rank as shapes (%d), but got rank %d", op,
				sh->nargs, vs->nargs);
	for (int i = 0; i < vs->nargs; i++) {
		int e = tr_elem_dtype(vs->args[i]);
		if (e < 0 || ir_dtype_is_float((DType)e))
			return tr_error(rc, "The operator %s requires valid_shape[%d] to be an integer extent, but got %s", op, i,
					e < 0 ? tr_type_name(ir_expr_type(vs->args[i])) : tr_dtype_str((DType)e));
	}
	int64_t v, s;
	for (int i = 0; kw_bool(rc, "transpose") && i < vs->nargs; i++)
		if (!cint(vs->args[i], &v))
			return tr_error(rc, "The operator %s does not support a dynamic valid_shape together with transpose=True (the "
					"DN2NZ per-row path would need a runtime column extent on a boxed NZ tile). Use a static "
					"valid_shape with transpose=True, or gather without transpose and read the operand with "
					"matmul(b_trans=True).", op);
	char msg[1024];
	size_t k = 0;
	for (int i = 0; i < vs->nargs; i++) {
		if (!cint_signed(vs->args[i], &v) || !cint(sh->args[i], &s))
			continue;
		if (v < 0)
			k += (size_t)snprintf(msg + k, k < sizeof msg ? sizeof msg - k : 0,
					      "%s%s valid_shape dimension %d has provably negative extent %lld; expected 0 <= valid_shape[%d] "
					      "<= shape[%d] (%lld)", k ? "; " : "", op, i, (long long)v, i, i, (long long)s);
		if (v > s && k < sizeof msg)
			k += (size_t)snprintf(msg + k, sizeof msg - k, "%s%s valid_shape dimension %d extent %lld provably exceeds physical "
					      "shape extent %lld", k ? "; " : "", op, i, (long long)v, (long long)s);
	}
	return k ? tr_error(rc, "%s", msg) : dt;
}

/* IsScatterElementDtype */
static bool scatter_elem(DType d)
{
	return d == DT_FP16 || d == DT_FP32 || d == DT_BF16 || d == DT_INT16 || d == DT_INT32 || d == DT_INT8;
}

/* The dtype and rank checks tile.scatter and tile.scatter_mask share. */
static bool scatter_operands(RuleCtx *rc, const Type *dt, const Type *st)
{
	const char *op = rc->op->name;
	if (!scatter_elem(dt->dtype))
		return tr_error(rc, "The operator %s requires dst dtype in {I8, I16, I32, FP16, FP32, BF16}, but got %s", op,
				tr_dtype_str(dt->dtype)), false;
	if (!scatter_elem(st->dtype))
		return tr_error(rc, "The operator %s requires src dtype in {I8, I16, I32, FP16, FP32, BF16}, but got %s", op,
				tr_dtype_str(st->dtype)), false;
	return true;
}

static bool scatter_ranks(RuleCtx *rc, const Type *dt, const Type *st)
{
	if (st->ndim != 2 || dt->ndim != 2)
		return tr_error(rc, "The operator %s requires 2D src/dst tiles, but got src rank %d and dst rank %d", rc->op->name, st->ndim,
				dt->ndim), false;
	return true;
}

/* {rule: scatter, args: [DST, SRC, INDEXES]}: tile.scatter, DST's type once
 * SRC matches it, INDEXES is an INT16 / INT32 tile of SRC's 2-D shape whose
 * width suits DST's (1-byte data: 2-byte indexes, else the same width) */
static Type *scatter(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Type *dt = targ(rc, rc->r->arg), *st = targ(rc, rc->r->arg2), *it = targ(rc, rc->r->args[2]);
	if (!dt || !st || !it)
		return dt;
	if (!scatter_operands(rc, dt, st))
		return NULL;
	if (dt->dtype != st->dtype)
		return tr_error(rc, "The operator %s requires dst dtype (%s) to match src dtype (%s)", op, tr_dtype_str(dt->dtype),
				tr_dtype_str(st->dtype));
	if (it->dtype != DT_INT16 && it->dtype != DT_INT32)
		return tr_error(rc, "The operator %s requires indexes dtype in {INT16, INT32}, but got %s", op, tr_dtype_str(it->dtype));
	int db = ir_dtype_bits(dt->dtype) / 8, ib = ir_dtype_bits(it->dtype) / 8, need = db == 1 ? 2 : db;
	if (ib != need)
		return tr_error(rc, "The operator %s with dst dtype %s (%d bytes) requires indexes dtype of %d bytes, but got %s (%d bytes)", op,
				tr_dtype_str(dt->dtype), db, need, tr_dtype_str(it->dtype), ib);
	if (!scatter_ranks(rc, dt, st))
		return NULL;
	if (it->ndim != 2)
		return tr_error(rc, "The operator %s requires 2D indexes tile, but got rank %d", op, it->ndim);
	int64_t a, b;
	static const char *const axis[2] = { "rows", "cols" };
	for (int i = 0; i < 2; i++)
		if (cint(st->shape[i], &a) && cint(it->shape[i], &b) && a != b)
			return tr_error(rc, "The operator %s requires indexes.shape[%d] == src.shape[%d], got src %s %lld vs indexes %s %lld", op, i,
					i, axis[i], (long long)a, axis[i], (long long)b);
	return dt;
}

/* {rule: scatter-mask, args: [DST, SRC]}: tile.scatter_mask, DST's type once
 * SRC's rows match and DST's width is SRC's times the kwarg mask_pattern's
 * stride (1..2: 2, 3..6: 4, 7: 1) */
static Type *scatter_mask(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Type *dt = targ(rc, rc->r->arg), *st = targ(rc, rc->r->arg2);
	if (!dt || !st)
		return dt;
	if (!scatter_operands(rc, dt, st))
		return NULL;
	if (dt->dtype != st->dtype)
		return tr_error(rc, "The operator %s requires dst and src to have the same dtype, got %s vs %s", op, tr_dtype_str(dt->dtype),
				tr_dtype_str(st->dtype));
	if (!scatter_ranks(rc, dt, st))
		return NULL;
	int64_t p = -1, a, b;
	Expr *pe = tr_kwarg(rc, "mask_pattern");
	if (pe && !cint_signed(pe, &p))
		return dt; /* (not a constant: the attribute check reports it) */
	if (p < 1 || p > 7)
		return tr_error(rc, "The operator %s requires mask_pattern in range [1, 7], but got %lld", op, (long long)p);
	if (cint(st->shape[0], &a) && cint(dt->shape[0], &b) && a != b)
		return tr_error(rc, "The operator %s requires src.shape[0] == dst.shape[0], got src rows %lld vs dst rows %lld", op,
				(long long)a, (long long)b);
	int64_t stride = p == 7 ? 1 : p <= 2 ? 2 : 4;
	if (cint(st->shape[1], &a) && cint(dt->shape[1], &b) && b != a * stride)
		return tr_error(rc, "The operator %s with mask_pattern=%lld requires dst.shape[1] (%lld) == src.shape[1] (%lld) * %lld", op,
				(long long)p, (long long)b, (long long)a, (long long)stride);
	return dt;
}

/* {rule: tensor-scatter, args: [INPUT, INDEX, SRC]}: tensor.scatter, a fresh
 * tensor of INPUT's type once SRC matches it, INDEX is an INT16 / INT32 2-D
 * tensor of SRC's shape (the width rule of tile.scatter), dim is the last
 * axis and SRC fits in INPUT */
static Type *tensor_scatter(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Type *in = targ(rc, rc->r->arg), *it = targ(rc, rc->r->arg2), *st = targ(rc, rc->r->args[2]);
	if (!in || !it || !st)
		return NULL;
	if (!scatter_elem(in->dtype))
		return tr_error(rc, "The operator %s requires input dtype in {I8, I16, I32, FP16, FP32, BF16}, but got %s", op,
				tr_dtype_str(in->dtype));
	if (it->dtype != DT_INT16 && it->dtype != DT_INT32)
		return tr_error(rc, "The operator %s requires index dtype in {INT16, INT32}, but got %s", op, tr_dtype_str(it->dtype));
	if (st->dtype != in->dtype)
		return tr_error(rc, "The operator %s requires src dtype (%s) to match input dtype (%s)", op, tr_dtype_str(st->dtype),
				tr_dtype_str(in->dtype));
	int db = ir_dtype_bits(in->dtype) / 8, ib = ir_dtype_bits(it->dtype) / 8, need = db == 1 ? 2 : db;
	if (ib != need)
		return tr_error(rc, "The operator %s with input dtype %s (%d bytes) requires index dtype of %d bytes, but got %s (%d bytes)", op,
				tr_dtype_str(in->dtype), db, need, tr_dtype_str(it->dtype), ib);
	if (in->ndim != 2)
		return tr_error(rc, "The operator %s currently supports rank-2 input only, got rank %d", op, in->ndim);
	if (st->ndim != 2)
		return tr_error(rc, "The operator %s requires src rank (%d) to match input rank (2)", op, st->ndim);
	if (it->ndim != 2)
		return tr_error(rc, "The operator %s requires 2D index, but got rank %d", op, it->ndim);
	Expr *de = tr_kwarg(rc, "dim");
	int64_t d, a, b;
	if (!de)
		return tr_error(rc, "The operator %s requires a 'dim' keyword argument", op);
	if (cint_signed(de, &d) && (d < 0 ? d + 2 : d) != 1)
		return tr_error(rc, "The operator %s currently supports dim=-1 (last axis) only, got dim=%lld", op, (long long)d);
	static const char *const axis[2] = { "rows", "cols" };
	for (int i = 0; i < 2; i++)
		if (cint(st->shape[i], &a) && cint(it->shape[i], &b) && a != b)
			return tr_error(rc, "The operator %s requires index.shape[%d] == src.shape[%d], got src %s %lld vs index %s %lld", op, i, i,
					axis[i], (long long)a, axis[i], (long long)b);
	for (int i = 0; i < 2; i++)
		if (cint(st->shape[i], &a) && cint(in->shape[i], &b) && a > b)
			return tr_error(rc, "The operator %s requires src.shape[%d] <= input.shape[%d], got src %s %lld vs input %s %lld", op, i, i,
					axis[i], (long long)a, axis[i], (long long)b);
	return mk_tensor(rc->c, in->shape, in->ndim, in->dtype);
}

/* {rule: tensor-scatter-mask, args: [INPUT, DST]}: tensor.scatter_mask, a
 * fresh tensor of DST's type once INPUT matches it and DST's width is
 * INPUT's times mask_pattern's stride */
static Type *tensor_scatter_mask(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Type *in = targ(rc, rc->r->arg), *dt = targ(rc, rc->r->arg2);
	if (!in || !dt)
		return NULL;
	static const char *const nm[2] = { "input", "dst" };
	const Type *t[2] = { in, dt };
	for (int i = 0; i < 2; i++)
		if (!scatter_elem(t[i]->dtype))
			return tr_error(rc, "The operator %s requires %s dtype in {I8, I16, I32, FP16, FP32, BF16}, but got %s", op, nm[i],
					tr_dtype_str(t[i]->dtype));
	if (in->dtype != dt->dtype)
		return tr_error(rc, "The operator %s requires input and dst to have the same dtype, got %s vs %s", op, tr_dtype_str(in->dtype),
				tr_dtype_str(dt->dtype));
	if (in->ndim != 2 || dt->ndim != 2)
		return tr_error(rc, "The operator %s requires 2D input/dst, but got input rank %d and dst rank %d", op, in->ndim, dt->ndim);
	int64_t p = -1, a, b;
	Expr *pe = tr_kwarg(rc, "mask_pattern");
	if (pe && !cint_signed(pe, &p))
		return NULL;
	if (p < 1 || p > 7)
		return tr_error(rc, "The operator %s requires mask_pattern in [1, 7], but got %lld", op, (long long)p);
	int64_t stride = p == 7 ? 1 : p <= 2 ? 2 : 4;
	if (cint(in->shape[1], &a) && cint(dt->shape[1], &b) && b != a * stride)
		return tr_error(rc, "The operator %s with mask_pattern=%lld requires dst.shape[1] (%lld) == input.shape[1] (%lld) * %lld", op,
				(long long)p, (long long)b, (long long)a, (long long)stride);
	return mk_tensor(rc->c, dt->shape, dt->ndim, dt->dtype);
}

/* {rule: tri, shape: N, valid-shape: M, dtype: KW, arg: DIAGONAL}: tile.tri, a
 * Vec tile of the static 2-D shape N (valid: M, static, within it) of a
 * numeric dtype, from an INT32 diagonal */
static Type *tri(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const char *op = rc->op->name;
	int dt = tr_dtype_symbol(c, tr_kwarg(rc, rc->r->dtype_kw));
	Expr *s = tr_arg(rc, rc->r->shape), *v = tr_arg(rc, rc->r->valid_shape);
	Type *d = targ(rc, rc->r->arg);
	if (dt < 0 || !s || s->kind != EX_TUPLE)
		return NULL;
	static const DType ok[] = { DT_INT8, DT_UINT8, DT_INT16, DT_INT32, DT_UINT16, DT_UINT32, DT_FP16, DT_BF16, DT_FP32 };
	size_t i = 0;
	while (i < sizeof ok / sizeof ok[0] && ok[i] != (DType)dt)
		i++;
	if (i == sizeof ok / sizeof ok[0])
		return tr_error(rc, "The operator %s requires dtype to be one of {INT8, UINT8, INT16, INT32, UINT16, UINT32, FP16, BF16, FP32}, "
				"but got %s", op, tr_dtype_str((DType)dt));
	if (d && d->kind != TY_SCALAR)
		return tr_error(rc, "The operator %s requires diagonal to be a scalar, but got %s", op, tr_type_name(d));
	if (d && d->dtype != DT_INT32)
		return tr_error(rc, "The operator %s requires diagonal to be an INT32 scalar, but got %s", op, tr_dtype_str(d->dtype));
	if (s->nargs != 2)
		return tr_error(rc, "The operator %s requires a 2D shape, but got rank %d", op, s->nargs);
	int64_t x, y = 0;
	for (int k = 0; k < 2; k++) {
		if (!cint_signed(s->args[k], &x))
			return tr_error(rc, "The operator %s shape element %d must be a compile-time constant", op, k);
		if (x <= 0)
			return tr_error(rc, "The operator %s shape element %d must be positive, got %lld", op, k, (long long)x);
	}
	if (v && v->kind == EX_TUPLE) {
		if (v->nargs != 2)
			return tr_error(rc, "The operator %s requires valid_shape rank 2, but got %d", op, v->nargs);
		for (int k = 0; k < 2; k++) {
			if (!cint_signed(v->args[k], &x))
				return tr_error(rc, "The operator %s valid_shape element %d must be a compile-time constant", op, k);
			cint(s->args[k], &y);
			if (x <= 0 || x > y)
				return tr_error(rc, "The operator %s requires 0 < valid_shape[%d] <= shape[%d], but got %lld and %lld", op, k, k,
						(long long)x, (long long)y);
		}
	}
	return mk_tile(c, s->args, 2, (DType)dt, MS_VEC, v && v->kind == EX_TUPLE ? v->args : NULL, NULL, NULL, NULL);
}

static const char *const valid_opts[] = { "valid", NULL };
static const char *const drop_opts[] = { "drop", NULL };
static const char *const write_opts[] = { "reach", "remedy", NULL };
static const char *const form_opts[] = { "form", "acc", "bias", "init", NULL };
static const char *const form_only[] = { "form", NULL };

const RuleKind typerule_layout[] = {
	{ "matmul", matmul, "arg,arg2", form_opts, false },
	{ "transposed", transposed, "arg", form_only, false },
	{ "concat", concat, "arg,arg2", NULL, false },
	{ "set-valid", set_valid, "args", NULL, false },
	{ "padded", padded, "arg", form_only, false },
	{ "sorted", sorted, "arg", form_only, false },
	{ "gathered", gathered, "arg", form_only, false },
	{ "ptr", ptr, "", NULL, false },
	{ "reinterpreted", reinterpreted, "arg,dtype", reinterpreted_opts, false },
	{ "extracted", extracted, "arg,shape", NULL, false },
	{ "sequence", sequence, "arg,arg2,dtype", NULL, false },
	{ "tile-move", tile_move, "arg,mem", NULL, false },
	{ "mgathered", mgathered, "arg,arg2", NULL, false },
	{ "sliced", sliced, "arg,shape", drop_opts, false },
	{ "tile-create", tile_create, "shape,dtype", NULL, false },
	{ "tile-load", tile_load, "shape,dtype", NULL, false },
	{ "element", element, "arg,arg2", NULL, false },
	{ "dim", dim, "arg,arg2", NULL, false },
	{ "mscattered", mscattered, "args", NULL, false },
	{ "stored", stored, "args", write_opts, false },
	{ "assembled", assembled, "args", write_opts, false },
	{ "reshape", reshape, "arg,shape", NULL, false },
	{ "random", random_rule, "arg,dtype", valid_opts, false },
	{ "viewed", viewed, "arg", NULL, false },
	{ "paged", paged, "arg", NULL, false },
	{ "scatter-update", scatter_update, "args", NULL, false },
	{ "gather-row", gather_row, "args", NULL, false },
	{ "scatter", scatter, "args", NULL, false },
	{ "scatter-mask", scatter_mask, "args", NULL, false },
	{ "tensor-scatter", tensor_scatter, "args", NULL, false },
	{ "tensor-scatter-mask", tensor_scatter_mask, "args", NULL, false },
	{ "tri", tri, "arg,shape,dtype", NULL, false },
	{ "matmul-mx", matmul_mx, "args", form_opts, false },
	{ "scale-addr", scale_addr, "arg,arg2", NULL, false },
	{ NULL, NULL, NULL, NULL, false },
};
