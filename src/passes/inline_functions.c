/* inline_functions.c - the reference's InlineFunctions.
 *
 * Every call of a FunctionType.Inline function that is a whole statement
 * (`x = self.f(...)`, `self.f(...)`, `return self.f(...)`) is replaced by a
 * copy of f's body, and the Inline functions are then dropped.  In the copy
 * each parameter is the call's argument (a parameter the body assigns to
 * needs a variable argument: the assignment then rebinds the caller's
 * variable), each local (assignment targets, loop variables, return vars)
 * is a new variable `<name>_inline<N>`, and iter args are new variables of
 * their own name.  The trailing `return` becomes `x = value` (omitted when
 * value is x itself), is dropped for a call statement, and is kept for
 * `return self.f(...)`.  A call returning several values leaves no
 * assignment: the later `x[i]` are replaced by the i-th returned value (a
 * returned tuple variable assigned from a tuple literal is looked through).
 * A call of an Inline function nested in an expression stays, and the
 * verifier after the pass reports it once its callee is gone.
 *
 * Order, which the numbers N show: N comes from one counter, starting at
 * 0, that every splice of the run takes from (the reference's is per
 * process; ours per program: the same when a run reads one program, and
 * each program of --split-input-file or of several files starts at 0).  The reference visits the
 * functions in the iteration order of a std::unordered_map keyed by name
 * (filled in name order), reproduced by stdhash.c; each round every
 * function, Inline ones included, splices the bodies the Inline functions
 * had when the round began, and rounds repeat until nothing changes (so an
 * Inline function calling another is expanded too).  Within one splice the
 * reference numbers a callee's locals in the iteration order of a set of
 * Var pointers, which depends on addresses; we number them in the order
 * that set has when no two pointers share a bucket: the reverse of the
 * pre-order in which the locals are collected (assignment target; loop
 * variable, then return vars, before the loop body; if / while return vars
 * before their bodies), a local defined twice counted at its first
 * definition.
 *
 * Errors, as the reference's: a cycle of Inline functions calling each
 * other (the cycle found by its depth-first search, in its hash order), a
 * return not at the end of an Inline body, a call with the wrong number of
 * arguments, an assigned parameter whose argument is not a variable, and
 * the value of a call of a function without a return.
 *
 * Requires nothing; produces InlineFunctionsEliminated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/ir_walk.h"
#include "ptoopt/passes.h"
#include "ptoopt/stdhash.h"
#include "ptoopt/strbuf.h"

typedef struct TupleSub {
	Expr **vals;
	int n;
} TupleSub;

typedef struct Inl {
	Program *p;
	Arena *a;
	Diag *d;
	PtrMap inl;      /* interned name -> Function (the Inline functions) */
	PtrMap snap;     /* Inline Function -> Block * (its body when the round began) */
	/* per function */
	PtrMap tsub;     /* Var -> TupleSub: the values replacing its x[i] */
	bool any_tsub;
	bool changed;
	int err;
} Inl;

/* ------------------------------------------------------------ hash orders */

/* The iteration order of a std::unordered_{map,set}<std::string> filled
 * with names[0 .. n) in that order (names distinct): order[i] = index. */
static size_t *hash_order(const char **names, size_t n)
{
	StdHashOrder h;
	stdhash_init(&h);
	for (size_t i = 0; i < n; i++)
		stdhash_insert(&h, stdhash_bytes(names[i], strlen(names[i])));
	size_t *order = xmalloc((n ? n : 1) * sizeof *order);
	stdhash_order(&h, order);
	stdhash_release(&h);
	return order;
}

static int cmp_fn_name(const void *x, const void *y)
{
	const Function *a = *(Function *const *)x, *b = *(Function *const *)y;
	return strcmp(a->name, b->name);
}

/* ------------------------------------------------------------ cycles */

typedef struct Callees {
	Inl *c;
	PtrVec names;    /* distinct Inline callee names, first call first */
	PtrMap seen;
} Callees;

static void callees_expr(Callees *k, const Expr *e)
{
	if (!e || e->kind == EX_VAR)
		return;
	if (e->kind == EX_FN_CALL && pmap_get(&k->c->inl, e->str) && !pmap_get(&k->seen, e->str)) {
		pmap_put(&k->seen, e->str, (void *)1);
		vec_push(&k->names, (void *)e->str);
	}
	callees_expr(k, e->lhs);
	callees_expr(k, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		callees_expr(k, e->args[i]);
	for (int i = 0; i < e->nkw; i++)
		callees_expr(k, e->kw[i].value);
	callees_expr(k, e->attrs);
}

static void callees_block(Callees *k, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		callees_expr(k, s->value);
		for (int j = 0; j < s->nvalues; j++)
			callees_expr(k, s->values[j]);
		if (ir_stmt_is_simple(s->kind))
			continue;
		callees_expr(k, s->start);
		callees_expr(k, s->stop);
		callees_expr(k, s->step);
		for (int j = 0; j < s->niter; j++)
			callees_expr(k, s->inits[j]);
		if (s->scope) {
			callees_expr(k, s->scope->core_num);
			callees_expr(k, s->scope->predicate);
			callees_expr(k, s->scope->count);
		}
		callees_block(k, &s->body);
		callees_block(k, &s->orelse);
	}
}

enum { WHITE, GRAY, BLACK };

typedef struct Graph {
	int n;
	Function **fns;
	int **succ;      /* per Inline function: callee indices in their set's hash order */
	int *nsucc;
	int *color;
	int *stack;
	int depth;
	PtrMap index;    /* name -> index + 1 */
} Graph;

/* Iterative depth-first search (the Inline functions may be many). */
static bool dfs(Inl *c, Graph *g, int root)
{
	int *pos = xmalloc((size_t)g->n * sizeof *pos);
	g->depth = 0;
	g->stack[g->depth] = root;
	pos[g->depth++] = 0;
	g->color[root] = GRAY;
	bool ok = true;
	while (g->depth > 0 && ok) {
		int u = g->stack[g->depth - 1];
		if (pos[g->depth - 1] == g->nsucc[u]) {
			g->color[u] = BLACK;
			g->depth--;
			continue;
		}
		int v = g->succ[u][pos[g->depth - 1]++];
		if (g->color[v] == GRAY) {
			StrBuf sb = { 0 };
			bool started = false;
			for (int i = 0; i < g->depth; i++) {
				started |= g->stack[i] == v;
				if (started) {
					sb_puts(&sb, g->fns[g->stack[i]]->name);
					sb_puts(&sb, " -> ");
				}
			}
			sb_puts(&sb, g->fns[v]->name);
			Function *f = g->fns[root];
			diag_error(c->d, f->pos.line, f->pos.col, "Cycle detected in FunctionType::Inline call graph: %s",
				   sb.data);
			sb_release(&sb);
			ok = false;
		} else if (g->color[v] == WHITE) {
			g->color[v] = GRAY;
			g->stack[g->depth] = v;
			pos[g->depth++] = 0;
		}
	}
	free(pos);
	return ok;
}

/* The reference's DetectInlineCycles over fns (the Inline functions in
 * their hash-map order). */
static bool check_cycles(Inl *c, Function **fns, int n)
{
	Graph g = { .n = n, .fns = fns };
	g.succ = xmalloc((size_t)n * sizeof *g.succ);
	g.nsucc = xmalloc((size_t)n * sizeof *g.nsucc);
	g.color = xmalloc((size_t)n * sizeof *g.color);
	g.stack = xmalloc((size_t)n * sizeof *g.stack);
	for (int i = 0; i < n; i++)
		pmap_put(&g.index, fns[i]->name, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < n; i++) {
		Callees k = { .c = c };
		callees_block(&k, &fns[i]->body);
		size_t m = k.names.len;
		size_t *order = hash_order((const char **)k.names.items, m);
		g.succ[i] = xmalloc((m ? m : 1) * sizeof *g.succ[i]);
		g.nsucc[i] = (int)m;
		for (size_t j = 0; j < m; j++)
			g.succ[i][j] = (int)(uintptr_t)pmap_get(&g.index, k.names.items[order[j]]) - 1;
		free(order);
		vec_release(&k.names);
		pmap_release(&k.seen);
		g.color[i] = WHITE;
	}
	bool ok = true;
	for (int i = 0; i < n && ok; i++)
		if (g.color[i] == WHITE)
			ok = dfs(c, &g, i);
	for (int i = 0; i < n; i++)
		free(g.succ[i]);
	free(g.succ);
	free(g.nsucc);
	free(g.color);
	free(g.stack);
	pmap_release(&g.index);
	return ok;
}

/* ------------------------------------------------------------ splicing */

typedef struct Spliced {
	Stmt **stmts;
	int n;
	Expr **rets;     /* the trailing return's values */
	int nrets;
	bool has_return;
} Spliced;

typedef struct Defs {
	PtrVec vars;
	PtrMap seen;
} Defs;

static void add_def(void *ctx, Var *v)
{
	Defs *ds = ctx;
	if (!pmap_get(&ds->seen, v)) {
		pmap_put(&ds->seen, v, (void *)1);
		vec_push(&ds->vars, v);
	}
}

static bool has_return(const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (s->kind == ST_RETURN)
			return true;
		if (!ir_stmt_is_simple(s->kind) && (has_return(&s->body) || has_return(&s->orelse)))
			return true;
	}
	return false;
}

/* The reference's CloneInlineBody: f's body (as the round began) with the
 * parameters bound to args and fresh locals, split at its trailing return.
 * Returns false after an error. */
static bool clone_body(Inl *c, Function *f, const Expr *call, Spliced *out)
{
	memset(out, 0, sizeof *out);
	if (call->nargs != f->nparams) {
		diag_error(c->d, call->pos.line, call->pos.col,
			   "Internal error: inline call to '%s' has %d argument(s) but callee expects %d (parser/type-checker "
			   "should have caught arity mismatch before InlineFunctions)",
			   f->name, call->nargs, f->nparams);
		return false;
	}
	const Block *body = pmap_get(&c->snap, f);
	PtrMap vars = { 0 }, exprs = { 0 };
	for (int i = 0; i < f->nparams; i++) {
		Expr *arg = call->args[i];
		if (arg->kind == EX_VAR)
			pmap_put(&vars, f->params[i].var, arg->var);
		else
			pmap_put(&exprs, f->params[i].var, arg);
	}
	Defs ds = { .vars = { 0 } };
	ir_block_defs(body, add_def, &ds);
	bool ok = true;
	for (size_t k = ds.vars.len; k-- > 0;) {
		Var *v = ds.vars.items[k];
		if (pmap_get(&exprs, v)) {
			diag_error(c->d, call->pos.line, call->pos.col,
				   "AssignStmt var is not a Var after mutation (inline function '%s' assigns to its "
				   "parameter '%s', whose argument is not a variable)",
				   f->name, v->name);
			ok = false;
			break;
		}
		if (pmap_get(&vars, v))
			continue; /* a parameter: already the argument */
		/* the reference keeps the local's type as it is */
		Var *n = ir_var_new(c->p, arena_printf(c->a, "%s_inline%llu", v->name, c->p->next_inline++), v->type,
				    v->kind);
		n->pos = v->pos;
		pmap_put(&vars, v, n);
	}
	vec_release(&ds.vars);
	pmap_release(&ds.seen);
	if (!ok) {
		pmap_release(&vars);
		pmap_release(&exprs);
		return false;
	}
	Block cl = ir_block_clone(c->p, body, &vars, &exprs, NULL, NULL);
	pmap_release(&vars);
	pmap_release(&exprs);
	int k = 0;
	for (; k < cl.n; k++)
		if (cl.stmts[k]->kind == ST_RETURN) {
			out->has_return = true;
			out->rets = cl.stmts[k]->values;
			out->nrets = cl.stmts[k]->nvalues;
			break;
		}
	out->stmts = cl.stmts;
	out->n = k;
	Block pre = { out->stmts, out->n };
	if (has_return(&pre)) {
		diag_error(c->d, f->pos.line, f->pos.col,
			   "Inline function '%s' contains a non-trailing ReturnStmt; only a single trailing return is "
			   "supported (early-return inside an If/For/While branch is rejected)",
			   f->name);
		return false;
	}
	return true;
}

/* The reference's InlineReturnsTuple: f's last statement returns several
 * values, or one of a tuple type. */
static bool returns_tuple(Inl *c, Function *f)
{
	const Block *b = pmap_get(&c->snap, f);
	if (!b->n)
		return false;
	const Stmt *r = b->stmts[b->n - 1];
	if (r->kind != ST_RETURN)
		return false;
	if (r->nvalues > 1)
		return true;
	if (r->nvalues == 1) {
		Type *t = ir_expr_type(r->values[0]);
		return t && t->kind == TY_TUPLE;
	}
	return false;
}

typedef struct Out {
	PtrVec stmts;
} Out;

static void emit(Out *o, Stmt *s) { vec_push(&o->stmts, s); }

static void emit_all(Out *o, const Spliced *sp)
{
	for (int i = 0; i < sp->n; i++)
		emit(o, sp->stmts[i]);
}

static void no_return_value(Inl *c, Function *f, SrcPos at, const char *how)
{
	diag_error(c->d, at.line, at.col,
		   "Internal error: inline function '%s' is %s but has no return statement (parser should reject "
		   "value-use of a void inline function before InlineFunctions runs)",
		   f->name, how);
}

/* `lhs = f(args)` with several returned values: record them for lhs[i]. */
static bool splice_tuple(Inl *c, Function *f, const Stmt *s, Out *o)
{
	Spliced sp;
	if (!clone_body(c, f, s->value, &sp))
		return false;
	if (!sp.has_return) {
		no_return_value(c, f, f->pos, "called for its value");
		return false;
	}
	TupleSub *ts = arena_alloc(c->a, sizeof *ts);
	int skip = -1;
	bool found = false;
	if (sp.nrets > 1) {
		ts->vals = sp.rets;
		ts->n = sp.nrets;
		found = true;
	} else if (sp.nrets != 1) {
		diag_error(c->d, f->pos.line, f->pos.col,
			   "Internal error: tuple-return inline function '%s' has no return value", f->name);
		return false;
	} else if (sp.rets[0]->kind == EX_TUPLE) {
		ts->vals = sp.rets[0]->args;
		ts->n = sp.rets[0]->nargs;
		found = true;
	} else if (sp.rets[0]->kind == EX_VAR) {
		for (int i = sp.n; i-- > 0 && !found;) {
			Stmt *a = sp.stmts[i];
			if (a->kind == ST_ASSIGN && a->var == sp.rets[0]->var && a->value->kind == EX_TUPLE) {
				ts->vals = a->value->args;
				ts->n = a->value->nargs;
				skip = i;
				found = true;
			}
		}
	}
	if (!found) {
		diag_error(c->d, f->pos.line, f->pos.col,
			   "Inline function '%s' returns a tuple through an unsupported expression; return its "
			   "elements directly or via a tuple literal",
			   f->name);
		return false;
	}
	for (int i = 0; i < sp.n; i++)
		if (i != skip)
			emit(o, sp.stmts[i]);
	pmap_put(&c->tsub, s->var, ts);
	c->any_tsub = true;
	return true;
}

/* ------------------------------------------------------------ dump tags */

/* The caller's `pl.dump_tag`s ride on the call (attrs={"dump_vars": [...]});
 * the call disappears, so they move onto what the spliced body launches,
 * as the reference's InlineDumpVarTransfer does: every dispatching scope
 * (pl.at, pl.cluster, pl.spmd, split_aiv) whose body mentions a tagged
 * variable adds it to its dumps=, and every call of a program function
 * taking one as an argument to its own dump_vars (so a tag survives a
 * further round of inlining).  A tag nothing consumes is dropped. */
typedef struct Dumps {
	Arena *a;
	Var **vars;      /* the call's dump_vars, in order */
	int n;
} Dumps;

static Expr *dump_list(const Expr *call)
{
	if (!call->attrs)
		return NULL;
	for (int i = 0; i < call->attrs->nkw; i++)
		if (!strcmp(call->attrs->kw[i].name, "dump_vars"))
			return call->attrs->kw[i].value;
	return NULL;
}

static bool listed(const Expr *l, const Var *v)
{
	for (int i = 0; l && l->kind == EX_TUPLE && i < l->nargs; i++)
		if (l->args[i]->kind == EX_VAR && l->args[i]->var == v)
			return true;
	return false;
}

static Expr *dumps_pre(void *ctx, Expr *e);

static Expr *dumps_pre(void *ctx, Expr *e)
{
	Dumps *t = ctx;
	if (e->kind != EX_FN_CALL)
		return NULL;
	IrSubst sb = { .a = t->a, .pre = dumps_pre, .pre_ctx = t };
	Expr *n = ir_expr_copy(t->a, e);
	n->args = arena_alloc(t->a, (size_t)(e->nargs + 1) * sizeof *n->args);
	for (int i = 0; i < e->nargs; i++)
		n->args[i] = ir_expr_subst(&sb, e->args[i]);
	const Expr *have = dump_list(n);
	bool grows = false;
	for (int k = 0; k < t->n && !grows; k++)
		for (int i = 0; i < n->nargs && !grows; i++)
			grows = n->args[i]->kind == EX_VAR && n->args[i]->var == t->vars[k] && !listed(have, t->vars[k]);
	if (!grows)
		return n;
	/* in argument order, as the reference prints a call's dump_vars */
	PtrVec add = ARENA_VEC(t->a);
	for (int i = 0; i < n->nargs; i++) {
		Expr *a = n->args[i];
		if (a->kind != EX_VAR)
			continue;
		bool in = listed(have, a->var);
		for (int k = 0; k < t->n && !in; k++)
			in = t->vars[k] == a->var;
		for (size_t j = 0; j < add.len && in; j++)
			in = ((Expr *)add.items[j])->var != a->var;
		if (in)
			vec_push(&add, a);
	}
	Expr *l = ir_expr_new(t->a, EX_TUPLE, e->pos);
	int cnt;
	l->args = (Expr **)vec_finish(t->a, &add, &cnt);
	l->nargs = cnt;
	Expr *d = n->attrs ? ir_expr_copy(t->a, n->attrs) : ir_expr_new(t->a, EX_DICT, e->pos);
	Kwarg *kw = arena_alloc(t->a, (size_t)(d->nkw + 1) * sizeof *kw);
	int k = 0;
	if (!have)
		kw[k++] = (Kwarg){ intern_cstr(t->a, "dump_vars"), l };
	for (int i = 0; i < d->nkw; i++)
		kw[k++] = strcmp(d->kw[i].name, "dump_vars") ? d->kw[i] : (Kwarg){ d->kw[i].name, l };
	d->kw = kw;
	d->nkw = k;
	n->attrs = d;
	return n;
}

static void note_var(void *ctx, Var *v) { pmap_put(ctx, v, (void *)1); }

/* The spliced statements (fresh copies: changed in place; their
 * expressions are shared, so rebuilt). */
static void dumps_block(Dumps *t, Block *b)
{
	IrSubst sb = { .a = t->a, .pre = dumps_pre, .pre_ctx = t };
	for (int i = 0; i < b->n; i++) {
		Stmt *s = b->stmts[i];
		ir_stmt_subst_header(&sb, s);
		if (ir_stmt_is_simple(s->kind))
			continue;
		dumps_block(t, &s->body);
		dumps_block(t, &s->orelse);
		Scope *sc = s->scope;
		if (s->kind != ST_SCOPE || sc->kind == SC_RUNTIME)
			continue;
		PtrMap used = { 0 };
		ir_block_vars(&s->body, note_var, &used);
		PtrVec add = ARENA_VEC(t->a);
		for (int k = 0; k < sc->ndumps; k++)
			vec_push(&add, sc->dumps[k]);
		for (int k = 0; k < t->n; k++) {
			bool dup = false;
			for (size_t j = 0; j < add.len && !dup; j++)
				dup = add.items[j] == t->vars[k];
			if (!dup && pmap_get(&used, t->vars[k]))
				vec_push(&add, t->vars[k]);
		}
		pmap_release(&used);
		if ((int)add.len == sc->ndumps) {
			vec_release(&add);
			continue;
		}
		sc->dumps = (Var **)vec_finish(t->a, &add, &sc->ndumps);
		sc->has_dumps = true;
	}
}

/* Move the call's dump tags onto the statements out->stmts[from ..]. */
static void transfer_dumps(Inl *c, const Expr *call, PtrVec *out, size_t from)
{
	const Expr *l = dump_list(call);
	if (!l || l->kind != EX_TUPLE || !l->nargs)
		return;
	Dumps t = { .a = c->a };
	t.vars = arena_alloc(c->a, (size_t)l->nargs * sizeof *t.vars);
	for (int i = 0; i < l->nargs; i++)
		if (l->args[i]->kind == EX_VAR)
			t.vars[t.n++] = l->args[i]->var;
	Block b = { (Stmt **)out->items + from, (int)(out->len - from) };
	dumps_block(&t, &b);
}

static int splice_call(Inl *c, const Stmt *s, const Expr *call, Function *f, Out *o);

/* A statement that calls an Inline function as a whole: its splice into o
 * (1), not such a statement (0), an error (-1). */
static int splice_stmt(Inl *c, const Stmt *s, Out *o)
{
	const Expr *call = NULL;
	if ((s->kind == ST_ASSIGN || s->kind == ST_EVAL) && s->value && s->value->kind == EX_FN_CALL)
		call = s->value;
	else if (s->kind == ST_RETURN && s->nvalues == 1 && s->values[0]->kind == EX_FN_CALL)
		call = s->values[0];
	Function *f = call ? pmap_get(&c->inl, call->str) : NULL;
	if (!f)
		return 0;
	size_t from = o->stmts.len;
	int r = splice_call(c, s, call, f, o);
	if (r > 0)
		transfer_dumps(c, call, &o->stmts, from);
	return r;
}

static int splice_call(Inl *c, const Stmt *s, const Expr *call, Function *f, Out *o)
{
	Spliced sp;
	if (s->kind == ST_ASSIGN) {
		if (returns_tuple(c, f))
			return splice_tuple(c, f, s, o) ? 1 : -1;
		if (!clone_body(c, f, call, &sp))
			return -1;
		if (!sp.has_return) {
			no_return_value(c, f, s->pos, "called for its value");
			return -1;
		}
		if (sp.nrets != 1) {
			diag_error(c->d, s->pos.line, s->pos.col,
				   "Internal error: SpliceInlineCallAsAssign requires single-return callee; got %d return "
				   "values for '%s' (caller dispatches multi-return through SpliceInlineCallAsTupleSub)",
				   sp.nrets, f->name);
			return -1;
		}
		emit_all(o, &sp);
		Expr *v = sp.rets[0];
		if (!(v->kind == EX_VAR && v->var == s->var)) {
			Stmt *a = ir_stmt_new(c->a, ST_ASSIGN, s->pos);
			a->var = s->var;
			a->value = v;
			emit(o, a);
		}
		return 1;
	}
	if (!clone_body(c, f, call, &sp))
		return -1;
	emit_all(o, &sp);
	if (s->kind == ST_RETURN) {
		if (!sp.has_return) {
			no_return_value(c, f, s->pos, "used as a return value");
			return -1;
		}
		Stmt *r = ir_stmt_new(c->a, ST_RETURN, s->pos);
		r->values = sp.rets;
		r->nvalues = sp.nrets;
		emit(o, r);
	}
	return 1;
}

/* x[i] of a variable x whose tuple an earlier splice replaced. */
static Expr *tuple_pre(void *ctx, Expr *e);

static IrSubst tuple_subst(Inl *c)
{
	return (IrSubst){ .a = c->a, .pre = tuple_pre, .pre_ctx = c };
}

static Expr *tuple_pre(void *ctx, Expr *e)
{
	Inl *c = ctx;
	if (e->kind != EX_GETITEM || !e->lhs)
		return NULL;
	IrSubst sb = tuple_subst(c);
	Expr *t = ir_expr_subst(&sb, e->lhs);
	if (t->kind == EX_VAR) {
		TupleSub *ts = pmap_get(&c->tsub, t->var);
		if (ts && e->ival >= 0 && e->ival < ts->n)
			return ir_expr_subst(&sb, ts->vals[e->ival]);
	}
	if (t == e->lhs)
		return e;
	Expr *n = ir_expr_copy(c->a, e);
	n->lhs = t;
	return n;
}

static bool mutate_block(Inl *c, const Block *b, Block *out);

/* s with its bodies mutated (and, once tuples were replaced, its
 * expressions): s itself when nothing changed. */
static Stmt *mutate_stmt(Inl *c, Stmt *s)
{
	Stmt *n = s;
	if (c->any_tsub) {
		n = ir_stmt_copy(c->a, s);
		IrSubst sb = tuple_subst(c);
		ir_stmt_subst_header(&sb, n);
		if (!ir_stmt_is_simple(s->kind))
			n->attrs = ir_expr_subst(&sb, s->attrs);
	}
	if (ir_stmt_is_simple(s->kind))
		return n;
	Block body, orelse;
	bool cb = mutate_block(c, &s->body, &body);
	bool ce = mutate_block(c, &s->orelse, &orelse);
	if ((cb || ce) && n == s)
		n = ir_stmt_copy(c->a, s);
	if (cb)
		n->body = body;
	if (ce)
		n->orelse = orelse;
	return n;
}

/* The reference's InlineCallsMutator over a block: whether anything in it
 * changed (the new block in *out). */
static bool mutate_block(Inl *c, const Block *b, Block *out)
{
	Out o = { .stmts = ARENA_VEC(c->a) };
	bool changed = false;
	for (int i = 0; i < b->n && !c->err; i++) {
		Stmt *s = b->stmts[i];
		int r = splice_stmt(c, s, &o);
		if (r < 0) {
			c->err = 1;
			break;
		}
		if (r > 0) {
			changed = c->changed = true;
			continue;
		}
		Stmt *n = mutate_stmt(c, s);
		changed |= n != s;
		emit(&o, n);
	}
	if (!changed || c->err) {
		*out = *b;
		return false;
	}
	int n;
	out->stmts = (Stmt **)vec_finish(c->a, &o.stmts, &n);
	out->n = n;
	return true;
}

/* ------------------------------------------------------------ the pass */

int inline_functions_program(Program *p, Diag *d)
{
	Inl c = { .p = p, .a = p->arena, .d = d };
	int n = p->nfuncs;
	Function **sorted = xmalloc((size_t)(n ? n : 1) * sizeof *sorted);
	memcpy(sorted, p->funcs, (size_t)n * sizeof *sorted);
	qsort(sorted, (size_t)n, sizeof *sorted, cmp_fn_name);
	/* the reference's maps: `inline_fns` (the Inline functions) and
	 * `current` (all functions), both filled in name order */
	Function **inl = xmalloc((size_t)(n ? n : 1) * sizeof *inl);
	const char **names = xmalloc((size_t)(n ? n : 1) * sizeof *names);
	int ninl = 0;
	for (int i = 0; i < n; i++)
		if (sorted[i]->type == FT_INLINE) {
			names[ninl] = sorted[i]->name;
			inl[ninl++] = sorted[i];
			pmap_put(&c.inl, sorted[i]->name, sorted[i]);
		}
	int rc = 0;
	if (!ninl) {
		p->unchanged = true;
		goto done;
	}
	size_t *order = hash_order(names, (size_t)ninl);
	Function **inl_order = xmalloc((size_t)ninl * sizeof *inl_order);
	for (int i = 0; i < ninl; i++)
		inl_order[i] = inl[order[i]];
	free(order);
	bool ok = check_cycles(&c, inl_order, ninl);
	free(inl_order);
	if (!ok) {
		rc = 1;
		goto done;
	}
	for (int i = 0; i < n; i++)
		names[i] = sorted[i]->name;
	order = hash_order(names, (size_t)n);
	/* a function a round left unchanged has no call left to splice, so the
	 * next round skips it (what the reference's would find there: nothing) */
	bool *dirty = xmalloc((size_t)(n ? n : 1) * sizeof *dirty);
	for (int i = 0; i < n; i++)
		dirty[i] = true;
	for (int iter = 0; iter < ninl + 1 && !rc; iter++) {
		for (int i = 0; i < ninl; i++) {
			Block *b = arena_alloc(c.a, sizeof *b);
			*b = inl[i]->body;
			pmap_put(&c.snap, inl[i], b);
		}
		bool any = false;
		for (int i = 0; i < n && !rc; i++) {
			Function *f = sorted[order[i]];
			if (f->abstract || f->inline_body || !dirty[order[i]])
				continue;
			c.changed = false;
			c.any_tsub = false;
			pmap_clear(&c.tsub);
			Block nb;
			mutate_block(&c, &f->body, &nb);
			if (c.err) {
				rc = 1;
				break;
			}
			dirty[order[i]] = c.changed;
			if (c.changed) {
				f->body = nb;
				any = true;
			}
		}
		if (rc || !any)
			break;
		if (iter + 1 >= ninl + 1) {
			diag_error(d, 0, 0,
				   "InlineFunctions did not reach a fixpoint within %d iterations; this indicates a bug or an "
				   "undetected cycle",
				   ninl + 1);
			rc = 1;
		}
	}
	free(order);
	free(dirty);
	if (!rc) {
		Function **kept = arena_alloc(c.a, (size_t)(n ? n : 1) * sizeof *kept);
		int k = 0;
		for (int i = 0; i < n; i++)
			if (p->funcs[i]->type != FT_INLINE)
				kept[k++] = p->funcs[i];
		p->funcs = kept;
		p->nfuncs = k;
	}
done:
	free(sorted);
	free(inl);
	free(names);
	pmap_release(&c.inl);
	pmap_release(&c.snap);
	pmap_release(&c.tsub);
	return rc;
}
