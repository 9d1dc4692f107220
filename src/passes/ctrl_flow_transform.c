/* ctrl_flow_transform.c - the reference's CtrlFlowTransform: break and
 * continue in the loops of InCore, AIC and AIV functions become structured
 * control flow.
 *
 * Continue: the statements after an `if ...: continue` move into the other
 * branch of that if; the loop keeps its kind.  Break: a pl.range loop becomes
 * a while loop over a fresh counter `i__idx_vN` and a flag
 * `break__tmp_vN: pl.Scalar[pl.BOOL]` (`while i < stop and not flag`, `>` for
 * a negative constant step); the break sets the flag, what follows it runs
 * under the other branch or under `if not flag`, and the counter advances
 * under `if not flag`.  A while loop with a break gets the flag in its
 * condition.  A loop with both loses its continues first.
 *
 * Loops that carry values (iter args, SSA form) route them through if
 * results `base__phi_vN`: at an escape each carried value is the one the
 * loop would yield when it is assigned before that point, else the iter arg
 * it replaces (and at a break, an expression stands for its iter arg);
 * a yielded expression that is not a variable is first bound to
 * `yield__tmp_vN` when the counter advance follows it.  The rules, their
 * quirks included, and the order in which the names take their numbers (one
 * counter per function, inner loops first, an if's results after its
 * branches) are the reference's, so that its output is reproduced byte for
 * byte.  Rebuilt ifs and for loops turned while loops keep no comments, as
 * there.
 *
 * Costs: each restructuring level rescans the statements left in its loop
 * body, and the levels nest in the output, so the nesting limit (the
 * printed program must re-read: LEX_MAX_INDENT) bounds both the recursion
 * and the rescans; a body needing more is a located error.  The chain of
 * continues that does not nest (an if whose branch continues, followed by
 * more statements) is iterated, not recursed.
 *
 * Requires: nothing.  Produces: StructuredCtrlFlow (checked after it by
 * cft_verify_structured, as the reference's pass context does).
 */
#include <stdio.h>
#include <string.h>

#include "ptoopt/lex.h"
#include "ptoopt/ir_walk.h"
#include "ptoopt/passes.h"
#include "ptoopt/types.h"

/* Deepest block (the function body is 1) a statement may end up in: its
 * printed line must stay within the lexer's indentation limit, with the
 * class body's level on top. */
#define CFT_MAX_DEPTH (LEX_MAX_INDENT - 1)

enum { HAS_BREAK = 1, HAS_CONTINUE = 2 };

typedef struct Seg {
	Stmt **v;
	int n;
} Seg;

typedef struct Vals {
	Expr **v;
	int n;
} Vals;

typedef struct BodyRes {
	PtrVec stmts;
	Vals vals;
} BodyRes;

/* The loop being lowered: its carried variables and its break flag. */
typedef struct Loop {
	Var **iter;
	int niter;
	Var *brk;
	SrcPos pos;
} Loop;

typedef struct Cft {
	Program *p;
	Arena *a;
	Diag *d;
	Function *fn;
	int counter;         /* the function's name counter (vN of every name made) */
	PtrMap avail;        /* Var -> generation: assigned in the statements resolved against */
	uintptr_t gen;
	bool failed;
	bool touched;        /* a loop was rewritten */
} Cft;

/* ------------------------------------------------------------ small builders */

static Stmt *mk_assign(Cft *c, Var *v, Expr *value, SrcPos pos)
{
	Stmt *s = ir_stmt_new(c->a, ST_ASSIGN, pos);
	s->var = v;
	s->value = value;
	return s;
}

static Stmt *mk_yield(Cft *c, Vals vals, SrcPos pos)
{
	Stmt *s = ir_stmt_new(c->a, ST_YIELD, pos);
	s->values = vals.v;
	s->nvalues = vals.n;
	return s;
}

static Block to_block(Cft *c, PtrVec *v)
{
	Block b = { 0 };
	b.stmts = (Stmt **)vec_finish(c->a, v, &b.n);
	return b;
}

static Stmt *mk_if(Cft *c, Expr *cond, Block then, Block orelse, bool has_else, Var **rets, int nrets, SrcPos pos)
{
	Stmt *s = ir_stmt_new(c->a, ST_IF, pos);
	s->value = cond;
	s->body = then;
	s->orelse = orelse;
	s->has_else = has_else;
	s->rets = rets;
	s->nrets = nrets;
	return s;
}

static Expr *mk_bool(Cft *c, bool v, SrcPos pos)
{
	Expr *e = ir_expr_new(c->a, EX_BOOL, pos);
	e->ival = v;
	e->dtype = DT_BOOL;
	e->type = ir_scalar_type(c->a, DT_BOOL);
	return e;
}

static Expr *mk_not(Cft *c, Var *v, SrcPos pos)
{
	Expr *e = ir_expr_new(c->a, EX_UNARY, pos);
	e->op = UOP_NOT;
	e->lhs = ir_var_ref(c->a, v);
	e->type = ir_scalar_type(c->a, DT_BOOL);
	return e;
}

static Expr *mk_and(Cft *c, Expr *l, Expr *r, SrcPos pos)
{
	Expr *e = ir_expr_new(c->a, EX_BINARY, pos);
	e->op = OP_AND;
	e->lhs = l;
	e->rhs = r;
	e->type = ir_scalar_type(c->a, DT_BOOL);
	return e;
}

static void push_seg(PtrVec *v, Seg s)
{
	for (int i = 0; i < s.n; i++)
		vec_push(v, s.v[i]);
}

static Seg seg_of(const Block *b) { return (Seg){ b->stmts, b->n }; }

static Vals vals_copy(Cft *c, Vals v)
{
	Vals r = { NULL, v.n };
	if (v.n) {
		r.v = arena_alloc(c->a, (size_t)v.n * sizeof *r.v);
		memcpy(r.v, v.v, (size_t)v.n * sizeof *r.v);
	}
	return r;
}

/* A name made by the pass: base__role_vN with the function's counter. */
static const char *fresh_name(Cft *c, const char *base, const char *role)
{
	return autoname_build(c->a, base, "", role, c->counter++);
}

/* What names derive from: the part of a name before its "__". */
static const char *name_base(Cft *c, const char *name) { return autoname_parse(c->a, name).base; }

/* ------------------------------------------------------------ scanning */

/* Break / continue in b, through ifs and scopes but not into loops. */
static int scan(const Block *b)
{
	int f = 0;
	for (int i = 0; i < b->n && f != (HAS_BREAK | HAS_CONTINUE); i++) {
		const Stmt *s = b->stmts[i];
		switch (s->kind) {
		case ST_BREAK: f |= HAS_BREAK; break;
		case ST_CONTINUE: f |= HAS_CONTINUE; break;
		case ST_IF: case ST_SCOPE:
			f |= scan(&s->body) | scan(&s->orelse);
			break;
		default: break;
		}
	}
	return f;
}

static bool ends_with(const Block *b, StmtKind k) { return b->n && b->stmts[b->n - 1]->kind == k; }

/* A body without its trailing yield, and that yield's values. */
typedef struct Decomposed {
	Seg stmts;
	Vals vals;
	bool had_yield;
} Decomposed;

static Decomposed decompose(const Block *b)
{
	Decomposed r = { seg_of(b), { NULL, 0 }, false };
	if (b->n && b->stmts[b->n - 1]->kind == ST_YIELD) {
		Stmt *y = b->stmts[b->n - 1];
		r.stmts.n--;
		r.vals = (Vals){ y->values, y->nvalues };
		r.had_yield = true;
	}
	return r;
}

/* ------------------------------------------------------------ value resolution */

/* The values to yield at an escape whose preceding statements are the
 * segments: a variable assigned there (at their top level) or carried by the
 * loop stays, another variable becomes the iter arg of its slot; an
 * expression stays. */
static Vals resolve(Cft *c, const Loop *lp, Vals orig, const Seg *segs, int nsegs)
{
	Vals r = vals_copy(c, orig);
	if (!orig.n)
		return r;
	uintptr_t g = ++c->gen;
	for (int k = 0; k < nsegs; k++)
		for (int i = 0; i < segs[k].n; i++)
			if (segs[k].v[i]->kind == ST_ASSIGN)
				pmap_put(&c->avail, segs[k].v[i]->var, (void *)g);
	for (int j = 0; j < lp->niter; j++)
		pmap_put(&c->avail, lp->iter[j], (void *)g);
	for (int j = 0; j < r.n; j++) {
		Expr *e = r.v[j];
		if (e->kind != EX_VAR || (uintptr_t)pmap_get(&c->avail, e->var) == g)
			continue;
		if (j < lp->niter)
			r.v[j] = ir_var_ref(c->a, lp->iter[j]);
	}
	return r;
}

static Vals resolve1(Cft *c, const Loop *lp, Vals orig, Seg pre) { return resolve(c, lp, orig, &pre, 1); }

/* At a break, an expression (the next iteration's value) stands for its
 * iter arg. */
static Vals break_values(Cft *c, const Loop *lp, Vals orig, const Seg *segs, int nsegs)
{
	Vals r = resolve(c, lp, orig, segs, nsegs);
	for (int j = 0; j < r.n && j < lp->niter; j++)
		if (r.v[j]->kind != EX_VAR)
			r.v[j] = ir_var_ref(c->a, lp->iter[j]);
	return r;
}

/* One phi per value, named from it ("phi" for an expression). */
static Var **mk_phis(Cft *c, Vals vals, SrcPos pos, Vals *refs)
{
	Var **phis = vals.n ? arena_alloc(c->a, (size_t)vals.n * sizeof *phis) : NULL;
	refs->n = vals.n;
	refs->v = vals.n ? arena_alloc(c->a, (size_t)vals.n * sizeof *refs->v) : NULL;
	for (int i = 0; i < vals.n; i++) {
		Expr *e = vals.v[i];
		const char *base = e->kind == EX_VAR ? name_base(c, e->var->name) : "phi";
		phis[i] = ir_var_new(c->p, fresh_name(c, base, "phi"), ir_expr_type(e), VK_VAR);
		phis[i]->pos = pos;
		refs->v[i] = ir_var_ref(c->a, phis[i]);
	}
	return phis;
}

/* The path that does not escape: the other branch, then what follows the if. */
static Seg normal_path(Cft *c, const Stmt *ifs, bool escape_in_then, Seg post)
{
	Seg br = escape_in_then ? (ifs->has_else ? seg_of(&ifs->orelse) : (Seg){ NULL, 0 }) : seg_of(&ifs->body);
	Seg r = { NULL, br.n + post.n };
	if (r.n) {
		r.v = arena_alloc(c->a, (size_t)r.n * sizeof *r.v);
		if (br.n)
			memcpy(r.v, br.v, (size_t)br.n * sizeof *r.v);
		if (post.n)
			memcpy(r.v + br.n, post.v, (size_t)post.n * sizeof *r.v);
	}
	return r;
}

static bool deeper(Cft *c, int depth, SrcPos pos)
{
	if (depth <= CFT_MAX_DEPTH)
		return true;
	if (!c->failed)
		diag_error(c->d, pos.line, pos.col,
			   "ctrl-flow-transform: restructuring the break / continue of this loop in function '%s' nests "
			   "blocks deeper than the limit of %d levels of indentation",
			   c->fn->name, LEX_MAX_INDENT);
	c->failed = true;
	return false;
}

/* pre, then `if cond` routing the escape (prefix statements and a yield of
 * the escape values) and the normal path (its statements and a yield of its
 * values) into phis, which become the values. */
static BodyRes escape_if(Cft *c, const Stmt *ifs, bool escape_in_then, PtrVec acc, Stmt *prefix, Vals esc,
			 BodyRes normal)
{
	Vals refs;
	Var **phis = mk_phis(c, esc, ifs->pos, &refs);
	PtrVec ev = ARENA_VEC(c->a);
	if (prefix)
		vec_push(&ev, prefix);
	vec_push(&ev, mk_yield(c, esc, ifs->pos));
	vec_push(&normal.stmts, mk_yield(c, normal.vals, ifs->pos));
	Block eb = to_block(c, &ev), nb = to_block(c, &normal.stmts);
	vec_push(&acc, mk_if(c, ifs->value, escape_in_then ? eb : nb, escape_in_then ? nb : eb, true, phis, esc.n,
			     ifs->pos));
	return (BodyRes){ acc, refs };
}

/* ------------------------------------------------------------ continue */

typedef BodyRes (*BodyFn)(Cft *c, const Loop *lp, Seg stmts, Vals orig, int depth);

/* One branch of an if holding an escape: its statements as they are when
 * the escape is not in it (has false), else processed by body (cont_body or
 * break_body) as a body of its own. */
static BodyRes branch_body(Cft *c, BodyFn body, const Loop *lp, const Block *b, bool has, Seg pre, Vals orig,
			   int depth)
{
	Decomposed dc = decompose(b);
	Vals vals = dc.had_yield ? dc.vals : orig;
	if (!has) {
		BodyRes r = { ARENA_VEC(c->a), resolve1(c, lp, vals, pre) };
		push_seg(&r.stmts, dc.stmts);
		return r;
	}
	return body(c, lp, dc.stmts, vals, depth);
}

/* The reference's ProcessBodyForContinue on stmts (at block depth depth). */
static BodyRes cont_body(Cft *c, const Loop *lp, Seg stmts, Vals orig, int depth)
{
	PtrVec acc = ARENA_VEC(c->a);
	for (;;) {
		bool again = false;
		for (int i = 0; i < stmts.n && !again; i++) {
			Stmt *s = stmts.v[i];
			Seg pre = { stmts.v, i }, post = { stmts.v + i + 1, stmts.n - i - 1 };
			if (s->kind == ST_CONTINUE) {
				push_seg(&acc, pre);
				return (BodyRes){ acc, resolve1(c, lp, orig, pre) };
			}
			if (s->kind != ST_IF)
				continue;
			bool th = scan(&s->body) & HAS_CONTINUE;
			bool eh = s->has_else && (scan(&s->orelse) & HAS_CONTINUE);
			if (!th && !eh)
				continue;
			bool tend = ends_with(&s->body, ST_CONTINUE);
			bool eend = s->has_else && ends_with(&s->orelse, ST_CONTINUE);
			if (tend || eend) {
				bool esc_then = tend;
				Vals cv = resolve1(c, lp, orig, pre);
				Seg normal = normal_path(c, s, esc_then, post);
				Seg scope[2] = { pre, normal };
				Vals nv = resolve(c, lp, orig, scope, 2);
				if (!deeper(c, depth + 1, s->pos))
					return (BodyRes){ acc, orig };
				BodyRes nr = cont_body(c, lp, normal, nv, depth + 1);
				push_seg(&acc, pre);
				if (!orig.n) {
					PtrVec none = ARENA_VEC(c->a);
					Block eb = to_block(c, &none), nb = to_block(c, &nr.stmts);
					vec_push(&acc, mk_if(c, s->value, esc_then ? eb : nb, esc_then ? nb : eb, true, NULL, 0,
							     s->pos));
					return (BodyRes){ acc, { NULL, 0 } };
				}
				return escape_if(c, s, esc_then, acc, NULL, cv, nr);
			}
			/* the continue is nested deeper in a branch */
			if (!deeper(c, depth + 1, s->pos))
				return (BodyRes){ acc, orig };
			BodyRes tr = branch_body(c, cont_body, lp, &s->body, th, pre, orig, depth + 1);
			BodyRes er;
			if (s->has_else)
				er = branch_body(c, cont_body, lp, &s->orelse, eh, pre, orig, depth + 1);
			else
				er = (BodyRes){ ARENA_VEC(c->a), resolve1(c, lp, orig, pre) };
			push_seg(&acc, pre);
			if (tr.vals.n || er.vals.n) {
				Vals refs;
				Var **phis = mk_phis(c, tr.vals.n ? tr.vals : er.vals, s->pos, &refs);
				vec_push(&tr.stmts, mk_yield(c, tr.vals, lp->pos));
				vec_push(&er.stmts, mk_yield(c, er.vals, lp->pos));
				vec_push(&acc, mk_if(c, s->value, to_block(c, &tr.stmts), to_block(c, &er.stmts), true, phis,
						     refs.n, s->pos));
				orig = refs;
			} else {
				Block eb = to_block(c, &er.stmts);
				vec_push(&acc, mk_if(c, s->value, to_block(c, &tr.stmts), eb, s->has_else, NULL, 0, s->pos));
			}
			if (!post.n)
				return (BodyRes){ acc, orig };
			/* what follows is processed at this level, as a new body */
			stmts = post;
			again = true;
		}
		if (!again) {
			push_seg(&acc, stmts);
			return (BodyRes){ acc, orig };
		}
	}
}

/* ------------------------------------------------------------ break */


static Stmt *set_flag(Cft *c, const Loop *lp) { return mk_assign(c, lp->brk, mk_bool(c, true, lp->pos), lp->pos); }

/* The reference's ProcessBodyForBreak on stmts (at block depth depth). */
static BodyRes break_body(Cft *c, const Loop *lp, Seg stmts, Vals orig, int depth)
{
	for (int i = 0; i < stmts.n; i++) {
		Stmt *s = stmts.v[i];
		Seg pre = { stmts.v, i }, post = { stmts.v + i + 1, stmts.n - i - 1 };
		if (s->kind == ST_BREAK) {
			BodyRes r = { ARENA_VEC(c->a), { NULL, 0 } };
			push_seg(&r.stmts, pre);
			vec_push(&r.stmts, set_flag(c, lp));
			Seg with_flag = { (Stmt **)r.stmts.items, (int)r.stmts.len };
			r.vals = break_values(c, lp, orig, &with_flag, 1);
			return r;
		}
		if (s->kind != ST_IF)
			continue;
		bool th = scan(&s->body) & HAS_BREAK;
		bool eh = s->has_else && (scan(&s->orelse) & HAS_BREAK);
		if (!th && !eh)
			continue;
		bool tend = ends_with(&s->body, ST_BREAK);
		bool eend = s->has_else && ends_with(&s->orelse, ST_BREAK);
		if (!deeper(c, depth + 1, s->pos))
			return (BodyRes){ ARENA_VEC(c->a), orig };
		PtrVec acc = ARENA_VEC(c->a);
		if (tend || eend) {
			bool esc_then = tend;
			Vals bv = break_values(c, lp, orig, &pre, 1);
			Seg normal = normal_path(c, s, esc_then, post);
			Seg scope[2] = { pre, normal };
			Vals nv = resolve(c, lp, orig, scope, 2);
			BodyRes nr = break_body(c, lp, normal, nv, depth + 1);
			push_seg(&acc, pre);
			return escape_if(c, s, esc_then, acc, set_flag(c, lp), bv, nr);
		}
		/* the break is nested deeper in a branch */
		BodyRes tr = branch_body(c, break_body, lp, &s->body, th, pre, orig, depth + 1);
		BodyRes er;
		if (s->has_else)
			er = branch_body(c, break_body, lp, &s->orelse, eh, pre, orig, depth + 1);
		else
			er = (BodyRes){ ARENA_VEC(c->a), resolve1(c, lp, orig, pre) };
		Vals refs;
		Var **phis = mk_phis(c, tr.vals.n ? tr.vals : er.vals, lp->pos, &refs);
		if (tr.vals.n)
			vec_push(&tr.stmts, mk_yield(c, tr.vals, lp->pos));
		if (er.vals.n)
			vec_push(&er.stmts, mk_yield(c, er.vals, lp->pos));
		push_seg(&acc, pre);
		vec_push(&acc, mk_if(c, s->value, to_block(c, &tr.stmts), to_block(c, &er.stmts), true, phis, refs.n,
				     s->pos));
		if (!post.n)
			return (BodyRes){ acc, refs };
		/* what follows runs only while the flag is clear */
		BodyRes pr = break_body(c, lp, post, refs, depth + 1);
		vec_push(&pr.stmts, mk_yield(c, pr.vals, lp->pos));
		PtrVec gv = ARENA_VEC(c->a);
		vec_push(&gv, mk_yield(c, vals_copy(c, refs), lp->pos));
		Vals grefs;
		Var **gphis = mk_phis(c, refs, lp->pos, &grefs);
		vec_push(&acc, mk_if(c, mk_not(c, lp->brk, lp->pos), to_block(c, &pr.stmts), to_block(c, &gv), true, gphis,
				     grefs.n, lp->pos));
		return (BodyRes){ acc, grefs };
	}
	BodyRes r = { ARENA_VEC(c->a), orig };
	push_seg(&r.stmts, stmts);
	return r;
}

static BodyRes break_and_continue(Cft *c, const Loop *lp, Decomposed dc, bool also_continue, int depth)
{
	if (also_continue) {
		BodyRes cr = cont_body(c, lp, dc.stmts, dc.vals, depth);
		Seg s = { (Stmt **)cr.stmts.items, (int)cr.stmts.len };
		return break_body(c, lp, s, cr.vals, depth);
	}
	return break_body(c, lp, dc.stmts, dc.vals, depth);
}

/* The body's statements and a yield of its values when it had one or has
 * values now. */
static Block final_body(Cft *c, BodyRes r, bool had_yield, SrcPos pos)
{
	if (r.vals.n || had_yield)
		vec_push(&r.stmts, mk_yield(c, r.vals, pos));
	return to_block(c, &r.stmts);
}

/* ------------------------------------------------------------ lowering loops */

static Loop loop_of(Stmt *s, Var *brk) { return (Loop){ s->iter_args, s->niter, brk, s->pos }; }

static void lower_continue(Cft *c, Stmt *s, int depth)
{
	Loop lp = loop_of(s, NULL);
	Decomposed dc = decompose(&s->body);
	BodyRes r = cont_body(c, &lp, dc.stmts, dc.vals, depth);
	s->body = final_body(c, r, dc.had_yield, s->pos);
}

static Var *new_flag(Cft *c, SrcPos pos)
{
	Var *v = ir_var_new(c->p, fresh_name(c, "break", "tmp"), ir_scalar_type(c->a, DT_BOOL), VK_VAR);
	v->pos = pos;
	return v;
}

static Stmt *new_while(Cft *c, Stmt *s, Expr *cond, Block body)
{
	Stmt *w = ir_stmt_new(c->a, ST_WHILE, s->pos);
	w->value = cond;
	w->body = body;
	w->niter = s->niter;
	w->iter_args = s->iter_args;
	w->inits = s->inits;
	w->nrets = s->nrets;
	w->rets = s->rets;
	w->while_ssa = s->niter > 0;
	return w;
}

/* for -> counter, flag and while loop, appended to out */
static void lower_for_break(Cft *c, Stmt *s, bool also_continue, int depth, PtrVec *out)
{
	SrcPos pos = s->pos;
	Var *brk = new_flag(c, pos);
	Var *iv = ir_var_new(c->p, fresh_name(c, name_base(c, s->var->name), "idx"), s->var->type, VK_VAR);
	iv->pos = pos;
	PtrMap m = { 0 };
	pmap_put(&m, s->var, iv);
	ir_block_subst(&(IrSubst){ .a = c->a, .vars = &m }, &s->body);
	pmap_release(&m);

	Expr *ivr = ir_var_ref(c->a, iv);
	bool down = s->step->kind == EX_INT && s->step->ival < 0;
	Expr *bound = type_make_binary(c->a, down ? OP_GT : OP_LT, ivr, s->stop, pos, c->d);
	Expr *adv = type_make_binary(c->a, OP_ADD, ivr, s->step, pos, c->d);
	if (!bound || !adv) {
		c->failed = true;
		return;
	}
	Expr *cond = mk_and(c, bound, mk_not(c, brk, pos), pos);

	Loop lp = loop_of(s, brk);
	Decomposed dc = decompose(&s->body);
	BodyRes r = break_and_continue(c, &lp, dc, also_continue, depth);

	/* the yield follows the advance: values that are expressions are bound first */
	Vals tv = vals_copy(c, r.vals);
	for (int i = 0; i < tv.n; i++) {
		if (tv.v[i]->kind == EX_VAR)
			continue;
		Var *t = ir_var_new(c->p, fresh_name(c, "yield", "tmp"), ir_expr_type(tv.v[i]), VK_VAR);
		t->pos = pos;
		vec_push(&r.stmts, mk_assign(c, t, tv.v[i], pos));
		tv.v[i] = ir_var_ref(c->a, t);
	}
	PtrVec av = ARENA_VEC(c->a);
	vec_push(&av, mk_assign(c, iv, adv, pos));
	Block none = { 0 };
	vec_push(&r.stmts, mk_if(c, mk_not(c, brk, pos), to_block(c, &av), none, false, NULL, 0, pos));
	if (tv.n || dc.had_yield)
		vec_push(&r.stmts, mk_yield(c, tv, pos));

	vec_push(out, mk_assign(c, iv, s->start, pos));
	vec_push(out, mk_assign(c, brk, mk_bool(c, false, pos), pos));
	vec_push(out, new_while(c, s, cond, to_block(c, &r.stmts)));
}

static void lower_while_break(Cft *c, Stmt *s, bool also_continue, int depth, PtrVec *out)
{
	SrcPos pos = s->pos;
	Var *brk = new_flag(c, pos);
	Expr *cond = mk_and(c, s->value, mk_not(c, brk, pos), pos);
	Loop lp = loop_of(s, brk);
	Decomposed dc = decompose(&s->body);
	BodyRes r = break_and_continue(c, &lp, dc, also_continue, depth);
	Stmt *w = new_while(c, s, cond, final_body(c, r, dc.had_yield, pos));
	w->while_ssa = s->while_ssa;
	vec_push(out, mk_assign(c, brk, mk_bool(c, false, pos), pos));
	vec_push(out, w);
}

/* ------------------------------------------------------------ the walk */

/* Every loop of b (at block depth depth), inner loops first. */
static void xform_block(Cft *c, Block *b, int depth)
{
	PtrVec out = ARENA_VEC(c->a);
	bool changed = false;
	for (int i = 0; i < b->n && !c->failed; i++) {
		Stmt *s = b->stmts[i];
		if (ir_stmt_is_simple(s->kind)) {
			vec_push(&out, s);
			continue;
		}
		xform_block(c, &s->body, depth + 1);
		if (s->kind != ST_FOR && s->kind != ST_WHILE) {
			xform_block(c, &s->orelse, depth + 1);
			vec_push(&out, s);
			continue;
		}
		int f = (s->kind == ST_WHILE || s->for_kind == FOR_RANGE) ? scan(&s->body) : 0;
		if (!f) {
			vec_push(&out, s);
			continue;
		}
		c->touched = true;
		if (!(f & HAS_BREAK)) {
			lower_continue(c, s, depth + 1);
			vec_push(&out, s);
			continue;
		}
		changed = true;
		if (s->kind == ST_FOR)
			lower_for_break(c, s, f & HAS_CONTINUE, depth + 1, &out);
		else
			lower_while_break(c, s, f & HAS_CONTINUE, depth + 1, &out);
	}
	if (changed && !c->failed)
		*b = to_block(c, &out);
	else
		vec_release(&out);
}

int cft_run_program(Program *p, Diag *d)
{
	Cft c = { .p = p, .a = p->arena, .d = d };
	for (int i = 0; i < p->nfuncs && !c.failed; i++) {
		Function *f = p->funcs[i];
		if (f->type != FT_INCORE && f->type != FT_AIC && f->type != FT_AIV)
			continue;
		c.fn = f;
		c.counter = 0;
		bool before = c.touched;
		c.touched = false;
		xform_block(&c, &f->body, 1);
		f->touched = c.touched;
		c.touched = c.touched || before;
	}
	pmap_release(&c.avail);
	p->unchanged = !c.touched;
	p->touch_marks = true;
	return c.failed ? 1 : 0;
}

/* ------------------------------------------------------------ the property */

static const Stmt *find_jump(const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (s->kind == ST_BREAK || s->kind == ST_CONTINUE)
			return s;
		if (ir_stmt_is_simple(s->kind))
			continue;
		const Stmt *r = find_jump(&s->body);
		if (!r)
			r = find_jump(&s->orelse);
		if (r)
			return r;
	}
	return NULL;
}

bool cft_verify_structured(Program *p, Diag *d)
{
	for (int i = 0; i < p->nfuncs; i++) {
		Function *f = p->funcs[i];
		if (f->type != FT_INCORE && f->type != FT_AIC && f->type != FT_AIV)
			continue;
		const Stmt *s = find_jump(&f->body);
		if (s) {
			diag_error(d, s->pos.line, s->pos.col,
				   "%s found — IR is not in structured control flow form (function '%s', after "
				   "ctrl-flow-transform)",
				   s->kind == ST_BREAK ? "BreakStmt" : "ContinueStmt", f->name);
			return false;
		}
	}
	return true;
}
