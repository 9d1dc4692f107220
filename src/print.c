/* print.c - canonical text of a Program, as the reference prints it.
 *
 * The rules (text-format.md): header and pl.dynamic block, functions in
 * callee-first name order, decorators with derived level/role, the `self`
 * rule, every assignment annotated, statements joined by "\n" with no
 * blank lines, operator precedence with minimal parentheses, typed
 * pl.const for non-INDEX constants and inside all-constant integer trees,
 * and per-function renaming of distinct Vars that share a name.
 */
#include "ptoopt/print.h"
#include "ptoopt/op_registry.h"

#include <inttypes.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* put_float's "%.17g" is a slow libc call; a program repeats a few
 * constants, so the text of recent ones is kept (direct-mapped by bits). */
#define FLOAT_CACHE_SIZE 64
typedef struct FloatText {
	uint64_t bits;
	uint8_t len; /* 0: empty */
	char text[31];
} FloatText;

/* Lengths of the IR's strings printed over and over (op names, keywords,
 * enum symbols), by address: the strings are never changed or freed
 * during a print, and a lookup costs less than strlen. */
#define LEN_CACHE_SIZE 256
typedef struct LenSlot {
	const char *s;
	size_t len;
} LenSlot;

/* The text of a recent list expression.  Equal lists are one shared node
 * (the parser builds each once: offsets, shapes, `[row, 0]`), printed again
 * and again: direct-mapped by address, the text is copied instead of
 * printing each element.  A list with a Var inside prints the Var's name in
 * the function being printed, so its text holds for that function only. */
#define LIST_CACHE_SIZE 512
typedef struct ListText {
	const Expr *e;   /* NULL: empty */
	unsigned epoch;  /* 0: constants only, good for the whole print; else Printer.epoch */
	uint8_t len;
	char text[51];
} ListText;

/* An op call's text up to its first argument (see put_op_head). */
#define OP_HEAD_CACHE_SIZE 128
typedef struct OpHead {
	const char *name; /* NULL: empty */
	uint8_t len;
	char text[55];
} OpHead;

/* A slot of the type text cache (see print_type_p). */
typedef struct TypeTextSlot {
	const Type *t;  /* the first type printed with this text; NULL: empty */
	uint64_t hash;
	unsigned text;  /* index into Printer.type_spans */
} TypeTextSlot;

/* A cached type text: type_texts.data[off .. off + len). */
typedef struct TypeSpan {
	size_t off, len;
} TypeSpan;

typedef struct Printer {
	StrBuf out;        /* the caller's buffer, held here while printing: one
	                    * pointer less to follow for each of the many appends */
	Program *prog;
	Arena *a;
	bool in_program;
	bool typed_consts; /* inside an all-constant integer tree or a composite dim */
	bool raw_names;    /* composite dims print raw name hints */
	unsigned epoch;    /* Var.mark value of the function being printed */
	PtrMap dyn_names;  /* dyn Var -> printed name (program-wide) */
	TypeTextSlot *type_slots; /* closed types by what their text depends on */
	size_t type_cap, ntypes;
	TypeSpan *type_spans; /* ntypes of them */
	size_t spans_cap;
	unsigned type_mark; /* Type.mark of a type whose Type.text_at is current; 0: none */
	StrBuf type_texts; /* malloc'd, not arena: the cache dies with the print */
	FloatText floats[FLOAT_CACHE_SIZE];
	LenSlot lens[LEN_CACHE_SIZE];
	OpHead heads[OP_HEAD_CACHE_SIZE];
	ListText *lists;   /* LIST_CACHE_SIZE of them, NULL when not caching (print_type) */
	bool canonical;    /* print_program_canonical: v0, v1, ... and no comments */
	const struct Walk *walk; /* what the pre-walk found */
	Function *fn;      /* the function being printed (NULL: a type alone) */
	bool in_signature; /* printing its parameters and return types */
	Function *defs_fn; /* the function body_defs holds the definitions of */
	PtrMap body_defs;  /* Vars its body defines (built for a pl.MemRef base) */
	struct NameSlot *name_slots; /* names_all_distinct's table */
	size_t name_cap;
	unsigned name_epoch;
	int split_aiv_depth; /* inside a pl.split_aiv region (its ops' split= is implied) */
	const char *skip_kw;  /* a keyword the op's spelling implies (not printed) */
} Printer;

/* A slot of names_all_distinct's table. */
typedef struct NameSlot {
	const char *name;
	unsigned epoch;
} NameSlot;

static void print_expr(Printer *pr, const Expr *e);
static inline void print_type_p(Printer *pr, Type *t);
static void print_block(Printer *pr, const Block *b, int indent, Var **rets, int nrets);

/* The printer appends with sb_add* (no NUL after each piece) and
 * terminates the text once at the end of a print. */

/* x, y and z in a row: the printer's hot "x%sz" formats without
 * sb_printf's parsing of the format (inlined, the literals' lengths are
 * known) */
static inline void put3(StrBuf *b, const char *x, const char *y, const char *z)
{
	sb_adds(b, x);
	sb_adds(b, y);
	sb_adds(b, z);
}

/* ------------------------------------------------------------ names */

/* sb_adds of a string of the IR, its length cached (LenSlot) */
static inline void put_ir_str(Printer *pr, const char *s)
{
	LenSlot *c = &pr->lens[((uintptr_t)s >> 3) % LEN_CACHE_SIZE];
	if (c->s != s) {
		c->s = s;
		c->len = strlen(s);
	}
	sb_add(&pr->out, s, c->len);
}

/* `pl.NAME(` for an op call (`pld.NAME(` as written).  A program calls a
 * few dozen ops over and over: their texts are kept by name address. */
static void put_op_head(Printer *pr, const char *name)
{
	OpHead *c = &pr->heads[((uintptr_t)name >> 3) % OP_HEAD_CACHE_SIZE];
	if (c->name != name) {
		bool pld = name[0] == 'p' && name[1] == 'l' && name[2] == 'd' && name[3] == '.';
		size_t n = strlen(name);
		if (n + 4 > sizeof c->text) { /* not for a real op; just in case */
			if (!pld)
				sb_adds(&pr->out, "pl.");
			sb_add(&pr->out, name, n);
			sb_addc(&pr->out, '(');
			return;
		}
		size_t at = pld ? 0 : 3;
		memcpy(c->text, "pl.", at);
		memcpy(c->text + at, name, n);
		c->text[at + n] = '(';
		c->len = (uint8_t)(at + n + 1);
		c->name = name;
	}
	sb_add(&pr->out, c->text, c->len);
}

/* The Vars of the function being printed carry Var.mark == epoch and their
 * text in print_name / print_len (assign_names). */
static const char *var_name(Printer *pr, const Var *v)
{
	const char *dyn = v->kind == VK_DYN ? pmap_get(&pr->dyn_names, v) : NULL; /* only VK_DYN are keys */
	if (dyn)
		return dyn;
	if (pr->raw_names)
		return v->name;
	return v->mark == pr->epoch ? v->print_name : v->name;
}

/* sb_adds(out, var_name(v)), the length known for the function's Vars */
static inline void put_var(Printer *pr, const Var *v)
{
	if (v->mark == pr->epoch && v->kind != VK_DYN && !pr->raw_names)
		sb_add(&pr->out, v->print_name, v->print_len);
	else
		sb_adds(&pr->out, var_name(pr, v));
}

/* ------------------------------------------------------------ constants */

static void put_float(Printer *pr, double v)
{
	StrBuf *b = &pr->out;
	if (isnan(v)) {
		sb_adds(b, "nan");
		return;
	}
	if (isinf(v)) {
		sb_adds(b, v < 0 ? "-inf" : "inf");
		return;
	}
	/* whole numbers are most of them: %.17g prints those as the integer
	 * (range first: converting a larger double to long long is undefined) */
	if (fabs(v) < 1e15 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
		sb_add_int(b, (long long)v);
		sb_adds(b, ".0");
		return;
	}
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	FloatText *c = &pr->floats[(bits ^ bits >> 29 ^ bits >> 52) % FLOAT_CACHE_SIZE];
	if (!c->len || c->bits != bits) {
		char buf[64];
		int n = snprintf(buf, sizeof buf, "%.17g", v);
		if (!strpbrk(buf, ".eE"))
			n += snprintf(buf + n, sizeof buf - (size_t)n, ".0");
		if (n < 1 || (size_t)n > sizeof c->text) { /* not for a double; just in case */
			sb_adds(b, buf);
			return;
		}
		c->bits = bits;
		c->len = (uint8_t)n;
		memcpy(c->text, buf, (size_t)n);
	}
	sb_add(b, c->text, c->len);
}

/* std::quoted: "..." with \" and \\ escaped */
static void put_quoted(StrBuf *b, const char *s)
{
	sb_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_addc(b, '\\');
		sb_addc(b, *s);
	}
	sb_addc(b, '"');
}

/* ------------------------------------------------------------ expressions */

static int binop_prec(BinOp op)
{
	switch (op) {
	case OP_OR: return 1;
	case OP_XOR: return 2;
	case OP_AND: return 3;
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: return 5;
	case OP_BITOR: return 6;
	case OP_BITXOR: return 7;
	case OP_BITAND: return 8;
	case OP_SHL: case OP_SHR: return 9;
	case OP_ADD: case OP_SUB: return 10;
	case OP_MUL: case OP_DIV: case OP_FLOORDIV: case OP_MOD: return 11;
	case OP_POW: return 13;
	case OP_MIN: case OP_MAX: return 14;
	}
	return 15;
}

static const char *binop_text(BinOp op)
{
	static const char *const t[] = {
		"or", "xor", "and", "==", "!=", "<", "<=", ">", ">=", "|", "^", "&", "<<", ">>",
		"+", "-", "*", "/", "//", "%", "**", "pl.min", "pl.max",
	};
	return t[op];
}

static int expr_prec(const Expr *e)
{
	switch (e->kind) {
	case EX_BINARY: return binop_prec((BinOp)e->op);
	case EX_UNARY:
		if (e->op == UOP_NOT) return 4;
		if (e->op == UOP_ABS) return 14;
		return 12;
	case EX_CAST: case EX_OP_CALL: case EX_FN_CALL: case EX_SUBMIT: return 14;
	default: return 15;
	}
}

static bool pure_const_int_tree(const Expr *e)
{
	if (e->kind == EX_INT)
		return true;
	return e->kind == EX_BINARY && pure_const_int_tree(e->lhs) && pure_const_int_tree(e->rhs);
}

static void print_list(Printer *pr, Expr *const *xs, int n);

/* An EX_TUPLE in an expression: [a, b, ...] */
static void print_tuple(Printer *pr, const Expr *e)
{
	StrBuf *b = &pr->out;
	/* composite dims print otherwise (typed constants, raw names): no cache there */
	ListText *c = NULL;
	if (pr->lists && !pr->typed_consts && !pr->raw_names) {
		c = &pr->lists[((uintptr_t)e * 0x9e3779b97f4a7c15ull >> 40) % LIST_CACHE_SIZE];
		if (c->e == e && (c->epoch == 0 || c->epoch == pr->epoch)) {
			sb_add(b, c->text, c->len);
			return;
		}
	}
	size_t start = b->flushed + b->len;
	sb_addc(b, '[');
	print_list(pr, e->args, e->nargs);
	sb_addc(b, ']');
	size_t len = b->flushed + b->len - start;
	if (!c || len > b->len || len > sizeof c->text)
		return; /* not cached, or part of it went to the sink already, or too long */
	bool constants = true;
	for (int i = 0; i < e->nargs && constants; i++)
		constants = e->args[i]->kind >= EX_INT && e->args[i]->kind <= EX_SYMBOL;
	if (!constants && !pr->epoch)
		return; /* outside a function: no epoch to tie the names to */
	c->e = e;
	c->epoch = constants ? 0 : pr->epoch;
	c->len = (uint8_t)len;
	memcpy(c->text, b->data + b->len - len, len);
}

/* print_expr, the commonest operands (variables, INDEX constants, lists)
 * without its call */
static inline void print_operand(Printer *pr, const Expr *e)
{
	if (e->kind == EX_VAR) {
		put_var(pr, e->var);
	} else if (e->kind == EX_INT && e->dtype == DT_INDEX && !pr->typed_consts) {
		sb_add_int(&pr->out, e->ival);
	} else if (e->kind == EX_TUPLE) {
		print_tuple(pr, e);
	} else {
		print_expr(pr, e);
	}
}

static void print_child(Printer *pr, const Expr *child, int parent_prec, bool paren_on_equal)
{
	int cp = expr_prec(child);
	bool paren = cp < parent_prec || (cp == parent_prec && paren_on_equal);
	if (paren)
		sb_addc(&pr->out, '(');
	print_operand(pr, child);
	if (paren)
		sb_addc(&pr->out, ')');
}

static void print_list(Printer *pr, Expr *const *xs, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_adds(&pr->out, ", ");
		print_operand(pr, xs[i]);
	}
}

/* Attribute value (attrs={...}, pl.func_attr): strings double-quoted. */
static void print_attr_value(Printer *pr, const Expr *v)
{
	if (v->kind == EX_STR) {
		put_quoted(&pr->out, v->str);
	} else if (v->kind == EX_TUPLE) {
		bool paren = v->op == TUP_PAREN;
		sb_addc(&pr->out, paren ? '(' : '[');
		for (int i = 0; i < v->nargs; i++) {
			if (i)
				sb_adds(&pr->out, ", ");
			print_attr_value(pr, v->args[i]);
		}
		if (paren && v->nargs == 1)
			sb_addc(&pr->out, ','); /* Python's one-element tuple */
		sb_addc(&pr->out, paren ? ')' : ']');
	} else if (v->kind == EX_DICT) {
		sb_addc(&pr->out, '{');
		for (int i = 0; i < v->nkw; i++) {
			if (i)
				sb_adds(&pr->out, ", ");
			put_quoted(&pr->out, v->kw[i].name);
			sb_adds(&pr->out, ": ");
			print_attr_value(pr, v->kw[i].value);
		}
		sb_addc(&pr->out, '}');
	} else {
		print_expr(pr, v);
	}
}

static void print_attrs_dict(Printer *pr, const Expr *d, bool call_order)
{
	sb_addc(&pr->out, '{');
	bool first = true;
	/* call attrs: dump_vars, then arg_directions, then the rest in order */
	static const char *const lead[] = { "dump_vars", "arg_directions" };
	for (int pass = 0; pass < (call_order ? 3 : 1); pass++) {
		for (int i = 0; i < d->nkw; i++) {
			const char *k = d->kw[i].name;
			bool is_lead0 = strcmp(k, lead[0]) == 0, is_lead1 = strcmp(k, lead[1]) == 0;
			if (call_order) {
				if (pass == 0 && !is_lead0) continue;
				if (pass == 1 && !is_lead1) continue;
				if (pass == 2 && (is_lead0 || is_lead1)) continue;
			}
			if (!first)
				sb_adds(&pr->out, ", ");
			first = false;
			put_quoted(&pr->out, k);
			sb_adds(&pr->out, ": ");
			print_attr_value(pr, d->kw[i].value);
		}
	}
	sb_addc(&pr->out, '}');
}

/* Keyword argument value of an op call: strings single-quoted, unescaped. */
static void print_kwarg_value(Printer *pr, const Expr *v)
{
	if (v->kind == EX_SYMBOL) {
		put_ir_str(pr, v->str); /* print_expr's, without the call: most kwargs are enums */
	} else if (v->kind == EX_STR) {
		sb_addc(&pr->out, '\'');
		sb_adds(&pr->out, v->str);
		sb_addc(&pr->out, '\'');
	} else if (v->kind == EX_DICT) {
		print_attrs_dict(pr, v, false);
	} else {
		print_expr(pr, v);
	}
}

static bool split_implied(const Expr *e, const char *kw)
{
	if (strcmp(kw, "split"))
		return false;
	const char *op = e->str;
	return !strcmp(op, "tile.aiv_shard") || !strcmp(op, "tile.aic_gather") || !strcmp(op, "tensor.aiv_shard") ||
	       !strcmp(op, "tensor.aic_gather");
}

/* The op's registry spelling (OpDef.spell_name) when the call sets its
 * flag keyword True, else NULL; only calls with a True keyword look. */
static const char *op_spelling(const Expr *e)
{
	for (int i = 0; i < e->nkw; i++) {
		const Expr *v = e->kw[i].value;
		if (!v || v->kind != EX_BOOL || !v->ival)
			continue;
		const OpDef *d = ops_find(ops_default(), e->str);
		return d && d->spell_name && !strcmp(d->spell_when, e->kw[i].name) ? d->spell_name : NULL;
	}
	return NULL;
}

static void print_call_rest(Printer *pr, const Expr *e, bool leading_comma)
{
	bool first = !leading_comma;
	for (int i = 0; i < e->nargs; i++) {
		if (!first)
			sb_adds(&pr->out, ", ");
		first = false;
		print_operand(pr, e->args[i]);
	}
	for (int i = 0; i < e->nkw; i++) {
		/* inside a split_aiv region the region's mode is the split of its
		 * aiv_shard / aic_gather ops: the reference's printer leaves it out
		 * (and its parser rejects it there) */
		if (pr->split_aiv_depth && e->kind == EX_OP_CALL && split_implied(e, e->kw[i].name))
			continue;
		if (pr->skip_kw && !strcmp(e->kw[i].name, pr->skip_kw))
			continue;
		if (!first)
			sb_adds(&pr->out, ", ");
		first = false;
		put_ir_str(pr, e->kw[i].name);
		sb_addc(&pr->out, '=');
		if (e->kind == EX_SUBMIT && !strcmp(e->kw[i].name, "predicate")) {
			/* a submit's dispatch predicate prints parenthesized */
			sb_addc(&pr->out, '(');
			print_expr(pr, e->kw[i].value);
			sb_addc(&pr->out, ')');
			continue;
		}
		print_kwarg_value(pr, e->kw[i].value);
	}
	if (e->attrs) {
		if (!first)
			sb_adds(&pr->out, ", ");
		sb_adds(&pr->out, "attrs=");
		print_attrs_dict(pr, e->attrs, e->kind != EX_OP_CALL);
	}
	sb_addc(&pr->out, ')');
}

static void print_expr(Printer *pr, const Expr *e)
{
	StrBuf *b = &pr->out;
	switch (e->kind) {
	case EX_VAR:
		put_var(pr, e->var);
		return;
	case EX_INT:
		if (e->dtype == DT_INDEX && !pr->typed_consts) {
			sb_add_int(b, e->ival);
		} else {
			sb_adds(b, "pl.const(");
			sb_add_int(b, e->ival);
			put3(b, ", pl.", ir_dtype_name(e->dtype), ")");
		}
		return;
	case EX_FLOAT:
		if (e->dtype == DT_FP32) {
			put_float(pr, e->fval);
		} else {
			sb_adds(b, "pl.const(");
			put_float(pr, e->fval);
			put3(b, ", pl.", ir_dtype_name(e->dtype), ")");
		}
		return;
	case EX_BOOL:
		sb_adds(b, e->ival ? "True" : "False");
		return;
	case EX_STR:
		put_quoted(b, e->str);
		return;
	case EX_SYMBOL:
		put_ir_str(pr, e->str);
		return;
	case EX_BINARY: {
		bool saved = pr->typed_consts;
		if (!saved && pure_const_int_tree(e))
			pr->typed_consts = true;
		BinOp op = (BinOp)e->op;
		if (op == OP_MIN || op == OP_MAX) {
			sb_adds(b, binop_text(op));
			sb_addc(b, '(');
			print_expr(pr, e->lhs);
			sb_adds(b, ", ");
			print_expr(pr, e->rhs);
			sb_addc(b, ')');
		} else {
			int prec = binop_prec(op);
			print_child(pr, e->lhs, prec, op == OP_POW);
			sb_addc(b, ' ');
			sb_adds(b, binop_text(op));
			sb_addc(b, ' ');
			print_child(pr, e->rhs, prec, op != OP_POW);
		}
		pr->typed_consts = saved;
		return;
	}
	case EX_UNARY:
		if (e->op == UOP_ABS) {
			sb_adds(b, "abs(");
			print_expr(pr, e->lhs);
			sb_addc(b, ')');
			return;
		}
		sb_adds(b, e->op == UOP_NEG ? "-" : e->op == UOP_NOT ? "not " : "~");
		print_child(pr, e->lhs, e->op == UOP_NOT ? 4 : 12, false);
		return;
	case EX_CAST:
		sb_adds(b, "pl.cast(");
		print_expr(pr, e->lhs);
		put3(b, ", pl.", ir_dtype_name(e->dtype), ")");
		return;
	case EX_TUPLE:
		print_tuple(pr, e);
		return;
	case EX_GETITEM:
		print_child(pr, e->lhs, 15, false);
		sb_addc(b, '[');
		sb_add_int(b, e->ival);
		sb_addc(b, ']');
		return;
	case EX_OP_CALL: {
		const char *name = e->str;
		/* tensor.add with a constant second operand prints as tensor.adds */
		if (e->nargs >= 2 && (e->args[1]->kind == EX_INT || e->args[1]->kind == EX_FLOAT) &&
		    strcmp(name, "tensor.add") == 0)
			name = "tensor.adds";
		const char *spelled = op_spelling(e);
		if (spelled)
			name = spelled;
		put_op_head(pr, name);
		if ((e->nargs == 1 || e->nargs == 2) && e->nkw == 1 && !strcmp(e->kw[0].name, "dtype") &&
		    (!strcmp(name, "tensor.reinterpret_view") || !strcmp(name, "tile.reinterpret_view"))) {
			/* the public API's order: data, dtype=, shape= (the IR holds
			 * the shape as an argument) */
			print_operand(pr, e->args[0]);
			sb_adds(b, ", dtype=");
			print_kwarg_value(pr, e->kw[0].value);
			if (e->nargs == 2) {
				sb_adds(b, ", shape=");
				print_operand(pr, e->args[1]);
			}
			if (e->attrs) {
				sb_adds(b, ", attrs=");
				print_attrs_dict(pr, e->attrs, false);
			}
			sb_addc(b, ')');
			return;
		}
		pr->skip_kw = spelled ? ops_find(ops_default(), e->str)->spell_when : NULL;
		print_call_rest(pr, e, false);
		pr->skip_kw = NULL;
		return;
	}
	case EX_FN_CALL:
		sb_adds(b, "self.");
		put_ir_str(pr, e->str);
		sb_addc(b, '(');
		print_call_rest(pr, e, false);
		return;
	case EX_SUBMIT:
		put3(b, e->spmd ? "pl.spmd_submit(self." : "pl.submit(self.", e->str, "");
		print_call_rest(pr, e, true);
		return;
	case EX_DICT:
		print_attrs_dict(pr, e, false);
		return;
	}
}

/* ------------------------------------------------------------ types */

static void print_dim(Printer *pr, const Expr *d)
{
	if (d->kind == EX_INT) {
		sb_add_int(&pr->out, d->ival);
		return;
	}
	if (d->kind == EX_VAR) {
		put_var(pr, d->var);
		return;
	}
	bool st = pr->typed_consts, sr = pr->raw_names;
	pr->typed_consts = true;
	pr->raw_names = true;
	print_expr(pr, d);
	pr->typed_consts = st;
	pr->raw_names = sr;
}

static void print_dims(Printer *pr, Expr *const *dims, int n)
{
	sb_addc(&pr->out, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			sb_adds(&pr->out, ", ");
		print_dim(pr, dims[i]);
	}
	sb_addc(&pr->out, ']');
}

static void print_view(Printer *pr, const char *ctor, const ViewSpec *vs)
{
	sb_adds(&pr->out, ctor);
	sb_addc(&pr->out, '(');
	for (int i = 0; i < vs->nkw; i++) {
		if (i)
			sb_adds(&pr->out, ", ");
		sb_adds(&pr->out, vs->kw[i].name);
		sb_addc(&pr->out, '=');
		const Expr *v = vs->kw[i].value;
		if (v->kind == EX_TUPLE)
			print_dims(pr, v->args, v->nargs);
		else if (v->kind == EX_VAR || v->kind == EX_INT || v->kind == EX_BINARY || v->kind == EX_UNARY)
			print_dim(pr, v);
		else
			print_expr(pr, v);
	}
	sb_addc(&pr->out, ')');
}

static void print_type_text(Printer *pr, const Type *t);

/* A type whose text depends on nothing but its kind, dtype, memory space
 * and dims, each an integer or a dyn symbol (printed by its one name of the
 * whole print): no other variable, no expression, no view.  Most annotations
 * are such types, and many of them are equal without being one Type (every
 * call infers its own), so their text is made once per print and found
 * again by content.  False for other types; else *hash covers the content. */
static bool closed_type_hash(const Type *t, uint64_t *hash)
{
	if (t->kind != TY_TENSOR && t->kind != TY_TILE && t->kind != TY_DIST_TENSOR)
		return false;
	if (t->view || t->memref)
		return false;
	uint64_t h = (uint64_t)t->kind << 40 ^ (uint64_t)t->dtype << 32 ^ (uint64_t)(uint32_t)t->mem << 8 ^ (uint64_t)t->ndim;
	for (int i = 0; i < t->ndim; i++) {
		const Expr *d = t->shape[i];
		uint64_t x;
		if (d->kind == EX_INT)
			x = (uint64_t)d->ival;
		else if (d->kind == EX_VAR && d->var->kind == VK_DYN)
			x = (uint64_t)(uintptr_t)d->var;
		else
			return false;
		h = (h ^ x) * 0x9e3779b97f4a7c15ull;
	}
	*hash = h ^ h >> 31;
	return true;
}

static bool same_closed_text(const Type *a, const Type *b)
{
	if (a->kind != b->kind || a->dtype != b->dtype || a->mem != b->mem || a->ndim != b->ndim)
		return false;
	for (int i = 0; i < a->ndim; i++) {
		const Expr *x = a->shape[i], *y = b->shape[i];
		if (x->kind != y->kind || (x->kind == EX_INT ? x->ival != y->ival : x->var != y->var))
			return false;
	}
	return true;
}

static void type_text_add(Printer *pr, TypeTextSlot slot)
{
	if ((pr->ntypes + 1) * 2 > pr->type_cap) {
		size_t cap = pr->type_cap ? pr->type_cap * 2 : 256;
		TypeTextSlot *slots = xmalloc(cap * sizeof *slots);
		memset(slots, 0, cap * sizeof *slots);
		for (size_t i = 0; i < pr->type_cap; i++) {
			if (!pr->type_slots[i].t)
				continue;
			size_t j = pr->type_slots[i].hash & (cap - 1);
			while (slots[j].t)
				j = (j + 1) & (cap - 1);
			slots[j] = pr->type_slots[i];
		}
		free(pr->type_slots);
		pr->type_slots = slots;
		pr->type_cap = cap;
	}
	size_t j = slot.hash & (pr->type_cap - 1);
	while (pr->type_slots[j].t)
		j = (j + 1) & (pr->type_cap - 1);
	pr->type_slots[j] = slot;
	pr->ntypes++;
}

static inline void put_type_text(Printer *pr, unsigned text)
{
	const TypeSpan *sp = &pr->type_spans[text];
	sb_add(&pr->out, pr->type_texts.data + sp->off, sp->len);
}

/* Types are shared too: the next print of t finds its text without hashing. */
static void remember_type_text(Printer *pr, Type *t, unsigned text)
{
	if (pr->type_mark) {
		t->mark = pr->type_mark;
		t->text_at = text;
	}
}

static void print_type_slow(Printer *pr, Type *t);

/* Most annotations repeat a type printed before: inline. */
static inline void print_type_p(Printer *pr, Type *t)
{
	if (t && pr->type_mark && t->mark == pr->type_mark)
		put_type_text(pr, t->text_at);
	else
		print_type_slow(pr, t);
}

static void print_type_slow(Printer *pr, Type *t)
{
	uint64_t h;
	if (!t || !pr->a || !closed_type_hash(t, &h)) {
		print_type_text(pr, t);
		return;
	}
	for (size_t j = h & (pr->type_cap - 1); pr->type_cap && pr->type_slots[j].t; j = (j + 1) & (pr->type_cap - 1)) {
		const TypeTextSlot *slot = &pr->type_slots[j];
		if (slot->hash == h && (slot->t == t || same_closed_text(slot->t, t))) {
			remember_type_text(pr, t, slot->text);
			put_type_text(pr, slot->text);
			return;
		}
	}
	StrBuf *b = &pr->out;
	size_t start = b->flushed + b->len;
	print_type_text(pr, t);
	size_t len = b->flushed + b->len - start;
	if (len > b->len || pr->ntypes >= UINT_MAX)
		return; /* part of it went to the sink already (or Type.text_at is full) */
	if (pr->ntypes == pr->spans_cap) {
		pr->spans_cap = pr->spans_cap ? pr->spans_cap * 2 : 256;
		pr->type_spans = xrealloc(pr->type_spans, pr->spans_cap * sizeof *pr->type_spans);
	}
	unsigned text = (unsigned)pr->ntypes;
	pr->type_spans[text] = (TypeSpan){ pr->type_texts.len, len };
	sb_add(&pr->type_texts, b->data + b->len - len, len);
	type_text_add(pr, (TypeTextSlot){ t, h, text });
	remember_type_text(pr, t, text);
}

static bool body_defined(Printer *pr, const Var *v);

/* pl.MemRef(...): a pinned one by its quoted name; a resolved one's base
 * bare when the body being printed defines it (never in the signature,
 * which Python reads before the body binds anything), else quoted. */
static void print_memref(Printer *pr, const MemRef *m)
{
	StrBuf *b = &pr->out;
	bool typed = pr->typed_consts;
	pr->typed_consts = false;
	sb_adds(b, "pl.MemRef(");
	if (!m->pinned && !pr->in_signature && body_defined(pr, m->base)) {
		put_var(pr, m->base);
	} else {
		sb_addc(b, '"');
		sb_adds(b, var_name(pr, m->base));
		sb_addc(b, '"');
	}
	if (!m->pinned) {
		sb_adds(b, ", ");
		print_expr(pr, m->offset);
		sb_printf(b, ", %" PRId64, m->size);
	}
	if (m->slots > 1)
		sb_printf(b, ", slots=%" PRId64, m->slots);
	sb_addc(b, ')');
	if (m->index) {
		sb_addc(b, '[');
		print_expr(pr, m->index);
		sb_addc(b, ']');
	}
	pr->typed_consts = typed;
}

static void print_type_text(Printer *pr, const Type *t)
{
	StrBuf *b = &pr->out;
	if (!t) {
		sb_adds(b, "pl.UnknownType");
		return;
	}
	switch (t->kind) {
	case TY_UNKNOWN:
		sb_adds(b, "pl.UnknownType");
		return;
	case TY_SCALAR:
		sb_adds(b, "pl.Scalar[pl.");
		sb_adds(b, ir_dtype_name(t->dtype));
		sb_addc(b, ']');
		return;
	case TY_TENSOR: case TY_DIST_TENSOR: case TY_TILE:
		sb_adds(b, t->kind == TY_TILE ? "pl.Tile[" : t->kind == TY_TENSOR ? "pl.Tensor[" : "pld.DistributedTensor[");
		print_dims(pr, t->shape, t->ndim);
		sb_adds(b, ", pl.");
		sb_adds(b, ir_dtype_name(t->dtype));
		if (t->kind == TY_TILE && t->memref) {
			sb_adds(b, ", ");
			print_memref(pr, t->memref);
		}
		if (t->kind == TY_TILE && t->mem != MS_NONE) {
			sb_adds(b, ", pl.Mem.");
			sb_adds(b, ir_mem_name(t->mem));
		}
		if (t->view) {
			sb_adds(b, ", ");
			print_view(pr, t->kind == TY_TILE ? "pl.TileView" : "pl.TensorView", t->view);
		}
		if (t->kind != TY_TILE && t->memref) {
			sb_adds(b, ", ");
			print_memref(pr, t->memref);
		}
		sb_addc(b, ']');
		return;
	case TY_TUPLE:
		sb_adds(b, "pl.Tuple[");
		if (t->nelems == 0)
			sb_adds(b, "()");
		for (int i = 0; i < t->nelems; i++) {
			if (i)
				sb_adds(b, ", ");
			print_type_p(pr, t->elems[i]);
		}
		sb_addc(b, ']');
		return;
	case TY_ARRAY:
		sb_adds(b, "pl.Array[");
		print_dim(pr, t->shape[0]);
		sb_adds(b, ", pl.");
		sb_adds(b, ir_dtype_name(t->dtype));
		sb_addc(b, ']');
		return;
	case TY_PTR:
		sb_adds(b, "pl.Ptr");
		return;
	case TY_NAMED:
		sb_adds(b, t->name);
		return;
	}
}

void print_expr_text(StrBuf *out, const Expr *e)
{
	Printer pr = { 0 };
	pr.out = *out;
	pr.raw_names = true;
	print_expr(&pr, e);
	sb_terminate(&pr.out);
	*out = pr.out;
}

void print_type(StrBuf *out, const Type *t)
{
	Printer pr = { 0 };
	pr.out = *out;
	pr.raw_names = true;
	print_type_text(&pr, t); /* no cache without a program */
	sb_terminate(&pr.out);
	*out = pr.out;
}

/* ------------------------------------------------------------ statements */

static void put_comments(Printer *pr, const Stmt *s, int indent)
{
	if (pr->canonical)
		return;
	for (int i = 0; i < s->ncomments; i++) {
		sb_adds(&pr->out, "# ");
		sb_adds(&pr->out, s->comments[i]);
		sb_addc(&pr->out, '\n');
		sb_indent(&pr->out, indent);
	}
}

static bool is_call_to(const Expr *e, const char *op)
{
	return e && e->kind == EX_OP_CALL && strcmp(e->str, op) == 0;
}

/* The hidden `tid = pl.system.task_invalid()` before an `as tid` scope. */
static bool suppress_placeholder(const Block *b, int i)
{
	if (i + 1 >= b->n)
		return false;
	const Stmt *s = b->stmts[i], *nx = b->stmts[i + 1];
	return nx->kind == ST_SCOPE && s->kind == ST_ASSIGN && s->ncomments == 0 && nx->scope->tid &&
	       nx->scope->tid == s->var && is_call_to(s->value, "system.task_invalid");
}

static void print_var_list(Printer *pr, const char *kw, Var *const *vs, int n)
{
	if (n == 0)
		return;
	sb_printf(&pr->out, ", %s=[", kw);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_adds(&pr->out, ", ");
		put_var(pr, vs[i]);
	}
	sb_addc(&pr->out, ']');
}

static void print_optimizations(Printer *pr, const Scope *sc)
{
	if (sc->split == SPLIT_NONE && !sc->slot_num)
		return;
	sb_adds(&pr->out, ", optimizations=[");
	if (sc->split != SPLIT_NONE)
		sb_printf(&pr->out, "pl.split(pl.SplitMode.%s)", ir_split_name(sc->split));
	if (sc->slot_num) {
		if (sc->split != SPLIT_NONE)
			sb_adds(&pr->out, ", ");
		sb_adds(&pr->out, "pl.cross_core_slot(slot_num=");
		print_expr(pr, sc->slot_num);
		sb_addc(&pr->out, ')');
	}
	sb_addc(&pr->out, ']');
}

/* Statements of b from index `from`, joined by "\n"; the `pass` filler of
 * the for-forms is "pass\n" (the reference's blank-line quirk). */
static void print_stmts_from(Printer *pr, const Block *b, int from, int indent, Var **rets, int nrets,
			     bool quirk_pass)
{
	bool any = false;
	for (int i = from; i < b->n && !any; i++)
		any = !suppress_placeholder(b, i);
	if (!any) {
		sb_indent(&pr->out, indent);
		sb_adds(&pr->out, quirk_pass ? "pass\n" : "pass");
		return;
	}
	Block sub = { b->stmts + from, b->n - from };
	print_block(pr, &sub, indent, rets, nrets);
}

static void print_stmt(Printer *pr, const Stmt *s, int indent, Var **rets, int nrets, bool last);

static const Stmt *incore_child(const Stmt *s)
{
	if (s->body.n == 1 && s->body.stmts[0]->kind == ST_SCOPE && s->body.stmts[0]->scope->kind == SC_INCORE)
		return s->body.stmts[0];
	return NULL;
}

static void print_spmd_kwargs(Printer *pr, const Scope *sc, const Scope *incore, bool with_opts, bool with_deps)
{
	StrBuf *b = &pr->out;
	print_expr(pr, sc->core_num);
	if (sc->sync_start)
		sb_adds(b, ", sync_start=True");
	if (sc->name_hint)
		sb_printf(b, ", name_hint=\"%s\"", sc->name_hint);
	if (with_opts && incore)
		print_optimizations(pr, incore);
	if (with_deps)
		print_var_list(pr, "deps", sc->deps, sc->ndeps);
	if (sc->allow_early_resolve)
		sb_adds(b, ", allow_early_resolve=True");
	if (sc->predicate) {
		sb_adds(b, ", predicate=(");
		print_expr(pr, sc->predicate);
		sb_addc(b, ')');
	}
}

static void print_scope(Printer *pr, const Stmt *s, int indent)
{
	StrBuf *b = &pr->out;
	const Scope *sc = s->scope;
	switch (sc->kind) {
	case SC_INCORE:
	case SC_HIERARCHY:
		put3(b, "with pl.at(level=pl.Level.", ir_level_name(sc->level), "");
		if (sc->kind == SC_HIERARCHY && sc->role != RL_NONE)
			put3(b, ", role=pl.Role.", ir_role_name(sc->role), "");
		if (sc->kind == SC_INCORE)
			print_optimizations(pr, sc);
		if (sc->name_hint)
			put3(b, ", name_hint=\"", sc->name_hint, "\"");
		print_var_list(pr, "deps", sc->deps, sc->ndeps);
		print_var_list(pr, "no_dep_args", sc->no_dep_args, sc->nno_dep_args);
		print_var_list(pr, "dumps", sc->dumps, sc->ndumps);
		if (sc->allow_early_resolve)
			sb_adds(b, ", allow_early_resolve=True");
		if (sc->windowize)
			sb_adds(b, ", windowize=True");
		sb_addc(b, ')');
		if (sc->tid) {
			sb_adds(b, " as ");
			put_var(pr, sc->tid);
		}
		sb_adds(b, ":\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
		return;
	case SC_CLUSTER:
		sb_adds(b, "with pl.cluster(");
		if (sc->name_hint)
			sb_printf(b, "name_hint=\"%s\"", sc->name_hint);
		sb_adds(b, "):\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
		return;
	case SC_RUNTIME:
		sb_adds(b, sc->manual ? "with pl.scope(mode=pl.ScopeMode.MANUAL):\n" : "with pl.scope():\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
		return;
	case SC_SPLIT_AIV: {
		const Block *body = &s->body;
		const Stmt *first = body->n ? body->stmts[0] : NULL;
		bool bound = first && first->kind == ST_ASSIGN && is_call_to(first->value, "tile.get_subblock_idx");
		sb_printf(b, "for %s in pl.split_aiv(", bound ? var_name(pr, first->var) : "aiv_id");
		print_expr(pr, sc->count);
		sb_printf(b, ", mode=pl.SplitMode.%s):\n", ir_split_name(sc->split));
		pr->split_aiv_depth++;
		print_stmts_from(pr, body, bound ? 1 : 0, indent + 4, NULL, 0, true);
		pr->split_aiv_depth--;
		return;
	}
	case SC_SPMD: {
		const Stmt *inner = incore_child(s);
		const Scope *isc = inner ? inner->scope : NULL;
		if (sc->tid) {
			sb_adds(b, "with pl.spmd(");
			print_spmd_kwargs(pr, sc, isc, true, true);
			sb_printf(b, ") as %s:\n", var_name(pr, sc->tid));
			if (isc && (isc->split != SPLIT_NONE || isc->slot_num || ir_block_calls(&inner->body, "tile.get_block_idx")))
				print_stmts_from(pr, &inner->body, 0, indent + 4, NULL, 0, false);
			else
				print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
			return;
		}
		const Stmt *first = inner && inner->body.n ? inner->body.stmts[0] : NULL;
		if (first && first->kind == ST_ASSIGN && is_call_to(first->value, "tile.get_block_idx")) {
			sb_printf(b, "for %s in pl.spmd(", var_name(pr, first->var));
			print_spmd_kwargs(pr, sc, isc, true, false);
			sb_adds(b, "):\n");
			print_stmts_from(pr, &inner->body, 1, indent + 4, NULL, 0, true);
			return;
		}
		sb_adds(b, "with pl.spmd(");
		print_spmd_kwargs(pr, sc, NULL, false, false);
		sb_adds(b, "):\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
		return;
	}
	}
}

static void print_for_range_args(Printer *pr, const Stmt *s)
{
	bool start0 = ir_is_int_const(s->start, 0, DT_INDEX);
	bool step1 = ir_is_int_const(s->step, 1, DT_INDEX);
	if (start0 && step1) {
		print_expr(pr, s->stop);
	} else {
		print_expr(pr, s->start);
		sb_adds(&pr->out, ", ");
		print_expr(pr, s->stop);
		if (!step1) {
			sb_adds(&pr->out, ", ");
			print_expr(pr, s->step);
		}
	}
}

static void print_names_tuple(Printer *pr, Var *const *vs, int n)
{
	sb_addc(&pr->out, '(');
	for (int i = 0; i < n; i++) {
		if (i)
			sb_adds(&pr->out, ", ");
		put_var(pr, vs[i]);
	}
	if (n == 1)
		sb_addc(&pr->out, ',');
	sb_addc(&pr->out, ')');
}

static void print_init_values(Printer *pr, const Stmt *s)
{
	sb_adds(&pr->out, "init_values=(");
	for (int i = 0; i < s->niter; i++) {
		if (i)
			sb_adds(&pr->out, ", ");
		print_expr(pr, s->inits[i]);
	}
	if (s->niter == 1)
		sb_addc(&pr->out, ',');
	sb_addc(&pr->out, ')');
}

static void print_stmt(Printer *pr, const Stmt *s, int indent, Var **rets, int nrets, bool last)
{
	StrBuf *b = &pr->out;
	put_comments(pr, s, indent);
	switch (s->kind) {
	case ST_ASSIGN:
		put_var(pr, s->var);
		sb_adds(b, ": ");
		print_type_p(pr, s->var->type);
		sb_adds(b, " = ");
		print_expr(pr, s->value);
		return;
	case ST_EVAL:
		print_expr(pr, s->value);
		return;
	case ST_RETURN:
		sb_adds(b, "return");
		if (s->nvalues) {
			sb_addc(b, ' ');
			print_list(pr, s->values, s->nvalues);
		}
		return;
	case ST_YIELD:
		if (rets == (Var **)1) { /* a direct child of the function body */
			sb_adds(b, "return");
			if (s->nvalues) {
				sb_addc(b, ' ');
				print_list(pr, s->values, s->nvalues);
			}
			return;
		}
		if (last && nrets > 0 && s->nvalues > 0 && rets) {
			if (nrets == 1) {
				put_var(pr, rets[0]);
				sb_adds(b, ": ");
				print_type_p(pr, rets[0]->type);
				sb_adds(b, " = ");
			} else {
				for (int i = 0; i < nrets; i++) {
					if (i)
						sb_adds(b, ", ");
					put_var(pr, rets[i]);
				}
				sb_adds(b, " = ");
			}
		}
		sb_adds(b, "pl.yield_(");
		print_list(pr, s->values, s->nvalues);
		sb_addc(b, ')');
		return;
	case ST_BREAK:
		sb_adds(b, "break");
		return;
	case ST_CONTINUE:
		sb_adds(b, "continue");
		return;
	case ST_IF:
		sb_adds(b, "if ");
		print_expr(pr, s->value);
		sb_adds(b, ":\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, s->rets, s->nrets, false);
		if (s->has_else) {
			sb_addc(b, '\n');
			sb_indent(b, indent);
			sb_adds(b, "else:\n");
			print_stmts_from(pr, &s->orelse, 0, indent + 4, s->rets, s->nrets, false);
		}
		return;
	case ST_FOR: {
		static const char *const kinds[] = { "range", "parallel", "unroll", "pipeline" };
		sb_adds(b, "for ");
		put_var(pr, s->var);
		if (s->niter) {
			sb_adds(b, ", ");
			print_names_tuple(pr, s->iter_args, s->niter);
		}
		put3(b, " in pl.", kinds[s->for_kind], "(");
		print_for_range_args(pr, s);
		if (s->stage) {
			sb_adds(b, ", stage=");
			print_expr(pr, s->stage);
		}
		if (s->niter) {
			sb_adds(b, ", ");
			print_init_values(pr, s);
		}
		if (s->attrs) {
			sb_adds(b, ", attrs=");
			print_attrs_dict(pr, s->attrs, false);
		}
		sb_adds(b, "):\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, s->rets, s->nrets, false);
		return;
	}
	case ST_WHILE:
		if (s->while_ssa) {
			sb_adds(b, "for ");
			print_names_tuple(pr, s->iter_args, s->niter);
			sb_adds(b, " in pl.while_(");
			print_init_values(pr, s);
			sb_adds(b, "):\n");
			sb_indent(b, indent + 4);
			sb_adds(b, "pl.cond(");
			print_expr(pr, s->value);
			sb_addc(b, ')');
			if (s->body.n) {
				sb_addc(b, '\n');
				print_block(pr, &s->body, indent + 4, s->rets, s->nrets);
			}
			return;
		}
		sb_adds(b, "while ");
		print_expr(pr, s->value);
		sb_adds(b, ":\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
		return;
	case ST_SCOPE:
		/* an AUTO pl.scope() that forms a body passes the yield context on */
		if (s->scope->kind == SC_RUNTIME && !s->scope->manual && last && rets && rets != (Var **)1) {
			sb_adds(b, "with pl.scope():\n");
			print_stmts_from(pr, &s->body, 0, indent + 4, rets, nrets, false);
			return;
		}
		print_scope(pr, s, indent);
		return;
	}
}

static void print_block(Printer *pr, const Block *b, int indent, Var **rets, int nrets)
{
	/* each statement's line break and indent in one append */
	static const char nl_indent[] = "\n                                                                ";
	const char *sep = indent < (int)sizeof nl_indent - 1 ? nl_indent : NULL;
	bool first = true;
	for (int i = 0; i < b->n; i++) {
		if (suppress_placeholder(b, i))
			continue;
		if (sep) {
			sb_add(&pr->out, sep + first, (size_t)indent + !first);
		} else {
			if (!first)
				sb_addc(&pr->out, '\n');
			sb_indent(&pr->out, indent);
		}
		first = false;
		print_stmt(pr, b->stmts[i], indent, rets, nrets, i == b->n - 1);
	}
}

/* ------------------------------------------------------------ the pre-walk */

/* Before its first line the printer needs three facts about every function:
 * the functions it calls (callee-first order), the Vars it defines and uses
 * (renaming of distinct Vars that share a name) and the pl.dynamic symbols
 * its variables' types mention (the header).  One walk per function gathers
 * all three; the renaming is decided when the function is printed. */

enum { W_NAMES = 1, W_DYN = 2, W_CALLS = 4, W_ALL = W_NAMES | W_DYN | W_CALLS };

typedef struct FnFacts {
	size_t vars_at;      /* its Vars: Walk.vars[vars_at .. vars_at + nvars) */
	int nvars, nfree;    /* params, defs (pre-order), then the nfree uses defined nowhere */
	size_t calls_at;     /* its callees: Walk.calls[calls_at .. + ncalls), by name */
	int ncalls;
	unsigned epoch;      /* Var.mark of its defined Vars */
} FnFacts;

typedef struct Walk {
	Program *p;
	PtrVec vars;         /* FnFacts.vars of all functions */
	PtrVec calls;        /* FnFacts.calls of all functions */
	PtrVec uses;         /* Vars of the current function first seen used, not defined */
	unsigned def_epoch, use_epoch; /* Var.mark: defined / only used so far in this function */
	unsigned type_epoch; /* Type.mark of the types already searched for dyn symbols */
	PtrVec dyn;          /* dyn symbols found, first-seen order */
	PtrMap dyn_seen;
} Walk;

/* Var.mark: def_epoch = defined (param/def) in this function; use_epoch =
 * only used so far.  A Var used before its definition is not one of the
 * Vars the renaming counts: it keeps its name. */
static void note_def(Walk *w, Var *v)
{
	if (!v || v->kind == VK_DYN)
		return;
	if (v->mark != w->def_epoch) {
		if (v->mark != w->use_epoch)
			vec_push(&w->vars, v);
		v->mark = w->def_epoch;
	}
}

static void note_use(Walk *w, Var *v)
{
	if (v->kind != VK_DYN && v->mark != w->def_epoch && v->mark != w->use_epoch) {
		v->mark = w->use_epoch;
		vec_push(&w->uses, v);
	}
}

static void dyn_from_expr(Walk *w, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_VAR) {
		if (e->var->kind == VK_DYN && !pmap_get(&w->dyn_seen, e->var)) {
			pmap_put(&w->dyn_seen, e->var, (void *)1);
			vec_push(&w->dyn, e->var);
		}
		return;
	}
	dyn_from_expr(w, e->lhs);
	dyn_from_expr(w, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		dyn_from_expr(w, e->args[i]);
}

/* The dyn symbols among t's dims and view.  Types are shared between the
 * Vars that have them, so each is searched once per print. */
static void note_type(Walk *w, Type *t)
{
	if (!t || t->mark == w->type_epoch)
		return;
	t->mark = w->type_epoch;
	for (int i = 0; i < t->ndim; i++)
		if (t->shape[i]->kind != EX_INT)
			dyn_from_expr(w, t->shape[i]);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			dyn_from_expr(w, t->view->kw[i].value);
	for (int i = 0; i < t->nelems; i++)
		note_type(w, t->elems[i]);
}

/* Inline: most definitions are noted already or have a type searched
 * before, and the checks cost less than the calls. */
static inline void note_var(Walk *w, Var *v, unsigned what)
{
	if (!v)
		return;
	if ((what & W_NAMES) && v->mark != w->def_epoch)
		note_def(w, v);
	if ((what & W_DYN) && v->type && v->type->mark != w->type_epoch)
		note_type(w, v->type);
}

static void walk_expr(Walk *w, const Expr *e, unsigned what);

/* A Var defined before in the function was noted then, type included
 * (every definition is walked with W_DYN): most uses are such. */
static inline bool noted_def(const Walk *w, const Expr *e)
{
	return e->kind == EX_VAR && e->var->mark == w->def_epoch;
}

/* Constants have no parts: with the uses of noted Vars, nothing to walk. */
static inline bool walk_leaf(const Walk *w, const Expr *e)
{
	return (e->kind >= EX_INT && e->kind <= EX_SYMBOL) || noted_def(w, e);
}

/* Leaves are the most common children, then lists of leaves (offsets,
 * shapes): no call for them. */
static inline void walk_child(Walk *w, const Expr *e, unsigned what)
{
	if (walk_leaf(w, e))
		return;
	if (e->kind == EX_TUPLE && !e->lhs && !e->rhs && !e->nkw && !e->attrs) {
		for (int i = 0; i < e->nargs; i++)
			if (!walk_leaf(w, e->args[i]))
				walk_expr(w, e->args[i], what);
		return;
	}
	walk_expr(w, e, what);
}

/* e is not NULL: the parents check (most children are absent, and a call
 * costs more than the check). */
static void walk_expr(Walk *w, const Expr *e, unsigned what)
{
	if (e->kind == EX_VAR) {
		if (noted_def(w, e))
			return;
		if (what & W_NAMES)
			note_use(w, e->var);
		if (what & W_DYN)
			note_type(w, e->var->type);
		return;
	}
	if ((e->kind == EX_FN_CALL || e->kind == EX_SUBMIT) && (what & W_CALLS)) {
		Function *f = ir_find_function(w->p, e->str);
		if (f)
			vec_push(&w->calls, f);
	}
	if (e->lhs)
		walk_child(w, e->lhs, what);
	if (e->rhs)
		walk_child(w, e->rhs, what);
	for (int i = 0; i < e->nargs; i++)
		walk_child(w, e->args[i], what);
	for (int i = 0; i < e->nkw; i++)
		walk_child(w, e->kw[i].value, what);
	if (e->attrs)
		walk_expr(w, e->attrs, what & ~W_CALLS); /* an attrs dict names no callee */
}

static void walk_opt(Walk *w, const Expr *e, unsigned what)
{
	if (e)
		walk_expr(w, e, what);
}

/* The parts of a statement, in the order the renaming collects them. */
enum {
	P_VAR = 1 << 0, P_RETS = 1 << 1, P_ITER = 1 << 2, P_VALUE = 1 << 3, P_VALUES = 1 << 4,
	P_BOUNDS = 1 << 5, P_STAGE = 1 << 6, P_CORE_NUM = 1 << 7, P_PREDICATE = 1 << 8,
	P_COUNT = 1 << 9, P_TID = 1 << 10, P_BODY = 1 << 11, P_ORELSE = 1 << 12,
};

/* Which parts each question reads.  The renaming reads the parts a
 * statement of its kind has; the dyn symbols and callees are looked for in
 * every part that is set, whatever the kind, but not in all parts (these
 * sets are what the printer has always read; output depends on them). */
static unsigned names_parts(StmtKind k)
{
	switch (k) {
	case ST_ASSIGN: return P_VAR | P_VALUE;
	case ST_FOR: return P_VAR | P_RETS | P_ITER | P_BOUNDS | P_STAGE | P_BODY;
	case ST_WHILE: return P_RETS | P_ITER | P_VALUE | P_BODY;
	case ST_IF: return P_RETS | P_VALUE | P_BODY | P_ORELSE;
	case ST_SCOPE: return P_CORE_NUM | P_PREDICATE | P_COUNT | P_BODY;
	default: return P_VALUE | P_VALUES;
	}
}

#define DYN_PARTS (P_VAR | P_RETS | P_ITER | P_VALUE | P_VALUES | P_BOUNDS | P_CORE_NUM | P_TID | P_BODY | P_ORELSE)
#define CALL_PARTS (P_ITER | P_VALUE | P_VALUES | P_BOUNDS | P_CORE_NUM | P_PREDICATE | P_BODY | P_ORELSE)

static void walk_block(Walk *w, const Block *b, unsigned what);

static void walk_stmt(Walk *w, const Stmt *s, unsigned what)
{
	unsigned names = what & W_NAMES ? names_parts(s->kind) : 0;
	unsigned dyn = what & W_DYN ? DYN_PARTS : 0, calls = what & W_CALLS ? CALL_PARTS : 0;
#define WHO(part) ((names & (part) ? W_NAMES : 0) | (dyn & (part) ? W_DYN : 0) | (calls & (part) ? W_CALLS : 0))
	/* most parts are absent from most statements: test before working out who reads them */
	bool simple = ir_stmt_is_simple(s->kind);
	if (s->var)
		note_var(w, s->var, WHO(P_VAR));
	for (int i = 0; !simple && i < s->nrets; i++)
		note_var(w, s->rets[i], WHO(P_RETS));
	for (int i = 0; !simple && i < s->niter; i++) {
		note_var(w, s->iter_args[i], WHO(P_ITER)); /* the iter_args name no callee */
		walk_opt(w, s->inits[i], WHO(P_ITER));
	}
	if (s->value)
		walk_expr(w, s->value, WHO(P_VALUE));
	for (int i = 0; i < s->nvalues; i++)
		walk_opt(w, s->values[i], WHO(P_VALUES));
	if (simple)
		return; /* it has none of the parts below */
	if (s->start || s->stop || s->step) {
		walk_opt(w, s->start, WHO(P_BOUNDS));
		walk_opt(w, s->stop, WHO(P_BOUNDS));
		walk_opt(w, s->step, WHO(P_BOUNDS));
	}
	if (s->stage)
		walk_expr(w, s->stage, WHO(P_STAGE));
	if (s->scope) {
		walk_opt(w, s->scope->core_num, WHO(P_CORE_NUM));
		walk_opt(w, s->scope->predicate, WHO(P_PREDICATE));
		walk_opt(w, s->scope->count, WHO(P_COUNT));
		note_var(w, s->scope->tid, WHO(P_TID));
	}
	if (s->body.n)
		walk_block(w, &s->body, WHO(P_BODY));
	if (s->orelse.n)
		walk_block(w, &s->orelse, WHO(P_ORELSE));
#undef WHO
}

/* An assignment with none of the other parts: most statements.  walk_stmt
 * reads it as it reads any statement; this is the same walk without
 * working out who reads each absent part. */
static inline bool plain_assign(const Stmt *s)
{
	return s->kind == ST_ASSIGN && !s->nvalues; /* a simple statement: it has no other parts */
}

static void walk_block(Walk *w, const Block *b, unsigned what)
{
	if (!what)
		return;
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (what == W_ALL && plain_assign(s)) {
			/* walk_stmt's WHO(P_VAR) and WHO(P_VALUE) for an assignment */
			note_var(w, s->var, W_NAMES | W_DYN);
			const Expr *v = s->value;
			if (v && v->kind == EX_OP_CALL && !v->lhs && !v->rhs && !v->attrs) {
				/* walk_expr of the commonest value, an op call, without the call */
				for (int j = 0; j < v->nargs; j++)
					walk_child(w, v->args[j], W_ALL);
				for (int j = 0; j < v->nkw; j++)
					walk_child(w, v->kw[j].value, W_ALL);
			} else if (v) {
				walk_expr(w, v, W_ALL);
			}
		} else {
			walk_stmt(w, s, what);
		}
	}
}

static int cmp_fn_name(const void *a, const void *b)
{
	return strcmp((*(Function *const *)a)->name, (*(Function *const *)b)->name);
}

/* Sort functions by name.  Programs usually list them in name order
 * already (every print of ours does), and one pass that finds each name
 * greater than the one before costs far less than qsort's comparisons. */
static void sort_fns_by_name(Function **fs, size_t n)
{
	size_t i = 1;
	while (i < n && strcmp(fs[i - 1]->name, fs[i]->name) < 0)
		i++;
	if (i < n)
		qsort(fs, n, sizeof *fs, cmp_fn_name);
}

static void walk_function(Walk *w, Function *f, FnFacts *facts, unsigned epoch)
{
	w->def_epoch = epoch;
	w->use_epoch = epoch + 1;
	facts->epoch = epoch;
	facts->vars_at = w->vars.len;
	facts->calls_at = w->calls.len;
	for (int i = 0; i < f->nparams; i++)
		note_var(w, f->params[i].var, W_NAMES | W_DYN);
	for (int i = 0; i < f->nrets; i++)
		note_type(w, f->rets[i]);
	walk_block(w, &f->body, W_ALL);
	/* uses of Vars defined nowhere in the function: free */
	int nfree = 0;
	for (size_t i = 0; i < w->uses.len; i++) {
		Var *v = w->uses.items[i];
		if (v->mark == w->use_epoch) {
			vec_push(&w->vars, v);
			v->mark = w->def_epoch; /* printed by name, counted like the others */
			nfree++;
		}
	}
	w->uses.len = 0;
	facts->nvars = (int)(w->vars.len - facts->vars_at);
	facts->nfree = nfree;
	facts->ncalls = (int)(w->calls.len - facts->calls_at);
	if (facts->ncalls > 1)
		sort_fns_by_name((Function **)w->calls.items + facts->calls_at, (size_t)facts->ncalls);
}

/* ------------------------------------------------------------ renaming */

/* Whether the n Vars have n different names.  One open-addressing table
 * serves every function of the print: a slot belongs to the current check
 * only when it carries the current epoch, so no check clears it. */
static bool names_all_distinct(Printer *pr, Var *const *vs, int n)
{
	if ((size_t)n * 2 > pr->name_cap) {
		size_t cap = 64;
		while (cap < (size_t)n * 2)
			cap *= 2;
		free(pr->name_slots);
		pr->name_slots = xmalloc(cap * sizeof *pr->name_slots);
		memset(pr->name_slots, 0, cap * sizeof *pr->name_slots);
		pr->name_cap = cap;
		pr->name_epoch = 0;
	}
	unsigned epoch = ++pr->name_epoch;
	size_t mask = pr->name_cap - 1;
	for (int i = 0; i < n; i++) {
		const char *name = vs[i]->name;
		size_t j = (size_t)(((uintptr_t)name >> 3) * 0x9e3779b97f4a7c15ull >> 32) & mask;
		while (pr->name_slots[j].epoch == epoch) {
			if (pr->name_slots[j].name == name)
				return false;
			j = (j + 1) & mask;
		}
		pr->name_slots[j].epoch = epoch;
		pr->name_slots[j].name = name;
	}
	return true;
}

/* Print names of the function's Vars: their own names, except that distinct
 * Vars sharing a name take _1, _2, ... in order of appearance. */
static void rename_sharers(Printer *pr, Var **vs, int n);

static void assign_names(Printer *pr, const FnFacts *facts)
{
	int n = facts->nvars;
	pr->epoch = facts->epoch;
	if (n == 0)
		return; /* and the program may have no Vars at all: items is NULL */
	Var **vs = (Var **)pr->walk->vars.items + facts->vars_at;
	/* another function's walk may have marked Vars it shares with this one */
	for (int i = 0; i < n; i++) {
		vs[i]->mark = facts->epoch;
		vs[i]->print_name = vs[i]->name;
	}
	if (pr->canonical) {
		/* names by first appearance: parameters, then definitions in order */
		for (int i = 0; i < n; i++)
			vs[i]->print_name = intern_cstr(pr->a, arena_printf(pr->a, "v%d", i));
	} else if (!names_all_distinct(pr, vs, n)) {
		rename_sharers(pr, vs, n);
	}
	/* uses of Vars defined nowhere in the function */
	for (int i = n - facts->nfree; i < n; i++)
		vs[i]->print_name = arena_printf(pr->a, "%s__FREE_VAR", vs[i]->print_name);
	for (int i = 0; i < n; i++)
		vs[i]->print_len = (unsigned)strlen(vs[i]->print_name);
}

/* Distinct Vars sharing a name take _1, _2, ... in order of appearance. */
static void rename_sharers(Printer *pr, Var **vs, int n)
{
	PtrMap count = { 0 };
	for (int i = 0; i < n; i++)
		pmap_put(&count, vs[i]->name, (void *)((uintptr_t)pmap_get(&count, vs[i]->name) + 1));
	PtrMap used = { 0 };
	for (int i = 0; i < n; i++)
		if ((uintptr_t)pmap_get(&count, vs[i]->name) == 1)
			pmap_put(&used, vs[i]->name, (void *)1);
	/* next suffix to try per name: later Vars of a name never retry the
	 * suffixes earlier ones took (linear, not quadratic, in the sharers) */
	PtrMap next_k = { 0 };
	for (int i = 0; i < n; i++) {
		Var *v = vs[i];
		if ((uintptr_t)pmap_get(&count, v->name) == 1)
			continue;
		const char *cand = v->name;
		int k = (int)(uintptr_t)pmap_get(&next_k, v->name);
		if (k)
			cand = intern_cstr(pr->a, arena_printf(pr->a, "%s_%d", v->name, k));
		else
			k = 1;
		while (pmap_get(&used, cand))
			cand = intern_cstr(pr->a, arena_printf(pr->a, "%s_%d", v->name, k++));
		pmap_put(&next_k, v->name, (void *)(uintptr_t)k);
		pmap_put(&used, cand, (void *)1);
		v->print_name = cand;
	}
	pmap_release(&next_k);
	pmap_release(&count);
	pmap_release(&used);
}

/* ------------------------------------------------------------ dynamic dims */

/* The program header: its opening lines, one pl.dynamic line, the class line. */
static void header_open(StrBuf *out, const char *name)
{
	sb_printf(out, "# pypto.program: %s\nimport pypto.language as pl\n\n", name);
}

static void header_dyn(StrBuf *out, const char *name) { sb_printf(out, "%s = pl.dynamic(\"%s\")\n", name, name); }

static void header_class(StrBuf *out, const char *name) { sb_printf(out, "@pl.program\nclass %s:\n", name); }


static int cmp_var_name(const void *a, const void *b)
{
	const Var *x = *(Var *const *)a, *y = *(Var *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* The pl.dynamic lines for the symbols the walk found, sorted by name. */
static void print_dyn_header(Printer *pr, PtrVec *dyn)
{
	if (dyn->len > 1)
		qsort(dyn->items, dyn->len, sizeof *dyn->items, cmp_var_name);
	/* distinct dyn Vars sharing a name get _1, _2 ... */
	PtrMap count = { 0 }, used = { 0 };
	for (size_t i = 0; i < dyn->len; i++) {
		Var *v = dyn->items[i];
		pmap_put(&count, v->name, (void *)((uintptr_t)pmap_get(&count, v->name) + 1));
	}
	for (size_t i = 0; i < dyn->len; i++) {
		Var *v = dyn->items[i];
		if ((uintptr_t)pmap_get(&count, v->name) == 1)
			pmap_put(&used, v->name, (void *)1);
	}
	for (size_t i = 0; i < dyn->len; i++) {
		Var *v = dyn->items[i];
		const char *cand = v->name;
		if ((uintptr_t)pmap_get(&count, v->name) > 1) {
			for (int k = 1; pmap_get(&used, cand); k++)
				cand = intern_cstr(pr->a, arena_printf(pr->a, "%s_%d", v->name, k));
			pmap_put(&used, cand, (void *)1);
		}
		pmap_put(&pr->dyn_names, v, (void *)cand);
	}
	for (size_t i = 0; i < dyn->len; i++) {
		const char *nm = pmap_get(&pr->dyn_names, dyn->items[i]);
		header_dyn(&pr->out, nm);
	}
	if (dyn->len)
		sb_addc(&pr->out, '\n');
	pmap_release(&count);
	pmap_release(&used);
}

/* ------------------------------------------------------------ functions */

/* The Vars a block defines (assignment targets, loop variables, iter args,
 * return variables), into pr->body_defs. */
static void collect_defs(Printer *pr, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (s->var)
			pmap_put(&pr->body_defs, s->var, (void *)1);
		if (ir_stmt_is_simple(s->kind))
			continue;
		for (int j = 0; j < s->niter; j++)
			pmap_put(&pr->body_defs, s->iter_args[j], (void *)1);
		for (int j = 0; j < s->nrets; j++)
			pmap_put(&pr->body_defs, s->rets[j], (void *)1);
		if (s->scope && s->scope->tid)
			pmap_put(&pr->body_defs, s->scope->tid, (void *)1);
		if (s->scope && s->scope->aiv_var)
			pmap_put(&pr->body_defs, s->scope->aiv_var, (void *)1);
		collect_defs(pr, &s->body);
		collect_defs(pr, &s->orelse);
	}
}

static bool body_defined(Printer *pr, const Var *v)
{
	if (!pr->fn)
		return false;
	if (pr->defs_fn != pr->fn) {
		pmap_clear(&pr->body_defs);
		collect_defs(pr, &pr->fn->body);
		pr->defs_fn = pr->fn;
	}
	return pmap_get(&pr->body_defs, v) != NULL;
}

static void print_function(Printer *pr, Function *f, const FnFacts *facts, int indent)
{
	StrBuf *b = &pr->out;
	assign_names(pr, facts);
	sb_indent(b, indent);
	sb_adds(b, "@pl.function");
	bool any = false;
#define SEP() (sb_adds(b, any ? ", " : "("), any = true)
	if (f->type != FT_OPAQUE) {
		SEP();
		put3(b, "type=pl.FunctionType.", ir_functype_name(f->type), "");
	}
	if (f->level != LV_NONE) {
		SEP();
		put3(b, "level=pl.Level.", ir_level_name(f->level), "");
	}
	if (f->role != RL_NONE) {
		SEP();
		put3(b, "role=pl.Role.", ir_role_name(f->role), "");
	}
	if (!f->auto_scope) {
		SEP();
		sb_adds(b, "auto_scope=False");
	}
	if (f->external_source && *f->external_source) {
		SEP();
		sb_adds(b, "external_source=");
		put_quoted(b, f->external_source);
	}
#undef SEP
	if (any)
		sb_addc(b, ')');
	sb_addc(b, '\n');
	sb_indent(b, indent);
	put3(b, "def ", f->name, "(");
	bool self = pr->in_program && f->role != RL_SUBWORKER;
	if (self)
		sb_adds(b, "self");
	pr->fn = f;
	pr->in_signature = true;
	for (int i = 0; i < f->nparams; i++) {
		if (i || self)
			sb_adds(b, ", ");
		put_var(pr, f->params[i].var);
		sb_adds(b, ": ");
		ParamDir d = f->params[i].dir;
		if (d != DIR_IN)
			sb_adds(b, d == DIR_OUT ? "pl.Out[" : "pl.InOut[");
		print_type_p(pr, f->params[i].var->type);
		if (d != DIR_IN)
			sb_addc(b, ']');
	}
	sb_addc(b, ')');
	if (f->nrets == 1) {
		sb_adds(b, " -> ");
		print_type_p(pr, f->rets[0]);
	} else if (f->nrets > 1) {
		sb_adds(b, " -> tuple[");
		for (int i = 0; i < f->nrets; i++) {
			if (i)
				sb_adds(b, ", ");
			print_type_p(pr, f->rets[i]);
		}
		sb_addc(b, ']');
	}
	pr->in_signature = false;
	sb_adds(b, ":\n");
	int bi = indent + 4;
	bool attr_line = false;
	for (int i = 0; i < f->nattrs; i++) {
		const Kwarg *k = &f->attrs[i];
		if (strcmp(k->name, "split") == 0 && k->value->kind == EX_SYMBOL &&
		    strcmp(k->value->str, "pl.SplitMode.NONE") == 0)
			continue;
		if (strcmp(k->name, "split") == 0 && k->value->kind == EX_INT && k->value->ival == 0)
			continue;
		sb_adds(b, attr_line ? ", " : "");
		if (!attr_line) {
			sb_indent(b, bi);
			sb_adds(b, "pl.func_attr({");
		}
		attr_line = true;
		put_quoted(b, k->name);
		sb_adds(b, ": ");
		if (strcmp(k->name, "split") == 0 && k->value->kind == EX_INT)
			sb_printf(b, "pl.SplitMode.%s", ir_split_name((SplitMode)(k->value->ival < SPLIT_COUNT ? k->value->ival : 0)));
		else
			print_attr_value(pr, k->value);
	}
	if (attr_line)
		sb_adds(b, "})\n");
	if (f->abstract) {
		sb_indent(b, bi);
		sb_adds(b, "...");
		return;
	}
	if (f->inline_body) {
		/* verbatim Python: each non-empty line at the body's indent */
		const char *q = f->inline_body;
		for (bool first = true;; first = false) {
			const char *e = strchr(q, '\n');
			size_t n = e ? (size_t)(e - q) : strlen(q);
			if (!first)
				sb_addc(b, '\n');
			if (n || first)
				sb_indent(b, bi);
			sb_add(b, q, n);
			if (!e)
				break;
			q = e + 1;
		}
		return;
	}
	print_stmts_from(pr, &f->body, 0, bi, (Var **)1, 0, false);
}

/* ------------------------------------------------------------ program */

/* Callee-first order of n functions sorted by name: depth-first post-order
 * over them, each one's callees in name order; on a call cycle, plain name
 * order.  Function i calls callee[at[i] .. at[i] + ncalls[i]) (indices, in
 * name order; -1: not a function of the program).  The stack is explicit:
 * a chain of thousands of calls must not overflow the C stack.  Returns
 * the indices in print order (malloc'd). */
static int *callee_first(int n, const size_t *at, const int *ncalls, const int *callee)
{
	typedef struct Frame {
		int fn, next; /* next: the next of its callees to visit */
	} Frame;
	int *state = xmalloc((size_t)(n + 1) * sizeof *state); /* 0 new, 1 on the stack, 2 done */
	memset(state, 0, (size_t)(n + 1) * sizeof *state);
	Frame *stack = xmalloc((size_t)(n + 1) * sizeof *stack); /* each function is pushed once */
	int *out = xmalloc((size_t)(n + 1) * sizeof *out);
	int nout = 0;
	bool cycle = false;
	for (int root = 0; root < n && !cycle; root++) {
		if (state[root] == 2)
			continue;
		int depth = 0;
		state[root] = 1;
		stack[depth++] = (Frame){ root, 0 };
		while (depth) {
			Frame *fr = &stack[depth - 1];
			if (!cycle && fr->next < ncalls[fr->fn]) {
				int j = callee[at[fr->fn] + (size_t)fr->next++];
				if (j < 0 || state[j] == 2)
					continue;
				if (state[j] == 1) {
					cycle = true;
					continue;
				}
				state[j] = 1;
				stack[depth++] = (Frame){ j, 0 };
				continue;
			}
			state[fr->fn] = 2;
			out[nout++] = fr->fn;
			depth--;
		}
	}
	if (cycle)
		for (int i = 0; i < n; i++)
			out[i] = i;
	free(state);
	free(stack);
	return out;
}

/* callee_first over the walk's facts of the name-sorted functions. */
static int *function_order(const Walk *w, Function **sorted, int n, const FnFacts *facts)
{
	PtrMap index = { 0 }; /* Function -> index+1 */
	pmap_reserve(&index, (size_t)n);
	for (int i = 0; i < n; i++)
		pmap_put(&index, sorted[i], (void *)(uintptr_t)(i + 1));
	size_t *at = xmalloc((size_t)(n + 1) * sizeof *at);
	int *ncalls = xmalloc((size_t)(n + 1) * sizeof *ncalls);
	int *callee = xmalloc((w->calls.len + 1) * sizeof *callee);
	size_t k = 0;
	for (int i = 0; i < n; i++) {
		at[i] = k;
		ncalls[i] = facts[i].ncalls;
		for (int j = 0; j < facts[i].ncalls; j++)
			callee[k++] = (int)(uintptr_t)pmap_get(&index, w->calls.items[facts[i].calls_at + (size_t)j]) - 1;
	}
	int *order = callee_first(n, at, ncalls, callee);
	free(at);
	free(ncalls);
	free(callee);
	pmap_release(&index);
	return order;
}

/* What print_program_with does before printing functions: the name-sorted
 * functions walked for their facts. */
typedef struct ProgPrint {
	Printer pr;
	Walk w;
	Function **sorted;
	FnFacts *facts;
	int n;
} ProgPrint;

static void prog_print_begin(ProgPrint *pp, StrBuf *out, Program *p, bool canonical)
{
	*pp = (ProgPrint){ 0 };
	Printer *pr = &pp->pr;
	pr->canonical = canonical;
	pr->out = *out;
	pr->prog = p;
	pr->a = p->arena;
	pr->in_program = p->name != NULL;
	pr->lists = xmalloc(LIST_CACHE_SIZE * sizeof *pr->lists);
	memset(pr->lists, 0, LIST_CACHE_SIZE * sizeof *pr->lists);
	/* Var.mark and Type.mark values left by an earlier print of the same
	 * program (dumps after each pass, golden comparisons) must not look
	 * current: every print takes fresh epochs */
	static unsigned last_epoch = 2;
	int n = pp->n = p->nfuncs;
	pp->sorted = xmalloc((size_t)(n + 1) * sizeof *pp->sorted);
	if (n)
		memcpy(pp->sorted, p->funcs, (size_t)n * sizeof *pp->sorted);
	sort_fns_by_name(pp->sorted, (size_t)n);
	pp->w.p = p;
	pp->w.type_epoch = last_epoch;
	pp->facts = xmalloc((size_t)(n + 1) * sizeof *pp->facts);
	for (int i = 0; i < n; i++) {
		last_epoch += 2;
		walk_function(&pp->w, pp->sorted[i], &pp->facts[i], last_epoch);
	}
	last_epoch += 2;
	pr->type_mark = last_epoch; /* no walk's: the next print's walk takes the one after */
	last_epoch += 2;
	pr->walk = &pp->w;
}

static void prog_print_end(ProgPrint *pp, StrBuf *out)
{
	Printer *pr = &pp->pr;
	*out = pr->out;
	free(pp->facts);
	free(pp->sorted);
	vec_release(&pp->w.vars);
	vec_release(&pp->w.calls);
	vec_release(&pp->w.uses);
	vec_release(&pp->w.dyn);
	pmap_release(&pp->w.dyn_seen);
	free(pr->name_slots);
	free(pr->lists);
	pmap_release(&pr->dyn_names);
	pmap_release(&pr->body_defs);
	free(pr->type_slots);
	free(pr->type_spans);
	sb_release(&pr->type_texts);
}

static void print_program_with(StrBuf *out, Program *p, bool canonical)
{
	ProgPrint pp;
	prog_print_begin(&pp, out, p, canonical);
	Printer *pr = &pp.pr;
	int n = pp.n;
	int *order = function_order(&pp.w, pp.sorted, n, pp.facts);
	if (pr->in_program) {
		header_open(&pr->out, p->name);
		print_dyn_header(pr, &pp.w.dyn);
		header_class(&pr->out, p->name);
	}
	for (int i = 0; i < n; i++) {
		if (i)
			sb_addc(&pr->out, '\n');
		print_function(pr, pp.sorted[order[i]], &pp.facts[order[i]], pr->in_program ? 4 : 0);
	}
	sb_addc(&pr->out, '\n');
	sb_terminate(&pr->out);
	free(order);
	prog_print_end(&pp, out);
}

/* ------------------------------------------------------------ in parts */

bool print_part(PrintedPart *part, Program *p, FILE *sink)
{
	*part = (PrintedPart){ 0 };
	part->text.sink = sink;
	ProgPrint pp;
	prog_print_begin(&pp, &part->text, p, false);
	Printer *pr = &pp.pr;
	PtrVec *dyn = &pp.w.dyn;
	/* the symbols print under their own names only when no two share one */
	bool ok = true;
	if (dyn->len > 1)
		qsort(dyn->items, dyn->len, sizeof *dyn->items, cmp_var_name);
	for (size_t i = 1; i < dyn->len && ok; i++)
		ok = strcmp(((Var *)dyn->items[i - 1])->name, ((Var *)dyn->items[i])->name) != 0;
	if (ok) {
		part->dyn = xmalloc((dyn->len + 1) * sizeof *part->dyn);
		part->ndyn = (int)dyn->len;
		for (size_t i = 0; i < dyn->len; i++) {
			Var *v = dyn->items[i];
			pmap_put(&pr->dyn_names, v, (void *)v->name);
			part->dyn[i] = (PrintedDyn){ v->name, v->id };
		}
		PtrMap index = { 0 }; /* Function -> 1: the functions of p */
		for (int i = 0; i < pp.n; i++)
			pmap_put(&index, pp.sorted[i], (void *)1);
		part->fns = xmalloc((size_t)(pp.n + 1) * sizeof *part->fns);
		part->nfns = pp.n;
		part->callees = xmalloc((pp.w.calls.len + 1) * sizeof *part->callees);
		for (int i = 0; i < pp.n; i++) {
			PrintedFn *pf = &part->fns[i];
			const FnFacts *ff = &pp.facts[i];
			pf->name = pp.sorted[i]->name;
			pf->callees_at = (size_t)part->ncallees;
			for (int j = 0; j < ff->ncalls; j++) {
				Function *c = pp.w.calls.items[ff->calls_at + (size_t)j];
				if (pmap_get(&index, c))
					part->callees[part->ncallees++] = c->name;
			}
			pf->ncallees = (int)((size_t)part->ncallees - pf->callees_at);
			pf->text_at = pr->out.flushed + pr->out.len;
			print_function(pr, pp.sorted[i], ff, pr->in_program ? 4 : 0);
			pf->text_len = pr->out.flushed + pr->out.len - pf->text_at;
		}
		pmap_release(&index);
	}
	sb_terminate(&pr->out);
	prog_print_end(&pp, &part->text);
	if (!ok)
		print_part_release(part);
	return ok;
}

void print_part_release(PrintedPart *part)
{
	sb_release(&part->text);
	free(part->fns);
	free(part->callees);
	free(part->dyn);
	*part = (PrintedPart){ 0 };
}

void print_join(StrBuf *out, const char *name, const PrintedFn *fns, int n, const char *const *callees,
		const char *const *dyn, int ndyn)
{
	PtrMap index = { 0 }; /* interned name -> index+1 */
	pmap_reserve(&index, (size_t)n);
	for (int i = 0; i < n; i++)
		pmap_put(&index, fns[i].name, (void *)(uintptr_t)(i + 1));
	size_t *at = xmalloc((size_t)(n + 1) * sizeof *at);
	int *ncalls = xmalloc((size_t)(n + 1) * sizeof *ncalls);
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += (size_t)fns[i].ncallees;
	int *callee = xmalloc((total + 1) * sizeof *callee);
	size_t k = 0;
	for (int i = 0; i < n; i++) {
		at[i] = k;
		ncalls[i] = fns[i].ncallees;
		for (int j = 0; j < fns[i].ncallees; j++)
			callee[k++] = (int)(uintptr_t)pmap_get(&index, callees[fns[i].callees_at + (size_t)j]) - 1;
	}
	int *order = callee_first(n, at, ncalls, callee);
	size_t room = strlen(name) + 64 + (size_t)n;
	for (int i = 0; i < n; i++)
		room += fns[i].text_len;
	for (int i = 0; i < ndyn; i++)
		room += strlen(dyn[i]) * 2 + 32;
	if (!out->sink) /* a streamed text is held a chunk at a time */
		sb_reserve(out, room);
	header_open(out, name);
	for (int i = 0; i < ndyn; i++)
		header_dyn(out, dyn[i]);
	if (ndyn)
		sb_putc(out, '\n');
	header_class(out, name);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_putc(out, '\n');
		sb_putn(out, fns[order[i]].text, fns[order[i]].text_len);
	}
	sb_putc(out, '\n');
	free(order);
	free(at);
	free(ncalls);
	free(callee);
	pmap_release(&index);
}

void print_program(StrBuf *out, Program *p) { print_program_with(out, p, false); }

void print_program_canonical(StrBuf *out, Program *p) { print_program_with(out, p, true); }
