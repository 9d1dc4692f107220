/* sugar.h - lowering of DSL op calls to canonical ops, with argument
 * defaults and result types from the op registry (op_registry.h).
 *
 * `pl.add(x, 1.0)` on a Tensor becomes `pl.tensor.adds(x, 1.0)` typed like x;
 * `pl.load(a, offs, shape)` becomes `pl.tile.load(a, offs, shape, shape,
 * target_memory=pl.Mem.Vec)` typed pl.Tile[shape, dtype, pl.Mem.Vec].
 * Canonical calls go through the same binding, so keyword spellings of
 * positional parameters and omitted defaults print canonically too.
 *
 * Ops the registry does not know print as written and get no type: that is
 * only an error where the type is needed (an unannotated assignment, or an
 * argument whose kind an op checks).
 */
#ifndef PTOOPT_SUGAR_H
#define PTOOPT_SUGAR_H

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"
#include "ptoopt/op_registry.h"

typedef struct SugarCtx {
	Arena *a;         /* the program's arena */
	Diag *d;
	OpRegistry *reg;
	PtrMap infos;     /* program-interned name -> its OpInfo (sugar.c): the
			   * registry entries and names a call needs, made once */
	PtrMap symbols;   /* interned pl.* symbol -> its dtype / memory space */
	/* the infos entries met lately, direct-mapped by name pointer: most
	 * calls find theirs here without a map lookup */
	struct { const char *name; struct OpInfo *info; } recent[64];
	/* likewise for symbols: the dtypes and memory spaces of recent calls */
	struct { const char *name; uintptr_t meaning; } recent_symbols[16];
} SugarCtx;

void sugar_init(SugarCtx *c, Arena *a, Diag *d, OpRegistry *reg);
void sugar_release(SugarCtx *c);
/* Lower the parsed call (EX_OP_CALL, str = name without "pl."), setting its
 * type; returns the expression to use instead (the call itself or a scalar
 * expression), or NULL after reporting an error through c->d. */
Expr *sugar_lower_call(SugarCtx *c, Expr *call);
/* The registry entry of a canonical op name (program-interned), or NULL. */
const OpDef *sugar_op(SugarCtx *c, const char *name);

#endif
