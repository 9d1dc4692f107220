/* parse_scope.c - scopes and their desugarings.
 *
 * `with pl.at(level, ...)` (InCore or Hierarchy), `pl.cluster()`,
 * `pl.spmd(n, ...)`, `pl.scope()` / `pl.manual_scope()` and their keyword
 * arguments (deps, dumps, optimizations, ...), `as tid` (a hidden task-id
 * placeholder before the scope); the loop forms `for i in pl.spmd(...)` and
 * `for i in pl.split_aiv(...)`, and the InCore carriers the reference's
 * parser synthesises around them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_int.h"
#include "ptoopt/print.h"
#include "ptoopt/ir_walk.h"

/* Var-name list `[a, b]` for deps= / no_dep_args= / dumps=. */
static Var **parse_var_list(Parser *p, int *n)
{
	const Token *t = peek(p);
	if (!tok_is_op(t, "["))
		PERR_AT(p, t, "expected a list of variables '[...]', found %s", pp_describe(t));
	skip(p);
	PtrVec v = ARENA_VEC(p->a);
	while (!at_op(p, "]")) {
		const Token *nt = peek(p);
		if (nt->kind != TK_NAME) {
			vec_release(&v);
			PERR_AT(p, nt, "expected a variable name, found %s", pp_describe(nt));
		}
		Expr *e = pp_name_ref(p);
		if (e->kind != EX_VAR) {
			vec_release(&v);
			PERR_AT(p, nt, "'%s' is not a variable", nt->text);
		}
		vec_push(&v, e->var);
		if (!accept_op(p, ","))
			break;
	}
	if (!at_op(p, "]"))
		vec_release(&v);
	expect_op(p, "]");
	return (Var **)vec_finish(p->a, &v, n);
}

/* optimizations=[pl.split(pl.SplitMode.X), pl.cross_core_slot(slot_num=N)] */
static void parse_optimizations(Parser *p, Scope *sc)
{
	expect_op(p, "[");
	while (!at_op(p, "]")) {
		const Token *t = peek(p);
		Token ft = *t;
		const char *d = dotted_after(p, "pl");
		if (d && strcmp(d, "split") == 0) {
			expect_op(p, "(");
			if (at_name(p, "mode")) {
				skip(p);
				expect_op(p, "=");
			}
			sc->split = (SplitMode)pp_enum(p, "SplitMode", ir_split_parse, "a pl.SplitMode value");
			p->split_written = true;
			accept_op(p, ",");
			expect_op(p, ")");
		} else if (d && strcmp(d, "cross_core_slot") == 0) {
			expect_op(p, "(");
			Token k = expect_name(p, "slot_num");
			if (strcmp(k.text, "slot_num") != 0)
				PERR_AT(p, &k, "expected slot_num=");
			expect_op(p, "=");
			sc->slot_num = pp_expr(p);
			accept_op(p, ",");
			expect_op(p, ")");
		} else {
			PERR_AT(p, &ft, "unknown optimization (expected pl.split(...) or pl.cross_core_slot(...))");
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, "]");
}

/* Keyword arguments shared by pl.at / pl.spmd / pl.cluster headers
 * (for_itt: the iterator of a `for ... in pl.spmd(...)`, which takes no
 * deps=; NULL for a with-scope). */
static void parse_scope_kwargs(Parser *p, Scope *sc, bool first_done, const Token *for_itt)
{
	bool need_comma = first_done;
	while (!at_op(p, ")")) {
		if (need_comma) {
			expect_op(p, ",");
			if (at_op(p, ")"))
				break;
		}
		need_comma = true;
		Token k = expect_name(p, "a keyword argument");
		expect_op(p, "=");
		const char *n = k.text;
		if (!strcmp(n, "name_hint")) {
			sc->name_hint = pp_string_kw(p);
		} else if (!strcmp(n, "optimizations") && (sc->kind == SC_INCORE || sc->kind == SC_SPMD ||
							    sc->kind == SC_HIERARCHY)) {
			parse_optimizations(p, sc);
		} else if (!strcmp(n, "deps") && sc->kind != SC_CLUSTER) {
			if (for_itt)
				PERR_AT(p, for_itt, "pl.spmd() does not accept 'deps=' here: a spmd loop is no task to depend on; "
					"use `with pl.spmd(n, deps=[...]) as tid:` or pl.spmd_submit(..., deps=[...])");
			sc->deps = pp_deps(p, sc->kind == SC_SPMD ? "pl.spmd()" : "pl.at()", &sc->ndeps);
			sc->has_deps = sc->ndeps > 0; /* deps=[] or [None]: no dependency */
		} else if (!strcmp(n, "no_dep_args") && sc->kind != SC_CLUSTER) {
			sc->no_dep_args = parse_var_list(p, &sc->nno_dep_args);
			sc->has_no_dep_args = true;
		} else if (!strcmp(n, "dumps") && sc->kind != SC_CLUSTER) {
			sc->dumps = parse_var_list(p, &sc->ndumps);
			sc->has_dumps = true;
		} else if (!strcmp(n, "allow_early_resolve") && sc->kind != SC_CLUSTER) {
			sc->allow_early_resolve = pp_bool_kw(p);
		} else if (!strcmp(n, "windowize") && (sc->kind == SC_INCORE || sc->kind == SC_HIERARCHY)) {
			sc->windowize = pp_bool_kw(p);
		} else if (!strcmp(n, "core_num") && sc->kind == SC_SPMD && !sc->core_num) {
			sc->core_num = pp_expr(p);
		} else if (!strcmp(n, "sync_start") && sc->kind == SC_SPMD) {
			sc->sync_start = pp_bool_kw(p);
		} else if (!strcmp(n, "predicate") && sc->kind == SC_SPMD) {
			sc->predicate = pp_expr(p);
		} else if (!strcmp(n, "level") && (sc->kind == SC_HIERARCHY || sc->kind == SC_INCORE)) {
			/* pl.at's: the kinds' keywords are the same until the level is known */
			if (sc->level != LV_NONE)
				PERR_AT(p, &k, "pl.at() got multiple values for argument 'level'");
			sc->level = (Level)pp_enum(p, "Level", ir_level_parse, "a pl.Level value");
			sc->kind = sc->level == LV_CORE_GROUP ? SC_INCORE : SC_HIERARCHY;
		} else if (!strcmp(n, "role") && (sc->kind == SC_HIERARCHY || sc->kind == SC_INCORE)) {
			sc->role = (Role)pp_enum(p, "Role", ir_role_parse, "a pl.Role value");
		} else {
			PERR_AT(p, &k, "unknown keyword argument '%s' for this scope", n);
		}
	}
	expect_op(p, ")");
}

/* pl.spmd(core_num, ...) with core_num positional or as a keyword */
static void spmd_args(Parser *p, Scope *sc, const Token *at, const Token *for_itt)
{
	bool kw = peek(p)->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=");
	if (!kw)
		sc->core_num = pp_expr(p);
	parse_scope_kwargs(p, sc, !kw, for_itt);
	if (!sc->core_num)
		PERR_AT(p, at, "pl.spmd() missing required argument 'core_num'");
}

static Stmt *scope_stmt(Parser *p, ScopeKind k, const Token *at)
{
	Stmt *s = ir_stmt_new(p->a, ST_SCOPE, pos_of(at));
	s->scope = arena_alloc(p->a, sizeof *s->scope);
	s->scope->kind = k;
	if (k == SC_SPLIT_AIV)
		p->prog->has_aiv_split = true;
	s->scope->level = LV_NONE;
	s->scope->role = RL_NONE;
	return s;
}

static Expr *op_call0(Parser *p, const char *op, Type *t)
{
	Expr *e = ir_expr_new(p->a, EX_OP_CALL, (SrcPos){ 0, 0 });
	e->str = intern_cstr(p->a, op);
	e->type = t;
	return e;
}

/* The spmd for-form name split: "q" -> spmd "q_spmd", incore "q". */
static void split_spmd_hint(Parser *p, Scope *spmd, Scope *incore)
{
	const char *h = spmd->name_hint;
	if (!h)
		return;
	size_t n = strlen(h);
	if (n >= 5 && strcmp(h + n - 5, "_spmd") == 0) {
		incore->name_hint = intern(p->a, h, n - 5);
	} else {
		incore->name_hint = h;
		spmd->name_hint = intern_cstr(p->a, arena_printf(p->a, "%s_spmd", h));
	}
}

/* The InCore scope (CORE_GROUP) the parser puts inside a pl.spmd scope sc:
 * it takes over sc's optimizations and the base of its name hint. */
static Stmt *spmd_carrier(Parser *p, Scope *sc, const Token *at)
{
	Stmt *inner = scope_stmt(p, SC_INCORE, at);
	inner->scope->level = LV_CORE_GROUP;
	inner->scope->split = sc->split;
	inner->scope->slot_num = sc->slot_num;
	sc->split = SPLIT_NONE;
	sc->slot_num = NULL;
	split_spmd_hint(p, sc, inner->scope);
	return inner;
}

/* pl.split_aiv(2, mode=pl.SplitMode.X): the reference's checks in its order
 * (loop keywords and optimizations= first, then the one positional n == 2,
 * then the keywords it does not know, then the required mode=). */
static void split_aiv_args(Parser *p, Scope *sc, const Token *itt)
{
	static const char *const loop_kws[] = { "init_values", "chunk", "chunk_policy", "attrs", "step", "stage", NULL };
	Token bad_loop = { 0 }, unknown = { 0 }, second = { 0 }, open = *itt;
	bool have_bad_loop = false, have_unknown = false, have_mode = false;
	int npos = 0;
	while (!at_op(p, ")")) {
		const Token *t = peek(p);
		if (t->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=")) {
			Token k = next(p);
			skip(p);
			bool loop = false;
			for (int i = 0; loop_kws[i]; i++)
				loop |= !strcmp(loop_kws[i], k.text);
			if (!strcmp(k.text, "mode")) {
				/* read where the reference reads it: after the checks above it */
				if (!have_bad_loop && npos == 1)
					sc->split = (SplitMode)pp_enum(p, "SplitMode", ir_split_parse, "a pl.SplitMode value");
				else
					pp_kwval(p);
				have_mode = true;
			} else {
				if ((loop || !strcmp(k.text, "optimizations")) && !have_bad_loop) {
					bad_loop = k;
					have_bad_loop = true;
				} else if (!loop && strcmp(k.text, "optimizations") && !have_unknown) {
					unknown = k;
					have_unknown = true;
				}
				pp_kwval(p);
			}
		} else {
			if (npos == 1)
				second = *t;
			Expr *e = pp_expr(p);
			if (npos++ == 0)
				sc->count = e;
		}
		if (!accept_op(p, ","))
			break;
	}
	expect_op(p, ")");
	if (have_bad_loop && !strcmp(bad_loop.text, "optimizations"))
		PERR_AT(p, &bad_loop, "pl.split_aiv() does not accept 'optimizations=' — pl.split_aiv() IS the split "
			"declaration; a co-present pl.split(...) is a conflicting split spec");
	if (have_bad_loop)
		PERR_AT(p, &bad_loop, "pl.split_aiv() loop form does not accept '%s='", bad_loop.text);
	if (npos != 1)
		PERR_AT(p, npos ? &second : &open,
			"pl.split_aiv() takes exactly one positional argument (n, the AIV sub-core count)");
	if (!(sc->count->kind == EX_INT && sc->count->ival == 2)) {
		StrBuf got = { 0 };
		print_expr_text(&got, sc->count);
		const char *g = intern_cstr(p->a, got.data ? got.data : "");
		sb_release(&got);
		PERR_AT(p, &open, "pl.split_aiv(n) requires n == 2 (AIV sub-core count is hardware-fixed at 2), got %s", g);
	}
	if (have_unknown)
		PERR_AT(p, &unknown, "pl.split_aiv() got unexpected keyword argument '%s'", unknown.text);
	if (!have_mode)
		PERR_AT(p, &open, "pl.split_aiv() requires mode= (e.g. mode=pl.SplitMode.NONE for task-parallel, or "
			"pl.SplitMode.UP_DOWN / pl.SplitMode.LEFT_RIGHT for data-parallel halving)");
}

void pp_scope_for(Parser *p, PtrVec *out, PtrVec *cm, const Token *ft, const Token *itt, const Token *loopvar,
		  const char *kind)
{
	bool spmd = strcmp(kind, "spmd") == 0;
	Stmt *s = scope_stmt(p, spmd ? SC_SPMD : SC_SPLIT_AIV, ft);
	Scope *sc = s->scope;
	pmap_put(&p->for_scopes, s, s);
	if (spmd) {
		spmd_args(p, sc, ft, itt);
	} else {
		split_aiv_args(p, sc, itt);
	}
	pp_header_end(p, s, cm);
	Var *iv = pp_new_var(p, loopvar->text, ir_scalar_type(p->a, DT_INDEX), VK_VAR, pos_of(loopvar));
	pp_bind(p, loopvar->text, iv);
	Stmt *def = ir_stmt_new(p->a, ST_ASSIGN, pos_of(loopvar));
	def->var = iv;
	def->value = op_call0(p, spmd ? "tile.get_block_idx" : "tile.get_subblock_idx", iv->type);
	Block body;
	int saved_ctx = p->loop_ctx;
	p->incore_depth += spmd;
	p->split_aiv_depth += !spmd;
	if (!spmd) {
		p->split_aiv_mode = sc->split;
		p->loop_ctx = LOOP_SPLIT_AIV;
	}
	pp_block(p, &body, 0);
	p->loop_ctx = saved_ctx;
	p->split_aiv_depth -= !spmd;
	p->incore_depth -= spmd;
	Block *target = &s->body;
	Stmt *inner = NULL;
	if (spmd) {
		inner = spmd_carrier(p, sc, ft);
		target = &inner->body;
	} else {
		sc->aiv_var = iv;
	}
	target->n = body.n + 1;
	target->stmts = arena_alloc(p->a, (size_t)target->n * sizeof(Stmt *));
	target->stmts[0] = def;
	if (body.n)
		memcpy(target->stmts + 1, body.stmts, (size_t)body.n * sizeof(Stmt *));
	if (inner) {
		s->body.n = 1;
		s->body.stmts = arena_alloc(p->a, sizeof(Stmt *));
		s->body.stmts[0] = inner;
	}
	if (!spmd && !p->incore_depth && p->fn->type != FT_INCORE && p->fn->type != FT_AIC &&
	    p->fn->type != FT_AIV) {
		/* outside InCore code a split_aiv region gets an InCore carrier */
		Stmt *w = scope_stmt(p, SC_INCORE, ft);
		w->scope->level = LV_CORE_GROUP;
		pp_scope_dump_tags(p, w->scope);
		w->comments = s->comments;
		w->ncomments = s->ncomments;
		s->comments = NULL;
		s->ncomments = 0;
		w->body.n = 1;
		w->body.stmts = arena_alloc(p->a, sizeof(Stmt *));
		w->body.stmts[0] = s;
		s = w;
	}
	vec_push(out, s);
}

static void count_dispatch(void *ctx, const Stmt *s, const Expr *e)
{
	(void)s;
	*(int *)ctx += e->kind == EX_FN_CALL;
}

static bool scope_has_optimization(const Scope *sc)
{
	return sc->split != SPLIT_NONE || sc->slot_num;
}

/* The reference parser's rules for a `with pl.spmd(...)` body.  A lone
 * `with pl.at(CORE_GROUP)` is the InCore carrier itself (optimizations=
 * then belong on it, not on the pl.spmd line).  Any other body must either
 * read the per-block index (then a carrier is synthesised, as it is for an
 * optimizations= entry) or dispatch exactly one kernel. */
static bool spmd_with_needs_carrier(Parser *p, const Stmt *s, const Token *wt, bool split_written)
{
	const Scope *sc = s->scope;
	bool opt = split_written || scope_has_optimization(sc);
	const Stmt *only = s->body.n == 1 ? s->body.stmts[0] : NULL;
	if (only && only->kind == ST_SCOPE && only->scope->kind == SC_INCORE) {
		if (opt)
			PERR_AT(p, wt, "`optimizations=` %s `pl.at(level=pl.Level.CORE_GROUP, ...)`; keep `optimizations=[...]` "
				"on the inner `pl.at(...)` carrier only",
				scope_has_optimization(only->scope)
					? "is specified twice: on `pl.spmd(...)` and on the inner"
					: "belongs on the InCore scope, but the body already provides one as the inner");
		return false;
	}
	/* pl.get_block_idx() is tensor.get_block_idx; the reference matches the name */
	if (ir_block_calls(&s->body, "tile.get_block_idx") || ir_block_calls(&s->body, "tensor.get_block_idx"))
		return true;
	int dispatches = 0;
	ir_block_walk_calls(&(IrCallWalk){ .call = count_dispatch, .ctx = &dispatches }, &s->body);
	if (!dispatches)
		PERR_AT(p, wt, "`with pl.spmd(...)` body neither reads the per-block index via `pl.tile.get_block_idx()` "
			"nor dispatches a `self.<kernel>(...)` call, so every block would run identical work "
			"(add `i = pl.tile.get_block_idx()` inside the scope, or use `for i in pl.spmd(n):`)");
	if (dispatches > 1)
		PERR_AT(p, wt, "`with pl.spmd(...)` dispatch body launches %d kernels; only one kernel dispatch per SPMD "
			"scope is supported (use one `pl.spmd(...)` scope per kernel)", dispatches);
	return opt;
}

void pp_with(Parser *p, PtrVec *out, PtrVec *cm)
{
	Token wt = next(p);
	const Token *t = peek(p);
	Token ct = *t;
	const char *d = dotted_after(p, "pl");
	if (!d || !at_op(p, "("))
		PERR_AT(p, &ct, "expected a scope such as pl.at(...), pl.cluster(), pl.spmd(...) or pl.scope()");
	skip(p);
	Stmt *s = NULL;
	bool split_written = false;
	if (!strcmp(d, "at")) {
		s = scope_stmt(p, SC_INCORE, &wt);
		/* level is the first parameter: pl.at(pl.Level.X), or level= among
		 * the keywords (parse_scope_kwargs reads it there) */
		bool level_kw = peek(p)->kind == TK_NAME && tok_is_op(peek_at(p, 1), "=");
		if (!level_kw && !at_op(p, ")")) {
			Level lv = (Level)pp_enum(p, "Level", ir_level_parse, "a pl.Level value");
			s->scope->level = lv;
			s->scope->kind = lv == LV_CORE_GROUP ? SC_INCORE : SC_HIERARCHY;
		}
		p->split_written = false;
		parse_scope_kwargs(p, s->scope, !level_kw && s->scope->level != LV_NONE, NULL);
		if (s->scope->level == LV_NONE)
			PERR_AT(p, &ct, "pl.at() requires a level argument");
		split_written = p->split_written;
		if (s->scope->kind == SC_INCORE && s->scope->role != RL_NONE)
			PERR_AT(p, &ct, "role= is not allowed on a CORE_GROUP scope");
		pp_scope_dump_tags(p, s->scope);
	} else if (!strcmp(d, "cluster")) {
		s = scope_stmt(p, SC_CLUSTER, &wt);
		parse_scope_kwargs(p, s->scope, false, NULL);
	} else if (!strcmp(d, "spmd")) {
		s = scope_stmt(p, SC_SPMD, &wt);
		p->split_written = false;
		spmd_args(p, s->scope, &wt, NULL);
		split_written = p->split_written;
	} else if (!strcmp(d, "scope") || !strcmp(d, "manual_scope")) {
		s = scope_stmt(p, SC_RUNTIME, &wt);
		if (d[0] == 'm') {
			s->scope->manual = true;
			expect_op(p, ")");
		} else if (!at_op(p, ")")) {
			Token k = expect_name(p, "mode=");
			if (strcmp(k.text, "mode"))
				PERR_AT(p, &k, "unknown keyword argument '%s' for pl.scope", k.text);
			expect_op(p, "=");
			const Token *mt = peek(p);
			const char *m = dotted_after(p, "pl");
			if (m && !strncmp(m, "ScopeMode.", 10) && strcmp(m, "ScopeMode.MANUAL") && strcmp(m, "ScopeMode.AUTO"))
				PERR_AT(p, mt, "Unknown ScopeMode value: %s (expected pl.ScopeMode.MANUAL or pl.ScopeMode.AUTO)", m + 10);
			if (!m || (strcmp(m, "ScopeMode.MANUAL") && strcmp(m, "ScopeMode.AUTO")))
				PERR_AT(p, mt, "expected pl.ScopeMode.MANUAL or pl.ScopeMode.AUTO");
			s->scope->manual = m[10] == 'M';
			accept_op(p, ",");
			expect_op(p, ")");
		} else {
			expect_op(p, ")");
		}
		/* the reference parser's placement rules for runtime scopes */
		if (s->scope->manual && p->manual_depth)
			PERR_AT(p, &wt, "a manual scope may not be nested inside another manual scope");
		if (!s->scope->manual && p->fn->auto_scope)
			PERR_AT(p, &wt, "a hand-placed AUTO 'with pl.scope()' requires @pl.function(auto_scope=False) "
				"(with auto_scope=True the compiler places AUTO scopes; or use pl.scope(mode=pl.ScopeMode.MANUAL))");
		if (!s->scope->manual && p->manual_depth)
			PERR_AT(p, &wt, "an AUTO scope may not be nested inside a manual scope");
	} else {
		static const char *const scopes[] = { "at", "cluster", "spmd", "scope", "manual_scope", NULL };
		PERR_AT(p, &ct, "unknown scope 'pl.%s' (expected pl.at, pl.cluster, pl.spmd, pl.scope or pl.manual_scope)%s", d,
			pp_did_you_mean(p, d, scopes, "pl."));
	}
	Stmt *placeholder = NULL;
	if (at_name(p, "as")) {
		Token as = next(p);
		Token n = expect_name(p, "a task-id name after 'as'");
		if (s->scope->kind == SC_CLUSTER || s->scope->kind == SC_RUNTIME)
			PERR_AT(p, &as, "this scope does not produce a task id");
		/* hidden `tid = pl.system.task_invalid()` just before the scope */
		Type *tt = ir_scalar_type(p->a, DT_TASK_ID);
		Var *tid = pp_new_var(p, n.text, tt, VK_VAR, pos_of(&n));
		placeholder = ir_stmt_new(p->a, ST_ASSIGN, pos_of(&n));
		placeholder->var = tid;
		placeholder->value = op_call0(p, "system.task_invalid", tt);
		placeholder->placeholder = true;
		s->scope->tid = tid;
		pp_bind(p, n.text, tid);
	}
	pp_header_end(p, s, cm);
	bool incore = s->scope->kind == SC_INCORE || s->scope->kind == SC_SPMD;
	bool manual = s->scope->kind == SC_RUNTIME && s->scope->manual;
	p->incore_depth += incore;
	p->manual_depth += manual;
	pp_block(p, &s->body, 0);
	p->manual_depth -= manual;
	p->incore_depth -= incore;
	if (split_written && s->scope->kind == SC_INCORE && ir_find_scope(&s->body, SC_SPLIT_AIV))
		PERR_AT(p, &ct, "optimizations=[pl.split(...)] and pl.split_aiv regions are mutually exclusive AIV-split "
			"mechanisms; remove one of them (pl.cross_core_slot(slot_num=N) pins a slot count without splitting)");
	if (s->scope->kind == SC_SPMD && spmd_with_needs_carrier(p, s, &wt, split_written)) {
		Scope *sc = s->scope;
		{
			Stmt *inner = spmd_carrier(p, sc, &wt);
			inner->body = s->body;
			s->body.n = 1;
			s->body.stmts = arena_alloc(p->a, sizeof(Stmt *));
			s->body.stmts[0] = inner;
		}
	}
	if (placeholder)
		vec_push(out, placeholder);
	vec_push(out, s);
}

