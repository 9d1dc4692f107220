/* parallel.c - function-local passes over a large program in worker
 * processes (see parallel.h).
 *
 * The parent scans the input once to find the functions of the program
 * class and the `self.NAME` each one mentions, and cuts the class into
 * parts between functions no mention joins: about four per worker, so
 * that the workers, each taking the next part no worker has taken yet
 * (a counter in shared memory), share the work by how fast each goes (the
 * processors of a virtual machine often are not alike: one here runs a
 * third slower than the other).  For each part a worker (a fork) parses the
 * module header and the part's functions only (numbered as in the whole
 * file: parse_program_jump), runs the pipeline on them and leaves their
 * printed text in its memfd, which the parent reads once the worker reports
 * it done (so no worker waits on the parent).  The workers are forked
 * before the scan and wait for its plan (a fork takes a millisecond or two
 * to run here, now while the parent scans).  Parsing in the workers is
 * what makes this pay: a third of a run is parsing, and a worker that
 * wrote into the parent's parsed program would copy it page by page.
 *
 * Why the joined text is the serial one, byte for byte:
 * - Every call is a `self.NAME` mention, so every pass sees each function
 *   with all of its callers and callees; a mention the scan missed is an
 *   undefined function in a worker's parse, an error.
 * - Each worker parses exactly the functions the scan found in its part
 *   (their number and names), and a part that ends inside a string or
 *   brackets does not parse: so a cut is a true boundary between functions
 *   even where the scan guessed (scan_rest).
 * - The passes allowed (PassInfo.function_local) change one function at a
 *   time; what they add are outlined functions named by the first
 *   candidate not taken by a local name or a function already there.  A
 *   worker knows fewer taken names than the serial run, so its choice comes
 *   no later in the candidate order; if no name of the joined result is
 *   taken twice, every choice is the serial one.
 * - Their checks (structure, outlined scopes) are conjunctions over
 *   functions.
 * - A pass that is function-local only without some text in the source
 *   (PassInfo.local_unless: inline-functions' splice counter spans the
 *   program) keeps a source holding it serial.
 * - The printer's program-wide parts are the pl.dynamic header and the
 *   function order; print_part / print_join rebuild both from the parts.
 *   A symbol is known to be the same in two parts only when the module
 *   header made it (the header parses alike in every worker).
 * Anything else (an error or a warning in a worker, a name twice, a symbol
 * of one name that may be two) makes par_run return false, and the caller
 * runs serially, which reports whatever a worker met.
 *
 * The wire format from a worker (its own binary, read only by its parent):
 * one record per part it took, then the u64 end offset of each record, a
 * u32 count of them and RECORDS_MAGIC.  A record: the text (streamed while
 * it prints); then a header: the class name, a u32 count of functions,
 * callee names and symbols; per function its name, text offset and length,
 * callee offset and count; the callee names; per symbol its Var id
 * (PAR_LOCAL_DYN when not the module header's) and name; last the u64 text
 * length (where the header starts) and WIRE_MAGIC.  Strings are a u32
 * length, the bytes and a NUL.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ptoopt/parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "ptoopt/arena.h"
#include "ptoopt/lex.h"
#include "ptoopt/parse.h"
#include "ptoopt/print.h"

#define PAR_MAX_JOBS 64
/* automatic jobs: each worker gets at least this much of the input */
#define PAR_MIN_PART_BYTES ((size_t)128 << 10)
#define WIRE_MAGIC 0x70746f70u /* "ptop" */
#define RECORDS_MAGIC 0x70746f72u /* "ptor" */
/* parts per worker, each at least this much of the input */
#define PAR_PARTS_PER_JOB 4
#define PAR_MIN_SHARE_BYTES ((size_t)64 << 10)
#define PAR_LOCAL_DYN UINT32_MAX  /* a symbol not made by the module header */

/* ------------------------------------------------------------ the scan */

/* The functions of the program class as the source has them. */
typedef struct Scan {
	Arena names;      /* the functions' names, interned */
	size_t body_at;   /* the first function's first line */
	size_t *at;       /* function i: bytes [at[i], at[i + 1]); at[n] = the length */
	const char **name;
	int n, cap;
	int *mentions;    /* (function, mentioned function) pairs */
	size_t nmentions, cmentions;
} Scan;

static void scan_release(Scan *s)
{
	arena_free(&s->names);
	free(s->at);
	free(s->name);
	free(s->mentions);
}

static bool starts(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(end - p) >= n && !memcmp(p, word, n);
}

/* The functions after the first one, from p (a line start) on: each
 * starts at a line of class_indent spaces and an '@', and is named by the
 * first line of class_indent spaces and "def " after it.  A guess, not a
 * tokenizer: such a line inside a string or brackets cuts a function in
 * two, and one indented with tabs is missed.  A guess is enough, as every
 * worker checks it: a cut inside a string or brackets leaves the part
 * before it unterminated, a missed or extra function makes a worker find
 * other functions than the scan's, and either makes par_run run serially.
 * Searching for the rare '@' keeps this a small part of the parse. */
static bool scan_rest(const char *src, const char *p, const char *end, int class_indent, Scan *s, PtrMap *index)
{
	char def[72];
	if (class_indent > 64)
		return false;
	def[0] = '\n';
	memset(def + 1, ' ', (size_t)class_indent);
	memcpy(def + 1 + class_indent, "def ", 4);
	size_t ndef = (size_t)class_indent + 5;
	while (p < end) {
		const char *at = memchr(p, '@', (size_t)(end - p));
		if (!at)
			break;
		const char *ls = at - class_indent;
		bool starts_line = ls >= p && ls[-1] == '\n';
		for (const char *q = ls; starts_line && q < at; q++)
			starts_line = *q == ' ';
		if (!starts_line) {
			p = at + 1;
			continue;
		}
		const char *d = memmem(at, (size_t)(end - at), def, ndef);
		if (!d)
			return false;
		const char *q = d + ndef, *e;
		while (q < end && *q == ' ')
			q++;
		for (e = q; e < end && lex_ident_char(*e); e++)
			;
		const char *nm = intern(&s->names, q, (size_t)(e - q));
		if (e == q || pmap_get(index, nm))
			return false;
		if (s->n + 2 > s->cap) {
			s->cap = s->cap ? s->cap * 2 : 64;
			s->at = xrealloc(s->at, (size_t)s->cap * sizeof *s->at);
			s->name = xrealloc(s->name, (size_t)s->cap * sizeof *s->name);
		}
		s->at[s->n] = (size_t)(ls - src);
		s->name[s->n++] = nm;
		pmap_put(index, nm, (void *)(uintptr_t)s->n);
		p = e;
	}
	return true;
}

/* The next "self." in [q, e), or NULL: the places with an 's' and a '.'
 * four bytes on are the candidates, sixteen (SSE2) or eight at a time
 * (memmem looks at every byte several times). */
static const char *find_self(const char *q, const char *e)
{
#ifdef __SSE2__
	const __m128i s = _mm_set1_epi8('s'), dot = _mm_set1_epi8('.');
	for (; e - q >= 20; q += 16) {
		__m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)q), s);
		__m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(q + 4)), dot);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(a, b));
		for (; m; m &= m - 1) {
			int k = __builtin_ctz(m);
			if (!memcmp(q + k, "self.", 5))
				return q + k;
		}
	}
#else
	const uint64_t ones = 0x0101010101010101u, low7 = 0x7f7f7f7f7f7f7f7fu;
	for (; e - q >= 12; q += 8) {
		uint64_t a, b;
		memcpy(&a, q, 8);
		memcpy(&b, q + 4, 8);
		uint64_t x = (a ^ (ones * 's')) | (b ^ (ones * '.'));
		uint64_t z = ~(((x & low7) + low7) | x | low7); /* 0x80 where x's byte is 0 */
		for (; z; z &= z - 1) {
			int k = __builtin_ctzll(z) >> 3;
			if (!memcmp(q + k, "self.", 5))
				return q + k;
		}
	}
#endif
	return memmem(q, (size_t)(e - q), "self.", 5);
}

/* Find the functions of src's @pl.program class and the self.NAME each
 * mentions.  Not the parser: up to the first function's def line a quick
 * pass over the bytes that knows strings, comments, brackets and
 * indentation, enough to find where each logical line starts; after it
 * scan_rest's guess.  Mentions are looked for in all of a function's
 * bytes, strings and comments too (one too many only keeps two functions
 * together).  False when the input does not plainly start with a module
 * header and a class of decorated methods; a worker's parse checks the
 * rest (the functions it finds must be the scan's). */
static bool scan_program(const char *src, size_t len, Scan *s)
{
	arena_init(&s->names);
	/* the bytes that matter to the end of a line: newlines, comments,
	 * strings, brackets */
	static bool special[256];
	static signed char bracket[256];
	static unsigned char quoting[256];
	if (!special['\n']) {
		for (const char *c = "\n#\"'()[]{}"; *c; c++)
			special[(unsigned char)*c] = true;
		for (const char *c = "([{"; *c; c++)
			bracket[(unsigned char)*c] = 1;
		for (const char *c = ")]}"; *c; c++)
			bracket[(unsigned char)*c] = -1;
		for (const char *c = "#\"'\\"; *c; c++)
			quoting[(unsigned char)*c] = 1;
	}
	const char *p = src, *end = src + len;
	int depth = 0;            /* brackets open */
	int class_indent = -1;    /* the class body's, once known */
	bool in_class = false, after_class = false, saw_program = false, decorating = false;
	bool first_def = false;   /* the first function's def line seen: scan_rest takes over */
	PtrMap index = { 0 };     /* name -> function index + 1 */
	bool ok = true;
	while (p < end && ok) {
		/* a logical line starts at p (depth 0, not in a string) */
		const char *ls = p;
		int indent = 0;
		while (p < end && *p == ' ')
			p++, indent++;
		if (p < end && *p == '\t')
			break; /* tabs: leave it to the parser */
		bool blank = p == end || *p == '\n' || *p == '#' || (*p == '\r' && p + 1 < end && p[1] == '\n');
		if (!blank) {
			if (!in_class && indent == 0) {
				if (starts(p, end, "@pl.program"))
					saw_program = true;
				else if (starts(p, end, "class ") && saw_program)
					in_class = true;
			} else if (in_class && !after_class) {
				if (class_indent < 0 && indent > 0)
					class_indent = indent;
				if (indent < class_indent || indent == 0) {
					after_class = true;
				} else if (indent == class_indent) {
					if (*p == '@' && !decorating) {
						if (s->n + 2 > s->cap) {
							s->cap = s->cap ? s->cap * 2 : 64;
							s->at = xrealloc(s->at, (size_t)s->cap * sizeof *s->at);
							s->name = xrealloc(s->name, (size_t)s->cap * sizeof *s->name);
						}
						if (!s->n)
							s->body_at = (size_t)(ls - src);
						s->at[s->n] = (size_t)(ls - src);
						s->name[s->n++] = NULL;
						decorating = true;
					} else if (starts(p, end, "def ") && decorating) {
						const char *q = p + 4, *e;
						while (q < end && *q == ' ')
							q++;
						for (e = q; e < end && lex_ident_char(*e); e++)
							;
						const char *nm = intern(&s->names, q, (size_t)(e - q));
						if (e == q || pmap_get(&index, nm))
							ok = false;
						s->name[s->n - 1] = nm;
						pmap_put(&index, nm, (void *)(uintptr_t)s->n);
						decorating = false;
						first_def = true;
					} else if (*p != '@' && !((*p == '"' || *p == '\'') && !s->n)) {
						ok = false; /* not a decorated method (or the class docstring) */
					}
				}
			}
			if (after_class)
				ok = false; /* something after the class */
		}
		/* to the end of the logical line: a line without quotes or
		 * comments in one pass without branches (the brackets counted),
		 * else byte by byte */
		for (;;) {
			const char *e = memchr(p, '\n', (size_t)(end - p));
			if (!e)
				break;
			int d = 0;
			unsigned hard = 0;
			for (const char *q = p; q < e; q++) {
				d += bracket[(unsigned char)*q];
				hard |= quoting[(unsigned char)*q];
			}
			if (hard || depth + d < 0)
				break;
			depth += d;
			p = e + 1;
			if (depth == 0)
				goto next_line;
		}
		while (p < end && ok) {
			while (p < end && !special[(unsigned char)*p])
				p++;
			if (p >= end)
				break;
			char c = *p;
			if (c == '\n') {
				p++;
				if (depth == 0)
					break;
				continue;
			}
			if (c == '#') {
				const char *e = memchr(p, '\n', (size_t)(end - p));
				p = e ? e : end;
				continue;
			}
			if (c == '"' || c == '\'') {
				bool triple = end - p >= 3 && p[1] == c && p[2] == c;
				p += triple ? 3 : 1;
				for (;;) {
					if (p >= end) {
						ok = false;
						break;
					}
					if (*p == '\\') {
						p += 2;
						continue;
					}
					if (*p == c && (!triple || (end - p >= 3 && p[1] == c && p[2] == c))) {
						p += triple ? 3 : 1;
						break;
					}
					if (*p == '\n' && !triple) {
						ok = false;
						break;
					}
					p++;
				}
				continue;
			}
			if (c == '(' || c == '[' || c == '{')
				depth++;
			else if (depth > 0) /* a closing one */
				depth--;
			p++;
		}
	next_line:
		if (first_def)
			break;
	}
	ok = ok && first_def && scan_rest(src, p, end, class_indent, s, &index);
	if (ok) {
		s->at[s->n] = len;
		for (int i = 0; i < s->n; i++) {
			const char *q = src + s->at[i], *e = src + s->at[i + 1];
			while ((q = find_self(q, e)) != NULL) {
				bool word = q == src || !lex_ident_char(q[-1]);
				q += 5;
				const char *w = q;
				while (w < e && lex_ident_char(*w))
					w++;
				int to = word && w > q ? (int)(uintptr_t)pmap_get(&index, intern(&s->names, q, (size_t)(w - q))) : 0;
				if (to) {
					if (s->nmentions + 2 > s->cmentions) {
						s->cmentions = s->cmentions ? s->cmentions * 2 : 64;
						s->mentions = xrealloc(s->mentions, s->cmentions * sizeof *s->mentions);
					}
					s->mentions[s->nmentions++] = i;
					s->mentions[s->nmentions++] = to - 1;
				}
				q = w;
			}
		}
	}
	pmap_release(&index);
	return ok;
}

/* ------------------------------------------------------------ cutting */

/* Where the n functions split into at most want parts of about equal
 * size, cutting only where no mention crosses: cut[0..k) with
 * 0 < cut[0] < ... < cut[k-1] < n.  Returns k. */
static int choose_cuts(const Scan *s, int want, int *cut)
{
	int n = s->n;
	/* cover[k] > 0: a mention joins a function before k with one from k on */
	int *cover = xmalloc((size_t)(n + 2) * sizeof *cover);
	memset(cover, 0, (size_t)(n + 2) * sizeof *cover);
	for (size_t i = 0; i < s->nmentions; i += 2) {
		int lo = s->mentions[i], hi = s->mentions[i + 1];
		if (lo > hi)
			lo = s->mentions[i + 1], hi = s->mentions[i];
		if (lo < hi) {
			cover[lo + 1]++;
			cover[hi + 1]--;
		}
	}
	/* the cuts allowed, in order; then for each boundary the allowed cut
	 * nearest to its share of the bytes, after the cut before it */
	int *allowed = xmalloc((size_t)(n + 1) * sizeof *allowed);
	int nallowed = 0, run = 0;
	for (int at = 1; at < n; at++) {
		run += cover[at];
		if (run == 0)
			allowed[nallowed++] = at;
	}
	double total = (double)(s->at[n] - s->at[0]);
#define UPTO(k) ((double)(s->at[k] - s->at[0]))
	int k = 0, from = 0; /* allowed[from..) lie after the last cut */
	for (int part = 1; part < want && from < nallowed; part++) {
		double target = total * part / want;
		int best = from;
		while (best + 1 < nallowed && UPTO(allowed[best + 1]) <= target)
			best++;
		if (best + 1 < nallowed && UPTO(allowed[best + 1]) - target < target - UPTO(allowed[best]))
			best++;
		cut[k++] = allowed[best];
		from = best + 1;
	}
#undef UPTO
	free(allowed);
	free(cover);
	return k;
}

/* ------------------------------------------------------------ the wire */

static void put_u32(StrBuf *b, uint32_t v) { sb_putn(b, (const char *)&v, sizeof v); }
static void put_u64(StrBuf *b, uint64_t v) { sb_putn(b, (const char *)&v, sizeof v); }
static void put_str(StrBuf *b, const char *s)
{
	size_t n = strlen(s);
	put_u32(b, (uint32_t)n);
	sb_putn(b, s, n + 1);
}

typedef struct Reader {
	const char *data;
	size_t len, at;
	bool bad;
} Reader;

static uint64_t get_n(Reader *r, size_t size)
{
	uint64_t v = 0;
	if (r->bad || r->len - r->at < size) {
		r->bad = true;
		return 0;
	}
	if (size == 4) {
		uint32_t u;
		memcpy(&u, r->data + r->at, 4);
		v = u;
	} else {
		memcpy(&v, r->data + r->at, 8);
	}
	r->at += size;
	return v;
}

/* A string of the wire, interned in a (NULL when malformed). */
static const char *get_str(Reader *r, Arena *a)
{
	uint64_t n = get_n(r, 4);
	if (r->bad || r->len - r->at < n + 1 || r->data[r->at + n] != 0) {
		r->bad = true;
		return NULL;
	}
	const char *s = intern(a, r->data + r->at, (size_t)n);
	r->at += n + 1;
	return s;
}

/* ------------------------------------------------------------ a worker */

static void count_diag(void *ctx, const char *kind, int line, int col, const char *msg)
{
	(void)kind, (void)line, (void)col, (void)msg;
	++*(int *)ctx;
}

/* One part: functions [lo, hi) of the scan (names_hash: their names),
 * the bytes [from, to) of the source, the lines before them (after the
 * module header). */
typedef struct PartPlan {
	int lo, hi;
	size_t from, to;
	int lines_before;
	uint64_t names_hash;
} PartPlan;

#define PAR_MAX_PLAN (PAR_MAX_JOBS * PAR_PARTS_PER_JOB)

/* What the parent and its workers share (one mapping made before the
 * fork): the plan, filled in after the workers started (they wait for it
 * on the go pipe), and the next part to take. */
typedef struct Shared {
	atomic_int next;
	int nplan;          /* 0: no plan, the workers just leave */
	size_t body_at;     /* the module header's length */
	PartPlan plan[PAR_MAX_PLAN];
} Shared;

/* FNV-1a of names, each ended by a NUL, from NAMES_HASH_SEED: what a
 * part's functions must be. */
#define NAMES_HASH_SEED 0xcbf29ce484222325u
static uint64_t hash_name(uint64_t h, const char *name)
{
	for (const unsigned char *q = (const unsigned char *)name;; q++) {
		h = (h ^ *q) * 0x100000001b3u;
		if (!*q)
			return h;
	}
}

/* A worker: waits for the plan (a byte on go; its end: none, leave), then
 * takes the next part no worker has taken yet until none is left, so that
 * a worker on a faster processor does more of them; each part's functions
 * are parsed after the module header (a copy of the two, numbered as in
 * the whole file), run through pl and printed to fd as one record: the
 * text, then its index.  After the last record, their end offsets and
 * count; then its own index written to done says it finished. */
static _Noreturn void worker(const char *src, Shared *sh, int go, const Pipeline *pl, int fd, int done,
			     unsigned char index, bool large)
{
	int null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, 1);
		dup2(null, 2);
	}
	if (large)
		mem_huge_heap();
	char c;
	ssize_t got;
	while ((got = read(go, &c, 1)) < 0 && errno == EINTR)
		;
	if (got != 1 || sh->nplan <= 0)
		_exit(0);
	const PartPlan *plan = sh->plan;
	int nplan = sh->nplan;
	size_t body_at = sh->body_at;
	size_t longest = 0;
	for (int k = 0; k < nplan; k++)
		if (plan[k].to - plan[k].from > longest)
			longest = plan[k].to - plan[k].from;
	/* huge pages: a megabyte of 4 KB pages costs hundreds of faults */
	char *buf = xzalloc_huge(body_at + longest + 1);
	memcpy(buf, src, body_at);
	FILE *f = fdopen(fd, "w");
	if (!f)
		_exit(4);
	uint64_t *ends = xmalloc((size_t)nplan * sizeof *ends);
	uint32_t nrec = 0;
	uint64_t at = 0;
	for (;;) {
		int k = atomic_fetch_add(&sh->next, 1);
		if (k >= nplan)
			break;
		const PartPlan *pp = &plan[k];
		size_t n = body_at + (pp->to - pp->from);
		memcpy(buf + body_at, src + pp->from, pp->to - pp->from);
		buf[n] = 0;
		Arena arena;
		arena_init(&arena);
		int said = 0;
		Diag d;
		diag_init(&d, "", NULL, 0);
		d.sink = count_diag;
		d.sink_ctx = &said;
		Program *p = parse_program_jump(&arena, &d, buf, n, body_at, pp->lines_before);
		if (!p || said || p->static_printed || p->nfuncs != pp->hi - pp->lo || !p->name)
			_exit(3);
		uint64_t h = NAMES_HASH_SEED;
		for (int i = 0; i < p->nfuncs; i++)
			h = hash_name(h, p->funcs[i]->name);
		if (h != pp->names_hash)
			_exit(3);
		if (!pipe_check_contracts(p, pl, &d) || pipe_run(p, pl, NULL, &d) != 0 || said)
			_exit(3);
		/* the text streams into fd; the header that indexes it follows */
		PrintedPart part;
		if (!print_part(&part, p, f) || sb_flush(&part.text))
			_exit(4);
		uint64_t tlen = part.text.flushed;
		StrBuf b = { 0 };
		put_str(&b, p->name);
		put_u32(&b, (uint32_t)part.nfns);
		put_u32(&b, (uint32_t)part.ncallees);
		put_u32(&b, (uint32_t)part.ndyn);
		for (int i = 0; i < part.nfns; i++) {
			const PrintedFn *pf = &part.fns[i];
			put_str(&b, pf->name);
			put_u64(&b, pf->text_at);
			put_u64(&b, pf->text_len);
			put_u64(&b, pf->callees_at);
			put_u32(&b, (uint32_t)pf->ncallees);
		}
		for (int i = 0; i < part.ncallees; i++)
			put_str(&b, part.callees[i]);
		for (int i = 0; i < part.ndyn; i++) {
			put_u32(&b, part.dyn[i].id < p->module_var_ids ? part.dyn[i].id : PAR_LOCAL_DYN);
			put_str(&b, part.dyn[i].name);
		}
		put_u64(&b, tlen);
		put_u32(&b, WIRE_MAGIC);
		if (fwrite(b.data, 1, b.len, f) != b.len)
			_exit(5);
		at += tlen + b.len;
		ends[nrec++] = at;
		sb_release(&b);
		print_part_release(&part);
		ir_program_release(p);
		arena_free(&arena);
	}
	StrBuf b = { 0 };
	for (uint32_t i = 0; i < nrec; i++)
		put_u64(&b, ends[i]);
	put_u32(&b, nrec);
	put_u32(&b, RECORDS_MAGIC);
	if (fwrite(b.data, 1, b.len, f) != b.len || fflush(f) != 0)
		_exit(5);
	/* done: the parent takes the text while this process tears down */
	_exit(write(done, &index, 1) == 1 ? 0 : 5);
}

/* ------------------------------------------------------------ the parent */

/* A worker process and the bytes it left in its memfd. */
typedef struct Worker {
	pid_t pid;
	int fd;
	char *data; /* read from fd once the worker said it finished */
	size_t len;
} Worker;

/* One part's record, decoded. */
typedef struct Part {
	const char *class_name;
	PrintedFn *fns; /* text pointing into its worker's data */
	int nfns;
	const char **callees;
	int ncallees;
	PrintedDyn *dyn;
	int ndyn;
} Part;

/* A run in parts: the parts' texts and the order to print them in. */
struct ParResult {
	Worker workers[PAR_MAX_JOBS];
	int nworkers;
	Part *parts;
	int nparts, cparts;
	Arena names;          /* the names of the parts, interned */
	PrintedFn *fns;       /* all of them, by name */
	int nfns;
	const char **callees;
	const char **dyn;
	int ndyn;
};

void par_result_free(ParResult *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nworkers; i++) {
		while (waitpid(r->workers[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
		if (r->workers[i].data)
			xfree_huge(r->workers[i].data, r->workers[i].len);
	}
	for (int i = 0; i < r->nparts; i++) {
		free(r->parts[i].fns);
		free(r->parts[i].callees);
		free(r->parts[i].dyn);
	}
	free(r->parts);
	free(r->fns);
	free(r->callees);
	free(r->dyn);
	arena_free(&r->names);
	free(r);
}

void par_print(const ParResult *r, StrBuf *out)
{
	print_join(out, r->parts[0].class_name, r->fns, r->nfns, r->callees, r->dyn, r->ndyn);
}

/* A finished worker's bytes: its memfd read whole into huge pages (an
 * empty one is not a wire text).  Read, not mapped: a mapping of the
 * memfd's 4 KB pages costs a page-table entry each, twice (mapped and
 * unmapped), which on a virtual machine is slower than the copy. */
static bool read_all(int fd, char **data, size_t *len)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size <= 0)
		return false;
	size_t n = (size_t)st.st_size, got = 0;
	char *b = xzalloc_huge(n);
	while (got < n) {
		ssize_t k = pread(fd, b + got, n - got, (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			xfree_huge(b, n);
			return false;
		}
		got += (size_t)k;
	}
	*data = b;
	*len = n;
	return true;
}

/* One record, data[0..len): the text, the header, then the text's length
 * and the magic. */
static bool decode(Part *pt, const char *data, size_t len, Arena *a)
{
	const size_t tail = 12;
	if (len < tail)
		return false;
	Reader t = { data + len - tail, tail, 0, false };
	uint64_t tlen = get_n(&t, 8);
	if (get_n(&t, 4) != WIRE_MAGIC || tlen > len - tail)
		return false;
	Reader r = { data + tlen, len - tail - (size_t)tlen, 0, false };
	pt->class_name = get_str(&r, a);
	uint64_t nfns = get_n(&r, 4), ncallees = get_n(&r, 4), ndyn = get_n(&r, 4);
	if (r.bad || nfns > r.len || ncallees > r.len || ndyn > r.len)
		return false;
	pt->fns = xmalloc((size_t)(nfns + 1) * sizeof *pt->fns);
	pt->callees = xmalloc((size_t)(ncallees + 1) * sizeof *pt->callees);
	pt->dyn = xmalloc((size_t)(ndyn + 1) * sizeof *pt->dyn);
	for (uint64_t i = 0; i < nfns && !r.bad; i++) {
		PrintedFn *f = &pt->fns[pt->nfns++];
		f->name = get_str(&r, a);
		f->text_at = (size_t)get_n(&r, 8);
		f->text_len = (size_t)get_n(&r, 8);
		f->callees_at = (size_t)get_n(&r, 8);
		f->ncallees = (int)get_n(&r, 4);
		if (f->text_at > tlen || f->text_len > tlen - f->text_at || f->callees_at > ncallees ||
		    (uint64_t)f->ncallees > ncallees - f->callees_at)
			r.bad = true;
	}
	for (uint64_t i = 0; i < ncallees && !r.bad; i++)
		pt->callees[pt->ncallees++] = get_str(&r, a);
	for (uint64_t i = 0; i < ndyn && !r.bad; i++) {
		PrintedDyn *y = &pt->dyn[pt->ndyn++];
		y->id = (unsigned)get_n(&r, 4);
		y->name = get_str(&r, a);
	}
	if (r.bad || r.at != r.len)
		return false;
	for (int i = 0; i < pt->nfns; i++)
		pt->fns[i].text = data + pt->fns[i].text_at;
	return true;
}

/* A finished worker's records, from the end: their end offsets, their
 * count and the magic; each decoded into a new part of r. */
static bool decode_worker(ParResult *r, const Worker *w)
{
	const size_t tail = 8;
	if (w->len < tail)
		return false;
	Reader t = { w->data + w->len - tail, tail, 0, false };
	uint64_t nrec = get_n(&t, 4);
	if (get_n(&t, 4) != RECORDS_MAGIC || nrec > (w->len - tail) / 8)
		return false;
	size_t index_at = w->len - tail - (size_t)nrec * 8;
	Reader ends = { w->data + index_at, (size_t)nrec * 8, 0, false };
	uint64_t from = 0;
	for (uint64_t i = 0; i < nrec; i++) {
		uint64_t to = get_n(&ends, 8);
		if (ends.bad || to < from || to > index_at)
			return false;
		if (r->nparts == r->cparts) {
			r->cparts = r->cparts ? r->cparts * 2 : 16;
			r->parts = xrealloc(r->parts, (size_t)r->cparts * sizeof *r->parts);
		}
		Part *pt = &r->parts[r->nparts++];
		*pt = (Part){ 0 };
		if (!decode(pt, w->data + from, (size_t)(to - from), &r->names))
			return false;
		from = to;
	}
	return from == index_at;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* fns[0..n) sorted by name, made of nruns runs sorted by name (run i ends
 * at end[i]): merged pairwise, so a few comparisons a function instead of
 * a sort's. */
static void merge_runs(PrintedFn *fns, int n, int *end, int nruns)
{
	PrintedFn *tmp = xmalloc((size_t)(n + 1) * sizeof *tmp);
	PrintedFn *a = fns, *b = tmp;
	while (nruns > 1) {
		int k = 0, from = 0;
		for (int i = 0; i < nruns; i += 2) {
			int mid = end[i], to = i + 1 < nruns ? end[i + 1] : mid;
			int x = from, y = mid, o = from;
			while (x < mid && y < to)
				b[o++] = strcmp(a[y].name, a[x].name) < 0 ? a[y++] : a[x++];
			while (x < mid)
				b[o++] = a[x++];
			while (y < to)
				b[o++] = a[y++];
			end[k++] = to;
			from = to;
		}
		nruns = k;
		PrintedFn *t = a;
		a = b;
		b = t;
	}
	if (a != fns)
		memcpy(fns, a, (size_t)n * sizeof *fns);
	free(tmp);
}

/* What print_join needs of the parts, in r; false when they do not make
 * the serial result (a name twice, a symbol of one name that may be two). */
static bool join(ParResult *r)
{
	Part *parts = r->parts;
	int nparts = r->nparts;
	int nfns = 0, ncallees = 0, ndyn = 0;
	for (int i = 0; i < nparts; i++) {
		nfns += parts[i].nfns;
		ncallees += parts[i].ncallees;
		ndyn += parts[i].ndyn;
	}
	PrintedFn *fns = xmalloc((size_t)(nfns + 1) * sizeof *fns);
	const char **callees = xmalloc((size_t)(ncallees + 1) * sizeof *callees);
	const char **dyn = xmalloc((size_t)(ndyn + 1) * sizeof *dyn);
	int *run_end = xmalloc((size_t)(nparts + 1) * sizeof *run_end);
	PtrMap seen = { 0 }; /* symbol name -> its id + 1, or LOCAL */
	const uintptr_t LOCAL = UINTPTR_MAX;
	bool ok = true;
	int nf = 0, nc = 0, nd = 0;
	for (int i = 0; i < nparts && ok; i++) {
		Part *pt = &parts[i];
		ok = pt->class_name == parts[0].class_name;
		for (int j = 0; j < pt->nfns; j++) {
			fns[nf] = pt->fns[j];
			fns[nf++].callees_at += (size_t)nc;
			/* each part's in name order (print_part's), as decode trusts */
			if (j && strcmp(pt->fns[j - 1].name, pt->fns[j].name) >= 0)
				ok = false;
		}
		run_end[i] = nf;
		memcpy(callees + nc, pt->callees, (size_t)pt->ncallees * sizeof *callees);
		nc += pt->ncallees;
		for (int j = 0; j < pt->ndyn && ok; j++) {
			const PrintedDyn *y = &pt->dyn[j];
			uintptr_t had = (uintptr_t)pmap_get(&seen, y->name);
			uintptr_t key = y->id == PAR_LOCAL_DYN ? LOCAL : (uintptr_t)y->id + 1;
			if (had && (had != key || key == LOCAL)) {
				ok = false;
				break;
			}
			if (!had) {
				pmap_put(&seen, y->name, (void *)key);
				dyn[nd++] = y->name;
			}
		}
	}
	if (ok) {
		merge_runs(fns, nf, run_end, nparts);
		for (int i = 1; i < nf && ok; i++)
			ok = fns[i - 1].name != fns[i].name;
	}
	free(run_end);
	if (ok)
		qsort(dyn, (size_t)nd, sizeof *dyn, cmp_str);
	pmap_release(&seen);
	r->fns = fns;
	r->nfns = nf;
	r->callees = callees;
	r->dyn = dyn;
	r->ndyn = nd;
	return ok;
}

static int cpus_to_run_on(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* PTOOPT_DEBUG_JOBS set: why a run is serial, or how many parts it has,
 * on stderr (the man page's ENVIRONMENT) */
static void debug_jobs(const char *what, const char *detail)
{
	const char *e = getenv("PTOOPT_DEBUG_JOBS");
	if (e && *e)
		fprintf(stderr, "ptoopt: jobs: %s%s\n", what, detail ? detail : "");
}

static ParResult *serial(const char *why, const char *detail)
{
	debug_jobs(why, detail);
	return NULL;
}

/* Newlines in [p, e): sixteen bytes at a time where SSE2 is (every
 * x86-64), else eight. */
static size_t count_lines(const char *p, const char *e)
{
	size_t n = 0;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (e - p >= 16) {
		/* up to 255 blocks summed per byte lane before they could overflow */
		__m128i acc = zero;
		for (int k = 0; k < 255 && e - p >= 16; k++, p += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), nl));
		__m128i sums = _mm_sad_epu8(acc, zero);
		n += (size_t)_mm_cvtsi128_si32(sums) + (size_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
	}
#else
	const uint64_t ones = 0x0101010101010101u, low7 = 0x7f7f7f7f7f7f7f7fu, nl = ones * '\n';
	for (; e - p >= 8; p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		w ^= nl; /* a zero byte where a newline was */
		uint64_t z = ~(((w & low7) + low7) | w | low7);
		n += (size_t)(((z >> 7) * ones) >> 56); /* the 0x80s counted */
	}
#endif
	for (; p < e; p++)
		n += *p == '\n';
	return n;
}

/* Workers started before the scan (a fork takes a millisecond or two to
 * run on this kind of machine: it happens while the parent scans), waiting
 * for the plan. */
typedef struct Started {
	Shared *sh;
	int go[2], done[2];
	Worker w[PAR_MAX_JOBS];
	int n;
} Started;

static bool start_workers(Started *st, const char *src, size_t len, const Pipeline *pl, int jobs)
{
	/* a small input (-jN) touches too little of the heap to gain from huge
	 * pages: a fresh one costs more than the few small pages it replaces */
	bool large = len >= PAR_AUTO_MIN_BYTES;
	*st = (Started){ .go = { -1, -1 }, .done = { -1, -1 } };
	st->sh = mmap(NULL, sizeof *st->sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st->sh == MAP_FAILED) {
		st->sh = NULL;
		return false;
	}
	if (pipe(st->go) != 0 || pipe(st->done) != 0)
		return false;
	fflush(NULL);
	for (int i = 0; i < jobs; i++) {
		/* A memfd, not a pipe: a worker writes its result without waiting
		 * for the parent to read it, so all finish at their own pace and
		 * the parent reads the bytes in one go. */
		int fd = memfd_create("ptoopt-part", MFD_CLOEXEC);
		if (fd < 0)
			break;
		pid_t pid = fork();
		if (pid < 0) {
			close(fd);
			break;
		}
		if (pid == 0) {
			close(st->go[1]);
			close(st->done[0]);
			for (int j = 0; j < st->n; j++)
				close(st->w[j].fd);
			worker(src, st->sh, st->go[0], pl, fd, st->done[1], (unsigned char)i, large);
		}
		st->w[st->n++] = (Worker){ .pid = pid, .fd = fd };
	}
	close(st->go[0]);
	close(st->done[1]);
	st->go[0] = st->done[1] = -1;
	/* the heap from here on in pages the workers do not share */
	if (large)
		mem_huge_heap();
	return st->n > 0;
}

/* No plan after all: the workers leave (their go pipe ends) and are reaped. */
static void stop_workers(Started *st)
{
	for (int k = 0; k < 2; k++)
		if (st->go[k] >= 0)
			close(st->go[k]);
	for (int i = 0; i < st->n; i++) {
		while (waitpid(st->w[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(st->w[i].fd);
	}
	for (int k = 0; k < 2; k++)
		if (st->done[k] >= 0)
			close(st->done[k]);
	if (st->sh)
		munmap(st->sh, sizeof *st->sh);
}

static ParResult *collect(Started *st, int nplan);

ParResult *par_run(const char *src, size_t len, const Pipeline *pl, int jobs)
{
	if (jobs == 1 || !pl->n)
		return NULL;
	for (int i = 0; i < pl->n; i++)
		if (!pl->steps[i].pass->function_local)
			return serial("serial: a pass does not change one function at a time: ", pl->steps[i].pass->name);
	if (jobs <= 0) {
		if (len < PAR_AUTO_MIN_BYTES)
			return serial("serial: the input is too small to gain from parts", NULL);
		jobs = cpus_to_run_on();
		if ((size_t)jobs > len / PAR_MIN_PART_BYTES)
			jobs = (int)(len / PAR_MIN_PART_BYTES);
		if (jobs < 2)
			return serial("serial: one processor to run on", NULL);
	}
	/* the one search of the source, once nothing cheaper said no */
	for (int i = 0; i < pl->n; i++) {
		const char *t = pl->steps[i].pass->local_unless;
		if (t && memmem(src, len, t, strlen(t)))
			return serial("serial: the source holds the word that keeps this pass whole: ", t);
	}
	if (jobs > PAR_MAX_JOBS)
		jobs = PAR_MAX_JOBS;
	Started st;
	if (!start_workers(&st, src, len, pl, jobs)) {
		stop_workers(&st);
		return serial("serial: no worker could be started", NULL);
	}
	const char *why = NULL;
	Scan s = { 0 };
	int *cut = NULL;
	int nplan = 0;
	if (!scan_program(src, len, &s)) {
		why = "serial: not plainly a module header and one class of functions";
	} else if (s.n < 2) {
		why = "serial: one function only";
	} else {
		/* more parts than workers, taken as they come: a worker on a
		 * faster processor (or one given less to do) takes more of them */
		int want = jobs * PAR_PARTS_PER_JOB;
		if ((size_t)want > len / PAR_MIN_SHARE_BYTES)
			want = (int)(len / PAR_MIN_SHARE_BYTES);
		if (want < jobs)
			want = jobs;
		if (want > s.n)
			want = s.n;
		cut = xmalloc((size_t)(want + 1) * sizeof *cut);
		int ncut = choose_cuts(&s, want, cut);
		if (!ncut)
			why = "serial: every cut between functions splits a caller from its callee";
		cut[ncut] = s.n;
		nplan = ncut + 1;
	}
	if (!why) {
		PartPlan *plan = st.sh->plan;
		size_t lines = 0;
		for (int k = 0; k < nplan && !why; k++) {
			plan[k].lo = k ? cut[k - 1] : 0;
			plan[k].hi = cut[k];
			plan[k].from = s.at[plan[k].lo];
			plan[k].to = s.at[plan[k].hi];
			if (k)
				lines += count_lines(src + plan[k - 1].from, src + plan[k].from);
			if (lines > INT_MAX)
				why = "serial: too many lines";
			plan[k].lines_before = (int)lines;
			plan[k].names_hash = NAMES_HASH_SEED;
			for (int i = plan[k].lo; i < plan[k].hi; i++)
				plan[k].names_hash = hash_name(plan[k].names_hash, s.name[i]);
		}
		st.sh->body_at = s.body_at;
	}
	free(cut);
	scan_release(&s);
	if (why) {
		stop_workers(&st);
		return serial(why, NULL);
	}
	st.sh->nplan = nplan;
	ParResult *r = collect(&st, nplan);
	if (!r)
		return serial("serial: the parts did not give the serial result", NULL);
	char n[48];
	snprintf(n, sizeof n, "%d in %d workers", r->nparts, r->nworkers);
	debug_jobs("parts: ", n);
	return r;
}

/* The plan to the started workers (one byte each on go), then their
 * records as each finishes. */
static ParResult *collect(Started *st, int nplan)
{
	ParResult *r = xmalloc(sizeof *r);
	memset(r, 0, sizeof *r);
	arena_init(&r->names);
	memcpy(r->workers, st->w, (size_t)st->n * sizeof *st->w);
	r->nworkers = st->n;
	Worker *workers = r->workers;
	int started = st->n;
	char bytes[PAR_MAX_JOBS];
	memset(bytes, 1, sizeof bytes);
	bool ok = write(st->go[1], bytes, (size_t)started) == (ssize_t)started;
	close(st->go[1]);
	/* collect the workers as they finish; they are reaped later
	 * (par_result_free), so their teardown overlaps the printing */
	int got = 0;
	while (ok && got < started) {
		unsigned char idx[PAR_MAX_JOBS + 1];
		ssize_t n = read(st->done[0], idx, sizeof idx);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = false;
			break;
		}
		for (ssize_t k = 0; k < n && ok; k++) {
			Worker *w = idx[k] < started ? &workers[idx[k]] : NULL;
			ok = w && !w->data && read_all(w->fd, &w->data, &w->len) && decode_worker(r, w);
			got++;
		}
	}
	close(st->done[0]);
	for (int i = 0; i < started; i++)
		close(workers[i].fd);
	if (!ok)
		for (int i = 0; i < started; i++)
			kill(workers[i].pid, SIGKILL);
	munmap(st->sh, sizeof *st->sh);
	ok = ok && r->nparts == nplan && join(r);
	if (!ok) {
		par_result_free(r);
		return NULL;
	}
	return r;
}
