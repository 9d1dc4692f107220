/* flatten_call_expr.c - the reference's FlattenCallExpr: three-address form.
 *
 * A call (op or function call) that appears where the reference wants a
 * plain value becomes a temporary `t__tmp_vN = call(...)` placed right
 * before the statement that held it, N counting from 0 per function in the
 * order the temporaries are made.  The places, exactly the reference's:
 *   - an argument of a call (or of a submit, where a nested submit is
 *     hoisted too), each argument hoisted right after its own nested calls;
 *   - an operand of a scalar binary / unary expression or cast, the
 *     operands' nested calls first, then the operands themselves;
 *   - an if / while condition, a for loop's start / stop / step (all three
 *     walked, then hoisted in order);
 *   - a returned value (a call) and a yielded value (a call or a submit).
 * The top-level call of an assignment or expression statement stays, and so
 * does a call inside a tuple, a subscript, keyword arguments or attributes,
 * a loop's init values and scope headers: the reference does not look
 * there.  Temporaries of a for / while / if header go before that
 * statement, those of its bodies into the bodies.
 *
 * Requires SSA form (and normalized statement structure, which this IR
 * always has when the structural verifier passes); produces SSA form, no
 * nested calls (verified after the pass: what the reference does not
 * flatten is then an error, as there) and normalized structure.
 */
#include "ptoopt/passes.h"

#include <string.h>

typedef struct Flat {
	Program *p;
	Arena *a;
	int counter;     /* temporaries made in this function */
	PtrVec *pending; /* assignments for the statement being rewritten */
} Flat;

static bool is_call(const Expr *e) { return e->kind == EX_OP_CALL || e->kind == EX_FN_CALL; }

/* e (a call or submit) into a new temporary; its reference is returned */
static Expr *hoist(Flat *f, Expr *e)
{
	const char *name = autoname_build(f->a, "t", "", "tmp", f->counter++);
	Var *t = ir_var_new(f->p, name, ir_expr_type(e), VK_VAR);
	t->pos = e->pos;
	Stmt *as = ir_stmt_new(f->a, ST_ASSIGN, e->pos);
	as->var = t;
	as->value = e;
	vec_push(f->pending, as);
	return ir_var_ref(f->a, t);
}

static Expr *visit(Flat *f, Expr *e);

/* The arguments of a call or submit, each walked and, when nested_submit
 * or a call, hoisted; a new node when any changed. */
static Expr *visit_args(Flat *f, Expr *e, bool submits_too)
{
	Expr **na = NULL;
	for (int i = 0; i < e->nargs; i++) {
		Expr *v = visit(f, e->args[i]);
		if (is_call(v) || (submits_too && v->kind == EX_SUBMIT))
			v = hoist(f, v);
		if (v != e->args[i] && !na) {
			na = arena_alloc(f->a, (size_t)e->nargs * sizeof *na);
			memcpy(na, e->args, (size_t)e->nargs * sizeof *na);
		}
		if (na)
			na[i] = v;
	}
	if (!na)
		return e;
	Expr *n = ir_expr_copy(f->a, e);
	n->args = na;
	return n;
}

static Expr *visit(Flat *f, Expr *e)
{
	if (!e)
		return e;
	switch ((ExprKind)e->kind) {
	case EX_VAR: case EX_INT: case EX_FLOAT: case EX_BOOL: case EX_STR: case EX_SYMBOL: case EX_DICT:
		return e;
	case EX_BINARY: {
		Expr *l = visit(f, e->lhs), *r = visit(f, e->rhs);
		if (is_call(l))
			l = hoist(f, l);
		if (is_call(r))
			r = hoist(f, r);
		if (l == e->lhs && r == e->rhs)
			return e;
		Expr *n = ir_expr_copy(f->a, e);
		n->lhs = l;
		n->rhs = r;
		return n;
	}
	case EX_UNARY: case EX_CAST: {
		Expr *o = visit(f, e->lhs);
		if (is_call(o))
			o = hoist(f, o);
		if (o == e->lhs)
			return e;
		Expr *n = ir_expr_copy(f->a, e);
		n->lhs = o;
		return n;
	}
	case EX_GETITEM: {
		Expr *o = visit(f, e->lhs);
		if (o == e->lhs)
			return e;
		Expr *n = ir_expr_copy(f->a, e);
		n->lhs = o;
		return n;
	}
	case EX_TUPLE: {
		/* elements are walked, not hoisted */
		Expr **na = NULL;
		for (int i = 0; i < e->nargs; i++) {
			Expr *v = visit(f, e->args[i]);
			if (v != e->args[i] && !na) {
				na = arena_alloc(f->a, (size_t)e->nargs * sizeof *na);
				memcpy(na, e->args, (size_t)e->nargs * sizeof *na);
			}
			if (na)
				na[i] = v;
		}
		if (!na)
			return e;
		Expr *n = ir_expr_copy(f->a, e);
		n->args = na;
		return n;
	}
	case EX_OP_CALL: case EX_FN_CALL:
		return visit_args(f, e, false);
	case EX_SUBMIT:
		return visit_args(f, e, true);
	}
	return e;
}

/* A header expression: walked, then hoisted when it is a call. */
static Expr *visit_hoist(Flat *f, Expr *e, bool submits_too)
{
	if (!e)
		return e;
	Expr *v = visit(f, e);
	if (is_call(v) || (submits_too && v->kind == EX_SUBMIT))
		v = hoist(f, v);
	return v;
}

static void flat_block(Flat *f, Block *b);

/* Rewrites s in place; its temporaries go to f->pending. */
static void flat_stmt(Flat *f, Stmt *s)
{
	switch (s->kind) {
	case ST_ASSIGN: case ST_EVAL:
		s->value = visit(f, s->value);
		return;
	case ST_RETURN: case ST_YIELD: {
		bool y = s->kind == ST_YIELD;
		Expr **nv = NULL;
		for (int i = 0; i < s->nvalues; i++) {
			Expr *v = visit_hoist(f, s->values[i], y);
			if (v != s->values[i] && !nv) {
				nv = arena_alloc(f->a, (size_t)s->nvalues * sizeof *nv);
				memcpy(nv, s->values, (size_t)s->nvalues * sizeof *nv);
			}
			if (nv)
				nv[i] = v;
		}
		if (nv)
			s->values = nv;
		return;
	}
	case ST_BREAK: case ST_CONTINUE:
		return;
	case ST_IF:
		s->value = visit_hoist(f, s->value, false);
		flat_block(f, &s->body);
		flat_block(f, &s->orelse);
		return;
	case ST_WHILE:
		s->value = visit_hoist(f, s->value, false);
		flat_block(f, &s->body);
		return;
	case ST_FOR: {
		Expr *a = visit(f, s->start), *b = visit(f, s->stop), *c = visit(f, s->step);
		s->start = a && is_call(a) ? hoist(f, a) : a;
		s->stop = b && is_call(b) ? hoist(f, b) : b;
		s->step = c && is_call(c) ? hoist(f, c) : c;
		flat_block(f, &s->body);
		return;
	}
	case ST_SCOPE:
		flat_block(f, &s->body);
		return;
	}
}

static void flat_block(Flat *f, Block *b)
{
	PtrVec *outer = f->pending;
	PtrVec pend = { 0 }, out = { 0 };
	bool changed = false;
	f->pending = &pend;
	for (int i = 0; i < b->n; i++) {
		pend.len = 0;
		flat_stmt(f, b->stmts[i]);
		if (pend.len && !changed) {
			changed = true;
			for (int k = 0; k < i; k++)
				vec_push(&out, b->stmts[k]);
		}
		if (!changed)
			continue;
		for (size_t k = 0; k < pend.len; k++)
			vec_push(&out, pend.items[k]);
		vec_push(&out, b->stmts[i]);
	}
	f->pending = outer;
	vec_release(&pend);
	if (changed)
		b->stmts = (Stmt **)vec_finish(f->a, &out, &b->n);
}

int flatten_call_expr_program(Program *p, Diag *d)
{
	(void)d;
	for (int i = 0; i < p->nfuncs; i++) {
		Function *fn = p->funcs[i];
		if (fn->inline_body || fn->abstract)
			continue;
		Flat f = { .p = p, .a = p->arena };
		flat_block(&f, &fn->body);
		fn->touched = f.counter > 0; /* nothing changes without a temporary */
	}
	p->touch_marks = true;
	return 0;
}
