/* outline_incore.c - OutlineIncoreScopes (passes.md §4; seed document 000).
 *
 * InCore scopes of Opaque, Orchestration and Graph functions become
 * Function(InCore) via the shared outliner (outline.c).  An Opaque parent
 * that loses at least one scope becomes Orchestration; before outlining, its
 * parameter dimension reads (tensor.dim of a pl.dynamic axis) fold to the
 * symbol, as the parser does for Orchestration bodies. */
#include <stdlib.h>
#include <string.h>

#include "ptoopt/ir_walk.h"
#include "ptoopt/outline.h"
#include "ptoopt/passes.h"

/* ------------------------------------------------------------ tensor.dim folding (§4.3) */

typedef struct Fold {
	Arena *a;
	PtrMap syms;  /* dimension Vars of tensor parameters */
	PtrMap map;   /* folded Var -> symbol Var */
} Fold;

static Expr *fold_expr(Fold *f, Expr *e);

static Type *fold_type(Fold *f, Type *t)
{
	if (!t || !t->ndim)
		return t;
	Expr **dims = arena_alloc(f->a, (size_t)t->ndim * sizeof *dims);
	bool c = false;
	for (int i = 0; i < t->ndim; i++) {
		dims[i] = fold_expr(f, t->shape[i]);
		c |= dims[i] != t->shape[i];
	}
	if (!c)
		return t;
	Type *n = arena_alloc(f->a, sizeof *n);
	*n = *t;
	n->shape = dims;
	return n;
}

static Type *fold_type_cb(void *ctx, Type *t) { return fold_type(ctx, t); }

static Expr *fold_expr(Fold *f, Expr *e)
{
	return ir_expr_subst(&(IrSubst){ .a = f->a, .vars = &f->map, .type = fold_type_cb, .ctx = f }, e);
}

static void fold_exprs(Fold *f, Expr **xs, int n)
{
	for (int i = 0; i < n; i++)
		xs[i] = fold_expr(f, xs[i]);
}

static void fold_var(Fold *f, Var *v)
{
	if (v)
		v->type = fold_type(f, v->type);
}

static void fold_block(Fold *f, Block *b);

/* The fields only a compound statement has: loop bounds and carries, return
 * vars, the launch spec of a scope, the nested bodies. */
static void fold_compound(Fold *f, Stmt *s)
{
	s->start = fold_expr(f, s->start);
	s->stop = fold_expr(f, s->stop);
	s->step = fold_expr(f, s->step);
	if (s->niter) {
		Expr **is = arena_alloc(f->a, (size_t)s->niter * sizeof *is);
		memcpy(is, s->inits, (size_t)s->niter * sizeof *is);
		fold_exprs(f, is, s->niter);
		s->inits = is;
		for (int j = 0; j < s->niter; j++) {
			fold_var(f, s->iter_args[j]);
			s->iter_args[j]->init = s->inits[j];
		}
	}
	for (int j = 0; j < s->nrets; j++)
		fold_var(f, s->rets[j]);
	if (s->scope && (s->scope->core_num || s->scope->predicate)) {
		Scope *sc = arena_alloc(f->a, sizeof *sc);
		*sc = *s->scope;
		sc->core_num = fold_expr(f, sc->core_num);
		sc->predicate = fold_expr(f, sc->predicate);
		s->scope = sc;
	}
	fold_block(f, &s->body);
	fold_block(f, &s->orelse);
}

static void fold_block(Fold *f, Block *b)
{
	int k = 0;
	for (int i = 0; i < b->n; i++) {
		Stmt *s = b->stmts[i];
		s->value = fold_expr(f, s->value);
		if (s->kind == ST_ASSIGN && s->value->kind == EX_OP_CALL && strcmp(s->value->str, "tensor.dim") == 0 &&
		    s->value->nargs == 2 && s->value->args[1]->kind == EX_INT) {
			Type *t = ir_expr_type(s->value->args[0]);
			int64_t ax = s->value->args[1]->ival;
			if (t && t->kind == TY_TENSOR) {
				if (ax < 0)
					ax += t->ndim;
				if (ax >= 0 && ax < t->ndim && t->shape[ax]->kind == EX_VAR &&
				    pmap_get(&f->syms, t->shape[ax]->var)) {
					pmap_put(&f->map, s->var, t->shape[ax]->var);
					continue; /* the binding disappears */
				}
			}
		}
		fold_var(f, s->var);
		if (s->nvalues) {
			Expr **vs = arena_alloc(f->a, (size_t)s->nvalues * sizeof *vs);
			memcpy(vs, s->values, (size_t)s->nvalues * sizeof *vs);
			fold_exprs(f, vs, s->nvalues);
			s->values = vs;
		}
		if (!ir_stmt_is_simple(s->kind))
			fold_compound(f, s);
		b->stmts[k++] = s;
	}
	b->n = k;
}

static void fold_param_dims(Program *p, Function *fn)
{
	Fold f = { .a = p->arena };
	for (int i = 0; i < fn->nparams; i++) {
		Type *t = fn->params[i].var->type;
		if (t && t->kind == TY_TENSOR)
			for (int k = 0; k < t->ndim; k++)
				if (t->shape[k]->kind == EX_VAR)
					pmap_put(&f.syms, t->shape[k]->var, t->shape[k]->var);
	}
	if (f.syms.len)
		fold_block(&f, &fn->body);
	pmap_release(&f.syms);
	pmap_release(&f.map);
}

/* ------------------------------------------------------------ the pass */

int outline_incore_program(Program *p, Diag *d)
{
	static const OutlineConfig cfg = {
		.target = SC_INCORE, .fn_type = FT_INCORE, .suffix = "_incore_",
		.hoist_scalars = true, .thread_carries = true,
	};
	OutlineRun run;
	/* Group / Spmd functions too: seed 002 lets InCore scopes be outlined
	 * after outline-cluster, from inside the functions it made */
	outline_run_begin(&run, p, OUTLINE_ORCH_LIKE | (1u << FT_GROUP) | (1u << FT_SPMD));
	int rc = 0;
	for (int i = 0; i < run.norder && !rc; i++) {
		Function *f = run.order[i];
		if (f->type == FT_OPAQUE && ir_find_scope(&f->body, SC_INCORE))
			fold_param_dims(p, f);
		int n = outline_run_function(&run, p, f, &cfg, d);
		rc = n < 0;
		if (f->type == FT_OPAQUE && n > 0)
			f->type = FT_ORCHESTRATION;
		if (f->type == FT_ORCHESTRATION || f->type == FT_GRAPH) {
			f->level = LV_CHIP;
			f->role = RL_ORCHESTRATOR;
		}
	}
	return outline_run_end(&run, p, rc);
}
