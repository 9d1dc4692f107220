/* normalize_stmt_structure.c - the reference's NormalizeStmtStructure.
 *
 * The reference's statement sequences (SeqStmts) may nest and may hold a
 * single statement; the pass flattens nested sequences into their parent
 * and replaces a one-statement sequence by that statement, in every body
 * (function, if / else, loops, scopes).  An empty sequence stays (an empty
 * branch prints as `pass`), and nothing else changes: no statement is
 * dropped, moved or rewritten, so the printed program is the same.
 *
 * Here a body is always one flat list of statements (Block), which is the
 * normal form already: nested sequences cannot be represented and a
 * one-statement list is the same thing as a single statement.  The pass
 * therefore changes nothing; what it establishes, NormalizedStmtStructure,
 * is verified after it as the reference does (verify_normalized: the one
 * part of that property a flat list can break, a yield that is not the
 * last statement of its block).  Checked against the reference on
 * Simplify-shaped programs (emptied branches and loop bodies, single-
 * statement bodies, scopes): its output always equals its input's print.
 *
 * Requires nothing; produces NormalizedStmtStructure.
 */
#include "ptoopt/passes.h"

int normalize_stmt_structure_program(Program *p, Diag *d)
{
	(void)d;
	p->unchanged = true;
	return 0;
}
