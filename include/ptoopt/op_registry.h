/* op_registry.h - the operator registry: data/ops.yaml (compiled in) plus
 * any files given with --ops.
 *
 * The registry is data, not code: per canonical op it records the positional
 * parameters and kwargs (names, defaults, argument kinds, read/write effects)
 * and a result-type rule from a small fixed vocabulary; per DSL spelling
 * (pl.add, pl.load, ...) it records which canonical op the argument kinds
 * select.  sugar.c interprets it.  The YAML format is documented at the top
 * of data/ops.yaml.
 */
#ifndef PTOOPT_OP_REGISTRY_H
#define PTOOPT_OP_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>

#include "ptoopt/arena.h"
#include "ptoopt/diag.h"

/* OPK_INT, OPK_NUMBER, OPK_EXPR, OPK_SCALAR_EXPR: the Python-level check of
 * the reference's DSL wrapper (an int or ConstInt; a Python int or float;
 * what _normalize_expr takes; a scalar IR expression, handed on as it is),
 * which depends on how the DSL hands the value over (positional literals
 * arrive as IR constants, keyword ones as Python values) */
typedef enum OpsKind {
	OPK_ANY, OPK_TENSOR, OPK_TILE, OPK_SCALAR, OPK_LIST, OPK_DTYPE, OPK_INT, OPK_NUMBER, OPK_EXPR, OPK_SCALAR_EXPR
} OpsKind;
typedef enum OpsEffect { EFF_READ, EFF_WRITE, EFF_READWRITE } OpsEffect;
/* convert: what the reference's DSL wrapper (or its IR builder) does with the
 * value before the type deduction sees it, and so how a value of the wrong
 * class fails there (Python's words, ahead of any kind check) */
typedef enum OpsConvert {
	CONV_NONE,
	CONV_UNWRAP,    /* value.unwrap(): a literal or list has none */
	CONV_CONST_INT, /* ConstInt(value, ...): pybind rejects a Tile / Tensor / list */
	CONV_FLOAT,     /* float(value): a Tile / Tensor / list is no real number */
	CONV_EXPR,      /* _normalize_expr(value): "Cannot convert <class ...> to IR expression" */
} OpsConvert;
typedef enum OpsOmit { OMIT_NEVER, OMIT_ABSENT, OMIT_DEFAULT, OMIT_ALWAYS /* DSL-only: never printed */ } OpsOmit;

/* A constant from the YAML (a default, an enum value, a condition). */
typedef enum OpsConstKind {
	OC_NONE, OC_INT, OC_FLOAT, OC_BOOL, OC_EMPTY_LIST, OC_SYMBOL, OC_STR, OC_REF
} OpsConstKind;
typedef struct OpsConst {
	OpsConstKind kind;
	int64_t i;        /* OC_INT, OC_BOOL; OC_REF: parameter index */
	double f;
	const char *s;    /* OC_SYMBOL ("pl.Mem.Vec"), OC_STR (without quotes) */
} OpsConst;

typedef struct OpsValueMap {
	const char *symbol; /* input spelling, e.g. "pld.WaitCmp.Ge" */
	int64_t value;      /* stored (printed) integer */
	const char *spelling; /* NULL, or the symbol stored (printed) instead of the integer;
			       * the integer is then only its meaning (effect conditions) */
} OpsValueMap;

typedef struct OpsParam {
	const char *name;
	const char **alias; int nalias;
	OpsKind kind;
	OpsConst def;       /* OC_NONE: required (unless omit != never) */
	OpsOmit omit;
	int coerce_elem_of; /* -1, or the argument whose element dtype an int literal takes */
	int coerce_dtype;   /* -1, or the DType an int literal takes */
	bool coerce_keyword; /* ... only when bound by keyword or defaulted */
	bool coerce_list;   /* a value that is not a list becomes a one-element list */
	bool int_attr;      /* attr: int - a kwarg the reference stores as a plain int: an int
			     * literal passed positionally reaches it as an expression and is
			     * rejected ("has incompatible type"), as the reference's text parser does */
	int attr_kwarg;     /* attr: keyword - (of a param) the index among the kwargs of the
			     * kwarg of the same name an int literal bound to it by keyword
			     * moves to (the DSL hands the builder a Python int, which it
			     * stores as an attribute: sync_set's event_id); -1 none */
	bool bool_attr;     /* attr: bool - one it stores as a plain bool: a literal passed
			     * positionally is rejected ("Unsupported kwarg type for key"), an int
			     * literal by keyword too ("has incompatible type") */
	bool truth_attr;    /* attr: truthy - the DSL wrapper tests the value's Python truth:
			     * a literal becomes True or is dropped; a Scalar value (a variable,
			     * an expression, any positional literal) has no truth value */
	bool truth_raw;     /* attr: truthy-raw - ... but hands a true value on as it is,
			     * which the builder rejects unless a bool ("has incompatible type") */
	OpsEffect effect;
	const char *effect_kwarg; /* conditional effect: NULL when none */
	bool effect_nonzero;      /* condition: kwarg present and != 0 */
	OpsConst effect_equals;   /* else condition: kwarg == this */
	OpsEffect effect_then;
	OpsValueMap *values; int nvalues;
	/* expect: the reference's words for an argument of the wrong kind, up to
	 * the type it got ("tile.transpose: first argument (input) must be
	 * TileType, but got"); NULL: "The operator OP requires <ordinal> argument
	 * to be a <Kind>Type, but got" */
	const char *expect;
	/* invalid: the reference's words for a string not among the values
	 * ("Invalid cmp_mode {value}: ..."); NULL: ptoopt's own */
	const char *invalid;
	/* int-elems: a list whose elements must be integers, the reference's words
	 * for one that is not ("tensor.slice offset tuple element {i} must have
	 * integer dtype, but got {dtype}"); NULL: unchecked */
	const char *int_elems;
	OpsConvert convert; /* convert: */
	bool late;          /* late: the deduction checks this argument's kind after its checks of
			     * the others (the rule runs first with it as of unknown type) */
	/* index-elems: ... whose elements must be index-like (INT64, UINT64 or
	 * INDEX): "tile.slice offset tuple element {i} must have dtype ..." */
	const char *index_elems;
	/* rank: {as: NAME, error: MSG, empty: ok | MSG}: the DSL wrapper's check
	 * that this list is as long as the list of parameter NAME (rank_as, its
	 * slot; -1 none): MSG with {n} this length, {m} the other's; empty: ok
	 * lets an empty list pass, a MSG rejects one */
	int rank_as;
	const char *rank_name, *rank_error, *rank_empty;
	bool rank_empty_ok;
	/* allow: {values: [SYMBOL, ...], error: MSG}: the DSL wrapper accepts only
	 * these symbols; MSG names the one given as Python prints it ({value}:
	 * MemorySpace.Acc) */
	const char **allow; int nallow;
	const char *allow_error;
} OpsParam;

/* One parameter of the DSL function's Python signature (op field `dsl:`). */
typedef struct OpsDslArg {
	const char *name;
	int slot;      /* the op's parameter (then kwarg) it binds, -1 for one the IR
			* has no slot for (the builders' span) */
	bool optional; /* it has a default */
} OpsDslArg;

/* One of an op's `checks:`: the DSL wrapper's own validation of an
 * argument's class, made before the reference's type deduction sees any
 * argument (so ahead of the parameters' kind checks), in the order listed. */
enum { OPS_IS_TENSOR = 1, OPS_IS_DIST = 2, OPS_IS_TILE = 4, OPS_IS_SCALAR = 8 };
typedef struct OpsCheck {
	int anyof[4]; int nanyof; /* any-of: at least one of these slots must be given (then
				   * slot is -1 and error is set) */
	int slot;          /* the parameter (then kwarg) checked */
	unsigned is;       /* OPS_IS_* the value's type may be */
	const char *error; /* the message ({op}, {arg}, {type}, {dsl}, {value}); NULL:
			    * "{op} expects a <classes> {arg}[ (window-bound)]; got {value}" */
} OpsCheck;

/* One of a `*args` DSL function's accepted call forms (`forms:`): the
 * names its extra positional arguments bind, in order, and the names that
 * must come by keyword (every other name of the forms must not). */
typedef struct OpsForm {
	const char *pos[6]; int npos;
	const char *kw[6]; int nkw;
} OpsForm;

struct RuleKind;

/* An `opts:` setting of a result rule (typerule.h), as written. */
typedef struct OpsOpt {
	const char *key, *value;
} OpsOpt;

typedef struct OpsResult {
	const struct RuleKind *kind; /* the rule (typerule.h) */
	int arg, arg2;          /* the operand(s); arg2: elementwise rhs / scalar-op scalar */
	int args[8]; int nargs; /* `args:` as given (arg, arg2 are its first two) */
	bool promote;
	int shape, valid_shape; /* argument indices, -1 when absent (array: shape = the length) */
	const char *dtype_kw;   /* dtype from this kwarg ... */
	int dtype_arg;          /* ... or from this argument (a dtype symbol), -1 */
	int dtype_of;           /* ... or the element dtype of this argument, -1 */
	int dtype;              /* ... or this fixed DType, -1 */
	const char *layout_kw, *mem_kw, *pad_kw;
	int mem;                /* fixed MemSpace when mem_kw is NULL, -1 */
	const char *column_blayout; /* tile.full: TileView(blayout=...) for [N, 1] */
	int window_source, window_offsets; /* tile.load: the valid shape is narrowed by the
					    * source tensor's valid region (-1 when absent) */
	int shape_of;           /* tile-from-shape: the shape of this argument's type (-1) */
	const char *when_kw;    /* the rule applies only when this kwarg ... */
	int64_t when_equals;    /* ... equals this integer; else the type is unknown */
	struct OpsResult *elems; int nelems;
	OpsOpt *opts; int nopts; /* the kind's own settings */
} OpsResult;

/* `core:` - where the reference places a call of the op on the AIC / AIV
 * cores (its set_core_affinity and set_output_memory; what AivSplitValid's
 * checks classify calls by): a lane the op states, or that of its result's
 * memory space, fixed or a kwarg's.  Absent: the result rule's mem when it
 * has one, else the lane of the first tile operand. */
typedef enum OpsLane { LANE_INFER, LANE_VECTOR, LANE_CUBE, LANE_SHARED } OpsLane;
typedef struct OpsCore {
	OpsLane lane;        /* the stated lane, LANE_INFER when none */
	int mem;             /* the result's fixed memory space (MemSpace), -1 */
	const char *mem_kw;  /* ... or that of this kwarg (its default when not given), NULL */
} OpsCore;

typedef struct OpDef {
	const char *name;       /* canonical: "tensor.adds", "pld.system.notify" */
	const char *file; int line, col; /* where it was declared */
	OpsParam *params; int nparams;
	OpsParam *kwargs; int nkwargs;
	OpsResult result;
	/* spelling: {name: N, when: KW}: a call with keyword KW true prints as N
	 * without KW (the reference's private spelling of a compiler-only flag;
	 * the sugar entry N, `set: KW`, parses it back) */
	const char *spell_name, *spell_when;
	/* no argument has an effect other than Read, nor one a kwarg can switch
	 * on (set at load: the passes ask it of every call) */
	bool reads_only;
	/* context: host - the reference's parser accepts a call only in a HOST-level
	 * function's body outside InCore / SPMD scopes */
	bool host_only;
	/* context: internal - the reference has no DSL function for it (only its
	 * passes make it): a call in the text is its "Unknown pl.X operation" */
	bool internal;
	OpsCore core;
	/* the reference's DSL function's Python signature: what its arity errors
	 * count and how positional arguments bind (`dsl:`; by default the params
	 * then the kwargs, each optional when it has a default or may be absent):
	 * dsl[0, dsl_npos) positional-or-keyword, then dsl_nkwo keyword-only */
	OpsDslArg *dsl; int dsl_npos, dsl_nkwo;
	bool dsl_varargs; /* *args: any number of positional arguments, bound in order */
	int dsl_inorder;  /* positional arguments up to this count bind to their own index */
	/* arity: {min: N, max: M, error: MSG}: a *args DSL function's own count
	 * check, MSG ({n}: the count given) when the call passes fewer than N or
	 * more than M positional arguments (arity_error NULL: none) */
	int arity_min, arity_max;
	const char *arity_error;
	OpsCheck *checks; int nchecks; /* `checks:` */
	OpsForm *forms; int nforms;    /* `forms:` */
	const char *form_names[8]; int nform_names; /* the names they bind, first seen first */
} OpDef;

typedef struct SugarCase {
	OpsKind args[6]; int nargs; /* kinds of the leading positional arguments */
	const char *op;             /* canonical op, or NULL for a scalar binary */
	int binary;                 /* BinOp when op is NULL */
	const char *kw;             /* the case applies only when the call has this keyword (NULL: any) */
	const char **names;         /* positional: the op parameters the call's positional */
	int nnames;                 /* arguments bind to, by name (the DSL's own order), or 0 */
	const char *set_kw;         /* set: the case passes this keyword as True (NULL: none) */
	const char *append_kw;      /* append: keyword KW becomes the last positional argument */
	const char *error;          /* error: the case is the DSL's rejection with this message */
} SugarCase;

typedef struct SugarDef {
	const char *name;           /* "add" for pl.add */
	SugarCase *cases; int ncases;
} SugarDef;

/* One item of data/ops.yaml's `ops:` or `sugar:` list (data/embed.py). */
typedef struct OpsBuiltinEntry {
	bool sugar;
	const char *name;       /* op: / name: */
	unsigned offset, len;   /* the item's text in ops_builtin_yaml */
	unsigned line;          /* its first line */
} OpsBuiltinEntry;

typedef struct OpRegistry {
	Arena arena;
	PtrMap ops;    /* interned (registry arena) name -> OpDef * */
	PtrMap sugar;  /* interned name -> SugarDef * */
	PtrVec all;    /* OpDef * in declaration order (later overrides replace) */
	/* ops_default(): built-in entries not parsed yet, interned name ->
	 * OpsBuiltinEntry * (NULL once loaded); ops_find loads on a miss */
	PtrMap lazy_ops, lazy_sugar;
	/* --allow-unregistered-ops: a call of an op the registry does not know
	 * is printed as written, every argument read, with one warning per
	 * name (warned: interned name -> 1); without it such a call is an
	 * error */
	bool allow_unregistered;
	PtrMap warned;
	/* ops_find / ops_find_sugar: the last hit per slot, keyed by the
	 * caller's string pointer (see find_cached) */
	struct OpsHit { const char *key, *name; const void *def; } hit_ops[64], hit_sugar[64];
} OpRegistry;

/* The process-wide registry: the compiled-in data/ops.yaml, each entry
 * parsed on its first lookup (start-up parses nothing), then any --ops
 * files, whose entries take precedence. */
OpRegistry *ops_default(void);
void ops_init(OpRegistry *r);
void ops_release(OpRegistry *r);
/* Add or override entries from YAML text / a file.  A malformed entry is
 * reported as FILE:LINE:COL naming the field; returns false then (entries
 * before the error stay loaded). */
bool ops_load_text(OpRegistry *r, const char *file, const char *text, size_t len, Diag *d);
bool ops_load_file(OpRegistry *r, const char *path, Diag *d);
/* Lookups by name (any string; not necessarily interned). */
const OpDef *ops_find(OpRegistry *r, const char *name);
const SugarDef *ops_find_sugar(OpRegistry *r, const char *name);
/* The registered op or DSL spelling nearest to `name` by edit distance
 * (pl.tile.exq -> tile.exp, tiles.exp -> tile.exp), NULL when none is
 * close; for "did you mean" messages. */
const char *ops_suggest(OpRegistry *r, const char *name);
struct StrBuf;
/* pl.tile.load(tensor, offsets, shapes, valid_shapes=shapes, *,
 * target_memory=pl.Mem.Vec, clamp=False): the op as Python would show it. */
void ops_signature(struct StrBuf *b, const OpDef *op);
/* --list-ops: every op, sorted, one a line: its signature and the
 * arguments it writes; returns how many. */
int ops_list(OpRegistry *r, struct StrBuf *b);
/* --list-dsl: every DSL spelling pl.NAME that is not an op's own name,
 * sorted, one a line, with the canonical op each dispatch case lowers
 * to; returns how many. */
int ops_list_sugar(OpRegistry *r, struct StrBuf *b);
/* Effect of argument i of a call to op with the given kwarg lookup result
 * (kwarg_value: integer value of the condition kwarg, has_kwarg: present). */
OpsEffect ops_arg_effect(const OpDef *op, int i, bool has_kwarg, int64_t kwarg_value);

extern const char ops_builtin_yaml[];
extern const unsigned long ops_builtin_yaml_len;
/* Its items in file order; ops_builtin_nindex is -1 when embed.py could not
 * index the file (then it is loaded whole). */
extern const OpsBuiltinEntry ops_builtin_index[];
extern const int ops_builtin_nindex;

#endif
