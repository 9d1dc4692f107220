/* ir.h - the in-memory form of a PyPTO program.
 *
 * The IR mirrors the reference's node kinds closely enough that the printer
 * can reproduce its text byte for byte and the passes can follow its rules:
 *   Program -> Function -> Block of Stmt -> Expr, with Type on Vars and Exprs.
 * Variables are objects (Var *) with identity; names are only for printing.
 * Every node is allocated from the program's arena and carries its source
 * position (line/col, 0 when synthesised by a pass).
 */
#ifndef PTOOPT_IR_H
#define PTOOPT_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptoopt/arena.h"

typedef struct Expr Expr;
typedef struct Stmt Stmt;
typedef struct Type Type;
typedef struct Var Var;
typedef struct Function Function;
typedef struct Program Program;

typedef struct SrcPos {
	int line, col; /* 1-based; 0 = synthesised */
} SrcPos;

/* ---------------------------------------------------------------- enums */

/* Each enum has a name table in ir.c (ir_*_name) and a lookup (ir_*_parse)
 * returning -1 for an unknown spelling. */
typedef enum DType {
	DT_BOOL, DT_INT4, DT_INT8, DT_INT16, DT_INT32, DT_INDEX, DT_INT64,
	DT_UINT4, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_FP4,
	DT_FP8E4M3FN, DT_FP8E5M2, DT_FP8E8M0, DT_FP16, DT_FP32, DT_BF16,
	DT_HF4, DT_HF8, DT_TASK_ID, DT_COUNT
} DType;

typedef enum FuncType {
	FT_OPAQUE, FT_ORCHESTRATION, FT_INCORE, FT_AIC, FT_AIV, FT_GROUP,
	FT_SPMD, FT_INLINE, FT_GRAPH, FT_COUNT
} FuncType;

typedef enum Level {
	LV_NONE = -1, LV_AIV, LV_AIC, LV_CORE_GROUP, LV_CHIP_DIE, LV_CHIP,
	LV_HOST, LV_CLUSTER_0, LV_CLUSTER_1, LV_CLUSTER_2, LV_GLOBAL, LV_COUNT
} Level;

typedef enum Role { RL_NONE = -1, RL_ORCHESTRATOR, RL_SUBWORKER, RL_COUNT } Role;

typedef enum MemSpace {
	MS_NONE = -1, MS_DDR, MS_VEC, MS_MAT, MS_LEFT, MS_RIGHT, MS_ACC, MS_BIAS,
	MS_SCALAR_LOCAL, MS_LEFT_SCALE, MS_RIGHT_SCALE, MS_COUNT
} MemSpace;

typedef enum SplitMode { SPLIT_NONE, SPLIT_UP_DOWN, SPLIT_LEFT_RIGHT, SPLIT_COUNT } SplitMode;

typedef enum ParamDir { DIR_IN, DIR_OUT, DIR_INOUT } ParamDir;

const char *ir_dtype_name(DType t);      /* "FP32" */
int ir_dtype_parse(const char *s);       /* "FP32" -> DT_FP32 */
int ir_dtype_bits(DType t);
bool ir_dtype_is_float(DType t);
bool ir_dtype_is_int(DType t);           /* signed or unsigned integer incl. INDEX */
const char *ir_functype_name(FuncType t);
int ir_functype_parse(const char *s);
const char *ir_level_name(Level l);
int ir_level_parse(const char *s);       /* accepts the aliases (NODE, POD, ...) */
const char *ir_role_name(Role r);
int ir_role_parse(const char *s);
const char *ir_mem_name(MemSpace m);
int ir_mem_parse(const char *s);
const char *ir_split_name(SplitMode m);
int ir_split_parse(const char *s);

/* ---------------------------------------------------------------- types */

typedef enum TypeKind {
	TY_UNKNOWN, TY_SCALAR, TY_TENSOR, TY_DIST_TENSOR, TY_TILE, TY_TUPLE,
	TY_ARRAY, TY_PTR, TY_NAMED /* printed verbatim: pl.MemRefType, pld.CommCtxType, ... */
} TypeKind;

/* A keyword argument: name = value.  Used by op calls, views and scopes. */
typedef struct Kwarg {
	const char *name; /* interned */
	Expr *value;
} Kwarg;

/* pl.TensorView(...) / pl.TileView(...) / pl.MemRef(...): kept as the
 * ordered keyword list the printer emits (canonical order is enforced by
 * type_make_* helpers, not by the printer). */
typedef struct ViewSpec {
	Kwarg *kw;
	int nkw;
} ViewSpec;

/* pl.MemRef(base, offset, size[, slots=K])[IDX], or the pinned (author
 * declared) pl.MemRef("name"[, slots=K])[IDX].  The base is always a Var
 * (of type pl.Ptr): a body variable (`mem: pl.Ptr = pl.tile.alloc(...)`)
 * or the function's own Var for a name no variable holds. */
typedef struct MemRef {
	Var *base;
	Expr *offset;      /* byte offset; NULL when pinned */
	int64_t size;      /* 0 when pinned */
	int64_t slots;     /* slot count; printed when > 1 */
	Expr *index;       /* slot index ([IDX] suffix), NULL when absent */
	bool pinned;
} MemRef;

struct Type {
	TypeKind kind;
	DType dtype;       /* scalar / tensor / tile / array element */
	Expr **shape;      /* tensor / tile dims; array: shape[0] = length */
	int ndim;
	unsigned mark;     /* scratch for the printer: which print last visited it */
	ViewSpec *view;    /* TensorView or TileView, NULL when absent */
	MemRef *memref;    /* NULL when absent */
	MemSpace mem;      /* tile memory space, MS_NONE when absent */
	unsigned text_at;  /* scratch for the printer (in what was padding): with
	                    * mark, which of its cached type texts this one prints */
	Type **elems;      /* tuple elements */
	int nelems;
	const char *name;  /* TY_NAMED: printed text */
};

/* ---------------------------------------------------------------- vars */

typedef enum VarKind {
	VK_VAR,      /* ordinary variable (params, assignment targets, loop vars) */
	VK_ITER_ARG, /* loop-carried variable of a for/while with init_values */
	VK_DYN,      /* pl.dynamic("N") dimension symbol */
} VarKind;

struct Var {
	const char *name; /* interned name hint */
	Type *type;
	VarKind kind;
	unsigned id;      /* creation order, for deterministic tie-breaks */
	SrcPos pos;
	Expr *ref;        /* the shared EX_VAR node referring to this Var */
	Expr *init;       /* VK_ITER_ARG: its init value (the loop's init_values entry) */
	/* scratch for passes and the printer; owner resets before use */
	const char *print_name;
	unsigned mark;
	unsigned print_len; /* the printer's: strlen(print_name) (in what was padding) */
	void *aux;
};

/* ---------------------------------------------------------------- expressions */

/* Expressions are immutable once built: leaves (constants, symbols, strings,
 * variable references) are shared between all their uses, so a pass that
 * changes an expression builds a new node instead of editing one in place. */

typedef enum ExprKind {
	EX_VAR,     /* var */
	EX_INT,     /* ival, dtype */
	EX_FLOAT,   /* fval, dtype */
	EX_BOOL,    /* ival */
	EX_STR,     /* str (printing quotes depend on where it appears) */
	EX_SYMBOL,  /* str: a dotted enum or dtype reference printed verbatim, e.g. "pl.Mem.Vec" */
	EX_BINARY,  /* op, lhs, rhs */
	EX_UNARY,   /* op, lhs */
	EX_CAST,    /* lhs, dtype: pl.cast(e, pl.DT) */
	EX_TUPLE,   /* elems: MakeTuple, printed [a, b]; op: TupleForm */
	EX_GETITEM, /* lhs[ival] */
	EX_OP_CALL, /* pl.<op>(args, kwargs, attrs={...}) */
	EX_FN_CALL, /* self.<callee>(args, kwargs, attrs={...}) */
	EX_SUBMIT,  /* pl.submit / pl.spmd_submit(self.<callee>, args, kwargs) */
	EX_DICT,    /* {"key": value, ...}: attrs; kw[i].name is the key */
} ExprKind;

typedef enum BinOp {
	/* in printer precedence groups; see print.c */
	OP_OR, OP_XOR, OP_AND,
	OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE,
	OP_BITOR, OP_BITXOR, OP_BITAND, OP_SHL, OP_SHR,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW,
	OP_MIN, OP_MAX, /* printed pl.min(a, b) / pl.max(a, b) */
} BinOp;

typedef enum UnOp { UOP_NEG, UOP_NOT, UOP_BITNOT, UOP_ABS } UnOp;

/* An EX_TUPLE's op.  In expressions both spellings are a MakeTuple, printed
 * as a list; attribute values are plain data, where a Python tuple
 * (`"cache_policy": [(0, 1)]`) keeps its parentheses. */
typedef enum TupleForm { TUP_LIST, TUP_PAREN } TupleForm;

/* A variable reference (EX_VAR: a third of the nodes) is allocated short,
 * with only the fields before str (ir_expr_new).  The fields past a node's
 * size do not exist: code that walks expressions handles EX_VAR before
 * reading any of them, and copies nodes with ir_expr_copy. */
struct Expr {
	uint8_t kind;     /* ExprKind */
	uint8_t dtype;    /* DType: EX_INT / EX_FLOAT / EX_CAST */
	uint8_t op;       /* BinOp / UnOp; TupleForm for EX_TUPLE */
	bool spmd;        /* EX_SUBMIT: pl.spmd_submit */
	int nargs;
	SrcPos pos;
	Type *type;       /* may be NULL / TY_UNKNOWN until inferred */
	Var *var;
	/* ---- EX_VAR ends here (EXPR_VAR_SIZE) */
	const char *str;  /* EX_STR, EX_SYMBOL, EX_OP_CALL (op name "tensor.add"), calls (callee name) */
	Expr **args;      /* call args / tuple elements */
	Kwarg *kw;        /* call kwargs in order / dict entries */
	int nkw;
	Expr *attrs;      /* EX_DICT for attrs={...}, NULL when absent */
	union {
		int64_t ival; /* EX_INT, EX_BOOL, EX_GETITEM index */
		double fval;  /* EX_FLOAT */
	};
	Expr *lhs, *rhs;
};

#define EXPR_VAR_SIZE offsetof(Expr, str)

/* ---------------------------------------------------------------- statements */

typedef struct Block {
	Stmt **stmts;
	int n;
} Block;

typedef enum StmtKind {
	ST_ASSIGN,   /* var = value */
	ST_EVAL,     /* value (call as a statement) */
	ST_RETURN,   /* return values */
	ST_YIELD,    /* pl.yield_(values); the enclosing if/for/while holds the return vars */
	ST_IF,       /* cond, body, orelse (NULL when no else), rets */
	ST_FOR,      /* loop */
	ST_WHILE,    /* cond (natural form) or iter_args + pl.cond first */
	ST_BREAK,
	ST_CONTINUE,
	ST_SCOPE,    /* with pl.at / pl.cluster / pl.spmd / pl.scope ...; split_aiv */
} StmtKind;

typedef enum ForKind { FOR_RANGE, FOR_PARALLEL, FOR_UNROLL, FOR_PIPELINE } ForKind;

typedef enum ScopeKind {
	SC_INCORE,    /* pl.at(level=pl.Level.CORE_GROUP) */
	SC_HIERARCHY, /* pl.at(level=<other>) */
	SC_CLUSTER,   /* pl.cluster() */
	SC_SPMD,      /* pl.spmd(n) */
	SC_SPLIT_AIV, /* for v in pl.split_aiv(n, mode=...) */
	SC_RUNTIME,   /* pl.scope() / pl.scope(mode=pl.ScopeMode.MANUAL) */
} ScopeKind;

typedef struct Scope {
	ScopeKind kind;
	Level level;            /* SC_INCORE / SC_HIERARCHY */
	Role role;              /* SC_HIERARCHY */
	const char *name_hint;  /* NULL when absent */
	SplitMode split;        /* optimizations=[pl.split(...)] */
	Expr *slot_num;         /* optimizations=[..., pl.cross_core_slot(slot_num=N)] */
	Var **deps; int ndeps;
	Var **no_dep_args; int nno_dep_args;
	Var **dumps; int ndumps;
	bool has_deps, has_no_dep_args, has_dumps;
	bool allow_early_resolve, windowize, sync_start, manual;
	Expr *core_num;         /* SC_SPMD */
	Expr *predicate;        /* SC_SPMD */
	Var *tid;               /* "as tid", NULL when absent */
	Expr *count;            /* SC_SPLIT_AIV */
	Var *aiv_var;           /* SC_SPLIT_AIV: the loop variable */
} Scope;

/* Simple statements (assign, eval, return, yield, break, continue: about
 * 85 % of a program) are allocated without the fields after body, which
 * only compound statements use (ir_stmt_new); as with Expr, those fields do
 * not exist on a simple statement, and statements are copied with
 * ir_stmt_copy.  No padding but Block's: 168 bytes in all, 56 for a simple
 * statement, on 64-bit targets (ir.c checks). */
struct Stmt {
	StmtKind kind;
	int ncomments;
	SrcPos pos;
	const char **comments; /* leading comment lines, without "# " */

	Var *var;              /* ST_ASSIGN target; ST_FOR loop var */
	Expr *value;           /* ST_ASSIGN / ST_EVAL value; ST_IF / ST_WHILE cond */
	Expr **values; int nvalues; /* ST_RETURN / ST_YIELD */
	bool placeholder;      /* hidden `tid = pl.system.task_invalid()` before an `as tid` scope */
	bool has_else;
	bool while_ssa;          /* ST_WHILE printed as `for (..) in pl.while_(...)` */
	uint8_t for_kind;        /* ForKind of an ST_FOR (a byte: it shares the flags' word) */
	/* ---- simple statements end here (STMT_SIMPLE_SIZE) */

	Block body, orelse;    /* orelse only for ST_IF */

	/* ST_FOR / ST_WHILE (SSA form) / ST_IF with phis */
	int niter;
	int nrets;               /* return vars (yield LHS): rets[0 .. nrets) */
	Expr *start, *stop, *step, *stage;
	Var **iter_args; Expr **inits;
	Var **rets;
	Expr *attrs;             /* EX_DICT, NULL when absent */

	Scope *scope;            /* ST_SCOPE */
};

#define STMT_SIMPLE_SIZE offsetof(Stmt, body)

/* Whether statements of kind k are simple: without body and the fields
 * after it.  Code that walks any statement asks this before those fields. */
static inline bool ir_stmt_is_simple(StmtKind k)
{
	return ((1u << ST_ASSIGN | 1u << ST_EVAL | 1u << ST_RETURN | 1u << ST_YIELD | 1u << ST_BREAK |
		 1u << ST_CONTINUE) >> k) & 1;
}

/* ---------------------------------------------------------------- functions */

typedef struct Param {
	Var *var;
	ParamDir dir;
} Param;

struct Function {
	const char *name;     /* interned */
	SrcPos pos;
	FuncType type;
	Level level;
	Role role;
	bool auto_scope;      /* default true; printed only when false */
	const char *external_source;
	Param *params; int nparams;
	Type **rets; int nrets;
	Kwarg *attrs; int nattrs; /* pl.func_attr entries in stored order */
	Block body;
	bool abstract;        /* body is `...` */
	const char *inline_body; /* a HOST-level SubWorker's body kept as Python
	                          * source (lines joined by "\n", no indent); NULL
	                          * for a parsed body */
	bool strict_ssa;
	/* pipe_run's: a pass changed it (set by passes that say so, see
	 * Program.touch_marks), and the last structural check accepted it */
	bool touched, verified;
};

struct Program {
	const char *name;     /* class name; NULL for a standalone function */
	Function **funcs; int nfuncs;
	Arena *arena;
	unsigned next_var_id;
	unsigned module_var_ids; /* Vars below this id: made by module-level statements */
	/* inline-functions: the next N of <name>_inline<N> (the reference's
	 * counter is per process, which is per program for one program a run) */
	unsigned long long next_inline;
	PtrMap fn_index;      /* name -> Function, rebuilt when funcs change */
	Function **indexed;   /* funcs array the index was built from */
	int nindexed;
	/* set by a pass that left the program exactly as it found it (pipe_run
	 * clears it before each pass, and then need not verify the same IR
	 * again); a pass that cannot tell leaves it false */
	bool unchanged;
	/* set by a pass that set Function.touched on every function it changed:
	 * the others are as it found them (pipe_run clears both before each
	 * pass, and verifies only the changed functions again) */
	bool touch_marks;
	/* the parser met a pl.split_aiv region or an aiv_shard / aic_gather
	 * call (no pass makes either): without one, AivSplitValid has nothing
	 * to check */
	bool has_aiv_split;
	/* a pl.static_print wrote its line to stderr while parsing (a run in
	 * parts, whose workers' stderr goes nowhere, runs serially then) */
	bool static_printed;
};

/* ---------------------------------------------------------------- helpers */

Var *ir_var_new(Program *p, const char *name, Type *t, VarKind kind);
Expr *ir_expr_new(Arena *a, ExprKind k, SrcPos pos);   /* zeroed, sized for its kind */
size_t ir_expr_size(ExprKind k);                      /* bytes a node of kind k has */
Expr *ir_expr_copy(Arena *a, const Expr *e);          /* a new node equal to *e */
Expr *ir_int(Arena *a, int64_t v, DType dt);
Expr *ir_var_ref(Arena *a, Var *v);
Stmt *ir_stmt_new(Arena *a, StmtKind k, SrcPos pos);   /* zeroed, sized for its kind */
Stmt *ir_stmt_copy(Arena *a, const Stmt *s);          /* a new statement equal to *s */
Type *ir_type_new(Arena *a, TypeKind k);
Type *ir_scalar_type(Arena *a, DType dt);
/* e->type, or the var's type for EX_VAR (inline: asked for nearly every
 * argument of every call) */
static inline Type *ir_expr_type(Expr *e) { return e->kind == EX_VAR ? e->var->type : e->type; }
bool ir_is_int_const(const Expr *e, int64_t v, DType dt);

/* Searches of a block and every block nested in it, in source order: the
 * first scope statement of kind k (NULL when none), and whether an
 * expression of a statement (its value or values, through operands,
 * arguments and keyword values) calls the op named op ("tile.get_block_idx"). */
const Stmt *ir_find_scope(const Block *b, ScopeKind k);
/* The first scope statement whose kind is in the mask kinds (1u << SC_X | ...):
 * one walk where a check asks after several kinds. */
const Stmt *ir_find_scope_of(const Block *b, unsigned kinds);
/* The first statement of kind k in b, nested bodies included (NULL: none). */
const Stmt *ir_find_stmt(const Block *b, StmtKind k);
bool ir_block_calls(const Block *b, const char *op);

/* Level / role the reference derives from a function type (LV_NONE / RL_NONE
 * when the type derives nothing). */
Level ir_default_level(FuncType t);
Role ir_default_role(FuncType t);

/* Function by interned name (hash lookup; the index follows changes to
 * p->funcs / p->nfuncs: a new array or a smaller count rebuilds it, entries
 * appended to the same array are added.  Replace p->funcs rather than
 * overwriting entries of an indexed array in place). */
Function *ir_find_function(Program *p, const char *name);
/* Free what the program holds outside its arena. */
void ir_program_release(Program *p);

#endif
