/* pipeline.h - the pass registry and running a list of passes. */
#ifndef PTOOPT_PIPELINE_H
#define PTOOPT_PIPELINE_H

#include <stdbool.h>

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"

typedef struct PassInfo {
	const char *name;
	const char *summary;
	/* NULL while the pass is not implemented yet */
	int (*run)(Program *p, Diag *d);
	bool produces_ssa;   /* the result is in SSA form (checked by --verify-each) */
	bool keeps_ssa;      /* SSA input stays SSA */
} PassInfo;

const PassInfo *pipe_passes(int *n);
const PassInfo *pipe_find(const char *name);

/* Split "a,b,c" and check every name; reports unknown names and returns
 * false.  On success *out holds the passes in order (malloc'd). */
bool pipe_parse_list(const char *list, const PassInfo ***out, int *n, Diag *d);
/* Run the passes in order; with verify_each, the verifiers of the
 * properties that hold run after every pass.  Returns 0 on success, 1 after
 * a reported error. */
int pipe_run(Program *p, const PassInfo **passes, int n, Diag *d, bool verify_each);

#endif
