/* ir_walk.c - the shared walks over the IR (see ir_walk.h). */
#include "ptoopt/ir_walk.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ visiting Vars */

/* Constants, strings and symbols refer to no Var (and have no operands). */
static inline bool expr_is_leaf(const Expr *e)
{
	return ((1u << EX_INT | 1u << EX_FLOAT | 1u << EX_BOOL | 1u << EX_STR | 1u << EX_SYMBOL) >> e->kind) & 1;
}

/* Operands are tested before the call: most are variable references or
 * constants, and a call per leaf was most of the walk. */
#define VISIT_OPERAND(x)                                        \
	do {                                                    \
		const Expr *x_ = (x);                           \
		if (!x_ || expr_is_leaf(x_))                    \
			break;                                  \
		if (x_->kind == EX_VAR)                         \
			fn(ctx, x_->var);                       \
		else                                            \
			ir_expr_vars(x_, fn, ctx);              \
	} while (0)

void ir_expr_vars(const Expr *e, IrVarFn fn, void *ctx)
{
	if (!e || expr_is_leaf(e))
		return;
	if (e->kind == EX_VAR) {
		fn(ctx, e->var);
		return;
	}
	VISIT_OPERAND(e->lhs);
	VISIT_OPERAND(e->rhs);
	for (int i = 0; i < e->nargs; i++)
		VISIT_OPERAND(e->args[i]);
	for (int i = 0; i < e->nkw; i++)
		VISIT_OPERAND(e->kw[i].value);
	VISIT_OPERAND(e->attrs);
}

void ir_scope_vars(const Scope *sc, IrVarFn fn, void *ctx)
{
	for (int i = 0; i < sc->ndeps; i++)
		fn(ctx, sc->deps[i]);
	for (int i = 0; i < sc->nno_dep_args; i++)
		fn(ctx, sc->no_dep_args[i]);
	for (int i = 0; i < sc->ndumps; i++)
		fn(ctx, sc->dumps[i]);
	if (sc->tid)
		fn(ctx, sc->tid);
	ir_expr_vars(sc->core_num, fn, ctx);
	ir_expr_vars(sc->predicate, fn, ctx);
	ir_expr_vars(sc->count, fn, ctx);
}

void ir_block_vars(const Block *b, IrVarFn fn, void *ctx)
{
	for (int i = 0; i < b->n; i++)
		ir_stmt_vars(b->stmts[i], fn, ctx);
}

void ir_stmt_vars(const Stmt *s, IrVarFn fn, void *ctx)
{
	ir_stmt_header_vars(s, fn, ctx);
	if (ir_stmt_is_simple(s->kind))
		return;
	ir_block_vars(&s->body, fn, ctx);
	ir_block_vars(&s->orelse, fn, ctx);
}

void ir_stmt_header_vars(const Stmt *s, IrVarFn fn, void *ctx)
{
	if (s->var)
		fn(ctx, s->var);
	ir_expr_vars(s->value, fn, ctx);
	for (int i = 0; i < s->nvalues; i++)
		ir_expr_vars(s->values[i], fn, ctx);
	if (ir_stmt_is_simple(s->kind))
		return;
	ir_expr_vars(s->start, fn, ctx);
	ir_expr_vars(s->stop, fn, ctx);
	ir_expr_vars(s->step, fn, ctx);
	for (int i = 0; i < s->niter; i++) {
		fn(ctx, s->iter_args[i]);
		ir_expr_vars(s->inits[i], fn, ctx);
	}
	for (int i = 0; i < s->nrets; i++)
		fn(ctx, s->rets[i]);
	if (s->scope)
		ir_scope_vars(s->scope, fn, ctx);
}

void ir_block_defs(const Block *b, IrVarFn fn, void *ctx)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if ((s->kind == ST_ASSIGN || s->kind == ST_FOR) && s->var)
			fn(ctx, s->var);
		if (ir_stmt_is_simple(s->kind))
			continue;
		if (s->kind == ST_FOR || s->kind == ST_WHILE || s->kind == ST_IF)
			for (int j = 0; j < s->nrets; j++)
				fn(ctx, s->rets[j]);
		ir_block_defs(&s->body, fn, ctx);
		ir_block_defs(&s->orelse, fn, ctx);
	}
}

/* ------------------------------------------------------------ visiting calls */

static void walk_expr_calls(const IrCallWalk *w, const Stmt *s, const Expr *e)
{
	if (!e || e->kind == EX_VAR || expr_is_leaf(e))
		return;
	if (e->kind == EX_OP_CALL || e->kind == EX_FN_CALL || e->kind == EX_SUBMIT)
		w->call(w->ctx, s, e);
	walk_expr_calls(w, s, e->lhs);
	walk_expr_calls(w, s, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		walk_expr_calls(w, s, e->args[i]);
	for (int i = 0; i < e->nkw; i++)
		walk_expr_calls(w, s, e->kw[i].value);
	walk_expr_calls(w, s, e->attrs);
}

void ir_block_walk_calls(const IrCallWalk *w, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		walk_expr_calls(w, s, s->value);
		for (int j = 0; j < s->nvalues; j++)
			walk_expr_calls(w, s, s->values[j]);
		if (ir_stmt_is_simple(s->kind))
			continue;
		walk_expr_calls(w, s, s->start);
		walk_expr_calls(w, s, s->stop);
		walk_expr_calls(w, s, s->step);
		for (int j = 0; j < s->niter; j++)
			walk_expr_calls(w, s, s->inits[j]);
		if (s->scope) {
			walk_expr_calls(w, s, s->scope->core_num);
			walk_expr_calls(w, s, s->scope->predicate);
			walk_expr_calls(w, s, s->scope->count);
			if (w->scope)
				w->scope(w->ctx, s, true);
		}
		ir_block_walk_calls(w, &s->body);
		ir_block_walk_calls(w, &s->orelse);
		if (s->scope && w->scope)
			w->scope(w->ctx, s, false);
	}
}

/* ------------------------------------------------------------ substitution */

Var *ir_var_subst(const IrSubst *sb, Var *v)
{
	Var *n = !v ? NULL : sb->vartab ? vtab_get(sb->vartab, v) : sb->vars ? pmap_get(sb->vars, v) : NULL;
	return n ? n : v;
}

/* xs through the substitution: xs itself when nothing changes, else a copy */
/* A constant needs no call: most shape dims and many operands are one. */
static inline Expr *subst_operand(const IrSubst *sb, Expr *e)
{
	return !e || expr_is_leaf(e) ? e : ir_expr_subst(sb, e);
}

static Expr **subst_list(const IrSubst *sb, Expr **xs, int n)
{
	Expr **out = xs;
	for (int i = 0; i < n; i++) {
		Expr *x = subst_operand(sb, xs[i]);
		if (x != xs[i] && out == xs) {
			out = arena_alloc(sb->a, (size_t)n * sizeof *out);
			memcpy(out, xs, (size_t)n * sizeof *out);
		}
		out[i] = x;
	}
	return out;
}

static Kwarg *subst_kwargs(const IrSubst *sb, Kwarg *kw, int n)
{
	Kwarg *out = kw;
	for (int i = 0; i < n; i++) {
		Expr *x = subst_operand(sb, kw[i].value);
		if (x != kw[i].value && out == kw) {
			out = arena_alloc(sb->a, (size_t)n * sizeof *out);
			memcpy(out, kw, (size_t)n * sizeof *out);
		}
		out[i].value = x;
	}
	return out;
}

Expr *ir_expr_subst(const IrSubst *sb, Expr *e)
{
	if (!e)
		return NULL;
	switch (e->kind) {
	case EX_VAR: {
		Expr *x = sb->exprs ? pmap_get(sb->exprs, e->var) : NULL;
		if (x)
			return x;
		Var *n = ir_var_subst(sb, e->var);
		return n != e->var ? ir_var_ref(sb->a, n) : e;
	}
	case EX_INT: case EX_FLOAT: case EX_BOOL: case EX_STR: case EX_SYMBOL:
		return e;
	default:
		break;
	}
	if (sb->pre) {
		Expr *x = sb->pre(sb->pre_ctx, e);
		if (x)
			return x;
	}
	Expr *lhs = subst_operand(sb, e->lhs), *rhs = subst_operand(sb, e->rhs), *attrs = subst_operand(sb, e->attrs);
	Type *type = sb->type ? sb->type(sb->ctx, e->type) : e->type;
	Expr **args = subst_list(sb, e->args, e->nargs);
	Kwarg *kw = subst_kwargs(sb, e->kw, e->nkw);
	if (lhs == e->lhs && rhs == e->rhs && attrs == e->attrs && type == e->type && args == e->args && kw == e->kw)
		return e;
	Expr *n = ir_expr_copy(sb->a, e);
	n->lhs = lhs;
	n->rhs = rhs;
	n->attrs = attrs;
	n->type = type;
	n->args = args;
	n->kw = kw;
	return n;
}

/* Copy-on-change: most types mention no substituted variable, and an
 * unchanged type must cost no memory. */
Type *ir_type_subst(const IrSubst *sb, Type *t)
{
	if (!t)
		return t;
	Expr **dims = subst_list(sb, t->shape, t->ndim);
	ViewSpec *view = t->view;
	if (view) {
		Kwarg *kw = subst_kwargs(sb, view->kw, view->nkw);
		if (kw != view->kw) {
			view = arena_alloc(sb->a, sizeof *view);
			view->nkw = t->view->nkw;
			view->kw = kw;
		}
	}
	MemRef *mr = t->memref;
	if (mr) {
		bool all = !sb->memref_pinned_only;
		Var *base = all ? ir_var_subst(sb, mr->base) : mr->base;
		Expr *off = all ? ir_expr_subst(sb, mr->offset) : mr->offset;
		Expr *ix = all || mr->pinned ? ir_expr_subst(sb, mr->index) : mr->index;
		if (base != mr->base || off != mr->offset || ix != mr->index) {
			mr = arena_alloc(sb->a, sizeof *mr);
			*mr = *t->memref;
			mr->base = base;
			mr->offset = off;
			mr->index = ix;
		}
	}
	Type **elems = t->elems;
	for (int i = 0; i < t->nelems; i++) {
		Type *e = ir_type_subst(sb, t->elems[i]);
		if (e != t->elems[i] && elems == t->elems) {
			elems = arena_alloc(sb->a, (size_t)t->nelems * sizeof *elems);
			memcpy(elems, t->elems, (size_t)t->nelems * sizeof *elems);
		}
		elems[i] = e;
	}
	if (dims == t->shape && view == t->view && elems == t->elems && mr == t->memref)
		return t;
	Type *n = arena_alloc(sb->a, sizeof *n);
	*n = *t;
	n->shape = dims;
	n->view = view;
	n->memref = mr;
	n->elems = elems;
	return n;
}

static void subst_var_list(const IrSubst *sb, Var ***vs, int n)
{
	Var **out = *vs;
	for (int i = 0; i < n; i++) {
		Var *v = ir_var_subst(sb, (*vs)[i]);
		if (v != (*vs)[i] && out == *vs) {
			out = arena_alloc(sb->a, (size_t)n * sizeof *out);
			memcpy(out, *vs, (size_t)n * sizeof *out);
		}
		out[i] = v;
	}
	*vs = out;
}

void ir_stmt_subst_header(const IrSubst *sb, Stmt *s)
{
	s->value = ir_expr_subst(sb, s->value);
	s->values = subst_list(sb, s->values, s->nvalues);
	if (ir_stmt_is_simple(s->kind))
		return;
	s->start = ir_expr_subst(sb, s->start);
	s->stop = ir_expr_subst(sb, s->stop);
	s->step = ir_expr_subst(sb, s->step);
	s->inits = subst_list(sb, s->inits, s->niter);
	if (s->scope) {
		Scope *sc = arena_alloc(sb->a, sizeof *sc);
		*sc = *s->scope;
		subst_var_list(sb, &sc->deps, sc->ndeps);
		subst_var_list(sb, &sc->no_dep_args, sc->nno_dep_args);
		subst_var_list(sb, &sc->dumps, sc->ndumps);
		sc->core_num = ir_expr_subst(sb, sc->core_num);
		sc->predicate = ir_expr_subst(sb, sc->predicate);
		sc->count = ir_expr_subst(sb, sc->count);
		s->scope = sc;
	}
}

void ir_block_subst(const IrSubst *sb, Block *b)
{
	for (int i = 0; i < b->n; i++) {
		Stmt *s = b->stmts[i];
		ir_stmt_subst_header(sb, s);
		if (ir_stmt_is_simple(s->kind))
			continue;
		ir_block_subst(sb, &s->body);
		ir_block_subst(sb, &s->orelse);
	}
}

/* ------------------------------------------------------------ cloning */

typedef struct Clone {
	Program *p;
	IrSubst sb;
	PtrMap *vars;
	const char *(*rename)(void *ctx, Var *orig);
	void *ctx;
} Clone;

static Type *clone_type_cb(void *ctx, Type *t) { return ir_type_subst(&((Clone *)ctx)->sb, t); }

/* The new Var for a definition (made once: a Var defined twice, as before
 * SSA, keeps one copy). */
static Var *fresh(Clone *c, Var *v)
{
	if (!v)
		return NULL;
	Var *n = pmap_get(c->vars, v);
	if (n)
		return n;
	const char *name = c->rename ? c->rename(c->ctx, v) : v->name;
	n = ir_var_new(c->p, name, ir_type_subst(&c->sb, v->type), v->kind);
	n->pos = v->pos;
	pmap_put(c->vars, v, n);
	return n;
}

static Var **fresh_list(Clone *c, Var **vs, int n)
{
	if (!n)
		return vs;
	Var **out = arena_alloc(c->p->arena, (size_t)n * sizeof *out);
	for (int i = 0; i < n; i++)
		out[i] = fresh(c, vs[i]);
	return out;
}

static Block clone_block(Clone *c, const Block *b);

static Stmt *clone_stmt(Clone *c, const Stmt *s)
{
	Stmt *n = ir_stmt_copy(c->p->arena, s);
	/* definitions first where the statement defines before its header is
	 * read by anything after it; uses of the header are the old Vars' */
	ir_stmt_subst_header(&c->sb, n);
	if (n->kind == ST_ASSIGN || n->kind == ST_FOR)
		n->var = fresh(c, s->var);
	if (ir_stmt_is_simple(s->kind))
		return n;
	n->iter_args = fresh_list(c, s->iter_args, s->niter);
	for (int i = 0; i < n->niter; i++)
		if (n->iter_args[i]->kind == VK_ITER_ARG)
			n->iter_args[i]->init = n->inits[i];
	if (s->scope) {
		n->scope->tid = fresh(c, s->scope->tid);
		n->scope->aiv_var = fresh(c, s->scope->aiv_var);
	}
	n->attrs = ir_expr_subst(&c->sb, s->attrs);
	n->body = clone_block(c, &s->body);
	n->orelse = clone_block(c, &s->orelse);
	n->rets = fresh_list(c, s->rets, s->nrets);
	return n;
}

static Block clone_block(Clone *c, const Block *b)
{
	Block out = { 0 };
	if (!b->n)
		return out;
	out.n = b->n;
	out.stmts = arena_alloc(c->p->arena, (size_t)b->n * sizeof *out.stmts);
	for (int i = 0; i < b->n; i++)
		out.stmts[i] = clone_stmt(c, b->stmts[i]);
	return out;
}

Block ir_block_clone(Program *p, const Block *b, PtrMap *vars, const PtrMap *exprs,
		     const char *(*rename)(void *ctx, Var *orig), void *ctx)
{
	Clone c = { .p = p, .vars = vars, .rename = rename, .ctx = ctx };
	c.sb = (IrSubst){ .a = p->arena, .vars = vars, .exprs = exprs, .type = clone_type_cb, .ctx = &c };
	return clone_block(&c, b);
}

/* ------------------------------------------------------------ VarTab */

static void vtab_grow(VarTab *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 64;
	while (cap < n)
		cap *= 2;
	t->vals = xrealloc(t->vals, cap * sizeof *t->vals);
	memset(t->vals + t->cap, 0, (cap - t->cap) * sizeof *t->vals);
	t->cap = cap;
}

void vtab_reserve(VarTab *t, const Program *p)
{
	if (p->next_var_id > t->cap)
		vtab_grow(t, p->next_var_id);
}

void vtab_put(VarTab *t, const Var *v, void *val)
{
	if (v->id >= t->cap) {
		if (!val)
			return;
		vtab_grow(t, (size_t)v->id + 1);
	}
	if (!t->vals[v->id] && val) {
		if (t->nids == t->cids) {
			t->cids = t->cids ? 2 * t->cids : 256;
			t->ids = xrealloc(t->ids, t->cids * sizeof *t->ids);
		}
		t->ids[t->nids++] = v->id;
	}
	t->vals[v->id] = val;
}

void vtab_clear(VarTab *t)
{
	for (size_t i = 0; i < t->nids; i++)
		t->vals[t->ids[i]] = NULL;
	t->nids = 0;
}

void vtab_release(VarTab *t)
{
	free(t->vals);
	free(t->ids);
	*t = (VarTab){ 0 };
}
