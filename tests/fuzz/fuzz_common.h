/* fuzz_common.h - shared by the libFuzzer harnesses: a Diag that writes to
 * /dev/null, so a fuzzer running millions of error inputs is not slowed
 * down (or its log flooded) by messages nobody reads.  The message code
 * still runs, so it is fuzzed too. */
#ifndef PTOOPT_FUZZ_COMMON_H
#define PTOOPT_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "ptoopt/diag.h"
#include "ptoopt/op_registry.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

static FILE *fuzz_devnull(void)
{
	static FILE *null;
	if (!null) {
		null = fopen("/dev/null", "w");
		if (!null)
			abort();
	}
	return null;
}

static void fuzz_diag(Diag *d, const char *file, const char *src, size_t len)
{
	diag_init(d, file, src, len);
	d->out = fuzz_devnull();
}

/* Once per process, before the first input: the built-in op registry
 * (data/ops.yaml, parsed with libyaml) and the /dev/null stream, so no run
 * pays for them and every run does the same work for the same input. */
static void fuzz_init_common(void)
{
	(void)fuzz_devnull();
	(void)ops_default();
}

#endif
