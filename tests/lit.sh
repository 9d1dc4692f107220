#!/usr/bin/env bash
# The pass-test workflow (issue #21), as a user of it works: every
# DIR/NAME.pto holds several programs separated by '# -----' lines, with
# the diagnostics they must produce written as '# expected-error...'
# comments; DIR/NAME.args (optional) the passes; DIR/NAME.expected the
# joined results, each part as the reference prints it.
#   ptoopt --split-input-file --verify-diagnostics ARGS NAME.pto --expect=NAME.expected
# must exit 0.  Then the same with one expectation removed must fail (so
# the check is live), and with --expect of a changed golden file.
#
# usage: lit.sh PTOOPT DIR
set -u
tool=${1:?usage: $0 PTOOPT DIR}
dir=${2:?usage: $0 PTOOPT DIR}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-lit.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1}
pass=0
fail=0
for f in "$dir"/*.pto; do
    n=$(basename "$f" .pto)
    args=()
    [ -f "$dir/$n.args" ] && read -r -a args < "$dir/$n.args"
    if "$tool" --split-input-file --verify-diagnostics "${args[@]}" "$f" --expect="$dir/$n.expected" > "$tmp/out" 2> "$tmp/err"; then
        pass=$((pass + 1))
    else
        echo "FAIL $n:"; sed 's/^/    /' "$tmp/out" "$tmp/err" | head -40; fail=$((fail + 1))
    fi
    # live: dropping the first expectation must be noticed
    if grep -q 'expected-error' "$f"; then
        sed '0,/expected-error/s/expected-error/expected-nothing/' "$f" > "$tmp/$n.pto"
        if "$tool" --split-input-file --verify-diagnostics "${args[@]}" "$tmp/$n.pto" > /dev/null 2> "$tmp/err"; then
            echo "FAIL $n: an unexpected error went unnoticed"; fail=$((fail + 1))
        elif ! grep -q 'unexpected error' "$tmp/err"; then
            echo "FAIL $n: no 'unexpected error' line:"; sed 's/^/    /' "$tmp/err"; fail=$((fail + 1))
        else
            pass=$((pass + 1))
        fi
    fi
    # live: an expectation nothing meets must be reported
    sed '1a # expected-warning@+1 {{never produced}}' "$f" > "$tmp/$n.pto"
    if "$tool" --split-input-file --verify-diagnostics "${args[@]}" "$tmp/$n.pto" > /dev/null 2> "$tmp/err"; then
        echo "FAIL $n: an unmet expectation went unnoticed"; fail=$((fail + 1))
    elif ! grep -q "$(basename "$tmp/$n.pto"):3: expected warning {{never produced}} (written on line 2) was not produced" "$tmp/err"; then
        echo "FAIL $n: no 'was not produced' line:"; sed 's/^/    /' "$tmp/err"; fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done
echo "lit: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
