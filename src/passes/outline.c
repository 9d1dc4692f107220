/* outline.c - the shared scope outliner (passes.md §3; seed document 000).
 *
 * A target scope becomes a function: parameters are the scope's live-in Vars
 * in first-read order, outputs are its definitions used after it plus the
 * caller-owned tensors it stores into; the scope is replaced by a call whose
 * results are bound at the call site.  Outlined bodies keep the scope's Var
 * objects (same names, same types), so no substitution is needed inside; the
 * printer names Vars per function.
 *
 * "Used after" a statement is answered from a per-block map Var -> index of
 * the last statement referring to it, so no tail is rescanned per statement;
 * enclosing blocks contribute through a chain of such frames.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/outline.h"
#include "ptoopt/ir_walk.h"
#include "ptoopt/passes.h"

/* Var.mark of the Vars a target scope defines: the only ones "used after"
 * is asked about (a scope's outputs, scalars to hoist), so the indexes keep
 * only them.  Set at the start of a run, cleared at its end (with Var.aux);
 * printer epochs start above it. */
#define OL_QUERIED 1u

/* ------------------------------------------------------------ small sets */

static bool has(const PtrMap *m, const void *k) { return m && pmap_get(m, k) != NULL; }
static void add(PtrMap *m, const void *k) { pmap_put(m, k, (void *)1); }

/* ------------------------------------------------------------ state */

/* Which statements of a block refer to a Var: Var -> index + 1 of the last
 * one, built on the first question and only from the statements after the
 * one visited then (questions come in statement order, and a statement not
 * visited yet is still as it was when the block was entered). */
typedef struct LastIndex {
	const Block *b;
	PtrMap map;
	bool built;
} LastIndex;

typedef struct Frame {
	LastIndex *last;      /* that block's index */
	int idx;              /* the statement being visited there */
	bool tail;            /* some later statement of that block refers to a Var */
	struct Frame *up;
} Frame;

typedef struct RenameLog {
	Var *key, *prev;
} RenameLog;

typedef struct Ol {
	Program *p;
	Arena *a;
	Diag *d;
	const OutlineConfig *cfg;
	const Function *fn;      /* the function being outlined from */
	const char *func_name;
	int counter;
	PtrMap vnames;        /* interned names of every Var in the function */
	PtrMap fnames;        /* function names outlined from this function */
	PtrMap *reserved;
	PtrMap renames;       /* store target / post-store alias -> current Var */
	RenameLog *log; size_t nlog, clog; /* store-target renames, for carries */
	Frame *frames;        /* required outputs: enclosing tails ... */
	const PtrMap *req;    /* ... plus, inside a recursion, the outer outputs */
	bool nested;          /* inside a non-target scope body */
	bool in_launch;       /* inside a non-target scope that launches tasks (not pl.scope) */
	PtrVec *out;
	int count;
	bool failed;
	PtrMap retmaps;       /* callee -> RetMap: callees do not change during a run */
	bool no_target_below; /* the block being visited holds no target scope */
	struct DefInfo *info; size_t ninfo; /* Var.aux of the OL_QUERIED Vars */
} Ol;

/* ------------------------------------------------------------ helpers */

static bool is_call(const Expr *e, const char *op)
{
	return e && e->kind == EX_OP_CALL && strcmp(e->str, op) == 0;
}

static Var *store_target(const Expr *e)
{
	if (!is_call(e, "tile.store") || e->nargs < 3 || e->args[2]->kind != EX_VAR)
		return NULL;
	Var *v = e->args[2]->var;
	return v->kind == VK_VAR ? v : NULL; /* an iter arg is never an exported target */
}



static Var *new_var(Ol *o, const char *name, Type *t, VarKind k)
{
	Var *v = ir_var_new(o->p, name, t, k);
	add(&o->vnames, v->name);
	return v;
}

/* Fresh name like `name` (auto-name grammar, passes.md §1.4): role defaults
 * to the parsed one or "ssa", versions count up from the parsed one. */
static const char *fresh_like(Arena *a, const char *name, const char *role, const PtrMap *used)
{
	AutoName an = autoname_parse(a, name);
	const char *base = an.has_delim ? an.base : name;
	const char *qual = an.has_delim ? an.qualifier : "";
	if (!role)
		role = *an.role ? an.role : "ssa";
	for (int v = an.version >= 0 ? an.version + 1 : 0;; v++) {
		const char *n = autoname_build(a, base, qual, role, v);
		if (!has(used, n))
			return n;
	}
}

static Type *tuple_type(Arena *a, Type **ts, int n)
{
	Type *t = ir_type_new(a, TY_TUPLE);
	t->elems = ts;
	t->nelems = n;
	return t;
}

static bool is_tensor(const Type *t) { return t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR); }
static bool is_scalar(const Type *t) { return t && t->kind == TY_SCALAR; }

static Stmt *mk_assign(Ol *o, Var *v, Expr *val)
{
	Stmt *s = ir_stmt_new(o->a, ST_ASSIGN, (SrcPos){ 0, 0 });
	s->var = v;
	s->value = val;
	return s;
}

static Expr *mk_getitem(Ol *o, Var *t, int i, Type *ty)
{
	Expr *g = ir_expr_new(o->a, EX_GETITEM, (SrcPos){ 0, 0 });
	g->lhs = ir_var_ref(o->a, t);
	g->ival = i;
	g->type = ty;
	return g;
}

/* ------------------------------------------------------------ walks */

/* Definitions in pre-order (passes.md §3.3-C). */
static void defs_block(const Block *b, PtrVec *out);

static void defs_stmt(const Stmt *s, PtrVec *out)
{
	switch (s->kind) {
	case ST_ASSIGN:
		vec_push(out, s->var);
		return;
	case ST_FOR: case ST_WHILE:
		if (s->var)
			vec_push(out, s->var);
		for (int i = 0; i < s->nrets; i++)
			vec_push(out, s->rets[i]);
		for (int i = 0; i < s->niter; i++)
			vec_push(out, s->iter_args[i]);
		break;
	case ST_IF:
		for (int i = 0; i < s->nrets; i++)
			vec_push(out, s->rets[i]);
		break;
	default:
		break;
	}
	if (ir_stmt_is_simple(s->kind))
		return;
	defs_block(&s->body, out);
	defs_block(&s->orelse, out);
}

static void defs_block(const Block *b, PtrVec *out)
{
	for (int i = 0; i < b->n; i++)
		if (!b->stmts[i]->placeholder)
			defs_stmt(b->stmts[i], out);
}

static void stores_expr(const Expr *e, PtrVec *list, PtrMap *set)
{
	if (!e || e->kind == EX_VAR)
		return;
	Var *t = store_target(e);
	if (t && !has(set, t)) {
		add(set, t);
		vec_push(list, t);
	}
	stores_expr(e->lhs, list, set);
	stores_expr(e->rhs, list, set);
	for (int i = 0; i < e->nargs; i++)
		stores_expr(e->args[i], list, set);
}

static void stores_block(const Block *b, PtrVec *list, PtrMap *set)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		stores_expr(s->value, list, set);
		for (int j = 0; j < s->nvalues; j++)
			stores_expr(s->values[j], list, set);
		if (ir_stmt_is_simple(s->kind))
			continue;
		stores_block(&s->body, list, set);
		stores_block(&s->orelse, list, set);
	}
}

/* ------------------------------------------------------------ live-in (§3.4) */

typedef struct LiveIn {
	PtrMap defined;
	PtrVec journal;   /* definitions in order, for if-arm rollback */
	PtrMap seen;
	PtrVec order;     /* live-in Vars, first read first */
} LiveIn;

static void li_use(void *ctx, Var *v)
{
	LiveIn *l = ctx;
	if (!has(&l->defined, v) && !has(&l->seen, v)) {
		add(&l->seen, v);
		vec_push(&l->order, v);
	}
}

static void li_def(LiveIn *l, Var *v)
{
	if (v && !has(&l->defined, v)) {
		add(&l->defined, v);
		vec_push(&l->journal, v);
	}
}

static void li_block(LiveIn *l, const Block *b);

static size_t li_arm(LiveIn *l, const Block *b)
{
	size_t mark = l->journal.len;
	li_block(l, b);
	for (size_t i = mark; i < l->journal.len; i++)
		pmap_put(&l->defined, l->journal.items[i], NULL);
	return mark;
}

static void li_stmt(LiveIn *l, const Stmt *s)
{
	switch (s->kind) {
	case ST_ASSIGN:
		ir_expr_vars(s->value, li_use, l);
		li_def(l, s->var);
		return;
	case ST_FOR: case ST_WHILE:
		for (int i = 0; i < s->niter; i++)
			ir_expr_vars(s->inits[i], li_use, l);
		li_def(l, s->var);
		for (int i = 0; i < s->nrets; i++)
			li_def(l, s->rets[i]);
		for (int i = 0; i < s->niter; i++)
			li_def(l, s->iter_args[i]);
		ir_expr_vars(s->start, li_use, l);
		ir_expr_vars(s->stop, li_use, l);
		ir_expr_vars(s->step, li_use, l);
		ir_expr_vars(s->value, li_use, l);
		li_block(l, &s->body);
		return;
	case ST_IF: {
		ir_expr_vars(s->value, li_use, l);
		for (int i = 0; i < s->nrets; i++)
			li_def(l, s->rets[i]);
		size_t m1 = li_arm(l, &s->body);
		/* keep the then-arm's definitions aside (the journal was truncated
		 * logically: entries past m1 are no longer defined) */
		size_t n1 = l->journal.len;
		PtrMap then_defs = { 0 };
		for (size_t i = m1; i < n1; i++)
			add(&then_defs, l->journal.items[i]);
		l->journal.len = m1;
		if (s->has_else) {
			size_t m2 = li_arm(l, &s->orelse);
			size_t n2 = l->journal.len;
			PtrVec both = { 0 };
			for (size_t i = m2; i < n2; i++)
				if (has(&then_defs, l->journal.items[i]))
					vec_push(&both, l->journal.items[i]);
			l->journal.len = m2;
			for (size_t i = 0; i < both.len; i++)
				li_def(l, both.items[i]);
			vec_release(&both);
		}
		pmap_release(&then_defs);
		return;
	}
	case ST_SCOPE: {
		const Scope *sc = s->scope;
		if (sc->kind == SC_SPMD)
			ir_expr_vars(sc->core_num, li_use, l);
		if (sc->kind != SC_CLUSTER && sc->kind != SC_RUNTIME) {
			for (int i = 0; i < sc->ndeps; i++)
				li_use(l, sc->deps[i]);
			for (int i = 0; i < sc->nno_dep_args; i++)
				li_use(l, sc->no_dep_args[i]);
			for (int i = 0; i < sc->ndumps; i++)
				li_use(l, sc->dumps[i]);
			ir_expr_vars(sc->predicate, li_use, l);
			ir_expr_vars(sc->count, li_use, l);
		}
		li_block(l, &s->body);
		return;
	}
	default:
		for (int i = 0; i < s->nvalues; i++)
			ir_expr_vars(s->values[i], li_use, l);
		ir_expr_vars(s->value, li_use, l);
		return;
	}
}

static void li_block(LiveIn *l, const Block *b)
{
	for (int i = 0; i < b->n; i++)
		if (!b->stmts[i]->placeholder)
			li_stmt(l, b->stmts[i]);
}

/* ------------------------------------------------------------ renaming uses */

static Expr *subst(Ol *o, const PtrMap *m, Expr *e)
{
	return ir_expr_subst(&(IrSubst){ .a = o->a, .vars = m }, e);
}

static Var *subst_v(const PtrMap *m, Var *v)
{
	return ir_var_subst(&(IrSubst){ .vars = m }, v);
}

static void subst_header(Ol *o, const PtrMap *m, Stmt *s)
{
	if (m->len)
		ir_stmt_subst_header(&(IrSubst){ .a = o->a, .vars = m }, s);
}

static void subst_block(Ol *o, const PtrMap *m, Block *b)
{
	if (m->len)
		ir_block_subst(&(IrSubst){ .a = o->a, .vars = m }, b);
}

/* ------------------------------------------------------------ renames log */

static void rename_set(Ol *o, Var *k, Var *v, bool logged)
{
	if (logged) {
		if (o->nlog == o->clog) {
			o->clog = o->clog ? o->clog * 2 : 64;
			o->log = xrealloc(o->log, o->clog * sizeof *o->log);
		}
		o->log[o->nlog++] = (RenameLog){ k, pmap_get(&o->renames, k) };
	}
	pmap_put(&o->renames, k, v);
}

/* ------------------------------------------------------------ required outputs */

static int last_ref(LastIndex *l, int idx, Var *v);

static bool required(const Ol *o, Var *v)
{
	for (const Frame *f = o->frames; f; f = f->up)
		if (last_ref(f->last, f->idx, v) > f->idx)
			return true;
	return has(o->req, v);
}

static bool required_empty(const Ol *o)
{
	for (const Frame *f = o->frames; f; f = f->up)
		if (f->tail)
			return false;
	if (!o->req)
		return true;
	for (size_t i = 0; i < o->req->cap; i++)
		if (o->req->keys[i] && o->req->vals[i])
			return false;
	return true;
}

typedef struct UsedAfter {
	const Ol *o;
	LastIndex *last; int idx;    /* the scope's own block, or NULL */
	const Stmt *scope;           /* the scope statement */
	PtrMap extra;                /* store targets / fallback definitions */
	bool all_required;           /* use the required-output chain */
} UsedAfter;

/* Var.aux of a Var a top-level target scope defines (see count_refs). */
typedef struct DefInfo {
	const Stmt *scope; /* the outermost target scope whose body defines it */
	unsigned total;    /* references in the function when the run started */
	unsigned inside;   /* ... of which inside that scope statement */
} DefInfo;

/* v's DefInfo when it is one of this run's (Var.mark and Var.aux are
 * scratch fields another pass may have left set). */
static DefInfo *def_info(const Ol *o, const Var *v)
{
	DefInfo *d = v->mark == OL_QUERIED ? v->aux : NULL;
	return d && d >= o->info && d < o->info + o->ninfo ? d : NULL;
}

/* Every reference to v is inside the scope s being outlined at top level:
 * no later statement of any enclosing block can refer to it. */
static bool scope_local(const UsedAfter *u, Var *v)
{
	if (u->o->req)
		return false;
	const DefInfo *di = def_info(u->o, v);
	return di && di->scope == u->scope && di->total == di->inside;
}

static bool used_after(const UsedAfter *u, Var *v)
{
	if (u->all_required && u->scope && scope_local(u, v))
		return has(&u->extra, v);
	if (u->last && last_ref(u->last, u->idx, v) > u->idx)
		return true;
	if (has(&u->extra, v))
		return true;
	return u->all_required && required(u->o, v);
}

/* ------------------------------------------------------------ return lineage (§3.6) */

typedef struct Lineage {
	PtrMap def;     /* Var -> defining ST_ASSIGN */
	PtrMap carry;   /* iter arg / loop return var -> init Expr */
	PtrMap ifret;   /* if return var -> its ST_IF; index in aux map */
	PtrMap ifidx;
	const PtrMap *params;
	bool no_merges; /* a callee's returned-param map ignores if merges */
	Program *prog;  /* callee lookup: trace through user calls, else NULL */
	PtrMap *memo;   /* Function -> RetMap (or RETMAP_BUSY while computing) */
} Lineage;

/* Which parameter each return position of a function hands back (-1: none). */
typedef struct RetMap {
	int n;
	int *idx;
} RetMap;

static RetMap retmap_none;
#define RETMAP_BUSY (&retmap_none)

static void lin_release(Lineage *l)
{
	pmap_release(&l->def);
	pmap_release(&l->carry);
	pmap_release(&l->ifret);
	pmap_release(&l->ifidx);
}

static const RetMap *callee_retmap(Lineage *l, const Expr *call);

/* The Var a user call's result position k traces to through its arguments. */
static Var *through_call(Lineage *l, const Expr *call, int k)
{
	const RetMap *m = callee_retmap(l, call);
	if (!m || k < 0 || k >= m->n || m->idx[k] < 0 || m->idx[k] >= call->nargs ||
	    call->args[m->idx[k]]->kind != EX_VAR)
		return NULL;
	return call->args[m->idx[k]]->var;
}

static bool is_user_call(const Expr *e) { return e && (e->kind == EX_FN_CALL || e->kind == EX_SUBMIT); }

static void lin_index(Lineage *l, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (s->kind == ST_ASSIGN)
			pmap_put(&l->def, s->var, (void *)s);
		if (ir_stmt_is_simple(s->kind))
			continue;
		if (s->kind == ST_FOR || s->kind == ST_WHILE)
			for (int k = 0; k < s->niter; k++) {
				if (s->inits[k]->kind != EX_VAR)
					continue;
				pmap_put(&l->carry, s->iter_args[k], s->inits[k]);
				if (k < s->nrets && is_tensor(s->rets[k]->type))
					pmap_put(&l->carry, s->rets[k], s->inits[k]);
			}
		if (s->kind == ST_IF)
			for (int k = 0; k < s->nrets; k++) {
				pmap_put(&l->ifret, s->rets[k], (void *)s);
				pmap_put(&l->ifidx, s->rets[k], (void *)(uintptr_t)(k + 1));
			}
		lin_index(l, &s->body);
		lin_index(l, &s->orelse);
	}
}

static int reuse_slot(const Expr *e)
{
	static const char *const s2[] = { "tile.store", "tile.mscatter", NULL };
	static const char *const s0[] = { "tensor.assemble", "tensor.set_validshape", "tile.matmul_acc",
		"tile.gemv_acc", "tile.batch_matmul_acc", "tile.matmul_mx_acc", "tile.tget_scale_addr",
		"tile.fillpad_inplace", "tile.gather_row", "tile.scatter", "tile.scatter_mask",
		"tile.scatter_update", NULL };
	if (e->kind != EX_OP_CALL)
		return -1;
	for (int i = 0; s2[i]; i++)
		if (strcmp(e->str, s2[i]) == 0)
			return e->nargs > 2 ? 2 : -1;
	for (int i = 0; s0[i]; i++)
		if (strcmp(e->str, s0[i]) == 0)
			return e->nargs > 0 ? 0 : -1;
	return -1;
}

static const Stmt *branch_yield(const Block *b)
{
	return b->n && b->stmts[b->n - 1]->kind == ST_YIELD ? b->stmts[b->n - 1] : NULL;
}

static Var *lin_trace(Lineage *l, Var *v, int depth)
{
	for (int steps = 0; v && steps < 10000 && depth < 64; steps++) {
		if (has(l->params, v))
			return v;
		Expr *c = pmap_get(&l->carry, v);
		if (c) {
			v = c->var;
			continue;
		}
		const Stmt *is = l->no_merges ? NULL : pmap_get(&l->ifret, v);
		if (is) {
			int k = (int)(uintptr_t)pmap_get(&l->ifidx, v) - 1;
			const Stmt *y1 = branch_yield(&is->body), *y2 = branch_yield(&is->orelse);
			if (!y1 || !y2 || k >= y1->nvalues || k >= y2->nvalues || y1->values[k]->kind != EX_VAR ||
			    y2->values[k]->kind != EX_VAR)
				return NULL;
			Var *a = lin_trace(l, y1->values[k]->var, depth + 1);
			Var *b = lin_trace(l, y2->values[k]->var, depth + 1);
			return a && a == b ? a : NULL;
		}
		const Stmt *d = pmap_get(&l->def, v);
		if (!d)
			return NULL;
		const Expr *e = d->value;
		if (e->kind == EX_VAR) {
			v = e->var;
			continue;
		}
		int j = reuse_slot(e);
		if (j >= 0 && e->args[j]->kind == EX_VAR) {
			v = e->args[j]->var;
			continue;
		}
		if (!l->prog)
			return NULL;
		if (e->kind == EX_GETITEM && e->lhs->kind == EX_VAR) {
			/* destructuring a multi-result user call */
			const Stmt *td = pmap_get(&l->def, e->lhs->var);
			if (!td || !is_user_call(td->value))
				return NULL;
			v = through_call(l, td->value, (int)e->ival);
			continue;
		}
		if (is_user_call(e)) {
			const RetMap *m = callee_retmap(l, e);
			if (!m || m->n != 1)
				return NULL;
			v = through_call(l, e, 0);
			continue;
		}
		return NULL;
	}
	return NULL;
}

/* Trace each expression to a parameter index of f (-1 when it does not). */
static void trace_to_params(Lineage *l, Expr *const *xs, int n, int *out)
{
	for (int i = 0; i < n; i++) {
		Var *r = xs[i]->kind == EX_VAR ? lin_trace(l, xs[i]->var, 0) : NULL;
		out[i] = r ? (int)(uintptr_t)pmap_get(l->params, r) - 1 : -1;
	}
}

/* A single returned Var holding the whole tuple of a multi-result call (or a
 * literal tuple): each position traces on its own. */
static bool expand_forwarded(Lineage *l, Var *t, RetMap *m)
{
	const Expr *e = NULL;
	for (int steps = 0; t && steps < 10000; steps++) {
		const Stmt *d = pmap_get(&l->def, t);
		if (!d)
			return false;
		e = d->value;
		if (e->kind != EX_VAR)
			break;
		t = e->var;
	}
	if (!e)
		return false;
	if (e->kind == EX_TUPLE) {
		if (e->nargs != m->n)
			return false;
		trace_to_params(l, e->args, e->nargs, m->idx);
		return true;
	}
	if (!is_user_call(e))
		return false;
	const RetMap *inner = callee_retmap(l, e);
	if (!inner || inner->n != m->n)
		return false;
	for (int k = 0; k < m->n; k++) {
		Var *a = through_call(l, e, k);
		Var *r = a ? lin_trace(l, a, 0) : NULL;
		m->idx[k] = r ? (int)(uintptr_t)pmap_get(l->params, r) - 1 : -1;
	}
	return true;
}

/* The one user call (at statement level, any depth) whose callee returns as
 * many values as f declares; NULL when none or ambiguous. */
static const Expr *returning_call(Program *p, const Function *f, const Block *b, const Expr *found, bool *ambiguous)
{
	for (int i = 0; i < b->n && !*ambiguous; i++) {
		const Stmt *s = b->stmts[i];
		const Expr *e = s->value;
		if (is_user_call(e)) {
			Function *c = ir_find_function(p, e->str);
			if (c && c->nrets == f->nrets) {
				if (found)
					*ambiguous = true;
				found = e;
			}
		}
		if (ir_stmt_is_simple(s->kind))
			continue;
		found = returning_call(p, f, &s->body, found, ambiguous);
		found = returning_call(p, f, &s->orelse, found, ambiguous);
	}
	return found;
}

/* A Group / Spmd wrapper without a return statement hands back what its
 * inner kernel call returns: map each position through that call's
 * arguments to the wrapper's own parameters. */
static void wrapper_retmap(Lineage *l, const Function *f, RetMap *m)
{
	bool ambiguous = false;
	const Expr *call = returning_call(l->prog, f, &f->body, NULL, &ambiguous);
	const RetMap *inner = call && !ambiguous ? callee_retmap(l, call) : NULL;
	if (!inner || inner->n != f->nrets)
		return;
	m->n = inner->n;
	m->idx = arena_alloc(l->prog->arena, (size_t)m->n * sizeof *m->idx);
	for (int k = 0; k < m->n; k++) {
		Var *a = through_call(l, call, k);
		m->idx[k] = a ? (int)(uintptr_t)pmap_get(l->params, a) - 1 : -1;
	}
}

static const RetMap *callee_retmap(Lineage *l, const Expr *call)
{
	Function *f = ir_find_function(l->prog, call->str);
	if (!f || f->abstract)
		return NULL;
	RetMap *m = pmap_get(l->memo, f);
	if (m)
		return m == RETMAP_BUSY ? NULL : m;
	pmap_put(l->memo, f, RETMAP_BUSY);
	PtrMap params = { 0 };
	for (int i = 0; i < f->nparams; i++)
		pmap_put(&params, f->params[i].var, (void *)(uintptr_t)(i + 1));
	Lineage cl = { .params = &params, .no_merges = true, .prog = l->prog, .memo = l->memo };
	lin_index(&cl, &f->body);
	m = arena_alloc(l->prog->arena, sizeof *m);
	*m = (RetMap){ 0 };
	const Stmt *r = ir_find_stmt(&f->body, ST_RETURN);
	if ((!r || !r->nvalues) && (f->type == FT_GROUP || f->type == FT_SPMD) && f->nrets)
		wrapper_retmap(&cl, f, m);
	else if (r && r->nvalues) {
		m->n = r->nvalues;
		m->idx = arena_alloc(l->prog->arena, (size_t)(f->nrets + r->nvalues) * sizeof *m->idx);
		bool done = false;
		if (r->nvalues == 1 && f->nrets > 1 && r->values[0]->kind == EX_VAR) {
			Type *t = r->values[0]->var->type;
			if (t && t->kind == TY_TUPLE && t->nelems == f->nrets) {
				m->n = f->nrets;
				done = expand_forwarded(&cl, r->values[0]->var, m);
				if (!done)
					m->n = 1;
			}
		}
		if (!done)
			trace_to_params(&cl, r->values, r->nvalues, m->idx);
	}
	lin_release(&cl);
	pmap_release(&params);
	pmap_put(l->memo, f, m);
	return m;
}

/* ------------------------------------------------------------ store binding (§3.3-I) */

typedef struct StoreBind {
	Ol *o;
	PtrMap decl;    /* target -> declared t__store Var */
	PtrMap claimed;
	PtrMap *used;   /* names in the outlined function */
} StoreBind;

static Var *bind_result(StoreBind *sb, Var *t)
{
	Var *decl = pmap_get(&sb->decl, t);
	if (!has(&sb->claimed, t)) {
		add(&sb->claimed, t);
		return decl;
	}
	const char *n = fresh_like(sb->o->a, decl->name, NULL, sb->used);
	add(sb->used, n);
	return new_var(sb->o, n, decl->type, VK_VAR);
}

static void bind_block(StoreBind *sb, Block *b)
{
	PtrVec out = ARENA_VEC(sb->o->a);
	bool changed = false;
	for (int i = 0; i < b->n; i++) {
		Stmt *s = b->stmts[i];
		if (!ir_stmt_is_simple(s->kind)) {
			bind_block(sb, &s->body);
			bind_block(sb, &s->orelse);
		}
		Var *t = (s->kind == ST_EVAL || s->kind == ST_ASSIGN) ? store_target(s->value) : NULL;
		if (!t || !pmap_get(&sb->decl, t)) {
			vec_push(&out, s);
			continue;
		}
		changed = true;
		Var *r = bind_result(sb, t);
		if (s->kind == ST_EVAL || s->var == t) {
			Stmt *n = mk_assign(sb->o, r, s->value);
			n->pos = s->pos;
			n->comments = s->comments;
			n->ncomments = s->ncomments;
			vec_push(&out, n);
		} else {
			vec_push(&out, s);
			vec_push(&out, mk_assign(sb->o, r, ir_var_ref(sb->o->a, s->var)));
		}
	}
	if (changed)
		b->stmts = (Stmt **)vec_finish(sb->o->a, &out, &b->n);
}

/* ------------------------------------------------------------ scalar hoisting (seed) */

static bool pure_scalar(const Expr *e, const PtrMap *defs, const PtrMap *hoisted)
{
	switch (e->kind) {
	case EX_INT: case EX_FLOAT: case EX_BOOL:
		return true;
	case EX_VAR:
		return !has(defs, e->var) || has(hoisted, e->var);
	case EX_BINARY:
		return pure_scalar(e->lhs, defs, hoisted) && pure_scalar(e->rhs, defs, hoisted);
	case EX_UNARY: case EX_CAST:
		return pure_scalar(e->lhs, defs, hoisted);
	default:
		return false;
	}
}

/* Mark the top-level statement defining v and, first, the ones it needs. */
static bool hoist_chain(Var *v, const PtrMap *top, const PtrMap *defs, PtrMap *hoisted, PtrMap *moved);

typedef struct ChainCtx {
	const PtrMap *top, *defs;
	PtrMap *hoisted, *moved;
	bool ok;
} ChainCtx;

static void chain_dep(void *ctx, Var *v)
{
	ChainCtx *c = ctx;
	if (c->ok && has(c->defs, v) && !has(c->hoisted, v))
		c->ok = hoist_chain(v, c->top, c->defs, c->hoisted, c->moved);
}

static bool hoist_chain(Var *v, const PtrMap *top, const PtrMap *defs, PtrMap *hoisted, PtrMap *moved)
{
	Stmt *s = pmap_get(top, v);
	if (!s || !is_scalar(v->type))
		return false;
	ChainCtx c = { top, defs, hoisted, moved, true };
	ir_expr_vars(s->value, chain_dep, &c);
	if (!c.ok)
		return false;
	PtrMap none = { 0 };
	if (!pure_scalar(s->value, &none, NULL))
		return false;
	add(hoisted, v);
	add(moved, s);
	return true;
}

/* ------------------------------------------------------------ outlining */

static void visit_block(Ol *o, Block *b);

static const char *taken_fix(Ol *o, const char *n)
{
	char buf[512];
	for (int k = 0;; k++) {
		snprintf(buf, sizeof buf, "%s_%d", n, k);
		const char *c = intern_cstr(o->a, buf);
		if (!has(&o->vnames, c) && !has(&o->fnames, c) && !has(o->reserved, c))
			return c;
	}
}

static const char *outlined_name(Ol *o, const Scope *sc)
{
	const char *suffix = o->cfg->scope_suffix ? o->cfg->scope_suffix(o->a, sc) : o->cfg->suffix;
	const char *cand = sc->name_hint
		? sc->name_hint
		: intern_cstr(o->a, arena_printf(o->a, "%s%s%d", o->func_name, suffix, o->counter));
	o->counter++;
	bool local = has(&o->vnames, cand) || has(&o->fnames, cand);
	if (!local && !has(o->reserved, cand))
		return cand;
	if (!local) {
		const char *ns = intern_cstr(o->a, arena_printf(o->a, "%s_%s", o->func_name, cand));
		if (!has(&o->vnames, ns) && !has(&o->fnames, ns) && !has(o->reserved, ns))
			return ns;
		return taken_fix(o, ns);
	}
	return taken_fix(o, cand);
}

typedef struct SplitSum {
	bool found, uniform;
	SplitMode mode;
} SplitSum;

static void split_regions(const Block *b, SplitSum *s)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *st = b->stmts[i];
		if (st->kind == ST_SCOPE && st->scope->kind == SC_SPLIT_AIV) {
			if (!s->found) {
				s->found = s->uniform = true;
				s->mode = st->scope->split;
			} else if (s->uniform && s->mode != st->scope->split) {
				s->uniform = false;
			}
			continue;
		}
		if (ir_stmt_is_simple(st->kind))
			continue;
		split_regions(&st->body, s);
		split_regions(&st->orelse, s);
	}
}

static void add_kw(PtrVec *names, PtrVec *vals, const char *n, Expr *v)
{
	vec_push(names, (void *)n);
	vec_push(vals, v);
}

static Expr *mk_dict(Ol *o, PtrVec *names, PtrVec *vals)
{
	if (!names->len)
		return NULL;
	Expr *d = ir_expr_new(o->a, EX_DICT, (SrcPos){ 0, 0 });
	d->nkw = (int)names->len;
	d->kw = arena_alloc(o->a, names->len * sizeof *d->kw);
	for (size_t i = 0; i < names->len; i++) {
		d->kw[i].name = intern_cstr(o->a, names->items[i]);
		d->kw[i].value = vals->items[i];
	}
	return d;
}

static Expr *mk_true(Ol *o)
{
	Expr *t = ir_expr_new(o->a, EX_BOOL, (SrcPos){ 0, 0 });
	t->ival = 1;
	return t;
}

static Expr *mk_list(Ol *o, Expr **xs, int n)
{
	Expr *t = ir_expr_new(o->a, EX_TUPLE, (SrcPos){ 0, 0 });
	t->args = xs;
	t->nargs = n;
	return t;
}

static void collect_name(void *ctx, Var *v) { add(ctx, v->name); }

/* Replace the scope statement s by its call site, appended to `out`. */
/* A scope that registers pld.system.defer_wait conditions becomes a
 * deferred-completion waiter: its body must keep the waiter contract
 * (deferred_wait.c), and only a task of its own may carry it - the task's
 * completion is the condition, so nothing around it may decide dispatch or
 * resolve it early.  Returns 1 after diag_error. */
static int check_waiter(Ol *o, const Stmt *s, bool *waiter)
{
	const Scope *sc = s->scope;
	const char *why = NULL;
	if (dw_check_waiter(&s->body, s->pos, o->d, waiter))
		why = "";
	else if (!*waiter)
		return 0;
	else if (sc->kind != SC_INCORE)
		why = "pld.system.defer_wait must be the body of a CORE_GROUP / InCore task "
		      "(a with pl.at(level=pl.Level.CORE_GROUP) scope)";
	else if (o->in_launch)
		why = "pld.system.defer_wait must be in a task-level pl.at(CORE_GROUP) scope: nesting the waiter "
		      "under pl.spmd or another launching scope is unsupported, because the outer launch decides "
		      "the dispatch predicate and early resolution";
	else if (sc->allow_early_resolve)
		why = "a pld.system.defer_wait task cannot use allow_early_resolve=True (its task id must stay "
		      "unresolved until the registered conditions hold); put allow_early_resolve=True on the "
		      "consumer task instead";
	if (!why)
		return 0;
	if (*why)
		diag_error(o->d, s->pos.line, s->pos.col, "%s", why);
	o->failed = true;
	return 1;
}

static bool ends_in_return(const Block *b) { return b->n && b->stmts[b->n - 1]->kind == ST_RETURN; }

static void outline_scope(Ol *o, Stmt *s, UsedAfter *ua, PtrVec *out)
{
	Arena *a = o->a;
	Scope *sc = s->scope;
	const char *name = outlined_name(o, sc);
	add(&o->fnames, name);
	add(o->reserved, name);
	Block *body = &s->body;
	/* A return in the scope returns from the outlined function.  When the
	 * caller has a return of its own after the scope, that is what the
	 * reference prints (and what ptoopt prints); when its only returns are
	 * inside the scope, the reference leaves the caller without one (or
	 * fails its own IR check): refused instead. */
	const Stmt *ret = o->fn->nrets && !ends_in_return(&o->fn->body) ? ir_find_stmt(body, ST_RETURN) : NULL;
	if (ret) {
		diag_error(o->d, ret->pos.line, ret->pos.col,
			   "a return inside a scope that becomes function '%s' needs a return of '%s' after the "
			   "scope: outlined, it returns from '%s' and leaves '%s' without one; assign the value in "
			   "the scope and return it after the scope",
			   name, o->func_name, name, o->func_name);
		o->failed = true;
		return;
	}
	bool waiter;
	if (check_waiter(o, s, &waiter))
		return;
	/* everything released at `done`, so an error can leave from anywhere */
	PtrVec defs = { 0 }, hoisted_stmts = { 0 }, stores = { 0 };
	PtrVec outs = { 0 };      /* Var: regular output or store target */
	PtrVec deferred = { 0 };  /* post-store alias, target pairs */
	PtrMap defset = { 0 }, storeset = { 0 }, used = { 0 }, params = { 0 };
	PtrMap store_out = { 0 }; /* exported store targets */
	LiveIn li = { 0 };
	StoreBind sb = { .o = o, .used = &used };

	/* pl.set_cache_policy(t, policy) in the scope body is a declaration about
	 * a captured tensor, not a use: take it out before the analysis. */
	PtrVec policies = { 0 }; /* Var, policy value (as pointer) pairs */
	{
		int k = 0;
		for (int i = 0; i < body->n; i++) {
			Stmt *st = body->stmts[i];
			const Expr *e = st->value;
			if (st->kind == ST_EVAL && e && e->kind == EX_OP_CALL && strstr(e->str, "set_cache_policy") &&
			    e->nargs >= 1 && e->args[0]->kind == EX_VAR) {
				intptr_t val = e->nargs >= 2 && e->args[1]->kind == EX_SYMBOL && strstr(e->args[1]->str, "BYPASS") ? 1
					: e->nargs >= 2 && e->args[1]->kind == EX_INT ? (intptr_t)e->args[1]->ival : 0;
				vec_push(&policies, e->args[0]->var);
				vec_push(&policies, (void *)val);
				continue;
			}
			body->stmts[k++] = st;
		}
		body->n = k;
	}
	defs_block(body, &defs);
	/* the scope's sets are sized once (none of them is iterated) */
	pmap_reserve(&defset, defs.len);
	pmap_reserve(&li.defined, defs.len);
	pmap_reserve(&li.seen, defs.len / 2 + 4);
	pmap_reserve(&used, defs.len * 2 + 8);
	for (size_t i = 0; i < defs.len; i++)
		add(&defset, defs.items[i]);

	/* Seed: a Scalar live-out has no way back from the device; hoist the
	 * caller-computable ones (and only the chain they need) before the call. */
	if (o->cfg->hoist_scalars) {
		PtrMap top = { 0 }, hoisted = { 0 }, moved = { 0 };
		for (int i = 0; i < body->n; i++)
			if (body->stmts[i]->kind == ST_ASSIGN)
				pmap_put(&top, body->stmts[i]->var, body->stmts[i]);
		for (size_t i = 0; i < defs.len; i++) {
			Var *v = defs.items[i];
			if (!is_scalar(v->type) || !used_after(ua, v) || has(&hoisted, v))
				continue;
			PtrMap tryh = { 0 }, trym = { 0 };
			for (size_t k = 0; k < hoisted.cap; k++)
				if (hoisted.keys[k] && hoisted.vals[k])
					add(&tryh, hoisted.keys[k]);
			if (!hoist_chain(v, &top, &defset, &tryh, &trym)) {
				diag_error(o->d, v->pos.line ? v->pos.line : s->pos.line, v->pos.line ? v->pos.col : s->pos.col,
					   "scope '%s' cannot return a scalar: '%s' is computed on the device and used after "
					   "the scope; write it into a [1] tensor output and read it back after the call "
					   "with pl.tensor.read(t, [0]), or move the computation out of the scope",
					   name, v->name);
				o->failed = true;
				pmap_release(&tryh);
				pmap_release(&trym);
				pmap_release(&top);
				pmap_release(&hoisted);
				pmap_release(&moved);
				goto done;
			}
			for (size_t k = 0; k < trym.cap; k++)
				if (trym.keys[k] && trym.vals[k])
					add(&moved, trym.keys[k]);
			pmap_release(&hoisted);
			hoisted = tryh;
			pmap_release(&trym);
		}
		if (moved.len) {
			PtrVec keep = ARENA_VEC(a);
			for (int i = 0; i < body->n; i++) {
				Stmt *st = body->stmts[i];
				if (has(&moved, st)) {
					vec_push(&hoisted_stmts, st);
					pmap_put(&defset, st->var, NULL);
				} else {
					vec_push(&keep, st);
				}
			}
			body->stmts = (Stmt **)vec_finish(a, &keep, &body->n);
			defs.len = 0;
			defs_block(body, &defs);
		}
		pmap_release(&top);
		pmap_release(&hoisted);
		pmap_release(&moved);
	}

	stores_block(body, &stores, &storeset);

	li_block(&li, body);
	int nin = (int)li.order.len;
	Var **inputs = arena_alloc(a, (size_t)(nin + 1) * sizeof *inputs);
	for (int i = 0; i < nin; i++)
		inputs[i] = li.order.items[i];

	for (int i = 0; i < nin; i++)
		if (has(&defset, inputs[i]) && !has(&storeset, inputs[i])) {
			diag_error(o->d, s->pos.line, s->pos.col,
				   "internal error: scope '%s' captures '%s' and rebinds it under the same name without a "
				   "tile.store; the outlining passes require SSA form - run convert-to-ssa first",
				   name, inputs[i]->name);
			o->failed = true;
			goto done;
		}

	/* Outputs (§3.3-D). */
	for (size_t i = 0; i < defs.len; i++) {
		Var *v = defs.items[i];
		if (used_after(ua, v))
			vec_push(&outs, v);
	}
	/* post-store aliases: scan top-down once */
	{
		PtrMap alias = { 0 }; /* v -> t */
		PtrVec st = { 0 };
		vec_push(&st, body);
		while (st.len) {
			Block *b = st.items[--st.len];
			for (int i = 0; i < b->n; i++) {
				Stmt *x = b->stmts[i];
				Var *t = x->kind == ST_ASSIGN ? store_target(x->value) : NULL;
				if (t)
					pmap_put(&alias, x->var, t);
				if (ir_stmt_is_simple(x->kind))
					continue;
				if (x->body.n)
					vec_push(&st, &x->body);
				if (x->orelse.n)
					vec_push(&st, &x->orelse);
			}
		}
		vec_release(&st);
		size_t k = 0;
		for (size_t i = 0; i < outs.len; i++) {
			Var *v = outs.items[i];
			Var *t = pmap_get(&alias, v);
			/* A hierarchy scope exports no store target, so there is no
			 * call-site Var to redirect the alias to: it stays a regular
			 * output (the reference drops it and leaves the later use
			 * unbound, passes.md §11.2). */
			if (t && sc->kind != SC_HIERARCHY && has(&storeset, t) && has(&li.seen, t)) {
				vec_push(&deferred, v);
				vec_push(&deferred, t);
				continue;
			}
			outs.items[k++] = v;
		}
		outs.len = k;
		pmap_release(&alias);
	}
	if (sc->kind != SC_HIERARCHY)
		for (size_t i = stores.len; i-- > 0;) { /* reverse first-store order */
			Var *t = stores.items[i];
			if (has(&li.seen, t)) {
				vec_push(&outs, t);
				add(&store_out, t);
			}
		}
	int nout = (int)outs.len;

	/* Directions, on the body before nested outlining and store binding. */
	ParamDir *dirs = arena_alloc(a, (size_t)(nin + 1) * sizeof *dirs);
	if (sc->kind == SC_HIERARCHY)
		dir_infer_hierarchy(inputs, nin, body, dirs);
	else
		dir_infer(o->cfg->callee_lookup ? o->p : NULL, inputs, nin, body, &store_out, dirs);
	int npol = (int)policies.len / 2;
	int *pol_idx = arena_alloc(a, (size_t)(npol + 1) * sizeof *pol_idx);
	for (int k = 0; k < npol; k++) {
		Var *t = policies.items[2 * k];
		pol_idx[k] = -1;
		for (int i = 0; i < nin; i++)
			if (inputs[i] == t)
				pol_idx[k] = i;
		if (pol_idx[k] < 0) {
			diag_error(o->d, s->pos.line, s->pos.col,
				   "pl.set_cache_policy names tensor '%s', which is not captured by the scope body (neither "
				   "read nor written inside it), so no parameter can carry the policy", t->name);
			o->failed = true;
			goto done;
		}
		if ((intptr_t)policies.items[2 * k + 1] == 1 && dirs[pol_idx[k]] != DIR_IN) {
			diag_error(o->d, s->pos.line, s->pos.col,
				   "pl.CachePolicy.BYPASS on '%s' is not allowed on a tensor this scope writes (%s); a "
				   "bypass read of bytes the kernel itself writes is incoherent", t->name,
				   dirs[pol_idx[k]] == DIR_OUT ? "Out" : "InOut");
			o->failed = true;
			goto done;
		}
	}

	/* Recurse: nested target scopes are outlined first, named after this one. */
	{
		const char *sf = o->func_name;
		int sc_ = o->counter;
		PtrMap sr = o->renames;
		Frame *sfr = o->frames;
		const PtrMap *sreq = o->req;
		PtrMap req = { 0 };
		for (int i = 0; i < nout; i++)
			add(&req, outs.items[i]);
		o->func_name = name;
		o->counter = 0;
		o->renames = (PtrMap){ 0 };
		o->frames = NULL;
		o->req = &req;
		visit_block(o, body);
		pmap_release(&o->renames);
		o->func_name = sf;
		o->counter = sc_;
		o->renames = sr;
		o->frames = sfr;
		o->req = sreq;
		pmap_release(&req);
		if (o->failed)
			goto done;
	}

	/* Output Vars inside the function and the store binding. */
	for (int i = 0; i < nin; i++)
		add(&used, inputs[i]->name);
	ir_block_vars(body, collect_name, &used);
	Var **fouts = arena_alloc(a, (size_t)(nout + 1) * sizeof *fouts);
	Type **rtypes = arena_alloc(a, (size_t)(nout + 1) * sizeof *rtypes);
	for (int i = 0; i < nout; i++) {
		Var *v = outs.items[i];
		rtypes[i] = v->type;
		if (has(&store_out, v)) {
			AutoName an = autoname_parse(a, v->name);
			const char *n = autoname_build(a, an.has_delim ? an.base : v->name, "", "store", -1);
			if (has(&used, n))
				n = fresh_like(a, n, NULL, &used);
			add(&used, n);
			fouts[i] = new_var(o, n, v->type, VK_VAR);
			pmap_put(&sb.decl, v, fouts[i]);
		} else {
			fouts[i] = v;
		}
	}
	if (store_out.len)
		bind_block(&sb, body);

	/* Return values: store targets return their parameter; tensors trace to one. */
	pmap_reserve(&params, (size_t)nin);
	for (int i = 0; i < nin; i++)
		pmap_put(&params, inputs[i], (void *)(uintptr_t)(i + 1));
	Expr **rets = arena_alloc(a, (size_t)(nout + 1) * sizeof *rets);
	int *pidx = arena_alloc(a, (size_t)(nout + 1) * sizeof *pidx);
	/* (seed 000 states the parameter-order contract for InCore functions;
	 * Group / Spmd / hierarchy returns keep the output order) */
	bool sync = nout > 0 && sc->kind == SC_INCORE;
	{
		Lineage ln = { .params = &params, .prog = o->cfg->callee_lookup ? o->p : NULL, .memo = &o->retmaps };
		lin_index(&ln, body);
		for (int i = 0; i < nout; i++) {
			Var *v = outs.items[i], *r = fouts[i];
			Var *pv = NULL;
			if (has(&store_out, v))
				pv = v;
			else if (is_tensor(v->type))
				pv = lin_trace(&ln, v, 0);
			if (pv)
				r = pv;
			rets[i] = ir_var_ref(o->a, r);
			pidx[i] = pv ? (int)(uintptr_t)pmap_get(&params, pv) - 1 : -1;
			if (!is_tensor(v->type) || pidx[i] < 0 || dirs[pidx[i]] == DIR_IN)
				sync = false;
			for (int k = 0; k < i && sync; k++)
				if (pidx[k] == pidx[i])
					sync = false;
		}
		lin_release(&ln);
	}
	/* Seed: when every return is a distinct written parameter, returns follow
	 * parameter order (stable insertion sort keeps it linear for sorted input). */
	if (sync)
		for (int i = 1; i < nout; i++)
			for (int k = i; k > 0 && pidx[k - 1] > pidx[k]; k--) {
				int ti = pidx[k]; pidx[k] = pidx[k - 1]; pidx[k - 1] = ti;
				Expr *te = rets[k]; rets[k] = rets[k - 1]; rets[k - 1] = te;
				Var *tv = fouts[k]; fouts[k] = fouts[k - 1]; fouts[k - 1] = tv;
				Type *tt = rtypes[k]; rtypes[k] = rtypes[k - 1]; rtypes[k - 1] = tt;
				void *to = outs.items[k]; outs.items[k] = outs.items[k - 1]; outs.items[k - 1] = to;
			}

	/* The function. */
	Function *fn = arena_alloc(a, sizeof *fn);
	fn->name = name;
	fn->pos = s->pos;
	fn->type = o->cfg->fn_type;
	fn->level = sc->kind == SC_HIERARCHY ? sc->level : ir_default_level(fn->type);
	fn->role = sc->kind == SC_HIERARCHY ? sc->role : ir_default_role(fn->type);
	fn->auto_scope = true;
	fn->nparams = nin;
	fn->params = arena_alloc(a, (size_t)(nin + 1) * sizeof *fn->params);
	for (int i = 0; i < nin; i++)
		fn->params[i] = (Param){ inputs[i], dirs[i] };
	fn->nrets = nout;
	fn->rets = rtypes;
	fn->body = *body;
	if (nout) {
		Stmt *r = ir_stmt_new(a, ST_RETURN, (SrcPos){ 0, 0 });
		r->values = rets;
		r->nvalues = nout;
		Stmt **ns = arena_alloc(a, (size_t)(body->n + 1) * sizeof *ns);
		if (body->n)
			memcpy(ns, body->stmts, (size_t)body->n * sizeof *ns);
		ns[body->n] = r;
		fn->body.stmts = ns;
		fn->body.n = body->n + 1;
	}
	{
		PtrVec kn = ARENA_VEC(a), kv = ARENA_VEC(a); /* an error may leave before release */
		if (sc->kind == SC_INCORE) {
			if (sc->split != SPLIT_NONE)
				add_kw(&kn, &kv, "split", ir_int(a, sc->split, DT_INDEX));
			if (sc->slot_num)
				add_kw(&kn, &kv, "slot_num", sc->slot_num);
			if (sc->windowize)
				add_kw(&kn, &kv, "windowize", mk_true(o));
			if (waiter)
				add_kw(&kn, &kv, "deferred_completion_waiter", mk_true(o));
			SplitSum ss = { 0 };
			split_regions(body, &ss);
			if (ss.found) {
				if (sc->split != SPLIT_NONE) {
					diag_error(o->d, s->pos.line, s->pos.col,
						   "scope combines a function-level pl.split(...) (optimizations=[pl.split(...)]) "
						   "with pl.split_aiv region(s); these are mutually exclusive AIV-split mechanisms. "
						   "Remove optimizations=[pl.split(...)] or the pl.split_aiv region(s), or use "
						   "optimizations=[pl.cross_core_slot(slot_num=N)] to pin a slot count");
					o->failed = true;
					goto done;
				}
				add_kw(&kn, &kv, "split_aiv", mk_true(o));
				if (ss.uniform && ss.mode != SPLIT_NONE)
					add_kw(&kn, &kv, "split", ir_int(a, ss.mode, DT_INDEX));
			}
		}
		if (npol) {
			/* a list of (parameter index, policy) tuples sorted by index */
			Expr **xs = arena_alloc(a, (size_t)npol * sizeof *xs);
			int *ord = arena_alloc(a, (size_t)npol * sizeof *ord);
			for (int k = 0; k < npol; k++) {
				ord[k] = k;
				for (int j = k; j > 0 && pol_idx[ord[j - 1]] > pol_idx[ord[j]]; j--) {
					int t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t;
				}
			}
			for (int k = 0; k < npol; k++) {
				Expr **pair = arena_alloc(a, 2 * sizeof *pair);
				pair[0] = ir_int(a, pol_idx[ord[k]], DT_INDEX);
				pair[1] = ir_int(a, (int64_t)(intptr_t)policies.items[2 * ord[k] + 1], DT_INDEX);
				xs[k] = mk_list(o, pair, 2);
				xs[k]->op = TUP_PAREN;
			}
			add_kw(&kn, &kv, "cache_policy", mk_list(o, xs, npol));
		}
		fn->nattrs = (int)kn.len;
		fn->attrs = arena_alloc(a, (kn.len + 1) * sizeof *fn->attrs);
		for (size_t i = 0; i < kn.len; i++)
			fn->attrs[i] = (Kwarg){ intern_cstr(a, kn.items[i]), kv.items[i] };
		vec_release(&kn);
		vec_release(&kv);
	}
	vec_push(o->out, fn);
	o->count++;

	/* The launch spec the call site carries: a Spmd scope's own (evaluated
	 * by the caller), or one the driver lifts out of the new function
	 * (cluster: a nested pl.spmd), stated over its parameters. */
	Expr *core_num = NULL;
	bool sync_start = false;
	if (sc->kind == SC_SPMD) {
		core_num = subst(o, &o->renames, sc->core_num);
		sync_start = sc->sync_start;
	} else if (o->cfg->finish) {
		Expr *cn = NULL;
		if (o->cfg->finish(o->p, fn, &cn, &sync_start, o->d)) {
			o->failed = true;
			goto done;
		}
		if (cn) {
			/* parameters are the captured Vars; the call passes their current values */
			PtrMap to_arg = { 0 };
			for (int i = 0; i < nin; i++)
				pmap_put(&to_arg, inputs[i], subst_v(&o->renames, inputs[i]));
			core_num = subst(o, &to_arg, cn);
			pmap_release(&to_arg);
		}
	}

	/* The call site (§3.3-M..O). */
	for (size_t i = 0; i < hoisted_stmts.len; i++)
		vec_push(out, hoisted_stmts.items[i]);
	Expr **args = arena_alloc(a, (size_t)(nin + 1) * sizeof *args);
	for (int i = 0; i < nin; i++)
		args[i] = ir_var_ref(o->a, subst_v(&o->renames, inputs[i]));
	Var *tid = sc->tid;
	bool submit = tid || sc->has_deps || sc->allow_early_resolve || sc->predicate;
	if (submit && !tid) {
		tid = new_var(o, fresh_like(a, "tid", NULL, &o->vnames), ir_scalar_type(a, DT_TASK_ID), VK_VAR);
	}
	PtrVec an = ARENA_VEC(a), av = ARENA_VEC(a); /* an error may leave before release */
	if (sc->ndumps) {
		PtrVec d = { 0 };
		for (int i = 0; i < nin; i++) {
			bool hit = false;
			for (int k = 0; k < sc->ndumps; k++)
				hit |= sc->dumps[k] == inputs[i];
			if (hit)
				vec_push(&d, args[i]);
		}
		if (d.len) {
			int n;
			Expr **xs = (Expr **)vec_finish(a, &d, &n);
			add_kw(&an, &av, "dump_vars", mk_list(o, xs, n));
		}
		vec_release(&d);
	}
	if (sc->nno_dep_args) {
		Expr **xs = arena_alloc(a, (size_t)sc->nno_dep_args * sizeof *xs);
		int *ix = arena_alloc(a, (size_t)sc->nno_dep_args * sizeof *ix);
		for (int k = 0; k < sc->nno_dep_args; k++) {
			ix[k] = -1;
			for (int i = 0; i < nin; i++)
				if (inputs[i] == sc->no_dep_args[k])
					ix[k] = i;
			if (ix[k] < 0) {
				diag_error(o->d, s->pos.line, s->pos.col,
					   "pl.at(no_dep_args=[...]) references tensor '%s', which is not captured by the "
					   "scope body. Only tensors actually read or written inside `with pl.at(...):` can "
					   "appear in no_dep_args=.", sc->no_dep_args[k]->name);
				o->failed = true;
				goto done;
			}
			for (int j = k; j > 0 && ix[j - 1] > ix[j]; j--) {
				int t = ix[j]; ix[j] = ix[j - 1]; ix[j - 1] = t;
			}
		}
		for (int k = 0; k < sc->nno_dep_args; k++)
			xs[k] = ir_int(a, ix[k], DT_INDEX);
		add_kw(&an, &av, "arg_direction_overrides", mk_list(o, xs, sc->nno_dep_args));
	}
	if (core_num && !submit) {
		add_kw(&an, &av, "core_num", core_num);
		if (sync_start)
			add_kw(&an, &av, "sync_start", mk_true(o));
	}
	int ntypes = nout + (tid ? 1 : 0);
	Type **ctypes = arena_alloc(a, (size_t)(ntypes + 1) * sizeof *ctypes);
	if (nout)
		memcpy(ctypes, rtypes, (size_t)nout * sizeof *ctypes);
	if (tid)
		ctypes[nout] = ir_scalar_type(a, DT_TASK_ID);
	Type *ctype = ntypes == 0 ? NULL : (!tid && ntypes == 1) ? ctypes[0] : tuple_type(a, ctypes, ntypes);
	Expr *call = ir_expr_new(a, submit ? EX_SUBMIT : EX_FN_CALL, s->pos);
	call->spmd = submit && core_num;
	call->str = name;
	call->args = args;
	call->nargs = nin;
	call->type = ctype;
	call->attrs = mk_dict(o, &an, &av);
	vec_release(&an);
	vec_release(&av);
	if (submit) {
		PtrVec kn = { 0 }, kv = { 0 };
		if (sc->has_deps) {
			Expr **xs = arena_alloc(a, (size_t)(sc->ndeps + 1) * sizeof *xs);
			for (int k = 0; k < sc->ndeps; k++)
				xs[k] = ir_var_ref(o->a, subst_v(&o->renames, sc->deps[k]));
			add_kw(&kn, &kv, "deps", mk_list(o, xs, sc->ndeps));
		}
		if (core_num) {
			add_kw(&kn, &kv, "core_num", core_num);
			if (sync_start)
				add_kw(&kn, &kv, "sync_start", mk_true(o));
		}
		if (sc->allow_early_resolve)
			add_kw(&kn, &kv, "allow_early_resolve", mk_true(o));
		if (sc->predicate)
			add_kw(&kn, &kv, "predicate", subst(o, &o->renames, sc->predicate));
		call->nkw = (int)kn.len;
		call->kw = arena_alloc(a, (kn.len + 1) * sizeof *call->kw);
		for (size_t i = 0; i < kn.len; i++)
			call->kw[i] = (Kwarg){ intern_cstr(a, kn.items[i]), kv.items[i] };
		vec_release(&kn);
		vec_release(&kv);
	}
	/* Call-site Vars: regular outputs keep their Var; store targets get a
	 * fresh one that later references are renamed to. */
	Var **site = arena_alloc(a, (size_t)(nout + 1) * sizeof *site);
	for (int i = 0; i < nout; i++) {
		Var *v = outs.items[i];
		if (has(&store_out, v)) {
			Var *f = new_var(o, fresh_like(a, v->name, NULL, &o->vnames), v->type, VK_VAR);
			rename_set(o, v, f, true);
			site[i] = f;
		} else {
			site[i] = v;
		}
	}
	if (tid || nout >= 2) {
		Var *tmp = ir_var_new(o->p, intern_cstr(a, "ret__tmp_v0"), ctype, VK_VAR);
		vec_push(out, mk_assign(o, tmp, call));
		for (int i = 0; i < nout; i++)
			vec_push(out, mk_assign(o, site[i], mk_getitem(o, tmp, i, rtypes[i])));
		if (tid)
			vec_push(out, mk_assign(o, tid, mk_getitem(o, tmp, nout, ctypes[nout])));
	} else if (nout == 1) {
		vec_push(out, mk_assign(o, site[0], call));
	} else {
		Stmt *e = ir_stmt_new(a, ST_EVAL, s->pos);
		e->value = call;
		vec_push(out, e);
	}
	for (size_t i = 0; i + 1 < deferred.len; i += 2) {
		Var *r = pmap_get(&o->renames, deferred.items[i + 1]);
		if (r)
			rename_set(o, deferred.items[i], r, false);
	}
	/* The scope's leading comments go with it: the reference builds the call
	 * site from new statements that carry none. */

done:
	vec_release(&defs);
	vec_release(&policies);
	vec_release(&stores);
	vec_release(&hoisted_stmts);
	vec_release(&outs);
	vec_release(&deferred);
	pmap_release(&defset);
	pmap_release(&storeset);
	pmap_release(&store_out);
	pmap_release(&used);
	pmap_release(&params);
	pmap_release(&sb.decl);
	pmap_release(&sb.claimed);
	pmap_release(&li.defined);
	pmap_release(&li.seen);
	vec_release(&li.journal);
	vec_release(&li.order);
}

/* Fallback used-after (§3.2): store targets, plus every definition unless
 * inside a non-target scope; Scalars are never exported this way (seed). */
static void fallback(Ol *o, Stmt *s, UsedAfter *u)
{
	if (dw_block_has_defer_wait(&s->body))
		return;
	PtrVec st = { 0 };
	stores_block(&s->body, &st, &u->extra);
	vec_release(&st);
	if (!o->nested) {
		PtrVec defs = { 0 };
		defs_block(&s->body, &defs);
		for (size_t i = 0; i < defs.len; i++)
			if (!is_scalar(((Var *)defs.items[i])->type))
				add(&u->extra, defs.items[i]);
		vec_release(&defs);
	}
}

/* ------------------------------------------------------------ loop carries (seed) */

static Stmt *trailing_yield(Ol *o, Block *b, bool create)
{
	if (b->n && b->stmts[b->n - 1]->kind == ST_YIELD)
		return b->stmts[b->n - 1];
	if (!create)
		return NULL;
	Stmt *y = ir_stmt_new(o->a, ST_YIELD, (SrcPos){ 0, 0 });
	Stmt **ns = arena_alloc(o->a, (size_t)(b->n + 1) * sizeof *ns);
	if (b->n) /* an empty block may have no array: memcpy from NULL is UB */
		memcpy(ns, b->stmts, (size_t)b->n * sizeof *ns);
	ns[b->n] = y;
	b->stmts = ns;
	b->n++;
	return y;
}

static void push_expr(Ol *o, Expr ***xs, int *n, Expr *x)
{
	Expr **nx = arena_alloc(o->a, (size_t)(*n + 1) * sizeof *nx);
	if (*n)
		memcpy(nx, *xs, (size_t)*n * sizeof *nx);
	nx[(*n)++] = x;
	*xs = nx;
}

static void push_var(Ol *o, Var ***vs, int *n, Var *v)
{
	Var **nv = arena_alloc(o->a, (size_t)(*n + 1) * sizeof *nv);
	if (*n)
		memcpy(nv, *vs, (size_t)*n * sizeof *nv);
	nv[(*n)++] = v;
	*vs = nv;
}

/* Targets renamed since log mark `m` that s does not define itself, each with
 * the value current before s.  Returns how many (pairs in out). */
static int renamed_outside(Ol *o, Stmt *s, size_t m, PtrVec *out)
{
	if (o->nlog == m)
		return 0;
	PtrMap seen = { 0 }, local = { 0 };
	/* t is "defined inside" when s's bodies define it (a caller-owned t is
	 * only referenced, never bound, in there) */
	{
		PtrVec d = { 0 };
		defs_block(&s->body, &d);
		defs_block(&s->orelse, &d);
		for (size_t k = 0; k < d.len; k++)
			add(&local, d.items[k]);
		vec_release(&d);
	}
	int n = 0;
	for (size_t i = m; i < o->nlog; i++) {
		Var *t = o->log[i].key;
		if (has(&seen, t))
			continue;
		add(&seen, t);
		if (has(&local, t))
			continue;
		vec_push(out, t);
		vec_push(out, o->log[i].prev ? o->log[i].prev : t);
		n++;
	}
	pmap_release(&local);
	pmap_release(&seen);
	return n;
}

static void thread_loop(Ol *o, Stmt *s, size_t m)
{
	PtrVec pairs = { 0 };
	if (!renamed_outside(o, s, m, &pairs))
		return;
	PtrMap to_ia = { 0 };
	PtrVec fin = { 0 }, rvs = { 0 };
	for (size_t i = 0; i < pairs.len; i += 2) {
		Var *t = pairs.items[i], *before = pairs.items[i + 1];
		Var *final = pmap_get(&o->renames, t);
		Var *ia = new_var(o, fresh_like(o->a, t->name, "iter", &o->vnames), t->type, VK_ITER_ARG);
		Var *rv = new_var(o, fresh_like(o->a, t->name, "rv", &o->vnames), t->type, VK_VAR);
		ia->init = ir_var_ref(o->a, before);
		pmap_put(&to_ia, before, ia);
		push_var(o, &s->iter_args, &s->niter, ia);
		s->niter--;
		push_expr(o, &s->inits, &s->niter, ir_var_ref(o->a, before));
		push_var(o, &s->rets, &s->nrets, rv);
		vec_push(&fin, final == before ? ia : final);
		vec_push(&rvs, rv);
		rename_set(o, t, rv, true);
	}
	subst_block(o, &to_ia, &s->body);
	Stmt *y = trailing_yield(o, &s->body, true);
	for (size_t i = 0; i < fin.len; i++)
		push_expr(o, &y->values, &y->nvalues, ir_var_ref(o->a, subst_v(&to_ia, fin.items[i])));
	pmap_release(&to_ia);
	vec_release(&fin);
	vec_release(&rvs);
	vec_release(&pairs);
}

/* ------------------------------------------------------------ traversal */

static void visit_stmt(Ol *o, Stmt *s);

/* Var -> index + 1 of the last statement referring to it (later ones overwrite). */
typedef struct LastCtx {
	PtrMap *last;
	void *idx;
	bool any;
} LastCtx;


static void last_cb(void *ctx, Var *v)
{
	LastCtx *c = ctx;
	if (v->mark == OL_QUERIED)
		pmap_put(c->last, v, c->idx);
}

/* The index of the last statement after idx that refers to v (what
 * ir_stmt_vars visits; a placeholder counts for nothing), or -1. */
static int last_ref(LastIndex *l, int idx, Var *v)
{
	if (!l->built) {
		LastCtx ctx = { &l->map, 0, false };
		for (int i = idx + 1; i < l->b->n; i++) {
			if (l->b->stmts[i]->placeholder)
				continue;
			ctx.idx = (void *)(uintptr_t)(i + 1);
			ir_stmt_vars(l->b->stmts[i], last_cb, &ctx);
		}
		l->built = true;
	}
	return (int)(uintptr_t)pmap_get(&l->map, v) - 1;
}

/* Whether an expression / a statement refers to any Var (ir_stmt_vars would
 * call back at least once), stopping at the first. */
static bool expr_refers(const Expr *e)
{
	if (!e)
		return false;
	switch (e->kind) {
	case EX_VAR:
		return true;
	case EX_INT: case EX_FLOAT: case EX_BOOL: case EX_STR: case EX_SYMBOL:
		return false;
	default:
		break;
	}
	if (expr_refers(e->lhs) || expr_refers(e->rhs) || expr_refers(e->attrs))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (expr_refers(e->args[i]))
			return true;
	for (int i = 0; i < e->nkw; i++)
		if (expr_refers(e->kw[i].value))
			return true;
	return false;
}

static bool stmt_refers(const Stmt *s)
{
	if (s->var || expr_refers(s->value))
		return true;
	for (int i = 0; i < s->nvalues; i++)
		if (expr_refers(s->values[i]))
			return true;
	if (ir_stmt_is_simple(s->kind))
		return false;
	if (s->niter || s->nrets || expr_refers(s->start) || expr_refers(s->stop) || expr_refers(s->step))
		return true;
	const Scope *sc = s->scope;
	if (sc && (sc->ndeps || sc->nno_dep_args || sc->ndumps || sc->tid || expr_refers(sc->core_num) ||
		   expr_refers(sc->predicate) || expr_refers(sc->count)))
		return true;
	for (int k = 0; k < 2; k++) {
		const Block *b = k ? &s->orelse : &s->body;
		for (int i = 0; i < b->n; i++)
			if (stmt_refers(b->stmts[i]))
				return true;
	}
	return false;
}

/* The definitions of every target scope body in b (those of nested target
 * scopes included), in pre-order; scopes: the outermost target scope of each. */
static void target_defs(const Block *b, ScopeKind target, PtrVec *out, PtrVec *scopes)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (ir_stmt_is_simple(s->kind))
			continue;
		if (s->kind == ST_SCOPE && s->scope->kind == target) {
			size_t from = out->len;
			defs_block(&s->body, out);
			for (size_t k = from; k < out->len; k++)
				vec_push(scopes, (void *)s);
			continue;
		}
		target_defs(&s->body, target, out, scopes);
		target_defs(&s->orelse, target, out, scopes);
	}
}

/* One walk of the function at the start of a run: every Var's name into
 * vnames (as ir_block_vars visits them), and for each Var a target scope
 * defines, how many references it has and how many of them are inside the
 * outermost target scope defining it. */
typedef struct CountCtx {
	Ol *o;
	const Stmt *scope; /* the outermost target scope being walked, or NULL */
} CountCtx;

static void count_cb(void *ctx, Var *v)
{
	CountCtx *c = ctx;
	add(&c->o->vnames, v->name);
	DefInfo *di = def_info(c->o, v);
	if (di) {
		di->total++;
		if (c->scope && di->scope == c->scope)
			di->inside++;
	}
}

static void count_refs(const Block *b, ScopeKind target, CountCtx *c)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (!c->scope && s->kind == ST_SCOPE && s->scope->kind == target) {
			c->scope = s;
			ir_stmt_vars(s, count_cb, c);
			c->scope = NULL;
			continue;
		}
		ir_stmt_header_vars(s, count_cb, c);
		if (ir_stmt_is_simple(s->kind))
			continue;
		count_refs(&s->body, target, c);
		count_refs(&s->orelse, target, c);
	}
}

static void visit_block_frames(Ol *o, Block *b)
{
	/* Without a target scope below, nothing asks what is used after a
	 * statement: only earlier outlinings' renames are applied. */
	if (o->no_target_below || !ir_find_scope(b, o->cfg->target)) {
		bool saved = o->no_target_below;
		o->no_target_below = true;
		for (int i = 0; i < b->n && !o->failed; i++)
			visit_stmt(o, b->stmts[i]);
		o->no_target_below = saved;
		return;
	}
	/* last reference index per Var (built when first asked), and whether
	 * anything is referenced after */
	LastIndex last = { .b = b };
	bool *tail = arena_alloc(o->a, (size_t)(b->n + 1) * sizeof *tail);
	for (int i = 0; i < b->n; i++)
		tail[i] = !b->stmts[i]->placeholder && stmt_refers(b->stmts[i]);
	for (int i = b->n - 1, any = 0; i >= 0; i--) {
		bool here = tail[i];
		tail[i] = any;
		any |= here;
	}
	PtrVec out = ARENA_VEC(o->a);
	for (int i = 0; i < b->n && !o->failed; i++) {
		Stmt *s = b->stmts[i];
		if (s->placeholder && i + 1 < b->n && b->stmts[i + 1]->kind == ST_SCOPE &&
		    b->stmts[i + 1]->scope->kind == o->cfg->target && b->stmts[i + 1]->scope->tid == s->var)
			continue;
		if (s->kind == ST_SCOPE && s->scope->kind == o->cfg->target) {
			UsedAfter u = { .o = o, .last = &last, .idx = i, .scope = s, .all_required = true };
			if (!tail[i] && required_empty(o)) {
				fallback(o, s, &u);
			} else if (b->n == 1) {
				PtrVec st = { 0 };
				stores_block(&s->body, &st, &u.extra);
				vec_release(&st);
			}
			outline_scope(o, s, &u, &out);
			pmap_release(&u.extra);
			continue;
		}
		Frame f = { &last, i, tail[i], o->frames };
		o->frames = &f;
		visit_stmt(o, s);
		o->frames = f.up;
		vec_push(&out, s);
	}
	b->stmts = (Stmt **)vec_finish(o->a, &out, &b->n);
	pmap_release(&last.map);
}

static void visit_block(Ol *o, Block *b) { visit_block_frames(o, b); }

static void visit_stmt(Ol *o, Stmt *s)
{
	subst_header(o, &o->renames, s);
	switch (s->kind) {
	case ST_FOR: case ST_WHILE: {
		size_t m = o->nlog;
		visit_block(o, &s->body);
		if (o->cfg->thread_carries && !o->failed)
			thread_loop(o, s, m);
		return;
	}
	case ST_IF: {
		size_t m = o->nlog;
		visit_block(o, &s->body);
		size_t m1 = o->nlog;
		if (!o->cfg->thread_carries) {
			visit_block(o, &s->orelse);
			return;
		}
		/* each arm starts from the incoming values */
		PtrVec then_vals = { 0 };
		for (size_t i = m; i < m1; i++)
			vec_push(&then_vals, pmap_get(&o->renames, o->log[i].key));
		for (size_t i = m1; i-- > m;)
			pmap_put(&o->renames, o->log[i].key, o->log[i].prev);
		visit_block(o, &s->orelse);
		PtrVec pairs = { 0 };
		renamed_outside(o, s, m, &pairs);
		for (size_t i = 0; i < pairs.len; i += 2) {
			Var *t = pairs.items[i], *before = pairs.items[i + 1];
			Var *tv = before, *ev = pmap_get(&o->renames, t);
			for (size_t k = m; k < m1; k++)
				if (o->log[k].key == t)
					tv = then_vals.items[k - m];
			if (!ev)
				ev = t;
			/* the else arm's value: before unless the else arm renamed it */
			bool else_renamed = false;
			for (size_t k = m1; k < o->nlog; k++)
				else_renamed |= o->log[k].key == t;
			if (!else_renamed)
				ev = before;
			Var *rv = new_var(o, fresh_like(o->a, t->name, "rv", &o->vnames), t->type, VK_VAR);
			push_var(o, &s->rets, &s->nrets, rv);
			Stmt *y1 = trailing_yield(o, &s->body, true);
			push_expr(o, &y1->values, &y1->nvalues, ir_var_ref(o->a, tv));
			s->has_else = true;
			Stmt *y2 = trailing_yield(o, &s->orelse, true);
			push_expr(o, &y2->values, &y2->nvalues, ir_var_ref(o->a, ev));
			rename_set(o, t, rv, true);
		}
		vec_release(&pairs);
		vec_release(&then_vals);
		return;
	}
	case ST_SCOPE: {
		bool prev = o->nested, prev_launch = o->in_launch;
		o->nested = true;
		o->in_launch |= s->scope->kind != SC_RUNTIME;
		visit_block(o, &s->body);
		o->nested = prev;
		o->in_launch = prev_launch;
		return;
	}
	default:
		return;
	}
}

/* ------------------------------------------------------------ entry */

static void param_names(void *ctx, Var *v) { add(ctx, v->name); }

int outline_function(Program *p, Function *f, const OutlineConfig *cfg, PtrMap *reserved, PtrVec *out,
		     int *count, Diag *d)
{
	*count = 0;
	if (!ir_find_scope(&f->body, cfg->target))
		return 0; /* nothing to outline, nothing renamed */
	Ol o = { .p = p, .a = p->arena, .d = d, .cfg = cfg, .fn = f, .func_name = f->name, .reserved = reserved, .out = out };
	for (int i = 0; i < f->nparams; i++)
		param_names(&o.vnames, f->params[i].var);
	PtrVec queried = { 0 }, scopes = { 0 };
	target_defs(&f->body, cfg->target, &queried, &scopes);
	pmap_reserve(&o.vnames, queried.len * 2 + 32); /* a set, never iterated */
	for (size_t i = 0; i < queried.len; i++) {
		Var *v = queried.items[i];
		v->mark = 0;
		v->aux = NULL;
	}
	o.info = arena_alloc(o.a, (queried.len + 1) * sizeof *o.info);
	o.ninfo = queried.len;
	for (size_t i = 0; i < queried.len; i++) {
		Var *v = queried.items[i];
		DefInfo *di = v->aux;
		if (!di) {
			di = &o.info[i];
			di->scope = scopes.items[i];
			v->aux = di;
			v->mark = OL_QUERIED;
		} else if (di->scope != scopes.items[i]) {
			di->scope = NULL; /* defined in two scopes: never local */
		}
	}
	CountCtx cc = { &o, NULL };
	count_refs(&f->body, cfg->target, &cc);
	visit_block(&o, &f->body);
	for (size_t i = 0; i < queried.len; i++) {
		Var *v = queried.items[i];
		v->mark = 0;
		v->aux = NULL;
	}
	vec_release(&queried);
	vec_release(&scopes);
	*count = o.count;
	pmap_release(&o.vnames);
	pmap_release(&o.fnames);
	pmap_release(&o.renames);
	pmap_release(&o.retmaps);
	free(o.log);
	return o.failed ? 1 : 0;
}

/* ------------------------------------------------------------ pass driver */

static int cmp_fn_name(const void *a, const void *b)
{
	return strcmp((*(Function *const *)a)->name, (*(Function *const *)b)->name);
}

void outline_run_begin(OutlineRun *r, Program *p, unsigned types)
{
	*r = (OutlineRun){ 0 };
	r->order = xmalloc((size_t)(p->nfuncs + 1) * sizeof *r->order);
	for (int i = 0; i < p->nfuncs; i++) {
		pmap_put(&r->reserved, p->funcs[i]->name, (void *)1);
		if (types & (1u << p->funcs[i]->type))
			r->order[r->norder++] = p->funcs[i];
	}
	qsort(r->order, (size_t)r->norder, sizeof *r->order, cmp_fn_name);
}

int outline_run_function(OutlineRun *r, Program *p, Function *f, const OutlineConfig *cfg, Diag *d)
{
	int n = 0;
	return outline_function(p, f, cfg, &r->reserved, &r->made, &n, d) ? -1 : n;
}

void outline_run_publish(OutlineRun *r, Program *p)
{
	size_t n = r->made.len - r->published;
	if (!n)
		return;
	size_t need = (size_t)p->nfuncs + n;
	if (p->funcs != r->funcs || need > r->fcap) {
		/* room to grow: outline-cluster publishes after every function */
		size_t cap = need * 2;
		Function **fs = arena_alloc(p->arena, cap * sizeof *fs);
		memcpy(fs, p->funcs, (size_t)p->nfuncs * sizeof *fs);
		r->funcs = fs;
		r->fcap = cap;
	}
	memcpy(r->funcs + p->nfuncs, r->made.items + r->published, n * sizeof *r->funcs);
	p->funcs = r->funcs;
	p->nfuncs += (int)n;
	r->published = r->made.len;
}

int outline_run_end(OutlineRun *r, Program *p, int rc)
{
	if (!rc)
		outline_run_publish(r, p);
	free(r->order);
	vec_release(&r->made);
	pmap_release(&r->reserved);
	return rc;
}
