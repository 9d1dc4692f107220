/* lossless.c - the input text a print would drop (see lossless.h). */
#include "ptoopt/lossless.h"

#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"
#include "ptoopt/lex.h"

typedef enum { PIECE_COMMENT, PIECE_DOCSTRING, PIECE_CONSTANT, PIECE_INLINE } PieceKind;

typedef struct Piece {
	PieceKind kind;
	int line, col;
	const char *s; /* comment text after '#' and spaces; docstring's first line; constant's or
	                * @pl.inline function's name */
	size_t n;
	bool kept;
} Piece;

typedef struct Pieces {
	Piece *v;
	int n, cap;
} Pieces;

static void add(Pieces *p, PieceKind k, int line, int col, const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		p->v = xrealloc(p->v, (size_t)p->cap * sizeof *p->v);
	}
	p->v[p->n++] = (Piece){ k, line, col, s, n, false };
}


/* The comments, docstrings and module-level constants of a Python text:
 * a line scanner that knows strings (a '#' inside one is no comment) and
 * triple-quoted strings across lines. */
static void scan(const char *src, size_t len, Pieces *out)
{
	const char *p = src, *end = src + len;
	int line = 1;
	char triple = 0;         /* inside a """ or ''' string */
	bool triple_doc = false; /* ... that began a line: a docstring */
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		const char *q = p;
		if (!triple) {
			while (q < e && (*q == ' ' || *q == '\t'))
				q++;
			/* a statement that is only a string: a docstring */
			if (q + 3 <= e && (q[0] == '"' || q[0] == '\'') && q[1] == q[0] && q[2] == q[0]) {
				triple = q[0];
				triple_doc = true;
				const char *t = q + 3;
				while (t < e && (*t == ' ' || *t == '\t'))
					t++;
				const char *close = NULL;
				for (const char *c = t; c + 3 <= e; c++)
					if (c[0] == triple && c[1] == triple && c[2] == triple) {
						close = c;
						break;
					}
				add(out, PIECE_DOCSTRING, line, (int)(q - p) + 1, t, (size_t)((close ? close : e) - t));
				if (close) {
					triple = 0;
					q = close + 3;
				} else {
					q = e;
				}
			} else if (q == p && (size_t)(e - q) >= 10 && !memcmp(q, "@pl.inline", 10) && e < end) {
				/* a module-level @pl.inline function: never printed */
				const char *n = e + 1, *ne = memchr(n, '\n', (size_t)(end - n));
				if (!ne)
					ne = end;
				while (n < ne && (*n == ' ' || *n == '\t'))
					n++;
				if ((size_t)(ne - n) > 4 && !memcmp(n, "def ", 4)) {
					n += 4;
					while (n < ne && *n == ' ')
						n++;
					const char *ns = n;
					while (n < ne && lex_ident_char(*n))
						n++;
					add(out, PIECE_INLINE, line, 1, ns, (size_t)(n - ns));
				}
			} else if (q == p && q < e && (lex_ident_char(*q) && !(*q >= '0' && *q <= '9'))) {
				/* module level: NAME = value (not ==), other than a pl.dynamic */
				const char *n = q;
				while (n < e && lex_ident_char(*n))
					n++;
				const char *r = n;
				while (r < e && *r == ' ')
					r++;
				if (r < e && *r == ':') /* NAME: type = value */
					while (r < e && *r != '=')
						r++;
				if (r < e && *r == '=' && !(r + 1 < e && r[1] == '=')) {
					const char *v = r + 1;
					while (v < e && *v == ' ')
						v++;
					if ((size_t)(e - v) < 11 || memcmp(v, "pl.dynamic(", 11) != 0)
						add(out, PIECE_CONSTANT, line, 1, q, (size_t)(n - q));
				}
			}
		}
		char quote = 0;
		for (; q < e; q++) {
			char c = *q;
			if (triple) {
				if (q + 3 <= e && c == triple && q[1] == triple && q[2] == triple) {
					triple = 0;
					triple_doc = false;
					q += 2;
				}
				continue;
			}
			if (quote) {
				if (c == '\\')
					q++;
				else if (c == quote)
					quote = 0;
				continue;
			}
			if ((c == '"' || c == '\'') && q + 3 <= e && q[1] == c && q[2] == c) {
				triple = c;
				q += 2;
			} else if (c == '"' || c == '\'') {
				quote = c;
			} else if (c == '#') {
				const char *t = q + 1;
				while (t < e && (*t == ' ' || *t == '\t'))
					t++;
				add(out, PIECE_COMMENT, line, (int)(q - p) + 1, t, (size_t)(e - t));
				break;
			}
		}
		(void)triple_doc;
		p = e + 1;
		line++;
	}
}

static bool same(const Piece *a, const Piece *b)
{
	return a->kind == b->kind && a->n == b->n && !memcmp(a->s, b->s, a->n);
}

static int cmp_piece(const void *x, const void *y)
{
	const Piece *a = x, *b = y;
	if (a->kind != b->kind)
		return (int)a->kind - (int)b->kind;
	size_t n = a->n < b->n ? a->n : b->n;
	int c = memcmp(a->s, b->s, n);
	return c ? c : a->n < b->n ? -1 : a->n > b->n;
}

int lossless_check(Diag *d, const char *src, size_t len, const char *out, size_t olen, bool as_error)
{
	Pieces in = { 0 }, got = { 0 };
	scan(src, len, &in);
	scan(out, olen, &got);
	/* the output's pieces sorted: each input piece takes one equal one */
	qsort(got.v, (size_t)got.n, sizeof *got.v, cmp_piece);
	int lost = 0;
	for (int i = 0; i < in.n; i++) {
		Piece *p = &in.v[i];
		int lo = 0, hi = got.n;
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (cmp_piece(&got.v[mid], p) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		while (lo < got.n && same(&got.v[lo], p) && got.v[lo].kept)
			lo++;
		if (lo < got.n && same(&got.v[lo], p)) {
			got.v[lo].kept = true;
			continue;
		}
		lost++;
		static const char *const what[] = { "comment", "docstring", "module-level constant", "@pl.inline function" };
		void (*say)(Diag *, int, int, const char *, ...) = as_error ? diag_error : diag_note;
		int shown = p->n > 60 ? 60 : (int)p->n;
		if (p->kind == PIECE_INLINE)
			say(d, p->line, p->col, "printing drops the %s '%.*s' (its body is printed where it is called)",
			    what[p->kind], shown, p->s);
		else if (p->kind == PIECE_CONSTANT)
			say(d, p->line, p->col, "printing drops the %s '%.*s' (the printed program uses its value)", what[p->kind],
			    shown, p->s);
		else
			say(d, p->line, p->col, "printing drops the %s '%.*s%s' (the reference's printer does not keep it here)",
			    what[p->kind], shown, p->s, p->n > 60 ? "..." : "");
	}
	free(in.v);
	free(got.v);
	return lost;
}
