/* passes.h - entry points of the passes (one file each under src/passes/).
 * Each returns 0, or 1 after reporting an error through the Diag. */
#ifndef PTOOPT_PASSES_H
#define PTOOPT_PASSES_H

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"
#include "ptoopt/autoname.h"

int ssa_convert_program(Program *p, Diag *d);   /* convert_to_ssa.c */
int outline_incore_program(Program *p, Diag *d); /* outline_incore.c */
int outline_cluster_program(Program *p, Diag *d); /* outline_cluster.c */
int outline_hierarchy_program(Program *p, Diag *d); /* outline_hierarchy.c */
int dcd_run_program(Program *p, Diag *d);       /* derive_call_directions.c */
int inline_functions_program(Program *p, Diag *d); /* inline_functions.c */
int unroll_loops_program(Program *p, Diag *d);  /* unroll_loops.c */
int flatten_call_expr_program(Program *p, Diag *d); /* flatten_call_expr.c */
int normalize_stmt_structure_program(Program *p, Diag *d); /* normalize_stmt_structure.c */
int simplify_program(Program *p, Diag *d);      /* simplify.c */
int cft_run_program(Program *p, Diag *d);       /* ctrl_flow_transform.c */
/* After ctrl-flow-transform (the reference's StructuredCtrlFlow verifier):
 * no break or continue left in an InCore, AIC or AIV function. */
bool cft_verify_structured(Program *p, Diag *d);
struct PassOpts;
/* infer_directions.c; options mode, functions, reset (pipeline.c) */
int infer_directions_program(Program *p, const struct PassOpts *o, Diag *d);

#endif
