/* parse_int.h - the parser's internal interface, shared by its files.
 *
 * The parser is one recursive descent over the token stream (lex.c), cut
 * into files by concern:
 *   parse.c          driver: errors, token readers, module level, the
 *                    @pl.program class and @pl.function headers and bodies
 *   parse_stmt.c     statements and blocks: assignments, for / if / while,
 *                    yields, subscript stores
 *   parse_scope.c    scopes: `with pl.at / pl.cluster / pl.spmd / pl.scope`
 *                    and the pl.spmd / pl.split_aiv loop forms
 *   parse_bind.c     name binding: the scope stack, the reassignment rule,
 *                    the return variables of yielding constructs
 *   parse_comment.c  comment attachment
 *   parse_expr.c     expressions: operators, atoms, tuples, hash-consing
 *                    of constants, the integer-list cache
 *   parse_call.c     calls: argument lists, pl.* forms, self.f(...) and
 *                    pl.submit typing
 *   parse_deps.c     deps= lists: TaskIds, per-element reads, comprehensions
 *   parse_fold.c     compile-time evaluation: literal folding,
 *                    pl.static_print / pl.static_assert
 *   parse_type.c     type annotations and the annotation cache
 *   parse_memref.c   the pl.MemRef(...) element of a type
 *   parse_subscript.c  right-hand-side subscripts
 * Everything here is what one of them needs from another; the rest stays
 * static in its file.  An error never returns: it reports FILE:LINE:COL
 * and unwinds the parse (longjmp to p->fail). */
#ifndef PTOOPT_PARSE_INT_H
#define PTOOPT_PARSE_INT_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ptoopt/ir.h"
#include "ptoopt/lex.h"
#include "ptoopt/strbuf.h"
#include "ptoopt/sugar.h"

#define MAX_EXPR_DEPTH 200
#define MAX_EXPR_OPERATORS 2000

/* ---- the parser's state */

/* One binding: the log of them is also the scope stack (parse_bind.c). */
typedef struct Undo {
	const char *name;
	Var *var;
	Expr *value;          /* an @pl.inline parameter: the argument it names (var NULL) */
	void *prev_idx;       /* log index + 1 of the name's binding before, 0 */
} Undo;

/* Names the parser compares tokens with, interned once (p->nm). */
enum {
	NM_FOR, NM_IF, NM_WHILE, NM_WITH, NM_ELIF, NM_ELSE,
	NM_DEF, NM_CLASS, NM_IMPORT, NM_LAMBDA, NM_TRY, NM_DEL, NM_GLOBAL, NM_ASSERT,
	NM_RAISE, NM_YIELD, NM_ASYNC, NM_FROM,
	NM_STMT_KEYWORDS, /* the ones above start statements */
	NM_CONST = NM_STMT_KEYWORDS, NM_CAST, NM_SUBMIT, NM_SPMD_SUBMIT, NM_NOT,
	NM_COUNT,
};

enum { LOOP_NONE, LOOP_PLAIN, LOOP_PARALLEL, LOOP_UNROLL, LOOP_SPLIT_AIV };

/* A table keyed by spans of the source text (open addressing, empty until
 * the first entry): the annotation and integer-list caches.  Each entry
 * type starts with a SrcKey. */
typedef struct SrcKey {
	const char *text; /* in the source; NULL = empty slot */
	uint32_t len;
	uint64_t hash;
} SrcKey;

/* The annotation cache's second index (see pp_type): buckets by the
 * first ANN_PREFIX bytes of an annotation. */
#define ANN_PREFIX 16
#define ANN_PREFIX_BUCKETS 512

typedef struct SrcTable {
	char *slots;
	size_t n, cap, entry_size;
} SrcTable;

/* A slot of the numeric leaf memo (pp_int, pp_float). */
typedef struct LeafMemo {
	uint64_t bits;        /* ival, or the bits of fval */
	uint8_t kind, dtype;
	struct Expr *e;       /* the shared leaf; NULL = empty */
} LeafMemo;

#define LEAF_MEMO 256 /* a power of two */

/* A way of the integer list memo (int_list_cached): a list's text of at
 * most 16 bytes as two words and masks for its bytes, and the list. */
typedef struct ListMemo {
	uint64_t w[2], mask[2];
	uint32_t len;
	struct Expr *list;    /* NULL = empty */
} ListMemo;

#define LIST_MEMO_SETS 64 /* a power of two */
#define LIST_MEMO_WAYS 4

/* What a `pl.NAME(` call is (parse_call.c: pl_form), by its interned
 * dotted name: worked out once per spelling, not by string compares on
 * every call. */
typedef struct PlFormMemo {
	const char *d;        /* interned dotted name; NULL = empty */
	int form;             /* PF_* (parse_call.c) */
} PlFormMemo;

#define PL_FORM_MEMO 256 /* a power of two */

typedef struct Parser {
	Lexer lx;
	const char *nm[NM_COUNT];
	/* the statement keywords (nm[0 .. NM_STMT_KEYWORDS)) by pointer: an
	 * open-addressed table, so that a statement's first name is looked up
	 * with a probe or two (stmt_keyword) */
	struct StmtKeyword { const char *name; int k; } kw[64];
	Arena *a;
	Diag *diag;
	jmp_buf fail;
	Program *prog;
	Function *fn;         /* function being parsed */
	PtrMap globals;       /* module level: name -> Global */
	PtrMap bind;          /* function scopes: name -> undo-log index + 1 of its binding */
	PtrMap fn_names;      /* function name -> Function (duplicates) */
	PtrMap memref_bases;  /* the function's own pl.MemRef base Vars: name -> Var (parse_memref.c) */
	PtrVec dump_tagged;   /* the function's pl.dump_tag(t) tensors so far (Var *) */
	PtrMap yield_lhs;     /* ST_YIELD stmt -> YieldInfo (pp_yield_info_of) */
	size_t scope_start;   /* undo-log index where the innermost scope began */
	bool prog_strict;     /* @pl.program(strict_ssa=True) */
	Undo *undo;
	size_t nundo, cundo;
	PtrVec carried;       /* comment lines waiting for the next statement */
	PtrVec pre;           /* Stmt *s the statement being parsed needs before it (pp_deps, inline bodies) */
	bool pre_takes_comments; /* a deps= array queued some: they take the statement's comments */
	PtrMap inlines;       /* @pl.inline functions: name -> InlineDef (parse_inline.c) */
	PtrVec inline_lexers; /* the callers' lexers while inline bodies are read */
	int inline_depth;
	bool in_inline;       /* reading an inline body: `return v` gives inline_ret */
	/* reading a def's parameters and return type: the reference's Python
	 * evaluates those annotations before its parser reads them, so a
	 * pl.TensorView / pl.TileView there meets the Python constructors' checks
	 * first (parse_type.c) */
	bool in_signature;
	Expr *inline_ret;
	int comprehension;    /* inside a deps= comprehension: `if` ends an expression */
	const char *deps_of;  /* the call pp_call_tail reads next takes a deps= list: its name in messages */
	int depth;            /* expression nesting */
	int fn_args;          /* inside the arguments of self.f(...) / pl.submit(...),
			       * where pl.no_dep(x) marks an argument */
	int block_depth;
	int last_line;        /* end line of the last real token consumed */
	int incore_depth;     /* inside an InCore scope (split_aiv needs no wrapper) */
	Level fn_level;       /* the level the function's decorator writes, LV_NONE without one
			       * (the reference parser's: HOST-only ops check it) */
	int loop_ctx;         /* innermost loop around the statement (LOOP_*): where break / continue may go */
	int split_aiv_depth;  /* open pl.split_aiv bodies */
	int manual_depth;     /* with pl.manual_scope() bodies around the statement (they do not nest) */
	SplitMode split_aiv_mode; /* the open one's mode (they do not nest) */
	int attr_depth;       /* inside an attribute dict value: (a, b) is a tuple */
	bool split_written;   /* the last optimizations=[...] named pl.split(...) */
	bool lit;             /* the expression just parsed is a literal (for -LITERAL folding) */
	int nops;             /* binary operators in the current top-level expression */
	HashTab types;        /* hash-consed types (unique_type) */
	SrcTable ann;         /* annotation cache (pp_type): AnnEntry */
	struct AnnEntry *ann_by_prefix[ANN_PREFIX_BUCKETS]; /* its entries by their first bytes */
	SrcTable lists;       /* integer list cache (parse_atom): ListEntry */
	ListMemo list_memo[LIST_MEMO_SETS][LIST_MEMO_WAYS]; /* recent short ones, in front of lists */
	PtrMap enum_cache;    /* interned enum spelling -> value + 2 */
	bool module_level;    /* reading a module-level constant (Python evaluates it) */
	bool pl_get_byte;     /* the pl.* just read was pl.<DataType>.get_byte() */
	Lexer *outer_lx;      /* the file's lexer while an f-string placeholder is read */
	StrBuf static_line;   /* pl.static_print's line as it is built: the parser's,
	                       * so that an error in an argument (a longjmp) does
	                       * not lose it */
	/* scope statements written as `for v in pl.spmd / pl.split_aiv(...)`:
	 * loops to the reference, so a bare pl.yield_ in one is not the
	 * enclosing init_values loop's (reject_bare_yield skips them) */
	PtrMap for_scopes;
	PtrMap symbols;       /* interned "Mem.Vec" -> shared pl.Mem.Vec symbol (pp_pl) */
	PlFormMemo pl_forms[PL_FORM_MEMO]; /* recent pl.* call spellings (pp_pl) */
	HashTab leaves;       /* hash-consed constants and symbols (shared_leaf) */
	LeafMemo leaf_memo[LEAF_MEMO]; /* recent numeric leaves, in front of leaves */
	PtrVec fn_calls;      /* EX_FN_CALL / EX_SUBMIT exprs to resolve at the end */
	SugarCtx sugar;       /* op-call lowering and typing from the op registry */
	/* Function signatures (name -> FnSig), for typing self.f(...) calls to
	 * functions defined later in the file: filled as headers are parsed, and
	 * by one header-only pre-scan of the file when a call needs a function
	 * not seen yet (canonical text prints callees first, so it rarely does). */
	PtrMap *sigs;
	PtrMap own_sigs;
	PtrMap *inline_dyns;  /* pl.dynamic("N") written in types: name -> Global (shared with the pre-scan) */
	PtrMap own_inline_dyns;
	bool headers_only;    /* the pre-scan parser: skip function bodies */
	bool prescanned;
	const char *src;
	size_t len;
	size_t jump_off;      /* parse_program_jump: where the text jumps ahead ... */
	int jump_lines;       /* ... by this many lines (0: no jump) */
} Parser;

/* A function's signature (p->sigs), for typing calls to it. */
typedef struct FnSig {
	Type **rets;
	int nrets;
	Param *params;
	int nparams;
	Type *call_type, *submit_type; /* built on first use */
} FnSig;

/* A module-level name: a constant (inlined at each use) or a dynamic dim. */
typedef struct Global {
	Expr *value; /* constant; NULL for a dyn var */
	Var *dyn;
} Global;

/* The names a yield assignment `a, b = pl.yield_(...)` binds: a
 * construct's return variables (pp_make_rets).  Parallel arrays. */
typedef struct YieldLhs {
	const char **names;
	Type **types;   /* annotation or NULL */
	SrcPos *pos;
	int n;
} YieldLhs;

/* A yield statement's LHS, kept beside the Stmt in p->yield_lhs. */
typedef struct YieldInfo {
	Stmt *stmt;
	YieldLhs lhs;
	struct YieldInfo *next;
} YieldInfo;

/* ---- errors (parse.c) */

/* Is the token at k the f of an f-string (f"...": a name f or F right
 * before a string)? (parse_fold.c) */
bool pp_at_fstring(Parser *p, int k);
/* Report FILE:LINE:COL: message and unwind the parse. */
_Noreturn void pp_error(Parser *p, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define PERR_AT(p, t, ...) pp_error((p), (t)->line, (t)->col, __VA_ARGS__)
const char *pp_describe(const Token *t);     /* "'x'", "a number", ... for messages */
/* "; did you mean 'PREFIX<nearest>'?" for a misspelt pl.* name when one of
 * the candidates (NULL-terminated) is near enough, else "". */
const char *pp_did_you_mean(Parser *p, const char *word, const char *const *cands, const char *prefix);
_Noreturn void pp_expected_op(Parser *p, const char *op);     /* "expected 'op', found ..." */
_Noreturn void pp_expected_kind(Parser *p, const char *what); /* "expected WHAT, found ..." */

/* ---- tokens: they run for nearly every token, so the small ones are
 * inline; operator tests compare lex_op_code()s, which the compiler folds
 * to constants from the literal spellings. */

static inline const Token *peek(Parser *p) { return lex_peek(&p->lx, 0); }
static inline const Token *peek_at(Parser *p, int k) { return lex_peek(&p->lx, k); }
/* Inline: the caller's copy then holds only the fields it reads. */
LEX_INLINE Token next(Parser *p)
{
	Token t = lex_next(&p->lx);
	if (t.kind >= TK_NAME) /* a real token, not NEWLINE / INDENT / DEDENT / EOF */
		p->last_line = t.end_line;
	return t;
}
/* next() when the token is not needed: no copy */
static inline void skip(Parser *p)
{
	const Token *t = peek(p);
	if (t->kind >= TK_NAME)
		p->last_line = t->end_line;
	lex_drop(&p->lx);
}
static inline SrcPos pos_of(const Token *t) { return (SrcPos){ t->line, t->col }; }

LEX_INLINE bool at_op(Parser *p, const char *op) { return tok_is_op(peek(p), op); }
LEX_INLINE bool at_name(Parser *p, const char *n) { return tok_is_name(peek(p), n); }

LEX_INLINE bool accept_op(Parser *p, const char *op)
{
	if (!at_op(p, op))
		return false;
	skip(p);
	return true;
}

LEX_INLINE void expect_op(Parser *p, const char *op)
{
	if (!at_op(p, op))
		pp_expected_op(p, op);
	skip(p);
}

/* expect_op, returning the operator token */
LEX_INLINE Token expect_op_tok(Parser *p, const char *op)
{
	if (!at_op(p, op))
		pp_expected_op(p, op);
	return next(p);
}

LEX_INLINE Token expect_name(Parser *p, const char *what)
{
	if (peek(p)->kind != TK_NAME)
		pp_expected_kind(p, what);
	return next(p);
}

void pp_expect_newline(Parser *p);

static inline bool ident_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (c >= '0' && c <= '9');
}

/* Does a '.' and a name follow the name token t without a space?  Then
 * the token after t is that '.', known from the source bytes: the parser
 * need not lex it to decide (lexing a '.' cannot fail, so nothing is
 * reported any later).  False says nothing: peek_at(p, 1) decides. */
static inline bool dot_name_follows(const Parser *p, const Token *t)
{
	const char *q = t->src + t->nlen;
	return p->lx.end - q >= 2 && q[0] == '.' && ident_byte((unsigned char)q[1]) &&
	       !(q[1] >= '0' && q[1] <= '9');
}

/* Is the token after the name token t a '=' (not "=="), written right
 * after it?  Known from the bytes as in dot_name_follows. */
static inline bool eq_follows(const Parser *p, const Token *t)
{
	const char *q = t->src + t->nlen;
	return p->lx.end - q >= 2 && q[0] == '=' && q[1] != '=';
}

/* dotted_after once the current token t is the prefix */
const char *pp_dotted_tail(Parser *p, const Token *t);

/* `pl` `.` NAME (`.` NAME)* : returns the dotted tail ("tensor.add") or NULL
 * when the tokens at the cursor are not `<prefix>.`.  Consumes on success.
 * Inline, so that the comparison with a literal prefix folds. */
LEX_INLINE const char *dotted_after(Parser *p, const char *prefix)
{
	const Token *t = peek(p);
	return tok_is_name(t, prefix) ? pp_dotted_tail(p, t) : NULL;
}

/* Keyword values of decorators, scopes and pl.dynamic: True / False, a
 * string literal (interned). */
bool pp_bool_kw(Parser *p);
const char *pp_string_kw(Parser *p);

/* The unaligned 8 bytes at s (the byte-comparing caches). */
static inline uint64_t load8(const char *s)
{
	uint64_t w;
	memcpy(&w, s, sizeof w);
	return w;
}

/* The arguments of one call, tuple items or assignment targets while they
 * are parsed: on the C stack up to CALL_ARGS_INLINE of a kind (nearly
 * every call), then in the arena. */
#define CALL_ARGS_INLINE 8

typedef struct ArgList {
	void **items; /* inline[] until that is full */
	int len, cap;
	void *inline_items[CALL_ARGS_INLINE];
} ArgList;

static inline void args_init(ArgList *l)
{
	l->items = l->inline_items;
	l->len = 0;
	l->cap = CALL_ARGS_INLINE;
}

void pp_args_grow(Parser *p, ArgList *l);

static inline void args_push(Parser *p, ArgList *l, void *x)
{
	if (l->len == l->cap)
		pp_args_grow(p, l);
	l->items[l->len++] = x;
}

/* ---- the driver (parse.c) */

/* Read every function header of the file (for calls to functions defined
 * later): the call typing asks for it on a miss. */
void pp_prescan(Parser *p);

/* ---- statements (parse_stmt.c) */

void pp_kw_init(Parser *p);                                  /* p->kw, from p->nm */
void pp_stmt(Parser *p, PtrVec *out, bool first_in_block);   /* a function body's statements */
void pp_block(Parser *p, Block *b, int upper);               /* INDENT stmt+ DEDENT: a scope's body */

/* ---- scopes (parse_scope.c) */

/* `with pl.<scope>(...) [as tid]:` and its body, the cursor at `with`. */
void pp_with(Parser *p, PtrVec *out, PtrVec *cm);
/* `for IV in pl.spmd(...)` / `pl.split_aiv(...)`, the cursor after the
 * iterator's '(' (ft: the `for`, itt: the iterator, kind: "spmd" /
 * "split_aiv"): the header's arguments, the body, the scopes it makes. */
void pp_scope_for(Parser *p, PtrVec *out, PtrVec *cm, const Token *ft, const Token *itt, const Token *loopvar,
		  const char *kind);

/* ---- name binding (parse_bind.c) */

/* The binding of name: undo-log index + 1, 0 when unbound. */
static inline uintptr_t binding_of(Parser *p, const char *name) { return (uintptr_t)pmap_get(&p->bind, name); }

/* The variable a name holds here, or NULL. */
static inline Var *pp_lookup(Parser *p, const char *name)
{
	uintptr_t i = binding_of(p, name);
	return i ? p->undo[i - 1].var : NULL;
}

void pp_bind(Parser *p, const char *name, Var *v);
void pp_bind_value(Parser *p, const char *name, Expr *value); /* an inline parameter */
/* The expression a name holds as an inline parameter, or NULL. */
static inline Expr *pp_lookup_value(Parser *p, const char *name)
{
	uintptr_t i = binding_of(p, name);
	return i ? p->undo[i - 1].value : NULL;
}
/* How a token changes the bracket depth: +1 at ( [ {, -1 at ) ] }, else 0
 * (the token skippers of parse_deps.c and parse_inline.c). */
static inline int pp_bracket_step(const Token *t)
{
	if (tok_is_op(t, "(") || tok_is_op(t, "[") || tok_is_op(t, "{"))
		return 1;
	return tok_is_op(t, ")") || tok_is_op(t, "]") || tok_is_op(t, "}") ? -1 : 0;
}
/* ---- @pl.inline functions (parse_inline.c) */
void pp_inline_def(Parser *p);      /* at `@pl.inline` at module level */
bool pp_at_inline_call(Parser *p);  /* at NAME( of an inline function */
Expr *pp_inline_call(Parser *p);    /* the call's value; its body queued on p->pre */
void pp_inline_release(Parser *p);
static inline size_t scope_mark(Parser *p) { return p->nundo; }
void pp_scope_pop(Parser *p, size_t mark);  /* unbind what was bound since scope_mark */
void pp_forget_names(Parser *p);            /* between functions: every binding goes */
Var *pp_new_var(Parser *p, const char *name, Type *t, VarKind k, SrcPos pos);
/* `name [: ann] = *value` by the reference's reuse rule and type merging. */
Var *pp_assign_target(Parser *p, const Token *nt, Type *ann, Expr **value);
/* The return variables of a yielding construct (if, for, while). */
YieldInfo *pp_yield_info_of(Parser *p, Stmt *s);
YieldInfo *pp_trailing_yield(Parser *p, Block *b);
void pp_make_rets(Parser *p, Stmt *s, YieldInfo *yi, Stmt *ystmt);
void pp_bind_rets(Parser *p, Stmt *s);

/* ---- comments (parse_comment.c) */

void pp_take_comments(Parser *p, int end_line, PtrVec *out);  /* a simple statement's */
void pp_drop_comments_before_line(Parser *p, int line);
void pp_drop_stale_comments(Parser *p, int line, int col);    /* deeper ones above a later sibling */
void pp_drop_tail_comments(Parser *p, int upper, int line, int col); /* a block's tail */
void pp_take_carried(Parser *p, PtrVec *out);
void pp_attach(Parser *p, Stmt *s, PtrVec *cm);
void pp_docstring_lines(Parser *p, const char *s, size_t n);  /* carried to the next statement */
void pp_header_end(Parser *p, Stmt *s, PtrVec *cm);           /* a compound statement's ':' line */

/* ---- expressions (parse_expr.c) */

Expr *pp_expr(Parser *p);                    /* one expression */
Expr *pp_kwval(Parser *p);                   /* a keyword / attribute value: an expression or a dict */
Expr *pp_dict(Parser *p);                    /* {"key": value, ...} */
Expr *pp_name_ref(Parser *p);                /* the name at the cursor as a value */
Expr **pp_expr_list(Parser *p, int *n, const char *what); /* [e, ...] or (e, ...) */
/* Shared (hash-consed) nodes: equal constants, symbols and scalar
 * operator trees are one node. */
Expr *pp_share(Parser *p, const Expr *e);
Expr *pp_int(Parser *p, int64_t v, DType dt, SrcPos pos);
Expr *pp_float(Parser *p, double v, DType dt, SrcPos pos);
Expr *pp_str(Parser *p, ExprKind k, const char *s, SrcPos pos);
Expr *pp_binary(Parser *p, BinOp op, Expr *l, Expr *r, SrcPos pos);     /* a typed scalar expression */
Expr *pp_new_expr(Parser *p, ExprKind k, const Token *t);
Expr *pp_list(Parser *p, Expr **items, int n, SrcPos pos);        /* [a, b, ...] */
Expr *pp_op(Parser *p, const char *op, Expr **args, int n, SrcPos pos); /* a registry op call */

/* ---- calls (parse_call.c) */

Expr *pp_call_tail(Parser *p, Expr *e);      /* (args...) after the '(' into e */
Expr *pp_pl(Parser *p, const char *prefix);  /* pl.<...> / pld.<...> in an expression */
Expr *pp_self_call(Parser *p);               /* self.f(...) */
bool pp_has_op(Parser *p, const char *op);   /* the registry knows op */
/* pl.dump_tag: is v tagged; a scope dumps the tagged tensors. */
bool pp_dump_tagged(Parser *p, const Var *v);
void pp_scope_dump_tags(Parser *p, Scope *sc);

/* ---- compile-time evaluation (parse_fold.c) */

/* The truth of a constant condition (literals, comparisons, not / and /
 * or over them): false when e is not one (deps= comprehension filters). */
bool pp_const_value(const Expr *e, double *v);

/* l op r of two literals as Python evaluates it, or NULL (kept as an operator). */
Expr *pp_fold_binary(Parser *p, int op, const Expr *l, const Expr *r, SrcPos pos);
void pp_static_stmt(Parser *p, bool is_assert); /* pl.static_print(...) / pl.static_assert(...) */

/* ---- deps= lists (parse_deps.c) */

/* The value of a deps= keyword at the cursor (who: the call or scope as
 * the reference's messages name it): the TaskId / TASK_ID array Vars it
 * depends on, *n of them; per-element reads and comprehensions become one
 * array, built by statements queued on p->pre. */
Var **pp_deps(Parser *p, const char *who, int *n);

/* ---- types (parse_type.c) */

Type *pp_type(Parser *p);                    /* an annotation, through the annotation cache */
DType pp_dtype(Parser *p);                   /* pl.FP32, ... */
int pp_enum(Parser *p, const char *ns, int (*lookup_fn)(const char *), const char *what); /* pl.NS.X */
/* pp_did_you_mean over the members of the enum family lookup_fn parses
 * (ir_dtype_parse, ir_mem_parse, ir_level_parse, ...). */
const char *pp_enum_did_you_mean(Parser *p, const char *word, int (*lookup_fn)(const char *), const char *prefix);
/* The source-text tables (SrcTable): the entry for s[0..n) with hash h or
 * the empty slot it would take; the entry, created when absent. */
SrcKey *pp_src_slot(const SrcTable *t, const char *s, size_t n, uint64_t h);
SrcKey *pp_src_claim(SrcTable *t, size_t entry_size, const char *s, size_t n, uint64_t h);

/* ---- parse_memref.c */

/* The cursor after `pl.MemRef`: the arguments and an optional `[IDX]`.
 * Base names are looked up as the reference does: a three-argument form's
 * name is a variable when one is in scope; anything else is the function's
 * own Var of that name (bases, a PtrMap name -> Var, reset per function). */
MemRef *pp_memref(Parser *p, PtrMap *bases, SrcPos at);

/* The cursor at `pl` of `pl.tile.alloc(...)` / `pl.tensor.alloc(...)`
 * (pp_at_printed_alloc), the value of `name: pl.Ptr = ...`: the printer's
 * definition of a base Ptr, read as a raw call typed ptr_type. */
bool pp_at_printed_alloc(Parser *p);
Expr *pp_printed_alloc(Parser *p, Type *ptr_type);

/* ---- parse_subscript.c */

/* The cursor after the `[` of a subscript on value (a Tensor or Tile):
 * reads the indices and the `]`, and lowers them as the reference does
 * (tensor.read / tile.read for full-rank scalar indices, else
 * tensor.slice / tile.slice with drop_dims). */
Expr *pp_subscript(Parser *p, Expr *value, SrcPos at);

#endif
