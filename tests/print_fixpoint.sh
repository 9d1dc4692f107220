#!/usr/bin/env bash
# print(parse(print(x))) == print(x): for every input that ptoopt accepts
# (the .pto files under each DIR: the repository's test data and, when it
# is there, the whole conformance corpus, each distinct text once), its
# print must parse again and print to the same bytes.  A print the parser
# rejects, or one that is not a fixed point (a name printed twice and
# renamed on the second round), fails the test.
#
# usage: print_fixpoint.sh PTOOPT DIR...   (a missing DIR is skipped)
set -u
tool=${1:?usage: $0 PTOOPT DIR...}
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-fixpoint.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
for d in "$@"; do
    [ -d "$d" ] && find "$d" -name '*.pto' -type f -print0
done | xargs -0 -r md5sum | sort | awk '!seen[$1]++ { sub(/^[0-9a-f]+  /, ""); print }' > "$tmp/list"
# two workers, each over every other file; a worker writes one line per
# failure and a final count of the inputs it checked
check() {
    local k=$1 n=0 i=0
    while IFS= read -r f; do
        i=$((i + 1))
        [ $((i % 2)) -eq "$k" ] || continue
        "$tool" "$f" > "$tmp/a$k" 2> /dev/null || continue
        n=$((n + 1))
        if ! "$tool" "$tmp/a$k" > "$tmp/b$k" 2> "$tmp/e$k"; then
            echo "FAIL $f: its print does not parse: $(head -n 1 "$tmp/e$k")"
        elif ! cmp -s "$tmp/a$k" "$tmp/b$k"; then
            echo "FAIL $f: printing its print changes it:"
            diff "$tmp/a$k" "$tmp/b$k" | head -n 6 | sed 's/^/    /'
        fi
    done < "$tmp/list"
    echo "checked $n"
}
check 0 > "$tmp/r0" &
check 1 > "$tmp/r1"
wait
grep -h -v '^checked' "$tmp/r0" "$tmp/r1"
fails=$(grep -h -c '^FAIL' "$tmp/r0" "$tmp/r1" | awk '{ s += $1 } END { print s }')
checked=$(grep -h '^checked' "$tmp/r0" "$tmp/r1" | awk '{ s += $2 } END { print s }')
echo "print fixed point: $checked inputs, $fails failed"
[ "$fails" -eq 0 ]
