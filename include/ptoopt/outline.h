/* outline.h - the shared scope outliner (passes.md §3) and parameter-direction
 * inference (§7, seed rules).  outline-incore drives it today; the cluster and
 * hierarchy outliners configure the same engine with another target kind,
 * function type and name suffix. */
#ifndef PTOOPT_OUTLINE_H
#define PTOOPT_OUTLINE_H

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"

typedef struct OutlineConfig {
	ScopeKind target;     /* scopes of this kind become functions */
	FuncType fn_type;     /* type of the outlined functions */
	const char *suffix;   /* "_incore_": names are FUNC + suffix + counter */
	bool callee_lookup;   /* consult callee directions / returns (cluster runs) */
	bool hoist_scalars;   /* move caller-computable Scalar live-outs before the call */
	bool thread_carries;  /* turn store-target renames inside loops/ifs into carries */
} OutlineConfig;

/* Outline every target scope of f.  reserved: program-wide set of taken
 * function names (interned name -> non-NULL), updated.  New functions are
 * appended to out.  *count receives how many scopes were outlined.
 * Returns 0, or 1 after diag_error. */
int outline_function(Program *p, Function *f, const OutlineConfig *cfg, PtrMap *reserved, PtrVec *out,
		     int *count, Diag *d);

/* Directions of a new function's parameters (directions.c).  inputs: the
 * captured Vars in parameter order; body: the scope body before any
 * rewriting; exported: the store targets the outliner exports (set);
 * p: non-NULL to take evidence from callees' declared directions. */
void dir_infer(Program *p, Var **inputs, int n, const Block *body, const PtrMap *exported, ParamDir *out);

/* Per-argument effect of a builtin op call (registry-declared; Read when the
 * op or the argument is unknown).  i >= 0: positional argument i; i < 0:
 * keyword argument -i - 1. */
typedef enum ArgAccess { ACC_READ, ACC_WRITE, ACC_READWRITE } ArgAccess;
ArgAccess dir_arg_access(const Expr *call, int i);

#endif
