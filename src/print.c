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

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Printer {
	StrBuf *out;
	Program *prog;
	Arena *a;
	bool in_program;
	bool typed_consts; /* inside an all-constant integer tree or a composite dim */
	bool raw_names;    /* composite dims print raw name hints */
	unsigned epoch;    /* Var.mark value of the function being printed */
	PtrMap dyn_names;  /* dyn Var -> printed name (program-wide) */
	PtrMap free_vars;  /* Var -> (void*)1 for uses defined nowhere in the function */
	PtrMap type_text;  /* closed Type -> where its printed text is in type_texts */
	StrBuf type_texts; /* malloc'd, not arena: the cache dies with the print */
	bool canonical;    /* print_program_canonical: v0, v1, ... and no comments */
} Printer;

static void print_expr(Printer *pr, const Expr *e);
static void print_type_p(Printer *pr, const Type *t);
static void print_block(Printer *pr, const Block *b, int indent, Var **rets, int nrets);

/* ------------------------------------------------------------ names */

static const char *var_name(Printer *pr, const Var *v)
{
	const char *dyn = v->kind == VK_DYN ? pmap_get(&pr->dyn_names, v) : NULL; /* only VK_DYN are keys */
	if (dyn)
		return dyn;
	if (pr->raw_names)
		return v->name;
	const char *n = v->mark == pr->epoch && v->print_name ? v->print_name : v->name;
	if (pmap_get(&pr->free_vars, v))
		return arena_printf(pr->a, "%s__FREE_VAR", n);
	return n;
}

/* ------------------------------------------------------------ constants */

static void put_float(StrBuf *b, double v)
{
	if (isnan(v)) {
		sb_puts(b, "nan");
		return;
	}
	if (isinf(v)) {
		sb_puts(b, v < 0 ? "-inf" : "inf");
		return;
	}
	/* whole numbers are most of them: %.17g prints those as the integer
	 * (range first: converting a larger double to long long is undefined) */
	if (fabs(v) < 1e15 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
		sb_put_int(b, (long long)v);
		sb_puts(b, ".0");
		return;
	}
	char buf[64];
	snprintf(buf, sizeof buf, "%.17g", v);
	sb_puts(b, buf);
	if (!strpbrk(buf, ".eE"))
		sb_puts(b, ".0");
}

/* std::quoted: "..." with \" and \\ escaped */
static void put_quoted(StrBuf *b, const char *s)
{
	sb_putc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_putc(b, '\\');
		sb_putc(b, *s);
	}
	sb_putc(b, '"');
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

static void print_child(Printer *pr, const Expr *child, int parent_prec, bool paren_on_equal)
{
	int cp = expr_prec(child);
	bool paren = cp < parent_prec || (cp == parent_prec && paren_on_equal);
	if (paren)
		sb_putc(pr->out, '(');
	print_expr(pr, child);
	if (paren)
		sb_putc(pr->out, ')');
}

static void print_list(Printer *pr, Expr *const *xs, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(pr->out, ", ");
		print_expr(pr, xs[i]);
	}
}

/* Attribute value (attrs={...}, pl.func_attr): strings double-quoted. */
static void print_attr_value(Printer *pr, const Expr *v)
{
	if (v->kind == EX_STR) {
		put_quoted(pr->out, v->str);
	} else if (v->kind == EX_TUPLE) {
		bool paren = v->op == TUP_PAREN;
		sb_putc(pr->out, paren ? '(' : '[');
		for (int i = 0; i < v->nargs; i++) {
			if (i)
				sb_puts(pr->out, ", ");
			print_attr_value(pr, v->args[i]);
		}
		if (paren && v->nargs == 1)
			sb_putc(pr->out, ','); /* Python's one-element tuple */
		sb_putc(pr->out, paren ? ')' : ']');
	} else if (v->kind == EX_DICT) {
		sb_putc(pr->out, '{');
		for (int i = 0; i < v->nkw; i++) {
			if (i)
				sb_puts(pr->out, ", ");
			put_quoted(pr->out, v->kw[i].name);
			sb_puts(pr->out, ": ");
			print_attr_value(pr, v->kw[i].value);
		}
		sb_putc(pr->out, '}');
	} else {
		print_expr(pr, v);
	}
}

static void print_attrs_dict(Printer *pr, const Expr *d, bool call_order)
{
	sb_putc(pr->out, '{');
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
				sb_puts(pr->out, ", ");
			first = false;
			put_quoted(pr->out, k);
			sb_puts(pr->out, ": ");
			print_attr_value(pr, d->kw[i].value);
		}
	}
	sb_putc(pr->out, '}');
}

/* Keyword argument value of an op call: strings single-quoted, unescaped. */
static void print_kwarg_value(Printer *pr, const Expr *v)
{
	if (v->kind == EX_STR) {
		sb_putc(pr->out, '\'');
		sb_puts(pr->out, v->str);
		sb_putc(pr->out, '\'');
	} else if (v->kind == EX_DICT) {
		print_attrs_dict(pr, v, false);
	} else {
		print_expr(pr, v);
	}
}

static void print_call_rest(Printer *pr, const Expr *e, bool leading_comma)
{
	bool first = !leading_comma;
	for (int i = 0; i < e->nargs; i++) {
		if (!first)
			sb_puts(pr->out, ", ");
		first = false;
		print_expr(pr, e->args[i]);
	}
	for (int i = 0; i < e->nkw; i++) {
		if (!first)
			sb_puts(pr->out, ", ");
		first = false;
		sb_puts(pr->out, e->kw[i].name);
		sb_putc(pr->out, '=');
		print_kwarg_value(pr, e->kw[i].value);
	}
	if (e->attrs) {
		if (!first)
			sb_puts(pr->out, ", ");
		sb_puts(pr->out, "attrs=");
		print_attrs_dict(pr, e->attrs, e->kind != EX_OP_CALL);
	}
	sb_putc(pr->out, ')');
}

static void print_expr(Printer *pr, const Expr *e)
{
	StrBuf *b = pr->out;
	switch (e->kind) {
	case EX_VAR:
		sb_puts(b, var_name(pr, e->var));
		return;
	case EX_INT:
		if (e->dtype == DT_INDEX && !pr->typed_consts)
			sb_put_int(b, e->ival);
		else
			sb_printf(b, "pl.const(%" PRId64 ", pl.%s)", e->ival, ir_dtype_name(e->dtype));
		return;
	case EX_FLOAT:
		if (e->dtype == DT_FP32) {
			put_float(b, e->fval);
		} else {
			sb_puts(b, "pl.const(");
			put_float(b, e->fval);
			sb_printf(b, ", pl.%s)", ir_dtype_name(e->dtype));
		}
		return;
	case EX_BOOL:
		sb_puts(b, e->ival ? "True" : "False");
		return;
	case EX_STR:
		put_quoted(b, e->str);
		return;
	case EX_SYMBOL:
		sb_puts(b, e->str);
		return;
	case EX_BINARY: {
		bool saved = pr->typed_consts;
		if (!saved && pure_const_int_tree(e))
			pr->typed_consts = true;
		BinOp op = (BinOp)e->op;
		if (op == OP_MIN || op == OP_MAX) {
			sb_puts(b, binop_text(op));
			sb_putc(b, '(');
			print_expr(pr, e->lhs);
			sb_puts(b, ", ");
			print_expr(pr, e->rhs);
			sb_putc(b, ')');
		} else {
			int prec = binop_prec(op);
			print_child(pr, e->lhs, prec, op == OP_POW);
			sb_putc(b, ' ');
			sb_puts(b, binop_text(op));
			sb_putc(b, ' ');
			print_child(pr, e->rhs, prec, op != OP_POW);
		}
		pr->typed_consts = saved;
		return;
	}
	case EX_UNARY:
		if (e->op == UOP_ABS) {
			sb_puts(b, "abs(");
			print_expr(pr, e->lhs);
			sb_putc(b, ')');
			return;
		}
		sb_puts(b, e->op == UOP_NEG ? "-" : e->op == UOP_NOT ? "not " : "~");
		print_child(pr, e->lhs, e->op == UOP_NOT ? 4 : 12, false);
		return;
	case EX_CAST:
		sb_puts(b, "pl.cast(");
		print_expr(pr, e->lhs);
		sb_printf(b, ", pl.%s)", ir_dtype_name(e->dtype));
		return;
	case EX_TUPLE:
		sb_putc(b, '[');
		print_list(pr, e->args, e->nargs);
		sb_putc(b, ']');
		return;
	case EX_GETITEM:
		print_child(pr, e->lhs, 15, false);
		sb_putc(b, '[');
		sb_put_int(b, e->ival);
		sb_putc(b, ']');
		return;
	case EX_OP_CALL: {
		const char *name = e->str;
		/* tensor.add with a constant second operand prints as tensor.adds */
		if (strcmp(name, "tensor.add") == 0 && e->nargs >= 2 &&
		    (e->args[1]->kind == EX_INT || e->args[1]->kind == EX_FLOAT))
			name = "tensor.adds";
		if (strncmp(name, "pld.", 4) != 0)
			sb_puts(b, "pl.");
		sb_puts(b, name);
		sb_putc(b, '(');
		print_call_rest(pr, e, false);
		return;
	}
	case EX_FN_CALL:
		sb_puts(b, "self.");
		sb_puts(b, e->str);
		sb_putc(b, '(');
		print_call_rest(pr, e, false);
		return;
	case EX_SUBMIT:
		sb_printf(b, "pl.%s(self.%s", e->spmd ? "spmd_submit" : "submit", e->str);
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
		sb_put_int(pr->out, d->ival);
		return;
	}
	if (d->kind == EX_VAR) {
		sb_puts(pr->out, var_name(pr, d->var));
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
	sb_putc(pr->out, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(pr->out, ", ");
		print_dim(pr, dims[i]);
	}
	sb_putc(pr->out, ']');
}

static void print_view(Printer *pr, const char *ctor, const ViewSpec *vs)
{
	sb_puts(pr->out, ctor);
	sb_putc(pr->out, '(');
	for (int i = 0; i < vs->nkw; i++) {
		if (i)
			sb_puts(pr->out, ", ");
		sb_puts(pr->out, vs->kw[i].name);
		sb_putc(pr->out, '=');
		const Expr *v = vs->kw[i].value;
		if (v->kind == EX_TUPLE)
			print_dims(pr, v->args, v->nargs);
		else if (v->kind == EX_VAR || v->kind == EX_INT || v->kind == EX_BINARY || v->kind == EX_UNARY)
			print_dim(pr, v);
		else
			print_expr(pr, v);
	}
	sb_putc(pr->out, ')');
}

static void print_type_text(Printer *pr, const Type *t);

/* A type whose text depends on nothing but itself: no variable or expression
 * among its dimensions, no view.  Most annotations are such types, and types
 * are shared (hash-consed), so their text is made once per print. */
static bool type_is_closed(const Type *t)
{
	if (t->kind != TY_TENSOR && t->kind != TY_TILE && t->kind != TY_DIST_TENSOR)
		return false;
	if (t->view)
		return false;
	for (int i = 0; i < t->ndim; i++)
		if (t->shape[i]->kind != EX_INT)
			return false;
	return true;
}

/* type_text values pack offset and length into one word; 0 means absent. */
#define TYPE_TEXT_LEN_BITS 16

static void print_type_p(Printer *pr, const Type *t)
{
	if (!t || !pr->a || !type_is_closed(t)) {
		print_type_text(pr, t);
		return;
	}
	uintptr_t at = (uintptr_t)pmap_get(&pr->type_text, t);
	if (at) {
		size_t len = at & ((1u << TYPE_TEXT_LEN_BITS) - 1), off = (at >> TYPE_TEXT_LEN_BITS) - 1;
		sb_putn(pr->out, pr->type_texts.data + off, len);
		return;
	}
	StrBuf *b = pr->out;
	size_t start = b->flushed + b->len;
	print_type_text(pr, t);
	size_t len = b->flushed + b->len - start;
	if (len > b->len || len >> TYPE_TEXT_LEN_BITS)
		return; /* part of it went to the sink already, or too long to pack */
	size_t off = pr->type_texts.len;
	sb_putn(&pr->type_texts, b->data + b->len - len, len);
	pmap_put(&pr->type_text, t, (void *)(((uintptr_t)(off + 1) << TYPE_TEXT_LEN_BITS) | len));
}

static void print_type_text(Printer *pr, const Type *t)
{
	StrBuf *b = pr->out;
	if (!t) {
		sb_puts(b, "pl.UnknownType");
		return;
	}
	switch (t->kind) {
	case TY_UNKNOWN:
		sb_puts(b, "pl.UnknownType");
		return;
	case TY_SCALAR:
		sb_puts(b, "pl.Scalar[pl.");
		sb_puts(b, ir_dtype_name(t->dtype));
		sb_putc(b, ']');
		return;
	case TY_TENSOR: case TY_DIST_TENSOR: case TY_TILE:
		sb_puts(b, t->kind == TY_TILE ? "pl.Tile[" : t->kind == TY_TENSOR ? "pl.Tensor[" : "pld.DistributedTensor[");
		print_dims(pr, t->shape, t->ndim);
		sb_puts(b, ", pl.");
		sb_puts(b, ir_dtype_name(t->dtype));
		if (t->kind == TY_TILE && t->mem != MS_NONE) {
			sb_puts(b, ", pl.Mem.");
			sb_puts(b, ir_mem_name(t->mem));
		}
		if (t->view) {
			sb_puts(b, ", ");
			print_view(pr, t->kind == TY_TILE ? "pl.TileView" : "pl.TensorView", t->view);
		}
		sb_putc(b, ']');
		return;
	case TY_TUPLE:
		sb_puts(b, "pl.Tuple[");
		if (t->nelems == 0)
			sb_puts(b, "()");
		for (int i = 0; i < t->nelems; i++) {
			if (i)
				sb_puts(b, ", ");
			print_type_p(pr, t->elems[i]);
		}
		sb_putc(b, ']');
		return;
	case TY_ARRAY:
		sb_puts(b, "pl.Array[");
		print_dim(pr, t->shape[0]);
		sb_puts(b, ", pl.");
		sb_puts(b, ir_dtype_name(t->dtype));
		sb_putc(b, ']');
		return;
	case TY_PTR:
		sb_puts(b, "pl.Ptr");
		return;
	case TY_NAMED:
		sb_puts(b, t->name);
		return;
	}
}

void print_type(StrBuf *out, const Type *t)
{
	Printer pr = { 0 };
	pr.out = out;
	pr.raw_names = true;
	print_type_p(&pr, t);
}

/* ------------------------------------------------------------ statements */

static void put_comments(Printer *pr, const Stmt *s, int indent)
{
	if (pr->canonical)
		return;
	for (int i = 0; i < s->ncomments; i++) {
		sb_puts(pr->out, "# ");
		sb_puts(pr->out, s->comments[i]);
		sb_putc(pr->out, '\n');
		sb_indent(pr->out, indent);
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
	return s->kind == ST_ASSIGN && s->ncomments == 0 && nx->kind == ST_SCOPE && nx->scope->tid &&
	       nx->scope->tid == s->var && is_call_to(s->value, "system.task_invalid");
}

static void print_var_list(Printer *pr, const char *kw, Var *const *vs, int n)
{
	if (n == 0)
		return;
	sb_printf(pr->out, ", %s=[", kw);
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(pr->out, ", ");
		sb_puts(pr->out, var_name(pr, vs[i]));
	}
	sb_putc(pr->out, ']');
}

static void print_optimizations(Printer *pr, const Scope *sc)
{
	if (sc->split == SPLIT_NONE && !sc->slot_num)
		return;
	sb_puts(pr->out, ", optimizations=[");
	if (sc->split != SPLIT_NONE)
		sb_printf(pr->out, "pl.split(pl.SplitMode.%s)", ir_split_name(sc->split));
	if (sc->slot_num) {
		if (sc->split != SPLIT_NONE)
			sb_puts(pr->out, ", ");
		sb_puts(pr->out, "pl.cross_core_slot(slot_num=");
		print_expr(pr, sc->slot_num);
		sb_putc(pr->out, ')');
	}
	sb_putc(pr->out, ']');
}

/* Statements of b from index `from`, joined by "\n"; the `pass` filler of
 * the for-forms is "pass\n" (the reference's blank-line quirk). */
static void print_stmts_from(Printer *pr, const Block *b, int from, int indent, Var **rets, int nrets,
			     bool quirk_pass)
{
	bool any = false;
	for (int i = from; i < b->n; i++)
		if (!suppress_placeholder(b, i))
			any = true;
	if (!any) {
		sb_indent(pr->out, indent);
		sb_puts(pr->out, quirk_pass ? "pass\n" : "pass");
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

static bool block_calls(const Block *b, const char *op);

static bool expr_calls(const Expr *e, const char *op)
{
	if (!e)
		return false;
	if (is_call_to(e, op))
		return true;
	if (expr_calls(e->lhs, op) || expr_calls(e->rhs, op))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (expr_calls(e->args[i], op))
			return true;
	for (int i = 0; i < e->nkw; i++)
		if (expr_calls(e->kw[i].value, op))
			return true;
	return false;
}

static bool block_calls(const Block *b, const char *op)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (expr_calls(s->value, op))
			return true;
		for (int j = 0; j < s->nvalues; j++)
			if (expr_calls(s->values[j], op))
				return true;
		if (block_calls(&s->body, op) || block_calls(&s->orelse, op))
			return true;
	}
	return false;
}

static void print_spmd_kwargs(Printer *pr, const Scope *sc, const Scope *incore, bool with_opts, bool with_deps)
{
	StrBuf *b = pr->out;
	print_expr(pr, sc->core_num);
	if (sc->sync_start)
		sb_puts(b, ", sync_start=True");
	if (sc->name_hint)
		sb_printf(b, ", name_hint=\"%s\"", sc->name_hint);
	if (with_opts && incore)
		print_optimizations(pr, incore);
	if (with_deps)
		print_var_list(pr, "deps", sc->deps, sc->ndeps);
	if (sc->allow_early_resolve)
		sb_puts(b, ", allow_early_resolve=True");
	if (sc->predicate) {
		sb_puts(b, ", predicate=(");
		print_expr(pr, sc->predicate);
		sb_putc(b, ')');
	}
}

static void print_scope(Printer *pr, const Stmt *s, int indent)
{
	StrBuf *b = pr->out;
	const Scope *sc = s->scope;
	switch (sc->kind) {
	case SC_INCORE:
	case SC_HIERARCHY:
		sb_printf(b, "with pl.at(level=pl.Level.%s", ir_level_name(sc->level));
		if (sc->kind == SC_HIERARCHY && sc->role != RL_NONE)
			sb_printf(b, ", role=pl.Role.%s", ir_role_name(sc->role));
		if (sc->kind == SC_INCORE)
			print_optimizations(pr, sc);
		if (sc->name_hint)
			sb_printf(b, ", name_hint=\"%s\"", sc->name_hint);
		print_var_list(pr, "deps", sc->deps, sc->ndeps);
		print_var_list(pr, "no_dep_args", sc->no_dep_args, sc->nno_dep_args);
		print_var_list(pr, "dumps", sc->dumps, sc->ndumps);
		if (sc->allow_early_resolve)
			sb_puts(b, ", allow_early_resolve=True");
		if (sc->windowize)
			sb_puts(b, ", windowize=True");
		sb_putc(b, ')');
		if (sc->tid)
			sb_printf(b, " as %s", var_name(pr, sc->tid));
		sb_puts(b, ":\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
		return;
	case SC_CLUSTER:
		sb_puts(b, "with pl.cluster(");
		if (sc->name_hint)
			sb_printf(b, "name_hint=\"%s\"", sc->name_hint);
		sb_puts(b, "):\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
		return;
	case SC_RUNTIME:
		sb_puts(b, sc->manual ? "with pl.scope(mode=pl.ScopeMode.MANUAL):\n" : "with pl.scope():\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
		return;
	case SC_SPLIT_AIV: {
		const Block *body = &s->body;
		const Stmt *first = body->n ? body->stmts[0] : NULL;
		bool bound = first && first->kind == ST_ASSIGN && is_call_to(first->value, "tile.get_subblock_idx");
		sb_printf(b, "for %s in pl.split_aiv(", bound ? var_name(pr, first->var) : "aiv_id");
		print_expr(pr, sc->count);
		sb_printf(b, ", mode=pl.SplitMode.%s):\n", ir_split_name(sc->split));
		print_stmts_from(pr, body, bound ? 1 : 0, indent + 4, NULL, 0, true);
		return;
	}
	case SC_SPMD: {
		const Stmt *inner = incore_child(s);
		const Scope *isc = inner ? inner->scope : NULL;
		if (sc->tid) {
			sb_puts(b, "with pl.spmd(");
			print_spmd_kwargs(pr, sc, isc, true, true);
			sb_printf(b, ") as %s:\n", var_name(pr, sc->tid));
			if (isc && (isc->split != SPLIT_NONE || isc->slot_num || block_calls(&inner->body, "tile.get_block_idx")))
				print_stmts_from(pr, &inner->body, 0, indent + 4, NULL, 0, false);
			else
				print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
			return;
		}
		const Stmt *first = inner && inner->body.n ? inner->body.stmts[0] : NULL;
		if (first && first->kind == ST_ASSIGN && is_call_to(first->value, "tile.get_block_idx")) {
			sb_printf(b, "for %s in pl.spmd(", var_name(pr, first->var));
			print_spmd_kwargs(pr, sc, isc, true, false);
			sb_puts(b, "):\n");
			print_stmts_from(pr, &inner->body, 1, indent + 4, NULL, 0, true);
			return;
		}
		sb_puts(b, "with pl.spmd(");
		print_spmd_kwargs(pr, sc, NULL, false, false);
		sb_puts(b, "):\n");
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
		sb_puts(pr->out, ", ");
		print_expr(pr, s->stop);
		if (!step1) {
			sb_puts(pr->out, ", ");
			print_expr(pr, s->step);
		}
	}
}

static void print_names_tuple(Printer *pr, Var *const *vs, int n)
{
	sb_putc(pr->out, '(');
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(pr->out, ", ");
		sb_puts(pr->out, var_name(pr, vs[i]));
	}
	if (n == 1)
		sb_putc(pr->out, ',');
	sb_putc(pr->out, ')');
}

static void print_init_values(Printer *pr, const Stmt *s)
{
	sb_puts(pr->out, "init_values=(");
	for (int i = 0; i < s->niter; i++) {
		if (i)
			sb_puts(pr->out, ", ");
		print_expr(pr, s->inits[i]);
	}
	if (s->niter == 1)
		sb_putc(pr->out, ',');
	sb_putc(pr->out, ')');
}

static void print_stmt(Printer *pr, const Stmt *s, int indent, Var **rets, int nrets, bool last)
{
	StrBuf *b = pr->out;
	sb_indent(b, indent);
	put_comments(pr, s, indent);
	switch (s->kind) {
	case ST_ASSIGN:
		sb_puts(b, var_name(pr, s->var));
		sb_puts(b, ": ");
		print_type_p(pr, s->var->type);
		sb_puts(b, " = ");
		print_expr(pr, s->value);
		return;
	case ST_EVAL:
		print_expr(pr, s->value);
		return;
	case ST_RETURN:
		sb_puts(b, "return");
		if (s->nvalues) {
			sb_putc(b, ' ');
			print_list(pr, s->values, s->nvalues);
		}
		return;
	case ST_YIELD:
		if (rets == (Var **)1) { /* a direct child of the function body */
			sb_puts(b, "return");
			if (s->nvalues) {
				sb_putc(b, ' ');
				print_list(pr, s->values, s->nvalues);
			}
			return;
		}
		if (last && nrets > 0 && s->nvalues > 0 && rets) {
			if (nrets == 1) {
				sb_printf(b, "%s: ", var_name(pr, rets[0]));
				print_type_p(pr, rets[0]->type);
				sb_puts(b, " = ");
			} else {
				for (int i = 0; i < nrets; i++) {
					if (i)
						sb_puts(b, ", ");
					sb_puts(b, var_name(pr, rets[i]));
				}
				sb_puts(b, " = ");
			}
		}
		sb_puts(b, "pl.yield_(");
		print_list(pr, s->values, s->nvalues);
		sb_putc(b, ')');
		return;
	case ST_BREAK:
		sb_puts(b, "break");
		return;
	case ST_CONTINUE:
		sb_puts(b, "continue");
		return;
	case ST_IF:
		sb_puts(b, "if ");
		print_expr(pr, s->value);
		sb_puts(b, ":\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, s->rets, s->nrets, false);
		if (s->has_else) {
			sb_putc(b, '\n');
			sb_indent(b, indent);
			sb_puts(b, "else:\n");
			print_stmts_from(pr, &s->orelse, 0, indent + 4, s->rets, s->nrets, false);
		}
		return;
	case ST_FOR: {
		static const char *const kinds[] = { "range", "parallel", "unroll", "pipeline" };
		sb_printf(b, "for %s", var_name(pr, s->var));
		if (s->niter) {
			sb_puts(b, ", ");
			print_names_tuple(pr, s->iter_args, s->niter);
		}
		sb_printf(b, " in pl.%s(", kinds[s->for_kind]);
		print_for_range_args(pr, s);
		if (s->stage) {
			sb_puts(b, ", stage=");
			print_expr(pr, s->stage);
		}
		if (s->niter) {
			sb_puts(b, ", ");
			print_init_values(pr, s);
		}
		if (s->attrs) {
			sb_puts(b, ", attrs=");
			print_attrs_dict(pr, s->attrs, false);
		}
		sb_puts(b, "):\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, s->rets, s->nrets, false);
		return;
	}
	case ST_WHILE:
		if (s->while_ssa) {
			sb_puts(b, "for ");
			print_names_tuple(pr, s->iter_args, s->niter);
			sb_puts(b, " in pl.while_(");
			print_init_values(pr, s);
			sb_puts(b, "):\n");
			sb_indent(b, indent + 4);
			sb_puts(b, "pl.cond(");
			print_expr(pr, s->value);
			sb_putc(b, ')');
			if (s->body.n) {
				sb_putc(b, '\n');
				print_block(pr, &s->body, indent + 4, s->rets, s->nrets);
			}
			return;
		}
		sb_puts(b, "while ");
		print_expr(pr, s->value);
		sb_puts(b, ":\n");
		print_stmts_from(pr, &s->body, 0, indent + 4, NULL, 0, false);
		return;
	case ST_SCOPE:
		/* an AUTO pl.scope() that forms a body passes the yield context on */
		if (s->scope->kind == SC_RUNTIME && !s->scope->manual && last && rets && rets != (Var **)1) {
			sb_puts(b, "with pl.scope():\n");
			print_stmts_from(pr, &s->body, 0, indent + 4, rets, nrets, false);
			return;
		}
		print_scope(pr, s, indent);
		return;
	}
}

static void print_block(Printer *pr, const Block *b, int indent, Var **rets, int nrets)
{
	bool first = true;
	for (int i = 0; i < b->n; i++) {
		if (suppress_placeholder(b, i))
			continue;
		if (!first)
			sb_putc(pr->out, '\n');
		first = false;
		print_stmt(pr, b->stmts[i], indent, rets, nrets, i == b->n - 1);
	}
}

/* ------------------------------------------------------------ renaming */

typedef struct Collect {
	Printer *pr;
	PtrVec order;  /* unique Vars: params, defs (pre-order), then uses */
	PtrVec uses;   /* Vars seen in expressions, first occurrence order */
	unsigned def_epoch, use_epoch;
} Collect;

/* Var.mark: epoch = defined (param/def) in this function; epoch+1 = only used. */
static void add_def(Collect *c, Var *v)
{
	if (!v || v->kind == VK_DYN)
		return;
	if (v->mark != c->def_epoch) {
		if (v->mark != c->use_epoch)
			vec_push(&c->order, v);
		v->mark = c->def_epoch;
		v->print_name = NULL;
	}
}

static void collect_expr(Collect *c, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_VAR) {
		Var *v = e->var;
		if (v->kind != VK_DYN && v->mark != c->def_epoch && v->mark != c->use_epoch) {
			v->mark = c->use_epoch;
			v->print_name = NULL;
			vec_push(&c->uses, v);
		}
		return;
	}
	collect_expr(c, e->lhs);
	collect_expr(c, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		collect_expr(c, e->args[i]);
	for (int i = 0; i < e->nkw; i++)
		collect_expr(c, e->kw[i].value);
	if (e->attrs)
		collect_expr(c, e->attrs);
}

static void collect_block(Collect *c, const Block *b);

static void collect_stmt(Collect *c, const Stmt *s)
{
	switch (s->kind) {
	case ST_ASSIGN:
		add_def(c, s->var);
		collect_expr(c, s->value);
		return;
	case ST_FOR:
		add_def(c, s->var);
		for (int i = 0; i < s->nrets; i++)
			add_def(c, s->rets[i]);
		for (int i = 0; i < s->niter; i++) {
			add_def(c, s->iter_args[i]);
			collect_expr(c, s->inits[i]);
		}
		collect_expr(c, s->start);
		collect_expr(c, s->stop);
		collect_expr(c, s->step);
		collect_expr(c, s->stage);
		collect_block(c, &s->body);
		return;
	case ST_WHILE:
		for (int i = 0; i < s->nrets; i++)
			add_def(c, s->rets[i]);
		for (int i = 0; i < s->niter; i++) {
			add_def(c, s->iter_args[i]);
			collect_expr(c, s->inits[i]);
		}
		collect_expr(c, s->value);
		collect_block(c, &s->body);
		return;
	case ST_IF:
		for (int i = 0; i < s->nrets; i++)
			add_def(c, s->rets[i]);
		collect_expr(c, s->value);
		collect_block(c, &s->body);
		collect_block(c, &s->orelse);
		return;
	case ST_SCOPE: {
		const Scope *sc = s->scope;
		collect_expr(c, sc->core_num);
		collect_expr(c, sc->predicate);
		collect_expr(c, sc->count);
		collect_block(c, &s->body);
		return;
	}
	default:
		collect_expr(c, s->value);
		for (int i = 0; i < s->nvalues; i++)
			collect_expr(c, s->values[i]);
		return;
	}
}

static void collect_block(Collect *c, const Block *b)
{
	for (int i = 0; i < b->n; i++)
		collect_stmt(c, b->stmts[i]);
}

static void build_rename_map(Printer *pr, Function *f)
{
	Collect c = { 0 };
	c.pr = pr;
	pr->epoch += 2;
	c.def_epoch = pr->epoch;
	c.use_epoch = pr->epoch + 1;
	for (int i = 0; i < f->nparams; i++)
		add_def(&c, f->params[i].var);
	collect_block(&c, &f->body);
	pmap_release(&pr->free_vars); /* per function: clearing would cost the largest size each time */
	/* uses of Vars defined nowhere in the function: free */
	for (size_t i = 0; i < c.uses.len; i++) {
		Var *v = c.uses.items[i];
		if (v->mark == c.use_epoch) {
			pmap_put(&pr->free_vars, v, (void *)1);
			vec_push(&c.order, v);
			v->mark = c.def_epoch; /* printed by name, counted like the others */
		}
	}
	if (pr->canonical) {
		/* names by first appearance: parameters, then definitions in order */
		for (size_t i = 0; i < c.order.len; i++) {
			Var *v = c.order.items[i];
			v->print_name = intern_cstr(pr->a, arena_printf(pr->a, "v%zu", i));
		}
		vec_release(&c.order);
		vec_release(&c.uses);
		return;
	}
	PtrMap count = { 0 };
	for (size_t i = 0; i < c.order.len; i++) {
		Var *v = c.order.items[i];
		pmap_put(&count, v->name, (void *)((uintptr_t)pmap_get(&count, v->name) + 1));
	}
	PtrMap used = { 0 };
	bool any_dup = false;
	for (size_t i = 0; i < c.order.len; i++) {
		Var *v = c.order.items[i];
		if ((uintptr_t)pmap_get(&count, v->name) == 1)
			pmap_put(&used, v->name, (void *)1);
		else
			any_dup = true;
	}
	if (any_dup) {
		/* next suffix to try per name: later Vars of a name never retry the
		 * suffixes earlier ones took (linear, not quadratic, in the sharers) */
		PtrMap next_k = { 0 };
		for (size_t i = 0; i < c.order.len; i++) {
			Var *v = c.order.items[i];
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
	}
	pmap_release(&count);
	pmap_release(&used);
	vec_release(&c.order);
	vec_release(&c.uses);
}

/* ------------------------------------------------------------ dynamic dims */

static void dyn_from_expr(PtrVec *out, PtrMap *seen, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_VAR) {
		if (e->var->kind == VK_DYN && !pmap_get(seen, e->var)) {
			pmap_put(seen, e->var, (void *)1);
			vec_push(out, e->var);
		}
		return;
	}
	dyn_from_expr(out, seen, e->lhs);
	dyn_from_expr(out, seen, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		dyn_from_expr(out, seen, e->args[i]);
}

static void dyn_from_type(PtrVec *out, PtrMap *seen, const Type *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->ndim; i++)
		dyn_from_expr(out, seen, t->shape[i]);
	if (t->view)
		for (int i = 0; i < t->view->nkw; i++)
			dyn_from_expr(out, seen, t->view->kw[i].value);
	for (int i = 0; i < t->nelems; i++)
		dyn_from_type(out, seen, t->elems[i]);
}

static void dyn_from_block(PtrVec *out, PtrMap *seen, PtrMap *types, const Block *b);
static void dyn_from_var(PtrVec *out, PtrMap *seen, PtrMap *types, const Var *v);

static void dyn_from_expr_types(PtrVec *out, PtrMap *seen, PtrMap *types, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_VAR) {
		dyn_from_var(out, seen, types, e->var);
		return;
	}
	dyn_from_expr_types(out, seen, types, e->lhs);
	dyn_from_expr_types(out, seen, types, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		dyn_from_expr_types(out, seen, types, e->args[i]);
	for (int i = 0; i < e->nkw; i++)
		dyn_from_expr_types(out, seen, types, e->kw[i].value);
	if (e->attrs)
		dyn_from_expr_types(out, seen, types, e->attrs);
}

/* `types` holds the Types already walked: types are shared between the
 * variables that have them, so this stays small on large programs. */
static void dyn_from_var(PtrVec *out, PtrMap *seen, PtrMap *types, const Var *v)
{
	if (v && v->type && !pmap_get(types, v->type)) {
		pmap_put(types, v->type, (void *)1);
		dyn_from_type(out, seen, v->type);
	}
}

static void dyn_from_block(PtrVec *out, PtrMap *seen, PtrMap *types, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		dyn_from_var(out, seen, types, s->var);
		dyn_from_expr_types(out, seen, types, s->value);
		for (int j = 0; j < s->nvalues; j++)
			dyn_from_expr_types(out, seen, types, s->values[j]);
		for (int j = 0; j < s->niter; j++) {
			dyn_from_var(out, seen, types, s->iter_args[j]);
			dyn_from_expr_types(out, seen, types, s->inits[j]);
		}
		for (int j = 0; j < s->nrets; j++)
			dyn_from_var(out, seen, types, s->rets[j]);
		dyn_from_expr_types(out, seen, types, s->start);
		dyn_from_expr_types(out, seen, types, s->stop);
		dyn_from_expr_types(out, seen, types, s->step);
		if (s->scope) {
			dyn_from_expr_types(out, seen, types, s->scope->core_num);
			dyn_from_var(out, seen, types, s->scope->tid);
		}
		dyn_from_block(out, seen, types, &s->body);
		dyn_from_block(out, seen, types, &s->orelse);
	}
}

static int cmp_var_name(const void *a, const void *b)
{
	const Var *x = *(Var *const *)a, *y = *(Var *const *)b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static void collect_dyn(Printer *pr, Function **order, int n)
{
	PtrVec dyn = { 0 };
	PtrMap seen = { 0 }, types = { 0 };
	for (int i = 0; i < n; i++) {
		Function *f = order[i];
		for (int j = 0; j < f->nparams; j++)
			dyn_from_var(&dyn, &seen, &types, f->params[j].var);
		for (int j = 0; j < f->nrets; j++)
			dyn_from_type(&dyn, &seen, f->rets[j]);
		dyn_from_block(&dyn, &seen, &types, &f->body);
	}
	if (dyn.len > 1)
		qsort(dyn.items, dyn.len, sizeof *dyn.items, cmp_var_name);
	/* distinct dyn Vars sharing a name get _1, _2 ... */
	PtrMap count = { 0 }, used = { 0 };
	for (size_t i = 0; i < dyn.len; i++) {
		Var *v = dyn.items[i];
		pmap_put(&count, v->name, (void *)((uintptr_t)pmap_get(&count, v->name) + 1));
	}
	for (size_t i = 0; i < dyn.len; i++) {
		Var *v = dyn.items[i];
		if ((uintptr_t)pmap_get(&count, v->name) == 1)
			pmap_put(&used, v->name, (void *)1);
	}
	for (size_t i = 0; i < dyn.len; i++) {
		Var *v = dyn.items[i];
		const char *cand = v->name;
		if ((uintptr_t)pmap_get(&count, v->name) > 1) {
			for (int k = 1; pmap_get(&used, cand); k++)
				cand = intern_cstr(pr->a, arena_printf(pr->a, "%s_%d", v->name, k));
			pmap_put(&used, cand, (void *)1);
		}
		pmap_put(&pr->dyn_names, v, (void *)cand);
	}
	/* sorted by printed name */
	for (size_t i = 0; i < dyn.len; i++) {
		Var *v = dyn.items[i];
		v->aux = pmap_get(&pr->dyn_names, v);
	}
	for (size_t i = 0; i < dyn.len; i++) {
		const char *nm = pmap_get(&pr->dyn_names, dyn.items[i]);
		sb_printf(pr->out, "%s = pl.dynamic(\"%s\")\n", nm, nm);
	}
	if (dyn.len)
		sb_putc(pr->out, '\n');
	pmap_release(&count);
	pmap_release(&used);
	pmap_release(&seen);
	pmap_release(&types);
	vec_release(&dyn);
}

/* ------------------------------------------------------------ functions */

static void print_function(Printer *pr, Function *f, int indent)
{
	StrBuf *b = pr->out;
	build_rename_map(pr, f);
	sb_indent(b, indent);
	sb_puts(b, "@pl.function");
	bool any = false;
#define SEP() (sb_puts(b, any ? ", " : "("), any = true)
	if (f->type != FT_OPAQUE) {
		SEP();
		sb_printf(b, "type=pl.FunctionType.%s", ir_functype_name(f->type));
	}
	if (f->level != LV_NONE) {
		SEP();
		sb_printf(b, "level=pl.Level.%s", ir_level_name(f->level));
	}
	if (f->role != RL_NONE) {
		SEP();
		sb_printf(b, "role=pl.Role.%s", ir_role_name(f->role));
	}
	if (!f->auto_scope) {
		SEP();
		sb_puts(b, "auto_scope=False");
	}
	if (f->external_source && *f->external_source) {
		SEP();
		sb_puts(b, "external_source=");
		put_quoted(b, f->external_source);
	}
#undef SEP
	if (any)
		sb_putc(b, ')');
	sb_putc(b, '\n');
	sb_indent(b, indent);
	sb_printf(b, "def %s(", f->name);
	bool self = pr->in_program && f->role != RL_SUBWORKER;
	if (self)
		sb_puts(b, "self");
	for (int i = 0; i < f->nparams; i++) {
		if (i || self)
			sb_puts(b, ", ");
		sb_puts(b, var_name(pr, f->params[i].var));
		sb_puts(b, ": ");
		ParamDir d = f->params[i].dir;
		if (d != DIR_IN)
			sb_puts(b, d == DIR_OUT ? "pl.Out[" : "pl.InOut[");
		print_type_p(pr, f->params[i].var->type);
		if (d != DIR_IN)
			sb_putc(b, ']');
	}
	sb_putc(b, ')');
	if (f->nrets == 1) {
		sb_puts(b, " -> ");
		print_type_p(pr, f->rets[0]);
	} else if (f->nrets > 1) {
		sb_puts(b, " -> tuple[");
		for (int i = 0; i < f->nrets; i++) {
			if (i)
				sb_puts(b, ", ");
			print_type_p(pr, f->rets[i]);
		}
		sb_putc(b, ']');
	}
	sb_puts(b, ":\n");
	int bi = indent + 4;
	bool attr_line = false;
	for (int i = 0; i < f->nattrs; i++) {
		const Kwarg *k = &f->attrs[i];
		if (strcmp(k->name, "split") == 0 && k->value->kind == EX_SYMBOL &&
		    strcmp(k->value->str, "pl.SplitMode.NONE") == 0)
			continue;
		if (strcmp(k->name, "split") == 0 && k->value->kind == EX_INT && k->value->ival == 0)
			continue;
		sb_puts(b, attr_line ? ", " : "");
		if (!attr_line) {
			sb_indent(b, bi);
			sb_puts(b, "pl.func_attr({");
		}
		attr_line = true;
		put_quoted(b, k->name);
		sb_puts(b, ": ");
		if (strcmp(k->name, "split") == 0 && k->value->kind == EX_INT)
			sb_printf(b, "pl.SplitMode.%s", ir_split_name((SplitMode)(k->value->ival < SPLIT_COUNT ? k->value->ival : 0)));
		else
			print_attr_value(pr, k->value);
	}
	if (attr_line)
		sb_puts(b, "})\n");
	if (f->abstract) {
		sb_indent(b, bi);
		sb_puts(b, "...");
		return;
	}
	print_stmts_from(pr, &f->body, 0, bi, (Var **)1, 0, false);
}

/* ------------------------------------------------------------ program */

static int cmp_fn_name(const void *a, const void *b)
{
	return strcmp((*(Function *const *)a)->name, (*(Function *const *)b)->name);
}

static void callees_expr(PtrVec *out, Program *p, const Expr *e)
{
	if (!e)
		return;
	if (e->kind == EX_FN_CALL || e->kind == EX_SUBMIT) {
		Function *f = ir_find_function(p, e->str);
		if (f)
			vec_push(out, f);
	}
	callees_expr(out, p, e->lhs);
	callees_expr(out, p, e->rhs);
	for (int i = 0; i < e->nargs; i++)
		callees_expr(out, p, e->args[i]);
	for (int i = 0; i < e->nkw; i++)
		callees_expr(out, p, e->kw[i].value);
}

static void callees_block(PtrVec *out, Program *p, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		callees_expr(out, p, s->value);
		for (int j = 0; j < s->nvalues; j++)
			callees_expr(out, p, s->values[j]);
		/* calls also hide in loop bounds, init values and scope arguments */
		callees_expr(out, p, s->start);
		callees_expr(out, p, s->stop);
		callees_expr(out, p, s->step);
		for (int j = 0; j < s->niter; j++)
			callees_expr(out, p, s->inits[j]);
		if (s->scope) {
			callees_expr(out, p, s->scope->core_num);
			callees_expr(out, p, s->scope->predicate);
		}
		callees_block(out, p, &s->body);
		callees_block(out, p, &s->orelse);
	}
}

typedef struct TopoState {
	Program *p;
	Function **sorted;   /* by name */
	int n;
	int *state;          /* 0 new, 1 on stack, 2 done */
	PtrMap index;        /* Function -> index+1 */
	Function **out;
	int nout;
	bool cycle;
} TopoState;

/* Depth-first post-order with an explicit stack: a chain of thousands of
 * calls must not overflow the C stack. */
typedef struct TopoFrame {
	int fn;
	Function **callees;  /* sorted by name */
	int ncallees, next;
} TopoFrame;

static void topo_push(TopoState *ts, PtrVec *stack, int i)
{
	ts->state[i] = 1;
	TopoFrame *fr = xmalloc(sizeof *fr);
	PtrVec cs = { 0 };
	callees_block(&cs, ts->p, &ts->sorted[i]->body);
	if (cs.len > 1)
		qsort(cs.items, cs.len, sizeof *cs.items, cmp_fn_name);
	fr->fn = i;
	fr->callees = (Function **)cs.items;
	fr->ncallees = (int)cs.len;
	fr->next = 0;
	vec_push(stack, fr);
}

static void topo_visit(TopoState *ts, int root)
{
	if (ts->state[root] == 2 || ts->cycle)
		return;
	PtrVec stack = { 0 };
	topo_push(ts, &stack, root);
	while (stack.len) {
		TopoFrame *fr = stack.items[stack.len - 1];
		if (!ts->cycle && fr->next < fr->ncallees) {
			int j = (int)(uintptr_t)pmap_get(&ts->index, fr->callees[fr->next++]) - 1;
			if (j < 0 || ts->state[j] == 2)
				continue;
			if (ts->state[j] == 1) {
				ts->cycle = true;
				continue;
			}
			topo_push(ts, &stack, j);
			continue;
		}
		ts->state[fr->fn] = 2;
		ts->out[ts->nout++] = ts->sorted[fr->fn];
		free(fr->callees);
		free(fr);
		stack.len--;
	}
	vec_release(&stack);
}

static Function **function_order(Program *p)
{
	int n = p->nfuncs;
	Function **sorted = arena_alloc(p->arena, (size_t)(n + 1) * sizeof *sorted);
	if (n)
		memcpy(sorted, p->funcs, (size_t)n * sizeof *sorted);
	qsort(sorted, (size_t)n, sizeof *sorted, cmp_fn_name);
	TopoState ts = { 0 };
	ts.p = p;
	ts.sorted = sorted;
	ts.n = n;
	ts.state = xmalloc((size_t)(n + 1) * sizeof *ts.state);
	memset(ts.state, 0, (size_t)(n + 1) * sizeof *ts.state);
	ts.out = arena_alloc(p->arena, (size_t)(n + 1) * sizeof *ts.out);
	for (int i = 0; i < n; i++)
		pmap_put(&ts.index, sorted[i], (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < n && !ts.cycle; i++)
		topo_visit(&ts, i);
	free(ts.state);
	pmap_release(&ts.index);
	return ts.cycle ? sorted : ts.out;
}

static void print_program_with(StrBuf *out, Program *p, bool canonical)
{
	Printer pr = { 0 };
	pr.canonical = canonical;
	pr.out = out;
	pr.prog = p;
	pr.a = p->arena;
	pr.in_program = p->name != NULL;
	/* Var.mark values left by an earlier print of the same program (dumps
	 * after each pass, golden comparisons) must not look current */
	static unsigned last_epoch = 2;
	pr.epoch = last_epoch;
	Function **order = function_order(p);
	if (pr.in_program) {
		sb_printf(out, "# pypto.program: %s\nimport pypto.language as pl\n\n", p->name);
		collect_dyn(&pr, order, p->nfuncs);
		sb_printf(out, "@pl.program\nclass %s:\n", p->name);
	}
	for (int i = 0; i < p->nfuncs; i++) {
		if (i)
			sb_putc(out, '\n');
		print_function(&pr, order[i], pr.in_program ? 4 : 0);
	}
	sb_putc(out, '\n');
	pmap_release(&pr.dyn_names);
	pmap_release(&pr.free_vars);
	pmap_release(&pr.type_text);
	sb_release(&pr.type_texts);
	last_epoch = pr.epoch + 2;
}

void print_program(StrBuf *out, Program *p) { print_program_with(out, p, false); }

void print_program_canonical(StrBuf *out, Program *p) { print_program_with(out, p, true); }
