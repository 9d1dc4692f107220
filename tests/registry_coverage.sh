#!/usr/bin/env bash
# Registry coverage (issue #2): every op the conformance corpus calls as
# pl.<namespace>.<op>(...) has an entry in data/ops.yaml, so that its
# arguments, effects and result type come from the registry rather than
# passing through unchecked.  Skipped (exit 77) without the corpus.
#
# usage: registry_coverage.sh OPS_YAML CASES_DIR [GROUP...]
# With groups, only those groups' cases are scanned (tests/meson.build lists
# the groups whose ops the registry covers by now); without, every case.
set -euo pipefail
ops=$1
cases=$2
shift 2
[ -d "$cases" ] || { echo "no corpus at $cases: skipped"; exit 77; }
dirs=("$cases")
if [ $# -gt 0 ]; then
    dirs=()
    for g in "$@"; do
        [ -d "$cases/$g" ] || { echo "no group $g under $cases"; exit 1; }
        dirs+=("$cases/$g")
    done
fi

mapfile -t used < <(find "${dirs[@]}" -name '*.pto' -exec cat {} + |
    grep -oE 'pl\.[a-z_]+\.[a-z_0-9]+\(' | sed 's/^pl\.//; s/($//' | sort -u)
# names the registry declares: "op: NAME" in a flow or a block mapping, and
# the DSL spellings of its sugar ("name: tile.max")
mapfile -t known < <({ grep -oE 'op: [a-z_]+\.[a-z_0-9]+' "$ops" | sed 's/^op: //'
                       grep -oE '\{name: [a-z_]+\.[a-z_0-9]+' "$ops" | sed 's/^{name: //'; } | sort -u)

missing=$(comm -23 <(printf '%s\n' "${used[@]}") <(printf '%s\n' "${known[@]}"))
echo "registry coverage: ${#used[@]} ops called in the corpus, ${#known[@]} in the registry"
if [ -n "$missing" ]; then
    echo "not in $ops:"
    printf '  %s\n' $missing
    exit 1
fi
[ "${#used[@]}" -gt 50 ] || { echo "suspiciously few ops found in the corpus"; exit 1; }
