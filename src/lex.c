/* lex.c - Python-style tokenizer for .pto text (see lex.h).
 *
 * Input is validated as it is read: NUL bytes, invalid UTF-8 outside strings
 * and comments, stray characters and inconsistent dedents are located errors.
 * CRLF line ends are accepted; a tab in indentation advances to the next
 * multiple of 8 as in Python.
 */
#include "ptoopt/lex.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Byte classes for the common tokens, as digits: 1 starts a name, 2 is a
 * digit, 3 starts an operator, 4 is a one-byte operator that never starts
 * a longer one and no bracket, 5 an opening and 6 a closing bracket; 0 is
 * anything else (and every byte >= 0x80). */
enum { LC_OTHER, LC_NAME, LC_DIGIT, LC_OP, LC_OP1, LC_OPEN, LC_CLOSE };
#define LC_ROW0 "00000000000000000000000000000000"
static const char lex_classes[257] =
	LC_ROW0
	"00000330563343332222222222343330"
	"41111111111111111111111111150631"
	"01111111111111111111111111153640"
	LC_ROW0 LC_ROW0 LC_ROW0 LC_ROW0;
static inline int lex_class(unsigned char c) { return lex_classes[c] - '0'; }
/* The bytes that continue a name (letters, digits, '_') as 1: a table of
 * their own, so that the loops over names test one entry per byte. */
static const char name_bytes[257] =
	LC_ROW0
	"00000000000000001111111111000000"
	"01111111111111111111111111100001"
	"01111111111111111111111111100000"
	LC_ROW0 LC_ROW0 LC_ROW0 LC_ROW0;
static inline bool is_name_byte(unsigned char c) { return name_bytes[c] == '1'; }
/* The bytes a comment holds without a check (ASCII but NUL and the line
 * ends '\n', '\r') as 1. */
static const char comment_bytes[257] =
	"0111111111011011" "1111111111111111"
	"11111111111111111111111111111111"
	"11111111111111111111111111111111"
	"11111111111111111111111111111111"
	LC_ROW0 LC_ROW0 LC_ROW0 LC_ROW0;
static inline bool is_comment_byte(unsigned char c) { return comment_bytes[c] == '1'; }
/* The bytes after an operator's first byte that may make it longer
 * (= > < * / .) or make a '.' start a number (digits) as 1 (op_fast). */
static const char op_second_bytes[257] =
	LC_ROW0
	"00000000001000111111111111001110"
	LC_ROW0 LC_ROW0 LC_ROW0 LC_ROW0 LC_ROW0 LC_ROW0;

void lex_error(Lexer *lx, int line, int col, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	diag_error(lx->diag, line, col, "%s", buf);
	longjmp(*lx->fail, 1);
}

void lex_init(Lexer *lx, Arena *a, Diag *d, jmp_buf *fail, const char *src, size_t len)
{
	memset(lx, 0, sizeof *lx);
	lx->arena = a;
	lx->diag = d;
	lx->fail = fail;
	lx->src = lx->p = lx->line_start = src;
	lx->end = src + len;
	lx->line = 1;
	lx->cur = lx->la;
	lx->at_line_start = true;
	lx->indents[0] = lx->alt_indents[0] = 0;
	lx->nindents = 1;
	lx->guarded = len > 0 && src[len - 1] == '\n';
	lx->slow = true;
	lx->name_pl = intern(a, "pl", 2);
	/* a UTF-8 byte order mark is allowed, as in Python */
	if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0)
		lx->p = lx->line_start = src + 3;
}

void lex_release(Lexer *lx)
{
	free(lx->comments);
	lx->comments = NULL;
}

static int col_of(Lexer *lx, const char *q) { return (int)(q - lx->line_start) + 1; }

static void newline_at(Lexer *lx, const char *after)
{
	lx->line++;
	if (after == lx->jump_at)
		lx->line += lx->jump_lines;
	lx->line_start = after;
}

void lex_set_jump(Lexer *lx, const char *at, int lines)
{
	if (at == lx->src) { /* lines before the text itself */
		lx->line += lines;
		return;
	}
	lx->jump_at = at;
	lx->jump_lines = lines;
}

/* Length of the UTF-8 sequence at q, or 0 if it is invalid. */
static int utf8_len(const unsigned char *q, const unsigned char *end)
{
	unsigned c = q[0];
	int n;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF) { n = 2; min = 0x80; }
	else if (c >= 0xE0 && c <= 0xEF) { n = 3; min = 0x800; }
	else if (c >= 0xF0 && c <= 0xF4) { n = 4; min = 0x10000; }
	else return 0;
	if (end - q < n)
		return 0;
	unsigned cp = c & (0x3F >> (n - 1));
	for (int i = 1; i < n; i++) {
		if ((q[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (q[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

/* Check the bytes of a comment or string body and fail on NUL / bad UTF-8. */
static void check_text(Lexer *lx, const char *q)
{
	unsigned char c = (unsigned char)*q;
	if (c == 0)
		lex_error(lx, lx->line, col_of(lx, q), "NUL byte in input");
	if (c >= 0x80 && !utf8_len((const unsigned char *)q, (const unsigned char *)lx->end))
		lex_error(lx, lx->line, col_of(lx, q), "invalid UTF-8 byte 0x%02X", c);
}

static void push_comment(Lexer *lx, int line, int col, const char *text)
{
	if (lx->ncomments == lx->ccomments) {
		/* compact the consumed prefix before growing */
		if (lx->comment_head > 0) {
			memmove(lx->comments, lx->comments + lx->comment_head,
				(lx->ncomments - lx->comment_head) * sizeof *lx->comments);
			lx->ncomments -= lx->comment_head;
			lx->comment_head = 0;
		}
		if (lx->ncomments == lx->ccomments) {
			lx->ccomments = lx->ccomments ? lx->ccomments * 2 : 16;
			lx->comments = xrealloc(lx->comments, lx->ccomments * sizeof *lx->comments);
		}
	}
	lx->comments[lx->ncomments++] = (Comment){ line, col, text, false };
}

/* At '#': record the comment, leave p at the line end. */
static void read_comment(Lexer *lx)
{
	const char *start = lx->p;
	int col = col_of(lx, start);
	const char *q = start + 1;
	for (;;) {
		/* ASCII: nothing to check (no bounds check either when the input
		 * ends with '\n', which ends this loop) */
		if (lx->guarded)
			while (is_comment_byte((unsigned char)*q))
				q++;
		else
			while (q < lx->end && is_comment_byte((unsigned char)*q))
				q++;
		if (q >= lx->end || *q == '\n' || *q == '\r')
			break;
		check_text(lx, q);
		q += utf8_len((const unsigned char *)q, (const unsigned char *)lx->end);
	}
	const char *t = start + 1;
	if (t < q && *t == ' ')
		t++;
	if (!lx->drop_comments)
		push_comment(lx, lx->line, col, arena_strndup(lx->arena, t, (size_t)(q - t)));
	lx->p = q;
}

/* Consume one line end at p ("\n", "\r\n" or "\r"); returns false if none. */
static bool eat_eol(Lexer *lx)
{
	const char *q = lx->p;
	if (q < lx->end && *q == '\r')
		q++;
	if (q < lx->end && *q == '\n')
		q++;
	if (q == lx->p)
		return false;
	lx->p = q;
	newline_at(lx, q);
	return true;
}

static const char *const ops3[] = { "**=", "//=", ">>=", "<<=", "...", NULL };
static const char *const ops2[] = {
	"->", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=",
	"%=", "&=", "|=", "^=", ":=", "!=", NULL,
};

/* Character classes without locale lookups (the C locale's, always). */
static inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static inline bool is_ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static inline bool is_ident(unsigned char c) { return is_ident_start(c) || is_digit(c); }
static inline bool is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Length of the operator at q (the longest of ops3 / ops2 / ops1 that
 * matches), 0 when none starts there; avail >= 1 bytes are readable. */
static inline size_t op_len(const char *q, size_t avail)
{
	char d = avail >= 2 ? q[1] : 0, e = avail >= 3 ? q[2] : 0;
	switch (q[0]) {
	case '(': case ')': case '[': case ']': case '{': case '}': case ',': case ';':
	case '@': case '~':
		return 1;
	case '*': case '/': case '<': case '>':
		if (d == q[0])
			return e == '=' ? 3 : 2;
		return d == '=' ? 2 : 1;
	case '.':
		return d == '.' && e == '.' ? 3 : 1;
	case '-':
		return d == '>' || d == '=' ? 2 : 1;
	case '=': case '+': case '%': case '&': case '|': case '^': case ':':
		return d == '=' ? 2 : 1;
	case '!':
		return d == '=' ? 2 : 0;
	default:
		return 0;
	}
}

/* Operator spellings: token text points at these static strings. */
static const char *const op_one[128] = {
	['('] = "(", [')'] = ")", ['['] = "[", [']'] = "]", ['{'] = "{", ['}'] = "}",
	[','] = ",", [':'] = ":", ['.'] = ".", [';'] = ";", ['@'] = "@", ['='] = "=",
	['+'] = "+", ['-'] = "-", ['*'] = "*", ['/'] = "/", ['%'] = "%", ['<'] = "<",
	['>'] = ">", ['~'] = "~", ['&'] = "&", ['|'] = "|", ['^'] = "^",
};

static const char *op_text(const char *s, size_t n)
{
	if (n == 1)
		return op_one[(unsigned char)s[0]];
	for (int i = 0; ops2[i]; i++)
		if (n == 2 && memcmp(ops2[i], s, 2) == 0)
			return ops2[i];
	for (int i = 0; ops3[i]; i++)
		if (n == 3 && memcmp(ops3[i], s, 3) == 0)
			return ops3[i];
	return "?";
}

/* Printable ASCII other than '\\': a byte that a string body holds as it
 * is written (read_string's common case). */
static inline bool plain_string_byte(unsigned char c)
{
	return c >= 0x20 && c < 0x7F && c != '\\';
}

int lex_escape(char e)
{
	switch (e) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case '\\': case '\'': case '"': return e;
	default: return -1;
	}
}

static void read_string(Lexer *lx, Token *t)
{
	const char *q = lx->p;
	char quote = *q;
	bool triple = lx->end - q >= 3 && q[1] == quote && q[2] == quote;
	if (!triple) {
		/* nearly every string ('round', "BATCH_DYN") is printable ASCII
		 * without escapes: its value is its text, copied once */
		const char *r = q + 1;
		while (r < lx->end && *r != quote && plain_string_byte((unsigned char)*r))
			r++;
		if (r < lx->end && *r == quote) {
			t->kind = TK_STRING;
			t->slen = (size_t)(r - (q + 1));
			t->text = arena_strndup(lx->arena, q + 1, t->slen);
			lx->p = r + 1;
			return;
		}
	}
	q += triple ? 3 : 1;
	char *out = NULL;
	size_t n = 0, outcap = 64;
	out = xmalloc(outcap);
	for (;;) {
		if (q >= lx->end) {
			free(out);
			lex_error(lx, t->line, t->col, "unterminated string literal");
		}
		char c = *q;
		if (!triple && (c == '\n' || c == '\r')) {
			free(out);
			lex_error(lx, t->line, t->col, "unterminated string literal");
		}
		if (c == quote && (!triple || (lx->end - q >= 3 && q[1] == quote && q[2] == quote))) {
			q += triple ? 3 : 1;
			break;
		}
		if (n + 8 > outcap) {
			outcap *= 2;
			out = xrealloc(out, outcap);
		}
		if (c == '\\' && q + 1 < lx->end) {
			char e = q[1];
			q += 2;
			int v = lex_escape(e);
			if (v >= 0) {
				out[n++] = (char)v;
			} else if (e == '\n') {
				newline_at(lx, q);
			} else {
				out[n++] = '\\';
				out[n++] = e;
			}
			continue;
		}
		if (c == '\n' || (c == '\r' && !(q + 1 < lx->end && q[1] == '\n'))) {
			out[n++] = '\n';
			q++;
			newline_at(lx, q);
			continue;
		}
		if (c == '\r') { /* CRLF inside a triple-quoted string reads as \n */
			q++;
			continue;
		}
		const char *save = lx->p;
		lx->p = q;
		if ((unsigned char)c == 0 || ((unsigned char)c >= 0x80 &&
			!utf8_len((const unsigned char *)q, (const unsigned char *)lx->end))) {
			free(out);
			check_text(lx, q);
		}
		lx->p = save;
		int ul = (unsigned char)c >= 0x80 ? utf8_len((const unsigned char *)q, (const unsigned char *)lx->end) : 1;
		for (int k = 0; k < ul; k++)
			out[n++] = q[k];
		q += ul;
	}
	t->kind = TK_STRING;
	t->text = arena_strndup(lx->arena, out, n);
	t->slen = n;
	free(out);
	lx->p = q;
}

/* Clinger's fast path for a decimal float literal s (digits, at most one
 * '.', an optional exponent; the spelling read_number collected): with at
 * most 15 significant digits the significand m is an exact double, and so
 * is 10^k for k <= 22, so m * 10^k or m / 10^k is one correctly rounded
 * operation: strtod's value.  False (use strtod) for anything else, and
 * where doubles are evaluated in a wider format. */
#if FLT_EVAL_METHOD == 0
static const double pow10[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};
#endif

static bool decimal_exact(const char *s, double *out)
{
#if FLT_EVAL_METHOD == 0
	uint64_t m = 0;
	int digits = 0, exp10 = 0;
	bool dot = false;
	for (; is_digit((unsigned char)*s) || *s == '.'; s++) {
		if (*s == '.') {
			dot = true;
			continue;
		}
		if (m == 0 && *s == '0') { /* a leading zero: not significant */
			exp10 -= dot;
			continue;
		}
		if (++digits > 15)
			return false;
		m = m * 10 + (uint64_t)(*s - '0');
		exp10 -= dot;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		bool neg = *s == '-';
		if (*s == '-' || *s == '+')
			s++;
		int e = 0;
		for (; is_digit((unsigned char)*s); s++)
			if ((e = e * 10 + (*s - '0')) > 1000)
				return false;
		exp10 += neg ? -e : e;
	}
	if (*s)
		return false;
	if (m == 0) {
		*out = 0.0;
		return true;
	}
	if (exp10 < -22 || exp10 > 22)
		return false;
	*out = exp10 < 0 ? (double)m / pow10[-exp10] : (double)m * pow10[exp10];
	return true;
#else
	(void)s;
	(void)out;
	return false;
#endif
}

/* The commonest float literal, `digits.digits` (1.0, 0.125) with at most
 * 15 digits in all, read in one pass: q is its start, dot its '.', m the
 * value of the digits before it.  The digits as one integer are an exact
 * double, and so is 10^k for the k digits after the point, so their
 * quotient is decimal_exact's value (strtod's).  False when the literal
 * is anything else (longer, an exponent, '_', ...): read_number's general
 * path takes it. */
static bool plain_decimal(Lexer *lx, const char *q, const char *dot, uint64_t m, Token *t)
{
#if FLT_EVAL_METHOD == 0
	const char *r = dot + 1;
	if (dot - q > 15)
		return false;
	while (r < lx->end && is_digit((unsigned char)*r) && r - q <= 15)
		m = m * 10 + (uint64_t)(*r++ - '0');
	if (r == dot + 1 || (r < lx->end && (is_ident((unsigned char)*r) || *r == '_' || *r == '.')))
		return false; /* no digit after the point, or more follows */
	t->kind = TK_FLOAT;
	t->fval = (double)m / pow10[r - dot - 1];
	lx->p = r;
	return true;
#else
	(void)lx, (void)q, (void)dot, (void)m, (void)t;
	return false;
#endif
}

static double strtod_memo(Lexer *lx, const char *buf, size_t n);

static void read_number(Lexer *lx, Token *t)
{
	const char *q = lx->p;
	/* fast path: up to 19 plain decimal digits (fits in 64 bits) and no
	 * leading zero, followed by something that cannot continue a number */
	if (is_digit((unsigned char)q[0]) && (q[0] != '0' || !(q + 1 < lx->end && is_digit((unsigned char)q[1])))) {
		const char *r = q;
		uint64_t v = 0;
		while (r < lx->end && is_digit((unsigned char)*r) && r - q < 19)
			v = v * 10 + (uint64_t)(*r++ - '0');
		if (r >= lx->end || !(is_ident((unsigned char)*r) || *r == '_' || *r == '.')) {
			t->kind = TK_INT;
			t->ival = v;
			lx->p = r;
			return;
		}
		if (*r == '.' && plain_decimal(lx, q, r, v, t))
			return;
	}
	char buf[128];
	size_t n = 0;
	bool is_float = false, hex = false;
	if (q[0] == '0' && q + 1 < lx->end && (q[1] == 'x' || q[1] == 'X')) {
		hex = true;
		q += 2;
		while (q < lx->end && (is_hex((unsigned char)*q) || *q == '_')) {
			/* Python: '_' after the prefix or between two hex digits */
			if (*q == '_' && !(q + 1 < lx->end && is_hex((unsigned char)q[1])))
				lex_error(lx, t->line, col_of(lx, q), "invalid number literal: '_' must be followed by a digit");
			if (*q != '_' && n < sizeof buf - 1)
				buf[n++] = *q;
			q++;
		}
		if (n == 0)
			lex_error(lx, t->line, t->col, "invalid hexadecimal literal: no digits after '0x'");
	} else {
		while (q < lx->end) {
			char c = *q;
			if (is_digit((unsigned char)c)) {
				/* digits */
			} else if (c == '_') {
				/* Python: only between two digits */
				if (q == lx->p || !is_digit((unsigned char)q[-1]) ||
				    !(q + 1 < lx->end && is_digit((unsigned char)q[1])))
					lex_error(lx, t->line, col_of(lx, q), "invalid number literal: '_' must be between two digits");
			} else if (c == '.' && !is_float) {
				is_float = true;
			} else if ((c == 'e' || c == 'E') && q + 1 < lx->end &&
				   (is_digit((unsigned char)q[1]) ||
				    ((q[1] == '+' || q[1] == '-') && q + 2 < lx->end &&
				     is_digit((unsigned char)q[2])))) {
				is_float = true;
				if (n < sizeof buf - 1)
					buf[n++] = c;
				q++;
				c = *q;
			} else {
				break;
			}
			if (c != '_' && n < sizeof buf - 1)
				buf[n++] = c;
			q++;
		}
	}
	if (q < lx->end && (is_ident_start((unsigned char)*q) || *q == '_'))
		lex_error(lx, t->line, col_of(lx, q), "invalid number literal");
	if (n >= sizeof buf - 1)
		lex_error(lx, t->line, t->col, "number literal too long");
	buf[n] = 0;
	if (is_float) {
		t->kind = TK_FLOAT;
		if (!decimal_exact(buf, &t->fval))
			t->fval = strtod_memo(lx, buf, n);
		if (isinf(t->fval))
			lex_error(lx, t->line, t->col, "float literal out of range");
	} else {
		/* Python reads 010 neither as octal nor as ten: an error */
		if (!hex && buf[0] == '0' && strspn(buf, "0") != n)
			lex_error(lx, t->line, t->col, "invalid number literal: leading zeros are not allowed in a decimal integer");
		t->kind = TK_INT;
		errno = 0;
		t->ival = strtoull(buf, NULL, hex ? 16 : 10);
		t->overflow = errno == ERANGE;
	}
	lx->p = q;
}


/* The index of the first nonzero byte of x != 0 as loaded from memory. */
static inline size_t first_nonzero_byte(uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (size_t)__builtin_clzll(x) / 8;
#else
	return (size_t)__builtin_ctzll(x) / 8;
#endif
}

/* The first byte from q on that is not a space (at most end): the
 * indentation at a line start is read eight bytes at a time, the word
 * that holds its end included. */
static inline const char *skip_spaces(const char *q, const char *end)
{
	uint64_t w;
	while (end - q >= 8) {
		memcpy(&w, q, 8);
		uint64_t x = w ^ 0x2020202020202020ull; /* nonzero bytes: no space */
		if (x)
			return q + first_nonzero_byte(x);
		q += 8;
	}
	while (q < end && *q == ' ')
		q++;
	return q;
}

/* Indentation whose tabs make it deeper with 8-column tabs but not with
 * 1-column ones (or the other way round): its meaning depends on the tab
 * width, so Python refuses it, and so do we. */
static void tab_error(Lexer *lx, const char *q)
{
	lex_error(lx, lx->line, col_of(lx, q), "inconsistent use of tabs and spaces in indentation");
}

/* Bracket depth: inside brackets newlines are not tokens; the limit keeps
 * the parser's recursion bounded. */
#define LEX_MAX_DEPTH 1000
static __attribute__((noreturn)) void too_deep(Lexer *lx, int line, int col)
{
	lex_error(lx, line, col, "brackets nested too deeply (limit %d)", LEX_MAX_DEPTH);
}

/* An opening bracket at q, in the middle of the current line. */
static inline void count_open(Lexer *lx, const char *q)
{
	if (++lx->depth > LEX_MAX_DEPTH)
		too_deep(lx, lx->line, col_of(lx, q));
}

static inline void track_bracket(Lexer *lx, int line, int col, char c)
{
	if (c == '(' || c == '[' || c == '{') {
		if (++lx->depth > LEX_MAX_DEPTH)
			too_deep(lx, line, col);
	} else if ((c == ')' || c == ']' || c == '}') && lx->depth > 0) {
		lx->depth--;
	}
}

/* The first n bytes (n <= 8) of a word loaded from memory, the others
 * cleared. */
static inline uint64_t first_bytes(uint64_t w, size_t n)
{
	if (n >= 8)
		return w;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return n ? w & ~(~0ull >> (8 * n)) : 0;
#else
	return w & ((1ull << (8 * n)) - 1);
#endif
}

/* The unaligned 8 bytes at s. */
static inline uint64_t load_word(const char *s)
{
	uint64_t w;
	memcpy(&w, s, sizeof w);
	return w;
}

/* strtod(buf) of read_number's spelling buf[0..n) (NUL-terminated, a
 * buffer of more than LEX_FLOAT_BYTES bytes), through lx->floats for one of
 * at most LEX_FLOAT_BYTES bytes: a long literal (0.088388347648318447)
 * that decimal_exact cannot read is often repeated. */
static double strtod_memo(Lexer *lx, const char *buf, size_t n)
{
	if (n > LEX_FLOAT_BYTES)
		return strtod(buf, NULL);
	uint64_t w[3];
	for (size_t i = 0; i < 3; i++)
		w[i] = first_bytes(load_word(buf + 8 * i), n > 8 * i ? n - 8 * i : 0);
	uint64_t h = (w[0] ^ w[1] * 0x9E3779B97F4A7C15ull ^ w[2] * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull;
	struct LexFloat *e = &lx->floats[(h >> 50) & (LEX_FLOAT_MEMO - 1)];
	if (e->n != n || e->w[0] != w[0] || e->w[1] != w[1] || e->w[2] != w[2]) {
		e->n = (uint32_t)n; /* an empty entry has n == 0: no spelling */
		memcpy(e->w, w, sizeof w);
		e->value = strtod(buf, NULL);
	}
	return e->value;
}

/* lex_intern: a name of up to 16 bytes is looked up in lx->names by its
 * bytes as two words, compared whole (no NUL in a name, so the words also
 * fix its length); a hit costs no call and no byte loop.  Longer names,
 * and names in the last 16 bytes of the input (the words would read past
 * it), go to intern() directly: name_slot gives NULL for them. */
static inline struct LexName *name_slot(Lexer *lx, const char *s, size_t n, uint64_t *w0, uint64_t *w1)
{
	if (n > 16 || lx->end - s < 16)
		return NULL;
	memcpy(w0, s, 8);
	memcpy(w1, s + 8, 8);
	*w0 = first_bytes(*w0, n);
	*w1 = n > 8 ? first_bytes(*w1, n - 8) : 0;
	uint64_t h = (*w0 ^ *w1 * 0x9E3779B97F4A7C15ull) * 0xC2B2AE3D27D4EB4Full;
	return &lx->names[(h >> 40) & (LEX_NAME_CACHE - 1)];
}

/* The interned name from the cache, or NULL (then intern_name). */
static inline const char *name_cached(Lexer *lx, const char *s, size_t n)
{
	uint64_t w0, w1;
	struct LexName *e = name_slot(lx, s, n, &w0, &w1);
	/* an empty slot has w0 == 0, a name never */
	return e && e->w0 == w0 && e->w1 == w1 ? e->name : NULL;
}

static const char *intern_name(Lexer *lx, const char *s, size_t n)
{
	uint64_t w0, w1;
	struct LexName *e = name_slot(lx, s, n, &w0, &w1);
	if (!e)
		return intern(lx->arena, s, n);
	if (e->w0 != w0 || e->w1 != w1) {
		e->w0 = w0;
		e->w1 = w1;
		e->name = intern(lx->arena, s, n);
	}
	return e->name;
}

/* intern() of s[0..n), n >= 1, no NUL inside (a name, or a dotted name
 * like "tile.load"): the same pointer, usually found in lx->names. */
static const char *lex_intern(Lexer *lx, const char *s, size_t n)
{
	const char *name = name_cached(lx, s, n);
	return name ? name : intern_name(lx, s, n);
}

/* The bytes that may follow a dotted name dotted_end takes (the name ends
 * there and the next token starts right at it) as 1: ASCII but NUL, name
 * bytes, '.', ' ', '\t', '\f', '\r', '\n', '\\' and '#'. */
static const char dotted_end_bytes[257] =
	"01111111100100111111111111111111"
	"01101111111111010000000000111111"
	"10000000000000000000000000010110"
	"10000000000000000000000000011111"
	LC_ROW0 LC_ROW0 LC_ROW0 LC_ROW0;
static inline bool ends_dotted(unsigned char c) { return dotted_end_bytes[c] == '1'; }

/* The end of `NAME(.NAME)*` written without spaces at s, when the lexer
 * would read exactly those tokens and the next token starts right after
 * (not a `.`); NULL when unsure (spaces, line ends, comments, `.5`, ...). */
static const char *dotted_end(const Lexer *lx, const char *s)
{
	const char *q = s, *end = lx->end;
	if (lx->guarded && q < end) {
		/* no bounds checks: the last byte ('\n') ends every name, and a
		 * '.' before it has a byte after it */
		while (lex_class((unsigned char)*q) == LC_NAME) {
			q++;
			while (is_name_byte((unsigned char)*q))
				q++;
			if (*q != '.')
				goto after;
			q++;
		}
		return NULL;
	}
	for (;;) {
		if (q >= end || lex_class((unsigned char)*q) != LC_NAME)
			return NULL;
		do
			q++;
		while (q < end && is_name_byte((unsigned char)*q));
		if (q >= end)
			return NULL;
		if (*q != '.')
			break;
		q++;
	}
after:
	return ends_dotted((unsigned char)*q) ? q : NULL;
}


/* The set of lx->dotted for a dotted name whose first 8 bytes (or what
 * follows a shorter one) are w0. */
static inline struct LexDotted *dotted_set(Lexer *lx, uint64_t w0)
{
	return lx->dotted[((w0 * 0x9E3779B97F4A7C15ull) >> 58) & (LEX_DOTTED_SETS - 1)];
}

/* A dotted name at s remembered in lx->dotted: its end (*d its interned
 * spelling), or NULL.  Its bytes are those of one dotted_end took whole and
 * the byte after them ends it, so dotted_end would end there too. */
static inline const char *dotted_cached(Lexer *lx, const char *s, const char **d)
{
	if (lx->end - s <= LEX_DOTTED_BYTES)
		return NULL;
	uint64_t w0 = load_word(s), w1 = load_word(s + 8), w2 = load_word(s + 16);
	struct LexDotted *set = dotted_set(lx, w0);
	for (int i = 0; i < LEX_DOTTED_WAYS; i++) {
		const struct LexDotted *e = &set[i];
		if (e->name && !(((w0 ^ e->w[0]) & e->mask[0]) | ((w1 ^ e->w[1]) & e->mask[1]) | ((w2 ^ e->w[2]) & e->mask[2])) &&
		    ends_dotted((unsigned char)s[e->len])) {
			*d = e->name;
			return s + e->len;
		}
	}
	return NULL;
}

/* Remember the dotted name s[0..n) (dotted_end's), interned as d. */
static void dotted_remember(Lexer *lx, const char *s, size_t n, const char *d)
{
	if (n > LEX_DOTTED_BYTES || lx->end - s <= LEX_DOTTED_BYTES)
		return;
	uint64_t w0 = load_word(s);
	size_t k = (size_t)(dotted_set(lx, w0) - lx->dotted[0]) / LEX_DOTTED_WAYS;
	struct LexDotted *e = &lx->dotted[k][lx->dotted_victim[k]];
	lx->dotted_victim[k] = (uint8_t)((lx->dotted_victim[k] + 1) % LEX_DOTTED_WAYS);
	for (size_t i = 0; i < 3; i++) {
		size_t have = n > 8 * i ? n - 8 * i : 0;
		e->mask[i] = first_bytes(~0ull, have);
		e->w[i] = load_word(s + 8 * i) & e->mask[i];
	}
	e->len = (uint32_t)n;
	e->name = d;
}

/* dotted_cached's miss: the end of the dotted name at s by dotted_end (*d
 * its interned spelling, remembered), or NULL. */
static __attribute__((noinline)) const char *dotted_scan(Lexer *lx, const char *s, const char **d)
{
	const char *q = dotted_end(lx, s);
	if (!q || q - s >= LEX_MAX_DOTTED)
		return NULL;
	*d = lex_intern(lx, s, (size_t)(q - s));
	dotted_remember(lx, s, (size_t)(q - s), *d);
	return q;
}

const char *lex_take_dotted(Lexer *lx)
{
	const Token *t = lx->cur;
	const char *s = t->src + t->nlen; /* the '.' */
	if (s >= lx->end || *s != '.')
		return NULL;
	s++;
	const char *d;
	const char *q = dotted_cached(lx, s, &d);
	if (!q && !(q = dotted_scan(lx, s, &d)))
		return NULL;
	/* usually the name is all that was scanned: nothing to drop but it,
	 * no bracket to count (lex_skip_to's general case) */
	if (lx->nla == 1) {
		lex_drop(lx);
		lx->p = q;
	} else {
		lex_skip_to(lx, q);
	}
	return d;
}

static void scan(Lexer *lx, Token *t);

/* ---- The common tokens (scan_next) -------------------------------------
 * lx->slow is false while the lexer is in the middle of a line, with no
 * DEDENT pending, on an input whose last byte is '\n' (lx->guarded: then
 * a run of spaces or of name bytes ends before the end of the input, and
 * the loops below need no bounds check).  Then scan_next skips spaces and
 * hands the token to one function per kind of first byte; each is called
 * last (a tail call) and has few values to keep, so none needs a stack
 * frame.  Everything else goes through scan() (scan_full). */

static void update_slow(Lexer *lx)
{
	lx->slow = lx->at_line_start || lx->pending_dedents != 0 || !lx->guarded;
}

static __attribute__((noinline)) void scan_full(Lexer *lx, Token *t)
{
	scan(lx, t);
	update_slow(lx);
}

/* A token on the current line starting at q, every field set (field by
 * field: cheaper than a compound literal, which zeroes the whole token
 * first); the union holds u (a name's length, else 0). */
static inline void put_token(Lexer *lx, Token *t, TokKind kind, uint16_t op, const char *q,
			     const char *text, size_t u)
{
	t->kind = (uint8_t)kind;
	t->overflow = false;
	t->op = op;
	t->line = t->end_line = lx->line;
	t->col = col_of(lx, q);
	t->src = q;
	t->text = text;
	t->nlen = u;
}

/* a name missing from the name cache */
static __attribute__((noinline)) void name_token(Lexer *lx, const char *q, Token *t, size_t n)
{
	put_token(lx, t, TK_NAME, 0, q, intern_name(lx, q, n), n);
	lx->p = q + n;
}

static __attribute__((noinline)) void name_fast(Lexer *lx, const char *q, Token *t)
{
	const char *r = q + 1;
	while (is_name_byte((unsigned char)*r))
		r++;
	size_t n = (size_t)(r - q);
	/* `pl`, the language's module, is a third of all names: no lookup */
	const char *name = n == 2 && q[0] == 'p' && q[1] == 'l' ? lx->name_pl : name_cached(lx, q, n);
	if (!name) {
		name_token(lx, q, t, n);
		return;
	}
	put_token(lx, t, TK_NAME, 0, q, name, n);
	lx->p = r;
}

static __attribute__((noinline)) void number_fast(Lexer *lx, const char *q, Token *t)
{
	*t = (Token){ .line = lx->line, .col = col_of(lx, q), .end_line = lx->line, .src = q };
	lx->p = q;
	read_number(lx, t);
}

static __attribute__((noinline)) void op1_fast(Lexer *lx, const char *q, Token *t)
{
	unsigned char c = (unsigned char)*q;
	put_token(lx, t, TK_OP, c, q, op_one[c], 0);
	lx->p = q + 1;
}

static __attribute__((noinline)) void open_fast(Lexer *lx, const char *q, Token *t)
{
	count_open(lx, q);
	op1_fast(lx, q, t);
}

static __attribute__((noinline)) void close_fast(Lexer *lx, const char *q, Token *t)
{
	if (lx->depth > 0)
		lx->depth--;
	op1_fast(lx, q, t);
}

/* an operator that may be longer than one byte (none is a bracket) */
static __attribute__((noinline)) void op_fast(Lexer *lx, const char *q, Token *t)
{
	/* mostly a one-byte operator: only a few bytes after it extend it or
	 * make it a number (q[1] is readable: the input's last byte is the
	 * '\n' ending this line) */
	unsigned char d = (unsigned char)q[1];
	if (op_second_bytes[d] == '0') {
		op1_fast(lx, q, t);
		return;
	}
	if (*q == '.' && is_digit(d)) { /* ".5" is a number */
		scan_full(lx, t);
		return;
	}
	size_t n = op_len(q, (size_t)(lx->end - q)); /* >= 1: '!' is not LC_OP */
	if (n == 1) {
		op1_fast(lx, q, t);
		return;
	}
	put_token(lx, t, TK_OP, lex_op_code_n(q, n), q, op_text(q, n), 0);
	lx->p = q + n;
}

/* the end of a line outside brackets, or something for scan() */
static __attribute__((noinline)) void other_fast(Lexer *lx, const char *q, Token *t)
{
	if (*q != '\n' || lx->depth != 0) {
		scan_full(lx, t);
		return;
	}
	put_token(lx, t, TK_NEWLINE, 0, q, NULL, 0);
	newline_at(lx, q + 1);
	lx->p = q + 1;
	lx->at_line_start = lx->slow = true;
}

/* The handler of each byte class: a table, not a switch, so the dispatch
 * is one indirect jump without the switch's range check.  Indexed by the
 * class as lex_classes spells it, the digit '0' + class: no subtraction. */
#define CLASS_DIGIT(c) ('0' + (c))
static void (*const scan_by_class[CLASS_DIGIT(LC_CLOSE) + 1])(Lexer *lx, const char *q, Token *t) = {
	[CLASS_DIGIT(LC_OTHER)] = other_fast, [CLASS_DIGIT(LC_NAME)] = name_fast,
	[CLASS_DIGIT(LC_DIGIT)] = number_fast, [CLASS_DIGIT(LC_OP)] = op_fast,
	[CLASS_DIGIT(LC_OP1)] = op1_fast, [CLASS_DIGIT(LC_OPEN)] = open_fast,
	[CLASS_DIGIT(LC_CLOSE)] = close_fast,
};

/* The token starting at q (not a space), in the middle of a line, into t. */
static inline void scan_at(Lexer *lx, const char *q, Token *t)
{
	scan_by_class[(unsigned char)lex_classes[(unsigned char)*q]](lx, q, t);
}

/* An INDENT or DEDENT token at q, the first token of the current line
 * (scan_slow's fast path: scan() makes the same one). */
static void indent_token(Lexer *lx, Token *t, TokKind kind, const char *q)
{
	put_token(lx, t, kind, 0, q, NULL, 0);
	lx->p = q;
}

/* lx->slow: at the start of a line indented by spaces only, in the middle
 * of the input, with a common token first: as deep as the line before
 * (scan_at takes the token), one level deeper (INDENT) or as deep as an
 * enclosing level (DEDENTs); the DEDENTs pending after the first one.
 * Anything else (tabs, comment and blank lines, errors, the end of the
 * input) is scan()'s.  Nothing changes before the way is certain. */
static __attribute__((noinline)) void scan_slow(Lexer *lx, Token *t)
{
	const char *q = lx->p;
	if (lx->pending_dedents > 0 && !lx->at_line_start && lx->guarded) {
		lx->pending_dedents--;
		lx->slow = lx->pending_dedents != 0;
		indent_token(lx, t, TK_DEDENT, q);
		return;
	}
	if (lx->at_line_start && lx->pending_dedents == 0 && lx->guarded && lx->depth == 0 && q < lx->end) {
		q = skip_spaces(q, lx->end);
		int width = (int)(q - lx->p), top = lx->nindents - 1;
		if (lex_class((unsigned char)*q) == LC_OTHER || lx->indents[top] != lx->alt_indents[top]) {
			scan_full(lx, t);
			return;
		}
		if (width == lx->indents[top]) {
			lx->at_line_start = lx->slow = false;
			scan_at(lx, q, t);
			return;
		}
		if (width > lx->indents[top]) {
			if (lx->nindents > LEX_MAX_INDENT) {
				scan_full(lx, t); /* the error */
				return;
			}
			lx->indents[lx->nindents] = lx->alt_indents[lx->nindents] = width;
			lx->nindents++;
			lx->at_line_start = lx->slow = false;
			indent_token(lx, t, TK_INDENT, q);
			return;
		}
		int j = top;
		while (j > 0 && lx->indents[j] > width)
			j--;
		if (lx->indents[j] != width || lx->alt_indents[j] != width) {
			scan_full(lx, t); /* the error */
			return;
		}
		lx->pending_dedents = top - j - 1;
		lx->nindents = j + 1;
		lx->at_line_start = false;
		lx->slow = lx->pending_dedents != 0;
		indent_token(lx, t, TK_DEDENT, q);
		return;
	}
	scan_full(lx, t);
}

/* Scan the next token into t, its slot in the lookahead ring (nla counts
 * it already: an error ends the lexer's use, so the token need not be
 * complete). */
static inline void scan_into(Lexer *lx, Token *t)
{
	const char *q = lx->p;
	if (lx->slow || q >= lx->end) {
		scan_slow(lx, t);
		return;
	}
	while (*q == ' ')
		q++;
	scan_at(lx, q, t);
}

/* Produce the next raw token (INDENT/DEDENT handled here too).  Out of
 * line, so that lex_fill around the common case stays small. */
static __attribute__((noinline)) void scan(Lexer *lx, Token *t)
{
	memset(t, 0, sizeof *t);
	if (lx->pending_dedents > 0) {
		lx->pending_dedents--;
		t->kind = TK_DEDENT;
		t->line = lx->line;
		t->col = col_of(lx, lx->p);
		t->src = lx->p;
		t->end_line = t->line;
		return;
	}
	for (;;) {
		if (lx->at_line_start && lx->depth == 0) {
			/* measure indentation; skip blank and comment-only lines */
			const char *q = skip_spaces(lx->p, lx->end);
			int width = (int)(q - lx->p), alt = width;
			while (q < lx->end && (*q == ' ' || *q == '\t' || *q == '\f')) {
				if (*q == ' ') {
					width++;
					alt++;
				} else if (*q == '\t') {
					width = (width / 8 + 1) * 8;
					alt++;
				} else {
					width = alt = 0;
				}
				q++;
			}
			lx->p = q;
			/* a NUL or a stray byte as the first thing on a line is
			 * reported as such, not as a dedent */
			if (q < lx->end && (*q == 0 || (unsigned char)*q >= 0x80))
				check_text(lx, q);
			if (q < lx->end && *q == '#') {
				read_comment(lx);
				if (!eat_eol(lx) && lx->p >= lx->end)
					goto at_eof;
				continue;
			}
			if (q < lx->end && (*q == '\n' || *q == '\r')) {
				eat_eol(lx);
				continue;
			}
			if (q < lx->end && *q == '\\' && q + 1 < lx->end && (q[1] == '\n' || q[1] == '\r')) {
				/* continuation at line start: part of the logical line */
			}
			if (q >= lx->end)
				goto at_eof;
			lx->at_line_start = false;
			int cur = lx->indents[lx->nindents - 1];
			int alt_cur = lx->alt_indents[lx->nindents - 1];
			if (width > cur) {
				if (lx->nindents > LEX_MAX_INDENT)
					lex_error(lx, lx->line, col_of(lx, q), "too many levels of indentation (limit %d)", LEX_MAX_INDENT);
				if (alt <= alt_cur)
					tab_error(lx, q);
				lx->alt_indents[lx->nindents] = alt;
				lx->indents[lx->nindents++] = width;
				t->kind = TK_INDENT;
				t->line = t->end_line = lx->line;
				t->col = col_of(lx, q);
				t->src = q;
				return;
			}
			if (width < cur) {
				int k = 0;
				while (lx->nindents > 1 && lx->indents[lx->nindents - 1] > width) {
					lx->nindents--;
					k++;
				}
				if (lx->indents[lx->nindents - 1] != width)
					lex_error(lx, lx->line, col_of(lx, q), "unindent does not match any outer indentation level");
				if (lx->alt_indents[lx->nindents - 1] != alt)
					tab_error(lx, q);
				lx->pending_dedents = k - 1;
				t->kind = TK_DEDENT;
				t->line = t->end_line = lx->line;
				t->col = col_of(lx, q);
				t->src = q;
				return;
			}
			if (alt != alt_cur)
				tab_error(lx, q);
		}
		/* inside a line */
		const char *q = lx->p;
		while (q < lx->end && (*q == ' ' || *q == '\t' || *q == '\f'))
			q++;
		lx->p = q;
		if (q >= lx->end)
			goto at_eof;
		char c = *q;
		if (c == '#') {
			read_comment(lx);
			continue;
		}
		if (c == '\\' && q + 1 < lx->end && (q[1] == '\n' || q[1] == '\r')) {
			lx->p = q + 1;
			eat_eol(lx);
			continue;
		}
		if (c == '\n' || c == '\r') {
			int line = lx->line, col = col_of(lx, q);
			eat_eol(lx);
			if (lx->depth > 0)
				continue;
			lx->at_line_start = true;
			t->kind = TK_NEWLINE;
			t->line = t->end_line = line;
			t->col = col;
			t->src = q;
			return;
		}
		t->line = lx->line;
		t->col = col_of(lx, q);
		t->src = q;
		if (is_ident_start((unsigned char)c) || c == '_') {
			if (lx->guarded) { /* the first name after a comment line, an
					    * INDENT, ...: the common token's way */
				name_fast(lx, q, t);
				return;
			}
			const char *s = q;
			while (q < lx->end && (is_ident((unsigned char)*q) || *q == '_'))
				q++;
			/* string prefixes r"..." are not part of the subset */
			t->kind = TK_NAME;
			t->text = intern_name(lx, s, (size_t)(q - s));
			t->nlen = (size_t)(q - s);
			lx->p = q;
		} else if (is_digit((unsigned char)c) || (c == '.' && q + 1 < lx->end && is_digit((unsigned char)q[1]))) {
			read_number(lx, t);
		} else if (c == '"' || c == '\'') {
			read_string(lx, t);
		} else {
			size_t n = op_len(q, (size_t)(lx->end - q));
			if (!n) {
				if (c == 0)
					lex_error(lx, t->line, t->col, "NUL byte in input");
				if ((unsigned char)c >= 0x80 && !utf8_len((const unsigned char *)q, (const unsigned char *)lx->end))
					lex_error(lx, t->line, t->col, "invalid UTF-8 byte 0x%02X", (unsigned char)c);
				if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
					lex_error(lx, t->line, t->col, "unexpected character '%c'", c);
				lex_error(lx, t->line, t->col, "unexpected character (byte 0x%02X)", (unsigned char)c);
			}
			track_bracket(lx, t->line, t->col, c);
			t->kind = TK_OP;
			t->op = lex_op_code_n(q, n);
			t->text = op_text(q, n);
			lx->p = q + n;
		}
		t->end_line = lx->line;
		return;
	}
at_eof:
	if (lx->depth > 0)
		lex_error(lx, lx->line, col_of(lx, lx->p), "unexpected end of file inside brackets");
	t->line = t->end_line = lx->line;
	t->col = col_of(lx, lx->p);
	t->src = lx->p;
	if (!lx->at_line_start && !lx->emitted_eof_newline) {
		lx->emitted_eof_newline = true;
		lx->at_line_start = true;
		t->kind = TK_NEWLINE;
		return;
	}
	lx->emitted_eof_newline = true;
	if (lx->nindents > 1) {
		lx->nindents--;
		t->kind = TK_DEDENT;
		return;
	}
	t->kind = TK_EOF;
}

/* Scan the next token into the lookahead ring. */
static inline void scan_next(Lexer *lx)
{
	Token *t = &lx->la[(unsigned)(lx->la_head + lx->nla) & (LEX_LOOKAHEAD - 1)];
	lx->nla++;
	scan_into(lx, t);
}

static __attribute__((noinline)) void scan_upto(Lexer *lx, int k)
{
	while (lx->nla <= k)
		scan_next(lx);
}

void lex_fill(Lexer *lx, int k)
{
	/* tail calls: no frame here */
	if (lx->nla == k)
		scan_next(lx); /* the usual case: one token more */
	else
		scan_upto(lx, k);
}

bool lex_take_open_paren(Lexer *lx)
{
	/* !slow: in the middle of a line, the input guarded: what scan_into
	 * would do with p at '(' is open_fast's bracket count */
	const char *q = lx->p;
	if (lx->nla || lx->slow || q >= lx->end || *q != '(')
		return false;
	count_open(lx, q);
	lx->p = q + 1;
	return true;
}

void lex_scan_current(Lexer *lx)
{
	lx->nla = 1;
	scan_into(lx, lx->cur);
}

void lex_skip_to(Lexer *lx, const char *to)
{
	/* The dropped tokens were all scanned, so their brackets counted in
	 * depth; tokens of the stretch not scanned yet never will be.  When
	 * the whole stretch was scanned the count is back where it started. */
	int net = 0;
	while (lx->nla > 0) {
		const Token *t = lx->cur;
		if (t->src >= to)
			return; /* the lexer is already past the stretch */
		switch (t->op) {
		case '(': case '[': case '{': net++; break;
		case ')': case ']': case '}': net--; break;
		}
		lex_drop(lx);
	}
	lx->depth -= net;
	lx->p = to;
}

void lex_comments_gc(Lexer *lx)
{
	while (lx->comment_head < lx->ncomments && lx->comments[lx->comment_head].taken)
		lx->comment_head++;
}


