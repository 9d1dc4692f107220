/* parse_fold.c - compile-time evaluation, as the reference's parser does
 * it in Python: literal operator trees folded to one constant, and the
 * pl.static_print / pl.static_assert statements, which leave no IR.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Python's repr() of a float: the fewest significant digits that read
 * back as the same double, in fixed notation for decimal exponents from
 * -4 to 15, else as d.ddde+XX (at least two exponent digits). */
static void py_float_repr(StrBuf *out, double v)
{
	if (isnan(v) || isinf(v)) {
		sb_puts(out, isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
		return;
	}
	char buf[40];
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	/* buf: [-]d[.ddd]e[+-]XX */
	char digits[20];
	int nd = 0, exp10;
	const char *q = buf;
	bool neg = *q == '-';
	if (neg)
		q++;
	for (; *q != 'e'; q++)
		if (*q != '.')
			digits[nd++] = *q;
	exp10 = atoi(q + 1);
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	if (neg)
		sb_putc(out, '-');
	if (exp10 >= -4 && exp10 < 16) {
		if (exp10 < 0) {
			sb_puts(out, "0.");
			for (int i = -1; i > exp10; i--)
				sb_putc(out, '0');
			sb_putn(out, digits, (size_t)nd);
		} else {
			for (int i = 0; i <= exp10; i++)
				sb_putc(out, i < nd ? digits[i] : '0');
			sb_putc(out, '.');
			if (nd > exp10 + 1)
				sb_putn(out, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
			else
				sb_putc(out, '0');
		}
		return;
	}
	sb_putc(out, digits[0]);
	if (nd > 1) {
		sb_putc(out, '.');
		sb_putn(out, digits + 1, (size_t)(nd - 1));
	}
	sb_printf(out, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
}

/* One argument of pl.static_print as the reference writes it
 * (_format_ir_arg): a name or a constant with its type, any other
 * expression as the printer writes it. */
static void static_arg_text(StrBuf *out, Expr *e)
{
	if (e->kind != EX_VAR && e->kind != EX_INT && e->kind != EX_BOOL && e->kind != EX_FLOAT) {
		print_expr_text(out, e);
		return;
	}
	if (e->kind == EX_VAR)
		sb_printf(out, "%s: ", e->var->name);
	else if (e->kind == EX_INT)
		sb_printf(out, "%lld: ", (long long)e->ival);
	else if (e->kind == EX_BOOL)
		sb_printf(out, "%s: ", e->ival ? "True" : "False");
	else {
		py_float_repr(out, e->fval);
		sb_puts(out, ": ");
	}
	print_type(out, ir_expr_type(e));
}

/* Is the token at k an f-string's prefix: a name f or F written right
 * before a string (the lexer reads f"..." as the two)? */
bool pp_at_fstring(Parser *p, int k)
{
	const Token *f = peek_at(p, k), *s = peek_at(p, k + 1);
	return f->kind == TK_NAME && f->nlen == 1 && (f->text[0] == 'f' || f->text[0] == 'F') && s->kind == TK_STRING &&
	       s->src == f->src + 1;
}

/* The parser's lexer while a placeholder of an f-string is read by a
 * lexer of its own (parser_release frees it should that read fail). */
static void fstring_expr(Parser *p, StrBuf *out, const char *from, const char *to, int line, const char *line_start)
{
	p->outer_lx = xmalloc(sizeof *p->outer_lx);
	*p->outer_lx = p->lx;
	lex_init(&p->lx, p->a, p->diag, &p->fail, from, (size_t)(to - from));
	p->lx.line = line;
	p->lx.line_start = line_start;
	p->lx.at_line_start = false;
	p->lx.drop_comments = true;
	Expr *e = pp_expr(p);
	if (peek(p)->kind != TK_NEWLINE)
		PERR_AT(p, peek(p), "f-string: expecting '}', found %s", pp_describe(peek(p)));
	lex_release(&p->lx);
	p->lx = *p->outer_lx;
	free(p->outer_lx);
	p->outer_lx = NULL;
	static_arg_text(out, e);
}

/* f"..." in pl.static_print: the text with each {expression} replaced by
 * its static_print form ({{ and }} are braces).  Read from the source
 * text, so that a placeholder's errors point into it. */
static void static_fstring(Parser *p, StrBuf *out)
{
	skip(p); /* f */
	Token st = next(p);
	const char *q = st.src, *line_start = st.src - (st.col - 1);
	int line = st.line;
	char quote = *q;
	bool triple = q[1] == quote && q[2] == quote;
	q += triple ? 3 : 1;
	for (;;) {
		char c = *q;
		if (c == quote && (!triple || (q[1] == quote && q[2] == quote)))
			break;
		if (c == '\\') { /* as the lexer decodes it */
			char e = q[1];
			int v = lex_escape(e);
			q += 2;
			if (v >= 0) {
				sb_putc(out, (char)v);
			} else if (e == '\n') {
				line++;
				line_start = q;
			} else {
				sb_putc(out, '\\');
				sb_putc(out, e);
			}
			continue;
		}
		if (c == '\n') {
			sb_putc(out, '\n');
			q++;
			line++;
			line_start = q;
			continue;
		}
		if ((c == '{' || c == '}') && q[1] == c) {
			sb_putc(out, c);
			q += 2;
			continue;
		}
		if (c == '}')
			pp_error(p, line, (int)(q - line_start) + 1, "f-string: single '}' is not allowed");
		if (c != '{') {
			sb_putc(out, c);
			q++;
			continue;
		}
		/* a placeholder: up to its '}' outside brackets and strings */
		const char *from = ++q;
		int depth = 0;
		char in_str = 0;
		for (;; q++) {
			if ((*q == quote && (!triple || (q[1] == quote && q[2] == quote))) || (!triple && *q == '\n'))
				pp_error(p, line, (int)(from - line_start), "f-string: expecting '}'");
			if (in_str) {
				if (*q == in_str)
					in_str = 0;
			} else if (*q == '\'' || *q == '"') {
				in_str = *q;
			} else if (*q == '(' || *q == '[' || *q == '{') {
				depth++;
			} else if ((*q == ')' || *q == ']' || *q == '}') && depth > 0) {
				depth--;
			} else if (depth == 0 && (*q == '}' || *q == ':' || (*q == '!' && q[1] != '='))) {
				break;
			}
		}
		if (*q != '}')
			pp_error(p, line, (int)(q - line_start) + 1,
				 "F-string conversion (!r, !s, !a) and format specs (:.2f) are not supported in static_print");
		const char *t = from;
		while (t < q && (*t == ' ' || *t == '\t'))
			t++;
		if (t == q)
			pp_error(p, line, (int)(q - line_start) + 1, "f-string: empty expression not allowed");
		fstring_expr(p, out, from, q, line, line_start);
		q++;
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
		if (!is_assert && pp_at_fstring(p, 0)) {
			if (out->len)
				sb_putc(out, ' ');
			static_fstring(p, out);
		} else if (a->kind == TK_STRING && (tok_is_op(peek_at(p, 1), ",") || tok_is_op(peek_at(p, 1), ")"))) {
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
				static_arg_text(out, e);
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

