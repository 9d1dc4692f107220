/* fuzz_pipeline.c - libFuzzer harness: parse, run a pass pipeline, print.
 *
 * The pipeline is part of the input, so the fuzzer mutates it too: a first
 * line
 *     # ptoopt: --passes=LIST [--verify-each] [--pass-option=PASS.KEY=VALUE]...
 * (a comment to the parser) selects it.  Without that line the whole
 * canonical pipeline runs with --verify-each.  The seeds (tests/fuzz/run.sh)
 * carry the conformance cases' own pass lists. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "ptoopt/arena.h"
#include "ptoopt/parse.h"
#include "ptoopt/pipeline.h"
#include "ptoopt/print.h"
#include "ptoopt/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER "# ptoopt:"
#define DEFAULT_PASSES "convert-to-ssa,outline-incore,outline-cluster,outline-hierarchy,infer-directions,derive-call-directions"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init_common();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *src = (const char *)data;
	char opts[512];
	const char *passes = DEFAULT_PASSES;
	bool verify_each = true;
	PipeOptions popts = { 0 };
	Diag pd;
	fuzz_diag(&pd, "fuzz", NULL, 0);

	if (size >= sizeof HEADER - 1 && memcmp(src, HEADER, sizeof HEADER - 1) == 0) {
		const char *nl = memchr(src, '\n', size);
		size_t n = (nl ? (size_t)(nl - src) : size) - (sizeof HEADER - 1);
		if (n >= sizeof opts)
			return 0;
		memcpy(opts, src + sizeof HEADER - 1, n);
		opts[n] = 0;
		passes = NULL;
		verify_each = false;
		/* space-separated words; the option strings point into opts */
		for (char *w = strtok(opts, " \t\r"); w; w = strtok(NULL, " \t\r")) {
			if (strncmp(w, "--passes=", 9) == 0)
				passes = w + 9;
			else if (strcmp(w, "--verify-each") == 0)
				verify_each = true;
			else if (strncmp(w, "--pass-option=", 14) == 0) {
				if (!pipe_parse_option(w + 14, &popts, &pd))
					goto out; /* a usage error: nothing to run */
			}
		}
		if (!passes)
			passes = DEFAULT_PASSES;
	}

	Pipeline pl = { 0 };
	if (!pipe_parse_list(passes, &pl, &pd)) {
		pipe_release(&pl);
		goto out;
	}
	pipe_apply_options(&pl, &popts);

	Diag d;
	fuzz_diag(&d, "fuzz.pto", src, size);
	Arena a;
	arena_init(&a);
	Program *p = parse_program(&a, &d, src, size);
	if (p) {
		PipeHooks hooks = { .verify_each = verify_each };
		if (pipe_check_contracts(p, &pl, &d) && pipe_run(p, &pl, &hooks, &d) == 0) {
			StrBuf out = { 0 };
			print_program(&out, p);
			sb_release(&out);
		}
		ir_program_release(p);
	}
	arena_free(&a);
	pipe_release(&pl);
out:
	pipe_options_release(&popts);
	return 0;
}
