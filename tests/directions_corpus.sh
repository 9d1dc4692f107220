#!/usr/bin/env bash
# infer-directions over the conformance corpus (issue #6).
#
# For every expected.pto holding functions of type InCore / AIC / AIV /
# Group / Spmd:
#   reset    strip those functions' directions to In and infer them again
#            (--pass-option infer-directions.reset=true); the output must
#            equal expected.pto, since only directions change.  Counted two
#            ways: "outlined" restricts the reset to the functions the
#            reference's outliners created (in expected.pto but not defined
#            in input.pto) - the issue's criterion, since a hand-written
#            kernel's declared direction is not always derivable from its
#            body (stub bodies, human choices); "all" resets every handled
#            function.
#   idem     running the pass twice gives what running it once gives.
#   fixed    running the pass on expected.pto reproduces it (informational).
# A file ptoopt rejects with a located error (exit 1: the program breaks a
# rule the pipeline checks before the pass, as some captured reference
# prints do) is counted as rejected and listed; any other non-zero exit is
# a crash.  Fails on any idempotence failure, on a crash, or when a reset
# count drops below the recorded baseline.  Skips (77) when the corpus is missing.
# The work is tests/corpus.py's: the runs with the same options for every
# file go through one --split-input-file process per batch, the rest (the
# outlined reset, and whatever a batch could not tell) one process each.
#
# usage: directions_corpus.sh PTOOPT [CASES_DIR [GROUP...]]
# With groups, only those groups' cases are checked (tests/meson.build lists
# the groups whose programs ptoopt reads by now); without, every case.
set -u

# Measured over the groups tests/meson.build passes (the first corpus's
# twelve, ops, ops-canon, wide and front); raise them as the pass improves.
# The outlined misses are the `wide` / `front` / `ops` cases whose expected
# files keep the reference's directions where the seeds differ.
BASE_OUTLINED=1109
BASE_ALL=4554

tool=${1:?usage: $0 PTOOPT [CASES_DIR [GROUP...]]}
cases=${2:-$(dirname "$0")/../../shared/conformance/cases}
shift $(( $# < 2 ? $# : 2 ))
exec python3 "$(dirname "$0")/corpus.py" directions "$tool" "$cases" "$BASE_OUTLINED" "$BASE_ALL" "$@"
