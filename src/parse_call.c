/* parse_call.c - calls in expressions.
 *
 * Argument lists; the pl.* / pld.* forms (enum symbols, pl.const / pl.cast,
 * get_byte, scalar min / max, pl.submit / pl.spmd_submit, pl.dynamic in a
 * type, the split_aiv transfer ops) and op calls lowered through the
 * registry (sugar.c); self.f(...) calls typed from the callee's signature
 * (its pl.dynamic dims bound to the arguments), pl.no_dep arguments, and
 * the pl.dump_tag dumps of calls and scopes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/op_registry.h"
#include "ptoopt/types.h"
#include "parse_int.h"

__attribute__((noinline)) void pp_args_grow(Parser *p, ArgList *l)
{
	void **n = arena_alloc(p->a, 2 * (size_t)l->cap * sizeof *n);
	memcpy(n, l->items, (size_t)l->len * sizeof *n);
	l->items = n;
	l->cap *= 2;
}

/* Argument list after '(' up to and including ')', positional then
 * keyword, into e->args / e->kw (`attrs=` goes to e->attrs). */
Expr *pp_call_tail(Parser *p, Expr *e)
{
	const char *deps_of = p->deps_of;
	p->deps_of = NULL; /* not for the calls in its arguments */
	ArgList args, kwn, kwv;
	args_init(&args);
	args_init(&kwn);
	args_init(&kwv);
	while (!at_op(p, ")")) {
		const Token *t = peek(p);
		bool eq_next = t->kind == TK_NAME && eq_follows(p, t);
		if (eq_next || (t->kind == TK_NAME && tok_is_op(peek_at(p, 1), "="))) {
			const char *k = t->text;
			SrcPos kpos = pos_of(t);
			if (eq_next) { /* `name=`: skipped without lexing the '=' */
				p->last_line = t->line;
				lex_skip_to(&p->lx, t->src + t->nlen + 1);
			} else {
				skip(p);
				skip(p);
			}
			for (int i = 0; i < kwn.len; i++)
				if (kwn.items[i] == k)
					pp_error(p, kpos.line, kpos.col, "keyword argument '%s' repeated", k);
			if (deps_of && !strcmp(k, "deps")) {
				/* a TaskId list (parse_deps.c); pl.submit drops an empty one */
				int n;
				Var **deps = pp_deps(p, deps_of, &n);
				if (n || e->kind == EX_OP_CALL) {
					Expr **refs = arena_alloc(p->a, (size_t)(n + 1) * sizeof *refs);
					for (int i = 0; i < n; i++)
						refs[i] = ir_var_ref(p->a, deps[i]);
					args_push(p, &kwn, (void *)k);
					args_push(p, &kwv, pp_list(p, refs, n, kpos));
				}
			} else {
				args_push(p, &kwn, (void *)k);
				args_push(p, &kwv, pp_kwval(p));
			}
		} else {
			if (kwn.len)
				PERR_AT(p, t, "positional argument follows keyword argument");
			args_push(p, &args, pp_expr(p));
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	/* one allocation for both arrays; the kwargs keep a zeroed entry past
	 * their end, args are NULL when there are none */
	size_t na = (size_t)args.len;
	Kwarg *kw = arena_alloc(p->a, na * sizeof *e->args + ((size_t)kwn.len + 1) * sizeof *kw);
	Expr **a = (Expr **)(void *)kw;
	kw = (Kwarg *)(void *)(a + na);
	for (size_t i = 0; i < na; i++) /* a few items: no memcpy call */
		a[i] = args.items[i];
	e->args = na ? a : NULL;
	e->nargs = args.len;
	e->kw = kw;
	int k = 0;
	for (int i = 0; i < kwn.len; i++) {
		const char *name = kwn.items[i];
		Expr *v = kwv.items[i];
		if (name[0] == 'a' && strcmp(name, "attrs") == 0 && v->kind == EX_DICT) {
			e->attrs = v;
			continue;
		}
		e->kw[k++] = (Kwarg){ name, v };
	}
	e->nkw = k;
	return e;
}

static Type *call_type_generic(Parser *p, const char *name, bool submit);

/* Dynamic dims of the callee's signature bound to the call's arguments. */
typedef struct DynBind {
	Var *dyn[32];
	Expr *to[32];
	int n;
} DynBind;

static Type *subst_dyn(Parser *p, Type *t, const DynBind *b)
{
	if (!t)
		return t;
	if (t->kind == TY_TUPLE) {
		Type **el = NULL;
		for (int i = 0; i < t->nelems; i++) {
			Type *n = subst_dyn(p, t->elems[i], b);
			if (n != t->elems[i] && !el) {
				el = arena_alloc(p->a, (size_t)(t->nelems + 1) * sizeof *el);
				memcpy(el, t->elems, (size_t)t->nelems * sizeof *el);
			}
			if (el)
				el[i] = n;
		}
		if (!el)
			return t;
		Type *n = ir_type_new(p->a, TY_TUPLE);
		*n = *t;
		n->elems = el;
		return n;
	}
	if (t->kind != TY_TENSOR && t->kind != TY_TILE)
		return t;
	Expr **dims = NULL;
	for (int i = 0; i < t->ndim; i++) {
		Expr *d = t->shape[i];
		if (d->kind != EX_VAR || d->var->kind != VK_DYN)
			continue;
		for (int k = 0; k < b->n; k++)
			if (b->dyn[k] == d->var) {
				if (!dims) {
					dims = arena_alloc(p->a, (size_t)(t->ndim + 1) * sizeof *dims);
					memcpy(dims, t->shape, (size_t)t->ndim * sizeof *dims);
				}
				dims[i] = b->to[k];
			}
	}
	if (!dims)
		return t;
	Type *n = ir_type_new(p->a, t->kind);
	*n = *t;
	n->shape = dims;
	return n;
}

/* The reference deduces a call's type by matching the callee's parameter
 * types against the arguments: a pl.dynamic dim of a parameter takes the
 * argument's dim, and the return types are specialised accordingly. */
static Type *specialise_call(Parser *p, const FnSig *s, Expr *call, Type *t)
{
	DynBind b = { .n = 0 };
	for (int i = 0; i < s->nparams && i < call->nargs; i++) {
		Type *pt = s->params[i].var->type, *at = ir_expr_type(call->args[i]);
		if (!at || (pt->kind != TY_TENSOR && pt->kind != TY_TILE) || at->kind != pt->kind || at->ndim != pt->ndim)
			continue;
		for (int d = 0; d < pt->ndim; d++) {
			Expr *pd = pt->shape[d];
			if (pd->kind != EX_VAR || pd->var->kind != VK_DYN || expr_equal(pd, at->shape[d]) || b.n == 32)
				continue;
			bool seen = false;
			for (int k = 0; k < b.n; k++)
				seen |= b.dyn[k] == pd->var;
			if (!seen) {
				b.dyn[b.n] = pd->var;
				b.to[b.n++] = at->shape[d];
			}
		}
	}
	return b.n ? subst_dyn(p, t, &b) : t;
}

/* The type of self.NAME(...) (submit: of pl.submit(self.NAME, ...), which
 * adds the task id), or NULL while the callee is unknown. */
static Type *call_type(Parser *p, const char *name, bool submit, Expr *call)
{
	Type *t = call_type_generic(p, name, submit);
	FnSig *s = pmap_get(p->sigs, name);
	return t && s ? specialise_call(p, s, call, t) : t;
}

static Type *call_type_generic(Parser *p, const char *name, bool submit)
{
	FnSig *s = pmap_get(p->sigs, name);
	if (!s && !p->prescanned) {
		pp_prescan(p);
		s = pmap_get(p->sigs, name);
	}
	if (!s)
		return NULL;
	if (!submit && s->nrets <= 1)
		return s->nrets ? s->rets[0] : NULL;
	Type **slot = submit ? &s->submit_type : &s->call_type;
	if (!*slot) {
		Type *t = ir_type_new(p->a, TY_TUPLE);
		t->nelems = s->nrets + submit;
		t->elems = arena_alloc(p->a, (size_t)(t->nelems + 1) * sizeof *t->elems);
		if (s->nrets)
			memcpy(t->elems, s->rets, (size_t)s->nrets * sizeof *t->elems);
		if (submit)
			t->elems[s->nrets] = ir_scalar_type(p->a, DT_TASK_ID);
		*slot = t;
	}
	return *slot;
}

/* self.f(a, pl.no_dep(b)) -> self.f(a, b, attrs={"arg_direction_overrides": [1]}):
 * the marker only tells the dependency analysis to skip that argument. */
static void no_dep_args(Parser *p, Expr *call)
{
	PtrVec idx = ARENA_VEC(p->a);
	for (int i = 0; i < call->nargs; i++) {
		Expr *a = call->args[i];
		if (a->kind == EX_OP_CALL && !strcmp(a->str, "no_dep")) {
			if (a->nargs != 1 || a->nkw)
				pp_error(p, a->pos.line, a->pos.col, "pl.no_dep takes exactly one argument");
			call->args[i] = a->args[0];
			vec_push(&idx, pp_int(p, i, DT_INDEX, a->pos));
		}
	}
	if (!idx.len)
		return;
	Expr *list = ir_expr_new(p->a, EX_TUPLE, call->pos);
	list->args = (Expr **)vec_finish(p->a, &idx, &list->nargs);
	Expr *d = call->attrs;
	Expr *nd = ir_expr_new(p->a, EX_DICT, call->pos);
	nd->nkw = (d ? d->nkw : 0) + 1;
	nd->kw = arena_alloc(p->a, (size_t)(nd->nkw + 1) * sizeof *nd->kw);
	if (d)
		memcpy(nd->kw, d->kw, (size_t)d->nkw * sizeof *nd->kw);
	nd->kw[nd->nkw - 1] = (Kwarg){ intern_cstr(p->a, "arg_direction_overrides"), list };
	call->attrs = nd;
}

/* pl.dump_tag(t) marks t for every later dispatch: a pl.at scope dumps
 * all the tagged tensors, a call or submit those of its arguments (in
 * argument order, with the ones it names already). */
bool pp_dump_tagged(Parser *p, const Var *v)
{
	for (size_t i = 0; i < p->dump_tagged.len; i++)
		if (p->dump_tagged.items[i] == v)
			return true;
	return false;
}

void pp_scope_dump_tags(Parser *p, Scope *sc)
{
	if (!p->dump_tagged.len)
		return;
	PtrVec v = ARENA_VEC(p->a);
	for (int i = 0; i < sc->ndumps; i++)
		vec_push(&v, sc->dumps[i]);
	for (size_t i = 0; i < p->dump_tagged.len; i++) {
		bool have = false;
		for (int j = 0; j < sc->ndumps; j++)
			have |= sc->dumps[j] == p->dump_tagged.items[i];
		if (!have)
			vec_push(&v, p->dump_tagged.items[i]);
	}
	sc->dumps = (Var **)vec_finish(p->a, &v, &sc->ndumps);
	sc->has_dumps = true;
}

static void call_dump_tags(Parser *p, Expr *e)
{
	if (!p->dump_tagged.len)
		return;
	bool submit = e->kind == EX_SUBMIT;
	/* where the call names its dumps already: a submit's dumps=, a call's
	 * attrs={"dump_vars": [...]} */
	Expr **slot = NULL;
	if (submit) {
		for (int i = 0; i < e->nkw; i++)
			if (!strcmp(e->kw[i].name, "dumps"))
				slot = &e->kw[i].value;
	} else if (e->attrs) {
		for (int i = 0; i < e->attrs->nkw; i++)
			if (!strcmp(e->attrs->kw[i].name, "dump_vars"))
				slot = &e->attrs->kw[i].value;
	}
	const Expr *named = slot ? *slot : NULL;
	PtrVec v = ARENA_VEC(p->a);
	for (int i = 0; i < e->nargs; i++) {
		Expr *a = e->args[i];
		if (a->kind != EX_VAR)
			continue;
		bool in = pp_dump_tagged(p, a->var);
		for (int j = 0; named && named->kind == EX_TUPLE && j < named->nargs && !in; j++)
			in = named->args[j]->kind == EX_VAR && named->args[j]->var == a->var;
		bool dup = false;
		for (size_t j = 0; j < v.len; j++)
			dup |= ((Expr *)v.items[j])->var == a->var;
		if (in && !dup)
			vec_push(&v, a);
	}
	if (!v.len || (named && named->kind == EX_TUPLE && named->nargs == (int)v.len)) {
		vec_release(&v);
		return;
	}
	int n;
	Expr **items = (Expr **)vec_finish(p->a, &v, &n);
	Expr *list = pp_list(p, items, n, e->pos);
	if (slot) {
		*slot = list;
		return;
	}
	if (submit) {
		Kwarg *kw = arena_alloc(p->a, (size_t)(e->nkw + 2) * sizeof *kw);
		for (int i = 0; i < e->nkw; i++)
			kw[i] = e->kw[i];
		kw[e->nkw++] = (Kwarg){ intern_cstr(p->a, "dumps"), list };
		e->kw = kw;
		return;
	}
	Expr *d = e->attrs ? ir_expr_copy(p->a, e->attrs) : ir_expr_new(p->a, EX_DICT, e->pos);
	Kwarg *kw = arena_alloc(p->a, (size_t)(d->nkw + 2) * sizeof *kw);
	kw[0] = (Kwarg){ intern_cstr(p->a, "dump_vars"), list };
	for (int i = 0; i < d->nkw; i++)
		kw[i + 1] = d->kw[i];
	d->kw = kw;
	d->nkw++;
	e->attrs = d;
}

/* self.f(...), the cursor at `self` (a `.` after it). */
Expr *pp_self_call(Parser *p)
{
		Token st = next(p);
		skip(p);
		Token f = expect_name(p, "a function name after 'self.'");
		if (!at_op(p, "("))
			PERR_AT(p, &st, "'self.%s' must be called", f.text);
		skip(p);
		Expr *e = pp_new_expr(p, EX_FN_CALL, &st);
		e->str = f.text;
		p->fn_args++;
		pp_call_tail(p, e);
		p->fn_args--;
		no_dep_args(p, e);
		call_dump_tags(p, e);
		e->type = call_type(p, f.text, false, e);
		vec_push(&p->fn_calls, e);
		return e;
}

/* The reference stores pl.submit / pl.spmd_submit options in a fixed order,
 * whatever order they were written in. */
static void sort_submit_kwargs(Expr *e)
{
	static const char *const order[] = { "deps", "dumps", "core_num", "sync_start", "allow_early_resolve", "predicate", NULL };
	int rank[64];
	if (e->nkw > 64)
		return;
	for (int i = 0; i < e->nkw; i++) {
		rank[i] = 99;
		for (int k = 0; order[k]; k++)
			if (!strcmp(e->kw[i].name, order[k]))
				rank[i] = k;
	}
	for (int i = 1; i < e->nkw; i++) /* insertion sort: stable, tiny lists */
		for (int j = i; j > 0 && rank[j - 1] > rank[j]; j--) {
			Kwarg t = e->kw[j];
			e->kw[j] = e->kw[j - 1];
			e->kw[j - 1] = t;
			int r = rank[j];
			rank[j] = rank[j - 1];
			rank[j - 1] = r;
		}
}

/* A member of an enum whose members ptoopt knows (pl.Mem, pl.Level,
 * pl.Role, pl.FunctionType, pl.SplitMode) or a name spelled like a data type
 * (pl.FP33) must exist (d: as written, after "pl."): Python would fail on the attribute lookup, and an
 * op keyword would otherwise carry the typo into the output unnoticed.
 * Other enum families are passed through as written. */
static void check_enum_symbol(Parser *p, SrcPos at, const char *d)
{
	static const struct {
		const char *family;
		int (*parse)(const char *);
	} known[] = {
		{ "Mem.", ir_mem_parse }, { "MemorySpace.", ir_mem_parse },
		{ "Level.", ir_level_parse }, { "Role.", ir_role_parse },
		{ "FunctionType.", ir_functype_parse }, { "SplitMode.", ir_split_parse },
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
		size_t n = strlen(known[i].family);
		if (!strncmp(d, known[i].family, n)) {
			if (known[i].parse(d + n) < 0)
				pp_error(p, at.line, at.col, "unknown enum value pl.%s%s", d,
					 pp_enum_did_you_mean(p, d + n, known[i].parse, arena_printf(p->a, "pl.%.*s", (int)n, d)));
			return;
		}
	}
	/* FP.., BF.., HF.., INT.., UINT.. followed by digits only */
	size_t k = strspn(d, "ABFHINPTU");
	if (k >= 2 && d[k] && strspn(d + k, "0123456789") == strlen(d + k) && ir_dtype_parse(d) < 0 &&
	    (!strncmp(d, "FP", 2) || !strncmp(d, "BF", 2) || !strncmp(d, "HF", 2) ||
	     !strncmp(d, "INT", 3) || !strncmp(d, "UINT", 4)))
		pp_error(p, at.line, at.col, "unknown data type pl.%s%s", d, pp_enum_did_you_mean(p, d, ir_dtype_parse, "pl."));
}

/* The forms of `pl.NAME(...)` that are not plain op calls (pp_pl), by the
 * dotted name alone; PF_OP for every other name. */
enum {
	PF_OP, PF_GET_BYTE, PF_MIN_MAX, PF_DYNAMIC, PF_TASK_DUMMY,
	PF_KEEP,        /* pl.cond, pl.set_cache_policy: kept as calls */
	PF_NO_DEP,      /* pl.no_dep: kept as a call inside call arguments */
	PF_IDENTITY,    /* pl.tensor.no_dep, pl.tensor.dump_tag */
	PF_READ_WRITE,  /* read / write and their tensor. / tile. spellings */
	PF_SPLIT,       /* aiv_shard / aic_gather (split_transfer) */
};

static int pl_form_classify(const char *d)
{
	size_t n = strlen(d);
	if (n > 9 && !strcmp(d + n - 9, ".get_byte"))
		return PF_GET_BYTE;
	if (!strcmp(d, "min") || !strcmp(d, "max") || !strcmp(d, "tile.min") || !strcmp(d, "tile.max"))
		return PF_MIN_MAX;
	if (!strcmp(d, "dynamic"))
		return PF_DYNAMIC;
	if (!strcmp(d, "system.task_dummy"))
		return PF_TASK_DUMMY;
	if (!strcmp(d, "cond") || !strcmp(d, "set_cache_policy"))
		return PF_KEEP;
	if (!strcmp(d, "no_dep"))
		return PF_NO_DEP;
	if (!strcmp(d, "tensor.no_dep") || !strcmp(d, "tensor.dump_tag"))
		return PF_IDENTITY;
	if (!strcmp(d, "read") || !strcmp(d, "write") || !strcmp(d, "tensor.read") || !strcmp(d, "tensor.write") ||
	    !strcmp(d, "tile.read") || !strcmp(d, "tile.write"))
		return PF_READ_WRITE;
	const char *op = strchr(d, '.') ? strchr(d, '.') + 1 : d;
	if ((d[0] == 'a' || d[0] == 't') && (!strcmp(op, "aiv_shard") || !strcmp(op, "aic_gather")) &&
	    (op == d || !strncmp(d, "tile.", 5) || !strncmp(d, "tensor.", 7)))
		return PF_SPLIT;
	return PF_OP;
}

/* pl_form_classify(d) through p->pl_forms (d is interned: its pointer is
 * the key). */
static inline int pl_form(Parser *p, const char *d)
{
	PlFormMemo *m = &p->pl_forms[((uintptr_t)d >> 3) & (PL_FORM_MEMO - 1)];
	if (m->d != d) {
		m->d = d;
		m->form = pl_form_classify(d);
	}
	return m->form;
}

/* pl.<...> in expression position: special forms, enum symbols, op calls.
 * The current token is the name `prefix` ("pl" or "pld"), a '.' after it. */
static bool split_transfer(Parser *p, const Expr *e, const char *d, SrcPos at);

Expr *pp_pl(Parser *p, const char *prefix)
{
	const Token *t0 = peek(p);
	const SrcPos at = pos_of(t0); /* of the prefix name (not a token copy) */
	/* pp_dotted_tail, not dotted_after(p, prefix): the caller has matched the
	 * name, and prefix is no literal that the name test could fold */
	const char *d = pp_dotted_tail(p, t0);
	bool pld = prefix[2] == 'd';
	/* the '(' of a call, right after the name: taken without lexing it */
	bool call = lex_take_open_paren(&p->lx);
	if (!call && !at_op(p, "(")) {
		/* an enum / dtype symbol: pl.FP32, pl.Mem.Vec, pl.adir.input, ...
		 * The shared node depends only on the spelling (d is interned),
		 * and so does check_enum_symbol: one lookup for a repeated one. */
		Expr *known = pld ? NULL : pmap_get(&p->symbols, d);
		if (known)
			return known;
		char buf[300];
		/* pl.MemorySpace.X is the long spelling of pl.Mem.X */
		if (!strncmp(d, "MemorySpace.", 12))
			snprintf(buf, sizeof buf, "%s.Mem.%s", prefix, d + 12);
		else
			snprintf(buf, sizeof buf, "%s.%s", prefix, d);
		if (!pld)
			check_enum_symbol(p, at, d);
		Expr *sym = pp_str(p, EX_SYMBOL, intern_cstr(p->a, buf), at);
		if (!pld)
			pmap_put(&p->symbols, d, sym);
		return sym;
	}
	if (!call)
		skip(p); /* ( */
	int form = pld ? PF_OP : pl_form(p, d);
	if (!pld && (d == p->nm[NM_CONST] || d == p->nm[NM_CAST])) {
		bool is_const = d[1] == 'o';
		Expr *v = pp_expr(p);
		Type *vt = is_const ? NULL : ir_expr_type(v);
		if (vt && (vt->kind == TY_TENSOR || vt->kind == TY_TILE || vt->kind == TY_DIST_TENSOR)) {
			/* pl.cast(tensor_or_tile, target_type=..., ...): the op sugar */
			Expr *e = ir_expr_new(p->a, EX_OP_CALL, at);
			e->str = d;
			if (accept_op(p, ","))
				pp_call_tail(p, e);
			else
				expect_op(p, ")");
			Expr **args = arena_alloc(p->a, (size_t)(e->nargs + 2) * sizeof *args);
			args[0] = v;
			for (int i = 0; i < e->nargs; i++)
				args[i + 1] = e->args[i];
			e->args = args;
			e->nargs++;
			Expr *r = sugar_lower_call(&p->sugar, e);
			if (!r)
				longjmp(p->fail, 1);
			return r;
		}
		expect_op(p, ",");
		const Token *kt = peek(p);
		if ((tok_is_name(kt, "dtype") || tok_is_name(kt, "target_type")) && tok_is_op(peek_at(p, 1), "=")) {
			skip(p);
			skip(p);
		}
		DType dt = pp_dtype(p);
		accept_op(p, ",");
		expect_op(p, ")");
		if (is_const) {
			if (v->kind != EX_INT && v->kind != EX_FLOAT && v->kind != EX_BOOL)
				pp_error(p, at.line, at.col, "pl.const needs a number literal");
			if (v->kind == EX_FLOAT || ir_dtype_is_float(dt)) {
				if (!ir_dtype_is_float(dt))
					pp_error(p, at.line, at.col, "pl.const: float value for integer type pl.%s", ir_dtype_name(dt));
				return pp_float(p, v->kind == EX_FLOAT ? v->fval : (double)v->ival, dt, at);
			}
			return pp_int(p, v->ival, dt, at);
		}
		Expr c = { .kind = EX_CAST, .pos = at, .lhs = v, .dtype = dt, .type = ir_scalar_type(p->a, dt) };
		return pp_share(p, &c);
	}
	/* pl.<DataType>.get_byte(): the size in bytes, ceil(bits / 8), as an
	 * INDEX constant (folded by the reference's parser too; a call, so not
	 * itself folded into the arithmetic around it) */
	if (form == PF_GET_BYTE) {
		char dt[32];
		snprintf(dt, sizeof dt, "%.*s", (int)(strlen(d) - 9 < 31 ? strlen(d) - 9 : 31), d);
		int t = ir_dtype_parse(dt);
		if (t < 0 || strchr(dt, '.'))
			pp_error(p, at.line, at.col, "Unknown DataType '%s' in pl.%s()", dt, d);
		expect_op(p, ")");
		p->pl_get_byte = true;
		return pp_int(p, (ir_dtype_bits((DType)t) + 7) / 8, DT_INDEX, at);
	}
	/* scalar min / max: pl.min, pl.max and their tile_ops spellings */
	if (form == PF_MIN_MAX) {
		Expr *a = pp_expr(p);
		expect_op(p, ",");
		Expr *b = pp_expr(p);
		accept_op(p, ",");
		expect_op(p, ")");
		return pp_binary(p, d[strlen(d) - 2] == 'i' ? OP_MIN : OP_MAX, a, b, at);
	}
	if (!pld && (d == p->nm[NM_SUBMIT] || d == p->nm[NM_SPMD_SUBMIT])) {
		Expr *e = ir_expr_new(p->a, EX_SUBMIT, at);
		e->spmd = d[0] == 's' && d[1] == 'p';
		const Token *s = peek(p);
		if (!tok_is_name(s, "self") || !tok_is_op(peek_at(p, 1), "."))
			PERR_AT(p, s, "pl.%s expects self.<function> as its first argument", d);
		skip(p);
		skip(p);
		Token f = expect_name(p, "a function name");
		e->str = f.text;
		e->lhs = pp_new_expr(p, EX_SYMBOL, &f); /* position of the callee, for errors */
		e->lhs->str = f.text;
		if (accept_op(p, ",")) {
			p->fn_args++;
			p->deps_of = f.text;
			pp_call_tail(p, e);
			p->fn_args--;
		} else {
			expect_op(p, ")");
		}
		call_dump_tags(p, e);
		sort_submit_kwargs(e);
		e->type = call_type(p, f.text, true, e);
		vec_push(&p->fn_calls, e);
		return e;
	}
	if (form == PF_DYNAMIC) {
		/* pl.dynamic("N") written in a type: the dynamic dimension N, one
		 * Var per name (the header pre-scan finds the same one) */
		const char *s = pp_string_kw(p);
		accept_op(p, ",");
		expect_op(p, ")");
		Var *dv = pmap_get(p->inline_dyns, s);
		if (!dv) {
			dv = pp_new_var(p, s, ir_scalar_type(p->a, DT_INDEX), VK_DYN, at);
			pmap_put(p->inline_dyns, s, dv);
		}
		p->lit = false;
		return ir_var_ref(p->a, dv);
	}
	Expr *e = ir_expr_new(p->a, EX_OP_CALL, at);
	e->str = pld ? intern_cstr(p->a, arena_printf(p->a, "pld.%s", d)) : d; /* d is interned */
	if (form == PF_TASK_DUMMY)
		p->deps_of = "pl.system.task_dummy";
	pp_call_tail(p, e);
	/* DSL forms that are not ops: kept as calls for the construct that
	 * consumes them (a while loop's pl.cond, a scope's
	 * pl.set_cache_policy declaration, a call argument's pl.no_dep) */
	if (form == PF_KEEP || (form == PF_NO_DEP && p->fn_args))
		return e;
	/* pl.tensor.no_dep / dump_tag are what their DSL functions are: the
	 * identity (tensor_ops returns the argument); the pl.no_dep and
	 * pl.dump_tag markers outside their constructs are unknown ops, as
	 * in the reference */
	if (form == PF_IDENTITY) {
		if (e->nargs != 1 || e->nkw)
			pp_error(p, at.line, at.col, "pl.%s takes exactly one argument, a tensor", d);
		return e->args[0];
	}
	if (form == PF_READ_WRITE && e->nargs >= 2 && e->args[1]->kind != EX_TUPLE) {
		/* the DSL wrappers take a bare index as a flat 1-D one: [i] */
		Type *it = ir_expr_type(e->args[1]);
		if (it && it->kind == TY_SCALAR)
			e->args[1] = pp_list(p, &e->args[1], 1, e->args[1]->pos);
	}
	if (form == PF_SPLIT)
		p->prog->has_aiv_split = true;
	if (form == PF_SPLIT && split_transfer(p, e, d, at)) {
		e->str = intern_cstr(p->a, strchr(d, '.') ? strchr(d, '.') + 1 : d);
		if (p->split_aiv_depth) {
			/* the op carries the region's mode as its split (printed
			 * only outside a region) */
			Kwarg *kw = arena_alloc(p->a, (size_t)(e->nkw + 1) * sizeof *kw);
			memcpy(kw, e->kw, (size_t)e->nkw * sizeof *kw);
			kw[e->nkw].name = intern_cstr(p->a, "split");
			kw[e->nkw].value = pp_int(p, (int64_t)p->split_aiv_mode, DT_INDEX, at);
			e->kw = kw;
			e->nkw++;
		}
	}
	Expr *r = sugar_lower_call(&p->sugar, e);
	if (!r)
		longjmp(p->fail, 1);
	const OpDef *od = r->kind == EX_OP_CALL ? sugar_op(&p->sugar, r->str) : NULL;
	if (od && od->host_only && (p->fn_level != LV_HOST || p->incore_depth)) {
		char lv[32] = "None";
		if (p->fn_level != LV_NONE)
			snprintf(lv, sizeof lv, "Level.%s", ir_level_name(p->fn_level));
		pp_error(p, e->pos.line, e->pos.col,
			 "%s() can only be called in HOST orchestration context (not inside InCore / SPMD scopes); "
			 "current function level: %s", od->name, lv);
	}
	return r;
}

/* pl.aiv_shard / pl.aic_gather (also spelt pl.tile.* and pl.tensor.*): the
 * namespace follows the operand (a Tensor gives tensor.*, anything else
 * tile.*), and the split comes either from the enclosing
 * `for ... in pl.split_aiv(...)` loop or, outside one, from an explicit
 * integer split= (the outlined, tile-only form the printer writes after
 * outlining).  The reference's parser checks these forms itself
 * (_parse_split_transfer_op); so does this.  Returns whether d is one. */
static bool split_transfer(Parser *p, const Expr *e, const char *d, SrcPos at)
{
	const char *op = strchr(d, '.') ? strchr(d, '.') + 1 : d;
	if (strcmp(op, "aiv_shard") && strcmp(op, "aic_gather"))
		return false;
	if (op != d && strncmp(d, "tile.", 5) && strncmp(d, "tensor.", 7))
		return false;
	bool gather = op[1] == 'i' && op[2] == 'c';
	const Expr *split = NULL, *stride = NULL;
	for (int i = 0; i < e->nkw; i++) {
		const char *k = e->kw[i].name;
		if (!strcmp(k, "split"))
			split = e->kw[i].value;
		else if (!strcmp(k, "lane_stride"))
			stride = e->kw[i].value;
		else if (!strcmp(k, "mode"))
			pp_error(p, at.line, at.col, "pl.%s() does not take a mode= argument — pass the lowered integer 'split=' "
			     "(outlined form) or rely on the enclosing pl.split_aiv(mode=...) scope (high-level form)", op);
		else
			pp_error(p, at.line, at.col, "pl.%s() does not accept keyword argument '%s'", op, k);
	}
	if (e->nargs != 1)
		pp_error(p, at.line, at.col, "pl.%s() takes exactly one positional argument (the tile to %s), got %d", op,
		     gather ? "gather" : "shard", e->nargs);
	const Type *t = ir_expr_type(e->args[0]);
	if (t && t->kind == TY_DIST_TENSOR)
		pp_error(p, at.line, at.col, "pl.%s does not support distributed tensors (AIV/AIC split only)", op);
	bool tensor = t && t->kind == TY_TENSOR;
	if (split) {
		if (p->split_aiv_depth)
			pp_error(p, at.line, at.col, "pl.%s() does not take a split= argument inside a 'for ... in pl.split_aiv(...)' "
			     "loop — the split mode is inherited from that scope", op);
		if (tensor)
			pp_error(p, at.line, at.col, "pl.%s(..., split=N) does not accept a high-level Tensor operand — the outlined "
			     "split= form is tile-only. Wrap the Tensor in a 'for aiv_id in pl.split_aiv(...)' region instead, "
			     "which supplies the split mode and lowers to the tile op.", op);
		if (split->kind != EX_INT)
			pp_error(p, at.line, at.col, "pl.%s(..., split=N) requires an integer split (the lowered SplitMode value)", op);
		if (stride && gather)
			pp_error(p, at.line, at.col, "pl.aic_gather() does not take a lane_stride= argument: only the Cube -> Vector "
			     "shard is ever rebalanced onto a ragged boundary's valid region, so the gather always re-joins "
			     "the lanes on the box partition");
		if (stride && stride->kind != EX_INT)
			pp_error(p, at.line, at.col, "pl.%s(..., lane_stride=N) requires an integer partition stride", op);
		return true;
	}
	if (!p->split_aiv_depth)
		pp_error(p, at.line, at.col, "pl.%s() must be used inside a 'for ... in pl.split_aiv(...)' loop (or pass an "
		     "explicit integer 'split=' in the outlined form); it otherwise inherits the split mode from that scope", op);
	if (stride)
		pp_error(p, at.line, at.col, "pl.%s() does not take a lane_stride= argument inside a 'for ... in "
		     "pl.split_aiv(...)' loop — the partition follows the region's own per-lane offsets", op);
	return true;
}

bool pp_has_op(Parser *p, const char *op) { return sugar_op(&p->sugar, op) != NULL; }
