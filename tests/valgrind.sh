#!/usr/bin/env bash
# valgrind memcheck over the test inputs (issue #8): every run of PTOOPT
# must be free of memcheck errors (invalid reads / writes, uses of
# uninitialised values, bad frees) and of leaks (definite, indirect and
# possible; memory still reachable at exit, like the process-wide op
# registry, is not a leak).
#
# usage: tests/valgrind.sh PTOOPT [--sample N] [CONFORMANCE_CASES_DIR]
#   Runs PTOOPT (a build without sanitizers) under valgrind on
#     testdata/golden/*.pto, testdata/examples/*.pto   parse + print
#     testdata/bad/*.pto                               error paths (exit 1)
#     testdata/fuzz-regressions/*.pto                  with their # ptoopt: options
#     every 10th conformance case (default ../shared/conformance/cases)
#                                                      with the case's args
#     one golden file with -o and from stdin
#   --sample N  only every N-th file of each group (a quicker check)
#   Cases run two at a time (PTOOPT_TEST_JOBS).  Exit 1 if any run had a
#   memcheck error or a leak; the log of each failing run is printed.
set -u
if [ $# -lt 1 ]; then
    echo "usage: $0 PTOOPT [--sample N] [CONFORMANCE_CASES_DIR]" >&2
    exit 2
fi
tool=$1
shift
sample=1
if [ "${1:-}" = --sample ]; then
    sample=$2
    shift 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
conf=${1:-$root/../shared/conformance/cases}
command -v valgrind > /dev/null || { echo "valgrind: not installed" >&2; exit 2; }
if ldd "$tool" 2>/dev/null | grep -q libasan; then
    echo "valgrind: $tool is a sanitizer build; use a plain one" >&2
    exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-vg.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

# ------------------------------------------------------------ the runs
# one line per run: ARGS|FILE (ARGS space-separated, may be empty)
list=$tmp/list
: > "$list"
add_group() { # every sample-th of the files given
    local i=0 f
    for f in "$@"; do
        [ -e "$f" ] || continue
        [ $((i++ % sample)) -eq 0 ] && printf '|%s\n' "$f" >> "$list"
    done
}
add_group "$root"/testdata/golden/*.pto "$root"/testdata/examples/*.pto
add_group "$root"/testdata/bad/*.pto
i=0
for f in "$root"/testdata/fuzz-regressions/*.pto; do
    [ -e "$f" ] || continue
    [ $((i++ % sample)) -eq 0 ] || continue
    printf '%s|%s\n' "$(sed -n '1s/^# ptoopt: *//p' "$f")" "$f" >> "$list"
done
if [ -d "$conf" ]; then
    i=0
    for d in "$conf"/*/*/; do
        [ -f "$d/input.pto" ] || continue
        [ $((i++ % (10 * sample))) -eq 0 ] || continue
        a=""
        [ -f "$d/args" ] && read -r a < "$d/args"
        printf '%s|%s\n' "$a" "$d/input.pto" >> "$list"
    done
else
    echo "valgrind: $conf not found; conformance sample skipped" >&2
fi

vg=(valgrind -q --tool=memcheck --error-exitcode=99 --leak-check=full
    --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --track-origins=yes)

# run_one K: runs every JOBS-th line starting at K; prints PASS/FAIL lines
run_one() {
    local k=$1 n=0 args file rc log=$tmp/log$1 out=$tmp/out$1
    while IFS='|' read -r args file; do
        if [ $((n++ % jobs)) -ne "$k" ]; then continue; fi
        read -r -a argv <<< "$args"
        "${vg[@]}" --log-file="$log" "$tool" "${argv[@]}" "$file" > /dev/null 2> "$out"
        rc=$?
        [ -e "$tmp/o.pto" ] && rm -f "$tmp/o.pto"
        if [ $rc -eq 99 ] || [ $rc -gt 1 ] || [ -s "$log" ]; then
            echo "FAIL $file ($args): exit $rc"
            sed 's/^/    /' "$log" | head -n 40
        else
            echo "PASS $file"
        fi
    done < "$list"
}
jobs=${PTOOPT_TEST_JOBS:-2}
for ((k = 0; k < jobs; k++)); do
    run_one "$k" > "$tmp/result$k" &
done
wait

# -o (the atomic rename path) and standard input, once each
g=$(ls "$root"/testdata/golden/*.pto | head -n 1)
"${vg[@]}" --log-file="$tmp/log-o" "$tool" -o "$tmp/o.pto" "$g" > /dev/null 2>&1
if [ $? -eq 0 ] && [ ! -s "$tmp/log-o" ]; then echo "PASS -o $g"; else echo "FAIL -o $g"; sed 's/^/    /' "$tmp/log-o"; fi >> "$tmp/result-x"
"${vg[@]}" --log-file="$tmp/log-in" "$tool" - < "$g" > /dev/null 2>&1
if [ $? -eq 0 ] && [ ! -s "$tmp/log-in" ]; then echo "PASS stdin $g"; else echo "FAIL stdin $g"; sed 's/^/    /' "$tmp/log-in"; fi >> "$tmp/result-x"

cat "$tmp"/result* | grep -v '^PASS ' || true
pass=$(cat "$tmp"/result* | grep -c '^PASS ')
fail=$(cat "$tmp"/result* | grep -c '^FAIL ')
echo "valgrind: $pass runs clean, $fail with memcheck errors or leaks"
[ "$fail" -eq 0 ]
