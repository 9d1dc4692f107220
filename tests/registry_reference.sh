#!/usr/bin/env bash
# The registry against the reference's (issue #18), from data kept in the
# repository (tests/data/, taken from hw-native-sys/pypto e2d0f78a's
# src/ir/op: the REGISTER_OP names, test.* aside, and every set_arg_effect):
#   - `ptoopt --list-ops` lists every op the reference registers;
#   - every argument the reference declares written is written in ours, with
#     the same effect (write / readwrite), conditional ones conditional, but
#     for the differences of form tests/data/reference_writers_differences.txt
#     records with their reasons (each must still occur).
#
# usage: registry_reference.sh PTOOPT DATA_DIR
set -u
tool=${1:?usage: $0 PTOOPT DATA_DIR}
data=${2:?usage: $0 PTOOPT DATA_DIR}
list=$("$tool" --list-ops) || { echo "FAIL --list-ops exited $?"; exit 1; }
fail=0
n=$(grep -c . <<< "$list")
# (the DSL spells and / or / not with a trailing underscore: tile.and_)
names=$(sed -E 's/^(pl\.)?([^(]*)\(.*/\2/; s/_$//' <<< "$list" | sort -u)
missing=$(comm -23 <(sort -u "$data/reference_ops.txt") <(printf '%s\n' "$names"))
if [ -n "$missing" ]; then
    echo "FAIL $(grep -c . <<< "$missing") reference ops not in the registry:"; printf '  %s\n' $missing; fail=1
fi
echo "registry: $n ops listed, $(grep -c . "$data/reference_ops.txt") in the reference's list"
checked=0
known=0
while read -r op idx effect; do
    line=$(grep -E "^(pl\.)?${op//./\\.}_?\(" <<< "$list")
    [ -n "$line" ] || continue # reported above
    # the parameter at index idx: positional ones, then keyword ones
    sig=${line%%  writes: *}
    params=$(sed -E 's/^[^(]*\((.*)\)$/\1/' <<< "$sig" | tr -d ' *' | tr ',' '\n' | grep . | sed 's/=.*//')
    name=$(sed -n "$((idx + 1))p" <<< "$params")
    writes=""
    [[ $line == *"  writes: "* ]] && writes=${line#*  writes: }
    got=$(grep -oE "(^|, )$name \([^)]*\)" <<< "$writes" | sed -E 's/^(, )?//')
    case $effect in
        write) want="$name \(write\)" ;;
        readwrite) want="$name \(readwrite\)" ;;
        conditional) want="$name \([a-z]+; [a-z]+ when .*\)" ;;
    esac
    if ! grep -qxE "$want" <<< "$got"; then
        # a difference of form only, recorded with its reason
        if grep -q "^$op $idx " "$data/reference_writers_differences.txt"; then
            known=$((known + 1))
        else
            echo "FAIL $op argument $idx ($name): the reference's effect is $effect, ours: ${got:-read}"; fail=1
        fi
    fi
    checked=$((checked + 1))
done < "$data/reference_writers.txt"
echo "effects: $checked written arguments checked ($known recorded differences of form)"
listed=$(grep -vc '^#' "$data/reference_writers_differences.txt")
if [ "$known" -ne "$listed" ]; then
    echo "FAIL $listed differences recorded, $known met: remove the ones that no longer differ"; fail=1
fi
exit $fail
