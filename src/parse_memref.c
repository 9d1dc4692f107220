/* parse_memref.c - the pl.MemRef(...) element of a Tile / Tensor type.
 *
 * Two forms, as the reference's type resolver reads them:
 *   pl.MemRef("name"[, slots=K])[IDX]            an allocation the author
 *       declared (pinned): only its name; size and address come later;
 *   pl.MemRef(base, offset, size[, slots=K])[IDX] a resolved one, base a
 *       pl.Ptr variable of the body (bare) or a name (quoted).
 * [IDX] picks a slot of a multi-slot allocation.  The base is a Var in both:
 * a three-argument base names the variable in scope when there is one, and
 * every other name is the function's own Var of that name, shared by all
 * its annotations (and adopted by a later `name: pl.Ptr = pl.tile.alloc(...)`). */
#include <inttypes.h>
#include <string.h>

#include "parse_int.h"

/* The function's own base Var called name. */
static Var *own_base(Parser *p, PtrMap *bases, const char *name, SrcPos at)
{
	Var *v = pmap_get(bases, name);
	if (!v) {
		v = pp_new_var(p, name, ir_type_new(p->a, TY_PTR), VK_VAR, at);
		pmap_put(bases, name, v);
	}
	return v;
}

/* `slots=K`: a positive integer literal */
static int64_t parse_slots(Parser *p)
{
	const Token *t = peek_at(p, 0);
	if (t->kind != TK_INT || t->overflow || t->ival < 1 || t->ival > INT32_MAX ||
	    !(tok_is_op(peek_at(p, 1), ",") || tok_is_op(peek_at(p, 1), ")"))) {
		if (t->kind == TK_INT && !t->overflow)
			pp_error(p, t->line, t->col, "slots must be a positive integer literal, got %" PRIu64, t->ival);
		pp_error(p, t->line, t->col, "slots must be a positive integer literal, got %s", pp_describe(t));
	}
	return (int64_t)next(p).ival;
}

MemRef *pp_memref(Parser *p, PtrMap *bases, SrcPos at)
{
	Arena *a = p->a;
	expect_op(p, "(");
	Expr *args[3] = { NULL, NULL, NULL };
	const char *base_name = NULL; /* the first argument, a string or a bare name */
	bool base_string = false;
	Token size_tok = { 0 };
	int nargs = 0;
	int64_t slots = 1;
	while (!tok_is_op(peek_at(p, 0), ")")) {
		const Token *t = peek_at(p, 0);
		if (t->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=") && !tok_is_op(peek_at(p, 2), "=")) {
			Token k = next(p);
			if (strcmp(k.text, "slots") != 0)
				pp_error(p, k.line, k.col, "pl.MemRef takes no keyword '%s' (only slots=)", k.text);
			next(p); /* = */
			slots = parse_slots(p);
		} else {
			if (nargs == 4)
				pp_error(p, t->line, t->col, "pl.MemRef requires 3 arguments (base, byte_offset, size), got more");
			bool ends = tok_is_op(peek_at(p, 1), ",") || tok_is_op(peek_at(p, 1), ")");
			if (nargs == 0 && (t->kind == TK_STRING || (t->kind == TK_NAME && ends))) {
				Token b = next(p);
				base_string = b.kind == TK_STRING;
				base_name = base_string ? intern(a, b.text, b.slen) : b.text;
			} else if (nargs == 2) {
				size_tok = *t;
				if (t->kind != TK_INT || !ends)
					pp_error(p, t->line, t->col, "MemRef size must be an integer literal, got %s", pp_describe(t));
				if (t->overflow || t->ival > INT64_MAX)
					pp_error(p, t->line, t->col, "MemRef size too large");
				next(p);
			} else if (nargs < 3) {
				args[nargs] = pp_expr(p);
			} else {
				pp_expr(p);
			}
			nargs++;
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	MemRef *m = arena_alloc(a, sizeof *m);
	m->slots = slots;
	if (nargs == 1) {
		if (!base_string || !*base_name)
			pp_error(p, at.line, at.col, "A declared allocation's name must be a non-empty string literal");
		m->pinned = true;
		m->base = own_base(p, bases, base_name, at);
	} else if (nargs == 3) {
		if (!base_name)
			pp_error(p, at.line, at.col,
				 "pl.MemRef's legacy forms (an integer address first) are not supported; "
				 "use pl.MemRef(base_name, byte_offset, size)");
		Var *v = pp_lookup(p, base_name);
		m->base = v ? v : own_base(p, bases, base_name, at);
		m->offset = args[1];
		/* an integer offset, pl.const(0, pl.INT64) included, is an INDEX
		 * constant (the reference resolves the literal) */
		if (m->offset->kind == EX_INT && m->offset->dtype != DT_INDEX)
			m->offset = ir_int(a, m->offset->ival, DT_INDEX);
		m->size = (int64_t)size_tok.ival;
	} else if (nargs == 4) {
		pp_error(p, at.line, at.col,
			 "pl.MemRef's legacy form pl.MemRef(memory_space, addr, size, id) is not supported; "
			 "use pl.MemRef(base_name, byte_offset, size)");
	} else {
		pp_error(p, at.line, at.col, "pl.MemRef requires 3 arguments (base, byte_offset, size), got %d", nargs);
	}
	if (tok_is_op(peek_at(p, 0), "[")) {
		Token open = next(p);
		const char *name = m->base->name;
		if (m->slots <= 1)
			pp_error(p, open.line, open.col,
				 m->pinned ? "'%s' was declared with a single slot, so it cannot be subscripted"
					   : "'%s' holds a single slot, so it cannot be subscripted",
				 name);
		Expr *idx = pp_expr(p);
		expect_op(p, "]");
		if (idx->kind == EX_INT && (idx->ival < 0 || idx->ival >= m->slots))
			pp_error(p, open.line, open.col,
				 m->pinned ? "Slot index %" PRId64 " is out of range for '%s', declared with %" PRId64 " slot(s)"
					   : "Slot index %" PRId64 " is out of range for '%s', which holds %" PRId64 " slot(s)",
				 idx->ival, name, m->slots);
		m->index = idx;
	}
	return m;
}

/* `pl.tile.alloc(MEM, SIZE[, pinned=BOOL])` / `pl.tensor.alloc(...)` as the
 * printer writes the definition of a base Ptr, the cursor at `pl`: a raw
 * call of its own (no registry signature), typed by the annotation. */
Expr *pp_printed_alloc(Parser *p, Type *ptr_type)
{
	Arena *a = p->a;
	Token pl = next(p);
	next(p); /* . */
	Token ns = next(p);
	next(p); /* . */
	next(p); /* alloc */
	const char *op = strcmp(ns.text, "tile") == 0 ? "tile.alloc" : "tensor.alloc";
	expect_op(p, "(");
	Expr *args[3];
	int nargs = 0;
	Kwarg *kw = NULL;
	while (!tok_is_op(peek_at(p, 0), ")")) {
		const Token *t = peek_at(p, 0);
		if (t->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=") && !tok_is_op(peek_at(p, 2), "=")) {
			Token k = next(p);
			if (strcmp(k.text, "pinned") != 0)
				pp_error(p, k.line, k.col, "%s in printed IR accepts no keyword argument '%s'", op, k.text);
			next(p); /* = */
			Expr *v = pp_expr(p);
			if (v->kind != EX_BOOL)
				pp_error(p, k.line, k.col, "%s 'pinned' must be a bool literal", op);
			kw = arena_alloc(a, 2 * sizeof *kw);
			kw[0].name = intern_cstr(a, "pinned");
			kw[0].value = v;
		} else {
			Expr *e = pp_expr(p);
			if (nargs < 3)
				args[nargs] = e;
			nargs++;
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	if (nargs != 2)
		pp_error(p, pl.line, pl.col, "%s in printed IR expects 2 positional args (memory_space, size), got %d", op,
			 nargs);
	Expr *call = ir_expr_new(a, EX_OP_CALL, (SrcPos){ pl.line, pl.col });
	call->str = intern_cstr(a, op);
	call->nargs = 2;
	call->args = arena_alloc(a, 3 * sizeof *call->args);
	call->args[0] = args[0];
	call->args[1] = args[1];
	call->kw = kw;
	call->nkw = kw ? 1 : 0;
	call->type = ptr_type;
	return call;
}

bool pp_at_printed_alloc(Parser *p)
{
	return tok_is_name(peek_at(p, 0), "pl") && tok_is_op(peek_at(p, 1), ".") &&
	       (tok_is_name(peek_at(p, 2), "tile") || tok_is_name(peek_at(p, 2), "tensor")) &&
	       tok_is_op(peek_at(p, 3), ".") && tok_is_name(peek_at(p, 4), "alloc") && tok_is_op(peek_at(p, 5), "(");
}
