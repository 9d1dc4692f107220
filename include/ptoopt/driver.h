/* driver.h - one ptoopt invocation once its options are known: per input
 * file read, parse, check the pass contracts, run the pipeline with its
 * observers (--print-after-all, --print-changed, --dump-dir, --time-passes),
 * then print, diff, or compare with a golden file. */
#ifndef PTOOPT_DRIVER_H
#define PTOOPT_DRIVER_H

#include <stdbool.h>

#include "ptoopt/pipeline.h"

typedef enum OutputMode { OUT_PROGRAM, OUT_DIFF } OutputMode;
typedef enum ExpectMode { EXPECT_TEXT, EXPECT_STRUCTURAL } ExpectMode;

typedef struct DriverConfig {
	Pipeline pipeline;
	PipeOptions pass_options;  /* --pass-option, applied to the pipeline before running */
	bool verify_each;
	int jobs;                  /* --jobs: worker processes for a pipeline (0: automatic, parallel.c) */
	OutputMode output_mode;
	const char *output;        /* -o FILE or DIR; NULL: stdout */
	bool in_place;
	const char *dump_dir;
	bool print_after_all, print_changed, time_passes;
	bool print_before_all;
	const char *print_before, *print_after; /* --print-ir-before/after=PASS,PASS */
	const char *print_function;  /* --print-ir-function=NAME,NAME: dumps show only these */
	bool split_input;            /* --split-input-file: programs separated by "# -----" */
	bool verify_diagnostics;     /* --verify-diagnostics */
	bool check_lossless;         /* --check-lossless: report dropped text, write nothing */
	bool allow_lossy;            /* --allow-lossy: -i may drop text */
	bool color;                /* resolved from --color and the terminal */
	const char *expect;        /* golden file */
	ExpectMode expect_mode;
	bool update;               /* rewrite the golden file */
	const char **inputs;       /* "-" is standard input */
	int ninputs;
	char **ops_files;          /* registry files loaded so far (for --print-pipeline) */
	int nops;
	char **owned;              /* strings the config owns (from a YAML file) */
	int nowned;
} DriverConfig;

/* Run every input; returns the exit code (0, or 1 when any input failed or
 * a golden comparison differed). */
int driver_run(DriverConfig *c);
void driver_config_release(DriverConfig *c);
/* Keep a copy of s for the life of the config. */
const char *driver_keep(DriverConfig *c, const char *s);


#endif
