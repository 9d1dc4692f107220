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
# buffers outside the IR count too: an endless standard input stops at the
# limit (not at the 2 GB input cap), and --diff / --expect, which hold the
# whole result and their diff tables, fail where the IR alone would fit
( ulimit -t 20; PTOOPT_MEMORY_LIMIT_MB=200 exec "$tool" - < /dev/zero ) > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
if [ $rc -eq 1 ] && grep -q 'out of memory: .*the 200 MiB memory limit' "$tmp/stderr"; then
    echo "PASS endless stdin stops at the limit"
else
    echo "FAIL endless stdin under a 200 MiB limit: exit $rc, $(head -c 300 "$tmp/stderr")"; fail=1
fi
small=$(PTOOPT_MEMORY_LIMIT_MB=4000 "$tool" "$tmp/big.pto" 2>&1 > /dev/null; echo $?)
for mode in --diff "--expect=$tmp/big.pto --expect-mode=structural"; do
    # find a limit the plain run fits in and the held output does not
    ok=""
    for mb in 60 70 80 90 100 110 120; do
        PTOOPT_MEMORY_LIMIT_MB=$mb "$tool" "$tmp/big.pto" > /dev/null 2>&1 || continue
        PTOOPT_MEMORY_LIMIT_MB=$mb "$tool" $mode "$tmp/big.pto" > "$tmp/stdout" 2> "$tmp/stderr"
        rc=$?
        if [ $rc -eq 1 ] && grep -q "out of memory" "$tmp/stderr"; then ok=$mb; fi
        break
    done
    if [ -n "$ok" ]; then echo "PASS $mode counts its buffers (fails at $ok MiB, where the plain run fits)"
    else echo "FAIL $mode: no limit where the plain run fits and $mode is refused (exit $rc, $small)"; fail=1; fi
done

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
