#!/usr/bin/env bash
# Allocation-failure sweep (issue #8), for a build configured with
# -Dalloc_fail=true (ideally with -Db_sanitize=address,undefined too):
# PTOOPT_FAIL_ALLOC_AT=N makes the N-th allocation fail.  For N = 1, 2, ...
# until a run no longer reaches its N-th allocation (it then succeeds),
# every run must
#   exit with 1 and print "ptoopt: error: out of memory" on stderr,
#   print nothing on stdout (the output is below the 1 MB streaming chunk),
#   leave neither the -o file nor a temporary file behind,
#   show no crash and no sanitizer report (LeakSanitizer included).
#
# usage: alloc_fail.sh PTOOPT FILE [PTOOPT OPTIONS...]
#   PTOOPT_ALLOC_MAX=N   stop after N (default: no limit)
#   PTOOPT_ALLOC_STEP=K  test every K-th N only (default 1)
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 PTOOPT FILE [OPTIONS...]" >&2
    exit 2
fi
tool=$1 file=$2
shift 2
max=${PTOOPT_ALLOC_MAX:-1000000}
step=${PTOOPT_ALLOC_STEP:-1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-oom.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
ulimit -t 60 2>/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}

# the hook must be compiled in: with an impossible N nothing fails, with
# N=1 the very first allocation does
if PTOOPT_FAIL_ALLOC_AT=1 "$tool" "$@" "$file" > /dev/null 2>&1; then
    echo "alloc_fail: $tool was not built with -Dalloc_fail=true" >&2
    exit 77   # meson: skipped
fi
"$tool" "$@" "$file" > "$tmp/want" 2> /dev/null || { echo "alloc_fail: $file fails without injection" >&2; exit 1; }

fail=0 n=0 tested=0
mkdir "$tmp/o"
while [ $n -lt $max ]; do
    n=$((n + step))
    # with -o on odd N, to stdout on even N: both output paths get swept
    if [ $((n % 2)) -eq 1 ]; then
        PTOOPT_FAIL_ALLOC_AT=$n "$tool" "$@" -o "$tmp/o/out.pto" "$file" > "$tmp/out" 2> "$tmp/err"
    else
        PTOOPT_FAIL_ALLOC_AT=$n "$tool" "$@" "$file" > "$tmp/out" 2> "$tmp/err"
    fi
    rc=$?
    tested=$((tested + 1))
    if [ $rc -eq 0 ]; then
        # the run made fewer than n allocations: the sweep is complete, and
        # the result must be the normal one
        if [ $((n % 2)) -eq 1 ]; then cmp -s "$tmp/o/out.pto" "$tmp/want"; else cmp -s "$tmp/out" "$tmp/want"; fi \
            || { echo "FAIL N=$n: succeeded with different output"; fail=$((fail + 1)); }
        break
    fi
    why=""
    if [ $rc -ne 1 ]; then
        why="exit code $rc"
    elif grep -aqE 'Sanitizer|runtime error:' "$tmp/err"; then
        why="sanitizer report"
    elif ! grep -aqx 'ptoopt: error: out of memory' "$tmp/err"; then
        why="no 'ptoopt: error: out of memory' line"
    elif [ -s "$tmp/out" ]; then
        why="stdout not empty"
    elif [ -n "$(ls -A "$tmp/o")" ]; then
        why="left in the -o directory: $(ls -A "$tmp/o" | tr '\n' ' ')"
        rm -f "$tmp/o"/* "$tmp/o"/.[!.]* 2>/dev/null
    fi
    if [ -n "$why" ]; then
        echo "FAIL N=$n: $why"
        head -n 5 "$tmp/err" | sed 's/^/    /'
        fail=$((fail + 1))
    fi
done
echo "alloc_fail: $file: $tested runs (N=$step..$n step $step), $fail failed"
[ $fail -eq 0 ]
