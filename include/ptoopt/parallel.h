/* parallel.h - a pipeline of function-local passes run on the functions of
 * one program in parts, each part in a worker process, and the parts'
 * printed text joined into what a serial run prints. */
#ifndef PTOOPT_PARALLEL_H
#define PTOOPT_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

#include "ptoopt/ir.h"
#include "ptoopt/pipeline.h"
#include "ptoopt/strbuf.h"

/* Below this much input, jobs = 0 (automatic) runs serially: starting the
 * workers costs more than they save. */
#define PAR_AUTO_MIN_BYTES ((size_t)256 << 10)

/* Parse the program src[0..len) and run pl on it in up to jobs worker
 * processes (0: one per processor to run on, for an input large enough to
 * gain from it; 1: never): the parts' printed texts, joined by par_print.
 * Returns NULL, having said nothing, when it did not: the pipeline is
 * not made of function-local passes, the input is not one program class
 * that can be cut between functions that do not call each other, a worker
 * met an error or a warning, or the parts do not join into exactly the
 * serial result.  The caller then runs serially, which reports whatever a
 * worker met. */
typedef struct ParResult ParResult;
ParResult *par_run(const char *src, size_t len, const Pipeline *pl, int jobs);
/* The result's text, as print_program of the serial run writes it (out
 * may stream to a sink: nothing of the whole is held twice). */
void par_print(const ParResult *r, StrBuf *out);
void par_result_free(ParResult *r);

#endif
