/* unroll_loops.c - the reference's UnrollLoops.
 *
 * A `for i in pl.unroll(...)` loop (pl.unroll(stop), (start, stop) or
 * (start, stop, step), a negative step counting down) becomes its body
 * once per iteration, in order, with the loop variable replaced by the
 * iteration's constant (an INDEX literal); an unrolled loop inside one is
 * expanded in each copy.  The copies keep the body's variables (the
 * reference clones without fresh definitions: re-assignments share their
 * variable, and convert-to-ssa, which runs later, versions them); only the
 * iter args of loops inside get new variables of the same name.  A loop of
 * no iteration disappears; the loop's leading comments go to the first
 * statement of the expansion.
 *
 * Errors, as the reference's: iter args on the loop, bounds that are not
 * integer constants (a literal, or the negation of one), a zero step, more
 * than 1024 iterations.
 *
 * Requires nothing; produces UnrollResolved.
 */
#include <string.h>

#include "ptoopt/ir_walk.h"
#include "ptoopt/passes.h"

#define MAX_UNROLL 1024

typedef struct Unr {
	Program *p;
	Arena *a;
	Diag *d;
	int err;
} Unr;

/* The reference's Expr::TypeName of a bound that is not a constant. */
static const char *expr_type_name(const Expr *e)
{
	static const char *const bin[] = {
		[OP_OR] = "Or", [OP_XOR] = "Xor", [OP_AND] = "And", [OP_EQ] = "Eq", [OP_NE] = "Ne",
		[OP_LT] = "Lt", [OP_LE] = "Le", [OP_GT] = "Gt", [OP_GE] = "Ge", [OP_BITOR] = "BitOr",
		[OP_BITXOR] = "BitXor", [OP_BITAND] = "BitAnd", [OP_SHL] = "BitShiftLeft",
		[OP_SHR] = "BitShiftRight", [OP_ADD] = "Add", [OP_SUB] = "Sub", [OP_MUL] = "Mul",
		[OP_DIV] = "FloatDiv", [OP_FLOORDIV] = "FloorDiv", [OP_MOD] = "FloorMod", [OP_POW] = "Pow",
		[OP_MIN] = "Min", [OP_MAX] = "Max",
	};
	static const char *const un[] = { [UOP_NEG] = "Neg", [UOP_NOT] = "Not", [UOP_BITNOT] = "BitNot",
					  [UOP_ABS] = "Abs" };
	switch (e->kind) {
	case EX_VAR: return e->var->kind == VK_ITER_ARG ? "IterArg" : "Var";
	case EX_INT: return "ConstInt";
	case EX_FLOAT: return "ConstFloat";
	case EX_BOOL: return "ConstBool";
	case EX_STR: return "ConstString";
	case EX_BINARY: return e->op < sizeof bin / sizeof bin[0] && bin[e->op] ? bin[e->op] : "BinaryExpr";
	case EX_UNARY: return e->op < sizeof un / sizeof un[0] && un[e->op] ? un[e->op] : "UnaryExpr";
	case EX_CAST: return "Cast";
	case EX_TUPLE: return "MakeTuple";
	case EX_GETITEM: return "TupleGetItemExpr";
	case EX_OP_CALL: case EX_FN_CALL: return "Call";
	case EX_SUBMIT: return "Submit";
	default: return "Expr";
	}
}

static bool const_bound(Unr *u, const Stmt *s, const Expr *e, const char *what, int64_t *v)
{
	if (e && e->kind == EX_INT) {
		*v = e->ival;
		return true;
	}
	if (e && e->kind == EX_UNARY && e->op == UOP_NEG && e->lhs && e->lhs->kind == EX_INT) {
		*v = -e->lhs->ival;
		return true;
	}
	diag_error(u->d, s->pos.line, s->pos.col, "Unroll loop %s must be a compile-time integer constant, got %s", what,
		   e ? expr_type_name(e) : "null");
	return false;
}

/* Every definition in b keeps its Var in a copy (collected here, then
 * mapped to itself). */
static void keep_def(void *ctx, Var *v) { vec_push(ctx, v); }

static void keep_scope_vars(PtrVec *m, const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (ir_stmt_is_simple(s->kind))
			continue;
		if (s->scope) {
			if (s->scope->tid)
				vec_push(m, s->scope->tid);
			if (s->scope->aiv_var)
				vec_push(m, s->scope->aiv_var);
		}
		keep_scope_vars(m, &s->body);
		keep_scope_vars(m, &s->orelse);
	}
}

static bool unroll_block(Unr *u, const Block *b, Block *out);

/* The expansion of one pl.unroll loop, appended to o.  bare: the loop is
 * its block's only statement, which the reference holds as the statement
 * itself rather than a sequence; the expansion then stays a sequence of
 * its own, which the structural verifier after the pass rejects when it
 * has one element or an element that is a sequence itself (a copy of a
 * body of several statements, or of a bare unrolled loop). */
static void unroll_loop(Unr *u, const Stmt *s, PtrVec *o, bool bare)
{
	if (s->niter) {
		diag_error(u->d, s->pos.line, s->pos.col, "Unroll loops cannot have iter_args (init_values)");
		u->err = 1;
		return;
	}
	int64_t start, stop, step;
	if (!const_bound(u, s, s->start, "start", &start) || !const_bound(u, s, s->stop, "stop", &stop) ||
	    !const_bound(u, s, s->step, "step", &step)) {
		u->err = 1;
		return;
	}
	if (step == 0) {
		diag_error(u->d, s->pos.line, s->pos.col, "Unroll loop step cannot be zero");
		u->err = 1;
		return;
	}
	/* unsigned: bounds near the int64 limits must not overflow */
	uint64_t trip = 0;
	if (step > 0 && start < stop) {
		uint64_t span = (uint64_t)stop - (uint64_t)start, st = (uint64_t)step;
		trip = span / st + (span % st != 0);
	} else if (step < 0 && start > stop) {
		uint64_t span = (uint64_t)start - (uint64_t)stop, st = 0 - (uint64_t)step;
		trip = span / st + (span % st != 0);
	}
	if (trip > MAX_UNROLL) {
		diag_error(u->d, s->pos.line, s->pos.col,
			   "Unroll loop trip count %llu exceeds maximum allowed (%d). Reduce the loop range or use "
			   "pl.range() instead",
			   (unsigned long long)trip, MAX_UNROLL);
		u->err = 1;
		return;
	}
	if (bare && trip == 1) {
		diag_error(u->d, s->pos.line, s->pos.col,
			   "Post-verification failed after pass 'UnrollLoops': NoRedundantBlocks: SeqStmts with single "
			   "child should be unwrapped");
		u->err = 1;
		return;
	}
	if (bare && trip > 1 &&
	    (s->body.n != 1 || (s->body.stmts[0]->kind == ST_FOR && s->body.stmts[0]->for_kind == FOR_UNROLL))) {
		const Stmt *at = s->body.n ? s->body.stmts[0] : s;
		diag_error(u->d, at->pos.line, at->pos.col,
			   "Post-verification failed after pass 'UnrollLoops': NoRedundantBlocks: SeqStmts contains "
			   "nested SeqStmts");
		u->err = 1;
		return;
	}
	PtrVec keep = { 0 };
	ir_block_defs(&s->body, keep_def, &keep);
	keep_scope_vars(&keep, &s->body);
	size_t first = o->len;
	for (int64_t k = 0; k < (int64_t)trip && !u->err; k++) {
		int64_t i = start + k * step;
		Expr *c = ir_int(u->a, i, DT_INDEX);
		if (s->var)
			c->pos = s->var->pos;
		PtrMap vars = { 0 }, exprs = { 0 };
		for (size_t j = 0; j < keep.len; j++)
			pmap_put(&vars, keep.items[j], keep.items[j]);
		if (s->var)
			pmap_put(&exprs, s->var, c);
		Block copy = ir_block_clone(u->p, &s->body, &vars, &exprs, NULL, NULL);
		pmap_release(&vars);
		pmap_release(&exprs);
		Block done;
		unroll_block(u, &copy, &done);
		for (int j = 0; j < done.n; j++)
			vec_push(o, done.stmts[j]);
	}
	vec_release(&keep);
	if (s->ncomments && o->len > first) {
		Stmt *f = ir_stmt_copy(u->a, o->items[first]);
		const char **cm = arena_alloc(u->a, (size_t)(s->ncomments + f->ncomments) * sizeof *cm);
		memcpy(cm, s->comments, (size_t)s->ncomments * sizeof *cm);
		if (f->ncomments)
			memcpy(cm + s->ncomments, f->comments, (size_t)f->ncomments * sizeof *cm);
		f->comments = cm;
		f->ncomments += s->ncomments;
		o->items[first] = f;
	}
}

/* b with its unroll loops expanded (*out; false when nothing changed). */
static bool unroll_block(Unr *u, const Block *b, Block *out)
{
	PtrVec o = ARENA_VEC(u->a);
	bool changed = false;
	for (int i = 0; i < b->n && !u->err; i++) {
		Stmt *s = b->stmts[i];
		if (s->kind == ST_FOR && s->for_kind == FOR_UNROLL) {
			unroll_loop(u, s, &o, b->n == 1);
			changed = true;
			continue;
		}
		if (!ir_stmt_is_simple(s->kind)) {
			Block body, orelse;
			bool cb = unroll_block(u, &s->body, &body);
			bool ce = unroll_block(u, &s->orelse, &orelse);
			if (cb || ce) {
				s = ir_stmt_copy(u->a, s);
				s->body = body;
				s->orelse = orelse;
				changed = true;
			}
		}
		vec_push(&o, s);
	}
	if (!changed || u->err) {
		*out = *b;
		return false;
	}
	int n;
	out->stmts = (Stmt **)vec_finish(u->a, &o, &n);
	out->n = n;
	return true;
}

int unroll_loops_program(Program *p, Diag *d)
{
	Unr u = { .p = p, .a = p->arena, .d = d };
	bool changed = false;
	for (int i = 0; i < p->nfuncs && !u.err; i++) {
		Function *f = p->funcs[i];
		if (f->abstract || f->inline_body)
			continue;
		Block nb;
		if (unroll_block(&u, &f->body, &nb)) {
			f->body = nb;
			f->touched = changed = true;
		}
	}
	p->unchanged = !changed;
	p->touch_marks = true;
	return u.err;
}
