/* parse_stmt.c - statements and blocks.
 *
 * A statement starts with a keyword (for / if / while / with, looked up
 * by pointer in p->kw) or is a simple one: pass, break / continue, return,
 * a docstring, assignments (plain, annotated, tuple-unpacking, the yield
 * assignment `x = pl.yield_(...)`, a printed base Ptr), a bare pl.yield_,
 * the pl.dump_tag / pl.static_* statements, a subscript store
 * (`x[a:b] = v` -> tensor.assemble, `arr[i] = v` -> array.update_element),
 * or an expression.  For / if / while loops here; scopes and the spmd /
 * split_aiv loops in parse_scope.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/op_registry.h"
#include "ptoopt/strbuf.h"
#include "parse_int.h"

/* The statement keywords by their interned pointer (p->kw, open addressing). */
static size_t kw_slot(const char *name)
{
	return (size_t)(((uintptr_t)name * 0x9E3779B97F4A7C15ull) >> 58); /* 0..63 */
}

void pp_kw_init(Parser *p)
{
	for (int k = 0; k < NM_STMT_KEYWORDS; k++) {
		size_t h = kw_slot(p->nm[k]);
		while (p->kw[h].name)
			h = (h + 1) & 63;
		p->kw[h] = (struct StmtKeyword){ p->nm[k], k };
	}
}

/* The NM_ index of an interned name that is a statement keyword, else
 * NM_STMT_KEYWORDS. */
static int stmt_keyword(const Parser *p, const char *name)
{
	for (size_t h = kw_slot(name); p->kw[h].name; h = (h + 1) & 63)
		if (p->kw[h].name == name)
			return p->kw[h].k;
	return NM_STMT_KEYWORDS;
}

/* `pl.yield_(` at the cursor? */
static bool at_yield(Parser *p)
{
	const Token *t = peek(p);
	if (!tok_is_name(t, "pl"))
		return false;
	/* `pl.` and a name written together: no need to lex the '.' (a digit
	 * after it makes `.5` a number token: no yield either) */
	const char *q = t->src + t->nlen;
	if (p->lx.end - q > 7 && q[0] == '.' && ident_byte((unsigned char)q[1]))
		return !memcmp(q + 1, "yield_", 6) && !ident_byte((unsigned char)q[7]);
	if (!tok_is_op(peek_at(p, 1), "."))
		return false;
	/* a name right after the '.' is the next token: compare its bytes
	 * without lexing it */
	q = peek_at(p, 1)->src + 1;
	if (p->lx.end - q > 6 && ident_byte((unsigned char)*q))
		return !memcmp(q, "yield_", 6) && !ident_byte((unsigned char)q[6]);
	return tok_is_name(peek_at(p, 2), "yield_");
}

static Stmt *parse_yield_values(Parser *p, const Token *at)
{
	Stmt *s = ir_stmt_new(p->a, ST_YIELD, pos_of(at));
	dotted_after(p, "pl");
	s->values = pp_expr_list(p, &s->nvalues, "'(' after pl.yield_");
	return s;
}

/* Statement-level info the compound parsers need from a block's last stmt. */

/* `(` NAME (`,` NAME)* [`,`] `)` `=` within the lookahead window? */
static bool paren_target(Parser *p)
{
	if (!at_op(p, "("))
		return false;
	int k = 1;
	while (k + 2 < LEX_LOOKAHEAD) {
		if (peek_at(p, k)->kind != TK_NAME)
			return false;
		const Token *sep = peek_at(p, k + 1);
		if (tok_is_op(sep, ")"))
			return tok_is_op(peek_at(p, k + 2), "=");
		if (!tok_is_op(sep, ","))
			return false;
		if (tok_is_op(peek_at(p, k + 2), ")"))
			return k + 3 < LEX_LOOKAHEAD && tok_is_op(peek_at(p, k + 3), "=");
		k += 2;
	}
	return false;
}

/* In an Orchestration function `m = pl.tensor.dim(t, K)` with a constant
 * axis K whose extent is a dimension symbol of a tensor parameter binds m to
 * that symbol and emits nothing (the reference parser's fold; outline-incore
 * does the same on promotion, passes.md §4.3).  Returns the symbol or NULL. */
static Var *folded_dim_read(Parser *p, const Expr *v)
{
	if (p->fn->type != FT_ORCHESTRATION || v->kind != EX_OP_CALL || strcmp(v->str, "tensor.dim") != 0 ||
	    v->nargs != 2 || v->args[1]->kind != EX_INT)
		return NULL;
	Type *t = ir_expr_type(v->args[0]);
	if (!t || t->kind != TY_TENSOR)
		return NULL;
	int64_t ax = v->args[1]->ival;
	if (ax < 0)
		ax += t->ndim;
	if (ax < 0 || ax >= t->ndim || t->shape[ax]->kind != EX_VAR)
		return NULL;
	Var *sym = t->shape[ax]->var;
	for (int i = 0; i < p->fn->nparams; i++) {
		Type *pt = p->fn->params[i].var->type;
		if (pt && pt->kind == TY_TENSOR)
			for (int k = 0; k < pt->ndim; k++)
				if (pt->shape[k]->kind == EX_VAR && pt->shape[k]->var == sym)
					return sym;
	}
	return NULL;
}

/* The subscript-store sugar, the cursor after `NAME[`:
 *   dst[a:b, i] = src   ->  dst = pl.tensor.assemble(dst, src, [a, i])  (tile.assemble for a tile)
 *   arr[i] = v          ->  arr = pl.array.update_element(arr, i, v)
 * A slice's start defaults to 0, dims past the indices are whole; a scalar
 * index writes a unit window and drops that axis from the source, which is
 * reshaped back to the full rank (a tile source may keep leading unit axes
 * to stay 2D).  Returns the assignment. */
static Stmt *subscript_store(Parser *p, const Token *nt)
{
	SrcPos pos = pos_of(nt);
	if (p->fn->strict_ssa)
		PERR_AT(p, nt, "Subscript-write syntax 'dst[...] = src' is only supported before SSA conversion; "
			"write an explicit pl.assemble(...) call, or remove strict_ssa=True");
	Var *base = pp_lookup(p, nt->text);
	if (!base)
		PERR_AT(p, nt, "Undefined variable '%s'", nt->text);
	Type *bt = base->type;
	Expr *bref = ir_var_ref(p->a, base);
	Stmt *s = ir_stmt_new(p->a, ST_ASSIGN, pos);
	if (bt && bt->kind == TY_ARRAY) {
		Expr *idx = pp_expr(p);
		if (at_op(p, ","))
			PERR_AT(p, peek(p), "Array subscript-write takes a single index: arr[i] = v");
		expect_op(p, "]");
		expect_op(p, "=");
		Expr *v = pp_expr(p);
		if (v->kind == EX_INT && v->dtype == DT_INDEX)
			v = pp_int(p, v->ival, bt->dtype, v->pos); /* `arr[i] = 7` takes the element dtype */
		Expr *args[3] = { bref, idx, v };
		Expr *value = pp_op(p, "array.update_element", args, 3, pos);
		s->var = pp_assign_target(p, nt, NULL, &value);
		s->value = value;
		return s;
	}
	bool tile = bt && bt->kind == TY_TILE;
	if (!bt || (bt->kind != TY_TENSOR && bt->kind != TY_DIST_TENSOR && !tile))
		PERR_AT(p, nt, "Subscript-write requires a Tensor, Tile or Array target; '%s' is not one", nt->text);
	int rank = bt->ndim;
	Expr **offs = arena_alloc(p->a, (size_t)(rank + 1) * sizeof *offs);
	Expr **ext = arena_alloc(p->a, (size_t)(rank + 1) * sizeof *ext); /* NULL: not a constant */
	bool *dropped = arena_alloc(p->a, (size_t)(rank + 1) * sizeof *dropped);
	int n = 0, ndrop = 0;
	bool any_slice = false;
	while (!at_op(p, "]")) {
		if (n == rank)
			PERR_AT(p, peek(p), "%s subscript-write has more indices than the %dD %s", tile ? "Tile" : "Tensor",
				rank, tile ? "tile" : "tensor");
		Expr *lo = at_op(p, ":") ? NULL : pp_expr(p);
		if (accept_op(p, ":")) {
			any_slice = true;
			Expr *hi = at_op(p, ",") || at_op(p, "]") ? NULL : pp_expr(p);
			if (at_op(p, ":"))
				PERR_AT(p, peek(p), "Slice step is not supported in a subscript-write");
			offs[n] = lo ? lo : pp_int(p, 0, DT_INDEX, pos);
			Expr *h = hi ? hi : bt->shape[n];
			int64_t l0 = lo ? (lo->kind == EX_INT ? lo->ival : -1) : 0;
			ext[n] = h->kind == EX_INT && l0 >= 0 ? pp_int(p, h->ival - l0, DT_INDEX, pos) : NULL;
			dropped[n] = false;
		} else {
			offs[n] = lo;
			ext[n] = pp_int(p, 1, DT_INDEX, pos);
			dropped[n] = true;
			ndrop++;
		}
		n++;
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, "]");
	if (n == rank && !any_slice)
		PERR_AT(p, nt, "Element-write 'dst[i, j] = scalar' is not supported for %s targets; use slice indices "
			"(e.g. 'dst[i:i+1, j:j+1] = src')", tile ? "tile" : "tensor");
	for (int i = n; i < rank; i++) {
		offs[i] = pp_int(p, 0, DT_INDEX, pos);
		ext[i] = bt->shape[i]->kind == EX_INT ? bt->shape[i] : NULL;
		dropped[i] = false;
	}
	expect_op(p, "=");
	SrcPos sp = pos_of(peek(p));
	Expr *src = pp_expr(p);
	Type *st = ir_expr_type(src);
	bool src_ok = st && (tile ? st->kind == TY_TILE : (st->kind == TY_TENSOR || st->kind == TY_DIST_TENSOR));
	if (!src_ok)
		pp_error(p, sp.line, sp.col, "Subscript-write source must also be a %s", tile ? "tile" : "tensor");
	int natural = rank - ndrop, floored = tile && natural < 2 ? 2 : natural;
	if (st->ndim != natural && st->ndim != floored)
		pp_error(p, sp.line, sp.col,
		     "Subscript-write source must be %dD to match the rank-reduced %s window, got %dD", natural,
		     tile ? "tile" : "tensor", st->ndim);
	int lead = st->ndim - natural;
	for (int d = 0, a = lead; d < rank; d++) {
		if (dropped[d])
			continue;
		Expr *want = ext[d], *have = st->shape[a];
		if (want && have->kind == EX_INT && want->ival != have->ival)
			pp_error(p, sp.line, sp.col,
			     "Subscript-write shape mismatch on source axis %d: window expects %" PRId64
			     " elements, source has %" PRId64, a, want->ival, have->ival);
		a++;
	}
	if (st->ndim != rank) {
		/* reshape the source up to the full window rank: unit dims where
		 * an index dropped an axis, leading tile unit axes skipped */
		Expr **dims = arena_alloc(p->a, (size_t)(rank + 1) * sizeof *dims);
		for (int d = 0, a = lead; d < rank; d++)
			dims[d] = dropped[d] ? pp_int(p, 1, DT_INDEX, pos) : st->shape[a++];
		Expr *rargs[2] = { src, pp_list(p, dims, rank, pos) };
		src = pp_op(p, tile ? "tile.reshape" : "tensor.reshape", rargs, 2, pos);
	}
	Expr *args[3] = { bref, src, pp_list(p, offs, rank, pos) };
	Expr *value = pp_op(p, tile ? "tile.assemble" : "tensor.assemble", args, 3, pos);
	s->var = pp_assign_target(p, nt, NULL, &value);
	s->value = value;
	return s;
}

static void parse_simple_stmt(Parser *p, PtrVec *out, PtrVec *cm)
{
	const Token *t = peek(p);
	Token first = *t;
	Stmt *s = NULL;

	if (tok_is_name(t, "pass")) {
		skip(p);
		/* pass produces no IR; its comments move to the next statement */
		pp_take_comments(p, peek(p)->line, cm);
		for (size_t i = 0; i < cm->len; i++)
			vec_push(&p->carried, cm->items[i]);
		pp_expect_newline(p);
		return;
	}
	if (tok_is_name(t, "break") || tok_is_name(t, "continue")) {
		/* only sequential loops can be left: a split_aiv body is the two AIV
		 * lanes, parallel and unrolled iterations have no order (a spmd
		 * loop is none to the reference: its body sees the enclosing one) */
		const char *kw = t->text[0] == 'b' ? "break" : "continue";
		if (p->loop_ctx == LOOP_SPLIT_AIV)
			PERR_AT(p, t, "'%s' not supported inside a 'for ... in pl.split_aiv(...)' body", kw);
		if (p->loop_ctx == LOOP_PARALLEL || p->loop_ctx == LOOP_UNROLL)
			PERR_AT(p, t, "'%s' not supported in %s loops (only in sequential pl.range or while loops)", kw,
				p->loop_ctx == LOOP_PARALLEL ? "parallel" : "unrolled");
		if (p->loop_ctx == LOOP_NONE)
			PERR_AT(p, t, "'%s' outside loop", kw);
		skip(p);
		s = ir_stmt_new(p->a, first.text[0] == 'b' ? ST_BREAK : ST_CONTINUE, pos_of(&first));
	} else if (tok_is_name(t, "return") && p->in_inline) {
		/* an inline body's return: the call's value, no statement */
		skip(p);
		PtrVec v = ARENA_VEC(p->a);
		bool comma = false;
		while (peek(p)->kind != TK_NEWLINE) {
			vec_push(&v, pp_expr(p));
			if (!accept_op(p, ","))
				break;
			comma = true;
		}
		int n = (int)v.len;
		Expr **xs = (Expr **)vec_finish(p->a, &v, &n);
		if (n == 1 && !comma)
			p->inline_ret = xs[0];
		else if (n)
			p->inline_ret = pp_list(p, xs, n, pos_of(&first));
		pp_expect_newline(p);
		return;
	} else if (tok_is_name(t, "return")) {
		skip(p);
		s = ir_stmt_new(p->a, ST_RETURN, pos_of(&first));
		PtrVec v = ARENA_VEC(p->a);
		if (peek(p)->kind != TK_NEWLINE) {
			bool paren = at_op(p, "(");
			Expr *e0 = pp_expr(p);
			if (paren && e0->kind == EX_TUPLE && !at_op(p, ",")) {
				/* `return (a, b)` returns two values, as `return a, b` */
				for (int i = 0; i < e0->nargs; i++)
					vec_push(&v, e0->args[i]);
			} else {
				vec_push(&v, e0);
			}
			while (accept_op(p, ",") && peek(p)->kind != TK_NEWLINE)
				vec_push(&v, pp_expr(p));
		}
		s->values = (Expr **)vec_finish(p->a, &v, &s->nvalues);
	} else if (t->kind == TK_STRING && peek_at(p, 1)->kind == TK_NEWLINE) {
		/* a bare string (docstring) becomes comment lines of the next stmt */
		Token st = next(p);
		pp_take_comments(p, peek(p)->line, cm);
		for (size_t i = 0; i < cm->len; i++)
			vec_push(&p->carried, cm->items[i]);
		pp_docstring_lines(p, st.text, st.slen);
		pp_expect_newline(p);
		return;
	} else if ((t->kind == TK_NAME && (tok_is_op(peek_at(p, 1), "=") || tok_is_op(peek_at(p, 1), ":") ||
					   tok_is_op(peek_at(p, 1), ","))) ||
		   paren_target(p)) {
		/* assignment forms; `(a, b) = ...` is the same as `a, b = ...`.
		 * Tested before at_yield: a yield starts `pl.`, an assignment NAME
		 * and one of `= : ,` or `(`, so the order does not matter, and
		 * assignments are the common statement. */
		bool paren = accept_op(p, "(");
		ArgList names; /* Token *: on the stack (one name, nearly always) */
		args_init(&names);
		Type *ann = NULL;
		Token nt = expect_name(p, "a name in the assignment target");
		args_push(p, &names, &nt); /* lives as long as names */
		if (!paren && accept_op(p, ":")) {
			ann = pp_type(p);
		} else {
			while (accept_op(p, ",")) {
				if (at_op(p, "=") || at_op(p, ")"))
					break;
				Token n2 = expect_name(p, "a name in the assignment target");
				Token *copy = arena_alloc(p->a, sizeof *copy);
				*copy = n2;
				args_push(p, &names, copy);
			}
			if (paren)
				expect_op(p, ")");
		}
		expect_op(p, "=");
		/* `x = (pl.yield_(v))`, as formatters wrap a long line */
		bool paren_yield = at_op(p, "(") && tok_is_name(peek_at(p, 1), "pl") && tok_is_op(peek_at(p, 2), ".") &&
				   tok_is_name(peek_at(p, 3), "yield_");
		if (paren_yield || at_yield(p)) {
			if (paren_yield)
				skip(p);
			s = parse_yield_values(p, &first);
			if (paren_yield)
				expect_op(p, ")");
			YieldInfo *yi = arena_alloc(p->a, sizeof *yi);
			yi->stmt = s;
			yi->lhs.n = names.len;
			yi->lhs.names = arena_alloc(p->a, (size_t)names.len * sizeof(char *));
			yi->lhs.types = arena_alloc(p->a, (size_t)names.len * sizeof(Type *));
			yi->lhs.pos = arena_alloc(p->a, (size_t)names.len * sizeof(SrcPos));
			for (int i = 0; i < names.len; i++) {
				Token *nk = names.items[i];
				yi->lhs.names[i] = nk->text;
				yi->lhs.pos[i] = pos_of(nk);
			}
			if (ann)
				yi->lhs.types[0] = ann;
			if (yi->lhs.n != s->nvalues)
				PERR_AT(p, &first, "pl.yield_ assigns %d name(s) but yields %d value(s)", yi->lhs.n, s->nvalues);
			pmap_put(&p->yield_lhs, s, yi);
		} else if (names.len == 1 && ann &&
			   (ann->kind == TY_PTR || (ann->kind == TY_NAMED && !strcmp(ann->name, "pl.MemRefType"))) &&
			   pp_at_printed_alloc(p)) {
			/* a base Ptr's definition: a new Var, or the one the
			 * function's pl.MemRef annotations named already */
			Expr *value = pp_printed_alloc(p, ann);
			Var *v = pmap_get(&p->memref_bases, nt.text);
			if (!v)
				v = pp_new_var(p, nt.text, ann, VK_VAR, pos_of(&nt));
			pp_bind(p, nt.text, v);
			s = ir_stmt_new(p->a, ST_ASSIGN, pos_of(&first));
			s->var = v;
			s->value = value;
		} else if (names.len == 1) {
			Expr *value = pp_expr(p);
			Var *sym = folded_dim_read(p, value);
			if (sym && (!ann || (ann->kind == TY_SCALAR && ann->dtype == DT_INDEX))) {
				/* no statement: its comments move to the next one, as for pass */
				pp_bind(p, nt.text, sym);
				pp_take_comments(p, peek(p)->line, cm);
				for (size_t i = 0; i < cm->len; i++)
					vec_push(&p->carried, cm->items[i]);
				pp_expect_newline(p);
				return;
			}
			s = ir_stmt_new(p->a, ST_ASSIGN, pos_of(&first));
			s->var = pp_assign_target(p, &nt, ann, &value);
			s->value = value;
		} else {
			/* p, q = CALL  ->  _tuple_tmp = CALL; p = _tuple_tmp[0]; q = _tuple_tmp[1] */
			Expr *value = pp_expr(p);
			Type *vt = ir_expr_type(value);
			bool submit = value->kind == EX_SUBMIT;
			if (value->kind != EX_FN_CALL && value->kind != EX_OP_CALL && !submit) {
				PERR_AT(p, &first, "tuple unpacking needs a call on the right-hand side");
			}
			if (!vt && (value->kind == EX_FN_CALL || submit) && !pmap_get(p->sigs, value->str)) {
				SrcPos at = submit && value->lhs ? value->lhs->pos : value->pos; /* the callee */
				pp_error(p, at.line, at.col, "call to undefined function 'self.%s'", value->str);
			}
			if (vt && vt->kind == TY_TUPLE && vt->nelems != names.len) {
				int ne = vt->nelems;
				PERR_AT(p, &first, "cannot unpack %d values into %d names", ne, names.len);
			}
			Stmt *tmp = ir_stmt_new(p->a, ST_ASSIGN, pos_of(&first));
			pp_take_comments(p, peek(p)->line, cm);
			tmp->value = value;
			tmp->var = pp_new_var(p, intern_cstr(p->a, submit ? "_submit_tmp" : "_tuple_tmp"), vt,
					   VK_VAR, pos_of(&first));
			pp_attach(p, tmp, cm);
			vec_push(out, tmp);
			for (int i = 0; i < names.len; i++) {
				Token *nk = names.items[i];
				Expr *g = ir_expr_new(p->a, EX_GETITEM, pos_of(nk));
				g->lhs = ir_var_ref(p->a, tmp->var);
				g->ival = (int64_t)i;
				g->type = vt && vt->kind == TY_TUPLE ? vt->elems[i] : NULL;
				Stmt *as = ir_stmt_new(p->a, ST_ASSIGN, pos_of(nk));
				as->var = pp_assign_target(p, nk, NULL, &g);
				as->value = g;
				vec_push(out, as);
			}
			pp_expect_newline(p);
			return;
		}
	} else if (at_yield(p)) {
		s = parse_yield_values(p, &first);
	} else if (tok_is_name(t, "pl") && tok_is_op(peek_at(p, 1), ".") && tok_is_name(peek_at(p, 2), "dump_tag") &&
		   tok_is_op(peek_at(p, 3), "(")) {
		/* pl.dump_tag(t): no statement; later dispatches dump t */
		if (p->fn->type != FT_ORCHESTRATION && p->fn->type != FT_INLINE)
			PERR_AT(p, t, "pl.dump_tag() is only valid inside an Orchestration or Inline function");
		for (int i = 0; i < 4; i++)
			skip(p);
		const Token *at = peek(p);
		if (at->kind != TK_NAME || !tok_is_op(peek_at(p, 1), ")"))
			PERR_AT(p, at, "pl.dump_tag() argument must be a bare variable name");
		Token nt = next(p);
		skip(p);
		Var *v = pp_lookup(p, nt.text);
		if (!v)
			PERR_AT(p, &nt, "pl.dump_tag() argument '%s' is not defined at this point", nt.text);
		if (!v->type || (v->type->kind != TY_TENSOR && v->type->kind != TY_DIST_TENSOR))
			PERR_AT(p, &nt, "pl.dump_tag() argument '%s' is not a tensor", nt.text);
		if (!pp_dump_tagged(p, v))
			vec_push(&p->dump_tagged, v);
		pp_take_comments(p, peek(p)->line, cm);
		for (size_t i = 0; i < cm->len; i++)
			vec_push(&p->carried, cm->items[i]);
		pp_expect_newline(p);
		return;
	} else if (tok_is_name(t, "pl") && tok_is_op(peek_at(p, 1), ".") &&
		   (tok_is_name(peek_at(p, 2), "static_print") || tok_is_name(peek_at(p, 2), "static_assert")) &&
		   tok_is_op(peek_at(p, 3), "(")) {
		/* compile-time only: no statement */
		pp_static_stmt(p, tok_is_name(peek_at(p, 2), "static_assert"));
		pp_take_comments(p, peek(p)->line, cm);
		for (size_t i = 0; i < cm->len; i++)
			vec_push(&p->carried, cm->items[i]);
		pp_expect_newline(p);
		return;
	} else if (t->kind == TK_NAME && tok_is_op(peek_at(p, 1), "[")) {
		/* a statement `NAME[...]` is a subscript store `x[a:b] = v` (an
		 * expression statement of that form would have no effect) */
		skip(p);
		skip(p);
		s = subscript_store(p, &first);
	} else {
		Expr *e = pp_expr(p);
		if (at_op(p, "="))
			PERR_AT(p, peek(p), "cannot assign to this expression");
		if (e->kind == EX_TUPLE || e->kind == EX_VAR || e->kind == EX_INT || e->kind == EX_FLOAT ||
		    e->kind == EX_BOOL || e->kind == EX_STR || e->kind == EX_SYMBOL)
			pp_error(p, first.line, first.col, "expression statement has no effect");
		s = ir_stmt_new(p->a, ST_EVAL, pos_of(&first));
		s->value = e;
	}
	pp_take_comments(p, peek(p)->line, cm);
	pp_attach(p, s, cm);
	pp_expect_newline(p);
	vec_push(out, s);
}

/* (a, b) or (a,) or [a, b] */
static Expr **parse_tuple_values(Parser *p, int *n) { return pp_expr_list(p, n, "a tuple '(...)'"); }

/* A loop with init_values binds its results through the yield's LHS, so a
 * bare `pl.yield_(...)` statement (in the body, its ifs and with-scopes;
 * nested loops, `for ... in pl.spmd / pl.split_aiv` too, have their own
 * yields) leaves them nameless: the reference rejects it. */
static void reject_bare_yield(Parser *p, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *st = b->stmts[i];
		if (st->kind == ST_YIELD && !pp_yield_info_of(p, (Stmt *)st))
			pp_error(p, st->pos.line, st->pos.col,
			     "a loop with init_values needs the assignment form `x_next = pl.yield_(...)`: its left-hand side "
			     "names the values after the loop; a bare pl.yield_(...) is rejected here");
		if (st->kind == ST_IF || (st->kind == ST_SCOPE && !pmap_get(&p->for_scopes, st))) {
			reject_bare_yield(p, &st->body);
			reject_bare_yield(p, &st->orelse);
		}
	}
}

/* The reference parser's checks of a pl.unroll header: no init_values
 * (checked after the body's yields), integer literal bounds (a negated
 * literal counts), a step other than 0. */
static bool unroll_const(const Expr *e, int64_t *v)
{
	if (e->kind == EX_INT) {
		*v = e->ival;
		return true;
	}
	if (e->kind == EX_UNARY && e->op == UOP_NEG && e->lhs->kind == EX_INT) {
		*v = -e->lhs->ival;
		return true;
	}
	return false;
}

static void check_unroll_header(Parser *p, const Stmt *s, bool has_init, const Token *itt, PtrVec *targets)
{
	const char *msg = NULL;
	int64_t v[3];
	if (has_init)
		msg = "pl.unroll() cannot be combined with init_values";
	else if (!unroll_const(s->start, &v[0]) || !unroll_const(s->stop, &v[1]) || !unroll_const(s->step, &v[2]))
		msg = "pl.unroll() requires compile-time constant integer bounds";
	else if (v[2] == 0)
		msg = "pl.unroll() step cannot be zero";
	if (msg) {
		vec_release(targets);
		PERR_AT(p, itt, "%s", msg);
	}
}

/* The names of `(a, b, ...)` after its '(' up to and past its ')': a loop's
 * carried variables, as Token * in `out`. */
static void carried_names(Parser *p, PtrVec *out)
{
	while (!at_op(p, ")")) {
		Token n = expect_name(p, "a loop-carried variable name");
		Token *c = arena_alloc(p->a, sizeof *c);
		*c = n;
		vec_push(out, c);
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
}

static void parse_for(Parser *p, PtrVec *out, PtrVec *cm)
{
	Token ft = next(p); /* for */
	/* targets */
	const Token *t = peek(p);
	Token loopvar = { 0 };
	bool has_loopvar = false, paren_targets = false;
	PtrVec targets = ARENA_VEC(p->a); /* Token* of iter-arg names */
	if (tok_is_op(t, "(")) {
		paren_targets = true;
		skip(p);
		carried_names(p, &targets);
	} else {
		loopvar = expect_name(p, "a loop variable");
		has_loopvar = true;
		if (accept_op(p, ",")) {
			if (accept_op(p, "(")) {
				carried_names(p, &targets);
			} else {
				/* `for a, b in pl.while_(...)`: all names are iter args */
				Token *c = arena_alloc(p->a, sizeof *c);
				*c = loopvar;
				vec_push(&targets, c);
				has_loopvar = false;
				paren_targets = true;
				do {
					Token n = expect_name(p, "a loop-carried variable name");
					c = arena_alloc(p->a, sizeof *c);
					*c = n;
					vec_push(&targets, c);
				} while (accept_op(p, ",") && !at_name(p, "in"));
			}
		}
	}
	const Token *in = peek(p);
	if (!tok_is_name(in, "in")) {
		vec_release(&targets);
		PERR_AT(p, in, "expected 'in', found %s", pp_describe(in));
	}
	skip(p);
	const Token *it = peek(p);
	Token itt = *it;
	const char *kind = NULL;
	if (it->kind == TK_NAME && tok_is_op(peek_at(p, 1), ".")) {
		skip(p);
		skip(p);
		Token k = expect_name(p, "an iterator such as pl.range");
		kind = k.text;
	}
	if (!kind || !at_op(p, "(")) {
		vec_release(&targets);
		PERR_AT(p, &itt, "for loops must iterate over pl.range, pl.parallel, pl.unroll, pl.pipeline, pl.while_, pl.spmd or pl.split_aiv");
	}
	Token open = next(p);
	(void)open;

	if (!strcmp(kind, "split_aiv") && p->split_aiv_depth) {
		vec_release(&targets);
		PERR_AT(p, &ft, "nested 'for ... in pl.split_aiv(...)' is not allowed: a split_aiv body already "
			"stands for the two AIV lanes, so it cannot hold another split_aiv loop");
	}
	if (!strcmp(kind, "spmd") || !strcmp(kind, "split_aiv")) {
		if (!has_loopvar || targets.len) {
			vec_release(&targets);
			PERR_AT(p, &itt, "pl.%s loops take exactly one loop variable", kind);
		}
		vec_release(&targets);
		pp_scope_for(p, out, cm, &ft, &itt, &loopvar, kind);
		return;
	}

	bool is_while = !strcmp(kind, "while_");
	ForKind fk = FOR_RANGE;
	if (!is_while) {
		if (!strcmp(kind, "range")) fk = FOR_RANGE;
		else if (!strcmp(kind, "parallel")) fk = FOR_PARALLEL;
		else if (!strcmp(kind, "unroll")) fk = FOR_UNROLL;
		else if (!strcmp(kind, "pipeline")) fk = FOR_PIPELINE;
		else {
			vec_release(&targets);
			static const char *const iters[] = {
				"range", "parallel", "unroll", "pipeline", "while_", "spmd", "split_aiv", NULL,
			};
			PERR_AT(p, &itt, "unknown loop iterator '%s' (expected pl.range, pl.parallel, pl.unroll, pl.pipeline, "
				"pl.while_, pl.spmd or pl.split_aiv)%s", kind, pp_did_you_mean(p, kind, iters, "pl."));
		}
		if (!has_loopvar) {
			vec_release(&targets);
			PERR_AT(p, &ft, "pl.%s loops need a loop variable", kind);
		}
	} else if (has_loopvar) {
		vec_release(&targets);
		PERR_AT(p, &ft, "pl.while_ loops take only loop-carried variables: for (a, b) in pl.while_(...)");
	}
	(void)paren_targets;
	Stmt *s = ir_stmt_new(p->a, is_while ? ST_WHILE : ST_FOR, pos_of(&ft));
	s->for_kind = fk;
	PtrVec pos = ARENA_VEC(p->a);
	Expr *init = NULL;
	Expr *stage = NULL, *attrs = NULL;
	while (!at_op(p, ")")) {
		const Token *a = peek(p);
		if (a->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=")) {
			Token k = next(p);
			skip(p);
			if (!strcmp(k.text, "init_values")) {
				init = ir_expr_new(p->a, EX_TUPLE, pos_of(&k));
				init->args = parse_tuple_values(p, &init->nargs);
			} else if (!strcmp(k.text, "stage") && fk == FOR_PIPELINE && !is_while) {
				stage = pp_expr(p);
			} else if (!strcmp(k.text, "attrs") && !is_while) {
				attrs = pp_dict(p);
			} else {
				vec_release(&pos);
				vec_release(&targets);
				PERR_AT(p, &k, "unknown keyword argument '%s' for pl.%s", k.text, kind);
			}
		} else {
			if (init || stage || attrs) {
				vec_release(&pos);
				vec_release(&targets);
				PERR_AT(p, a, "positional argument follows keyword argument");
			}
			vec_push(&pos, pp_expr(p));
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	if (is_while ? pos.len != 0 : (pos.len < 1 || pos.len > 3)) {
		size_t n = pos.len;
		vec_release(&pos);
		vec_release(&targets);
		PERR_AT(p, &itt, is_while ? "pl.while_ takes only init_values=" : "pl.%s takes 1 to 3 positional arguments (got %zu)", kind, n);
	}
	if (fk == FOR_PIPELINE && !is_while && (!stage || stage->kind != EX_INT || stage->ival < 1)) {
		vec_release(&pos);
		vec_release(&targets);
		if (!stage)
			PERR_AT(p, &itt, "pl.pipeline() requires stage= (positive integer)");
		if (stage->kind != EX_INT)
			PERR_AT(p, &itt, "pl.pipeline() stage must be a compile-time constant integer");
		PERR_AT(p, &itt, "pl.pipeline() stage must be >= 1, got %lld", (long long)stage->ival);
	}
	if (!is_while) {
		Expr **pv = (Expr **)pos.items;
		if (pos.len == 1) {
			s->start = ir_int(p->a, 0, DT_INDEX);
			s->stop = pv[0];
			s->step = ir_int(p->a, 1, DT_INDEX);
		} else {
			s->start = pv[0];
			s->stop = pv[1];
			s->step = pos.len == 3 ? pv[2] : ir_int(p->a, 1, DT_INDEX);
		}
	}
	vec_release(&pos);
	if (fk == FOR_UNROLL && !is_while && !init)
		check_unroll_header(p, s, false, &itt, &targets);
	s->stage = stage;
	s->attrs = attrs;
	int ninit = init ? init->nargs : 0;
	if ((int)targets.len != ninit) {
		size_t nt = targets.len;
		vec_release(&targets);
		PERR_AT(p, &ft, "the loop names %zu loop-carried variable(s) but init_values has %d value(s)", nt, ninit);
	}
	if (is_while && !init) {
		vec_release(&targets);
		PERR_AT(p, &itt, "pl.while_ requires init_values=");
	}
	pp_header_end(p, s, cm);
	size_t mark = scope_mark(p);
	if (has_loopvar) {
		s->var = pp_new_var(p, loopvar.text, ir_scalar_type(p->a, DT_INDEX), VK_VAR, pos_of(&loopvar));
		pp_bind(p, loopvar.text, s->var);
	}
	s->niter = ninit;
	s->iter_args = arena_alloc(p->a, (size_t)(ninit + 1) * sizeof *s->iter_args);
	s->inits = init ? init->args : NULL;
	for (int i = 0; i < ninit; i++) {
		Token *nt = targets.items[i];
		s->iter_args[i] = pp_new_var(p, nt->text, ir_expr_type(init->args[i]), VK_ITER_ARG, pos_of(nt));
		s->iter_args[i]->init = init->args[i];
		pp_bind(p, nt->text, s->iter_args[i]);
	}
	vec_release(&targets);
	int saved_ctx = p->loop_ctx;
	p->loop_ctx = fk == FOR_PARALLEL ? LOOP_PARALLEL : fk == FOR_UNROLL ? LOOP_UNROLL : LOOP_PLAIN;
	pp_block(p, &s->body, 0);
	p->loop_ctx = saved_ctx;
	if (ninit > 0)
		reject_bare_yield(p, &s->body);
	if (fk == FOR_UNROLL && !is_while && init)
		check_unroll_header(p, s, true, &itt, &targets); /* after the yield check, as the reference */
	if (is_while) {
		s->while_ssa = true;
		Stmt *c = s->body.n ? s->body.stmts[0] : NULL;
		if (!c || c->kind != ST_EVAL || c->value->kind != EX_OP_CALL || strcmp(c->value->str, "cond") != 0 ||
		    c->value->nargs != 1)
			pp_error(p, c ? c->pos.line : ft.line, c ? c->pos.col : ft.col,
			     "the first statement of a pl.while_ body must be pl.cond(<condition>)");
		s->value = c->value->args[0];
		/* comments on the pl.cond line are not kept (it is not a statement in the IR) */
		s->body.stmts++;
		s->body.n--;
	}
	YieldInfo *yi = pp_trailing_yield(p, &s->body);
	if (ninit > 0) {
		pp_scope_pop(p, mark);
		if (yi) {
			pp_make_rets(p, s, yi, yi->stmt);
		} else {
			/* no yield-LHS: results named <iter>_out */
			s->nrets = ninit;
			s->rets = arena_alloc(p->a, (size_t)ninit * sizeof *s->rets);
			for (int i = 0; i < ninit; i++)
				s->rets[i] = pp_new_var(p, intern_cstr(p->a, arena_printf(p->a, "%s_out", s->iter_args[i]->name)),
						     s->iter_args[i]->type, VK_VAR, s->iter_args[i]->pos);
			/* these synthetic results are bound to no name */
		}
		if (yi)
			pp_bind_rets(p, s);
	} else if (yi) {
		/* yield with no loop-carried values: rets still name the results */
		pp_scope_pop(p, mark);
		pp_make_rets(p, s, yi, yi->stmt);
		pp_bind_rets(p, s);
	}
	vec_push(out, s);
}

static void parse_if(Parser *p, PtrVec *out, PtrVec *cm, bool is_elif)
{
	Token it = next(p); /* if / elif */
	(void)is_elif;
	Stmt *s = ir_stmt_new(p->a, ST_IF, pos_of(&it));
	s->value = pp_expr(p);
	pp_header_end(p, s, cm);
	size_t mark = scope_mark(p);
	pp_block(p, &s->body, 0);
	const Token *t = peek(p);
	if (tok_is_name(t, "elif")) {
		/* elif becomes else: + a nested if */
		PtrVec ecm = ARENA_VEC(p->a), inner = ARENA_VEC(p->a);
		s->has_else = true;
		/* the nested if prints one level deeper (else: + if), so an elif
		 * counts as a nested block: the printed program stays within the
		 * indentation limit and re-reads, and no walk of the chain (this
		 * parse, the printer, the passes) recurses deeper than that */
		if (++p->block_depth > LEX_MAX_INDENT - 3)
			PERR_AT(p, t, "elif chain nested too deeply: each elif prints as 'else:' and an 'if' one level "
				"deeper, past the limit of %d levels of indentation", LEX_MAX_INDENT);
		parse_if(p, &inner, &ecm, true);
		p->block_depth--;
		s->orelse.stmts = (Stmt **)vec_finish(p->a, &inner, &s->orelse.n);
	} else if (tok_is_name(t, "else")) {
		skip(p);
		expect_op(p, ":");
		pp_expect_newline(p);
		/* comments above and on the else line go to the first else statement */
		pp_block(p, &s->orelse, 0);
		s->has_else = s->orelse.n > 0; /* an else of only `pass` is no else */
	}
	YieldInfo *y1 = pp_trailing_yield(p, &s->body);
	YieldInfo *y2 = s->has_else ? pp_trailing_yield(p, &s->orelse) : NULL;
	if (y1 || y2) {
		pp_scope_pop(p, mark);
		YieldInfo *yi = y1 ? y1 : y2;
		pp_make_rets(p, s, yi, yi->stmt);
		if (y1 && y2 && y1->lhs.n != y2->lhs.n)
			pp_error(p, y2->stmt->pos.line, y2->stmt->pos.col,
			     "the else branch yields %d value(s) but the then branch yields %d", y2->lhs.n, y1->lhs.n);
		pp_bind_rets(p, s);
	}
	vec_push(out, s);
}

static void parse_while(Parser *p, PtrVec *out, PtrVec *cm)
{
	Token wt = next(p);
	Stmt *s = ir_stmt_new(p->a, ST_WHILE, pos_of(&wt));
	s->value = pp_expr(p);
	pp_header_end(p, s, cm);
	int saved_ctx = p->loop_ctx;
	p->loop_ctx = LOOP_PLAIN;
	pp_block(p, &s->body, 0);
	p->loop_ctx = saved_ctx;
	vec_push(out, s);
}

static void parse_stmt(Parser *p, PtrVec *out, bool first_in_block)
{
	const Token *t = peek(p);
	if (!first_in_block)
		pp_drop_stale_comments(p, t->line, t->col);
	PtrVec all = ARENA_VEC(p->a);
	pp_take_carried(p, &all);
	if (t->kind == TK_NAME) {
		/* names are interned: keywords compare by pointer */
		const char *n = t->text;
		switch (stmt_keyword(p, n)) {
		case NM_FOR: parse_for(p, out, &all); return;
		case NM_IF: parse_if(p, out, &all, false); return;
		case NM_WHILE: parse_while(p, out, &all); return;
		case NM_WITH: pp_with(p, out, &all); return;
		case NM_ELIF: case NM_ELSE:
			PERR_AT(p, t, "'%s' without a matching 'if'", n);
		case NM_STMT_KEYWORDS:
			break;
		default:
			PERR_AT(p, t, "'%s' is not supported inside a function body", n);
		}
	}
	if (t->kind == TK_INDENT)
		PERR_AT(p, t, "unexpected indent");
	if (t->kind != TK_NAME && t->kind != TK_STRING && t->kind != TK_OP && t->kind != TK_INT &&
	    t->kind != TK_FLOAT)
		PERR_AT(p, t, "expected a statement, found %s", pp_describe(t));
	parse_simple_stmt(p, out, &all);
}

/* A statement, and before it the statements its parse queued on p->pre
 * (a deps= array), which take over its comments. */
void pp_stmt(Parser *p, PtrVec *out, bool first_in_block)
{
	size_t base = p->pre.len, at = out->len;
	bool takes = p->pre_takes_comments;
	p->pre_takes_comments = false;
	parse_stmt(p, out, first_in_block);
	size_t k = p->pre.len - base;
	bool give = p->pre_takes_comments;
	p->pre_takes_comments = takes;
	if (!k)
		return;
	Stmt **pre = (Stmt **)(void *)p->pre.items + base;
	for (size_t i = at; give && i < out->len; i++) {
		Stmt *s = out->items[i];
		if (s->ncomments) {
			pre[0]->comments = s->comments;
			pre[0]->ncomments = s->ncomments;
			s->comments = NULL;
			s->ncomments = 0;
			break;
		}
	}
	size_t n = out->len;
	for (size_t i = 0; i < k; i++)
		vec_push(out, NULL);
	memmove(out->items + at + k, out->items + at, (n - at) * sizeof *out->items);
	memcpy(out->items + at, pre, k * sizeof *out->items);
	p->pre.len = base;
}

/* INDENT stmt+ DEDENT (the NEWLINE before it is consumed by the header). */
void pp_block(Parser *p, Block *b, int upper)
{
	const Token *t = peek(p);
	if (t->kind != TK_INDENT)
		PERR_AT(p, t, "expected an indented block, found %s", pp_describe(t));
	skip(p);
	if (++p->block_depth > LEX_MAX_INDENT)
		PERR_AT(p, t, "blocks nested too deeply");
	PtrVec out = ARENA_VEC(p->a);
	const Token *ft = peek(p);
	int first_line = ft->line, first_col = ft->col;
	size_t saved_start = p->scope_start;
	p->scope_start = p->nundo;
	int nast = 0;
	while (peek(p)->kind != TK_DEDENT && peek(p)->kind != TK_EOF)
		pp_stmt(p, &out, nast++ == 0);
	/* tail comments of the block (at its column or deeper) are dropped; a
	 * then-branch's tail reaches to the line before its else / elif */
	if (!upper) {
		upper = p->last_line;
		const Token *after = peek_at(p, 1);
		if (peek(p)->kind == TK_DEDENT && (tok_is_name(after, "else") || tok_is_name(after, "elif")))
			upper = after->line - 1;
	}
	pp_drop_tail_comments(p, upper, first_line, first_col);
	/* carried docstring / pass comments at the end of a block are dropped */
	p->carried.len = 0;
	if (peek(p)->kind == TK_DEDENT)
		skip(p);
	p->block_depth--;
	p->scope_start = saved_start;
	b->stmts = (Stmt **)vec_finish(p->a, &out, &b->n);
}

