/* verify_structural.c - the reference's structural properties, verified
 * before the first pass and after the passes that rebuild statements (as
 * its pass context does with BEFORE_AND_AFTER verification, which its tests
 * use): the ones a program can break on its own, in the reference's
 * property order, the first violation reported.
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
 * The reference runs one check after the other over the whole program; here
 * one walk per function runs them all at once, which reports the same
 * violation: every check visits statements and expressions in the same
 * pre-order, each keeps its first violation, and a check ranked after one
 * that already failed stops (so the lowest failed check, found first in
 * function order, is the one reported).  InOutUseValid, which walks a loop's
 * body once more per enclosing loop, only walks the functions that pass a
 * variable to an InOut or Out parameter (the walk notes them): elsewhere
 * nothing is ever dead.  Linear in the program (up to the loop nesting depth
 * the parser bounds, for those functions). */
#include "ptoopt/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/ir_walk.h"
#include "ptoopt/typerule.h"

/* The checks, in the reference's order. */
enum { K_TC, K_NRB, K_BC, K_UD, K_NEST, K_IO, K_AA, K_NONE };

static const char *const check_names[K_NONE] = {
	"TypeCheck", "NoRedundantBlocks", "BreakContinueCheck", "UseAfterDefCheck", "NoNestedInCore",
	"InOutUseValid", "AtomicAddDtypeValid",
};

/* UseAfterDef's undo log entry: a Var id and whether it was defined. */
typedef struct DefLog {
	unsigned id;
	bool was;
} DefLog;

typedef struct SV {
	Program *p;
	Function *fn;
	char msg[640];
	SrcPos pos;
	int first;           /* the lowest check that failed (K_NONE: none) */
	/* UseAfterDef: defined[Var id] while the Var is defined, with an undo log */
	bool *defined;
	size_t ndefined;
	DefLog *log;
	size_t nlog, clog;
	bool kills;          /* the function passes a Var to an InOut / Out parameter */
	/* the use walk's (ud_walk) statement position and flags */
	SrcPos at;
	bool aa, in_type;
	bool io_on;          /* InOutUseValid applies to the function */
	VarTab io_dead, io_sub; /* InOutUseValid's dead sets (IO) */
	const Type *plain[256]; /* types seen to mention no Var (by address) */
} SV;

/* Whether check k still runs: none ranked before it has failed. */
static inline bool active(const SV *s, int k) { return k < s->first; }

static void fail(SV *s, int k, SrcPos pos, const char *msg)
{
	if (!active(s, k))
		return;
	s->first = k;
	s->pos = pos;
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
	if (a == b || !kind_known(a) || !kind_known(b) || !active(s, K_TC))
		return;
	if (a->kind != b->kind) {
		snprintf(m, sizeof m, "Type kind mismatch in %s: %s type '%s' != %s type '%s'", ctx, da, tr_type_name(a),
			 db, tr_type_name(b));
		fail(s, K_TC, pos, m);
		return;
	}
	if (a->kind == TY_TUPLE) {
		if (a->nelems != b->nelems) {
			snprintf(m, sizeof m, "Tuple size mismatch in %s: %s has %d elements, but %s has %d elements", ctx,
				 da, a->nelems, db, b->nelems);
			fail(s, K_TC, pos, m);
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
		fail(s, K_TC, pos, m);
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
		fail(s, K_TC, st->pos, m);
		return;
	}
	for (int i = 0; i < st->niter && active(s, K_TC); i++) {
		Type *it = st->iter_args[i]->type, *yt = ir_expr_type(y->values[i]), *rt = st->rets[i]->type;
		Type *init = st->inits ? ir_expr_type(st->inits[i]) : it;
		if (init == it && it == yt && yt == rt)
			continue; /* (hash-consed: equal types are one) */
		char a[64], b[64], c[64], r[64];
		snprintf(a, sizeof a, "iter_arg[%d] initValue", i);
		snprintf(b, sizeof b, "declared iter_arg[%d]", i);
		snprintf(c, sizeof c, "yield value[%d]", i);
		snprintf(r, sizeof r, "return_var[%d]", i);
		type_eq(s, init, it, ctx, a, b, st->pos);
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
		fail(s, K_TC, st->pos, m);
		return;
	}
	for (int i = 0; i < ty->nvalues && active(s, K_TC); i++) {
		Type *tt = ir_expr_type(ty->values[i]), *et = ir_expr_type(ey->values[i]), *rt = st->rets[i]->type;
		if (tt == et && tt == rt)
			continue;
		char a[64], b[64], r[64];
		snprintf(a, sizeof a, "then yield value[%d]", i);
		snprintf(b, sizeof b, "else yield value[%d]", i);
		snprintf(r, sizeof r, "return_var[%d]", i);
		type_eq(s, tt, et, "IfStmt", a, b, st->pos);
		type_eq(s, tt, rt, "IfStmt", a, r, st->pos);
	}
}

/* ------------------------------------------------------------ BreakContinueValid */

/* loop: the kind of the innermost enclosing loop (FOR_RANGE for while), -1 outside */
static void bc_check(SV *s, const Stmt *st, int loop)
{
	const char *kw = st->kind == ST_BREAK ? "break" : "continue";
	char m[80];
	if (loop < 0)
		snprintf(m, sizeof m, "'%s' outside loop", kw);
	else if (loop == FOR_PARALLEL)
		snprintf(m, sizeof m, "'%s' not supported in parallel loops", kw);
	else if (loop == FOR_UNROLL)
		snprintf(m, sizeof m, "'%s' not supported in unrolled loops", kw);
	else
		return;
	fail(s, K_BC, st->pos, m);
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

/* The check at one op call (its arguments are the walk's). */
static void aa_call(SV *s, const Expr *e, SrcPos pos)
{
	const Expr *at = NULL;
	for (int i = 0; i < e->nkw; i++)
		if (!strcmp(e->kw[i].name, "atomic"))
			at = e->kw[i].value;
	if (!at || at->kind != EX_SYMBOL || strcmp(at->str, "pl.AtomicType.Add"))
		return;
	int k = atomic_dest(e);
	if (k < 0 || k >= e->nargs)
		return;
	const Type *t = ir_expr_type(e->args[k]);
	if (t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR) && t->dtype == DT_BF16) {
		char m[600];
		snprintf(m, sizeof m,
			 "atomic-add into a bf16 global tensor is not supported on the 'a5' backend (function "
			 "'%s'). bf16 atomic-add requires the Ascend910B (A2/A3) profile, whose store pipe "
			 "honours set_atomic_bf16. Accumulate into an fp32 tensor and cast to bf16 after the "
			 "reduction instead.",
			 s->fn->name);
		fail(s, K_AA, e->pos.line ? e->pos : pos, m);
	}
}

/* ------------------------------------------------------------ UseAfterDef */

static inline void def_set_id(SV *s, unsigned id, bool on)
{
	if (id >= s->ndefined) {
		size_t n = s->ndefined ? s->ndefined : 64;
		while (n <= id)
			n *= 2;
		s->defined = xrealloc(s->defined, n * sizeof *s->defined);
		memset(s->defined + s->ndefined, 0, (n - s->ndefined) * sizeof *s->defined);
		s->ndefined = n;
	}
	if (s->nlog == s->clog) {
		s->clog = s->clog ? 2 * s->clog : 256;
		s->log = xrealloc(s->log, s->clog * sizeof *s->log);
	}
	s->log[s->nlog++] = (DefLog){ id, s->defined[id] };
	s->defined[id] = on;
}

static void def_set(SV *s, const Var *v, bool on) { def_set_id(s, v->id, on); }

static inline bool def_get(const SV *s, const Var *v) { return v->id < s->ndefined && s->defined[v->id]; }

static void def_undo(SV *s, size_t mark)
{
	while (s->nlog > mark) {
		DefLog l = s->log[--s->nlog];
		s->defined[l.id] = l.was;
	}
}

/* Whether a call of e passes a Var to an InOut / Out parameter (what makes
 * a Var dead for InOutUseValid). */
static bool kills(SV *s, const Expr *e)
{
	Function *callee = e->str ? ir_find_function(s->p, e->str) : NULL;
	if (!callee)
		return false;
	int n = callee->nparams < e->nargs ? callee->nparams : e->nargs;
	for (int i = 0; i < n; i++) {
		ParamDir d = callee->params[i].dir;
		if ((d == DIR_INOUT || d == DIR_OUT) && e->args[i]->kind == EX_VAR)
			return true;
	}
	return false;
}

static void ud_walk(SV *s, const Expr *e);

/* Nodes below which the walk has something to do. */
static inline bool walked(const Expr *e)
{
	return e && (e->kind == EX_VAR || e->kind >= EX_BINARY);
}

/* Whether e reaches a Var where ud_walk would look. */
static bool has_var(const Expr *e)
{
	if (!e)
		return false;
	switch (e->kind) {
	case EX_VAR:
		return true;
	case EX_BINARY:
		return has_var(e->lhs) || has_var(e->rhs);
	case EX_UNARY: case EX_CAST: case EX_GETITEM:
		return has_var(e->lhs);
	case EX_TUPLE: case EX_OP_CALL: case EX_FN_CALL: case EX_SUBMIT:
		for (int i = 0; i < e->nargs; i++)
			if (has_var(e->args[i]))
				return true;
		return false;
	default:
		return false;
	}
}

/* Whether ud_type(t) has nothing to check (types are shared, and most
 * shapes are constants: remembered). */
static bool type_plain(SV *s, const Type *t)
{
	size_t h = ((uintptr_t)t >> 4) & (sizeof s->plain / sizeof *s->plain - 1);
	if (s->plain[h] == t)
		return true;
	if (t->kind == TY_TUPLE) {
		for (int i = 0; i < t->nelems; i++)
			if (t->elems[i] && !type_plain(s, t->elems[i]))
				return false;
	} else if (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR || t->kind == TY_TILE) {
		if (t->memref && has_var(t->memref->index))
			return false;
		for (int i = 0; i < t->ndim; i++)
			if (has_var(t->shape[i]))
				return false;
		if (t->view)
			for (int i = 0; i < t->view->nkw; i++)
				if (has_var(t->view->kw[i].value))
					return false;
	}
	s->plain[h] = t;
	return true;
}

/* The expressions of a type the reference's use walk visits (the Vars in
 * them without their own types, and no op-call checks). */
static void ud_type(SV *s, const Type *t)
{
	if (!t)
		return;
	if (t->kind == TY_TUPLE) {
		for (int i = 0; i < t->nelems; i++)
			ud_type(s, t->elems[i]);
		return;
	}
	if (t->kind != TY_TENSOR && t->kind != TY_DIST_TENSOR && t->kind != TY_TILE)
		return;
	bool in_type = s->in_type, aa = s->aa;
	s->in_type = true;
	s->aa = false;
	if (t->memref && walked(t->memref->index))
		ud_walk(s, t->memref->index);
	for (int i = 0; i < t->ndim; i++)
		if (walked(t->shape[i]))
			ud_walk(s, t->shape[i]);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			if (walked(t->view->kw[i].value))
				ud_walk(s, t->view->kw[i].value);
	s->in_type = in_type;
	s->aa = aa;
}

/* The uses in e (UseAfterDef), with s->aa AtomicAddDtypeValid's check of
 * its op calls; notes calls that kill a Var for InOutUseValid.  e is
 * walked(); after a failure the walk may go on (fail() keeps the first). */
static void ud_walk(SV *s, const Expr *e)
{
	for (;;) {
		switch (e->kind) {
		case EX_VAR:
			if (!def_get(s, e->var)) {
				char m[400];
				snprintf(m, sizeof m, "Variable '%s' used before definition in function '%s'", e->var->name,
					 s->fn->name);
				fail(s, K_UD, s->at, m);
				return;
			}
			if (!s->in_type && e->var->type && !type_plain(s, e->var->type))
				ud_type(s, e->var->type);
			return;
		case EX_BINARY:
			if (walked(e->lhs))
				ud_walk(s, e->lhs);
			e = e->rhs;
			if (!walked(e))
				return;
			continue;
		case EX_UNARY: case EX_CAST: case EX_GETITEM:
			e = e->lhs;
			if (!walked(e))
				return;
			continue;
		case EX_OP_CALL:
			if (s->aa && e->nkw)
				aa_call(s, e, s->at);
			break;
		case EX_FN_CALL:
			if (s->io_on && !s->kills && kills(s, e))
				s->kills = true;
			break;
		case EX_TUPLE: case EX_SUBMIT:
			break;
		default:
			return;
		}
		for (int i = 0; i < e->nargs; i++)
			if (walked(e->args[i]))
				ud_walk(s, e->args[i]);
		return;
	}
}

/* A statement's expression e at pos; aa: AtomicAddDtypeValid checks it too. */
static void ud_expr(SV *s, const Expr *e, SrcPos pos, bool aa)
{
	if (!walked(e) || !active(s, K_UD))
		return;
	s->at = pos;
	s->aa = aa && active(s, K_AA);
	s->in_type = false;
	ud_walk(s, e);
}

/* AtomicAddDtypeValid alone, on an expression the use walk does not visit. */
static void aa_expr(SV *s, const Expr *e, SrcPos pos)
{
	if (!e || !active(s, K_AA))
		return;
	switch (e->kind) {
	case EX_BINARY:
		aa_expr(s, e->lhs, pos);
		aa_expr(s, e->rhs, pos);
		return;
	case EX_UNARY: case EX_CAST: case EX_GETITEM:
		aa_expr(s, e->lhs, pos);
		return;
	case EX_OP_CALL:
		if (e->nkw)
			aa_call(s, e, pos);
		/* fall through */
	case EX_TUPLE: case EX_FN_CALL: case EX_SUBMIT:
		for (int i = 0; i < e->nargs; i++)
			aa_expr(s, e->args[i], pos);
		return;
	default:
		return;
	}
}

static void type_dyn_vars(SV *s, const Type *t);

static void expr_dyn_vars(SV *s, const Expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case EX_VAR:
		def_set(s, e->var, true);
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

/* ------------------------------------------------------------ the walk */

static void sv_block(SV *s, const Block *b, int loop, bool in_incore);

/* UseAfterDef's (and AtomicAddDtypeValid's) part of a statement around its
 * bodies, and the walk into them. */
static void sv_compound(SV *s, const Stmt *st, int loop, bool in_incore)
{
	SrcPos pos = st->pos;
	bool ud = active(s, K_UD);
	switch (st->kind) {
	case ST_FOR: case ST_WHILE: {
		bool is_for = st->kind == ST_FOR;
		int inner = is_for ? st->for_kind : FOR_RANGE;
		if (is_for && ud) {
			ud_expr(s, st->start, pos, false);
			ud_expr(s, st->stop, pos, false);
			ud_expr(s, st->step, pos, false);
		}
		for (int i = 0; i < st->niter && ud; i++)
			ud_expr(s, st->inits[i], pos, false);
		size_t mark = s->nlog;
		if (ud) {
			if (is_for && st->var)
				def_set(s, st->var, true);
			for (int i = 0; i < st->niter; i++)
				def_set(s, st->iter_args[i], true);
		}
		if (!is_for && ud)
			ud_expr(s, st->value, pos, true);
		else
			aa_expr(s, st->value, pos);
		sv_block(s, &st->body, inner, in_incore);
		if (!active(s, K_UD))
			return;
		if (st->nrets) {
			def_undo(s, mark);
			for (int i = 0; i < st->nrets; i++)
				def_set(s, st->rets[i], true);
		} else {
			/* the body's definitions stay visible, the loop's own do not */
			if (is_for && st->var)
				def_set(s, st->var, false);
			for (int i = 0; i < st->niter; i++)
				def_set(s, st->iter_args[i], false);
		}
		return;
	}
	case ST_IF: {
		if (ud)
			ud_expr(s, st->value, pos, true);
		size_t mark = s->nlog;
		sv_block(s, &st->body, loop, in_incore);
		if (!active(s, K_UD)) {
			sv_block(s, &st->orelse, loop, in_incore);
			return;
		}
		/* what the then branch defined, to add back after the else */
		size_t nthen = 0;
		for (size_t i = mark; i < s->nlog; i++)
			nthen += s->defined[s->log[i].id];
		unsigned *then_defs = nthen ? xmalloc(nthen * sizeof *then_defs) : NULL;
		nthen = 0;
		for (size_t i = mark; i < s->nlog; i++)
			if (s->defined[s->log[i].id])
				then_defs[nthen++] = s->log[i].id;
		def_undo(s, mark);
		sv_block(s, &st->orelse, loop, in_incore);
		if (active(s, K_UD)) {
			if (st->nrets) {
				def_undo(s, mark);
				for (int i = 0; i < st->nrets; i++)
					def_set(s, st->rets[i], true);
			} else {
				for (size_t i = 0; i < nthen; i++)
					def_set_id(s, then_defs[i], true);
			}
		}
		free(then_defs);
		return;
	}
	case ST_SCOPE: {
		bool incore = st->scope->kind == SC_INCORE;
		if (incore && in_incore)
			fail(s, K_NEST, st->pos, "");
		aa_expr(s, st->value, pos);
		sv_block(s, &st->body, loop, in_incore || incore);
		return;
	}
	default:
		return;
	}
}

static void sv_block(SV *s, const Block *b, int loop, bool in_incore)
{
	for (int i = 0; i < b->n && s->first > K_TC; i++) {
		const Stmt *st = b->stmts[i];
		SrcPos pos = st->pos;
		switch (st->kind) {
		case ST_ASSIGN:
			ud_expr(s, st->value, pos, true);
			if (active(s, K_UD))
				def_set(s, st->var, true);
			break;
		case ST_EVAL:
			ud_expr(s, st->value, pos, true);
			break;
		case ST_RETURN:
			for (int k = 0; k < st->nvalues; k++)
				ud_expr(s, st->values[k], pos, true);
			break;
		case ST_YIELD:
			if (i + 1 < b->n)
				fail(s, K_NRB, pos, "YieldStmt before the terminating position; YieldStmt must be the "
					 "trailing statement of its scope");
			for (int k = 0; k < st->nvalues; k++)
				ud_expr(s, st->values[k], pos, true);
			break;
		case ST_BREAK: case ST_CONTINUE:
			if (active(s, K_BC))
				bc_check(s, st, loop);
			break;
		case ST_FOR: case ST_WHILE:
			tc_loop(s, st);
			sv_compound(s, st, loop, in_incore);
			break;
		case ST_IF:
			tc_if(s, st);
			sv_compound(s, st, loop, in_incore);
			break;
		case ST_SCOPE:
			sv_compound(s, st, loop, in_incore);
			break;
		}
	}
}

/* NoNestedInCore alone (a function the other checks skip). */
static bool nested_incore(const Block *b, bool in_incore)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *st = b->stmts[i];
		if (ir_stmt_is_simple(st->kind))
			continue;
		bool incore = st->kind == ST_SCOPE && st->scope->kind == SC_INCORE;
		if ((incore && in_incore) || nested_incore(&st->body, in_incore || incore) ||
		    nested_incore(&st->orelse, in_incore || incore))
			return true;
	}
	return false;
}

/* All checks on one function; whether InOutUseValid has to walk it. */
static bool sv_function(SV *s, Function *f, bool dirs_ours)
{
	if (f->inline_body) {
		if (active(s, K_NEST) && nested_incore(&f->body, false))
			fail(s, K_NEST, (SrcPos){ 0, 0 }, "");
		return false;
	}
	s->fn = f;
	s->kills = false;
	s->io_on = !dirs_ours && f->type != FT_GROUP && f->type != FT_SPMD && active(s, K_IO);
	s->nlog = 0;
	for (int i = 0; i < f->nparams; i++)
		def_set(s, f->params[i].var, true);
	for (int i = 0; i < f->nparams; i++)
		type_dyn_vars(s, f->params[i].var->type);
	for (int i = 0; i < f->nrets; i++)
		type_dyn_vars(s, f->rets[i]);
	sv_block(s, &f->body, -1, false);
	def_undo(s, 0);
	return s->io_on && s->kills;
}

/* ------------------------------------------------------------ InOutUseValid */

/* One walk's dead set: Var -> the statement whose call killed it (NULL:
 * alive), with an undo log of (Var, previous) pairs. */
typedef struct IO {
	SV *s;
	VarTab *dead;        /* SV's: the function's walk, or a loop body's fresh one */
	PtrVec log;
	bool report;
	const Stmt *at;      /* the statement being walked */
} IO;

static void dead_set(IO *io, Var *v, const void *val)
{
	vec_push(&io->log, v);
	vec_push(&io->log, vtab_get(io->dead, v));
	vtab_put(io->dead, v, (void *)val);
}

/* Reads of e; the InOut / Out arguments of its program calls become dead. */
static void io_expr(IO *io, const Expr *e)
{
	if (!e || (io->report && !active(io->s, K_IO)))
		return;
	switch (e->kind) {
	case EX_VAR: {
		const Stmt *o = vtab_get(io->dead, e->var);
		if (io->report && o) {
			char m[400];
			snprintf(m, sizeof m,
				 "variable '%s' was passed as InOut/Out at line %d; read the post-call return value "
				 "instead of the pre-call variable",
				 e->var->name, o->pos.line);
			fail(io->s, K_IO, io->at->pos, m);
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
			    !vtab_get(io->dead, e->args[i]->var))
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
		IO sub = { .s = io->s, .dead = &io->s->io_sub, .at = io->at };
		io_block(&sub, &st->body);
		for (size_t i = 0; i < sub.log.len; i += 2) {
			Var *v = sub.log.items[i];
			void *o = vtab_get(sub.dead, v);
			if (o && !is_iter_arg(st, v) && !vtab_get(io->dead, v))
				dead_set(io, v, o);
		}
		vtab_clear(sub.dead);
		vec_release(&sub.log);
	}
	io_block(io, &st->body);
	for (int i = 0; i < st->niter; i++)
		if (vtab_get(io->dead, st->iter_args[i]))
			dead_set(io, st->iter_args[i], NULL);
}

static void io_stmt(IO *io, const Stmt *st)
{
	io->at = st;
	switch (st->kind) {
	case ST_ASSIGN:
		io_expr(io, st->value);
		if (vtab_get(io->dead, st->var))
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
			void *o = vtab_get(io->dead, v);
			if (o) {
				vec_push(&then_dead, v);
				vec_push(&then_dead, o);
			}
		}
		while (io->log.len > mark) {
			void *prev = io->log.items[--io->log.len];
			Var *v = io->log.items[--io->log.len];
			vtab_put(io->dead, v, prev);
		}
		io_block(io, &st->orelse);
		for (size_t i = 0; i < then_dead.len; i += 2)
			if (!vtab_get(io->dead, then_dead.items[i]))
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
	for (int i = 0; i < b->n && !(io->report && !active(io->s, K_IO)); i++)
		io_stmt(io, b->stmts[i]);
}


/* ------------------------------------------------------------ driver */

bool verify_structural(Program *p, Diag *d, const char *when, const char *pass, bool dirs_ours)
{
	SV s = { .p = p, .first = K_NONE };
	s.ndefined = p->next_var_id + 1;
	s.defined = xmalloc(s.ndefined * sizeof *s.defined);
	memset(s.defined, 0, s.ndefined * sizeof *s.defined);
	bool *io_fns = xmalloc((size_t)(p->nfuncs + 1) * sizeof *io_fns);
	memset(io_fns, 0, (size_t)(p->nfuncs + 1) * sizeof *io_fns);
	for (int i = 0; i < p->nfuncs && s.first > K_TC; i++)
		if (!p->funcs[i]->verified)
			io_fns[i] = sv_function(&s, p->funcs[i], dirs_ours);
	free(s.defined);
	free(s.log);
	if (s.first == K_NEST) {
		free(io_fns);
		/* the same function's first nesting, in that check's order */
		return verify_no_nested_incore(p, d);
	}
	/* InOutUseValid where it can fail, if nothing ranked before it did */
	for (int i = 0; i < p->nfuncs && active(&s, K_IO); i++) {
		if (!io_fns[i])
			continue;
		s.fn = p->funcs[i];
		IO io = { .s = &s, .dead = &s.io_dead, .report = true };
		io_block(&io, &s.fn->body);
		vtab_clear(io.dead);
		vec_release(&io.log);
	}
	vtab_release(&s.io_dead);
	vtab_release(&s.io_sub);
	free(io_fns);
	if (s.first == K_NONE)
		return true;
	diag_error(d, s.pos.line, s.pos.col, "%s-verification failed %s pass '%s': %s: %s",
		   !strcmp(when, "before") ? "Pre" : "Post", when, pass, check_names[s.first], s.msg);
	return false;
}
