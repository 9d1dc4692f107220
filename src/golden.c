/* golden.c - golden files: compare a result with an expected program, or
 * rewrite the expected file (--update).
 *
 * Text mode compares bytes.  Structural mode compares up to variable names
 * (alpha-equivalence, as the reference's structural equality): the expected
 * file is parsed, and both programs are printed with every function's
 * variables renamed v0, v1, ... in order of first appearance and without
 * comments (print_program_canonical).  Function names, ops, constants,
 * types, attributes and the order of statements still have to match, and
 * since renaming follows appearance, swapping which variable is used where
 * is still a difference.
 */
#define _POSIX_C_SOURCE 200809L
#include "ptoopt/golden.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/arena.h"
#include "ptoopt/diff.h"
#include "ptoopt/file_read.h"
#include "ptoopt/parse.h"
#include "ptoopt/print.h"
#include "ptoopt/write.h"

static int report(const DriverConfig *c, const char *golden, const char *shown, const char *la, const char *a, size_t alen,
		  const char *lb, const char *b, size_t blen)
{
	StrBuf diff = { 0 };
	diff_unified(&diff, la, a, alen, lb, b, blen, 3, c->color);
	fwrite(diff.data, 1, diff.len, stdout);
	fflush(stdout);
	sb_release(&diff);
	fprintf(stderr, "ptoopt: %s: the result differs from '%s'%s\n", shown, golden,
		c->expect_mode == EXPECT_STRUCTURAL ? " (structurally)" : "");
	return 1;
}

/* prog, or with prog NULL the text (only text mode compares a text) */
static int check(const DriverConfig *c, const char *golden, Program *prog, const char *text, size_t tlen,
		 const char *shown)
{
	StrBuf result = { 0 };
	if (prog)
		print_program(&result, prog);
	else
		sb_putn(&result, text, tlen);
	size_t elen = 0;
	bool too_big;
	char *expected = file_read(golden, SIZE_MAX / 2, &elen, &too_big);
	int rc = 0;
	if (!expected && !(c->update && errno == ENOENT)) {
		int e = errno;
		fprintf(stderr, "ptoopt: error: cannot read the golden file '%s': %s%s\n", golden, strerror(e),
			e == ENOENT ? " (run with --update to create it)" : "");
		sb_release(&result);
		return 1;
	}
	if (!expected) {
		rc = write_file_atomic(golden, result.data, result.len); /* a new golden file */
	} else if (c->expect_mode == EXPECT_TEXT || !prog) {
		bool same = elen == result.len && memcmp(expected, result.data, elen) == 0;
		if (same)
			rc = 0;
		else if (c->update)
			rc = write_file_atomic(golden, result.data, result.len);
		else
			rc = report(c, golden, shown, golden, expected, elen, shown, result.data, result.len);
	} else {
		Diag d;
		diag_init(&d, golden, expected, elen);
		/* a golden file about to be rewritten may be broken: no message */
		char *quiet_buf = NULL;
		size_t quiet_len = 0;
		if (c->update)
			d.out = open_memstream(&quiet_buf, &quiet_len);
		if (!d.out)
			d.out = stderr;
		Arena a;
		arena_init(&a);
		Program *want = parse_program(&a, &d, expected, elen);
		if (!want && !c->update) {
			rc = 1;
		} else {
			StrBuf cw = { 0 }, cr = { 0 };
			if (want)
				print_program_canonical(&cw, want);
			print_program_canonical(&cr, prog);
			bool same = want && cw.len == cr.len && memcmp(cw.data, cr.data, cw.len) == 0;
			if (same)
				rc = 0; /* a renamed golden file stays as it is */
			else if (c->update)
				rc = write_file_atomic(golden, result.data, result.len);
			else {
				StrBuf la = { 0 }, lb = { 0 };
				sb_printf(&la, "%s (variables renamed)", golden);
				sb_printf(&lb, "%s (variables renamed)", shown);
				sb_putc(&la, 0);
				sb_putc(&lb, 0);
				rc = report(c, golden, shown, la.data, cw.data, cw.len, lb.data, cr.data, cr.len);
				sb_release(&la);
				sb_release(&lb);
			}
			sb_release(&cw);
			sb_release(&cr);
		}
		if (want)
			ir_program_release(want);
		arena_free(&a);
		if (d.out != stderr)
			fclose(d.out);
		free(quiet_buf);
	}
	file_free(expected);
	sb_release(&result);
	return rc;
}

int golden_check(const DriverConfig *c, const char *golden, Program *prog, const char *shown)
{
	return check(c, golden, prog, NULL, 0, shown);
}

int golden_check_text(const DriverConfig *c, const char *golden, const char *text, size_t len, const char *shown)
{
	return check(c, golden, NULL, text, len, shown);
}
