/* verify.c - IR verifiers run between passes (--verify-each) and in tests.
 *
 * verify_ssa: in every function each variable is defined once (parameters,
 * assignment targets, loop variables, iter args, return vars), defined
 * before it is used, and used only where its definition is visible: loop
 * and if bodies end their definitions (only return vars survive), scopes
 * (`with ...`) do not.  Dynamic dimensions are program-wide and always
 * visible.
 */
#include "ptoopt/verify.h"
#include "ptoopt/ir_walk.h"
#include "ptoopt/op_registry.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Verifier {
	Diag *d;
	const char *after;   /* pass name for messages */
	Function *fn;
	VarTab defined;      /* every Var defined so far in the function */
	VarTab visible;      /* Var -> non-NULL while visible */
	Var **log;           /* visible-set undo log */
	size_t nlog, clog;
	bool failed;
	bool ref_rules;      /* verify_ssa_ref: only assignments count as definitions */
} Verifier;

static void fail(Verifier *v, SrcPos pos, const char *fmt, const char *name)
{
	if (v->failed)
		return;
	v->failed = true;
	char msg[400];
	snprintf(msg, sizeof msg, fmt, name);
	if (v->after)
		diag_error(v->d, pos.line, pos.col, "SSA verification failed after %s in function '%s': %s", v->after,
			   v->fn->name, msg);
	else
		diag_error(v->d, pos.line, pos.col, "SSA verification failed in function '%s': %s", v->fn->name, msg);
}

/* A binding that is not an assignment (parameter, loop variable, iter
 * arg): under the reference's rules it makes the variable visible without
 * counting as one of its definitions. */
static void bind(Verifier *v, Var *x, SrcPos pos);

/* x becomes visible until the enclosing scope's undo log is unwound */
static void make_visible(Verifier *v, Var *x)
{
	if (v->nlog == v->clog) {
		v->clog = v->clog ? v->clog * 2 : 64;
		v->log = xrealloc(v->log, v->clog * sizeof *v->log);
	}
	v->log[v->nlog++] = x;
	vtab_put(&v->visible, x, x);
}

static void define(Verifier *v, Var *x, SrcPos pos)
{
	if (!x)
		return;
	if (vtab_get(&v->defined, x))
		fail(v, pos, "variable '%s' is defined more than once", x->name);
	vtab_put(&v->defined, x, x);
	/* already visible from an enclosing binding (a parameter assigned in
	 * a loop, under the reference's rules): it stays visible after this
	 * scope, so the scope's undo log must not hide it */
	if (vtab_get(&v->visible, x))
		return;
	make_visible(v, x);
}

static void bind(Verifier *v, Var *x, SrcPos pos)
{
	if (!x || !v->ref_rules) {
		define(v, x, pos);
		return;
	}
	make_visible(v, x);
}

static void end_scope(Verifier *v, size_t mark)
{
	while (v->nlog > mark)
		vtab_put(&v->visible, v->log[--v->nlog], NULL);
}

static void use_expr(Verifier *v, const Expr *e, SrcPos at)
{
	if (!e || v->failed)
		return;
	if (e->kind == EX_VAR) {
		Var *x = e->var;
		if (x->kind == VK_DYN || vtab_get(&v->visible, x))
			return;
		if (vtab_get(&v->defined, x))
			fail(v, at, "variable '%s' is used outside the scope that defines it", x->name);
		else
			fail(v, at, "variable '%s' is used before it is defined", x->name);
		return;
	}
	use_expr(v, e->lhs, at);
	use_expr(v, e->rhs, at);
	for (int i = 0; i < e->nargs; i++)
		use_expr(v, e->args[i], at);
	for (int i = 0; i < e->nkw; i++)
		use_expr(v, e->kw[i].value, at);
	use_expr(v, e->attrs, at);
}

static void check_block(Verifier *v, const Block *b);

static void check_stmt(Verifier *v, const Stmt *s)
{
	switch (s->kind) {
	case ST_ASSIGN:
		use_expr(v, s->value, s->pos);
		define(v, s->var, s->pos);
		return;
	case ST_EVAL:
		use_expr(v, s->value, s->pos);
		return;
	case ST_RETURN: case ST_YIELD:
		for (int i = 0; i < s->nvalues; i++)
			use_expr(v, s->values[i], s->pos);
		return;
	case ST_FOR: case ST_WHILE: {
		use_expr(v, s->start, s->pos);
		use_expr(v, s->stop, s->pos);
		use_expr(v, s->step, s->pos);
		for (int i = 0; i < s->niter; i++)
			use_expr(v, s->inits[i], s->pos);
		size_t mark = v->nlog;
		bind(v, s->var, s->pos);
		for (int i = 0; i < s->niter; i++)
			bind(v, s->iter_args[i], s->pos);
		if (s->kind == ST_WHILE)
			use_expr(v, s->value, s->pos);
		check_block(v, &s->body);
		end_scope(v, mark);
		for (int i = 0; i < s->nrets; i++)
			define(v, s->rets[i], s->pos);
		return;
	}
	case ST_IF: {
		use_expr(v, s->value, s->pos);
		size_t mark = v->nlog;
		check_block(v, &s->body);
		end_scope(v, mark);
		check_block(v, &s->orelse);
		end_scope(v, mark);
		for (int i = 0; i < s->nrets; i++)
			define(v, s->rets[i], s->pos);
		return;
	}
	case ST_SCOPE: {
		const Scope *sc = s->scope;
		use_expr(v, sc->core_num, s->pos);
		use_expr(v, sc->predicate, s->pos);
		check_block(v, &s->body); /* definitions stay visible after a scope */
		return;
	}
	case ST_BREAK: case ST_CONTINUE:
		return;
	}
}

static void check_block(Verifier *v, const Block *b)
{
	for (int i = 0; i < b->n && !v->failed; i++)
		check_stmt(v, b->stmts[i]);
}

static bool check_ssa(Program *p, Diag *d, const char *after_pass, bool ref_rules)
{
	Verifier v = { 0 };
	v.d = d;
	v.after = after_pass;
	v.ref_rules = ref_rules;
	vtab_reserve(&v.defined, p);
	vtab_reserve(&v.visible, p);
	for (int i = 0; i < p->nfuncs && !v.failed; i++) {
		Function *f = p->funcs[i];
		if (f->role == RL_SUBWORKER && f->level >= LV_HOST)
			continue;
		v.fn = f;
		vtab_clear(&v.defined);
		vtab_clear(&v.visible);
		v.nlog = 0;
		for (int j = 0; j < f->nparams; j++)
			bind(&v, f->params[j].var, f->pos);
		check_block(&v, &f->body);
	}
	vtab_release(&v.defined);
	vtab_release(&v.visible);
	free(v.log);
	return !v.failed;
}

bool verify_ssa(Program *p, Diag *d, const char *after_pass) { return check_ssa(p, d, after_pass, false); }

bool verify_ssa_ref(Program *p, Diag *d, const char *after_pass) { return check_ssa(p, d, after_pass, true); }

/* ------------------------------------------------------------ outlined scopes */

bool verify_incore_outlined(Program *p, Diag *d)
{
	for (int i = 0; i < p->nfuncs; i++) {
		const Function *f = p->funcs[i];
		if (f->type == FT_INCORE)
			continue;
		const Stmt *s = ir_find_scope(&f->body, SC_INCORE);
		if (s) {
			diag_error(d, s->pos.line, s->pos.col,
				   "InCore ScopeStmt found in non-InCore function (should have been outlined): function '%s'",
				   f->name);
			return false;
		}
	}
	return true;
}

bool verify_no_nested_incore(Program *p, Diag *d)
{
	for (int i = 0; i < p->nfuncs; i++) {
		PtrVec todo = { 0 };
		vec_push(&todo, &p->funcs[i]->body);
		const Stmt *bad = NULL;
		/* every InCore scope's body, searched for another one */
		while (todo.len && !bad) {
			const Block *b = todo.items[--todo.len];
			for (int j = 0; j < b->n && !bad; j++) {
				const Stmt *s = b->stmts[j];
				if (s->kind == ST_SCOPE && s->scope->kind == SC_INCORE)
					bad = ir_find_scope(&s->body, SC_INCORE);
				else if (!ir_stmt_is_simple(s->kind)) {
					vec_push(&todo, (void *)&s->body);
					vec_push(&todo, (void *)&s->orelse);
				}
			}
		}
		vec_release(&todo);
		if (bad) {
			diag_error(d, bad->pos.line, bad->pos.col,
				   "Nested InCore scope detected — InCore scopes must not contain other InCore scopes "
				   "(function '%s')", p->funcs[i]->name);
			return false;
		}
	}
	return true;
}

bool verify_clusters_outlined(Program *p, Diag *d)
{
	for (int i = 0; i < p->nfuncs; i++) {
		const Function *f = p->funcs[i];
		if (f->type == FT_GROUP || f->type == FT_SPMD)
			continue;
		/* one walk for both kinds; a Cluster scope is named first, as
		 * the reference's checks run in that order */
		const Stmt *s = ir_find_scope_of(&f->body, 1u << SC_CLUSTER | 1u << SC_SPMD);
		const char *what = "Cluster";
		if (s && s->scope->kind == SC_SPMD) {
			const Stmt *c = ir_find_scope(&f->body, SC_CLUSTER);
			if (c)
				s = c;
			else
				what = "Spmd";
		}
		if (s) {
			diag_error(d, s->pos.line, s->pos.col,
				   "%s ScopeStmt found in non-Group function (should have been outlined): function '%s'",
				   what, f->name);
			return false;
		}
	}
	return true;
}

/* ------------------------------------------------------------ call directions */

typedef struct CallCheck {
	Program *p;
	Diag *d;
	const Function *fn;
	bool failed;
} CallCheck;

static const char *adir_name(const char *sym)
{
	static const char *const map[][2] = {
		{ "pl.adir.input", "Input" }, { "pl.adir.output", "Output" },
		{ "pl.adir.output_existing", "OutputExisting" }, { "pl.adir.inout", "InOut" },
		{ "pl.adir.no_dep", "NoDep" }, { "pl.adir.scalar", "Scalar" },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i][0], sym) == 0)
			return map[i][1];
	return NULL;
}

static bool allowed(ParamDir pd, const char *adir)
{
	if (strcmp(adir, "NoDep") == 0)
		return true;
	switch (pd) {
	case DIR_IN: return strcmp(adir, "Input") == 0;
	case DIR_INOUT: return strcmp(adir, "InOut") == 0 || strcmp(adir, "OutputExisting") == 0;
	case DIR_OUT:
		return strcmp(adir, "Output") == 0 || strcmp(adir, "OutputExisting") == 0 || strcmp(adir, "InOut") == 0;
	}
	return false;
}

static void call_fail(CallCheck *c, const Expr *e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void call_fail(CallCheck *c, const Expr *e, const char *fmt, ...)
{
	if (c->failed)
		return;
	c->failed = true;
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_error(c->d, e->pos.line, e->pos.col, "in function '%s', call to '%s': %s", c->fn->name, e->str, msg);
}

static void check_call_expr(CallCheck *c, const Expr *e)
{
	if (!e || e->kind == EX_VAR || c->failed)
		return;
	check_call_expr(c, e->lhs);
	check_call_expr(c, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		check_call_expr(c, e->args[i]);
	if ((e->kind != EX_FN_CALL && e->kind != EX_SUBMIT) || e->nargs == 0)
		return;
	Function *f = ir_find_function(c->p, e->str);
	if (!f)
		return;
	const Expr *dirs = NULL;
	for (int i = 0; e->attrs && i < e->attrs->nkw; i++)
		if (strcmp(e->attrs->kw[i].name, "arg_directions") == 0)
			dirs = e->attrs->kw[i].value;
	if (!dirs || dirs->kind != EX_TUPLE || dirs->nargs == 0) {
		call_fail(c, e, "arg_directions is missing after DeriveCallDirections");
		return;
	}
	if (dirs->nargs != e->nargs) {
		call_fail(c, e, "arg_directions has %d entries for %d arguments", dirs->nargs, e->nargs);
		return;
	}
	for (int k = 0; k < e->nargs; k++) {
		const char *ad = dirs->args[k]->kind == EX_SYMBOL ? adir_name(dirs->args[k]->str) : NULL;
		if (!ad) {
			call_fail(c, e, "argument %d has an unknown direction", k);
			return;
		}
		const Type *t = ir_expr_type(e->args[k]);
		bool tensor = t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR || t->kind == TY_TUPLE);
		bool scalar = strcmp(ad, "Scalar") == 0;
		if (tensor && scalar) {
			call_fail(c, e, "tensor argument %d has direction Scalar", k);
			return;
		}
		if (!tensor && !scalar) {
			call_fail(c, e, "non-tensor argument %d has %s but must be Scalar", k, ad);
			return;
		}
		if (tensor && k < f->nparams && !allowed(f->params[k].dir, ad)) {
			static const char *const pd[] = { "In", "Out", "InOut" };
			call_fail(c, e, "argument %d has %s but callee param direction is %s", k, ad, pd[f->params[k].dir]);
			return;
		}
	}
}

static void check_call_block(CallCheck *c, const Block *b)
{
	for (int i = 0; i < b->n && !c->failed; i++) {
		const Stmt *s = b->stmts[i];
		check_call_expr(c, s->value);
		for (int j = 0; j < s->nvalues; j++)
			check_call_expr(c, s->values[j]);
		if (ir_stmt_is_simple(s->kind))
			continue;
		check_call_block(c, &s->body);
		check_call_block(c, &s->orelse);
	}
}

bool verify_call_directions(Program *p, Diag *d)
{
	CallCheck c = { p, d, NULL, false };
	for (int i = 0; i < p->nfuncs && !c.failed; i++) {
		c.fn = p->funcs[i];
		check_call_block(&c, &c.fn->body);
	}
	return !c.failed;
}

/* The first call (or submit) in e of an Inline function or of no function
 * of p. */
static const Expr *bad_call(Program *p, const Expr *e)
{
	if (!e || e->kind == EX_VAR)
		return NULL;
	if (e->kind == EX_FN_CALL || e->kind == EX_SUBMIT) {
		const Function *f = ir_find_function(p, e->str);
		if (!f || f->type == FT_INLINE)
			return e;
	}
	const Expr *r = bad_call(p, e->lhs);
	if (!r)
		r = bad_call(p, e->rhs);
	for (int i = 0; !r && i < e->nargs; i++)
		r = bad_call(p, e->args[i]);
	for (int i = 0; !r && i < e->nkw; i++)
		r = bad_call(p, e->kw[i].value);
	return r ? r : bad_call(p, e->attrs);
}

static const Expr *bad_call_block(Program *p, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		const Expr *r = bad_call(p, s->value);
		for (int j = 0; !r && j < s->nvalues; j++)
			r = bad_call(p, s->values[j]);
		if (!r && !ir_stmt_is_simple(s->kind)) {
			r = bad_call(p, s->start);
			if (!r)
				r = bad_call(p, s->stop);
			if (!r)
				r = bad_call(p, s->step);
			for (int j = 0; !r && j < s->niter; j++)
				r = bad_call(p, s->inits[j]);
			if (!r)
				r = bad_call_block(p, &s->body);
			if (!r)
				r = bad_call_block(p, &s->orelse);
		}
		if (r)
			return r;
	}
	return NULL;
}

bool verify_inline_eliminated(Program *p, Diag *d)
{
	for (int i = 0; i < p->nfuncs; i++) {
		const Function *f = p->funcs[i];
		if (f->type == FT_INLINE) {
			diag_error(d, f->pos.line, f->pos.col,
				   "FunctionType::Inline function '%s' survived the InlineFunctions pass (should have been "
				   "spliced and removed)",
				   f->name);
			return false;
		}
	}
	for (int i = 0; i < p->nfuncs; i++) {
		const Expr *e = bad_call_block(p, &p->funcs[i]->body);
		if (!e)
			continue;
		const char *what = e->kind == EX_SUBMIT ? "Submit" : "Call";
		const Function *f = ir_find_function(p, e->str);
		if (f)
			diag_error(d, e->pos.line, e->pos.col,
				   "%s to FunctionType::Inline function '%s' survived the InlineFunctions pass", what, e->str);
		else
			diag_error(d, e->pos.line, e->pos.col,
				   "Dangling %s to function '%s' (no such function in program — likely a former Inline "
				   "callee that wasn't spliced)",
				   what, e->str);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------ statement structure */

/* The reference's NormalizedStmtStructure (its NoRedundantBlocks check):
 * blocks are flat here by construction, so what is left to check is that a
 * yield is the last statement of its block. */
static const Stmt *early_yield(const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (s->kind == ST_YIELD && i + 1 < b->n)
			return s;
		if (ir_stmt_is_simple(s->kind))
			continue;
		const Stmt *r = early_yield(&s->body);
		if (!r)
			r = early_yield(&s->orelse);
		if (r)
			return r;
	}
	return NULL;
}

bool verify_normalized(Program *p, Diag *d)
{
	for (int i = 0; i < p->nfuncs; i++) {
		const Stmt *s = early_yield(&p->funcs[i]->body);
		if (s) {
			diag_error(d, s->pos.line, s->pos.col,
				   "NormalizedStmtStructure: YieldStmt before the terminating position; YieldStmt must be "
				   "the trailing statement of its scope (function '%s')", p->funcs[i]->name);
			return false;
		}
	}
	return true;
}

/* ------------------------------------------------------------ nested calls */

typedef struct NestCheck {
	Diag *d;
	const Function *fn;
	bool failed;
} NestCheck;

static bool is_call_expr(const Expr *e) { return e && (e->kind == EX_OP_CALL || e->kind == EX_FN_CALL); }

static void nest_fail(NestCheck *c, const Expr *at, const char *msg)
{
	if (c->failed)
		return;
	c->failed = true;
	diag_error(c->d, at->pos.line, at->pos.col, "NoNestedCall: %s (function '%s')", msg, c->fn->name);
}

/* The reference's NoNestedCall verifier: no call as an argument of a call
 * or submit, nor as an operand of a scalar binary / unary expression. */
static void nest_expr(NestCheck *c, const Expr *e)
{
	if (!e || e->kind == EX_VAR || c->failed)
		return;
	switch ((ExprKind)e->kind) {
	case EX_OP_CALL: case EX_FN_CALL: case EX_SUBMIT:
		for (int i = 0; i < e->nargs; i++) {
			if (is_call_expr(e->args[i]))
				nest_fail(c, e->args[i], e->kind == EX_SUBMIT ? "Submit expression has nested call in arguments"
							: "Call expression has nested call in arguments");
			nest_expr(c, e->args[i]);
		}
		return;
	case EX_BINARY:
		if (is_call_expr(e->lhs))
			nest_fail(c, e->lhs, "Binary expression left operand cannot be a call expression");
		if (is_call_expr(e->rhs))
			nest_fail(c, e->rhs, "Binary expression right operand cannot be a call expression");
		nest_expr(c, e->lhs);
		nest_expr(c, e->rhs);
		return;
	case EX_UNARY: case EX_CAST:
		if (is_call_expr(e->lhs))
			nest_fail(c, e->lhs, "Unary expression operand cannot be a call expression");
		nest_expr(c, e->lhs);
		return;
	case EX_TUPLE:
		for (int i = 0; i < e->nargs; i++)
			nest_expr(c, e->args[i]);
		return;
	case EX_GETITEM:
		nest_expr(c, e->lhs);
		return;
	default:
		return;
	}
}

static void nest_block(NestCheck *c, const Block *b)
{
	for (int i = 0; i < b->n && !c->failed; i++) {
		const Stmt *s = b->stmts[i];
		switch (s->kind) {
		case ST_ASSIGN: case ST_EVAL:
			nest_expr(c, s->value);
			continue;
		case ST_RETURN: case ST_YIELD:
			for (int j = 0; j < s->nvalues; j++)
				nest_expr(c, s->values[j]);
			continue;
		case ST_BREAK: case ST_CONTINUE:
			continue;
		case ST_IF:
			if (is_call_expr(s->value))
				nest_fail(c, s->value, "If condition cannot be a call expression");
			nest_expr(c, s->value);
			break;
		case ST_WHILE:
			if (is_call_expr(s->value))
				nest_fail(c, s->value, "While loop condition cannot be a call expression");
			nest_expr(c, s->value);
			for (int j = 0; j < s->niter; j++)
				nest_expr(c, s->inits[j]);
			break;
		case ST_FOR:
			if (is_call_expr(s->start))
				nest_fail(c, s->start, "For loop start expression cannot be a call expression");
			if (is_call_expr(s->stop))
				nest_fail(c, s->stop, "For loop stop expression cannot be a call expression");
			if (is_call_expr(s->step))
				nest_fail(c, s->step, "For loop step expression cannot be a call expression");
			nest_expr(c, s->start);
			nest_expr(c, s->stop);
			nest_expr(c, s->step);
			for (int j = 0; j < s->niter; j++)
				nest_expr(c, s->inits[j]);
			break;
		case ST_SCOPE:
			nest_expr(c, s->scope->core_num);
			nest_expr(c, s->scope->count);
			break;
		}
		nest_block(c, &s->body);
		nest_block(c, &s->orelse);
	}
}

bool verify_no_nested_calls(Program *p, Diag *d)
{
	NestCheck c = { d, NULL, false };
	for (int i = 0; i < p->nfuncs && !c.failed; i++) {
		c.fn = p->funcs[i];
		nest_block(&c, &c.fn->body);
	}
	return !c.failed;
}

/* ------------------------------------------------------------ split_aiv regions */

/* AivSplitValid, the reference's structural check of pl.split_aiv regions
 * (established by outline-incore).  It classifies calls by the core lane
 * they run on, as the reference's core-affinity utilities do: the lane an
 * op states (data/ops.yaml `core:`, and a system.syncall / sync_set /
 * sync_wait's core_type); mixed for the boundary ops and a tile.move across
 * the cube / vector divide; else the lane of the result's memory space or,
 * without one, of the first tile operand's (cube: any but Vec and DDR);
 * shared without either.  A call placed on the AIV lane (attribute
 * core_placement "aiv") runs there unless its lane is stated, mixed or
 * cube.  A function that opens a region is in manual mode: its regions
 * place its vector work, and values crossing their edge say so.
 *   (a) no cube op inside a region;
 *   (b) in a data-parallel region (UP_DOWN, LEFT_RIGHT) no row / column
 *       reduction collapsing the split axis;
 *   (c) an AIV-split boundary op (tile / tensor aiv_shard, aic_gather) only
 *       inside a region;
 *   (d) inside one, a tile boundary op's operand on the producing lane (Acc
 *       for aiv_shard, Vec for aic_gather) and its result on the consuming one
 *       (Vec, Mat), each side checked once its memory space is known;
 *   (e) manual mode: no vector op outside every region, but tile.load /
 *       tile.store (the compiler hoists them there) and ops with a stated
 *       lane;
 *   (f) manual mode: a value assigned in a region and read on the cube lane
 *       outside every region is an aic_gather's;
 *   (g) manual mode: a cube op's result assigned outside every region and
 *       read on the vector lane inside one goes through an aiv_shard;
 *   (h) a region inside an InCore function only when an outliner made that
 *       function from a scope holding it (its split_aiv attribute).
 * Tile.load / tile.store are no crossing in (f) / (g), neither as the
 * reader nor as the value's definition.  The first violation in walk order
 * is reported. */

typedef enum Lane { LN_SHARED, LN_VECTOR, LN_CUBE, LN_MIXED } Lane;

typedef struct AivCheck {
	OpRegistry *reg;
	bool incore_authored; /* an InCore function no outliner made */
	bool manual;          /* the function opens a region */
	bool saw_region;      /* the walk entered one */
	PtrVec regions;       /* the split_aiv scopes around the walk, innermost last */
	VarTab *defs;         /* manual mode: Var -> its assignment, bit 0 set when in a region */
	char msg[900];
	SrcPos pos;
	bool failed;
} AivCheck;

static void aiv_fail(AivCheck *c, SrcPos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void aiv_fail(AivCheck *c, SrcPos pos, const char *fmt, ...)
{
	if (c->failed)
		return;
	c->failed = true;
	c->pos = pos;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof c->msg, fmt, ap);
	va_end(ap);
}

static const Expr *call_kwarg(const Expr *e, const char *name)
{
	for (int i = 0; i < e->nkw; i++)
		if (!strcmp(e->kw[i].name, name))
			return e->kw[i].value;
	return NULL;
}

static bool str_kwarg_is(const Expr *e, const char *name, const char *value)
{
	const Expr *v = call_kwarg(e, name);
	return v && v->kind == EX_STR && !strcmp(v->str, value);
}

static MemSpace mem_named(const char *sym)
{
	int m = sym && !strncmp(sym, "pl.Mem.", 7) ? ir_mem_parse(sym + 7) : -1;
	return m < 0 ? MS_NONE : (MemSpace)m;
}

static MemSpace tile_mem(const Type *t) { return t && t->kind == TY_TILE ? t->mem : MS_NONE; }

/* the memory space of the first operand that is a tile variable: MS_NONE
 * without one, or while it is not known */
static MemSpace first_tile_mem(const Expr *e)
{
	for (int i = 0; i < e->nargs; i++) {
		const Type *t = e->args[i]->kind == EX_VAR ? ir_expr_type(e->args[i]) : NULL;
		if (t && t->kind == TY_TILE)
			return t->mem;
	}
	return MS_NONE;
}

static Lane mem_lane(MemSpace m) { return m == MS_NONE ? LN_SHARED : m == MS_DDR || m == MS_VEC ? LN_VECTOR : LN_CUBE; }

static bool op_is(const Expr *e, const char *name) { return e->kind == EX_OP_CALL && !strcmp(e->str, name); }

static bool is_boundary(const Expr *e)
{
	if (e->kind != EX_OP_CALL)
		return false;
	const char *base = !strncmp(e->str, "tile.", 5) ? e->str + 5 : !strncmp(e->str, "tensor.", 7) ? e->str + 7 : "";
	return !strcmp(base, "aiv_shard") || !strcmp(base, "aic_gather");
}

/* the memory ops the compiler materializes outside a region */
static bool is_hoisted(const Expr *e) { return op_is(e, "tile.load") || op_is(e, "tile.store"); }

/* the lane a tile.move moves its tile to when that crosses the cube /
 * vector divide, else LN_SHARED */
static Lane move_crossing(const Expr *e)
{
	if (!op_is(e, "tile.move"))
		return LN_SHARED;
	const Expr *to = call_kwarg(e, "target_memory");
	Lane from = mem_lane(first_tile_mem(e)), dest = mem_lane(mem_named(to && to->kind == EX_SYMBOL ? to->str : NULL));
	return from == LN_SHARED || dest == LN_SHARED || from == dest ? LN_SHARED : dest;
}

static bool stated_lane(AivCheck *c, const Expr *e)
{
	if (e->kind != EX_OP_CALL)
		return false;
	const OpDef *op = ops_find(c->reg, e->str);
	return (op && op->core.lane != LANE_INFER) || op_is(e, "system.syncall") || op_is(e, "system.sync_set") ||
	       op_is(e, "system.sync_wait");
}

/* the lane a call runs on by what it is (before any placement) */
static Lane intrinsic_lane(AivCheck *c, const Expr *e)
{
	const OpDef *op = e->kind == EX_OP_CALL ? ops_find(c->reg, e->str) : NULL;
	if (!op)
		return LN_SHARED;
	static const Lane stated[] = { [LANE_VECTOR] = LN_VECTOR, [LANE_CUBE] = LN_CUBE, [LANE_SHARED] = LN_SHARED };
	if (op->core.lane != LANE_INFER)
		return stated[op->core.lane];
	if (op_is(e, "tile.move"))
		return move_crossing(e) != LN_SHARED ? LN_MIXED : mem_lane(first_tile_mem(e)) == LN_CUBE ? LN_CUBE : LN_VECTOR;
	if (op_is(e, "system.syncall"))
		return str_kwarg_is(e, "core_type", "aic_only") ? LN_CUBE
		       : str_kwarg_is(e, "core_type", "aiv_only") ? LN_VECTOR : LN_SHARED;
	if (op_is(e, "system.sync_set") || op_is(e, "system.sync_wait"))
		return str_kwarg_is(e, "core_type", "aic") ? LN_CUBE : str_kwarg_is(e, "core_type", "aiv") ? LN_VECTOR : LN_SHARED;
	if (is_boundary(e))
		return LN_MIXED;
	MemSpace out = (MemSpace)op->core.mem;
	if (op->core.mem_kw) {
		const Expr *k = call_kwarg(e, op->core.mem_kw);
		const char *sym = k && k->kind == EX_SYMBOL ? k->str : NULL;
		for (int i = 0; !k && i < op->nkwargs; i++)
			if (op->kwargs[i].name == op->core.mem_kw && op->kwargs[i].def.kind == OC_SYMBOL)
				sym = op->kwargs[i].def.s;
		out = mem_named(sym);
	}
	return mem_lane(out != MS_NONE ? out : first_tile_mem(e));
}

static bool aiv_placed(const Expr *e)
{
	for (int i = 0; e->attrs && i < e->attrs->nkw; i++)
		if (!strcmp(e->attrs->kw[i].name, "core_placement"))
			return e->attrs->kw[i].value->kind == EX_STR && !strcmp(e->attrs->kw[i].value->str, "aiv");
	return false;
}

/* the lane a call runs on: a call placed on the AIV lane runs there unless
 * its lane is stated, cube or mixed */
static Lane call_lane(AivCheck *c, const Expr *e)
{
	Lane l = intrinsic_lane(c, e);
	if (l == LN_CUBE || l == LN_MIXED || !aiv_placed(e) || stated_lane(c, e))
		return l;
	return LN_VECTOR;
}

/* the lane a call reads its operands on: a crossing tile.move's destination */
static Lane consumer_lane(AivCheck *c, const Expr *e)
{
	Lane to = move_crossing(e);
	return to != LN_SHARED ? to : call_lane(c, e);
}

/* the axis a tile.row_* / tile.col_* reduction collapses, -1 for any other call */
static int reduced_axis(const Expr *e)
{
	static const char *const kinds[] = { "sum", "max", "min", "prod", "argmax", "argmin" };
	if (e->kind != EX_OP_CALL || strncmp(e->str, "tile.", 5) || (strncmp(e->str + 5, "row_", 4) && strncmp(e->str + 5, "col_", 4)))
		return -1;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (!strcmp(e->str + 9, kinds[i])) {
			if (e->str[5] == 'c')
				return 0;
			const Type *t = e->nargs ? ir_expr_type(e->args[0]) : NULL;
			return t && t->kind == TY_TILE ? t->ndim - 1 : 1;
		}
	return -1;
}

/* (f) and (g): the operands of a call that cross a region's edge unsaid */
static void aiv_crossing(AivCheck *c, const Expr *e, bool in_region)
{
	if (is_boundary(e) || is_hoisted(e) || consumer_lane(c, e) != (in_region ? LN_VECTOR : LN_CUBE))
		return;
	for (int i = 0; i < e->nargs && !c->failed; i++) {
		const Expr *a = e->args[i];
		uintptr_t d = a->kind == EX_VAR ? (uintptr_t)vtab_get(c->defs, a->var) : 0;
		if (!d)
			continue;
		const Stmt *s = (const Stmt *)(d & ~(uintptr_t)1);
		bool def_in_region = d & 1;
		const Expr *def = s->value && (s->value->kind == EX_OP_CALL || s->value->kind == EX_FN_CALL) ? s->value : NULL;
		if (def && is_hoisted(def))
			continue;
		const char *x = a->var->name;
		if (!in_region && def_in_region && !(def && (op_is(def, "tile.aic_gather") || op_is(def, "tensor.aic_gather"))))
			aiv_fail(c, e->pos, "'%s' is defined inside a pl.split_aiv region but '%s' reads it on the CUBE lane "
				 "outside that region, so the value crosses the AIV -> AIC boundary implicitly. In manual mode "
				 "(this function opens a region) the crossing must be written down: wrap it in "
				 "pl.aic_gather(...) inside the region — '%s = pl.aic_gather(%s)' — and read the gathered value "
				 "here.", x, e->str, x, x);
		else if (in_region && !def_in_region && def && call_lane(c, def) == LN_CUBE)
			aiv_fail(c, e->pos, "'%s' is produced on the CUBE lane by '%s' outside every pl.split_aiv region, but "
				 "'%s' reads it on the VECTOR lane inside one, so the value crosses the AIC -> AIV boundary "
				 "implicitly. In manual mode (this function opens a region) the crossing must be written down: "
				 "bring it in with pl.aiv_shard(...) at the top of the region — '%s = pl.aiv_shard(%s)' — and "
				 "read the sharded value here.", x, def->str, e->str, x, x);
	}
}

/* (d): the producing and consuming lanes' memory spaces of a tile boundary op */
static void aiv_boundary_memory(AivCheck *c, const Expr *e)
{
	bool shard = !strcmp(e->str, "tile.aiv_shard");
	if (!shard && strcmp(e->str, "tile.aic_gather"))
		return;
	const char *op = e->str;
	MemSpace want_in = shard ? MS_ACC : MS_VEC, want_out = shard ? MS_VEC : MS_MAT;
	MemSpace in = e->nargs ? tile_mem(ir_expr_type(e->args[0])) : MS_NONE;
	if (in != MS_NONE && in != want_in)
		aiv_fail(c, e->pos, "'%s' operand is in %s, but it transfers a %s-produced value across the cross-core "
			 "boundary and requires %s.%s", op, ir_mem_name(in), shard ? "cube" : "vector",
			 ir_mem_name(want_in),
			 shard ? " Only a cube-produced value reaches the vector lane through this boundary: Acc is the "
				 "matmul result the c2v pipe can push. A Vec operand is vector-produced (pl.load / pl.full) "
				 "and already lives on the AIV lane — drop the pl.aiv_shard and let the implicit "
				 "affinity-gated split halve it. A Mat operand is not a supported producer pipe; move it "
				 "through a pl.matmul, or load it on the vector lane instead."
			       : " Gather the value only after it has been computed by vector ops on the AIV lane.");
	MemSpace out = tile_mem(e->type);
	if (out != MS_NONE && out != want_out)
		aiv_fail(c, e->pos, "'%s' result is in %s, but it delivers its %s lane and must be %s (the memory "
			 "ExpandMixedKernel pops it into).", op, ir_mem_name(out),
			 shard ? "half to the vector" : "full tile to the cube", ir_mem_name(want_out));
}

static void aiv_scope(void *ctx, const Stmt *s, bool enter)
{
	AivCheck *c = ctx;
	if (s->scope->kind != SC_SPLIT_AIV)
		return;
	if (!enter) {
		c->regions.len--;
		return;
	}
	vec_push(&c->regions, (void *)s);
	c->saw_region = true;
	if (!c->manual)
		return; /* the walk is done again as a manual one */
	if (c->incore_authored)
		aiv_fail(c, s->pos, "'pl.split_aiv' opens a CORE_GROUP-level region, so it cannot be authored inside a "
			 "function declared 'pl.FunctionType.InCore' — that function is already a core function. A "
			 "region reaches an InCore function only when OutlineIncoreScopes lifted the enclosing "
			 "CORE_GROUP scope into it, and that pass processes only Opaque / Orchestration functions. "
			 "Declare the enclosing function with plain @pl.function / @pl.jit (Opaque), or open the region "
			 "inside a 'with pl.at(level=pl.Level.CORE_GROUP):' scope in such a function, and let pass 8 "
			 "outline it.");
}

static void aiv_call(void *ctx, const Stmt *s, const Expr *e)
{
	(void)s;
	AivCheck *c = ctx;
	if (e->kind == EX_SUBMIT || c->failed || (c->saw_region && !c->manual))
		return;
	bool in_region = c->regions.len > 0;
	if (c->manual)
		aiv_crossing(c, e, in_region);
	if (!in_region) {
		if (is_boundary(e))
			aiv_fail(c, e->pos, "'%s' must appear inside a pl.split_aiv region (it marks the AIV-split boundary "
				 "and is only meaningful there).", e->str);
		else if (c->manual && !is_hoisted(e) && !stated_lane(c, e) && call_lane(c, e) == LN_VECTOR)
			aiv_fail(c, e->pos, "vector op '%s' sits outside every pl.split_aiv region, but this function already "
				 "opens one, so the regions are authoritative for where vector work runs and this op has no "
				 "lane to run on. Wrap this phase in its own region — 'for _ in pl.split_aiv(2, "
				 "mode=pl.SplitMode.NONE):' runs the full body on both AIV lanes and is the task-parallel form "
				 "for full-width compute — or move the op into an existing region.", e->str);
		return;
	}
	SplitMode mode = ((const Stmt *)c->regions.items[c->regions.len - 1])->scope->split;
	bool data_parallel = mode != SPLIT_NONE;
	if (!is_boundary(e) && call_lane(c, e) == LN_CUBE)
		aiv_fail(c, e->pos, "cube op '%s' inside a pl.split_aiv region: the region body is AIV work, so cube ops "
			 "do not belong in it%s; move it outside the region%s", e->str,
			 data_parallel ? ", and each AIV lane holds only half the tile so it cannot be vector-split either" : "",
			 data_parallel ? ", or gather the lanes back to a full tile (tile.aic_gather) first." : ".");
	int dim = mode == SPLIT_UP_DOWN ? 0 : 1;
	if (data_parallel && reduced_axis(e) == dim)
		aiv_fail(c, e->pos, "reduce op '%s' reduces over the split axis (dim %d) inside a pl.split_aiv region, "
			 "producing a partial reduction; reduce the non-split axis, or gather the lanes back "
			 "(tile.aic_gather) before reducing.", e->str, dim);
	if (e->kind == EX_OP_CALL)
		aiv_boundary_memory(c, e);
}

/* manual mode's definitions: every assignment of b, tagged when in a region */
static void aiv_defs(AivCheck *c, const Block *b, bool in_region)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (s->kind == ST_ASSIGN && s->var)
			vtab_put(c->defs, s->var, (void *)((uintptr_t)s | in_region));
		if (ir_stmt_is_simple(s->kind))
			continue;
		bool in = in_region || (s->kind == ST_SCOPE && s->scope->kind == SC_SPLIT_AIV);
		aiv_defs(c, &s->body, in);
		aiv_defs(c, &s->orelse, in);
	}
}

static bool fn_attr_true(const Function *f, const char *name)
{
	for (int i = 0; i < f->nattrs; i++)
		if (!strcmp(f->attrs[i].name, name))
			return f->attrs[i].value && f->attrs[i].value->kind == EX_BOOL && f->attrs[i].value->ival;
	return false;
}

bool verify_aiv_split(Program *p, Diag *d, const char *after_pass)
{
	if (!p->has_aiv_split)
		return true; /* no region and no boundary op: nothing can fail */
	VarTab defs = { 0 };
	AivCheck c = { .reg = ops_default(), .defs = &defs };
	for (int i = 0; i < p->nfuncs && !c.failed; i++) {
		const Function *f = p->funcs[i];
		if (f->inline_body)
			continue;
		c.incore_authored = f->type == FT_INCORE && !fn_attr_true(f, "split_aiv");
		/* walked as a function without regions (nearly all are); one that
		 * opens a region is walked again as one (manual), which is what
		 * it is checked as from its first statement on */
		c.manual = c.saw_region = false;
		c.regions.len = 0;
		IrCallWalk w = { .call = aiv_call, .scope = aiv_scope, .ctx = &c };
		ir_block_walk_calls(&w, &f->body);
		if (c.saw_region) {
			c.manual = true;
			c.failed = false;
			c.regions.len = 0;
			if (!defs.cap)
				vtab_reserve(&defs, p);
			vtab_clear(&defs);
			aiv_defs(&c, &f->body, false);
			ir_block_walk_calls(&w, &f->body);
		}
	}
	if (c.failed)
		diag_error(d, c.pos.line, c.pos.col, "Post-verification failed after pass '%s': AivSplitValid: %s", after_pass,
			   c.msg);
	vec_release(&c.regions);
	vtab_release(&defs);
	return !c.failed;
}

/* ------------------------------------------------------------ orchestration callees */

typedef struct OrchCheck {
	Program *p;
	const Expr *bad;
} OrchCheck;

/* the reference's builtin op families (op_predicates' IsBuiltinOp) */
static bool builtin_op(const char *op)
{
	return !strncmp(op, "tile.", 5) || !strncmp(op, "tensor.", 7) || !strncmp(op, "system.", 7) ||
	       !strncmp(op, "array.", 6) || !strcmp(op, "pld.system.get_comm_ctx");
}

static void orch_call(void *ctx, const Stmt *s, const Expr *e)
{
	(void)s;
	OrchCheck *c = ctx;
	if (c->bad || e->kind == EX_SUBMIT)
		return;
	if (e->kind == EX_OP_CALL ? !builtin_op(e->str) : !ir_find_function(c->p, e->str))
		c->bad = e;
}

bool verify_orch_references(Program *p, Diag *d, const char *after_pass)
{
	for (int i = 0; i < p->nfuncs; i++) {
		const Function *f = p->funcs[i];
		if (f->type != FT_ORCHESTRATION || f->inline_body)
			continue;
		OrchCheck c = { .p = p };
		IrCallWalk w = { .call = orch_call, .ctx = &c };
		ir_block_walk_calls(&w, &f->body);
		if (c.bad) {
			diag_error(d, c.bad->pos.line, c.bad->pos.col,
				   "Post-verification failed after pass '%s': OrchestrationReferencesResolved: "
				   "Orchestration function '%s' references undefined function '%s'. The Program must "
				   "contain every callee referenced from orchestration.", after_pass, f->name, c.bad->str);
			return false;
		}
	}
	return true;
}
