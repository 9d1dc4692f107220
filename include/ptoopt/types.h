/* types.h - type construction, comparison and scalar expression typing. */
#ifndef PTOOPT_TYPES_H
#define PTOOPT_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"

/* Structural equality (dims compared as expressions, vars by identity). */
bool type_equal(const Type *a, const Type *b);
bool expr_equal(const Expr *a, const Expr *b);
/* Calls, dicts and tuples compared in full as well (expr_equal: never equal
 * unless the same node, as dims). */
bool expr_equal_deep(const Expr *a, const Expr *b);
/* Structural hashes consistent with type_equal / expr_equal. */
uint64_t type_hash(const Type *t);
uint64_t expr_hash(const Expr *e);
/* Whether a variable of type a may be assigned a value of type b (the
 * reference's parser: equal but for memrefs and symbolic dims; an unknown
 * type matches any). */
bool type_reassignable(const Type *a, const Type *b);
/* The printed form of t into buf (truncated to n bytes). */
void type_to_string(const Type *t, char *buf, size_t n);
/* The type an assignment gives its target: annotation `ann` (may be NULL)
 * against the value's inferred type `vt` (may be NULL or unknown), by the
 * reference's rules (text-format.md §6.2).  NULL when neither gives a type,
 * or, with a message in err, when the annotation contradicts vt (name: the
 * target's, for the message). */
Type *type_for_assign(Arena *a, Type *ann, Type *vt, const char *name, char *err, size_t nerr);
/* pl.TensorView(stride=[], layout=<layout symbol>) */
ViewSpec *type_tensor_view_layout(Arena *a, const char *layout_symbol);

/* Scalar expressions with the reference's result-dtype rules.  Returns NULL
 * after reporting through d when the operands cannot be combined. */
Expr *type_make_binary(Arena *a, BinOp op, Expr *l, Expr *r, SrcPos pos, Diag *d);
Expr *type_make_unary(Arena *a, UnOp op, Expr *x, SrcPos pos, Diag *d);

#endif
