/* sugar.c - DSL op calls -> canonical op calls, driven by the op registry.
 *
 * One path serves hand-written and canonical text: dispatch (pl.add ->
 * tensor.adds by argument kinds), then binding of positional and keyword
 * arguments to the op's declared parameters (Python rules), defaults,
 * literal coercion (an int literal in a tensor scalar op takes the tensor's
 * element dtype, as the reference's _normalize_scalar_operand does), and
 * the result type from the entry's rule.  Canonical text is a fixpoint:
 * every argument is already present and in order, so it prints unchanged.
 */
#include "ptoopt/sugar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/types.h"

/* ------------------------------------------------------------ per-op facts */

/* How the calls of an op written one way bind to its slots: where each
 * value comes from, which slots need work (in slot order: a default may
 * name an earlier slot's final value), and which print whatever the
 * values.  It depends only on the number of positional arguments and the
 * keyword names in order, which almost every call shares with many others
 * of its op, so it is worked out once per way of calling (call_plan) and a
 * call only does the work its values need. */
typedef struct PlanStep {
	int slot, kind;          /* STEP_* */
} PlanStep;
enum {
	STEP_CHECK,              /* a bound value: map, coerce and check it */
	STEP_KIND,               /* a bound value whose kind is all there is to check */
	STEP_DEFAULT,            /* an unbound slot with a default: fill it in */
	STEP_MISSING,            /* a required slot nothing binds: the error */
};

typedef struct CallPlan {
	struct CallPlan *next;   /* the op's other plans */
	int nargs, nkw;          /* the key: positional count, ... */
	const char **kw;         /* ... and keyword names (interned), in the call's order */
	int *kwslot;             /* the slot of each keyword */
	int *unbound, nunbound;  /* the slots no argument binds */
	PlanStep *step; int nsteps;
	int last;                /* the last positional slot that prints whatever the
				  * values (bound and not omitted when default), -1 */
	int *kwout, nkwout;      /* the kwarg slots that may print, in order */
	unsigned char *prints;   /* per slot: PRINT_* */
} CallPlan;

/* When the value of a slot prints. */
enum { PRINT_NEVER, PRINT_ALWAYS, PRINT_UNLESS_DEFAULT };

/* Plans kept per op: more ways of calling one op than this (only crafted
 * input has them) are planned per call rather than searched. */
#define PLANS_PER_OP 8

/* What a call of one spelling needs that does not depend on its arguments,
 * worked out on the first such call of the program instead of on every one:
 * the registry entries, the parameter names interned in the program's arena
 * (keyword arguments are names the lexer interned there, so binding them
 * compares pointers, and the lowered call's keywords need no interning) and
 * the message prefix.  Allocated with malloc, not in the arena: the parser
 * rolls the arena back over a duplicate annotation, which may hold a call. */
typedef struct OpInfo {
	const char *name;        /* program-interned */
	const SugarDef *sugar;   /* a DSL spelling (pl.add): its dispatch cases */
	struct OpInfo **cases;   /* each case's canonical op, on first dispatch to it */
	const OpDef *op;         /* the canonical op of this name, NULL when unknown */
	const char *prefix;      /* "pl." ("" for pld.* ops) in messages */
	int n;                   /* op's parameters then kwargs: */
	const OpsParam **param;
	const char **pname;      /* their names and ... */
	const char ***alias;     /* ... aliases, program-interned */
	int clamp;               /* slot of the kwarg `clamp`, -1 */
	CallPlan *plans;         /* the ways this op was called so far */
	int nplans;
} OpInfo;

void sugar_init(SugarCtx *c, Arena *a, Diag *d, OpRegistry *reg)
{
	memset(c, 0, sizeof *c);
	c->a = a;
	c->d = d;
	c->reg = reg;
}

void sugar_release(SugarCtx *c)
{
	for (size_t i = 0; i < c->infos.cap; i++) {
		if (!c->infos.keys[i])
			continue;
		OpInfo *inf = c->infos.vals[i];
		for (CallPlan *pl = inf->plans, *next; pl; pl = next) {
			next = pl->next;
			free(pl);
		}
		free(inf);
	}
	pmap_release(&c->infos);
	pmap_release(&c->symbols);
}

/* The first call of a spelling: its OpInfo made (out of line, so that the
 * lookup every call makes stays small). */
static __attribute__((noinline)) OpInfo *op_info_new(SugarCtx *c, const char *name)
{
	OpInfo *inf;
	const SugarDef *s = ops_find_sugar(c->reg, name);
	const OpDef *op = ops_find(c->reg, name);
	int ncases = s ? s->ncases : 0, np = op ? op->nparams : 0, n = op ? np + op->nkwargs : 0, nalias = 0;
	for (int i = 0; i < n; i++)
		nalias += (i < np ? &op->params[i] : &op->kwargs[i - np])->nalias;
	/* one block: the struct, then arrays of pointers */
	size_t words = (size_t)ncases + 3 * (size_t)n + (size_t)nalias;
	inf = xmalloc(sizeof *inf + words * sizeof(void *));
	memset(inf, 0, sizeof *inf + words * sizeof(void *));
	void **w = (void **)(inf + 1);
	inf->name = name;
	inf->sugar = s;
	inf->cases = (OpInfo **)w;
	w += ncases;
	inf->op = op;
	inf->prefix = strncmp(name, "pld.", 4) ? "pl." : "";
	inf->n = n;
	inf->param = (const OpsParam **)w;
	inf->pname = (const char **)(w + n);
	inf->alias = (const char ***)(w + 2 * n);
	const char **al = (const char **)(w + 3 * n);
	inf->clamp = -1;
	for (int i = 0; i < n; i++) {
		const OpsParam *p = i < np ? &op->params[i] : &op->kwargs[i - np];
		inf->param[i] = p;
		inf->pname[i] = intern_cstr(c->a, p->name);
		inf->alias[i] = al;
		for (int a = 0; a < p->nalias; a++)
			*al++ = intern_cstr(c->a, p->alias[a]);
		if (i >= np && !strcmp(p->name, "clamp"))
			inf->clamp = i;
	}
	pmap_put(&c->infos, name, inf);
	return inf;
}

/* The OpInfo of a spelling not among the recent ones. */
static __attribute__((noinline)) OpInfo *op_info_miss(SugarCtx *c, const char *name, size_t j)
{
	OpInfo *inf = pmap_get(&c->infos, name);
	if (!inf)
		inf = op_info_new(c, name);
	c->recent[j].name = name;
	c->recent[j].info = inf;
	return inf;
}

static inline OpInfo *op_info(SugarCtx *c, const char *name)
{
	size_t j = ((uintptr_t)name >> 3) & (sizeof c->recent / sizeof c->recent[0] - 1);
	if (c->recent[j].name == name)
		return c->recent[j].info;
	return op_info_miss(c, name, j);
}

const OpDef *sugar_op(SugarCtx *c, const char *name)
{
	return op_info(c, name)->op;
}

/* What an interned symbol names, looked up once per spelling: pl.FP32 a
 * data type, pl.Mem.Vec a memory space (-1 when not one). */
static void symbol_meaning(SugarCtx *c, const char *s, int *dtype, int *mem)
{
	size_t j = ((uintptr_t)s >> 3) & (sizeof c->recent_symbols / sizeof c->recent_symbols[0] - 1);
	uintptr_t v;
	if (c->recent_symbols[j].name == s) {
		v = c->recent_symbols[j].meaning;
	} else {
		v = (uintptr_t)pmap_get(&c->symbols, s);
		if (!v) {
			int dt = strncmp(s, "pl.", 3) ? -1 : ir_dtype_parse(s + 3);
			int ms = strncmp(s, "pl.Mem.", 7) ? -1 : ir_mem_parse(s + 7);
			v = (uintptr_t)(dt + 1) | (uintptr_t)(ms + 1) << 8 | (uintptr_t)1 << 16;
			pmap_put(&c->symbols, s, (void *)v);
		}
		c->recent_symbols[j].name = s;
		c->recent_symbols[j].meaning = v;
	}
	if (dtype)
		*dtype = (int)(v & 0xff) - 1;
	if (mem)
		*mem = (int)(v >> 8 & 0xff) - 1;
}

/* ------------------------------------------------------------ kinds */

static OpsKind kind_of(Expr *e)
{
	if (e->kind == EX_TUPLE)
		return OPK_LIST;
	if (e->kind == EX_SYMBOL)
		return OPK_DTYPE;
	Type *t = ir_expr_type(e);
	if (!t)
		return OPK_ANY;
	switch (t->kind) {
	case TY_TENSOR: case TY_DIST_TENSOR: return OPK_TENSOR;
	case TY_TILE: return OPK_TILE;
	case TY_SCALAR: return OPK_SCALAR;
	default: return OPK_ANY;
	}
}

static const char *kind_name(OpsKind k)
{
	static const char *const n[] = { "a value", "a Tensor", "a Tile", "a scalar", "a list", "a dtype" };
	return n[k];
}

static void describe(Expr *e, char *buf, size_t n)
{
	Type *t = ir_expr_type(e);
	if (e->kind == EX_TUPLE)
		snprintf(buf, n, "a list");
	else if (e->kind == EX_SYMBOL)
		snprintf(buf, n, "%s", e->str);
	else if (t && t->kind != TY_UNKNOWN)
		type_to_string(t, buf, n);
	else
		snprintf(buf, n, "a value of unknown type");
}

static bool kind_matches(OpsKind want, Expr *e)
{
	if (want == OPK_ANY)
		return true;
	if (want == OPK_DTYPE)
		return e->kind == EX_SYMBOL && ir_dtype_parse(e->str + 3) >= 0 && !strncmp(e->str, "pl.", 3);
	return kind_of(e) == want;
}

/* May v be passed where a parameter of kind k is expected?  Values of
 * unknown type (results of unregistered ops) are let through. */
static inline bool arg_ok(OpsKind k, Expr *v)
{
	switch (k) {
	case OPK_ANY: return true;
	case OPK_DTYPE: return kind_matches(OPK_DTYPE, v);
	case OPK_LIST: return v->kind == EX_TUPLE; /* what kind_of calls a list */
	default: break;
	}
	OpsKind vk = kind_of(v);
	if (k == OPK_SCALAR)
		return vk == OPK_SCALAR || vk == OPK_ANY || v->kind == EX_INT || v->kind == EX_FLOAT || v->kind == EX_BOOL;
	return vk == k || vk == OPK_ANY;
}

/* ------------------------------------------------------------ values */

static Expr *leaf(SugarCtx *c, ExprKind k, SrcPos pos)
{
	return ir_expr_new(c->a, k, pos);
}

static Expr *empty_list(SugarCtx *c, SrcPos pos)
{
	return leaf(c, EX_TUPLE, pos);
}

static Expr *int_const(SugarCtx *c, int64_t v, DType dt, SrcPos pos)
{
	Expr *e = leaf(c, dt == DT_BOOL ? EX_BOOL : EX_INT, pos);
	e->ival = v;
	e->dtype = (uint8_t)dt;
	e->type = ir_scalar_type(c->a, dt);
	return e;
}

static Expr *float_const(SugarCtx *c, double v, DType dt, SrcPos pos)
{
	Expr *e = leaf(c, EX_FLOAT, pos);
	e->fval = v;
	e->dtype = (uint8_t)dt;
	e->type = ir_scalar_type(c->a, dt);
	return e;
}

static Expr *const_expr(SugarCtx *c, const OpsConst *k, Expr **slots, SrcPos pos)
{
	Expr *e;
	switch (k->kind) {
	case OC_INT: return int_const(c, k->i, DT_INDEX, pos);
	case OC_FLOAT: return float_const(c, k->f, DT_FP32, pos);
	case OC_BOOL: return int_const(c, k->i, DT_BOOL, pos);
	case OC_EMPTY_LIST: return empty_list(c, pos);
	case OC_REF: return slots[k->i];
	case OC_SYMBOL: case OC_STR:
		e = leaf(c, k->kind == OC_SYMBOL ? EX_SYMBOL : EX_STR, pos);
		e->str = intern_cstr(c->a, k->s);
		return e;
	default: return NULL;
	}
}

static bool equals_const(const Expr *e, const OpsConst *k, Expr **slots)
{
	switch (k->kind) {
	case OC_INT: return e->kind == EX_INT && e->ival == k->i;
	case OC_FLOAT: return e->kind == EX_FLOAT && e->fval == k->f;
	case OC_BOOL: return e->kind == EX_BOOL && e->ival == k->i;
	case OC_EMPTY_LIST: return e->kind == EX_TUPLE && e->nargs == 0;
	case OC_SYMBOL: return e->kind == EX_SYMBOL && !strcmp(e->str, k->s);
	case OC_STR: return e->kind == EX_STR && !strcmp(e->str, k->s);
	case OC_REF: return expr_equal(e, slots[k->i]);
	default: return false;
	}
}

static inline int elem_dtype(Expr *e)
{
	Type *t = e ? ir_expr_type(e) : NULL;
	if (!t || (t->kind != TY_TENSOR && t->kind != TY_TILE && t->kind != TY_SCALAR && t->kind != TY_DIST_TENSOR &&
		   t->kind != TY_ARRAY))
		return -1;
	return t->dtype;
}

/* PromoteDataTypes: float beats int, wider bits win, equal bits prefer
 * signed, else the left operand. */
static DType promote(DType a, DType b)
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

/* ------------------------------------------------------------ result types */

static int dtype_symbol(SugarCtx *c, const Expr *e)
{
	int dt = -1;
	if (e && e->kind == EX_SYMBOL)
		symbol_meaning(c, e->str, &dt, NULL);
	return dt;
}

/* The memory space a pl.Mem.X symbol names, -1 for anything else. */
static int mem_symbol(SugarCtx *c, const Expr *e)
{
	int ms = -1;
	if (e && e->kind == EX_SYMBOL)
		symbol_meaning(c, e->str, NULL, &ms);
	return ms;
}

static Expr *kwarg_value(const OpDef *op, Expr **slots, const char *kw)
{
	for (int i = 0; i < op->nkwargs; i++)
		if (op->kwargs[i].name == kw)
			return slots[op->nparams + i];
	return NULL;
}

static Type *copy_type(SugarCtx *c, const Type *t)
{
	Type *n = ir_type_new(c->a, t->kind);
	*n = *t;
	return n;
}

static __attribute__((noinline)) Type *fresh_copy(SugarCtx *c, const Type *t)
{
	Type *n = copy_type(c, t);
	if (n->kind == TY_TENSOR)
		n->view = NULL, n->memref = NULL;
	else
		n->mem = MS_VEC;
	return n;
}

/* t as the result of a computation: a tensor loses its view and memref
 * (the op writes a new dense tensor); a tile lands in Vec unless placed.
 * (Inline: mostly t is that already.) */
static inline Type *fresh(SugarCtx *c, const Type *t)
{
	if (t->kind != TY_TENSOR && t->kind != TY_TILE)
		return (Type *)t;
	if (t->kind == TY_TENSOR ? !t->view && !t->memref : t->mem != MS_NONE)
		return (Type *)t;
	return fresh_copy(c, t);
}

/* t with element dtype dt and dims shape[0..ndim): t itself when nothing
 * differs (types are immutable, so like-arg above, a result equal to an
 * operand's type shares it), else a copy. */
static __attribute__((noinline)) Type *reshaped_copy(SugarCtx *c, const Type *t, DType dt, Expr **shape, int ndim)
{
	Type *n = copy_type(c, t);
	n->dtype = dt;
	n->shape = shape;
	n->ndim = ndim;
	return n;
}

static inline Type *reshaped_as(SugarCtx *c, const Type *t, DType dt, Expr **shape, int ndim)
{
	if (t->dtype == dt && t->shape == shape && t->ndim == ndim)
		return (Type *)t;
	return reshaped_copy(c, t, dt, shape, ndim);
}

static bool same_dims(const Expr *a, Expr **dims, int n)
{
	if (a->nargs != n)
		return false;
	for (int i = 0; i < n; i++)
		if (!expr_equal(a->args[i], dims[i]))
			return false;
	return true;
}

static ViewSpec *view_of(SugarCtx *c, const char **names, Expr **vals, int n)
{
	ViewSpec *vs = arena_alloc(c->a, sizeof *vs);
	vs->kw = arena_alloc(c->a, (size_t)(n + 1) * sizeof *vs->kw);
	for (int i = 0; i < n; i++)
		vs->kw[i] = (Kwarg){ intern_cstr(c->a, names[i]), vals[i] };
	vs->nkw = n;
	return vs;
}

static Expr *symbol(SugarCtx *c, const char *s)
{
	Expr *e = leaf(c, EX_SYMBOL, (SrcPos){ 0, 0 });
	e->str = intern_cstr(c->a, s);
	return e;
}

/* pl.TensorView(valid_shape=V?, stride=[], layout=L, pad=P?) */
static ViewSpec *tensor_view(SugarCtx *c, Expr *valid, const char *layout, Expr *pad)
{
	const char *names[4];
	Expr *vals[4];
	int n = 0;
	if (valid) {
		names[n] = "valid_shape";
		vals[n++] = valid;
	}
	names[n] = "stride";
	vals[n++] = empty_list(c, (SrcPos){ 0, 0 });
	names[n] = "layout";
	vals[n++] = symbol(c, layout);
	if (pad) {
		names[n] = "pad";
		vals[n++] = pad;
	}
	return view_of(c, names, vals, n);
}

static Type *infer(SugarCtx *c, const OpInfo *inf, const OpsResult *r, Expr **slots);

/* The block and scatter layouts of tile type t: its view's, else the
 * implicit ones of its shape and memory space (Mat: col_major / row_major;
 * otherwise row_major, or col_major for an [N, 1] tile, / none_box). */
static void tile_layouts(const Type *t, const char *out[2])
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

/* ---------------------------------------------- window reads (tile.load) */

/* The valid_shape list of a tensor type's view, or NULL. */
static Expr *view_valid_shape(const Type *t)
{
	if (!t || !t->view)
		return NULL;
	for (int i = 0; i < t->view->nkw; i++)
		if (!strcmp(t->view->kw[i].name, "valid_shape") && t->view->kw[i].value->kind == EX_TUPLE)
			return t->view->kw[i].value;
	return NULL;
}

/* a <= b, provably: equal, constants compared, or through min / max. */
static bool extent_le(const Expr *a, const Expr *b)
{
	if (expr_equal(a, b))
		return true;
	if (a->kind == EX_INT && b->kind == EX_INT)
		return a->ival <= b->ival;
	if (a->kind == EX_BINARY && a->op == OP_MIN && (extent_le(a->lhs, b) || extent_le(a->rhs, b)))
		return true;
	if (b->kind == EX_BINARY && b->op == OP_MAX && (extent_le(a, b->lhs) || extent_le(a, b->rhs)))
		return true;
	return false;
}

/* min(a, b), settled when one side is provably the smaller. */
static Expr *extent_min(SugarCtx *c, Expr *a, Expr *b)
{
	if (extent_le(a, b))
		return a;
	if (extent_le(b, a))
		return b;
	return type_make_binary(c->a, OP_MIN, a, b, a->pos, c->d);
}

/* The valid extent of each dimension of a window `window` read at `offs`
 * from tensor type src, given the requested extent `req`: the part of src's
 * valid region under the window (all of the window where src is wholly
 * valid and the read does not clamp), narrowed from the request only when
 * provably smaller.  NULL when src has no valid region of its own or the
 * ranks differ (a reinterpreting read keeps its request). */
static Expr *window_read_valid(SugarCtx *c, const Type *src, Expr *offs, Expr *window, Expr *req, bool clamp)
{
	Expr *sv = view_valid_shape(src);
	if ((!sv && !clamp) || offs->kind != EX_TUPLE || window->kind != EX_TUPLE || req->kind != EX_TUPLE ||
	    window->nargs != src->ndim || offs->nargs != src->ndim || req->nargs != src->ndim || (sv && sv->nargs != src->ndim))
		return NULL;
	Expr *out = leaf(c, EX_TUPLE, req->pos);
	out->nargs = req->nargs;
	out->args = arena_alloc(c->a, (size_t)(out->nargs + 1) * sizeof *out->args);
	for (int i = 0; i < src->ndim; i++) {
		Expr *valid = sv ? sv->args[i] : src->shape[i], *off = offs->args[i], *win = window->args[i];
		Expr *avail = win;
		if (clamp || !expr_equal(valid, src->shape[i])) {
			Expr *rest = valid;
			if (!(off->kind == EX_INT && off->ival == 0)) {
				if (valid->kind == EX_INT && off->kind == EX_INT)
					rest = int_const(c, valid->ival > off->ival ? valid->ival - off->ival : 0, DT_INDEX, off->pos);
				else if (!(rest = type_make_binary(c->a, OP_MAX, valid, off, off->pos, c->d)) ||
					 !(rest = type_make_binary(c->a, OP_SUB, rest, off, off->pos, c->d)))
					return NULL;
			}
			if (!(avail = extent_min(c, rest, win)))
				return NULL;
		}
		Expr *want = req->args[i];
		out->args[i] = !expr_equal(avail, win) && extent_le(avail, want) ? avail : want;
	}
	return out;
}

static Type *shaped(SugarCtx *c, TypeKind k, Expr *shape, DType dt)
{
	Type *t = ir_type_new(c->a, k);
	t->dtype = dt;
	t->shape = shape->args;
	t->ndim = shape->nargs;
	return t;
}

static Type *infer(SugarCtx *c, const OpInfo *inf, const OpsResult *r, Expr **slots)
{
	const OpDef *op = inf->op;
	Expr *a0 = r->arg >= 0 ? slots[r->arg] : NULL;
	Type *t0 = a0 ? ir_expr_type(a0) : NULL;
	if (t0 && t0->kind == TY_UNKNOWN)
		t0 = NULL;
	if (r->when_kw) {
		Expr *w = kwarg_value(op, slots, r->when_kw);
		if (!w || w->kind != EX_INT || w->ival != r->when_equals)
			return NULL;
	}
	Expr *shape = r->shape >= 0 ? slots[r->shape] : NULL;
	if (r->shape_of >= 0) {
		Type *st = ir_expr_type(slots[r->shape_of]);
		if (!st || (st->kind != TY_TENSOR && st->kind != TY_TILE && st->kind != TY_DIST_TENSOR))
			return NULL;
		shape = leaf(c, EX_TUPLE, slots[r->shape_of]->pos);
		shape->args = st->shape;
		shape->nargs = st->ndim;
	}
	if (shape && shape->kind != EX_TUPLE && r->rule != RULE_ARRAY)
		return NULL;
	switch (r->rule) {
	case RULE_UNKNOWN: case RULE_NONE:
		return NULL;
	case RULE_SAME_AS_ARG:
		return t0;
	case RULE_LIKE_ARG:
		return t0 ? fresh(c, t0) : NULL;
	case RULE_ELEMENTWISE: case RULE_SCALAR_OP: {
		Type *t1 = ir_expr_type(slots[r->arg2]);
		if (!t0 || !t1 || (t0->kind != TY_TENSOR && t0->kind != TY_TILE))
			return NULL;
		const Type *f = fresh(c, t0);
		if (r->rule == RULE_SCALAR_OP) {
			DType dt = r->promote && t1->kind == TY_SCALAR ? promote(t0->dtype, t1->dtype) : f->dtype;
			return reshaped_as(c, f, dt, f->shape, f->ndim);
		}
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
		/* (equal dims arrays have nothing to broadcast: annotations of
		 * the same shape share theirs) */
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
		return reshaped_as(c, f, promote(t0->dtype, t1->dtype), shape1, ndim);
	}
	case RULE_TENSOR_FROM_SHAPE: case RULE_TILE_FROM_SHAPE: {
		int dt = r->dtype_kw ? dtype_symbol(c, kwarg_value(op, slots, r->dtype_kw))
			 : r->dtype_arg >= 0 ? dtype_symbol(c, slots[r->dtype_arg])
			 : elem_dtype(slots[r->dtype_of]);
		if (dt < 0)
			return NULL;
		Type *t = shaped(c, r->rule == RULE_TILE_FROM_SHAPE ? TY_TILE : TY_TENSOR, shape, (DType)dt);
		if (r->rule == RULE_TENSOR_FROM_SHAPE) {
			Expr *l = r->layout_kw ? kwarg_value(op, slots, r->layout_kw) : NULL;
			if (l && l->kind == EX_SYMBOL && strcmp(l->str, "pl.TensorLayout.ND") != 0)
				t->view = tensor_view(c, NULL, l->str, NULL);
			return t;
		}
		t->mem = MS_VEC;
		if (r->mem_kw) {
			Expr *m = kwarg_value(op, slots, r->mem_kw);
			int ms = !m ? MS_VEC /* an absent target_memory is Vec */ : mem_symbol(c, m);
			if (ms < 0)
				return NULL;
			t->mem = (MemSpace)ms;
		} else if (r->mem >= 0) {
			t->mem = (MemSpace)r->mem;
		}
		Expr *valid = r->valid_shape >= 0 ? slots[r->valid_shape] : NULL;
		if (valid && r->window_source >= 0) {
			Type *st = ir_expr_type(slots[r->window_source]);
			Expr *ck = inf->clamp >= 0 ? slots[inf->clamp] : NULL;
			bool clamp = ck && ck->kind == EX_BOOL && ck->ival;
			Expr *w = st && (st->kind == TY_TENSOR || st->kind == TY_DIST_TENSOR)
				  ? window_read_valid(c, st, slots[r->window_offsets], shape, valid, clamp) : NULL;
			if (w)
				valid = w;
		}
		if (valid && valid->kind == EX_TUPLE && valid->nargs && !same_dims(valid, t->shape, t->ndim)) {
			const char *n = "valid_shape";
			t->view = view_of(c, &n, &valid, 1);
		} else if (r->column_blayout && t->ndim == 2 && ir_is_int_const(t->shape[1], 1, DT_INDEX)) {
			const char *n = "blayout";
			char buf[96];
			snprintf(buf, sizeof buf, "pl.TileLayout.%s", r->column_blayout);
			Expr *v = symbol(c, buf);
			t->view = view_of(c, &n, &v, 1);
		}
		return t;
	}
	case RULE_RESHAPED: {
		if (!t0 || (t0->kind != TY_TENSOR && t0->kind != TY_TILE && t0->kind != TY_DIST_TENSOR))
			return NULL;
		Type *t = shaped(c, t0->kind, shape, t0->dtype);
		Expr *valid = r->valid_shape >= 0 ? slots[r->valid_shape] : NULL;
		if (valid && (valid->kind != EX_TUPLE || !valid->nargs || same_dims(valid, t->shape, t->ndim)))
			valid = NULL;
		if (t->kind == TY_TILE) {
			t->mem = t0->mem == MS_NONE ? MS_VEC : t0->mem;
			if (valid) {
				const char *n = "valid_shape";
				t->view = view_of(c, &n, &valid, 1);
			}
			return t;
		}
		Expr *pad = r->pad_kw ? kwarg_value(op, slots, r->pad_kw) : NULL;
		if (valid || pad)
			t->view = tensor_view(c, valid, "pl.TensorLayout.ND", pad);
		return t;
	}
	case RULE_REDUCE_LAST: {
		if (!t0 || (t0->kind != TY_TENSOR && t0->kind != TY_TILE) || t0->ndim == 0)
			return NULL;
		Type *t = copy_type(c, t0);
		t->view = NULL;
		t->memref = NULL;
		t->shape = arena_alloc(c->a, (size_t)(t0->ndim + 1) * sizeof *t->shape);
		if (t0->ndim)
			memcpy(t->shape, t0->shape, (size_t)t0->ndim * sizeof *t->shape);
		t->shape[t->ndim - 1] = int_const(c, 1, DT_INDEX, (SrcPos){ 0, 0 });
		return t;
	}
	case RULE_RETYPE: {
		int dt = dtype_symbol(c, kwarg_value(op, slots, r->dtype_kw));
		if (!t0 || dt < 0)
			return NULL;
		const Type *f = fresh(c, t0);
		return reshaped_as(c, f, (DType)dt, f->shape, f->ndim);
	}
	case RULE_SCALAR: {
		int dt = r->dtype >= 0 ? r->dtype : elem_dtype(slots[r->dtype_of]);
		return dt < 0 ? NULL : ir_scalar_type(c->a, (DType)dt);
	}
	case RULE_ARRAY: {
		/* pl.Array[LENGTH, DTYPE]: the length must be an integer literal */
		Expr *len = slots[r->shape];
		int dt = r->dtype_kw ? dtype_symbol(c, kwarg_value(op, slots, r->dtype_kw)) : dtype_symbol(c, slots[r->dtype_arg]);
		if (!len || len->kind != EX_INT || dt < 0)
			return NULL;
		Type *t = ir_type_new(c->a, TY_ARRAY);
		t->dtype = (DType)dt;
		t->shape = arena_alloc(c->a, sizeof *t->shape);
		t->shape[0] = len;
		t->ndim = 1;
		return t;
	}
	case RULE_MOVED: {
		/* arg N in memory space KW.  Vec and Mat keep the source's block /
		 * scatter layouts, written out where they differ from the target's
		 * implicit ones; other spaces have fixed layouts (no view) */
		Expr *m = kwarg_value(op, slots, r->mem_kw);
		int ms = mem_symbol(c, m);
		if (!t0 || t0->kind != TY_TILE || ms < 0)
			return NULL;
		Type *t = copy_type(c, t0);
		t->mem = (MemSpace)ms;
		t->view = NULL;
		t->memref = NULL;
		if (ms != MS_VEC && ms != MS_MAT)
			return t;
		const char *lay[2];
		tile_layouts(t0, lay);
		Type probe = *t;
		const char *imp[2];
		tile_layouts(&probe, imp);
		const char *names[2];
		Expr *vals[2];
		int n = 0;
		static const char *const kw[2] = { "blayout", "slayout" };
		for (int i = 0; i < 2; i++)
			if (strcmp(lay[i], imp[i]) != 0) {
				char buf[64];
				snprintf(buf, sizeof buf, "pl.TileLayout.%s", lay[i]);
				names[n] = kw[i];
				vals[n++] = symbol(c, buf);
			}
		if (n)
			t->view = view_of(c, names, vals, n);
		return t;
	}
	case RULE_TUPLE: {
		Type *t = ir_type_new(c->a, TY_TUPLE);
		t->elems = arena_alloc(c->a, (size_t)(r->nelems + 1) * sizeof *t->elems);
		t->nelems = r->nelems;
		for (int i = 0; i < r->nelems; i++)
			if (!(t->elems[i] = infer(c, inf, &r->elems[i], slots)))
				return NULL;
		return t;
	}
	}
	return NULL;
}

/* ------------------------------------------------------------ lowering */

#define FAIL(...) do { diag_error(c->d, call->pos.line, call->pos.col, __VA_ARGS__); goto fail; } while (0)

/* The first case of s that the call's leading argument kinds select, or -1
 * after reporting that none does. */
static int dispatch(SugarCtx *c, Expr *call, const SugarDef *s)
{
	for (int i = 0; i < s->ncases; i++) {
		const SugarCase *sc = &s->cases[i];
		bool ok = call->nargs >= sc->nargs;
		for (int j = 0; ok && j < sc->nargs; j++)
			ok = kind_matches(sc->args[j], call->args[j]);
		if (ok)
			return i;
	}
	{
		char buf[512] = "";
		size_t n = 0;
		for (int j = 0; j < call->nargs && j < 4 && n < sizeof buf - 80; j++) {
			char t[200];
			describe(call->args[j], t, sizeof t);
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", j ? ", " : "", t);
		}
		FAIL("pl.%s: no form of this op takes (%s); expected Tensor, Tile or scalar operands of one kind "
		     "(annotate operands whose type is unknown)", s->name, buf);
	}
fail:
	return -1;
}

/* The slot of the parameter or kwarg named kn (its name or an alias), or -1. */
static int keyword_slot(const OpInfo *inf, const char *kn)
{
	for (int i = 0; i < inf->n; i++) {
		if (inf->pname[i] == kn)
			return i;
		for (int a = 0; a < inf->param[i]->nalias; a++)
			if (inf->alias[i][a] == kn)
				return i;
	}
	/* by spelling, for a name interned elsewhere */
	for (int i = 0; i < inf->n; i++) {
		if (!strcmp(inf->pname[i], kn))
			return i;
		for (int a = 0; a < inf->param[i]->nalias; a++)
			if (!strcmp(inf->alias[i][a], kn))
				return i;
	}
	return -1;
}

/* The plan of calls written like `call` (its positional count and keyword
 * names), made when new: reports an unknown or repeated keyword and
 * returns NULL then.  The caller has checked the positional count. */
static CallPlan *plan_new(SugarCtx *c, OpInfo *inf, const Expr *call)
{
	int n = inf->n, np = inf->op->nparams, nkw = call->nkw;
	/* one block: the struct, the keyword names, then the int arrays (kw
	 * slots, unbound and kwarg-out slots), the steps and the print modes */
	size_t size = sizeof(CallPlan) + (size_t)nkw * sizeof(const char *) + (size_t)(nkw + 2 * n) * sizeof(int) +
		      (size_t)n * sizeof(PlanStep) + (size_t)n;
	CallPlan *pl = xmalloc(size);
	memset(pl, 0, size);
	pl->nargs = call->nargs;
	pl->nkw = nkw;
	pl->kw = (const char **)(pl + 1);
	pl->kwslot = (int *)(pl->kw + nkw);
	pl->unbound = pl->kwslot + nkw;
	pl->kwout = pl->unbound + n;
	pl->step = (PlanStep *)(pl->kwout + n);
	pl->prints = (unsigned char *)(pl->step + n);
	bool givenbuf[16], nonnullbuf[16];
	bool *given = n <= 16 ? givenbuf : arena_alloc(c->a, (size_t)n);
	bool *nonnull = n <= 16 ? nonnullbuf : arena_alloc(c->a, (size_t)n);
	for (int i = 0; i < n; i++)
		given[i] = i < call->nargs;
	for (int k = 0; k < nkw; k++) {
		const char *kn = call->kw[k].name;
		int j = keyword_slot(inf, kn);
		if (j < 0)
			FAIL("%s%s has no parameter '%s'", inf->prefix, inf->name, kn);
		if (given[j])
			FAIL("%s%s got multiple values for argument '%s'", inf->prefix, inf->name, kn);
		given[j] = true;
		pl->kw[k] = kn;
		pl->kwslot[k] = j;
	}
	pl->last = -1;
	bool missing = false;
	for (int i = 0; i < n; i++) {
		const OpsParam *p = inf->param[i];
		int step = -1;
		if (given[i]) {
			/* a bound value needs work for a value map, literal
			 * coercion or a kind check (positional parameters only) */
			if (p->nvalues || p->coerce_elem_of >= 0 || p->coerce_dtype >= 0)
				step = STEP_CHECK;
			else if (i < np && p->kind != OPK_ANY)
				step = STEP_KIND;
		} else {
			pl->unbound[pl->nunbound++] = i;
			if (p->def.kind != OC_NONE)
				step = STEP_DEFAULT;
			else if (p->omit == OMIT_NEVER)
				step = STEP_MISSING;
		}
		if (step >= 0 && !missing)
			pl->step[pl->nsteps++] = (PlanStep){ i, step };
		missing |= step == STEP_MISSING; /* the call stops there */
		/* whether the slot has a value once defaults are filled in (a
		 * default naming an earlier parameter has that one's) */
		nonnull[i] = given[i] || (p->def.kind == OC_REF ? nonnull[p->def.i] : p->def.kind != OC_NONE);
		/* a bound value prints unless the op drops it when equal to its
		 * default; an unbound one prints when it has a value never omitted */
		pl->prints[i] = given[i] ? (p->omit == OMIT_DEFAULT ? PRINT_UNLESS_DEFAULT : PRINT_ALWAYS)
				: nonnull[i] && p->omit == OMIT_NEVER ? PRINT_ALWAYS : PRINT_NEVER;
		if (i < np && pl->prints[i] == PRINT_ALWAYS)
			pl->last = i;
		if (i >= np && pl->prints[i] != PRINT_NEVER)
			pl->kwout[pl->nkwout++] = i;
	}
	return pl;
fail:
	free(pl);
	return NULL;
}

/* The plan for `call`: one made before for the same way of calling, else
 * a new one (kept, unless the op has many already: then the caller frees
 * it after use).  NULL after reporting an error. */
static CallPlan *call_plan(SugarCtx *c, OpInfo *inf, const Expr *call, bool *temporary)
{
	*temporary = false;
	for (CallPlan *pl = inf->plans; pl; pl = pl->next) {
		if (pl->nargs != call->nargs || pl->nkw != call->nkw)
			continue;
		int k = 0;
		while (k < pl->nkw && pl->kw[k] == call->kw[k].name)
			k++;
		if (k == pl->nkw)
			return pl;
	}
	CallPlan *pl = plan_new(c, inf, call);
	if (!pl)
		return NULL;
	if (inf->nplans < PLANS_PER_OP) {
		pl->next = inf->plans;
		inf->plans = pl;
		inf->nplans++;
	} else {
		*temporary = true;
	}
	return pl;
}

/* Map, coerce and check the bound value of slot i; false after reporting
 * an error. */
static bool check_arg(SugarCtx *c, const OpInfo *inf, int i, Expr **slots, Expr *call)
{
	const char *pf = inf->prefix, *name = inf->name;
	const OpsParam *p = inf->param[i];
	Expr *v = slots[i];
	if (p->nvalues && (v->kind == EX_SYMBOL || v->kind == EX_STR)) {
		/* a string value matches a key written in quotes: "'elem'" */
		int m = -1;
		size_t vl = strlen(v->str);
		for (int k = 0; k < p->nvalues; k++) {
			const char *key = p->values[k].symbol;
			if (v->kind == EX_SYMBOL ? !strcmp(key, v->str)
						 : key[0] == '\'' && strlen(key) == vl + 2 && !strncmp(key + 1, v->str, vl) &&
							   key[vl + 1] == '\'')
				m = k;
		}
		if (m < 0)
			FAIL("%s%s: '%s' is not a valid value for '%s'", pf, name, v->str, p->name);
		slots[i] = v = int_const(c, p->values[m].value, DT_INDEX, v->pos);
	}
	/* an int literal (INDEX placeholder) takes the operand's dtype */
	if (p->coerce_elem_of >= 0 || p->coerce_dtype >= 0) {
		int dt = p->coerce_dtype >= 0 ? p->coerce_dtype : elem_dtype(slots[p->coerce_elem_of]);
		if (dt >= 0 && v->kind == EX_INT && v->dtype == DT_INDEX) {
			slots[i] = v = ir_dtype_is_float((DType)dt) ? float_const(c, (double)v->ival, (DType)dt, v->pos)
								    : int_const(c, v->ival, (DType)dt, v->pos);
		} else if (dt >= 0 && p->coerce_elem_of >= 0 && v->kind != EX_INT && elem_dtype(v) == DT_INDEX) {
			FAIL("%s%s: argument '%s' is a non-constant pl.INDEX scalar. Convert it explicitly, "
			     "e.g. pl.cast(<value>, pl.%s)", pf, name, p->name, ir_dtype_name((DType)dt));
		}
	}
	if (i < inf->op->nparams && !arg_ok(p->kind, v)) {
		char t[256];
		describe(v, t, sizeof t);
		FAIL("%s%s: argument '%s' must be %s, got %s", pf, name, p->name, kind_name(p->kind), t);
	}
	return true;
fail:
	return false;
}

/* Bind the call's arguments to the op's slots by its plan, check and
 * coerce them, rewrite the call in canonical form (positional arguments
 * through the last that prints, printed kwargs in declared order) and
 * type it. */
static Expr *lower_planned(SugarCtx *c, const OpInfo *inf, const CallPlan *plan, Expr *call)
{
	int np = inf->op->nparams, n = inf->n;
	/* a bound slot holds its (non-NULL) value, an unbound one NULL; when
	 * every slot is bound by position (most ops, written canonically), the
	 * parsed array is the slot array */
	bool in_place = n > 0 && call->nargs == n;
	Expr *slotbuf[16];
	Expr **slots = in_place ? call->args : n <= 16 ? slotbuf : arena_alloc(c->a, (size_t)n * sizeof *slots);
	if (!in_place) {
		for (int i = 0; i < call->nargs; i++)
			slots[i] = call->args[i];
		for (int k = 0; k < call->nkw; k++)
			slots[plan->kwslot[k]] = call->kw[k].value;
		for (int u = 0; u < plan->nunbound; u++)
			slots[plan->unbound[u]] = NULL;
	}
	for (int s = 0; s < plan->nsteps; s++) {
		int i = plan->step[s].slot;
		const OpsParam *p = inf->param[i];
		switch (plan->step[s].kind) {
		case STEP_KIND:
			if (arg_ok(p->kind, slots[i]))
				break;
			/* fall through - check_arg reports the error */
		case STEP_CHECK:
			if (!check_arg(c, inf, i, slots, call))
				return NULL;
			break;
		case STEP_DEFAULT:
			slots[i] = const_expr(c, &p->def, slots, call->pos);
			break;
		default:
			FAIL("%s%s: missing required argument '%s'", inf->prefix, inf->name, p->name);
		}
	}
	/* positional arguments: through the last one that prints; past the
	 * plan's, only a bound argument equal to its default may be dropped */
	int last = plan->last;
	for (int i = last + 1; i < np; i++)
		if (plan->prints[i] == PRINT_UNLESS_DEFAULT && !equals_const(slots[i], &inf->param[i]->def, slots))
			last = i;
	/* canonical text already has every argument: refill the parsed arrays
	 * (slots holds the values) instead of allocating new ones */
	Expr **args = last < call->nargs ? call->args : arena_alloc(c->a, (size_t)(last + 2) * sizeof *args);
	for (int i = 0; i <= last && args != slots; i++) {
		if (!slots[i])
			slots[i] = empty_list(c, call->pos); /* filler before a later argument */
		args[i] = slots[i];
	}
	int nk = 0;
	Kwarg *kw = plan->nkwout <= call->nkw ? call->kw : arena_alloc(c->a, (size_t)(plan->nkwout + 1) * sizeof *kw);
	for (int o = 0; o < plan->nkwout; o++) {
		int i = plan->kwout[o];
		if (plan->prints[i] == PRINT_ALWAYS || !equals_const(slots[i], &inf->param[i]->def, slots))
			kw[nk++] = (Kwarg){ inf->pname[i], slots[i] };
	}
	call->args = args;
	call->nargs = last + 1;
	call->kw = kw;
	call->nkw = nk;
	call->type = infer(c, inf, &inf->op->result, slots);
	return call;
fail:
	return NULL;
}

Expr *sugar_lower_call(SugarCtx *c, Expr *call)
{
	OpInfo *inf = op_info(c, call->str);
	if (inf->sugar) {
		const SugarDef *s = inf->sugar;
		int k = dispatch(c, call, s);
		if (k < 0)
			return NULL;
		const SugarCase *sc = &s->cases[k];
		if (!sc->op) {
			if (call->nargs != 2 || call->nkw)
				FAIL("pl.%s on scalars takes exactly two positional arguments", s->name);
			return type_make_binary(c->a, (BinOp)sc->binary, call->args[0], call->args[1], call->pos, c->d);
		}
		if (!inf->cases[k])
			inf->cases[k] = op_info(c, intern_cstr(c->a, sc->op));
		inf = inf->cases[k];
		call->str = inf->name;
	}
	if (!inf->op)
		return call; /* unknown: printed as written, untyped */
	int n = inf->n;
	if (call->nargs > n)
		FAIL("%s%s takes at most %d argument%s (%d given)", inf->prefix, inf->name, n, n == 1 ? "" : "s", call->nargs);
	bool temporary;
	CallPlan *plan = call_plan(c, inf, call, &temporary);
	if (!plan)
		return NULL;
	Expr *r = lower_planned(c, inf, plan, call);
	if (temporary)
		free(plan);
	return r;
fail:
	return NULL;
}
