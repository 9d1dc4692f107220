/* convert_to_ssa.c - the reference's ConvertToSSA (passes.md §2).
 *
 * Every function is rewritten so that each variable is defined once:
 * assignment targets become versions `x__ssa_vN`, values carried around a
 * loop become iter args / return vars (`x__iter_vN`, `x__rv_vN`, threaded
 * through init_values and pl.yield_), if/else merges become phis
 * (`x__phi_vN`), loop variables `i__idx_vN`.  Version numbers are per source
 * variable and are allocated in exactly the reference's order, because they
 * are visible in the output.
 *
 * `cur` maps each source Var to its current version.  It is a hash map with
 * an undo log, so "remember the map before a loop, restore it after" costs
 * only what the loop changed.  Requires: nothing.  Produces: SSA form.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/ir_walk.h"
#include "ptoopt/outline.h"
#include "ptoopt/passes.h"
#include "ptoopt/types.h"

typedef struct Undo {
	Var *key;
	Var *prev;
} Undo;

typedef struct Ssa {
	Program *prog;
	Function *fn;
	Arena *a;
	Diag *d;
	const Stmt *unroll_carry; /* the first pl.unroll loop found to need iter args */
	Var *unroll_var;          /* one variable it would carry */
	VarTab cur;        /* source Var -> current version */
	Undo *log;
	size_t nlog, clog;
	VarTab ver;        /* source Var -> Seed */
	PtrMap *future;    /* the reference's future_needs (a set: Var -> non-NULL) */
	PtrMap empty;
	PtrMap sets;       /* compound Stmt -> StmtSets, for the function being converted */
} Ssa;

/* The (base, qualifier) a source Var's versions are named from. */
/* Per source Var: the (base, qualifier) its versions are named from and
 * the next version number, parsed once instead of per version. */
typedef struct Seed {
	const char *base, *qual;
	size_t blen, qlen;
	int next;
} Seed;

static Seed *seed(Ssa *s, Var *k)
{
	Seed *sd = vtab_get(&s->ver, k);
	if (sd)
		return sd;
	sd = arena_alloc(s->a, sizeof *sd);
	AutoName an = autoname_parse(s->a, k->name);
	if (an.has_delim && (*an.role || an.version >= 0)) {
		sd->base = an.base;
		sd->qual = an.qualifier;
	} else {
		sd->base = k->name; /* a bare "__" in the name was rejected by validate() */
		sd->qual = "";
	}
	sd->blen = strlen(sd->base);
	sd->qlen = strlen(sd->qual);
	vtab_put(&s->ver, k, sd);
	return sd;
}

/* autoname_build(base, qual, role, n) for a role and a version, both
 * present: base__[qual_]role_vN. */
static const char *version_name(Ssa *s, const Seed *sd, const char *role, int n)
{
	size_t rlen = strlen(role);
	size_t total = sd->blen + 2 + sd->qlen + 1 + rlen + 2 + 10;
	char small[256];
	char *buf = total < sizeof small ? small : arena_alloc(s->a, total + 1);
	char *w = buf;
	memcpy(w, sd->base, sd->blen);
	w += sd->blen;
	*w++ = '_';
	*w++ = '_';
	if (sd->qlen) {
		memcpy(w, sd->qual, sd->qlen);
		w += sd->qlen;
		*w++ = '_';
	}
	memcpy(w, role, rlen);
	w += rlen;
	*w++ = '_';
	*w++ = 'v';
	char digits[12];
	int nd = 0;
	unsigned u = (unsigned)n;
	do
		digits[nd++] = (char)('0' + u % 10);
	while ((u /= 10) && nd < (int)sizeof digits);
	while (nd)
		*w++ = digits[--nd];
	return intern(s->a, buf, (size_t)(w - buf));
}

static Var *new_version(Ssa *s, Var *k, const char *role, Type *t, VarKind kind)
{
	Seed *sd = seed(s, k);
	int n = sd->next++;
	Var *v = ir_var_new(s->prog, version_name(s, sd, role, n), t, kind);
	v->pos = k->pos;
	return v;
}

/* ------------------------------------------------------------ the current map */

static Var *cur_get(Ssa *s, Var *k) { return vtab_get(&s->cur, k); }

static void cur_set(Ssa *s, Var *k, Var *v)
{
	if (s->nlog == s->clog) {
		s->clog = s->clog ? s->clog * 2 : 256;
		s->log = xrealloc(s->log, s->clog * sizeof *s->log);
	}
	s->log[s->nlog++] = (Undo){ k, cur_get(s, k) };
	vtab_put(&s->cur, k, v);
}

static void cur_undo(Ssa *s, size_t mark)
{
	while (s->nlog > mark) {
		Undo u = s->log[--s->nlog];
		vtab_put(&s->cur, u.key, u.prev);
	}
}

/* ------------------------------------------------------------ substitution */

static Var *subst_var(Ssa *s, Var *v)
{
	Var *n = cur_get(s, v);
	return n ? n : v;
}

/* Uses renamed through cur, the types of the nodes too; of a MemRef only a
 * pinned one's slot index follows the renaming (the reference's
 * RemapPinnedMemRefExprs): a resolved one keeps its base and offset, so a
 * renamed base prints by its old name. */
static Type *subst_type_cb(void *ctx, Type *t);

static IrSubst ssa_subst(Ssa *s)
{
	return (IrSubst){ .a = s->a, .vartab = &s->cur, .type = subst_type_cb, .ctx = s, .memref_pinned_only = true };
}

static Type *subst_type(Ssa *s, Type *t)
{
	IrSubst sb = ssa_subst(s);
	return ir_type_subst(&sb, t);
}

static Type *subst_type_cb(void *ctx, Type *t) { return subst_type(ctx, t); }

static Expr *subst(Ssa *s, Expr *e)
{
	IrSubst sb = ssa_subst(s);
	return ir_expr_subst(&sb, e);
}

static Expr **subst_list(Ssa *s, Expr **xs, int n)
{
	if (!n)
		return xs;
	Expr **out = arena_alloc(s->a, (size_t)n * sizeof *out);
	for (int i = 0; i < n; i++)
		out[i] = subst(s, xs[i]);
	return out;
}

static Var **subst_vars(Ssa *s, Var **vs, int n)
{
	if (!n)
		return vs;
	Var **out = arena_alloc(s->a, (size_t)n * sizeof *out);
	for (int i = 0; i < n; i++)
		out[i] = subst_var(s, vs[i]);
	return out;
}

/* ------------------------------------------------------------ var sets */

/* A set is a PtrMap whose present members map to a non-NULL value. */
static bool set_has(const PtrMap *m, const Var *v) { return pmap_get(m, v) != NULL; }
static void set_add(PtrMap *m, Var *v) { pmap_put(m, v, v); }

static void set_del(PtrMap *m, Var *v)
{
	if (set_has(m, v))
		pmap_put(m, v, NULL);
}

/* Uses: every Var reached in e, with the dimension Vars of a Var's type and
 * an iter arg's init value (the reference's generic visitor does this). */
static void uses_type(PtrMap *out, const Type *t);

static void uses_expr(PtrMap *out, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_VAR) {
		Var *v = e->var;
		if (set_has(out, v))
			return;
		set_add(out, v);
		uses_type(out, v->type);
		if (v->kind == VK_ITER_ARG)
			uses_expr(out, v->init);
		return;
	}
	uses_expr(out, e->lhs);
	uses_expr(out, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		uses_expr(out, e->args[i]);
	for (int i = 0; i < e->nkw; i++)
		uses_expr(out, e->kw[i].value);
	uses_expr(out, e->attrs);
}

static void uses_type(PtrMap *out, const Type *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->ndim; i++)
		uses_expr(out, t->shape[i]);
	for (int i = 0; i < t->nelems; i++)
		uses_type(out, t->elems[i]);
}

/* What liveness needs of a compound statement, each part computed once per
 * statement and kept while the function is converted (a block's analysis
 * would otherwise walk every nested body again at each level): its
 * upward-exposed uses (passes.md 2.5), the assignment targets in its
 * bodies, and whether it is or holds a loop.  Keyed by the statement node,
 * which stays unconverted until after every question about it was asked. */
typedef struct StmtSets {
	Var **live;
	int nlive;
	Var **defs;
	int ndefs;
	bool has_live, has_defs, has_loop_known, has_loop;
} StmtSets;

static StmtSets *stmt_sets(Ssa *s, const Stmt *key)
{
	StmtSets *ss = pmap_get(&s->sets, key);
	if (!ss) {
		ss = arena_alloc(s->a, sizeof *ss);
		pmap_put(&s->sets, key, ss);
	}
	return ss;
}

static Var **set_members(Arena *a, const PtrMap *set, int *n)
{
	Var **out = arena_alloc(a, (set->len + 1) * sizeof *out);
	int k = 0;
	for (size_t i = 0; i < set->cap; i++)
		if (set->keys[i] && set->vals[i])
			out[k++] = set->vals[i];
	*n = k;
	return out;
}

/* The assignment targets in the bodies of a compound statement (key: its
 * node, st: its fields). */
static const StmtSets *stmt_defs(Ssa *s, const Stmt *key, const Stmt *st)
{
	StmtSets *ss = stmt_sets(s, key);
	if (ss->has_defs)
		return ss;
	PtrMap set = { 0 };
	for (int k = 0; k < 2; k++) {
		const Block *b = k ? &st->orelse : &st->body;
		for (int i = 0; i < b->n; i++) {
			const Stmt *c = b->stmts[i];
			if (c->kind == ST_ASSIGN)
				set_add(&set, c->var);
			if (ir_stmt_is_simple(c->kind))
				continue;
			const StmtSets *cs = stmt_defs(s, c, c);
			for (int j = 0; j < cs->ndefs; j++)
				set_add(&set, cs->defs[j]);
		}
	}
	ss = stmt_sets(s, key); /* the map may have grown */
	ss->defs = set_members(s->a, &set, &ss->ndefs);
	ss->has_defs = true;
	pmap_release(&set);
	return ss;
}

/* The assignment targets of st and its bodies into out. */
static void assign_defs_stmt(Ssa *s, PtrMap *out, const Stmt *st)
{
	if (st->kind == ST_ASSIGN) {
		set_add(out, st->var);
		return;
	}
	if (ir_stmt_is_simple(st->kind))
		return;
	const StmtSets *ss = stmt_defs(s, st, st);
	for (int i = 0; i < ss->ndefs; i++)
		set_add(out, ss->defs[i]);
}

static const StmtSets *stmt_live(Ssa *s, const Stmt *st);

/* Upward-exposed uses of one statement (passes.md 2.5). */
static void live_in(Ssa *s, PtrMap *out, const Stmt *st)
{
	switch (st->kind) {
	case ST_ASSIGN: case ST_EVAL:
		uses_expr(out, st->value);
		return;
	case ST_RETURN: case ST_YIELD:
		for (int i = 0; i < st->nvalues; i++)
			uses_expr(out, st->values[i]);
		return;
	case ST_FOR: case ST_WHILE: case ST_IF: case ST_SCOPE: {
		const StmtSets *ss = stmt_live(s, st);
		for (int i = 0; i < ss->nlive; i++)
			set_add(out, ss->live[i]);
		return;
	}
	default:
		return;
	}
}

static void live_in_block(Ssa *s, PtrMap *out, const Block *b)
{
	PtrMap defs = { 0 };
	PtrMap li = { 0 };
	for (int i = 0; i < b->n; i++) {
		const Stmt *st = b->stmts[i];
		if (ir_stmt_is_simple(st->kind)) {
			live_in(s, &li, st);
			for (size_t j = 0; j < li.cap; j++)
				if (li.keys[j] && li.vals[j] && !set_has(&defs, li.vals[j]))
					set_add(out, li.vals[j]);
			if (li.cap > 64)
				pmap_release(&li); /* clearing a big table per statement would not be linear */
			else
				pmap_clear(&li);
		} else {
			const StmtSets *ss = stmt_live(s, st);
			for (int j = 0; j < ss->nlive; j++)
				if (!set_has(&defs, ss->live[j]))
					set_add(out, ss->live[j]);
		}
		assign_defs_stmt(s, &defs, st);
	}
	pmap_release(&li);
	pmap_release(&defs);
}

/* The upward-exposed uses of a compound statement. */
static const StmtSets *stmt_live(Ssa *s, const Stmt *st)
{
	StmtSets *ss = stmt_sets(s, st);
	if (ss->has_live)
		return ss;
	PtrMap out = { 0 };
	switch (st->kind) {
	case ST_FOR: case ST_WHILE: {
		uses_expr(&out, st->start);
		uses_expr(&out, st->stop);
		uses_expr(&out, st->step);
		if (st->kind == ST_WHILE)
			uses_expr(&out, st->value);
		for (int i = 0; i < st->niter; i++)
			uses_expr(&out, st->inits[i]);
		PtrMap body = { 0 };
		live_in_block(s, &body, &st->body);
		if (st->var)
			set_del(&body, st->var);
		for (int i = 0; i < st->niter; i++)
			set_del(&body, st->iter_args[i]);
		for (size_t i = 0; i < body.cap; i++)
			if (body.keys[i] && body.vals[i])
				set_add(&out, body.vals[i]);
		pmap_release(&body);
		break;
	}
	case ST_IF:
		uses_expr(&out, st->value);
		live_in_block(s, &out, &st->body);
		live_in_block(s, &out, &st->orelse);
		break;
	case ST_SCOPE:
		live_in_block(s, &out, &st->body);
		if (st->scope->kind == SC_SPMD)
			uses_expr(&out, st->scope->core_num);
		break;
	default:
		break;
	}
	ss = stmt_sets(s, st); /* the map may have grown */
	ss->live = set_members(s->a, &out, &ss->nlive);
	ss->has_live = true;
	pmap_release(&out);
	return ss;
}

/* Whether st is a loop or holds one. */
static bool stmt_has_loop(Ssa *s, const Stmt *st)
{
	if (st->kind == ST_FOR || st->kind == ST_WHILE)
		return true;
	if (ir_stmt_is_simple(st->kind))
		return false;
	StmtSets *ss = stmt_sets(s, st);
	if (ss->has_loop_known)
		return ss->has_loop;
	bool loop = false;
	for (int k = 0; k < 2 && !loop; k++) {
		const Block *b = k ? &st->orelse : &st->body;
		for (int i = 0; i < b->n && !loop; i++)
			loop = stmt_has_loop(s, b->stmts[i]);
	}
	ss = stmt_sets(s, st);
	ss->has_loop_known = true;
	ss->has_loop = loop;
	return loop;
}

static void set_copy(PtrMap *dst, const PtrMap *src)
{
	for (size_t i = 0; i < src->cap; i++)
		if (src->keys[i] && src->vals[i])
			pmap_put(dst, src->keys[i], src->vals[i]);
}

/* ------------------------------------------------------------ statements */

static Block convert_block(Ssa *s, const Block *b);

static bool is_shaped(const Type *t)
{
	return t && (t->kind == TY_TENSOR || t->kind == TY_TILE || t->kind == TY_DIST_TENSOR || t->kind == TY_TUPLE);
}

/* The type a new version of an assignment target gets: the value's type
 * when the value is a variable or has a tensor / tile / tuple type, else the
 * target's declared type. */
static Type *authoritative_type(Arena *a, const Stmt *st)
{
	Type *vt = ir_expr_type(st->value);
	Type *lt = st->var->type;
	if (!vt || vt->kind == TY_UNKNOWN || !(st->value->kind == EX_VAR || is_shaped(vt)))
		return lt;
	/* a value never carries a memref the target has: it is additional,
	 * not overridden (an author's declaration, a re-read dump) */
	if (!vt->memref && lt && lt->memref && lt->kind == vt->kind) {
		Type *n = arena_alloc(a, sizeof *n);
		*n = *vt;
		n->memref = lt->memref;
		return n;
	}
	return vt;
}

static int cmp_var_by_name(const void *a, const void *b)
{
	const Var *x = *(Var *const *)a, *y = *(Var *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static Var **sorted_members(Ssa *s, const PtrMap *set, int *n)
{
	PtrVec v = ARENA_VEC(s->a);
	for (size_t i = 0; i < set->cap; i++)
		if (set->keys[i] && set->vals[i])
			vec_push(&v, set->vals[i]);
	if (v.len > 1)
		qsort(v.items, v.len, sizeof *v.items, cmp_var_by_name);
	return (Var **)vec_finish(s->a, &v, n);
}

/* The trailing yield of a body, looking through a trailing pl.scope() /
 * split_aiv wrapper; *owner is the block that holds it. */
static Stmt **trailing_yield_slot(Block *b, Block **owner)
{
	for (;;) {
		if (b->n == 0)
			return NULL;
		Stmt *last = b->stmts[b->n - 1];
		if (last->kind == ST_YIELD) {
			*owner = b;
			return &b->stmts[b->n - 1];
		}
		if (last->kind == ST_SCOPE && (last->scope->kind == SC_RUNTIME || last->scope->kind == SC_SPLIT_AIV)) {
			b = &last->body;
			continue;
		}
		return NULL;
	}
}

static void block_append(Ssa *s, Block *b, Stmt *st)
{
	Stmt **n = arena_alloc(s->a, (size_t)(b->n + 1) * sizeof *n);
	if (b->n)
		memcpy(n, b->stmts, (size_t)b->n * sizeof *n);
	n[b->n++] = st;
	b->stmts = n;
}

static Stmt *make_yield(Ssa *s, Expr **values, int n, SrcPos pos)
{
	Stmt *y = ir_stmt_new(s->a, ST_YIELD, pos);
	y->values = values;
	y->nvalues = n;
	return y;
}

/* Replace the trailing yield's values with prefix ++ extra (or append a
 * yield when there is none and the list is not empty). */
static void set_yield(Ssa *s, Block *body, Expr **extra, int nextra, bool keep_existing, SrcPos pos)
{
	Block *owner = NULL;
	Stmt **slot = trailing_yield_slot(body, &owner);
	int nold = slot && keep_existing ? (*slot)->nvalues : 0;
	int n = nold + nextra;
	if (n == 0 && !slot)
		return;
	Expr **vals = arena_alloc(s->a, (size_t)(n + 1) * sizeof *vals);
	for (int i = 0; i < nold; i++)
		vals[i] = (*slot)->values[i];
	for (int i = 0; i < nextra; i++)
		vals[nold + i] = extra[i];
	if (slot) {
		Stmt *y = ir_stmt_copy(s->a, *slot);
		y->values = vals;
		y->nvalues = n;
		*slot = y;
	} else {
		/* A body that is a single pl.scope() / split_aiv wrapper (no
		 * SeqStmts around it) gets the new yield inside the wrapper, as the
		 * reference appends to the wrapper's body; a longer body gets it
		 * last in the body itself. */
		while (body->n == 1 && body->stmts[0]->kind == ST_SCOPE &&
		       (body->stmts[0]->scope->kind == SC_RUNTIME || body->stmts[0]->scope->kind == SC_SPLIT_AIV))
			body = &body->stmts[0]->body;
		block_append(s, body, make_yield(s, vals, n, pos));
	}
}

/* Type of the last assignment to k inside b (pre-order), NULL if none. */
static Type *last_assign_type(Arena *a, const Block *b, const Var *k)
{
	Type *t = NULL;
	for (int i = 0; i < b->n; i++) {
		const Stmt *st = b->stmts[i];
		if (st->kind == ST_ASSIGN && st->var == k)
			t = authoritative_type(a, st);
		if (ir_stmt_is_simple(st->kind))
			continue;
		Type *in = last_assign_type(a, &st->body, k);
		if (in)
			t = in;
		in = last_assign_type(a, &st->orelse, k);
		if (in)
			t = in;
	}
	return t;
}

/* Init value of a variable first defined inside a loop and used after it
 * (passes.md §2.6; types compared structurally). */
static Expr *find_init_value(Ssa *s, Var *k, Type *t)
{
	Function *f = s->fn;
	for (int i = 0; i < f->nparams; i++) {
		if (f->params[i].dir == DIR_IN)
			continue;
		Var *v = cur_get(s, f->params[i].var);
		if (v && type_equal(v->type, t))
			return ir_var_ref(s->a, v);
	}
	Var *best = NULL;
	for (size_t i = 0; i < s->cur.nids; i++) {
		Var *v = s->cur.vals[s->cur.ids[i]];
		if (v && type_equal(v->type, t) && (!best || v->id < best->id))
			best = v;
	}
	if (best)
		return ir_var_ref(s->a, best);
	Var *ph = ir_var_new(s->prog, k->name, t, VK_VAR); /* defined nowhere: prints NAME__FREE_VAR */
	ph->pos = k->pos;
	return ir_var_ref(s->a, ph);
}

static Stmt *convert_loop(Ssa *s, Stmt *n, const Stmt *st)
{
	bool is_for = st->kind == ST_FOR;
	PtrMap *saved_needs = s->future;
	n->start = subst(s, st->start);
	n->stop = subst(s, st->stop);
	n->step = subst(s, st->step);
	n->stage = subst(s, st->stage);
	n->attrs = subst(s, st->attrs);
	size_t before = s->nlog;

	/* existing iter args keep their names */
	int n0 = st->niter;
	Var **old_iters = st->iter_args;
	Var **new_iters0 = arena_alloc(s->a, (size_t)(n0 + 1) * sizeof *new_iters0);
	Expr **inits0 = arena_alloc(s->a, (size_t)(n0 + 1) * sizeof *inits0);
	for (int i = 0; i < n0; i++) {
		Var *v = ir_var_new(s->prog, old_iters[i]->name, subst_type(s, old_iters[i]->type), VK_ITER_ARG);
		v->pos = old_iters[i]->pos;
		inits0[i] = subst(s, st->inits[i]);
		v->init = inits0[i];
		new_iters0[i] = v;
	}

	PtrMap assigned = { 0 };
	{
		const StmtSets *ss = stmt_defs(s, n, st); /* n: the unconverted node's key */
		for (int i = 0; i < ss->ndefs; i++)
			set_add(&assigned, ss->defs[i]);
	}
	if (st->var)
		set_del(&assigned, st->var);
	for (int i = 0; i < n0; i++)
		set_del(&assigned, old_iters[i]);
	PtrMap carried_set = { 0 }, escaping_set = { 0 };
	for (size_t i = 0; i < assigned.cap; i++) {
		Var *k = assigned.keys[i] ? assigned.vals[i] : NULL;
		if (!k)
			continue;
		if (cur_get(s, k))
			set_add(&carried_set, k);
		else if (saved_needs && set_has(saved_needs, k))
			set_add(&escaping_set, k);
	}
	pmap_release(&assigned);
	int nc, ne;
	Var **carried = sorted_members(s, &carried_set, &nc);
	Var **escaping = sorted_members(s, &escaping_set, &ne);
	pmap_release(&carried_set);
	pmap_release(&escaping_set);
	int nk = nc + ne;
	if (is_for && st->for_kind == FOR_UNROLL && nk && !s->unroll_carry) {
		s->unroll_carry = n; /* an error, once the function is done (st is a copy on the stack) */
		s->unroll_var = nc ? carried[0] : escaping[0];
	}
	Var **keys = arena_alloc(s->a, (size_t)(nk + 1) * sizeof *keys);
	for (int i = 0; i < nc; i++)
		keys[i] = carried[i];
	for (int i = 0; i < ne; i++)
		keys[nc + i] = escaping[i];
	Var **iters = arena_alloc(s->a, (size_t)(nk + 1) * sizeof *iters);
	Var **rvs = arena_alloc(s->a, (size_t)(nk + 1) * sizeof *rvs);
	Expr **inits = arena_alloc(s->a, (size_t)(nk + 1) * sizeof *inits);
	for (int i = 0; i < nk; i++) {
		Var *k = keys[i];
		Type *t;
		if (i < nc) {
			Var *b = cur_get(s, k);
			t = b->type;
			inits[i] = ir_var_ref(s->a, b);
		} else {
			t = subst_type(s, last_assign_type(s->a, &st->body, k));
			inits[i] = find_init_value(s, k, t);
		}
		iters[i] = new_version(s, k, "iter", t, VK_ITER_ARG);
		iters[i]->init = inits[i];
		rvs[i] = new_version(s, k, "rv", t, VK_VAR);
	}
	if (is_for) {
		n->var = new_version(s, st->var, "idx", subst_type(s, st->var->type), VK_VAR);
	}
	for (int i = 0; i < n0; i++) {
		cur_set(s, old_iters[i], new_iters0[i]);
		cur_set(s, new_iters0[i], new_iters0[i]);
	}
	for (int i = 0; i < nk; i++)
		cur_set(s, keys[i], iters[i]);
	if (is_for)
		cur_set(s, st->var, n->var);
	else
		n->value = subst(s, st->value);

	n->body = convert_block(s, &st->body);
	Expr **after = arena_alloc(s->a, (size_t)(nk + 1) * sizeof *after);
	for (int i = 0; i < nk; i++)
		after[i] = ir_var_ref(s->a, cur_get(s, keys[i]));
	cur_undo(s, before);
	for (int i = 0; i < nk; i++)
		cur_set(s, keys[i], rvs[i]);
	/* existing return vars keep their names */
	int nr0 = st->nrets;
	Var **rets0 = arena_alloc(s->a, (size_t)(nr0 + 1) * sizeof *rets0);
	for (int i = 0; i < nr0; i++) {
		rets0[i] = ir_var_new(s->prog, st->rets[i]->name, subst_type(s, st->rets[i]->type), VK_VAR);
		rets0[i]->pos = st->rets[i]->pos;
		cur_set(s, st->rets[i], rets0[i]);
		if (i < n0)
			cur_set(s, old_iters[i], rets0[i]);
	}
	n->niter = n0 + nk;
	n->iter_args = arena_alloc(s->a, (size_t)(n->niter + 1) * sizeof *n->iter_args);
	n->inits = arena_alloc(s->a, (size_t)(n->niter + 1) * sizeof *n->inits);
	for (int i = 0; i < n0; i++) {
		n->iter_args[i] = new_iters0[i];
		n->inits[i] = inits0[i];
	}
	for (int i = 0; i < nk; i++) {
		n->iter_args[n0 + i] = iters[i];
		n->inits[n0 + i] = inits[i];
	}
	n->nrets = nr0 + nk;
	n->rets = arena_alloc(s->a, (size_t)(n->nrets + 1) * sizeof *n->rets);
	for (int i = 0; i < nr0; i++)
		n->rets[i] = rets0[i];
	for (int i = 0; i < nk; i++)
		n->rets[nr0 + i] = rvs[i];
	set_yield(s, &n->body, after, nk, true, st->pos);
	if (!is_for)
		n->while_ssa = n->niter > 0;
	(void)saved_needs;
	return n;
}

typedef struct Change {
	Var *key;
	Var *before; /* value before the branch (NULL: not defined before) */
	Var *after;  /* value at the end of the branch */
} Change;

/* Net changes the log recorded since mark (first occurrence keeps the
 * value before, the map gives the value after). */
static Change *branch_changes(Ssa *s, size_t mark, int *n, PtrMap *index)
{
	PtrVec v = ARENA_VEC(s->a);
	for (size_t i = mark; i < s->nlog; i++) {
		Var *k = s->log[i].key;
		if (pmap_get(index, k))
			continue;
		Change *c = arena_alloc(s->a, sizeof *c);
		c->key = k;
		c->before = s->log[i].prev;
		c->after = cur_get(s, k);
		pmap_put(index, k, c);
		vec_push(&v, c);
	}
	int cnt;
	Change **cs = (Change **)vec_finish(s->a, &v, &cnt);
	Change *out = arena_alloc(s->a, (size_t)(cnt + 1) * sizeof *out);
	for (int i = 0; i < cnt; i++)
		out[i] = *cs[i];
	*n = cnt;
	return out;
}

static Stmt *convert_if(Ssa *s, Stmt *n, const Stmt *st)
{
	n->value = subst(s, st->value);
	size_t mark = s->nlog;
	n->body = convert_block(s, &st->body);
	PtrMap then_idx = { 0 }, else_idx = { 0 };
	int nt, ne = 0;
	Change *tc = branch_changes(s, mark, &nt, &then_idx);
	cur_undo(s, mark);
	Change *ec = NULL;
	if (st->has_else) {
		n->orelse = convert_block(s, &st->orelse);
		ec = branch_changes(s, mark, &ne, &else_idx);
		cur_undo(s, mark);
	}
	/* phis: variables defined before and changed in a branch, and new
	 * variables defined in both branches */
	PtrMap phi_set = { 0 };
	for (int i = 0; i < nt; i++)
		if (tc[i].before || pmap_get(&else_idx, tc[i].key))
			set_add(&phi_set, tc[i].key);
	for (int i = 0; i < ne; i++)
		if (ec[i].before)
			set_add(&phi_set, ec[i].key);
	int np;
	Var **phis = sorted_members(s, &phi_set, &np);
	pmap_release(&phi_set);

	if (np == 0 && st->nrets == 0) {
		pmap_release(&then_idx);
		pmap_release(&else_idx);
		return n;
	}
	Expr **tv = arena_alloc(s->a, (size_t)(np + 1) * sizeof *tv);
	Expr **ev = arena_alloc(s->a, (size_t)(np + 1) * sizeof *ev);
	Var **phi_vars = arena_alloc(s->a, (size_t)(np + 1) * sizeof *phi_vars);
	for (int i = 0; i < np; i++) {
		Var *k = phis[i];
		Change *t = pmap_get(&then_idx, k), *e = pmap_get(&else_idx, k);
		Var *tvar = t ? t->after : cur_get(s, k);
		Var *evar = e ? e->after : cur_get(s, k);
		tv[i] = ir_var_ref(s->a, tvar);
		ev[i] = ir_var_ref(s->a, evar);
		phi_vars[i] = new_version(s, k, "phi", tvar->type, VK_VAR);
	}
	pmap_release(&then_idx);
	pmap_release(&else_idx);
	for (int i = 0; i < np; i++)
		cur_set(s, phis[i], phi_vars[i]);
	/* explicit `x = pl.yield_(...)` return vars are renamed x__rv_vN */
	int nr0 = st->nrets;
	n->nrets = nr0 + np;
	n->rets = arena_alloc(s->a, (size_t)(n->nrets + 1) * sizeof *n->rets);
	for (int i = 0; i < nr0; i++) {
		Var *r = st->rets[i];
		n->rets[i] = new_version(s, r, "rv", subst_type(s, r->type), VK_VAR);
		cur_set(s, r, n->rets[i]);
	}
	for (int i = 0; i < np; i++)
		n->rets[nr0 + i] = phi_vars[i];
	if (np) {
		set_yield(s, &n->body, tv, np, true, st->pos);
		if (!n->has_else) {
			n->has_else = true;
			n->orelse.n = 0;
			n->orelse.stmts = NULL;
		}
		set_yield(s, &n->orelse, ev, np, true, st->pos);
	}
	return n;
}

static Stmt *convert_scope(Ssa *s, Stmt *n, const Stmt *st)
{
	Scope *sc = n->scope; /* rewritten in place, each field from its old value */
	/* attrs name the versions visible at scope entry */
	sc->deps = subst_vars(s, sc->deps, sc->ndeps);
	sc->no_dep_args = subst_vars(s, sc->no_dep_args, sc->nno_dep_args);
	sc->dumps = subst_vars(s, sc->dumps, sc->ndumps);
	if (sc->tid)
		sc->tid = subst_var(s, sc->tid);
	sc->predicate = subst(s, sc->predicate);
	sc->core_num = subst(s, sc->core_num);
	sc->count = subst(s, sc->count);
	sc->slot_num = subst(s, sc->slot_num);
	bool boundary = sc->kind != SC_RUNTIME && sc->kind != SC_SPLIT_AIV;
	PtrMap *saved = s->future;
	PtrMap restricted = { 0 };
	if (boundary && saved) {
		/* an outlining boundary: later uses of scope-local names do not count */
		for (size_t i = 0; i < saved->cap; i++)
			if (saved->keys[i] && saved->vals[i] && cur_get(s, saved->vals[i]))
				set_add(&restricted, saved->vals[i]);
		s->future = &restricted;
	}
	n->body = convert_block(s, &st->body);
	s->future = saved;
	pmap_release(&restricted);
	if (sc->aiv_var)
		sc->aiv_var = subst_var(s, sc->aiv_var);
	return n;
}

/* Statements are rewritten in place: the function's old body is dropped
 * anyway, and copying every node doubled the pass's memory.  A simple
 * statement rewrites each field from its own old value; the compound
 * converters read the old fields from the snapshot `st` and write the node
 * `n`, so no field is read after it was rewritten.  (Only a compound node is
 * snapshotted whole: a simple one has no fields past STMT_SIMPLE_SIZE.) */
static Stmt *convert_stmt(Ssa *s, Stmt *n)
{
	switch (n->kind) {
	case ST_ASSIGN: {
		Var *target = n->var;
		n->value = subst(s, n->value);
		Type *t = subst_type(s, authoritative_type(s->a, n)); /* n->var is still the old target */
		n->var = new_version(s, target, "ssa", t, VK_VAR);
		cur_set(s, target, n->var);
		return n;
	}
	case ST_EVAL:
		n->value = subst(s, n->value);
		return n;
	case ST_RETURN: case ST_YIELD:
		n->values = subst_list(s, n->values, n->nvalues);
		return n;
	case ST_BREAK: case ST_CONTINUE:
		return n;
	default:
		break;
	}
	const Stmt old = *n, *st = &old;
	switch (st->kind) {
	case ST_FOR: case ST_WHILE:
		return convert_loop(s, n, st);
	case ST_IF:
		return convert_if(s, n, st);
	case ST_SCOPE:
		return convert_scope(s, n, st);
	default:
		return n;
	}
}

/* A body of two or more statements is a sequence: each child sees as
 * future needs what the following siblings read before redefining. */
static Block convert_block(Ssa *s, const Block *b)
{
	Block out = { b->stmts, b->n }; /* the statements are converted in place */
	if (b->n == 0)
		return out;
	if (b->n == 1) {
		out.stmts[0] = convert_stmt(s, b->stmts[0]);
		return out;
	}
	/* needs[i+1] for the children that contain a loop (only they read it:
	 * nothing before the first of them needs to be analysed) */
	PtrMap **needs = arena_alloc(s->a, (size_t)b->n * sizeof *needs);
	int first = 0;
	while (first < b->n && !stmt_has_loop(s, b->stmts[first]))
		first++;
	PtrMap run = { 0 };
	for (int j = b->n - 1; j >= first; j--) {
		const Stmt *st = b->stmts[j];
		if (stmt_has_loop(s, st)) {
			needs[j] = arena_alloc(s->a, sizeof(PtrMap));
			set_copy(needs[j], &run);
		}
		if (j == first)
			break;
		if (st->kind == ST_ASSIGN) {
			set_del(&run, st->var);
		} else if (!ir_stmt_is_simple(st->kind)) {
			const StmtSets *ss = stmt_defs(s, st, st);
			for (int i = 0; i < ss->ndefs; i++)
				set_del(&run, ss->defs[i]);
		}
		live_in(s, &run, st);
	}
	pmap_release(&run);
	PtrMap *saved = s->future;
	for (int i = 0; i < b->n; i++) {
		s->future = needs[i] ? needs[i] : &s->empty;
		out.stmts[i] = convert_stmt(s, b->stmts[i]);
	}
	s->future = saved;
	for (int i = 0; i < b->n; i++)
		if (needs[i])
			pmap_release(needs[i]);
	return out;
}

/* The reference stops at these while converting; checking first keeps the
 * conversion itself free of error paths. */
static bool name_ok(Ssa *s, const Var *v)
{
	AutoName an = autoname_parse(s->a, v->name);
	if (an.has_delim && !*an.role && an.version < 0) {
		diag_error(s->d, v->pos.line, v->pos.col,
			   "convert-to-ssa: IR auto-name base cannot contain reserved delimiter '__': %s", v->name);
		return false;
	}
	return true;
}

static bool validate_block(Ssa *s, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *st = b->stmts[i];
		if (st->kind == ST_YIELD && i + 1 < b->n && b->n > 1) {
			diag_error(s->d, st->pos.line, st->pos.col,
				   "convert-to-ssa: body has a YieldStmt at position %d of %d; YieldStmt must be the trailing statement of its scope",
				   i, b->n);
			return false;
		}
		if (st->kind == ST_ASSIGN && !name_ok(s, st->var))
			return false;
		if (ir_stmt_is_simple(st->kind))
			continue;
		if (st->kind == ST_FOR && st->var && !name_ok(s, st->var))
			return false;
		if (st->kind == ST_IF)
			for (int j = 0; j < st->nrets; j++)
				if (!name_ok(s, st->rets[j]))
					return false;
		if (st->kind == ST_IF && st->nrets && !st->orelse.n) {
			/* the user's yields in a then-branch alone: the reference
			 * converts them and its SSA verifier then refuses the result */
			diag_error(s->d, st->pos.line, st->pos.col,
				   "Post-verification failed after pass 'ConvertToSSA': SSAVerify: IfStmt with return_vars must have else branch in function '%s'",
				   s->fn->name);
			return false;
		}
		if (!validate_block(s, &st->body) || !validate_block(s, &st->orelse))
			return false;
	}
	return true;
}

static bool validate(Ssa *s, Function *f)
{
	s->fn = f;
	for (int i = 0; i < f->nparams; i++)
		if (!name_ok(s, f->params[i].var))
			return false;
	return validate_block(s, &f->body);
}

static void convert_function(Ssa *s, Function *f)
{
	s->fn = f;
	Param *params = arena_alloc(s->a, (size_t)(f->nparams + 1) * sizeof *params);
	for (int i = 0; i < f->nparams; i++) {
		Var *p = f->params[i].var;
		params[i] = f->params[i];
		params[i].var = new_version(s, p, "ssa", subst_type(s, p->type), VK_VAR);
		cur_set(s, p, params[i].var);
	}
	for (int i = 0; i < f->nrets; i++)
		f->rets[i] = subst_type(s, f->rets[i]);
	for (int i = 0; i < f->nattrs; i++)
		f->attrs[i].value = subst(s, f->attrs[i].value);
	s->future = &s->empty;
	f->body = convert_block(s, &f->body);
	f->params = params;
	pmap_release(&s->sets);
}

int ssa_convert_program(Program *p, Diag *d)
{
	Ssa *s = xmalloc(sizeof *s);
	memset(s, 0, sizeof *s);
	s->prog = p;
	s->a = p->arena;
	s->d = d;
	int rc = 0;
	for (int i = 0; i < p->nfuncs && !rc; i++) {
		Function *f = p->funcs[i];
		/* a HOST-level (or above) SubWorker body is opaque */
		if (f->role == RL_SUBWORKER && f->level >= LV_HOST)
			continue;
		if (!validate(s, f)) {
			rc = 1;
			break;
		}
		vtab_clear(&s->cur);
		vtab_clear(&s->ver);
		s->nlog = 0;
		convert_function(s, f);
		if (s->unroll_carry) {
			/* the reference's ForStmt cannot be an unrolled loop with
			 * iter args: it fails printing what its ConvertToSSA made */
			const Stmt *u = s->unroll_carry;
			diag_error(d, u->pos.line, u->pos.col,
				   "convert-to-ssa: the pl.unroll loop would carry '%s' across its iterations, and an unrolled "
				   "loop has no iter_args/init_values (run unroll-loops first)",
				   s->unroll_var->name);
			rc = 1;
		}
	}
	vtab_release(&s->cur);
	vtab_release(&s->ver);
	pmap_release(&s->empty);
	free(s->log);
	free(s);
	return rc;
}
