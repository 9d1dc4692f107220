/* rules/layout.c - the rule kinds of the reference's data-movement and
 * layout families: memory (create, load, store, move, views), transforms
 * (reshape, transpose, concat, fillpad, slices), matmuls, gathers,
 * scatters and sorts, on tensors and tiles (data/ops.yaml's header
 * documents each kind's fields).
 */
#include "ptoopt/typerule.h"

const RuleKind typerule_layout[] = {
	{ NULL, NULL, NULL, NULL, false },
};
