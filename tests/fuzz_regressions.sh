#!/usr/bin/env bash
# Fuzzer findings (testdata/fuzz-regressions/): every input must exit 0 or 1
# with no signal and no sanitizer report (which a sanitizer build of
# PTOOPT turns every leak / UB / memory error into).  A first line
# "# ptoopt: ARGS" gives the options.  Names in DIR/KNOWN_FAILING are
# findings not fixed yet: XFAIL while they fail, XPASS (a failure, so the
# list is kept honest) once they pass in a sanitizer build.
#
# usage: fuzz_regressions.sh PTOOPT DIR
set -u
tool=$1 dir=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-fr.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
ulimit -t 60 2>/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}
# the known findings are leaks and UB that only a sanitizer build sees
sanitized=0
ldd "$tool" 2>/dev/null | grep -q libasan && sanitized=1
pass=0 fail=0 xfail=0
for f in "$dir"/*.pto; do
    [ -e "$f" ] || continue
    n=${f##*/}; n=${n%.pto}
    read -r -a args < <(sed -n '1s/^# ptoopt://p' "$f"; echo)
    "$tool" "${args[@]}" "$f" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    why=""
    if [ $rc -ge 128 ]; then why="killed by signal $((rc - 128))"
    elif grep -aqE 'Sanitizer|runtime error:' "$tmp/err"; then why="sanitizer report"
    elif [ $rc -gt 1 ]; then why="exit code $rc"
    elif [ $rc -eq 1 ] && [ -s "$tmp/out" ]; then why="stdout not empty on failure"
    fi
    known=0
    grep -q "^$n:" "$dir/KNOWN_FAILING" 2>/dev/null && known=1
    if [ -n "$why" ] && [ $known -eq 1 ]; then
        xfail=$((xfail + 1)); echo "XFAIL $n: $why"
    elif [ -n "$why" ]; then
        fail=$((fail + 1)); echo "FAIL $n: $why"; head -n 5 "$tmp/err" | sed 's/^/    /'
    elif [ $known -eq 1 ] && [ $sanitized -eq 1 ]; then
        fail=$((fail + 1)); echo "XPASS $n: passes now; remove it from KNOWN_FAILING (and tests/fuzz/*.supp)"
    else
        pass=$((pass + 1))
    fi
done
echo "fuzz regressions: $pass passed, $xfail known failing, $fail failed"
[ $fail -eq 0 ]
