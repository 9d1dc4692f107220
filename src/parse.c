/* parse.c - recursive-descent parser: tokens (lex.c) -> IR (ir.h).
 *
 * The driver: errors and the token readers the other files share, the
 * file prologue (imports, pl.dynamic declarations, module constants),
 * @pl.program classes and @pl.function headers and bodies, the header
 * pre-scan, and resolving self.f(...) calls at the end.  Statements are
 * parse_stmt.c's, expressions parse_expr.c's; parse_int.h lists the files
 * and what they share.
 */
#include "ptoopt/parse.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/lex.h"
#include "ptoopt/op_registry.h"
#include "ptoopt/strbuf.h"
#include "ptoopt/sugar.h"
#include "ptoopt/suggest.h"
#include "parse_int.h"

static const char *const nm_spellings[NM_COUNT] = {
	"for", "if", "while", "with", "elif", "else",
	"def", "class", "import", "lambda", "try", "del", "global", "assert",
	"raise", "yield", "async", "from",
	"const", "cast", "submit", "spmd_submit", "not",
};

void pp_error(Parser *p, int line, int col, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	diag_error(p->diag, line, col, "%s", buf);
	longjmp(p->fail, 1);
}

/* ------------------------------------------------------------ tokens
 * (the small, hot readers are inline in parse_int.h) */
const char *pp_describe(const Token *t)
{
	static char buf[96];
	switch (t->kind) {
	case TK_EOF: return "end of file";
	case TK_NEWLINE: return "end of line";
	case TK_INDENT: return "an indented block";
	case TK_DEDENT: return "the end of the block";
	case TK_INT: case TK_FLOAT: return "a number";
	case TK_STRING: return "a string";
	case TK_NAME: snprintf(buf, sizeof buf, "'%.60s'", t->text); return buf;
	case TK_OP: snprintf(buf, sizeof buf, "'%s'", t->text); return buf;
	}
	return "?";
}

const char *pp_did_you_mean(Parser *p, const char *word, const char *const *cands, const char *prefix)
{
	Suggest s;
	suggest_init(&s, word);
	for (int i = 0; cands[i]; i++)
		suggest_offer(&s, cands[i]);
	return s.best ? arena_printf(p->a, "; did you mean '%s%s'?", prefix, s.best) : "";
}

void pp_expected_op(Parser *p, const char *op)
{
	const Token *t = peek(p);
	PERR_AT(p, t, "expected '%s', found %s", op, pp_describe(t));
}

void pp_expected_kind(Parser *p, const char *what)
{
	const Token *t = peek(p);
	PERR_AT(p, t, "expected %s, found %s", what, pp_describe(t));
}

static void expect_kind(Parser *p, TokKind k, const char *what)
{
	if (peek(p)->kind != k)
		pp_expected_kind(p, what);
	skip(p);
}

void pp_expect_newline(Parser *p)
{
	expect_kind(p, TK_NEWLINE, "end of line");
}

/* dotted_after once the current token t is the prefix */
const char *pp_dotted_tail(Parser *p, const Token *t)
{
	/* Fast path: `pl.tile.load(` is one span of the source; intern it
	 * (through the lexer's cache of recent names) instead of lexing and
	 * joining its names.  The lexer need not even read the `.`. */
	int line = t->line;
	const char *d = lex_take_dotted(&p->lx);
	if (d) {
		p->last_line = line;
		return d;
	}
	if (!tok_is_op(peek_at(p, 1), "."))
		return NULL;
	skip(p);
	char buf[256];
	size_t n = 0;
	do {
		skip(p); /* '.' */
		Token nt = expect_name(p, "a name after '.'");
		size_t l = strlen(nt.text);
		if (n + l + 2 >= sizeof buf)
			PERR_AT(p, &nt, "dotted name too long");
		if (n)
			buf[n++] = '.';
		memcpy(buf + n, nt.text, l);
		n += l;
	} while (at_op(p, "."));
	return intern(p->a, buf, n);
}

bool pp_bool_kw(Parser *p)
{
	const Token *t = peek(p);
	if (tok_is_name(t, "True") || tok_is_name(t, "False")) {
		skip(p);
		return t->text[0] == 'T';
	}
	PERR_AT(p, t, "expected True or False, found %s", pp_describe(t));
}

const char *pp_string_kw(Parser *p)
{
	const Token *t = peek(p);
	if (t->kind != TK_STRING)
		PERR_AT(p, t, "expected a string, found %s", pp_describe(t));
	Token s = next(p);
	return intern(p->a, s.text, s.slen);
}

/* ------------------------------------------------------------ functions */

/* A line of Python as ast.unparse writes its string literals: a plain
 * "..." without quotes or escapes inside becomes '...'. */
static void add_unparsed_line(StrBuf *b, const char *s, const char *r)
{
	while (s < r) {
		char c = *s;
		if (c == '\'') { /* copy a '...' literal as it is */
			const char *e = s + 1;
			while (e < r && *e != '\'')
				e += *e == '\\' && e + 1 < r ? 2 : 1;
			e = e < r ? e + 1 : r;
			sb_add(b, s, (size_t)(e - s));
			s = e;
			continue;
		}
		if (c == '"' && !(s + 2 < r && s[1] == '"' && s[2] == '"')) {
			const char *e = s + 1;
			bool plain = true;
			while (e < r && *e != '"') {
				if (*e == '\\' || *e == '\'')
					plain = false;
				e += *e == '\\' && e + 1 < r ? 2 : 1;
			}
			if (e < r && plain) {
				sb_addc(b, '\'');
				sb_add(b, s + 1, (size_t)(e - s - 1));
				sb_addc(b, '\'');
				s = e + 1;
				continue;
			}
			e = e < r ? e + 1 : r;
			sb_add(b, s, (size_t)(e - s));
			s = e;
			continue;
		}
		sb_addc(b, c);
		s++;
	}
}

/* The first `return` with values of a block, in pre-order (NULL: none). */
static const Stmt *first_value_return(const Block *b, int depth)
{
	if (depth > 200)
		return NULL;
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (s->kind == ST_RETURN && s->nvalues)
			return s;
		if (ir_stmt_is_simple(s->kind))
			continue;
		const Stmt *r = first_value_return(&s->body, depth + 1);
		if (!r)
			r = first_value_return(&s->orelse, depth + 1);
		if (r)
			return r;
	}
	return NULL;
}

/* The source of the body at the cursor, up to the end of its block, as the
 * reference keeps a HOST-level SubWorker's: its statements' lines without
 * the body's indentation, blank and comment-only lines left out.  The
 * tokens are consumed (the DEDENT ending the body is not). */
static const char *verbatim_body(Parser *p)
{
	const Token *t0 = peek(p);
	int first_line = t0->line, col = t0->col - 1;
	const char *q = t0->src;
	while (q > p->src && q[-1] != '\n')
		q--;
	int depth = 0;
	for (;;) {
		const Token *t = peek(p);
		if (t->kind == TK_EOF || (t->kind == TK_DEDENT && depth == 0))
			break;
		depth += t->kind == TK_INDENT ? 1 : t->kind == TK_DEDENT ? -1 : 0;
		skip(p);
	}
	int last_line = p->last_line;
	StrBuf b = { 0 };
	const char *end = p->src + p->len;
	for (int line = first_line; line <= last_line && q < end; line++) {
		const char *e = q;
		while (e < end && *e != '\n')
			e++;
		const char *r = e;
		if (r > q && r[-1] == '\r')
			r--;
		const char *s = q;
		int k = 0;
		while (s < r && *s == ' ' && k < col)
			s++, k++;
		/* a trailing comment goes (the reference re-prints the statements) */
		for (size_t i = p->lx.comment_head; i < p->lx.ncomments; i++) {
			const Comment *c = &p->lx.comments[i];
			if (c->line > line)
				break;
			if (c->line == line && c->col >= 1 && q + c->col - 1 < r && q + c->col - 1 >= s) {
				r = q + c->col - 1;
				while (r > s && (r[-1] == ' ' || r[-1] == '\t'))
					r--;
				break;
			}
		}
		const char *nb = s;
		while (nb < r && (*nb == ' ' || *nb == '\t'))
			nb++;
		if (nb < r && *nb != '#') {
			if (b.len)
				sb_addc(&b, '\n');
			add_unparsed_line(&b, s, r);
		}
		q = e < end ? e + 1 : e;
	}
	const char *text = arena_strndup(p->a, b.data ? b.data : "", b.len);
	sb_release(&b);
	return text;
}

/* Is the token at k the start of a statement pl.func_attr(...)? */
static bool at_func_attr(Parser *p, int k)
{
	return tok_is_name(peek_at(p, k), "pl") && tok_is_op(peek_at(p, k + 1), ".") &&
	       tok_is_name(peek_at(p, k + 2), "func_attr") && tok_is_op(peek_at(p, k + 3), "(");
}

/* One pl.func_attr({"key": value, ...}) line of a function's prologue:
 * its keys added to (keys, vals), as the reference's
 * _merge_func_attr_directive checks them. */
static void func_attr_directive(Parser *p, const char *fname, PtrVec *keys, PtrVec *vals)
{
	Token at = *peek(p);
	dotted_after(p, "pl");
	expect_op(p, "(");
	const Token *a = peek(p);
	if (tok_is_op(a, ")") || (a->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=")))
		PERR_AT(p, &at, "pl.func_attr() takes exactly one positional dict argument (no keywords)");
	if (!tok_is_op(a, "{"))
		PERR_AT(p, a, "pl.func_attr() argument must be a dict literal");
	Expr *dict = pp_dict(p);
	if (accept_op(p, ",") && !at_op(p, ")"))
		PERR_AT(p, &at, "pl.func_attr() takes exactly one positional dict argument (no keywords)");
	expect_op(p, ")");
	pp_expect_newline(p);
	size_t before = keys->len;
	for (int i = 0; i < dict->nkw; i++) {
		const char *k = dict->kw[i].name;
		for (size_t j = before; j < keys->len; j++)
			if (keys->items[j] == k)
				PERR_AT(p, &at, "Duplicate function attribute '%s' in pl.func_attr({...})", k);
		if (!strcmp(k, "auto_scope") || !strcmp(k, "external_source"))
			PERR_AT(p, &at, "'%s' cannot be set with pl.func_attr()", k);
		for (size_t j = 0; j < before; j++)
			if (keys->items[j] == k)
				PERR_AT(p, &at, "Duplicate function attribute '%s' in function '%s'. Each attribute may be declared only once.", k, fname);
		vec_push(keys, (void *)k);
		vec_push(vals, dict->kw[i].value);
	}
}

static Function *parse_function(Parser *p, bool in_program)
{
	/* decorator */
	Token at = expect_op_tok(p, "@");
	const Token *dt = peek(p);
	const char *d = dotted_after(p, "pl");
	if (!d)
		PERR_AT(p, dt, "expected @pl.function");
	if (strcmp(d, "function")) {
		static const char *const program[] = { "program", NULL }; /* a misspelt one in its place */
		PERR_AT(p, dt, "expected @pl.function, found '@pl.%s'%s", d, pp_did_you_mean(p, d, program, "@pl."));
	}
	Function *f = arena_alloc(p->a, sizeof *f);
	f->pos = pos_of(&at);
	f->type = FT_OPAQUE;
	f->level = LV_NONE;
	f->role = RL_NONE;
	f->auto_scope = true;
	bool explicit_level = false, explicit_role = false;
	PtrVec attrk = ARENA_VEC(p->a), attrv = ARENA_VEC(p->a);
	Expr *deco_attrs = NULL;
	if (accept_op(p, "(")) {
		while (!at_op(p, ")")) {
			Token k = expect_name(p, "a keyword argument of @pl.function");
			expect_op(p, "=");
			if (!strcmp(k.text, "type")) {
				f->type = (FuncType)pp_enum(p, "FunctionType", ir_functype_parse, "a pl.FunctionType value");
			} else if (!strcmp(k.text, "level")) {
				f->level = (Level)pp_enum(p, "Level", ir_level_parse, "a pl.Level value");
				explicit_level = true;
			} else if (!strcmp(k.text, "role")) {
				f->role = (Role)pp_enum(p, "Role", ir_role_parse, "a pl.Role value");
				explicit_role = true;
			} else if (!strcmp(k.text, "auto_scope")) {
				f->auto_scope = pp_bool_kw(p);
			} else if (!strcmp(k.text, "strict_ssa")) {
				f->strict_ssa = pp_bool_kw(p);
			} else if (!strcmp(k.text, "external_source")) {
				f->external_source = pp_string_kw(p);
			} else if (!strcmp(k.text, "attrs")) {
				deco_attrs = pp_dict(p);
			} else {
				PERR_AT(p, &k, "unknown keyword argument '%s' of @pl.function (expected type, level, role, auto_scope, strict_ssa, external_source or attrs)", k.text);
			}
			if (!accept_op(p, ","))
				break;
		}
		expect_op(p, ")");
	}
	pp_expect_newline(p);
	p->fn_level = explicit_level ? f->level : LV_NONE;
	Level dl = ir_default_level(f->type);
	Role dr = ir_default_role(f->type);
	if (dl != LV_NONE) {
		if (explicit_level && f->level != dl)
			pp_error(p, at.line, at.col, "level=pl.Level.%s does not match type=pl.FunctionType.%s (which implies pl.Level.%s)",
			     ir_level_name(f->level), ir_functype_name(f->type), ir_level_name(dl));
		f->level = dl;
	}
	if (dr != RL_NONE) {
		if (explicit_role && f->role != dr)
			pp_error(p, at.line, at.col, "role=pl.Role.%s does not match type=pl.FunctionType.%s (which implies pl.Role.%s)",
			     ir_role_name(f->role), ir_functype_name(f->type), ir_role_name(dr));
		f->role = dr;
	}
	const Token *dfn = peek(p);
	if (!tok_is_name(dfn, "def"))
		PERR_AT(p, dfn, "expected 'def' after the decorator, found %s", pp_describe(dfn));
	/* decorator-line and class-level comments belong to no statement */
	pp_drop_comments_before_line(p, dfn->line);
	skip(p);
	Token name = expect_name(p, "a function name");
	f->name = name.text;
	p->fn = f;
	pp_forget_names(p); /* the previous function's */
	p->scope_start = 0;
	/* inside a program only @pl.program(strict_ssa=...) counts (as in the reference) */
	if (in_program)
		f->strict_ssa = p->prog_strict;
	/* parameters */
	expect_op(p, "(");
	p->in_signature = true;
	PtrVec params = ARENA_VEC(p->a);
	bool first = true;
	while (!at_op(p, ")")) {
		Token pn = expect_name(p, "a parameter name");
		if (first && !strcmp(pn.text, "self") && !at_op(p, ":")) {
			if (in_program && f->role == RL_SUBWORKER && f->level >= LV_HOST)
				PERR_AT(p, &pn, "SubWorker function '%s' must not declare 'self': it is a self-contained function "
					"inside @pl.program; remove the 'self' parameter", f->name);
			first = false;
			if (!accept_op(p, ","))
				break;
			continue;
		}
		first = false;
		expect_op(p, ":");
		ParamDir dir = DIR_IN;
		Type *t;
		if (at_name(p, "pl") && tok_is_op(peek_at(p, 1), ".") &&
		    (tok_is_name(peek_at(p, 2), "Out") || tok_is_name(peek_at(p, 2), "InOut")) &&
		    tok_is_op(peek_at(p, 3), "[")) {
			skip(p);
			skip(p);
			Token w = next(p);
			dir = w.text[0] == 'O' ? DIR_OUT : DIR_INOUT;
			expect_op(p, "[");
			t = pp_type(p);
			expect_op(p, "]");
		} else {
			t = pp_type(p);
		}
		if (t->kind == TY_PTR) {
			vec_release(&params);
			PERR_AT(p, &pn, "pl.Ptr is not allowed as a parameter type");
		}
		if (pp_lookup(p, pn.text)) {
			vec_release(&params);
			PERR_AT(p, &pn, "duplicate parameter '%s'", pn.text);
		}
		Var *v = pp_new_var(p, pn.text, t, VK_VAR, pos_of(&pn));
		pp_bind(p, pn.text, v);
		Param *pp = arena_alloc(p->a, sizeof *pp);
		pp->var = v;
		pp->dir = dir;
		vec_push(&params, pp);
		if (!accept_op(p, ","))
			break;
	}
	if (!at_op(p, ")"))
		vec_release(&params);
	expect_op(p, ")");
	f->nparams = (int)params.len;
	f->params = arena_alloc(p->a, (params.len + 1) * sizeof *f->params);
	for (size_t i = 0; i < params.len; i++)
		f->params[i] = *(Param *)params.items[i];
	vec_release(&params);
	if (accept_op(p, "->")) {
		/* `tuple[...]` is several return values; pl.Tuple[...] one tuple value */
		bool several = at_name(p, "tuple");
		Type *rt = pp_type(p);
		if (several) {
			f->rets = rt->elems;
			f->nrets = rt->nelems;
		} else {
			f->rets = arena_alloc(p->a, sizeof *f->rets);
			f->rets[0] = rt;
			f->nrets = 1;
		}
	}
	p->in_signature = false;
	expect_op(p, ":");
	pp_expect_newline(p);
	FnSig *sig = arena_alloc(p->a, sizeof *sig);
	sig->rets = f->rets;
	sig->nrets = f->nrets;
	sig->params = f->params;
	sig->nparams = f->nparams;
	/* the pre-scan leaves the main parse's signatures alone: they may hold
	 * return types derived from a body */
	if (!p->headers_only || !pmap_get(p->sigs, f->name))
		pmap_put(p->sigs, f->name, sig);
	if (p->headers_only) {
		/* the pre-scan wants signatures only: skip the indented body */
		int depth = 0;
		do {
			Token bt = next(p);
			depth += bt.kind == TK_INDENT ? 1 : bt.kind == TK_DEDENT ? -1 : 0;
			if (bt.kind == TK_EOF)
				break;
		} while (depth > 0);
		return f;
	}
	/* body */
	const Token *t = peek(p);
	if (t->kind != TK_INDENT)
		PERR_AT(p, t, "expected an indented function body, found %s", pp_describe(t));
	Token ind = next(p);
	PtrVec out = ARENA_VEC(p->a);
	/* the decorator's attrs=, then the pl.func_attr({...}) prologue's, in
	 * that order (the reference's builder: begin_function, then each
	 * directive); a key may be given once */
	if (deco_attrs)
		for (int i = 0; i < deco_attrs->nkw; i++) {
			vec_push(&attrk, (void *)deco_attrs->kw[i].name);
			vec_push(&attrv, deco_attrs->kw[i].value);
		}
	/* a leading docstring is not a statement: a prologue may follow it
	 * (its lines still go, as comments, to the body's first statement) */
	Token doc = { 0 };
	if (peek(p)->kind == TK_STRING && peek_at(p, 1)->kind == TK_NEWLINE && at_func_attr(p, 2)) {
		doc = next(p);
		skip(p);
	}
	while (at_func_attr(p, 0))
		func_attr_directive(p, f->name, &attrk, &attrv);
	f->nattrs = (int)attrk.len;
	f->attrs = arena_alloc(p->a, (attrk.len + 1) * sizeof *f->attrs);
	for (size_t i = 0; i < attrk.len; i++)
		f->attrs[i] = (Kwarg){ attrk.items[i], attrv.items[i] };
	vec_release(&attrk);
	vec_release(&attrv);
	if (at_op(p, "...") && peek_at(p, 1)->kind == TK_NEWLINE) {
		/* `...`: a runtime-bound HOST-level SubWorker, or an external kernel */
		Token el = *peek(p);
		bool host = f->level >= LV_HOST && f->role == RL_SUBWORKER;
		if (!host && !f->external_source)
			PERR_AT(p, &el, "Unsupported constant type: a function body of '...' is only allowed for HOST-level SubWorker functions or with external_source=");
		skip(p);
		skip(p);
		f->abstract = host;
	}
	if (!f->abstract && f->level >= LV_HOST && f->role == RL_SUBWORKER && !p->headers_only) {
		/* a HOST-level SubWorker's body is pure Python, kept verbatim */
		f->inline_body = verbatim_body(p);
		if (peek(p)->kind == TK_DEDENT)
			skip(p);
		p->carried.len = 0;
		pp_drop_comments_before_line(p, peek(p)->line + (peek(p)->kind == TK_EOF));
		p->fn = NULL;
		return f;
	}
	p->carried.len = 0;
	if (doc.kind == TK_STRING)
		pp_docstring_lines(p, doc.text, doc.slen);
	bool first_stmt = true;
	while (peek(p)->kind != TK_DEDENT && peek(p)->kind != TK_EOF) {
		if (at_func_attr(p, 0))
			PERR_AT(p, peek(p), "pl.func_attr() must appear before every other statement in '%s'", f->name);
		pp_stmt(p, &out, first_stmt);
		first_stmt = false;
	}
	(void)ind;
	if (peek(p)->kind == TK_DEDENT)
		skip(p);
	p->carried.len = 0;
	f->body.stmts = (Stmt **)vec_finish(p->a, &out, &f->body.n);
	if (!f->nrets && !sig->call_type && !sig->submit_type) {
		/* no `->`: calls take the types of the body's first return of values */
		const Stmt *r = first_value_return(&f->body, 0);
		bool typed = r != NULL;
		for (int i = 0; r && i < r->nvalues; i++) {
			Type *rt = ir_expr_type(r->values[i]);
			typed &= rt && rt->kind != TY_UNKNOWN;
		}
		if (typed) {
			sig->nrets = r->nvalues;
			sig->rets = arena_alloc(p->a, (size_t)r->nvalues * sizeof *sig->rets);
			for (int i = 0; i < r->nvalues; i++)
				sig->rets[i] = ir_expr_type(r->values[i]);
		}
	}
	/* comments after the function's last statement are dropped */
	pp_drop_comments_before_line(p, peek(p)->line + (peek(p)->kind == TK_EOF));
	p->fn = NULL;
	return f;
}

/* ------------------------------------------------------------ module level */

static bool at_import(Parser *p) { return at_name(p, "import") || at_name(p, "from"); }

static void parse_import(Parser *p)
{
	Token t = next(p);
	/* import pypto.language as pl | import pypto.language.distributed as pld |
	 * from pypto import language as pl */
	char buf[256];
	size_t n = 0;
	buf[0] = 0;
	while (peek(p)->kind != TK_NEWLINE && peek(p)->kind != TK_EOF) {
		Token x = next(p);
		const char *s = x.kind == TK_NAME || x.kind == TK_OP ? x.text : "?";
		size_t l = strlen(s);
		if (n + l + 2 < sizeof buf) {
			if (n && x.kind == TK_NAME && buf[n - 1] != '.')
				buf[n++] = ' ';
			memcpy(buf + n, s, l);
			n += l;
			buf[n] = 0;
		}
	}
	static const char *const ok[] = {
		"pypto.language as pl", "pypto.language.distributed as pld",
		"pypto import language as pl", "pypto.language.distributed as pld",
		"pypto import language", "pypto.language", "pypto", NULL,
	};
	bool good = false;
	for (int i = 0; ok[i]; i++)
		good |= strcmp(buf, ok[i]) == 0;
	if (!good && !(t.text[0] == 'f' && strncmp(buf, "pypto", 5) == 0))
		PERR_AT(p, &t, "unsupported import (expected 'import pypto.language as pl')");
	pp_expect_newline(p);
}

/* NAME = pl.dynamic("NAME")  |  NAME = <constant expression> */
static void parse_module_assign(Parser *p)
{
	Token nt = next(p);
	expect_op(p, "=");
	if (at_name(p, "pl") && tok_is_op(peek_at(p, 1), ".") && tok_is_name(peek_at(p, 2), "dynamic")) {
		dotted_after(p, "pl");
		expect_op(p, "(");
		const char *s = pp_string_kw(p);
		accept_op(p, ",");
		expect_op(p, ")");
		pp_expect_newline(p);
		Global *g = arena_alloc(p->a, sizeof *g);
		g->dyn = pp_new_var(p, s, ir_scalar_type(p->a, DT_INDEX), VK_DYN, pos_of(&nt));
		pmap_put(&p->globals, nt.text, g);
		return;
	}
	/* constants: evaluated now, inlined at each use */
	Function dummy = { 0 };
	p->fn = &dummy;
	p->module_level = true;
	Expr *e = pp_expr(p);
	p->module_level = false;
	p->fn = NULL;
	if (e->kind != EX_INT && e->kind != EX_FLOAT && e->kind != EX_BOOL && e->kind != EX_STR)
		PERR_AT(p, &nt, "module-level '%s' must be pl.dynamic(\"...\") or a constant", nt.text);
	pp_expect_newline(p);
	Global *g = arena_alloc(p->a, sizeof *g);
	g->value = e;
	pmap_put(&p->globals, nt.text, g);
}

static void resolve_calls(Parser *p)
{
	for (size_t i = 0; i < p->fn_calls.len; i++) {
		Expr *e = p->fn_calls.items[i];
		Function *f = ir_find_function(p->prog, e->str);
		if (!f)
			pp_error(p, e->pos.line, e->pos.col, "call to undefined function 'self.%s'", e->str);
		if (!e->type && e->kind == EX_FN_CALL) {
			if (f->nrets == 1) {
				e->type = f->rets[0];
			} else if (f->nrets > 1) {
				Type *t = ir_type_new(p->a, TY_TUPLE);
				t->elems = f->rets;
				t->nelems = f->nrets;
				e->type = t;
			}
		}
	}
}

/* What every Parser owns (the main one also owns globals, fn_names and
 * own_sigs, which a prescan parser only borrows). */
static void parser_release(Parser *p)
{
	lex_release(&p->lx);
	pmap_release(&p->bind);
	pmap_release(&p->memref_bases);
	vec_release(&p->dump_tagged);
	pmap_release(&p->yield_lhs);
	free(p->undo);
	vec_release(&p->carried);
	vec_release(&p->pre);
	vec_release(&p->fn_calls);
	htab_release(&p->types);
	free(p->ann.slots);
	free(p->lists.slots);
	pmap_release(&p->enum_cache);
	sb_release(&p->static_line);
	if (p->outer_lx) { /* an f-string placeholder's read failed */
		lex_release(p->outer_lx);
		free(p->outer_lx);
	}
	pmap_release(&p->for_scopes);
	pmap_release(&p->symbols);
	htab_release(&p->leaves);
	sugar_release(&p->sugar);
	pp_inline_release(p);
}

/* Read every function header of the file with a second, silent parser
 * sharing the module-level names, so calls to functions defined later get
 * their types.  Errors are left for the main parse to report in order. */
void pp_prescan(Parser *p)
{
	p->prescanned = true;
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return;
	Diag quiet = *p->diag;
	quiet.out = null;
	Parser *q = xmalloc(sizeof *q);
	memset(q, 0, sizeof *q);
	q->a = p->a;
	q->diag = &quiet;
	q->prog = p->prog;
	q->globals = p->globals; /* read only: the prescan never parses module statements */
	q->sigs = p->sigs;
	q->inline_dyns = p->inline_dyns;
	q->headers_only = q->prescanned = true;
	memcpy(q->nm, p->nm, sizeof q->nm);
	memcpy(q->kw, p->kw, sizeof q->kw);
	sugar_init(&q->sugar, p->a, &quiet, p->sugar.reg);
	lex_init(&q->lx, p->a, &quiet, &q->fail, p->src, p->len);
	if (p->jump_lines)
		lex_set_jump(&q->lx, p->src + p->jump_off, p->jump_lines);
	if (setjmp(q->fail) == 0) {
		while (peek(q)->kind != TK_EOF) {
			if (tok_is_op(peek(q), "@") && tok_is_name(peek_at(q, 1), "pl") && tok_is_name(peek_at(q, 3), "function"))
				parse_function(q, true);
			else
				next(q);
		}
	}
	parser_release(q);
	free(q);
	fclose(null);
}

Program *parse_program(Arena *a, Diag *d, const char *src, size_t len)
{
	return parse_program_jump(a, d, src, len, 0, 0);
}

Program *parse_program_jump(Arena *a, Diag *d, const char *src, size_t len, size_t jump_off, int jump_lines)
{
	Parser *p = xmalloc(sizeof *p);
	memset(p, 0, sizeof *p);
	p->jump_off = jump_off;
	p->jump_lines = jump_lines;
	p->a = a;
	p->diag = d;
	for (int i = 0; i < NM_COUNT; i++)
		p->nm[i] = intern_cstr(a, nm_spellings[i]);
	pp_kw_init(p);
	Program *prog = arena_alloc(a, sizeof *prog);
	prog->arena = a;
	for (int i = 0; i < DT_COUNT; i++)
		ir_scalar_type(a, (DType)i); /* built now: pp_binary may roll the arena back */
	p->prog = prog;
	lex_init(&p->lx, a, d, &p->fail, src, len);
	if (jump_lines)
		lex_set_jump(&p->lx, src + jump_off, jump_lines);
	sugar_init(&p->sugar, a, d, ops_default());
	p->sigs = &p->own_sigs;
	p->inline_dyns = &p->own_inline_dyns;
	p->src = src;
	p->len = len;
	Program *result = NULL;
	if (setjmp(p->fail) == 0) {
		for (;;) {
			if (at_import(p)) {
				parse_import(p);
			} else if (peek(p)->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=")) {
				parse_module_assign(p);
			} else if (tok_is_op(peek(p), "@") && tok_is_name(peek_at(p, 1), "pl") &&
				   tok_is_name(peek_at(p, 3), "inline")) {
				pp_inline_def(p);
			} else if (peek(p)->kind == TK_STRING && peek_at(p, 1)->kind == TK_NEWLINE) {
				/* a module docstring: read, not printed (as the reference) */
				next(p);
				pp_expect_newline(p);
			} else {
				break;
			}
		}
		prog->module_var_ids = prog->next_var_id;
		const Token *t = peek(p);
		if (t->kind == TK_EOF)
			PERR_AT(p, t, "no @pl.program or @pl.function in the input");
		if (!tok_is_op(t, "@"))
			PERR_AT(p, t, "expected @pl.program or @pl.function, found %s", pp_describe(t));
		const Token *t1 = peek_at(p, 1), *t3 = peek_at(p, 3);
		(void)t1;
		PtrVec funcs = ARENA_VEC(p->a);
		if (tok_is_name(t3, "program")) {
			skip(p);
			dotted_after(p, "pl");
			if (accept_op(p, "(")) {
				while (!at_op(p, ")")) {
					Token k = expect_name(p, "strict_ssa=");
					if (strcmp(k.text, "strict_ssa"))
						PERR_AT(p, &k, "unknown keyword argument '%s' of @pl.program", k.text);
					expect_op(p, "=");
					p->prog_strict = pp_bool_kw(p);
					if (!accept_op(p, ","))
						break;
				}
				expect_op(p, ")");
			}
			pp_expect_newline(p);
			const Token *c = peek(p);
			if (!tok_is_name(c, "class"))
				PERR_AT(p, c, "expected 'class' after @pl.program, found %s", pp_describe(c));
			skip(p);
			Token cn = expect_name(p, "a class name");
			prog->name = cn.text;
			if (accept_op(p, "("))
				expect_op(p, ")");
			expect_op(p, ":");
			pp_expect_newline(p);
			expect_kind(p, TK_INDENT, "an indented class body");
			if (peek(p)->kind == TK_STRING && peek_at(p, 1)->kind == TK_NEWLINE) {
				skip(p);
				skip(p);
			}
			while (peek(p)->kind != TK_DEDENT && peek(p)->kind != TK_EOF) {
				const Token *ft = peek(p);
				if (!tok_is_op(ft, "@")) {
					vec_release(&funcs);
					PERR_AT(p, ft, "expected a @pl.function method in the program class, found %s", pp_describe(ft));
				}
				Function *f = parse_function(p, true);
				Function *dup = pmap_get(&p->fn_names, f->name);
				if (dup)
					pp_error(p, f->pos.line, f->pos.col, "Duplicate function name \"%s\" (first defined at line %d)",
					     f->name, dup->pos.line);
				pmap_put(&p->fn_names, f->name, f);
				vec_push(&funcs, f);
			}
			if (!funcs.len) /* (a class of only a docstring printed as an empty body) */
				pp_error(p, cn.line, cn.col, "Class '%s' contains no @pl.function decorated methods", cn.text);
			if (peek(p)->kind == TK_DEDENT)
				skip(p);
		} else {
			vec_push(&funcs, parse_function(p, false));
		}
		const Token *e = peek(p);
		if (e->kind != TK_EOF) {
			vec_release(&funcs);
			PERR_AT(p, e, "unexpected %s after the program", pp_describe(e));
		}
		prog->funcs = (Function **)vec_finish(a, &funcs, &prog->nfuncs);
		resolve_calls(p);
		result = prog;
	}
	if (!result)
		ir_program_release(prog);
	parser_release(p);
	pmap_release(&p->globals);
	pmap_release(&p->fn_names);
	pmap_release(&p->own_sigs);
	pmap_release(&p->own_inline_dyns);
	free(p);
	return result;
}

