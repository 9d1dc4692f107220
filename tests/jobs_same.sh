#!/usr/bin/env bash
# --jobs (parallel.c) changes nothing but the wall time: through
# convert-to-ssa,outline-incore,outline-cluster and through pypto-default
# (its ten passes all function by function; inline-functions only on a
# source without Inline functions), every .pto of the test data and every
# program of the conformance corpus gives the same stdout, stderr and exit
# status with -j1 (serial) as with -j2, which splits any program that can
# be cut between functions that do not call each other, whatever its size
# (and runs serially, reporting the same, where anything goes wrong).  The
# corpus programs go eight to a class (renamed copies, NAME__k: no call
# joins them), those that fail a pipeline each twice over (tests/corpus.py
# jobs).  Also a generated program of a few megabytes with the automatic
# --jobs and with -j3.
#
# Without CASES_DIR, testdata/bad is left out too.
#
# usage: jobs_same.sh PTOOPT SOURCE_ROOT [CASES_DIR]
set -u
tool=${1:?usage: $0 PTOOPT SOURCE_ROOT [CASES_DIR]}
root=${2:?usage: $0 PTOOPT SOURCE_ROOT [CASES_DIR]}
cases=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-jobs.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
# the file-by-file comparisons (tests/corpus.py jobs: one -j1 and one -j2
# run of each input through each pipeline, on two threads)
mkdir "$tmp/in"
if [ -n "$cases" ] && [ -d "$cases" ]; then
    python3 "$root/tests/corpus.py" jobs "$tool" "$tmp/in" --cases "$cases" "$root/testdata" "$root/tests/lit"
else
    # without the corpus (jobs-split, which the sanitizer build runs, where
    # a process costs ~0.1 s): the test data but its 342 small bad inputs
    python3 "$root/tests/corpus.py" jobs "$tool" "$tmp/in" "$root/tests/lit" \
        "$root"/testdata/{examples,fuzz-regressions,golden,jobs,pipeline}
fi
[ $? -eq 0 ] || bad=$((bad + 1))
pipe=--passes=convert-to-ssa,outline-incore,outline-cluster
front=--passes=pypto-default
# a large program: the automatic choice splits it where there are two
# processors; -j1 never does
python3 "$root/bench/gen.py" --size 3000000 --style outline-heavy -o "$tmp/big.pto" || exit 2
"$tool" -j1 "$pipe" "$tmp/big.pto" >"$tmp/b1" 2>&1 || { echo "FAIL: big -j1"; bad=$((bad + 1)); }
"$tool" "$pipe" "$tmp/big.pto" >"$tmp/b2" 2>&1 || { echo "FAIL: big (automatic jobs)"; bad=$((bad + 1)); }
"$tool" -j3 "$pipe" "$tmp/big.pto" >"$tmp/b3" 2>&1 || { echo "FAIL: big -j3"; bad=$((bad + 1)); }
cmp -s "$tmp/b1" "$tmp/b2" || { echo "FAIL: big, automatic jobs differ from -j1"; bad=$((bad + 1)); }
cmp -s "$tmp/b1" "$tmp/b3" || { echo "FAIL: big, -j3 differs from -j1"; bad=$((bad + 1)); }
"$tool" -j1 "$front" "$tmp/big.pto" >"$tmp/b1" 2>&1 || { echo "FAIL: big pypto-default -j1"; bad=$((bad + 1)); }
"$tool" "$front" "$tmp/big.pto" >"$tmp/b2" 2>&1 || { echo "FAIL: big pypto-default (automatic jobs)"; bad=$((bad + 1)); }
cmp -s "$tmp/b1" "$tmp/b2" || { echo "FAIL: big pypto-default, automatic jobs differ from -j1"; bad=$((bad + 1)); }
# the runs in parts above are in parts (PTOOPT_DEBUG_JOBS says how each
# ran): the scan finds the functions of testdata/jobs/scan_parts.pto past
# its strings, comments and brackets; a docstring with a decorator line at
# the class's indentation (scan_edges.pto) fools it, which a worker's
# parse finds, and the run is serial; the big program goes in twelve parts
# (four per worker) taken by three workers
parts() {
    local want=$1 in=$2
    shift 2
    local got
    got=$(PTOOPT_DEBUG_JOBS=1 "$tool" "$@" "$in" 2>&1 >/dev/null | grep '^ptoopt: jobs: ')
    n=$((n + 1))
    if [ "$got" != "ptoopt: jobs: $want" ]; then
        bad=$((bad + 1))
        echo "FAIL: $in $*: want 'ptoopt: jobs: $want', got '$got'"
    fi
}
parts "parts: 2 in 2 workers" "$root/testdata/jobs/scan_parts.pto" -j2 "$pipe"
parts "parts: 2 in 2 workers" "$root/testdata/jobs/scan_parts.pto" -j2 "$front"
parts "serial: the parts did not give the serial result" "$root/testdata/jobs/scan_edges.pto" -j2 "$pipe"
# a worker's stderr goes nowhere: a pl.static_print's line (written while
# parsing) sends the program to the serial run, which writes it
parts "serial: the parts did not give the serial result" "$root/testdata/jobs/static_print.pto" -j2 "$pipe"
parts "parts: 12 in 3 workers" "$tmp/big.pto" -j3 "$pipe"
printf '%s\n' 'import pypto.language as pl' '' '@pl.program' 'class One:' '    @pl.function' \
    '    def f(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:' '        return x' >"$tmp/one.pto"
parts "serial: one function only" "$tmp/one.pto" -j2 "$pipe"
parts "serial: a pass does not change one function at a time: infer-directions" "$tmp/big.pto" -j2 --passes=infer-directions
echo "jobs_same: $n more checks, $bad failed"
[ $bad -eq 0 ]
