/* rules/system.c - the rule kinds of the reference's system, sync,
 * cross-core, array, prefetch and distributed (pld / builtin / dist) ops
 * (data/ops.yaml's header documents each kind's fields).
 */
#include "ptoopt/typerule.h"

const RuleKind typerule_system[] = {
	{ NULL, NULL, NULL, NULL, false },
};
