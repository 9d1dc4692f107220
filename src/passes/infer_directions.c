/* infer_directions.c - infer-directions: recompute In / Out / InOut of the
 * parameters of existing kernels (InCore, AIC, AIV) and wrappers (Group,
 * Spmd) from their bodies, with the rules the outliners use for the
 * functions they create (directions.c, seed document 000).  The reference
 * infers directions only while outlining; this pass makes the same
 * inference re-runnable on hand-written or imported IR.
 *
 * Callees are processed before their callers, so a wrapper sees its
 * kernels' final directions.  Options (pipeline.c):
 *   mode=exact       the inferred direction replaces the declared one (default)
 *   mode=raise-only  never demote: the result joins declared and inferred
 *   functions=a,b    only these functions (an unknown or excluded name is an error)
 *   reset=true       set the processed parameters to In first
 * Call-site arg_directions attrs are derive-call-directions' business and
 * are left alone. */
#include <stdlib.h>
#include <string.h>

#include "ptoopt/outline.h"
#include "ptoopt/passes.h"
#include "ptoopt/pipeline.h"

static bool id_kind(FuncType t)
{
	return t == FT_INCORE || t == FT_AIC || t == FT_AIV || t == FT_GROUP || t == FT_SPMD;
}

typedef struct Idir {
	Program *p;
	PtrMap selected; /* Function -> non-NULL: to be processed */
	PtrMap state;    /* Function -> 1 visiting, 2 done */
	bool raise_only;
	bool cycle;      /* a call cycle was cut this round */
	bool changed;    /* a direction changed this round */
	ParamDir *buf;
	int cap;
} Idir;

/* The functions f calls, in the order a walk of its body meets the calls
 * (a call before the calls in its arguments), once per function. */
static void collect_expr(Program *p, const Expr *e, PtrVec *out)
{
	if (!e || e->kind == EX_VAR) /* a leaf, and no call */
		return;
	if (e->kind == EX_FN_CALL || e->kind == EX_SUBMIT) {
		Function *g = ir_find_function(p, e->str);
		if (g)
			vec_push(out, g);
	}
	collect_expr(p, e->lhs, out);
	collect_expr(p, e->rhs, out);
	for (int i = 0; i < e->nargs; i++)
		collect_expr(p, e->args[i], out);
	for (int i = 0; i < e->nkw; i++)
		collect_expr(p, e->kw[i].value, out);
}

static void collect_block(Program *p, const Block *b, PtrVec *out)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *st = b->stmts[i];
		collect_expr(p, st->value, out);
		for (int j = 0; j < st->nvalues; j++)
			collect_expr(p, st->values[j], out);
		if (ir_stmt_is_simple(st->kind))
			continue;
		collect_block(p, &st->body, out);
		collect_block(p, &st->orelse, out);
	}
}

typedef struct Callees {
	Function **f;
	int n;
} Callees;

static Callees *callees_of(Idir *s, PtrMap *cache, Function *f)
{
	Callees *c = pmap_get(cache, f);
	if (c)
		return c;
	PtrVec v = { 0 };
	collect_block(s->p, &f->body, &v);
	c = xmalloc(sizeof *c);
	c->n = (int)v.len;
	c->f = xmalloc((v.len + 1) * sizeof *c->f);
	for (size_t i = 0; i < v.len; i++)
		c->f[i] = v.items[i];
	vec_release(&v);
	pmap_put(cache, f, c);
	return c;
}

/* The lattice In < Out < InOut: raise-only keeps the larger. */
static ParamDir join(ParamDir a, ParamDir b) { return a > b ? a : b; }

static void infer_one(Idir *s, Function *f)
{
	if (!pmap_get(&s->selected, f) || f->abstract)
		return;
	if (f->nparams > s->cap) {
		s->cap = f->nparams;
		s->buf = xrealloc(s->buf, (size_t)s->cap * sizeof *s->buf);
	}
	dir_infer_function(s->p, f, s->buf);
	for (int i = 0; i < f->nparams; i++) {
		ParamDir nd = s->raise_only ? join(f->params[i].dir, s->buf[i]) : s->buf[i];
		s->changed |= nd != f->params[i].dir;
		f->params[i].dir = nd;
	}
}

/* Depth-first over calls, so every callee is final before its caller is
 * inferred.  A recursive cycle is cut where it closes: the callee's current
 * directions serve as evidence, and the caller repeats rounds until nothing
 * changes.  The walk keeps its own stack, so a call chain of any depth
 * fits. */
typedef struct Frame {
	Function *f;
	Callees *c;
	int next;
} Frame;

static void visit_fn(Idir *s, PtrMap *cache, Function *root, Frame **stack, size_t *cap)
{
	if (pmap_get(&s->state, root)) {
		s->cycle |= pmap_get(&s->state, root) == (void *)1;
		return;
	}
	size_t n = 0;
	pmap_put(&s->state, root, (void *)1);
	(*stack)[n++] = (Frame){ root, callees_of(s, cache, root), 0 };
	while (n) {
		Frame *fr = &(*stack)[n - 1];
		if (fr->next < fr->c->n) {
			Function *g = fr->c->f[fr->next++];
			void *st = pmap_get(&s->state, g);
			if (st) {
				s->cycle |= st == (void *)1;
				continue;
			}
			pmap_put(&s->state, g, (void *)1);
			if (n == *cap) {
				*cap *= 2;
				*stack = xrealloc(*stack, *cap * sizeof **stack);
			}
			(*stack)[n++] = (Frame){ g, callees_of(s, cache, g), 0 };
			continue;
		}
		infer_one(s, fr->f);
		pmap_put(&s->state, fr->f, (void *)2);
		n--;
	}
}

/* functions=a,b: select the named functions; every name must be a function
 * of a kind this pass handles. */
static int select_named(Idir *s, const char *list, Diag *d)
{
	for (const char *q = list; *q;) {
		const char *e = strchr(q, ',');
		size_t l = e ? (size_t)(e - q) : strlen(q);
		if (l) {
			char *name = xmalloc(l + 1);
			memcpy(name, q, l);
			name[l] = 0;
			Function *f = NULL;
			for (int i = 0; i < s->p->nfuncs && !f; i++)
				if (strcmp(s->p->funcs[i]->name, name) == 0)
					f = s->p->funcs[i];
			if (!f || !id_kind(f->type)) {
				if (!f)
					diag_error(d, 0, 0, "infer-directions: no function named '%s'", name);
				else
					diag_error(d, f->pos.line, f->pos.col,
						   "infer-directions: function '%s' is %s; only InCore, AIC, AIV, Group and "
						   "Spmd functions have inferred directions",
						   name, ir_functype_name(f->type));
				free(name);
				return 1;
			}
			free(name);
			pmap_put(&s->selected, f, f);
		}
		q = e ? e + 1 : q + l;
	}
	return 0;
}

int infer_directions_program(Program *p, const PassOpts *o, Diag *d)
{
	const char *mode = pipe_opt(o, "mode"), *fns = pipe_opt(o, "functions"), *reset = pipe_opt(o, "reset");
	Idir s = { .p = p, .raise_only = mode && strcmp(mode, "raise-only") == 0 };
	int rc = 0;
	if (fns)
		rc = select_named(&s, fns, d);
	else
		for (int i = 0; i < p->nfuncs; i++)
			if (id_kind(p->funcs[i]->type))
				pmap_put(&s.selected, p->funcs[i], p->funcs[i]);
	if (!rc && reset && strcmp(reset, "true") == 0)
		for (int i = 0; i < p->nfuncs; i++)
			if (pmap_get(&s.selected, p->funcs[i]))
				for (int k = 0; k < p->funcs[i]->nparams; k++)
					p->funcs[i]->params[k].dir = DIR_IN;
	/* Without recursion one round is final.  With it, repeat to a fixed
	 * point, so a second run of the pass changes nothing; evidence from a
	 * callee slot is not monotone in exact mode (In reads, Out only
	 * writes), hence the bound, which no real program approaches. */
	PtrMap cache = { 0 };
	size_t cap = 64;
	Frame *stack = xmalloc(cap * sizeof *stack);
	for (int round = 0; !rc && round < 2 * p->nfuncs + 8; round++) {
		s.cycle = s.changed = false;
		pmap_clear(&s.state);
		for (int i = 0; i < p->nfuncs; i++)
			visit_fn(&s, &cache, p->funcs[i], &stack, &cap);
		if (!s.cycle || !s.changed)
			break;
	}
	for (size_t i = 0; i < cache.cap; i++)
		if (cache.keys[i]) {
			Callees *c = cache.vals[i];
			free(c->f);
			free(c);
		}
	pmap_release(&cache);
	free(stack);
	free(s.buf);
	pmap_release(&s.selected);
	pmap_release(&s.state);
	return rc;
}
