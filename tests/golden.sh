#!/usr/bin/env bash
# Golden tests: for every DIR/NAME.pto with a DIR/NAME.expected,
#   PTOOPT DIR/NAME.pto   must exit 0, write nothing to stderr, and print
#                         exactly NAME.expected (byte for byte);
#   PTOOPT NAME.expected  must print NAME.expected again (the canonical form
#                         is a fixpoint of parse + print, text-format.md §9;
#                         run without NAME.args: passes need not be idempotent).
# An optional DIR/NAME.args holds extra arguments (one line, word-split).
#
# usage: golden.sh PTOOPT DIR [NAME...]
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 PTOOPT DIR [NAME...]" >&2
    exit 2
fi
tool=$1
dir=$2
shift 2

# a sanitizer report must never look like an ordinary exit code
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-golden.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

names=()
if [ $# -gt 0 ]; then
    names=("$@")
else
    for f in "$dir"/*.pto; do
        [ -e "$f" ] || continue
        n=$(basename "$f" .pto)
        if [ ! -f "$dir/$n.expected" ]; then
            echo "FAIL $n: no $n.expected beside $n.pto"
            names+=("__missing__$n")
            continue
        fi
        names+=("$n")
    done
fi

pass=0
fail=0
failed=()
for n in "${names[@]}"; do
    if [[ $n == __missing__* ]]; then
        fail=$((fail + 1))
        failed+=("${n#__missing__}")
        continue
    fi
    in="$dir/$n.pto"
    exp="$dir/$n.expected"
    args=()
    if [ -f "$dir/$n.args" ]; then
        read -r -a args < "$dir/$n.args" || true
    fi
    why=""
    timeout 30 "$tool" "${args[@]}" "$in" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        why="exit code $rc (expected 0)"
    elif [ -s "$tmp/err" ]; then
        why="unexpected output on stderr"
    elif ! cmp -s "$tmp/out" "$exp"; then
        why="stdout differs from $n.expected"
    else
        # the expected text must print back unchanged (parse + print only)
        ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" timeout 30 "$tool" "$exp" > "$tmp/out2" 2> "$tmp/err2"
        rc2=$?
        if [ $rc2 -ne 0 ]; then
            why="re-reading $n.expected: exit code $rc2"
            cp "$tmp/err2" "$tmp/err"
        elif ! cmp -s "$tmp/out2" "$exp"; then
            why="$n.expected does not print back unchanged"
            cp "$tmp/out2" "$tmp/out"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
        continue
    fi
    fail=$((fail + 1))
    failed+=("$n")
    echo "FAIL $n: $why"
    if [ -s "$tmp/err" ]; then
        echo "  stderr:"
        head -n 10 "$tmp/err" | sed 's/^/    /'
    fi
    if [ -s "$tmp/out" ] || [ $rc -eq 0 ]; then
        diff -u "$exp" "$tmp/out" --label "$n.expected" --label "actual" | head -n 40 | sed 's/^/  /'
    fi
done

echo "golden: $pass passed, $fail failed"
if [ $fail -gt 0 ]; then
    echo "failed: ${failed[*]}"
    exit 1
fi
exit 0
