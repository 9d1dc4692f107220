/* arith.c - the reference's arithmetic analyzer (src/ir/arith/): dtype
 * promotion, constant folding, the rewrite simplifier, constant-integer
 * bounds, transitive comparisons, symbolic integer sets and the
 * standalone canonical simplifier.  See arith.h.
 *
 * The rewrite rules are data: each operator has a table of (pattern,
 * result, condition) entries, written in a small pattern language and
 * parsed once, tried in the reference's order.  A pattern variable x / y /
 * z matches any expression (a repeated one must be equal, arith_expr_equal),
 * c1 / c2 / c3 an integer constant, an integer literal any integer
 * constant of that value; in a result a literal takes the dtype of its
 * sibling operand, Z is a zero of the node's dtype, ZA a zero of its left
 * operand's dtype, T / F the booleans.  Results are built bottom-up with
 * constant folding (as the reference's pattern Eval does) and then
 * rewritten again, at most five levels deep.
 */
#include "ptoopt/arith.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/typerule.h"
#include "ptoopt/types.h"

/* ------------------------------------------------------------ the analyzer */

typedef struct ISet {
	Expr *lo, *hi; /* NULL: unbounded */
} ISet;

typedef struct Cmp {
	const void *lhs, *rhs; /* keys */
	int64_t off;
	int res; /* CR_* */
	bool dead;       /* a removed binding */
	uint64_t serial; /* which comparison this slot holds */
} Cmp;

/* per key: its comparisons among the bindings / the scoped ones */
typedef struct KeyRef {
	size_t idx;
	uint64_t serial;
} KeyRef;

typedef struct KeyInfo {
	KeyRef *kn, *sc;
	size_t nkn, ckn, nsc, csc;
} KeyInfo;


/* CompareResult bits */
enum { CR_INCONS = 0, CR_EQ = 1, CR_LT = 2, CR_LE = 3, CR_GT = 4, CR_GE = 5, CR_NE = 6, CR_UNKNOWN = 7 };

typedef struct BoundUndo {
	Var *v;
	ArithBound *old;
} BoundUndo;

typedef struct SetUndo {
	Var *v;
	ISet *old;
} SetUndo;

typedef struct Ctx {
	size_t bound_mark, set_mark, scoped_mark;
} Ctx;

typedef struct Split {
	Expr *index;
	int64_t lower, upper, scale;
} Split;

typedef struct Sum {
	int64_t base;
	Split *args;
	int n;
	DType dtype;
} Sum;

struct Analyzer {
	Arena *a;
	const char *err;
	char errbuf[256]; /* err's text: proofs roll the arena back */
	PtrMap cib;  /* Var -> ArithBound* */
	PtrMap rw;   /* Var -> Expr* */
	PtrMap iset; /* Var -> ISet* */
	int depth;   /* rewrite recursion */
	bool in_int_set_eval;
	/* transitive comparisons */
	PtrMap keyset; /* key -> KeyInfo* */
	KeyInfo **keyinfos;
	size_t nkeyinfos, ckeyinfos;
	uint64_t serial;
	Cmp *knowns;
	size_t nknowns, cknowns;
	Cmp *scoped;
	size_t nscoped, cscoped;
	/* constraint recovery */
	BoundUndo *bundo;
	size_t nbundo, cbundo;
	SetUndo *sundo;
	size_t nsundo, csundo;
	Ctx *ctx;
	size_t nctx, cctx;
	/* the canonical simplifier's per-call cache: Expr -> Sum* */
	PtrMap sums;
	/* nodes the rewrite simplifier returned unchanged: Expr -> generation.
	 * Whether no rule applies anywhere in a node depends only on the
	 * bindings and constraints (not on the recursion depth), so the entries
	 * of the current generation stand until those change (or a proof rolls
	 * the arena back); without it every ancestor's simplification walks
	 * the whole subtree again */
	PtrMap memo;
	uintptr_t gen;
};

static void state_changed(Analyzer *an) { an->gen++; }

static Expr zero_key_node; /* the transitive table's zero sentinel */

static void fail(Analyzer *an, const char *msg)
{
	if (!an->err) {
		snprintf(an->errbuf, sizeof an->errbuf, "%s", msg);
		an->err = an->errbuf;
	}
}

const char *arith_error(const Analyzer *an) { return an->err; }

#define GROW(arr, n, cap)                                                         \
	do {                                                                      \
		if ((n) == (cap)) {                                               \
			(cap) = (cap) ? (cap) * 2 : 32;                           \
			(arr) = xrealloc((arr), (cap) * sizeof *(arr));           \
		}                                                                 \
	} while (0)

Analyzer *arith_new(Arena *a)
{
	Analyzer *an = xmalloc(sizeof *an);
	memset(an, 0, sizeof *an);
	an->a = a;
	an->gen = 1;
	/* the shared scalar types exist before any proof rolls the arena back */
	for (int d = 0; d < DT_COUNT; d++)
		(void)ir_scalar_type(a, (DType)d);
	return an;
}

void arith_free(Analyzer *an)
{
	if (!an)
		return;
	pmap_release(&an->cib);
	pmap_release(&an->rw);
	pmap_release(&an->iset);
	pmap_release(&an->keyset);
	for (size_t i = 0; i < an->nkeyinfos; i++) {
		free(an->keyinfos[i]->kn);
		free(an->keyinfos[i]->sc);
	}
	free(an->keyinfos);
	pmap_release(&an->sums);
	pmap_release(&an->memo);
	free(an->knowns);
	free(an->scoped);
	free(an->bundo);
	free(an->sundo);
	free(an->ctx);
	free(an);
}

/* ------------------------------------------------------------ dtypes and nodes */

int arith_dtype(const Expr *e)
{
	switch (e->kind) {
	case EX_INT: case EX_FLOAT: case EX_CAST: return e->dtype;
	case EX_BOOL: return DT_BOOL;
	default: break;
	}
	Type *t = ir_expr_type((Expr *)e);
	if (!t)
		return -1;
	return t->kind == TY_SCALAR ? (int)t->dtype : -1;
}

/* the dtype of an operand, INDEX for one the parser left untyped */
static DType dt_of(const Expr *e)
{
	int d = arith_dtype(e);
	if (d >= 0)
		return (DType)d;
	Type *t = ir_expr_type((Expr *)e);
	return !t || t->kind == TY_UNKNOWN ? DT_INDEX : DT_COUNT;
}

static bool is_float_dt(DType d) { return d < DT_COUNT && ir_dtype_is_float(d); }
static bool is_int_dt(DType d) { return d < DT_COUNT && ir_dtype_is_int(d); }

static bool is_float_expr(const Expr *e)
{
	int d = arith_dtype(e);
	return d >= 0 && ir_dtype_is_float((DType)d);
}

static Expr *mk_int(Arena *a, int64_t v, DType dt) { return ir_int(a, v, dt); }

static Expr *mk_float(Arena *a, double v, DType dt)
{
	Expr *e = ir_expr_new(a, EX_FLOAT, (SrcPos){ 0, 0 });
	e->fval = v;
	e->dtype = (uint8_t)dt;
	e->type = ir_scalar_type(a, dt);
	return e;
}

static Expr *mk_bool(Arena *a, bool v)
{
	Expr *e = ir_expr_new(a, EX_BOOL, (SrcPos){ 0, 0 });
	e->ival = v;
	e->dtype = DT_BOOL;
	e->type = ir_scalar_type(a, DT_BOOL);
	return e;
}

static Expr *raw_binary(Arena *a, BinOp op, Expr *l, Expr *r, DType dt)
{
	Expr *e = ir_expr_new(a, EX_BINARY, l->pos);
	e->op = (uint8_t)op;
	e->lhs = l;
	e->rhs = r;
	e->type = ir_scalar_type(a, dt);
	return e;
}

static Expr *raw_unary(Arena *a, UnOp op, Expr *x, DType dt)
{
	Expr *e = ir_expr_new(a, EX_UNARY, x->pos);
	e->op = (uint8_t)op;
	e->lhs = x;
	e->type = ir_scalar_type(a, dt);
	return e;
}

static Expr *mk_cast(Arena *a, Expr *x, DType dt)
{
	Expr *c = ir_expr_new(a, EX_CAST, x->pos);
	c->lhs = x;
	c->dtype = (uint8_t)dt;
	c->type = ir_scalar_type(a, dt);
	return c;
}

static const char *op_name(BinOp op)
{
	static const char *const n[] = {
		[OP_OR] = "or", [OP_XOR] = "xor", [OP_AND] = "and", [OP_EQ] = "eq", [OP_NE] = "ne",
		[OP_LT] = "lt", [OP_LE] = "le", [OP_GT] = "gt", [OP_GE] = "ge", [OP_BITOR] = "bit_or",
		[OP_BITXOR] = "bit_xor", [OP_BITAND] = "bit_and", [OP_SHL] = "bit_shift_left",
		[OP_SHR] = "bit_shift_right", [OP_ADD] = "add", [OP_SUB] = "sub", [OP_MUL] = "mul",
		[OP_DIV] = "truediv", [OP_FLOORDIV] = "floordiv", [OP_MOD] = "mod", [OP_POW] = "pow",
		[OP_MIN] = "min", [OP_MAX] = "max",
	};
	return n[op];
}

static bool is_cmp(BinOp op) { return op >= OP_EQ && op <= OP_GE; }
static bool is_bitop(BinOp op) { return op >= OP_BITOR && op <= OP_SHR; }

static const char *dts(DType d) { return d < DT_COUNT ? tr_dtype_str(d) : "unknown"; }

/* MaybeCast: INDEX and INT64 are one */
static Expr *maybe_cast(Arena *a, Expr *x, DType from, DType to)
{
	if (from == to || (from == DT_INDEX && to == DT_INT64) || (from == DT_INT64 && to == DT_INDEX))
		return x;
	return mk_cast(a, x, to);
}

Expr *arith_make_binary(Analyzer *an, BinOp op, Expr *l, Expr *r)
{
	Arena *a = an->a;
	if (op == OP_AND || op == OP_OR || op == OP_XOR)
		return raw_binary(a, op, l, r, DT_BOOL);
	DType lt = dt_of(l), rt = dt_of(r);
	const char *name = op_name(op);
	if (lt == DT_COUNT || rt == DT_COUNT) {
		fail(an, "Expression must be ScalarExpr or Var with ScalarType");
		return raw_binary(a, op, l, r, is_cmp(op) ? DT_BOOL : DT_INDEX);
	}
	if (is_bitop(op) && (!is_int_dt(lt) || !is_int_dt(rt))) {
		fail(an, arena_printf(a, "Operator '%s' requires integer dtype, got %s and %s", name, dts(lt), dts(rt)));
		return raw_binary(a, op, l, r, lt);
	}
	if (lt == DT_BOOL || rt == DT_BOOL) {
		fail(an, arena_printf(a, "Operator '%s' does not accept bool dtype", name));
		return raw_binary(a, op, l, r, is_cmp(op) ? DT_BOOL : lt);
	}
	bool lf = is_float_dt(lt), rf = is_float_dt(rt);
	if ((!lf && !is_int_dt(lt)) || (!rf && !is_int_dt(rt))) {
		fail(an, arena_printf(a, "Operator '%s' requires numeric scalar dtype, got %s", name,
				      dts((!lf && !is_int_dt(lt)) ? lt : rt)));
		return raw_binary(a, op, l, r, is_cmp(op) ? DT_BOOL : lt);
	}
	if (lf != rf) {
		fail(an, arena_printf(a, "Operator '%s' requires same numeric dtype category, got %s and %s", name,
				      dts(lt), dts(rt)));
		return raw_binary(a, op, l, r, is_cmp(op) ? DT_BOOL : lt);
	}
	DType res = ir_dtype_bits(rt) > ir_dtype_bits(lt) ? rt : lt;
	l = maybe_cast(a, l, lt, res);
	r = maybe_cast(a, r, rt, res);
	return raw_binary(a, op, l, r, is_cmp(op) ? DT_BOOL : res);
}

Expr *arith_make_unary(Analyzer *an, UnOp op, Expr *x)
{
	Arena *a = an->a;
	if (op == UOP_NOT)
		return raw_unary(a, op, x, DT_BOOL);
	DType d = dt_of(x);
	if (d == DT_COUNT) {
		fail(an, "Expression must be ScalarExpr or Var with ScalarType");
		d = DT_INDEX;
	}
	if (op == UOP_BITNOT && !is_int_dt(d))
		fail(an, arena_printf(a, "Operator 'bit_not' requires integer dtype, got %s", dts(d)));
	return raw_unary(a, op, x, d);
}

#define MK(op, l, r) arith_make_binary(an, (op), (l), (r))

/* ------------------------------------------------------------ constant folding */

static bool add_ovf(int64_t a, int64_t b)
{
	return (b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b);
}

static bool sub_ovf(int64_t a, int64_t b)
{
	return (b > 0 && a < INT64_MIN + b) || (b < 0 && a > INT64_MAX + b);
}

static bool mul_ovf(int64_t a, int64_t b)
{
	if (a == 0 || b == 0)
		return false;
	if (b > 0)
		return a < INT64_MIN / b || a > INT64_MAX / b;
	if (b == -1)
		return a == INT64_MIN;
	return a > INT64_MIN / b || a < INT64_MAX / b;
}

static int64_t floor_div_i(int64_t a, int64_t b)
{
	int64_t q = a / b, r = a % b;
	return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t fmod_i(int64_t a, int64_t b)
{
	int64_t r = a % b;
	return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

static bool cint(const Expr *e) { return e && e->kind == EX_INT; }
static bool cfloat(const Expr *e) { return e && e->kind == EX_FLOAT; }

static bool is_const_v(const Expr *e, int64_t v)
{
	return (cint(e) && e->ival == v) || (cfloat(e) && e->fval == (double)v);
}

Expr *arith_fold_binary(Arena *a, BinOp op, Expr *l, Expr *r, const char **err)
{
	bool pa = cint(l), pb = cint(r), fa = cfloat(l), fb = cfloat(r);
	int64_t x = pa ? l->ival : 0, y = pb ? r->ival : 0;
	switch (op) {
	case OP_AND:
		if (l->kind == EX_BOOL) return l->ival ? r : l;
		if (r->kind == EX_BOOL) return r->ival ? l : r;
		return NULL;
	case OP_OR:
		if (l->kind == EX_BOOL) return l->ival ? l : r;
		if (r->kind == EX_BOOL) return r->ival ? r : l;
		return NULL;
	case OP_XOR:
		if (l->kind == EX_BOOL && r->kind == EX_BOOL) return mk_bool(a, l->ival != r->ival);
		return NULL;
	case OP_ADD:
		if (pa && pb) return add_ovf(x, y) ? NULL : mk_int(a, x + y, (DType)l->dtype);
		if (fa && fb) return mk_float(a, l->fval + r->fval, (DType)l->dtype);
		if (is_const_v(l, 0)) return r;
		if (is_const_v(r, 0)) return l;
		return NULL;
	case OP_SUB:
		if (pa && pb) return sub_ovf(x, y) ? NULL : mk_int(a, x - y, (DType)l->dtype);
		if (fa && fb) return mk_float(a, l->fval - r->fval, (DType)l->dtype);
		if (is_const_v(r, 0)) return l;
		return NULL;
	case OP_MUL:
		if (pa && pb) return mul_ovf(x, y) ? NULL : mk_int(a, x * y, (DType)l->dtype);
		if (fa && fb) return mk_float(a, l->fval * r->fval, (DType)l->dtype);
		if (is_const_v(l, 1)) return r;
		if (is_const_v(r, 1)) return l;
		if (pa && x == 0) return l;
		if (pb && y == 0) return r;
		return NULL;
	case OP_FLOORDIV:
		if (pa && pb) {
			if (y == 0 || (x == INT64_MIN && y == -1)) {
				if (err) *err = y == 0 ? "Floor division by zero" : "Floor division overflow: INT64_MIN // -1";
				return NULL;
			}
			return mk_int(a, floor_div_i(x, y), (DType)l->dtype);
		}
		if (pb && y == 1) return l;
		if (pb && y == 0 && err) *err = "Floor division by zero";
		return NULL;
	case OP_MOD:
		if (pa && pb) {
			if (y == 0 || (x == INT64_MIN && y == -1)) {
				if (err) *err = y == 0 ? "Floor modulo by zero" : "Floor modulo overflow: INT64_MIN % -1";
				return NULL;
			}
			return mk_int(a, fmod_i(x, y), (DType)l->dtype);
		}
		if (pb && y == 1) return mk_int(a, 0, (DType)r->dtype);
		if (pb && y == 0 && err) *err = "Floor modulo by zero";
		return NULL;
	case OP_DIV:
		if (fa && fb) return mk_float(a, l->fval / r->fval, (DType)l->dtype);
		if (fb && r->fval == 1) return l;
		return NULL;
	case OP_POW:
		if (pa && pb) {
			if (y < 0) {
				if (err) *err = "Integer power requires non-negative exponent";
				return NULL;
			}
			int64_t res = 1, cur = x, e = y;
			while (e > 0) {
				if (e & 1) {
					if (mul_ovf(res, cur)) return NULL;
					res *= cur;
				}
				e >>= 1;
				if (e > 0) {
					if (mul_ovf(cur, cur)) return NULL;
					cur *= cur;
				}
			}
			return mk_int(a, res, (DType)l->dtype);
		}
		if (fa && fb) return mk_float(a, pow(l->fval, r->fval), (DType)l->dtype);
		if (is_const_v(l, 1)) return l;
		if (pb && y == 0) {
			DType d = pa ? (DType)l->dtype : dt_of(l);
			if (d < DT_COUNT && ir_dtype_is_float(d)) return mk_float(a, 1.0, d);
			return mk_int(a, 1, d < DT_COUNT ? d : DT_INDEX);
		}
		if (is_const_v(r, 1)) return l;
		return NULL;
	case OP_MIN:
		if (pa && pb) return mk_int(a, x < y ? x : y, (DType)l->dtype);
		if (fa && fb) return mk_float(a, fmin(l->fval, r->fval), (DType)l->dtype);
		if (l == r) return l;
		return NULL;
	case OP_MAX:
		if (pa && pb) return mk_int(a, x > y ? x : y, (DType)l->dtype);
		if (fa && fb) return mk_float(a, fmax(l->fval, r->fval), (DType)l->dtype);
		if (l == r) return l;
		return NULL;
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
		int c;
		if (pa && pb)
			c = x < y ? -1 : x > y;
		else if (fa && fb)
			c = l->fval < r->fval ? -1 : l->fval > r->fval ? 1 : l->fval == r->fval ? 0 : 2;
		else
			return NULL;
		bool v;
		switch (op) {
		case OP_EQ: v = c == 0; break;
		case OP_NE: v = c != 0; break;
		case OP_LT: v = c == -1; break;
		case OP_LE: v = c == -1 || c == 0; break;
		case OP_GT: v = c == 1; break;
		default: v = c == 1 || c == 0; break;
		}
		return mk_bool(a, v);
	}
	case OP_BITAND: return pa && pb ? mk_int(a, x & y, (DType)l->dtype) : NULL;
	case OP_BITOR: return pa && pb ? mk_int(a, x | y, (DType)l->dtype) : NULL;
	case OP_BITXOR: return pa && pb ? mk_int(a, x ^ y, (DType)l->dtype) : NULL;
	case OP_SHL:
		if (pa && pb && y >= 0 && y < 64) return mk_int(a, (int64_t)((uint64_t)x << y), (DType)l->dtype);
		return NULL;
	case OP_SHR:
		if (pa && pb && y >= 0 && y < 64) return mk_int(a, x >> y, (DType)l->dtype);
		return NULL;
	}
	return NULL;
}

Expr *arith_fold_unary(Arena *a, UnOp op, Expr *x)
{
	switch (op) {
	case UOP_NEG:
		if (cint(x)) return x->ival == INT64_MIN ? NULL : mk_int(a, -x->ival, (DType)x->dtype);
		if (cfloat(x)) return mk_float(a, -x->fval, (DType)x->dtype);
		return NULL;
	case UOP_ABS:
		if (cint(x)) return x->ival == INT64_MIN ? NULL : mk_int(a, x->ival < 0 ? -x->ival : x->ival, (DType)x->dtype);
		if (cfloat(x)) return mk_float(a, fabs(x->fval), (DType)x->dtype);
		return NULL;
	case UOP_NOT:
		return x->kind == EX_BOOL ? mk_bool(a, !x->ival) : NULL;
	case UOP_BITNOT:
		return cint(x) ? mk_int(a, ~x->ival, (DType)x->dtype) : NULL;
	}
	return NULL;
}

static Expr *fold2(Analyzer *an, BinOp op, Expr *l, Expr *r)
{
	const char *err = NULL;
	Expr *f = arith_fold_binary(an->a, op, l, r, &err);
	if (err)
		fail(an, err);
	return f;
}

/* ------------------------------------------------------------ equality */

bool arith_expr_equal(const Expr *a, const Expr *b) { return expr_equal_deep(a, b); }

/* ------------------------------------------------------------ constant-integer bounds */

static ArithBound everything(void) { return (ArithBound){ ARITH_NEG_INF, ARITH_POS_INF }; }

static int64_t inf_add(int64_t a, int64_t b)
{
	if (a == ARITH_POS_INF || b == ARITH_POS_INF) return ARITH_POS_INF;
	if (a == ARITH_NEG_INF || b == ARITH_NEG_INF) return ARITH_NEG_INF;
	if (add_ovf(a, b)) return b > 0 ? ARITH_POS_INF : ARITH_NEG_INF;
	return a + b;
}

static int64_t inf_mul(int64_t a, int64_t b)
{
	if (a == 0 || b == 0) return 0;
	bool pos = (a > 0) == (b > 0);
	if (a == ARITH_POS_INF || a == ARITH_NEG_INF || b == ARITH_POS_INF || b == ARITH_NEG_INF)
		return pos ? ARITH_POS_INF : ARITH_NEG_INF;
	if (mul_ovf(a, b)) return pos ? ARITH_POS_INF : ARITH_NEG_INF;
	return a * b;
}

static int64_t inf_neg(int64_t a)
{
	if (a == ARITH_POS_INF) return ARITH_NEG_INF;
	if (a == ARITH_NEG_INF) return ARITH_POS_INF;
	if (a == INT64_MIN) return ARITH_POS_INF;
	return -a;
}

static int64_t inf_pow(int64_t base, int64_t exp)
{
	if (exp == 0) return 1;
	if (base == 0) return 0;
	if (base == 1) return 1;
	int64_t result = 1, b = base, e = exp;
	while (e > 0) {
		if (e & 1) {
			result = inf_mul(result, b);
			if (result == ARITH_POS_INF || result == ARITH_NEG_INF) return result;
		}
		e >>= 1;
		if (e > 0) {
			b = inf_mul(b, b);
			if (b == ARITH_POS_INF || b == ARITH_NEG_INF)
				return (result > 0) == (base > 0 || (exp & 1) == 0) ? ARITH_POS_INF : ARITH_NEG_INF;
		}
	}
	return result;
}

static int64_t min4(int64_t a, int64_t b, int64_t c, int64_t d)
{
	int64_t m = a < b ? a : b;
	m = m < c ? m : c;
	return m < d ? m : d;
}

static int64_t max4(int64_t a, int64_t b, int64_t c, int64_t d)
{
	int64_t m = a > b ? a : b;
	m = m > c ? m : c;
	return m > d ? m : d;
}

static ArithBound fdiv_pos(ArithBound a, ArithBound b)
{
	int64_t lo = a.lo >= 0 ? floor_div_i(a.lo, b.hi) : floor_div_i(a.lo, b.lo);
	int64_t hi = a.hi >= 0 ? floor_div_i(a.hi, b.lo) : floor_div_i(a.hi, b.hi);
	return (ArithBound){ lo, hi };
}

static ArithBound default_bound(const Var *v)
{
	if (v->type && v->type->kind == TY_SCALAR && v->type->dtype == DT_INDEX)
		return (ArithBound){ 0, ARITH_POS_INF };
	return everything();
}

static ArithBound bound_of(Analyzer *an, const Expr *e)
{
	ArithBound a, b;
	switch (e->kind) {
	case EX_INT: return (ArithBound){ e->ival, e->ival };
	case EX_BOOL: return (ArithBound){ e->ival ? 1 : 0, e->ival ? 1 : 0 };
	case EX_FLOAT: {
		double v = e->fval;
		if (isnan(v) || isinf(v)) return everything();
		double lo = floor(v), hi = ceil(v);
		int64_t li = lo < (double)ARITH_NEG_INF ? ARITH_NEG_INF : (int64_t)lo;
		int64_t hiv = hi > (double)ARITH_POS_INF ? ARITH_POS_INF : (int64_t)hi;
		return (ArithBound){ li, hiv };
	}
	case EX_VAR: {
		ArithBound *p = pmap_get(&an->cib, e->var);
		return p ? *p : default_bound(e->var);
	}
	case EX_BINARY:
		switch ((BinOp)e->op) {
		case OP_ADD:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			return (ArithBound){ inf_add(a.lo, b.lo), inf_add(a.hi, b.hi) };
		case OP_SUB:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			return (ArithBound){ inf_add(a.lo, inf_neg(b.hi)), inf_add(a.hi, inf_neg(b.lo)) };
		case OP_MUL: {
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			int64_t v0 = inf_mul(a.lo, b.lo), v1 = inf_mul(a.lo, b.hi), v2 = inf_mul(a.hi, b.lo),
				v3 = inf_mul(a.hi, b.hi);
			return (ArithBound){ min4(v0, v1, v2, v3), max4(v0, v1, v2, v3) };
		}
		case OP_FLOORDIV:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			if (b.lo > 0)
				return fdiv_pos(a, b);
			if (b.hi < 0)
				return fdiv_pos((ArithBound){ inf_neg(a.hi), inf_neg(a.lo) },
						(ArithBound){ inf_neg(b.hi), inf_neg(b.lo) });
			return everything();
		case OP_MOD:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			if (b.lo > 0) {
				if (a.lo >= 0)
					return (ArithBound){ 0, a.hi < b.hi - 1 ? a.hi : b.hi - 1 };
				return (ArithBound){ 0, b.hi - 1 };
			}
			return everything();
		case OP_DIV: return everything();
		case OP_MIN:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			return (ArithBound){ a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi };
		case OP_MAX:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			return (ArithBound){ a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi };
		case OP_POW: {
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			if (b.lo != b.hi || b.lo < 0) return everything();
			if (b.lo == 0) return (ArithBound){ 1, 1 };
			if (b.lo == 1) return a;
			if (a.lo >= 0) return (ArithBound){ inf_pow(a.lo, b.lo), inf_pow(a.hi, b.lo) };
			return everything();
		}
		case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
		case OP_AND: case OP_OR: case OP_XOR:
			return (ArithBound){ 0, 1 };
		case OP_BITAND:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			if (a.lo >= 0 && b.lo >= 0) return (ArithBound){ 0, a.hi < b.hi ? a.hi : b.hi };
			return everything();
		case OP_BITOR:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			if (a.lo >= 0 && b.lo >= 0) return (ArithBound){ a.lo > b.lo ? a.lo : b.lo, inf_add(a.hi, b.hi) };
			return everything();
		case OP_BITXOR: return everything();
		case OP_SHL:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			if (a.lo >= 0 && b.lo >= 0 && b.hi < 63)
				return (ArithBound){ inf_mul(a.lo, (int64_t)1 << b.lo), inf_mul(a.hi, (int64_t)1 << b.hi) };
			return everything();
		case OP_SHR:
			a = bound_of(an, e->lhs), b = bound_of(an, e->rhs);
			if (a.lo >= 0 && b.lo >= 0 && b.hi < 63) return (ArithBound){ a.lo >> b.hi, a.hi >> b.lo };
			return everything();
		}
		return everything();
	case EX_UNARY:
		a = bound_of(an, e->lhs);
		switch ((UnOp)e->op) {
		case UOP_NEG: return (ArithBound){ inf_neg(a.hi), inf_neg(a.lo) };
		case UOP_ABS:
			if (a.lo >= 0) return a;
			if (a.hi <= 0) return (ArithBound){ inf_neg(a.hi), inf_neg(a.lo) };
			return (ArithBound){ 0, inf_neg(a.lo) > a.hi ? inf_neg(a.lo) : a.hi };
		case UOP_NOT: return (ArithBound){ 0, 1 };
		case UOP_BITNOT: return everything();
		}
		return everything();
	case EX_CAST: {
		a = bound_of(an, e->lhs);
		DType d = (DType)e->dtype;
		if (!ir_dtype_is_int(d)) return everything();
		int bits = ir_dtype_bits(d);
		if (bits == 0 || bits >= 64) return a;
		int64_t tmin, tmax;
		if (d == DT_UINT4 || d == DT_UINT8 || d == DT_UINT16 || d == DT_UINT32 || d == DT_UINT64) {
			tmin = 0;
			tmax = ((int64_t)1 << bits) - 1;
		} else {
			tmin = -((int64_t)1 << (bits - 1));
			tmax = ((int64_t)1 << (bits - 1)) - 1;
		}
		return (ArithBound){ a.lo > tmin ? a.lo : tmin, a.hi < tmax ? a.hi : tmax };
	}
	default:
		return everything();
	}
}

ArithBound arith_bound(Analyzer *an, Expr *e) { return bound_of(an, e); }

static void bound_set(Analyzer *an, Var *v, ArithBound b)
{
	state_changed(an);
	ArithBound *p = arena_alloc(an->a, sizeof *p);
	*p = b;
	pmap_put(&an->cib, v, p);
}

/* EnterConstraint of the bound analyzer: x OP const for a plain Var x */
static void bound_tighten(Analyzer *an, Var *v, ArithBound nb)
{
	ArithBound *old = pmap_get(&an->cib, v);
	GROW(an->bundo, an->nbundo, an->cbundo);
	an->bundo[an->nbundo++] = (BoundUndo){ v, old };
	ArithBound o = old ? *old : default_bound(v);
	bound_set(an, v, (ArithBound){ o.lo > nb.lo ? o.lo : nb.lo, o.hi < nb.hi ? o.hi : nb.hi });
}

static Var *plain_var(const Expr *e)
{
	return e->kind == EX_VAR && e->var->kind != VK_ITER_ARG ? e->var : NULL;
}

static void bound_parse_constraint(Analyzer *an, const Expr *e)
{
	if (e->kind != EX_BINARY)
		return;
	Var *lv = plain_var(e->lhs), *rv = plain_var(e->rhs);
	ArithBound b;
	switch ((BinOp)e->op) {
	case OP_GE:
		if (lv) {
			b = bound_of(an, e->rhs);
			if (b.lo == b.hi) bound_tighten(an, lv, (ArithBound){ b.lo, ARITH_POS_INF });
		} else if (rv) {
			b = bound_of(an, e->lhs);
			if (b.lo == b.hi) bound_tighten(an, rv, (ArithBound){ ARITH_NEG_INF, b.hi });
		}
		return;
	case OP_GT:
		if (lv) {
			b = bound_of(an, e->rhs);
			if (b.lo == b.hi) bound_tighten(an, lv, (ArithBound){ inf_add(b.lo, 1), ARITH_POS_INF });
		} else if (rv) {
			b = bound_of(an, e->lhs);
			if (b.lo == b.hi) bound_tighten(an, rv, (ArithBound){ ARITH_NEG_INF, inf_add(b.hi, -1) });
		}
		return;
	case OP_LE:
		if (lv) {
			b = bound_of(an, e->rhs);
			if (b.lo == b.hi) bound_tighten(an, lv, (ArithBound){ ARITH_NEG_INF, b.hi });
		} else if (rv) {
			b = bound_of(an, e->lhs);
			if (b.lo == b.hi) bound_tighten(an, rv, (ArithBound){ b.lo, ARITH_POS_INF });
		}
		return;
	case OP_LT:
		if (lv) {
			b = bound_of(an, e->rhs);
			if (b.lo == b.hi) bound_tighten(an, lv, (ArithBound){ ARITH_NEG_INF, inf_add(b.hi, -1) });
		} else if (rv) {
			b = bound_of(an, e->lhs);
			if (b.lo == b.hi) bound_tighten(an, rv, (ArithBound){ inf_add(b.lo, 1), ARITH_POS_INF });
		}
		return;
	case OP_EQ:
		if (lv) {
			b = bound_of(an, e->rhs);
			if (b.lo == b.hi) bound_tighten(an, lv, b);
		} else if (rv) {
			b = bound_of(an, e->lhs);
			if (b.lo == b.hi) bound_tighten(an, rv, b);
		}
		return;
	case OP_AND:
		bound_parse_constraint(an, e->lhs);
		bound_parse_constraint(an, e->rhs);
		return;
	default:
		return;
	}
}

/* ------------------------------------------------------------ rewrite patterns */

enum { P_X, P_Y, P_Z, P_C1, P_C2, P_C3, P_LIT, P_ZR, P_ZA, P_TRUE, P_FALSE, P_BIN, P_UN };
#define NSLOTS 6

typedef struct Pat {
	uint8_t kind, op;
	int64_t lit;
	struct Pat *l, *r;
} Pat;

static Pat pat_pool[6000];
static int pat_used;

static Pat *pat_new(uint8_t kind)
{
	if (pat_used >= (int)(sizeof pat_pool / sizeof pat_pool[0])) {
		fprintf(stderr, "ptoopt: internal error: rewrite pattern pool exhausted\n");
		abort();
	}
	Pat *p = &pat_pool[pat_used++];
	p->kind = kind;
	return p;
}

typedef struct PParse {
	const char *s;
} PParse;

static void pp_ws(PParse *pp)
{
	while (*pp->s == ' ')
		pp->s++;
}

static bool pp_eat(PParse *pp, const char *t)
{
	pp_ws(pp);
	size_t n = strlen(t);
	if (strncmp(pp->s, t, n) == 0) {
		pp->s += n;
		return true;
	}
	return false;
}

static Pat *pp_expr(PParse *pp, int level);

static Pat *pp_bin(uint8_t op, Pat *l, Pat *r)
{
	Pat *p = pat_new(P_BIN);
	p->op = op;
	p->l = l;
	p->r = r;
	return p;
}

static void pp_bad(const PParse *pp)
{
	fprintf(stderr, "ptoopt: internal error: bad rewrite pattern at '%s'\n", pp->s);
	abort();
}

static Pat *pp_atom(PParse *pp)
{
	pp_ws(pp);
	static const struct { const char *name; uint8_t op; } fns[] = {
		{ "min(", OP_MIN }, { "max(", OP_MAX }, { "fd(", OP_FLOORDIV }, { "fm(", OP_MOD },
	};
	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
		if (pp_eat(pp, fns[i].name)) {
			Pat *l = pp_expr(pp, 0);
			if (!pp_eat(pp, ","))
				pp_bad(pp);
			Pat *r = pp_expr(pp, 0);
			if (!pp_eat(pp, ")"))
				pp_bad(pp);
			return pp_bin(fns[i].op, l, r);
		}
	}
	if (pp_eat(pp, "neg(") || pp_eat(pp, "not(")) {
		bool neg = pp->s[-2] == 'g';
		Pat *x = pp_expr(pp, 0);
		if (!pp_eat(pp, ")"))
			pp_bad(pp);
		Pat *p = pat_new(P_UN);
		p->op = neg ? UOP_NEG : UOP_NOT;
		p->l = x;
		return p;
	}
	if (pp_eat(pp, "(")) {
		Pat *x = pp_expr(pp, 0);
		if (!pp_eat(pp, ")"))
			pp_bad(pp);
		return x;
	}
	if (pp_eat(pp, "c1")) return pat_new(P_C1);
	if (pp_eat(pp, "c2")) return pat_new(P_C2);
	if (pp_eat(pp, "c3")) return pat_new(P_C3);
	if (pp_eat(pp, "ZA")) return pat_new(P_ZA);
	if (pp_eat(pp, "Z")) return pat_new(P_ZR);
	if (pp_eat(pp, "T")) return pat_new(P_TRUE);
	if (pp_eat(pp, "F")) return pat_new(P_FALSE);
	if (pp_eat(pp, "x")) return pat_new(P_X);
	if (pp_eat(pp, "y")) return pat_new(P_Y);
	if (pp_eat(pp, "z")) return pat_new(P_Z);
	if (*pp->s >= '0' && *pp->s <= '9') {
		Pat *p = pat_new(P_LIT);
		p->lit = strtoll(pp->s, (char **)&pp->s, 10);
		return p;
	}
	pp_bad(pp);
	return NULL;
}

/* levels: 0 ||, 1 &&, 2 comparisons, 3 + -, 4 * */
static Pat *pp_expr(PParse *pp, int level)
{
	if (level == 5)
		return pp_atom(pp);
	Pat *l = pp_expr(pp, level + 1);
	for (;;) {
		uint8_t op;
		pp_ws(pp);
		if (level == 0 && pp_eat(pp, "||")) op = OP_OR;
		else if (level == 1 && pp_eat(pp, "&&")) op = OP_AND;
		else if (level == 2 && pp_eat(pp, "==")) op = OP_EQ;
		else if (level == 2 && pp_eat(pp, "!=")) op = OP_NE;
		else if (level == 2 && pp_eat(pp, "<=")) op = OP_LE;
		else if (level == 2 && pp_eat(pp, ">=")) op = OP_GE;
		else if (level == 2 && pp_eat(pp, "<")) op = OP_LT;
		else if (level == 2 && pp_eat(pp, ">")) op = OP_GT;
		else if (level == 3 && pp_eat(pp, "+")) op = OP_ADD;
		else if (level == 3 && pp_eat(pp, "-")) op = OP_SUB;
		else if (level == 4 && pp_eat(pp, "*")) op = OP_MUL;
		else return l;
		Pat *r = pp_expr(pp, level + 1);
		l = pp_bin(op, l, r);
	}
}

static Pat *pat_parse(const char *s)
{
	PParse pp = { s };
	Pat *p = pp_expr(&pp, 0);
	pp_ws(&pp);
	if (*pp.s)
		pp_bad(&pp);
	return p;
}

/* conditions of the reference's PYPTO_TRY_REWRITE_IF */
enum {
	K_NONE, K_C1_NZ, K_C1_NEG, K_C1_POS, K_C2_POS, K_C2POS_C1DIV, K_C1POS_C2DIV, K_C1POS_C2POS, K_C1POS_C3POS,
	K_X_NZ, K_Y_NZ, K_Z_NONNEG, K_X_IN_C1, K_FM_RED_NZ, K_FM_RED_POS, K_C2NZ_XNZ, K_FM_C1BIG, K_C1_LT_C2,
	K_C1_GT_C2, K_XY_LE, K_XY_GE, K_AND_LT, K_AND_LE, K_OR_LT, K_OR_LE,
};

typedef struct Rule {
	const char *src, *dst;
	uint8_t cond;
	bool norec; /* returned as is, not rewritten again */
	Pat *ps, *pd;
} Rule;

typedef struct Match {
	Expr *slot[NSLOTS];
} Match;

static bool match(const Pat *p, Expr *e, Match *m)
{
	switch (p->kind) {
	case P_X: case P_Y: case P_Z: {
		int i = p->kind - P_X;
		if (!m->slot[i]) {
			m->slot[i] = e;
			return true;
		}
		return arith_expr_equal(m->slot[i], e);
	}
	case P_C1: case P_C2: case P_C3: {
		if (e->kind != EX_INT)
			return false;
		int i = p->kind - P_X;
		if (!m->slot[i]) {
			m->slot[i] = e;
			return true;
		}
		return m->slot[i]->ival == e->ival && m->slot[i]->dtype == e->dtype;
	}
	case P_LIT:
		return e->kind == EX_INT && e->ival == p->lit;
	case P_BIN:
		return e->kind == EX_BINARY && e->op == p->op && match(p->l, e->lhs, m) && match(p->r, e->rhs, m);
	case P_UN:
		return e->kind == EX_UNARY && e->op == p->op && match(p->l, e->lhs, m);
	default:
		return false;
	}
}

typedef struct EvalCtx {
	Analyzer *an;
	Match *m;
	DType ret_dt, a_dt;
} EvalCtx;

static Expr *eval_pat(EvalCtx *c, const Pat *p);

static Expr *eval_lit(EvalCtx *c, const Pat *p, Expr *sibling)
{
	return mk_int(c->an->a, p->lit, dt_of(sibling) < DT_COUNT ? dt_of(sibling) : DT_INDEX);
}

static Expr *eval_pat(EvalCtx *c, const Pat *p)
{
	Analyzer *an = c->an;
	switch (p->kind) {
	case P_X: case P_Y: case P_Z: case P_C1: case P_C2: case P_C3:
		return c->m->slot[p->kind - P_X];
	case P_ZR: return mk_int(an->a, 0, c->ret_dt);
	case P_LIT: return mk_int(an->a, p->lit, c->ret_dt);
	case P_ZA: return mk_int(an->a, 0, c->a_dt);
	case P_TRUE: return mk_bool(an->a, true);
	case P_FALSE: return mk_bool(an->a, false);
	case P_BIN: {
		Expr *l, *r;
		if (p->l->kind == P_LIT) {
			r = eval_pat(c, p->r);
			l = eval_lit(c, p->l, r);
		} else {
			l = eval_pat(c, p->l);
			r = p->r->kind == P_LIT ? eval_lit(c, p->r, l) : eval_pat(c, p->r);
		}
		Expr *f = fold2(an, (BinOp)p->op, l, r);
		return f ? f : MK((BinOp)p->op, l, r);
	}
	case P_UN: {
		Expr *x = eval_pat(c, p->l);
		Expr *f = arith_fold_unary(an->a, (UnOp)p->op, x);
		return f ? f : arith_make_unary(an, (UnOp)p->op, x);
	}
	default:
		return NULL;
	}
}

/* ------------------------------------------------------------ rule tables */

#define R(s, d) { s, d, K_NONE, false, NULL, NULL }
#define RIF(s, d, k) { s, d, k, false, NULL, NULL }
#define RNOREC(s, d) { s, d, K_NONE, true, NULL, NULL }
#define REND { NULL, NULL, 0, false, NULL, NULL }

static Rule add_rules[] = {
	R("(x + c1) + c2", "x + (c1 + c2)"),
	R("(c1 + x) + c2", "x + (c1 + c2)"),
	R("(x - y) + y", "x"),
	R("x + (y - x)", "y"),
	R("(x - y) + (y - z)", "x - z"),
	R("(x - y) + (z - x)", "z - y"),
	R("x + x", "x * 2"),
	R("x * y + x", "(y + 1) * x"),
	R("x + x * y", "(y + 1) * x"),
	R("x * y + x * z", "(y + z) * x"),
	R("y * x + x * z", "(y + z) * x"),
	R("x * y + z * x", "(y + z) * x"),
	R("y * x + z * x", "(y + z) * x"),
	R("fd(x, y) * y + fm(x, y)", "x"),
	R("fm(x, y) + fd(x, y) * y", "x"),
	R("y * fd(x, y) + fm(x, y)", "x"),
	R("fm(x, y) + y * fd(x, y)", "x"),
	R("min(x, y - z) + z", "min(x + z, y)"),
	R("min(x - z, y) + z", "min(x, y + z)"),
	R("z + min(x, y - z)", "min(x + z, y)"),
	R("max(x, y - z) + z", "max(x + z, y)"),
	R("max(x - z, y) + z", "max(x, y + z)"),
	R("z + max(x, y - z)", "max(x + z, y)"),
	R("max(x, y) + min(x, y)", "x + y"),
	R("min(x, y) + max(x, y)", "x + y"),
	R("max(x, y) + min(y, x)", "x + y"),
	R("min(x, y) + max(y, x)", "x + y"),
	R("c1 + x", "x + c1"),
	R("x + (c1 - y)", "(x - y) + c1"),
	R("(c1 - y) + x", "(x - y) + c1"),
	R("(x + c1) + y", "(x + y) + c1"),
	REND,
};

static Rule sub_rules[] = {
	R("x - x", "Z"),
	R("(x + y) - y", "x"),
	R("(x + y) - x", "y"),
	R("(y + x) - x", "y"),
	R("x - (x + y)", "neg(y)"),
	R("x - (y + x)", "neg(y)"),
	R("(x + c1) - c2", "x + (c1 - c2)"),
	R("(c1 + x) - c2", "x + (c1 - c2)"),
	R("c1 - (c2 - x)", "x + (c1 - c2)"),
	R("c1 - (x + c2)", "(c1 - c2) - x"),
	R("c1 - (c2 + x)", "(c1 - c2) - x"),
	R("(c1 - x) - (c2 - y)", "(y - x) + (c1 - c2)"),
	R("(x - y) - (x - z)", "z - y"),
	R("(x + y) - (x + z)", "y - z"),
	R("(y + x) - (x + z)", "y - z"),
	R("(x + y) - (z + x)", "y - z"),
	R("(y + x) - (z + x)", "y - z"),
	R("x * y - x", "(y - 1) * x"),
	R("x - x * y", "(1 - y) * x"),
	R("x * y - x * z", "(y - z) * x"),
	R("y * x - x * z", "(y - z) * x"),
	R("x * y - z * x", "(y - z) * x"),
	R("y * x - z * x", "(y - z) * x"),
	RIF("x - fd(x, c1) * c1", "fm(x, c1)", K_C1_NZ),
	RIF("x - c1 * fd(x, c1)", "fm(x, c1)", K_C1_NZ),
	RIF("fd(x, c1) * c1 - x", "Z - fm(x, c1)", K_C1_NZ),
	RIF("x - fd(x + y, c1) * c1", "fm(x + y, c1) - y", K_C1_NZ),
	RIF("fd(x + y, c1) * c1 - x", "y - fm(x + y, c1)", K_C1_NZ),
	RIF("x - fd(x - y, c1) * c1", "fm(x - y, c1) + y", K_C1_NZ),
	RIF("fd(x - y, c1) * c1 - x", "Z - fm(x - y, c1) - y", K_C1_NZ),
	R("min(x, y) - x", "min(Z, y - x)"),
	R("min(x, y) - y", "min(x - y, Z)"),
	R("max(x, y) - x", "max(Z, y - x)"),
	R("max(x, y) - y", "max(x - y, Z)"),
	R("x - min(x, y)", "max(Z, x - y)"),
	R("x - max(x, y)", "min(Z, x - y)"),
	R("min(x + y, z) - x", "min(y, z - x)"),
	R("min(y + x, z) - x", "min(y, z - x)"),
	R("min(z, x + y) - x", "min(z - x, y)"),
	R("min(z, y + x) - x", "min(z - x, y)"),
	R("max(x + y, z) - x", "max(y, z - x)"),
	R("max(y + x, z) - x", "max(y, z - x)"),
	R("max(z, x + y) - x", "max(z - x, y)"),
	R("max(z, y + x) - x", "max(z - x, y)"),
	R("x - min(x + y, z)", "max(Z - y, x - z)"),
	R("x - min(y + x, z)", "max(Z - y, x - z)"),
	R("x - min(z, x + y)", "max(x - z, Z - y)"),
	R("x - min(z, y + x)", "max(x - z, Z - y)"),
	R("x - max(x + y, z)", "min(Z - y, x - z)"),
	R("x - max(y + x, z)", "min(Z - y, x - z)"),
	R("x - max(z, x + y)", "min(x - z, Z - y)"),
	R("x - max(z, y + x)", "min(x - z, Z - y)"),
	R("min(x, y) - min(y, x)", "Z"),
	R("max(x, y) - max(y, x)", "Z"),
	R("x - (y + c1)", "(x - y) + (0 - c1)"),
	R("(x + c1) - y", "(x - y) + c1"),
	R("x - (y - z)", "(x + z) - y"),
	REND,
};

static Rule mul_rules[] = {
	R("(x * c1) * c2", "x * (c1 * c2)"),
	R("(c1 * x) * c2", "x * (c1 * c2)"),
	R("min(x, y) * max(x, y)", "x * y"),
	R("max(x, y) * min(x, y)", "x * y"),
	R("c1 * x", "x * c1"),
	R("x * (c1 * y)", "(x * y) * c1"),
	R("(x + c1) * c2", "x * c2 + c1 * c2"),
	RIF("(x - y) * c1", "(y - x) * (0 - c1)", K_C1_NEG),
	REND,
};

static Rule floordiv_rules[] = {
	RIF("fd(x * c1, c2)", "x * fd(c1, c2)", K_C2POS_C1DIV),
	RIF("fd(c1 * x, c2)", "x * fd(c1, c2)", K_C2POS_C1DIV),
	RIF("fd(x * c1, c2)", "fd(x, fd(c2, c1))", K_C1POS_C2DIV),
	RIF("fd(fd(x, c1), c2)", "fd(x, c1 * c2)", K_C1POS_C2POS),
	RIF("fd(fd(x, c1) + c2, c3)", "fd(x + c1 * c2, c1 * c3)", K_C1POS_C3POS),
	RIF("fd(x, x)", "1", K_X_NZ),
	RIF("fd(x * c1, x)", "c1", K_X_NZ),
	RIF("fd(c1 * x, x)", "c1", K_X_NZ),
	RIF("fd(x + c1, c2)", "fd(x, c2) + fd(c1, c2)", K_C2POS_C1DIV),
	RIF("fd(c1 + x, c2)", "fd(x, c2) + fd(c1, c2)", K_C2POS_C1DIV),
	RIF("fd(x * c1 + y, c2)", "x * fd(c1, c2) + fd(y, c2)", K_C2POS_C1DIV),
	RIF("fd(c1 * x + y, c2)", "x * fd(c1, c2) + fd(y, c2)", K_C2POS_C1DIV),
	RIF("fd(y + x * c1, c2)", "fd(y, c2) + x * fd(c1, c2)", K_C2POS_C1DIV),
	RIF("fd(y + c1 * x, c2)", "fd(y, c2) + x * fd(c1, c2)", K_C2POS_C1DIV),
	RIF("fd(min(x * c1, y), c2)", "min(x * fd(c1, c2), fd(y, c2))", K_C2POS_C1DIV),
	RIF("fd(max(x * c1, y), c2)", "max(x * fd(c1, c2), fd(y, c2))", K_C2POS_C1DIV),
	RIF("fd(min(y, x * c1), c2)", "min(fd(y, c2), x * fd(c1, c2))", K_C2POS_C1DIV),
	RIF("fd(max(y, x * c1), c2)", "max(fd(y, c2), x * fd(c1, c2))", K_C2POS_C1DIV),
	RIF("fd(x - fm(x, c1), c1)", "fd(x, c1)", K_C1_NZ),
	RIF("fd(x * y, y)", "x", K_Y_NZ),
	RIF("fd(y * x, y)", "x", K_Y_NZ),
	RIF("fd(x * z + y, z)", "x + fd(y, z)", K_Z_NONNEG),
	RIF("fd(z * x + y, z)", "x + fd(y, z)", K_Z_NONNEG),
	RIF("fd(y + x * z, z)", "fd(y, z) + x", K_Z_NONNEG),
	RIF("fd(y + z * x, z)", "fd(y, z) + x", K_Z_NONNEG),
	RIF("fd(x, c1)", "Z", K_X_IN_C1),
	REND,
};

static Rule floormod_rules[] = {
	RIF("fm(x * c1, c2)", "Z", K_C2POS_C1DIV),
	RIF("fm(c1 * x, c2)", "Z", K_C2POS_C1DIV),
	RIF("fm(x + c1, c2)", "fm(x, c2)", K_C2POS_C1DIV),
	RIF("fm(c1 + x, c2)", "fm(x, c2)", K_C2POS_C1DIV),
	RIF("fm(x * c1 + y, c2)", "fm(y, c2)", K_C2POS_C1DIV),
	RIF("fm(c1 * x + y, c2)", "fm(y, c2)", K_C2POS_C1DIV),
	RIF("fm(y + x * c1, c2)", "fm(y, c2)", K_C2POS_C1DIV),
	RIF("fm(y + c1 * x, c2)", "fm(y, c2)", K_C2POS_C1DIV),
	RIF("fm(x * c1, c2)", "fm(x * fm(c1, c2), c2)", K_FM_RED_NZ),
	RIF("fm(x * y, y)", "Z", K_Y_NZ),
	RIF("fm(y * x, y)", "Z", K_Y_NZ),
	RIF("fm(x + y * c1, c2)", "fm(x + y * fm(c1, c2), c2)", K_FM_RED_POS),
	RIF("fm(x * c1, x * c2)", "x * fm(c1, c2)", K_C2NZ_XNZ),
	RIF("fm(x + c1, c2)", "fm(x + fm(c1, c2), c2)", K_FM_C1BIG),
	RIF("fm(x, c1)", "x", K_X_IN_C1),
	REND,
};

static Rule min_rules[] = {
	R("min(x, x)", "x"),
	R("min(min(x, c1), c2)", "min(x, min(c1, c2))"),
	R("min(c1, min(x, c2))", "min(x, min(c1, c2))"),
	R("min(y - x, z - x)", "min(y, z) - x"),
	R("min(x - y, x - z)", "x - max(y, z)"),
	R("min(x + y, x + z)", "x + min(y, z)"),
	R("min(y + x, x + z)", "x + min(y, z)"),
	R("min(x + y, z + x)", "x + min(y, z)"),
	R("min(y + x, z + x)", "x + min(y, z)"),
	RIF("min(x + c1, x + c2)", "x + c1", K_C1_LT_C2),
	R("min(x + c1, x + c2)", "x + c2"),
	RIF("min(x + c1, x)", "x + c1", K_C1_NEG),
	RNOREC("min(x + c1, x)", "x"),
	RIF("min(x, x + c1)", "x + c1", K_C1_NEG),
	RNOREC("min(x, x + c1)", "x"),
	RIF("min(c1 - x, c2 - x)", "c1 - x", K_C1_LT_C2),
	R("min(c1 - x, c2 - x)", "c2 - x"),
	R("min(min(x, y), x)", "min(x, y)"),
	R("min(min(x, y), y)", "min(x, y)"),
	R("min(x, min(x, y))", "min(x, y)"),
	R("min(y, min(x, y))", "min(x, y)"),
	R("min(max(x, y), y)", "y"),
	R("min(max(y, x), x)", "x"),
	R("min(y, max(x, y))", "y"),
	R("min(max(x, y), x)", "x"),
	R("min(x, max(x, y))", "x"),
	R("min(x, max(y, x))", "x"),
	R("min(max(x, y), max(x, z))", "max(min(y, z), x)"),
	R("min(max(x, y), max(z, x))", "max(min(y, z), x)"),
	R("min(max(y, x), max(x, z))", "max(min(y, z), x)"),
	R("min(max(y, x), max(z, x))", "max(min(y, z), x)"),
	R("min(min(x, y), min(x, z))", "min(min(y, z), x)"),
	R("min(min(x, y), min(z, x))", "min(min(y, z), x)"),
	R("min(min(y, x), min(x, z))", "min(min(y, z), x)"),
	R("min(min(y, x), min(z, x))", "min(min(y, z), x)"),
	RIF("min(fd(x, c1), fd(y, c1))", "fd(min(x, y), c1)", K_C1_POS),
	RIF("min(fd(x, c1), fd(y, c1))", "fd(max(x, y), c1)", K_C1_NEG),
	RIF("min(x * c1, y * c1)", "min(x, y) * c1", K_C1_POS),
	RIF("min(x * c1, y * c1)", "max(x, y) * c1", K_C1_NEG),
	RIF("min(x, y)", "x", K_XY_LE),
	RIF("min(x, y)", "y", K_XY_GE),
	R("min(c1, x)", "min(x, c1)"),
	R("min(min(x, c1), y)", "min(min(x, y), c1)"),
	REND,
};

static Rule max_rules[] = {
	R("max(x, x)", "x"),
	R("max(max(x, c1), c2)", "max(x, max(c1, c2))"),
	R("max(c1, max(x, c2))", "max(x, max(c1, c2))"),
	R("max(y - x, z - x)", "max(y, z) - x"),
	R("max(x - y, x - z)", "x - min(y, z)"),
	R("max(x + y, x + z)", "x + max(y, z)"),
	R("max(y + x, x + z)", "x + max(y, z)"),
	R("max(x + y, z + x)", "x + max(y, z)"),
	R("max(y + x, z + x)", "x + max(y, z)"),
	RIF("max(x + c1, x + c2)", "x + c1", K_C1_GT_C2),
	R("max(x + c1, x + c2)", "x + c2"),
	RIF("max(x + c1, x)", "x + c1", K_C1_POS),
	RNOREC("max(x + c1, x)", "x"),
	RIF("max(x, x + c1)", "x + c1", K_C1_POS),
	RNOREC("max(x, x + c1)", "x"),
	RIF("max(c1 - x, c2 - x)", "c1 - x", K_C1_GT_C2),
	R("max(c1 - x, c2 - x)", "c2 - x"),
	R("max(max(x, y), x)", "max(x, y)"),
	R("max(max(x, y), y)", "max(x, y)"),
	R("max(x, max(x, y))", "max(x, y)"),
	R("max(y, max(x, y))", "max(x, y)"),
	R("max(min(x, y), y)", "y"),
	R("max(min(y, x), x)", "x"),
	R("max(y, min(x, y))", "y"),
	R("max(min(x, y), x)", "x"),
	R("max(x, min(x, y))", "x"),
	R("max(x, min(y, x))", "x"),
	R("max(min(x, y), min(x, z))", "min(max(y, z), x)"),
	R("max(min(x, y), min(z, x))", "min(max(y, z), x)"),
	R("max(min(y, x), min(x, z))", "min(max(y, z), x)"),
	R("max(min(y, x), min(z, x))", "min(max(y, z), x)"),
	R("max(max(x, y), max(x, z))", "max(max(y, z), x)"),
	R("max(max(x, y), max(z, x))", "max(max(y, z), x)"),
	R("max(max(y, x), max(x, z))", "max(max(y, z), x)"),
	R("max(max(y, x), max(z, x))", "max(max(y, z), x)"),
	RIF("max(fd(x, c1), fd(y, c1))", "fd(max(x, y), c1)", K_C1_POS),
	RIF("max(fd(x, c1), fd(y, c1))", "fd(min(x, y), c1)", K_C1_NEG),
	RIF("max(x * c1, y * c1)", "max(x, y) * c1", K_C1_POS),
	RIF("max(x * c1, y * c1)", "min(x, y) * c1", K_C1_NEG),
	RIF("max(x, y)", "x", K_XY_GE),
	RIF("max(x, y)", "y", K_XY_LE),
	R("max(c1, x)", "max(x, c1)"),
	R("max(max(x, c1), y)", "max(max(x, y), c1)"),
	REND,
};

static Rule eq_rules[] = {
	R("x == x", "T"),
	R("x + y == x + z", "y == z"),
	R("y + x == x + z", "y == z"),
	R("x + y == z + x", "y == z"),
	R("y + x == z + x", "y == z"),
	R("x - c1 == c2", "x == c1 + c2"),
	R("x + c1 == c2", "x == c2 - c1"),
	R("c1 - x == c2", "x == c1 - c2"),
	R("c1 == x", "x == c1"),
	REND,
};

static Rule ne_rules[] = {
	R("x != x", "F"),
	R("x + y != x + z", "y != z"),
	R("y + x != x + z", "y != z"),
	R("x + y != z + x", "y != z"),
	R("y + x != z + x", "y != z"),
	R("x - c1 != c2", "x != c1 + c2"),
	R("x + c1 != c2", "x != c2 - c1"),
	R("c1 != x", "x != c1"),
	REND,
};

static Rule lt_rules[] = {
	R("x < x", "F"),
	R("x + y < x + z", "y < z"),
	R("y + x < x + z", "y < z"),
	R("x + y < z + x", "y < z"),
	R("y + x < z + x", "y < z"),
	R("y - x < z - x", "y < z"),
	R("x - y < x - z", "z < y"),
	R("x < x + z", "ZA < z"),
	R("x < z + x", "ZA < z"),
	R("x < x - z", "z < ZA"),
	R("x + c1 < c2", "x < c2 - c1"),
	R("x - c1 < c2", "x < c2 + c1"),
	R("c1 - x < c2", "c1 - c2 < x"),
	R("c1 < x + c2", "c1 - c2 < x"),
	R("c1 < x - c2", "c1 + c2 < x"),
	RIF("x * c1 < y * c1", "x < y", K_C1_POS),
	RIF("x * c1 < y * c1", "y < x", K_C1_NEG),
	RIF("fd(x, c1) < c2", "x < c1 * c2", K_C1_POS),
	RIF("c1 < fd(x, c2)", "(c1 + 1) * c2 - 1 < x", K_C2_POS),
	RIF("fd(x, c1) * c1 < x", "ZA < fm(x, c1)", K_C1_POS),
	RIF("fd(x, c1) * c1 < x + y", "ZA < fm(x, c1) + y", K_C1_POS),
	RIF("fd(x, c1) * c1 < x - y", "y < fm(x, c1)", K_C1_POS),
	R("min(x, y) < z", "(x < z) || (y < z)"),
	R("max(x, y) < z", "(x < z) && (y < z)"),
	R("z < min(x, y)", "(z < x) && (z < y)"),
	R("z < max(x, y)", "(z < x) || (z < y)"),
	REND,
};

static Rule le_rules[] = {
	R("x <= x", "T"),
	R("x + y <= x + z", "y <= z"),
	R("y + x <= x + z", "y <= z"),
	R("x + y <= z + x", "y <= z"),
	R("y + x <= z + x", "y <= z"),
	R("y - x <= z - x", "y <= z"),
	R("x - y <= x - z", "z <= y"),
	R("x + c1 <= c2", "x <= c2 - c1"),
	R("x - c1 <= c2", "x <= c2 + c1"),
	R("c1 <= x + c2", "c1 - c2 <= x"),
	R("c1 <= x - c2", "c1 + c2 <= x"),
	R("c1 - x <= c2", "c1 - c2 <= x"),
	RIF("x * c1 <= y * c1", "x <= y", K_C1_POS),
	RIF("x * c1 <= y * c1", "y <= x", K_C1_NEG),
	REND,
};

static Rule not_rules[] = {
	R("not(not(x))", "x"),
	R("not(x < y)", "y <= x"),
	R("not(x <= y)", "y < x"),
	R("not(x > y)", "y >= x"),
	R("not(x >= y)", "y > x"),
	R("not(x == y)", "x != y"),
	R("not(x != y)", "x == y"),
	R("not(x || y)", "not(x) && not(y)"),
	R("not(x && y)", "not(x) || not(y)"),
	REND,
};

static Rule and_rules[] = {
	R("x && x", "x"),
	R("x && not(x)", "F"),
	R("not(x) && x", "F"),
	R("(x == y) && (x != y)", "F"),
	R("(x != y) && (x == y)", "F"),
	R("(x <= y) && (y < x)", "F"),
	R("(y < x) && (x <= y)", "F"),
	RIF("(x < c1) && (c2 < x)", "F", K_AND_LT),
	RIF("(c2 < x) && (x < c1)", "F", K_AND_LT),
	RIF("(x <= c1) && (c2 <= x)", "F", K_AND_LE),
	RIF("(c2 <= x) && (x <= c1)", "F", K_AND_LE),
	R("x && (y && z)", "(x && y) && z"),
	REND,
};

static Rule or_rules[] = {
	R("x || x", "x"),
	R("x || not(x)", "T"),
	R("not(x) || x", "T"),
	R("(x == y) || (x != y)", "T"),
	R("(x != y) || (x == y)", "T"),
	R("(x <= y) || (y < x)", "T"),
	R("(y < x) || (x <= y)", "T"),
	R("(x < y) || (y < x)", "x != y"),
	RIF("(x < c1) || (c2 < x)", "T", K_OR_LT),
	RIF("(c2 < x) || (x < c1)", "T", K_OR_LT),
	RIF("(x <= c1) || (c2 <= x)", "T", K_OR_LE),
	RIF("(c2 <= x) || (x <= c1)", "T", K_OR_LE),
	R("(x < y) || (x == y)", "x <= y"),
	R("(x < y) || (y == x)", "x <= y"),
	R("(x == y) || (x < y)", "x <= y"),
	R("(y == x) || (x < y)", "x <= y"),
	R("x || (y || z)", "(x || y) || z"),
	REND,
};

static Rule neg_rules[] = {
	R("neg(neg(x))", "x"),
	R("neg(x - y)", "y - x"),
	REND,
};

static Rule *const all_tables[] = {
	add_rules, sub_rules, mul_rules, floordiv_rules, floormod_rules, min_rules, max_rules, eq_rules,
	ne_rules, lt_rules, le_rules, not_rules, and_rules, or_rules, neg_rules,
};

static bool tables_ready;

static void tables_init(void)
{
	if (tables_ready)
		return;
	for (size_t t = 0; t < sizeof all_tables / sizeof all_tables[0]; t++)
		for (Rule *r = all_tables[t]; r->src; r++) {
			r->ps = pat_parse(r->src);
			r->pd = pat_parse(r->dst);
		}
	tables_ready = true;
}

/* ------------------------------------------------------------ the rewrite simplifier */

static Expr *rw_visit(Analyzer *an, Expr *e);

static int try_compare(Analyzer *an, Expr *x, int64_t v)
{
	ArithBound b = bound_of(an, x);
	if (b.lo == v && b.hi == v) return CR_EQ;
	if (b.lo > v) return CR_GT;
	if (b.lo == v) return CR_GE;
	if (b.hi < v) return CR_LT;
	if (b.hi == v) return CR_LE;
	return CR_UNKNOWN;
}

static bool prove_ge(Analyzer *an, Expr *x, int64_t v)
{
	int r = try_compare(an, x, v);
	return r == CR_GE || r == CR_GT || r == CR_EQ;
}

static bool prove_le(Analyzer *an, Expr *x, int64_t v)
{
	int r = try_compare(an, x, v);
	return r == CR_LE || r == CR_LT || r == CR_EQ;
}

static bool prove_nz(Analyzer *an, Expr *x) { return prove_ge(an, x, 1) || prove_le(an, x, -1); }

static bool cond_holds(Analyzer *an, int k, Match *m)
{
	Expr *x = m->slot[0], *y = m->slot[1], *z = m->slot[2];
	int64_t c1 = m->slot[3] ? m->slot[3]->ival : 0, c2 = m->slot[4] ? m->slot[4]->ival : 0,
		c3 = m->slot[5] ? m->slot[5]->ival : 0;
	switch (k) {
	case K_NONE: return true;
	case K_C1_NZ: return c1 != 0;
	case K_C1_NEG: return c1 < 0;
	case K_C1_POS: return c1 > 0;
	case K_C2_POS: return c2 > 0;
	case K_C2POS_C1DIV: return c2 > 0 && c1 % c2 == 0;
	case K_C1POS_C2DIV: return c1 > 0 && c2 % c1 == 0 && c2 / c1 > 0;
	case K_C1POS_C2POS: return c1 > 0 && c2 > 0;
	case K_C1POS_C3POS: return c1 > 0 && c3 > 0;
	case K_X_NZ: return prove_nz(an, x);
	case K_Y_NZ: return prove_nz(an, y);
	case K_Z_NONNEG: return prove_ge(an, z, 0);
	case K_X_IN_C1: return c1 > 0 && prove_ge(an, x, 0) && try_compare(an, x, c1) == CR_LT;
	case K_FM_RED_NZ: return c2 != 0 && fmod_i(c1, c2) != c1;
	case K_FM_RED_POS: return c2 > 0 && fmod_i(c1, c2) != c1;
	case K_C2NZ_XNZ: return c2 != 0 && prove_nz(an, x);
	case K_FM_C1BIG: return c2 > 0 && c1 % c2 != 0 && (c1 >= c2 || c1 < 0);
	case K_C1_LT_C2: return c1 < c2;
	case K_C1_GT_C2: return c1 > c2;
	case K_XY_LE: return prove_le(an, MK(OP_SUB, x, y), 0);
	case K_XY_GE: return prove_ge(an, MK(OP_SUB, x, y), 0);
	case K_AND_LT: return c2 + 1 >= c1;
	case K_AND_LE: return c2 > c1;
	case K_OR_LT: return c2 < c1;
	case K_OR_LE: return c2 <= c1 + 1;
	}
	return false;
}

static Expr *recursive_rewrite(Analyzer *an, Expr *e)
{
	if (an->depth >= 5)
		return e;
	an->depth++;
	Expr *r = rw_visit(an, e);
	an->depth--;
	return r;
}

/* ret through the table; ret itself when no rule applies */
static Expr *apply_rules(Analyzer *an, Rule *rules, Expr *ret, DType a_dt)
{
	int d = arith_dtype(ret);
	EvalCtx c = { an, NULL, d >= 0 ? (DType)d : DT_INDEX, a_dt };
	for (Rule *r = rules; r->src; r++) {
		Match m = { { 0 } };
		if (!match(r->ps, ret, &m))
			continue;
		if (!cond_holds(an, r->cond, &m))
			continue;
		c.m = &m;
		Expr *res = eval_pat(&c, r->pd);
		return r->norec ? res : recursive_rewrite(an, res);
	}
	return ret;
}

static Expr *mutate_binary(Analyzer *an, Expr *op, Expr *a, Expr *b)
{
	if (a == op->lhs && b == op->rhs)
		return op;
	return MK((BinOp)op->op, a, b);
}

static Rule *table_for(BinOp op)
{
	switch (op) {
	case OP_ADD: return add_rules;
	case OP_SUB: return sub_rules;
	case OP_MUL: return mul_rules;
	case OP_FLOORDIV: return floordiv_rules;
	case OP_MOD: return floormod_rules;
	case OP_MIN: return min_rules;
	case OP_MAX: return max_rules;
	case OP_EQ: return eq_rules;
	case OP_NE: return ne_rules;
	case OP_LT: return lt_rules;
	case OP_LE: return le_rules;
	case OP_AND: return and_rules;
	case OP_OR: return or_rules;
	default: return NULL;
	}
}

static Expr *rw_binary(Analyzer *an, Expr *e)
{
	BinOp op = (BinOp)e->op;
	if (op == OP_GT || op == OP_GE)
		return rw_visit(an, MK(op == OP_GT ? OP_LT : OP_LE, e->rhs, e->lhs));
	Expr *a = rw_visit(an, e->lhs);
	Expr *b = rw_visit(an, e->rhs);
	Expr *f = fold2(an, op, a, b);
	if (f)
		return f;
	if (op == OP_XOR)
		return a == e->lhs && b == e->rhs ? e : raw_binary(an->a, OP_XOR, a, b, DT_BOOL);
	Expr *ret = mutate_binary(an, e, a, b);
	Rule *rules = table_for(op);
	if (!rules)
		return ret;
	if (is_cmp(op) && is_float_expr(a))
		return ret;
	return apply_rules(an, rules, ret, dt_of(a) < DT_COUNT ? dt_of(a) : DT_INDEX);
}

static Expr *rw_unary(Analyzer *an, Expr *e)
{
	UnOp op = (UnOp)e->op;
	Expr *a = rw_visit(an, e->lhs);
	Expr *f = arith_fold_unary(an->a, op, a);
	if (f)
		return f;
	if (op == UOP_ABS)
		return a == e->lhs ? e : raw_unary(an->a, UOP_ABS, a, dt_of(a) < DT_COUNT ? dt_of(a) : DT_INDEX);
	Expr *ret = a == e->lhs ? e : arith_make_unary(an, op, a);
	if (op == UOP_NOT)
		return apply_rules(an, not_rules, ret, DT_BOOL);
	if (op == UOP_NEG)
		return apply_rules(an, neg_rules, ret, DT_INDEX);
	return ret;
}

static Expr *rw_visit(Analyzer *an, Expr *e)
{
	if (is_float_expr(e))
		return e;
	Expr *r;
	switch (e->kind) {
	case EX_VAR: {
		Expr *v = pmap_get(&an->rw, e->var);
		return v ? v : e;
	}
	case EX_BINARY: case EX_UNARY: case EX_CAST:
		if ((uintptr_t)pmap_get(&an->memo, e) == an->gen)
			return e;
		break;
	default: return e;
	}
	if (e->kind == EX_BINARY) {
		r = rw_binary(an, e);
	} else if (e->kind == EX_UNARY) {
		r = rw_unary(an, e);
	} else {
		Expr *a = rw_visit(an, e->lhs);
		r = a == e->lhs ? e : mk_cast(an->a, a, (DType)e->dtype);
	}
	if (r == e)
		pmap_put(&an->memo, e, (void *)an->gen);
	return r;
}

static Expr *rewrite(Analyzer *an, Expr *e)
{
	tables_init();
	return rw_visit(an, e);
}

Expr *arith_simplify(Analyzer *an, Expr *e)
{
	e = rewrite(an, e);
	return rewrite(an, e);
}

static bool can_prove_ge(Analyzer *an, Expr *e, int64_t v) { return bound_of(an, arith_simplify(an, e)).lo >= v; }

/* Proofs build only temporaries (nothing they allocate is kept: bindings
 * and keys are made elsewhere), so the arena is rolled back after one. */
bool arith_can_prove_ge(Analyzer *an, Expr *e, int64_t v)
{
	ArenaMark m = arena_mark(an->a);
	bool r = can_prove_ge(an, e, v);
	arena_reset(an->a, m);
	state_changed(an);
	return r;
}

static bool can_prove_less(Analyzer *an, Expr *e, int64_t v) { return bound_of(an, arith_simplify(an, e)).hi < v; }

/* ------------------------------------------------------------ transitive comparisons
 *
 * The reference keeps two lists of comparisons (bindings, and the scoped
 * ones of the enclosing constraints) and scans them whole at every step of
 * its search.  Here each key (a Var, or an expression node) has its own
 * index into both lists, in the lists' order, so a search touches only the
 * comparisons of the keys it reaches.  A removed binding stays in place,
 * marked dead; an index entry of a scoped comparison is valid while that
 * slot still holds the comparison it was made for (same serial). */


static const void *tkey(const Expr *e) { return e->kind == EX_VAR ? (const void *)e->var : (const void *)e; }

static int cr_reverse(int r)
{
	switch (r) {
	case CR_LT: return CR_GT;
	case CR_LE: return CR_GE;
	case CR_GT: return CR_LT;
	case CR_GE: return CR_LE;
	default: return r;
	}
}

static Cmp cmp_make(const void *l, const void *r, int64_t off, int res)
{
	if (res == CR_LT) {
		res = CR_LE;
		off -= 1;
	}
	if (res == CR_GT) {
		res = CR_GE;
		off += 1;
	}
	return (Cmp){ l, r, off, res, false, 0 };
}

static bool cmp_with_lhs(const Cmp *c, const void *k, Cmp *out)
{
	if (k == c->lhs) {
		*out = *c;
		return true;
	}
	if (k == c->rhs) {
		*out = cmp_make(c->rhs, c->lhs, -c->off, cr_reverse(c->res));
		return true;
	}
	return false;
}

static bool cmp_implies(const Cmp *a, const Cmp *o)
{
	if (a->res == o->res && a->off == o->off) return true;
	if (o->res == CR_LE && a->off <= o->off && (a->res == CR_EQ || a->res == CR_LE)) return true;
	if (o->res == CR_GE && a->off >= o->off && (a->res == CR_EQ || a->res == CR_GE)) return true;
	if (o->res == CR_NE) {
		if (a->res == CR_EQ && a->off != o->off) return true;
		if (a->res == CR_LE && a->off < o->off) return true;
		if (a->res == CR_GE && a->off > o->off) return true;
	}
	return false;
}

/* (inner, offset) with e == inner + offset; inner NULL for a constant */
static Expr *extract_offset(Expr *e, int64_t *off)
{
	if (e->kind == EX_BINARY && e->op == OP_ADD) {
		if (cint(e->rhs)) { *off = e->rhs->ival; return e->lhs; }
		if (cint(e->lhs)) { *off = e->lhs->ival; return e->rhs; }
	}
	if (e->kind == EX_BINARY && e->op == OP_SUB && cint(e->rhs)) {
		*off = -e->rhs->ival;
		return e->lhs;
	}
	if (cint(e)) {
		*off = e->ival;
		return NULL;
	}
	*off = 0;
	return e;
}

static KeyInfo *key_info(Analyzer *an, const void *k, bool create)
{
	KeyInfo *ki = pmap_get(&an->keyset, k);
	if (!ki && create) {
		ki = arena_alloc(an->a, sizeof *ki);
		memset(ki, 0, sizeof *ki);
		pmap_put(&an->keyset, k, ki);
		GROW(an->keyinfos, an->nkeyinfos, an->ckeyinfos);
		an->keyinfos[an->nkeyinfos++] = ki;
	}
	return ki;
}

static void key_add(Analyzer *an, const void *k, bool scoped, size_t idx, uint64_t serial)
{
	KeyInfo *ki = key_info(an, k, true);
	if (scoped) {
		GROW(ki->sc, ki->nsc, ki->csc);
		ki->sc[ki->nsc++] = (KeyRef){ idx, serial };
	} else {
		GROW(ki->kn, ki->nkn, ki->ckn);
		ki->kn[ki->nkn++] = (KeyRef){ idx, serial };
	}
}

static void add_known(Analyzer *an, Expr *expr, bool scoped)
{
	/* ExtractConstraints: pre-order over the && chain */
	PtrVec work = { 0 };
	vec_push(&work, expr);
	while (work.len) {
		Expr *cur = work.items[--work.len];
		if (cur->kind == EX_BINARY && is_cmp((BinOp)cur->op) && !(cint(cur->lhs) && cint(cur->rhs))) {
			int res;
			switch ((BinOp)cur->op) {
			case OP_LE: res = CR_LE; break;
			case OP_GE: res = CR_GE; break;
			case OP_LT: res = CR_LT; break;
			case OP_GT: res = CR_GT; break;
			case OP_EQ: res = CR_EQ; break;
			default: res = CR_NE; break;
			}
			int64_t lo, ro;
			Expr *l = extract_offset(cur->lhs, &lo), *r = extract_offset(cur->rhs, &ro);
			const void *lk = l ? tkey(l) : &zero_key_node, *rk = r ? tkey(r) : &zero_key_node;
			Cmp c = cmp_make(lk, rk, ro - lo, res);
			c.serial = ++an->serial;
			size_t idx;
			if (scoped) {
				GROW(an->scoped, an->nscoped, an->cscoped);
				idx = an->nscoped;
				an->scoped[an->nscoped++] = c;
			} else {
				GROW(an->knowns, an->nknowns, an->cknowns);
				idx = an->nknowns;
				an->knowns[an->nknowns++] = c;
			}
			key_add(an, lk, scoped, idx, c.serial);
			if (rk != lk)
				key_add(an, rk, scoped, idx, c.serial);
		}
		if (cur->kind == EX_BINARY && cur->op == OP_AND) {
			vec_push(&work, cur->rhs);
			vec_push(&work, cur->lhs);
		}
	}
	free(work.items);
}

/* the live comparisons mentioning key k, knowns first, each list in order */
typedef struct CmpIter {
	Analyzer *an;
	KeyInfo *ki;
	size_t i;
	int pass;
} CmpIter;

static void cmp_iter_init(CmpIter *it, Analyzer *an, const void *k)
{
	it->an = an;
	it->ki = key_info(an, k, false);
	it->i = 0;
	it->pass = 0;
	if (it->ki) /* drop the index entries of exited scopes (always the newest) */
		while (it->ki->nsc) {
			KeyRef r = it->ki->sc[it->ki->nsc - 1];
			if (r.idx < an->nscoped && an->scoped[r.idx].serial == r.serial)
				break;
			it->ki->nsc--;
		}
}

static const Cmp *cmp_next(CmpIter *it)
{
	if (!it->ki)
		return NULL;
	while (it->pass < 2) {
		KeyRef *refs = it->pass ? it->ki->sc : it->ki->kn;
		size_t n = it->pass ? it->ki->nsc : it->ki->nkn;
		while (it->i < n) {
			KeyRef r = refs[it->i++];
			const Cmp *c = it->pass ? &it->an->scoped[r.idx] : &it->an->knowns[r.idx];
			if (it->pass ? (r.idx < it->an->nscoped && c->serial == r.serial) : !c->dead)
				return c;
		}
		it->pass++;
		it->i = 0;
	}
	return NULL;
}

typedef struct CmpList {
	Cmp *items;
	size_t n, cap;
} CmpList;

typedef struct Dfs {
	PtrMap lists; /* key -> CmpList* (index + 1 into all) */
	CmpList *all;
	size_t nall, call;
	const void **todo; /* FIFO of keys to visit */
	size_t head, ntodo, ctodo;
	PtrMap queued;
} Dfs;

static CmpList *dfs_list(Dfs *d, const void *key, bool create)
{
	uintptr_t i = (uintptr_t)pmap_get(&d->lists, key);
	if (i)
		return &d->all[i - 1];
	if (!create)
		return NULL;
	GROW(d->all, d->nall, d->call);
	d->all[d->nall] = (CmpList){ NULL, 0, 0 };
	pmap_put(&d->lists, key, (void *)(uintptr_t)(d->nall + 1));
	return &d->all[d->nall++];
}

static void dfs_enqueue(Dfs *d, const void *key)
{
	if (pmap_get(&d->queued, key))
		return;
	pmap_put(&d->queued, key, (void *)1);
	GROW(d->todo, d->ntodo, d->ctodo);
	d->todo[d->ntodo++] = key;
}

static void dfs_declare(Dfs *d, Cmp c, const void *rhs_key)
{
	CmpList *l = dfs_list(d, c.rhs, true);
	for (size_t i = 0; i < l->n; i++)
		if (cmp_implies(&l->items[i], &c))
			return;
	for (size_t i = 0; i < l->n; i++)
		if (cmp_implies(&c, &l->items[i])) {
			l->items[i] = c;
			if (c.rhs != rhs_key)
				dfs_enqueue(d, c.rhs);
			return;
		}
	GROW(l->items, l->n, l->cap);
	l->items[l->n++] = c;
	if (c.rhs != rhs_key)
		dfs_enqueue(d, c.rhs);
}

/* DFSFromLHS: the comparisons lhs -> rhs reachable through chains, appended
 * to out re-expressed with want_lhs on the left */
static void dfs_from(Analyzer *an, const void *lk, const void *rk, CmpList *out, const void *want_lhs)
{
	Dfs d = { 0 };
	Cmp c;
	CmpIter it;
	const Cmp *k;
	cmp_iter_init(&it, an, lk);
	while ((k = cmp_next(&it)))
		if (cmp_with_lhs(k, lk, &c))
			dfs_declare(&d, c, rk);
	size_t steps = 0;
	while (d.head < d.ntodo && steps++ < 100000) {
		const void *mid = d.todo[d.head++];
		pmap_put(&d.queued, mid, NULL);
		CmpList *prevl = dfs_list(&d, mid, false);
		size_t nprev = prevl ? prevl->n : 0;
		Cmp *prev = nprev ? xmalloc(nprev * sizeof *prev) : NULL;
		if (nprev)
			memcpy(prev, prevl->items, nprev * sizeof *prev);
		Cmp *newk = NULL;
		size_t nnew = 0, cnew = 0;
		cmp_iter_init(&it, an, mid);
		while ((k = cmp_next(&it))) {
			if (!cmp_with_lhs(k, mid, &c) || c.rhs == lk)
				continue;
			for (size_t j = 0; j < nprev; j++) {
				int nr = CR_UNKNOWN;
				int64_t noff = prev[j].off + c.off;
				if (prev[j].res == CR_EQ || c.res == CR_EQ)
					nr = prev[j].res == CR_EQ ? c.res : prev[j].res;
				else if (prev[j].res == c.res && (c.res == CR_LE || c.res == CR_GE))
					nr = c.res;
				if (nr != CR_UNKNOWN) {
					GROW(newk, nnew, cnew);
					newk[nnew++] = cmp_make(lk, c.rhs, noff, nr);
				}
			}
		}
		for (size_t i = 0; i < nnew; i++)
			dfs_declare(&d, newk[i], rk);
		free(newk);
		free(prev);
	}
	CmpList *res = dfs_list(&d, rk, false);
	if (res)
		for (size_t i = 0; i < res->n; i++) {
			Cmp x = res->items[i];
			if (want_lhs != lk)
				cmp_with_lhs(&res->items[i], want_lhs, &x);
			GROW(out->items, out->n, out->cap);
			out->items[out->n++] = x;
		}
	for (size_t i = 0; i < d.nall; i++)
		free(d.all[i].items);
	free(d.all);
	free(d.todo);
	pmap_release(&d.lists);
	pmap_release(&d.queued);
}

static int transitive_compare(Analyzer *an, Expr *l, Expr *r)
{
	int ld = arith_dtype(l), rd = arith_dtype(r);
	if (ld < 0 || rd < 0 || !ir_dtype_is_int((DType)ld) || !ir_dtype_is_int((DType)rd))
		return CR_UNKNOWN;
	if (cint(l) && cint(r))
		return l->ival < r->ival ? CR_LT : l->ival > r->ival ? CR_GT : CR_EQ;
	int64_t lo, ro;
	Expr *li = extract_offset(l, &lo), *ri = extract_offset(r, &ro);
	int64_t off = ro - lo;
	if (li && ri && tkey(li) == tkey(ri))
		return off < 0 ? CR_GT : off > 0 ? CR_LT : CR_EQ;
	const void *lk = li ? tkey(li) : &zero_key_node, *rk = ri ? tkey(ri) : &zero_key_node;
	if (!key_info(an, lk, false) || !key_info(an, rk, false))
		return CR_UNKNOWN;
	CmpList all = { 0 };
	dfs_from(an, lk, rk, &all, lk);
	dfs_from(an, rk, lk, &all, lk);
	int result = CR_UNKNOWN;
	for (size_t i = 0; i < all.n; i++) {
		Cmp *c = &all.items[i];
		switch (c->res) {
		case CR_INCONS: result = CR_INCONS; break;
		case CR_EQ: result &= off == c->off ? CR_EQ : CR_NE; break;
		case CR_LE:
			if (c->off < off) result &= CR_LT;
			else if (c->off <= off) result &= CR_LE;
			break;
		case CR_GE:
			if (c->off > off) result &= CR_GT;
			else if (c->off >= off) result &= CR_GE;
			break;
		case CR_NE:
			if (off == c->off) result &= CR_NE;
			break;
		default: break;
		}
	}
	free(all.items);
	return result;
}

static void transitive_unbind(Analyzer *an, Var *v)
{
	KeyInfo *ki = key_info(an, v, false);
	if (!ki)
		return;
	for (size_t i = 0; i < ki->nkn; i++)
		an->knowns[ki->kn[i].idx].dead = true;
	ki->nkn = 0;
}

/* ------------------------------------------------------------ symbolic integer sets */

static Expr *maybe_simplify(Analyzer *an, Expr *e) { return arith_simplify(an, e); }

static bool is_nonneg(Analyzer *an, Expr *e)
{
	if (!e) return false;
	if (cint(e)) return e->ival >= 0;
	return can_prove_ge(an, e, 0);
}

static bool is_negative(Analyzer *an, Expr *e)
{
	if (!e) return false;
	if (cint(e)) return e->ival < 0;
	return can_prove_less(an, e, 0);
}

static Expr *sym_bin(Analyzer *an, BinOp op, Expr *a, Expr *b)
{
	if (!a || !b)
		return NULL;
	return maybe_simplify(an, MK(op, a, b));
}

static Expr *sym_min_lower(Analyzer *an, Expr *a, Expr *b)
{
	if (!a || !b) return NULL;
	if (arith_can_prove(an, MK(OP_LE, a, b))) return a;
	if (arith_can_prove(an, MK(OP_GE, a, b))) return b;
	return maybe_simplify(an, MK(OP_MIN, a, b));
}

static Expr *sym_min_upper(Analyzer *an, Expr *a, Expr *b)
{
	if (!a) return b;
	if (!b) return a;
	if (arith_can_prove(an, MK(OP_LE, a, b))) return a;
	if (arith_can_prove(an, MK(OP_GE, a, b))) return b;
	return maybe_simplify(an, MK(OP_MIN, a, b));
}

static Expr *sym_max_lower(Analyzer *an, Expr *a, Expr *b)
{
	if (!a) return b;
	if (!b) return a;
	if (arith_can_prove(an, MK(OP_GE, a, b))) return a;
	if (arith_can_prove(an, MK(OP_LE, a, b))) return b;
	return maybe_simplify(an, MK(OP_MAX, a, b));
}

static Expr *sym_max_upper(Analyzer *an, Expr *a, Expr *b)
{
	if (!a || !b) return NULL;
	if (arith_can_prove(an, MK(OP_GE, a, b))) return a;
	if (arith_can_prove(an, MK(OP_LE, a, b))) return b;
	return maybe_simplify(an, MK(OP_MAX, a, b));
}

static bool single(ISet s) { return s.lo && s.hi && s.lo == s.hi; }

static ISet iset_mul(Analyzer *an, ISet a, ISet b)
{
	if (single(a) && single(b)) {
		Expr *v = sym_bin(an, OP_MUL, a.lo, b.lo);
		return (ISet){ v, v };
	}
	if (single(a) && !single(b))
		return iset_mul(an, b, a);
	if (single(b) && is_nonneg(an, b.lo))
		return (ISet){ sym_bin(an, OP_MUL, a.lo, b.lo), sym_bin(an, OP_MUL, a.hi, b.lo) };
	if (single(b) && is_negative(an, b.lo))
		return (ISet){ sym_bin(an, OP_MUL, a.hi, b.lo), sym_bin(an, OP_MUL, a.lo, b.lo) };
	if (is_nonneg(an, a.lo) && is_nonneg(an, b.lo))
		return (ISet){ sym_bin(an, OP_MUL, a.lo, b.lo), sym_bin(an, OP_MUL, a.hi, b.hi) };
	return (ISet){ NULL, NULL };
}

static ISet bool_interval(Analyzer *an)
{
	return (ISet){ mk_int(an->a, 0, DT_INT64), mk_int(an->a, 1, DT_INT64) };
}

static ISet iset_of(Analyzer *an, Expr *e)
{
	ISet a, b;
	switch (e->kind) {
	case EX_INT: case EX_BOOL: return (ISet){ e, e };
	case EX_VAR: {
		ISet *p = pmap_get(&an->iset, e->var);
		return p ? *p : (ISet){ e, e };
	}
	case EX_BINARY:
		switch ((BinOp)e->op) {
		case OP_ADD:
			a = iset_of(an, e->lhs), b = iset_of(an, e->rhs);
			return (ISet){ sym_bin(an, OP_ADD, a.lo, b.lo), sym_bin(an, OP_ADD, a.hi, b.hi) };
		case OP_SUB:
			a = iset_of(an, e->lhs), b = iset_of(an, e->rhs);
			return (ISet){ sym_bin(an, OP_SUB, a.lo, b.hi), sym_bin(an, OP_SUB, a.hi, b.lo) };
		case OP_MUL:
			a = iset_of(an, e->lhs), b = iset_of(an, e->rhs);
			return iset_mul(an, a, b);
		case OP_FLOORDIV:
			a = iset_of(an, e->lhs), b = iset_of(an, e->rhs);
			if (!single(b) || !cint(b.lo) || b.lo->ival <= 0)
				return (ISet){ NULL, NULL };
			return (ISet){ sym_bin(an, OP_FLOORDIV, a.lo, b.lo), sym_bin(an, OP_FLOORDIV, a.hi, b.lo) };
		case OP_MOD:
			(void)iset_of(an, e->lhs);
			b = iset_of(an, e->rhs);
			if (!single(b) || !cint(b.lo) || b.lo->ival <= 0)
				return (ISet){ NULL, NULL };
			return (ISet){ mk_int(an->a, 0, DT_INT64), mk_int(an->a, b.lo->ival - 1, DT_INT64) };
		case OP_MIN:
			a = iset_of(an, e->lhs), b = iset_of(an, e->rhs);
			return (ISet){ sym_min_lower(an, a.lo, b.lo), sym_min_upper(an, a.hi, b.hi) };
		case OP_MAX:
			a = iset_of(an, e->lhs), b = iset_of(an, e->rhs);
			return (ISet){ sym_max_lower(an, a.lo, b.lo), sym_max_upper(an, a.hi, b.hi) };
		case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
		case OP_AND: case OP_OR: case OP_XOR:
			return bool_interval(an);
		default:
			return (ISet){ NULL, NULL };
		}
	case EX_UNARY:
		if (e->op == UOP_NEG) {
			a = iset_of(an, e->lhs);
			return (ISet){ a.hi ? maybe_simplify(an, arith_make_unary(an, UOP_NEG, a.hi)) : NULL,
				       a.lo ? maybe_simplify(an, arith_make_unary(an, UOP_NEG, a.lo)) : NULL };
		}
		if (e->op == UOP_NOT)
			return bool_interval(an);
		return (ISet){ NULL, NULL };
	case EX_CAST: {
		DType src = dt_of(e->lhs), dst = (DType)e->dtype;
		if (src < DT_COUNT && ir_dtype_bits(dst) >= ir_dtype_bits(src) &&
		    ir_dtype_is_int(dst) == ir_dtype_is_int(src))
			return iset_of(an, e->lhs);
		return (ISet){ NULL, NULL };
	}
	default:
		return (ISet){ NULL, NULL };
	}
}

static void iset_put(Analyzer *an, Var *v, ISet s)
{
	ISet *p = arena_alloc(an->a, sizeof *p);
	*p = s;
	pmap_put(&an->iset, v, p);
}

static void iset_tighten(Analyzer *an, Var *v, ISet ns)
{
	ISet *old = pmap_get(&an->iset, v);
	GROW(an->sundo, an->nsundo, an->csundo);
	an->sundo[an->nsundo++] = (SetUndo){ v, old };
	ISet o = old ? *old : (ISet){ NULL, NULL };
	iset_put(an, v, (ISet){ sym_max_lower(an, o.lo, ns.lo), sym_min_upper(an, o.hi, ns.hi) });
}

static void iset_parse_constraint(Analyzer *an, Expr *e)
{
	if (e->kind != EX_BINARY)
		return;
	Var *lv = plain_var(e->lhs), *rv = plain_var(e->rhs);
	Expr *one = mk_int(an->a, 1, DT_INT64);
	switch ((BinOp)e->op) {
	case OP_GE:
		if (lv) iset_tighten(an, lv, (ISet){ e->rhs, NULL });
		if (rv) iset_tighten(an, rv, (ISet){ NULL, e->lhs });
		return;
	case OP_GT:
		if (lv) iset_tighten(an, lv, (ISet){ maybe_simplify(an, MK(OP_ADD, e->rhs, one)), NULL });
		if (rv) iset_tighten(an, rv, (ISet){ NULL, maybe_simplify(an, MK(OP_SUB, e->lhs, one)) });
		return;
	case OP_LE:
		if (lv) iset_tighten(an, lv, (ISet){ NULL, e->rhs });
		if (rv) iset_tighten(an, rv, (ISet){ e->lhs, NULL });
		return;
	case OP_LT:
		if (lv) iset_tighten(an, lv, (ISet){ NULL, maybe_simplify(an, MK(OP_SUB, e->rhs, one)) });
		if (rv) iset_tighten(an, rv, (ISet){ maybe_simplify(an, MK(OP_ADD, e->lhs, one)), NULL });
		return;
	case OP_EQ:
		if (lv) iset_tighten(an, lv, (ISet){ e->rhs, e->rhs });
		if (rv) iset_tighten(an, rv, (ISet){ e->lhs, e->lhs });
		return;
	case OP_AND:
		iset_parse_constraint(an, e->lhs);
		iset_parse_constraint(an, e->rhs);
		return;
	default:
		return;
	}
}

/* ------------------------------------------------------------ the canonical simplifier */

static Sum sum_of(Analyzer *an, Expr *e)
{
	Sum *c = pmap_get(&an->sums, e);
	if (c)
		return *c;
	Sum s = { 0, NULL, 0, dt_of(e) < DT_COUNT ? dt_of(e) : DT_INDEX };
	if (cint(e)) {
		s.base = e->ival;
		return s;
	}
	s.args = arena_alloc(an->a, sizeof *s.args);
	s.args[0] = (Split){ e, 1, ARITH_POS_INF, 1 };
	s.n = 1;
	return s;
}

static Expr *norm_split(Analyzer *an, Split sp, DType dt)
{
	Expr *idx = sp.index;
	if (sp.upper != ARITH_POS_INF)
		idx = MK(OP_MOD, idx, mk_int(an->a, sp.upper, dt));
	if (sp.lower != 1)
		idx = MK(OP_FLOORDIV, idx, mk_int(an->a, sp.lower, dt));
	if (sp.scale == 1)
		return idx;
	if (sp.scale == -1)
		return arith_make_unary(an, UOP_NEG, idx);
	return MK(OP_MUL, idx, mk_int(an->a, sp.scale, dt));
}

static Expr *norm_sum(Analyzer *an, Sum s)
{
	Expr *res = NULL;
	for (int i = 0; i < s.n; i++) {
		if (s.args[i].scale == 0)
			continue;
		Expr *t = norm_split(an, s.args[i], s.dtype);
		res = res ? MK(OP_ADD, res, t) : t;
	}
	if (!res)
		return mk_int(an->a, s.base, s.dtype);
	if (s.base != 0)
		res = MK(OP_ADD, res, mk_int(an->a, s.base, s.dtype));
	return res;
}

static Expr *norm_cache(Analyzer *an, Sum s)
{
	Expr *r = norm_sum(an, s);
	Sum *c = arena_alloc(an->a, sizeof *c);
	*c = s;
	pmap_put(&an->sums, r, c);
	return r;
}

static bool merge_same(Split a, Split b, Split *out)
{
	if (a.index != b.index || a.lower != b.lower || a.upper != b.upper || add_ovf(a.scale, b.scale))
		return false;
	*out = a;
	out->scale = a.scale + b.scale;
	return true;
}

static bool merge_divmod1(Split dv, Split md, Split *out)
{
	if (md.lower != 1 || md.upper == ARITH_POS_INF || dv.lower != md.upper)
		return false;
	if (mul_ovf(dv.lower, md.scale) || dv.scale != dv.lower * md.scale)
		return false;
	*out = md;
	out->upper = dv.upper;
	return true;
}

static bool merge_divmod(Split a, Split b, Split *out)
{
	if (a.index != b.index)
		return false;
	return merge_divmod1(a, b, out) || merge_divmod1(b, a, out);
}

static void merge_terms(Split *args, int *n)
{
	bool changed = true;
	while (changed) {
		changed = false;
		for (int i = 0; i < *n; i++) {
			if (args[i].scale == 0)
				continue;
			for (int j = i + 1; j < *n; j++) {
				if (args[j].scale == 0)
					continue;
				Split m;
				if (merge_same(args[i], args[j], &m) || merge_divmod(args[i], args[j], &m)) {
					args[i] = m;
					args[j].scale = 0;
					changed = true;
				}
			}
		}
	}
	int k = 0;
	for (int i = 0; i < *n; i++)
		if (args[i].scale != 0)
			args[k++] = args[i];
	*n = k;
}

static Split *copy_args(Analyzer *an, const Split *a, int n, int extra)
{
	Split *s = arena_alloc(an->a, (size_t)(n + extra + 1) * sizeof *s);
	if (n)
		memcpy(s, a, (size_t)n * sizeof *s);
	return s;
}

static Sum sum_add(Analyzer *an, Sum l, Sum r)
{
	Sum res = { 0, NULL, 0, l.dtype };
	if (add_ovf(l.base, r.base)) {
		res.args = copy_args(an, NULL, 0, 1);
		res.args[0] = (Split){ MK(OP_ADD, norm_sum(an, l), norm_sum(an, r)), 1, ARITH_POS_INF, 1 };
		res.n = 1;
		return res;
	}
	res.base = l.base + r.base;
	res.args = copy_args(an, l.args, l.n, r.n);
	if (r.n)
		memcpy(res.args + l.n, r.args, (size_t)r.n * sizeof *r.args);
	res.n = l.n + r.n;
	merge_terms(res.args, &res.n);
	return res;
}

static Sum sum_neg(Analyzer *an, Sum s)
{
	Sum res = { 0, NULL, 0, s.dtype };
	if (s.base == INT64_MIN) {
		res.args = copy_args(an, NULL, 0, 1);
		res.args[0] = (Split){ norm_sum(an, s), 1, ARITH_POS_INF, -1 };
		res.n = 1;
		return res;
	}
	res.base = -s.base;
	res.args = copy_args(an, s.args, s.n, 0);
	res.n = s.n;
	for (int i = 0; i < res.n; i++) {
		if (res.args[i].scale == INT64_MIN) {
			res.args[i] = (Split){ norm_split(an, res.args[i], s.dtype), 1, ARITH_POS_INF, -1 };
		} else {
			res.args[i].scale = -res.args[i].scale;
		}
	}
	return res;
}

static Sum sum_mul(Analyzer *an, Sum s, int64_t c)
{
	Sum res = { 0, NULL, 0, s.dtype };
	if (c == 0)
		return res;
	if (c == 1)
		return s;
	if (mul_ovf(s.base, c)) {
		res.args = copy_args(an, NULL, 0, 1);
		res.args[0] = (Split){ norm_sum(an, s), 1, ARITH_POS_INF, c };
		res.n = 1;
		return res;
	}
	res.base = s.base * c;
	res.args = copy_args(an, s.args, s.n, 0);
	res.n = s.n;
	for (int i = 0; i < res.n; i++) {
		if (mul_ovf(res.args[i].scale, c))
			res.args[i] = (Split){ norm_split(an, res.args[i], s.dtype), 1, ARITH_POS_INF, c };
		else
			res.args[i].scale *= c;
	}
	return res;
}

static bool sum_floordiv(Analyzer *an, Sum s, int64_t d, Sum *out)
{
	bool all = fmod_i(s.base, d) == 0;
	for (int i = 0; all && i < s.n; i++)
		if (s.args[i].scale % d != 0)
			all = false;
	if (all) {
		*out = s;
		out->args = copy_args(an, s.args, s.n, 0);
		out->base = floor_div_i(s.base, d);
		for (int i = 0; i < out->n; i++)
			out->args[i].scale /= d;
		return true;
	}
	if (s.n == 1 && s.base == 0) {
		Split sp = s.args[0];
		if (sp.scale % d == 0) {
			*out = s;
			out->args = copy_args(an, s.args, 1, 0);
			out->args[0].scale /= d;
			return true;
		}
		if (sp.scale > 0 && d % sp.scale == 0) {
			int64_t k = d / sp.scale;
			if (mul_ovf(sp.lower, k))
				return false;
			int64_t nl = sp.lower * k;
			if (sp.upper != ARITH_POS_INF && sp.upper % nl != 0)
				return false;
			*out = s;
			out->args = copy_args(an, s.args, 1, 0);
			out->args[0].lower = nl;
			out->args[0].scale = 1;
			return true;
		}
	}
	return false;
}

static bool sum_floormod(Analyzer *an, Sum s, int64_t d, Sum *out)
{
	bool all = true;
	for (int i = 0; all && i < s.n; i++)
		if (s.args[i].scale % d != 0)
			all = false;
	if (all) {
		*out = (Sum){ fmod_i(s.base, d), NULL, 0, s.dtype };
		return true;
	}
	if (s.n == 1 && s.base == 0) {
		Split sp = s.args[0];
		if (sp.scale != 0 && sp.scale % d == 0) {
			*out = (Sum){ 0, NULL, 0, s.dtype };
			return true;
		}
		if (sp.scale == 1 && sp.lower == 1 && sp.upper != ARITH_POS_INF && sp.upper % d == 0) {
			*out = s;
			out->args = copy_args(an, s.args, 1, 0);
			out->args[0].upper = d;
			return true;
		}
	}
	return false;
}

static Expr *canon_visit(Analyzer *an, Expr *e);

static Expr *canon_binary(Analyzer *an, Expr *e)
{
	BinOp op = (BinOp)e->op;
	Expr *a = canon_visit(an, e->lhs), *b = canon_visit(an, e->rhs);
	Expr *f = fold2(an, op, a, b);
	if (f)
		return f;
	switch (op) {
	case OP_ADD: return norm_cache(an, sum_add(an, sum_of(an, a), sum_of(an, b)));
	case OP_SUB: return norm_cache(an, sum_add(an, sum_of(an, a), sum_neg(an, sum_of(an, b))));
	case OP_MUL:
		if (cint(b)) return norm_cache(an, sum_mul(an, sum_of(an, a), b->ival));
		if (cint(a)) return norm_cache(an, sum_mul(an, sum_of(an, b), a->ival));
		return mutate_binary(an, e, a, b);
	case OP_FLOORDIV: case OP_MOD: {
		bool pos = cint(b) && b->ival > 0;
		if (pos) {
			Sum r;
			bool ok = op == OP_FLOORDIV ? sum_floordiv(an, sum_of(an, a), b->ival, &r)
						    : sum_floormod(an, sum_of(an, a), b->ival, &r);
			if (ok)
				return norm_cache(an, r);
		}
		Expr *ret = mutate_binary(an, e, a, b);
		if (pos) {
			Sum *c = arena_alloc(an->a, sizeof *c);
			c->base = 0;
			c->dtype = dt_of(ret) < DT_COUNT ? dt_of(ret) : DT_INDEX;
			c->args = copy_args(an, NULL, 0, 1);
			c->args[0] = op == OP_FLOORDIV ? (Split){ a, b->ival, ARITH_POS_INF, 1 }
						       : (Split){ a, 1, b->ival, 1 };
			c->n = 1;
			pmap_put(&an->sums, ret, c);
		}
		return ret;
	}
	case OP_XOR:
		return a == e->lhs && b == e->rhs ? e : raw_binary(an->a, OP_XOR, a, b, DT_BOOL);
	default:
		return mutate_binary(an, e, a, b);
	}
}

static Expr *canon_visit(Analyzer *an, Expr *e)
{
	if (is_float_expr(e))
		return e;
	switch (e->kind) {
	case EX_BINARY: return canon_binary(an, e);
	case EX_UNARY: {
		Expr *a = canon_visit(an, e->lhs);
		Expr *f = arith_fold_unary(an->a, (UnOp)e->op, a);
		if (f)
			return f;
		if (e->op == UOP_NEG)
			return norm_cache(an, sum_neg(an, sum_of(an, a)));
		if (a == e->lhs)
			return e;
		if (e->op == UOP_ABS)
			return raw_unary(an->a, UOP_ABS, a, dt_of(a) < DT_COUNT ? dt_of(a) : DT_INDEX);
		return arith_make_unary(an, (UnOp)e->op, a);
	}
	case EX_CAST: {
		Expr *a = canon_visit(an, e->lhs);
		return a == e->lhs ? e : mk_cast(an->a, a, (DType)e->dtype);
	}
	default:
		return e;
	}
}

static Expr *canonical(Analyzer *an, Expr *e)
{
	if (an->sums.len)
		pmap_release(&an->sums); /* not pmap_clear: that costs the table's size every call */
	return canon_visit(an, e);
}

/* ------------------------------------------------------------ proving */

static bool implies(int result, int required)
{
	return (result & required) == result && result != CR_UNKNOWN && result != CR_INCONS;
}

static bool symbolic_fallback(Analyzer *an, Expr *l, Expr *r, bool upper, bool strict)
{
	if (an->in_int_set_eval)
		return false;
	an->in_int_set_eval = true;
	bool ok = false;
	ISet ls = iset_of(an, l), rs = iset_of(an, r);
	ArithBound b;
	if (upper) {
		if (ls.hi) {
			b = bound_of(an, canonical(an, arith_simplify(an, MK(OP_SUB, ls.hi, r))));
			if (strict ? b.hi < 0 : b.hi <= 0) ok = true;
		}
		if (!ok && rs.lo) {
			b = bound_of(an, canonical(an, arith_simplify(an, MK(OP_SUB, l, rs.lo))));
			if (strict ? b.hi < 0 : b.hi <= 0) ok = true;
		}
	} else {
		if (ls.lo) {
			b = bound_of(an, canonical(an, arith_simplify(an, MK(OP_SUB, ls.lo, r))));
			if (strict ? b.lo > 0 : b.lo >= 0) ok = true;
		}
		if (!ok && rs.hi) {
			b = bound_of(an, canonical(an, arith_simplify(an, MK(OP_SUB, l, rs.hi))));
			if (strict ? b.lo > 0 : b.lo >= 0) ok = true;
		}
	}
	an->in_int_set_eval = false;
	return ok;
}

static bool can_prove(Analyzer *an, Expr *cond);

bool arith_can_prove(Analyzer *an, Expr *cond)
{
	ArenaMark m = arena_mark(an->a);
	bool r = can_prove(an, cond);
	arena_reset(an->a, m);
	state_changed(an);
	return r;
}

static bool can_prove(Analyzer *an, Expr *cond)
{
	Expr *s = arith_simplify(an, cond);
	if (s->kind == EX_BOOL)
		return s->ival != 0;
	if (s->kind == EX_INT)
		return s->ival != 0;
	if (s->kind != EX_BINARY)
		return false;
	BinOp op = (BinOp)s->op;
	if (op == OP_AND)
		return can_prove(an, s->lhs) && can_prove(an, s->rhs);
	if (!is_cmp(op))
		return false;
	Expr *diff = arith_simplify(an, MK(OP_SUB, s->lhs, s->rhs));
	ArithBound b = bound_of(an, diff);
	switch (op) {
	case OP_LT:
		if (b.hi < 0) return true;
		if (implies(transitive_compare(an, s->lhs, s->rhs), CR_LT)) return true;
		return symbolic_fallback(an, s->lhs, s->rhs, true, true);
	case OP_LE:
		if (b.hi <= 0) return true;
		if (implies(transitive_compare(an, s->lhs, s->rhs), CR_LE)) return true;
		return symbolic_fallback(an, s->lhs, s->rhs, true, false);
	case OP_GT:
		if (b.lo > 0) return true;
		if (implies(transitive_compare(an, s->lhs, s->rhs), CR_GT)) return true;
		return symbolic_fallback(an, s->lhs, s->rhs, false, true);
	case OP_GE:
		if (b.lo >= 0) return true;
		if (implies(transitive_compare(an, s->lhs, s->rhs), CR_GE)) return true;
		return symbolic_fallback(an, s->lhs, s->rhs, false, false);
	case OP_EQ:
		if (b.lo == 0 && b.hi == 0) return true;
		return implies(transitive_compare(an, s->lhs, s->rhs), CR_EQ);
	default: /* OP_NE */
		if (b.lo > 0 || b.hi < 0) return true;
		return implies(transitive_compare(an, s->lhs, s->rhs), CR_NE);
	}
}

/* ------------------------------------------------------------ bindings and constraints */

void arith_bind_value(Analyzer *an, Var *v, Expr *value)
{
	state_changed(an);
	Expr *s = rewrite(an, value);
	ArithBound b = bound_of(an, s);
	if (b.lo <= b.hi)
		bound_set(an, v, b);
	pmap_put(&an->rw, v, s);
	add_known(an, MK(OP_EQ, ir_var_ref(an->a, v), s), false);
	iset_put(an, v, (ISet){ s, s });
}

void arith_bind_range(Analyzer *an, Var *v, int64_t lo, int64_t hi_excl)
{
	state_changed(an);
	DType dt = v->type && v->type->kind == TY_SCALAR ? v->type->dtype : DT_INDEX;
	bound_set(an, v, (ArithBound){ lo, hi_excl - 1 });
	Expr *ref = ir_var_ref(an->a, v);
	if (hi_excl - lo == 1) {
		add_known(an, MK(OP_EQ, ref, mk_int(an->a, lo, dt)), false);
	} else {
		add_known(an, MK(OP_GE, ref, mk_int(an->a, lo, dt)), false);
		add_known(an, MK(OP_LT, ref, mk_int(an->a, hi_excl, dt)), false);
	}
	Expr *hi = MK(OP_SUB, mk_int(an->a, hi_excl, dt), mk_int(an->a, 1, DT_INT64));
	Expr *f = fold2(an, OP_SUB, hi->lhs, hi->rhs);
	iset_put(an, v, (ISet){ mk_int(an->a, lo, dt), f ? f : maybe_simplify(an, hi) });
	if (hi_excl - lo == 1)
		pmap_put(&an->rw, v, mk_int(an->a, lo, dt));
}

void arith_update_bound(Analyzer *an, Var *v, ArithBound b) { bound_set(an, v, b); }

void arith_unbind(Analyzer *an, Var *v)
{
	state_changed(an);
	pmap_put(&an->cib, v, NULL);
	pmap_put(&an->rw, v, NULL);
	transitive_unbind(an, v);
}

int arith_enter_constraint(Analyzer *an, Expr *cond)
{
	state_changed(an);
	GROW(an->ctx, an->nctx, an->cctx);
	an->ctx[an->nctx] = (Ctx){ an->nbundo, an->nsundo, an->nscoped };
	int h = (int)an->nctx++;
	Expr *norm = rewrite(an, cond);
	bound_parse_constraint(an, norm);
	(void)rewrite(an, norm); /* the rewrite simplifier's own EnterConstraint */
	add_known(an, norm, true);
	iset_parse_constraint(an, norm);
	return h;
}

void arith_exit_constraint(Analyzer *an, int handle)
{
	state_changed(an);
	Ctx c = an->ctx[handle];
	while (an->nsundo > c.set_mark) {
		SetUndo u = an->sundo[--an->nsundo];
		if (!u.old || (!u.old->lo && !u.old->hi))
			pmap_put(&an->iset, u.v, NULL);
		else
			pmap_put(&an->iset, u.v, u.old);
	}
	an->nscoped = c.scoped_mark;
	while (an->nbundo > c.bound_mark) {
		BoundUndo u = an->bundo[--an->nbundo];
		if (!u.old || (u.old->lo == ARITH_NEG_INF && u.old->hi == ARITH_POS_INF))
			pmap_put(&an->cib, u.v, NULL);
		else
			pmap_put(&an->cib, u.v, u.old);
	}
	an->nctx = (size_t)handle;
}
