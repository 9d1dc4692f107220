/* typerule.h - result-type rules: the vocabulary data/ops.yaml's `result:`
 * fields are written in.
 *
 * A rule kind is a named C function that computes an op call's result type
 * from its bound arguments (the reference's f_deduce_type of one family of
 * ops), and checks what that deduction checks.  data/ops.yaml picks a kind
 * per op and its operands (arg, args, shape, dtype, ... and `opts:` for the
 * kind's own settings); a new op of an existing family needs only an entry.
 * The kinds live in families, one file each under src/rules/ (core,
 * elementwise, broadcast, layout, system), each exporting a table; typerule.c joins them.
 */
#ifndef PTOOPT_TYPERULE_H
#define PTOOPT_TYPERULE_H

#include <stdbool.h>
#include <string.h>

#include "ptoopt/ir.h"
#include "ptoopt/op_registry.h"
#include "ptoopt/sugar.h"

/* One evaluation of a rule: the call being typed and its slots (the op's
 * parameters, then its kwargs; NULL where unbound and without default). */
typedef struct RuleCtx {
	SugarCtx *c;
	const OpDef *op;
	const OpsResult *r;
	Expr **slots;
	Expr *call;
	bool failed;      /* a check failed: an error was reported */
} RuleCtx;

/* NULL: the type cannot be derived (an annotation is needed), or with
 * rc->failed set, a check of the deduction failed (reported). */
typedef Type *(*RuleFn)(RuleCtx *rc);

typedef struct RuleKind {
	const char *name;        /* as written after `rule:` */
	RuleFn fn;               /* NULL for unknown / none */
	/* fields the entry must give, comma-separated among: arg, arg2 (the
	 * second of args), shape (or shape-of), dtype (dtype, dtype-of or a
	 * dtype argument), mem, elems, args; checked when the registry loads */
	const char *needs;
	const char *const *opts; /* the keys its `opts:` map may hold, NULL-ended */
	bool none;               /* the op produces no value (statement ops) */
} RuleKind;

/* Each family's table, ended by a {NULL} entry (src/rules/\*.c). */
extern const RuleKind typerule_core[], typerule_elementwise[], typerule_broadcast[], typerule_layout[],
	typerule_system[];

/* The kind of this name, or NULL. */
const RuleKind *typerule_find(const char *name);
/* The result type of a call by its rule (see RuleFn). */
Type *typerule_infer(RuleCtx *rc, const OpsResult *r);

/* ---- for rule functions -------------------------------------------- */

/* Report a failed check at the call, as the reference's CHECK would
 * (the message should carry the reference's wording); sets rc->failed and
 * returns NULL, so `return tr_error(rc, ...)` ends a rule. */
Type *tr_error(RuleCtx *rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The bound value of operand `i` (-1: NULL), of the kwarg named `kw`, and
 * their types (NULL when unknown: results of unregistered ops). */
static inline Expr *tr_arg(RuleCtx *rc, int i)
{
	return i >= 0 && i < rc->op->nparams + rc->op->nkwargs ? rc->slots[i] : NULL;
}
Expr *tr_kwarg(RuleCtx *rc, const char *kw);
static inline Type *tr_type(Expr *e)
{
	Type *t = e ? ir_expr_type(e) : NULL;
	return t && t->kind != TY_UNKNOWN ? t : NULL;
}
/* The `opts:` value of `key` (NULL when absent), as an integer or as an
 * argument index (-1 when absent). */
static inline const char *tr_opt(const OpsResult *r, const char *key)
{
	for (int i = 0; i < r->nopts; i++)
		if (r->opts[i].key[0] == key[0] && !strcmp(r->opts[i].key, key))
			return r->opts[i].value;
	return NULL;
}
int64_t tr_opt_int(const OpsResult *r, const char *key, int64_t def);
/* The reference's TypeName() of a type, for messages ("TileType"). */
const char *tr_type_name(const Type *t);
/* The reference's DataType::ToString() of a dtype, for messages ("fp32",
 * "bfloat16"). */
const char *tr_dtype_str(DType t);

/* Symbols: the DType / MemSpace a pl.FP32 / pl.Mem.Vec names, -1 else. */
int tr_dtype_symbol(SugarCtx *c, const Expr *e);
int tr_mem_symbol(SugarCtx *c, const Expr *e);
/* Element dtype of a Tensor, Tile, Scalar or Array value, -1 else. */
int tr_elem_dtype(Expr *e);
/* The reference's PromoteDataTypes. */
DType tr_promote(DType a, DType b);

/* Values and types, allocated in the program's arena. */
Expr *tr_int(SugarCtx *c, int64_t v, DType dt, SrcPos pos);
Expr *tr_float(SugarCtx *c, double v, DType dt, SrcPos pos);
Expr *tr_list(SugarCtx *c, Expr **elems, int n, SrcPos pos);
Expr *tr_symbol(SugarCtx *c, const char *s);
Type *tr_copy_type(SugarCtx *c, const Type *t);
/* t as a computation's result: a tensor without view and memref, a tile
 * in Vec unless placed. */
Type *tr_fresh(SugarCtx *c, const Type *t);
/* t with dtype dt and dims shape[0..ndim) (t itself when nothing differs). */
Type *tr_reshaped_as(SugarCtx *c, const Type *t, DType dt, Expr **shape, int ndim);
/* A new Tensor / Tile type of the dims of list `shape` (EX_TUPLE). */
Type *tr_shaped(SugarCtx *c, TypeKind k, Expr *shape, DType dt);
bool tr_same_dims(const Expr *list, Expr **dims, int n);
ViewSpec *tr_view(SugarCtx *c, const char **names, Expr **vals, int n);
/* pl.TensorView(valid_shape=V?, stride=[], layout=L, pad=P?) */
ViewSpec *tr_tensor_view(SugarCtx *c, Expr *valid, const char *layout, Expr *pad);
/* ... with strides (NULL: stride=[]) */
ViewSpec *tr_tensor_view_strided(SugarCtx *c, Expr *valid, Expr *stride, const char *layout, Expr *pad);
/* A view keyword's value (NULL when t has no view or not that keyword). */
Expr *tr_view_kw(const Type *t, const char *kw);
/* The fillpad pad_value kwarg normalized as the reference's DSL does (its
 * PadValue name; NULL after reporting an error), src/rules/elementwise.c. */
const char *tr_fillpad_pad(RuleCtx *rc);
/* dims as the reference's FormatShape writes them into buf: [16, n, ?] */
void tr_fmt_shape(char *buf, size_t n, Expr **d, int nd);
/* The block and scatter layouts of a tile type: its view's, else the
 * implicit ones of its shape and memory space. */
void tr_tile_layouts(const Type *t, const char *out[2]);
/* The reference's BroadcastShapes: right-aligned, equal dims keep s1's, a
 * constant 1 takes the other's; NULL when two dims conflict (*nout: the
 * rank).  s1 itself when the result is s1's shape. */
Expr **tr_broadcast(SugarCtx *c, Expr **s1, int n1, Expr **s2, int n2, int *nout);
/* Provable extent comparisons and min (tile.load's window reads). */
bool tr_extent_le(const Expr *a, const Expr *b);
Expr *tr_extent_min(SugarCtx *c, Expr *a, Expr *b);
/* The valid extent of each dimension of a window `window` read at `offs`
 * from tensor type src (the reference's InferWindowReadValidShape), given
 * the requested extent `req`: the part of src's valid region under the
 * window (all of the window where src is wholly valid and the read does not
 * clamp), narrowed from the request only when provably smaller; without a
 * request (req NULL) the available extent.  TR_WIN_RUNTIME_MIN
 * (pld.tile.remote_load): a symbolic wholly-valid source bound is kept and
 * the result is min(request, available) (settled where provable).  src may
 * be a tensor or a tile.  NULL when src has no valid region of its own
 * (without clamp or TR_WIN_RUNTIME_MIN) or the ranks differ (a reinterpreting
 * read keeps its request), and NULL with the call failed (rc->failed) when
 * constant extents break the read's bounds: a negative offset, a request
 * wider than its window, or (unless clamp) a read past the source's end,
 * reported as op's error with remedy. */
typedef enum TrWindow {
	TR_WIN_CLAMPED,     /* a read the hardware trims (tile.load): a request may overhang */
	TR_WIN_EXACT,       /* an on-chip window (tile.slice): all of it must fit */
	TR_WIN_RUNTIME_MIN, /* tile.load's kind, intersected exactly (remote_load) */
} TrWindow;
Expr *tr_window_read_valid(RuleCtx *rc, const Type *src, Expr *offs, Expr *window, Expr *req, bool clamp,
			   TrWindow mode, const char *op, const char *remedy);

#endif
