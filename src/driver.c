/* driver.c - one ptoopt run over its input files (see driver.h).
 *
 * Each input is independent: read, parse, check the pass contracts, run the
 * pipeline, then one of: print the program (stdout, -o FILE, -o DIR/NAME,
 * or back into the file with --in-place), print a unified diff of input
 * against result (--diff), or compare with a golden file (--expect, text or
 * structural; --update rewrites it).  Every file is written through
 * write_atomic (write.c): never partial, links followed, owner and mode
 * kept.
 */
#define _POSIX_C_SOURCE 200809L
#include "ptoopt/driver.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ptoopt/arena.h"
#include "ptoopt/diag_expect.h"
#include "ptoopt/diff.h"
#include "ptoopt/file_read.h"
#include "ptoopt/golden.h"
#include "ptoopt/lossless.h"
#include "ptoopt/parallel.h"
#include "ptoopt/parse.h"
#include "ptoopt/print.h"
#include "ptoopt/write.h"

/* Inputs beyond this are rejected up front rather than risking the machine. */
#define MAX_INPUT_BYTES ((size_t)2000 * 1000 * 1000)

const char *driver_keep(DriverConfig *c, const char *s)
{
	size_t n = strlen(s);
	char *k = xmalloc(n + 1);
	memcpy(k, s, n + 1);
	c->owned = xrealloc(c->owned, (size_t)(c->nowned + 1) * sizeof *c->owned);
	c->owned[c->nowned++] = k;
	return k;
}

void driver_config_release(DriverConfig *c)
{
	pipe_release(&c->pipeline);
	pipe_options_release(&c->pass_options);
	for (int i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->ops_files);
	free(c->inputs);
	*c = (DriverConfig){ 0 };
}

/* ------------------------------------------------------------ reading */

/* The whole of path ("-": standard input); NULL after a message. */
static char *read_input(const char *path, size_t *len)
{
	bool from_stdin = strcmp(path, "-") == 0;
	const char *shown = from_stdin ? "<stdin>" : path;
	bool too_big;
	char *src = from_stdin ? file_read_stream(stdin, MAX_INPUT_BYTES, len, &too_big)
			       : file_read(path, MAX_INPUT_BYTES, len, &too_big);
	if (src)
		return src;
	if (too_big)
		fprintf(stderr, "ptoopt: error: '%s' is larger than the %zu-byte input limit\n", shown, MAX_INPUT_BYTES);
	else if (errno == EISDIR)
		fprintf(stderr, "ptoopt: error: '%s' is a directory\n", shown);
	else
		fprintf(stderr, "ptoopt: error: cannot read '%s': %s\n", shown, strerror(errno));
	return NULL;
}

/* ------------------------------------------------------------ writing */

/* The program printed (prog), the parts of a run in parts joined (parts),
 * or data written to f; 0 or an errno. */
static int emit(FILE *f, Program *prog, const ParResult *parts, const char *data, size_t len)
{
	if (parts) {
		StrBuf out = { 0 };
		out.sink = f;
		par_print(parts, &out);
		int err = sb_flush(&out);
		sb_release(&out);
		return err;
	}
	if (prog) {
		StrBuf out = { 0 };
		out.sink = f;
		print_program(&out, prog);
		int err = sb_flush(&out);
		sb_release(&out);
		return err;
	}
	if (len && fwrite(data, 1, len, f) != len)
		return errno ? errno : EIO;
	return 0;
}

static int write_stdout(Program *prog, const ParResult *parts, const char *data, size_t len)
{
	int err = emit(stdout, prog, parts, data, len);
	if (!err && fflush(stdout) != 0)
		err = errno;
	if (err) {
		fprintf(stderr, "ptoopt: error: cannot write to standard output: %s\n", strerror(err));
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ observers */

typedef struct RunCtx {
	DriverConfig *c;
	const char *shown;   /* the input's name in messages */
	const char *dumps;   /* the dump directory of this input */
	StrBuf last;         /* --print-changed: the previous program text */
	double *seconds;     /* --time-passes: per step */
	int failed;
} RunCtx;

/* Is name one of the comma-separated names of list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *q = list; q && *q;) {
		const char *e = strchr(q, ',');
		size_t l = e ? (size_t)(e - q) : strlen(q);
		if (l == n && !strncmp(q, name, n))
			return true;
		q = e ? e + 1 : NULL;
	}
	return false;
}

/* The program as a dump shows it: only the functions --print-ir-function
 * names, when it names any (a view of the program; the IR is shared). */
static void program_text_of(StrBuf *b, Program *p, const char *only)
{
	b->len = 0;
	if (!only) {
		print_program(b, p);
		return;
	}
	Program view = *p;
	view.fn_index = (PtrMap){ 0 };
	view.indexed = NULL;
	view.nindexed = 0;
	view.funcs = xmalloc((size_t)(p->nfuncs + 1) * sizeof *view.funcs);
	view.nfuncs = 0;
	for (int i = 0; i < p->nfuncs; i++)
		if (in_list(only, p->funcs[i]->name))
			view.funcs[view.nfuncs++] = p->funcs[i];
	print_program(b, &view);
	free(view.funcs);
	pmap_release(&view.fn_index);
}

static void program_text(StrBuf *b, Program *p)
{
	program_text_of(b, p, NULL);
}

/* A dump on stderr: "# *** IR Dump WHEN PASS (FILE) ***" and the program. */
static void dump_ir(const RunCtx *r, const char *when, const char *pass, Program *p)
{
	StrBuf b = { 0 };
	program_text_of(&b, p, r->c->print_function);
	fprintf(stderr, "# *** IR Dump %s %s (%s) ***\n", when, pass, r->shown);
	fwrite(b.data, 1, b.len, stderr);
	sb_release(&b);
}

static int before_pass(void *ctx, int i, const PipeStep *s, Program *p)
{
	(void)i;
	RunCtx *r = ctx;
	DriverConfig *c = r->c;
	if (c->print_before_all || in_list(c->print_before, s->pass->name))
		dump_ir(r, "Before", s->pass->name, p);
	return 0;
}

/* mkdir -p */
static int make_dirs(const char *dir)
{
	size_t n = strlen(dir);
	char *d = xmalloc(n + 1);
	memcpy(d, dir, n + 1);
	for (char *p = d + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(d, 0777) != 0 && errno != EEXIST)
			break;
		*p = '/';
	}
	int rc = 0;
	struct stat st;
	if (mkdir(d, 0777) != 0 && !(errno == EEXIST && stat(d, &st) == 0 && S_ISDIR(st.st_mode))) {
		fprintf(stderr, "ptoopt: error: cannot create directory '%s': %s\n", d, strerror(errno));
		rc = 1;
	}
	free(d);
	return rc;
}

static int after_pass(void *ctx, int i, const PipeStep *s, Program *p, double seconds)
{
	RunCtx *r = ctx;
	DriverConfig *c = r->c;
	if (r->seconds)
		r->seconds[i] = seconds;
	if (c->print_after_all || in_list(c->print_after, s->pass->name))
		dump_ir(r, "After", s->pass->name, p);
	if (c->print_changed) {
		StrBuf b = { 0 };
		program_text_of(&b, p, c->print_function);
		if (b.len == r->last.len && memcmp(b.data, r->last.data, b.len) == 0) {
			fprintf(stderr, "# *** IR Dump After %s (%s) omitted because no change ***\n", s->pass->name, r->shown);
		} else {
			fprintf(stderr, "# *** IR Dump After %s (%s) ***\n", s->pass->name, r->shown);
			fwrite(b.data, 1, b.len, stderr);
		}
		sb_release(&r->last);
		r->last = b;
	}
	if (r->dumps) {
		if (i == 0 && make_dirs(r->dumps) != 0)
			return 1;
		StrBuf name = { 0 };
		sb_printf(&name, "%s/%02d_after_%s.pto", r->dumps, i + 1, s->pass->name);
		sb_putc(&name, 0);
		StrBuf b = { 0 };
		program_text(&b, p);
		int rc = write_file_atomic(name.data, b.data, b.len);
		sb_release(&b);
		sb_release(&name);
		if (rc)
			return 1;
	}
	return 0;
}

static void time_report(const RunCtx *r, const Pipeline *pl)
{
	double total = 0;
	for (int i = 0; i < pl->n; i++)
		total += r->seconds[i];
	fprintf(stderr, "# pass wall times for %s\n#  seconds      %%  pass\n", r->shown);
	for (int i = 0; i < pl->n; i++)
		fprintf(stderr, "%10.6f %6.1f  %s\n", r->seconds[i], total > 0 ? 100.0 * r->seconds[i] / total : 0.0,
			pl->steps[i].pass->name);
	fprintf(stderr, "%10.6f %6.1f  total\n", total, 100.0);
}

/* ------------------------------------------------------------ one input */

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static bool is_dir(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* What one input turned into: a program (printed as it is written out) or,
 * with --split-input-file, the joined text of its parts. */
typedef struct Result {
	Program *prog;
	const char *text;
	size_t len;
	ParResult *parts; /* the pipeline ran in parts (parallel.c) */
} Result;

static int emit_result(FILE *f, void *ctx)
{
	const Result *res = ctx;
	return emit(f, res->prog, res->parts, res->text, res->len);
}

/* The result as one text (for what needs it whole: --diff, the lossless check). */
static void result_text(StrBuf *b, const Result *res)
{
	if (res->parts)
		par_print(res->parts, b);
	else if (res->prog)
		print_program(b, res->prog);
	else
		sb_putn(b, res->text, res->len);
}

static int write_result(const char *dest, const Result *res)
{
	if (!dest)
		return write_stdout(res->prog, res->parts, res->text, res->len);
	return write_atomic(dest, emit_result, (void *)res);
}

/* May the pipeline run in parts (parallel.c)?  Not where anything looks
 * at the program between passes or needs it after them. */
static bool may_run_in_parts(const DriverConfig *c)
{
	return c->jobs != 1 && !c->verify_each && !c->dump_dir && !c->time_passes && !c->print_changed &&
	       !c->print_after_all && !c->print_before_all && !c->print_before && !c->print_after &&
	       !c->verify_diagnostics && !c->split_input && (!c->expect || c->expect_mode == EXPECT_TEXT);
}

/* Parse src and run the pipeline on it; *progp is the program (also after
 * a pass failed, for the caller to release), NULL when it did not parse.
 * With parts given, the pipeline may run in parts (parallel.c): *parts
 * set, *progp NULL. */
static int run_text(DriverConfig *c, const char *path, const char *shown, const char *src, size_t len, Arena *arena,
		    Diag *d, Program **progp, ParResult **parts)
{
	bool from_stdin = strcmp(path, "-") == 0;
	int rc = 0;
	RunCtx r = { .c = c, .shown = shown };
	StrBuf dumps = { 0 };
	if (len >= PAR_AUTO_MIN_BYTES) /* a large input: the heap in huge pages */
		mem_huge_heap();
	if (parts && c->pipeline.n && may_run_in_parts(c) && (*parts = par_run(src, len, &c->pipeline, c->jobs)))
		return 0;
	Program *prog = *progp = parse_program_jump(arena, d, src, len, 0, d->first_line - 1);
	if (!prog)
		rc = 1;
	if (!rc && c->pipeline.n && !pipe_check_contracts(prog, &c->pipeline, d))
		rc = 1;
	if (!rc && c->pipeline.n) {
		if (c->dump_dir) {
			/* several inputs: one subdirectory each */
			if (c->ninputs > 1)
				sb_printf(&dumps, "%s/%s", c->dump_dir, from_stdin ? "stdin" : base_name(path));
			else
				sb_puts(&dumps, c->dump_dir);
			sb_putc(&dumps, 0);
			r.dumps = dumps.data;
		}
		if (c->time_passes)
			r.seconds = xmalloc((size_t)c->pipeline.n * sizeof *r.seconds);
		if (c->print_changed) {
			program_text_of(&r.last, prog, c->print_function);
			fprintf(stderr, "# *** IR Dump At Start (%s) ***\n", shown);
			fwrite(r.last.data, 1, r.last.len, stderr);
		}
		PipeHooks hooks = { c->verify_each, after_pass, &r, before_pass };
		rc = pipe_run(prog, &c->pipeline, &hooks, d);
		if (!rc && c->time_passes)
			time_report(&r, &c->pipeline);
	}
	free(r.seconds);
	sb_release(&r.last);
	sb_release(&dumps);
	return rc;
}

/* One program of an input (all of it, or one part of a split input) with
 * its diagnostics checked against its expectations under
 * --verify-diagnostics; the printed result is appended to out when given. */
static int run_part(DriverConfig *c, const char *path, const char *shown, const char *src, size_t len, int first_line,
		    StrBuf *out, Result *whole, Arena *arena)
{
	Diag d;
	diag_init(&d, shown, src, len);
	d.first_line = first_line;
	DiagExpect *x = c->verify_diagnostics ? dexp_begin(&d, src, len) : NULL;
	Program *prog = NULL;
	ParResult *parts = NULL;
	int rc = run_text(c, path, shown, src, len, arena, &d, &prog, whole ? &parts : NULL);
	if (x && dexp_end(x, &d) != 0)
		rc = 1;
	else if (x && rc)
		rc = 2; /* the errors were the expected ones: no output, not a failure */
	if (!rc && out)
		print_program(out, prog);
	if (!rc && whole && parts) {
		whole->parts = parts; /* the caller prints and releases it */
		return 0;
	}
	par_result_free(parts);
	if (!rc && whole) {
		whole->prog = prog; /* the caller prints and releases it */
		return 0;
	}
	if (prog)
		ir_program_release(prog);
	return rc;
}

/* --split-input-file: the programs between lines "# -----" each on their
 * own; the results joined by the same line.  Each part is numbered from
 * its first line's number in the file (Diag.first_line), so that messages
 * give the file's line numbers; the work is linear in the input's size. */
static int run_split(DriverConfig *c, const char *path, const char *shown, const char *src, size_t len, StrBuf *out)
{
	int rc = 0, part = 0;
	const char *p = src, *end = src + len;
	size_t line0 = 0; /* lines before the current part */
	while (p <= end) {
		if (line0 >= INT_MAX) { /* line numbers are ints */
			fprintf(stderr, "ptoopt: %s: error: more than %d lines\n", shown, INT_MAX);
			return 1;
		}
		/* the part: up to the next separator line */
		const char *q = p, *next = NULL;
		size_t lines = 0;
		while (q < end) {
			const char *e = memchr(q, '\n', (size_t)(end - q));
			const char *le = e ? e : end;
			size_t n = (size_t)(le - q);
			if (n >= 7 && !memcmp(q, "# -----", 7) && strspn(q + 7, "-") >= n - 7) {
				next = e ? e + 1 : end;
				break;
			}
			lines++;
			q = e ? e + 1 : end;
		}
		size_t plen = (size_t)(q - p);
		char *buf = xmalloc(plen + 1);
		memcpy(buf, p, plen);
		buf[plen] = 0;
		if (part++)
			sb_puts(out, "# -----\n");
		Arena arena;
		arena_init(&arena);
		int prc = run_part(c, path, shown, buf, plen, (int)line0 + 1, out, NULL, &arena);
		arena_free(&arena);
		free(buf);
		if (prc == 1)
			rc = 1;
		if (!next)
			break;
		line0 += lines + 1;
		p = next;
	}
	return rc;
}

static int process(DriverConfig *c, const char *path)
{
	bool from_stdin = strcmp(path, "-") == 0;
	const char *shown = from_stdin ? "<stdin>" : path;
	/* where the program goes */
	const char *dest = NULL;
	StrBuf dest_buf = { 0 };
	if (c->in_place) {
		dest = path;
	} else if (c->output && (c->ninputs > 1 || is_dir(c->output))) {
		if (from_stdin) {
			fprintf(stderr, "ptoopt: error: standard input has no file name to write under '%s'\n", c->output);
			return 1;
		}
		sb_printf(&dest_buf, "%s/%s", c->output, base_name(path));
		sb_putc(&dest_buf, 0);
		dest = dest_buf.data;
	} else {
		dest = c->output;
	}

	size_t len = 0;
	char *src = read_input(path, &len);
	if (!src) {
		sb_release(&dest_buf);
		return 1;
	}
	Arena arena;
	arena_init(&arena);
	int rc = 0;
	Result res = { 0 };
	StrBuf joined = { 0 };
	if (c->split_input) {
		rc = run_split(c, path, shown, src, len, &joined);
		res.text = joined.data ? joined.data : "";
		res.len = joined.len;
	} else {
		rc = run_part(c, path, shown, src, len, 1, NULL, &res, &arena);
		if (rc == 2) /* only expected errors: nothing to print */
			rc = 0, res.text = "", res.len = 0;
	}
	/* rewriting the input itself (-i, -o onto it) or --check-lossless:
	 * printing must not drop text of the input silently */
	struct stat in_st, out_st;
	bool onto_input = c->in_place || (dest && !from_stdin && stat(path, &in_st) == 0 && stat(dest, &out_st) == 0 &&
					  in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino);
	if (!rc && (c->check_lossless || (onto_input && !c->allow_lossy && !c->expect))) {
		StrBuf text = { 0 };
		result_text(&text, &res);
		Diag ld;
		diag_init(&ld, shown, src, len);
		int lost = lossless_check(&ld, src, len, text.data ? text.data : "", text.len, true);
		sb_release(&text);
		if (lost) {
			fprintf(stderr, "ptoopt: %s: %d piece%s of text would be lost; %s\n", shown, lost, lost == 1 ? "" : "s",
				c->check_lossless ? "not lossless" : "the file is left as it was (--allow-lossy writes anyway)");
			rc = 1;
		}
		if (c->check_lossless)
			goto done; /* nothing is written */
	}
	/* a split input whose part failed still shows the other parts' results
	 * on standard output (a file is replaced only by a complete result) */
	bool partial = rc && c->split_input && !dest && !c->expect && c->output_mode != OUT_DIFF;
	if (partial && write_result(NULL, &res) != 0)
		rc = 1;
	if (!rc) {
		if (c->expect) {
			/* --expect=DIR: the golden file of each input is DIR/NAME */
			StrBuf gb = { 0 };
			const char *golden = c->expect;
			if (is_dir(c->expect)) {
				sb_printf(&gb, "%s/%s", c->expect, from_stdin ? "stdin.pto" : base_name(path));
				sb_putc(&gb, 0);
				golden = gb.data;
			}
			if (res.parts) { /* the text whole, to compare */
				result_text(&joined, &res);
				res.text = joined.data;
				res.len = joined.len;
			}
			rc = res.prog ? golden_check(c, golden, res.prog, shown)
				      : golden_check_text(c, golden, res.text, res.len, shown);
			sb_release(&gb);
		} else if (c->output_mode == OUT_DIFF) {
			StrBuf result = { 0 }, diff = { 0 };
			result_text(&result, &res);
			/* to stdout the diff streams out in chunks as it is made */
			bool to_stdout = !dest || c->in_place;
			if (to_stdout)
				diff.sink = stdout;
			diff_unified(&diff, shown, src, len, shown, result.data ? result.data : "", result.len, 3, c->color);
			if (c->in_place)
				rc = write_result(path, &res);
			if (!rc && to_stdout) {
				int err = sb_flush(&diff);
				if (!err && fflush(stdout) != 0)
					err = errno;
				if (err) {
					fprintf(stderr, "ptoopt: error: cannot write to standard output: %s\n", strerror(err));
					rc = 1;
				}
			} else if (!rc) {
				rc = write_file_atomic(dest, diff.data, diff.len);
			}
			sb_release(&result);
			sb_release(&diff);
		} else {
			rc = write_result(dest, &res);
		}
	}
done:
	if (res.prog)
		ir_program_release(res.prog);
	par_result_free(res.parts);
	arena_free(&arena);
	sb_release(&joined);
	file_free(src);
	sb_release(&dest_buf);
	return rc;
}

int driver_run(DriverConfig *c)
{
	int rc = 0;
	for (int i = 0; i < c->ninputs; i++)
		if (process(c, c->inputs[i]) != 0)
			rc = 1;
	return rc;
}
