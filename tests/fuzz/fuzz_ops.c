/* fuzz_ops.c - libFuzzer harness: the op registry YAML loader (--ops FILE)
 * on any bytes, into a fresh registry, then every lookup the sugar code
 * makes on what was loaded. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_common.h"
#include "ptoopt/op_registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init_common();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Diag d;
	fuzz_diag(&d, "fuzz.yaml", (const char *)data, size);
	OpRegistry r;
	ops_init(&r);
	ops_load_text(&r, "fuzz.yaml", (const char *)data, size, &d);
	/* what was loaded (even before an error) must be consistent */
	for (size_t i = 0; i < r.all.len; i++) {
		const OpDef *op = r.all.items[i];
		if (ops_find(&r, op->name) == NULL)
			abort();
		for (int k = 0; k < op->nparams; k++)
			(void)ops_arg_effect(op, k, k & 1, k);
	}
	ops_release(&r);
	return 0;
}
