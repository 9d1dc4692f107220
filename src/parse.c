/* parse.c - recursive-descent parser: tokens (lex.c) -> IR (ir.h).
 *
 * Reading order: the file prologue (imports, pl.dynamic declarations,
 * module constants), then @pl.program / @pl.function, then statements and
 * expressions.  Name binding follows the reference parser: a scope stack
 * where re-assigning a visible plain Var reuses it, loop variables and iter
 * args are always fresh, plain for/if/while/with bodies leak their names and
 * constructs with pl.yield_ expose only their return variables.  Bindings
 * live in one hash map (name -> Var) with an undo log, so leaving a scope
 * costs only what the scope bound.
 */
#include "ptoopt/parse.h"
#include "ptoopt/print.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/lex.h"
#include "ptoopt/op_registry.h"
#include "ptoopt/strbuf.h"
#include "ptoopt/sugar.h"
#include "ptoopt/typerule.h"
#include "ptoopt/types.h"
#include "parse_int.h"

#define MAX_EXPR_DEPTH 200
#define MAX_EXPR_OPERATORS 2000

/* One binding: the log of them is also the scope stack (see bind). */
typedef struct Undo {
	const char *name;
	Var *var;
	void *prev_idx;       /* log index + 1 of the name's binding before, 0 */
} Undo;

/* Names the parser compares tokens with, interned once (p->nm). */
enum {
	NM_FOR, NM_IF, NM_WHILE, NM_WITH, NM_ELIF, NM_ELSE,
	NM_DEF, NM_CLASS, NM_IMPORT, NM_LAMBDA, NM_TRY, NM_DEL, NM_GLOBAL, NM_ASSERT,
	NM_RAISE, NM_YIELD, NM_ASYNC, NM_FROM,
	NM_STMT_KEYWORDS, /* the ones above start statements */
	NM_CONST = NM_STMT_KEYWORDS, NM_CAST, NM_MIN, NM_MAX, NM_SUBMIT, NM_SPMD_SUBMIT, NM_NOT,
	NM_COUNT,
};
static const char *const nm_spellings[NM_COUNT] = {
	"for", "if", "while", "with", "elif", "else",
	"def", "class", "import", "lambda", "try", "del", "global", "assert",
	"raise", "yield", "async", "from",
	"const", "cast", "min", "max", "submit", "spmd_submit", "not",
};

enum { LOOP_NONE, LOOP_PLAIN, LOOP_SPLIT_AIV };

/* A table keyed by spans of the source text (open addressing, empty until
 * the first entry): the annotation and integer-list caches.  Each entry
 * type starts with a SrcKey. */
typedef struct SrcKey {
	const char *text; /* in the source; NULL = empty slot */
	uint32_t len;
	uint64_t hash;
} SrcKey;

/* The annotation cache's second index (see parse_type): buckets by the
 * first ANN_PREFIX bytes of an annotation. */
#define ANN_PREFIX 16
#define ANN_PREFIX_BUCKETS 512

typedef struct SrcTable {
	char *slots;
	size_t n, cap, entry_size;
} SrcTable;

/* The entry for text s[0..n) with hash h, or the empty slot it would take. */
static SrcKey *src_slot(const SrcTable *t, const char *s, size_t n, uint64_t h)
{
	size_t j = h & (t->cap - 1);
	for (;;) {
		SrcKey *k = (SrcKey *)(void *)(t->slots + j * t->entry_size);
		if (!k->text || (k->hash == h && k->len == n && memcmp(k->text, s, n) == 0))
			return k;
		j = (j + 1) & (t->cap - 1);
	}
}

/* The entry for s[0..n), created (keyed, the rest zeroed) if absent. */
static SrcKey *src_claim(SrcTable *t, size_t entry_size, const char *s, size_t n, uint64_t h)
{
	if (2 * (t->n + 1) > t->cap) {
		size_t ncap = t->cap ? 2 * t->cap : 64;
		SrcTable old = *t;
		t->slots = xmalloc(ncap * entry_size);
		memset(t->slots, 0, ncap * entry_size);
		t->cap = ncap;
		t->entry_size = entry_size;
		for (size_t i = 0; i < old.cap; i++) {
			SrcKey *k = (SrcKey *)(void *)(old.slots + i * entry_size);
			if (k->text)
				memcpy(src_slot(t, k->text, k->len, k->hash), k, entry_size);
		}
		free(old.slots);
	}
	SrcKey *k = src_slot(t, s, n, h);
	if (!k->text) {
		t->n++;
		*k = (SrcKey){ s, (uint32_t)n, h };
	}
	return k;
}

/* A slot of the numeric leaf memo (leaf_int, leaf_float). */
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
	size_t scope_start;   /* undo-log index where the innermost scope began */
	bool prog_strict;     /* @pl.program(strict_ssa=True) */
	Undo *undo;
	size_t nundo, cundo;
	PtrVec carried;       /* comment lines waiting for the next statement */
	int depth;            /* expression nesting */
	int fn_args;          /* inside the arguments of self.f(...) / pl.submit(...),
			       * where pl.no_dep(x) marks an argument */
	int block_depth;
	int last_line;        /* end line of the last real token consumed */
	int incore_depth;     /* inside an InCore scope (split_aiv needs no wrapper) */
	int loop_ctx;         /* innermost loop around the statement: LOOP_NONE / LOOP_PLAIN / LOOP_SPLIT_AIV */
	int split_aiv_depth;  /* open pl.split_aiv bodies */
	SplitMode split_aiv_mode; /* the open one's mode (they do not nest) */
	int attr_depth;       /* inside an attribute dict value: (a, b) is a tuple */
	bool split_written;   /* the last optimizations=[...] named pl.split(...) */
	bool lit;             /* the expression just parsed is a literal (for -LITERAL folding) */
	int nops;             /* binary operators in the current top-level expression */
	HashTab types;        /* hash-consed types (unique_type) */
	SrcTable ann;         /* annotation cache (parse_type): AnnEntry */
	struct AnnEntry *ann_by_prefix[ANN_PREFIX_BUCKETS]; /* its entries by their first bytes */
	SrcTable lists;       /* integer list cache (parse_atom): ListEntry */
	ListMemo list_memo[LIST_MEMO_SETS][LIST_MEMO_WAYS]; /* recent short ones, in front of lists */
	PtrMap enum_cache;    /* interned enum spelling -> value + 2 */
	PtrMap symbols;       /* interned "Mem.Vec" -> shared pl.Mem.Vec symbol (parse_pl) */
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
} Parser;

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

static void perr(Parser *p, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));

static void perr(Parser *p, int line, int col, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	diag_error(p->diag, line, col, "%s", buf);
	longjmp(p->fail, 1);
}

#define PERR_AT(p, t, ...) perr((p), (t)->line, (t)->col, __VA_ARGS__)

/* Token helpers: they run for nearly every token, so the small ones are
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
static SrcPos pos_of(const Token *t) { return (SrcPos){ t->line, t->col }; }

static const char *describe(const Token *t)
{
	static char buf[96];
	switch (t->kind) {
	case TK_EOF: return "end of file";
	case TK_NEWLINE: return "end of line";
	case TK_INDENT: return "an indented block";
	case TK_DEDENT: return "the end of the block";
	case TK_INT: case TK_FLOAT: return "a number";
	case TK_STRING: return "a string";
	case TK_NAME: snprintf(buf, sizeof buf, "'%.60s'", t->text); return buf;
	case TK_OP: snprintf(buf, sizeof buf, "'%s'", t->text); return buf;
	}
	return "?";
}

LEX_INLINE bool at_op(Parser *p, const char *op) { return tok_is_op(peek(p), op); }
LEX_INLINE bool at_name(Parser *p, const char *n) { return tok_is_name(peek(p), n); }

LEX_INLINE bool accept_op(Parser *p, const char *op)
{
	if (!at_op(p, op))
		return false;
	skip(p);
	return true;
}

static __attribute__((noreturn)) void expected_op(Parser *p, const char *op)
{
	const Token *t = peek(p);
	PERR_AT(p, t, "expected '%s', found %s", op, describe(t));
}

LEX_INLINE void expect_op(Parser *p, const char *op)
{
	if (!at_op(p, op))
		expected_op(p, op);
	skip(p);
}

/* expect_op, returning the operator token */
LEX_INLINE Token expect_op_tok(Parser *p, const char *op)
{
	if (!at_op(p, op))
		expected_op(p, op);
	return next(p);
}

static __attribute__((noreturn)) void expected_kind(Parser *p, const char *what)
{
	const Token *t = peek(p);
	PERR_AT(p, t, "expected %s, found %s", what, describe(t));
}

LEX_INLINE Token expect_name(Parser *p, const char *what)
{
	if (peek(p)->kind != TK_NAME)
		expected_kind(p, what);
	return next(p);
}

static void expect_kind(Parser *p, TokKind k, const char *what)
{
	if (peek(p)->kind != k)
		expected_kind(p, what);
	skip(p);
}

static void expect_newline(Parser *p)
{
	expect_kind(p, TK_NEWLINE, "end of line");
}

static bool ident_byte(unsigned char c)
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
static const char *dotted_tail(Parser *p, const Token *t)
{
	/* Fast path: `pl.tile.load(` is one span of the source; intern it
	 * (through the lexer's cache of recent names) instead of lexing and
	 * joining its names.  The lexer need not even read the `.`. */
	int line = t->line;
	const char *d = lex_take_dotted(&p->lx);
	if (d) {
		p->last_line = line;
		return d;
	}
	if (!tok_is_op(peek_at(p, 1), "."))
		return NULL;
	skip(p);
	char buf[256];
	size_t n = 0;
	do {
		skip(p); /* '.' */
		Token nt = expect_name(p, "a name after '.'");
		size_t l = strlen(nt.text);
		if (n + l + 2 >= sizeof buf)
			PERR_AT(p, &nt, "dotted name too long");
		if (n)
			buf[n++] = '.';
		memcpy(buf + n, nt.text, l);
		n += l;
	} while (at_op(p, "."));
	return intern(p->a, buf, n);
}

/* `pl` `.` NAME (`.` NAME)* : returns the dotted tail ("tensor.add") or NULL
 * when the tokens at the cursor are not `<prefix>.`.  Consumes on success.
 * Inline, so that the comparison with a literal prefix folds. */
LEX_INLINE const char *dotted_after(Parser *p, const char *prefix)
{
	const Token *t = peek(p);
	return tok_is_name(t, prefix) ? dotted_tail(p, t) : NULL;
}

static size_t kw_slot(const char *name)
{
	return (size_t)(((uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 58); /* 0..63 */
}

static void kw_init(Parser *p)
{
	for (int k = 0; k < NM_STMT_KEYWORDS; k++) {
		size_t h = kw_slot(p->nm[k]);
		while (p->kw[h].name)
			h = (h + 1) & 63;
		p->kw[h] = (struct StmtKeyword){ p->nm[k], k };
	}
}

/* The NM_ index of an interned name that is a statement keyword, else
 * NM_STMT_KEYWORDS. */
static int stmt_keyword(const Parser *p, const char *name)
{
	for (size_t h = kw_slot(name); p->kw[h].name; h = (h + 1) & 63)
		if (p->kw[h].name == name)
			return p->kw[h].k;
	return NM_STMT_KEYWORDS;
}

/* ------------------------------------------------------------ bindings */

/* Bindings are a log (p->undo) of (name, Var, the name's previous entry),
 * and p->bind maps a name to its latest entry: binding appends one, leaving
 * a scope truncates the log and points each name back at its previous
 * entry, one map update per binding either way. */
static uintptr_t binding_of(Parser *p, const char *name) { return (uintptr_t)pmap_get(&p->bind, name); }

static Var *lookup(Parser *p, const char *name)
{
	uintptr_t i = binding_of(p, name);
	return i ? p->undo[i - 1].var : NULL;
}

/* Bind name to v over its current binding `cur` (binding_of). */
static void bind_over(Parser *p, const char *name, Var *v, uintptr_t cur)
{
	if (p->nundo == p->cundo) {
		p->cundo = p->cundo ? p->cundo * 2 : 256;
		p->undo = xrealloc(p->undo, p->cundo * sizeof *p->undo);
	}
	p->undo[p->nundo] = (Undo){ name, v, (void *)cur };
	p->nundo++;
	pmap_put(&p->bind, name, (void *)(uintptr_t)p->nundo);
}

static void bind(Parser *p, const char *name, Var *v) { bind_over(p, name, v, binding_of(p, name)); }

/* Is a binding (binding_of) in the innermost scope (strict_ssa)?
 * Bindings of leaking scopes stay in the log after them, so they count as
 * the parent's, as in the reference. */
static bool in_innermost_scope(Parser *p, uintptr_t i) { return i && i - 1 >= p->scope_start; }

static size_t scope_mark(Parser *p) { return p->nundo; }

static void scope_pop(Parser *p, size_t mark)
{
	while (p->nundo > mark) {
		Undo u = p->undo[--p->nundo];
		pmap_put(&p->bind, u.name, u.prev_idx);
	}
}

/* Between functions: drop every binding.  Undoing them one by one would
 * leave each name's key behind, and the table would grow with every name of
 * the program instead of the names of one function; cleared, it stays the
 * size of the largest function and warm in the cache. */
static void forget_names(Parser *p)
{
	p->nundo = 0;
	pmap_clear(&p->memref_bases);
	p->dump_tagged.len = 0;
	if (p->bind.cap <= 1024)
		pmap_clear(&p->bind);
	else
		pmap_release(&p->bind);
}

/* ------------------------------------------------------------ comments */

/* The comment rules of the reference parser (see the notes in DESIGN of
 * README): each helper visits the untaken comments up to a line bound. */
typedef bool (*CommentPred)(const Comment *c, const int *arg);

static void comments_visit(Parser *p, int maxline, CommentPred pred, const int *arg, PtrVec *out)
{
	Lexer *lx = &p->lx;
	for (size_t i = lx->comment_head; i < lx->ncomments; i++) {
		Comment *c = &lx->comments[i];
		if (c->line > maxline)
			break;
		if (c->taken || !pred(c, arg))
			continue;
		c->taken = true;
		if (out)
			vec_push(out, (void *)c->text);
	}
	lex_comments_gc(lx);
}

static bool pred_all(const Comment *c, const int *arg) { (void)c; (void)arg; return true; }

/* arg: { stmt line, header end line, body column } */
static bool pred_compound(const Comment *c, const int *arg)
{
	return (c->line < arg[0] && c->col < arg[2]) || (c->line >= arg[0] && c->line <= arg[1]);
}

/* arg: { line, col }: stale comments left above a later sibling, deeper than it */
static bool pred_stale(const Comment *c, const int *arg)
{
	return c->line < arg[0] && c->col > arg[1];
}

/* arg: { first line, first col }: tail comments of a block */
static bool pred_tail(const Comment *c, const int *arg)
{
	return c->line >= arg[0] && c->col >= arg[1];
}

/* Leading comments of a simple statement ending on `end_line`. */
static void take_comments(Parser *p, int end_line, PtrVec *out)
{
	comments_visit(p, end_line, pred_all, NULL, out);
}

static void drop_comments_before_line(Parser *p, int line)
{
	comments_visit(p, line - 1, pred_all, NULL, NULL);
}

/* Carried comment lines (docstrings, pass) come first. */
static void take_carried(Parser *p, PtrVec *out)
{
	for (size_t i = 0; i < p->carried.len; i++)
		vec_push(out, p->carried.items[i]);
	p->carried.len = 0;
}

static void attach(Parser *p, Stmt *s, PtrVec *cm)
{
	if (!cm->cap) { /* no comment (nearly every statement): nothing to copy or give back */
		s->comments = NULL;
		s->ncomments = 0;
		return;
	}
	s->comments = (const char **)vec_finish(p->a, cm, &s->ncomments);
}

/* ------------------------------------------------------------ types */

static Expr *parse_expr(Parser *p);
static Type *parse_type(Parser *p);
static Expr *list_expr(Parser *p, Expr **items, int n, SrcPos pos);
static const char *parse_string_kw(Parser *p);
static Var *new_var(Parser *p, const char *name, Type *t, VarKind k, SrcPos pos);

/* Enum spelling -> value through a cache keyed by the interned spelling
 * (the spellings of different enums never collide: "FP32", "Mem.Vec"). */
static int cached_enum(Parser *p, const char *interned, const char *spelling, int (*fn)(const char *))
{
	uintptr_t v = (uintptr_t)pmap_get(&p->enum_cache, interned);
	if (v)
		return (int)v - 2;
	int r = fn(spelling);
	pmap_put(&p->enum_cache, interned, (void *)(uintptr_t)(r + 2));
	return r;
}

static DType parse_dtype(Parser *p)
{
	const Token t = *peek(p);
	const char *d = dotted_after(p, "pl");
	int dt = d ? cached_enum(p, d, d, ir_dtype_parse) : -1;
	if (dt < 0 && d)
		PERR_AT(p, &t, "unknown data type pl.%s (expected one such as pl.FP32)", d);
	if (dt < 0)
		PERR_AT(p, &t, "expected a data type such as pl.FP32");
	return (DType)dt;
}

static int parse_enum(Parser *p, const char *ns, int (*lookup_fn)(const char *), const char *what)
{
	const Token t = *peek(p);
	const char *d = dotted_after(p, "pl");
	size_t nl = strlen(ns);
	int v = -1;
	if (d && strncmp(d, ns, nl) == 0 && d[nl] == '.') {
		v = cached_enum(p, d, d + nl + 1, lookup_fn);
		if (v < 0)
			PERR_AT(p, &t, "unknown enum value pl.%s (expected %s)", d, what);
	}
	if (v < 0)
		PERR_AT(p, &t, "expected %s", what);
	return v;
}

/* `[e, ...]` or `(e, ...)` (trailing comma allowed) as an array of exprs;
 * `what` names the expected form in the error. */
static Expr **parse_expr_list(Parser *p, int *n, const char *what)
{
	const Token *t = peek(p);
	if (!tok_is_op(t, "[") && !tok_is_op(t, "("))
		PERR_AT(p, t, "expected %s, found %s", what, describe(t));
	const char *close = tok_is_op(t, "[") ? "]" : ")";
	skip(p);
	PtrVec v = ARENA_VEC(p->a);
	while (!at_op(p, close)) {
		vec_push(&v, parse_expr(p));
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, close);
	return (Expr **)vec_finish(p->a, &v, n);
}

static Expr **parse_shape(Parser *p, int *n) { return parse_expr_list(p, n, "a shape list '[...]'"); }

static Expr *parse_kwval(Parser *p);

/* pl.TensorView(...) / pl.TileView(...) arguments as written (keywords). */
static ViewSpec *parse_view(Parser *p, const char *const *allowed)
{
	expect_op(p, "(");
	PtrVec names = ARENA_VEC(p->a), vals = ARENA_VEC(p->a);
	while (!at_op(p, ")")) {
		Token k = expect_name(p, "a view field name");
		bool ok = false;
		for (int i = 0; allowed[i]; i++)
			ok |= strcmp(allowed[i], k.text) == 0;
		if (!ok) {
			vec_release(&names);
			vec_release(&vals);
			PERR_AT(p, &k, "unknown view field '%s'", k.text);
		}
		expect_op(p, "=");
		vec_push(&names, (void *)k.text);
		vec_push(&vals, parse_kwval(p));
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	ViewSpec *vs = arena_alloc(p->a, sizeof *vs);
	vs->nkw = (int)names.len;
	vs->kw = arena_alloc(p->a, (names.len + 1) * sizeof *vs->kw);
	/* store in the canonical order of `allowed` */
	int k = 0;
	for (int i = 0; allowed[i]; i++)
		for (size_t j = 0; j < names.len; j++)
			if (strcmp(names.items[j], allowed[i]) == 0) {
				vs->kw[k].name = intern_cstr(p->a, allowed[i]);
				vs->kw[k].value = vals.items[j];
				k++;
			}
	vs->nkw = k;
	vec_release(&names);
	vec_release(&vals);
	return vs;
}

static const char *const tensor_view_fields[] = { "valid_shape", "stride", "layout", "pad", NULL };
static const char *const tile_view_fields[] = {
	"valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad", "compact", NULL,
};

/* A pl.TensorView(...) annotation as the reference stores it: a valid_shape
 * equal to the shape is none, a view of nothing but the default layout is
 * no view, and any other has its stride (default []) and layout. */
static ViewSpec *tensor_view_canonical(Parser *p, ViewSpec *vs, const Type *t, const Token *at)
{
	Expr *valid = NULL, *stride = NULL, *layout = NULL, *pad = NULL;
	for (int i = 0; i < vs->nkw; i++) {
		const char *k = vs->kw[i].name;
		Expr *v = vs->kw[i].value;
		if (!strcmp(k, "valid_shape"))
			valid = v;
		else if (!strcmp(k, "stride"))
			stride = v;
		else if (!strcmp(k, "layout"))
			layout = v;
		else
			pad = v;
	}
	if (!layout && (valid || stride || pad))
		PERR_AT(p, at, "ValueError: layout is required when stride, valid_shape, or pad is provided");
	if (valid && valid->kind == EX_TUPLE && valid->nargs == t->ndim) {
		bool same = true;
		for (int i = 0; i < t->ndim && same; i++)
			same = expr_equal(valid->args[i], t->shape[i]);
		if (same)
			valid = NULL;
	}
	if (stride && stride->kind == EX_TUPLE && stride->nargs == 0)
		stride = NULL;
	bool nd = !layout || (layout->kind == EX_SYMBOL && !strcmp(layout->str, "pl.TensorLayout.ND"));
	if (!valid && !stride && !pad && nd)
		return NULL;
	ViewSpec *n = arena_alloc(p->a, sizeof *n);
	n->kw = arena_alloc(p->a, 5 * sizeof *n->kw);
	n->nkw = 0;
	if (valid)
		n->kw[n->nkw++] = (Kwarg){ intern_cstr(p->a, "valid_shape"), valid };
	n->kw[n->nkw++] = (Kwarg){ intern_cstr(p->a, "stride"), stride ? stride : list_expr(p, NULL, 0, pos_of(at)) };
	n->kw[n->nkw++] = (Kwarg){ intern_cstr(p->a, "layout"), layout };
	if (pad)
		n->kw[n->nkw++] = (Kwarg){ intern_cstr(p->a, "pad"), pad };
	return n;
}

/* Types are immutable, so equal annotations share one Type: a duplicate is
 * dropped again (arena_reset) and the first one returned.  This keeps
 * memory proportional to the distinct types, not to the annotations. */
static bool eq_type(const void *a, const void *b) { return type_equal(a, b); }

static Type *unique_type(Parser *p, Type *t, ArenaMark m)
{
	if (t->kind == TY_SCALAR)
		return t;
	uint64_t h = type_hash(t);
	Type *old = htab_find(&p->types, h, eq_type, t);
	if (old) {
		arena_reset(p->a, m);
		return old;
	}
	htab_add(&p->types, h, t);
	return t;
}

/* Expressions are immutable, so equal constants, symbols, strings, tuples
 * and scalar operator trees are built once and shared by all their uses.
 * Children are already shared, so equality and hashing look one level
 * deep (pointer comparison of children). */
static uint64_t shallow_hash(const Expr *e)
{
	uint64_t h = 1469598103934665603ull;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ull)
	MIX(e->kind);
	MIX(e->op);
	MIX(e->dtype);
	MIX(e->ival); /* also the bits of fval (a union) */
	MIX((uintptr_t)e->str);
	MIX((uintptr_t)e->var);
	MIX((uintptr_t)e->lhs);
	MIX((uintptr_t)e->rhs);
	for (int i = 0; i < e->nargs; i++)
		MIX((uintptr_t)e->args[i]);
#undef MIX
	return h;
}

static bool shallow_eq(const void *va, const void *vb)
{
	const Expr *a = va, *b = vb;
	if (a->kind != b->kind || a->op != b->op || a->dtype != b->dtype || a->ival != b->ival ||
	    a->str != b->str || a->var != b->var || a->lhs != b->lhs || a->rhs != b->rhs ||
	    a->type != b->type || a->nargs != b->nargs)
		return false;
	for (int i = 0; i < a->nargs; i++)
		if (a->args[i] != b->args[i])
			return false;
	return true;
}

/* The shared node equal to *e (copied into the arena when new). */
static Expr *share(Parser *p, const Expr *e)
{
	uint64_t h = shallow_hash(e);
	Expr *old = htab_find(&p->leaves, h, shallow_eq, e);
	if (old)
		return old;
	Expr *n = ir_expr_copy(p->a, e);
	htab_add(&p->leaves, h, n);
	return n;
}

static Expr *shared_leaf(Parser *p, Expr *e) { return share(p, e); }

/* share for a tuple whose items are still in a scratch array: they are
 * copied into the arena only when the tuple is new. */
static Expr *share_tuple(Parser *p, const Expr *e)
{
	uint64_t h = shallow_hash(e);
	Expr *old = htab_find(&p->leaves, h, shallow_eq, e);
	if (old)
		return old;
	Expr **items = NULL;
	if (e->nargs) {
		items = arena_alloc(p->a, (size_t)e->nargs * sizeof *items);
		memcpy(items, e->args, (size_t)e->nargs * sizeof *items);
	}
	Expr *n = ir_expr_copy(p->a, e);
	n->args = items;
	htab_add(&p->leaves, h, n);
	return n;
}

/* Like share, for a node already in the arena: it becomes the shared one
 * when it is new, else the caller gives it back. */
static Expr *share_node(Parser *p, Expr *e)
{
	uint64_t h = shallow_hash(e);
	Expr *old = htab_find(&p->leaves, h, shallow_eq, e);
	if (old)
		return old;
	htab_add(&p->leaves, h, e);
	return e;
}

/* shared_leaf for a number: a numeric leaf is determined by its kind,
 * dtype and value bits (its type is the dtype's scalar type, set here), so
 * a small direct-mapped memo of those finds the shared node of a recurring
 * constant without hashing the node, probing and comparing. */
static Expr *shared_number(Parser *p, Expr *e)
{
	uint64_t bits = (uint64_t)e->ival; /* also the bits of fval (a union) */
	size_t j = (size_t)(((bits * 0x9e3779b97f4a7c15ull) >> 56) ^ e->dtype ^ (unsigned)e->kind << 5) & (LEAF_MEMO - 1);
	LeafMemo *m = &p->leaf_memo[j];
	if (m->e && m->bits == bits && m->kind == e->kind && m->dtype == e->dtype)
		return m->e;
	e->type = ir_scalar_type(p->a, (DType)e->dtype);
	Expr *r = shared_leaf(p, e);
	*m = (LeafMemo){ bits, e->kind, e->dtype, r };
	return r;
}

static Expr *leaf_int(Parser *p, int64_t v, DType dt, SrcPos pos)
{
	Expr e = { .kind = EX_INT, .dtype = dt, .pos = pos, .ival = v };
	if (dt == DT_BOOL) {
		e.kind = EX_BOOL;
		e.ival = v != 0;
	}
	return shared_number(p, &e);
}

static Expr *leaf_float(Parser *p, double v, DType dt, SrcPos pos)
{
	Expr e = { .kind = EX_FLOAT, .dtype = dt, .pos = pos, .fval = v };
	return shared_number(p, &e);
}

static Expr *leaf_str(Parser *p, ExprKind k, const char *s, SrcPos pos)
{
	Expr e = { .kind = k, .pos = pos, .str = s };
	return shared_leaf(p, &e);
}

static Type *parse_type_raw(Parser *p);

/* ------------------------------------------------ annotation cache
 *
 * Almost every assignment repeats an annotation seen before
 * (`pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec]`), and parsing it again only
 * finds the hash-consed Type built the first time.  So the text of each
 * annotation that parsed is remembered with its Type, and the next
 * occurrence of the same bytes skips the lexer past them.
 *
 * That is exact only when a new parse would build an equal Type, and
 * fail nowhere:
 * - the text is one line of names, decimal integers, `[ ] ( ) , . = + - * / %`
 *   and spaces: no comment or string (the lexer queues / decodes those),
 *   no call other than pl.TensorView(...) / pl.TileView(...), no `self.`;
 * - every free name (not after `.`, not a keyword argument) resolves as it
 *   did then: the same local Var and the same module-level Global (a
 *   parameter of another function is another Var, so that is a miss);
 * - the Type hash-conses (its dims compare equal when rebuilt: no calls,
 *   dicts or NaN), so unique_type would have returned the cached one.
 * An annotation that fails to parse is never stored, so its error is
 * reported from a real parse, at the same place. */

#define ANN_MAX_NAMES 8
#define ANN_MAX_DEPTH 32

typedef struct AnnEntry {
	SrcKey key;           /* first: a SrcTable entry */
	struct AnnEntry *next_same_prefix; /* chain of p->ann_by_prefix */
	uint64_t last8;       /* its last 8 bytes, to pass over others of the chain quickly */
	Type *type;
	bool lit;             /* parser state the parse left behind */
	int nops;
	int nnames;
	const char *names[ANN_MAX_NAMES]; /* interned free names ... */
	Var *vars[ANN_MAX_NAMES];         /* ... and what they resolved to */
	Global *globals[ANN_MAX_NAMES];
} AnnEntry;

typedef struct AnnScan {
	const char *start, *end;
	int nnames;
	const char *name_at[ANN_MAX_NAMES];
	uint32_t name_len[ANN_MAX_NAMES];
} AnnScan;

enum { AC_OTHER, AC_IDENT, AC_DIGIT, AC_SPACE, AC_OPEN, AC_CLOSE, AC_PUNCT };
/* ann_class of ASCII bytes as digits (the AC_ values above); bytes >= 0x80
 * are AC_OTHER. */
static const char ann_classes[129] =
	"00000000000000000000000000000000"
	"30000600456666662222222222000600"
	"01111111111111111111111111140501"
	"01111111111111111111111111100000";
static inline int ann_class_of(unsigned char c) { return c < 128 ? ann_classes[c] - '0' : AC_OTHER; }

static bool ann_ident_char(unsigned char c) { int k = ann_class_of(c); return k == AC_IDENT || k == AC_DIGIT; }

/* The extent of the annotation starting at s (`NAME(.NAME)*[ ... ]`) and
 * its free names; false when it is not of the cacheable form. */
static bool ann_scan(const char *s, const char *end, AnnScan *sc)
{
	const char *q = s;
	sc->start = s;
	sc->nnames = 0;
	/* prefix: pl.Tensor / pld.DistributedTensor / tuple, no spaces */
	for (;;) {
		if (q >= end || ann_class_of((unsigned char)*q) != AC_IDENT)
			return false;
		while (q < end && ann_ident_char((unsigned char)*q))
			q++;
		if (q < end && *q == '.') {
			q++;
			continue;
		}
		break;
	}
	if (q >= end || *q != '[')
		return false;
	q++;
	int depth = 1;
	char prev = '['; /* last non-space byte */
	while (q < end) {
		unsigned char c = (unsigned char)*q;
		switch (ann_class_of(c)) {
		case AC_SPACE:
			q++;
			continue;
		case AC_IDENT: {
			const char *n = q;
			while (q < end && ann_ident_char((unsigned char)*q))
				q++;
			size_t len = (size_t)(q - n);
			const char *r = q;
			while (r < end && *r == ' ')
				r++;
			char after = r < end ? *r : 0;
			if (prev == '.') {
				/* an attribute; a call only as pl.TensorView( / pl.TileView( */
				if (after == '(' && !(len == 10 && !memcmp(n, "TensorView", 10)) &&
				    !(len == 8 && !memcmp(n, "TileView", 8)))
					return false;
			} else if (after == '.') {
				if (!(len == 2 && !memcmp(n, "pl", 2)) && !(len == 3 && !memcmp(n, "pld", 3)))
					return false; /* self.f, x.shape, ... */
			} else if (after == '(') {
				return false; /* a call */
			} else if (after == '=' && prev != '=') {
				/* keyword argument name: not looked up */
			} else {
				if (sc->nnames == ANN_MAX_NAMES)
					return false;
				sc->name_at[sc->nnames] = n;
				sc->name_len[sc->nnames++] = (uint32_t)len;
			}
			prev = 'a';
			continue;
		}
		case AC_DIGIT:
			while (q < end && ann_class_of((unsigned char)*q) == AC_DIGIT)
				q++;
			/* 1.5, 1e3, 0x10, 1_000: left to the real lexer */
			if (q < end && (ann_ident_char((unsigned char)*q) || *q == '.'))
				return false;
			prev = '0';
			continue;
		case AC_OPEN:
			if (++depth > ANN_MAX_DEPTH)
				return false;
			break;
		case AC_CLOSE:
			if (--depth == 0) {
				sc->end = q + 1;
				return true;
			}
			break;
		case AC_PUNCT:
			if (c == '=' && (prev == '=' || (q + 1 < end && q[1] == '=')))
				return false; /* == */
			break;
		default:
			return false; /* newline, comment, string, tab, {, <, ... */
		}
		prev = (char)c;
		q++;
	}
	return false;
}

static bool expr_conses(const Expr *e)
{
	switch (e->kind) {
	case EX_VAR: case EX_INT: case EX_BOOL: case EX_STR: case EX_SYMBOL:
		return true;
	case EX_FLOAT:
		return e->fval == e->fval;
	case EX_BINARY:
		return expr_conses(e->lhs) && expr_conses(e->rhs);
	case EX_UNARY: case EX_CAST: case EX_GETITEM:
		return expr_conses(e->lhs);
	case EX_TUPLE:
		for (int i = 0; i < e->nargs; i++)
			if (!expr_conses(e->args[i]))
				return false;
		return true;
	default:
		return false;
	}
}

/* Whether a Type rebuilt from the same text compares equal to t (see
 * type_equal / expr_equal), so that unique_type would return t. */
static bool type_conses(const Type *t)
{
	for (int i = 0; i < t->ndim; i++)
		if (!expr_conses(t->shape[i]))
			return false;
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			if (!expr_conses(t->view->kw[i].value))
				return false;
	for (int i = 0; i < t->nelems; i++)
		if (!type_conses(t->elems[i]))
			return false;
	return t->memref == NULL;
}

static bool ann_same_resolution(Parser *p, const AnnEntry *e)
{
	for (int i = 0; i < e->nnames; i++)
		if (lookup(p, e->names[i]) != e->vars[i] || pmap_get(&p->globals, e->names[i]) != e->globals[i])
			return false;
	return true;
}

static uint64_t load8(const char *s)
{
	uint64_t w;
	memcpy(&w, s, sizeof w);
	return w;
}

/* Which p->ann_by_prefix bucket the text at s (ANN_PREFIX bytes readable) is in. */
static size_t ann_prefix_bucket(const char *s)
{
	uint64_t h = (load8(s) ^ (load8(s + 8) * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	return (size_t)(h >> 32) & (ANN_PREFIX_BUCKETS - 1);
}

/* Entries of ANN_PREFIX bytes or more go on the chains (those longer than
 * ann_extent looks stay off, so both lookups find the same entries). */
static bool ann_chained(const AnnEntry *e) { return e->key.len >= ANN_PREFIX && e->key.len <= 512; }

static void ann_chain(Parser *p, AnnEntry *e)
{
	e->last8 = load8(e->key.text + e->key.len - 8);
	AnnEntry **b = &p->ann_by_prefix[ann_prefix_bucket(e->key.text)];
	e->next_same_prefix = *b;
	*b = e;
}

/* The cached entry whose text starts at s, through the chains: the stored
 * texts are prefix-free (each ends where its first bracket closes), so an
 * entry whose bytes s starts with is the one the full lookup would find.
 * A hit moves to the front of its chain. */
static AnnEntry *ann_find_by_prefix(Parser *p, const char *s, const char *end)
{
	if (end - s < ANN_PREFIX)
		return NULL;
	AnnEntry **head = &p->ann_by_prefix[ann_prefix_bucket(s)], **link = head;
	for (AnnEntry *e = *link; e; link = &e->next_same_prefix, e = *link)
		if (e->key.len <= (size_t)(end - s) && load8(s + e->key.len - 8) == e->last8 &&
		    memcmp(e->key.text, s, e->key.len) == 0) {
			if (link != head) { /* (a hit at the front, the common one, stays) */
				*link = e->next_same_prefix;
				e->next_same_prefix = *head;
				*head = e;
			}
			return e;
		}
	return NULL;
}

static void ann_store(Parser *p, const AnnScan *sc, uint64_t h, Type *t)
{
	const char *slots = p->ann.slots;
	size_t n = p->ann.n;
	AnnEntry *e = (AnnEntry *)(void *)src_claim(&p->ann, sizeof(AnnEntry), sc->start, (size_t)(sc->end - sc->start), h);
	if (p->ann.slots != slots) {
		/* the table grew and its entries moved: chain them again */
		memset(p->ann_by_prefix, 0, sizeof p->ann_by_prefix);
		for (size_t i = 0; i < p->ann.cap; i++) {
			AnnEntry *k = (AnnEntry *)(void *)(p->ann.slots + i * p->ann.entry_size);
			if (k->key.text && ann_chained(k))
				ann_chain(p, k);
		}
	} else if (p->ann.n != n && ann_chained(e)) {
		ann_chain(p, e);
	}
	e->type = t;
	e->lit = p->lit;
	e->nops = p->nops;
	e->nnames = sc->nnames;
	for (int i = 0; i < sc->nnames; i++) {
		const char *name = intern(p->a, sc->name_at[i], sc->name_len[i]);
		e->names[i] = name;
		e->vars[i] = lookup(p, name);
		e->globals[i] = pmap_get(&p->globals, name);
	}
}

/* ann_extent: 1 opens a bracket, 2 closes one, 3 ends the search */
static const unsigned char ann_extent_class[256] = {
	['['] = 1, ['('] = 1, [']'] = 2, [')'] = 2,
	['\n'] = 3, ['\r'] = 3, ['#'] = 3, ['"'] = 3, ['\''] = 3, [0] = 3,
};

/* Where the first bracket opened at or after s closes again (counting
 * `[ (` against `] )`), or NULL at a line end, comment or string.  For
 * the lookup only: bytes equal to a stored annotation's have the extent
 * and free names ann_scan found for it, so they need no full scan. */
static const char *ann_extent(const char *s, const char *end)
{
	int depth = 0;
	if (end - s > 512)
		end = s + 512;
	const unsigned char *q = (const unsigned char *)s, *e = (const unsigned char *)end;
	for (;; q++) {
		while (q < e && !ann_extent_class[*q])
			q++;
		if (q >= e)
			return NULL;
		switch (ann_extent_class[*q]) {
		case 1:
			depth++;
			break;
		case 2:
			if (--depth <= 0)
				return depth == 0 ? (const char *)q + 1 : NULL;
			break;
		default:
			return NULL; /* line end, comment, string, NUL */
		}
	}
}

/* Where the next token starts while the lexer has not scanned it (no
 * lookahead, mid-line: it starts after spaces at the scan position, as in
 * lex_fill's common case), else NULL.  A cached annotation found there is
 * skipped without lexing its first token only to drop it again. */
static const char *unscanned_token_src(const Lexer *lx)
{
	if (lx->nla || lx->pending_dedents || lx->at_line_start)
		return NULL;
	const char *q = lx->p;
	while (q < lx->end && *q == ' ')
		q++;
	return q;
}

static Type *ann_hit(Parser *p, const AnnEntry *e, const char *at, int line)
{
	p->last_line = line;
	lex_skip_to(&p->lx, at + e->key.len);
	p->lit = e->lit;
	p->nops = e->nops;
	return e->type;
}

static Type *parse_type(Parser *p)
{
	const char *src = p->ann.cap ? unscanned_token_src(&p->lx) : NULL;
	if (src) {
		AnnEntry *e = ann_find_by_prefix(p, src, p->lx.end);
		if (e && ann_same_resolution(p, e))
			return ann_hit(p, e, src, p->lx.line);
	}
	const Token *t0 = peek(p);
	if (t0->kind == TK_NAME && p->ann.cap) {
		/* the chains first: they compare the bytes once, where the table
		 * needs the extent found and hashed before it can compare them */
		AnnEntry *e = ann_find_by_prefix(p, t0->src, p->lx.end);
		if (!e) {
			const char *end = ann_extent(t0->src, p->lx.end);
			if (end) {
				size_t n = (size_t)(end - t0->src);
				e = (AnnEntry *)(void *)src_slot(&p->ann, t0->src, n, hash_bytes(t0->src, n));
				if (!e->key.text)
					e = NULL;
			}
		}
		if (e && ann_same_resolution(p, e))
			return ann_hit(p, e, t0->src, t0->line);
	}
	AnnScan sc = { .nnames = 0 };
	bool cacheable = t0->kind == TK_NAME && ann_scan(t0->src, p->lx.end, &sc);
	uint64_t h = cacheable ? hash_bytes(sc.start, (size_t)(sc.end - sc.start)) : 0;
	ArenaMark m = arena_mark(p->a);
	Type *t = unique_type(p, parse_type_raw(p), m);
	if (cacheable && type_conses(t)) {
		/* the parse must have ended exactly at the scanned end */
		const Lexer *lx = &p->lx;
		const char *at = lx->nla ? lx->la[lx->la_head].src : lx->p;
		const char *q = sc.end;
		while (q < at && *q == ' ')
			q++;
		if (q == at)
			ann_store(p, &sc, h, t);
	}
	return t;
}

static Type *parse_type_raw(Parser *p)
{
	const Token *t0 = peek(p);
	Token first = *t0;
	if (tok_is_name(t0, "tuple")) {
		/* only in return annotations: tuple[T1, T2] */
		skip(p);
		Type *tt = ir_type_new(p->a, TY_TUPLE);
		expect_op(p, "[");
		PtrVec v = ARENA_VEC(p->a);
		while (!at_op(p, "]")) {
			vec_push(&v, parse_type(p));
			if (!accept_op(p, ","))
				break;
		}
		if (!at_op(p, "]"))
			vec_release(&v);
		expect_op(p, "]");
		tt->elems = (Type **)vec_finish(p->a, &v, &tt->nelems);
		return tt;
	}
	const char *d = dotted_after(p, "pl");
	bool dist = false;
	if (!d && (d = dotted_after(p, "pld")))
		dist = true;
	if (!d)
		PERR_AT(p, &first, "expected a type such as pl.Tensor[[...], pl.FP32], found %s", describe(&first));
	if (!dist && strcmp(d, "Scalar") == 0) {
		expect_op(p, "[");
		Type *t = ir_scalar_type(p->a, parse_dtype(p));
		expect_op(p, "]");
		return t;
	}
	if ((!dist && (strcmp(d, "Tensor") == 0 || strcmp(d, "Tile") == 0)) ||
	    (dist && strcmp(d, "DistributedTensor") == 0)) {
		bool tile = !dist && d[1] == 'i';
		Type *t = ir_type_new(p->a, tile ? TY_TILE : dist ? TY_DIST_TENSOR : TY_TENSOR);
		expect_op(p, "[");
		t->shape = parse_shape(p, &t->ndim);
		expect_op(p, ",");
		t->dtype = parse_dtype(p);
		/* a Tile takes its memref, memory space and view in any order (a
		 * memref needs the memory space); a Tensor a view or layout and
		 * then a memref, or a memref alone */
		const char *tname = tile ? "Tile" : dist ? "DistributedTensor" : "Tensor";
		Token memref_at = first;
		bool have_mem = false;
		int extra = 0;
		while (accept_op(p, ",")) {
			if (at_op(p, "]"))
				break;
			const Token *e = peek(p);
			Token et = *e;
			const char *x = dotted_after(p, "pl");
			if (!x)
				PERR_AT(p, &et, "unexpected %s in a type", describe(&et));
			if (++extra > (tile ? 3 : 2))
				PERR_AT(p, &et, tile ? "Tile subscript requires [shape, dtype], [shape, dtype, tileview_or_memory_space], "
					"[shape, dtype, memref, memory_space], or [shape, dtype, memref, memory_space, tileview]"
					: "%s subscript requires [shape, dtype], [shape, dtype, layout_or_memref], or "
					"[shape, dtype, layout, memref]", tname);
			if (!tile && t->memref)
				PERR_AT(p, &first, "%s 4th argument must be pl.MemRef(...)", tname);
			if (strcmp(x, "MemRef") == 0) {
				if (t->memref)
					PERR_AT(p, &et, "Tile annotation can contain at most one memref argument");
				memref_at = et;
				t->memref = pp_memref(p, &p->memref_bases, pos_of(&et));
				continue;
			}
			if (!tile && extra == 2)
				PERR_AT(p, &et, "%s 4th argument must be pl.MemRef(...)", tname);
			int ms = -1;
			if (tile && strncmp(x, "Mem.", 4) == 0)
				ms = ir_mem_parse(x + 4);
			else if (tile && strncmp(x, "MemorySpace.", 12) == 0)
				ms = ir_mem_parse(x + 12); /* the long spelling of pl.Mem.X */
			if (!tile && strcmp(x, "TensorView") == 0) {
				t->view = tensor_view_canonical(p, parse_view(p, tensor_view_fields), t, &et);
			} else if (tile && strcmp(x, "TileView") == 0) {
				if (t->view)
					PERR_AT(p, &et, "Tile annotation can contain at most one pl.TileView(...)");
				t->view = parse_view(p, tile_view_fields);
				if (!t->view->nkw)
					t->view = NULL; /* all defaults: the implicit view, which the IR stores as none */
			} else if (ms >= 0) {
				if (have_mem)
					PERR_AT(p, &et, "Tile annotation can contain at most one memory-space argument");
				have_mem = true;
				t->mem = (MemSpace)ms;
			} else if (!tile && (strcmp(x, "ND") == 0 || strcmp(x, "DN") == 0 || strcmp(x, "NZ") == 0 ||
					     strcmp(x, "MX_A_ZZ") == 0 || strcmp(x, "MX_B_NN") == 0)) {
				/* layout shorthand: pl.Tensor[[64], pl.FP16, pl.NZ] */
				t->view = type_tensor_view_layout(p->a, arena_printf(p->a, "pl.TensorLayout.%s", x));
			} else {
				PERR_AT(p, &et, "unexpected 'pl.%s' in a %s type", x, tname);
			}
		}
		if (tile && t->memref && !have_mem)
			PERR_AT(p, &memref_at, "Tile annotation with a memref argument must also specify explicit memory space");
		expect_op(p, "]");
		return t;
	}
	if (!dist && strcmp(d, "Tuple") == 0) {
		Type *t = ir_type_new(p->a, TY_TUPLE);
		expect_op(p, "[");
		if (at_op(p, "(") && tok_is_op(peek_at(p, 1), ")")) {
			skip(p);
			skip(p);
			expect_op(p, "]");
			return t;
		}
		PtrVec v = ARENA_VEC(p->a);
		while (!at_op(p, "]")) {
			vec_push(&v, parse_type(p));
			if (!accept_op(p, ","))
				break;
		}
		if (!at_op(p, "]"))
			vec_release(&v);
		expect_op(p, "]");
		t->elems = (Type **)vec_finish(p->a, &v, &t->nelems);
		return t;
	}
	if (!dist && strcmp(d, "Array") == 0) {
		Type *t = ir_type_new(p->a, TY_ARRAY);
		expect_op(p, "[");
		t->shape = arena_alloc(p->a, sizeof *t->shape);
		t->shape[0] = parse_expr(p);
		t->ndim = 1;
		expect_op(p, ",");
		t->dtype = parse_dtype(p);
		expect_op(p, "]");
		return t;
	}
	if (!dist && strcmp(d, "Ptr") == 0)
		return ir_type_new(p->a, TY_PTR);
	static const char *const named[] = {
		"MemRefType", "PrefetchAsyncContext", "AsyncEvent", "AsyncSession", "UnknownType", NULL,
	};
	if (dist && strcmp(d, "CommCtx") == 0) { /* the wrapper's spelling of pld.CommCtxType */
		Type *t = ir_type_new(p->a, TY_NAMED);
		t->name = intern_cstr(p->a, "pld.CommCtxType");
		return t;
	}
	static const char *const dnamed[] = { "WindowBufferType", "CommCtxType", NULL };
	const char *const *tab = dist ? dnamed : named;
	for (int i = 0; tab[i]; i++)
		if (strcmp(tab[i], d) == 0) {
			Type *t = ir_type_new(p->a, TY_NAMED);
			t->name = arena_printf(p->a, "%s.%s", dist ? "pld" : "pl", d);
			return t;
		}
	PERR_AT(p, &first, "unknown type '%s.%s'", dist ? "pld" : "pl", d);
}

/* ------------------------------------------------------------ expressions */

/* type_make_* allocate only the node (scalar types are pre-built), so a
 * duplicate can be given back to the arena. */
static Expr *mk_binary(Parser *p, BinOp op, Expr *l, Expr *r, SrcPos pos)
{
	/* A chain `a + b + c ...` parses iteratively but builds a tree as deep
	 * as it is long, which every later walk recurses over: bound it. */
	if (++p->nops > MAX_EXPR_OPERATORS)
		perr(p, pos.line, pos.col, "expression too long (more than %d operators)", MAX_EXPR_OPERATORS);
	ArenaMark m = arena_mark(p->a);
	Expr *e = type_make_binary(p->a, op, l, r, pos, p->diag);
	if (!e)
		longjmp(p->fail, 1);
	Expr *s = share_node(p, e);
	if (s != e)
		arena_reset(p->a, m);
	return s;
}

static Expr *mk_unary(Parser *p, UnOp op, Expr *x, SrcPos pos)
{
	ArenaMark m = arena_mark(p->a);
	Expr *e = type_make_unary(p->a, op, x, pos, p->diag);
	if (!e)
		longjmp(p->fail, 1);
	Expr *s = share_node(p, e);
	if (s != e)
		arena_reset(p->a, m);
	return s;
}

static Expr *new_expr(Parser *p, ExprKind k, const Token *t)
{
	return ir_expr_new(p->a, k, t ? pos_of(t) : (SrcPos){ 0, 0 });
}

static Expr *parse_dict(Parser *p)
{
	Token open = expect_op_tok(p, "{");
	Expr *e = new_expr(p, EX_DICT, &open);
	PtrVec keys = ARENA_VEC(p->a), vals = ARENA_VEC(p->a);
	while (!at_op(p, "}")) {
		const Token *k = peek(p);
		if (k->kind != TK_STRING) {
			vec_release(&keys);
			vec_release(&vals);
			PERR_AT(p, k, "expected a string key in attrs, found %s", describe(k));
		}
		Token kt = next(p);
		expect_op(p, ":");
		vec_push(&keys, (void *)intern(p->a, kt.text, kt.slen));
		p->attr_depth++; /* a parse error leaves through longjmp: the parse is over */
		vec_push(&vals, parse_kwval(p));
		p->attr_depth--;
		if (!accept_op(p, ","))
			break;
	}
	if (!at_op(p, "}")) {
		vec_release(&keys);
		vec_release(&vals);
	}
	expect_op(p, "}");
	e->nkw = (int)keys.len;
	e->kw = arena_alloc(p->a, (keys.len + 1) * sizeof *e->kw);
	for (size_t i = 0; i < keys.len; i++)
		e->kw[i] = (Kwarg){ keys.items[i], vals.items[i] };
	vec_release(&keys);
	vec_release(&vals);
	return e;
}

/* A keyword / attribute value: an expression, a dict, or an enum symbol. */
static Expr *parse_kwval(Parser *p)
{
	if (at_op(p, "{"))
		return parse_dict(p);
	return parse_expr(p);
}

/* The arguments of one call while it is parsed: on the C stack up to
 * CALL_ARGS_INLINE of a kind (nearly every call), then in the arena. */
#define CALL_ARGS_INLINE 8

typedef struct ArgList {
	void **items; /* inline[] until that is full */
	int len, cap;
	void *inline_items[CALL_ARGS_INLINE];
} ArgList;

static void args_init(ArgList *l)
{
	l->items = l->inline_items;
	l->len = 0;
	l->cap = CALL_ARGS_INLINE;
}

static __attribute__((noinline)) void args_grow(Parser *p, ArgList *l)
{
	void **n = arena_alloc(p->a, 2 * (size_t)l->cap * sizeof *n);
	memcpy(n, l->items, (size_t)l->len * sizeof *n);
	l->items = n;
	l->cap *= 2;
}

static inline void args_push(Parser *p, ArgList *l, void *x)
{
	if (l->len == l->cap)
		args_grow(p, l);
	l->items[l->len++] = x;
}

/* Argument list after '(' up to and including ')', positional then
 * keyword, into e->args / e->kw (`attrs=` goes to e->attrs). */
static Expr *parse_call_tail(Parser *p, Expr *e)
{
	ArgList args, kwn, kwv;
	args_init(&args);
	args_init(&kwn);
	args_init(&kwv);
	while (!at_op(p, ")")) {
		const Token *t = peek(p);
		bool eq_next = t->kind == TK_NAME && eq_follows(p, t);
		if (eq_next || (t->kind == TK_NAME && tok_is_op(peek_at(p, 1), "="))) {
			const char *k = t->text;
			SrcPos kpos = pos_of(t);
			if (eq_next) { /* `name=`: skipped without lexing the '=' */
				p->last_line = t->line;
				lex_skip_to(&p->lx, t->src + t->nlen + 1);
			} else {
				skip(p);
				skip(p);
			}
			for (int i = 0; i < kwn.len; i++)
				if (kwn.items[i] == k)
					perr(p, kpos.line, kpos.col, "keyword argument '%s' repeated", k);
			args_push(p, &kwn, (void *)k);
			args_push(p, &kwv, parse_kwval(p));
		} else {
			if (kwn.len)
				PERR_AT(p, t, "positional argument follows keyword argument");
			args_push(p, &args, parse_expr(p));
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	/* one allocation for both arrays; the kwargs keep a zeroed entry past
	 * their end, args are NULL when there are none */
	size_t na = (size_t)args.len;
	Kwarg *kw = arena_alloc(p->a, na * sizeof *e->args + ((size_t)kwn.len + 1) * sizeof *kw);
	Expr **a = (Expr **)(void *)kw;
	kw = (Kwarg *)(void *)(a + na);
	for (size_t i = 0; i < na; i++) /* a few items: no memcpy call */
		a[i] = args.items[i];
	e->args = na ? a : NULL;
	e->nargs = args.len;
	e->kw = kw;
	int k = 0;
	for (int i = 0; i < kwn.len; i++) {
		const char *name = kwn.items[i];
		Expr *v = kwv.items[i];
		if (name[0] == 'a' && strcmp(name, "attrs") == 0 && v->kind == EX_DICT) {
			e->attrs = v;
			continue;
		}
		e->kw[k++] = (Kwarg){ name, v };
	}
	e->nkw = k;
	return e;
}

static Expr *parse_name_ref(Parser *p)
{
	const Token *t = peek(p);
	const char *name = t->text;
	SrcPos pos = pos_of(t);
	skip(p); /* the name and its position are all it needs: no token copy */
	Var *v = lookup(p, name);
	if (v)
		return ir_var_ref(p->a, v);
	Global *g = pmap_get(&p->globals, name);
	if (g && g->value) {
		p->lit = true; /* module constants are inlined as literals */
		return g->value;
	}
	if (g)
		return ir_var_ref(p->a, g->dyn);
	if (strcmp(name, "True") == 0 || strcmp(name, "False") == 0)
		return leaf_int(p, name[0] == 'T', DT_BOOL, pos);
	perr(p, pos.line, pos.col, "undefined variable '%s'", name);
}

static void prescan(Parser *p);
static Type *call_type_generic(Parser *p, const char *name, bool submit);
static Function *parse_function(Parser *p, bool in_program);

/* Dynamic dims of the callee's signature bound to the call's arguments. */
typedef struct DynBind {
	Var *dyn[32];
	Expr *to[32];
	int n;
} DynBind;

static Type *subst_dyn(Parser *p, Type *t, const DynBind *b)
{
	if (!t)
		return t;
	if (t->kind == TY_TUPLE) {
		Type **el = NULL;
		for (int i = 0; i < t->nelems; i++) {
			Type *n = subst_dyn(p, t->elems[i], b);
			if (n != t->elems[i] && !el) {
				el = arena_alloc(p->a, (size_t)(t->nelems + 1) * sizeof *el);
				memcpy(el, t->elems, (size_t)t->nelems * sizeof *el);
			}
			if (el)
				el[i] = n;
		}
		if (!el)
			return t;
		Type *n = ir_type_new(p->a, TY_TUPLE);
		*n = *t;
		n->elems = el;
		return n;
	}
	if (t->kind != TY_TENSOR && t->kind != TY_TILE)
		return t;
	Expr **dims = NULL;
	for (int i = 0; i < t->ndim; i++) {
		Expr *d = t->shape[i];
		if (d->kind != EX_VAR || d->var->kind != VK_DYN)
			continue;
		for (int k = 0; k < b->n; k++)
			if (b->dyn[k] == d->var) {
				if (!dims) {
					dims = arena_alloc(p->a, (size_t)(t->ndim + 1) * sizeof *dims);
					memcpy(dims, t->shape, (size_t)t->ndim * sizeof *dims);
				}
				dims[i] = b->to[k];
			}
	}
	if (!dims)
		return t;
	Type *n = ir_type_new(p->a, t->kind);
	*n = *t;
	n->shape = dims;
	return n;
}

/* The reference deduces a call's type by matching the callee's parameter
 * types against the arguments: a pl.dynamic dim of a parameter takes the
 * argument's dim, and the return types are specialised accordingly. */
static Type *specialise_call(Parser *p, const FnSig *s, Expr *call, Type *t)
{
	DynBind b = { .n = 0 };
	for (int i = 0; i < s->nparams && i < call->nargs; i++) {
		Type *pt = s->params[i].var->type, *at = ir_expr_type(call->args[i]);
		if (!at || (pt->kind != TY_TENSOR && pt->kind != TY_TILE) || at->kind != pt->kind || at->ndim != pt->ndim)
			continue;
		for (int d = 0; d < pt->ndim; d++) {
			Expr *pd = pt->shape[d];
			if (pd->kind != EX_VAR || pd->var->kind != VK_DYN || expr_equal(pd, at->shape[d]) || b.n == 32)
				continue;
			bool seen = false;
			for (int k = 0; k < b.n; k++)
				seen |= b.dyn[k] == pd->var;
			if (!seen) {
				b.dyn[b.n] = pd->var;
				b.to[b.n++] = at->shape[d];
			}
		}
	}
	return b.n ? subst_dyn(p, t, &b) : t;
}

/* The type of self.NAME(...) (submit: of pl.submit(self.NAME, ...), which
 * adds the task id), or NULL while the callee is unknown. */
static Type *call_type(Parser *p, const char *name, bool submit, Expr *call)
{
	Type *t = call_type_generic(p, name, submit);
	FnSig *s = pmap_get(p->sigs, name);
	return t && s ? specialise_call(p, s, call, t) : t;
}

static Type *call_type_generic(Parser *p, const char *name, bool submit)
{
	FnSig *s = pmap_get(p->sigs, name);
	if (!s && !p->prescanned) {
		prescan(p);
		s = pmap_get(p->sigs, name);
	}
	if (!s)
		return NULL;
	if (!submit && s->nrets <= 1)
		return s->nrets ? s->rets[0] : NULL;
	Type **slot = submit ? &s->submit_type : &s->call_type;
	if (!*slot) {
		Type *t = ir_type_new(p->a, TY_TUPLE);
		t->nelems = s->nrets + submit;
		t->elems = arena_alloc(p->a, (size_t)(t->nelems + 1) * sizeof *t->elems);
		if (s->nrets)
			memcpy(t->elems, s->rets, (size_t)s->nrets * sizeof *t->elems);
		if (submit)
			t->elems[s->nrets] = ir_scalar_type(p->a, DT_TASK_ID);
		*slot = t;
	}
	return *slot;
}

/* self.f(a, pl.no_dep(b)) -> self.f(a, b, attrs={"arg_direction_overrides": [1]}):
 * the marker only tells the dependency analysis to skip that argument. */
static void no_dep_args(Parser *p, Expr *call)
{
	PtrVec idx = ARENA_VEC(p->a);
	for (int i = 0; i < call->nargs; i++) {
		Expr *a = call->args[i];
		if (a->kind == EX_OP_CALL && !strcmp(a->str, "no_dep")) {
			if (a->nargs != 1 || a->nkw)
				perr(p, a->pos.line, a->pos.col, "pl.no_dep takes exactly one argument");
			call->args[i] = a->args[0];
			vec_push(&idx, leaf_int(p, i, DT_INDEX, a->pos));
		}
	}
	if (!idx.len)
		return;
	Expr *list = ir_expr_new(p->a, EX_TUPLE, call->pos);
	list->args = (Expr **)vec_finish(p->a, &idx, &list->nargs);
	Expr *d = call->attrs;
	Expr *nd = ir_expr_new(p->a, EX_DICT, call->pos);
	nd->nkw = (d ? d->nkw : 0) + 1;
	nd->kw = arena_alloc(p->a, (size_t)(nd->nkw + 1) * sizeof *nd->kw);
	if (d)
		memcpy(nd->kw, d->kw, (size_t)d->nkw * sizeof *nd->kw);
	nd->kw[nd->nkw - 1] = (Kwarg){ intern_cstr(p->a, "arg_direction_overrides"), list };
	call->attrs = nd;
}

/* pl.dump_tag(t) marks t for every later dispatch: a pl.at scope dumps
 * all the tagged tensors, a call or submit those of its arguments (in
 * argument order, with the ones it names already). */
static bool dump_tagged(Parser *p, const Var *v)
{
	for (size_t i = 0; i < p->dump_tagged.len; i++)
		if (p->dump_tagged.items[i] == v)
			return true;
	return false;
}

static void scope_dump_tags(Parser *p, Scope *sc)
{
	if (!p->dump_tagged.len)
		return;
	PtrVec v = ARENA_VEC(p->a);
	for (int i = 0; i < sc->ndumps; i++)
		vec_push(&v, sc->dumps[i]);
	for (size_t i = 0; i < p->dump_tagged.len; i++) {
		bool have = false;
		for (int j = 0; j < sc->ndumps; j++)
			have |= sc->dumps[j] == p->dump_tagged.items[i];
		if (!have)
			vec_push(&v, p->dump_tagged.items[i]);
	}
	sc->dumps = (Var **)vec_finish(p->a, &v, &sc->ndumps);
	sc->has_dumps = true;
}

static void call_dump_tags(Parser *p, Expr *e)
{
	if (!p->dump_tagged.len)
		return;
	bool submit = e->kind == EX_SUBMIT;
	/* where the call names its dumps already: a submit's dumps=, a call's
	 * attrs={"dump_vars": [...]} */
	Expr **slot = NULL;
	if (submit) {
		for (int i = 0; i < e->nkw; i++)
			if (!strcmp(e->kw[i].name, "dumps"))
				slot = &e->kw[i].value;
	} else if (e->attrs) {
		for (int i = 0; i < e->attrs->nkw; i++)
			if (!strcmp(e->attrs->kw[i].name, "dump_vars"))
				slot = &e->attrs->kw[i].value;
	}
	const Expr *named = slot ? *slot : NULL;
	PtrVec v = ARENA_VEC(p->a);
	for (int i = 0; i < e->nargs; i++) {
		Expr *a = e->args[i];
		if (a->kind != EX_VAR)
			continue;
		bool in = dump_tagged(p, a->var);
		for (int j = 0; named && named->kind == EX_TUPLE && j < named->nargs && !in; j++)
			in = named->args[j]->kind == EX_VAR && named->args[j]->var == a->var;
		bool dup = false;
		for (size_t j = 0; j < v.len; j++)
			dup |= ((Expr *)v.items[j])->var == a->var;
		if (in && !dup)
			vec_push(&v, a);
	}
	if (!v.len || (named && named->kind == EX_TUPLE && named->nargs == (int)v.len)) {
		vec_release(&v);
		return;
	}
	int n;
	Expr **items = (Expr **)vec_finish(p->a, &v, &n);
	Expr *list = list_expr(p, items, n, e->pos);
	if (slot) {
		*slot = list;
		return;
	}
	if (submit) {
		Kwarg *kw = arena_alloc(p->a, (size_t)(e->nkw + 2) * sizeof *kw);
		for (int i = 0; i < e->nkw; i++)
			kw[i] = e->kw[i];
		kw[e->nkw++] = (Kwarg){ intern_cstr(p->a, "dumps"), list };
		e->kw = kw;
		return;
	}
	Expr *d = e->attrs ? ir_expr_copy(p->a, e->attrs) : ir_expr_new(p->a, EX_DICT, e->pos);
	Kwarg *kw = arena_alloc(p->a, (size_t)(d->nkw + 2) * sizeof *kw);
	kw[0] = (Kwarg){ intern_cstr(p->a, "dump_vars"), list };
	for (int i = 0; i < d->nkw; i++)
		kw[i + 1] = d->kw[i];
	d->kw = kw;
	d->nkw++;
	e->attrs = d;
}

/* The reference stores pl.submit / pl.spmd_submit options in a fixed order,
 * whatever order they were written in. */
static void sort_submit_kwargs(Expr *e)
{
	static const char *const order[] = { "deps", "dumps", "core_num", "sync_start", "allow_early_resolve", "predicate", NULL };
	int rank[64];
	if (e->nkw > 64)
		return;
	for (int i = 0; i < e->nkw; i++) {
		rank[i] = 99;
		for (int k = 0; order[k]; k++)
			if (!strcmp(e->kw[i].name, order[k]))
				rank[i] = k;
	}
	for (int i = 1; i < e->nkw; i++) /* insertion sort: stable, tiny lists */
		for (int j = i; j > 0 && rank[j - 1] > rank[j]; j--) {
			Kwarg t = e->kw[j];
			e->kw[j] = e->kw[j - 1];
			e->kw[j - 1] = t;
			int r = rank[j];
			rank[j] = rank[j - 1];
			rank[j - 1] = r;
		}
}

/* A member of an enum whose members ptoopt knows (pl.Mem, pl.Level,
 * pl.Role, pl.FunctionType, pl.SplitMode) or a name spelled like a data type
 * (pl.FP33) must exist (d: as written, after "pl."): Python would fail on the attribute lookup, and an
 * op keyword would otherwise carry the typo into the output unnoticed.
 * Other enum families are passed through as written. */
static void check_enum_symbol(Parser *p, SrcPos at, const char *d)
{
	static const struct {
		const char *family;
		int (*parse)(const char *);
	} known[] = {
		{ "Mem.", ir_mem_parse }, { "MemorySpace.", ir_mem_parse },
		{ "Level.", ir_level_parse }, { "Role.", ir_role_parse },
		{ "FunctionType.", ir_functype_parse }, { "SplitMode.", ir_split_parse },
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		size_t n = strlen(known[i].family);
		if (!strncmp(d, known[i].family, n)) {
			if (known[i].parse(d + n) < 0)
				perr(p, at.line, at.col, "unknown enum value pl.%s", d);
			return;
		}
	}
	/* FP.., BF.., HF.., INT.., UINT.. followed by digits only */
	size_t k = strspn(d, "ABFHINPTU");
	if (k >= 2 && d[k] && strspn(d + k, "0123456789") == strlen(d + k) && ir_dtype_parse(d) < 0 &&
	    (!strncmp(d, "FP", 2) || !strncmp(d, "BF", 2) || !strncmp(d, "HF", 2) ||
	     !strncmp(d, "INT", 3) || !strncmp(d, "UINT", 4)))
		perr(p, at.line, at.col, "unknown data type pl.%s", d);
}

/* pl.<...> in expression position: special forms, enum symbols, op calls.
 * The current token is the name `prefix` ("pl" or "pld"), a '.' after it. */
static bool split_transfer(Parser *p, const Expr *e, const char *d, SrcPos at);

static Expr *parse_pl(Parser *p, const char *prefix)
{
	const Token *t0 = peek(p);
	const SrcPos at = pos_of(t0); /* of the prefix name (not a token copy) */
	/* dotted_tail, not dotted_after(p, prefix): the caller has matched the
	 * name, and prefix is no literal that the name test could fold */
	const char *d = dotted_tail(p, t0);
	bool pld = prefix[2] == 'd';
	/* the '(' of a call, right after the name: taken without lexing it */
	bool call = lex_take_open_paren(&p->lx);
	if (!call && !at_op(p, "(")) {
		/* an enum / dtype symbol: pl.FP32, pl.Mem.Vec, pl.adir.input, ...
		 * The shared node depends only on the spelling (d is interned),
		 * and so does check_enum_symbol: one lookup for a repeated one. */
		Expr *known = pld ? NULL : pmap_get(&p->symbols, d);
		if (known)
			return known;
		char buf[300];
		/* pl.MemorySpace.X is the long spelling of pl.Mem.X */
		if (!strncmp(d, "MemorySpace.", 12))
			snprintf(buf, sizeof buf, "%s.Mem.%s", prefix, d + 12);
		else
			snprintf(buf, sizeof buf, "%s.%s", prefix, d);
		if (!pld)
			check_enum_symbol(p, at, d);
		Expr *sym = leaf_str(p, EX_SYMBOL, intern_cstr(p->a, buf), at);
		if (!pld)
			pmap_put(&p->symbols, d, sym);
		return sym;
	}
	if (!call)
		skip(p); /* ( */
	if (!pld && (d == p->nm[NM_CONST] || d == p->nm[NM_CAST])) {
		bool is_const = d[1] == 'o';
		Expr *v = parse_expr(p);
		Type *vt = is_const ? NULL : ir_expr_type(v);
		if (vt && (vt->kind == TY_TENSOR || vt->kind == TY_TILE || vt->kind == TY_DIST_TENSOR)) {
			/* pl.cast(tensor_or_tile, target_type=..., ...): the op sugar */
			Expr *e = ir_expr_new(p->a, EX_OP_CALL, at);
			e->str = d;
			if (accept_op(p, ","))
				parse_call_tail(p, e);
			else
				expect_op(p, ")");
			Expr **args = arena_alloc(p->a, (size_t)(e->nargs + 2) * sizeof *args);
			args[0] = v;
			for (int i = 0; i < e->nargs; i++)
				args[i + 1] = e->args[i];
			e->args = args;
			e->nargs++;
			Expr *r = sugar_lower_call(&p->sugar, e);
			if (!r)
				longjmp(p->fail, 1);
			return r;
		}
		expect_op(p, ",");
		const Token *kt = peek(p);
		if ((tok_is_name(kt, "dtype") || tok_is_name(kt, "target_type")) && tok_is_op(peek_at(p, 1), "=")) {
			skip(p);
			skip(p);
		}
		DType dt = parse_dtype(p);
		accept_op(p, ",");
		expect_op(p, ")");
		if (is_const) {
			if (v->kind != EX_INT && v->kind != EX_FLOAT && v->kind != EX_BOOL)
				perr(p, at.line, at.col, "pl.const needs a number literal");
			if (v->kind == EX_FLOAT || ir_dtype_is_float(dt)) {
				if (!ir_dtype_is_float(dt))
					perr(p, at.line, at.col, "pl.const: float value for integer type pl.%s", ir_dtype_name(dt));
				return leaf_float(p, v->kind == EX_FLOAT ? v->fval : (double)v->ival, dt, at);
			}
			return leaf_int(p, v->ival, dt, at);
		}
		Expr c = { .kind = EX_CAST, .pos = at, .lhs = v, .dtype = dt, .type = ir_scalar_type(p->a, dt) };
		return share(p, &c);
	}
	/* pl.<DataType>.get_byte(): the size in bytes, ceil(bits / 8), as an
	 * INDEX constant (folded by the reference's parser too; a call, so not
	 * itself folded into the arithmetic around it) */
	if (!pld && strlen(d) > 9 && !strcmp(d + strlen(d) - 9, ".get_byte")) {
		char dt[32];
		snprintf(dt, sizeof dt, "%.*s", (int)(strlen(d) - 9 < 31 ? strlen(d) - 9 : 31), d);
		int t = ir_dtype_parse(dt);
		if (t < 0 || strchr(dt, '.'))
			perr(p, at.line, at.col, "Unknown DataType '%s' in pl.%s()", dt, d);
		expect_op(p, ")");
		return leaf_int(p, (ir_dtype_bits((DType)t) + 7) / 8, DT_INDEX, at);
	}
	/* scalar min / max: pl.min, pl.max and their tile_ops spellings */
	if (!pld && (d == p->nm[NM_MIN] || d == p->nm[NM_MAX] || !strcmp(d, "tile.min") || !strcmp(d, "tile.max"))) {
		Expr *a = parse_expr(p);
		expect_op(p, ",");
		Expr *b = parse_expr(p);
		accept_op(p, ",");
		expect_op(p, ")");
		return mk_binary(p, d[strlen(d) - 2] == 'i' ? OP_MIN : OP_MAX, a, b, at);
	}
	if (!pld && (d == p->nm[NM_SUBMIT] || d == p->nm[NM_SPMD_SUBMIT])) {
		Expr *e = ir_expr_new(p->a, EX_SUBMIT, at);
		e->spmd = d[0] == 's' && d[1] == 'p';
		const Token *s = peek(p);
		if (!tok_is_name(s, "self") || !tok_is_op(peek_at(p, 1), "."))
			PERR_AT(p, s, "pl.%s expects self.<function> as its first argument", d);
		skip(p);
		skip(p);
		Token f = expect_name(p, "a function name");
		e->str = f.text;
		e->lhs = new_expr(p, EX_SYMBOL, &f); /* position of the callee, for errors */
		e->lhs->str = f.text;
		if (accept_op(p, ",")) {
			p->fn_args++;
			parse_call_tail(p, e);
			p->fn_args--;
		} else {
			expect_op(p, ")");
		}
		call_dump_tags(p, e);
		sort_submit_kwargs(e);
		e->type = call_type(p, f.text, true, e);
		vec_push(&p->fn_calls, e);
		return e;
	}
	if (!pld && d[0] == 'd' && !strcmp(d, "dynamic")) {
		/* pl.dynamic("N") written in a type: the dynamic dimension N, one
		 * Var per name (the header pre-scan finds the same one) */
		const char *s = parse_string_kw(p);
		accept_op(p, ",");
		expect_op(p, ")");
		Var *dv = pmap_get(p->inline_dyns, s);
		if (!dv) {
			dv = new_var(p, s, ir_scalar_type(p->a, DT_INDEX), VK_DYN, at);
			pmap_put(p->inline_dyns, s, dv);
		}
		p->lit = false;
		return ir_var_ref(p->a, dv);
	}
	Expr *e = ir_expr_new(p->a, EX_OP_CALL, at);
	e->str = pld ? intern_cstr(p->a, arena_printf(p->a, "pld.%s", d)) : d; /* d is interned */
	parse_call_tail(p, e);
	/* DSL forms that are not ops: kept as calls for the construct that
	 * consumes them (a while loop's pl.cond, a scope's
	 * pl.set_cache_policy declaration, a call argument's pl.no_dep) */
	if (!pld && (d[0] == 'c' || d[0] == 's' || d[0] == 'n') &&
	    (!strcmp(d, "cond") || !strcmp(d, "set_cache_policy") || (!strcmp(d, "no_dep") && p->fn_args)))
		return e;
	/* pl.tensor.no_dep / dump_tag are what their DSL functions are: the
	 * identity (tensor_ops returns the argument); the pl.no_dep and
	 * pl.dump_tag markers outside their constructs are unknown ops, as
	 * in the reference */
	if (!pld && d[0] == 't' && (!strcmp(d, "tensor.no_dep") || !strcmp(d, "tensor.dump_tag"))) {
		if (e->nargs != 1 || e->nkw)
			perr(p, at.line, at.col, "pl.%s takes exactly one argument, a tensor", d);
		return e->args[0];
	}
	if (!pld && e->nargs >= 2 && e->args[1]->kind != EX_TUPLE && (d[0] == 'r' || d[0] == 'w' || d[0] == 't') &&
	    (!strcmp(d, "read") || !strcmp(d, "write") || !strcmp(d, "tensor.read") || !strcmp(d, "tensor.write") ||
	     !strcmp(d, "tile.read") || !strcmp(d, "tile.write"))) {
		/* the DSL wrappers take a bare index as a flat 1-D one: [i] */
		Type *it = ir_expr_type(e->args[1]);
		if (it && it->kind == TY_SCALAR)
			e->args[1] = list_expr(p, &e->args[1], 1, e->args[1]->pos);
	}
	if (!pld && (d[0] == 'a' || d[0] == 't') && split_transfer(p, e, d, at)) {
		e->str = intern_cstr(p->a, strchr(d, '.') ? strchr(d, '.') + 1 : d);
		if (p->split_aiv_depth) {
			/* the op carries the region's mode as its split (printed
			 * only outside a region) */
			Kwarg *kw = arena_alloc(p->a, (size_t)(e->nkw + 1) * sizeof *kw);
			memcpy(kw, e->kw, (size_t)e->nkw * sizeof *kw);
			kw[e->nkw].name = intern_cstr(p->a, "split");
			kw[e->nkw].value = leaf_int(p, (int64_t)p->split_aiv_mode, DT_INDEX, at);
			e->kw = kw;
			e->nkw++;
		}
	}
	Expr *r = sugar_lower_call(&p->sugar, e);
	if (!r)
		longjmp(p->fail, 1);
	return r;
}

/* Lists of integer literals (`[64, 128]`, `[0, 0]`) are shared tuples of
 * shared leaves, so the same text always gives the same node: remembered
 * by text like annotations (see the annotation cache above).  Only the
 * plain form: decimal integers without leading zeros, `,` and spaces, one
 * line, no trailing comma, and not near the nesting limit. */
typedef struct ListEntry {
	SrcKey key; /* first: a SrcTable entry */
	Expr *list;
} ListEntry;

/* The end of the plain integer list at s, or NULL. */
static const char *int_list_end(const char *s, const char *end)
{
	const char *q = s + 1;
	for (;;) {
		while (q < end && *q == ' ')
			q++;
		const char *d = q;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == d || q - d > 18 || (*d == '0' && q - d > 1) || q >= end || ident_byte((unsigned char)*q) || *q == '.')
			return NULL;
		while (q < end && *q == ' ')
			q++;
		if (q >= end)
			return NULL;
		if (*q == ']')
			return q + 1;
		if (*q != ',')
			return NULL;
		q++;
	}
}

/* The list memo: the cached lists of up to 16 bytes seen last, in sets by
 * their first three bytes (`[64`; every list has three).  Like the
 * annotation chains, it compares bytes only: the stored texts end where
 * their first ']' is, so one whose bytes the source at s starts with is
 * the list the table would find there. */
static ListMemo *list_memo_set(Parser *p, uint64_t w0)
{
	uint64_t h = ((w0 & 0xFFFFFF) * 0x9e3779b97f4a7c15ull) >> 58;
	return p->list_memo[h & (LIST_MEMO_SETS - 1)];
}

static void list_memo_put(Parser *p, const char *s, size_t n, Expr *list)
{
	if (n > 16 || p->lx.end - s < 16)
		return;
	ListMemo *set = list_memo_set(p, load8(s));
	memmove(set + 1, set, (LIST_MEMO_WAYS - 1) * sizeof *set); /* the oldest way goes */
	ListMemo *m = &set[0];
	m->len = (uint32_t)n;
	for (int i = 0; i < 2; i++) {
		size_t k = n > 8 * (size_t)i ? n - 8 * (size_t)i : 0; /* bytes of word i */
		m->mask[i] = k >= 8 ? ~0ull : (1ull << (8 * k)) - 1; /* little-endian: the first k bytes */
		m->w[i] = load8(s + 8 * i) & m->mask[i];
	}
	m->list = list;
}

static Expr *int_list_cached(Parser *p, const Token *t)
{
	if (!p->lists.cap || p->depth + 2 >= MAX_EXPR_DEPTH)
		return NULL;
	const char *s = t->src, *e = NULL;
	Expr *list = NULL;
	if (p->lx.end - s >= 16) {
		uint64_t w0 = load8(s), w1 = load8(s + 8);
		ListMemo *set = list_memo_set(p, w0);
		for (int i = 0; i < LIST_MEMO_WAYS && set[i].list; i++)
			if (((w0 ^ set[i].w[0]) & set[i].mask[0]) == 0 && ((w1 ^ set[i].w[1]) & set[i].mask[1]) == 0) {
				e = s + set[i].len;
				list = set[i].list;
				break;
			}
	}
	if (!list) {
		e = int_list_end(s, p->lx.end);
		if (!e)
			return NULL;
		size_t n = (size_t)(e - s);
		ListEntry *le = (ListEntry *)(void *)src_slot(&p->lists, s, n, hash_bytes(s, n));
		if (!le->key.text)
			return NULL;
		list = le->list;
		list_memo_put(p, s, n, list);
	}
	p->last_line = t->line;
	lex_skip_to(&p->lx, e);
	p->lit = true; /* as after parsing its last element */
	return list;
}

/* After [ ... ] at s parsed to list: remember it if it is a plain one. */
static void int_list_store(Parser *p, const char *s, Expr *list)
{
	const char *e = int_list_end(s, p->lx.end);
	if (!e || !p->lit || list->kind != EX_TUPLE)
		return;
	for (int i = 0; i < list->nargs; i++)
		if (list->args[i]->kind != EX_INT)
			return;
	/* the parse must have ended exactly there */
	const Lexer *lx = &p->lx;
	const char *at = lx->nla ? lx->la[lx->la_head].src : lx->p;
	const char *q = e;
	while (q < at && *q == ' ')
		q++;
	if (q != at)
		return;
	size_t n = (size_t)(e - s);
	ListEntry *le = (ListEntry *)(void *)src_claim(&p->lists, sizeof(ListEntry), s, n, hash_bytes(s, n));
	le->list = list;
	list_memo_put(p, s, n, list);
}

static Expr *registry_call(Parser *p, const char *op, Expr **args, int nargs, SrcPos pos);

/* pl.aiv_shard / pl.aic_gather (also spelt pl.tile.* and pl.tensor.*): the
 * namespace follows the operand (a Tensor gives tensor.*, anything else
 * tile.*), and the split comes either from the enclosing
 * `for ... in pl.split_aiv(...)` loop or, outside one, from an explicit
 * integer split= (the outlined, tile-only form the printer writes after
 * outlining).  The reference's parser checks these forms itself
 * (_parse_split_transfer_op); so does this.  Returns whether d is one. */
static bool split_transfer(Parser *p, const Expr *e, const char *d, SrcPos at)
{
	const char *op = strchr(d, '.') ? strchr(d, '.') + 1 : d;
	if (strcmp(op, "aiv_shard") && strcmp(op, "aic_gather"))
		return false;
	if (op != d && strncmp(d, "tile.", 5) && strncmp(d, "tensor.", 7))
		return false;
	bool gather = op[1] == 'i' && op[2] == 'c';
	const Expr *split = NULL, *stride = NULL;
	for (int i = 0; i < e->nkw; i++) {
		const char *k = e->kw[i].name;
		if (!strcmp(k, "split"))
			split = e->kw[i].value;
		else if (!strcmp(k, "lane_stride"))
			stride = e->kw[i].value;
		else if (!strcmp(k, "mode"))
			perr(p, at.line, at.col, "pl.%s() does not take a mode= argument — pass the lowered integer 'split=' "
			     "(outlined form) or rely on the enclosing pl.split_aiv(mode=...) scope (high-level form)", op);
		else
			perr(p, at.line, at.col, "pl.%s() does not accept keyword argument '%s'", op, k);
	}
	if (e->nargs != 1)
		perr(p, at.line, at.col, "pl.%s() takes exactly one positional argument (the tile to %s), got %d", op,
		     gather ? "gather" : "shard", e->nargs);
	const Type *t = ir_expr_type(e->args[0]);
	if (t && t->kind == TY_DIST_TENSOR)
		perr(p, at.line, at.col, "pl.%s does not support distributed tensors (AIV/AIC split only)", op);
	bool tensor = t && t->kind == TY_TENSOR;
	if (split) {
		if (p->split_aiv_depth)
			perr(p, at.line, at.col, "pl.%s() does not take a split= argument inside a 'for ... in pl.split_aiv(...)' "
			     "loop — the split mode is inherited from that scope", op);
		if (tensor)
			perr(p, at.line, at.col, "pl.%s(..., split=N) does not accept a high-level Tensor operand — the outlined "
			     "split= form is tile-only. Wrap the Tensor in a 'for aiv_id in pl.split_aiv(...)' region instead, "
			     "which supplies the split mode and lowers to the tile op.", op);
		if (split->kind != EX_INT)
			perr(p, at.line, at.col, "pl.%s(..., split=N) requires an integer split (the lowered SplitMode value)", op);
		if (stride && gather)
			perr(p, at.line, at.col, "pl.aic_gather() does not take a lane_stride= argument: only the Cube -> Vector "
			     "shard is ever rebalanced onto a ragged boundary's valid region, so the gather always re-joins "
			     "the lanes on the box partition");
		if (stride && stride->kind != EX_INT)
			perr(p, at.line, at.col, "pl.%s(..., lane_stride=N) requires an integer partition stride", op);
		return true;
	}
	if (!p->split_aiv_depth)
		perr(p, at.line, at.col, "pl.%s() must be used inside a 'for ... in pl.split_aiv(...)' loop (or pass an "
		     "explicit integer 'split=' in the outlined form); it otherwise inherits the split mode from that scope", op);
	if (stride)
		perr(p, at.line, at.col, "pl.%s() does not take a lane_stride= argument inside a 'for ... in "
		     "pl.split_aiv(...)' loop — the partition follows the region's own per-lane offsets", op);
	return true;
}
static Expr *list_expr(Parser *p, Expr **items, int n, SrcPos pos);

static Expr *parse_atom(Parser *p)
{
	const Token *t = peek(p);
	p->lit = t->kind == TK_INT || t->kind == TK_FLOAT;
	switch (t->kind) {
	/* literals: their fields read before the token is dropped (no copy) */
	case TK_INT: {
		if (t->overflow || t->ival > (uint64_t)INT64_MAX)
			PERR_AT(p, t, "integer literal too large for a 64-bit integer");
		int64_t v = (int64_t)t->ival;
		SrcPos pos = pos_of(t);
		skip(p);
		return leaf_int(p, v, DT_INDEX, pos);
	}
	case TK_FLOAT: {
		double v = t->fval;
		SrcPos pos = pos_of(t);
		skip(p);
		return leaf_float(p, v, DT_FP32, pos);
	}
	case TK_STRING: {
		const char *v = intern(p->a, t->text, t->slen);
		SrcPos pos = pos_of(t);
		skip(p);
		return leaf_str(p, EX_STR, v, pos);
	}
	case TK_NAME:
		/* `pl.` is nearly always written together: then the '.' is not
		 * lexed (dotted_tail skips it with the names after it) */
		if ((dot_name_follows(p, t) || tok_is_op(peek_at(p, 1), ".")) &&
		    (tok_is_name(t, "pl") || tok_is_name(t, "pld"))) {
			Expr *e = parse_pl(p, t->text[2] == 'd' ? "pld" : "pl");
			p->lit = false; /* a call, never folded (pl.const(4, pl.INDEX) * 2) */
			return e;
		}
		if (tok_is_name(t, "self") && tok_is_op(peek_at(p, 1), ".")) {
			Token st = next(p);
			skip(p);
			Token f = expect_name(p, "a function name after 'self.'");
			if (!at_op(p, "("))
				PERR_AT(p, &st, "'self.%s' must be called", f.text);
			skip(p);
			Expr *e = new_expr(p, EX_FN_CALL, &st);
			e->str = f.text;
			p->fn_args++;
			parse_call_tail(p, e);
			p->fn_args--;
			no_dep_args(p, e);
			call_dump_tags(p, e);
			e->type = call_type(p, f.text, false, e);
			vec_push(&p->fn_calls, e);
			return e;
		}
		if (tok_is_name(t, "None")) {
			/* the "no producer yet" TaskId sentinel */
			SrcPos at = pos_of(t);
			skip(p);
			p->lit = false;
			return registry_call(p, "system.task_invalid", NULL, 0, at);
		}
		return parse_name_ref(p);
	case TK_OP:
		if (tok_is_op(t, "[")) {
			Expr *known = int_list_cached(p, t);
			if (known)
				return known;
		}
		if (tok_is_op(t, "(") || tok_is_op(t, "[")) {
			const char *open_src = t->src;
			bool paren = tok_is_op(t, "(");
			SrcPos open = pos_of(t);
			skip(p);
			/* the closing operator as a code (close: its spelling, for errors) */
			const char *close = paren ? ")" : "]";
			uint16_t cc = paren ? lex_op_code(")") : lex_op_code("]");
			ArgList v; /* the items, on the stack until the tuple is known new */
			args_init(&v);
			Expr tup = { .kind = EX_TUPLE, .pos = open };
			if (paren && peek(p)->op != cc) {
				Expr *first = parse_expr(p);
				if (peek(p)->op == cc) {
					skip(p);
					return first; /* parenthesised expression */
				}
				expect_op(p, ",");
				args_push(p, &v, first);
				tup.op = p->attr_depth ? TUP_PAREN : TUP_LIST;
			}
			while (peek(p)->op != cc) {
				args_push(p, &v, parse_expr(p));
				if (!accept_op(p, ","))
					break;
			}
			if (peek(p)->op != cc)
				expected_op(p, close);
			skip(p);
			tup.args = (Expr **)v.items;
			tup.nargs = v.len;
			Expr *r = share_tuple(p, &tup);
			if (!paren)
				int_list_store(p, open_src, r);
			return r;
		}
		break;
	default:
		break;
	}
	PERR_AT(p, t, "expected an expression, found %s", describe(t));
}


static Expr *parse_postfix(Parser *p)
{
	Expr *e = parse_atom(p);
	int chain = 0;
	while (at_op(p, "[")) {
		Token open = next(p); /* [ */
		/* x[0][0]... builds a nested tree like a deep expression */
		if (++chain > MAX_EXPR_DEPTH)
			PERR_AT(p, &open, "subscripts nested too deeply (limit %d)", MAX_EXPR_DEPTH);
		Type *et = ir_expr_type(e);
		if (et && (((et->kind == TY_TENSOR || et->kind == TY_DIST_TENSOR || et->kind == TY_TILE) && et->ndim >= 1) ||
			   et->kind == TY_ARRAY)) {
			/* numpy-style indexing, lowered to ops (parse_subscript.c) */
			e = pp_subscript(p, e, pos_of(&open));
			p->lit = false;
			continue;
		}

		const Token *it = peek(p);
		bool neg = false;
		if (tok_is_op(it, "-")) {
			skip(p);
			neg = true;
			it = peek(p);
		}
		if (it->kind != TK_INT)
			PERR_AT(p, it, "expected an integer index, found %s", describe(it));
		Token idx = next(p);
		if (idx.overflow || idx.ival > (uint64_t)INT32_MAX)
			PERR_AT(p, &idx, "index too large");
		expect_op(p, "]");
		Type *tt = ir_expr_type(e);
		int64_t i = neg ? -(int64_t)idx.ival : (int64_t)idx.ival;
		if (tt && tt->kind == TY_TUPLE) {
			if (neg)
				i += tt->nelems;
			if (i < 0 || i >= tt->nelems)
				PERR_AT(p, &idx, "tuple index %" PRId64 " out of range (the tuple has %d elements)",
					neg ? -(int64_t)idx.ival : (int64_t)idx.ival, tt->nelems);
		} else if (neg) {
			PERR_AT(p, &idx, "negative index");
		}
		if (tt && (tt->kind == TY_SCALAR || tt->kind == TY_PTR || tt->kind == TY_NAMED ||
			   ((tt->kind == TY_TENSOR || tt->kind == TY_TILE) && tt->ndim == 0)))
			PERR_AT(p, &open, "Subscript requires Tuple, Tensor, Tile, or Array type, got %s",
				tt->kind == TY_SCALAR ? "ScalarType" : tt->kind == TY_TILE ? "a 0-D Tile" :
				tt->kind == TY_TENSOR ? "a 0-D Tensor" : "a non-subscriptable type");
		p->lit = false;
		Expr g = { .kind = EX_GETITEM, .pos = e->pos, .lhs = e, .ival = i };
		if (tt && tt->kind == TY_TUPLE)
			g.type = tt->elems[i];
		e = share(p, &g);
	}
	return e;
}

/* ------------------------------------------------------------ constant folding
 *
 * The reference's parser evaluates, in Python, every operator subtree whose
 * leaves are all literals or module-level constants (ast_parser.py,
 * parse_binop / parse_unaryop: `512 // K`, `1.0 / 256`, `2 ** 3`, `-K`) and
 * emits the value as one constant: an int becomes an INDEX constant, a float
 * an FP32 one.  Comparisons, `not` and `~` are not folded.  What Python
 * cannot evaluate (a division by zero, a negative shift) stays an operator
 * over the constants.  p->lit tells whether the operand just parsed is such
 * a constant. */

/* Python's floor division and modulo of floats (CPython's float_divmod). */
static void py_float_divmod(double a, double b, double *div, double *mod)
{
	double m = fmod(a, b);
	double d = (a - m) / b;
	if (m != 0) {
		if ((b < 0) != (m < 0)) {
			m += b;
			d -= 1.0;
		}
	} else {
		m = copysign(0.0, b);
	}
	double f = 0;
	if (d != 0) {
		f = floor(d);
		if (d - f > 0.5)
			f += 1.0;
	} else {
		f = copysign(0.0, a / b);
	}
	*div = f;
	*mod = m;
}

/* a ** b for ints b >= 0, or false on overflow. */
static bool int_pow(int64_t a, int64_t b, int64_t *out)
{
	if (a == 0 || a == 1 || a == -1) {
		*out = a == 0 ? (b == 0) : a == 1 ? 1 : (b % 2 ? -1 : 1);
		return true;
	}
	int64_t r = 1;
	for (; b > 0; b--) /* |a| >= 2: at most 63 rounds before overflow */
		if (__builtin_mul_overflow(r, a, &r))
			return false;
	*out = r;
	return true;
}

static bool foldable(const Expr *e)
{
	return (e->kind == EX_INT && e->dtype == DT_INDEX) || (e->kind == EX_FLOAT && e->dtype == DT_FP32);
}

/* l op r evaluated as Python would, or NULL when Python raises (then the
 * operator is kept).  A result beyond 64 bits is an error here: the
 * reference cannot build that constant either. */
static Expr *fold_binary(Parser *p, int op, const Expr *l, const Expr *r, SrcPos pos)
{
	if (!foldable(l) || !foldable(r))
		return NULL;
	if (l->kind == EX_INT && r->kind == EX_INT) {
		int64_t a = l->ival, b = r->ival, v = 0;
		bool ovf = false;
		switch (op) {
		case OP_ADD: ovf = __builtin_add_overflow(a, b, &v); break;
		case OP_SUB: ovf = __builtin_sub_overflow(a, b, &v); break;
		case OP_MUL: ovf = __builtin_mul_overflow(a, b, &v); break;
		case OP_DIV:
			if (b == 0)
				return NULL;
			return leaf_float(p, (double)a / (double)b, DT_FP32, pos);
		case OP_FLOORDIV: case OP_MOD:
			if (b == 0)
				return NULL;
			if (a == INT64_MIN && b == -1) {
				ovf = op == OP_FLOORDIV;
				break;
			}
			v = op == OP_FLOORDIV ? a / b - ((a % b != 0) && ((a < 0) != (b < 0))) : a % b;
			if (op == OP_MOD && v != 0 && ((v < 0) != (b < 0)))
				v += b;
			break;
		case OP_SHL:
			if (b < 0)
				return NULL;
			if (a != 0 && (b >= 63 || (a > 0 ? a > (INT64_MAX >> b) : a < (INT64_MIN >> b))))
				ovf = true;
			else
				v = (int64_t)((uint64_t)a << b);
			break;
		case OP_SHR:
			if (b < 0)
				return NULL;
			v = b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
			break;
		case OP_POW:
			if (b < 0) {
				if (a == 0)
					return NULL;
				return leaf_float(p, pow((double)a, (double)b), DT_FP32, pos);
			}
			ovf = !int_pow(a, b, &v);
			break;
		default:
			return NULL;
		}
		if (ovf)
			perr(p, pos.line, pos.col, "constant expression does not fit in a 64-bit integer");
		return leaf_int(p, v, DT_INDEX, pos);
	}
	double a = l->kind == EX_INT ? (double)l->ival : l->fval, b = r->kind == EX_INT ? (double)r->ival : r->fval, v, m;
	switch (op) {
	case OP_ADD: v = a + b; break;
	case OP_SUB: v = a - b; break;
	case OP_MUL: v = a * b; break;
	case OP_DIV:
		if (b == 0)
			return NULL;
		v = a / b;
		break;
	case OP_FLOORDIV: case OP_MOD:
		if (b == 0)
			return NULL;
		py_float_divmod(a, b, &v, &m);
		if (op == OP_MOD)
			v = m;
		break;
	case OP_POW:
		if ((a == 0 && b < 0) || (a < 0 && b != floor(b)))
			return NULL; /* ZeroDivisionError / a complex result */
		v = pow(a, b);
		break;
	default:
		return NULL; /* shifts of floats: a TypeError */
	}
	if (isinf(v) || isnan(v))
		return NULL; /* OverflowError */
	return leaf_float(p, v, DT_FP32, pos);
}

static Expr *parse_unary(Parser *p)
{
	const Token *t = peek(p);
	if (tok_is_op(t, "-") || tok_is_op(t, "~") || tok_is_op(t, "+")) {
		Token op = next(p);
		if (++p->depth > MAX_EXPR_DEPTH)
			PERR_AT(p, &op, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
		Expr *x = parse_unary(p);
		p->depth--;
		if (op.text[0] == '+')
			return x;
		/* a negated constant is a constant (of any origin, as the
		 * reference's parse_unaryop does); it stays foldable if x was */
		if (op.text[0] == '-' && x->kind == EX_INT && x->ival != INT64_MIN)
			return leaf_int(p, -x->ival, (DType)x->dtype, pos_of(&op));
		if (op.text[0] == '-' && x->kind == EX_FLOAT)
			return leaf_float(p, -x->fval, (DType)x->dtype, pos_of(&op));
		p->lit = false;
		return mk_unary(p, op.text[0] == '-' ? UOP_NEG : UOP_BITNOT, x, pos_of(&op));
	}
	Expr *e = parse_postfix(p);
	if (at_op(p, "**")) {
		/* only folded: the IR has no power operator (right associative,
		 * binds tighter than a unary minus on its left) */
		bool llit = p->lit;
		Token op = next(p);
		if (++p->depth > MAX_EXPR_DEPTH)
			PERR_AT(p, &op, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
		Expr *r = parse_unary(p);
		p->depth--;
		Expr *f = llit && p->lit ? fold_binary(p, OP_POW, e, r, e->pos) : NULL;
		if (!f)
			PERR_AT(p, &op, "Unsupported binary operator: Pow ('**' only between constants, which are folded)");
		p->lit = true;
		return f;
	}
	return e;
}

/* The binary operator token t spells and its level (0: * / // %,
 * 1: + -, 2: << >>, 3: comparisons), or -1. */
static int binop_info(const Token *t, int *level)
{
	if (t->kind != TK_OP)
		return -1;
	const char *s = t->text;
	char c1 = s[1];
	if (c1 && s[2])
		return -1;
	switch (s[0]) {
	case '*': *level = 0; return c1 ? -1 : OP_MUL;
	case '/': *level = 0; return !c1 ? OP_DIV : c1 == '/' ? OP_FLOORDIV : -1;
	case '%': *level = 0; return c1 ? -1 : OP_MOD;
	case '+': *level = 1; return c1 ? -1 : OP_ADD;
	case '-': *level = 1; return c1 ? -1 : OP_SUB;
	case '<': *level = c1 == '<' ? 2 : 3; return !c1 ? OP_LT : c1 == '=' ? OP_LE : c1 == '<' ? OP_SHL : -1;
	case '>': *level = c1 == '>' ? 2 : 3; return !c1 ? OP_GT : c1 == '=' ? OP_GE : c1 == '>' ? OP_SHR : -1;
	case '=': *level = 3; return c1 == '=' ? OP_EQ : -1;
	case '!': *level = 3; return c1 == '=' ? OP_NE : -1;
	default: return -1;
	}
}

static bool is_comparison(const Token *t)
{
	int level;
	return binop_info(t, &level) >= 0 && level == 3;
}

static Expr *parse_binary_level(Parser *p, int max);

/* Binary operators of levels 0..max after the first operand l
 * (precedence climbing, all left associative): the operands are built and
 * combined in the same order as one recursive function per level would, so
 * type errors come first in the same places. */
static Expr *binary_rest(Parser *p, int max, Expr *l)
{
	bool llit = p->lit;
	for (;;) {
		const Token *t = peek(p);
		if (t->kind == TK_OP && (t->text[0] == '&' || t->text[0] == '|' || t->text[0] == '^') && !t->text[1])
			PERR_AT(p, t, "unsupported binary operator '%s'", t->text);
		int level;
		int op = binop_info(t, &level);
		if (op < 0 || level > max)
			return l;
		Token ot = next(p);
		Expr *r = parse_binary_level(p, level - 1);
		Expr *f = llit && p->lit && level < 3 ? fold_binary(p, op, l, r, l->pos) : NULL;
		l = f ? f : mk_binary(p, (BinOp)op, l, r, pos_of(&ot));
		p->lit = llit = f != NULL;
		if (level == 3 && is_comparison(peek(p)))
			PERR_AT(p, peek(p), "chained comparisons are not supported");
	}
}

static Expr *parse_binary_level(Parser *p, int max)
{
	Expr *l = parse_unary(p);
	return max < 0 ? l : binary_rest(p, max, l);
}

static Expr *parse_not(Parser *p)
{
	if (at_name(p, "not")) {
		Token t = next(p);
		if (++p->depth > MAX_EXPR_DEPTH)
			PERR_AT(p, &t, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
		Expr *x = parse_not(p);
		p->depth--;
		p->lit = false;
		return mk_unary(p, UOP_NOT, x, pos_of(&t));
	}
	return parse_binary_level(p, 3);
}

/* `and` operands after the first one, l */
static Expr *and_rest(Parser *p, Expr *l)
{
	while (at_name(p, "and")) {
		Token t = next(p);
		l = mk_binary(p, OP_AND, l, parse_not(p), pos_of(&t));
	}
	return l;
}

static Expr *parse_and(Parser *p) { return and_rest(p, parse_not(p)); }

/* Can token t follow a complete expression but not continue it?  (A
 * one-byte operator's code is its byte; other tokens have code 0.) */
static const bool op_ends_expr[128] = {
	[','] = true, [')'] = true, [']'] = true, ['}'] = true, [':'] = true, ['='] = true,
};

static bool ends_expr(const Token *t)
{
	return t->kind == TK_NEWLINE || (t->op < 128 && op_ends_expr[t->op]);
}

static Expr *parse_expr(Parser *p)
{
	const Token *t = peek(p);
	if (p->depth == 0)
		p->nops = 0;
	if (++p->depth > MAX_EXPR_DEPTH)
		PERR_AT(p, t, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
	Expr *l;
	if (t->kind == TK_NAME && t->text == p->nm[NM_NOT]) {
		l = parse_and(p);
	} else {
		/* the first operand, as parse_and -> parse_not -> parse_binary_level
		 * would parse it; most expressions (arguments, dims, call values)
		 * end there, and then no operator level needs to look.  A lone
		 * name (the commonest argument) is parse_atom's plain name case. */
		if (t->kind == TK_NAME && !dot_name_follows(p, t) && ends_expr(peek_at(p, 1)) &&
		    !tok_is_name(t, "None")) {
			p->lit = false;
			l = parse_name_ref(p);
			p->depth--;
			return l;
		}
		l = parse_unary(p);
		if (ends_expr(peek(p))) {
			p->depth--;
			return l;
		}
		l = and_rest(p, binary_rest(p, 3, l));
	}
	while (at_name(p, "or")) {
		Token ot = next(p);
		l = mk_binary(p, OP_OR, l, parse_and(p), pos_of(&ot));
	}
	if (at_name(p, "if"))
		PERR_AT(p, peek(p), "conditional expressions are not supported");
	p->depth--;
	return l;
}

/* ------------------------------------------------------------ statements */

typedef struct BlockCtx {
	Stmt *yield;  /* trailing yield-assignment seen in this block */
} BlockCtx;

static void parse_block(Parser *p, Block *b, int indent_col);
static void parse_stmt(Parser *p, PtrVec *out, bool first_in_block);

/* Create (or reuse for the else branch) the return vars named by a yield
 * assignment.  names/types are parallel arrays from the statement. */
typedef struct YieldLhs {
	const char **names;
	Type **types;   /* annotation or NULL */
	SrcPos *pos;
	int n;
} YieldLhs;

static Var *new_var(Parser *p, const char *name, Type *t, VarKind k, SrcPos pos)
{
	Var *v = ir_var_new(p->prog, name, t, k);
	v->pos = pos;
	return v;
}

/* Why a value has no type, for the "annotate it" error. */
static void untyped_reason(Parser *p, Expr *v, char *buf, size_t n)
{
	if (v->kind == EX_OP_CALL) {
		const char *pf = strncmp(v->str, "pld.", 4) ? "pl." : "";
		const OpDef *op = sugar_op(&p->sugar, v->str);
		if (!op)
			snprintf(buf, n, "%s%s is not in the op registry (data/ops.yaml; add it with --ops FILE.yaml)", pf, v->str);
		else if (op->result.kind->none)
			snprintf(buf, n, "%s%s produces no value", pf, v->str);
		else
			snprintf(buf, n, "the registry cannot derive the result type of %s%s from these arguments", pf, v->str);
	} else if (v->kind == EX_FN_CALL) {
		snprintf(buf, n, "self.%s returns no value", v->str);
	} else {
		snprintf(buf, n, "the value's type is unknown");
	}
}

/* Assign `name` (annotation `ann` may be NULL) := *value, following the
 * reference's reuse rule and type merging; returns the target Var.  An int
 * literal under an integer scalar annotation takes that dtype
 * (`x: pl.Scalar[pl.INT64] = 0` stores pl.const(0, pl.INT64)). */
static Var *assign_target(Parser *p, const Token *nt, Type *ann, Expr **value)
{
	Expr *v0 = *value;
	if (ann && ann->kind == TY_SCALAR && v0->kind == EX_INT && v0->dtype == DT_INDEX &&
	    ir_dtype_is_int(ann->dtype) && ann->dtype != DT_INDEX)
		*value = v0 = leaf_int(p, v0->ival, ann->dtype, v0->pos);
	Type *vt = ir_expr_type(v0);
	if (!vt && v0->kind == EX_TUPLE && v0->nargs > 0) {
		/* `t = (a, b)`: a MakeTuple is typed by its elements */
		Type *tt = ir_type_new(p->a, TY_TUPLE);
		tt->elems = arena_alloc(p->a, (size_t)v0->nargs * sizeof *tt->elems);
		tt->nelems = v0->nargs;
		for (int i = 0; i < v0->nargs && tt; i++) {
			Type *et = ir_expr_type(v0->args[i]);
			if (!et || et->kind == TY_UNKNOWN || et->kind == TY_TUPLE)
				tt = NULL;
			else
				tt->elems[i] = et;
		}
		vt = tt;
	}
	/* An annotation equal to the target's type names the same type: take
	 * the annotation's object, which all equal annotations share
	 * (unique_type), so that the printer's and the passes' per-type memos
	 * meet one object per distinct type, not one per statement.  When the
	 * annotation equals the value's type (nearly always), type_for_assign
	 * would give one of the two and find nothing to report. */
	Type *t = ann;
	if (!ann || !vt || !type_equal(ann, vt)) {
		char err[700];
		err[0] = '\0'; /* written only on a contradiction: not worth zeroing all */
		t = type_for_assign(p->a, ann, vt, nt->text, err, sizeof err);
		if (!t && err[0])
			PERR_AT(p, nt, "%s", err);
		if (!t && (v0->kind == EX_FN_CALL || v0->kind == EX_SUBMIT) && !pmap_get(p->sigs, v0->str))
			perr(p, v0->pos.line, v0->pos.col, "call to undefined function 'self.%s'", v0->str);
		if (!t) {
			char why[300];
			untyped_reason(p, v0, why, sizeof why);
			PERR_AT(p, nt, "cannot infer the type of '%s': %s; annotate the assignment, e.g. `%s: pl.Tensor[[...], pl.FP32] = ...`",
				nt->text, why, nt->text);
		}
		if (ann && t != ann && type_equal(t, ann))
			t = ann;
	}
	/* When the annotation refines a call's inferred type (a tensor view, a
	 * tile memory space or view), the reference rebuilds the call with the
	 * refined type, so passes that re-type from the value see it too (and
	 * a call typed like its annotation shares that object as well). */
	if (ann && vt && t != vt && (v0->kind == EX_OP_CALL || v0->kind == EX_FN_CALL || v0->kind == EX_SUBMIT) &&
	    (t == ann || !type_equal(t, vt)))
		v0->type = t;
	uintptr_t cur = binding_of(p, nt->text);
	Var *old = cur ? p->undo[cur - 1].var : NULL;
	if (p->fn->strict_ssa) {
		/* strict: always a new Var; redefinition in the same scope is an error */
		if (old && in_innermost_scope(p, cur))
			PERR_AT(p, nt, "SSAViolationError: Variable '%s' is already defined", nt->text);
		old = NULL;
	}
	if (old && old->kind == VK_VAR) {
		if (!type_compatible(old->type, t)) {
			char a[256], b[256];
			type_to_string(old->type, a, sizeof a);
			type_to_string(t, b, sizeof b);
			PERR_AT(p, nt, "Cannot reassign '%s' with a different type (%s, now %s)", nt->text, a, b);
		}
		return old;
	}
	Var *v = new_var(p, nt->text, t, VK_VAR, pos_of(nt));
	bind_over(p, nt->text, v, cur);
	return v;
}

/* `pl.yield_(` at the cursor? */
static bool at_yield(Parser *p)
{
	const Token *t = peek(p);
	if (!tok_is_name(t, "pl"))
		return false;
	/* `pl.` and a name written together: no need to lex the '.' (a digit
	 * after it makes `.5` a number token: no yield either) */
	const char *q = t->src + t->nlen;
	if (p->lx.end - q > 7 && q[0] == '.' && ident_byte((unsigned char)q[1]))
		return !memcmp(q + 1, "yield_", 6) && !ident_byte((unsigned char)q[7]);
	if (!tok_is_op(peek_at(p, 1), "."))
		return false;
	/* a name right after the '.' is the next token: compare its bytes
	 * without lexing it */
	q = peek_at(p, 1)->src + 1;
	if (p->lx.end - q > 6 && ident_byte((unsigned char)*q))
		return !memcmp(q, "yield_", 6) && !ident_byte((unsigned char)q[6]);
	return tok_is_name(peek_at(p, 2), "yield_");
}

static Stmt *parse_yield_values(Parser *p, const Token *at)
{
	Stmt *s = ir_stmt_new(p->a, ST_YIELD, pos_of(at));
	dotted_after(p, "pl");
	s->values = parse_expr_list(p, &s->nvalues, "'(' after pl.yield_");
	return s;
}

/* Statement-level info the compound parsers need from a block's last stmt. */
typedef struct PendingYield {
	Stmt *stmt;
	YieldLhs lhs;
} PendingYield;

/* The yield-assignment LHS for the statement currently being parsed is kept
 * on the Stmt through the aux slot of a tiny side table. */
typedef struct YieldInfo {
	Stmt *stmt;
	YieldLhs lhs;
	struct YieldInfo *next;
} YieldInfo;

static PtrMap yield_lhs; /* ST_YIELD stmt -> YieldInfo; owned by parse_program */

static YieldInfo *yield_info_of(Stmt *s) { return pmap_get(&yield_lhs, s); }

/* Comment lines of a docstring (str.splitlines(), not dedented). */
static void docstring_lines(Parser *p, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && s[j] != '\n' && s[j] != '\r')
			j++;
		/* the reference reads the source through textwrap.dedent, which
		 * empties source lines of only spaces and tabs (not the first
		 * and last, which hold the quotes) */
		size_t k = i;
		while (k < j && (s[k] == ' ' || s[k] == '\t'))
			k++;
		bool blank = k == j && i > 0 && j < n;
		vec_push(&p->carried, arena_strndup(p->a, s + i, blank ? 0 : j - i));
		if (j < n && s[j] == '\r' && j + 1 < n && s[j + 1] == '\n')
			j++;
		i = j + 1;
	}
}

/* `(` NAME (`,` NAME)* [`,`] `)` `=` within the lookahead window? */
static bool paren_target(Parser *p)
{
	if (!at_op(p, "("))
		return false;
	int k = 1;
	while (k + 2 < LEX_LOOKAHEAD) {
		if (peek_at(p, k)->kind != TK_NAME)
			return false;
		const Token *sep = peek_at(p, k + 1);
		if (tok_is_op(sep, ")"))
			return tok_is_op(peek_at(p, k + 2), "=");
		if (!tok_is_op(sep, ","))
			return false;
		if (tok_is_op(peek_at(p, k + 2), ")"))
			return k + 3 < LEX_LOOKAHEAD && tok_is_op(peek_at(p, k + 3), "=");
		k += 2;
	}
	return false;
}

/* In an Orchestration function `m = pl.tensor.dim(t, K)` with a constant
 * axis K whose extent is a dimension symbol of a tensor parameter binds m to
 * that symbol and emits nothing (the reference parser's fold; outline-incore
 * does the same on promotion, passes.md §4.3).  Returns the symbol or NULL. */
static Var *folded_dim_read(Parser *p, const Expr *v)
{
	if (p->fn->type != FT_ORCHESTRATION || v->kind != EX_OP_CALL || strcmp(v->str, "tensor.dim") != 0 ||
	    v->nargs != 2 || v->args[1]->kind != EX_INT)
		return NULL;
	Type *t = ir_expr_type(v->args[0]);
	if (!t || t->kind != TY_TENSOR)
		return NULL;
	int64_t ax = v->args[1]->ival;
	if (ax < 0)
		ax += t->ndim;
	if (ax < 0 || ax >= t->ndim || t->shape[ax]->kind != EX_VAR)
		return NULL;
	Var *sym = t->shape[ax]->var;
	for (int i = 0; i < p->fn->nparams; i++) {
		Type *pt = p->fn->params[i].var->type;
		if (pt && pt->kind == TY_TENSOR)
			for (int k = 0; k < pt->ndim; k++)
				if (pt->shape[k]->kind == EX_VAR && pt->shape[k]->var == sym)
					return sym;
	}
	return NULL;
}

/* A call of canonical op `op` on args, lowered through the registry. */
static Expr *registry_call(Parser *p, const char *op, Expr **args, int nargs, SrcPos pos)
{
	Expr *call = ir_expr_new(p->a, EX_OP_CALL, pos);
	call->str = intern_cstr(p->a, op);
	call->nargs = nargs;
	call->args = arena_alloc(p->a, (size_t)(nargs + 1) * sizeof *call->args);
	if (nargs)
		memcpy(call->args, args, (size_t)nargs * sizeof *args);
	Expr *r = sugar_lower_call(&p->sugar, call);
	if (!r)
		longjmp(p->fail, 1);
	return r;
}

static Expr *list_expr(Parser *p, Expr **items, int n, SrcPos pos)
{
	Expr *l = ir_expr_new(p->a, EX_TUPLE, pos);
	l->nargs = n;
	l->args = arena_alloc(p->a, (size_t)(n + 1) * sizeof *l->args);
	if (n)
		memcpy(l->args, items, (size_t)n * sizeof *items);
	return l;
}

/* ------------------------------------------------ for parse_*.c (parse_int.h) */

const Token *pp_peek(Parser *p, int k) { return peek_at(p, k); }
Token pp_next(Parser *p) { return next(p); }
bool pp_accept(Parser *p, const char *op) { return accept_op(p, op); }
void pp_expect(Parser *p, const char *op) { expect_op(p, op); }
const char *pp_describe(const Token *t) { return describe(t); }
Expr *pp_expr(Parser *p) { return parse_expr(p); }
Arena *pp_arena(Parser *p) { return p->a; }
Var *pp_lookup(Parser *p, const char *name) { return lookup(p, name); }
Var *pp_new_var(Parser *p, const char *name, Type *t, SrcPos pos) { return new_var(p, name, t, VK_VAR, pos); }
Expr *pp_int(Parser *p, int64_t v, DType dt, SrcPos pos) { return leaf_int(p, v, dt, pos); }
Expr *pp_list(Parser *p, Expr **items, int n, SrcPos pos) { return list_expr(p, items, n, pos); }
Expr *pp_op(Parser *p, const char *op, Expr **args, int n, SrcPos pos) { return registry_call(p, op, args, n, pos); }
Expr *pp_binary(Parser *p, BinOp op, Expr *l, Expr *r, SrcPos pos) { return mk_binary(p, op, l, r, pos); }
bool pp_has_op(Parser *p, const char *op) { return sugar_op(&p->sugar, op) != NULL; }

void pp_error(Parser *p, int line, int col, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	perr(p, line, col, "%s", buf);
}

/* The subscript-store sugar, the cursor after `NAME[`:
 *   dst[a:b, i] = src   ->  dst = pl.tensor.assemble(dst, src, [a, i])  (tile.assemble for a tile)
 *   arr[i] = v          ->  arr = pl.array.update_element(arr, i, v)
 * A slice's start defaults to 0, dims past the indices are whole; a scalar
 * index writes a unit window and drops that axis from the source, which is
 * reshaped back to the full rank (a tile source may keep leading unit axes
 * to stay 2D).  Returns the assignment. */
static Stmt *subscript_store(Parser *p, const Token *nt)
{
	SrcPos pos = pos_of(nt);
	if (p->fn->strict_ssa)
		PERR_AT(p, nt, "Subscript-write syntax 'dst[...] = src' is only supported before SSA conversion; "
			"write an explicit pl.assemble(...) call, or remove strict_ssa=True");
	Var *base = lookup(p, nt->text);
	if (!base)
		PERR_AT(p, nt, "Undefined variable '%s'", nt->text);
	Type *bt = base->type;
	Expr *bref = ir_var_ref(p->a, base);
	Stmt *s = ir_stmt_new(p->a, ST_ASSIGN, pos);
	if (bt && bt->kind == TY_ARRAY) {
		Expr *idx = parse_expr(p);
		if (at_op(p, ","))
			PERR_AT(p, peek(p), "Array subscript-write takes a single index: arr[i] = v");
		expect_op(p, "]");
		expect_op(p, "=");
		Expr *v = parse_expr(p);
		if (v->kind == EX_INT && v->dtype == DT_INDEX)
			v = leaf_int(p, v->ival, bt->dtype, v->pos); /* `arr[i] = 7` takes the element dtype */
		Expr *args[3] = { bref, idx, v };
		Expr *value = registry_call(p, "array.update_element", args, 3, pos);
		s->var = assign_target(p, nt, NULL, &value);
		s->value = value;
		return s;
	}
	bool tile = bt && bt->kind == TY_TILE;
	if (!bt || (bt->kind != TY_TENSOR && bt->kind != TY_DIST_TENSOR && !tile))
		PERR_AT(p, nt, "Subscript-write requires a Tensor, Tile or Array target; '%s' is not one", nt->text);
	int rank = bt->ndim;
	Expr **offs = arena_alloc(p->a, (size_t)(rank + 1) * sizeof *offs);
	Expr **ext = arena_alloc(p->a, (size_t)(rank + 1) * sizeof *ext); /* NULL: not a constant */
	bool *dropped = arena_alloc(p->a, (size_t)(rank + 1) * sizeof *dropped);
	int n = 0, ndrop = 0;
	bool any_slice = false;
	while (!at_op(p, "]")) {
		if (n == rank)
			PERR_AT(p, peek(p), "%s subscript-write has more indices than the %dD %s", tile ? "Tile" : "Tensor",
				rank, tile ? "tile" : "tensor");
		Expr *lo = at_op(p, ":") ? NULL : parse_expr(p);
		if (accept_op(p, ":")) {
			any_slice = true;
			Expr *hi = at_op(p, ",") || at_op(p, "]") ? NULL : parse_expr(p);
			if (at_op(p, ":"))
				PERR_AT(p, peek(p), "Slice step is not supported in a subscript-write");
			offs[n] = lo ? lo : leaf_int(p, 0, DT_INDEX, pos);
			Expr *h = hi ? hi : bt->shape[n];
			int64_t l0 = lo ? (lo->kind == EX_INT ? lo->ival : -1) : 0;
			ext[n] = h->kind == EX_INT && l0 >= 0 ? leaf_int(p, h->ival - l0, DT_INDEX, pos) : NULL;
			dropped[n] = false;
		} else {
			offs[n] = lo;
			ext[n] = leaf_int(p, 1, DT_INDEX, pos);
			dropped[n] = true;
			ndrop++;
		}
		n++;
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, "]");
	if (n == rank && !any_slice)
		PERR_AT(p, nt, "Element-write 'dst[i, j] = scalar' is not supported for %s targets; use slice indices "
			"(e.g. 'dst[i:i+1, j:j+1] = src')", tile ? "tile" : "tensor");
	for (int i = n; i < rank; i++) {
		offs[i] = leaf_int(p, 0, DT_INDEX, pos);
		ext[i] = bt->shape[i]->kind == EX_INT ? bt->shape[i] : NULL;
		dropped[i] = false;
	}
	expect_op(p, "=");
	SrcPos sp = pos_of(peek(p));
	Expr *src = parse_expr(p);
	Type *st = ir_expr_type(src);
	bool src_ok = st && (tile ? st->kind == TY_TILE : (st->kind == TY_TENSOR || st->kind == TY_DIST_TENSOR));
	if (!src_ok)
		perr(p, sp.line, sp.col, "Subscript-write source must also be a %s", tile ? "tile" : "tensor");
	int natural = rank - ndrop, floored = tile && natural < 2 ? 2 : natural;
	if (st->ndim != natural && st->ndim != floored)
		perr(p, sp.line, sp.col,
		     "Subscript-write source must be %dD to match the rank-reduced %s window, got %dD", natural,
		     tile ? "tile" : "tensor", st->ndim);
	int lead = st->ndim - natural;
	for (int d = 0, a = lead; d < rank; d++) {
		if (dropped[d])
			continue;
		Expr *want = ext[d], *have = st->shape[a];
		if (want && have->kind == EX_INT && want->ival != have->ival)
			perr(p, sp.line, sp.col,
			     "Subscript-write shape mismatch on source axis %d: window expects %" PRId64
			     " elements, source has %" PRId64, a, want->ival, have->ival);
		a++;
	}
	if (st->ndim != rank) {
		/* reshape the source up to the full window rank: unit dims where
		 * an index dropped an axis, leading tile unit axes skipped */
		Expr **dims = arena_alloc(p->a, (size_t)(rank + 1) * sizeof *dims);
		for (int d = 0, a = lead; d < rank; d++)
			dims[d] = dropped[d] ? leaf_int(p, 1, DT_INDEX, pos) : st->shape[a++];
		Expr *rargs[2] = { src, list_expr(p, dims, rank, pos) };
		src = registry_call(p, tile ? "tile.reshape" : "tensor.reshape", rargs, 2, pos);
	}
	Expr *args[3] = { bref, src, list_expr(p, offs, rank, pos) };
	Expr *value = registry_call(p, tile ? "tile.assemble" : "tensor.assemble", args, 3, pos);
	s->var = assign_target(p, nt, NULL, &value);
	s->value = value;
	return s;
}

/* The truth of a constant condition (literals, module constants, and
 * comparisons, not / and / or over them): false when e is not one. */
static bool const_value(const Expr *e, double *v)
{
	switch (e->kind) {
	case EX_INT: case EX_BOOL: *v = (double)e->ival; return true;
	case EX_FLOAT: *v = e->fval; return true;
	case EX_UNARY: {
		double x;
		if (!const_value(e->lhs, &x))
			return false;
		*v = e->op == UOP_NOT ? (x == 0) : e->op == UOP_NEG ? -x : x;
		return e->op == UOP_NOT || e->op == UOP_NEG;
	}
	case EX_BINARY: {
		double a, b;
		if (!const_value(e->lhs, &a) || !const_value(e->rhs, &b))
			return false;
		switch (e->op) {
		case OP_EQ: *v = a == b; return true;
		case OP_NE: *v = a != b; return true;
		case OP_LT: *v = a < b; return true;
		case OP_LE: *v = a <= b; return true;
		case OP_GT: *v = a > b; return true;
		case OP_GE: *v = a >= b; return true;
		case OP_AND: *v = a != 0 && b != 0; return true;
		case OP_OR: *v = a != 0 || b != 0; return true;
		default: return false;
		}
	}
	default:
		return false;
	}
}

/* pl.static_print(...) / pl.static_assert(cond[, "message"]): evaluated
 * while parsing, as the reference's parser does, and gone from the IR.
 * static_print writes its line to stderr (the reference prints it on
 * stdout, which here carries the program). */
static void static_stmt(Parser *p, bool is_assert)
{
	Token pl = next(p);
	skip(p);
	skip(p); /* static_print / static_assert */
	skip(p); /* ( */
	StrBuf out = { 0 };
	int nargs = 0;
	const Expr *cond = NULL;
	const char *src0 = NULL, *src1 = NULL, *msg = NULL;
	while (!at_op(p, ")")) {
		const Token *a = peek(p);
		if (a->kind == TK_STRING && (tok_is_op(peek_at(p, 1), ",") || tok_is_op(peek_at(p, 1), ")"))) {
			Token st = next(p);
			if (is_assert && nargs != 1)
				PERR_AT(p, &st, "static_assert() message must be a string literal, after the condition");
			if (is_assert)
				msg = st.text;
			else
				sb_printf(&out, "%s%s", out.len ? " " : "", st.text);
		} else {
			if (is_assert && nargs == 1)
				PERR_AT(p, a, "static_assert() message must be a string literal");
			const char *s0 = a->src;
			Expr *e = parse_expr(p);
			if (is_assert) {
				cond = e;
				src0 = s0;
				src1 = peek(p)->src;
			} else {
				sb_printf(&out, "%s", out.len ? " " : "");
				if (e->kind == EX_VAR)
					sb_printf(&out, "%s: ", e->var->name);
				else if (e->kind == EX_INT)
					sb_printf(&out, "%lld: ", (long long)e->ival);
				else if (e->kind == EX_BOOL)
					sb_printf(&out, "%s: ", e->ival ? "True" : "False");
				else if (e->kind == EX_FLOAT)
					sb_printf(&out, "%.17g: ", e->fval);
				print_type(&out, ir_expr_type(e)); /* an expression: just its type */
			}
		}
		nargs++;
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	if (!is_assert) {
		if (!nargs) {
			sb_release(&out);
			PERR_AT(p, &pl, "static_print() requires at least 1 argument");
		}
		sb_putc(&out, 0);
		fprintf(stderr, "static_print [%s:%d]: %s\n", p->diag->file, pl.line, out.data);
		sb_release(&out);
		return;
	}
	if (nargs < 1 || nargs > 2)
		PERR_AT(p, &pl, "static_assert() requires 1 or 2 arguments");
	double v;
	if (!const_value(cond, &v))
		PERR_AT(p, &pl, "static_assert condition must be compile-time evaluable (condition `%.*s` is not a constant)",
			(int)(src1 - src0 > 200 ? 200 : src1 - src0), src0);
	if (v == 0) {
		bool cmp = cond->kind == EX_BINARY || cond->kind == EX_UNARY || cond->kind == EX_BOOL;
		PERR_AT(p, &pl, "static_assert failed%s%s (condition `%.*s` evaluated to %s)", msg ? ": " : "", msg ? msg : "",
			(int)(src1 - src0 > 200 ? 200 : src1 - src0), src0, cmp ? "False" : cond->kind == EX_FLOAT ? "0.0" : "0");
	}
}


static void parse_simple_stmt(Parser *p, PtrVec *out, PtrVec *cm)
{
	const Token *t = peek(p);
	Token first = *t;
	Stmt *s = NULL;

	if (tok_is_name(t, "pass")) {
		skip(p);
		/* pass produces no IR; its comments move to the next statement */
		take_comments(p, peek(p)->line, cm);
		for (size_t i = 0; i < cm->len; i++)
			vec_push(&p->carried, cm->items[i]);
		expect_newline(p);
		return;
	}
	if (tok_is_name(t, "break") || tok_is_name(t, "continue")) {
		/* a split_aiv body is the two AIV lanes, not an iteration to leave */
		if (p->loop_ctx == LOOP_SPLIT_AIV)
			PERR_AT(p, t, "'%s' not supported inside a 'for ... in pl.split_aiv(...)' body", t->text[0] == 'b' ? "break" : "continue");
		if (p->loop_ctx == LOOP_NONE)
			PERR_AT(p, t, "'%s' outside a loop", t->text[0] == 'b' ? "break" : "continue");
		skip(p);
		s = ir_stmt_new(p->a, first.text[0] == 'b' ? ST_BREAK : ST_CONTINUE, pos_of(&first));
	} else if (tok_is_name(t, "return")) {
		skip(p);
		s = ir_stmt_new(p->a, ST_RETURN, pos_of(&first));
		PtrVec v = ARENA_VEC(p->a);
		if (peek(p)->kind != TK_NEWLINE) {
			bool paren = at_op(p, "(");
			Expr *e0 = parse_expr(p);
			if (paren && e0->kind == EX_TUPLE && !at_op(p, ",")) {
				/* `return (a, b)` returns two values, as `return a, b` */
				for (int i = 0; i < e0->nargs; i++)
					vec_push(&v, e0->args[i]);
			} else {
				vec_push(&v, e0);
			}
			while (accept_op(p, ",") && peek(p)->kind != TK_NEWLINE)
				vec_push(&v, parse_expr(p));
		}
		s->values = (Expr **)vec_finish(p->a, &v, &s->nvalues);
	} else if (t->kind == TK_STRING && peek_at(p, 1)->kind == TK_NEWLINE) {
		/* a bare string (docstring) becomes comment lines of the next stmt */
		Token st = next(p);
		take_comments(p, peek(p)->line, cm);
		for (size_t i = 0; i < cm->len; i++)
			vec_push(&p->carried, cm->items[i]);
		docstring_lines(p, st.text, st.slen);
		expect_newline(p);
		return;
	} else if ((t->kind == TK_NAME && (tok_is_op(peek_at(p, 1), "=") || tok_is_op(peek_at(p, 1), ":") ||
					   tok_is_op(peek_at(p, 1), ","))) ||
		   paren_target(p)) {
		/* assignment forms; `(a, b) = ...` is the same as `a, b = ...`.
		 * Tested before at_yield: a yield starts `pl.`, an assignment NAME
		 * and one of `= : ,` or `(`, so the order does not matter, and
		 * assignments are the common statement. */
		bool paren = accept_op(p, "(");
		ArgList names; /* Token *: on the stack (one name, nearly always) */
		args_init(&names);
		Type *ann = NULL;
		Token nt = expect_name(p, "a name in the assignment target");
		args_push(p, &names, &nt); /* lives as long as names */
		if (!paren && accept_op(p, ":")) {
			ann = parse_type(p);
		} else {
			while (accept_op(p, ",")) {
				if (at_op(p, "=") || at_op(p, ")"))
					break;
				Token n2 = expect_name(p, "a name in the assignment target");
				Token *copy = arena_alloc(p->a, sizeof *copy);
				*copy = n2;
				args_push(p, &names, copy);
			}
			if (paren)
				expect_op(p, ")");
		}
		expect_op(p, "=");
		/* `x = (pl.yield_(v))`, as formatters wrap a long line */
		bool paren_yield = at_op(p, "(") && tok_is_name(peek_at(p, 1), "pl") && tok_is_op(peek_at(p, 2), ".") &&
				   tok_is_name(peek_at(p, 3), "yield_");
		if (paren_yield || at_yield(p)) {
			if (paren_yield)
				skip(p);
			s = parse_yield_values(p, &first);
			if (paren_yield)
				expect_op(p, ")");
			YieldInfo *yi = arena_alloc(p->a, sizeof *yi);
			yi->stmt = s;
			yi->lhs.n = names.len;
			yi->lhs.names = arena_alloc(p->a, (size_t)names.len * sizeof(char *));
			yi->lhs.types = arena_alloc(p->a, (size_t)names.len * sizeof(Type *));
			yi->lhs.pos = arena_alloc(p->a, (size_t)names.len * sizeof(SrcPos));
			for (int i = 0; i < names.len; i++) {
				Token *nk = names.items[i];
				yi->lhs.names[i] = nk->text;
				yi->lhs.pos[i] = pos_of(nk);
			}
			if (ann)
				yi->lhs.types[0] = ann;
			if (yi->lhs.n != s->nvalues)
				PERR_AT(p, &first, "pl.yield_ assigns %d name(s) but yields %d value(s)", yi->lhs.n, s->nvalues);
			pmap_put(&yield_lhs, s, yi);
		} else if (names.len == 1 && ann &&
			   (ann->kind == TY_PTR || (ann->kind == TY_NAMED && !strcmp(ann->name, "pl.MemRefType"))) &&
			   pp_at_printed_alloc(p)) {
			/* a base Ptr's definition: a new Var, or the one the
			 * function's pl.MemRef annotations named already */
			Expr *value = pp_printed_alloc(p, ann);
			Var *v = pmap_get(&p->memref_bases, nt.text);
			if (!v)
				v = new_var(p, nt.text, ann, VK_VAR, pos_of(&nt));
			bind(p, nt.text, v);
			s = ir_stmt_new(p->a, ST_ASSIGN, pos_of(&first));
			s->var = v;
			s->value = value;
		} else if (names.len == 1) {
			Expr *value = parse_expr(p);
			Var *sym = folded_dim_read(p, value);
			if (sym && (!ann || (ann->kind == TY_SCALAR && ann->dtype == DT_INDEX))) {
				/* no statement: its comments move to the next one, as for pass */
				bind(p, nt.text, sym);
				take_comments(p, peek(p)->line, cm);
				for (size_t i = 0; i < cm->len; i++)
					vec_push(&p->carried, cm->items[i]);
				expect_newline(p);
				return;
			}
			s = ir_stmt_new(p->a, ST_ASSIGN, pos_of(&first));
			s->var = assign_target(p, &nt, ann, &value);
			s->value = value;
		} else {
			/* p, q = CALL  ->  _tuple_tmp = CALL; p = _tuple_tmp[0]; q = _tuple_tmp[1] */
			Expr *value = parse_expr(p);
			Type *vt = ir_expr_type(value);
			bool submit = value->kind == EX_SUBMIT;
			if (value->kind != EX_FN_CALL && value->kind != EX_OP_CALL && !submit) {
				PERR_AT(p, &first, "tuple unpacking needs a call on the right-hand side");
			}
			if (!vt && (value->kind == EX_FN_CALL || submit) && !pmap_get(p->sigs, value->str)) {
				SrcPos at = submit && value->lhs ? value->lhs->pos : value->pos; /* the callee */
				perr(p, at.line, at.col, "call to undefined function 'self.%s'", value->str);
			}
			if (vt && vt->kind == TY_TUPLE && vt->nelems != names.len) {
				int ne = vt->nelems;
				PERR_AT(p, &first, "cannot unpack %d values into %d names", ne, names.len);
			}
			Stmt *tmp = ir_stmt_new(p->a, ST_ASSIGN, pos_of(&first));
			take_comments(p, peek(p)->line, cm);
			tmp->value = value;
			tmp->var = new_var(p, intern_cstr(p->a, submit ? "_submit_tmp" : "_tuple_tmp"), vt,
					   VK_VAR, pos_of(&first));
			attach(p, tmp, cm);
			vec_push(out, tmp);
			for (int i = 0; i < names.len; i++) {
				Token *nk = names.items[i];
				Expr *g = ir_expr_new(p->a, EX_GETITEM, pos_of(nk));
				g->lhs = ir_var_ref(p->a, tmp->var);
				g->ival = (int64_t)i;
				g->type = vt && vt->kind == TY_TUPLE ? vt->elems[i] : NULL;
				Stmt *as = ir_stmt_new(p->a, ST_ASSIGN, pos_of(nk));
				as->var = assign_target(p, nk, NULL, &g);
				as->value = g;
				vec_push(out, as);
			}
			expect_newline(p);
			return;
		}
	} else if (at_yield(p)) {
		s = parse_yield_values(p, &first);
	} else if (tok_is_name(t, "pl") && tok_is_op(peek_at(p, 1), ".") && tok_is_name(peek_at(p, 2), "dump_tag") &&
		   tok_is_op(peek_at(p, 3), "(")) {
		/* pl.dump_tag(t): no statement; later dispatches dump t */
		if (p->fn->type != FT_ORCHESTRATION && p->fn->type != FT_INLINE)
			PERR_AT(p, t, "pl.dump_tag() is only valid inside an Orchestration or Inline function");
		for (int i = 0; i < 4; i++)
			skip(p);
		const Token *at = peek(p);
		if (at->kind != TK_NAME || !tok_is_op(peek_at(p, 1), ")"))
			PERR_AT(p, at, "pl.dump_tag() argument must be a bare variable name");
		Token nt = next(p);
		skip(p);
		Var *v = lookup(p, nt.text);
		if (!v)
			PERR_AT(p, &nt, "pl.dump_tag() argument '%s' is not defined at this point", nt.text);
		if (!v->type || (v->type->kind != TY_TENSOR && v->type->kind != TY_DIST_TENSOR))
			PERR_AT(p, &nt, "pl.dump_tag() argument '%s' is not a tensor", nt.text);
		if (!dump_tagged(p, v))
			vec_push(&p->dump_tagged, v);
		take_comments(p, peek(p)->line, cm);
		for (size_t i = 0; i < cm->len; i++)
			vec_push(&p->carried, cm->items[i]);
		expect_newline(p);
		return;
	} else if (tok_is_name(t, "pl") && tok_is_op(peek_at(p, 1), ".") &&
		   (tok_is_name(peek_at(p, 2), "static_print") || tok_is_name(peek_at(p, 2), "static_assert")) &&
		   tok_is_op(peek_at(p, 3), "(")) {
		/* compile-time only: no statement */
		static_stmt(p, tok_is_name(peek_at(p, 2), "static_assert"));
		take_comments(p, peek(p)->line, cm);
		for (size_t i = 0; i < cm->len; i++)
			vec_push(&p->carried, cm->items[i]);
		expect_newline(p);
		return;
	} else if (t->kind == TK_NAME && tok_is_op(peek_at(p, 1), "[")) {
		/* a statement `NAME[...]` is a subscript store `x[a:b] = v` (an
		 * expression statement of that form would have no effect) */
		skip(p);
		skip(p);
		s = subscript_store(p, &first);
	} else {
		Expr *e = parse_expr(p);
		if (at_op(p, "="))
			PERR_AT(p, peek(p), "cannot assign to this expression");
		if (e->kind == EX_TUPLE || e->kind == EX_VAR || e->kind == EX_INT || e->kind == EX_FLOAT ||
		    e->kind == EX_BOOL || e->kind == EX_STR || e->kind == EX_SYMBOL)
			perr(p, first.line, first.col, "expression statement has no effect");
		s = ir_stmt_new(p->a, ST_EVAL, pos_of(&first));
		s->value = e;
	}
	take_comments(p, peek(p)->line, cm);
	attach(p, s, cm);
	expect_newline(p);
	vec_push(out, s);
}

/* The LHS of a block's trailing yield-assignment (looking through a
 * pl.scope() / pl.manual_scope() that ends the block), or NULL. */
static YieldInfo *trailing_yield(Block *b)
{
	while (b->n > 0 && b->stmts[b->n - 1]->kind == ST_SCOPE &&
	       b->stmts[b->n - 1]->scope->kind == SC_RUNTIME)
		b = &b->stmts[b->n - 1]->body;
	if (b->n == 0)
		return NULL;
	Stmt *last = b->stmts[b->n - 1];
	if (last->kind != ST_YIELD)
		return NULL;
	return yield_info_of(last);
}

/* Return vars for a construct from its yield LHS (types: annotation, else the
 * yielded value's type). */
static void make_rets(Parser *p, Stmt *s, YieldInfo *yi, Stmt *ystmt)
{
	s->nrets = yi->lhs.n;
	s->rets = arena_alloc(p->a, (size_t)(yi->lhs.n + 1) * sizeof *s->rets);
	for (int i = 0; i < yi->lhs.n; i++) {
		Type *t = yi->lhs.types[i];
		Type *vt = ir_expr_type(ystmt->values[i]);
		char err[700];
		Type *m = type_for_assign(p->a, t, vt, yi->lhs.names[i], err, sizeof err);
		t = m ? m : t ? t : ir_type_new(p->a, TY_UNKNOWN);
		s->rets[i] = new_var(p, yi->lhs.names[i], t, VK_VAR, yi->lhs.pos[i]);
	}
}

static void bind_rets(Parser *p, Stmt *s)
{
	for (int i = 0; i < s->nrets; i++)
		bind(p, s->rets[i]->name, s->rets[i]);
}

/* Header comments (through the ':' line) belong to the compound statement. */
static void header_end(Parser *p, Stmt *s, PtrVec *cm)
{
	Token colon = expect_op_tok(p, ":");
	const Token *nl = peek(p);
	if (nl->kind != TK_NEWLINE)
		PERR_AT(p, nl, "expected a new line after ':' (one-line bodies are not supported)");
	skip(p);
	const Token *ind = peek(p);
	int arg[3] = { s->pos.line, colon.line, ind->kind == TK_INDENT ? ind->col : 1 };
	comments_visit(p, colon.line, pred_compound, arg, cm);
	attach(p, s, cm);
}

/* (a, b) or (a,) or [a, b] */
static Expr **parse_tuple_values(Parser *p, int *n) { return parse_expr_list(p, n, "a tuple '(...)'"); }

/* Var-name list `[a, b]` for deps= / no_dep_args= / dumps=. */
static Var **parse_var_list(Parser *p, int *n)
{
	const Token *t = peek(p);
	if (!tok_is_op(t, "["))
		PERR_AT(p, t, "expected a list of variables '[...]', found %s", describe(t));
	skip(p);
	PtrVec v = ARENA_VEC(p->a);
	while (!at_op(p, "]")) {
		const Token *nt = peek(p);
		if (nt->kind != TK_NAME) {
			vec_release(&v);
			PERR_AT(p, nt, "expected a variable name, found %s", describe(nt));
		}
		Expr *e = parse_name_ref(p);
		if (e->kind != EX_VAR) {
			vec_release(&v);
			PERR_AT(p, nt, "'%s' is not a variable", nt->text);
		}
		vec_push(&v, e->var);
		if (!accept_op(p, ","))
			break;
	}
	if (!at_op(p, "]"))
		vec_release(&v);
	expect_op(p, "]");
	return (Var **)vec_finish(p->a, &v, n);
}

static bool parse_bool_kw(Parser *p)
{
	const Token *t = peek(p);
	if (tok_is_name(t, "True") || tok_is_name(t, "False")) {
		skip(p);
		return t->text[0] == 'T';
	}
	PERR_AT(p, t, "expected True or False, found %s", describe(t));
}

static const char *parse_string_kw(Parser *p)
{
	const Token *t = peek(p);
	if (t->kind != TK_STRING)
		PERR_AT(p, t, "expected a string, found %s", describe(t));
	Token s = next(p);
	return intern(p->a, s.text, s.slen);
}

/* optimizations=[pl.split(pl.SplitMode.X), pl.cross_core_slot(slot_num=N)] */
static void parse_optimizations(Parser *p, Scope *sc)
{
	expect_op(p, "[");
	while (!at_op(p, "]")) {
		const Token *t = peek(p);
		Token ft = *t;
		const char *d = dotted_after(p, "pl");
		if (d && strcmp(d, "split") == 0) {
			expect_op(p, "(");
			if (at_name(p, "mode")) {
				skip(p);
				expect_op(p, "=");
			}
			sc->split = (SplitMode)parse_enum(p, "SplitMode", ir_split_parse, "a pl.SplitMode value");
			p->split_written = true;
			accept_op(p, ",");
			expect_op(p, ")");
		} else if (d && strcmp(d, "cross_core_slot") == 0) {
			expect_op(p, "(");
			Token k = expect_name(p, "slot_num");
			if (strcmp(k.text, "slot_num") != 0)
				PERR_AT(p, &k, "expected slot_num=");
			expect_op(p, "=");
			sc->slot_num = parse_expr(p);
			accept_op(p, ",");
			expect_op(p, ")");
		} else {
			PERR_AT(p, &ft, "unknown optimization (expected pl.split(...) or pl.cross_core_slot(...))");
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, "]");
}

/* Keyword arguments shared by pl.at / pl.spmd / pl.cluster headers. */
static void parse_scope_kwargs(Parser *p, Scope *sc, bool first_done)
{
	bool need_comma = first_done;
	while (!at_op(p, ")")) {
		if (need_comma) {
			expect_op(p, ",");
			if (at_op(p, ")"))
				break;
		}
		need_comma = true;
		Token k = expect_name(p, "a keyword argument");
		expect_op(p, "=");
		const char *n = k.text;
		if (!strcmp(n, "name_hint")) {
			sc->name_hint = parse_string_kw(p);
		} else if (!strcmp(n, "optimizations") && (sc->kind == SC_INCORE || sc->kind == SC_SPMD ||
							    sc->kind == SC_HIERARCHY)) {
			parse_optimizations(p, sc);
		} else if (!strcmp(n, "deps") && sc->kind != SC_CLUSTER) {
			sc->deps = parse_var_list(p, &sc->ndeps);
			sc->has_deps = true;
		} else if (!strcmp(n, "no_dep_args") && sc->kind != SC_CLUSTER) {
			sc->no_dep_args = parse_var_list(p, &sc->nno_dep_args);
			sc->has_no_dep_args = true;
		} else if (!strcmp(n, "dumps") && sc->kind != SC_CLUSTER) {
			sc->dumps = parse_var_list(p, &sc->ndumps);
			sc->has_dumps = true;
		} else if (!strcmp(n, "allow_early_resolve") && sc->kind != SC_CLUSTER) {
			sc->allow_early_resolve = parse_bool_kw(p);
		} else if (!strcmp(n, "windowize") && (sc->kind == SC_INCORE || sc->kind == SC_HIERARCHY)) {
			sc->windowize = parse_bool_kw(p);
		} else if (!strcmp(n, "core_num") && sc->kind == SC_SPMD && !sc->core_num) {
			sc->core_num = parse_expr(p);
		} else if (!strcmp(n, "sync_start") && sc->kind == SC_SPMD) {
			sc->sync_start = parse_bool_kw(p);
		} else if (!strcmp(n, "predicate") && sc->kind == SC_SPMD) {
			sc->predicate = parse_expr(p);
		} else if (!strcmp(n, "role") && (sc->kind == SC_HIERARCHY || sc->kind == SC_INCORE)) {
			sc->role = (Role)parse_enum(p, "Role", ir_role_parse, "a pl.Role value");
		} else {
			PERR_AT(p, &k, "unknown keyword argument '%s' for this scope", n);
		}
	}
	expect_op(p, ")");
}

/* pl.spmd(core_num, ...) with core_num positional or as a keyword */
static void spmd_args(Parser *p, Scope *sc, const Token *at)
{
	bool kw = peek(p)->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=");
	if (!kw)
		sc->core_num = parse_expr(p);
	parse_scope_kwargs(p, sc, !kw);
	if (!sc->core_num)
		PERR_AT(p, at, "pl.spmd() missing required argument 'core_num'");
}

static Stmt *scope_stmt(Parser *p, ScopeKind k, const Token *at)
{
	Stmt *s = ir_stmt_new(p->a, ST_SCOPE, pos_of(at));
	s->scope = arena_alloc(p->a, sizeof *s->scope);
	s->scope->kind = k;
	s->scope->level = LV_NONE;
	s->scope->role = RL_NONE;
	return s;
}

static Expr *op_call0(Parser *p, const char *op, Type *t)
{
	Expr *e = ir_expr_new(p->a, EX_OP_CALL, (SrcPos){ 0, 0 });
	e->str = intern_cstr(p->a, op);
	e->type = t;
	return e;
}

/* The spmd for-form name split: "q" -> spmd "q_spmd", incore "q". */
static void split_spmd_hint(Parser *p, Scope *spmd, Scope *incore)
{
	const char *h = spmd->name_hint;
	if (!h)
		return;
	size_t n = strlen(h);
	if (n >= 5 && strcmp(h + n - 5, "_spmd") == 0) {
		incore->name_hint = intern(p->a, h, n - 5);
	} else {
		incore->name_hint = h;
		spmd->name_hint = intern_cstr(p->a, arena_printf(p->a, "%s_spmd", h));
	}
}

/* A loop with init_values binds its results through the yield's LHS, so a
 * bare `pl.yield_(...)` statement (in the body, its ifs and scopes; nested
 * loops have their own yields) leaves them nameless: the reference rejects it. */
static void reject_bare_yield(Parser *p, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *st = b->stmts[i];
		if (st->kind == ST_YIELD && !yield_info_of((Stmt *)st))
			perr(p, st->pos.line, st->pos.col,
			     "a loop with init_values needs the assignment form `x_next = pl.yield_(...)`: its left-hand side "
			     "names the values after the loop; a bare pl.yield_(...) is rejected here");
		if (st->kind == ST_IF || st->kind == ST_SCOPE) {
			reject_bare_yield(p, &st->body);
			reject_bare_yield(p, &st->orelse);
		}
	}
}

static void parse_for(Parser *p, PtrVec *out, PtrVec *cm)
{
	Token ft = next(p); /* for */
	/* targets */
	const Token *t = peek(p);
	Token loopvar = { 0 };
	bool has_loopvar = false, paren_targets = false;
	PtrVec targets = ARENA_VEC(p->a); /* Token* of iter-arg names */
	if (tok_is_op(t, "(")) {
		paren_targets = true;
		skip(p);
		while (!at_op(p, ")")) {
			Token n = expect_name(p, "a loop-carried variable name");
			Token *c = arena_alloc(p->a, sizeof *c);
			*c = n;
			vec_push(&targets, c);
			if (!accept_op(p, ","))
				break;
		}
		expect_op(p, ")");
	} else {
		loopvar = expect_name(p, "a loop variable");
		has_loopvar = true;
		if (accept_op(p, ",")) {
			if (accept_op(p, "(")) {
				while (!at_op(p, ")")) {
					Token n = expect_name(p, "a loop-carried variable name");
					Token *c = arena_alloc(p->a, sizeof *c);
					*c = n;
					vec_push(&targets, c);
					if (!accept_op(p, ","))
						break;
				}
				expect_op(p, ")");
			} else {
				/* `for a, b in pl.while_(...)`: all names are iter args */
				Token *c = arena_alloc(p->a, sizeof *c);
				*c = loopvar;
				vec_push(&targets, c);
				has_loopvar = false;
				paren_targets = true;
				do {
					Token n = expect_name(p, "a loop-carried variable name");
					c = arena_alloc(p->a, sizeof *c);
					*c = n;
					vec_push(&targets, c);
				} while (accept_op(p, ",") && !at_name(p, "in"));
			}
		}
	}
	const Token *in = peek(p);
	if (!tok_is_name(in, "in")) {
		vec_release(&targets);
		PERR_AT(p, in, "expected 'in', found %s", describe(in));
	}
	skip(p);
	const Token *it = peek(p);
	Token itt = *it;
	const char *kind = NULL;
	if (it->kind == TK_NAME && tok_is_op(peek_at(p, 1), ".")) {
		skip(p);
		skip(p);
		Token k = expect_name(p, "an iterator such as pl.range");
		kind = k.text;
	}
	if (!kind || !at_op(p, "(")) {
		vec_release(&targets);
		PERR_AT(p, &itt, "for loops must iterate over pl.range, pl.parallel, pl.unroll, pl.pipeline, pl.while_, pl.spmd or pl.split_aiv");
	}
	Token open = next(p);
	(void)open;

	if (!strcmp(kind, "split_aiv") && p->split_aiv_depth) {
		vec_release(&targets);
		PERR_AT(p, &ft, "nested 'for ... in pl.split_aiv(...)' is not allowed: a split_aiv body already "
			"stands for the two AIV lanes, so it cannot hold another split_aiv loop");
	}
	if (!strcmp(kind, "spmd") || !strcmp(kind, "split_aiv")) {
		if (!has_loopvar || targets.len) {
			vec_release(&targets);
			PERR_AT(p, &itt, "pl.%s loops take exactly one loop variable", kind);
		}
		vec_release(&targets);
		bool spmd = strcmp(kind, "spmd") == 0;
		Stmt *s = scope_stmt(p, spmd ? SC_SPMD : SC_SPLIT_AIV, &ft);
		Scope *sc = s->scope;
		if (spmd) {
			spmd_args(p, sc, &ft);
			if (sc->has_deps)
				PERR_AT(p, &itt, "pl.spmd() does not accept 'deps=' here: a spmd loop is no task to depend on; "
					"use `with pl.spmd(n, deps=[...]) as tid:` or pl.spmd_submit(..., deps=[...])");
		} else {
			sc->count = parse_expr(p);
			expect_op(p, ",");
			Token m = expect_name(p, "mode=");
			if (strcmp(m.text, "mode"))
				PERR_AT(p, &m, "expected mode=pl.SplitMode.X");
			expect_op(p, "=");
			sc->split = (SplitMode)parse_enum(p, "SplitMode", ir_split_parse, "a pl.SplitMode value");
			accept_op(p, ",");
			expect_op(p, ")");
		}
		header_end(p, s, cm);
		Var *iv = new_var(p, loopvar.text, ir_scalar_type(p->a, DT_INDEX), VK_VAR, pos_of(&loopvar));
		bind(p, loopvar.text, iv);
		Stmt *def = ir_stmt_new(p->a, ST_ASSIGN, pos_of(&loopvar));
		def->var = iv;
		def->value = op_call0(p, spmd ? "tile.get_block_idx" : "tile.get_subblock_idx", iv->type);
		Block body;
		int saved_ctx = p->loop_ctx;
		p->incore_depth += spmd;
		p->split_aiv_depth += !spmd;
		if (!spmd)
			p->split_aiv_mode = sc->split;
		p->loop_ctx = spmd ? LOOP_PLAIN : LOOP_SPLIT_AIV;
		parse_block(p, &body, 0);
		p->loop_ctx = saved_ctx;
		p->split_aiv_depth -= !spmd;
		p->incore_depth -= spmd;
		Block *target = &s->body;
		Stmt *inner = NULL;
		if (spmd) {
			inner = scope_stmt(p, SC_INCORE, &ft);
			inner->scope->level = LV_CORE_GROUP;
			inner->scope->split = sc->split;
			inner->scope->slot_num = sc->slot_num;
			sc->split = SPLIT_NONE;
			sc->slot_num = NULL;
			split_spmd_hint(p, sc, inner->scope);
			target = &inner->body;
		} else {
			sc->aiv_var = iv;
		}
		target->n = body.n + 1;
		target->stmts = arena_alloc(p->a, (size_t)target->n * sizeof(Stmt *));
		target->stmts[0] = def;
		if (body.n)
			memcpy(target->stmts + 1, body.stmts, (size_t)body.n * sizeof(Stmt *));
		if (inner) {
			s->body.n = 1;
			s->body.stmts = arena_alloc(p->a, sizeof(Stmt *));
			s->body.stmts[0] = inner;
		}
		if (!spmd && !p->incore_depth && p->fn->type != FT_INCORE && p->fn->type != FT_AIC &&
		    p->fn->type != FT_AIV) {
			/* outside InCore code a split_aiv region gets an InCore carrier */
			Stmt *w = scope_stmt(p, SC_INCORE, &ft);
			w->scope->level = LV_CORE_GROUP;
			scope_dump_tags(p, w->scope);
			w->comments = s->comments;
			w->ncomments = s->ncomments;
			s->comments = NULL;
			s->ncomments = 0;
			w->body.n = 1;
			w->body.stmts = arena_alloc(p->a, sizeof(Stmt *));
			w->body.stmts[0] = s;
			s = w;
		}
		vec_push(out, s);
		return;
	}

	bool is_while = !strcmp(kind, "while_");
	ForKind fk = FOR_RANGE;
	if (!is_while) {
		if (!strcmp(kind, "range")) fk = FOR_RANGE;
		else if (!strcmp(kind, "parallel")) fk = FOR_PARALLEL;
		else if (!strcmp(kind, "unroll")) fk = FOR_UNROLL;
		else if (!strcmp(kind, "pipeline")) fk = FOR_PIPELINE;
		else {
			vec_release(&targets);
			PERR_AT(p, &itt, "unknown loop iterator '%s' (expected pl.range, pl.parallel, pl.unroll, pl.pipeline, pl.while_, pl.spmd or pl.split_aiv)", kind);
		}
		if (!has_loopvar) {
			vec_release(&targets);
			PERR_AT(p, &ft, "pl.%s loops need a loop variable", kind);
		}
	} else if (has_loopvar) {
		vec_release(&targets);
		PERR_AT(p, &ft, "pl.while_ loops take only loop-carried variables: for (a, b) in pl.while_(...)");
	}
	(void)paren_targets;
	Stmt *s = ir_stmt_new(p->a, is_while ? ST_WHILE : ST_FOR, pos_of(&ft));
	s->for_kind = fk;
	PtrVec pos = ARENA_VEC(p->a);
	Expr *init = NULL;
	Expr *stage = NULL, *attrs = NULL;
	while (!at_op(p, ")")) {
		const Token *a = peek(p);
		if (a->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=")) {
			Token k = next(p);
			skip(p);
			if (!strcmp(k.text, "init_values")) {
				init = ir_expr_new(p->a, EX_TUPLE, pos_of(&k));
				init->args = parse_tuple_values(p, &init->nargs);
			} else if (!strcmp(k.text, "stage") && fk == FOR_PIPELINE && !is_while) {
				stage = parse_expr(p);
			} else if (!strcmp(k.text, "attrs") && !is_while) {
				attrs = parse_dict(p);
			} else {
				vec_release(&pos);
				vec_release(&targets);
				PERR_AT(p, &k, "unknown keyword argument '%s' for pl.%s", k.text, kind);
			}
		} else {
			if (init || stage || attrs) {
				vec_release(&pos);
				vec_release(&targets);
				PERR_AT(p, a, "positional argument follows keyword argument");
			}
			vec_push(&pos, parse_expr(p));
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	if (is_while ? pos.len != 0 : (pos.len < 1 || pos.len > 3)) {
		size_t n = pos.len;
		vec_release(&pos);
		vec_release(&targets);
		PERR_AT(p, &itt, is_while ? "pl.while_ takes only init_values=" : "pl.%s takes 1 to 3 positional arguments (got %zu)", kind, n);
	}
	if (fk == FOR_PIPELINE && !stage && !is_while) {
		vec_release(&pos);
		vec_release(&targets);
		PERR_AT(p, &itt, "pl.pipeline requires stage=");
	}
	if (!is_while) {
		Expr **pv = (Expr **)pos.items;
		if (pos.len == 1) {
			s->start = ir_int(p->a, 0, DT_INDEX);
			s->stop = pv[0];
			s->step = ir_int(p->a, 1, DT_INDEX);
		} else {
			s->start = pv[0];
			s->stop = pv[1];
			s->step = pos.len == 3 ? pv[2] : ir_int(p->a, 1, DT_INDEX);
		}
	}
	vec_release(&pos);
	s->stage = stage;
	s->attrs = attrs;
	int ninit = init ? init->nargs : 0;
	if ((int)targets.len != ninit) {
		size_t nt = targets.len;
		vec_release(&targets);
		PERR_AT(p, &ft, "the loop names %zu loop-carried variable(s) but init_values has %d value(s)", nt, ninit);
	}
	if (is_while && !init) {
		vec_release(&targets);
		PERR_AT(p, &itt, "pl.while_ requires init_values=");
	}
	header_end(p, s, cm);
	size_t mark = scope_mark(p);
	if (has_loopvar) {
		s->var = new_var(p, loopvar.text, ir_scalar_type(p->a, DT_INDEX), VK_VAR, pos_of(&loopvar));
		bind(p, loopvar.text, s->var);
	}
	s->niter = ninit;
	s->iter_args = arena_alloc(p->a, (size_t)(ninit + 1) * sizeof *s->iter_args);
	s->inits = init ? init->args : NULL;
	for (int i = 0; i < ninit; i++) {
		Token *nt = targets.items[i];
		s->iter_args[i] = new_var(p, nt->text, ir_expr_type(init->args[i]), VK_ITER_ARG, pos_of(nt));
		s->iter_args[i]->init = init->args[i];
		bind(p, nt->text, s->iter_args[i]);
	}
	vec_release(&targets);
	int saved_ctx = p->loop_ctx;
	p->loop_ctx = LOOP_PLAIN;
	parse_block(p, &s->body, 0);
	p->loop_ctx = saved_ctx;
	if (ninit > 0)
		reject_bare_yield(p, &s->body);
	if (is_while) {
		s->while_ssa = true;
		Stmt *c = s->body.n ? s->body.stmts[0] : NULL;
		if (!c || c->kind != ST_EVAL || c->value->kind != EX_OP_CALL || strcmp(c->value->str, "cond") != 0 ||
		    c->value->nargs != 1)
			perr(p, c ? c->pos.line : ft.line, c ? c->pos.col : ft.col,
			     "the first statement of a pl.while_ body must be pl.cond(<condition>)");
		s->value = c->value->args[0];
		/* comments on the pl.cond line are not kept (it is not a statement in the IR) */
		s->body.stmts++;
		s->body.n--;
	}
	YieldInfo *yi = trailing_yield(&s->body);
	if (ninit > 0) {
		scope_pop(p, mark);
		if (yi) {
			make_rets(p, s, yi, yi->stmt);
		} else {
			/* no yield-LHS: results named <iter>_out */
			s->nrets = ninit;
			s->rets = arena_alloc(p->a, (size_t)ninit * sizeof *s->rets);
			for (int i = 0; i < ninit; i++)
				s->rets[i] = new_var(p, intern_cstr(p->a, arena_printf(p->a, "%s_out", s->iter_args[i]->name)),
						     s->iter_args[i]->type, VK_VAR, s->iter_args[i]->pos);
			/* these synthetic results are bound to no name */
		}
		if (yi)
			bind_rets(p, s);
	} else if (yi) {
		/* yield with no loop-carried values: rets still name the results */
		scope_pop(p, mark);
		make_rets(p, s, yi, yi->stmt);
		bind_rets(p, s);
	}
	vec_push(out, s);
}

static void parse_if(Parser *p, PtrVec *out, PtrVec *cm, bool is_elif)
{
	Token it = next(p); /* if / elif */
	(void)is_elif;
	Stmt *s = ir_stmt_new(p->a, ST_IF, pos_of(&it));
	s->value = parse_expr(p);
	header_end(p, s, cm);
	size_t mark = scope_mark(p);
	parse_block(p, &s->body, 0);
	const Token *t = peek(p);
	if (tok_is_name(t, "elif")) {
		/* elif becomes else: + a nested if */
		PtrVec ecm = ARENA_VEC(p->a), inner = ARENA_VEC(p->a);
		s->has_else = true;
		/* the nested if prints one level deeper (else: + if), so an elif
		 * counts as a nested block: the printed program stays within the
		 * indentation limit and re-reads, and no walk of the chain (this
		 * parse, the printer, the passes) recurses deeper than that */
		if (++p->block_depth > LEX_MAX_INDENT - 3)
			PERR_AT(p, t, "elif chain nested too deeply: each elif prints as 'else:' and an 'if' one level "
				"deeper, past the limit of %d levels of indentation", LEX_MAX_INDENT);
		parse_if(p, &inner, &ecm, true);
		p->block_depth--;
		s->orelse.stmts = (Stmt **)vec_finish(p->a, &inner, &s->orelse.n);
	} else if (tok_is_name(t, "else")) {
		skip(p);
		expect_op(p, ":");
		expect_newline(p);
		/* comments above and on the else line go to the first else statement */
		parse_block(p, &s->orelse, 0);
		s->has_else = s->orelse.n > 0; /* an else of only `pass` is no else */
	}
	YieldInfo *y1 = trailing_yield(&s->body);
	YieldInfo *y2 = s->has_else ? trailing_yield(&s->orelse) : NULL;
	if (y1 || y2) {
		scope_pop(p, mark);
		YieldInfo *yi = y1 ? y1 : y2;
		make_rets(p, s, yi, yi->stmt);
		if (y1 && y2 && y1->lhs.n != y2->lhs.n)
			perr(p, y2->stmt->pos.line, y2->stmt->pos.col,
			     "the else branch yields %d value(s) but the then branch yields %d", y2->lhs.n, y1->lhs.n);
		bind_rets(p, s);
	}
	vec_push(out, s);
}

static void parse_while(Parser *p, PtrVec *out, PtrVec *cm)
{
	Token wt = next(p);
	Stmt *s = ir_stmt_new(p->a, ST_WHILE, pos_of(&wt));
	s->value = parse_expr(p);
	header_end(p, s, cm);
	int saved_ctx = p->loop_ctx;
	p->loop_ctx = LOOP_PLAIN;
	parse_block(p, &s->body, 0);
	p->loop_ctx = saved_ctx;
	vec_push(out, s);
}

static void parse_with(Parser *p, PtrVec *out, PtrVec *cm)
{
	Token wt = next(p);
	const Token *t = peek(p);
	Token ct = *t;
	const char *d = dotted_after(p, "pl");
	if (!d || !at_op(p, "("))
		PERR_AT(p, &ct, "expected a scope such as pl.at(...), pl.cluster(), pl.spmd(...) or pl.scope()");
	skip(p);
	Stmt *s = NULL;
	bool split_written = false;
	if (!strcmp(d, "at")) {
		s = scope_stmt(p, SC_INCORE, &wt);
		/* level is the first parameter: pl.at(pl.Level.X) or pl.at(level=pl.Level.X) */
		if (!(at_name(p, "pl") && tok_is_op(peek_at(p, 1), "."))) {
			Token k = expect_name(p, "level=");
			if (strcmp(k.text, "level"))
				PERR_AT(p, &k, "pl.at needs level= as its first argument");
			expect_op(p, "=");
		}
		Level lv = (Level)parse_enum(p, "Level", ir_level_parse, "a pl.Level value");
		s->scope->level = lv;
		s->scope->kind = lv == LV_CORE_GROUP ? SC_INCORE : SC_HIERARCHY;
		p->split_written = false;
		parse_scope_kwargs(p, s->scope, true);
		split_written = p->split_written;
		if (s->scope->kind == SC_INCORE && s->scope->role != RL_NONE)
			PERR_AT(p, &ct, "role= is not allowed on a CORE_GROUP scope");
		scope_dump_tags(p, s->scope);
	} else if (!strcmp(d, "cluster")) {
		s = scope_stmt(p, SC_CLUSTER, &wt);
		parse_scope_kwargs(p, s->scope, false);
	} else if (!strcmp(d, "spmd")) {
		s = scope_stmt(p, SC_SPMD, &wt);
		spmd_args(p, s->scope, &wt);
	} else if (!strcmp(d, "scope") || !strcmp(d, "manual_scope")) {
		s = scope_stmt(p, SC_RUNTIME, &wt);
		if (d[0] == 'm') {
			s->scope->manual = true;
			expect_op(p, ")");
		} else if (!at_op(p, ")")) {
			Token k = expect_name(p, "mode=");
			if (strcmp(k.text, "mode"))
				PERR_AT(p, &k, "unknown keyword argument '%s' for pl.scope", k.text);
			expect_op(p, "=");
			const Token *mt = peek(p);
			const char *m = dotted_after(p, "pl");
			if (!m || (strcmp(m, "ScopeMode.MANUAL") && strcmp(m, "ScopeMode.AUTO")))
				PERR_AT(p, mt, "expected pl.ScopeMode.MANUAL or pl.ScopeMode.AUTO");
			s->scope->manual = m[10] == 'M';
			accept_op(p, ",");
			expect_op(p, ")");
		} else {
			expect_op(p, ")");
		}
	} else {
		PERR_AT(p, &ct, "unknown scope 'pl.%s' (expected pl.at, pl.cluster, pl.spmd, pl.scope or pl.manual_scope)", d);
	}
	Stmt *placeholder = NULL;
	if (at_name(p, "as")) {
		Token as = next(p);
		Token n = expect_name(p, "a task-id name after 'as'");
		if (s->scope->kind == SC_CLUSTER || s->scope->kind == SC_RUNTIME)
			PERR_AT(p, &as, "this scope does not produce a task id");
		/* hidden `tid = pl.system.task_invalid()` just before the scope */
		Type *tt = ir_scalar_type(p->a, DT_TASK_ID);
		Var *tid = new_var(p, n.text, tt, VK_VAR, pos_of(&n));
		placeholder = ir_stmt_new(p->a, ST_ASSIGN, pos_of(&n));
		placeholder->var = tid;
		placeholder->value = op_call0(p, "system.task_invalid", tt);
		placeholder->placeholder = true;
		s->scope->tid = tid;
		bind(p, n.text, tid);
	}
	header_end(p, s, cm);
	bool incore = s->scope->kind == SC_INCORE || s->scope->kind == SC_SPMD;
	p->incore_depth += incore;
	parse_block(p, &s->body, 0);
	p->incore_depth -= incore;
	if (split_written && s->scope->kind == SC_INCORE && ir_find_scope(&s->body, SC_SPLIT_AIV))
		PERR_AT(p, &ct, "optimizations=[pl.split(...)] and pl.split_aiv regions are mutually exclusive AIV-split "
			"mechanisms; remove one of them (pl.cross_core_slot(slot_num=N) pins a slot count without splitting)");
	if (s->scope->kind == SC_SPMD) {
		/* with-form: the parser synthesises an InCore carrier only for a
		 * body that reads the per-block index or carries optimizations= */
		Scope *sc = s->scope;
		if (ir_block_calls(&s->body, "tile.get_block_idx") || sc->split != SPLIT_NONE || sc->slot_num) {
			Stmt *inner = scope_stmt(p, SC_INCORE, &wt);
			inner->scope->level = LV_CORE_GROUP;
			inner->scope->split = sc->split;
			inner->scope->slot_num = sc->slot_num;
			sc->split = SPLIT_NONE;
			sc->slot_num = NULL;
			split_spmd_hint(p, sc, inner->scope);
			inner->body = s->body;
			s->body.n = 1;
			s->body.stmts = arena_alloc(p->a, sizeof(Stmt *));
			s->body.stmts[0] = inner;
		}
	}
	if (placeholder)
		vec_push(out, placeholder);
	vec_push(out, s);
}

static void parse_stmt(Parser *p, PtrVec *out, bool first_in_block)
{
	const Token *t = peek(p);
	if (!first_in_block) {
		int arg[2] = { t->line, t->col };
		comments_visit(p, t->line - 1, pred_stale, arg, NULL);
	}
	PtrVec all = ARENA_VEC(p->a);
	take_carried(p, &all);
	if (t->kind == TK_NAME) {
		/* names are interned: keywords compare by pointer */
		const char *n = t->text;
		switch (stmt_keyword(p, n)) {
		case NM_FOR: parse_for(p, out, &all); return;
		case NM_IF: parse_if(p, out, &all, false); return;
		case NM_WHILE: parse_while(p, out, &all); return;
		case NM_WITH: parse_with(p, out, &all); return;
		case NM_ELIF: case NM_ELSE:
			PERR_AT(p, t, "'%s' without a matching 'if'", n);
		case NM_STMT_KEYWORDS:
			break;
		default:
			PERR_AT(p, t, "'%s' is not supported inside a function body", n);
		}
	}
	if (t->kind == TK_INDENT)
		PERR_AT(p, t, "unexpected indent");
	if (t->kind != TK_NAME && t->kind != TK_STRING && t->kind != TK_OP && t->kind != TK_INT &&
	    t->kind != TK_FLOAT)
		PERR_AT(p, t, "expected a statement, found %s", describe(t));
	parse_simple_stmt(p, out, &all);
}

/* INDENT stmt+ DEDENT (the NEWLINE before it is consumed by the header). */
static void parse_block(Parser *p, Block *b, int upper)
{
	const Token *t = peek(p);
	if (t->kind != TK_INDENT)
		PERR_AT(p, t, "expected an indented block, found %s", describe(t));
	skip(p);
	if (++p->block_depth > LEX_MAX_INDENT)
		PERR_AT(p, t, "blocks nested too deeply");
	PtrVec out = ARENA_VEC(p->a);
	const Token *ft = peek(p);
	int first[2] = { ft->line, ft->col };
	size_t saved_start = p->scope_start;
	p->scope_start = p->nundo;
	int nast = 0;
	while (peek(p)->kind != TK_DEDENT && peek(p)->kind != TK_EOF)
		parse_stmt(p, &out, nast++ == 0);
	/* tail comments of the block (at its column or deeper) are dropped; a
	 * then-branch's tail reaches to the line before its else / elif */
	if (!upper) {
		upper = p->last_line;
		const Token *after = peek_at(p, 1);
		if (peek(p)->kind == TK_DEDENT && (tok_is_name(after, "else") || tok_is_name(after, "elif")))
			upper = after->line - 1;
	}
	comments_visit(p, upper, pred_tail, first, NULL);
	/* carried docstring / pass comments at the end of a block are dropped */
	p->carried.len = 0;
	if (peek(p)->kind == TK_DEDENT)
		skip(p);
	p->block_depth--;
	p->scope_start = saved_start;
	b->stmts = (Stmt **)vec_finish(p->a, &out, &b->n);
}

/* ------------------------------------------------------------ functions */

/* A line of Python as ast.unparse writes its string literals: a plain
 * "..." without quotes or escapes inside becomes '...'. */
static void add_unparsed_line(StrBuf *b, const char *s, const char *r)
{
	while (s < r) {
		char c = *s;
		if (c == '\'') { /* copy a '...' literal as it is */
			const char *e = s + 1;
			while (e < r && *e != '\'')
				e += *e == '\\' && e + 1 < r ? 2 : 1;
			e = e < r ? e + 1 : r;
			sb_add(b, s, (size_t)(e - s));
			s = e;
			continue;
		}
		if (c == '"' && !(s + 2 < r && s[1] == '"' && s[2] == '"')) {
			const char *e = s + 1;
			bool plain = true;
			while (e < r && *e != '"') {
				if (*e == '\\' || *e == '\'')
					plain = false;
				e += *e == '\\' && e + 1 < r ? 2 : 1;
			}
			if (e < r && plain) {
				sb_addc(b, '\'');
				sb_add(b, s + 1, (size_t)(e - s - 1));
				sb_addc(b, '\'');
				s = e + 1;
				continue;
			}
			e = e < r ? e + 1 : r;
			sb_add(b, s, (size_t)(e - s));
			s = e;
			continue;
		}
		sb_addc(b, c);
		s++;
	}
}

/* The first `return` with values of a block, in pre-order (NULL: none). */
static const Stmt *first_value_return(const Block *b, int depth)
{
	if (depth > 200)
		return NULL;
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (s->kind == ST_RETURN && s->nvalues)
			return s;
		if (ir_stmt_is_simple(s->kind))
			continue;
		const Stmt *r = first_value_return(&s->body, depth + 1);
		if (!r)
			r = first_value_return(&s->orelse, depth + 1);
		if (r)
			return r;
	}
	return NULL;
}

/* The source of the body at the cursor, up to the end of its block, as the
 * reference keeps a HOST-level SubWorker's: its statements' lines without
 * the body's indentation, blank and comment-only lines left out.  The
 * tokens are consumed (the DEDENT ending the body is not). */
static const char *verbatim_body(Parser *p)
{
	const Token *t0 = peek(p);
	int first_line = t0->line, col = t0->col - 1;
	const char *q = t0->src;
	while (q > p->src && q[-1] != '\n')
		q--;
	int depth = 0;
	for (;;) {
		const Token *t = peek(p);
		if (t->kind == TK_EOF || (t->kind == TK_DEDENT && depth == 0))
			break;
		depth += t->kind == TK_INDENT ? 1 : t->kind == TK_DEDENT ? -1 : 0;
		skip(p);
	}
	int last_line = p->last_line;
	StrBuf b = { 0 };
	const char *end = p->src + p->len;
	for (int line = first_line; line <= last_line && q < end; line++) {
		const char *e = q;
		while (e < end && *e != '\n')
			e++;
		const char *r = e;
		if (r > q && r[-1] == '\r')
			r--;
		const char *s = q;
		int k = 0;
		while (s < r && *s == ' ' && k < col)
			s++, k++;
		/* a trailing comment goes (the reference re-prints the statements) */
		for (size_t i = p->lx.comment_head; i < p->lx.ncomments; i++) {
			const Comment *c = &p->lx.comments[i];
			if (c->line > line)
				break;
			if (c->line == line && c->col >= 1 && q + c->col - 1 < r && q + c->col - 1 >= s) {
				r = q + c->col - 1;
				while (r > s && (r[-1] == ' ' || r[-1] == '\t'))
					r--;
				break;
			}
		}
		const char *nb = s;
		while (nb < r && (*nb == ' ' || *nb == '\t'))
			nb++;
		if (nb < r && *nb != '#') {
			if (b.len)
				sb_addc(&b, '\n');
			add_unparsed_line(&b, s, r);
		}
		q = e < end ? e + 1 : e;
	}
	const char *text = arena_strndup(p->a, b.data ? b.data : "", b.len);
	sb_release(&b);
	return text;
}

static Function *parse_function(Parser *p, bool in_program)
{
	/* decorator */
	Token at = expect_op_tok(p, "@");
	const Token *dt = peek(p);
	const char *d = dotted_after(p, "pl");
	if (!d || strcmp(d, "function"))
		PERR_AT(p, dt, "expected @pl.function");
	Function *f = arena_alloc(p->a, sizeof *f);
	f->pos = pos_of(&at);
	f->type = FT_OPAQUE;
	f->level = LV_NONE;
	f->role = RL_NONE;
	f->auto_scope = true;
	bool explicit_level = false, explicit_role = false;
	PtrVec attrk = ARENA_VEC(p->a), attrv = ARENA_VEC(p->a);
	Expr *deco_attrs = NULL;
	if (accept_op(p, "(")) {
		while (!at_op(p, ")")) {
			Token k = expect_name(p, "a keyword argument of @pl.function");
			expect_op(p, "=");
			if (!strcmp(k.text, "type")) {
				f->type = (FuncType)parse_enum(p, "FunctionType", ir_functype_parse, "a pl.FunctionType value");
			} else if (!strcmp(k.text, "level")) {
				f->level = (Level)parse_enum(p, "Level", ir_level_parse, "a pl.Level value");
				explicit_level = true;
			} else if (!strcmp(k.text, "role")) {
				f->role = (Role)parse_enum(p, "Role", ir_role_parse, "a pl.Role value");
				explicit_role = true;
			} else if (!strcmp(k.text, "auto_scope")) {
				f->auto_scope = parse_bool_kw(p);
			} else if (!strcmp(k.text, "strict_ssa")) {
				f->strict_ssa = parse_bool_kw(p);
			} else if (!strcmp(k.text, "external_source")) {
				f->external_source = parse_string_kw(p);
			} else if (!strcmp(k.text, "attrs")) {
				deco_attrs = parse_dict(p);
			} else {
				PERR_AT(p, &k, "unknown keyword argument '%s' of @pl.function (expected type, level, role, auto_scope, strict_ssa, external_source or attrs)", k.text);
			}
			if (!accept_op(p, ","))
				break;
		}
		expect_op(p, ")");
	}
	expect_newline(p);
	Level dl = ir_default_level(f->type);
	Role dr = ir_default_role(f->type);
	if (dl != LV_NONE) {
		if (explicit_level && f->level != dl)
			perr(p, at.line, at.col, "level=pl.Level.%s does not match type=pl.FunctionType.%s (which implies pl.Level.%s)",
			     ir_level_name(f->level), ir_functype_name(f->type), ir_level_name(dl));
		f->level = dl;
	}
	if (dr != RL_NONE) {
		if (explicit_role && f->role != dr)
			perr(p, at.line, at.col, "role=pl.Role.%s does not match type=pl.FunctionType.%s (which implies pl.Role.%s)",
			     ir_role_name(f->role), ir_functype_name(f->type), ir_role_name(dr));
		f->role = dr;
	}
	const Token *dfn = peek(p);
	if (!tok_is_name(dfn, "def"))
		PERR_AT(p, dfn, "expected 'def' after the decorator, found %s", describe(dfn));
	/* decorator-line and class-level comments belong to no statement */
	drop_comments_before_line(p, dfn->line);
	skip(p);
	Token name = expect_name(p, "a function name");
	f->name = name.text;
	p->fn = f;
	forget_names(p); /* the previous function's */
	p->scope_start = 0;
	/* inside a program only @pl.program(strict_ssa=...) counts (as in the reference) */
	if (in_program)
		f->strict_ssa = p->prog_strict;
	/* parameters */
	expect_op(p, "(");
	PtrVec params = ARENA_VEC(p->a);
	bool first = true;
	while (!at_op(p, ")")) {
		Token pn = expect_name(p, "a parameter name");
		if (first && !strcmp(pn.text, "self") && !at_op(p, ":")) {
			if (in_program && f->role == RL_SUBWORKER && f->level >= LV_HOST)
				PERR_AT(p, &pn, "SubWorker function '%s' must not declare 'self': it is a self-contained function "
					"inside @pl.program; remove the 'self' parameter", f->name);
			first = false;
			if (!accept_op(p, ","))
				break;
			continue;
		}
		first = false;
		expect_op(p, ":");
		ParamDir dir = DIR_IN;
		Type *t;
		if (at_name(p, "pl") && tok_is_op(peek_at(p, 1), ".") &&
		    (tok_is_name(peek_at(p, 2), "Out") || tok_is_name(peek_at(p, 2), "InOut")) &&
		    tok_is_op(peek_at(p, 3), "[")) {
			skip(p);
			skip(p);
			Token w = next(p);
			dir = w.text[0] == 'O' ? DIR_OUT : DIR_INOUT;
			expect_op(p, "[");
			t = parse_type(p);
			expect_op(p, "]");
		} else {
			t = parse_type(p);
		}
		if (t->kind == TY_PTR) {
			vec_release(&params);
			PERR_AT(p, &pn, "pl.Ptr is not allowed as a parameter type");
		}
		if (lookup(p, pn.text)) {
			vec_release(&params);
			PERR_AT(p, &pn, "duplicate parameter '%s'", pn.text);
		}
		Var *v = new_var(p, pn.text, t, VK_VAR, pos_of(&pn));
		bind(p, pn.text, v);
		Param *pp = arena_alloc(p->a, sizeof *pp);
		pp->var = v;
		pp->dir = dir;
		vec_push(&params, pp);
		if (!accept_op(p, ","))
			break;
	}
	if (!at_op(p, ")"))
		vec_release(&params);
	expect_op(p, ")");
	f->nparams = (int)params.len;
	f->params = arena_alloc(p->a, (params.len + 1) * sizeof *f->params);
	for (size_t i = 0; i < params.len; i++)
		f->params[i] = *(Param *)params.items[i];
	vec_release(&params);
	if (accept_op(p, "->")) {
		/* `tuple[...]` is several return values; pl.Tuple[...] one tuple value */
		bool several = at_name(p, "tuple");
		Type *rt = parse_type(p);
		if (several) {
			f->rets = rt->elems;
			f->nrets = rt->nelems;
		} else {
			f->rets = arena_alloc(p->a, sizeof *f->rets);
			f->rets[0] = rt;
			f->nrets = 1;
		}
	}
	expect_op(p, ":");
	expect_newline(p);
	FnSig *sig = arena_alloc(p->a, sizeof *sig);
	sig->rets = f->rets;
	sig->nrets = f->nrets;
	sig->params = f->params;
	sig->nparams = f->nparams;
	/* the pre-scan leaves the main parse's signatures alone: they may hold
	 * return types derived from a body */
	if (!p->headers_only || !pmap_get(p->sigs, f->name))
		pmap_put(p->sigs, f->name, sig);
	if (p->headers_only) {
		/* the pre-scan wants signatures only: skip the indented body */
		int depth = 0;
		do {
			Token bt = next(p);
			depth += bt.kind == TK_INDENT ? 1 : bt.kind == TK_DEDENT ? -1 : 0;
			if (bt.kind == TK_EOF)
				break;
		} while (depth > 0);
		return f;
	}
	/* body */
	const Token *t = peek(p);
	if (t->kind != TK_INDENT)
		PERR_AT(p, t, "expected an indented function body, found %s", describe(t));
	Token ind = next(p);
	PtrVec out = ARENA_VEC(p->a);
	/* optional pl.func_attr({...}) first line */
	if (at_name(p, "pl") && tok_is_op(peek_at(p, 1), ".") && tok_is_name(peek_at(p, 2), "func_attr")) {
		dotted_after(p, "pl");
		expect_op(p, "(");
		Expr *dict = parse_dict(p);
		accept_op(p, ",");
		expect_op(p, ")");
		expect_newline(p);
		for (int i = 0; i < dict->nkw; i++) {
			vec_push(&attrk, (void *)dict->kw[i].name);
			vec_push(&attrv, dict->kw[i].value);
		}
	}
	if (deco_attrs)
		for (int i = 0; i < deco_attrs->nkw; i++) {
			vec_push(&attrk, (void *)deco_attrs->kw[i].name);
			vec_push(&attrv, deco_attrs->kw[i].value);
		}
	f->nattrs = (int)attrk.len;
	f->attrs = arena_alloc(p->a, (attrk.len + 1) * sizeof *f->attrs);
	for (size_t i = 0; i < attrk.len; i++)
		f->attrs[i] = (Kwarg){ attrk.items[i], attrv.items[i] };
	vec_release(&attrk);
	vec_release(&attrv);
	if (at_op(p, "...") && peek_at(p, 1)->kind == TK_NEWLINE) {
		/* `...`: a runtime-bound HOST-level SubWorker, or an external kernel */
		Token el = *peek(p);
		bool host = f->level >= LV_HOST && f->role == RL_SUBWORKER;
		if (!host && !f->external_source)
			PERR_AT(p, &el, "Unsupported constant type: a function body of '...' is only allowed for HOST-level SubWorker functions or with external_source=");
		skip(p);
		skip(p);
		f->abstract = host;
	}
	if (!f->abstract && f->level >= LV_HOST && f->role == RL_SUBWORKER && !p->headers_only) {
		/* a HOST-level SubWorker's body is pure Python, kept verbatim */
		f->inline_body = verbatim_body(p);
		if (peek(p)->kind == TK_DEDENT)
			skip(p);
		p->carried.len = 0;
		drop_comments_before_line(p, peek(p)->line + (peek(p)->kind == TK_EOF));
		p->fn = NULL;
		return f;
	}
	p->carried.len = 0;
	bool first_stmt = true;
	while (peek(p)->kind != TK_DEDENT && peek(p)->kind != TK_EOF) {
		parse_stmt(p, &out, first_stmt);
		first_stmt = false;
	}
	(void)ind;
	if (peek(p)->kind == TK_DEDENT)
		skip(p);
	p->carried.len = 0;
	f->body.stmts = (Stmt **)vec_finish(p->a, &out, &f->body.n);
	if (!f->nrets && !sig->call_type && !sig->submit_type) {
		/* no `->`: calls take the types of the body's first return of values */
		const Stmt *r = first_value_return(&f->body, 0);
		bool typed = r != NULL;
		for (int i = 0; r && i < r->nvalues; i++) {
			Type *rt = ir_expr_type(r->values[i]);
			typed &= rt && rt->kind != TY_UNKNOWN;
		}
		if (typed) {
			sig->nrets = r->nvalues;
			sig->rets = arena_alloc(p->a, (size_t)r->nvalues * sizeof *sig->rets);
			for (int i = 0; i < r->nvalues; i++)
				sig->rets[i] = ir_expr_type(r->values[i]);
		}
	}
	/* comments after the function's last statement are dropped */
	drop_comments_before_line(p, peek(p)->line + (peek(p)->kind == TK_EOF));
	p->fn = NULL;
	return f;
}

/* ------------------------------------------------------------ module level */

static bool at_import(Parser *p) { return at_name(p, "import") || at_name(p, "from"); }

static void parse_import(Parser *p)
{
	Token t = next(p);
	/* import pypto.language as pl | import pypto.language.distributed as pld |
	 * from pypto import language as pl */
	char buf[256];
	size_t n = 0;
	buf[0] = 0;
	while (peek(p)->kind != TK_NEWLINE && peek(p)->kind != TK_EOF) {
		Token x = next(p);
		const char *s = x.kind == TK_NAME || x.kind == TK_OP ? x.text : "?";
		size_t l = strlen(s);
		if (n + l + 2 < sizeof buf) {
			if (n && x.kind == TK_NAME && buf[n - 1] != '.')
				buf[n++] = ' ';
			memcpy(buf + n, s, l);
			n += l;
			buf[n] = 0;
		}
	}
	static const char *const ok[] = {
		"pypto.language as pl", "pypto.language.distributed as pld",
		"pypto import language as pl", "pypto.language.distributed as pld",
		"pypto import language", "pypto.language", "pypto", NULL,
	};
	bool good = false;
	for (int i = 0; ok[i]; i++)
		good |= strcmp(buf, ok[i]) == 0;
	if (!good && !(t.text[0] == 'f' && strncmp(buf, "pypto", 5) == 0))
		PERR_AT(p, &t, "unsupported import (expected 'import pypto.language as pl')");
	expect_newline(p);
}

/* NAME = pl.dynamic("NAME")  |  NAME = <constant expression> */
static void parse_module_assign(Parser *p)
{
	Token nt = next(p);
	expect_op(p, "=");
	if (at_name(p, "pl") && tok_is_op(peek_at(p, 1), ".") && tok_is_name(peek_at(p, 2), "dynamic")) {
		dotted_after(p, "pl");
		expect_op(p, "(");
		const char *s = parse_string_kw(p);
		accept_op(p, ",");
		expect_op(p, ")");
		expect_newline(p);
		Global *g = arena_alloc(p->a, sizeof *g);
		g->dyn = new_var(p, s, ir_scalar_type(p->a, DT_INDEX), VK_DYN, pos_of(&nt));
		pmap_put(&p->globals, nt.text, g);
		return;
	}
	/* constants: evaluated now, inlined at each use */
	Function dummy = { 0 };
	p->fn = &dummy;
	Expr *e = parse_expr(p);
	p->fn = NULL;
	if (e->kind != EX_INT && e->kind != EX_FLOAT && e->kind != EX_BOOL && e->kind != EX_STR)
		PERR_AT(p, &nt, "module-level '%s' must be pl.dynamic(\"...\") or a constant", nt.text);
	expect_newline(p);
	Global *g = arena_alloc(p->a, sizeof *g);
	g->value = e;
	pmap_put(&p->globals, nt.text, g);
}

static void resolve_calls(Parser *p)
{
	for (size_t i = 0; i < p->fn_calls.len; i++) {
		Expr *e = p->fn_calls.items[i];
		Function *f = ir_find_function(p->prog, e->str);
		if (!f)
			perr(p, e->pos.line, e->pos.col, "call to undefined function 'self.%s'", e->str);
		if (!e->type && e->kind == EX_FN_CALL) {
			if (f->nrets == 1) {
				e->type = f->rets[0];
			} else if (f->nrets > 1) {
				Type *t = ir_type_new(p->a, TY_TUPLE);
				t->elems = f->rets;
				t->nelems = f->nrets;
				e->type = t;
			}
		}
	}
}

/* What every Parser owns (the main one also owns globals, fn_names and
 * own_sigs, which a prescan parser only borrows). */
static void parser_release(Parser *p)
{
	lex_release(&p->lx);
	pmap_release(&p->bind);
	pmap_release(&p->memref_bases);
	vec_release(&p->dump_tagged);
	free(p->undo);
	vec_release(&p->carried);
	vec_release(&p->fn_calls);
	htab_release(&p->types);
	free(p->ann.slots);
	free(p->lists.slots);
	pmap_release(&p->enum_cache);
	pmap_release(&p->symbols);
	htab_release(&p->leaves);
	sugar_release(&p->sugar);
}

/* Read every function header of the file with a second, silent parser
 * sharing the module-level names, so calls to functions defined later get
 * their types.  Errors are left for the main parse to report in order. */
static void prescan(Parser *p)
{
	p->prescanned = true;
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return;
	Diag quiet = *p->diag;
	quiet.out = null;
	Parser *q = xmalloc(sizeof *q);
	memset(q, 0, sizeof *q);
	q->a = p->a;
	q->diag = &quiet;
	q->prog = p->prog;
	q->globals = p->globals; /* read only: the prescan never parses module statements */
	q->sigs = p->sigs;
	q->inline_dyns = p->inline_dyns;
	q->headers_only = q->prescanned = true;
	memcpy(q->nm, p->nm, sizeof q->nm);
	memcpy(q->kw, p->kw, sizeof q->kw);
	sugar_init(&q->sugar, p->a, &quiet, p->sugar.reg);
	lex_init(&q->lx, p->a, &quiet, &q->fail, p->src, p->len);
	if (setjmp(q->fail) == 0) {
		while (peek(q)->kind != TK_EOF) {
			if (tok_is_op(peek(q), "@") && tok_is_name(peek_at(q, 1), "pl") && tok_is_name(peek_at(q, 3), "function"))
				parse_function(q, true);
			else
				next(q);
		}
	}
	parser_release(q);
	free(q);
	fclose(null);
}

Program *parse_program(Arena *a, Diag *d, const char *src, size_t len)
{
	Parser *p = xmalloc(sizeof *p);
	memset(p, 0, sizeof *p);
	p->a = a;
	p->diag = d;
	for (int i = 0; i < NM_COUNT; i++)
		p->nm[i] = intern_cstr(a, nm_spellings[i]);
	kw_init(p);
	pmap_clear(&yield_lhs);
	Program *prog = arena_alloc(a, sizeof *prog);
	prog->arena = a;
	for (int i = 0; i < DT_COUNT; i++)
		ir_scalar_type(a, (DType)i); /* built now: mk_binary may roll the arena back */
	p->prog = prog;
	lex_init(&p->lx, a, d, &p->fail, src, len);
	sugar_init(&p->sugar, a, d, ops_default());
	p->sigs = &p->own_sigs;
	p->inline_dyns = &p->own_inline_dyns;
	p->src = src;
	p->len = len;
	Program *result = NULL;
	if (setjmp(p->fail) == 0) {
		while (at_import(p) || (peek(p)->kind == TK_NAME && tok_is_op(peek_at(p, 1), "="))) {
			if (at_import(p))
				parse_import(p);
			else
				parse_module_assign(p);
		}
		const Token *t = peek(p);
		if (t->kind == TK_EOF)
			PERR_AT(p, t, "no @pl.program or @pl.function in the input");
		if (!tok_is_op(t, "@"))
			PERR_AT(p, t, "expected @pl.program or @pl.function, found %s", describe(t));
		const Token *t1 = peek_at(p, 1), *t3 = peek_at(p, 3);
		(void)t1;
		PtrVec funcs = ARENA_VEC(p->a);
		if (tok_is_name(t3, "program")) {
			skip(p);
			dotted_after(p, "pl");
			if (accept_op(p, "(")) {
				while (!at_op(p, ")")) {
					Token k = expect_name(p, "strict_ssa=");
					if (strcmp(k.text, "strict_ssa"))
						PERR_AT(p, &k, "unknown keyword argument '%s' of @pl.program", k.text);
					expect_op(p, "=");
					p->prog_strict = parse_bool_kw(p);
					if (!accept_op(p, ","))
						break;
				}
				expect_op(p, ")");
			}
			expect_newline(p);
			const Token *c = peek(p);
			if (!tok_is_name(c, "class"))
				PERR_AT(p, c, "expected 'class' after @pl.program, found %s", describe(c));
			skip(p);
			Token cn = expect_name(p, "a class name");
			prog->name = cn.text;
			if (accept_op(p, "("))
				expect_op(p, ")");
			expect_op(p, ":");
			expect_newline(p);
			expect_kind(p, TK_INDENT, "an indented class body");
			if (peek(p)->kind == TK_STRING && peek_at(p, 1)->kind == TK_NEWLINE) {
				skip(p);
				skip(p);
			}
			while (peek(p)->kind != TK_DEDENT && peek(p)->kind != TK_EOF) {
				const Token *ft = peek(p);
				if (!tok_is_op(ft, "@")) {
					vec_release(&funcs);
					PERR_AT(p, ft, "expected a @pl.function method in the program class, found %s", describe(ft));
				}
				Function *f = parse_function(p, true);
				Function *dup = pmap_get(&p->fn_names, f->name);
				if (dup)
					perr(p, f->pos.line, f->pos.col, "Duplicate function name \"%s\" (first defined at line %d)",
					     f->name, dup->pos.line);
				pmap_put(&p->fn_names, f->name, f);
				vec_push(&funcs, f);
			}
			if (!funcs.len) /* (a class of only a docstring printed as an empty body) */
				perr(p, cn.line, cn.col, "Class '%s' contains no @pl.function decorated methods", cn.text);
			if (peek(p)->kind == TK_DEDENT)
				skip(p);
		} else {
			vec_push(&funcs, parse_function(p, false));
		}
		const Token *e = peek(p);
		if (e->kind != TK_EOF) {
			vec_release(&funcs);
			PERR_AT(p, e, "unexpected %s after the program", describe(e));
		}
		prog->funcs = (Function **)vec_finish(a, &funcs, &prog->nfuncs);
		resolve_calls(p);
		result = prog;
	}
	if (!result)
		ir_program_release(prog);
	parser_release(p);
	pmap_release(&p->globals);
	pmap_release(&p->fn_names);
	pmap_release(&p->own_sigs);
	pmap_release(&p->own_inline_dyns);
	free(p);
	pmap_release(&yield_lhs);
	return result;
}
