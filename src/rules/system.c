/* rules/system.c - the rule kinds of the reference's system, sync,
 * cross-core, array, prefetch and distributed (pld / builtin / dist) ops
 * (data/ops.yaml's header documents each kind's fields).
 *
 * Two kinds share one deducer, selected by `opts: {form: NAME}`:
 *   system       a value (handles, scalars, distributed tensors, tiles)
 *   system-stmt  a statement op: only the checks, no value
 * The forms follow the reference's deducers (src/ir/op/distributed/,
 * prefetch/, sync_ops/ and tile_ops/cross_core.cpp); the messages carry their
 * wording so that a rejected call reads as the reference's.
 */
#include <stdio.h>
#include <string.h>

#include "ptoopt/typerule.h"
#include "ptoopt/types.h"

/* (of a value) */
static const char *type_name(Expr *e) { return tr_type_name(tr_type(e)); }

/* a value's type as the reference's python_print_type writes it (the DSL
 * wrappers' messages) */
static const char *printed(Expr *e)
{
	static char buf[2][256];
	static int k;
	char *b = buf[k++ & 1];
	Type *t = tr_type(e);
	if (t)
		type_to_string(t, b, sizeof buf[0]);
	else
		snprintf(b, sizeof buf[0], "UnknownType");
	return b;
}

/* An argument's type when it is of kind k, else NULL (unknown types too). */
static Type *of_kind(RuleCtx *rc, int i, TypeKind k)
{
	Type *t = tr_type(tr_arg(rc, i));
	return t && t->kind == k ? t : NULL;
}

static bool is_named(Type *t, const char *name)
{
	return t && t->kind == TY_NAMED && !strcmp(t->name, name);
}

/* True when the argument's type is not known (results of unregistered ops):
 * such calls are let through unchecked, as everywhere in the registry. */
static bool unknown(RuleCtx *rc, int i)
{
	return tr_arg(rc, i) && !tr_type(tr_arg(rc, i));
}

static Type *named(RuleCtx *rc, const char *name)
{
	Type *t = ir_type_new(rc->c->a, TY_NAMED);
	t->name = name;
	return t;
}

/* An integer literal's value, or false. */
static bool const_int(const Expr *e, int64_t *v)
{
	if (!e || e->kind != EX_INT)
		return false;
	*v = e->ival;
	return true;
}

/* ---------------------------------------------------------------- forms */

/* pld.system.get_comm_ctx(dist_tensor) -> pld.CommCtxType */
static Type *comm_ctx(RuleCtx *rc)
{
	if (unknown(rc, 0))
		return named(rc, "pld.CommCtxType");
	if (!of_kind(rc, 0, TY_DIST_TENSOR))
		return tr_error(rc, "pld.system.get_comm_ctx expects a DistributedTensor (window-bound), got %s",
				type_name(tr_arg(rc, 0)));
	return named(rc, "pld.CommCtxType");
}

/* pld.system.rank / nranks(ctx) -> INT32 */
static Type *comm_scalar(RuleCtx *rc)
{
	if (!unknown(rc, 0) && !is_named(tr_type(tr_arg(rc, 0)), "pld.CommCtxType"))
		return tr_error(rc, "%s expects a CommCtx (output of pld.system.get_comm_ctx), got %s", rc->op->name,
				type_name(tr_arg(rc, 0)));
	return ir_scalar_type(rc->c->a, DT_INT32);
}

/* pld.tensor.window(buf, shape, dtype=) -> pld.DistributedTensor[shape, dtype] */
static Type *window(RuleCtx *rc)
{
	if (!unknown(rc, 0) && !of_kind(rc, 0, TY_PTR))
		return tr_error(rc, "pld.tensor.window expects a Ptr handle (output of pld.tensor.alloc_window_buffer); got %s",
				printed(tr_arg(rc, 0)));
	Expr *shape = tr_arg(rc, 1);
	if (!shape || shape->kind != EX_TUPLE)
		return tr_error(rc, "pld.tensor.window second argument must be a shape tuple (MakeTuple of ints / Exprs)");
	int dt = tr_dtype_symbol(rc->c, tr_kwarg(rc, "dtype"));
	if (dt < 0)
		return NULL;
	return tr_shaped(rc->c, TY_DIST_TENSOR, shape, (DType)dt);
}

/* tile.tpop_from_aic / aiv: the DSL's shape= and dtype= give a tile in
 * opts.mem without a view; without them the type needs an annotation */
static Type *tpop(RuleCtx *rc)
{
	Expr *shape = tr_kwarg(rc, "shape"), *dtype = tr_kwarg(rc, "dtype");
	if (!shape && !dtype)
		return NULL;
	if (!shape || !dtype)
		return tr_error(rc, "shape and dtype must both be provided or both omitted");
	int dt = tr_dtype_symbol(rc->c, dtype);
	if (shape->kind != EX_TUPLE || dt < 0)
		return NULL;
	Type *t = tr_shaped(rc->c, TY_TILE, shape, (DType)dt);
	const char *m = tr_opt(rc->r, "mem");
	int ms = m ? ir_mem_parse(m) : -1;
	t->mem = ms < 0 ? MS_VEC : (MemSpace)ms;
	return t;
}

/* pld.tile.remote_load(target, peer, offsets, shape[, valid_shape]) -> a
 * tile of target's dtype, no memory space; its valid shape the request
 * intersected with the target's valid region (exactly, as a runtime min),
 * its block layout from the target's ND / DN view; with
 * allow_physical_tail_padding an FP16 rank-2 target read as 15 elements
 * wider and wholly valid */
static Type *remote_load(RuleCtx *rc)
{
	const char *op = "pld.tile.remote_load";
	Type *dt = of_kind(rc, 0, TY_DIST_TENSOR); /* (the registry's checks: a DistributedTensor) */
	if (!dt)
		return NULL;
	if (!unknown(rc, 1) && !of_kind(rc, 1, TY_SCALAR) && tr_arg(rc, 1)->kind != EX_INT)
		return tr_error(rc, "%s peer must be a scalar (rank index), got %s", op, type_name(tr_arg(rc, 1)));
	Expr *offs = tr_arg(rc, 2), *shape = tr_arg(rc, 3), *valid = tr_arg(rc, 4);
	if (!offs || offs->kind != EX_TUPLE)
		return tr_error(rc, "%s offsets must be a tuple (MakeTuple of scalars)", op);
	if (!shape || shape->kind != EX_TUPLE)
		return tr_error(rc, "%s shape must be a tuple (MakeTuple of scalars)", op);
	if (valid && valid->kind != EX_TUPLE)
		return tr_error(rc, "%s valid_shape must be a tuple (MakeTuple of scalars)", op);
	for (int i = 0; valid && i < valid->nargs; i++) {
		Expr *e = valid->args[i];
		int edt = tr_elem_dtype(e);
		if (edt >= 0 && !ir_dtype_is_int((DType)edt))
			return tr_error(rc, "%s valid_shape %d must be an integer scalar, but got %s", op, i, type_name(e));
		if ((e->kind == EX_INT && e->ival < 0) || (e->kind == EX_UNARY && e->op == UOP_NEG && e->lhs->kind == EX_INT && e->lhs->ival > 0))
			return tr_error(rc, "%s valid_shape %d is provably negative; a valid region cannot have a negative extent", op, i);
	}
	if (offs->nargs != dt->ndim)
		return tr_error(rc, "%s offsets rank (%d) must match target tensor rank (%d)", op, offs->nargs, dt->ndim);
	if (shape->nargs != dt->ndim)
		return tr_error(rc, "%s shape rank (%d) must match target tensor rank (%d)", op, shape->nargs, dt->ndim);
	if (valid && valid->nargs != dt->ndim)
		return tr_error(rc, "%s valid_shape rank (%d) must match target tensor rank (%d)", op, valid->nargs,
				dt->ndim);
	if (dt->ndim == 0)
		return tr_error(rc, "%s requires at least one dimension on target", op);
	Type *t = tr_shaped(rc->c, TY_TILE, shape, dt->dtype);
	t->mem = MS_NONE;
	Expr *pad = tr_kwarg(rc, "allow_physical_tail_padding");
	const Type *src = dt;
	if (pad && pad->kind == EX_BOOL && pad->ival) {
		if (dt->dtype != DT_FP16)
			return tr_error(rc, "%s allow_physical_tail_padding requires an FP16 target", op);
		if (dt->ndim != 2)
			return tr_error(rc, "%s allow_physical_tail_padding requires a flattened rank-2 target", op);
		if (!valid)
			return tr_error(rc, "%s allow_physical_tail_padding requires an explicit valid_shape", op);
		/* a source 15 elements wider than its shape, wholly valid */
		Type *wide = ir_type_new(rc->c->a, TY_DIST_TENSOR);
		*wide = *dt;
		wide->view = NULL;
		wide->shape = arena_alloc(rc->c->a, 2 * sizeof *wide->shape);
		wide->shape[0] = dt->shape[0];
		Expr *w = dt->shape[1];
		wide->shape[1] = w->kind == EX_INT ? tr_int(rc->c, w->ival + 15, DT_INDEX, w->pos)
			: type_make_binary(rc->c->a, OP_ADD, w, tr_int(rc->c, 15, DT_INDEX, w->pos), w->pos, rc->c->d);
		if (!wide->shape[1])
			return NULL;
		src = wide;
	}
	/* the request intersected with the source's valid extent under the
	 * window, a runtime min where nothing settles it */
	Expr *v = tr_window_read_valid(rc, src, offs, shape, valid, false, TR_WIN_RUNTIME_MIN, op,
				       "Pass a smaller valid_shape to describe a ragged remote-load tail");
	if (!v)
		return NULL;
	/* block layout: the implicit one of the shape, or the target's ND / DN */
	Expr *l = tr_view_kw(dt, "layout");
	const char *blay = NULL;
	if (l && l->kind == EX_SYMBOL && !strcmp(l->str, "pl.TensorLayout.ND"))
		blay = "pl.TileLayout.row_major";
	else if (l && l->kind == EX_SYMBOL && !strcmp(l->str, "pl.TensorLayout.DN"))
		blay = "pl.TileLayout.col_major";
	bool column = t->ndim == 2 && t->shape[0]->kind == EX_INT && t->shape[1]->kind == EX_INT &&
		      t->shape[1]->ival == 1 && t->shape[0]->ival > 1;
	if (blay && !strcmp(blay, column ? "pl.TileLayout.col_major" : "pl.TileLayout.row_major"))
		blay = NULL;
	const char *names[2];
	Expr *vals[2];
	int k = 0;
	if (!tr_same_dims(v, t->shape, t->ndim))
		names[k] = "valid_shape", vals[k++] = v;
	if (blay)
		names[k] = "blayout", vals[k++] = tr_symbol(rc->c, blay);
	if (k)
		t->view = tr_view(rc->c, names, vals, k);
	return t;
}

/* The collectives: the result is the type of argument `arg` (the target,
 * reduced / gathered in place); opts.op names the deducer's checks. */
static Type *check_signal(RuleCtx *rc, const char *op, int i, bool int32_msg_counter)
{
	Type *s = of_kind(rc, i, TY_DIST_TENSOR);
	if (!s) {
		if (unknown(rc, i))
			return (Type *)1;
		return tr_error(rc, "%s signal must be a DistributedTensor (window-bound), got %s", op,
				type_name(tr_arg(rc, i)));
	}
	if (s->dtype != DT_INT32) {
		if (int32_msg_counter)
			return tr_error(rc, "%s signal must have INT32 element type (the barrier slot is an int counter), got dtype %s",
					op, tr_dtype_str(s->dtype));
		return tr_error(rc, "%s signal must have INT32 element type, got dtype %s", op, tr_dtype_str(s->dtype));
	}
	return s;
}

/* signal [NR] or [NR, 1] (all_to_all_v: [NR, 1] only) */
static bool signal_shape(RuleCtx *rc, const char *op, Type *s, bool two_d_only, const char *what)
{
	if (two_d_only ? s->ndim != 2 : s->ndim != 1 && s->ndim != 2) {
		tr_error(rc, two_d_only ? "%s %s must be 2D [NR, 1], got %d dims" : "%s %s must be 1D [NR] or 2D [NR, 1], got %d dims",
			 op, what, s->ndim);
		return false;
	}
	int64_t d1;
	if (s->ndim == 2 && !(const_int(s->shape[1], &d1) && d1 == 1)) {
		char got[32] = "<dynamic>";
		if (const_int(s->shape[1], &d1))
			snprintf(got, sizeof got, "%lld", (long long)d1);
		tr_error(rc, "%s %s second dimension must be 1, got %s", op, what, got);
		return false;
	}
	return true;
}

static bool dims_agree(RuleCtx *rc, const char *op, Expr *a, Expr *b, const char *ad, const char *bd)
{
	int64_t x, y;
	if (const_int(a, &x) && const_int(b, &y) && x != y) {
		tr_error(rc, "%s %s first dimension (%lld) must equal %s first dimension (%lld)", op, ad, (long long)x, bd,
			 (long long)y);
		return false;
	}
	return true;
}

/* the input of allgather / all_to_all(_v): a Tensor or DistributedTensor */
static Type *tensor_like(RuleCtx *rc, int i)
{
	Type *t = tr_type(tr_arg(rc, i));
	return t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR) ? t : NULL;
}

static Type *collective(RuleCtx *rc)
{
	const char *form = tr_opt(rc->r, "op");
	const char *op = rc->op->name;
	int ri = rc->r->arg >= 0 ? rc->r->arg : 0;
	Type *res = tr_type(tr_arg(rc, ri));
	if (!form)
		return res;
	if (!strcmp(form, "allreduce") || !strcmp(form, "broadcast") || !strcmp(form, "reduce_scatter")) {
		Type *t = of_kind(rc, 0, TY_DIST_TENSOR);
		if (!t && !unknown(rc, 0))
			return tr_error(rc, "%s target must be a DistributedTensor (window-bound), got %s", op,
					type_name(tr_arg(rc, 0)));
		if (t && !strcmp(form, "allreduce") && t->dtype != DT_FP16 && t->dtype != DT_FP32)
			return tr_error(rc, "%s target dtype must be FP16 or FP32, got %s", op, tr_dtype_str(t->dtype));
		if (tr_arg(rc, 1)) {
			Type *s = of_kind(rc, 1, TY_DIST_TENSOR);
			if (!s && !unknown(rc, 1))
				return tr_error(rc, "%s signal must be a DistributedTensor (window-bound), got %s", op,
						type_name(tr_arg(rc, 1)));
			if (s && s->dtype != DT_INT32)
				return tr_error(rc, !strcmp(form, "allreduce")
						? "%s signal must have INT32 element type (the barrier slot is an int counter), got dtype %s"
						: "%s signal must have INT32 element type, got dtype %s", op, tr_dtype_str(s->dtype));
		}
		int64_t v;
		Expr *k;
		if (!strcmp(form, "allreduce")) {
			if ((k = tr_kwarg(rc, "op")) && const_int(k, &v) && (v < 0 || v > 3))
				return tr_error(rc, "%s op must be ReduceOp.Sum, Max, Min, or Prod (got int %lld)", op, (long long)v);
			if ((k = tr_kwarg(rc, "core_num")) && const_int(k, &v) && v <= 0)
				return tr_error(rc, "%s core_num must be positive, got %lld", op, (long long)v);
		} else if (!strcmp(form, "reduce_scatter")) {
			if ((k = tr_kwarg(rc, "op")) && const_int(k, &v) && v != 0)
				return tr_error(rc, "%s op must be ReduceOp.Sum (got int %lld); Max / Min / Prod lowerings are not yet implemented",
						op, (long long)v);
		} else if (!strcmp(form, "broadcast")) {
			if ((k = tr_kwarg(rc, "root")) && const_int(k, &v) && v < 0)
				return tr_error(rc, "%s root rank must be non-negative, got %lld", op, (long long)v);
		}
		return res;
	}
	if (!strcmp(form, "barrier")) {
		if (!check_signal(rc, op, 0, true))
			return NULL;
		return res;
	}
	bool a2a = !strcmp(form, "all_to_all"), a2av = !strcmp(form, "all_to_all_v");
	if (strcmp(form, "allgather") && !a2a && !a2av)
		return res;
	Expr *in = tr_arg(rc, 0), *tg = tr_arg(rc, 1);
	if (in && in == tg && in->kind == EX_VAR && !a2av)
		return tr_error(rc, a2a ? "%s input and target must be different windows, but the same expression was passed for both"
				    : "%s input and target must be different buffers, but the same expression was passed for both", op);
	if (unknown(rc, 0) || unknown(rc, 1))
		return res;
	Type *it = tensor_like(rc, 0);
	if (!it)
		return tr_error(rc, "%s input must be a Tensor or DistributedTensor, got %s", op, type_name(in));
	const char *shape_txt = a2av ? "[NR*MAX_RECV, SIZE]" : "[NR, SIZE]";
	if (it->ndim != 2) {
		if (!strcmp(form, "allgather"))
			return tr_error(rc, "%s input must be 2D [1, SIZE] (this rank's single chunk), got %d dims", op, it->ndim);
		return tr_error(rc, "%s input must be 2D %s, got %d dims", op, shape_txt, it->ndim);
	}
	int64_t rows;
	if (!strcmp(form, "allgather") && const_int(it->shape[0], &rows) && rows != 1)
		return tr_error(rc, "%s input must be [1, SIZE] (this rank's single chunk), got first dim %lld", op, (long long)rows);
	Type *tt = of_kind(rc, 1, TY_DIST_TENSOR);
	if (!tt)
		return tr_error(rc, "%s target must be a DistributedTensor (window-bound), got %s", op, type_name(tg));
	if (tt->ndim != 2)
		return tr_error(rc, "%s target must be 2D %s, got %d dims", op, shape_txt, tt->ndim);
	if (a2a) {
		if (!dims_agree(rc, op, tt->shape[0], it->shape[0], "target", "input"))
			return NULL;
		if (!expr_equal(tt->shape[1], it->shape[1]))
			return tr_error(rc, "%s target shape must equal input shape", op);
		if (tt->dtype != it->dtype)
			return tr_error(rc, "%s target dtype %s must match input dtype %s", op, tr_dtype_str(tt->dtype), tr_dtype_str(it->dtype));
	} else {
		if (a2av && !expr_equal(tt->shape[1], it->shape[1]))
			return tr_error(rc, "%s target SIZE must equal input SIZE", op);
		if (tt->dtype != it->dtype)
			return tr_error(rc, "%s target dtype %s must match input dtype %s", op, tr_dtype_str(tt->dtype), tr_dtype_str(it->dtype));
		if (!a2av && !expr_equal(tt->shape[1], it->shape[1]))
			return tr_error(rc, "%s target SIZE must equal input SIZE", op);
	}
	Type *s = check_signal(rc, op, 2, false);
	if (!s)
		return NULL;
	if (s == (Type *)1)
		return res;
	if (!signal_shape(rc, op, s, a2av, "signal"))
		return NULL;
	if (!a2av) {
		if (!dims_agree(rc, op, s->shape[0], a2a ? it->shape[0] : tt->shape[0], "signal", a2a ? "input" : "target"))
			return NULL;
		return res;
	}
	int64_t td0, sd0, cd0;
	if (!const_int(tt->shape[0], &td0))
		return tr_error(rc, "%s target dim 0 (NR*MAX_RECV) must be a compile-time constant", op);
	if (!const_int(s->shape[0], &sd0))
		return tr_error(rc, "%s signal dim 0 (NR) must be a compile-time constant", op);
	if (sd0 <= 0)
		return tr_error(rc, "%s signal dim 0 (NR) must be positive, got %lld", op, (long long)sd0);
	if (td0 % sd0)
		return tr_error(rc, "%s signal dim 0 (%lld) must divide target dim 0 (%lld)", op, (long long)sd0, (long long)td0);
	if (unknown(rc, 3) || unknown(rc, 4))
		return res;
	Type *ct = tensor_like(rc, 3);
	if (!ct)
		return tr_error(rc, "%s send_counts must be a Tensor or DistributedTensor, got %s", op, type_name(tr_arg(rc, 3)));
	if (ct->dtype != DT_INT32)
		return tr_error(rc, "%s send_counts must have INT32 element type, got dtype %s", op, tr_dtype_str(ct->dtype));
	if (!signal_shape(rc, op, ct, false, "send_counts"))
		return NULL;
	if (!const_int(ct->shape[0], &cd0))
		return tr_error(rc, "%s send_counts dim 0 (NR) must be a compile-time constant", op);
	if (cd0 != sd0)
		return tr_error(rc, "%s send_counts dim 0 (%lld) must equal signal dim 0 (NR = %lld)", op, (long long)cd0,
				(long long)sd0);
	Type *rt = of_kind(rc, 4, TY_DIST_TENSOR);
	if (!rt)
		return tr_error(rc, "%s recv_counts must be a DistributedTensor (window-bound), got %s", op,
				type_name(tr_arg(rc, 4)));
	if (rt->dtype != DT_INT32)
		return tr_error(rc, "%s recv_counts must have INT32 element type, got dtype %s", op, tr_dtype_str(rt->dtype));
	if (!signal_shape(rc, op, rt, true, "recv_counts"))
		return NULL;
	return res;
}

/* system.set_ffts(workspace): a 1-D INT64 tensor of at least 256 elements */
static Type *set_ffts(RuleCtx *rc)
{
	if (unknown(rc, 0))
		return NULL;
	Type *t = of_kind(rc, 0, TY_TENSOR);
	int64_t n;
	if (!t)
		return tr_error(rc, "system.set_ffts workspace must be a Tensor, got %s", type_name(tr_arg(rc, 0)));
	if (t->dtype != DT_INT64)
		return tr_error(rc, "system.set_ffts workspace must have INT64 dtype, got %s", tr_dtype_str(t->dtype));
	if (t->ndim != 1)
		return tr_error(rc, "system.set_ffts workspace must be 1-D, got rank %d", t->ndim);
	if (!const_int(t->shape[0], &n) || n < 256)
		return tr_error(rc, "system.set_ffts workspace must have a static length of at least 256 INT64 elements");
	return NULL;
}

/* system.cacheinvalid(): whole GM; (tensor, shapes, offsets): a region */
static Type *cacheinvalid(RuleCtx *rc)
{
	Expr *t = tr_arg(rc, 0), *sh = tr_arg(rc, 1), *off = tr_arg(rc, 2);
	if (!t) {
		if (sh || off)
			return tr_error(rc, "system.cacheinvalid whole-GM form takes no shapes/offsets; pass (tensor, shapes, offsets) for the region form");
		return NULL;
	}
	if (!sh || !off)
		return tr_error(rc, "system.cacheinvalid region form requires both shapes and offsets (or pass no arguments for the whole-GM form)");
	Type *tt = tr_type(t);
	if (!tt)
		return NULL;
	if (tt->kind != TY_TENSOR && tt->kind != TY_DIST_TENSOR)
		return tr_error(rc, "system.cacheinvalid tensor must have TensorType, got %s", printed(t));
	if (sh->kind == EX_TUPLE && sh->nargs != tt->ndim)
		return tr_error(rc, "system.cacheinvalid shapes must match tensor rank %d, got %d", tt->ndim, sh->nargs);
	if (off->kind == EX_TUPLE && off->nargs != tt->ndim)
		return tr_error(rc, "system.cacheinvalid offsets must match tensor rank %d, got %d", tt->ndim, off->nargs);
	return NULL;
}

/* system.syncall: the hard form takes only core_type; the soft form prints
 * through the DSL's keyword surface, its strings double-quoted (the
 * reference's printer writes that call by hand) */
static Type *syncall(RuleCtx *rc)
{
	Expr *mode = tr_kwarg(rc, "mode"), *ct = tr_kwarg(rc, "core_type");
	Expr *ws = tr_kwarg(rc, "gm_workspace"), *used = tr_kwarg(rc, "used_cores");
	const char *m = mode && mode->kind == EX_STR ? mode->str : "hard";
	bool soft = !strcmp(m, "soft");
	const char *c = ct && ct->kind == EX_STR ? ct->str : "mix";
	if (strcmp(c, "aiv_only") && strcmp(c, "aic_only") && strcmp(c, "mix"))
		return tr_error(rc, soft ? "soft syncall core_type must be one of ('aiv_only', 'aic_only', 'mix'), got '%s'"
					 : "syncall core_type must be one of ('aiv_only', 'aic_only', 'mix'), got '%s'", c);
	if (!soft) {
		if (strcmp(m, "hard"))
			return tr_error(rc, "syncall mode must be 'hard' or 'soft', got '%s'", m);
		if (ws || used)
			return tr_error(rc, "syncall(mode='hard') takes no gm_workspace/used_cores; pass mode='soft' to use the GM-polling barrier");
		return NULL;
	}
	if (!ws)
		return tr_error(rc, "soft syncall requires gm_workspace (a shared, zero-initialized GM INT32 tensor)");
	Type *wt = tr_type(ws);
	if (wt && wt->kind != TY_TENSOR && wt->kind != TY_DIST_TENSOR)
		return tr_error(rc, "soft syncall gm_workspace must be a Tensor, got %s", type_name(ws));
	if (!used)
		return tr_error(rc, "soft syncall requires explicit used_cores; pass 0 only when the device launch configuration matches the runtime's logical grid");
	int64_t u;
	if (const_int(used, &u) && (u < 0 || u > 2147483647LL))
		return tr_error(rc, "soft syncall used_cores must be in the INT32 range [0, 2147483647], got %lld", (long long)u);
	Type *ut = tr_type(used);
	if (used->kind != EX_INT && ut && !(ut->kind == TY_SCALAR && ut->dtype == DT_INT32))
		return tr_error(rc, "soft syncall used_cores must be an INT32 scalar");
	/* the printed strings: mode="soft", core_type="..."; a constant
	 * used_cores prints as its bare value */
	for (int k = 0; k < rc->call->nkw; k++) {
		Kwarg *kw = &rc->call->kw[k];
		if (kw->value == used && used->kind == EX_INT && used->dtype != DT_INDEX)
			kw->value = tr_int(rc->c, used->ival, DT_INDEX, used->pos);
		if ((kw->value == mode || kw->value == ct) && kw->value->kind == EX_STR) {
			Expr *s = ir_expr_new(rc->c->a, EX_SYMBOL, kw->value->pos);
			char buf[96];
			snprintf(buf, sizeof buf, "\"%s\"", kw->value->str);
			s->str = intern_cstr(rc->c->a, buf);
			kw->value = s;
		}
	}
	return NULL;
}

/* pld.system.notify / wait / defer_wait: the signal is window-bound */
static Type *signal_op(RuleCtx *rc)
{
	const char *op = rc->op->name;
	bool notify = !strcmp(op, "pld.system.notify");
	if (unknown(rc, 0))
		return NULL;
	Type *t = of_kind(rc, 0, TY_DIST_TENSOR);
	if (!t)
		return tr_error(rc, "%s %s must be a DistributedTensor (window-bound), got %s", op, notify ? "target" : "signal",
				type_name(tr_arg(rc, 0)));
	bool defer = !strcmp(op, "pld.system.defer_wait");
	if (defer && t->dtype != DT_INT32)
		return tr_error(rc, "pld.system.defer_wait signal dtype must be INT32, got %s", tr_dtype_str(t->dtype));
	if (defer && t->ndim == 0)
		return tr_error(rc, "pld.system.defer_wait signal rank must be at least 1, got 0");
	Expr *peer = notify ? tr_arg(rc, 1) : NULL, *val = tr_arg(rc, notify ? 3 : 2);
	if (peer && peer->kind != EX_INT && tr_type(peer) && tr_type(peer)->kind != TY_SCALAR)
		return tr_error(rc, "pld.system.notify peer must be a scalar (rank index), got %s", type_name(peer));
	Expr *offs = tr_arg(rc, notify ? 2 : 1);
	if (!offs || offs->kind != EX_TUPLE)
		return tr_error(rc, "%s offsets must be a tuple (MakeTuple of scalars)", op);
	if (offs->nargs != t->ndim)
		return tr_error(rc, "%s offsets rank (%d) must match target tensor rank (%d)", op, offs->nargs, t->ndim);
	Type *vt = val && val->kind != EX_INT && val->kind != EX_FLOAT && val->kind != EX_BOOL ? tr_type(val) : NULL;
	if (vt && vt->kind != TY_SCALAR)
		return tr_error(rc, notify ? "%s value must be a scalar, got %s" : "%s expected must be a scalar, got %s", op,
				type_name(val));
	if (defer) {
		for (int i = 0; i < offs->nargs; i++) {
			Expr *o = offs->args[i];
			DType od = o->kind == EX_INT ? (DType)o->dtype : tr_type(o) && tr_type(o)->kind == TY_SCALAR ? tr_type(o)->dtype : DT_INDEX;
			if (o->kind == EX_FLOAT || !ir_dtype_is_int(od))
				return tr_error(rc, "pld.system.defer_wait offset %d must be an integer or index scalar, got %s", i,
						o->kind == EX_FLOAT ? "fp32" : tr_dtype_str(od));
		}
		if (vt && !ir_dtype_is_int(vt->dtype))
			return tr_error(rc, "pld.system.defer_wait expected must be an integer or index scalar, got %s", tr_dtype_str(vt->dtype));
	}
	int64_t v;
	Expr *k;
	if (defer && (k = tr_kwarg(rc, "cmp")) && const_int(k, &v) && v != 1)
		return tr_error(rc, "pld.system.defer_wait only supports WaitCmp.Ge (got int %lld)", (long long)v);
	if (defer && const_int(tr_arg(rc, 2), &v) && (v < 0 || v > 2147483647LL))
		return tr_error(rc, "pld.system.defer_wait constant expected must be in [0, INT32_MAX], got %lld", (long long)v);
	return NULL;
}

/* pld.tile / pld.tensor.remote_store(src, target, peer, offsets): a 2-D
 * push (leading dims of 1) of src's dtype landing inside target at offsets */
static Type *remote_store(RuleCtx *rc)
{
	const char *op = rc->op->name;
	bool tile = !strncmp(op, "pld.tile.", 9);
	if (unknown(rc, 1))
		return NULL;
	Type *t = of_kind(rc, 1, TY_DIST_TENSOR); /* (the registry's checks: a DistributedTensor) */
	if (!t)
		return NULL;
	Type *s = tr_type(tr_arg(rc, 0));
	if (tile && s && s->kind != TY_TILE)
		return tr_error(rc, "pld.tile.remote_store src_tile must be a TileType, got %s. In a tensor-level kernel (@pl.jit) call pld.tensor.remote_store instead (pld.remote_store dispatches between the two).",
				type_name(tr_arg(rc, 0)));
	Expr *peer = tr_arg(rc, 2);
	if (peer && peer->kind != EX_INT && tr_type(peer) && tr_type(peer)->kind != TY_SCALAR)
		return tr_error(rc, "%s peer must be a scalar (rank index), got %s", op, type_name(peer));
	Expr *offs = tr_arg(rc, 3);
	if (!offs || offs->kind != EX_TUPLE)
		return tr_error(rc, "%s offsets must be a tuple (MakeTuple of scalars)", op);
	if (offs->nargs != t->ndim)
		return tr_error(rc, "%s offsets rank (%d) must match target tensor rank (%d)", op, offs->nargs, t->ndim);
	if (!s)
		return NULL;
	if (s->dtype != t->dtype)
		return tr_error(rc, "%s src dtype (%s) must match target dtype (%s)", op, tr_dtype_str(s->dtype), tr_dtype_str(t->dtype));
	Expr **ext = s->shape;
	Expr *v = tile ? tr_view_kw(s, "valid_shape") : NULL;
	if (v && v->kind == EX_TUPLE && v->nargs == s->ndim)
		ext = v->args;
	if (s->ndim < 2)
		return tr_error(rc, "%s src must be at least 2-D (it is pushed as a 2-D region), got rank %d", op, s->ndim);
	int64_t d;
	for (int i = 0; i + 2 < s->ndim; i++)
		if (const_int(ext[i], &d) && d != 1)
			return tr_error(rc, "%s src leading dimension %d must be 1 (only the inner two dims are pushed, and larger leading dims fold into the row extent and overrun the target), got %lld",
					op, i, (long long)d);
	if (t->ndim < 2)
		return tr_error(rc, "%s target rank must be >= 2 to hold a 2-D push, got %d", op, t->ndim);
	for (int i = 0; i < t->ndim; i++) {
		int64_t o, td, e = 1;
		if (!const_int(offs->args[i], &o))
			continue;
		if (o < 0)
			return tr_error(rc, "%s offsets dimension %d must be non-negative, got %lld", op, i, (long long)o);
		if (!const_int(t->shape[i], &td))
			continue;
		if (i + 2 >= t->ndim && !const_int(ext[s->ndim - (t->ndim - i)], &e))
			continue;
		if (o + e > td)
			return tr_error(rc, "%s push exceeds the peer's target region in dimension %d (offset=%lld, extent=%lld, target_dim=%lld)",
					op, i, (long long)o, (long long)e, (long long)td);
	}
	Expr *at = tr_kwarg(rc, "atomic");
	DType dt = t->dtype;
	if (at && at->kind == EX_SYMBOL && !strcmp(at->str, "pl.AtomicType.Add") && dt != DT_FP32 && dt != DT_BF16 &&
	    dt != DT_FP16 && dt != DT_INT32 && dt != DT_INT16 && dt != DT_INT8)
		return tr_error(rc, "%s with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8 dtype (hardware atomic-add dtypes), but got %s",
				op, tr_dtype_str(dt));
	return NULL;
}

/* pld.tensor / pld.tile put and get: put's dst and get's src are
 * window-bound; dst and src share dtype and rank (and, full-slice, shape);
 * the subregion form's offsets / shape fit both; chunks bound a dynamic
 * transfer; the tile forms' staging tiles are 2-D of dst's dtype */
static bool region_args(RuleCtx *rc, const char *op, Expr **a, const Type *dt, const Type *st, Expr **tshape)
{
	Expr *doffs = a[0], *soffs = a[1], *shape = a[2];
	if (doffs->kind != EX_TUPLE)
		return !tr_error(rc, "%s dst_offsets must be a tuple", op);
	if (soffs->kind != EX_TUPLE)
		return !tr_error(rc, "%s src_offsets must be a tuple", op);
	if (shape->kind != EX_TUPLE)
		return !tr_error(rc, "%s shape must be a tuple", op);
	if (doffs->nargs != dt->ndim)
		return !tr_error(rc, "%s dst_offsets rank must match dst rank", op);
	if (soffs->nargs != st->ndim)
		return !tr_error(rc, "%s src_offsets rank must match src rank", op);
	if (shape->nargs != dt->ndim)
		return !tr_error(rc, "%s shape rank must match tensor rank", op);
	for (int i = 0; i < shape->nargs; i++) {
		int64_t d = 0, o, w;
		bool dc = const_int(shape->args[i], &d);
		if (dc && d <= 0)
			return !tr_error(rc, "%s shape dimension %d must be positive, got %lld", op, i, (long long)d);
		if (const_int(doffs->args[i], &o)) {
			if (o < 0)
				return !tr_error(rc, "%s dst_offsets dimension %d must be non-negative, got %lld", op, i, (long long)o);
			if (dc && const_int(dt->shape[i], &w) && o + d > w)
				return !tr_error(rc, "%s dst subregion dimension %d exceeds dst shape (offset=%lld, shape=%lld, dst_dim=%lld)",
						 op, i, (long long)o, (long long)d, (long long)w);
		}
		if (const_int(soffs->args[i], &o)) {
			if (o < 0)
				return !tr_error(rc, "%s src_offsets dimension %d must be non-negative, got %lld", op, i, (long long)o);
			if (dc && const_int(st->shape[i], &w) && o + d > w)
				return !tr_error(rc, "%s src subregion dimension %d exceeds src shape (offset=%lld, shape=%lld, src_dim=%lld)",
						 op, i, (long long)o, (long long)d, (long long)w);
		}
	}
	*tshape = shape;
	return true;
}

static Type *transfer(RuleCtx *rc)
{
	const char *op = rc->op->name;
	bool put = strstr(op, ".put") != NULL, tile = !strncmp(op, "pld.tile.", 9);
	Expr *dst = tr_arg(rc, 0), *peer = tr_arg(rc, 1), *src = tr_arg(rc, 2);
	if (unknown(rc, 0) || unknown(rc, 2))
		return NULL;
	Type *dt = tr_type(dst), *st = tr_type(src);
	bool dt_like = dt->kind == TY_TENSOR || dt->kind == TY_DIST_TENSOR, st_like = st->kind == TY_TENSOR || st->kind == TY_DIST_TENSOR;
	/* (the DSL wrapper's class checks are the registry's checks:) */
	/* the DSL's region arguments come as all three or none (a single-stage
	 * tile form's may sit in the stage2 slot; an empty list is a filler) */
	int rfrom = tile ? 5 : 3, rgiven = 0;
	if (tile && tr_arg(rc, 4) && tr_arg(rc, 4)->kind == EX_TUPLE)
		rfrom = 4;
	for (int i = rfrom; i < rfrom + 3; i++)
		rgiven += tr_arg(rc, i) && !(tr_arg(rc, i)->kind == EX_TUPLE && tr_arg(rc, i)->nargs == 0);
	if (rgiven && rgiven < 3)
		return tr_error(rc, "%s dst_offsets, src_offsets, and shape must be provided together", op);
	if (put ? dt->kind != TY_DIST_TENSOR : !dt_like)
		return tr_error(rc, put ? "%s dst must be a DistributedTensor (window-bound), got %s"
					: "%s dst must be a Tensor or DistributedTensor, got %s", op, type_name(dst));
	if (peer && peer->kind != EX_INT && tr_type(peer) && tr_type(peer)->kind != TY_SCALAR)
		return tr_error(rc, "%s peer must be a scalar (rank index), got %s", op, type_name(peer));
	if (put ? !st_like : st->kind != TY_DIST_TENSOR)
		return tr_error(rc, put ? "%s src must be a Tensor or DistributedTensor, got %s"
					: "%s src must be a DistributedTensor (window-bound), got %s", op, type_name(src));
	if (dt->dtype != st->dtype)
		return tr_error(rc, "%s dst and src must have the same element type, got dst %s vs src %s", op, type_name(dst),
				type_name(src));
	/* the positional operands as the IR holds them */
	Expr **a = rc->call->args;
	int n = rc->call->nargs, base = 3;
	bool stage2 = false;
	if (tile) {
		stage2 = n == 5 || n == 8;
		base = stage2 ? 5 : 4;
	}
	bool region = n >= base + 3;
	if (dt->ndim == 0)
		return tr_error(rc, "%s requires at least one dimension on dst/src", op);
	if (dt->ndim != st->ndim)
		return tr_error(rc, "%s dst rank (%d) must match src rank (%d)", op, dt->ndim, st->ndim);
	for (int i = 0; i < dt->ndim; i++) {
		int64_t d, s2;
		bool dc = const_int(dt->shape[i], &d), sc = const_int(st->shape[i], &s2);
		if (dc && d <= 0)
			return tr_error(rc, "%s shape dimension %d must be positive, got %lld", op, i, (long long)d);
		if (sc && s2 <= 0)
			return tr_error(rc, "%s src shape dimension %d must be positive, got %lld", op, i, (long long)s2);
		if (!region && dc && sc && d != s2)
			return tr_error(rc, "%s dst and src must have the same static shape; dimension %d differs (dst=%lld, src=%lld)",
					op, i, (long long)d, (long long)s2);
		if (!region && !(dc && sc) && !expr_equal(dt->shape[i], st->shape[i]))
			return tr_error(rc, "%s full-slice dst and src must have the same shape; dimension %d differs (dynamic dims must match structurally)",
					op, i);
	}
	Expr *at = tr_kwarg(rc, "atomic");
	if (at && at->kind == EX_SYMBOL && !strcmp(at->str, "pl.AtomicType.Add")) {
		DType d = dt->dtype;
		if (d != DT_FP32 && d != DT_BF16 && d != DT_FP16 && d != DT_INT32 && d != DT_INT16 && d != DT_INT8)
			return tr_error(rc, "%s with atomic=AtomicType.Add requires an fp32/bf16/fp16/int32/int16/int8 dtype (hardware atomic-add dtypes), but got %s",
					op, tr_dtype_str(d));
	}
	Expr *tshape = NULL;
	if (region && !region_args(rc, op, a + base, dt, st, &tshape))
		return NULL;
	Expr **ts = tshape ? tshape->args : dt->shape;
	int tn = tshape ? tshape->nargs : dt->ndim;
	if (tile) {
		for (int k = 3; k < (stage2 ? 5 : 4); k++) {
			const char *what = k == 3 ? "stage" : "stage2";
			Type *gt = tr_type(a[k]);
			if (!gt)
				continue;
			if (gt->kind != TY_TILE)
				return tr_error(rc, "%s %s must be a TileType, got %s", op, what, type_name(a[k]));
			if (gt->dtype != dt->dtype)
				return tr_error(rc, "%s %s dtype must match dst dtype, got stage=%s dst=%s", op, what, tr_dtype_str(gt->dtype),
						tr_dtype_str(dt->dtype));
			if (gt->ndim != 2)
				return tr_error(rc, "%s %s must be a 2D VEC staging tile, got rank %d", op, what, gt->ndim);
		}
		if (stage2) {
			Type *g1 = tr_type(a[3]), *g2 = tr_type(a[4]);
			if (g1 && g2 && g1->ndim == 2 && g2->ndim == 2 &&
			    !(expr_equal(g1->shape[0], g2->shape[0]) && expr_equal(g1->shape[1], g2->shape[1])))
				return tr_error(rc, "%s ping/pong staging tiles must have identical shape", op);
		}
		return NULL;
	}
	int64_t cr = 0, cc = 0;
	Expr *k;
	if ((k = tr_kwarg(rc, "chunk_rows")))
		const_int(k, &cr);
	if ((k = tr_kwarg(rc, "chunk_cols")))
		const_int(k, &cc);
	if (cr < 0)
		return tr_error(rc, "%s chunk_rows must be non-negative (0 = full), got %lld", op, (long long)cr);
	if (cc < 0)
		return tr_error(rc, "%s chunk_cols must be non-negative (0 = full), got %lld", op, (long long)cc);
	if (tn > 0) {
		bool inner_dyn = ts[tn - 1]->kind != EX_INT, lead_dyn = false;
		for (int i = 0; i + 1 < tn; i++)
			lead_dyn |= ts[i]->kind != EX_INT;
		if (lead_dyn && cr <= 0)
			return tr_error(rc, "%s: a dynamic leading transfer dim needs a static chunk_rows to bound the VEC staging tile", op);
		if (inner_dyn && cc <= 0)
			return tr_error(rc, "%s: a dynamic innermost transfer dim needs a static chunk_cols to bound the VEC staging tile", op);
	}
	Expr *pipe = tr_kwarg(rc, "pipeline");
	if (pipe && pipe->kind == EX_BOOL && pipe->ival && !(cr > 0 && cc > 0))
		return tr_error(rc, "%s pipeline=True requires both chunk_rows>0 and chunk_cols>0 (got chunk_rows=%lld, chunk_cols=%lld)",
				op, (long long)cr, (long long)cc);
	return NULL;
}

/* tile / tensor aiv_shard (opts.halve: 1) and aic_gather (0): the split
 * axis of kwarg split (1, 3: rows; 2, 4: columns) halved (ceil) or doubled,
 * the valid extent with it; split 0 keeps the shape.  Without split (inside
 * a split_aiv region the mode comes from the region) the type needs an
 * annotation. */
static Expr *half_or_double(RuleCtx *rc, Expr *d, bool halve)
{
	if (d->kind == EX_INT)
		return tr_int(rc->c, halve ? (d->ival + 1) / 2 : d->ival * 2, (DType)d->dtype, d->pos);
	Expr *two = tr_int(rc->c, 2, DT_INDEX, d->pos);
	return type_make_binary(rc->c->a, halve ? OP_FLOORDIV : OP_MUL, d, two, d->pos, rc->c->d);
}

static Type *split_reshape(RuleCtx *rc)
{
	const char *op = rc->op->name;
	bool halve = tr_opt_int(rc->r, "halve", 1) != 0, tile = !strncmp(op, "tile.", 5);
	Type *t0 = tr_type(tr_arg(rc, 0));
	Expr *sp = tr_kwarg(rc, "split");
	if (!t0)
		return NULL;
	if (tile && t0->kind != TY_TILE)
		return tr_error(rc, "The operator %s requires argument to be a TileType, but got %s", op, type_name(tr_arg(rc, 0)));
	if (!tile && t0->kind != TY_TENSOR)
		return tr_error(rc, "The operator %s requires argument to be a (non-distributed) TensorType, but got %s", op,
				type_name(tr_arg(rc, 0)));
	/* a tensor operand with an explicit split= (the outlined form is
	 * tile-only) is the parser's error (split_transfer in parse_call.c): in a
	 * region the split comes from the region */
	if (!sp || sp->kind != EX_INT)
		return NULL;
	int64_t split = sp->ival;
	if (split < 0 || split > 2)
		return tr_error(rc, "%s split must be 0 (NONE/no split axis), 1 (UP_DOWN/axis0) or 2 (LEFT_RIGHT/axis1), but got %lld",
				op, (long long)split);
	Expr *valid = tr_view_kw(t0, "valid_shape");
	if (valid && (valid->kind != EX_TUPLE || valid->nargs != t0->ndim))
		valid = NULL;
	Expr **vdims = valid ? valid->args : t0->shape;
	Expr **shape = arena_alloc(rc->c->a, (size_t)(t0->ndim + 1) * sizeof *shape);
	Expr **vout = arena_alloc(rc->c->a, (size_t)(t0->ndim + 1) * sizeof *vout);
	memcpy(shape, t0->shape, (size_t)t0->ndim * sizeof *shape);
	memcpy(vout, vdims, (size_t)t0->ndim * sizeof *vout);
	if (split != 0) {
		if (t0->ndim != 2)
			return tile ? tr_error(rc, "%s requires a 2D tile, but got rank %d", op, t0->ndim)
				    : tr_error(rc, "%s requires a 2D tensor, but got rank %d. Reshape the operand to 2D (pl.reshape) before the shard / gather so the UP_DOWN / LEFT_RIGHT split axis is unambiguous.",
					       op, t0->ndim);
		int axis = split == 2 ? 1 : 0;
		Expr *ls = tr_kwarg(rc, "lane_stride");
		int64_t stride, ext;
		if (ls && const_int(ls, &stride)) {
			if (stride <= 0)
				return tr_error(rc, "%s: 'lane_stride' must be a positive partition stride, but got %lld", op,
						(long long)stride);
			if (const_int(shape[axis], &ext) && stride > (ext + 1) / 2)
				return tr_error(rc, "%s: 'lane_stride' %lld exceeds the per-lane physical half %lld of a %lld-wide split axis",
						op, (long long)stride, (long long)((ext + 1) / 2), (long long)ext);
		}
		if (halve && axis == 1 && !expr_equal(vout[1], shape[1]))
			return tr_error(rc, "%s: LEFT_RIGHT splits the column axis, but this tile's valid column extent does not cover the full box, so the two AIV lanes would hold different amounts of real data",
					op);
		if (!(shape[axis] = half_or_double(rc, shape[axis], halve)))
			return NULL;
		if (vout[axis]->kind == EX_INT)
			vout[axis] = half_or_double(rc, vout[axis], halve);
		else if (!valid)
			vout[axis] = shape[axis];
	} else if (!tile) {
		return t0;
	}
	Type *t = ir_type_new(rc->c->a, tile ? TY_TILE : TY_TENSOR);
	t->dtype = t0->dtype;
	t->shape = shape;
	t->ndim = t0->ndim;
	Expr *vl = tr_list(rc->c, vout, t0->ndim, rc->call->pos);
	bool same = tr_same_dims(vl, shape, t0->ndim);
	if (tile) {
		const char *m = tr_opt(rc->r, "mem");
		int ms = m ? ir_mem_parse(m) : -1;
		t->mem = ms < 0 ? MS_VEC : (MemSpace)ms;
		if (!same) {
			/* a TileView of valid_shape and TileView()'s layouts, written
			 * out where they are not the memory space's implicit ones */
			const char *imp[2], *names[3] = { "valid_shape" };
			Expr *vals[3] = { vl };
			int nv = 1;
			tr_tile_layouts(t, imp);
			if (strcmp(imp[0], "row_major")) {
				names[nv] = "blayout";
				vals[nv++] = tr_symbol(rc->c, "pl.TileLayout.row_major");
			}
			if (strcmp(imp[1], "none_box")) {
				names[nv] = "slayout";
				vals[nv++] = tr_symbol(rc->c, "pl.TileLayout.none_box");
			}
			t->view = tr_view(rc->c, names, vals, nv);
		}
	} else if (!same) {
		t->view = tr_tensor_view(rc->c, vl, "pl.TensorLayout.ND", NULL);
	}
	return t;
}

/* pld.tensor.alloc_window_buffer(size) -> pl.Ptr.  The DSL's shape form
 * (a list of static dims and dtype=) stores the byte size as an INT64
 * constant; the call is rewritten to it. */
static Type *alloc_window(RuleCtx *rc)
{
	Expr *sz = tr_arg(rc, 0), *dt = tr_kwarg(rc, "dtype");
	const char *op = "pld.tensor.alloc_window_buffer";
	if (sz && sz->kind == EX_TUPLE) {
		int d = tr_dtype_symbol(rc->c, dt);
		if (!dt)
			return tr_error(rc, "%s requires dtype= when the first argument is a shape (list / tuple of per-rank dimensions)", op);
		if (!sz->nargs)
			return tr_error(rc, "%s shape must be non-empty", op);
		int64_t total = 1;
		for (int i = 0; i < sz->nargs; i++) {
			int64_t v;
			if (!const_int(sz->args[i], &v))
				return ir_type_new(rc->c->a, TY_PTR); /* a symbolic size: kept as written */
			if (v <= 0)
				return tr_error(rc, "%s shape dimension[%d] is %lld; all dimensions must be positive", op, i, (long long)v);
			total *= v;
		}
		if (d >= 0) {
			Expr *bytes = tr_int(rc->c, total * ((ir_dtype_bits((DType)d) + 7) / 8), DT_INT64, sz->pos);
			for (int i = 0; i < rc->call->nargs; i++)
				if (rc->call->args[i] == sz)
					rc->call->args[i] = bytes;
		}
	} else if (dt) {
		return tr_error(rc, "%s dtype= is only valid when the first argument is a shape (list / tuple), not a scalar byte size", op);
	}
	return ir_type_new(rc->c->a, TY_PTR);
}

/* array.create(extent, dtype=) / get_element(array, index) /
 * update_element(array, index, value) */
static bool int_scalar(Type *t)
{
	return t && t->kind == TY_SCALAR && ir_dtype_is_int(t->dtype);
}

static Type *array_op(RuleCtx *rc, const char *f)
{
	SugarCtx *c = rc->c;
	if (!strcmp(f, "array-create")) {
		int dt = tr_dtype_symbol(c, tr_kwarg(rc, "dtype"));
		Expr *ext = tr_arg(rc, 0);
		if (dt < 0)
			return NULL;
		if (!ir_dtype_is_int((DType)dt) && dt != DT_BOOL && dt != DT_TASK_ID)
			return tr_error(rc, "array.create dtype must be integer, BOOL, or TASK_ID, got %s", tr_dtype_str((DType)dt));
		/* the DSL takes int(extent): a Scalar variable is Python's TypeError */
		if (ext && ext->kind == EX_VAR && tr_type(ext) && tr_type(ext)->kind == TY_SCALAR)
			return tr_error(rc, "int() argument must be a string, a bytes-like object or a real number, not 'Scalar'");
		if (!ext || ext->kind != EX_INT)
			return tr_error(rc, "array.create extent must be a compile-time ConstInt");
		if (ext->ival <= 0)
			return tr_error(rc, "array.create extent must be positive, got %lld", (long long)ext->ival);
		Type *t = ir_type_new(c->a, TY_ARRAY);
		t->dtype = (DType)dt;
		t->shape = arena_alloc(c->a, sizeof *t->shape);
		t->shape[0] = ext;
		t->ndim = 1;
		return t;
	}
	bool upd = !strcmp(f, "array-update");
	const char *op = upd ? "array.update_element" : "array.get_element";
	if (unknown(rc, 0))
		return NULL;
	Type *at = of_kind(rc, 0, TY_ARRAY);
	if (!at)
		return tr_error(rc, "%s first argument must be ArrayType, got %s", op, type_name(tr_arg(rc, 0)));
	Expr *ix = tr_arg(rc, 1);
	Type *it = ix->kind == EX_INT ? ir_scalar_type(c->a, (DType)ix->dtype) : tr_type(ix);
	if (it && it->kind != TY_SCALAR)
		return tr_error(rc, "%s index must be ScalarType, got %s", op, type_name(ix));
	if (it && !int_scalar(it))
		return tr_error(rc, "%s index must have integer dtype, got %s", op, tr_dtype_str(it->dtype));
	if (!upd)
		return ir_scalar_type(c->a, at->dtype);
	Expr *v = tr_arg(rc, 2);
	Type *vt = v->kind == EX_INT || v->kind == EX_BOOL ? ir_scalar_type(c->a, v->kind == EX_BOOL ? DT_BOOL : (DType)v->dtype)
							   : tr_type(v);
	if (vt && vt->kind != TY_SCALAR)
		return tr_error(rc, "array.update_element value must be ScalarType, got %s", type_name(v));
	if (vt && !(vt->dtype == at->dtype || (vt->dtype == DT_INDEX && ir_dtype_is_int(at->dtype)) ||
		    (at->dtype == DT_INDEX && ir_dtype_is_int(vt->dtype))))
		return tr_error(rc, "array.update_element value dtype (%s) must match array dtype (%s)", tr_dtype_str(vt->dtype),
				tr_dtype_str(at->dtype));
	return at;
}

/* system.sync_set / sync_wait: one event id (static kwarg or dynamic INDEX
 * operand), a pipe, ffts_mode in [0, 2], core_type 'aic' or 'aiv' */
static Type *cross_core_sync(RuleCtx *rc)
{
	const char *op = rc->op->name;
	Expr *ev = tr_arg(rc, 0), *st = tr_kwarg(rc, "event_id"), *ct = tr_kwarg(rc, "core_type"), *fm = tr_kwarg(rc, "ffts_mode");
	int64_t v;
	/* a static event id is the attribute (bound by keyword), a dynamic one the operand */
	if (st && const_int(st, &v) && (v < 0 || v > 13))
		return tr_error(rc, "%s event_id must be in the user-available range [0, 13], got %lld", op, (long long)v);
	if (fm && const_int(fm, &v) && (v < 0 || v > 2))
		return tr_error(rc, "%s ffts_mode must be in [0, 2], got %lld", op, (long long)v);
	if (ct && ct->kind == EX_STR && strcmp(ct->str, "aic") && strcmp(ct->str, "aiv"))
		return tr_error(rc, "%s core_type must be 'aic' or 'aiv', got '%s'", op, ct->str);
	if (st)
		return NULL;
	if (!ev)
		return tr_error(rc, "%s requires exactly one static event_id attribute or dynamic event-id operand", op);
	Type *et = ev->kind == EX_INT ? ir_scalar_type(rc->c->a, (DType)ev->dtype) : tr_type(ev);
	if (et && !(et->kind == TY_SCALAR && et->dtype == DT_INDEX))
		return tr_error(rc, "%s dynamic event id must have ScalarType(INDEX), got %s", op, type_name(ev));
	return NULL;
}

/* prefetch.async_prefetch's src: a variable of a GM tensor with a static,
 * logically 1-D shape ([N] or [1, ..., N]) */
static bool prefetch_source(RuleCtx *rc)
{
	const char *op = "prefetch.async_prefetch";
	Expr *src = tr_arg(rc, 0);
	if (!src || src->kind != EX_VAR)
		return !tr_error(rc, "%s expects src to be a Var or IterArg", op);
	Type *t = tr_type(src);
	if (!t)
		return true;
	if (t->kind != TY_TENSOR && t->kind != TY_DIST_TENSOR)
		return !tr_error(rc, "%s expects src to be a GM Tensor (prefetch reads global memory), got %s", op, type_name(src));
	if (t->ndim == 0)
		return !tr_error(rc, "%s expects src to have rank >= 1, got a rank-0 tensor", op);
	int64_t d;
	for (int i = 0; i < t->ndim; i++)
		if (!const_int(t->shape[i], &d))
			return !tr_error(rc, "%s expects src to have a fully static shape, but dimension %d is dynamic; async prefetch needs a compile-time byte extent",
					 op, i);
	for (int i = 0; i + 1 < t->ndim; i++)
		if (const_int(t->shape[i], &d) && d != 1)
			return !tr_error(rc, "%s expects src to be a flat contiguous logical 1D GM region (all dimensions except the last must be 1), but dimension %d is %lld; reshape the tensor to [N] or [1, ..., N] before prefetching",
					 op, i, (long long)d);
	return true;
}

static Type *prefetch_handle(RuleCtx *rc, const char *result, int arg, const char *want, const char *role, const char *producer)
{
	Type *t = arg >= 0 && !unknown(rc, arg) ? tr_type(tr_arg(rc, arg)) : NULL;
	if (t && !is_named(t, want)) /* the class name: AsyncSessionType */
		return tr_error(rc, "%s expects %s (output of %s), got %s%s", rc->op->name, role, producer, tr_type_name(t),
				t->kind == TY_NAMED ? "Type" : "");
	if (!result)
		return ir_scalar_type(rc->c->a, DT_BOOL);
	return named(rc, result);
}

static Type *system_fn(RuleCtx *rc)
{
	const char *f = tr_opt(rc->r, "form");
	if (!f)
		return NULL;
	if (!strcmp(f, "comm-ctx")) return comm_ctx(rc);
	if (!strcmp(f, "comm-scalar")) return comm_scalar(rc);
	if (!strcmp(f, "ptr")) return alloc_window(rc);
	if (!strcmp(f, "window")) return window(rc);
	if (!strcmp(f, "tpop")) return tpop(rc);
	if (!strcmp(f, "remote-load")) return remote_load(rc);
	if (!strcmp(f, "collective")) return collective(rc);
	if (!strcmp(f, "set-ffts")) return set_ffts(rc);
	if (!strcmp(f, "cacheinvalid")) return cacheinvalid(rc);
	if (!strcmp(f, "syncall")) return syncall(rc);
	if (!strcmp(f, "signal")) return signal_op(rc);
	if (!strcmp(f, "remote-store")) return remote_store(rc);
	if (!strcmp(f, "transfer")) return transfer(rc);
	if (!strcmp(f, "split-reshape")) return split_reshape(rc);
	if (!strcmp(f, "cross-core-sync")) return cross_core_sync(rc);
	if (!strncmp(f, "array-", 6)) return array_op(rc, f);
	if (!strcmp(f, "prefetch-context")) return named(rc, "pl.PrefetchAsyncContext");
	if (!strcmp(f, "prefetch-event")) {
		if (!prefetch_source(rc))
			return NULL;
		return prefetch_handle(rc, "pl.AsyncEvent", 1, "pl.PrefetchAsyncContext", "ctx to be a PrefetchAsyncContext", "prefetch.make_context");
	}
	if (!strcmp(f, "prefetch-session"))
		return prefetch_handle(rc, "pl.AsyncSession", 0, "pl.PrefetchAsyncContext", "ctx to be a PrefetchAsyncContext", "prefetch.make_context");
	if (!strcmp(f, "prefetch-wait")) {
		if (!prefetch_handle(rc, "pl.AsyncEvent", 0, "pl.AsyncEvent", "event to be an AsyncEvent", "prefetch.async_prefetch"))
			return NULL;
		return prefetch_handle(rc, NULL, 1, "pl.AsyncSession", "session to be an AsyncSession", "prefetch.session");
	}
	return NULL;
}

static const char *const system_opts[] = { "form", "op", "mem", "halve", NULL };

const RuleKind typerule_system[] = {
	{ "system", system_fn, "", system_opts, false },
	{ "system-stmt", system_fn, "", system_opts, true },
	{ NULL, NULL, NULL, NULL, false },
};
