/* ir_walk.h - the walks every pass shares (ir_walk.c): visiting the Vars of
 * expressions and statements, rebuilding expressions and types with Vars
 * substituted, renaming the uses in a block, and cloning a block with fresh
 * variables (what inlining and unrolling need).
 *
 * The walks recurse as deep as the IR nests; the parser bounds that nesting
 * (blocks by the indentation limit, expressions by its own depth limit), and
 * passes only ever shorten or copy what it built. */
#ifndef PTOOPT_IR_WALK_H
#define PTOOPT_IR_WALK_H

#include "ptoopt/ir.h"

typedef void (*IrVarFn)(void *ctx, Var *v);

/* fn for every Var reference in e (operands, arguments, kwargs, attrs). */
void ir_expr_vars(const Expr *e, IrVarFn fn, void *ctx);
/* fn for every Var a statement defines or uses, its bodies included, in
 * source order: target / loop var, header expressions, iter args with their
 * inits, return vars, scope attributes (deps, no_dep args, dumps, tid,
 * core_num, predicate, count), then the bodies. */
void ir_stmt_vars(const Stmt *s, IrVarFn fn, void *ctx);
void ir_block_vars(const Block *b, IrVarFn fn, void *ctx);
/* fn for a scope's own Vars: deps, no_dep args, dumps, tid, and those of
 * core_num, predicate and count. */
void ir_scope_vars(const Scope *sc, IrVarFn fn, void *ctx);
/* ir_stmt_vars without the bodies: what the statement itself names (for a
 * simple statement, everything). */
void ir_stmt_header_vars(const Stmt *s, IrVarFn fn, void *ctx);
/* fn for every definition site of the reference's Assign / For / If /
 * While statements in b, in pre-order: an assignment target, a for loop's
 * variable and then its return vars, a while's or an if's return vars, each
 * before the statement's bodies (the same Var again when it is defined
 * again).  Not iter args, not a scope's tid or split_aiv variable. */
void ir_block_defs(const Block *b, IrVarFn fn, void *ctx);

/* A map from Var to a pointer, an array indexed by Var id (a program's
 * Vars are numbered in creation order): a lookup is one load, and clear()
 * costs what was set since the last one, so one table serves a whole pass
 * function after function.  NULL is "absent".  ids[0..nids) are the slots
 * set since the last clear, in no useful order (repeats possible, some
 * NULL again): for order-independent scans only. */
typedef struct VarTab {
	void **vals;   /* by Var id */
	size_t cap;
	unsigned *ids; /* slots set since the last clear (repeats possible) */
	size_t nids, cids;
} VarTab;

static inline void *vtab_get(const VarTab *t, const Var *v) { return v->id < t->cap ? t->vals[v->id] : NULL; }
void vtab_put(VarTab *t, const Var *v, void *val);
/* Room for the Vars of p without regrowth. */
void vtab_reserve(VarTab *t, const Program *p);
void vtab_clear(VarTab *t);
void vtab_release(VarTab *t);

/* A visit of every call (EX_OP_CALL, EX_FN_CALL, EX_SUBMIT) in a block, nested
 * calls and nested bodies included, in source order, each call before its
 * operands (a statement's header expressions before its bodies).  scope, when
 * set, is called on a scope statement before (enter) and after (!enter) its
 * body, for walks that track the scopes they are in.  s: the statement the
 * call belongs to. */
typedef struct IrCallWalk {
	void (*call)(void *ctx, const Stmt *s, const Expr *call);
	void (*scope)(void *ctx, const Stmt *s, bool enter);
	void *ctx;
} IrCallWalk;
void ir_block_walk_calls(const IrCallWalk *w, const Block *b);

/* A substitution: Vars to Vars (vars), Vars to expressions (exprs, for a
 * Var replaced by a value: a loop variable by its constant), and
 * optionally every node's type mapped through type().  Maps may be NULL. */
typedef struct IrSubst {
	Arena *a;
	const PtrMap *vars;   /* Var -> Var */
	const VarTab *vartab; /* Var -> Var, used instead of vars when set */
	const PtrMap *exprs;  /* Var -> Expr */
	Type *(*type)(void *ctx, Type *t);
	void *ctx;
	/* ir_type_subst: of a MemRef only a pinned one's slot index follows
	 * (the reference's RemapPinnedMemRefExprs, used by ConvertToSSA); when
	 * false, base, offset and index all do */
	bool memref_pinned_only;
	/* when set, called on every node but a Var or a literal before its
	 * operands are visited; a non-NULL result replaces the node as it is
	 * (the hook substitutes inside it itself when it needs to) */
	Expr *(*pre)(void *ctx, Expr *e);
	void *pre_ctx;
} IrSubst;

/* e rebuilt through the substitution; unchanged subtrees are shared
 * (expressions are immutable), so an untouched e is returned as is. */
Expr *ir_expr_subst(const IrSubst *sb, Expr *e);
/* A Var through sb->vars (itself when unmapped). */
Var *ir_var_subst(const IrSubst *sb, Var *v);
/* A type whose shape expressions (and view / memref expressions) go
 * through the substitution; t itself when nothing changes. */
Type *ir_type_subst(const IrSubst *sb, Type *t);
/* The uses in one statement's own header (not its bodies), in place. */
void ir_stmt_subst_header(const IrSubst *sb, Stmt *s);
/* Every use in a block, its nested bodies included, in place. */
void ir_block_subst(const IrSubst *sb, Block *b);

/* A deep copy of b in which every Var the block defines (assignment
 * targets, loop variables, iter args, return vars, a scope's tid and
 * split_aiv variable) is a new Var of the same name, with its type through
 * the substitution; uses go through the substitution and the new Vars.
 * vars: the Var -> Var map to use and extend (the caller seeds it with,
 * say, callee parameters -> argument Vars, and reads the new Vars from it
 * afterwards); exprs as in IrSubst.  rename, when set, names each new Var
 * from its original (NULL: the original's name). */
Block ir_block_clone(Program *p, const Block *b, PtrMap *vars, const PtrMap *exprs,
		     const char *(*rename)(void *ctx, Var *orig), void *ctx);

#endif
