/* lex.h - tokens of the Python subset that .pto files are written in.
 *
 * The lexer is pulled by the parser one token at a time (with a few tokens
 * of lookahead), so memory does not grow with the file.  It produces
 * NEWLINE / INDENT / DEDENT like Python's tokenizer, ignores newlines inside
 * brackets, and queues `#` comments for the parser to attach to statements.
 */
#ifndef PTOOPT_LEX_H
#define PTOOPT_LEX_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ptoopt/arena.h"
#include "ptoopt/diag.h"

/* For the helpers that must fold into their callers (constant operands). */
#define LEX_INLINE static inline __attribute__((always_inline))

/* A byte of a Python identifier (letters, digits, '_'), for the quick
 * scans that do not lex (lossless.c, parallel.c). */
static inline bool lex_ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

typedef enum TokKind {
	TK_EOF, TK_NEWLINE, TK_INDENT, TK_DEDENT,
	TK_NAME, TK_INT, TK_FLOAT, TK_STRING, TK_OP,
} TokKind;

typedef struct Token {
	uint8_t kind;         /* a TokKind */
	bool overflow;        /* TK_INT did not fit in 64 bits */
	uint16_t op;          /* TK_OP: lex_op_code() of its spelling; 0 for
	                         every other kind, so one compare tests both */
	int line, col;        /* of the first byte */
	int end_line;         /* line of the last byte (multi-line strings) */
	const char *src;      /* first byte in the source (for INDENT / DEDENT /
	                         NEWLINE / EOF: where they were recognised) */
	const char *text;     /* TK_NAME: interned name; TK_OP: interned operator;
	                         TK_STRING: decoded value (arena) */
	union {               /* by kind, so the token stays small to copy */
		size_t slen;  /* TK_STRING: decoded length */
		size_t nlen;  /* TK_NAME: bytes of the name in the source */
		uint64_t ival; /* TK_INT magnitude */
		double fval;  /* TK_FLOAT */
	};
} Token;

typedef struct Comment {
	int line, col;
	const char *text;     /* after '#' and at most one space */
	bool taken;           /* attached or dropped by the parser */
} Comment;

#define LEX_LOOKAHEAD 8 /* a power of two */
#define LEX_MAX_INDENT 100  /* Python's own limit on indentation levels */
#define LEX_NAME_CACHE 2048 /* a power of two */
#define LEX_MAX_DOTTED 200 /* the longest dotted name lex_take_dotted takes whole */
#define LEX_DOTTED_SETS 64 /* a power of two */
#define LEX_DOTTED_WAYS 4
#define LEX_DOTTED_BYTES 24 /* the longest one remembered (three words) */
#define LEX_FLOAT_MEMO 64 /* a power of two */
#define LEX_FLOAT_BYTES 24 /* the longest spelling remembered (three words) */

typedef struct Lexer {
	Arena *arena;
	Diag *diag;
	jmp_buf *fail;        /* longjmp target after an error was reported */
	const char *src, *p, *end;
	int line;
	/* lex_set_jump: the line starting at jump_at is jump_lines further on */
	const char *jump_at;
	int jump_lines;
	const char *line_start;
	int depth;            /* bracket nesting: newlines are ignored inside */
	int indents[LEX_MAX_INDENT + 1];
	/* the same levels measured with a tab as one column: Python rejects
	 * indentation whose order differs between the two (TabError) */
	int alt_indents[LEX_MAX_INDENT + 1];
	int nindents;
	int pending_dedents;
	bool at_line_start;
	bool emitted_eof_newline;
	bool guarded;         /* the input ends with '\n' (lex.c: scan_next) */
	bool slow;            /* at_line_start || pending_dedents || !guarded */
	bool drop_comments;   /* comments are skipped, not recorded */
	Token la[LEX_LOOKAHEAD]; /* ring buffer of lookahead tokens */
	int la_head, nla;
	Token *cur;           /* &la[la_head]: the current token once scanned */
	const char *name_pl;  /* "pl" interned */
	Comment *comments;    /* FIFO of comments not yet taken by the parser */
	size_t ncomments, ccomments, comment_head;
	/* names interned lately, keyed by their bytes (lex.c: name_slot) */
	struct LexName { uint64_t w0, w1; const char *name; } names[LEX_NAME_CACHE];
	/* dotted names lex_take_dotted took lately, by the 8 bytes they start
	 * with (and what follows a shorter one): their bytes as words and
	 * masks, so that a repeated one is found without scanning it */
	struct LexDotted {
		uint64_t w[3], mask[3];
		const char *name;     /* interned; NULL = empty */
		uint32_t len;
	} dotted[LEX_DOTTED_SETS][LEX_DOTTED_WAYS];
	uint8_t dotted_victim[LEX_DOTTED_SETS]; /* the way a new one takes next */
	/* float literals read by strtod lately, by their spelling (lex.c:
	 * strtod_memo) */
	struct LexFloat { uint64_t w[3]; uint32_t n; double value; } floats[LEX_FLOAT_MEMO];
} Lexer;

void lex_init(Lexer *lx, Arena *a, Diag *d, jmp_buf *fail, const char *src, size_t len);
void lex_release(Lexer *lx);
/* The text from `at` (a line start) on is numbered as if `lines` blank
 * lines stood before it: a part of a program with the lines of the parts
 * before it left out (parallel.c), or, with `at` the start of the text,
 * one program of a --split-input-file input.  Called before any scanning. */
void lex_set_jump(Lexer *lx, const char *at, int lines);
/* The byte the escape \e stands for in a string (\n, \t, \r, \\, \', \"),
 * -1 for any other e (kept as written; \ before a newline continues the line). */
int lex_escape(char e);
void lex_fill(Lexer *lx, int k);          /* scan until k tokens of lookahead exist */
void lex_scan_current(Lexer *lx);         /* lex_fill(lx, 0) when nothing is scanned */
/* The current token (k = 0) or one of the next LEX_LOOKAHEAD - 1. */
static inline const Token *lex_peek(Lexer *lx, int k)
{
	if (k >= lx->nla) {
		if (k == 0) /* the commonest case, with a constant k: no checks */
			lex_scan_current(lx);
		else
			lex_fill(lx, k);
	}
	return k == 0 ? lx->cur : &lx->la[(unsigned)(lx->la_head + k) & (LEX_LOOKAHEAD - 1)];
}
/* Consume the current token, which lex_peek has produced. */
static inline void lex_drop(Lexer *lx)
{
	lx->la_head = (lx->la_head + 1) & (LEX_LOOKAHEAD - 1);
	lx->cur = &lx->la[lx->la_head];
	lx->nla--;
}
/* Consume the current token and return a copy of it. */
static inline Token lex_next(Lexer *lx)
{
	Token t = *lex_peek(lx, 0);
	lex_drop(lx);
	return t;
}
/* Consume the current token without copying it. */
static inline void lex_skip(Lexer *lx)
{
	lex_peek(lx, 0);
	lex_drop(lx);
}
/* Drop the lookahead tokens that start before `to` and continue scanning
 * at `to`.  Only for a stretch of one line whose brackets balance and that
 * holds no comment or string, starting at the current token: the caller
 * (the parser's annotation cache) has seen the same text parse before. */
void lex_skip_to(Lexer *lx, const char *to);
/* Fail at a location: reports and longjmps. */
void lex_error(Lexer *lx, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));

/* Queued comments not yet taken, in source order: iterate i from
 * lx->comment_head to lx->ncomments, skipping taken ones; lex_comments_gc
 * advances the head past the taken prefix. */
void lex_comments_gc(Lexer *lx);

/* The current token is a name (lex_peek has produced it).  When `.NAME`
 * `(.NAME)*` follows it without spaces, the lexer would read exactly those
 * tokens, the next token starts right after them (not a `.`) and they take
 * under LEX_MAX_DOTTED bytes: consume the name and them, and return their
 * interned spelling without the first '.' ("tile.load" after `pl`); else
 * NULL, nothing consumed (unsure: spaces, line ends, comments, `.5`, ...). */
const char *lex_take_dotted(Lexer *lx);
/* When nothing is scanned ahead and a '(' is the next byte in the middle
 * of a line (right after the last token): consume it as lexing it would
 * (its bracket counted) and return true; else false, nothing consumed. */
bool lex_take_open_paren(Lexer *lx);

/* The operator s[0..n) (1 <= n <= 3) as a number: its bytes, the second
 * one marked when a third follows (every three-byte operator is unique by
 * its first two).  Never 0. */
LEX_INLINE uint16_t lex_op_code_n(const char *s, size_t n)
{
	unsigned c0 = (unsigned char)s[0];
	if (n == 1)
		return (uint16_t)c0;
	unsigned c1 = (unsigned char)s[1];
	return (uint16_t)(c0 | (n == 3 ? c1 | 0x80 : c1) << 8);
}

/* The code of the operator spelled s; with a literal argument the
 * compiler folds it to a constant.  A spelling that is no operator gets a
 * code no token has (its first byte is not an operator's, or 0xFFFF). */
LEX_INLINE uint16_t lex_op_code(const char *s)
{
	size_t n = strlen(s);
	return n >= 1 && n <= 3 ? lex_op_code_n(s, n) : 0xFFFF;
}

/* Inline: the parser asks these questions for almost every token. */
LEX_INLINE bool tok_is_op(const Token *t, const char *op)
{
	return t->op == lex_op_code(op); /* 0 (no operator) for other kinds */
}

/* With a literal name the length folds to a constant and the comparison
 * to a load or two; any other name (a short one, such as a prefix passed
 * down) is compared byte by byte, without calls to strlen and memcmp. */
LEX_INLINE bool tok_is_name(const Token *t, const char *name)
{
	if (__builtin_constant_p(strlen(name))) {
		size_t n = strlen(name);
		return t->kind == TK_NAME && t->nlen == n && memcmp(t->src, name, n) == 0;
	}
	if (t->kind != TK_NAME)
		return false;
	size_t i = 0;
	for (; i < t->nlen; i++)
		if (t->src[i] != name[i]) /* also at the end of a shorter name */
			return false;
	return name[i] == 0;
}

#endif
