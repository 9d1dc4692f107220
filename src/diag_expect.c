/* diag_expect.c - expected diagnostics for --verify-diagnostics (see
 * diag_expect.h). */
#include "ptoopt/diag_expect.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"

typedef struct Expectation {
	char kind[8];    /* error, warning, note */
	int line;        /* the line it is about */
	int at;          /* the line it is written on */
	char *text;      /* the substring */
	bool met;
} Expectation;

typedef struct Produced {
	char kind[8];
	int line, col;
	char *msg;
	bool expected;
} Produced;

struct DiagExpect {
	Expectation *x; int nx, capx;
	Produced *p; int np, capp;
};

static char *dup_n(const char *s, size_t n)
{
	char *r = xmalloc(n + 1);
	memcpy(r, s, n);
	r[n] = 0;
	return r;
}

/* Is line [s, e) nothing but a comment holding expectations? */
static bool only_expectations(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= e || *s != '#')
		return false;
	const char *h = s;
	size_t n = (size_t)(e - h);
	for (size_t i = 0; i + 9 <= n; i++)
		if (!memcmp(h + i, "expected-", 9))
			return true;
	return false;
}

static void add(DiagExpect *x, const char *kind, int line, int at, const char *t, size_t tn)
{
	if (x->nx == x->capx) {
		x->capx = x->capx ? 2 * x->capx : 16;
		x->x = xrealloc(x->x, (size_t)x->capx * sizeof *x->x);
	}
	Expectation *e = &x->x[x->nx++];
	memset(e, 0, sizeof *e);
	snprintf(e->kind, sizeof e->kind, "%s", kind);
	e->line = line;
	e->at = at;
	e->text = dup_n(t, tn);
}

static void sink(void *ctx, const char *kind, int line, int col, const char *msg)
{
	DiagExpect *x = ctx;
	if (x->np == x->capp) {
		x->capp = x->capp ? 2 * x->capp : 16;
		x->p = xrealloc(x->p, (size_t)x->capp * sizeof *x->p);
	}
	Produced *p = &x->p[x->np++];
	memset(p, 0, sizeof *p);
	snprintf(p->kind, sizeof p->kind, "%s", kind);
	p->line = line;
	p->col = col;
	p->msg = dup_n(msg, strlen(msg));
}

DiagExpect *dexp_begin(Diag *d, const char *src, size_t len)
{
	DiagExpect *x = xmalloc(sizeof *x);
	memset(x, 0, sizeof *x);
	/* the lines, for @below / @above */
	int nlines = 1;
	for (size_t i = 0; i < len; i++)
		nlines += src[i] == '\n';
	const char **ls = xmalloc((size_t)(nlines + 1) * sizeof *ls), **le = xmalloc((size_t)(nlines + 1) * sizeof *le);
	int n = 0;
	for (const char *p = src, *end = src + len; p <= end && n < nlines;) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		ls[n] = p;
		le[n++] = e;
		p = e + 1;
	}
	static const char *const kinds[] = { "error", "warning", "note" };
	for (int i = 0; i < n; i++) {
		const char *s = ls[i], *e = le[i];
		const char *hash = memchr(s, '#', (size_t)(e - s));
		if (!hash)
			continue;
		for (const char *q = hash; q + 9 <= e; q++) {
			if (memcmp(q, "expected-", 9) != 0)
				continue;
			const char *k = q + 9;
			int ki = -1;
			for (int j = 0; j < 3; j++)
				if ((size_t)(e - k) >= strlen(kinds[j]) && !memcmp(k, kinds[j], strlen(kinds[j])))
					ki = j;
			if (ki < 0)
				continue;
			const char *r = k + strlen(kinds[ki]);
			int line = i + d->first_line;
			if (r < e && *r == '@') {
				r++;
				if (r < e && (*r == '+' || *r == '-')) {
					int sign = *r == '-' ? -1 : 1, v = 0;
					r++;
					while (r < e && *r >= '0' && *r <= '9')
						v = v * 10 + (*r++ - '0');
					line = i + d->first_line + sign * v;
				} else if ((size_t)(e - r) >= 5 && !memcmp(r, "below", 5)) {
					r += 5;
					int j = i + 1;
					while (j < n && only_expectations(ls[j], le[j]))
						j++;
					line = j + d->first_line;
				} else if ((size_t)(e - r) >= 5 && !memcmp(r, "above", 5)) {
					r += 5;
					int j = i - 1;
					while (j >= 0 && only_expectations(ls[j], le[j]))
						j--;
					line = j + d->first_line;
				}
			}
			while (r < e && *r == ' ')
				r++;
			if (r + 2 > e || r[0] != '{' || r[1] != '{')
				continue; /* not an expectation: prose that mentions one */
			const char *t = r + 2, *close = NULL;
			for (const char *c = t; c + 2 <= e; c++)
				if (c[0] == '}' && c[1] == '}') {
					close = c;
					break;
				}
			if (!close)
				continue;
			add(x, kinds[ki], line, i + d->first_line, t, (size_t)(close - t));
			q = close + 1;
		}
	}
	free(ls);
	free(le);
	d->sink = sink;
	d->sink_ctx = x;
	return x;
}

int dexp_end(DiagExpect *x, Diag *d)
{
	d->sink = NULL;
	d->sink_ctx = NULL;
	int bad = 0;
	for (int i = 0; i < x->np; i++) {
		Produced *p = &x->p[i];
		for (int j = 0; j < x->nx && !p->expected; j++) {
			Expectation *e = &x->x[j];
			if (!e->met && e->line == p->line && !strcmp(e->kind, p->kind) && strstr(p->msg, e->text))
				e->met = p->expected = true;
		}
	}
	for (int i = 0; i < x->np; i++) {
		Produced *p = &x->p[i];
		if (p->expected)
			continue;
		if (!bad++)
			fprintf(stderr, "%s: error: diagnostics differ from the expected ones\n", d->file);
		if (p->line > 0)
			fprintf(stderr, "%s:%d:%d: unexpected %s: %s\n", d->file, p->line, p->col, p->kind, p->msg);
		else
			fprintf(stderr, "%s: unexpected %s: %s\n", d->file, p->kind, p->msg);
	}
	for (int j = 0; j < x->nx; j++) {
		Expectation *e = &x->x[j];
		if (e->met)
			continue;
		if (!bad++)
			fprintf(stderr, "%s: error: diagnostics differ from the expected ones\n", d->file);
		fprintf(stderr, "%s:%d: expected %s {{%s}} (written on line %d) was not produced\n", d->file, e->line, e->kind,
			e->text, e->at);
	}
	for (int i = 0; i < x->np; i++)
		free(x->p[i].msg);
	for (int j = 0; j < x->nx; j++)
		free(x->x[j].text);
	free(x->p);
	free(x->x);
	free(x);
	return bad ? 1 : 0;
}
