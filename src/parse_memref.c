/* parse_memref.c - the pl.MemRef(...) element of a Tile / Tensor type.
 *
 * The forms the reference's type resolver reads:
 *   pl.MemRef("name"[, slots=K])[IDX]            an allocation the author
 *       declared (pinned): only its name; size and address come later;
 *   pl.MemRef(base, offset, size[, slots=K])[IDX] a resolved one, base a
 *       pl.Ptr variable of the body (bare) or a name (quoted);
 *   pl.MemRef(addr, size, id), pl.MemRef(pl.Mem.X, addr, size, id)  the
 *       legacy ones, integer literals (a base of their own, see below).
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

/* An integer argument of a legacy pl.MemRef form (a literal, negated or
 * not): its value, or an error naming the field. */
typedef struct ArgText { const char *s; int n; } ArgText; /* an argument's source text */

static int64_t legacy_int(Parser *p, const Expr *e, const Token *t, ArgText x, const char *field, bool non_negative)
{
	bool neg = e && e->kind == EX_UNARY && e->op == UOP_NEG;
	const Expr *lit = neg ? e->lhs : e;
	if (!lit || lit->kind != EX_INT)
		pp_error(p, t->line, t->col, "MemRef %s must be an integer, got: %.*s", field, x.n, x.s);
	int64_t v = neg ? -lit->ival : lit->ival;
	if (non_negative && v < 0)
		pp_error(p, t->line, t->col, "MemRef %s must be >= 0, got: %" PRId64, field, v);
	return v;
}

MemRef *pp_memref(Parser *p, PtrMap *bases, SrcPos at)
{
	Arena *a = p->a;
	expect_op(p, "(");
	Expr *args[4] = { NULL, NULL, NULL, NULL };
	Token toks[4];           /* each argument's first token */
	ArgText text[4];         /* ... and its source text (for messages) */
	const char *base_name = NULL; /* the first argument, a string or a bare name */
	bool base_string = false;
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
			int k = nargs++;
			toks[k] = *t;
			text[k].s = t->src;
			bool ends = tok_is_op(peek_at(p, 1), ",") || tok_is_op(peek_at(p, 1), ")");
			if (k == 0 && (t->kind == TK_STRING || (t->kind == TK_NAME && ends))) {
				Token b = next(p);
				base_string = b.kind == TK_STRING;
				base_name = base_string ? intern(a, b.text, b.slen) : b.text;
			} else {
				args[k] = pp_expr(p);
			}
			/* up to the ',' or ')' after it, spaces before that left out */
			const char *end = peek_at(p, 0)->src;
			while (end > text[k].s && (end[-1] == ' ' || end[-1] == '\t'))
				end--;
			text[k].n = (int)(end - text[k].s);
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
	} else if (nargs == 3 && base_name) {
		const Token *st = &toks[2];
		if (st->kind != TK_INT || args[2]->kind != EX_INT)
			pp_error(p, st->line, st->col, "MemRef size must be an integer literal, got %s", pp_describe(st));
		if (st->overflow || st->ival > INT64_MAX)
			pp_error(p, st->line, st->col, "MemRef size too large");
		Var *v = pp_lookup(p, base_name);
		m->base = v ? v : own_base(p, bases, base_name, at);
		m->offset = args[1];
		/* an integer offset, pl.const(0, pl.INT64) included, is an INDEX
		 * constant (the reference resolves the literal) */
		if (m->offset->kind == EX_INT && m->offset->dtype != DT_INDEX)
			m->offset = ir_int(a, m->offset->ival, DT_INDEX);
		m->size = (int64_t)st->ival;
	} else if (nargs == 3 || nargs == 4) {
		/* The legacy forms pl.MemRef(addr, size, id) and pl.MemRef(memory_space,
		 * addr, size, id): integer literals, each MemRef a base of its own
		 * named mem_ID / mem_SPACE_ID (the reference's constructors make a new
		 * Ptr every time, so two such MemRefs never share an allocation). */
		int i = nargs - 3;
		char name[64];
		if (nargs == 4) {
			const Expr *sp = args[0];
			int ms = !sp || sp->kind != EX_SYMBOL ? -1
				 : !strncmp(sp->str, "pl.Mem.", 7) ? ir_mem_parse(sp->str + 7)
				 : !strncmp(sp->str, "pl.MemorySpace.", 15) ? ir_mem_parse(sp->str + 15) : -1;
			if (ms < 0)
				pp_error(p, toks[0].line, toks[0].col, "Cannot resolve memory space: %.*s", text[0].n, text[0].s);
			const char *sname = ir_mem_name((MemSpace)ms);
			size_t w = (size_t)snprintf(name, sizeof name, "mem_");
			for (const char *c = sname; *c && w + 1 < sizeof name; c++)
				name[w++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
			name[w] = '\0';
		}
		int64_t addr = legacy_int(p, args[i], &toks[i], text[i], "addr", false);
		int64_t size = legacy_int(p, args[i + 1], &toks[i + 1], text[i + 1], "size", true);
		int64_t id = legacy_int(p, args[i + 2], &toks[i + 2], text[i + 2], "id", true);
		if (nargs == 4) {
			size_t w = strlen(name);
			snprintf(name + w, sizeof name - w, "_%" PRId64, id);
		} else {
			snprintf(name, sizeof name, "mem_%" PRId64, id);
		}
		m->base = pp_new_var(p, intern_cstr(a, name), ir_type_new(a, TY_PTR), VK_VAR, at);
		/* the address: an INDEX constant, an INT64 one in the four-argument form */
		m->offset = ir_int(a, addr, nargs == 4 ? DT_INT64 : DT_INDEX);
		m->size = size;
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
