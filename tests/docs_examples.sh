#!/usr/bin/env bash
# The examples of docs/language.md are true: for each ```python block (with
# the options of an "args: ..." line just before it) ptoopt prints exactly
# the ```text block that follows it (the reference's print of the same
# input, recorded when the page was written).
#
# usage: docs_examples.sh PTOOPT PAGE
set -u
tool=${1:?usage: $0 PTOOPT PAGE}
page=${2:?usage: $0 PTOOPT PAGE}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-docs.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# split the page: NN.pto, NN.expected, NN.args
awk -v dir="$tmp" '
    /^args: / { args = substr($0, 7); next }
    /^```python$/ { n++; f = sprintf("%s/%02d.pto", dir, n); printf "%s\n", args > sprintf("%s/%02d.args", dir, n); args = ""; inb = 1; next }
    /^```text$/ { f = sprintf("%s/%02d.expected", dir, n); inb = 1; next }
    /^```$/ { inb = 0; next }
    /^$/ { if (!inb) next }
    { if (inb) print > f; else if ($0 !~ /^args: /) args = "" }
' "$page"
pass=0
fail=0
for f in "$tmp"/*.pto; do
    n=${f%.pto}
    read -r -a args < "$n.args"
    if [ ! -f "$n.expected" ]; then
        echo "FAIL example $(basename "$n"): no text block after it"; fail=$((fail + 1)); continue
    fi
    if "$tool" "${args[@]}" "$f" > "$n.out" 2> "$n.err" && cmp -s "$n.out" "$n.expected"; then
        pass=$((pass + 1))
    else
        echo "FAIL example $(basename "$n") (${args[*]}):"; diff "$n.expected" "$n.out" | head -20; head -5 "$n.err"; fail=$((fail + 1))
    fi
done
echo "docs examples: $pass passed, $fail failed"
[ $pass -gt 0 ] && [ $fail -eq 0 ]
