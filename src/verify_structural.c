/* verify_structural.c - the reference's structural properties, verified
 * before and after every pass (as its pass context does with BEFORE_AND_AFTER
 * verification, which its tests use): the ones a program can break on its
 * own, in the reference's property order, the first violation reported.
 *
 *   TypeChecked (part): a loop's init values, iter args, yield values and
 *     results, and an if's branch yields and results, agree in kind and dtype.
 *   NoRedundantBlocks (part): a yield only as the last statement of its block.
 *   BreakContinueValid: break and continue only in sequential and while loops.
 *   UseAfterDef: every variable read is defined where it is read (parameters
 *     and the dynamic dimensions of parameter and result types are defined in
 *     the whole body; loop variables and iter args only in their loop; loop
 *     and if results after them; without results, what a loop or a branch
 *     defines stays visible after it), types of the variables read included.
 *   NoNestedInCore: verify_no_nested_incore.
 *   InOutUseValid: a variable passed to an InOut or Out parameter of a program
 *     function is not read afterwards until it is assigned again (a loop's
 *     body counts as following itself); Group and Spmd functions are exempt.
 *     Not checked once an outliner or infer-directions has run: the
 *     directions they give are ptoopt's, which may differ from the
 *     reference's.
 *   AtomicAddDtypeValid: no atomic-add store into a BF16 tensor (the
 *     reference's tests run for the Ascend950 backend, 'a5', which has none).
 *
 * Each walk is linear in the function, except that InOutUseValid walks a
 * loop's body once more per enclosing loop (the nesting depth the parser
 * bounds). */
#include "ptoopt/verify.h"

#include <stdio.h>
#include <string.h>

#include "ptoopt/typerule.h"

typedef struct SV {
	Program *p;
	Function *fn;
	char msg[640];
	SrcPos pos;
	bool failed;
	const char *check;   /* the reference's name of the check now running */
	const char *failed_check;
	/* UseAfterDef: Var -> non-NULL while defined, with an undo log */
	PtrMap defs;
	PtrVec log;          /* pairs: key, previous value */
} SV;

static void fail(SV *s, SrcPos pos, const char *msg)
{
	if (s->failed)
		return;
	s->failed = true;
	s->pos = pos;
	s->failed_check = s->check;
	snprintf(s->msg, sizeof s->msg, "%s", msg);
}

/* ------------------------------------------------------------ TypeChecked */

static bool kind_known(const Type *t)
{
	return t && (t->kind == TY_SCALAR || t->kind == TY_TENSOR || t->kind == TY_TILE || t->kind == TY_TUPLE);
}

static void type_eq(SV *s, const Type *a, const Type *b, const char *ctx, const char *da, const char *db, SrcPos pos)
{
	char m[640];
	if (!kind_known(a) || !kind_known(b) || s->failed)
		return;
	if (a->kind != b->kind) {
		snprintf(m, sizeof m, "Type kind mismatch in %s: %s type '%s' != %s type '%s'", ctx, da, tr_type_name(a),
			 db, tr_type_name(b));
		fail(s, pos, m);
		return;
	}
	if (a->kind == TY_TUPLE) {
		if (a->nelems != b->nelems) {
			snprintf(m, sizeof m, "Tuple size mismatch in %s: %s has %d elements, but %s has %d elements", ctx,
				 da, a->nelems, db, b->nelems);
			fail(s, pos, m);
			return;
		}
		for (int i = 0; i < a->nelems; i++) {
			char ea[200], eb[200];
			snprintf(ea, sizeof ea, "%s tuple element[%d]", da, i);
			snprintf(eb, sizeof eb, "%s tuple element[%d]", db, i);
			type_eq(s, a->elems[i], b->elems[i], ctx, ea, eb, pos);
		}
		return;
	}
	if (a->dtype != b->dtype) {
		snprintf(m, sizeof m, "Dtype mismatch in %s: %s dtype != %s dtype", ctx, da, db);
		fail(s, pos, m);
	}
}

static const Stmt *last_yield(const Block *b)
{
	return b->n && b->stmts[b->n - 1]->kind == ST_YIELD ? b->stmts[b->n - 1] : NULL;
}

static void tc_loop(SV *s, const Stmt *st)
{
	const char *ctx = st->kind == ST_FOR ? "ForStmt" : "WhileStmt";
	const Stmt *y = last_yield(&st->body);
	if (!st->niter || !y)
		return;
	if (st->niter != y->nvalues || st->niter != st->nrets) {
		char m[200];
		snprintf(m, sizeof m, "%s size mismatch: iter_args=%d, yield values=%d, return_vars=%d", ctx, st->niter,
			 y->nvalues, st->nrets);
		fail(s, st->pos, m);
		return;
	}
	for (int i = 0; i < st->niter && !s->failed; i++) {
		char a[64], b[64], c[64], r[64];
		snprintf(a, sizeof a, "iter_arg[%d] initValue", i);
		snprintf(b, sizeof b, "declared iter_arg[%d]", i);
		snprintf(c, sizeof c, "yield value[%d]", i);
		snprintf(r, sizeof r, "return_var[%d]", i);
		Type *it = st->iter_args[i]->type, *yt = ir_expr_type(y->values[i]), *rt = st->rets[i]->type;
		type_eq(s, st->inits ? ir_expr_type(st->inits[i]) : it, it, ctx, a, b, st->pos);
		type_eq(s, it, yt, ctx, b, c, st->pos);
		type_eq(s, yt, rt, ctx, c, r, st->pos);
	}
}

static void tc_if(SV *s, const Stmt *st)
{
	if (!st->nrets || !st->has_else)
		return;
	const Stmt *ty = last_yield(&st->body), *ey = last_yield(&st->orelse);
	if (!ty || !ey)
		return;
	if (ty->nvalues != ey->nvalues || ty->nvalues != st->nrets) {
		char m[200];
		snprintf(m, sizeof m, "IfStmt size mismatch: then yield=%d, else yield=%d, return_vars=%d", ty->nvalues,
			 ey->nvalues, st->nrets);
		fail(s, st->pos, m);
		return;
	}
	for (int i = 0; i < ty->nvalues && !s->failed; i++) {
		char a[64], b[64], r[64];
		snprintf(a, sizeof a, "then yield value[%d]", i);
		snprintf(b, sizeof b, "else yield value[%d]", i);
		snprintf(r, sizeof r, "return_var[%d]", i);
		Type *tt = ir_expr_type(ty->values[i]);
		type_eq(s, tt, ir_expr_type(ey->values[i]), "IfStmt", a, b, st->pos);
		type_eq(s, tt, st->rets[i]->type, "IfStmt", a, r, st->pos);
	}
}

static void tc_block(SV *s, const Block *b)
{
	for (int i = 0; i < b->n && !s->failed; i++) {
		const Stmt *st = b->stmts[i];
		if (ir_stmt_is_simple(st->kind))
			continue;
		if (st->kind == ST_FOR || st->kind == ST_WHILE)
			tc_loop(s, st);
		else if (st->kind == ST_IF)
			tc_if(s, st);
		tc_block(s, &st->body);
		tc_block(s, &st->orelse);
	}
}

/* ------------------------------------------------------------ NoRedundantBlocks */

/* (the part a block of ptoopt's IR can break: a yield only at the end) */
static void nrb_block(SV *s, const Block *b)
{
	for (int i = 0; i < b->n && !s->failed; i++) {
		const Stmt *st = b->stmts[i];
		if (st->kind == ST_YIELD && i + 1 < b->n) {
			fail(s, st->pos, "YieldStmt before the terminating position; YieldStmt must be the trailing statement "
				 "of its scope");
			return;
		}
		if (ir_stmt_is_simple(st->kind))
			continue;
		nrb_block(s, &st->body);
		nrb_block(s, &st->orelse);
	}
}

/* ------------------------------------------------------------ BreakContinueValid */

/* loop: the kind of the innermost enclosing loop (FOR_RANGE for while), -1 outside */
static void bc_block(SV *s, const Block *b, int loop)
{
	for (int i = 0; i < b->n && !s->failed; i++) {
		const Stmt *st = b->stmts[i];
		if (st->kind == ST_BREAK || st->kind == ST_CONTINUE) {
			const char *kw = st->kind == ST_BREAK ? "break" : "continue";
			char m[80];
			if (loop < 0)
				snprintf(m, sizeof m, "'%s' outside loop", kw);
			else if (loop == FOR_PARALLEL)
				snprintf(m, sizeof m, "'%s' not supported in parallel loops", kw);
			else if (loop == FOR_UNROLL)
				snprintf(m, sizeof m, "'%s' not supported in unrolled loops", kw);
			else
				continue;
			fail(s, st->pos, m);
			return;
		}
		if (ir_stmt_is_simple(st->kind))
			continue;
		int inner = st->kind == ST_FOR ? st->for_kind : st->kind == ST_WHILE ? FOR_RANGE : loop;
		bc_block(s, &st->body, inner);
		bc_block(s, &st->orelse, inner);
	}
}

/* ------------------------------------------------------------ UseAfterDef */

static void def_set(SV *s, Var *v, void *val)
{
	vec_push(&s->log, v);
	vec_push(&s->log, pmap_get(&s->defs, v));
	pmap_put(&s->defs, v, val);
}

static void def_undo(SV *s, size_t mark)
{
	while (s->log.len > mark) {
		void *prev = s->log.items[--s->log.len];
		Var *v = s->log.items[--s->log.len];
		pmap_put(&s->defs, v, prev);
	}
}

static void ud_expr(SV *s, const Expr *e, SrcPos pos, bool in_type);

/* The expressions of a type the reference's use walk visits. */
static void ud_type(SV *s, const Type *t, SrcPos pos)
{
	if (!t)
		return;
	if (t->kind == TY_TUPLE) {
		for (int i = 0; i < t->nelems; i++)
			ud_type(s, t->elems[i], pos);
		return;
	}
	if (t->kind != TY_TENSOR && t->kind != TY_DIST_TENSOR && t->kind != TY_TILE)
		return;
	if (t->memref && t->memref->index)
		ud_expr(s, t->memref->index, pos, true);
	for (int i = 0; i < t->ndim; i++)
		ud_expr(s, t->shape[i], pos, true);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			ud_expr(s, t->view->kw[i].value, pos, true);
}

static void ud_expr(SV *s, const Expr *e, SrcPos pos, bool in_type)
{
	if (!e || s->failed)
		return;
	switch (e->kind) {
	case EX_VAR:
		if (!pmap_get(&s->defs, e->var)) {
			char m[400];
			snprintf(m, sizeof m, "Variable '%s' used before definition in function '%s'", e->var->name,
				 s->fn->name);
			fail(s, pos, m);
			return;
		}
		if (!in_type)
			ud_type(s, e->var->type, pos);
		return;
	case EX_BINARY:
		ud_expr(s, e->lhs, pos, in_type);
		ud_expr(s, e->rhs, pos, in_type);
		return;
	case EX_UNARY: case EX_CAST: case EX_GETITEM:
		ud_expr(s, e->lhs, pos, in_type);
		return;
	case EX_TUPLE: case EX_OP_CALL: case EX_FN_CALL: case EX_SUBMIT:
		for (int i = 0; i < e->nargs; i++)
			ud_expr(s, e->args[i], pos, in_type);
		return;
	default:
		return;
	}
}

static void ud_block(SV *s, const Block *b);

static void ud_stmt(SV *s, const Stmt *st)
{
	SrcPos pos = st->pos;
	switch (st->kind) {
	case ST_ASSIGN:
		ud_expr(s, st->value, pos, false);
		def_set(s, st->var, st->var);
		return;
	case ST_EVAL:
		ud_expr(s, st->value, pos, false);
		return;
	case ST_RETURN: case ST_YIELD:
		for (int i = 0; i < st->nvalues; i++)
			ud_expr(s, st->values[i], pos, false);
		return;
	case ST_BREAK: case ST_CONTINUE:
		return;
	case ST_FOR: case ST_WHILE: {
		bool is_for = st->kind == ST_FOR;
		if (is_for) {
			ud_expr(s, st->start, pos, false);
			ud_expr(s, st->stop, pos, false);
			ud_expr(s, st->step, pos, false);
		}
		for (int i = 0; i < st->niter; i++)
			ud_expr(s, st->inits[i], pos, false);
		size_t mark = s->log.len;
		if (is_for && st->var)
			def_set(s, st->var, st->var);
		for (int i = 0; i < st->niter; i++)
			def_set(s, st->iter_args[i], st->iter_args[i]);
		if (!is_for)
			ud_expr(s, st->value, pos, false);
		ud_block(s, &st->body);
		if (st->nrets) {
			def_undo(s, mark);
			for (int i = 0; i < st->nrets; i++)
				def_set(s, st->rets[i], st->rets[i]);
		} else {
			/* the body's definitions stay visible, the loop's own do not */
			if (is_for && st->var)
				def_set(s, st->var, NULL);
			for (int i = 0; i < st->niter; i++)
				def_set(s, st->iter_args[i], NULL);
		}
		return;
	}
	case ST_IF: {
		ud_expr(s, st->value, pos, false);
		size_t mark = s->log.len;
		ud_block(s, &st->body);
		/* what the then branch defined, to add back after the else */
		PtrVec then_defs = { 0 };
		for (size_t i = mark; i < s->log.len; i += 2)
			if (pmap_get(&s->defs, s->log.items[i]))
				vec_push(&then_defs, s->log.items[i]);
		def_undo(s, mark);
		ud_block(s, &st->orelse);
		if (st->nrets) {
			def_undo(s, mark);
			for (int i = 0; i < st->nrets; i++)
				def_set(s, st->rets[i], st->rets[i]);
		} else {
			for (size_t i = 0; i < then_defs.len; i++)
				def_set(s, then_defs.items[i], then_defs.items[i]);
		}
		vec_release(&then_defs);
		return;
	}
	case ST_SCOPE:
		ud_block(s, &st->body);
		return;
	}
}

static void ud_block(SV *s, const Block *b)
{
	for (int i = 0; i < b->n && !s->failed; i++)
		ud_stmt(s, b->stmts[i]);
}

static void type_dyn_vars(SV *s, const Type *t);

static void expr_dyn_vars(SV *s, const Expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case EX_VAR:
		def_set(s, e->var, e->var);
		return;
	case EX_BINARY:
		expr_dyn_vars(s, e->lhs);
		expr_dyn_vars(s, e->rhs);
		return;
	case EX_UNARY: case EX_CAST: case EX_GETITEM:
		expr_dyn_vars(s, e->lhs);
		return;
	case EX_TUPLE: case EX_OP_CALL: case EX_FN_CALL: case EX_SUBMIT:
		for (int i = 0; i < e->nargs; i++)
			expr_dyn_vars(s, e->args[i]);
		return;
	default:
		return;
	}
}

/* The variables a parameter or result type mentions are defined in the body. */
static void type_dyn_vars(SV *s, const Type *t)
{
	if (!t)
		return;
	if (t->kind == TY_TUPLE) {
		for (int i = 0; i < t->nelems; i++)
			type_dyn_vars(s, t->elems[i]);
		return;
	}
	if (t->kind != TY_TENSOR && t->kind != TY_DIST_TENSOR && t->kind != TY_TILE)
		return;
	if (t->memref && t->memref->index)
		expr_dyn_vars(s, t->memref->index);
	for (int i = 0; i < t->ndim; i++)
		expr_dyn_vars(s, t->shape[i]);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			expr_dyn_vars(s, t->view->kw[i].value);
}

static void use_after_def(SV *s, Function *f)
{
	/* a map of its own per function: clearing one sized for the largest
	 * function would cost that size for every small one */
	pmap_release(&s->defs);
	s->defs = (PtrMap){ 0 };
	s->log.len = 0;
	for (int i = 0; i < f->nparams; i++)
		def_set(s, f->params[i].var, f->params[i].var);
	for (int i = 0; i < f->nparams; i++)
		type_dyn_vars(s, f->params[i].var->type);
	for (int i = 0; i < f->nrets; i++)
		type_dyn_vars(s, f->rets[i]);
	ud_block(s, &f->body);
}

/* ------------------------------------------------------------ InOutUseValid */

/* One walk's dead set: Var -> the statement whose call killed it (NULL:
 * alive), with an undo log of (Var, previous) pairs. */
typedef struct IO {
	SV *s;
	PtrMap dead;
	PtrVec log;
	bool report;
	const Stmt *at;      /* the statement being walked */
} IO;

static void dead_set(IO *io, Var *v, const void *val)
{
	vec_push(&io->log, v);
	vec_push(&io->log, pmap_get(&io->dead, v));
	pmap_put(&io->dead, v, (void *)val);
}

/* Reads of e; the InOut / Out arguments of its program calls become dead. */
static void io_expr(IO *io, const Expr *e)
{
	if (!e || (io->report && io->s->failed))
		return;
	switch (e->kind) {
	case EX_VAR: {
		const Stmt *o = pmap_get(&io->dead, e->var);
		if (io->report && o) {
			char m[400];
			snprintf(m, sizeof m,
				 "variable '%s' was passed as InOut/Out at line %d; read the post-call return value "
				 "instead of the pre-call variable",
				 e->var->name, o->pos.line);
			fail(io->s, io->at->pos, m);
		}
		return;
	}
	case EX_BINARY:
		io_expr(io, e->lhs);
		io_expr(io, e->rhs);
		return;
	case EX_UNARY: case EX_CAST: case EX_GETITEM:
		io_expr(io, e->lhs);
		return;
	case EX_TUPLE: case EX_OP_CALL: case EX_SUBMIT:
		for (int i = 0; i < e->nargs; i++)
			io_expr(io, e->args[i]);
		return;
	case EX_FN_CALL: {
		for (int i = 0; i < e->nargs; i++)
			io_expr(io, e->args[i]);
		Function *callee = e->str ? ir_find_function(io->s->p, e->str) : NULL;
		if (!callee)
			return;
		int n = callee->nparams < e->nargs ? callee->nparams : e->nargs;
		for (int i = 0; i < n; i++) {
			ParamDir d = callee->params[i].dir;
			if ((d == DIR_INOUT || d == DIR_OUT) && e->args[i]->kind == EX_VAR &&
			    !pmap_get(&io->dead, e->args[i]->var))
				dead_set(io, e->args[i]->var, io->at);
		}
		return;
	}
	default:
		return;
	}
}

static void io_block(IO *io, const Block *b);

static bool is_iter_arg(const Stmt *st, const Var *v)
{
	for (int i = 0; i < st->niter; i++)
		if (st->iter_args[i] == v)
			return true;
	return false;
}

static void io_loop_body(IO *io, const Stmt *st)
{
	if (io->report) {
		/* a kill in the body reaches the next iteration: what a fresh walk
		 * of the body leaves dead is dead on entry (the iter args aside,
		 * which the header rebinds) */
		IO sub = { .s = io->s };
		sub.at = io->at;
		io_block(&sub, &st->body);
		for (size_t i = 0; i < sub.dead.cap; i++) {
			const Var *v = sub.dead.keys[i];
			if (v && sub.dead.vals[i] && !is_iter_arg(st, v) && !pmap_get(&io->dead, v))
				dead_set(io, (Var *)v, sub.dead.vals[i]);
		}
		pmap_release(&sub.dead);
		vec_release(&sub.log);
	}
	io_block(io, &st->body);
	for (int i = 0; i < st->niter; i++)
		if (pmap_get(&io->dead, st->iter_args[i]))
			dead_set(io, st->iter_args[i], NULL);
}

static void io_stmt(IO *io, const Stmt *st)
{
	io->at = st;
	switch (st->kind) {
	case ST_ASSIGN:
		io_expr(io, st->value);
		if (pmap_get(&io->dead, st->var))
			dead_set(io, st->var, NULL);
		return;
	case ST_EVAL:
		io_expr(io, st->value);
		return;
	case ST_RETURN: case ST_YIELD:
		for (int i = 0; i < st->nvalues; i++)
			io_expr(io, st->values[i]);
		return;
	case ST_BREAK: case ST_CONTINUE:
		return;
	case ST_FOR:
		io_expr(io, st->start);
		io_expr(io, st->stop);
		io_expr(io, st->step);
		for (int i = 0; i < st->niter; i++)
			io_expr(io, st->inits[i]);
		io_loop_body(io, st);
		return;
	case ST_WHILE:
		io_expr(io, st->value);
		for (int i = 0; i < st->niter; i++)
			io_expr(io, st->inits[i]);
		io_loop_body(io, st);
		return;
	case ST_IF: {
		io_expr(io, st->value);
		size_t mark = io->log.len;
		io_block(io, &st->body);
		/* dead after the if: dead after either branch */
		PtrVec then_dead = { 0 };
		for (size_t i = mark; i < io->log.len; i += 2) {
			Var *v = io->log.items[i];
			void *o = pmap_get(&io->dead, v);
			if (o) {
				vec_push(&then_dead, v);
				vec_push(&then_dead, o);
			}
		}
		while (io->log.len > mark) {
			void *prev = io->log.items[--io->log.len];
			Var *v = io->log.items[--io->log.len];
			pmap_put(&io->dead, v, prev);
		}
		io_block(io, &st->orelse);
		for (size_t i = 0; i < then_dead.len; i += 2)
			if (!pmap_get(&io->dead, then_dead.items[i]))
				dead_set(io, then_dead.items[i], then_dead.items[i + 1]);
		vec_release(&then_dead);
		return;
	}
	case ST_SCOPE:
		io_block(io, &st->body);
		return;
	}
}

static void io_block(IO *io, const Block *b)
{
	for (int i = 0; i < b->n && !(io->report && io->s->failed); i++)
		io_stmt(io, b->stmts[i]);
}

static void inout_use(SV *s, Function *f)
{
	if (f->type == FT_GROUP || f->type == FT_SPMD)
		return;
	IO io = { .s = s, .report = true };
	io_block(&io, &f->body);
	pmap_release(&io.dead);
	vec_release(&io.log);
}

/* ------------------------------------------------------------ AtomicAddDtypeValid */

static int atomic_dest(const Expr *e)
{
	if (!strcmp(e->str, "tile.store"))
		return 2;
	if (!strcmp(e->str, "tensor.assemble") || !strcmp(e->str, "pld.tensor.put") || !strcmp(e->str, "pld.tile.put"))
		return 0;
	if (!strcmp(e->str, "pld.tensor.remote_store") || !strcmp(e->str, "pld.tile.remote_store"))
		return 1;
	return -1;
}

static void aa_expr(SV *s, const Expr *e, SrcPos pos)
{
	if (!e || s->failed)
		return;
	switch (e->kind) {
	case EX_BINARY:
		aa_expr(s, e->lhs, pos);
		aa_expr(s, e->rhs, pos);
		return;
	case EX_UNARY: case EX_CAST: case EX_GETITEM:
		aa_expr(s, e->lhs, pos);
		return;
	case EX_OP_CALL: {
		int k = atomic_dest(e);
		const Expr *at = NULL;
		for (int i = 0; i < e->nkw; i++)
			if (!strcmp(e->kw[i].name, "atomic"))
				at = e->kw[i].value;
		if (k >= 0 && k < e->nargs && at && at->kind == EX_SYMBOL && !strcmp(at->str, "pl.AtomicType.Add")) {
			const Type *t = ir_expr_type(e->args[k]);
			if (t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR) && t->dtype == DT_BF16) {
				char m[600];
				snprintf(m, sizeof m,
					 "atomic-add into a bf16 global tensor is not supported on the 'a5' backend (function "
					 "'%s'). bf16 atomic-add requires the Ascend910B (A2/A3) profile, whose store pipe "
					 "honours set_atomic_bf16. Accumulate into an fp32 tensor and cast to bf16 after the "
					 "reduction instead.",
					 s->fn->name);
				fail(s, e->pos.line ? e->pos : pos, m);
				return;
			}
		}
	}
		/* fall through */
	case EX_TUPLE: case EX_FN_CALL: case EX_SUBMIT:
		for (int i = 0; i < e->nargs; i++)
			aa_expr(s, e->args[i], pos);
		return;
	default:
		return;
	}
}

static void aa_block(SV *s, const Block *b)
{
	for (int i = 0; i < b->n && !s->failed; i++) {
		const Stmt *st = b->stmts[i];
		aa_expr(s, st->value, st->pos);
		for (int k = 0; k < st->nvalues; k++)
			aa_expr(s, st->values[k], st->pos);
		if (ir_stmt_is_simple(st->kind))
			continue;
		aa_block(s, &st->body);
		aa_block(s, &st->orelse);
	}
}

/* ------------------------------------------------------------ driver */

bool verify_structural(Program *p, Diag *d, const char *when, const char *pass, bool dirs_ours)
{
	SV s = { .p = p };
	s.check = "TypeCheck";
	for (int i = 0; i < p->nfuncs && !s.failed; i++) {
		s.fn = p->funcs[i];
		if (!s.fn->inline_body)
			tc_block(&s, &s.fn->body);
	}
	s.check = "NoRedundantBlocks";
	for (int i = 0; i < p->nfuncs && !s.failed; i++) {
		s.fn = p->funcs[i];
		if (!s.fn->inline_body)
			nrb_block(&s, &s.fn->body);
	}
	s.check = "BreakContinueCheck";
	for (int i = 0; i < p->nfuncs && !s.failed; i++) {
		s.fn = p->funcs[i];
		if (!s.fn->inline_body)
			bc_block(&s, &s.fn->body, -1);
	}
	s.check = "UseAfterDefCheck";
	for (int i = 0; i < p->nfuncs && !s.failed; i++) {
		s.fn = p->funcs[i];
		if (!s.fn->inline_body)
			use_after_def(&s, s.fn);
	}
	pmap_release(&s.defs);
	vec_release(&s.log);
	if (s.failed) {
		diag_error(d, s.pos.line, s.pos.col, "%s-verification failed %s pass '%s': %s: %s",
			   !strcmp(when, "before") ? "Pre" : "Post", when, pass, s.failed_check, s.msg);
		return false;
	}
	if (!verify_no_nested_incore(p, d))
		return false;
	/* not once the outliners or infer-directions set directions: those
	 * are ptoopt's, not always the reference's, and a difference there is
	 * not the program's fault */
	s.check = "InOutUseValid";
	for (int i = 0; i < p->nfuncs && !s.failed && !dirs_ours; i++) {
		s.fn = p->funcs[i];
		if (!s.fn->inline_body)
			inout_use(&s, s.fn);
	}
	s.check = "AtomicAddDtypeValid";
	for (int i = 0; i < p->nfuncs && !s.failed; i++) {
		s.fn = p->funcs[i];
		if (!s.fn->inline_body)
			aa_block(&s, &s.fn->body);
	}
	if (s.failed) {
		diag_error(d, s.pos.line, s.pos.col, "%s-verification failed %s pass '%s': %s: %s",
			   !strcmp(when, "before") ? "Pre" : "Post", when, pass, s.failed_check, s.msg);
		return false;
	}
	return true;
}
