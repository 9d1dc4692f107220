/* arith.h - the reference's arithmetic analyzer (src/ir/arith/), for the
 * simplify pass and for anything else that folds scalar expressions.
 *
 * Three layers:
 *   - construction with the reference's dtype promotion (arith_make_binary:
 *     wider dtype wins, ties go left, a Cast on the other side except
 *     between INDEX and INT64) and its TypeError messages;
 *   - constant folding of one node (arith_fold_binary / arith_fold_unary:
 *     literals, x + 0, x * 1, min(x, x), true && x, ...), usable on a plain
 *     Expr without an analyzer;
 *   - the Analyzer: a rewrite simplifier (the reference's rule list, in its
 *     order, with its recursion limit), constant-integer bounds, a
 *     transitive comparison table, symbolic integer sets and a standalone
 *     canonical (sum-of-terms) simplifier, with variable bindings and
 *     scoped constraints.
 *
 * Errors the reference raises while building expressions (TypeError on
 * mixed float / int operands, bool operands, division by a zero constant)
 * are sticky on the analyzer: the first message is kept (arith_error) and
 * every later call still returns some well-formed expression, so a caller
 * checks once per statement. */
#ifndef PTOOPT_ARITH_H
#define PTOOPT_ARITH_H

#include <stdbool.h>
#include <stdint.h>

#include "ptoopt/ir.h"

#define ARITH_POS_INF INT64_MAX
#define ARITH_NEG_INF (-INT64_MAX)

typedef struct ArithBound {
	int64_t lo, hi; /* inclusive; ARITH_NEG_INF / ARITH_POS_INF unbounded */
} ArithBound;

typedef struct Analyzer Analyzer;

/* The scalar dtype of e (constants by their own dtype), or -1. */
int arith_dtype(const Expr *e);

/* Folding of one node whose operands are already what they are; NULL when
 * nothing folds.  err (may be NULL) receives a message for a fold the
 * reference rejects (division by a zero constant); the result is then NULL. */
Expr *arith_fold_binary(Arena *a, BinOp op, Expr *l, Expr *r, const char **err);
Expr *arith_fold_unary(Arena *a, UnOp op, Expr *x);

Analyzer *arith_new(Arena *a);
void arith_free(Analyzer *an);

/* The first error met, or NULL. */
const char *arith_error(const Analyzer *an);

/* A binary / unary / cast node with the reference's promotion (MakeAdd, ...). */
Expr *arith_make_binary(Analyzer *an, BinOp op, Expr *l, Expr *r);
Expr *arith_make_unary(Analyzer *an, UnOp op, Expr *x);

/* Analyzer::Simplify: two rounds of the rewrite simplifier. */
Expr *arith_simplify(Analyzer *an, Expr *e);
bool arith_can_prove(Analyzer *an, Expr *cond);
bool arith_can_prove_ge(Analyzer *an, Expr *e, int64_t v);
ArithBound arith_bound(Analyzer *an, Expr *e);

/* Bindings: a value (substituted into later simplifications), an integer
 * range [lo, hi_excl), only a bound, and their removal. */
void arith_bind_value(Analyzer *an, Var *v, Expr *value);
void arith_bind_range(Analyzer *an, Var *v, int64_t lo, int64_t hi_excl);
void arith_update_bound(Analyzer *an, Var *v, ArithBound b);
void arith_unbind(Analyzer *an, Var *v);

/* A scoped constraint (the reference's ConstraintContext): enter returns a
 * handle that exit takes back; contexts nest and are exited in reverse. */
int arith_enter_constraint(Analyzer *an, Expr *cond);
void arith_exit_constraint(Analyzer *an, int handle);

/* Expressions equal as the rewrite rules compare them (constants by value
 * and dtype, vars by identity, the rest structurally). */
bool arith_expr_equal(const Expr *a, const Expr *b);

#endif
