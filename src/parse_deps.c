/* parse_deps.c - the deps= lists of pl.submit, pl.spmd_submit,
 * pl.system.task_dummy, `with pl.at(...)` and `with pl.spmd(...)`.
 *
 * As the reference's parser reads them: an entry is a TaskId variable, a
 * TASK_ID array variable (a whole-array fence), `None` (no producer yet:
 * dropped), a per-element read `arr[i]` of a TASK_ID array (form 1), or a
 * comprehension `[ENTRY for NAME in ITER if COND ...]` (form 2) whose
 * iterable and filters Python can evaluate at parse time (range(...), a
 * list or tuple of integers, module constants); it is unrolled with NAME
 * bound to each value as a literal.  When an entry is a per-element read,
 * the whole list becomes one array built just before the statement:
 *   _submit_deps_buf = pl.array.create(N, pl.TASK_ID)
 *   _submit_deps_buf = pl.array.update_element(_submit_deps_buf, i, ENTRY_i)
 * (statements queued on p->pre; pp_stmt puts them in front).
 */
#include <stdio.h>
#include <string.h>

#include "parse_int.h"

/* The longest comprehension unrolled: beyond it, a range(10**9) in a few
 * bytes of input would take unbounded time. */
#define MAX_UNROLLED_DEPS 65536

typedef struct DepList {
	const char *who;      /* as the reference names the call or scope */
	PtrVec entries;       /* Expr *: TaskId / array Vars, per-element reads */
	bool needs_desugar;   /* a per-element read was seen */
	bool saw_whole_array;
} DepList;

static bool is_task_id(const Type *t) { return t && t->kind == TY_SCALAR && t->dtype == DT_TASK_ID; }
static bool is_task_array(const Type *t) { return t && t->kind == TY_ARRAY && t->dtype == DT_TASK_ID; }

/* `array.get_element(arr, i)` of a TASK_ID array. */
static bool per_element_read(Expr *e)
{
	return e->kind == EX_OP_CALL && !strcmp(e->str, "array.get_element") && is_task_id(ir_expr_type(e)) &&
	       e->nargs >= 1 && is_task_array(ir_expr_type(e->args[0]));
}

/* The source text from s up to the cursor, for messages. */
static int src_upto(Parser *p, const char *s)
{
	const char *e = peek(p)->src;
	while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\r' || e[-1] == '\t'))
		e--;
	return e > s && e - s < 200 ? (int)(e - s) : 0;
}

/* Can token t end a deps entry? */
static bool ends_entry(const Token *t)
{
	return tok_is_op(t, ",") || tok_is_op(t, "]") || tok_is_op(t, ")") || tok_is_name(t, "for");
}

/* One entry at the cursor: appended to d (None: nothing). */
static void dep_entry(Parser *p, DepList *d)
{
	const Token *t = peek(p);
	if (tok_is_name(t, "None") && ends_entry(peek_at(p, 1))) {
		skip(p);
		return;
	}
	SrcPos at = pos_of(t);
	const char *s = t->src;
	Expr *e = pp_expr(p);
	int n = src_upto(p, s);
	Type *et = ir_expr_type(e);
	if (e->kind == EX_VAR && (is_task_id(et) || is_task_array(et))) {
		bool array = is_task_array(et);
		if (array && d->needs_desugar)
			pp_error(p, at.line, at.col, "'%s' deps= cannot mix a whole TASK_ID array with per-element entries "
				 "(got array entry '%.*s' after a per-element / comprehension entry)", d->who, n, s);
		d->saw_whole_array |= array;
		vec_push(&d->entries, e);
		return;
	}
	if (per_element_read(e)) {
		if (d->saw_whole_array)
			pp_error(p, at.line, at.col, "'%s' deps= cannot mix a whole TASK_ID array with per-element entries "
				 "(got per-element entry '%.*s' after a whole-array entry)", d->who, n, s);
		d->needs_desugar = true;
		vec_push(&d->entries, e);
		return;
	}
	pp_error(p, at.line, at.col, "'%s' deps= entries must be a TaskId variable, a TASK_ID array element "
		 "(e.g. `arr[i]`), or None — got '%.*s'", d->who, n, s);
}

/* Is the cursor at `[` opening a comprehension: a `for` at the top level
 * of the brackets?  Decided from the source bytes (the lookahead is too
 * short for an element of any length). */
static bool at_comprehension(Parser *p)
{
	const Token *t = peek(p);
	if (!tok_is_op(t, "["))
		return false;
	int depth = 0;
	for (const char *q = t->src + 1, *end = p->lx.end; q < end; q++) {
		char c = *q;
		if (c == '(' || c == '[' || c == '{') {
			depth++;
		} else if (c == ')' || c == ']' || c == '}') {
			if (--depth < 0)
				return false;
		} else if (c == '#') {
			while (q < end && *q != '\n')
				q++;
		} else if (c == '"' || c == '\'') {
			const char *r = q + 1;
			while (r < end && *r != c && *r != '\n')
				r += *r == '\\' ? 2 : 1;
			q = r;
		} else if (depth == 0 && c == 'f' && end - q > 3 && !memcmp(q, "for", 3) && !ident_byte((unsigned char)q[3]) &&
			   !ident_byte((unsigned char)q[-1])) {
			return true;
		}
	}
	return false;
}

/* Consume the tokens of an expression up to a `for`, `if` or closing
 * bracket at its top level (not lexed as an expression: it names the
 * comprehension's variable, unbound here). */
static void skip_clause(Parser *p)
{
	int depth = 0;
	for (;;) {
		const Token *t = peek(p);
		if (t->kind == TK_EOF)
			pp_expected_op(p, "]");
		if (depth == 0 && (tok_is_name(t, "for") || tok_is_name(t, "if") || tok_is_op(t, "]")))
			return;
		depth += pp_bracket_step(t);
		skip(p);
	}
}

/* A place in the token stream to parse again from (the lexer and what the
 * parser tracks of it; the comment queue stays the lexer's own, and what a
 * second pass queues again is the same comments). */
typedef struct Mark {
	Lexer lx;
	int last_line;
} Mark;

static void mark_set(Parser *p, Mark *m)
{
	m->lx = p->lx;
	m->last_line = p->last_line;
}

static void mark_goto(Parser *p, const Mark *m)
{
	Comment *c = p->lx.comments;
	size_t cap = p->lx.ccomments;
	p->lx = m->lx;
	p->lx.cur = &p->lx.la[p->lx.la_head];
	p->lx.comments = c;
	p->lx.ccomments = cap;
	p->last_line = m->last_line;
}

/* The value of a constant expression as Python sees it: an int, else an
 * error naming its type. */
static int64_t iter_value(Parser *p, const DepList *d, const Expr *e, SrcPos at)
{
	if (e->kind == EX_INT)
		return e->ival;
	const char *ty = e->kind == EX_BOOL ? "bool" : e->kind == EX_FLOAT ? "float" : e->kind == EX_STR ? "str" : NULL;
	if (ty)
		pp_error(p, at.line, at.col, "'%s' deps= comprehension iterable yielded a non-integer value (%s); only "
			 "integer indices are supported", d->who, ty);
	pp_error(p, at.line, at.col, "'%s' deps= comprehension iterable depends on an IR variable; cannot unroll at "
		 "parse time", d->who);
}

static void push_value(Parser *p, const DepList *d, PtrVec *vals, int64_t v, SrcPos at)
{
	if (vals->len >= MAX_UNROLLED_DEPS)
		pp_error(p, at.line, at.col, "'%s' deps= comprehension unrolls to more than %d entries", d->who,
			 MAX_UNROLLED_DEPS);
	int64_t *slot = arena_alloc(p->a, sizeof *slot);
	*slot = v;
	vec_push(vals, slot);
}

/* The iterable of a comprehension, evaluated: range(...), a list or tuple
 * of integers, or a constant (which is no sequence). */
static void parse_iterable(Parser *p, const DepList *d, PtrVec *vals)
{
	const Token *t = peek(p);
	SrcPos at = pos_of(t);
	if (tok_is_name(t, "pl") && tok_is_op(peek_at(p, 1), ".")) {
		const Token *f = peek_at(p, 2);
		if (tok_is_name(f, "range") || tok_is_name(f, "parallel") || tok_is_name(f, "pipeline") ||
		    tok_is_name(f, "unroll"))
			pp_error(p, at.line, at.col, "'%s' deps= comprehension iterable is a DSL loop (`pl.range` / "
				 "`pl.parallel` / `pl.pipeline`); cannot unroll at parse time", d->who);
	}
	if (tok_is_name(t, "range") && tok_is_op(peek_at(p, 1), "(") && !pp_lookup(p, t->text)) {
		skip(p);
		skip(p);
		int64_t a[3];
		int n = 0;
		while (!at_op(p, ")")) {
			if (n == 3)
				PERR_AT(p, peek(p), "range expected at most 3 arguments");
			SrcPos ap = pos_of(peek(p));
			a[n++] = iter_value(p, d, pp_expr(p), ap);
			if (!accept_op(p, ","))
				break;
		}
		expect_op(p, ")");
		if (!n)
			pp_error(p, at.line, at.col, "range expected at least 1 argument, got 0");
		int64_t lo = n > 1 ? a[0] : 0, hi = n > 1 ? a[1] : a[0], step = n > 2 ? a[2] : 1;
		if (!step)
			pp_error(p, at.line, at.col, "range() arg 3 must not be zero");
		for (int64_t v = lo; step > 0 ? v < hi : v > hi; v += step) {
			push_value(p, d, vals, v, at);
			if ((step > 0 && v > INT64_MAX - step) || (step < 0 && v < INT64_MIN - step))
				break;
		}
		return;
	}
	Expr *e = pp_expr(p);
	if (e->kind == EX_TUPLE) {
		for (int i = 0; i < e->nargs; i++)
			push_value(p, d, vals, iter_value(p, d, e->args[i], at), at);
		return;
	}
	if (e->kind == EX_INT || e->kind == EX_FLOAT || e->kind == EX_BOOL)
		pp_error(p, at.line, at.col, "'%s' deps= comprehension iterable did not produce a sequence: '%s' object is "
			 "not iterable", d->who, e->kind == EX_INT ? "int" : e->kind == EX_FLOAT ? "float" : "bool");
	iter_value(p, d, e, at); /* an IR value, or a string */
}

/* `[ENTRY for NAME in ITER if COND ...]` at the cursor: its entries, one
 * per value of ITER that passes every COND. */
static void dep_comprehension(Parser *p, DepList *d)
{
	SrcPos at = pos_of(peek(p));
	skip(p); /* [ */
	p->comprehension++;
	Mark elt, *conds = NULL;
	mark_set(p, &elt);
	skip_clause(p);
	if (!at_name(p, "for"))
		PERR_AT(p, peek(p), "expected 'for' in the deps= comprehension");
	skip(p);
	Token name = expect_name(p, "the comprehension's loop variable");
	if (at_op(p, ","))
		pp_error(p, at.line, at.col, "'%s' deps= comprehension target must be a single name (v1)", d->who);
	if (!at_name(p, "in"))
		PERR_AT(p, peek(p), "expected 'in', found %s", pp_describe(peek(p)));
	skip(p);
	PtrVec vals = ARENA_VEC(p->a);
	parse_iterable(p, d, &vals);
	int nconds = 0;
	PtrVec marks = ARENA_VEC(p->a);
	while (at_name(p, "if")) {
		skip(p);
		Mark *m = arena_alloc(p->a, sizeof *m);
		mark_set(p, m);
		vec_push(&marks, m);
		skip_clause(p);
	}
	if (at_name(p, "for"))
		pp_error(p, at.line, at.col, "'%s' deps= comprehension supports a single `for` clause (v1)", d->who);
	expect_op(p, "]");
	Mark end;
	mark_set(p, &end);
	conds = (Mark *)(void *)marks.items;
	nconds = (int)marks.len;
	/* NAME reads as the literal value (a module constant shadowing any
	 * variable of that name), as the reference substitutes it */
	void *saved_bind = pmap_get(&p->bind, name.text);
	void *saved_global = pmap_get(&p->globals, name.text);
	Global g = { 0 };
	pmap_put(&p->bind, name.text, NULL);
	pmap_put(&p->globals, name.text, &g);
	for (size_t i = 0; i < vals.len; i++) {
		g.value = pp_int(p, *(int64_t *)vals.items[i], DT_INDEX, pos_of(&name));
		bool keep = true;
		for (int k = 0; k < nconds && keep; k++) {
			mark_goto(p, ((Mark **)(void *)conds)[k]);
			SrcPos cp = pos_of(peek(p));
			Expr *c = pp_expr(p);
			double v;
			if (!pp_const_value(c, &v))
				pp_error(p, cp.line, cp.col, "'%s' deps= comprehension filter depends on an IR variable; cannot "
					 "unroll at parse time", d->who);
			keep = v != 0;
		}
		if (!keep)
			continue;
		mark_goto(p, &elt);
		dep_entry(p, d);
		if (!tok_is_name(peek(p), "for"))
			PERR_AT(p, peek(p), "expected 'for' in the deps= comprehension");
	}
	mark_goto(p, &end);
	pmap_put(&p->bind, name.text, saved_bind);
	pmap_put(&p->globals, name.text, saved_global);
	vec_release(&vals);
	vec_release(&marks);
	p->comprehension--;
}

/* Queue `_submit_deps_buf = ...` statements building the array of the
 * entries; the last one's Var. */
static Var *deps_buffer(Parser *p, Expr **entries, int n, SrcPos at)
{
	const char *name = intern_cstr(p->a, "_submit_deps_buf");
	Expr *create = ir_expr_new(p->a, EX_OP_CALL, at);
	create->str = intern_cstr(p->a, "array.create");
	create->nargs = 2;
	create->args = arena_alloc(p->a, 3 * sizeof *create->args);
	create->args[0] = pp_int(p, n, DT_INDEX, at);
	create->args[1] = pp_str(p, EX_SYMBOL, intern_cstr(p->a, "pl.TASK_ID"), at);
	Expr *value = sugar_lower_call(&p->sugar, create);
	if (!value)
		longjmp(p->fail, 1);
	Var *buf = NULL;
	for (int i = 0; i <= n; i++) {
		if (i) {
			Expr *args[3] = { ir_var_ref(p->a, buf), pp_int(p, i - 1, DT_INDEX, at), entries[i - 1] };
			value = pp_op(p, "array.update_element", args, 3, at);
		}
		Stmt *s = ir_stmt_new(p->a, ST_ASSIGN, at);
		buf = s->var = pp_new_var(p, name, ir_expr_type(value), VK_VAR, at);
		s->value = value;
		vec_push(&p->pre, s);
	}
	p->pre_takes_comments = true;
	return buf;
}

Var **pp_deps(Parser *p, const char *who, int *n)
{
	const Token *t = peek(p);
	SrcPos at = pos_of(t);
	DepList d = { .who = who, .entries = ARENA_VEC(p->a) };
	if (at_comprehension(p)) {
		dep_comprehension(p, &d);
	} else if (tok_is_op(t, "[") || tok_is_op(t, "(")) {
		const char *close = tok_is_op(t, "[") ? "]" : ")";
		skip(p);
		while (!at_op(p, close)) {
			if (at_comprehension(p))
				dep_comprehension(p, &d);
			else
				dep_entry(p, &d);
			if (!accept_op(p, ","))
				break;
		}
		expect_op(p, close);
	} else {
		pp_error(p, at.line, at.col, "'%s' deps= must be a list / tuple / comprehension of TaskId values", who);
	}
	int ne;
	Expr **entries = (Expr **)vec_finish(p->a, &d.entries, &ne);
	if (!d.needs_desugar || !ne) {
		Var **vars = arena_alloc(p->a, (size_t)(ne + 1) * sizeof *vars);
		for (int i = 0; i < ne; i++)
			vars[i] = entries[i]->var;
		*n = ne;
		return vars;
	}
	Var **vars = arena_alloc(p->a, sizeof *vars);
	vars[0] = deps_buffer(p, entries, ne, at);
	*n = 1;
	return vars;
}
