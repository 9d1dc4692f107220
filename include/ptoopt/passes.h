/* passes.h - entry points of the passes (one file each under src/passes/).
 * Each returns 0, or 1 after reporting an error through the Diag. */
#ifndef PTOOPT_PASSES_H
#define PTOOPT_PASSES_H

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"

int ssa_convert_program(Program *p, Diag *d);   /* convert_to_ssa.c */
int outline_incore_program(Program *p, Diag *d); /* outline_incore.c */
int outline_cluster_program(Program *p, Diag *d); /* outline_cluster.c */
int outline_hierarchy_program(Program *p, Diag *d); /* outline_hierarchy.c */
int dcd_run_program(Program *p, Diag *d);       /* derive_call_directions.c */
struct PassOpts;
/* infer_directions.c; options mode, functions, reset (pipeline.c) */
int infer_directions_program(Program *p, const struct PassOpts *o, Diag *d);

/* Auto-generated names "base__[qualifier_][role_]vN" (convert_to_ssa.c). */
typedef struct AutoName {
	const char *base;      /* interned */
	const char *qualifier; /* interned, "" when absent */
	const char *role;      /* static string, "" when absent */
	int version;           /* -1 when absent */
	bool has_delim;        /* the name contains "__" */
} AutoName;
AutoName autoname_parse(Arena *a, const char *name);
const char *autoname_build(Arena *a, const char *base, const char *qual, const char *role, int version);

#endif
