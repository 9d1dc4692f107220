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

tool=${1:?usage: $0 PTOOPT [CASES_DIR]}
cases=${2:-$(dirname "$0")/../../shared/conformance/cases}
if [ ! -d "$cases" ]; then
    echo "directions_corpus: $cases not found; skipped"
    exit 77
fi
shift $(( $# < 2 ? $# : 2 ))
dirs=("$cases")
if [ $# -gt 0 ]; then
    dirs=()
    for g in "$@"; do
        [ -d "$cases/$g" ] || { echo "directions_corpus: no group $g under $cases"; exit 1; }
        dirs+=("$cases/$g")
    done
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}

# Names of the handled functions in a file, one per line: the decorator
# names the type, the next `def` the function.
handled() {
    awk '/@pl\.function\(type=pl\.FunctionType\.(InCore|AIC|AIV|Group|Spmd)[,)]/ { want = 1; next }
         want && /^[ \t]*def [A-Za-z_0-9]+\(/ { sub(/^[ \t]*def /, ""); sub(/\(.*/, ""); print; want = 0 }
         /^[ \t]*@/ { want = 0 }' "$1"
}

run() { "$tool" --passes=infer-directions "$@" 2>/dev/null; }

# One file -> one line: FILE then the tokens it earned (outlined, outlined-ok,
# all-ok, fixed, idem, idem-fail, error).
check() {
    local f=$1 names want d mine="" got once twice rc
    names=$(handled "$f")
    [ -n "$names" ] || return 0
    want=$(cat "$f")
    d=$(dirname "$f")
    local out="$f"
    if [ -f "$d/input.pto" ]; then
        while IFS= read -r n; do
            grep -qE "def $n\(" "$d/input.pto" || mine="$mine${mine:+,}$n"
        done <<< "$names"
    fi
    if [ -n "$mine" ]; then
        out="$out outlined"
        got=$(run --pass-option infer-directions.reset=true --pass-option "infer-directions.functions=$mine" "$f") &&
            [ "$got" == "$want" ] && out="$out outlined-ok"
    fi
    if [ "$mine" == "$(paste -sd, <<< "$names")" ]; then
        # every handled function is outlined: the same run as above
        [[ $out == *outlined-ok ]] && out="$out all-ok"
    else
        got=$(run --pass-option infer-directions.reset=true "$f") && [ "$got" == "$want" ] && out="$out all-ok"
    fi
    once=$(run "$f")
    rc=$?
    if [ $rc -eq 1 ]; then
        echo "$out rejected"
        return 0
    elif [ $rc -ne 0 ]; then
        echo "$out error"
        return 0
    fi
    [ "$once" == "$want" ] && out="$out fixed"
    twice=$("$tool" --passes=infer-directions,infer-directions "$f" 2>/dev/null)
    if [ "$once" == "$twice" ]; then out="$out idem"; else out="$out idem-fail"; fi
    echo "$out"
}
export -f check handled run
export tool

results=$(grep -rlE --include=expected.pto 'type=pl\.FunctionType\.(InCore|AIC|AIV|Group|Spmd)[,)]' "${dirs[@]}" |
    sort | xargs -r -P "$(nproc 2>/dev/null || echo 4)" -I{} bash -c 'check "$1"' _ {} | sort)
count() { grep -c " $1\b" <<< "$results"; }
files=$(grep -c . <<< "$results")
outlined=$(count outlined)
outlined_ok=$(count outlined-ok)
all_ok=$(count all-ok)
fixed_ok=$(count fixed)
idem_ok=$(count idem)
crashes=$(count error)
rejected=$(count rejected)
mapfile -t outlined_fail < <(awk '/ outlined/ && !/ outlined-ok/ { print $1 }' <<< "$results")
mapfile -t idem_fail < <(awk '/ idem-fail/ { print $1 }' <<< "$results")
mapfile -t crash_fail < <(awk '/ error/ { print $1 }' <<< "$results")
mapfile -t rejected_files < <(awk '/ rejected/ { print $1 }' <<< "$results")

echo "infer-directions corpus: $files files with InCore/AIC/AIV/Group/Spmd functions"
echo "  reset -> infer, outlined functions: $outlined_ok / $outlined match (baseline $BASE_OUTLINED)"
echo "  reset -> infer, all such functions: $all_ok / $files match (baseline $BASE_ALL)"
echo "  idempotent (twice == once):        $idem_ok / $((files - crashes - rejected))"
echo "  expected.pto is a fixed point:     $fixed_ok / $((files - crashes - rejected))"
echo "  rejected with a located error:     $rejected"
for f in "${outlined_fail[@]}"; do echo "  outlined mismatch: $f"; done
for f in "${rejected_files[@]}"; do echo "  rejected: $f"; done

status=0
for f in "${crash_fail[@]}"; do echo "FAIL error: $f"; status=1; done
for f in "${idem_fail[@]}"; do echo "FAIL not idempotent: $f"; status=1; done
if [ "$outlined_ok" -lt "$BASE_OUTLINED" ]; then
    echo "FAIL outlined reset matches dropped below the baseline ($outlined_ok < $BASE_OUTLINED)"
    status=1
fi
if [ "$all_ok" -lt "$BASE_ALL" ]; then
    echo "FAIL reset matches dropped below the baseline ($all_ok < $BASE_ALL)"
    status=1
fi
exit $status
