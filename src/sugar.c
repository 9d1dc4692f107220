/* sugar.c - DSL op calls -> canonical op calls, driven by the op registry.
 *
 * One path serves hand-written and canonical text: dispatch (pl.add ->
 * tensor.adds by argument kinds), then binding of positional and keyword
 * arguments to the op's declared parameters (Python rules), defaults,
 * literal coercion (an int literal in a tensor scalar op takes the tensor's
 * element dtype, as the reference's _normalize_scalar_operand does), and
 * the result type from the entry's rule.  Canonical text is a fixpoint:
 * every argument is already present and in order, so it prints unchanged.
 */
#include "ptoopt/sugar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/strbuf.h"
#include "ptoopt/typerule.h"
#include "ptoopt/types.h"

/* ------------------------------------------------------------ per-op facts */

/* How the calls of an op written one way bind to its slots: where each
 * value comes from, which slots need work (in slot order: a default may
 * name an earlier slot's final value), and which print whatever the
 * values.  It depends only on the number of positional arguments and the
 * keyword names in order, which almost every call shares with many others
 * of its op, so it is worked out once per way of calling (call_plan) and a
 * call only does the work its values need. */
typedef struct PlanStep {
	int slot, kind;          /* STEP_* */
} PlanStep;
enum {
	STEP_CHECK,              /* a bound value: map, coerce and check it */
	STEP_KIND,               /* a bound value whose kind is all there is to check */
	STEP_DEFAULT,            /* an unbound slot with a default: fill it in */
	STEP_MISSING,            /* a required slot nothing binds: the error */
};

typedef struct CallPlan {
	struct CallPlan *next;   /* the op's other plans */
	int nargs, nkw;          /* the key: positional count, ... */
	const char **kw;         /* ... and keyword names (interned), in the call's order */
	int *kwslot;             /* the slot of each keyword */
	int *unbound, nunbound;  /* the slots no argument binds */
	PlanStep *step; int nsteps;
	int last;                /* the last positional slot that prints whatever the
				  * values (bound and not omitted when default), -1 */
	int *kwout, nkwout;      /* the kwarg slots that may print, in order */
	unsigned char *prints;   /* per slot: PRINT_* */
} CallPlan;

/* When the value of a slot prints. */
enum { PRINT_NEVER, PRINT_ALWAYS, PRINT_UNLESS_DEFAULT, PRINT_IF_SET };

/* Plans kept per op: more ways of calling one op than this (only crafted
 * input has them) are planned per call rather than searched. */
#define PLANS_PER_OP 8

/* What a call of one spelling needs that does not depend on its arguments,
 * worked out on the first such call of the program instead of on every one:
 * the registry entries, the parameter names interned in the program's arena
 * (keyword arguments are names the lexer interned there, so binding them
 * compares pointers, and the lowered call's keywords need no interning) and
 * the message prefix.  Allocated with malloc, not in the arena: the parser
 * rolls the arena back over a duplicate annotation, which may hold a call. */
typedef struct OpInfo {
	const char *name;        /* program-interned */
	const SugarDef *sugar;   /* a DSL spelling (pl.add): its dispatch cases */
	struct OpInfo **cases;   /* each case's canonical op, on first dispatch to it */
	const OpDef *op;         /* the canonical op of this name, NULL when unknown */
	const char *prefix;      /* "pl." ("" for pld.* ops) in messages */
	int n;                   /* op's parameters then kwargs: */
	const OpsParam **param;
	const char **pname;      /* their names and ... */
	const char ***alias;     /* ... aliases, program-interned */
	CallPlan *plans;         /* the ways this op was called so far */
	int nplans;
} OpInfo;

void sugar_init(SugarCtx *c, Arena *a, Diag *d, OpRegistry *reg)
{
	memset(c, 0, sizeof *c);
	c->a = a;
	c->d = d;
	c->reg = reg;
}

void sugar_release(SugarCtx *c)
{
	for (size_t i = 0; i < c->infos.cap; i++) {
		if (!c->infos.keys[i])
			continue;
		OpInfo *inf = c->infos.vals[i];
		for (CallPlan *pl = inf->plans, *next; pl; pl = next) {
			next = pl->next;
			free(pl);
		}
		free(inf);
	}
	pmap_release(&c->infos);
	pmap_release(&c->symbols);
}

/* The first call of a spelling: its OpInfo made (out of line, so that the
 * lookup every call makes stays small). */
static __attribute__((noinline)) OpInfo *op_info_new(SugarCtx *c, const char *name)
{
	OpInfo *inf;
	const SugarDef *s = ops_find_sugar(c->reg, name);
	const OpDef *op = ops_find(c->reg, name);
	int ncases = s ? s->ncases : 0, np = op ? op->nparams : 0, n = op ? np + op->nkwargs : 0, nalias = 0;
	for (int i = 0; i < n; i++)
		nalias += (i < np ? &op->params[i] : &op->kwargs[i - np])->nalias;
	/* one block: the struct, then arrays of pointers */
	size_t words = (size_t)ncases + 3 * (size_t)n + (size_t)nalias;
	inf = xmalloc(sizeof *inf + words * sizeof(void *));
	memset(inf, 0, sizeof *inf + words * sizeof(void *));
	void **w = (void **)(inf + 1);
	inf->name = name;
	inf->sugar = s;
	inf->cases = (OpInfo **)w;
	w += ncases;
	inf->op = op;
	inf->prefix = strncmp(name, "pld.", 4) ? "pl." : "";
	inf->n = n;
	inf->param = (const OpsParam **)w;
	inf->pname = (const char **)(w + n);
	inf->alias = (const char ***)(w + 2 * n);
	const char **al = (const char **)(w + 3 * n);
	for (int i = 0; i < n; i++) {
		const OpsParam *p = i < np ? &op->params[i] : &op->kwargs[i - np];
		inf->param[i] = p;
		inf->pname[i] = intern_cstr(c->a, p->name);
		inf->alias[i] = al;
		for (int a = 0; a < p->nalias; a++)
			*al++ = intern_cstr(c->a, p->alias[a]);
	}
	pmap_put(&c->infos, name, inf);
	return inf;
}

/* The OpInfo of a spelling not among the recent ones. */
static __attribute__((noinline)) OpInfo *op_info_miss(SugarCtx *c, const char *name, size_t j)
{
	OpInfo *inf = pmap_get(&c->infos, name);
	if (!inf)
		inf = op_info_new(c, name);
	c->recent[j].name = name;
	c->recent[j].info = inf;
	return inf;
}

static inline OpInfo *op_info(SugarCtx *c, const char *name)
{
	size_t j = ((uintptr_t)name >> 3) & (sizeof c->recent / sizeof c->recent[0] - 1);
	if (c->recent[j].name == name)
		return c->recent[j].info;
	return op_info_miss(c, name, j);
}

const OpDef *sugar_op(SugarCtx *c, const char *name)
{
	return op_info(c, name)->op;
}

/* What an interned symbol names, looked up once per spelling: pl.FP32 a
 * data type, pl.Mem.Vec a memory space (-1 when not one). */
static void symbol_meaning(SugarCtx *c, const char *s, int *dtype, int *mem)
{
	size_t j = ((uintptr_t)s >> 3) & (sizeof c->recent_symbols / sizeof c->recent_symbols[0] - 1);
	uintptr_t v;
	if (c->recent_symbols[j].name == s) {
		v = c->recent_symbols[j].meaning;
	} else {
		v = (uintptr_t)pmap_get(&c->symbols, s);
		if (!v) {
			int dt = strncmp(s, "pl.", 3) ? -1 : ir_dtype_parse(s + 3);
			int ms = strncmp(s, "pl.Mem.", 7) ? -1 : ir_mem_parse(s + 7);
			v = (uintptr_t)(dt + 1) | (uintptr_t)(ms + 1) << 8 | (uintptr_t)1 << 16;
			pmap_put(&c->symbols, s, (void *)v);
		}
		c->recent_symbols[j].name = s;
		c->recent_symbols[j].meaning = v;
	}
	if (dtype)
		*dtype = (int)(v & 0xff) - 1;
	if (mem)
		*mem = (int)(v >> 8 & 0xff) - 1;
}

/* ------------------------------------------------------------ kinds */

static OpsKind kind_of(Expr *e)
{
	if (e->kind == EX_TUPLE)
		return OPK_LIST;
	if (e->kind == EX_SYMBOL)
		return OPK_DTYPE;
	Type *t = ir_expr_type(e);
	if (!t)
		return OPK_ANY;
	switch (t->kind) {
	case TY_TENSOR: case TY_DIST_TENSOR: return OPK_TENSOR;
	case TY_TILE: return OPK_TILE;
	case TY_SCALAR: return OPK_SCALAR;
	default: return OPK_ANY;
	}
}

static const char *kind_name(OpsKind k)
{
	static const char *const n[] = { "a value", "a Tensor", "a Tile", "a scalar", "a list", "a dtype", "an int",
					 "a number", "a value", "a scalar" };
	return n[k];
}

static void describe(Expr *e, char *buf, size_t n)
{
	Type *t = ir_expr_type(e);
	if (e->kind == EX_TUPLE)
		snprintf(buf, n, "a list");
	else if (e->kind == EX_SYMBOL)
		snprintf(buf, n, "%s", e->str);
	else if (t && t->kind != TY_UNKNOWN)
		type_to_string(t, buf, n);
	else
		snprintf(buf, n, "a value of unknown type");
}

static bool kind_matches(OpsKind want, Expr *e)
{
	if (want == OPK_ANY)
		return true;
	if (want == OPK_DTYPE)
		return e->kind == EX_SYMBOL && ir_dtype_parse(e->str + 3) >= 0 && !strncmp(e->str, "pl.", 3);
	return kind_of(e) == want;
}

/* May v be passed where a parameter of kind k is expected?  Values of
 * unknown type (results of unregistered ops) are let through. */
static inline bool arg_ok(OpsKind k, Expr *v)
{
	switch (k) {
	case OPK_ANY: return true;
	case OPK_DTYPE: return kind_matches(OPK_DTYPE, v);
	case OPK_LIST: return v->kind == EX_TUPLE; /* what kind_of calls a list */
	case OPK_INT: case OPK_NUMBER: case OPK_EXPR: case OPK_SCALAR_EXPR: return true; /* py_check asks py_fits */
	default: break;
	}
	OpsKind vk = kind_of(v);
	if (k == OPK_SCALAR)
		return vk == OPK_SCALAR || vk == OPK_ANY || v->kind == EX_INT || v->kind == EX_FLOAT || v->kind == EX_BOOL;
	return vk == k || vk == OPK_ANY;
}

/* Has parameter p a check of the DSL wrapper's (py_check)? */
static bool dsl_checked(const OpsParam *p)
{
	return p->kind >= OPK_INT || p->rank_as >= 0 || p->nallow;
}

/* ------------------------------------------------------------ values */

static Expr *const_expr(SugarCtx *c, const OpsConst *k, Expr **slots, SrcPos pos)
{
	Expr *e;
	switch (k->kind) {
	case OC_INT: return tr_int(c, k->i, DT_INDEX, pos);
	case OC_FLOAT: return tr_float(c, k->f, DT_FP32, pos);
	case OC_BOOL: return tr_int(c, k->i, DT_BOOL, pos);
	case OC_EMPTY_LIST: return tr_list(c, NULL, 0, pos);
	case OC_REF: return slots[k->i];
	case OC_SYMBOL: case OC_STR:
		e = ir_expr_new(c->a, k->kind == OC_SYMBOL ? EX_SYMBOL : EX_STR, pos);
		e->str = intern_cstr(c->a, k->s);
		return e;
	default: return NULL;
	}
}

static bool equals_const(const Expr *e, const OpsConst *k, Expr **slots)
{
	switch (k->kind) {
	case OC_INT: return e->kind == EX_INT && e->ival == k->i;
	case OC_FLOAT: return e->kind == EX_FLOAT && e->fval == k->f;
	case OC_BOOL: return e->kind == EX_BOOL && e->ival == k->i;
	case OC_EMPTY_LIST: return e->kind == EX_TUPLE && e->nargs == 0;
	case OC_SYMBOL: return e->kind == EX_SYMBOL && !strcmp(e->str, k->s);
	case OC_STR: return e->kind == EX_STR && !strcmp(e->str, k->s);
	case OC_REF: return expr_equal(e, slots[k->i]);
	default: return false;
	}
}

/* ------------------------------------------------------------ symbols */

int tr_dtype_symbol(SugarCtx *c, const Expr *e)
{
	int dt = -1;
	if (e && e->kind == EX_SYMBOL)
		symbol_meaning(c, e->str, &dt, NULL);
	return dt;
}

int tr_mem_symbol(SugarCtx *c, const Expr *e)
{
	int ms = -1;
	if (e && e->kind == EX_SYMBOL)
		symbol_meaning(c, e->str, NULL, &ms);
	return ms;
}

/* ------------------------------------------------------------ lowering */

#define FAIL(...) do { diag_error(c->d, call->pos.line, call->pos.col, __VA_ARGS__); goto fail; } while (0)

/* Operand j of a call as case sc sees it: positional, or passed by the
 * keyword of its op's parameter j (pl.add(lhs=a, rhs=b)); NULL if neither. */
static Expr *case_operand(SugarCtx *c, const SugarCase *sc, const Expr *call, int j)
{
	if (j < call->nargs)
		return call->args[j];
	const OpDef *op = sc->op ? ops_find(c->reg, sc->op) : NULL;
	if (!op || j >= op->nparams)
		return NULL;
	for (int k = 0; k < call->nkw; k++)
		if (!strcmp(call->kw[k].name, op->params[j].name))
			return call->kw[k].value;
	return NULL;
}

static bool py_truth(const Expr *v, bool *is_scalar);

/* The first case of s that the call's leading argument kinds select, or -1
 * after reporting that none does.  A rejecting case keyed by a keyword
 * (`if high_precision:` in the DSL) is passed over when the keyword's value
 * is a false literal, and the keyword dropped, as the DSL ignores it. */
static int dispatch(SugarCtx *c, Expr *call, const SugarDef *s)
{
	for (int i = 0; i < s->ncases; i++) {
		const SugarCase *sc = &s->cases[i];
		bool ok = true;
		for (int j = 0; ok && j < sc->nargs; j++) {
			Expr *a = case_operand(c, sc, call, j);
			ok = a && kind_matches(sc->args[j], a);
		}
		if (ok && sc->kw) {
			int found = -1;
			for (int k = 0; k < call->nkw && found < 0; k++)
				if (!strcmp(call->kw[k].name, sc->kw))
					found = k;
			ok = found >= 0;
			bool scalar;
			if (ok && sc->error && !py_truth(call->kw[found].value, &scalar) && !scalar) {
				memmove(call->kw + found, call->kw + found + 1, (size_t)(call->nkw - found - 1) * sizeof *call->kw);
				call->nkw--;
				ok = false;
			}
		}
		if (ok)
			return i;
	}
	{
		char buf[512] = "";
		size_t n = 0;
		for (int j = 0; j < call->nargs && j < 4 && n < sizeof buf - 80; j++) {
			char t[200];
			describe(call->args[j], t, sizeof t);
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", j ? ", " : "", t);
		}
		FAIL("pl.%s: no form of this op takes (%s); expected Tensor, Tile or scalar operands of one kind "
		     "(annotate operands whose type is unknown)", s->name, buf);
	}
fail:
	return -1;
}

/* The op's signature as Python would show it, for arity and keyword
 * errors: pl.tile.load(tensor, offsets, shapes, valid_shapes=shapes, *,
 * target_memory=pl.Mem.Vec, clamp=False). */
static const char *signature(SugarCtx *c, const OpInfo *inf)
{
	StrBuf b = { 0 };
	ops_signature(&b, inf->op);
	const char *r = intern(c->a, b.data, b.len);
	sb_release(&b);
	return r;
}

/* The slot of the parameter or kwarg named kn (its name or an alias), or -1. */
static int keyword_slot(const OpInfo *inf, const char *kn)
{
	for (int i = 0; i < inf->n; i++) {
		if (inf->pname[i] == kn)
			return i;
		for (int a = 0; a < inf->param[i]->nalias; a++)
			if (inf->alias[i][a] == kn)
				return i;
	}
	/* by spelling, for a name interned elsewhere */
	for (int i = 0; i < inf->n; i++) {
		if (!strcmp(inf->pname[i], kn))
			return i;
		for (int a = 0; a < inf->param[i]->nalias; a++)
			if (!strcmp(inf->alias[i][a], kn))
				return i;
	}
	return -1;
}

/* The reference's DSL function for the op: its last name component, as
 * Python's arity errors name it ("load() missing ..."). */
static const char *py_name(const OpInfo *inf)
{
	const char *d = strrchr(inf->name, '.');
	return d ? d + 1 : inf->name;
}

/* Where the reference's parser says an op's DSL call failed:
 * "pl.tile operation 'load'", "pld.system operation 'notify'". */
static const char *op_where(SugarCtx *c, const OpInfo *inf)
{
	const char *d = strrchr(inf->name, '.');
	char buf[256];
	snprintf(buf, sizeof buf, "%s%.*s operation '%s'", inf->prefix, d ? (int)(d - inf->name) : 0, inf->name, py_name(inf));
	return intern_cstr(c->a, buf);
}

/* Python's TypeError for required arguments the call lacks, positional ones
 * first ("load() missing 1 required positional argument: 'shapes'"), the
 * names as Python lists them ('a' / 'a' and 'b' / 'a', 'b', and 'c');
 * false after reporting it. */
static bool dsl_missing(SugarCtx *c, const OpInfo *inf, const Expr *call, const bool *given)
{
	const OpDef *op = inf->op;
	for (int part = 0; part < 2; part++) {
		int from = part ? op->dsl_npos : 0, to = part ? op->dsl_npos + op->dsl_nkwo : op->dsl_npos, cnt = 0;
		for (int i = from; i < to; i++)
			cnt += !op->dsl[i].optional && op->dsl[i].slot >= 0 && !given[op->dsl[i].slot];
		if (!cnt)
			continue;
		StrBuf b = { 0 };
		for (int i = from, k = 0; i < to; i++) {
			if (op->dsl[i].optional || op->dsl[i].slot < 0 || given[op->dsl[i].slot])
				continue;
			k++;
			sb_printf(&b, "%s'%s'", k == 1 ? "" : k == cnt ? (cnt > 2 ? ", and " : " and ") : ", ", op->dsl[i].name);
		}
		diag_error(c->d, call->pos.line, call->pos.col, "%s: %s() missing %d required %s argument%s: %s (signature: %s)",
			   op_where(c, inf), py_name(inf), cnt, part ? "keyword-only" : "positional", cnt == 1 ? "" : "s",
			   b.data, signature(c, inf));
		sb_release(&b);
		return false;
	}
	return true;
}

/* Python's truth of a literal the DSL receives as a plain value; false
 * with *is_scalar set for a value it receives as a Scalar (a variable or
 * expression of scalar type), which has none. */
static bool py_truth(const Expr *v, bool *is_scalar)
{
	*is_scalar = false;
	switch (v->kind) {
	case EX_INT: case EX_BOOL: return v->ival != 0;
	case EX_FLOAT: return v->fval != 0;
	case EX_STR: return v->str[0] != 0;
	case EX_TUPLE: return v->nargs > 0;
	case EX_SYMBOL: return true;
	case EX_OP_CALL: return strcmp(v->str, "system.task_invalid") != 0; /* None */
	case EX_VAR: {
		const Type *t = ir_expr_type((Expr *)v);
		*is_scalar = !t || t->kind == TY_SCALAR;
		return !*is_scalar; /* a Tensor / Tile object is true */
	}
	default: *is_scalar = true; return false;
	}
}

/* A plain-int / plain-bool attribute given a value the reference's binding
 * refuses: a literal passed by position reaches it as an expression, an int
 * literal by keyword is no bool.  A truth-tested one (attr: truthy) becomes
 * True or False in *vp.  False after reporting it. */
static bool attr_fits(SugarCtx *c, const OpInfo *inf, const Expr *call, int j, Expr **vp, bool positional)
{
	const OpsParam *p = inf->param[j];
	const Expr *v = *vp;
	if (p->truth_attr) {
		bool is_scalar, t = py_truth(v, &is_scalar);
		if (positional || is_scalar)
			FAIL("Cannot convert Scalar to bool. Scalar wraps a symbolic IR expression and has no concrete truth value.");
		if (t && p->truth_raw && v->kind != EX_BOOL)
			FAIL("Kwarg '%s' for operator '%s' has incompatible type", p->name, inf->name);
		if (v->kind != EX_BOOL || v->ival != t) {
			Expr *b = ir_expr_new(c->a, EX_BOOL, v->pos);
			b->ival = t;
			b->dtype = DT_BOOL;
			b->type = ir_scalar_type(c->a, DT_BOOL);
			*vp = b;
		}
		return true;
	}
	if (positional && p->bool_attr && (v->kind == EX_INT || v->kind == EX_BOOL))
		FAIL("Unsupported kwarg type for key: %s", p->name);
	if ((positional ? p->int_attr : p->bool_attr) && v->kind == EX_INT)
		FAIL("Kwarg '%s' for operator '%s' has incompatible type", p->name, inf->name);
	/* a computed value (a variable, a call) is no Python int or bool at all */
	bool literal = v->kind == EX_INT || v->kind == EX_BOOL || v->kind == EX_FLOAT || v->kind == EX_STR ||
		       v->kind == EX_SYMBOL || v->kind == EX_TUPLE;
	if ((p->int_attr || p->bool_attr) && !literal)
		FAIL("Unsupported kwarg type for key: %s", p->name);
	return true;
fail:
	return false;
}

/* Positional arguments by the DSL signature: more than it takes is Python's
 * TypeError ("add() takes 2 positional arguments but 3 were given"); those
 * past the leading ones that bind to their own index become keyword
 * arguments of the parameters they bind (the DSL's order differs from the
 * op's).  False after reporting an error. */
static void fill_template(StrBuf *b, const char *fmt, const char *const *keys, const char *const *vals, int n);

static bool has_keyword(const Expr *call, const char *name)
{
	for (int k = 0; k < call->nkw; k++)
		if (!strcmp(call->kw[k].name, name))
			return true;
	return false;
}

/* the separator before item i of n: "(a), (b), or (c)", "(a) or (b)" */
static void put_list_item(StrBuf *b, int i, int n)
{
	if (i)
		sb_puts(b, n > 2 ? ", " : " ");
	if (i && i == n - 1)
		sb_puts(b, "or ");
}

/* A `*args` DSL function with `forms:`: its extra positional arguments bind
 * by the one form their count and the call's keywords fit (they become
 * keywords), none given binds nothing; else the reference's TypeError
 * listing the forms.  Then every name of the forms must be bound. */
static bool dsl_forms(SugarCtx *c, const OpInfo *inf, Expr *call)
{
	const OpDef *op = inf->op;
	int fixed = op->dsl_npos, extra = call->nargs - fixed;
	StrBuf b = { 0 };
	if (extra > 0) {
		const OpsForm *fm = NULL;
		for (int f = 0; f < op->nforms && !fm; f++) {
			const OpsForm *t = &op->forms[f];
			bool fits = t->npos == extra;
			for (int k = 0; k < op->nform_names && fits; k++) {
				bool need = false;
				for (int j = 0; j < t->nkw; j++)
					need |= !strcmp(t->kw[j], op->form_names[k]);
				fits = need == has_keyword(call, op->form_names[k]);
			}
			if (fits)
				fm = t;
		}
		if (!fm) {
			sb_puts(&b, py_name(inf));
			sb_puts(&b, " expects ");
			for (int f = 0; f < op->nforms; f++) {
				const OpsForm *t = &op->forms[f];
				put_list_item(&b, f, op->nforms);
				sb_putc(&b, '(');
				for (int i = 0; i < fixed + t->npos + t->nkw; i++) {
					if (i)
						sb_puts(&b, ", ");
					sb_puts(&b, i < fixed ? op->dsl[i].name : i < fixed + t->npos ? t->pos[i - fixed] : t->kw[i - fixed - t->npos]);
					if (i >= fixed + t->npos)
						sb_puts(&b, "=...");
				}
				sb_putc(&b, ')');
			}
			goto fail;
		}
		Kwarg *kw = arena_alloc(c->a, (size_t)(extra + call->nkw + 1) * sizeof *kw);
		for (int i = 0; i < extra; i++)
			kw[i] = (Kwarg){ intern_cstr(c->a, fm->pos[i]), call->args[fixed + i] };
		memcpy(kw + extra, call->kw, (size_t)call->nkw * sizeof *kw);
		call->kw = kw;
		call->nkw += extra;
		call->nargs = fixed;
	}
	bool all = true;
	for (int k = 0; k < op->nform_names; k++)
		all &= has_keyword(call, op->form_names[k]);
	if (all)
		return true;
	sb_puts(&b, py_name(inf));
	sb_puts(&b, " requires ");
	for (int i = 0; i < fixed + op->nform_names; i++) {
		if (i)
			sb_puts(&b, ", ");
		if (i && i == fixed + op->nform_names - 1)
			sb_puts(&b, "and ");
		sb_puts(&b, i < fixed ? op->dsl[i].name : op->form_names[i - fixed]);
	}
fail:
	diag_error(c->d, call->pos.line, call->pos.col, "%s: %s", op_where(c, inf), b.data);
	sb_release(&b);
	return false;
}

static bool dsl_positional(SugarCtx *c, const OpInfo *inf, Expr *call)
{
	const OpDef *op = inf->op;
	int given = call->nargs, from = op->dsl_inorder;
	bool kw_known = true; /* Python rejects an unknown keyword first */
	for (int k = 0; op->arity_error && k < call->nkw; k++)
		kw_known &= keyword_slot(inf, call->kw[k].name) >= 0;
	if (op->arity_error && kw_known && (given < op->arity_min || given > op->arity_max)) {
		/* a *args function's own count check (mrgsort_format2) */
		char num[16];
		snprintf(num, sizeof num, "%d", given);
		static const char *const keys[] = { "n" };
		const char *vals[] = { num };
		StrBuf b = { 0 };
		fill_template(&b, op->arity_error, keys, vals, 1);
		diag_error(c->d, call->pos.line, call->pos.col, "%s: %s", op_where(c, inf), b.data);
		sb_release(&b);
		return false;
	}
	if (op->nforms)
		return dsl_forms(c, inf, call);
	if (given <= from)
		return true;
	if (op->dsl_varargs)
		return true;
	if (given > op->dsl_npos) {
		int ndef = 0, kwonly = 0;
		for (int i = 0; i < op->dsl_npos; i++)
			ndef += op->dsl[i].optional;
		for (int k = 0; k < call->nkw; k++)
			for (int i = op->dsl_npos; i < op->dsl_npos + op->dsl_nkwo; i++)
				kwonly += !strcmp(call->kw[k].name, op->dsl[i].name);
		char sig[32], extra[96] = "";
		if (ndef)
			snprintf(sig, sizeof sig, "from %d to %d", op->dsl_npos - ndef, op->dsl_npos);
		else
			snprintf(sig, sizeof sig, "%d", op->dsl_npos);
		if (kwonly)
			snprintf(extra, sizeof extra, " positional argument%s (and %d keyword-only argument%s)", given != 1 ? "s" : "",
				 kwonly, kwonly != 1 ? "s" : "");
		FAIL("%s: %s() takes %s positional argument%s but %d%s %s given (signature: %s)", op_where(c, inf), py_name(inf), sig, ndef || op->dsl_npos != 1 ? "s" : "", given, extra, given == 1 && !kwonly ? "was" : "were",
		     signature(c, inf));
	}
	Kwarg *kw = arena_alloc(c->a, (size_t)(given - from + call->nkw + 1) * sizeof *kw);
	for (int i = from; i < given; i++) {
		int j = op->dsl[i].slot;
		if (j < 0)
			FAIL("%s%s: argument '%s' has no place in the IR call", inf->prefix, inf->name, op->dsl[i].name);
		bool dup = false; /* Python's "multiple values" error comes first */
		for (int k = 0; k < call->nkw; k++)
			dup |= !strcmp(call->kw[k].name, inf->pname[j]);
		if (!dup && !attr_fits(c, inf, call, j, &call->args[i], true))
			return false;
		kw[i - from] = (Kwarg){ inf->pname[j], call->args[i] };
	}
	memcpy(kw + (given - from), call->kw, (size_t)call->nkw * sizeof *kw);
	call->nkw += given - from;
	call->kw = kw;
	call->nargs = from;
	return true;
fail:
	return false;
}

/* The plan of calls written like `call` (its positional count and keyword
 * names), made when new: reports an unknown or repeated keyword and
 * returns NULL then.  The caller has checked the positional count. */
static CallPlan *plan_new(SugarCtx *c, OpInfo *inf, const Expr *call)
{
	int n = inf->n, np = inf->op->nparams, nkw = call->nkw;
	/* one block: the struct, the keyword names, then the int arrays (kw
	 * slots, unbound and kwarg-out slots), the steps and the print modes */
	size_t size = sizeof(CallPlan) + (size_t)nkw * sizeof(const char *) + (size_t)(nkw + 2 * n) * sizeof(int) +
		      (size_t)n * sizeof(PlanStep) + (size_t)n;
	CallPlan *pl = xmalloc(size);
	memset(pl, 0, size);
	pl->nargs = call->nargs;
	pl->nkw = nkw;
	pl->kw = (const char **)(pl + 1);
	pl->kwslot = (int *)(pl->kw + nkw);
	pl->unbound = pl->kwslot + nkw;
	pl->kwout = pl->unbound + n;
	pl->step = (PlanStep *)(pl->kwout + n);
	pl->prints = (unsigned char *)(pl->step + n);
	bool givenbuf[16], nonnullbuf[16];
	bool *given = n <= 16 ? givenbuf : arena_alloc(c->a, (size_t)n);
	bool *nonnull = n <= 16 ? nonnullbuf : arena_alloc(c->a, (size_t)n);
	for (int i = 0; i < n; i++)
		given[i] = i < call->nargs;
	for (int k = 0; k < nkw; k++) {
		const char *kn = call->kw[k].name;
		int j = keyword_slot(inf, kn);
		if (j < 0)
			FAIL("%s: %s() got an unexpected keyword argument '%s' (signature: %s)", op_where(c, inf), py_name(inf), kn,
			     signature(c, inf));
		if (given[j])
			FAIL("%s: %s() got multiple values for argument '%s'", op_where(c, inf), py_name(inf), kn);
		given[j] = true;
		pl->kw[k] = kn;
		pl->kwslot[k] = j;
	}
	if (!dsl_missing(c, inf, call, given))
		goto fail;
	pl->last = -1;
	bool missing = false;
	for (int i = 0; i < n; i++) {
		const OpsParam *p = inf->param[i];
		int step = -1;
		if (given[i]) {
			/* a bound value needs work for a value map, literal
			 * coercion or a kind check (positional parameters only) */
			if (p->nvalues || p->coerce_elem_of >= 0 || p->coerce_dtype >= 0 || p->coerce_list || p->int_elems ||
			    p->index_elems || dsl_checked(p))
				step = STEP_CHECK;
			else if (i < np && p->kind != OPK_ANY)
				step = STEP_KIND;
		} else {
			pl->unbound[pl->nunbound++] = i;
			if (p->def.kind != OC_NONE)
				step = STEP_DEFAULT;
			else if (p->omit == OMIT_NEVER)
				step = STEP_MISSING;
		}
		if (step >= 0 && !missing)
			pl->step[pl->nsteps++] = (PlanStep){ i, step };
		missing |= step == STEP_MISSING; /* the call stops there */
		/* whether the slot has a value once defaults are filled in (a
		 * default naming an earlier parameter has that one's) */
		nonnull[i] = given[i] || (p->def.kind == OC_REF ? nonnull[p->def.i] : p->def.kind != OC_NONE);
		/* a bound value prints unless the op drops it when equal to its
		 * default; an unbound one prints when it has a value never omitted */
		pl->prints[i] = p->omit == OMIT_ALWAYS ? PRINT_NEVER /* a DSL-only argument */
				: given[i] ? (p->omit == OMIT_DEFAULT ? PRINT_UNLESS_DEFAULT : PRINT_ALWAYS)
				: nonnull[i] && p->omit == OMIT_NEVER ? PRINT_ALWAYS : PRINT_NEVER;
		if (i < np && pl->prints[i] == PRINT_ALWAYS)
			pl->last = i;
		/* the kwarg an `attr: keyword` param bound by keyword may move to */
		for (int j = call->nargs; i >= np && !given[i] && j < np; j++)
			if (given[j] && inf->param[j]->attr_kwarg == i - np)
				pl->prints[i] = PRINT_IF_SET;
		if (i >= np && pl->prints[i] != PRINT_NEVER)
			pl->kwout[pl->nkwout++] = i;
	}
	return pl;
fail:
	free(pl);
	return NULL;
}

/* The plan for `call`: one made before for the same way of calling, else
 * a new one (kept, unless the op has many already: then the caller frees
 * it after use).  NULL after reporting an error. */
static CallPlan *call_plan(SugarCtx *c, OpInfo *inf, const Expr *call, bool *temporary)
{
	*temporary = false;
	for (CallPlan *pl = inf->plans; pl; pl = pl->next) {
		if (pl->nargs != call->nargs || pl->nkw != call->nkw)
			continue;
		int k = 0;
		while (k < pl->nkw && pl->kw[k] == call->kw[k].name)
			k++;
		if (k == pl->nkw)
			return pl;
	}
	CallPlan *pl = plan_new(c, inf, call);
	if (!pl)
		return NULL;
	if (inf->nplans < PLANS_PER_OP) {
		pl->next = inf->plans;
		inf->plans = pl;
		inf->nplans++;
	} else {
		*temporary = true;
	}
	return pl;
}

/* fmt with each {KEY} of keys[] replaced by its vals[] entry (the
 * registry's message templates: expect:, int-elems:). */
static void fill_template(StrBuf *b, const char *fmt, const char *const *keys, const char *const *vals, int n)
{
	for (const char *q = fmt; *q; q++) {
		int k = n;
		if (*q == '{')
			for (k = 0; k < n; k++)
				if (!strncmp(q + 1, keys[k], strlen(keys[k])) && q[1 + strlen(keys[k])] == '}')
					break;
		if (k < n) {
			sb_puts(b, vals[k]);
			q += strlen(keys[k]) + 1;
		} else {
			sb_putc(b, *q);
		}
	}
}

/* A kind error's text (an op's `expect:`, a `checks:` message): {type} the
 * given value's type class (TileType), {dsl} its DSL class (Tile), {value}
 * its printed type, {op} the op, {arg} the parameter. */
static void expect_text(StrBuf *b, const char *fmt, Expr *v, const char *t, const OpDef *op, const char *arg)
{
	const char *tn = v->kind == EX_TUPLE ? "TupleType" : tr_type_name(ir_expr_type(v));
	char dsl[64]; /* TileType -> Tile, DistributedTensorType -> DistributedTensor */
	size_t n = strlen(tn);
	snprintf(dsl, sizeof dsl, "%.*s", (int)(n > 4 && !strcmp(tn + n - 4, "Type") ? n - 4 : n), tn);
	static const char *const keys[] = { "type", "dsl", "value", "op", "arg" };
	const char *vals[] = { tn, dsl, t, op->name, arg };
	fill_template(b, fmt, keys, vals, 5);
}

/* A param's `convert:` applied to value v as the reference's DSL does it:
 * false after reporting, in Python's words, a value that conversion fails on.
 * Only literals, lists and Tile / Tensor values are told apart (a Scalar
 * value is the DSL's Scalar, which all four take). */
static bool dsl_convert(SugarCtx *c, const OpInfo *inf, const OpsParam *p, Expr *v, Expr *call)
{
	Type *t = v->kind == EX_TUPLE ? NULL : ir_expr_type(v);
	bool literal = v->kind == EX_INT || v->kind == EX_FLOAT || v->kind == EX_BOOL;
	const char *cls = v->kind == EX_TUPLE ? "list" /* Python's class name of the DSL's object */
		: literal ? NULL : t && t->kind == TY_TILE ? "Tile" : t && t->kind == TY_TENSOR ? "Tensor" : NULL;
	const char *mod = t && t->kind == TY_TILE ? "pypto.language.typing.tile." : t && t->kind == TY_TENSOR ? "pypto.language.typing.tensor." : "";
	const char *w = op_where(c, inf);
	switch (p->convert) {
	case CONV_UNWRAP:
		if (literal || v->kind == EX_TUPLE)
			FAIL("%s: '%s' object has no attribute 'unwrap' (argument '%s' must be a Tile, Tensor or Scalar value)", w,
			     v->kind == EX_TUPLE ? "list" : v->kind == EX_INT ? "ConstInt" : v->kind == EX_FLOAT ? "ConstFloat" : "ConstBool",
			     p->name);
		break;
	case CONV_CONST_INT:
		if (cls)
			FAIL("%s: __init__(): incompatible function arguments. The following argument types are supported: "
			     "(value: int, dtype, span), the reference's ConstInt (argument '%s' must be an int or a Scalar, got a %s)",
			     w, p->name, cls);
		break;
	case CONV_FLOAT:
		if (cls)
			FAIL("%s: float() argument must be a string or a real number, not '%s' (argument '%s')", w, cls, p->name);
		break;
	case CONV_EXPR:
		if (cls)
			FAIL("%s: Cannot convert <class '%s%s'> to IR expression (argument '%s')", w, mod, cls, p->name);
		break;
	default:
		break;
	}
	return true;
fail:
	return false;
}

/* The `checks:` of the op (its DSL wrapper's validation, before any kind
 * check of the deduction): false after reporting the first that fails.
 * Values of unknown type pass, as unbound slots do. */
static bool dsl_checks(SugarCtx *c, const OpInfo *inf, Expr **slots, Expr *call)
{
	const OpDef *op = inf->op;
	for (int i = 0; i < op->nchecks; i++) {
		const OpsCheck *k = &op->checks[i];
		if (k->nanyof) {
			bool any = false;
			for (int j = 0; j < k->nanyof; j++)
				any |= slots[k->anyof[j]] != NULL;
			if (!any) {
				diag_error(c->d, call->pos.line, call->pos.col, "%s: %s", op_where(c, inf), k->error);
				return false;
			}
			continue;
		}
		Expr *v = slots[k->slot];
		Type *t = v && v->kind != EX_TUPLE ? ir_expr_type(v) : NULL;
		if (!v || (v->kind != EX_TUPLE && (!t || t->kind == TY_UNKNOWN)))
			continue;
		unsigned is = !t ? 0 : t->kind == TY_TENSOR ? OPS_IS_TENSOR : t->kind == TY_DIST_TENSOR ? OPS_IS_DIST
			: t->kind == TY_TILE ? OPS_IS_TILE : t->kind == TY_SCALAR ? OPS_IS_SCALAR : 0;
		if (is & k->is)
			continue;
		char got[256], fmt[200];
		if (v->kind == EX_TUPLE)
			snprintf(got, sizeof got, "list"); /* Python's type(value).__name__ */
		else
			describe(v, got, sizeof got);
		if (!k->error) { /* the wording of the reference's distributed wrappers */
			static const char *const cls[] = { "Tensor", "DistributedTensor", "Tile", "Scalar" };
			size_t o = (size_t)snprintf(fmt, sizeof fmt, "{op} expects a");
			for (int m = 0, first = 1; m < 4; m++)
				if (k->is & (1u << m)) {
					o += (size_t)snprintf(fmt + o, sizeof fmt - o, "%s%s", first ? " " : " or ", cls[m]);
					first = 0;
				}
			snprintf(fmt + o, sizeof fmt - o, " {arg}%s; got {value}", k->is == OPS_IS_DIST ? " (window-bound)" : "");
		}
		StrBuf b = { 0 };
		expect_text(&b, k->error ? k->error : fmt, v, got, op, inf->param[k->slot]->name);
		diag_error(c->d, call->pos.line, call->pos.col, "%s: %s", op_where(c, inf), b.data);
		sb_release(&b);
		return false;
	}
	for (int i = 0; i < op->nparams + op->nkwargs; i++)
		if (slots[i] && inf->param[i]->convert && !dsl_convert(c, inf, inf->param[i], slots[i], call))
			return false;
	return true;
}

/* Is v a literal as Python writes it (1, 2.5), not a pl.const of another
 * dtype? */
static bool py_literal(const Expr *v)
{
	return (v->kind == EX_INT && v->dtype == DT_INDEX) || (v->kind == EX_FLOAT && v->dtype == DT_FP32);
}

/* The Python enum class of symbol sym (pl.Mem.Vec: MemorySpace), NULL for
 * none; *member (when asked) its member's name. */
static const char *py_enum(SugarCtx *c, const char *sym, const char **member)
{
	const char *a = strchr(sym, '.'), *b = a ? strchr(a + 1, '.') : NULL;
	if (!b || strchr(b + 1, '.'))
		return NULL;
	if (member)
		*member = b + 1;
	int n = (int)(b - a - 1);
	return n == 3 && !strncmp(a + 1, "Mem", 3) ? "MemorySpace" : arena_printf(c->a, "%.*s", n, a + 1);
}

/* The repr of the Python class the reference's DSL hands an op wrapper for
 * v, as its messages print type(v): a literal passed by position arrives
 * as an IR constant (a bool one as a Scalar), by keyword as a Python
 * value; variables arrive in their DSL wrappers. */
static const char *dsl_pyclass(SugarCtx *c, const Expr *v, bool keyword)
{
	const char *cls = NULL;
	switch (v->kind) {
	case EX_TUPLE: cls = "list"; break;
	case EX_STR: cls = "str"; break;
	case EX_INT: cls = keyword && py_literal(v) ? "int" : "pypto.pypto_core.ir.ConstInt"; break;
	case EX_FLOAT: cls = keyword && py_literal(v) ? "float" : "pypto.pypto_core.ir.ConstFloat"; break;
	case EX_BOOL: cls = keyword ? "bool" : "pypto.language.typing.scalar.Scalar"; break;
	case EX_SYMBOL: {
		if (!strncmp(v->str, "pl.", 3) && ir_dtype_parse(v->str + 3) >= 0) {
			cls = "pypto.pypto_core.DataType";
			break;
		}
		const char *e = py_enum(c, v->str, NULL);
		if (!e)
			break;
		return arena_printf(c->a, "<enum '%s'>", e);
	}
	default: {
		Type *t = ir_expr_type((Expr *)v);
		switch (t ? t->kind : TY_UNKNOWN) {
		case TY_TENSOR: cls = "pypto.language.typing.tensor.Tensor"; break;
		case TY_DIST_TENSOR: cls = "pypto.language.distributed.typing.distributed_tensor.DistributedTensor"; break;
		case TY_TILE: cls = "pypto.language.typing.tile.Tile"; break;
		case TY_NAMED: cls = "pypto.language.distributed.typing.comm_ctx.CommCtx"; break;
		default: cls = "pypto.language.typing.scalar.Scalar"; break;
		}
	}
	}
	return cls ? arena_printf(c->a, "<class '%s'>", cls) : "<class 'object'>";
}

/* Does v pass the DSL wrapper's Python-level check of kind k (OPK_INT: an
 * int or ConstInt; OPK_NUMBER: a Python int or float; OPK_EXPR: an int,
 * a float or an IR expression, as _normalize_expr takes; OPK_SCALAR_EXPR:
 * a scalar IR expression, not a Python literal)? */
static bool py_fits(OpsKind k, Expr *v, bool keyword)
{
	switch (k) {
	case OPK_INT: return v->kind == EX_INT;
	case OPK_NUMBER: return keyword && py_literal(v);
	case OPK_SCALAR_EXPR: return !(keyword && (v->kind == EX_INT || v->kind == EX_FLOAT)) && arg_ok(OPK_SCALAR, v);
	default: return v->kind == EX_INT || v->kind == EX_FLOAT;
	}
}

/* The DSL wrapper's Python-level check of slot i's bound value (a param
 * of kind int / number / expr), made before any of the deducer's; false
 * after reporting an error. */
static bool py_check(SugarCtx *c, const OpInfo *inf, int i, Expr **slots, Expr *call)
{
	const OpsParam *p = inf->param[i];
	Expr *v = slots[i];
	bool keyword = i >= call->nargs;
	const char *fmt = NULL;
	char n[24], m[24];
	const char *member = NULL, *en = NULL;
	if (p->kind >= OPK_INT) {
		if (keyword && v->kind == EX_BOOL) /* a Python bool is an int */
			slots[i] = v = tr_int(c, v->ival, DT_INDEX, v->pos);
		if (!py_fits(p->kind, v, keyword))
			fmt = p->expect ? p->expect : p->kind == OPK_EXPR ? "Cannot convert {pyclass} to IR expression"
									   : "{name} must be int or ConstInt, got {pyclass}";
	}
	Expr *o = p->rank_as >= 0 ? slots[p->rank_as] : NULL;
	if (!fmt && o && v->kind == EX_TUPLE && o->kind == EX_TUPLE) {
		if (v->nargs != o->nargs && !(v->nargs == 0 && p->rank_empty_ok))
			fmt = p->rank_error;
		else if (v->nargs == 0 && p->rank_empty)
			fmt = p->rank_empty;
		if (fmt) { /* the lengths for the message only: this runs on every call */
			snprintf(n, sizeof n, "%d", v->nargs);
			snprintf(m, sizeof m, "%d", o->nargs);
		}
	}
	if (!fmt && p->nallow && v->kind == EX_SYMBOL) {
		int k = 0;
		while (k < p->nallow && strcmp(p->allow[k], v->str))
			k++;
		if (k == p->nallow) {
			fmt = p->allow_error;
			en = py_enum(c, v->str, &member);
		}
	}
	if (!fmt)
		return true;
	StrBuf b = { 0 };
	static const char *const keys[] = { "pyclass", "name", "n", "m", "value" };
	const char *vals[] = { dsl_pyclass(c, v, keyword), p->name, n, m,
			       en ? arena_printf(c->a, "%s.%s", en, member) : v->kind == EX_SYMBOL ? v->str : "" };
	fill_template(&b, fmt, keys, vals, 5);
	diag_error(c->d, call->pos.line, call->pos.col, "%s: %s", op_where(c, inf), b.data);
	sb_release(&b);
	return false;
}


/* Map, coerce and check the bound value of slot i; false after reporting
 * an error. */
static bool check_arg(SugarCtx *c, const OpInfo *inf, int i, Expr **slots, Expr *call)
{
	const char *pf = inf->prefix, *name = inf->name;
	const OpsParam *p = inf->param[i];
	Expr *v = slots[i];
	if (p->nvalues && (v->kind == EX_SYMBOL || v->kind == EX_STR)) {
		/* a string value matches a key written in quotes: "'elem'" */
		int m = -1;
		size_t vl = strlen(v->str);
		for (int k = 0; k < p->nvalues; k++) {
			const char *key = p->values[k].symbol;
			if (v->kind == EX_SYMBOL ? !strcmp(key, v->str)
						 : key[0] == '\'' && strlen(key) == vl + 2 && !strncmp(key + 1, v->str, vl) &&
							   key[vl + 1] == '\'')
				m = k;
		}
		if (m < 0 && p->invalid && v->kind == EX_STR) {
			StrBuf b = { 0 };
			const char *q = arena_printf(c->a, "'%s'", v->str);
			static const char *const keys[] = { "value" };
			const char *vals[] = { q };
			fill_template(&b, p->invalid, keys, vals, 1);
			diag_error(c->d, call->pos.line, call->pos.col, "%s", b.data);
			sb_release(&b);
			return false;
		}
		if (m < 0)
			FAIL("%s%s: '%s' is not a valid value for '%s'", pf, name, v->str, p->name);
		if (p->values[m].spelling) {
			if (v->kind != EX_SYMBOL || strcmp(v->str, p->values[m].spelling) != 0) {
				Expr *sym = ir_expr_new(c->a, EX_SYMBOL, v->pos);
				sym->str = intern_cstr(c->a, p->values[m].spelling);
				slots[i] = v = sym;
			}
		} else {
			slots[i] = v = tr_int(c, p->values[m].value, DT_INDEX, v->pos);
		}
	}
	/* an int literal (INDEX placeholder) takes the operand's dtype (for
	 * some ops only one bound by keyword: slots before call->nargs are
	 * positional) */
	if ((p->coerce_elem_of >= 0 || p->coerce_dtype >= 0) && !(p->coerce_keyword && i < call->nargs)) {
		int dt = p->coerce_dtype >= 0 ? p->coerce_dtype : tr_elem_dtype(slots[p->coerce_elem_of]);
		if (dt >= 0 && v->kind == EX_INT && v->dtype == DT_INDEX) {
			slots[i] = v = ir_dtype_is_float((DType)dt) ? tr_float(c, (double)v->ival, (DType)dt, v->pos)
								    : tr_int(c, v->ival, (DType)dt, v->pos);
		} else if (dt >= 0 && p->coerce_elem_of >= 0 && !p->coerce_keyword && v->kind != EX_INT &&
			   tr_elem_dtype(v) == DT_INDEX) {
			/* the reference's wording (_check_not_index_scalar): the hint names
			 * an integer operand's dtype, else INT32 */
			FAIL("%s%s: argument '%s': Scalar operand has dtype `index`, which tile/tensor scalar instructions "
			     "do not accept. Convert it explicitly, e.g. pl.cast(<value>, pl.%s).", pf, name, p->name,
			     ir_dtype_name(ir_dtype_is_int((DType)dt) ? (DType)dt : DT_INT32));
		}
	}
	if (p->coerce_list && v->kind != EX_TUPLE)
		slots[i] = v = tr_list(c, &v, 1, v->pos); /* pl.read(t, i): a bare index */
	if (i < inf->op->nparams && !arg_ok(p->kind, v)) {
		char t[256];
		describe(v, t, sizeof t);
		if (p->kind == OPK_TENSOR || p->kind == OPK_TILE || p->kind == OPK_SCALAR) {
			/* the reference's deducer's words: "The operator tile.adds requires
			 * second argument to be a ScalarType, but got TileType" */
			static const char *const ord[] = { "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth" };
			char want[200];
			size_t nl = strlen(name);
			if (!p->expect) /* tensor.and_: the reference's tensor.and */
				snprintf(want, sizeof want, "The operator %.*s requires %s argument to be a %s, but got {type}",
					 (int)(nl && name[nl - 1] == '_' ? nl - 1 : nl), name, i < 8 ? ord[i] : "an",
					 p->kind == OPK_TENSOR ? "TensorType" : p->kind == OPK_TILE ? "TileType" : "ScalarType");
			StrBuf b = { 0 };
			expect_text(&b, p->expect ? p->expect : want, v, t, inf->op, p->name);
			diag_error(c->d, call->pos.line, call->pos.col, "%s: %s (argument '%s': %s)", op_where(c, inf), b.data, p->name, t);
			sb_release(&b);
			goto fail;
		}
		FAIL("%s%s: argument '%s' must be %s, got %s", pf, name, p->name, kind_name(p->kind), t);
	}
	for (int k = 0; (p->int_elems || p->index_elems) && v->kind == EX_TUPLE && k < v->nargs; k++) {
		int dt = tr_elem_dtype(v->args[k]);
		if (dt < 0 || (p->int_elems ? ir_dtype_is_int((DType)dt) : dt == DT_INT64 || dt == DT_UINT64 || dt == DT_INDEX))
			continue;
		StrBuf b = { 0 };
		char idx[16];
		snprintf(idx, sizeof idx, "%d", k);
		static const char *const keys[] = { "i", "dtype" };
		const char *vals[] = { idx, tr_dtype_str((DType)dt) };
		fill_template(&b, p->int_elems ? p->int_elems : p->index_elems, keys, vals, 2);
		diag_error(c->d, call->pos.line, call->pos.col, "%s: %s", op_where(c, inf), b.data);
		sb_release(&b);
		goto fail;
	}
	return true;
fail:
	return false;
}

/* Bind the call's arguments to the op's slots by its plan, check and
 * coerce them, rewrite the call in canonical form (positional arguments
 * through the last that prints, printed kwargs in declared order) and
 * type it. */
static Expr *lower_planned(SugarCtx *c, const OpInfo *inf, const CallPlan *plan, Expr *call)
{
	int np = inf->op->nparams, n = inf->n;
	/* a bound slot holds its (non-NULL) value, an unbound one NULL; when
	 * every slot is bound by position (most ops, written canonically), the
	 * parsed array is the slot array */
	bool in_place = n > 0 && call->nargs == n;
	Expr *slotbuf[16];
	Expr **slots = in_place ? call->args : n <= 16 ? slotbuf : arena_alloc(c->a, (size_t)n * sizeof *slots);
	if (!in_place) {
		for (int i = 0; i < call->nargs; i++)
			slots[i] = call->args[i];
		for (int k = 0; k < call->nkw; k++)
			slots[plan->kwslot[k]] = call->kw[k].value;
		for (int u = 0; u < plan->nunbound; u++)
			slots[plan->unbound[u]] = NULL;
	}
	/* an int attribute bound by position gets the literal as an expression */
	for (int i = np; i < call->nargs; i++)
		if (!attr_fits(c, inf, call, i, &slots[i], true))
			return NULL;
	for (int k = 0; k < call->nkw; k++)
		if (!attr_fits(c, inf, call, plan->kwslot[k], &slots[plan->kwslot[k]], false))
			return NULL;
	if (!dsl_checks(c, inf, slots, call))
		return NULL;
	/* a `late:` argument of the wrong kind is reported after the rule's own
	 * checks, which see it as a value of unknown type */
	int late = -1;
	Expr *late_value = NULL;
	for (int s = 0; s < plan->nsteps; s++)
		if (plan->step[s].kind == STEP_CHECK && dsl_checked(inf->param[plan->step[s].slot]) &&
		    !py_check(c, inf, plan->step[s].slot, slots, call))
			return NULL;
	for (int s = 0; s < plan->nsteps; s++) {
		int i = plan->step[s].slot;
		const OpsParam *p = inf->param[i];
		if (p->late && (plan->step[s].kind == STEP_KIND || plan->step[s].kind == STEP_CHECK) && !arg_ok(p->kind, slots[i])) {
			if (late < 0) {
				late = i;
				late_value = slots[i];
			}
			Expr *u = ir_expr_new(c->a, EX_OP_CALL, slots[i]->pos);
			u->str = intern_cstr(c->a, "?");
			slots[i] = u;
			continue;
		}
		switch (plan->step[s].kind) {
		case STEP_KIND:
			if (arg_ok(p->kind, slots[i]))
				break;
			/* fall through - check_arg reports the error */
		case STEP_CHECK:
			if (!check_arg(c, inf, i, slots, call))
				return NULL;
			break;
		case STEP_DEFAULT:
			slots[i] = const_expr(c, &p->def, slots, call->pos);
			if (p->coerce_keyword && slots[i] && slots[i]->kind == EX_INT && !check_arg(c, inf, i, slots, call))
				return NULL; /* the DSL's default is a Python int too */
			break;
		default:
			FAIL("%s%s: missing required argument '%s' (signature: %s)", inf->prefix, inf->name, p->name, signature(c, inf));
		}
	}
	/* an int literal bound by keyword to an `attr: keyword` param is the
	 * reference's attribute: it moves to the kwarg of that name */
	int last = plan->last;
	for (int i = call->nargs; i < np && !in_place; i++) {
		int k = inf->param[i]->attr_kwarg;
		if (k >= 0 && slots[i] && slots[i]->kind == EX_INT && slots[i]->dtype == DT_INDEX) {
			slots[np + k] = slots[i];
			slots[i] = NULL;
			while (last >= 0 && !slots[last])
				last--;
		}
	}
	/* positional arguments: through the last one that prints; past the
	 * plan's, only a bound argument equal to its default may be dropped */
	for (int i = last + 1; i < np; i++)
		if (plan->prints[i] == PRINT_UNLESS_DEFAULT && !equals_const(slots[i], &inf->param[i]->def, slots))
			last = i;
	/* canonical text already has every argument: refill the parsed arrays
	 * (slots holds the values) instead of allocating new ones */
	Expr **args = last < call->nargs ? call->args : arena_alloc(c->a, (size_t)(last + 2) * sizeof *args);
	for (int i = 0; i <= last && args != slots; i++) {
		if (!slots[i])
			slots[i] = tr_list(c, NULL, 0, call->pos); /* filler before a later argument */
		args[i] = slots[i];
	}
	int nk = 0;
	Kwarg *kw = plan->nkwout <= call->nkw ? call->kw : arena_alloc(c->a, (size_t)(plan->nkwout + 1) * sizeof *kw);
	for (int o = 0; o < plan->nkwout; o++) {
		int i = plan->kwout[o];
		if (plan->prints[i] == PRINT_IF_SET ? slots[i] != NULL
		    : plan->prints[i] == PRINT_ALWAYS || !equals_const(slots[i], &inf->param[i]->def, slots))
			kw[nk++] = (Kwarg){ inf->pname[i], slots[i] };
	}
	call->args = args;
	call->nargs = last + 1;
	call->kw = kw;
	call->nkw = nk;
	RuleCtx rc = { c, inf->op, &inf->op->result, slots, call, false };
	call->type = typerule_infer(&rc, &inf->op->result);
	if (rc.failed)
		return NULL;
	if (late >= 0) {
		slots[late] = late_value;
		check_arg(c, inf, late, slots, call);
		return NULL;
	}
	return call;
fail:
	return NULL;
}

/* the reference's wording for a name its DSL lacks: "Unknown pl.tile
 * operation: exq" in a namespace it has, "Unknown operation 'pl.tiles'" for
 * one it has not, "Unknown distributed operation 'pld.x.y'" */
static void unknown_words(const char *name, char *what, size_t n)
{
	const char *dot = strchr(name, '.');
	static const char *const spaces[] = { "tensor.", "tile.", "system.", "array.", "prefetch.", NULL };
	bool in_space = false;
	for (int i = 0; dot && spaces[i]; i++)
		in_space |= !strncmp(name, spaces[i], strlen(spaces[i]));
	if (!strncmp(name, "pld.", 4))
		snprintf(what, n, "Unknown distributed operation '%s'", name);
	else if (in_space)
		snprintf(what, n, "Unknown pl.%.*s operation: %s", (int)(dot - name), name, dot + 1);
	else
		snprintf(what, n, "Unknown operation 'pl.%.*s'", dot ? (int)(dot - name) : (int)strlen(name), name);
}

/* A call of a name neither the registry nor the DSL knows: an error with
 * the nearest registered name, or under --allow-unregistered-ops the call
 * as written, untyped, every argument read, after one warning per name. */
static Expr *unregistered(SugarCtx *c, const OpInfo *inf, Expr *call)
{
	OpRegistry *r = c->reg;
	if (r->allow_unregistered) {
		const char *k = intern_cstr(&r->arena, inf->name);
		if (!pmap_get(&r->warned, k)) {
			pmap_put(&r->warned, k, (void *)1);
			diag_warning(c->d, call->pos.line, call->pos.col,
				     "unregistered operation '%s%s' passed through as written (its arguments are taken as read)",
				     inf->prefix, inf->name);
		}
		return call;
	}
	char what[256];
	unknown_words(inf->name, what, sizeof what);
	const char *near = ops_suggest(r, inf->name);
	if (near)
		FAIL("%s; did you mean '%s%s'? (--allow-unregistered-ops lets unknown operations through)", what,
		     strncmp(near, "pld.", 4) ? "pl." : "", near);
	FAIL("%s: not in the op registry (data/ops.yaml; --ops FILE.yaml adds operations, "
	     "--allow-unregistered-ops lets unknown ones through)", what);
fail:
	return NULL;
}

/* A dispatch case with `positional:` names: the DSL spelling's positional
 * arguments become keyword arguments of those names (its parameter order
 * differs from the op's), ahead of the call's own keywords. */
static int keyword_slot(const OpInfo *inf, const char *kn);

static bool positional_by_name(SugarCtx *c, const OpInfo *inf, const SugarDef *s, const SugarCase *sc, Expr *call)
{
	if (call->nargs > sc->nnames)
		FAIL("pl.%s takes at most %d positional argument%s (%d given)", s->name, sc->nnames, sc->nnames == 1 ? "" : "s",
		     call->nargs);
	Kwarg *kw = arena_alloc(c->a, (size_t)(call->nargs + call->nkw + 1) * sizeof *kw);
	for (int i = 0; i < call->nargs; i++) {
		kw[i] = (Kwarg){ intern_cstr(c->a, sc->names[i]), call->args[i] };
		int j = keyword_slot(inf, kw[i].name);
		/* Python's "multiple values" error comes first */
		if (j >= 0 && !has_keyword(call, kw[i].name) && !attr_fits(c, inf, call, j, &call->args[i], true))
			return false;
	}
	for (int k = 0; k < call->nkw; k++)
		kw[call->nargs + k] = call->kw[k];
	call->nkw += call->nargs;
	call->kw = kw;
	call->nargs = 0;
	return true;
fail:
	return false;
}

/* A dispatch case with `append: KW`: keyword KW becomes the call's last
 * positional argument (pl.mrgsort's tmp= closes the tile op's list). */
static void append_keyword(SugarCtx *c, Expr *call, const char *kw)
{
	for (int k = 0; k < call->nkw; k++) {
		if (strcmp(call->kw[k].name, kw))
			continue;
		Expr **args = arena_alloc(c->a, (size_t)(call->nargs + 2) * sizeof *args);
		memcpy(args, call->args, (size_t)call->nargs * sizeof *args);
		args[call->nargs++] = call->kw[k].value;
		call->args = args;
		memmove(call->kw + k, call->kw + k + 1, (size_t)(call->nkw - k - 1) * sizeof *call->kw);
		call->nkw--;
		return;
	}
}

Expr *sugar_lower_call(SugarCtx *c, Expr *call)
{
	OpInfo *inf = op_info(c, call->str);
	if (inf->sugar) {
		const SugarDef *s = inf->sugar;
		int k = dispatch(c, call, s);
		if (k < 0)
			return NULL;
		const SugarCase *sc = &s->cases[k];
		if (sc->error)
			FAIL("pl.%s: %s", s->name, sc->error);
		if (!sc->op) {
			if (call->nargs != 2 || call->nkw)
				FAIL("pl.%s on scalars takes exactly two positional arguments", s->name);
			return type_make_binary(c->a, (BinOp)sc->binary, call->args[0], call->args[1], call->pos, c->d);
		}
		if (!inf->cases[k])
			inf->cases[k] = op_info(c, intern_cstr(c->a, sc->op));
		inf = inf->cases[k];
		call->str = inf->name;
		if (sc->nnames && call->nargs && inf->op && !positional_by_name(c, inf, s, sc, call))
			return NULL;
		if (sc->append_kw)
			append_keyword(c, call, sc->append_kw);
		if (sc->set_kw) {
			for (int i = 0; i < call->nkw; i++)
				if (!strcmp(call->kw[i].name, sc->set_kw))
					FAIL("%s%s sets '%s' itself; it takes no '%s' argument", inf->prefix, s->name, sc->set_kw,
					     sc->set_kw);
			Kwarg *kw = arena_alloc(c->a, (size_t)(call->nkw + 1) * sizeof *kw);
			memcpy(kw, call->kw, (size_t)call->nkw * sizeof *kw);
			Expr *t = ir_expr_new(c->a, EX_BOOL, call->pos);
			t->ival = 1;
			kw[call->nkw++] = (Kwarg){ intern_cstr(c->a, sc->set_kw), t };
			call->kw = kw;
		}
	}
	if (!inf->op)
		return unregistered(c, inf, call);
	if (inf->op->internal) {
		char what[256];
		unknown_words(inf->name, what, sizeof what);
		FAIL("%s (%s%s is an op only the reference's passes create; its DSL has no such function)", what, inf->prefix,
		     inf->name);
	}
	int n = inf->n;
	if (!dsl_positional(c, inf, call))
		return NULL;
	if (call->nargs > n)
		FAIL("%s%s takes at most %d argument%s (%d given; signature: %s)", inf->prefix, inf->name, n, n == 1 ? "" : "s",
		     call->nargs, signature(c, inf));
	bool temporary;
	CallPlan *plan = call_plan(c, inf, call, &temporary);
	if (!plan)
		return NULL;
	Expr *r = lower_planned(c, inf, plan, call);
	if (temporary)
		free(plan);
	return r;
fail:
	return NULL;
}
