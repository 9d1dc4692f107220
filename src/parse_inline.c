/* parse_inline.c - @pl.inline functions, expanded where they are called.
 *
 * A module-level `@pl.inline def f(a, b): ...` is no function of the
 * program: the reference's parser keeps its source and, at each call
 * `f(x, y)` in a function body, parses the body again in the caller's
 * place.  The parameters name the argument expressions (not new
 * variables), the body's statements go before the statement holding the
 * call, its `return v` (or `return a, b`, a tuple) is the call's value,
 * and the variables the body defines stay visible to the caller under
 * their own names.  Comments inside the body are dropped, as the reference
 * drops them.
 *
 * One difference from the reference, whose inline scope hands the
 * parameter names to the caller as well: after the call, `a` and `b` mean
 * what they meant before it (in the reference they go on naming the
 * argument expressions, shadowing the caller's own variables).
 *
 * Here the definition is recorded as its source text and skipped; a call
 * parses that text with a lexer of its own, the caller's lexer put aside
 * meanwhile. */
#include <stdlib.h>
#include <string.h>

#include "parse_int.h"

/* How deeply inline bodies may call inline functions (a body calling its
 * own function would expand for ever). */
#define INLINE_MAX_DEPTH 32

typedef struct InlineDef {
	const char *name;
	const char **params; int nparams;
	const char *src;  /* from the start of the `def` line ... */
	size_t len;       /* ... to the end of the body */
	int line;         /* of the `def` line */
} InlineDef;

/* Skip tokens up to the `to` operator at bracket depth 0 (not consumed). */
static void skip_to_op(Parser *p, const char *to)
{
	int depth = 0;
	for (;;) {
		const Token *t = peek(p);
		if (t->kind == TK_EOF || (t->kind == TK_NEWLINE && !depth))
			PERR_AT(p, t, "expected '%s' in the @pl.inline function's header, found %s", to, pp_describe(t));
		if (!depth && tok_is_op(t, to))
			return;
		depth += pp_bracket_step(t);
		skip(p);
	}
}

/* `def NAME(params) [-> T]:` NEWLINE: the header, read up to its body.  With
 * d, the name and parameter names are recorded. */
static void inline_header(Parser *p, InlineDef *d)
{
	const Token *t = peek(p);
	if (!tok_is_name(t, "def"))
		PERR_AT(p, t, "expected 'def' after @pl.inline, found %s", pp_describe(t));
	skip(p);
	Token name = expect_name(p, "a function name");
	expect_op(p, "(");
	PtrVec params = ARENA_VEC(p->a);
	while (!at_op(p, ")")) {
		Token pn = expect_name(p, "a parameter name");
		if (d)
			vec_push(&params, (void *)pn.text);
		if (accept_op(p, ":")) {
			int depth = 0;
			while (depth || !(at_op(p, ",") || at_op(p, ")"))) {
				const Token *x = peek(p);
				if (x->kind == TK_EOF || x->kind == TK_NEWLINE)
					PERR_AT(p, x, "unexpected %s in a parameter annotation", pp_describe(x));
				depth += pp_bracket_step(x);
				skip(p);
			}
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	skip_to_op(p, ":");
	skip(p);
	pp_expect_newline(p);
	if (d) {
		d->name = name.text;
		d->params = (const char **)vec_finish(p->a, &params, &d->nparams);
	} else {
		vec_release(&params);
	}
}

void pp_inline_def(Parser *p)
{
	skip(p); /* @ */
	dotted_after(p, "pl");
	pp_expect_newline(p);
	const Token *def = peek(p);
	InlineDef *d = arena_alloc(p->a, sizeof *d);
	d->line = def->line;
	d->src = def->src - (def->col - 1);
	inline_header(p, d);
	const Token *t = peek(p);
	if (t->kind != TK_INDENT)
		PERR_AT(p, t, "expected an indented block, found %s", pp_describe(t));
	int depth = 0;
	do {
		t = peek(p);
		if (t->kind == TK_EOF)
			break;
		depth += t->kind == TK_INDENT;
		depth -= t->kind == TK_DEDENT;
		skip(p);
	} while (depth > 0);
	/* up to where the next line starts (the lexer stands on it) */
	const char *end = peek(p)->kind == TK_EOF ? p->src + p->len : peek(p)->src;
	while (end > d->src && end[-1] != '\n')
		end--;
	d->len = (size_t)(end - d->src);
	pmap_put(&p->inlines, d->name, d);
}

bool pp_at_inline_call(Parser *p)
{
	const Token *t = peek(p);
	return p->inlines.len && t->kind == TK_NAME && tok_is_op(peek_at(p, 1), "(") && pmap_get(&p->inlines, t->text);
}

Expr *pp_inline_call(Parser *p)
{
	Token nt = next(p);
	InlineDef *d = pmap_get(&p->inlines, nt.text);
	expect_op(p, "(");
	PtrVec args = ARENA_VEC(p->a);
	while (!at_op(p, ")")) {
		if (peek(p)->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=") && !tok_is_op(peek_at(p, 2), "="))
			pp_error(p, nt.line, nt.col, "Function '%s' does not accept keyword argument '%s'", d->name,
				 peek(p)->text);
		vec_push(&args, pp_expr(p));
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	if ((int)args.len != d->nparams)
		pp_error(p, nt.line, nt.col, "Inline function '%s' expects %d argument(s), got %d", d->name, d->nparams,
			 (int)args.len);
	if (p->inline_depth >= INLINE_MAX_DEPTH)
		pp_error(p, nt.line, nt.col, "Inline function '%s' expands too deeply (%d inline calls nested: does it call itself?)",
			 d->name, INLINE_MAX_DEPTH);

	/* the parameters name the arguments */
	size_t first = p->nundo;
	for (int i = 0; i < d->nparams; i++)
		pp_bind_value(p, d->params[i], args.items[i]);
	vec_release(&args);

	/* the body, read by a lexer of its own */
	Lexer *saved = xmalloc(sizeof *saved);
	*saved = p->lx;
	vec_push(&p->inline_lexers, saved);
	int saved_last_line = p->last_line;
	size_t saved_carried = p->carried.len;
	lex_init(&p->lx, p->a, p->diag, &p->fail, d->src, d->len);
	p->lx.line = d->line;
	p->lx.drop_comments = true;
	Expr *saved_ret = p->inline_ret;
	bool saved_in = p->in_inline;
	p->inline_ret = NULL;
	p->in_inline = true;
	p->inline_depth++;
	inline_header(p, NULL);
	Block body;
	pp_block(p, &body, 0);
	for (int i = 0; i < body.n; i++)
		vec_push(&p->pre, body.stmts[i]);
	Expr *ret = p->inline_ret;
	p->inline_depth--;
	p->inline_ret = saved_ret;
	p->in_inline = saved_in;
	lex_release(&p->lx);
	p->lx = *saved;
	free(saved);
	p->inline_lexers.len--;
	p->last_line = saved_last_line;
	p->carried.len = saved_carried;

	/* the parameters are the caller's names again (a name the body bound
	 * anew keeps that binding, as the body's variables do) */
	for (int i = 0; i < d->nparams; i++) {
		Undo *u = &p->undo[first + (size_t)i];
		if (binding_of(p, u->name) == first + (size_t)i + 1)
			pmap_put(&p->bind, u->name, u->prev_idx);
	}
	if (!ret)
		pp_error(p, nt.line, nt.col, "Inline function '%s' has no return value", d->name);
	p->lit = false;
	return ret;
}

void pp_inline_release(Parser *p)
{
	/* an error inside a body leaves the callers' lexers put aside */
	for (size_t i = p->inline_lexers.len; i-- > 0;) {
		Lexer *l = p->inline_lexers.items[i];
		lex_release(l);
		free(l);
	}
	vec_release(&p->inline_lexers);
	pmap_release(&p->inlines);
}
