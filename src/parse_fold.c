/* parse_fold.c - compile-time evaluation, as the reference's parser does
 * it in Python: literal operator trees folded to one constant, and the
 * pl.static_print / pl.static_assert statements, which leave no IR.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ptoopt/print.h"
#include "ptoopt/strbuf.h"
#include "parse_int.h"

/* ------------------------------------------------------------ constant folding
 *
 * The reference's parser evaluates, in Python, every operator subtree whose
 * leaves are all literals or module-level constants (ast_parser.py,
 * parse_binop / parse_unaryop: `512 // K`, `1.0 / 256`, `2 ** 3`, `-K`) and
 * emits the value as one constant: an int becomes an INDEX constant, a float
 * an FP32 one.  Comparisons, `not` and `~` are not folded.  What Python
 * cannot evaluate (a division by zero, a negative shift) stays an operator
 * over the constants.  p->lit tells whether the operand just parsed is such
 * a constant. */

/* Python's floor division and modulo of floats (CPython's float_divmod). */
static void py_float_divmod(double a, double b, double *div, double *mod)
{
	double m = fmod(a, b);
	double d = (a - m) / b;
	if (m != 0) {
		if ((b < 0) != (m < 0)) {
			m += b;
			d -= 1.0;
		}
	} else {
		m = copysign(0.0, b);
	}
	double f = 0;
	if (d != 0) {
		f = floor(d);
		if (d - f > 0.5)
			f += 1.0;
	} else {
		f = copysign(0.0, a / b);
	}
	*div = f;
	*mod = m;
}

/* a ** b for ints b >= 0, or false on overflow. */
static bool int_pow(int64_t a, int64_t b, int64_t *out)
{
	if (a == 0 || a == 1 || a == -1) {
		*out = a == 0 ? (b == 0) : a == 1 ? 1 : (b % 2 ? -1 : 1);
		return true;
	}
	int64_t r = 1;
	for (; b > 0; b--) /* |a| >= 2: at most 63 rounds before overflow */
		if (__builtin_mul_overflow(r, a, &r))
			return false;
	*out = r;
	return true;
}

static bool foldable(const Expr *e)
{
	return (e->kind == EX_INT && e->dtype == DT_INDEX) || (e->kind == EX_FLOAT && e->dtype == DT_FP32);
}

/* l op r evaluated as Python would, or NULL when Python raises (then the
 * operator is kept).  A result beyond 64 bits is an error here: the
 * reference cannot build that constant either. */
Expr *pp_fold_binary(Parser *p, int op, const Expr *l, const Expr *r, SrcPos pos)
{
	if (!foldable(l) || !foldable(r))
		return NULL;
	if (l->kind == EX_INT && r->kind == EX_INT) {
		int64_t a = l->ival, b = r->ival, v = 0;
		bool ovf = false;
		switch (op) {
		case OP_ADD: ovf = __builtin_add_overflow(a, b, &v); break;
		case OP_SUB: ovf = __builtin_sub_overflow(a, b, &v); break;
		case OP_MUL: ovf = __builtin_mul_overflow(a, b, &v); break;
		case OP_DIV:
			if (b == 0)
				return NULL;
			return pp_float(p, (double)a / (double)b, DT_FP32, pos);
		case OP_FLOORDIV: case OP_MOD:
			if (b == 0)
				return NULL;
			if (a == INT64_MIN && b == -1) {
				ovf = op == OP_FLOORDIV;
				break;
			}
			v = op == OP_FLOORDIV ? a / b - ((a % b != 0) && ((a < 0) != (b < 0))) : a % b;
			if (op == OP_MOD && v != 0 && ((v < 0) != (b < 0)))
				v += b;
			break;
		case OP_SHL:
			if (b < 0)
				return NULL;
			if (a != 0 && (b >= 63 || (a > 0 ? a > (INT64_MAX >> b) : a < (INT64_MIN >> b))))
				ovf = true;
			else
				v = (int64_t)((uint64_t)a << b);
			break;
		case OP_SHR:
			if (b < 0)
				return NULL;
			v = b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
			break;
		case OP_POW:
			if (b < 0) {
				if (a == 0)
					return NULL;
				return pp_float(p, pow((double)a, (double)b), DT_FP32, pos);
			}
			ovf = !int_pow(a, b, &v);
			break;
		default:
			return NULL;
		}
		if (ovf)
			pp_error(p, pos.line, pos.col, "constant expression does not fit in a 64-bit integer");
		return pp_int(p, v, DT_INDEX, pos);
	}
	double a = l->kind == EX_INT ? (double)l->ival : l->fval, b = r->kind == EX_INT ? (double)r->ival : r->fval, v, m;
	switch (op) {
	case OP_ADD: v = a + b; break;
	case OP_SUB: v = a - b; break;
	case OP_MUL: v = a * b; break;
	case OP_DIV:
		if (b == 0)
			return NULL;
		v = a / b;
		break;
	case OP_FLOORDIV: case OP_MOD:
		if (b == 0)
			return NULL;
		py_float_divmod(a, b, &v, &m);
		if (op == OP_MOD)
			v = m;
		break;
	case OP_POW:
		if ((a == 0 && b < 0) || (a < 0 && b != floor(b)))
			return NULL; /* ZeroDivisionError / a complex result */
		v = pow(a, b);
		break;
	default:
		return NULL; /* shifts of floats: a TypeError */
	}
	if (isinf(v) || isnan(v))
		return NULL; /* OverflowError */
	return pp_float(p, v, DT_FP32, pos);
}

/* The truth of a constant condition (literals, module constants, and
 * comparisons, not / and / or over them): false when e is not one. */
bool pp_const_value(const Expr *e, double *v)
{
	switch (e->kind) {
	case EX_INT: case EX_BOOL: *v = (double)e->ival; return true;
	case EX_FLOAT: *v = e->fval; return true;
	case EX_UNARY: {
		double x;
		if (!pp_const_value(e->lhs, &x))
			return false;
		*v = e->op == UOP_NOT ? (x == 0) : e->op == UOP_NEG ? -x : x;
		return e->op == UOP_NOT || e->op == UOP_NEG;
	}
	case EX_BINARY: {
		double a, b;
		if (!pp_const_value(e->lhs, &a) || !pp_const_value(e->rhs, &b))
			return false;
		switch (e->op) {
		case OP_EQ: *v = a == b; return true;
		case OP_NE: *v = a != b; return true;
		case OP_LT: *v = a < b; return true;
		case OP_LE: *v = a <= b; return true;
		case OP_GT: *v = a > b; return true;
		case OP_GE: *v = a >= b; return true;
		case OP_AND: *v = a != 0 && b != 0; return true;
		case OP_OR: *v = a != 0 || b != 0; return true;
		default: return false;
		}
	}
	default:
		return false;
	}
}

/* pl.static_print(...) / pl.static_assert(cond[, "message"]): evaluated
 * while parsing, as the reference's parser does, and gone from the IR.
 * static_print writes its line to stderr (the reference prints it on
 * stdout, which here carries the program). */
void pp_static_stmt(Parser *p, bool is_assert)
{
	Token pl = next(p);
	skip(p);
	skip(p); /* static_print / static_assert */
	skip(p); /* ( */
	StrBuf *out = &p->static_line;
	out->len = 0;
	int nargs = 0;
	const Expr *cond = NULL;
	const char *src0 = NULL, *src1 = NULL, *msg = NULL;
	while (!at_op(p, ")")) {
		const Token *a = peek(p);
		if (a->kind == TK_STRING && (tok_is_op(peek_at(p, 1), ",") || tok_is_op(peek_at(p, 1), ")"))) {
			Token st = next(p);
			if (is_assert && nargs != 1)
				PERR_AT(p, &st, "static_assert() message must be a string literal, after the condition");
			if (is_assert)
				msg = st.text;
			else
				sb_printf(out, "%s%s", out->len ? " " : "", st.text);
		} else {
			if (is_assert && nargs == 1)
				PERR_AT(p, a, "static_assert() message must be a string literal");
			const char *s0 = a->src;
			Expr *e = pp_expr(p);
			if (is_assert) {
				cond = e;
				src0 = s0;
				src1 = peek(p)->src;
			} else {
				sb_printf(out, "%s", out->len ? " " : "");
				if (e->kind == EX_VAR)
					sb_printf(out, "%s: ", e->var->name);
				else if (e->kind == EX_INT)
					sb_printf(out, "%lld: ", (long long)e->ival);
				else if (e->kind == EX_BOOL)
					sb_printf(out, "%s: ", e->ival ? "True" : "False");
				else if (e->kind == EX_FLOAT)
					sb_printf(out, "%.17g: ", e->fval);
				print_type(out, ir_expr_type(e)); /* an expression: just its type */
			}
		}
		nargs++;
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	if (!is_assert) {
		if (!nargs) {
			PERR_AT(p, &pl, "static_print() requires at least 1 argument");
		}
		sb_putc(out, 0);
		fprintf(stderr, "static_print [%s:%d]: %s\n", p->diag->file, pl.line, out->data);
		p->prog->static_printed = true;
		sb_release(out);
		return;
	}
	if (nargs < 1 || nargs > 2)
		PERR_AT(p, &pl, "static_assert() requires 1 or 2 arguments");
	double v;
	if (!pp_const_value(cond, &v))
		PERR_AT(p, &pl, "static_assert condition must be compile-time evaluable (condition `%.*s` is not a constant)",
			(int)(src1 - src0 > 200 ? 200 : src1 - src0), src0);
	if (v == 0) {
		bool cmp = cond->kind == EX_BINARY || cond->kind == EX_UNARY || cond->kind == EX_BOOL;
		PERR_AT(p, &pl, "static_assert failed%s%s (condition `%.*s` evaluated to %s)", msg ? ": " : "", msg ? msg : "",
			(int)(src1 - src0 > 200 ? 200 : src1 - src0), src0, cmp ? "False" : cond->kind == EX_FLOAT ? "0.0" : "0");
	}
}

