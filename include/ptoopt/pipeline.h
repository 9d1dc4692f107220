/* pipeline.h - the pass registry, pass contracts (IR properties), pipelines
 * (passes with per-step options) and running them. */
#ifndef PTOOPT_PIPELINE_H
#define PTOOPT_PIPELINE_H

#include <stdbool.h>

#include "ptoopt/diag.h"
#include "ptoopt/ir.h"
#include "ptoopt/strbuf.h"

/* One KEY=VALUE setting for a pass. */
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

/* IR properties a pass requires, produces or invalidates (the reference's
 * IRProperty names in pipe_property_name).  A property no pass mentions is
 * kept by it. */
typedef enum IRProp {
	PROP_SSA = 1u << 0,                /* SSAForm */
	PROP_INCORE_OUTLINED = 1u << 1,    /* SplitIncoreOrch */
	PROP_CLUSTERS_OUTLINED = 1u << 2,  /* ClusterOutlined */
	PROP_HIERARCHY_OUTLINED = 1u << 3, /* HierarchyOutlined */
	PROP_CALL_DIRECTIONS = 1u << 4,    /* CallDirectionsResolved */
	PROP_INLINED = 1u << 5,            /* InlineFunctionsEliminated */
	PROP_UNROLLED = 1u << 6,           /* UnrollResolved */
	PROP_STRUCTURED_CF = 1u << 7,      /* StructuredCtrlFlow */
	PROP_NORMALIZED = 1u << 8,         /* NormalizedStmtStructure */
	PROP_NO_NESTED_CALLS = 1u << 9,    /* NoNestedCalls */
} IRProp;
#define PROP_COUNT 10

typedef struct PassInfo {
	const char *name;
	const char *ref_name;  /* the reference's name (dump files: NN_after_<ref_name>.pto) */
	const char *summary;
	/* NULL while the pass is not implemented yet */
	int (*run)(Program *p, Diag *d);
	/* The pass contract: sets of IRProp bits. */
	unsigned requires, produces, invalidates;
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
	/* the structural properties (verify_structural.c) checked after it */
	bool structural_after;
	/* It changes one function at a time, looking at no other than those it
	 * calls, and adds only functions outlined from it: parallel.c may run
	 * it on parts of a program. */
	bool function_local;
	/* ... except on a source that holds this text (NULL: none): the pass
	 * then needs the whole program (inline-functions numbers its splices
	 * from one counter over all functions; a program without the word
	 * "Inline" has no Inline function to splice). */
	const char *local_unless;
} PassInfo;

/* One pass of a pipeline with its own options (malloc'd; the strings are
 * owned by whoever built the pipeline and must outlive it). */
typedef struct PipeStep {
	const PassInfo *pass;
	PassOpt *opts;
	int nopts, capopts;
} PipeStep;

typedef struct Pipeline {
	PipeStep *steps;
	int n, cap;
} Pipeline;

/* Every --pass-option given, each tagged with its pass. */
typedef struct PipeOptions {
	const PassInfo **pass;
	PassOpt *opt;
	int n, cap;
} PipeOptions;

const PassInfo *pipe_passes(int *n);
const PassInfo *pipe_find(const char *name);
/* "a, b, c": the known pass names (static buffer). */
const char *pipe_pass_names(void);
/* "; did you mean 'X'?" for a misspelt word among the comma-separated
 * names of list (NULL: the pass names), else "" (a static buffer). */
const char *pipe_did_you_mean(const char *word, size_t wl, const char *list);
/* The reference's name of one property bit ("SSAForm"), and words for
 * messages ("SSA form"). */
const char *pipe_property_name(unsigned bit);
const char *pipe_property_words(unsigned bit);

/* Check KEY=VALUE for pass pi: NULL if valid, otherwise a message naming the
 * valid choices (static buffer). */
const char *pipe_check_option(const PassInfo *pi, const char *key, size_t keylen, const char *value);

/* Append "a,b{k=v},c" to *pl (inline options in braces; inside them an item
 * without '=' continues the previous value, so functions=f,g works).  The
 * strings are copied into the pipeline.  Unknown pass, key or value is
 * reported naming the valid choices and false returned (a usage error). */
bool pipe_parse_list(const char *list, Pipeline *pl, Diag *d);
/* Append a step / an option of the last step (strings are copied). */
PipeStep *pipe_add_step(Pipeline *pl, const PassInfo *pi);
void pipe_step_set(PipeStep *s, const char *key, const char *value);
void pipe_release(Pipeline *pl);
/* Write the pipeline in the inline form of --passes. */
void pipe_format_inline(StrBuf *b, const Pipeline *pl);

/* Check "PASS.KEY=VALUE" against the pass's option table and append it to
 * *o (the strings point into arg).  An unknown pass, key or value is
 * reported naming the valid choices, and false returned (a usage error). */
bool pipe_parse_option(const char *arg, PipeOptions *o, Diag *d);
void pipe_options_release(PipeOptions *o);
/* Add every --pass-option to each step of its pass (after the step's own
 * options, so they win). */
void pipe_apply_options(Pipeline *pl, const PipeOptions *o);
/* The value of key in o (the last setting wins), or NULL. */
const char *pipe_opt(const PassOpts *o, const char *key);

/* Before running anything: every pass's required properties hold where it
 * runs, given what earlier passes produce and invalidate and, for the rest,
 * what the input program already satisfies (checked on the IR, only when a
 * pass needs it).  A violation is reported with the pass list that would
 * work, and false returned. */
bool pipe_check_contracts(Program *p, const Pipeline *pl, Diag *d);

/* Observers of a run (any may be NULL). */
typedef struct PipeHooks {
	bool verify_each;   /* the verifiers of every property that holds, after each pass */
	/* after step i ran successfully, with its wall time in seconds */
	int (*after_pass)(void *ctx, int i, const PipeStep *s, Program *p, double seconds);
	void *ctx;
	/* before step i runs */
	int (*before_pass)(void *ctx, int i, const PipeStep *s, Program *p);
} PipeHooks;

/* Run the steps in order.  Returns 0 on success, 1 after a reported error. */
int pipe_run(Program *p, const Pipeline *pl, const PipeHooks *hooks, Diag *d);

/* A named pipeline (--passes=pypto-default): its passes as a --passes
 * list, or NULL when name[0..len) names none. */
const char *pipe_preset(const char *name, size_t len);
/* The presets, for --list-passes: name, expansion and a one-line summary;
 * *n receives the count. */
typedef struct PipePreset {
	const char *name, *passes, *summary;
} PipePreset;
const PipePreset *pipe_presets(int *n);

#endif
