/* parse_bind.c - name binding: the scope stack and what binds a name.
 *
 * Name binding follows the reference parser: a scope stack where
 * re-assigning a visible plain Var reuses it, loop variables and iter args
 * are always fresh, plain for/if/while/with bodies leak their names and
 * constructs with pl.yield_ expose only their return variables.  Bindings
 * live in one hash map (name -> Var) with an undo log, so leaving a scope
 * costs only what the scope bound.  Here: the log, the assignment rule
 * (pp_assign_target) and the return variables of yielding constructs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptoopt/op_registry.h"
#include "ptoopt/print.h"
#include "ptoopt/strbuf.h"
#include "ptoopt/typerule.h"
#include "ptoopt/types.h"
#include "parse_int.h"

/* Bindings are a log (p->undo) of (name, Var, the name's previous entry),
 * and p->bind maps a name to its latest entry: binding appends one, leaving
 * a scope truncates the log and points each name back at its previous
 * entry, one map update per binding either way. */
/* Bind name to v over its current binding `cur` (binding_of). */
static void bind_over(Parser *p, const char *name, Var *v, uintptr_t cur)
{
	if (p->nundo == p->cundo) {
		p->cundo = p->cundo ? p->cundo * 2 : 256;
		p->undo = xrealloc(p->undo, p->cundo * sizeof *p->undo);
	}
	p->undo[p->nundo] = (Undo){ name, v, NULL, (void *)cur };
	p->nundo++;
	pmap_put(&p->bind, name, (void *)(uintptr_t)p->nundo);
}

void pp_bind(Parser *p, const char *name, Var *v) { bind_over(p, name, v, binding_of(p, name)); }

void pp_bind_value(Parser *p, const char *name, Expr *value)
{
	bind_over(p, name, NULL, binding_of(p, name));
	p->undo[p->nundo - 1].value = value;
}

/* Is a binding (binding_of) in the innermost scope (strict_ssa)?
 * Bindings of leaking scopes stay in the log after them, so they count as
 * the parent's, as in the reference. */
static bool in_innermost_scope(Parser *p, uintptr_t i) { return i && i - 1 >= p->scope_start; }

void pp_scope_pop(Parser *p, size_t mark)
{
	while (p->nundo > mark) {
		Undo u = p->undo[--p->nundo];
		pmap_put(&p->bind, u.name, u.prev_idx);
	}
}

/* Between functions: drop every binding.  Undoing them one by one would
 * leave each name's key behind, and the table would grow with every name of
 * the program instead of the names of one function; cleared, it stays the
 * size of the largest function and warm in the cache. */
void pp_forget_names(Parser *p)
{
	p->nundo = 0;
	pmap_clear(&p->memref_bases);
	p->dump_tagged.len = 0;
	if (p->bind.cap <= 1024)
		pmap_clear(&p->bind);
	else
		pmap_release(&p->bind);
}

Var *pp_new_var(Parser *p, const char *name, Type *t, VarKind k, SrcPos pos)
{
	Var *v = ir_var_new(p->prog, name, t, k);
	v->pos = pos;
	return v;
}

/* Why a value has no type, for the "annotate it" error. */
static void untyped_reason(Parser *p, Expr *v, char *buf, size_t n)
{
	if (v->kind == EX_OP_CALL) {
		const char *pf = strncmp(v->str, "pld.", 4) ? "pl." : "";
		const OpDef *op = sugar_op(&p->sugar, v->str);
		if (!op)
			snprintf(buf, n, "%s%s is not in the op registry (data/ops.yaml; add it with --ops FILE.yaml)", pf, v->str);
		else
			snprintf(buf, n, "the registry cannot derive the result type of %s%s from these arguments", pf, v->str);
	} else if (v->kind == EX_FN_CALL) {
		snprintf(buf, n, "self.%s returns no value", v->str);
	} else {
		snprintf(buf, n, "the value's type is unknown");
	}
}

/* The kind of value an op of this name makes, from its namespace (after
 * "pld."): TY_UNKNOWN when the name does not say. */
static TypeKind kind_of_op(const char *op)
{
	bool dist = !strncmp(op, "pld.", 4);
	if (dist)
		op += 4;
	if (!strncmp(op, "tile.", 5))
		return TY_TILE;
	if (!strncmp(op, "tensor.", 7))
		return dist ? TY_DIST_TENSOR : TY_TENSOR;
	if (!strncmp(op, "array.", 6))
		return TY_ARRAY;
	if (strstr(op, "ctx"))
		return TY_NAMED;
	return TY_UNKNOWN;
}

/* An annotation of the kind the value would have, for the "annotate it"
 * error: the op's namespace or else its first Tile / Tensor / Array /
 * comm-context operand decides the kind, and an operand of that kind
 * lends its shape and dtype (`pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]`);
 * else a template of the kind (`pl.Tile[[...], pl.FP32, pl.Mem.Vec]`). */
static void annotation_hint(const Expr *v, char *buf, size_t n)
{
	TypeKind k = v->kind == EX_OP_CALL ? kind_of_op(v->str) : TY_UNKNOWN;
	const Type *like = NULL;
	for (int i = 0; v->kind == EX_OP_CALL && i < v->nargs && !like; i++) {
		Type *at = ir_expr_type(v->args[i]);
		bool named_ctx = at && at->kind == TY_NAMED && strstr(at->name, "CommCtx");
		if (!at || (at->kind != TY_TILE && at->kind != TY_TENSOR && at->kind != TY_DIST_TENSOR &&
			    at->kind != TY_ARRAY && !named_ctx))
			continue;
		if (k == TY_UNKNOWN)
			k = at->kind;
		if (at->kind == k && (k != TY_NAMED || named_ctx))
			like = at;
	}
	if (like && k != TY_NAMED) {
		StrBuf sb = { 0 };
		print_type(&sb, like);
		if (sb.len < n) {
			snprintf(buf, n, "%.*s", (int)sb.len, sb.data);
			sb_release(&sb);
			return;
		}
		sb_release(&sb);
	}
	const char *t;
	switch (k) {
	case TY_TILE: t = "pl.Tile[[...], pl.FP32, pl.Mem.Vec]"; break;
	case TY_DIST_TENSOR: t = "pld.DistributedTensor[[...], pl.FP32]"; break;
	case TY_ARRAY: t = "pl.Array[N, pl.INT32]"; break;
	case TY_NAMED: t = "pld.CommCtx"; break;
	default: t = "pl.Tensor[[...], pl.FP32]"; break;
	}
	snprintf(buf, n, "%s", t);
}

/* Assign `name` (annotation `ann` may be NULL) := *value, following the
 * reference's reuse rule and type merging; returns the target Var.  An int
 * literal under an integer scalar annotation takes that dtype
 * (`x: pl.Scalar[pl.INT64] = 0` stores pl.const(0, pl.INT64)). */
Var *pp_assign_target(Parser *p, const Token *nt, Type *ann, Expr **value)
{
	Expr *v0 = *value;
	if (ann && ann->kind == TY_SCALAR && v0->kind == EX_INT && v0->dtype == DT_INDEX &&
	    ir_dtype_is_int(ann->dtype) && ann->dtype != DT_INDEX)
		*value = v0 = pp_int(p, v0->ival, ann->dtype, v0->pos);
	Type *vt = ir_expr_type(v0);
	if (!vt && v0->kind == EX_TUPLE && v0->nargs > 0) {
		/* `t = (a, b)`: a MakeTuple is typed by its elements */
		Type *tt = ir_type_new(p->a, TY_TUPLE);
		tt->elems = arena_alloc(p->a, (size_t)v0->nargs * sizeof *tt->elems);
		tt->nelems = v0->nargs;
		for (int i = 0; i < v0->nargs && tt; i++) {
			Type *et = ir_expr_type(v0->args[i]);
			if (!et || et->kind == TY_UNKNOWN || et->kind == TY_TUPLE)
				tt = NULL;
			else
				tt->elems[i] = et;
		}
		vt = tt;
	}
	/* An annotation equal to the target's type names the same type: take
	 * the annotation's object, which all equal annotations share
	 * (unique_type), so that the printer's and the passes' per-type memos
	 * meet one object per distinct type, not one per statement.  When the
	 * annotation equals the value's type (nearly always), type_for_assign
	 * would give one of the two and find nothing to report. */
	/* A 2-D (or 1-D) Tile annotation on an N-D tile.load / tile.create is
	 * the printed form of a flattened tile (FlattenTileNdTo2D): the
	 * reference takes the annotation's shape, the rest from the value. */
	Type *vt0 = vt;
	if (ann && vt && ann->kind == TY_TILE && vt->kind == TY_TILE && ann->ndim <= 2 && vt->ndim > 2 &&
	    v0->kind == EX_OP_CALL && (!strcmp(v0->str, "tile.load") || !strcmp(v0->str, "tile.create"))) {
		Type *flat = ir_type_new(p->a, TY_TILE);
		*flat = *vt;
		flat->shape = ann->shape;
		flat->ndim = ann->ndim;
		vt = flat;
	}
	Type *t = ann;
	if (!ann || !vt || !type_equal(ann, vt)) {
		char err[700];
		err[0] = '\0'; /* written only on a contradiction: not worth zeroing all */
		t = type_for_assign(p->a, ann, vt, nt->text, err, sizeof err);
		if (!t && err[0])
			PERR_AT(p, nt, "%s", err);
		/* a statement op's value (the reference's UnknownType) is bound
		 * unannotated as `r: pl.UnknownType = pl.system.bar_all()` */
		if (!t && !ann && v0->kind == EX_OP_CALL) {
			const OpDef *op = sugar_op(&p->sugar, v0->str);
			if (op && op->result.kind->none)
				t = ir_type_new(p->a, TY_UNKNOWN);
		}
		if (!t && (v0->kind == EX_FN_CALL || v0->kind == EX_SUBMIT) && !pmap_get(p->sigs, v0->str))
			pp_error(p, v0->pos.line, v0->pos.col, "call to undefined function 'self.%s'", v0->str);
		if (!t) {
			char why[300], hint[200];
			untyped_reason(p, v0, why, sizeof why);
			annotation_hint(v0, hint, sizeof hint);
			PERR_AT(p, nt, "cannot infer the type of '%s': %s; annotate the assignment, e.g. `%s: %s = ...`",
				nt->text, why, nt->text, hint);
		}
		if (ann && t != ann && type_equal(t, ann))
			t = ann;
	}
	/* When the annotation refines a call's inferred type (a tensor view, a
	 * tile memory space or view), the reference rebuilds the call with the
	 * refined type, so passes that re-type from the value see it too (and
	 * a call typed like its annotation shares that object as well). */
	if (ann && vt && (t != vt || vt != vt0) && (v0->kind == EX_OP_CALL || v0->kind == EX_FN_CALL || v0->kind == EX_SUBMIT) &&
	    (t == ann || !type_equal(t, vt0)))
		v0->type = t;
	uintptr_t cur = binding_of(p, nt->text);
	Var *old = cur ? p->undo[cur - 1].var : NULL;
	if (p->fn->strict_ssa) {
		/* strict: always a new Var; redefinition in the same scope is an error */
		if (old && in_innermost_scope(p, cur))
			PERR_AT(p, nt, "SSAViolationError: Variable '%s' is already defined", nt->text);
		old = NULL;
	}
	if (old && old->kind == VK_VAR) {
		if (!type_reassignable(old->type, t)) {
			char a[256], b[256];
			type_to_string(old->type, a, sizeof a);
			type_to_string(t, b, sizeof b);
			PERR_AT(p, nt, "Cannot reassign '%s' with a different type: was %s, got %s", nt->text, a, b);
		}
		return old;
	}
	Var *v = pp_new_var(p, nt->text, t, VK_VAR, pos_of(nt));
	bind_over(p, nt->text, v, cur);
	return v;
}

/* The LHS of a yield statement s (NULL: a bare pl.yield_(...)). */
YieldInfo *pp_yield_info_of(Parser *p, Stmt *s) { return pmap_get(&p->yield_lhs, s); }

/* The LHS of a block's trailing yield-assignment (looking through a
 * pl.scope() / pl.manual_scope() that ends the block), or NULL. */
YieldInfo *pp_trailing_yield(Parser *p, Block *b)
{
	while (b->n > 0 && b->stmts[b->n - 1]->kind == ST_SCOPE &&
	       b->stmts[b->n - 1]->scope->kind == SC_RUNTIME)
		b = &b->stmts[b->n - 1]->body;
	if (b->n == 0)
		return NULL;
	Stmt *last = b->stmts[b->n - 1];
	if (last->kind != ST_YIELD)
		return NULL;
	return pp_yield_info_of(p, last);
}

/* Return vars for a construct from its yield LHS.  A loop's take the type of
 * their iter_arg, whatever the LHS's annotation says (the reference's loop
 * builder infers them by index and is given no type); an if's the
 * annotation, else the yielded value's type. */
void pp_make_rets(Parser *p, Stmt *s, YieldInfo *yi, Stmt *ystmt)
{
	s->nrets = yi->lhs.n;
	s->rets = arena_alloc(p->a, (size_t)(yi->lhs.n + 1) * sizeof *s->rets);
	for (int i = 0; i < yi->lhs.n; i++) {
		if (s->kind != ST_IF && i < s->niter && s->iter_args[i]->type) {
			s->rets[i] = pp_new_var(p, yi->lhs.names[i], s->iter_args[i]->type, VK_VAR, yi->lhs.pos[i]);
			continue;
		}
		Type *t = yi->lhs.types[i];
		Type *vt = ir_expr_type(ystmt->values[i]);
		char err[700];
		Type *m = type_for_assign(p->a, t, vt, yi->lhs.names[i], err, sizeof err);
		t = m ? m : t ? t : ir_type_new(p->a, TY_UNKNOWN);
		s->rets[i] = pp_new_var(p, yi->lhs.names[i], t, VK_VAR, yi->lhs.pos[i]);
	}
}

void pp_bind_rets(Parser *p, Stmt *s)
{
	for (int i = 0; i < s->nrets; i++)
		pp_bind(p, s->rets[i]->name, s->rets[i]);
}

