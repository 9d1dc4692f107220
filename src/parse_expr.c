/* parse_expr.c - expressions.
 *
 * Precedence climbing over unary, binary (* / // % + - << >> comparisons),
 * `not`, `and`, `or`; atoms (literals, names, module constants, tuples and
 * lists, pl.* and self.* calls, which are parse_call.c's) and postfix
 * subscripts (parse_subscript.c for tensors and tiles).  Equal constants,
 * symbols, tuples and scalar operator trees are hash-consed, and plain
 * integer lists are remembered by their text.  Literal operator trees fold
 * as they are built (parse_fold.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/types.h"
#include "parse_int.h"

/* Expressions are immutable, so equal constants, symbols, strings, tuples
 * and scalar operator trees are built once and shared by all their uses.
 * Children are already shared, so equality and hashing look one level
 * deep (pointer comparison of children). */
static uint64_t shallow_hash(const Expr *e)
{
	uint64_t h = 1469598103934665603ull;
#define MIX(x) (h = (h ^ (uint64_t)(x)) * 1099511628211ull)
	MIX(e->kind);
	MIX(e->op);
	MIX(e->dtype);
	MIX(e->ival); /* also the bits of fval (a union) */
	MIX((uintptr_t)e->str);
	MIX((uintptr_t)e->var);
	MIX((uintptr_t)e->lhs);
	MIX((uintptr_t)e->rhs);
	for (int i = 0; i < e->nargs; i++)
		MIX((uintptr_t)e->args[i]);
#undef MIX
	return h;
}

static bool shallow_eq(const void *va, const void *vb)
{
	const Expr *a = va, *b = vb;
	if (a->kind != b->kind || a->op != b->op || a->dtype != b->dtype || a->ival != b->ival ||
	    a->str != b->str || a->var != b->var || a->lhs != b->lhs || a->rhs != b->rhs ||
	    a->type != b->type || a->nargs != b->nargs)
		return false;
	for (int i = 0; i < a->nargs; i++)
		if (a->args[i] != b->args[i])
			return false;
	return true;
}

/* The shared node equal to *e (copied into the arena when new). */
Expr *pp_share(Parser *p, const Expr *e)
{
	uint64_t h = shallow_hash(e);
	Expr *old = htab_find(&p->leaves, h, shallow_eq, e);
	if (old)
		return old;
	Expr *n = ir_expr_copy(p->a, e);
	htab_add(&p->leaves, h, n);
	return n;
}

static Expr *shared_leaf(Parser *p, Expr *e) { return pp_share(p, e); }

/* share for a tuple whose items are still in a scratch array: they are
 * copied into the arena only when the tuple is new. */
static Expr *share_tuple(Parser *p, const Expr *e)
{
	uint64_t h = shallow_hash(e);
	Expr *old = htab_find(&p->leaves, h, shallow_eq, e);
	if (old)
		return old;
	Expr **items = NULL;
	if (e->nargs) {
		items = arena_alloc(p->a, (size_t)e->nargs * sizeof *items);
		memcpy(items, e->args, (size_t)e->nargs * sizeof *items);
	}
	Expr *n = ir_expr_copy(p->a, e);
	n->args = items;
	htab_add(&p->leaves, h, n);
	return n;
}

/* Like share, for a node already in the arena: it becomes the shared one
 * when it is new, else the caller gives it back. */
static Expr *share_node(Parser *p, Expr *e)
{
	uint64_t h = shallow_hash(e);
	Expr *old = htab_find(&p->leaves, h, shallow_eq, e);
	if (old)
		return old;
	htab_add(&p->leaves, h, e);
	return e;
}

/* shared_leaf for a number: a numeric leaf is determined by its kind,
 * dtype and value bits (its type is the dtype's scalar type, set here), so
 * a small direct-mapped memo of those finds the shared node of a recurring
 * constant without hashing the node, probing and comparing. */
static Expr *shared_number(Parser *p, Expr *e)
{
	uint64_t bits = (uint64_t)e->ival; /* also the bits of fval (a union) */
	size_t j = (size_t)(((bits * 0x9e3779b97f4a7c15ull) >> 56) ^ e->dtype ^ (unsigned)e->kind << 5) & (LEAF_MEMO - 1);
	LeafMemo *m = &p->leaf_memo[j];
	if (m->e && m->bits == bits && m->kind == e->kind && m->dtype == e->dtype)
		return m->e;
	e->type = ir_scalar_type(p->a, (DType)e->dtype);
	Expr *r = shared_leaf(p, e);
	*m = (LeafMemo){ bits, e->kind, e->dtype, r };
	return r;
}

Expr *pp_int(Parser *p, int64_t v, DType dt, SrcPos pos)
{
	Expr e = { .kind = EX_INT, .dtype = dt, .pos = pos, .ival = v };
	if (dt == DT_BOOL) {
		e.kind = EX_BOOL;
		e.ival = v != 0;
	}
	return shared_number(p, &e);
}

Expr *pp_float(Parser *p, double v, DType dt, SrcPos pos)
{
	Expr e = { .kind = EX_FLOAT, .dtype = dt, .pos = pos, .fval = v };
	return shared_number(p, &e);
}

Expr *pp_str(Parser *p, ExprKind k, const char *s, SrcPos pos)
{
	Expr e = { .kind = k, .pos = pos, .str = s };
	return shared_leaf(p, &e);
}

/* ------------------------------------------------------------ expressions */

/* type_make_* allocate only the node (scalar types are pre-built), so a
 * duplicate can be given back to the arena. */
Expr *pp_binary(Parser *p, BinOp op, Expr *l, Expr *r, SrcPos pos)
{
	/* A chain `a + b + c ...` parses iteratively but builds a tree as deep
	 * as it is long, which every later walk recurses over: bound it. */
	if (++p->nops > MAX_EXPR_OPERATORS)
		pp_error(p, pos.line, pos.col, "expression too long (more than %d operators)", MAX_EXPR_OPERATORS);
	ArenaMark m = arena_mark(p->a);
	Expr *e = type_make_binary(p->a, op, l, r, pos, p->diag);
	if (!e)
		longjmp(p->fail, 1);
	Expr *s = share_node(p, e);
	if (s != e)
		arena_reset(p->a, m);
	return s;
}

static Expr *mk_unary(Parser *p, UnOp op, Expr *x, SrcPos pos)
{
	ArenaMark m = arena_mark(p->a);
	Expr *e = type_make_unary(p->a, op, x, pos, p->diag);
	if (!e)
		longjmp(p->fail, 1);
	Expr *s = share_node(p, e);
	if (s != e)
		arena_reset(p->a, m);
	return s;
}

Expr *pp_new_expr(Parser *p, ExprKind k, const Token *t)
{
	return ir_expr_new(p->a, k, t ? pos_of(t) : (SrcPos){ 0, 0 });
}

Expr *pp_dict(Parser *p)
{
	Token open = expect_op_tok(p, "{");
	Expr *e = pp_new_expr(p, EX_DICT, &open);
	PtrVec keys = ARENA_VEC(p->a), vals = ARENA_VEC(p->a);
	while (!at_op(p, "}")) {
		const Token *k = peek(p);
		if (k->kind != TK_STRING) {
			vec_release(&keys);
			vec_release(&vals);
			PERR_AT(p, k, "expected a string key in attrs, found %s", pp_describe(k));
		}
		Token kt = next(p);
		expect_op(p, ":");
		vec_push(&keys, (void *)intern(p->a, kt.text, kt.slen));
		p->attr_depth++; /* a parse error leaves through longjmp: the parse is over */
		vec_push(&vals, pp_kwval(p));
		p->attr_depth--;
		if (!accept_op(p, ","))
			break;
	}
	if (!at_op(p, "}")) {
		vec_release(&keys);
		vec_release(&vals);
	}
	expect_op(p, "}");
	e->nkw = (int)keys.len;
	e->kw = arena_alloc(p->a, (keys.len + 1) * sizeof *e->kw);
	for (size_t i = 0; i < keys.len; i++)
		e->kw[i] = (Kwarg){ keys.items[i], vals.items[i] };
	vec_release(&keys);
	vec_release(&vals);
	return e;
}

/* A keyword / attribute value: an expression, a dict, or an enum symbol. */
Expr *pp_kwval(Parser *p)
{
	if (at_op(p, "{"))
		return pp_dict(p);
	return pp_expr(p);
}

Expr *pp_name_ref(Parser *p)
{
	const Token *t = peek(p);
	const char *name = t->text;
	SrcPos pos = pos_of(t);
	skip(p); /* the name and its position are all it needs: no token copy */
	Var *v = pp_lookup(p, name);
	if (v)
		return ir_var_ref(p->a, v);
	Expr *arg = pp_lookup_value(p, name);
	if (arg)
		return arg;
	Global *g = pmap_get(&p->globals, name);
	if (g && g->value) {
		p->lit = true; /* module constants are inlined as literals */
		return g->value;
	}
	if (g)
		return ir_var_ref(p->a, g->dyn);
	if (strcmp(name, "True") == 0 || strcmp(name, "False") == 0)
		return pp_int(p, name[0] == 'T', DT_BOOL, pos);
	pp_error(p, pos.line, pos.col, "Undefined variable '%s'", name);
}

/* Lists of integer literals (`[64, 128]`, `[0, 0]`) are shared tuples of
 * shared leaves, so the same text always gives the same node: remembered
 * by text like annotations (see the annotation cache above).  Only the
 * plain form: decimal integers without leading zeros, `,` and spaces, one
 * line, no trailing comma, and not near the nesting limit. */
typedef struct ListEntry {
	SrcKey key; /* first: a SrcTable entry */
	Expr *list;
} ListEntry;

/* The end of the plain integer list at s, or NULL. */
static const char *int_list_end(const char *s, const char *end)
{
	const char *q = s + 1;
	for (;;) {
		while (q < end && *q == ' ')
			q++;
		const char *d = q;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == d || q - d > 18 || (*d == '0' && q - d > 1) || q >= end || ident_byte((unsigned char)*q) || *q == '.')
			return NULL;
		while (q < end && *q == ' ')
			q++;
		if (q >= end)
			return NULL;
		if (*q == ']')
			return q + 1;
		if (*q != ',')
			return NULL;
		q++;
	}
}

/* The list memo: the cached lists of up to 16 bytes seen last, in sets by
 * their first three bytes (`[64`; every list has three).  Like the
 * annotation chains, it compares bytes only: the stored texts end where
 * their first ']' is, so one whose bytes the source at s starts with is
 * the list the table would find there. */
static ListMemo *list_memo_set(Parser *p, uint64_t w0)
{
	uint64_t h = ((w0 & 0xFFFFFF) * 0x9e3779b97f4a7c15ull) >> 58;
	return p->list_memo[h & (LIST_MEMO_SETS - 1)];
}

static void list_memo_put(Parser *p, const char *s, size_t n, Expr *list)
{
	if (n > 16 || p->lx.end - s < 16)
		return;
	ListMemo *set = list_memo_set(p, load8(s));
	memmove(set + 1, set, (LIST_MEMO_WAYS - 1) * sizeof *set); /* the oldest way goes */
	ListMemo *m = &set[0];
	m->len = (uint32_t)n;
	for (int i = 0; i < 2; i++) {
		size_t k = n > 8 * (size_t)i ? n - 8 * (size_t)i : 0; /* bytes of word i */
		m->mask[i] = k >= 8 ? ~0ull : (1ull << (8 * k)) - 1; /* little-endian: the first k bytes */
		m->w[i] = load8(s + 8 * i) & m->mask[i];
	}
	m->list = list;
}

static Expr *int_list_cached(Parser *p, const Token *t)
{
	if (!p->lists.cap || p->depth + 2 >= MAX_EXPR_DEPTH)
		return NULL;
	const char *s = t->src, *e = NULL;
	Expr *list = NULL;
	if (p->lx.end - s >= 16) {
		uint64_t w0 = load8(s), w1 = load8(s + 8);
		ListMemo *set = list_memo_set(p, w0);
		for (int i = 0; i < LIST_MEMO_WAYS && set[i].list; i++)
			if (((w0 ^ set[i].w[0]) & set[i].mask[0]) == 0 && ((w1 ^ set[i].w[1]) & set[i].mask[1]) == 0) {
				e = s + set[i].len;
				list = set[i].list;
				break;
			}
	}
	if (!list) {
		e = int_list_end(s, p->lx.end);
		if (!e)
			return NULL;
		size_t n = (size_t)(e - s);
		ListEntry *le = (ListEntry *)(void *)pp_src_slot(&p->lists, s, n, hash_bytes(s, n));
		if (!le->key.text)
			return NULL;
		list = le->list;
		list_memo_put(p, s, n, list);
	}
	p->last_line = t->line;
	lex_skip_to(&p->lx, e);
	p->lit = true; /* as after parsing its last element */
	return list;
}

/* After [ ... ] at s parsed to list: remember it if it is a plain one. */
static void int_list_store(Parser *p, const char *s, Expr *list)
{
	const char *e = int_list_end(s, p->lx.end);
	if (!e || !p->lit || list->kind != EX_TUPLE)
		return;
	for (int i = 0; i < list->nargs; i++)
		if (list->args[i]->kind != EX_INT)
			return;
	/* the parse must have ended exactly there */
	const Lexer *lx = &p->lx;
	const char *at = lx->nla ? lx->la[lx->la_head].src : lx->p;
	const char *q = e;
	while (q < at && *q == ' ')
		q++;
	if (q != at)
		return;
	size_t n = (size_t)(e - s);
	ListEntry *le = (ListEntry *)(void *)pp_src_claim(&p->lists, sizeof(ListEntry), s, n, hash_bytes(s, n));
	le->list = list;
	list_memo_put(p, s, n, list);
}

/* A pl.* / pld.* atom (pp_pl): a call or a symbol, never folded
 * (pl.const(4, pl.INDEX) * 2), but for get_byte() at module level, which
 * Python evaluates: there it is a number. */
static Expr *pl_atom(Parser *p, const char *prefix)
{
	Expr *e = pp_pl(p, prefix);
	p->lit = p->module_level && p->pl_get_byte;
	p->pl_get_byte = false;
	return e;
}

static Expr *parse_atom(Parser *p)
{
	const Token *t = peek(p);
	p->lit = t->kind == TK_INT || t->kind == TK_FLOAT;
	switch (t->kind) {
	/* literals: their fields read before the token is dropped (no copy) */
	case TK_INT: {
		if (t->overflow || t->ival > (uint64_t)INT64_MAX)
			PERR_AT(p, t, "integer literal too large for a 64-bit integer");
		int64_t v = (int64_t)t->ival;
		SrcPos pos = pos_of(t);
		skip(p);
		return pp_int(p, v, DT_INDEX, pos);
	}
	case TK_FLOAT: {
		double v = t->fval;
		SrcPos pos = pos_of(t);
		skip(p);
		return pp_float(p, v, DT_FP32, pos);
	}
	case TK_STRING: {
		const char *v = intern(p->a, t->text, t->slen);
		SrcPos pos = pos_of(t);
		skip(p);
		return pp_str(p, EX_STR, v, pos);
	}
	case TK_NAME:
		/* `pl.` is nearly always written together: then the '.' is not
		 * lexed (pp_dotted_tail skips it with the names after it) */
		if ((dot_name_follows(p, t) || tok_is_op(peek_at(p, 1), ".")) &&
		    (tok_is_name(t, "pl") || tok_is_name(t, "pld"))) {
			return pl_atom(p, t->text[2] == 'd' ? "pld" : "pl");
		}
		if (tok_is_name(t, "self") && tok_is_op(peek_at(p, 1), ".")) {
			return pp_self_call(p);
		}
		if (pp_at_fstring(p, 0)) /* f"...": pl.static_print's argument only */
			PERR_AT(p, t, "Unsupported expression type: JoinedStr (an f-string is read only as an argument of pl.static_print)");
		if (pp_at_inline_call(p))
			return pp_inline_call(p);
		if (tok_is_name(t, "None")) {
			/* the "no producer yet" TaskId sentinel */
			SrcPos at = pos_of(t);
			skip(p);
			p->lit = false;
			return pp_op(p, "system.task_invalid", NULL, 0, at);
		}
		return pp_name_ref(p);
	case TK_OP:
		if (tok_is_op(t, "[")) {
			Expr *known = int_list_cached(p, t);
			if (known)
				return known;
		}
		if (tok_is_op(t, "(") || tok_is_op(t, "[")) {
			const char *open_src = t->src;
			bool paren = tok_is_op(t, "(");
			SrcPos open = pos_of(t);
			skip(p);
			/* the closing operator as a code (close: its spelling, for errors) */
			const char *close = paren ? ")" : "]";
			uint16_t cc = paren ? lex_op_code(")") : lex_op_code("]");
			ArgList v; /* the items, on the stack until the tuple is known new */
			args_init(&v);
			Expr tup = { .kind = EX_TUPLE, .pos = open };
			if (paren && peek(p)->op != cc) {
				Expr *first = pp_expr(p);
				if (peek(p)->op == cc) {
					skip(p);
					return first; /* parenthesised expression */
				}
				expect_op(p, ",");
				args_push(p, &v, first);
				tup.op = p->attr_depth ? TUP_PAREN : TUP_LIST;
			}
			while (peek(p)->op != cc) {
				args_push(p, &v, pp_expr(p));
				if (!accept_op(p, ","))
					break;
			}
			if (peek(p)->op != cc)
				pp_expected_op(p, close);
			skip(p);
			tup.args = (Expr **)v.items;
			tup.nargs = v.len;
			Expr *r = share_tuple(p, &tup);
			if (!paren)
				int_list_store(p, open_src, r);
			return r;
		}
		break;
	default:
		break;
	}
	PERR_AT(p, t, "expected an expression, found %s", pp_describe(t));
}

/* x.shape, x.foo(...) after a variable: the reference's parser reads no
 * attribute of a value (its message quotes the expression as written). */
static _Noreturn void attribute_access(Parser *p, const Expr *e, SrcPos at)
{
	StrBuf b = { 0 };
	sb_puts(&b, e->var->name);
	for (int n = 0; at_op(p, ".") && peek_at(p, 1)->kind == TK_NAME && n < 8; n++) {
		skip(p);
		sb_printf(&b, ".%s", next(p).text);
	}
	bool call = at_op(p, "(");
	const char *text = intern(p->a, b.data, b.len);
	sb_release(&b);
	if (call)
		pp_error(p, at.line, at.col, "Unsupported operation call: %s(...)", text);
	pp_error(p, at.line, at.col, "Standalone attribute access not supported: %s", text);
}

/* Subscripts after the atom e (parse_postfix). */
static Expr *postfix_rest(Parser *p, Expr *e)
{
	int chain = 0;
	while (at_op(p, "[")) {
		Token open = next(p); /* [ */
		/* x[0][0]... builds a nested tree like a deep expression */
		if (++chain > MAX_EXPR_DEPTH)
			PERR_AT(p, &open, "subscripts nested too deeply (limit %d)", MAX_EXPR_DEPTH);
		Type *et = ir_expr_type(e);
		if (et && (((et->kind == TY_TENSOR || et->kind == TY_DIST_TENSOR || et->kind == TY_TILE) && et->ndim >= 1) ||
			   et->kind == TY_ARRAY)) {
			/* numpy-style indexing, lowered to ops (parse_subscript.c) */
			e = pp_subscript(p, e, pos_of(&open));
			p->lit = false;
			continue;
		}

		const Token *it = peek(p);
		bool neg = false;
		if (tok_is_op(it, "-")) {
			skip(p);
			neg = true;
			it = peek(p);
		}
		if (it->kind != TK_INT)
			PERR_AT(p, it, "expected an integer index, found %s", pp_describe(it));
		Token idx = next(p);
		if (idx.overflow || idx.ival > (uint64_t)INT32_MAX)
			PERR_AT(p, &idx, "index too large");
		expect_op(p, "]");
		Type *tt = ir_expr_type(e);
		int64_t i = neg ? -(int64_t)idx.ival : (int64_t)idx.ival;
		if (tt && tt->kind == TY_TUPLE) {
			if (neg)
				i += tt->nelems;
			if (i < 0 || i >= tt->nelems)
				PERR_AT(p, &idx, "tuple index %" PRId64 " out of range (the tuple has %d elements)",
					neg ? -(int64_t)idx.ival : (int64_t)idx.ival, tt->nelems);
		} else if (neg) {
			PERR_AT(p, &idx, "negative index");
		}
		if (tt && (tt->kind == TY_SCALAR || tt->kind == TY_PTR || tt->kind == TY_NAMED ||
			   ((tt->kind == TY_TENSOR || tt->kind == TY_TILE) && tt->ndim == 0)))
			PERR_AT(p, &open, "Subscript requires Tuple, Tensor, Tile, or Array type, got %s",
				tt->kind == TY_SCALAR ? "ScalarType" : tt->kind == TY_TILE ? "a 0-D Tile" :
				tt->kind == TY_TENSOR ? "a 0-D Tensor" : "a non-subscriptable type");
		p->lit = false;
		Expr g = { .kind = EX_GETITEM, .pos = e->pos, .lhs = e, .ival = i };
		if (tt && tt->kind == TY_TUPLE)
			g.type = tt->elems[i];
		e = pp_share(p, &g);
	}
	return e;
}

static Expr *parse_postfix(Parser *p)
{
	SrcPos at = pos_of(peek(p));
	Expr *e = parse_atom(p);
	if (e->kind == EX_VAR && at_op(p, ".") && peek_at(p, 1)->kind == TK_NAME)
		attribute_access(p, e, at);
	return postfix_rest(p, e);
}

static Expr *pow_rest(Parser *p, Expr *e);

static Expr *parse_unary(Parser *p)
{
	const Token *t = peek(p);
	if (tok_is_op(t, "-") || tok_is_op(t, "~") || tok_is_op(t, "+")) {
		Token op = next(p);
		if (++p->depth > MAX_EXPR_DEPTH)
			PERR_AT(p, &op, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
		Expr *x = parse_unary(p);
		p->depth--;
		if (op.text[0] == '+')
			return x;
		/* a negated constant is a constant (of any origin, as the
		 * reference's parse_unaryop does); it stays foldable if x was */
		if (op.text[0] == '-' && x->kind == EX_INT && x->ival != INT64_MIN)
			return pp_int(p, -x->ival, (DType)x->dtype, pos_of(&op));
		if (op.text[0] == '-' && x->kind == EX_FLOAT)
			return pp_float(p, -x->fval, (DType)x->dtype, pos_of(&op));
		p->lit = false;
		return mk_unary(p, op.text[0] == '-' ? UOP_NEG : UOP_BITNOT, x, pos_of(&op));
	}
	return pow_rest(p, parse_postfix(p));
}

/* A `**` after the operand e of parse_unary (which is not a unary operator). */
static Expr *pow_rest(Parser *p, Expr *e)
{
	if (at_op(p, "**")) {
		/* only folded: the IR has no power operator (right associative,
		 * binds tighter than a unary minus on its left) */
		bool llit = p->lit;
		Token op = next(p);
		if (++p->depth > MAX_EXPR_DEPTH)
			PERR_AT(p, &op, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
		Expr *r = parse_unary(p);
		p->depth--;
		Expr *f = llit && p->lit ? pp_fold_binary(p, OP_POW, e, r, e->pos) : NULL;
		if (!f)
			PERR_AT(p, &op, "Unsupported binary operator: Pow ('**' only between constants, which are folded)");
		p->lit = true;
		return f;
	}
	return e;
}

/* The binary operator token t spells and its level (0: * / // %,
 * 1: + -, 2: << >>, 3: comparisons), or -1. */
static int binop_info(const Token *t, int *level)
{
	if (t->kind != TK_OP)
		return -1;
	const char *s = t->text;
	char c1 = s[1];
	if (c1 && s[2])
		return -1;
	switch (s[0]) {
	case '*': *level = 0; return c1 ? -1 : OP_MUL;
	case '/': *level = 0; return !c1 ? OP_DIV : c1 == '/' ? OP_FLOORDIV : -1;
	case '%': *level = 0; return c1 ? -1 : OP_MOD;
	case '+': *level = 1; return c1 ? -1 : OP_ADD;
	case '-': *level = 1; return c1 ? -1 : OP_SUB;
	case '<': *level = c1 == '<' ? 2 : 3; return !c1 ? OP_LT : c1 == '=' ? OP_LE : c1 == '<' ? OP_SHL : -1;
	case '>': *level = c1 == '>' ? 2 : 3; return !c1 ? OP_GT : c1 == '=' ? OP_GE : c1 == '>' ? OP_SHR : -1;
	case '=': *level = 3; return c1 == '=' ? OP_EQ : -1;
	case '!': *level = 3; return c1 == '=' ? OP_NE : -1;
	default: return -1;
	}
}

static bool is_comparison(const Token *t)
{
	int level;
	return binop_info(t, &level) >= 0 && level == 3;
}

static Expr *parse_binary_level(Parser *p, int max);

/* Binary operators of levels 0..max after the first operand l
 * (precedence climbing, all left associative): the operands are built and
 * combined in the same order as one recursive function per level would, so
 * type errors come first in the same places. */
static Expr *binary_rest(Parser *p, int max, Expr *l)
{
	bool llit = p->lit;
	for (;;) {
		const Token *t = peek(p);
		if (t->kind == TK_OP && (t->text[0] == '&' || t->text[0] == '|' || t->text[0] == '^') && !t->text[1])
			PERR_AT(p, t, "unsupported binary operator '%s'", t->text);
		int level;
		int op = binop_info(t, &level);
		if (op < 0 || level > max)
			return l;
		Token ot = next(p);
		Expr *r = parse_binary_level(p, level - 1);
		Expr *f = llit && p->lit && level < 3 ? pp_fold_binary(p, op, l, r, l->pos) : NULL;
		l = f ? f : pp_binary(p, (BinOp)op, l, r, pos_of(&ot));
		p->lit = llit = f != NULL;
		if (level == 3 && is_comparison(peek(p)))
			PERR_AT(p, peek(p), "chained comparisons are not supported");
	}
}

static Expr *parse_binary_level(Parser *p, int max)
{
	Expr *l = parse_unary(p);
	return max < 0 ? l : binary_rest(p, max, l);
}

static Expr *parse_not(Parser *p)
{
	if (at_name(p, "not")) {
		Token t = next(p);
		if (++p->depth > MAX_EXPR_DEPTH)
			PERR_AT(p, &t, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
		Expr *x = parse_not(p);
		p->depth--;
		p->lit = false;
		return mk_unary(p, UOP_NOT, x, pos_of(&t));
	}
	return parse_binary_level(p, 3);
}

/* `and` operands after the first one, l */
static Expr *and_rest(Parser *p, Expr *l)
{
	while (at_name(p, "and")) {
		Token t = next(p);
		l = pp_binary(p, OP_AND, l, parse_not(p), pos_of(&t));
	}
	return l;
}

static Expr *parse_and(Parser *p) { return and_rest(p, parse_not(p)); }

/* Can token t follow a complete expression but not continue it?  (A
 * one-byte operator's code is its byte; other tokens have code 0.) */
static const bool op_ends_expr[128] = {
	[','] = true, [')'] = true, [']'] = true, ['}'] = true, [':'] = true, ['='] = true,
};

static bool ends_expr(const Token *t)
{
	return t->kind == TK_NEWLINE || (t->op < 128 && op_ends_expr[t->op]);
}

Expr *pp_expr(Parser *p)
{
	const Token *t = peek(p);
	if (p->depth == 0)
		p->nops = 0;
	if (++p->depth > MAX_EXPR_DEPTH)
		PERR_AT(p, t, "expression nested too deeply (limit %d)", MAX_EXPR_DEPTH);
	Expr *l;
	if (t->kind == TK_NAME && t->text == p->nm[NM_NOT]) {
		l = parse_and(p);
	} else {
		/* the first operand, as parse_and -> parse_not -> parse_binary_level
		 * would parse it; most expressions (arguments, dims, call values)
		 * end there, and then no operator level needs to look.  A lone
		 * name (the commonest argument) is parse_atom's plain name case. */
		if (t->kind == TK_NAME && !dot_name_follows(p, t) && ends_expr(peek_at(p, 1)) &&
		    !tok_is_name(t, "None")) {
			p->lit = false;
			l = pp_name_ref(p);
			p->depth--;
			return l;
		}
		if (t->kind == TK_NAME && t->text == p->lx.name_pl && dot_name_follows(p, t)) {
			/* `pl.NAME...` (an op call, a symbol): parse_atom's case,
			 * without the operator levels' checks on its first token */
			l = pl_atom(p, "pl");
			if (!ends_expr(peek(p)))
				l = pow_rest(p, postfix_rest(p, l));
		} else {
			l = parse_unary(p);
		}
		if (ends_expr(peek(p))) {
			p->depth--;
			return l;
		}
		l = and_rest(p, binary_rest(p, 3, l));
	}
	while (at_name(p, "or")) {
		Token ot = next(p);
		l = pp_binary(p, OP_OR, l, parse_and(p), pos_of(&ot));
	}
	if (at_name(p, "if") && !p->comprehension)
		PERR_AT(p, peek(p), "conditional expressions are not supported");
	p->depth--;
	return l;
}

/* A call of canonical op `op` on args, lowered through the registry. */
Expr *pp_op(Parser *p, const char *op, Expr **args, int nargs, SrcPos pos)
{
	Expr *call = ir_expr_new(p->a, EX_OP_CALL, pos);
	call->str = intern_cstr(p->a, op);
	call->nargs = nargs;
	call->args = arena_alloc(p->a, (size_t)(nargs + 1) * sizeof *call->args);
	if (nargs)
		memcpy(call->args, args, (size_t)nargs * sizeof *args);
	Expr *r = sugar_lower_call(&p->sugar, call);
	if (!r)
		longjmp(p->fail, 1);
	return r;
}

Expr *pp_list(Parser *p, Expr **items, int n, SrcPos pos)
{
	Expr *l = ir_expr_new(p->a, EX_TUPLE, pos);
	l->nargs = n;
	l->args = arena_alloc(p->a, (size_t)(n + 1) * sizeof *l->args);
	if (n)
		memcpy(l->args, items, (size_t)n * sizeof *items);
	return l;
}

