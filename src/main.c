/* main.c - the ptoopt command line: read, parse, run passes, print.
 *
 * Exit codes: 0 success, 1 input or pass error, 2 usage error.  Output to a
 * file (-o) is written to a temporary file in the same directory and
 * renamed into place, so a failure never leaves a partial file.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptoopt/arena.h"
#include "ptoopt/diag.h"
#include "ptoopt/op_registry.h"
#include "ptoopt/parse.h"
#include "ptoopt/pipeline.h"
#include "ptoopt/print.h"
#include "ptoopt/strbuf.h"

#ifndef PTOOPT_VERSION
#define PTOOPT_VERSION "0.1.0"
#endif

/* Inputs beyond this are rejected up front rather than risking the machine. */
#define MAX_INPUT_BYTES ((size_t)2000 * 1000 * 1000)

static void usage(FILE *f)
{
	fputs("usage: ptoopt [OPTIONS] [FILE|-]\n"
	      "\n"
	      "Read a PyPTO program (.pto text), run passes on it and print the result.\n"
	      "Reads standard input when FILE is '-' or absent.\n"
	      "\n"
	      "options:\n"
	      "  --passes=LIST     comma-separated passes to run, in order\n"
	      "  -o, --output=FILE write the result to FILE (atomically) instead of stdout\n"
	      "  --ops=FILE.yaml   add or override op registry entries (repeatable; format:\n"
	      "                    see data/ops.yaml)\n"
	      "  --pass-option PASS.KEY=VALUE\n"
	      "                    set an option of a pass (repeatable), e.g.\n"
	      "                    infer-directions.mode=raise-only\n"
	      "  --verify-each     run the IR verifiers after every pass\n"
	      "  --list-passes     list the known passes and exit\n"
	      "  -h, --help        show this help and exit\n"
	      "  --version         show the version and exit\n"
	      "\n"
	      "exit status: 0 success, 1 input or pass error, 2 usage error\n",
	      f);
}

/* Read all of f; NULL with errno set on failure. */
static char *read_all(FILE *f, size_t *len, int *too_big)
{
	size_t cap = 1 << 16, n = 0;
	struct stat st;
	/* a regular file is read into a buffer of its size (plus one byte to see EOF) */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if ((size_t)st.st_size > MAX_INPUT_BYTES) {
			*too_big = 1;
			return NULL;
		}
		cap = (size_t)st.st_size + 1;
	}
	*too_big = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n == cap) {
			if (cap >= MAX_INPUT_BYTES) {
				*too_big = 1;
				free(buf);
				return NULL;
			}
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0) {
			if (ferror(f)) {
				int e = errno;
				free(buf);
				errno = e ? e : EIO;
				return NULL;
			}
			break;
		}
	}
	if (n > MAX_INPUT_BYTES) {
		*too_big = 1;
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* The temporary output file while it exists: running out of memory while
 * printing exits from inside oom(), which must not leave it behind. */
static const char *tmp_output;

static void remove_tmp_output(void)
{
	if (tmp_output)
		unlink(tmp_output);
}

/* Print the program to `path` atomically: a temporary file in the same
 * directory, renamed over path only when everything was written. */
static int print_to_file(Program *prog, const char *path)
{
	size_t pl = strlen(path);
	char *tmp = xmalloc(pl + 16);
	snprintf(tmp, pl + 16, "%s.tmpXXXXXX", path);
	set_oom_handler(remove_tmp_output);
	int fd = mkstemp(tmp);
	if (fd >= 0)
		tmp_output = tmp;
	if (fd < 0) {
		fprintf(stderr, "ptoopt: error: cannot create a temporary file next to '%s': %s\n", path, strerror(errno));
		free(tmp);
		return 1;
	}
	/* keep the usual permissions of a new file */
	mode_t um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		/* not fatal: the file keeps mkstemp's 0600 */
	}
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		fprintf(stderr, "ptoopt: error: cannot write '%s': %s\n", path, strerror(errno));
		close(fd);
		unlink(tmp);
		tmp_output = NULL;
		free(tmp);
		return 1;
	}
	StrBuf out = { 0 };
	out.sink = f;
	print_program(&out, prog);
	int err = sb_flush(&out);
	sb_release(&out);
	if (fflush(f) != 0 && !err)
		err = errno;
	if (fclose(f) != 0 && !err)
		err = errno;
	if (!err && rename(tmp, path) != 0)
		err = errno;
	if (err) {
		fprintf(stderr, "ptoopt: error: cannot write '%s': %s\n", path, strerror(err));
		unlink(tmp);
	}
	tmp_output = NULL;
	free(tmp);
	return err ? 1 : 0;
}

static int print_to_stream(Program *prog, FILE *f, const char *what)
{
	StrBuf out = { 0 };
	out.sink = f;
	print_program(&out, prog);
	int err = sb_flush(&out);
	sb_release(&out);
	if (!err && fflush(f) != 0)
		err = errno;
	if (err) {
		fprintf(stderr, "ptoopt: error: cannot write to %s: %s\n", what, strerror(err));
		return 1;
	}
	return 0;
}

static int print_to_stdout(Program *prog) { return print_to_stream(prog, stdout, "standard output"); }

int main(int argc, char **argv)
{
	enum { OPT_PASSES = 256, OPT_LIST, OPT_VERSION, OPT_VERIFY_EACH, OPT_PASS_OPTION, OPT_OPS };
	static const struct option longopts[] = {
		{ "passes", required_argument, NULL, OPT_PASSES },
		{ "output", required_argument, NULL, 'o' },
		{ "ops", required_argument, NULL, OPT_OPS },
		{ "list-passes", no_argument, NULL, OPT_LIST },
		{ "verify-each", no_argument, NULL, OPT_VERIFY_EACH },
		{ "pass-option", required_argument, NULL, OPT_PASS_OPTION },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	const char *passes = NULL, *output = NULL;
	bool verify_each = false;
	PipeOptions popts = { 0 };
	Diag pd; /* usage errors: no file position */
	diag_init(&pd, "ptoopt", NULL, 0);
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PASSES: passes = optarg; break;
		case 'o': output = optarg; break;
		case OPT_OPS:
			/* a bad registry file is an input error (located), not a usage error */
			if (!ops_load_file(ops_default(), optarg, &pd)) {
				pipe_options_release(&popts);
				return 1;
			}
			break;
		case OPT_VERIFY_EACH: verify_each = true; break;
		case OPT_PASS_OPTION:
			if (!pipe_parse_option(optarg, &popts, &pd))
				goto usage_error;
			break;
		case 'h': usage(stdout); pipe_options_release(&popts); return 0;
		case OPT_VERSION: printf("ptoopt %s\n", PTOOPT_VERSION); pipe_options_release(&popts); return 0;
		case OPT_LIST: {
			int n;
			const PassInfo *ps = pipe_passes(&n);
			for (int i = 0; i < n; i++)
				printf("%-24s %s%s\n", ps[i].name, ps[i].summary,
				       ps[i].run || ps[i].run_opts ? "" : " (not implemented yet)");
			pipe_options_release(&popts);
			return 0;
		}
		case ':':
			fprintf(stderr, "ptoopt: error: option '%s' needs an argument\n", argv[optind - 1]);
			usage(stderr);
			goto usage_error;
		default:
			fprintf(stderr, "ptoopt: error: unknown option '%s'\n", argv[optind - 1]);
			usage(stderr);
			goto usage_error;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "ptoopt: error: expected at most one input file, got %d\n", argc - optind);
		usage(stderr);
		goto usage_error;
	}
	const char *path = optind < argc ? argv[optind] : "-";
	bool from_stdin = strcmp(path, "-") == 0;
	const char *shown = from_stdin ? "<stdin>" : path;

	const PassInfo **plist = NULL;
	int npasses = 0;
	if (passes && !pipe_parse_list(passes, &plist, &npasses, &pd))
		goto usage_error;

	FILE *in = from_stdin ? stdin : fopen(path, "rb");
	if (!in) {
		fprintf(stderr, "ptoopt: error: cannot open '%s': %s\n", path, strerror(errno));
		free(plist);
		pipe_options_release(&popts);
		return 1;
	}
	struct stat st;
	if (!from_stdin && fstat(fileno(in), &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "ptoopt: error: '%s' is a directory\n", path);
		fclose(in);
		free(plist);
		pipe_options_release(&popts);
		return 1;
	}
	size_t len = 0;
	int too_big;
	char *src = read_all(in, &len, &too_big);
	if (!from_stdin)
		fclose(in);
	if (!src) {
		if (too_big)
			fprintf(stderr, "ptoopt: error: '%s' is larger than the %zu-byte input limit\n", shown, MAX_INPUT_BYTES);
		else
			fprintf(stderr, "ptoopt: error: cannot read '%s': %s\n", shown, strerror(errno));
		free(plist);
		pipe_options_release(&popts);
		return 1;
	}

	Diag d;
	diag_init(&d, shown, src, len);
	Arena arena;
	arena_init(&arena);
	int rc = 0;
	Program *prog = parse_program(&arena, &d, src, len);
	if (!prog)
		rc = 1;
	if (!rc && npasses)
		rc = pipe_run(prog, plist, npasses, &popts, &d, verify_each);
	if (!rc) {
		struct stat ost;
		if (output && stat(output, &ost) == 0 && !S_ISREG(ost.st_mode)) {
			/* a device, FIFO or similar is written to, never replaced */
			FILE *f = fopen(output, "wb");
			if (!f) {
				fprintf(stderr, "ptoopt: error: cannot open '%s': %s\n", output, strerror(errno));
				rc = 1;
			} else {
				rc = print_to_stream(prog, f, output);
				if (fclose(f) != 0 && !rc) {
					fprintf(stderr, "ptoopt: error: cannot write '%s': %s\n", output, strerror(errno));
					rc = 1;
				}
			}
		} else {
			rc = output ? print_to_file(prog, output) : print_to_stdout(prog);
		}
	}
	if (prog)
		ir_program_release(prog);
	arena_free(&arena);
	free(src);
	free(plist);
	pipe_options_release(&popts);
	return rc;

usage_error:
	pipe_options_release(&popts);
	return 2;
}
