/* pipeline.h - the pass registry and running a list of passes. */
#ifndef PTOOPT_PIPELINE_H
#define PTOOPT_PIPELINE_H

#include <stdbool.h>

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"

/* One KEY=VALUE setting for a pass (--pass-option PASS.KEY=VALUE). */
typedef struct PassOpt {
	const char *key, *value;
} PassOpt;

/* The settings given for one pass, in the order given; a later setting of
 * the same key wins (pipe_opt). */
typedef struct PassOpts {
	const PassOpt *items;
	int n;
} PassOpts;

/* An option a pass accepts.  values: the valid values joined by '|', or
 * NULL for a free comma-separated list the pass checks itself. */
typedef struct PassOptSpec {
	const char *key;
	const char *values;
} PassOptSpec;

typedef struct PassInfo {
	const char *name;
	const char *summary;
	/* NULL while the pass is not implemented yet */
	int (*run)(Program *p, Diag *d);
	bool produces_ssa;   /* the result is in SSA form (checked by --verify-each) */
	bool keeps_ssa;      /* SSA input stays SSA */
	/* A pass with options: the accepted keys (terminated by a NULL key) and
	 * the entry point that receives them (used instead of run). */
	const PassOptSpec *options;
	int (*run_opts)(Program *p, const PassOpts *o, Diag *d);
	/* The property the pass establishes, checked after it on every run (as
	 * the reference's pass context does); NULL when none. */
	bool (*verify_after)(Program *p, Diag *d);
	/* A structural property the pass requires of its input, checked before
	 * it runs; NULL when none. */
	bool (*verify_before)(Program *p, Diag *d);
} PassInfo;

/* Every --pass-option given, each tagged with its pass. */
typedef struct PipeOptions {
	const PassInfo **pass;
	PassOpt *opt;
	int n, cap;
} PipeOptions;

const PassInfo *pipe_passes(int *n);
const PassInfo *pipe_find(const char *name);

/* Split "a,b,c" and check every name; reports unknown names and returns
 * false.  On success *out holds the passes in order (malloc'd). */
bool pipe_parse_list(const char *list, const PassInfo ***out, int *n, Diag *d);
/* Check "PASS.KEY=VALUE" against the pass's option table and append it to
 * *o (the strings point into arg).  An unknown pass, key or value is
 * reported naming the valid choices, and false returned (a usage error). */
bool pipe_parse_option(const char *arg, PipeOptions *o, Diag *d);
void pipe_options_release(PipeOptions *o);
/* The value of key in o (the last setting wins), or NULL. */
const char *pipe_opt(const PassOpts *o, const char *key);

/* Run the passes in order, each with its options from opts (may be NULL);
 * with verify_each, the verifiers of the properties that hold run after
 * every pass.  Returns 0 on success, 1 after a reported error. */
int pipe_run(Program *p, const PassInfo **passes, int n, const PipeOptions *opts, Diag *d, bool verify_each);

#endif
