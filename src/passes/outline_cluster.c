/* outline_cluster.c - OutlineClusterScopes (passes.md §5; seed document 002).
 *
 * Per Opaque / Orchestration / Graph function, in name order, two runs of the
 * shared outliner (outline.c):
 *   1. `with pl.cluster():` scopes become Function(Group).  A pl.spmd nested
 *      in the cluster is unwrapped into the Group body; its launch spec
 *      (core_num, sync_start) moves to the Group's call site, translated from
 *      the Group's parameters to the call's arguments, and the Group carries
 *      only the spmd_unwrapped marker.
 *   2. Standalone pl.spmd scopes become Function(Spmd); their launch spec goes
 *      on the call (attrs) or, for a submit, on its core_num / sync_start.
 * Both runs take parameter directions and returns through callees (the
 * second run sees the Groups of the first).  Parents keep their type.
 * That no Cluster or Spmd scope remains outside Group / Spmd functions is
 * checked after the pass (verify_clusters_outlined, pipeline.c). */
#include <string.h>

#include "ptoopt/ir_walk.h"
#include "ptoopt/outline.h"
#include "ptoopt/passes.h"

/* ------------------------------------------------------------ unwrapping a nested pl.spmd */

typedef struct Unwrap {
	Arena *a;
	Diag *d;
	const Stmt *spmd;  /* the one unwrapped, NULL when none yet */
	bool failed;
} Unwrap;

static void unwrap_block(Unwrap *u, Block *b)
{
	/* splice each Spmd scope's body in its place */
	PtrVec out = ARENA_VEC(u->a);
	bool changed = false;
	for (int i = 0; i < b->n && !u->failed; i++) {
		Stmt *s = b->stmts[i];
		if (s->kind != ST_SCOPE || s->scope->kind != SC_SPMD) {
			if (!ir_stmt_is_simple(s->kind)) {
				unwrap_block(u, &s->body);
				unwrap_block(u, &s->orelse);
			}
			vec_push(&out, s);
			continue;
		}
		const Scope *sc = s->scope;
		if (u->spmd) {
			diag_error(u->d, s->pos.line, s->pos.col,
				   "internal error: only one pl.spmd() block is allowed per cluster scope");
			u->failed = true;
			return;
		}
		if (sc->tid || sc->has_deps || sc->allow_early_resolve || sc->predicate) {
			diag_error(u->d, s->pos.line, s->pos.col,
				   "internal error: a pl.spmd() nested inside pl.cluster() cannot carry a producer "
				   "TASK_ID, dependency edges, an allow_early_resolve hint or a dispatch predicate: "
				   "it is unwrapped into the Group function and never becomes a submit");
			u->failed = true;
			return;
		}
		u->spmd = s;
		changed = true;
		unwrap_block(u, &s->body);
		for (int k = 0; k < s->body.n; k++)
			vec_push(&out, s->body.stmts[k]);
	}
	if (changed && !u->failed)
		b->stmts = (Stmt **)vec_finish(u->a, &out, &b->n);
}

typedef struct FirstFree {
	const PtrMap *params;
	Var *found;
} FirstFree;

static void free_var(void *ctx, Var *v)
{
	FirstFree *f = ctx;
	if (!f->found && !pmap_get(f->params, v))
		f->found = v;
}

/* OutlineConfig.finish of the cluster run. */
static int group_finish(Program *p, Function *fn, Expr **core_num, bool *sync_start, Diag *d)
{
	Unwrap u = { .a = p->arena, .d = d };
	unwrap_block(&u, &fn->body);
	if (u.failed)
		return 1;
	if (!u.spmd)
		return 0;
	const Scope *sc = u.spmd->scope;
	/* The count is evaluated where the Group is launched, so it may only
	 * read what the cluster captured (the Group's parameters). */
	PtrMap params = { 0 };
	for (int i = 0; i < fn->nparams; i++)
		pmap_put(&params, fn->params[i].var, (void *)1);
	FirstFree ff = { .params = &params };
	ir_expr_vars(sc->core_num, free_var, &ff);
	pmap_release(&params);
	if (ff.found) {
		diag_error(d, u.spmd->pos.line, u.spmd->pos.col,
			   "pl.spmd() block count references '%s', which is defined inside the enclosing "
			   "pl.cluster(). The block count is evaluated at the cluster's launch site, so it must be "
			   "computed before `with pl.cluster():` and captured, e.g. n = "
			   "pl.system.available_cluster_count() before the cluster, then `with pl.spmd(n):` inside it",
			   ff.found->name);
		return 1;
	}
	Kwarg *attrs = arena_alloc(p->arena, (size_t)(fn->nattrs + 1) * sizeof *attrs);
	if (fn->nattrs)
		memcpy(attrs, fn->attrs, (size_t)fn->nattrs * sizeof *attrs);
	Expr *t = ir_expr_new(p->arena, EX_BOOL, (SrcPos){ 0, 0 });
	t->ival = 1;
	attrs[fn->nattrs] = (Kwarg){ intern_cstr(p->arena, "spmd_unwrapped"), t };
	fn->attrs = attrs;
	fn->nattrs++;
	*core_num = sc->core_num;
	*sync_start = sc->sync_start;
	return 0;
}

/* ------------------------------------------------------------ the pass */

int outline_cluster_program(Program *p, Diag *d)
{
	static const OutlineConfig groups = {
		.target = SC_CLUSTER, .fn_type = FT_GROUP, .suffix = "_cluster_", .callee_lookup = true,
		.thread_carries = true, .finish = group_finish,
	};
	static const OutlineConfig spmds = {
		.target = SC_SPMD, .fn_type = FT_SPMD, .suffix = "_spmd_", .callee_lookup = true,
		.thread_carries = true,
	};
	OutlineRun run;
	outline_run_begin(&run, p, OUTLINE_ORCH_LIKE);
	int rc = 0;
	for (int i = 0; i < run.norder && !rc; i++) {
		rc = outline_run_function(&run, p, run.order[i], &groups, d) < 0;
		/* the Spmd run looks callees up among the new Groups too */
		outline_run_publish(&run, p);
		rc = rc || outline_run_function(&run, p, run.order[i], &spmds, d) < 0;
		outline_run_publish(&run, p);
	}
	return outline_run_end(&run, p, rc);
}
