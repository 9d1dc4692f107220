/* fuzz_parse_print.c - libFuzzer harness: parse any bytes, print what
 * parsed.  Crashes, hangs, leaks and UB in the lexer, parser, sugar
 * lowering, diagnostics and printer are the findings.
 *
 * With PTOOPT_FUZZ_ROUNDTRIP=1 it also checks that printing is a fixed
 * point (parse(print(x)) prints the same text): off by default, because a
 * mismatch is a conformance bug, not a crash, and would stop the run. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "ptoopt/arena.h"
#include "ptoopt/parse.h"
#include "ptoopt/print.h"
#include "ptoopt/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool roundtrip;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init_common();
	const char *e = getenv("PTOOPT_FUZZ_ROUNDTRIP");
	roundtrip = e && *e == '1';
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Diag d;
	fuzz_diag(&d, "fuzz.pto", (const char *)data, size);
	Arena a;
	arena_init(&a);
	Program *p = parse_program(&a, &d, (const char *)data, size);
	if (p) {
		StrBuf out = { 0 };
		print_program(&out, p);
		ir_program_release(p);
		if (roundtrip) {
			Arena a2;
			arena_init(&a2);
			Diag d2;
			fuzz_diag(&d2, "fuzz-printed.pto", out.data, out.len);
			Program *p2 = parse_program(&a2, &d2, out.data, out.len);
			if (!p2)
				abort(); /* the printer wrote something the parser rejects */
			StrBuf out2 = { 0 };
			print_program(&out2, p2);
			if (out2.len != out.len || memcmp(out2.data, out.data, out.len) != 0)
				abort(); /* printing is not a fixed point */
			sb_release(&out2);
			ir_program_release(p2);
			arena_free(&a2);
		}
		sb_release(&out);
	}
	arena_free(&a);
	return 0;
}
