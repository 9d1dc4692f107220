/* main.c - the ptoopt command line: options (getopt_long) into a
 * DriverConfig, usage errors, then driver_run (driver.c) over the inputs.
 *
 * Exit codes: 0 success, 1 input, pass or golden-comparison failure, 2
 * usage error (including a bad pipeline file).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ptoopt/config.h"
#include "ptoopt/diag.h"
#include "ptoopt/driver.h"
#include "ptoopt/op_registry.h"
#include "ptoopt/pipeline.h"
#include "ptoopt/strbuf.h"
#include "ptoopt/suggest.h"
#include "ptoopt/write.h"

#ifndef PTOOPT_VERSION
#define PTOOPT_VERSION "0.1.0"
#endif

static void usage(FILE *f)
{
	fputs("usage: ptoopt [OPTIONS] [FILE|-]...\n"
	      "\n"
	      "Read PyPTO programs (.pto text), run passes on each and print the results.\n"
	      "Reads standard input when FILE is '-' or absent; several files are processed\n"
	      "independently, in order.\n"
	      "\n"
	      "pipeline:\n"
	      "  --passes=LIST        comma-separated passes to run, in order; options inline:\n"
	      "                       infer-directions{mode=raise-only,functions=a,b}\n"
	      "  --pass-option PASS.KEY=VALUE\n"
	      "                       set an option of every run of a pass (repeatable)\n"
	      "  --config=FILE        read the pipeline and settings from a YAML file\n"
	      "  --print-pipeline     print the resolved pipeline as YAML (--config reads it)\n"
	      "                       and exit\n"
	      "  --ops=FILE.yaml      add or override op registry entries (repeatable)\n"
	      "  --allow-unregistered-ops\n"
	      "                       let calls of ops the registry does not know through,\n"
	      "                       as written (one warning per op); else they are errors\n"
	      "  --verify-each        run the IR verifiers after every pass\n"
	      "  -j, --jobs=N         run the function-local passes (convert-to-ssa and the\n"
	      "                       outliners) on parts of a program in N processes; the\n"
	      "                       result is the same (default: one per processor for an\n"
	      "                       input of 256 KiB or more; 1: never)\n"
	      "  --list-passes        list the known passes and exit\n"
	      "  --list-ops           list the op registry (signature and written arguments of\n"
	      "                       every op, with any --ops files given before) and exit\n"
	      "  --list-dsl           list the DSL spellings (pl.add, pl.cast, ...) and the op\n"
	      "                       each argument-kind case lowers to, and exit\n"
	      "\n"
	      "output:\n"
	      "  -o, --output=PATH    write the result to PATH (atomically); a directory, or\n"
	      "                       with several inputs: PATH/NAME for each input\n"
	      "  -i, --in-place       replace each input file with its result (atomically);\n"
	      "                       refused where printing would drop a comment, docstring\n"
	      "                       or module constant of the file\n"
	      "  --allow-lossy        -i (and -o onto the input) even where text is dropped\n"
	      "  --check-lossless     write nothing; exit 1 when printing would drop text\n"
	      "  --diff               print a unified diff of each input against its result\n"
	      "  --color=WHEN         colour diffs: auto (a terminal and NO_COLOR unset),\n"
	      "                       always, never\n"
	      "  --expect=FILE        compare the result with FILE: exit 0 if equal, else 1 and\n"
	      "                       a diff on stdout; a directory: each input with DIR/NAME\n"
	      "  --expect-mode=MODE   text (byte for byte, the default) or structural (variable\n"
	      "                       names ignored)\n"
	      "  --update             with --expect: rewrite FILE with the result instead\n"
	      "\n"
	      "testing:\n"
	      "  --split-input-file   the input holds several programs separated by lines\n"
	      "                       '# -----': each is processed on its own, the results\n"
	      "                       joined by the same line\n"
	      "  --verify-diagnostics check the diagnostics against the input's\n"
	      "                       '# expected-error{{...}}' comments (see the manual)\n"
	      "\n"
	      "debugging (on standard error):\n"
	      "  --print-ir-before=PASS[,PASS], --print-ir-after=PASS[,PASS]\n"
	      "                       print the program before / after these passes\n"
	      "  --print-before-all   print the program before every pass\n"
	      "  --print-after-all    print the program after every pass\n"
	      "  --print-changed      print the program at the start and after every pass that\n"
	      "                       changed it\n"
	      "  --dump-dir=DIR       write DIR/NN_after_PassName.pto after every pass\n"
	      "  --time-passes        print a table of per-pass wall times\n"
	      "  --print-ir-function=NAME[,NAME]\n"
	      "                       the printed and dumped programs show only these\n"
	      "                       functions\n"
	      "\n"
	      "  -h, --help           show this help and exit\n"
	      "  --version            show the version and exit\n"
	      "\n"
	      "exit status: 0 success, 1 input, pass or golden-comparison failure,\n"
	      "2 usage error (also a bad --config file)\n",
	      f);
}

static bool is_directory(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A usage error about the option word argv[word] (where getopt stood when
 * it failed: the word the user typed, not the one after it): one line
 * naming it, the nearest long option when it looks misspelt, a hint. */
static void bad_option(char **argv, int word, int argc, const struct option *longopts, const char *why)
{
	const char *w = word < argc ? argv[word] : "";
	char shown[128];
	if (optopt && w[0] == '-' && w[1] != '-' && (int)strlen(w) > 2 && strchr(w, optopt) && !why)
		snprintf(shown, sizeof shown, "-%c' in '%s", optopt, w); /* a letter of a cluster such as -iz */
	else
		snprintf(shown, sizeof shown, "%.*s", (int)(strcspn(w, "=") < 100 ? strcspn(w, "=") : 100), w);
	fprintf(stderr, "ptoopt: error: %soption '%s'", why ? "" : "unknown ", shown);
	if (why) {
		fprintf(stderr, " %s\n", why);
	} else {
		const char *name = w;
		while (*name == '-')
			name++;
		char bare[128];
		snprintf(bare, sizeof bare, "%.*s", (int)strcspn(name, "="), name);
		Suggest s;
		suggest_init(&s, bare);
		for (const struct option *o = longopts; o->name; o++)
			suggest_offer(&s, o->name);
		if (s.best)
			fprintf(stderr, "; did you mean '--%s'?", s.best);
		fputc('\n', stderr);
	}
	fputs("Try 'ptoopt --help' for more information.\n", stderr);
}

/* --print-ir-before/after: every name a pass (or a usage error). */
static bool pass_list_ok(const char *list, const char *opt, Diag *pd)
{
	for (const char *q = list;;) {
		size_t l = strcspn(q, ",");
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(l < 100 ? l : 100), q);
		if (!pipe_find(name)) {
			diag_error(pd, 0, 0, "%s: unknown pass '%s'%s (known passes: %s)", opt, name,
				   pipe_did_you_mean(name, strlen(name), NULL), pipe_pass_names());
			return false;
		}
		if (!q[l])
			return true;
		q += l + 1;
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static bool positive_number(const char *s)
{
	if (!*s)
		return false;
	bool nonzero = false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		nonzero |= *s != '0';
	}
	return nonzero;
}

/* --dump-dir: a directory, or a path where one can be made; not empty and
 * not an existing file. */
static bool usable_dump_dir(const char *d, Diag *pd)
{
	struct stat st;
	if (!*d) {
		diag_error(pd, 0, 0, "--dump-dir needs a directory name (got an empty one)");
		return false;
	}
	if (stat(d, &st) == 0 && !S_ISDIR(st.st_mode)) {
		diag_error(pd, 0, 0, "--dump-dir '%s' exists and is not a directory", d);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	enum {
		OPT_PASSES = 256, OPT_LIST, OPT_VERSION, OPT_VERIFY_EACH, OPT_PASS_OPTION, OPT_OPS, OPT_CONFIG,
		OPT_PRINT_PIPELINE, OPT_DIFF, OPT_COLOR, OPT_PRINT_AFTER_ALL, OPT_PRINT_CHANGED, OPT_DUMP_DIR,
		OPT_TIME_PASSES, OPT_EXPECT, OPT_EXPECT_MODE, OPT_UPDATE, OPT_ALLOW_UNREGISTERED,
		OPT_SPLIT, OPT_VERIFY_DIAG, OPT_CHECK_LOSSLESS, OPT_ALLOW_LOSSY, OPT_LIST_OPS, OPT_LIST_DSL, OPT_PRINT_BEFORE, OPT_PRINT_AFTER, OPT_PRINT_BEFORE_ALL, OPT_PRINT_FUNCTION, OPT_JOBS,
	};
	static const struct option longopts[] = {
		{ "passes", required_argument, NULL, OPT_PASSES },
		{ "output", required_argument, NULL, 'o' },
		{ "in-place", no_argument, NULL, 'i' },
		{ "ops", required_argument, NULL, OPT_OPS },
		{ "allow-unregistered-ops", no_argument, NULL, OPT_ALLOW_UNREGISTERED },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "print-pipeline", no_argument, NULL, OPT_PRINT_PIPELINE },
		{ "list-passes", no_argument, NULL, OPT_LIST },
		{ "list-ops", no_argument, NULL, OPT_LIST_OPS },
		{ "list-dsl", no_argument, NULL, OPT_LIST_DSL },
		{ "verify-each", no_argument, NULL, OPT_VERIFY_EACH },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "pass-option", required_argument, NULL, OPT_PASS_OPTION },
		{ "diff", no_argument, NULL, OPT_DIFF },
		{ "color", required_argument, NULL, OPT_COLOR },
		{ "print-after-all", no_argument, NULL, OPT_PRINT_AFTER_ALL },
		{ "print-changed", no_argument, NULL, OPT_PRINT_CHANGED },
		{ "dump-dir", required_argument, NULL, OPT_DUMP_DIR },
		{ "time-passes", no_argument, NULL, OPT_TIME_PASSES },
		{ "split-input-file", no_argument, NULL, OPT_SPLIT },
		{ "check-lossless", no_argument, NULL, OPT_CHECK_LOSSLESS },
		{ "allow-lossy", no_argument, NULL, OPT_ALLOW_LOSSY },
		{ "verify-diagnostics", no_argument, NULL, OPT_VERIFY_DIAG },
		{ "print-ir-before", required_argument, NULL, OPT_PRINT_BEFORE },
		{ "print-ir-after", required_argument, NULL, OPT_PRINT_AFTER },
		{ "print-before-all", no_argument, NULL, OPT_PRINT_BEFORE_ALL },
		{ "print-ir-function", required_argument, NULL, OPT_PRINT_FUNCTION },
		{ "expect", required_argument, NULL, OPT_EXPECT },
		{ "expect-mode", required_argument, NULL, OPT_EXPECT_MODE },
		{ "update", no_argument, NULL, OPT_UPDATE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	DriverConfig c = { 0 };
	const char *color = "auto";
	bool print_pipeline = false;
	Diag pd; /* usage errors: no file position */
	diag_init(&pd, "ptoopt", NULL, 0);
	int rc = 0, opt;
	bool hinted = false;
	opterr = 0;
	/* getopt_long_only: -passes=... is --passes=..., as mlir-opt and opt
	 * take it; a single letter stays a short option (-o, -i, -h) */
	for (int word = optind; (opt = getopt_long_only(argc, argv, ":o:ihj:", longopts, NULL)) != -1; word = optind) {
		switch (opt) {
		case OPT_PASSES:
			pipe_release(&c.pipeline);
			if (!pipe_parse_list(optarg, &c.pipeline, &pd))
				goto usage_error;
			break;
		case 'o': c.output = strcmp(optarg, "-") == 0 ? NULL : optarg; break; /* -o -: standard output */
		case 'i': c.in_place = true; break;
		case OPT_OPS:
			/* a bad registry file is an input error (located), not a usage error */
			if (!config_load_ops(&c, optarg, &pd)) {
				rc = 1;
				goto done;
			}
			break;
		case OPT_ALLOW_UNREGISTERED: ops_default()->allow_unregistered = true; break;
		case OPT_CONFIG:
			if (!config_load(&c, optarg))
				goto config_error;
			break;
		case OPT_PRINT_PIPELINE: print_pipeline = true; break;
		case OPT_VERIFY_EACH: c.verify_each = true; break;
		case 'j':
		case OPT_JOBS: {
			char *end = NULL;
			errno = 0;
			long n = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || n < 1 || n > 1024) {
				diag_error(&pd, 0, 0, "invalid --jobs '%s' (a number of processes, 1 to 1024)", optarg);
				goto usage_error;
			}
			c.jobs = (int)n;
			break;
		}
		case OPT_PASS_OPTION:
			if (!pipe_parse_option(optarg, &c.pass_options, &pd))
				goto usage_error;
			break;
		case OPT_DIFF: c.output_mode = OUT_DIFF; break;
		case OPT_COLOR:
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "always") != 0 && strcmp(optarg, "never") != 0) {
				diag_error(&pd, 0, 0, "invalid --color '%s'%s (valid: auto, always, never)", optarg,
					   pipe_did_you_mean(optarg, strlen(optarg), "auto,always,never"));
				goto usage_error;
			}
			color = optarg;
			break;
		case OPT_PRINT_AFTER_ALL: c.print_after_all = true; break;
		case OPT_PRINT_CHANGED: c.print_changed = true; break;
		case OPT_DUMP_DIR: c.dump_dir = optarg; break;
		case OPT_TIME_PASSES: c.time_passes = true; break;
		case OPT_SPLIT: c.split_input = true; break;
		case OPT_CHECK_LOSSLESS: c.check_lossless = true; break;
		case OPT_ALLOW_LOSSY: c.allow_lossy = true; break;
		case OPT_VERIFY_DIAG: c.verify_diagnostics = true; break;
		case OPT_PRINT_BEFORE:
		case OPT_PRINT_AFTER:
			if (!pass_list_ok(optarg, opt == OPT_PRINT_BEFORE ? "--print-ir-before" : "--print-ir-after", &pd))
				goto usage_error;
			*(opt == OPT_PRINT_BEFORE ? &c.print_before : &c.print_after) = optarg;
			break;
		case OPT_PRINT_BEFORE_ALL: c.print_before_all = true; break;
		case OPT_PRINT_FUNCTION:
			if (!*optarg) {
				diag_error(&pd, 0, 0, "--print-ir-function needs function names");
				goto usage_error;
			}
			c.print_function = optarg;
			break;
		case OPT_EXPECT: c.expect = optarg; break;
		case OPT_EXPECT_MODE:
			if (strcmp(optarg, "text") == 0)
				c.expect_mode = EXPECT_TEXT;
			else if (strcmp(optarg, "structural") == 0)
				c.expect_mode = EXPECT_STRUCTURAL;
			else {
				diag_error(&pd, 0, 0, "invalid --expect-mode '%s'%s (valid: text, structural)", optarg,
					   pipe_did_you_mean(optarg, strlen(optarg), "text,structural"));
				goto usage_error;
			}
			break;
		case OPT_UPDATE: c.update = true; break;
		case 'h': usage(stdout); goto done;
		case OPT_VERSION: printf("ptoopt %s\n", PTOOPT_VERSION); goto done;
		case OPT_LIST_OPS: case OPT_LIST_DSL: {
			StrBuf b = { 0 };
			if (opt == OPT_LIST_OPS)
				ops_list(ops_default(), &b);
			else
				ops_list_sugar(ops_default(), &b);
			fwrite(b.data, 1, b.len, stdout);
			sb_release(&b);
			goto done;
		}
		case OPT_LIST: {
			int n;
			const PassInfo *ps = pipe_passes(&n);
			for (int i = 0; i < n; i++)
				printf("%-24s %s%s\n", ps[i].name, ps[i].summary,
				       ps[i].run || ps[i].run_opts ? "" : " (not implemented yet)");
			int np;
			const PipePreset *pp = pipe_presets(&np);
			for (int i = 0; i < np; i++)
				printf("%-24s %s: %s\n", pp[i].name, pp[i].summary, pp[i].passes);
			goto done;
		}
		case ':':
			bad_option(argv, word, argc, longopts, "needs an argument");
			hinted = true;
			goto usage_error;
		default:
			bad_option(argv, word, argc, longopts, NULL);
			hinted = true;
			goto usage_error;
		}
	}
	pipe_apply_options(&c.pipeline, &c.pass_options);
	if (print_pipeline) {
		StrBuf b = { 0 };
		config_print(&b, &c);
		fwrite(b.data, 1, b.len, stdout);
		sb_release(&b);
		goto done;
	}

	static const char *const stdin_only[] = { "-" };
	c.ninputs = argc - optind;
	c.inputs = xmalloc((size_t)(c.ninputs + 1) * sizeof *c.inputs);
	for (int i = 0; i < c.ninputs; i++)
		c.inputs[i] = argv[optind + i];
	if (c.ninputs == 0) {
		c.inputs[0] = stdin_only[0];
		c.ninputs = 1;
	}
	int nstdin = 0;
	for (int i = 0; i < c.ninputs; i++)
		nstdin += strcmp(c.inputs[i], "-") == 0;
	const char *conflict = NULL;
	const char *mem_env = getenv("PTOOPT_MEMORY_LIMIT_MB");
	if (mem_env && !positive_number(mem_env)) {
		diag_error(&pd, 0, 0, "invalid PTOOPT_MEMORY_LIMIT_MB '%s' (a positive whole number of MiB)", mem_env);
		goto usage_error;
	}
	if (c.dump_dir && !usable_dump_dir(c.dump_dir, &pd))
		goto usage_error;
	if (nstdin > 1)
		conflict = "standard input ('-') can be read only once";
	else if (c.in_place && c.output)
		conflict = "--in-place and --output exclude each other";
	else if (c.in_place && nstdin)
		conflict = "--in-place needs files, not standard input";
	else if (c.in_place && c.expect)
		conflict = "--in-place and --expect exclude each other";
	else if (c.output && c.ninputs > 1 && !is_directory(c.output))
		conflict = "with several inputs, -o names a directory (results go to DIR/NAME)";
	else if (c.update && !c.expect)
		conflict = "--update needs --expect=FILE";
	else if (c.expect && c.ninputs > 1 && !is_directory(c.expect))
		conflict = "--expect compares one input with a file; with several, name a directory of golden files (DIR/NAME)";
	else if (c.expect && c.output)
		conflict = "--expect and --output exclude each other (--expect writes only a diff, to stdout)";
	else if (c.split_input && c.expect && c.expect_mode == EXPECT_STRUCTURAL)
		conflict = "--split-input-file compares with --expect byte for byte only (not --expect-mode=structural)";
	else if (c.expect && c.output_mode == OUT_DIFF)
		conflict = "--expect and --diff exclude each other (--expect prints a diff when the result differs)";
	if (conflict) {
		diag_error(&pd, 0, 0, "%s", conflict);
		goto usage_error;
	}
	/* -o DIR with several inputs: two of the same name would overwrite each
	 * other's result (nothing is written then) */
	const char *into = c.output && !c.in_place && !c.expect && (c.ninputs > 1 || is_directory(c.output)) ? c.output
			   : c.expect && c.ninputs > 1 ? c.expect : NULL;
	if (into) {
		for (int i = 0; i < c.ninputs; i++)
			for (int j = 0; j < i; j++)
				if (strcmp(base_name(c.inputs[i]), base_name(c.inputs[j])) == 0) {
					diag_error(&pd, 0, 0, "'%s' and '%s' would both %s '%s/%s'", c.inputs[j], c.inputs[i],
						   into == c.output ? "be written to" : "be compared with", into,
						   base_name(c.inputs[i]));
					goto usage_error;
				}
	}
	write_install_signal_handlers();
	/* NO_COLOR (no-color.org): set and not empty turns automatic colour off */
	const char *no_color = getenv("NO_COLOR");
	c.color = strcmp(color, "always") == 0 ||
		  (strcmp(color, "auto") == 0 && isatty(STDOUT_FILENO) && !(no_color && *no_color));
	rc = driver_run(&c);
done:
	driver_config_release(&c);
	return rc;

usage_error:
	/* (bad_option printed its own hint) */
	if (!hinted)
		fputs("Try 'ptoopt --help' for more information.\n", stderr);
config_error: /* located in the file: no hint */
	driver_config_release(&c);
	return 2;
}
