/* verify.h - IR verifiers (verify.c). */
#ifndef PTOOPT_VERIFY_H
#define PTOOPT_VERIFY_H

#include <stdbool.h>

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"

/* Each variable defined once, before its uses, used only where its
 * definition is visible.  Reports the first violation (naming after_pass
 * when not NULL) and returns false. */
bool verify_ssa(Program *p, Diag *d, const char *after_pass);
/* SSA form as the reference's SSAForm verifier decides it (whether an input
 * may skip convert-to-ssa): only assignments (and loop / if results) count
 * as definitions, so a parameter may be assigned once; uses must be
 * visible. */
bool verify_ssa_ref(Program *p, Diag *d, const char *after_pass);

/* The properties the outline passes produce, checked after them as the
 * reference's pass context does: no InCore scope left outside InCore
 * functions; no Cluster / Spmd scope left outside Group / Spmd functions. */
bool verify_incore_outlined(Program *p, Diag *d);
bool verify_clusters_outlined(Program *p, Diag *d);
/* Before outline-incore (the reference's NoNestedInCore structural
 * verifier): no InCore scope inside another. */
bool verify_no_nested_incore(Program *p, Diag *d);

/* After outline-incore (the reference's AivSplitValid, the checks that need
 * no lane classification): boundary ops (aiv_shard / aic_gather) only inside
 * pl.split_aiv regions, their operand and result memory spaces, no region
 * authored inside an InCore function. */
bool verify_aiv_split(Program *p, Diag *d, const char *after_pass);
/* After outline-hierarchy (OrchestrationReferencesResolved): every call of
 * an Orchestration function is of a builtin op (tile. / tensor. / system. /
 * array., pld.system.get_comm_ctx) or of a function of the program. */
bool verify_orch_references(Program *p, Diag *d, const char *after_pass);

/* After derive-call-directions: every call of a program function carries one
 * arg_directions entry per argument, Scalar exactly for non-tensor
 * arguments, and each direction allowed by the callee's parameter. */
bool verify_call_directions(Program *p, Diag *d);

/* After inline-functions (the reference's InlineFunctionsEliminated): no
 * Inline function left, no call of one, no call of a function the program
 * does not have. */
bool verify_inline_eliminated(Program *p, Diag *d);

/* NormalizedStmtStructure (the reference's NoRedundantBlocks check; blocks
 * are flat here, so: every yield is the last statement of its block) and
 * NoNestedCalls (no call as an argument of a call or submit, an operand of
 * a scalar expression, an if / while condition or a for range bound). */
bool verify_normalized(Program *p, Diag *d);
bool verify_no_nested_calls(Program *p, Diag *d);
/* The reference's structural properties (verify_structural.c), checked
 * before and after every pass: the first violation is reported as
 * "Pre-verification failed before pass 'P': ..." (when = "before") or
 * "Post-verification failed after pass 'P': ..." (when = "after").
 * dirs_ours: a pass of the run has set parameter directions (an outliner,
 * infer-directions); then InOutUseValid, which judges them, is skipped.
 * Functions marked verified (Function.verified, pipe_run's) are taken as
 * passing and not walked. */
bool verify_structural(Program *p, Diag *d, const char *when, const char *pass, bool dirs_ours);

#endif
