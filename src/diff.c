/* diff.c - unified diff of two texts (--diff, --expect).
 *
 * Lines are numbered by content (a hash table gives equal lines one id), the
 * common head and tail are cut off, and the rest is compared with Myers'
 * O(ND) algorithm in its linear-space form: find the middle snake of the
 * shortest edit path, recurse on both halves.  A cap on the edit distance a
 * single search explores (smaller the longer the texts) keeps 100 MB inputs
 * with many changes from taking hours: past the cap, that part of the texts
 * is reported as replaced wholesale -- still a correct diff, only not the
 * shortest.  Memory is linear in the number of lines.
 */
#include "ptoopt/diff.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"

typedef struct Line {
	const char *s;
	size_t len;   /* without the newline */
	bool nl;      /* ends with a newline (only the last line may not) */
} Line;

typedef struct Text {
	Line *lines;
	int32_t *id;
	int32_t n;
	bool *changed; /* deleted (a) / inserted (b) */
} Text;

/* The diff's tables are as big as its inputs: counted against the memory
 * limit while they live (tally: what to give back). */
static size_t diff_held;

static void *dalloc(size_t n)
{
	mem_charge(n);
	diff_held += n;
	return xmalloc(n);
}

static void split_lines(Text *t, const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	if (len && s[len - 1] != '\n')
		n++;
	t->lines = dalloc((n + 1) * sizeof *t->lines);
	t->id = dalloc((n + 1) * sizeof *t->id);
	t->changed = dalloc(n + 1);
	memset(t->changed, 0, n + 1);
	t->n = 0;
	const char *p = s, *end = s + len;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		Line *l = &t->lines[t->n++];
		l->s = p;
		l->len = e ? (size_t)(e - p) : (size_t)(end - p);
		l->nl = e != NULL;
		p = e ? e + 1 : end;
	}
}

static uint64_t hash_line(const Line *l)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)l->nl;
	for (size_t i = 0; i < l->len; i++)
		h = (h ^ (unsigned char)l->s[i]) * 1099511628211ull;
	return h;
}

static bool same_line(const Line *x, const Line *y)
{
	return x->len == y->len && x->nl == y->nl && memcmp(x->s, y->s, x->len) == 0;
}

/* Equal lines of both texts get equal ids. */
static void number_lines(Text *a, Text *b)
{
	size_t total = (size_t)a->n + (size_t)b->n, cap = 16;
	while (cap < 2 * total)
		cap *= 2;
	const Line **slot = dalloc(cap * sizeof *slot);
	int32_t *slot_id = dalloc(cap * sizeof *slot_id);
	memset(slot, 0, cap * sizeof *slot);
	int32_t next = 0;
	Text *ts[2] = { a, b };
	for (int k = 0; k < 2; k++)
		for (int32_t i = 0; i < ts[k]->n; i++) {
			const Line *l = &ts[k]->lines[i];
			size_t h = (size_t)hash_line(l) & (cap - 1);
			while (slot[h] && !same_line(slot[h], l))
				h = (h + 1) & (cap - 1);
			if (!slot[h]) {
				slot[h] = l;
				slot_id[h] = next++;
			}
			ts[k]->id[i] = slot_id[h];
		}
	free(slot);
	free(slot_id);
}

typedef struct Search {
	const int32_t *x, *y;
	bool *xdel, *yins;
	int32_t *fwd, *bwd; /* furthest x per diagonal, forward / on the reversed texts */
	long limit;         /* edit distance one middle-snake search may explore */
} Search;

/* Step d on diagonal k: one more edit from the furthest points on the
 * neighbouring diagonals (those inside the grid, [-m, n]), kept inside the
 * grid. */
static long step(const int32_t *v, long k, long d, long n, long m)
{
	bool from_below = k != -d && k - 1 >= -m, from_above = k != d && k + 1 <= n;
	long px;
	if (d == 0)
		px = 0 > k ? 0 : k;
	else if (!from_below || (from_above && v[k - 1] < v[k + 1]))
		px = v[k + 1];        /* an insertion: down from diagonal k+1 */
	else
		px = v[k - 1] + 1;    /* a deletion: right from diagonal k-1 */
	if (px < k)
		px = k;               /* y >= 0 */
	if (px > m + k)
		px = m + k;           /* y <= m */
	if (px > n)
		px = n;
	return px;
}

/* The middle snake of x[xo..xl) vs y[yo..yl) (both non-empty, their first
 * and last lines differing): a point (*mx, *my) on a shortest edit path.
 * False when the search passes the limit. */
static bool middle_snake(Search *s, long xo, long xl, long yo, long yl, long *mx, long *my)
{
	const int32_t *x = s->x + xo, *y = s->y + yo;
	long n = xl - xo, m = yl - yo, delta = n - m, off = m + 1;
	bool odd = delta & 1;
	int32_t *f = s->fwd + off, *r = s->bwd + off; /* index: diagonal k in [-m-1, n+1] */
	long dmax = (n + m + 1) / 2;
	for (long d = 0; d <= dmax; d++) {
		if (d > s->limit)
			return false;
		for (long k = -d; k <= d; k += 2) {
			if (k < -m || k > n)
				continue;
			long px = step(f, k, d, n, m);
			long py = px - k;
			while (px < n && py < m && x[px] == y[py])
				px++, py++;
			f[k] = (int32_t)px;
			/* the reversed search at d-1 reached diagonal k' = delta - k */
			long kr = delta - k;
			if (odd && kr >= -(d - 1) && kr <= d - 1 && kr >= -m && kr <= n && px >= n - r[kr]) {
				*mx = xo + px;
				*my = yo + py;
				return true;
			}
		}
		for (long k = -d; k <= d; k += 2) {
			if (k < -m || k > n)
				continue;
			long px = step(r, k, d, n, m);
			long py = px - k;
			while (px < n && py < m && x[n - 1 - px] == y[m - 1 - py])
				px++, py++;
			r[k] = (int32_t)px;
			long kf = delta - k;
			if (!odd && kf >= -d && kf <= d && kf >= -m && kf <= n && f[kf] >= n - px) {
				*mx = xo + n - px;
				*my = yo + m - py;
				return true;
			}
		}
	}
	return false;
}

static void compare(Search *s, long xo, long xl, long yo, long yl)
{
	for (;;) {
		while (xo < xl && yo < yl && s->x[xo] == s->y[yo])
			xo++, yo++;
		while (xl > xo && yl > yo && s->x[xl - 1] == s->y[yl - 1])
			xl--, yl--;
		long mx, my;
		if (xo == xl || yo == yl || !middle_snake(s, xo, xl, yo, yl, &mx, &my) || (mx == xo && my == yo) ||
		    (mx == xl && my == yl)) {
			for (long i = xo; i < xl; i++)
				s->xdel[i] = true;
			for (long j = yo; j < yl; j++)
				s->yins[j] = true;
			return;
		}
		/* the smaller half by recursion, the larger by the loop: the
		 * stack stays logarithmic */
		if ((mx - xo) + (my - yo) < (xl - mx) + (yl - my)) {
			compare(s, xo, mx, yo, my);
			xo = mx, yo = my;
		} else {
			compare(s, mx, xl, my, yl);
			xl = mx, yl = my;
		}
	}
}

static void put_line(StrBuf *out, char mark, const Line *l, bool color)
{
	const char *on = mark == '-' ? "\033[31m" : mark == '+' ? "\033[32m" : NULL;
	if (color && on)
		sb_puts(out, on);
	sb_putc(out, mark);
	sb_putn(out, l->s, l->len);
	if (color && on)
		sb_puts(out, "\033[0m");
	sb_putc(out, '\n');
	if (!l->nl)
		sb_puts(out, "\\ No newline at end of file\n");
}

static void range(StrBuf *out, long start, long count)
{
	/* GNU diff: a one-line range is just its line; an empty one names the
	 * line before it */
	if (count == 1)
		sb_printf(out, "%ld", start + 1);
	else
		sb_printf(out, "%ld,%ld", count ? start + 1 : start, count);
}

bool diff_unified(StrBuf *out, const char *label_a, const char *a, size_t alen, const char *label_b, const char *b,
		  size_t blen, int context, bool color)
{
	if (alen == blen && memcmp(a, b, alen) == 0)
		return false;
	Text ta, tb;
	split_lines(&ta, a, alen);
	split_lines(&tb, b, blen);
	number_lines(&ta, &tb);
	Search s = { ta.id, tb.id, ta.changed, tb.changed, NULL, NULL, 0 };
	size_t vec = (size_t)ta.n + (size_t)tb.n + 4;
	s.fwd = dalloc(vec * sizeof *s.fwd);
	s.bwd = dalloc(vec * sizeof *s.bwd);
	long total = (long)ta.n + tb.n;
	s.limit = 50000000L / (total + 1);
	if (s.limit < 64)
		s.limit = 64;
	compare(&s, 0, ta.n, 0, tb.n);
	free(s.fwd);
	free(s.bwd);

	/* the edit script: 'E'qual, 'D'elete, 'I'nsert, deletions first */
	char *ops = dalloc((size_t)total + 1);
	long nops = 0;
	for (long i = 0, j = 0; i < ta.n || j < tb.n;) {
		if (i < ta.n && ta.changed[i])
			ops[nops++] = 'D', i++;
		else if (j < tb.n && tb.changed[j])
			ops[nops++] = 'I', j++;
		else
			ops[nops++] = 'E', i++, j++;
	}

	if (color)
		sb_puts(out, "\033[1m");
	sb_printf(out, "--- %s\n+++ %s\n", label_a, label_b);
	if (color)
		sb_puts(out, "\033[0m");
	long p = 0, i = 0, j = 0;
	while (p < nops) {
		if (ops[p] == 'E') {
			p++, i++, j++;
			continue;
		}
		long back = 0; /* context before: equal lines, at most `context` */
		while (back < context && back < p && ops[p - back - 1] == 'E')
			back++;
		long hs = p - back, hi = i - back, hj = j - back;
		/* extend over changes separated by at most 2*context equal lines */
		long q = p, last = p;
		while (q < nops) {
			if (ops[q] != 'E') {
				last = q++;
				continue;
			}
			long run = 0;
			while (q + run < nops && ops[q + run] == 'E')
				run++;
			if (q + run >= nops || run > 2 * context)
				break;
			q += run;
		}
		long he = last + 1 + context;
		if (he > nops)
			he = nops;
		long ca = 0, cb = 0;
		for (long t = hs; t < he; t++) {
			ca += ops[t] != 'I';
			cb += ops[t] != 'D';
		}
		if (color)
			sb_puts(out, "\033[36m");
		sb_puts(out, "@@ -");
		range(out, hi, ca);
		sb_puts(out, " +");
		range(out, hj, cb);
		sb_puts(out, " @@");
		if (color)
			sb_puts(out, "\033[0m");
		sb_putc(out, '\n');
		long x = hi, y = hj;
		for (long t = hs; t < he; t++) {
			if (ops[t] == 'E') {
				put_line(out, ' ', &ta.lines[x], color);
				x++, y++;
			} else if (ops[t] == 'D') {
				put_line(out, '-', &ta.lines[x++], color);
			} else {
				put_line(out, '+', &tb.lines[y++], color);
			}
		}
		p = he, i = x, j = y;
	}
	free(ops);
	free(ta.lines);
	free(ta.id);
	free(ta.changed);
	free(tb.lines);
	free(tb.id);
	free(tb.changed);
	mem_uncharge(diff_held);
	diff_held = 0;
	return true;
}
