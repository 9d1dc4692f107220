/* rules/core.c - the rule kinds shared by every family: no value, unknown,
 * an operand's type, broadcasting, shapes and dtypes from arguments.
 * (data/ops.yaml's header documents each kind's fields.)
 */
#include <stdio.h>
#include <string.h>

#include "ptoopt/typerule.h"
#include "ptoopt/types.h"

/* The shape operand: argument `shape` (a list) or the shape of argument
 * `shape-of`'s type; NULL when neither is a list of dims. */
static Expr *shape_operand(RuleCtx *rc)
{
	const OpsResult *r = rc->r;
	if (r->shape_of >= 0) {
		Type *st = tr_type(tr_arg(rc, r->shape_of));
		if (!st || (st->kind != TY_TENSOR && st->kind != TY_TILE && st->kind != TY_DIST_TENSOR))
			return NULL;
		Expr *e = tr_list(rc->c, st->shape, st->ndim, rc->slots[r->shape_of]->pos);
		return e;
	}
	Expr *s = tr_arg(rc, r->shape);
	return s && s->kind == EX_TUPLE ? s : NULL;
}

static Type *arg0_type(RuleCtx *rc)
{
	return tr_type(tr_arg(rc, rc->r->arg));
}

static Type *same_as_arg(RuleCtx *rc)
{
	return arg0_type(rc);
}

static Type *like_arg(RuleCtx *rc)
{
	Type *t0 = arg0_type(rc);
	return t0 ? tr_fresh(rc->c, t0) : NULL;
}

static Type *elementwise(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	Type *t0 = arg0_type(rc), *t1 = tr_type(tr_arg(rc, rc->r->arg2));
	if (!t0 || !t1 || (t0->kind != TY_TENSOR && t0->kind != TY_TILE))
		return NULL;
	const Type *f = tr_fresh(c, t0);
	if (t1->kind == TY_SCALAR)
		return (Type *)f; /* maximum(x, 10.0): a scalar operand broadcasts */
	if (t1->kind != t0->kind)
		return NULL;
	/* broadcast, right-aligned: a dim of 1 takes the other operand's */
	Expr **shape1 = f->shape;
	int ndim = f->ndim;
	if (t1->ndim > t0->ndim) {
		ndim = t1->ndim;
		shape1 = t1->shape;
	}
	/* (equal dims arrays have nothing to broadcast: annotations of the
	 * same shape share theirs) */
	if (t0->ndim == t1->ndim && t0->shape != t1->shape) {
		Expr **dims = NULL;
		for (int i = 0; i < ndim; i++)
			if (ir_is_int_const(t0->shape[i], 1, DT_INDEX) && !ir_is_int_const(t1->shape[i], 1, DT_INDEX)) {
				if (!dims) {
					dims = arena_alloc(c->a, (size_t)(ndim + 1) * sizeof *dims);
					memcpy(dims, t0->shape, (size_t)ndim * sizeof *dims);
				}
				dims[i] = t1->shape[i];
			}
		if (dims)
			shape1 = dims;
	}
	return tr_reshaped_as(c, f, tr_promote(t0->dtype, t1->dtype), shape1, ndim);
}

static Type *scalar_op(RuleCtx *rc)
{
	Type *t0 = arg0_type(rc), *t1 = tr_type(tr_arg(rc, rc->r->arg2));
	if (!t0 || !t1 || (t0->kind != TY_TENSOR && t0->kind != TY_TILE))
		return NULL;
	const Type *f = tr_fresh(rc->c, t0);
	DType dt = rc->r->promote && t1->kind == TY_SCALAR ? tr_promote(t0->dtype, t1->dtype) : f->dtype;
	return tr_reshaped_as(rc->c, f, dt, f->shape, f->ndim);
}

/* The valid extent of each dimension of a window `window` read at `offs`
 * from tensor type src, given the requested extent `req` (typerule.h). */
/* What a window read promises of each dimension, decided where the extents
 * are constants: it starts inside the source, a request fits its window,
 * and (unless it clamps) the extent it reads ends inside the source. */
static bool window_read_bounds(RuleCtx *rc, const Type *src, Expr *offs, Expr *window, Expr *req, bool clamp,
			       TrWindow mode, const char *op, const char *remedy)
{
	for (int i = 0; i < src->ndim; i++) {
		Expr *off = offs->args[i], *win = window->args[i], *want = req ? req->args[i] : NULL;
		if (off->kind == EX_INT && off->ival < 0) {
			tr_error(rc, "%s offset %d is provably negative (%lld); a window must start inside its source", op, i,
				 (long long)off->ival);
			return false;
		}
		if (want && want->kind == EX_INT && win->kind == EX_INT && want->ival > win->ival) {
			tr_error(rc, "%s valid_shape %d is %lld, which exceeds the window extent %lld; a valid region cannot be "
				 "larger than the shape that holds it", op, i, (long long)want->ival, (long long)win->ival);
			return false;
		}
		/* an exact window must fit whole; a trimmed one, what it reads */
		Expr *reach = want && mode != TR_WIN_EXACT ? want : win, *end = src->shape[i];
		if (!clamp && off->kind == EX_INT && reach->kind == EX_INT && end->kind == EX_INT &&
		    off->ival + reach->ival > end->ival) {
			tr_error(rc, "%s reads past the end of dimension %d: offset %lld + extent %lld exceeds the source extent "
				 "%lld. %s", op, i, (long long)off->ival, (long long)reach->ival, (long long)end->ival, remedy);
			return false;
		}
	}
	return true;
}

Expr *tr_window_read_valid(RuleCtx *rc, const Type *src, Expr *offs, Expr *window, Expr *req, bool clamp,
			   TrWindow mode, const char *op, const char *remedy)
{
	SugarCtx *c = rc->c;
	bool exact_min = mode == TR_WIN_RUNTIME_MIN;
	Expr *sv = tr_view_kw(src, "valid_shape");
	if (sv && sv->kind != EX_TUPLE)
		sv = NULL;
	if (sv && sv->nargs && sv->nargs != src->ndim && offs->kind == EX_TUPLE && window->kind == EX_TUPLE &&
	    window->nargs == src->ndim && offs->nargs == src->ndim)
		return (Expr *)tr_error(rc, "%s source valid_shape rank %d does not match its shape rank %d", op, sv->nargs, src->ndim);
	if (offs->kind != EX_TUPLE || window->kind != EX_TUPLE || (req && req->kind != EX_TUPLE) ||
	    window->nargs != src->ndim || offs->nargs != src->ndim || (req && req->nargs != src->ndim) ||
	    (sv && sv->nargs != src->ndim))
		return NULL;
	if (!window_read_bounds(rc, src, offs, window, req, clamp, mode, op, remedy) || (!sv && !clamp && !exact_min))
		return NULL;
	Expr *out = tr_list(c, (req ? req : window)->args, src->ndim, (req ? req : window)->pos);
	for (int i = 0; i < src->ndim; i++) {
		Expr *valid = sv ? sv->args[i] : src->shape[i], *off = offs->args[i], *win = window->args[i];
		Expr *avail = win;
		/* a runtime intersection keeps a symbolic bound even where the
		 * source is wholly valid */
		if (clamp || !expr_equal(valid, src->shape[i]) || (exact_min && valid->kind != EX_INT)) {
			Expr *rest = valid;
			if (!(off->kind == EX_INT && off->ival == 0)) {
				if (valid->kind == EX_INT && off->kind == EX_INT)
					rest = tr_int(c, valid->ival > off->ival ? valid->ival - off->ival : 0, DT_INDEX, off->pos);
				else if (!(rest = type_make_binary(c->a, OP_MAX, valid, off, off->pos, c->d)) ||
					 !(rest = type_make_binary(c->a, OP_SUB, rest, off, off->pos, c->d)))
					return NULL;
			}
			if (!(avail = tr_extent_min(c, rest, win)))
				return NULL;
		}
		if (!req) {
			out->args[i] = avail;
			continue;
		}
		Expr *want = req->args[i];
		if (exact_min)
			out->args[i] = tr_extent_min(c, want, avail);
		else
			out->args[i] = !expr_equal(avail, win) && tr_extent_le(avail, want) ? avail : want;
		if (!out->args[i])
			return NULL;
	}
	return out;
}

static int result_dtype(RuleCtx *rc)
{
	const OpsResult *r = rc->r;
	if (r->dtype_kw)
		return tr_dtype_symbol(rc->c, tr_kwarg(rc, r->dtype_kw));
	if (r->dtype_arg >= 0)
		return tr_dtype_symbol(rc->c, tr_arg(rc, r->dtype_arg));
	if (r->dtype_of >= 0)
		return tr_elem_dtype(tr_arg(rc, r->dtype_of));
	return r->dtype;
}

static Type *tensor_from_shape(RuleCtx *rc)
{
	Expr *shape = shape_operand(rc);
	int dt = result_dtype(rc);
	if (!shape || dt < 0)
		return NULL;
	Type *t = tr_shaped(rc->c, TY_TENSOR, shape, (DType)dt);
	Expr *l = rc->r->layout_kw ? tr_kwarg(rc, rc->r->layout_kw) : NULL;
	if (l && l->kind == EX_SYMBOL && strcmp(l->str, "pl.TensorLayout.ND") != 0)
		t->view = tr_tensor_view(rc->c, NULL, l->str, NULL);
	return t;
}

static Type *tile_from_shape(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	const OpsResult *r = rc->r;
	Expr *shape = shape_operand(rc);
	int dt = result_dtype(rc);
	if (!shape || dt < 0)
		return NULL;
	Type *t = tr_shaped(c, TY_TILE, shape, (DType)dt);
	t->mem = MS_VEC;
	if (r->mem_kw) {
		Expr *m = tr_kwarg(rc, r->mem_kw);
		int ms = !m ? MS_VEC /* an absent target_memory is Vec */ : tr_mem_symbol(c, m);
		if (ms < 0)
			return NULL;
		t->mem = (MemSpace)ms;
	} else if (r->mem >= 0) {
		t->mem = (MemSpace)r->mem;
	}
	Expr *valid = tr_arg(rc, r->valid_shape);
	if (valid && r->window_source >= 0) {
		Type *st = tr_type(tr_arg(rc, r->window_source));
		Expr *ck = tr_kwarg(rc, "clamp");
		bool clamp = ck && ck->kind == EX_BOOL && ck->ival;
		Expr *w = st && (st->kind == TY_TENSOR || st->kind == TY_DIST_TENSOR)
			  ? tr_window_read_valid(rc, st, tr_arg(rc, r->window_offsets), shape, valid, clamp, TR_WIN_CLAMPED, rc->op->name,
						 "Pass clamp=True -- pl.load(x, offsets, shapes, clamp=True) -- to narrow the read "
						 "to the source edge instead")
			  : NULL;
		if (rc->failed)
			return NULL;
		if (w)
			valid = w;
	}
	if (valid && valid->kind == EX_TUPLE && valid->nargs && !tr_same_dims(valid, t->shape, t->ndim)) {
		const char *n = "valid_shape";
		t->view = tr_view(c, &n, &valid, 1);
	} else if (r->column_blayout && t->ndim == 2 && ir_is_int_const(t->shape[1], 1, DT_INDEX)) {
		const char *n = "blayout";
		char buf[96];
		snprintf(buf, sizeof buf, "pl.TileLayout.%s", r->column_blayout);
		Expr *v = tr_symbol(c, buf);
		t->view = tr_view(c, &n, &v, 1);
	}
	return t;
}

static Type *reshaped(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	Type *t0 = arg0_type(rc);
	Expr *shape = shape_operand(rc);
	if (!t0 || !shape || (t0->kind != TY_TENSOR && t0->kind != TY_TILE && t0->kind != TY_DIST_TENSOR))
		return NULL;
	Type *t = tr_shaped(c, t0->kind, shape, t0->dtype);
	Expr *valid = tr_arg(rc, rc->r->valid_shape);
	if (valid && (valid->kind != EX_TUPLE || !valid->nargs || tr_same_dims(valid, t->shape, t->ndim)))
		valid = NULL;
	if (t->kind == TY_TILE) {
		t->mem = t0->mem == MS_NONE ? MS_VEC : t0->mem;
		if (valid) {
			const char *n = "valid_shape";
			t->view = tr_view(c, &n, &valid, 1);
		}
		return t;
	}
	Expr *pad = rc->r->pad_kw ? tr_kwarg(rc, rc->r->pad_kw) : NULL;
	if (valid || pad)
		t->view = tr_tensor_view(c, valid, "pl.TensorLayout.ND", pad);
	return t;
}

static Type *reduce_last(RuleCtx *rc)
{
	Type *t0 = arg0_type(rc);
	if (!t0 || (t0->kind != TY_TENSOR && t0->kind != TY_TILE) || t0->ndim == 0)
		return NULL;
	Type *t = tr_copy_type(rc->c, t0);
	t->view = NULL;
	t->memref = NULL;
	t->shape = arena_alloc(rc->c->a, (size_t)(t0->ndim + 1) * sizeof *t->shape);
	memcpy(t->shape, t0->shape, (size_t)t0->ndim * sizeof *t->shape);
	t->shape[t->ndim - 1] = tr_int(rc->c, 1, DT_INDEX, (SrcPos){ 0, 0 });
	return t;
}

static Type *retype(RuleCtx *rc)
{
	Type *t0 = arg0_type(rc);
	int dt = rc->r->dtype_kw ? tr_dtype_symbol(rc->c, tr_kwarg(rc, rc->r->dtype_kw)) : -1;
	if (!t0 || dt < 0)
		return NULL;
	const Type *f = tr_fresh(rc->c, t0);
	return tr_reshaped_as(rc->c, f, (DType)dt, f->shape, f->ndim);
}

static Type *scalar(RuleCtx *rc)
{
	int dt = rc->r->dtype >= 0 ? rc->r->dtype : tr_elem_dtype(tr_arg(rc, rc->r->dtype_of));
	return dt < 0 ? NULL : ir_scalar_type(rc->c->a, (DType)dt);
}

/* pl.Array[LENGTH, DTYPE]: the length must be an integer literal */
static Type *array(RuleCtx *rc)
{
	Expr *len = tr_arg(rc, rc->r->shape);
	int dt = result_dtype(rc);
	if (!len || len->kind != EX_INT || dt < 0)
		return NULL;
	Type *t = ir_type_new(rc->c->a, TY_ARRAY);
	t->dtype = (DType)dt;
	t->shape = arena_alloc(rc->c->a, sizeof *t->shape);
	t->shape[0] = len;
	t->ndim = 1;
	return t;
}

/* arg N in memory space KW.  Vec and Mat keep the source's block / scatter
 * layouts, written out where they differ from the target's implicit ones;
 * other spaces have fixed layouts (no view) */
static Type *moved(RuleCtx *rc)
{
	SugarCtx *c = rc->c;
	Type *t0 = arg0_type(rc);
	int ms = rc->r->mem_kw ? tr_mem_symbol(c, tr_kwarg(rc, rc->r->mem_kw)) : rc->r->mem;
	if (!t0 || t0->kind != TY_TILE || ms < 0)
		return NULL;
	Type *t = tr_copy_type(c, t0);
	t->mem = (MemSpace)ms;
	t->view = NULL;
	t->memref = NULL;
	if (ms != MS_VEC && ms != MS_MAT)
		return t;
	const char *lay[2], *imp[2];
	tr_tile_layouts(t0, lay);
	tr_tile_layouts(t, imp);
	const char *names[2];
	Expr *vals[2];
	int n = 0;
	static const char *const kw[2] = { "blayout", "slayout" };
	for (int i = 0; i < 2; i++)
		if (strcmp(lay[i], imp[i]) != 0) {
			char buf[64];
			snprintf(buf, sizeof buf, "pl.TileLayout.%s", lay[i]);
			names[n] = kw[i];
			vals[n++] = tr_symbol(c, buf);
		}
	if (n)
		t->view = tr_view(c, names, vals, n);
	return t;
}

static Type *tuple(RuleCtx *rc)
{
	const OpsResult *r = rc->r;
	Type *t = ir_type_new(rc->c->a, TY_TUPLE);
	t->elems = arena_alloc(rc->c->a, (size_t)(r->nelems + 1) * sizeof *t->elems);
	t->nelems = r->nelems;
	for (int i = 0; i < r->nelems; i++)
		if (!(t->elems[i] = typerule_infer(rc, &r->elems[i])))
			return NULL;
	return t;
}

const RuleKind typerule_core[] = {
	{ "unknown", NULL, "", NULL, false },
	{ "none", NULL, "", NULL, true },
	{ "same-as-arg", same_as_arg, "arg", NULL, false },
	{ "like-arg", like_arg, "arg", NULL, false },
	{ "elementwise", elementwise, "arg,arg2", NULL, false },
	{ "scalar-op", scalar_op, "arg,arg2", NULL, false },
	{ "tensor-from-shape", tensor_from_shape, "shape,dtype", NULL, false },
	{ "tile-from-shape", tile_from_shape, "shape,dtype", NULL, false },
	{ "reshaped", reshaped, "arg,shape", NULL, false },
	{ "reduce-last", reduce_last, "arg", NULL, false },
	{ "retype", retype, "arg,dtype", NULL, false },
	{ "scalar", scalar, "dtype", NULL, false },
	{ "tuple", tuple, "elems", NULL, false },
	{ "array", array, "length,dtype", NULL, false },
	{ "moved", moved, "arg,mem", NULL, false },
	{ NULL, NULL, NULL, NULL, false },
};
