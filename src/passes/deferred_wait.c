/* deferred_wait.c - the contract of a deferred-completion waiter body.
 *
 * A scope that calls pld.system.defer_wait becomes a task that completes
 * only when every condition it registered holds.  The runtime keeps at most
 * 64 conditions per task, and once the first condition is registered the
 * kernel may do nothing that the waiter's consumers could observe: so its body
 * is restricted to scalar bookkeeping (arithmetic, casts, one kind of tensor
 * read before any registration), sequential control flow and the
 * registrations themselves, and the number of registrations must have a
 * static upper bound.  The outliner checks this on the scope body as written
 * (SSA form, before any nested outlining); the rules follow the reference's
 * deferred-wait contract validator.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ptoopt/outline.h"

#define DW_MAX_CONDITIONS 64
/* counts stop growing here, so huge constant bounds cannot overflow */
#define DW_COUNT_CAP INT64_C(1000000000000)

static bool is_defer_wait(const Expr *e)
{
	return e && e->kind == EX_OP_CALL && strcmp(e->str, "pld.system.defer_wait") == 0;
}

static bool expr_has_defer_wait(const Expr *e)
{
	if (!e || e->kind == EX_VAR)
		return false;
	if (is_defer_wait(e))
		return true;
	if (expr_has_defer_wait(e->lhs) || expr_has_defer_wait(e->rhs))
		return true;
	for (int i = 0; i < e->nargs; i++)
		if (expr_has_defer_wait(e->args[i]))
			return true;
	return false;
}

bool dw_block_has_defer_wait(const Block *b)
{
	for (int i = 0; i < b->n; i++) {
		const Stmt *s = b->stmts[i];
		if (expr_has_defer_wait(s->value))
			return true;
		if (ir_stmt_is_simple(s->kind))
			continue;
		if (dw_block_has_defer_wait(&s->body) || dw_block_has_defer_wait(&s->orelse))
			return true;
	}
	return false;
}

/* ------------------------------------------------------------ validation */

typedef struct DwCheck {
	Diag *d;
	SrcPos scope;  /* where errors without a statement position point */
	bool failed;   /* the first error stops the walk */
} DwCheck;

/* What a statement (or block) may do, as far as the contract cares. */
typedef struct DwSummary {
	bool registers;     /* some path registers a condition */
	int64_t max_count;  /* registrations on the longest path, up to DW_COUNT_CAP */
	bool quiet;         /* nothing but scalar bookkeeping, control flow and
			     * registrations: allowed after the first registration */
} DwSummary;

static const DwSummary DW_NOTHING = { false, 0, true };

static void fail(DwCheck *c, SrcPos at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(DwCheck *c, SrcPos at, const char *fmt, ...)
{
	if (c->failed)
		return;
	if (at.line <= 0) /* a statement the compiler made: point at the scope */
		at = c->scope;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_error(c->d, at.line, at.col, "%s", msg);
	c->failed = true;
}

static bool is_tensor_type(const Type *t)
{
	return t && (t->kind == TY_TENSOR || t->kind == TY_DIST_TENSOR);
}

static int64_t saturate(int64_t n) { return n > DW_COUNT_CAP ? DW_COUNT_CAP : n; }

typedef enum { DW_PURE, DW_READS } DwEffect;

static const char *expr_kind_name(const Expr *e)
{
	switch (e->kind) {
	case EX_STR: return "string";
	case EX_SYMBOL: return "enum symbol";
	case EX_DICT: return "dict";
	default: return "expression";
	}
}

/* A scalar expression of the waiter.  reads_ok: a tensor.read call may appear
 * (an assignment's value); elsewhere (conditions, bounds, offsets, yields) it
 * may not.  Returns whether the expression reads a tensor. */
static DwEffect check_scalar(DwCheck *c, const Expr *e, SrcPos at, bool reads_ok)
{
	if (!e || c->failed)
		return DW_PURE;
	if (is_tensor_type(ir_expr_type((Expr *)e))) {
		fail(c, at, "a deferred waiter's scalar bookkeeping cannot produce a tensor value");
		return DW_PURE;
	}
	switch (e->kind) {
	case EX_VAR:
	case EX_INT:
	case EX_FLOAT:
	case EX_BOOL:
		return DW_PURE;
	case EX_BINARY: {
		DwEffect l = check_scalar(c, e->lhs, at, reads_ok);
		DwEffect r = check_scalar(c, e->rhs, at, reads_ok);
		return l == DW_READS || r == DW_READS ? DW_READS : DW_PURE;
	}
	case EX_UNARY:
	case EX_CAST:
	case EX_GETITEM:
		return check_scalar(c, e->lhs, at, reads_ok);
	case EX_TUPLE: {
		DwEffect eff = DW_PURE;
		for (int i = 0; i < e->nargs; i++)
			if (check_scalar(c, e->args[i], at, reads_ok) == DW_READS)
				eff = DW_READS;
		return eff;
	}
	case EX_OP_CALL:
	case EX_FN_CALL:
	case EX_SUBMIT:
		/* Only an explicit tensor.read is known to be harmless; any other
		 * call (a helper function, a newer op) might communicate, block or
		 * touch payload, so it is refused rather than trusted. */
		if (e->kind != EX_OP_CALL || strcmp(e->str, "tensor.read") != 0) {
			fail(c, at,
			     "deferred waiter scalar bookkeeping supports only a pre-registration tensor.read call "
			     "(a scalar read of a tensor before the first pld.system.defer_wait); '%s' is not allowed",
			     e->str);
			return DW_PURE;
		}
		if (!reads_ok) {
			fail(c, at,
			     "deferred waiter scalar bookkeeping supports only a pre-registration tensor.read call as "
			     "(part of) an assignment's value; not inside a condition, loop bound, offset, expected "
			     "value or loop carry");
			return DW_PURE;
		}
		/* the first argument is the tensor read from; its indices are scalars */
		for (int i = 1; i < e->nargs; i++)
			check_scalar(c, e->args[i], at, false);
		return DW_READS;
	default:
		fail(c, at, "deferred waiter scalar bookkeeping cannot contain a %s", expr_kind_name(e));
		return DW_PURE;
	}
}

static DwSummary check_block(DwCheck *c, const Block *b);

/* Number of iterations of a loop whose bounds are integer constants (0 when
 * it never runs), or -1 when a bound is not a constant. */
static int64_t const_trip_count(const Stmt *s)
{
	const Expr *lo = s->start, *hi = s->stop, *st = s->step;
	if (!lo || !hi || !st || lo->kind != EX_INT || hi->kind != EX_INT || st->kind != EX_INT)
		return -1;
	int64_t a = lo->ival, b = hi->ival, k = st->ival;
	if (!((k > 0 && a < b) || (k < 0 && a > b)))
		return 0;
	/* distance and stride in unsigned arithmetic: defined at the int64 edges */
	uint64_t dist = k > 0 ? (uint64_t)b - (uint64_t)a : (uint64_t)a - (uint64_t)b;
	uint64_t stride = k > 0 ? (uint64_t)k : 0u - (uint64_t)k;
	uint64_t n = dist / stride + (dist % stride != 0);
	return n > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)n;
}

static DwSummary check_loop(DwCheck *c, const Stmt *s)
{
	if (s->kind == ST_WHILE || (s->for_kind != FOR_RANGE && s->for_kind != FOR_UNROLL)) {
		fail(c, s->pos,
		     "a deferred waiter's loops must be sequential pl.range or pl.unroll loops with a "
		     "constant trip count");
		return DW_NOTHING;
	}
	check_scalar(c, s->start, s->pos, false);
	check_scalar(c, s->stop, s->pos, false);
	check_scalar(c, s->step, s->pos, false);
	/* the loop's init values are the caller's: only the body is the waiter's work */
	DwSummary body = check_block(c, &s->body);
	if (c->failed || !body.registers)
		return body; /* registers nothing: no bound needed */
	int64_t trips = const_trip_count(s);
	if (trips <= 0) {
		fail(c, s->pos,
		     "a loop that registers pld.system.defer_wait conditions needs a statically known positive "
		     "trip count (constant bounds and at least one iteration), so that the number of "
		     "conditions per waiter can be bounded");
		return body;
	}
	if (trips > 1 && !body.quiet) {
		fail(c, s->pos,
		     "this deferred waiter loop may execute tensor reads or continuation work after registering "
		     "its first condition (the second iteration runs after the first registration); a "
		     "registration loop may hold only pure scalar bookkeeping, control flow and "
		     "pld.system.defer_wait calls");
		return body;
	}
	body.max_count = body.max_count > DW_COUNT_CAP / trips ? DW_COUNT_CAP : body.max_count * trips;
	return body;
}

static DwSummary check_stmt(DwCheck *c, const Stmt *s)
{
	switch (s->kind) {
	case ST_EVAL: {
		const Expr *e = s->value;
		if (!e || (e->kind != EX_OP_CALL && e->kind != EX_FN_CALL && e->kind != EX_SUBMIT)) {
			fail(c, s->pos, "a deferred waiter may not evaluate a statement that is not a call");
			return DW_NOTHING;
		}
		if (!is_defer_wait(e)) {
			fail(c, s->pos,
			     "a deferred waiter only registers conditions; the operation '%s' is not allowed in it",
			     e->str);
			return DW_NOTHING;
		}
		/* offsets and the expected value: pure scalars (the signal is a tensor) */
		for (int i = 1; i < e->nargs; i++)
			check_scalar(c, e->args[i], s->pos, false);
		return (DwSummary){ true, 1, true };
	}
	case ST_ASSIGN: {
		if (is_defer_wait(s->value)) {
			fail(c, s->pos,
			     "pld.system.defer_wait has no result: call it as a statement of its own");
			return DW_NOTHING;
		}
		if (s->var && is_tensor_type(s->var->type)) {
			fail(c, s->pos,
			     "a deferred waiter only registers conditions and cannot create or update payload tensors "
			     "('%s' is a tensor)", s->var->name);
			return DW_NOTHING;
		}
		DwEffect eff = check_scalar(c, s->value, s->pos, true);
		return (DwSummary){ false, 0, eff == DW_PURE };
	}
	case ST_YIELD:
		/* SSA carries of scalars: bookkeeping, but they may not read memory */
		for (int i = 0; i < s->nvalues; i++)
			check_scalar(c, s->values[i], s->pos, false);
		return DW_NOTHING;
	case ST_RETURN:
		if (s->nvalues > 0)
			fail(c, s->pos, "a deferred waiter only registers conditions and cannot return a value");
		return DW_NOTHING;
	case ST_IF: {
		check_scalar(c, s->value, s->pos, false);
		DwSummary t = check_block(c, &s->body);
		DwSummary f = check_block(c, &s->orelse);
		/* either branch may run: the larger count, and quiet only if both are */
		return (DwSummary){ t.registers || f.registers, t.max_count > f.max_count ? t.max_count : f.max_count,
				    t.quiet && f.quiet };
	}
	case ST_FOR:
	case ST_WHILE:
		return check_loop(c, s);
	default:
		fail(c, s->pos,
		     "a deferred waiter's body may hold only scalar assignments, if / for control flow and "
		     "pld.system.defer_wait registrations");
		return DW_NOTHING;
	}
}

static DwSummary check_block(DwCheck *c, const Block *b)
{
	DwSummary sum = DW_NOTHING;
	for (int i = 0; i < b->n && !c->failed; i++) {
		const Stmt *s = b->stmts[i];
		DwSummary one = check_stmt(c, s);
		if (c->failed)
			break;
		if (sum.registers && !one.quiet) {
			fail(c, s->pos,
			     "a deferred waiter cannot execute tensor reads, payload, cache, communication or other "
			     "continuation work once pld.system.defer_wait registration has begun");
			break;
		}
		sum.registers |= one.registers;
		sum.max_count = saturate(sum.max_count + one.max_count);
		sum.quiet &= one.quiet;
	}
	return sum;
}

int dw_check_waiter(const Block *body, SrcPos scope_pos, Diag *d, bool *is_waiter)
{
	*is_waiter = dw_block_has_defer_wait(body);
	if (!*is_waiter)
		return 0; /* ordinary kernels skip the walk */
	DwCheck c = { d, scope_pos, false };
	DwSummary sum = check_block(&c, body);
	if (c.failed)
		return 1;
	if (sum.max_count > DW_MAX_CONDITIONS) {
		fail(&c, scope_pos,
		     "a deferred waiter supports at most %d conditions, but this scope may register %lld%s "
		     "(the most any path through its loops and branches registers)",
		     DW_MAX_CONDITIONS, (long long)sum.max_count, sum.max_count >= DW_COUNT_CAP ? " or more" : "");
		return 1;
	}
	return 0;
}
