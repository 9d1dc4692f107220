#!/usr/bin/env bash
# The memory limit (issue #8): a run whose IR would outgrow the budget
# (PTOOPT_MEMORY_LIMIT_MB; by default half the machine's memory) ends with
# exit 1 and a clear "out of memory" message naming the limit -- not with
# the kernel's OOM killer -- prints nothing on stdout and leaves no -o file;
# the same input under a large enough limit is processed.
#
# usage: memory_limit.sh PTOOPT
set -u
tool=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-mem.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1}
fail=0
# 100 000 statements: about 60 MB of IR
{ printf 'import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n'
  printf '    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n'
  awk 'BEGIN { for (i = 0; i < 100000; i++) print "        m" i ": pl.Scalar[pl.INDEX] = n + " i }'
  printf '        return n\n'; } > "$tmp/big.pto"

PTOOPT_MEMORY_LIMIT_MB=20 "$tool" -o "$tmp/out.pto" "$tmp/big.pto" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
if [ $rc -ne 1 ]; then
    echo "FAIL over the limit: exit $rc (expected 1)"; fail=1
elif ! grep -q '^ptoopt: error: out of memory: the input needs more than the 20 MiB memory limit' "$tmp/stderr"; then
    echo "FAIL over the limit: no message naming the limit:"; sed 's/^/    /' "$tmp/stderr"; fail=1
elif [ -s "$tmp/stdout" ] || [ -n "$(ls -A "$tmp" | grep -v -x -e big.pto -e stdout -e stderr)" ]; then
    echo "FAIL over the limit: output written: $(ls "$tmp")"; fail=1
else
    echo "PASS over the limit: $(head -n 1 "$tmp/stderr")"
fi

PTOOPT_MEMORY_LIMIT_MB=4000 "$tool" "$tmp/big.pto" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
if [ $rc -ne 0 ]; then
    echo "FAIL under the limit: exit $rc"; sed 's/^/    /' "$tmp/stderr"; fail=1
else
    echo "PASS under the limit"
fi
# a malformed value is a usage error (exit 2, naming the variable), before
# anything is read
for v in lots -5 0 "" 12abc; do
    PTOOPT_MEMORY_LIMIT_MB=$v "$tool" "$tmp/big.pto" > "$tmp/stdout" 2> "$tmp/stderr"
    rc=$?
    if [ $rc -ne 2 ] || ! grep -q "invalid PTOOPT_MEMORY_LIMIT_MB '$v'" "$tmp/stderr" || [ -s "$tmp/stdout" ]; then
        echo "FAIL with PTOOPT_MEMORY_LIMIT_MB='$v': exit $rc, $(head -c 200 "$tmp/stderr")"; fail=1
    else
        echo "PASS with a malformed PTOOPT_MEMORY_LIMIT_MB='$v'"
    fi
done
exit $fail
