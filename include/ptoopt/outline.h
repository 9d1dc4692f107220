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
	/* when set, the suffix depends on the scope (hierarchy: level and role) */
	const char *(*scope_suffix)(Arena *a, const Scope *sc);
	/* Called on each new function before its call site is built; may rewrite
	 * the function and return a launch spec over its parameters (*core_num,
	 * *sync_start), which the call site then carries (cluster: a nested
	 * pl.spmd).  Returns 0, or 1 after diag_error. */
	int (*finish)(Program *p, Function *fn, Expr **core_num, bool *sync_start, Diag *d);
} OutlineConfig;

/* Outline every target scope of f.  reserved: program-wide set of taken
 * function names (interned name -> non-NULL), updated.  New functions are
 * appended to out.  *count receives how many scopes were outlined.
 * Returns 0, or 1 after diag_error. */
int outline_function(Program *p, Function *f, const OutlineConfig *cfg, PtrMap *reserved, PtrVec *out,
		     int *count, Diag *d);

/* One outlining pass over a program: the program-wide reserved names (every
 * existing function name), the functions in name order (the reference
 * visits them so), and the functions made so far. */
typedef struct OutlineRun {
	PtrMap reserved;
	Function **order; int norder;
	PtrVec made;
	size_t published; /* made[0..published) are in the program already */
	Function **funcs; size_t fcap; /* the program's funcs array once published */
} OutlineRun;

/* Functions whose type is in the mask (1u << FuncType) are visited. */
#define OUTLINE_ORCH_LIKE ((1u << FT_OPAQUE) | (1u << FT_ORCHESTRATION) | (1u << FT_GRAPH))
void outline_run_begin(OutlineRun *r, Program *p, unsigned types);
/* outline_function with the run's names and made list: how many scopes were
 * outlined, or -1 after diag_error. */
int outline_run_function(OutlineRun *r, Program *p, Function *f, const OutlineConfig *cfg, Diag *d);
/* Add the made functions to the program (before outline_run_end when later
 * steps must look them up by name).  Idempotent. */
void outline_run_publish(OutlineRun *r, Program *p);
/* Publish on success (rc == 0) and release; returns rc. */
int outline_run_end(OutlineRun *r, Program *p, int rc);

/* Directions of a new function's parameters (directions.c).  inputs: the
 * captured Vars in parameter order; body: the scope body before any
 * rewriting; exported: the store targets the outliner exports (set);
 * p: non-NULL to take evidence from callees' declared directions. */
void dir_infer(Program *p, Var **inputs, int n, const Block *body, const PtrMap *exported, ParamDir *out);
/* A hierarchy scope's parameters: no callee lookup, and a tile.store
 * destination stays In (the buffer is visible to the caller already). */
void dir_infer_hierarchy(Var **inputs, int n, const Block *body, ParamDir *out);
/* The same rules over an existing function's whole body (infer-directions):
 * inputs = its parameters, callees' declared directions always consulted,
 * and returning a parameter (or a plain rename of one) is not a read. */
void dir_infer_function(Program *p, const Function *f, ParamDir *out);

/* Per-argument effect of a builtin op call (registry-declared; Read when the
 * op or the argument is unknown).  i >= 0: positional argument i; i < 0:
 * keyword argument -i - 1. */
typedef enum ArgAccess { ACC_READ, ACC_WRITE, ACC_READWRITE } ArgAccess;
ArgAccess dir_arg_access(const Expr *call, int i);

/* Deferred-completion waiters (deferred_wait.c). */
/* Whether some statement of b (at any depth) calls pld.system.defer_wait. */
bool dw_block_has_defer_wait(const Block *b);
/* *is_waiter: whether the scope body registers deferred-wait conditions; if
 * it does, check the waiter contract (scalar bookkeeping, control flow and
 * registrations only, no tensor read or payload work once registration has
 * begun, at most 64 conditions on any path).  scope_pos locates errors about
 * the scope as a whole.  Returns 0, or 1 after diag_error. */
int dw_check_waiter(const Block *body, SrcPos scope_pos, Diag *d, bool *is_waiter);

#endif
