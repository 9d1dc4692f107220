/* verify_structural.c - the reference's structural property checks of a
 * pass's input (the VerificationInstrument of its PassContext verifies
 * them before every pass; a program that fails them is rejected before the
 * first one runs, whatever the pipeline).  Implemented here, each as far as
 * the reference's verifiers reject programs ptoopt reads:
 *
 *   NoNestedInCore       no InCore scope inside another (verify.c)
 *   UseAfterDef          a pl.dynamic dimension variable used in a function
 *                        (in an expression, or in the type of a variable
 *                        read) whose parameter and return types do not
 *                        mention it; other variables are bound by the
 *                        parser's scoping already
 *   TypeChecked          the kind and dtype of a loop's or an if's carried
 *                        values: init value, iter arg, yielded value, result
 *   InOutUseValid        no read of a variable after a call passed it as an
 *                        InOut / Out argument, until it is assigned again
 *                        (a loop body's passes count from its first
 *                        iteration; not in Group / Spmd functions)
 *   AtomicAddDtypeValid  no atomic-add store into a BF16 tensor: the
 *                        reference's backend (Ascend950, 'a5') has no bf16
 *                        atomic add
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ptoopt/ir_walk.h"
#include "ptoopt/verify.h"

/* Where a violation is reported, and the pass named in the message. */
typedef struct Vctx {
	Diag *d;
	const char *when;  /* "Pre-verification failed before" / "Post-verification failed after" */
	const char *pass;
} Vctx;

static void fail(const Vctx *v, SrcPos at, const char *check, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void fail(const Vctx *v, SrcPos at, const char *check, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_error(v->d, at.line, at.col, "%s pass '%s': %s: %s", v->when, v->pass, check, msg);
}

/* ------------------------------------------------------------ UseAfterDef */

typedef struct Uad {
	const Vctx *vx;
	const Function *f;
	PtrMap defined; /* dynamic variables of the signature */
	bool failed;
} Uad;

static void uad_type_defs(Uad *u, const Type *t);

static void uad_expr_defs(Uad *u, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_VAR) {
		if (e->var->kind == VK_DYN)
			pmap_put(&u->defined, e->var, (void *)1);
		return;
	}
	uad_expr_defs(u, e->lhs);
	uad_expr_defs(u, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		uad_expr_defs(u, e->args[i]);
}

static void uad_type_defs(Uad *u, const Type *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->ndim; i++)
		uad_expr_defs(u, t->shape[i]);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			uad_expr_defs(u, t->view->kw[i].value);
	for (int i = 0; i < t->nelems; i++)
		uad_type_defs(u, t->elems[i]);
}

static void uad_use(Uad *u, const Var *v, SrcPos at)
{
	if (u->failed || v->kind != VK_DYN || pmap_get(&u->defined, v))
		return;
	fail(u->vx, at, "UseAfterDefCheck", "Variable '%s' used before definition in function '%s'", v->name,
	     u->f->name);
	u->failed = true;
}

static void uad_type_uses(Uad *u, const Type *t, SrcPos at);

static void uad_expr_uses(Uad *u, const Expr *e, bool in_type, SrcPos at)
{
	if (!e || u->failed)
		return;
	if (e->kind == EX_VAR) {
		SrcPos p = e->pos.line ? e->pos : at;
		uad_use(u, e->var, p);
		if (!in_type)
			uad_type_uses(u, e->var->type, p);
		return;
	}
	SrcPos p = e->pos.line ? e->pos : at;
	uad_expr_uses(u, e->lhs, in_type, p);
	uad_expr_uses(u, e->rhs, in_type, p);
	for (int i = 0; i < e->nargs; i++)
		uad_expr_uses(u, e->args[i], in_type, p);
	for (int i = 0; i < e->nkw; i++)
		uad_expr_uses(u, e->kw[i].value, in_type, p);
}

static void uad_type_uses(Uad *u, const Type *t, SrcPos at)
{
	if (!t)
		return;
	for (int i = 0; i < t->ndim; i++)
		uad_expr_uses(u, t->shape[i], true, at);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			uad_expr_uses(u, t->view->kw[i].value, true, at);
	for (int i = 0; i < t->nelems; i++)
		uad_type_uses(u, t->elems[i], at);
}

static void uad_block(Uad *u, const Block *b)
{
	for (int i = 0; i < b->n && !u->failed; i++) {
		const Stmt *s = b->stmts[i];
		uad_expr_uses(u, s->value, false, s->pos);
		for (int j = 0; j < s->nvalues; j++)
			uad_expr_uses(u, s->values[j], false, s->pos);
		if (ir_stmt_is_simple(s->kind))
			continue;
		uad_expr_uses(u, s->start, false, s->pos);
		uad_expr_uses(u, s->stop, false, s->pos);
		uad_expr_uses(u, s->step, false, s->pos);
		for (int j = 0; j < s->niter; j++)
			uad_expr_uses(u, s->inits[j], false, s->pos);
		if (s->scope) {
			uad_expr_uses(u, s->scope->core_num, false, s->pos);
			uad_expr_uses(u, s->scope->predicate, false, s->pos);
			uad_expr_uses(u, s->scope->count, false, s->pos);
		}
		uad_block(u, &s->body);
		uad_block(u, &s->orelse);
	}
}

static bool check_use_after_def(Program *p, const Vctx *vx)
{
	for (int i = 0; i < p->nfuncs; i++) {
		const Function *f = p->funcs[i];
		if (f->abstract || f->inline_body)
			continue;
		Uad u = { .vx = vx, .f = f };
		for (int j = 0; j < f->nparams; j++)
			uad_type_defs(&u, f->params[j].var->type);
		for (int j = 0; j < f->nrets; j++)
			uad_type_defs(&u, f->rets[j]);
		uad_block(&u, &f->body);
		pmap_release(&u.defined);
		if (u.failed)
			return false;
	}
	return true;
}

/* ------------------------------------------------------------ TypeChecked */

static const char *type_kind_name(const Type *t)
{
	switch (t->kind) {
	case TY_SCALAR: return "ScalarType";
	case TY_TENSOR: return "TensorType";
	case TY_DIST_TENSOR: return "DistributedTensorType";
	case TY_TILE: return "TileType";
	case TY_TUPLE: return "TupleType";
	case TY_ARRAY: return "ArrayType";
	case TY_PTR: return "PtrType";
	default: return "Type";
	}
}

static bool has_dtype(const Type *t)
{
	return t->kind == TY_SCALAR || t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR || t->kind == TY_TILE;
}

/* The reference's CheckTypeEquality, as far as kinds, tuple sizes and
 * dtypes go (shapes are not compared). */
static bool types_agree(const Vctx *vx, const Type *a, const Type *b, const char *ctx, const char *da, const char *db,
			SrcPos at)
{
	if (!a || !b || a->kind == TY_UNKNOWN || b->kind == TY_UNKNOWN || a->kind == TY_NAMED || b->kind == TY_NAMED)
		return true;
	if (a->kind != b->kind) {
		fail(vx, at, "TypeCheck", "Type kind mismatch in %s: %s type '%s' != %s type '%s'", ctx, da,
		     type_kind_name(a), db, type_kind_name(b));
		return false;
	}
	if (a->kind == TY_TUPLE) {
		if (a->nelems != b->nelems) {
			fail(vx, at, "TypeCheck", "Tuple size mismatch in %s: %s has %d elements, but %s has %d elements",
			     ctx, da, a->nelems, db, b->nelems);
			return false;
		}
		for (int i = 0; i < a->nelems; i++) {
			char ea[160], eb[160];
			snprintf(ea, sizeof ea, "%s tuple element[%d]", da, i);
			snprintf(eb, sizeof eb, "%s tuple element[%d]", db, i);
			if (!types_agree(vx, a->elems[i], b->elems[i], ctx, ea, eb, at))
				return false;
		}
		return true;
	}
	if (has_dtype(a) && a->dtype != b->dtype) {
		fail(vx, at, "TypeCheck", "Dtype mismatch in %s: %s dtype != %s dtype", ctx, da, db);
		return false;
	}
	return true;
}

static const Stmt *last_yield(const Block *b)
{
	const Stmt *s = b->n ? b->stmts[b->n - 1] : NULL;
	return s && s->kind == ST_YIELD ? s : NULL;
}

static bool check_types_block(const Vctx *vx, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (ir_stmt_is_simple(s->kind))
			continue;
		const Stmt *y = last_yield(&s->body);
		if ((s->kind == ST_FOR || s->kind == ST_WHILE) && s->niter && y && y->nvalues == s->niter &&
		    s->nrets == s->niter) {
			const char *ctx = s->kind == ST_FOR ? "ForStmt" : "WhileStmt";
			for (int k = 0; k < s->niter; k++) {
				char a[64], b2[64], c[64], r[64];
				snprintf(a, sizeof a, "iter_arg[%d] initValue", k);
				snprintf(b2, sizeof b2, "declared iter_arg[%d]", k);
				snprintf(c, sizeof c, "yield value[%d]", k);
				snprintf(r, sizeof r, "return_var[%d]", k);
				Type *ti = s->inits[k] ? ir_expr_type(s->inits[k]) : NULL, *td = s->iter_args[k]->type;
				Type *ty = ir_expr_type(y->values[k]), *tr = s->rets[k]->type;
				if (!ti || !td || !ty || !tr)
					continue;
				if (!types_agree(vx, ti, td, ctx, a, b2, s->pos) || !types_agree(vx, td, ty, ctx, b2, c, s->pos) ||
				    !types_agree(vx, ty, tr, ctx, c, r, s->pos))
					return false;
			}
		}
		if (s->kind == ST_IF && s->nrets && s->has_else) {
			const Stmt *e = last_yield(&s->orelse);
			if (y && e && y->nvalues == e->nvalues && y->nvalues == s->nrets)
				for (int k = 0; k < s->nrets; k++) {
					char a[64], b2[64], r[64];
					snprintf(a, sizeof a, "then yield value[%d]", k);
					snprintf(b2, sizeof b2, "else yield value[%d]", k);
					snprintf(r, sizeof r, "return_var[%d]", k);
					Type *tt = ir_expr_type(y->values[k]), *te = ir_expr_type(e->values[k]);
					Type *tr = s->rets[k]->type;
					if (!tt || !te || !tr)
						continue;
					if (!types_agree(vx, tt, te, "IfStmt", a, b2, s->pos) ||
					    !types_agree(vx, tt, tr, "IfStmt", a, r, s->pos))
						return false;
				}
		}
		if (!check_types_block(vx, &s->body) || !check_types_block(vx, &s->orelse))
			return false;
	}
	return true;
}

static bool check_types(Program *p, const Vctx *vx)
{
	for (int i = 0; i < p->nfuncs; i++)
		if (!check_types_block(vx, &p->funcs[i]->body))
			return false;
	return true;
}

/* ------------------------------------------------------------ InOutUseValid */

typedef struct Dead {
	PtrMap origin;   /* Var -> SrcPos * of the call that killed it (NULL: alive) */
} Dead;

typedef struct Iou {
	Program *p;
	const Vctx *vx;
	Arena *a;
	PtrMap *memo;    /* loop Stmt -> Kills */
	bool report;     /* false in the pre-scan of a loop body */
	bool failed;
	Dead dead;
} Iou;

static void iou_kill(Iou *c, Var *v, SrcPos at)
{
	if (pmap_get(&c->dead.origin, v))
		return;
	SrcPos *o = arena_alloc(c->a, sizeof *o);
	*o = at;
	pmap_put(&c->dead.origin, v, o);
}

static void iou_revive(Iou *c, Var *v)
{
	if (pmap_get(&c->dead.origin, v))
		pmap_put(&c->dead.origin, v, NULL);
}

static void iou_expr(Iou *c, const Expr *e, SrcPos at)
{
	if (!e || c->failed)
		return;
	if (e->kind == EX_VAR) {
		SrcPos *o = pmap_get(&c->dead.origin, e->var);
		if (o && c->report) {
			SrcPos p = e->pos.line ? e->pos : at;
			fail(c->vx, p, "InOutUseDiscipline",
			     "variable '%s' was passed as InOut/Out at %s:%d:%d; read the post-call return value "
			     "instead of the pre-call variable",
			     e->var->name, c->vx->d->file ? c->vx->d->file : "", o->line, o->col);
			c->failed = true;
		}
		return;
	}
	SrcPos p = e->pos.line ? e->pos : at;
	if (e->kind == EX_OP_CALL || e->kind == EX_FN_CALL) {
		for (int i = 0; i < e->nargs; i++)
			iou_expr(c, e->args[i], p);
		const Function *f = e->kind == EX_FN_CALL ? ir_find_function(c->p, e->str) : NULL;
		for (int i = 0; f && i < e->nargs && i < f->nparams; i++)
			if ((f->params[i].dir == DIR_INOUT || f->params[i].dir == DIR_OUT) && e->args[i]->kind == EX_VAR)
				iou_kill(c, e->args[i]->var, p);
		return;
	}
	iou_expr(c, e->lhs, p);
	iou_expr(c, e->rhs, p);
	for (int i = 0; i < e->nargs; i++)
		iou_expr(c, e->args[i], p);
	for (int i = 0; i < e->nkw; i++)
		iou_expr(c, e->kw[i].value, p);
}

static void iou_block(Iou *c, const Block *b);

/* What a loop body leaves dead, walked from an empty state (a property
 * of the body alone, so computed once per loop: each enclosing loop's
 * pre-scan reuses it instead of walking it again). */
typedef struct Kills {
	Var **vars;
	SrcPos **at;
	size_t n;
} Kills;

static const Kills *loop_kills(Iou *c, const Stmt *s)
{
	Kills *k = pmap_get(c->memo, s);
	if (k)
		return k;
	Iou sub = { .p = c->p, .vx = c->vx, .a = c->a, .memo = c->memo, .report = false };
	iou_block(&sub, &s->body);
	k = arena_alloc(c->a, sizeof *k);
	size_t cap = sub.dead.origin.len;
	k->vars = arena_alloc(c->a, (cap ? cap : 1) * sizeof *k->vars);
	k->at = arena_alloc(c->a, (cap ? cap : 1) * sizeof *k->at);
	for (size_t i = 0; i < sub.dead.origin.cap; i++) {
		const void *v = sub.dead.origin.keys ? sub.dead.origin.keys[i] : NULL;
		SrcPos *o = v ? sub.dead.origin.vals[i] : NULL;
		if (!o)
			continue;
		bool iter = false;
		for (int j = 0; j < s->niter; j++)
			iter |= s->iter_args[j] == v;
		if (!iter) {
			k->vars[k->n] = (Var *)v;
			k->at[k->n++] = o;
		}
	}
	pmap_release(&sub.dead.origin);
	pmap_put(c->memo, s, k);
	return k;
}

/* The variables a loop body passes as InOut / Out (its iter args aside)
 * are dead from the loop's start on, for the reads of later iterations. */
static void iou_loop_kills(Iou *c, const Stmt *s)
{
	const Kills *k = loop_kills(c, s);
	for (size_t i = 0; i < k->n; i++)
		iou_kill(c, k->vars[i], *k->at[i]);
}

static void iou_block(Iou *c, const Block *b)
{
	for (int i = 0; i < b->n && !c->failed; i++) {
		const Stmt *s = b->stmts[i];
		switch (s->kind) {
		case ST_ASSIGN:
			iou_expr(c, s->value, s->pos);
			iou_revive(c, s->var);
			continue;
		case ST_IF: {
			iou_expr(c, s->value, s->pos);
			PtrMap snap = { 0 };
			for (size_t k = 0; k < c->dead.origin.cap; k++)
				if (c->dead.origin.keys && c->dead.origin.keys[k] && c->dead.origin.vals[k])
					pmap_put(&snap, c->dead.origin.keys[k], c->dead.origin.vals[k]);
			iou_block(c, &s->body);
			PtrMap after_then = c->dead.origin;
			c->dead.origin = snap;
			iou_block(c, &s->orelse);
			for (size_t k = 0; k < after_then.cap; k++)
				if (after_then.keys && after_then.keys[k] && after_then.vals[k])
					iou_kill(c, (Var *)after_then.keys[k], *(SrcPos *)after_then.vals[k]);
			pmap_release(&after_then);
			continue;
		}
		case ST_FOR: case ST_WHILE:
			if (s->kind == ST_WHILE)
				iou_expr(c, s->value, s->pos);
			iou_expr(c, s->start, s->pos);
			iou_expr(c, s->stop, s->pos);
			iou_expr(c, s->step, s->pos);
			for (int j = 0; j < s->niter; j++)
				iou_expr(c, s->inits[j], s->pos);
			iou_loop_kills(c, s);
			iou_block(c, &s->body);
			for (int j = 0; j < s->niter; j++)
				iou_revive(c, s->iter_args[j]);
			continue;
		default:
			break;
		}
		iou_expr(c, s->value, s->pos);
		for (int j = 0; j < s->nvalues; j++)
			iou_expr(c, s->values[j], s->pos);
		if (ir_stmt_is_simple(s->kind))
			continue;
		if (s->scope) {
			iou_expr(c, s->scope->core_num, s->pos);
			iou_expr(c, s->scope->predicate, s->pos);
			iou_expr(c, s->scope->count, s->pos);
		}
		iou_block(c, &s->body);
		iou_block(c, &s->orelse);
	}
}

static bool check_inout_use(Program *p, const Vctx *vx)
{
	for (int i = 0; i < p->nfuncs; i++) {
		const Function *f = p->funcs[i];
		if (f->type == FT_GROUP || f->type == FT_SPMD || f->abstract || f->inline_body)
			continue;
		PtrMap memo = { 0 };
		Iou c = { .p = p, .vx = vx, .a = p->arena, .memo = &memo, .report = true };
		iou_block(&c, &f->body);
		pmap_release(&c.dead.origin);
		pmap_release(&memo);
		if (c.failed)
			return false;
	}
	return true;
}

/* ------------------------------------------------------------ AtomicAddDtypeValid */

static bool is_atomic_add(const Expr *e)
{
	for (int i = 0; i < e->nkw; i++)
		if (!strcmp(e->kw[i].name, "atomic")) {
			const Expr *v = e->kw[i].value;
			return v && v->kind == EX_SYMBOL && !strcmp(v->str, "pl.AtomicType.Add");
		}
	return false;
}

static const Expr *bad_atomic(const Function *f, const Expr *e)
{
	if (!e || e->kind == EX_VAR)
		return NULL;
	if (e->kind == EX_OP_CALL) {
		int dest = -1;
		if (!strcmp(e->str, "tile.store"))
			dest = 2;
		else if (!strcmp(e->str, "tensor.assemble") || !strcmp(e->str, "pld.tensor.put") ||
			 !strcmp(e->str, "pld.tile.put"))
			dest = 0;
		else if (!strcmp(e->str, "pld.tensor.remote_store") || !strcmp(e->str, "pld.tile.remote_store"))
			dest = 1;
		if (dest >= 0 && dest < e->nargs && is_atomic_add(e)) {
			const Type *t = ir_expr_type(e->args[dest]);
			if (t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR) && t->dtype == DT_BF16)
				return e;
		}
	}
	const Expr *r = bad_atomic(f, e->lhs);
	if (!r)
		r = bad_atomic(f, e->rhs);
	for (int i = 0; !r && i < e->nargs; i++)
		r = bad_atomic(f, e->args[i]);
	for (int i = 0; !r && i < e->nkw; i++)
		r = bad_atomic(f, e->kw[i].value);
	return r;
}

static const Expr *bad_atomic_block(const Function *f, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		const Expr *r = bad_atomic(f, s->value);
		for (int j = 0; !r && j < s->nvalues; j++)
			r = bad_atomic(f, s->values[j]);
		if (!r && !ir_stmt_is_simple(s->kind)) {
			for (int j = 0; !r && j < s->niter; j++)
				r = bad_atomic(f, s->inits[j]);
			if (!r)
				r = bad_atomic_block(f, &s->body);
			if (!r)
				r = bad_atomic_block(f, &s->orelse);
		}
		if (r)
			return r;
	}
	return NULL;
}

static bool check_atomic_add(Program *p, const Vctx *vx)
{
	for (int i = 0; i < p->nfuncs; i++) {
		const Function *f = p->funcs[i];
		const Expr *e = bad_atomic_block(f, &f->body);
		if (e) {
			fail(vx, e->pos, "AtomicAddDtypeValid",
			     "atomic-add into a bf16 global tensor is not supported on the 'a5' backend (function '%s'). "
			     "bf16 atomic-add requires the Ascend910B (A2/A3) profile, whose store pipe honours "
			     "set_atomic_bf16. Accumulate into an fp32 tensor and cast to bf16 after the reduction "
			     "instead.",
			     f->name);
			return false;
		}
	}
	return true;
}

/* ------------------------------------------------------------ all */

bool verify_structural(Program *p, Diag *d, const char *pass)
{
	Vctx vx = { .d = d, .when = "Pre-verification failed before", .pass = pass };
	/* in the order the reference's property set lists them */
	return check_types(p, &vx) && check_use_after_def(p, &vx) && verify_no_nested_incore(p, d) &&
	       check_inout_use(p, &vx) && check_atomic_add(p, &vx);
}

/* ------------------------------------------------------------ after a pass */

/* The reference's UseAfterDef check after a pass that copies code, as far
 * as copies can break it: a variable read (or named in the shape of a
 * variable read) that the function neither defines anywhere nor mentions in
 * its signature.  Inlining leaves a callee's parameter in the type of a
 * local whose type named it, unrolling the loop variable in the types of
 * the body's variables: the reference rejects both after the pass. */
typedef struct Post {
	const Vctx *vx;
	const Function *f;
	PtrMap defined;
	bool failed;
} Post;

static void post_def(void *ctx, Var *v) { pmap_put(&((Post *)ctx)->defined, v, (void *)1); }

static void post_defs(Post *c, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (ir_stmt_is_simple(s->kind))
			continue;
		for (int j = 0; j < s->niter; j++)
			post_def(c, s->iter_args[j]);
		if (s->scope) {
			if (s->scope->tid)
				post_def(c, s->scope->tid);
			if (s->scope->aiv_var)
				post_def(c, s->scope->aiv_var);
		}
		post_defs(c, &s->body);
		post_defs(c, &s->orelse);
	}
}

static void post_sig_expr(Post *c, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_VAR) {
		post_def(c, e->var);
		return;
	}
	post_sig_expr(c, e->lhs);
	post_sig_expr(c, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		post_sig_expr(c, e->args[i]);
}

static void post_sig_type(Post *c, const Type *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->ndim; i++)
		post_sig_expr(c, t->shape[i]);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			post_sig_expr(c, t->view->kw[i].value);
	for (int i = 0; i < t->nelems; i++)
		post_sig_type(c, t->elems[i]);
}

static void post_need(Post *c, const Var *v, SrcPos at)
{
	if (c->failed || pmap_get(&c->defined, v))
		return;
	fail(c->vx, at, "UseAfterDefCheck", "Variable '%s' used before definition in function '%s'", v->name,
	     c->f->name);
	c->failed = true;
}

static void post_type_uses(Post *c, const Type *t, SrcPos at);

static void post_expr(Post *c, const Expr *e, bool in_type, SrcPos at)
{
	if (!e || c->failed)
		return;
	if (e->kind == EX_VAR) {
		post_need(c, e->var, at);
		if (!in_type)
			post_type_uses(c, e->var->type, at);
		return;
	}
	post_expr(c, e->lhs, in_type, at);
	post_expr(c, e->rhs, in_type, at);
	for (int i = 0; i < e->nargs; i++)
		post_expr(c, e->args[i], in_type, at);
	for (int i = 0; i < e->nkw; i++)
		post_expr(c, e->kw[i].value, in_type, at);
}

static void post_type_uses(Post *c, const Type *t, SrcPos at)
{
	if (!t)
		return;
	for (int i = 0; i < t->ndim; i++)
		post_expr(c, t->shape[i], true, at);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			post_expr(c, t->view->kw[i].value, true, at);
	for (int i = 0; i < t->nelems; i++)
		post_type_uses(c, t->elems[i], at);
}

static void post_block(Post *c, const Block *b)
{
	for (int i = 0; i < b->n && !c->failed; i++) {
		const Stmt *s = b->stmts[i];
		post_expr(c, s->value, false, s->pos);
		for (int j = 0; j < s->nvalues; j++)
			post_expr(c, s->values[j], false, s->pos);
		if (ir_stmt_is_simple(s->kind))
			continue;
		post_expr(c, s->start, false, s->pos);
		post_expr(c, s->stop, false, s->pos);
		post_expr(c, s->step, false, s->pos);
		for (int j = 0; j < s->niter; j++)
			post_expr(c, s->inits[j], false, s->pos);
		if (s->scope) {
			post_expr(c, s->scope->core_num, false, s->pos);
			post_expr(c, s->scope->predicate, false, s->pos);
			post_expr(c, s->scope->count, false, s->pos);
		}
		post_block(c, &s->body);
		post_block(c, &s->orelse);
	}
}

bool verify_copies_defined(Program *p, Diag *d, const char *pass)
{
	Vctx vx = { .d = d, .when = "Post-verification failed after", .pass = pass };
	for (int i = 0; i < p->nfuncs; i++) {
		const Function *f = p->funcs[i];
		if (f->abstract || f->inline_body)
			continue;
		Post c = { .vx = &vx, .f = f };
		for (int j = 0; j < f->nparams; j++) {
			post_def(&c, f->params[j].var);
			post_sig_type(&c, f->params[j].var->type);
		}
		for (int j = 0; j < f->nrets; j++)
			post_sig_type(&c, f->rets[j]);
		ir_block_defs(&f->body, post_def, &c);
		post_defs(&c, &f->body);
		post_block(&c, &f->body);
		pmap_release(&c.defined);
		if (c.failed)
			return false;
	}
	return true;
}
