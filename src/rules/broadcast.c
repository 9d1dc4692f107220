/* rules/broadcast.c - the rule kinds of the reference's row / column
 * expansion, partial-op and reduction families, on tensors and tiles
 * (data/ops.yaml's header documents each kind's fields).
 */
#include "ptoopt/typerule.h"

const RuleKind typerule_broadcast[] = {
	{ NULL, NULL, NULL, NULL, false },
};
