#!/usr/bin/env bash
# Stress inputs, generated at test time.  Every run must end normally:
#   "ok"  cases (within the documented limits) must exit 0, and the output
#         must print back unchanged;
#   "any" cases (pathological sizes) may exit 0 (then the output must print
#         back unchanged) or 1 with a "FILE:LINE:COL: error: " message --
#         never crash, hang or abort.
# Each case also sets the stack size (KiB; 8192 is the usual default) and a
# CPU-time limit in seconds: a case over its limit is killed and fails.
#
# usage: stress.sh PTOOPT [CASE...]
set -u

if [ $# -lt 1 ]; then
    echo "usage: $0 PTOOPT [CASE...]" >&2
    exit 2
fi
tool=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-stress.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# a sanitizer report must never look like an ordinary exit code
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}

head_fn='import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX], p: pl.Scalar[pl.BOOL]):'

# ------------------------------------------------------------ generators
# each gen_NAME writes the input to stdout and "KIND STACK_KB CPU_S" to fd 3

gen_sum_chain_300k() {
    { echo "$head_fn"; printf '        r: pl.Scalar[pl.INDEX] = a'
      awk 'BEGIN { for (i = 0; i < 300000; i++) printf " + b"; print "" }'; }
    echo any 8192 60 >&3
}
gen_and_chain_300k() {
    { echo "$head_fn"; printf '        r: pl.Scalar[pl.BOOL] = p'
      awk 'BEGIN { for (i = 0; i < 300000; i++) printf " and p"; print "" }'; }
    echo any 8192 60 >&3
}
gen_subscript_chain_300k() {
    { echo "$head_fn"; printf '        r: pl.Scalar[pl.INDEX] = a'
      awk 'BEGIN { for (i = 0; i < 300000; i++) printf "[0]"; print "" }'; }
    echo any 8192 60 >&3
}
gen_call_chain_20000_functions() {
    # f0 calls f1 calls f2 ...: the callee-first function order.  The depth of
    # the call graph is up to the input, so a 1 MiB stack must do as well as
    # 8 MiB (which needs ~100 000 functions to overflow).
    { printf 'import pypto.language as pl\n\n@pl.program\nclass P:\n'
      awk 'BEGIN { for (i = 0; i < 20000; i++) {
                 printf "    @pl.function\n    def f%d(self, x: pl.Scalar[pl.INDEX]):\n", i
                 if (i + 1 < 20000) printf "        self.f%d(x)\n", i + 1; else print "        pass" } }'; }
    echo any 1024 60 >&3
}
gen_nesting_at_the_limits() {
    # 95 nested blocks (98 indentation levels in all), and an expression of
    # 190 nested parentheses inside (the expression limit is 200)
    { echo "$head_fn"
      awk 'BEGIN { ind = "        "; for (i = 0; i < 95; i++) { print ind "if p:"; ind = ind " " }
                   printf "%sr: pl.Scalar[pl.INDEX] = ", ind
                   for (i = 0; i < 190; i++) printf "("; printf "a + b"; for (i = 0; i < 190; i++) printf ")"; print "" }'; }
    echo ok 8192 60 >&3
}
gen_nested_tuple_type_900() {
    { echo "$head_fn"; printf '        r: '
      awk 'BEGIN { for (i = 0; i < 900; i++) printf "pl.Tuple["; printf "pl.Scalar[pl.INDEX]"; for (i = 0; i < 900; i++) printf "]"; print " = self.main(a, b, p)" }'; }
    echo ok 8192 60 >&3
}
gen_many_statements_100k() {
    { echo "$head_fn"
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf "        v%d: pl.Scalar[pl.INDEX] = a + %d\n", i, i }'; }
    echo ok 8192 60 >&3
}
gen_many_functions_20000() {
    { printf 'import pypto.language as pl\n\n@pl.program\nclass P:\n'
      awk 'BEGIN { for (i = 0; i < 20000; i++) printf "    @pl.function\n    def f%d(self, x: pl.Scalar[pl.INDEX]):\n        pass\n", i }'; }
    echo ok 8192 60 >&3
}
gen_many_comments_100k() {
    { echo "$head_fn"
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf "        # comment %d\n", i }'
      echo '        r: pl.Scalar[pl.INDEX] = a'; }
    echo ok 8192 60 >&3
}
gen_long_line_2mb() {
    { echo "$head_fn"
      printf '        r: pl.Scalar[pl.INDEX] = a  # '
      awk 'BEGIN { for (i = 0; i < 40000; i++) printf "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; print "" }'; }
    echo ok 8192 60 >&3
}
gen_wide_call_100k_args() {
    # (an op of no fixed arity: one the registry does not know, let through)
    { echo "$head_fn"; printf '        pl.system.many(a'
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf ", b"; print ")" }'; }
    echo ok 8192 60 --allow-unregistered-ops >&3
}
gen_many_renamed_vars_16000() {
    # 16 000 distinct Vars named i (fresh loop variables) print as i, i_1, ...
    # i_15999: renaming must not be quadratic (5 s of CPU is plenty; a
    # quadratic renaming needs ~40 s)
    { echo "$head_fn"
      awk 'BEGIN { for (k = 0; k < 16000; k++) printf "        for i in pl.range(4):\n            pass\n" }'; }
    echo ok 8192 5 >&3
}

gen_call_chain_60000_infer_directions() {
    # each kernel calls the next: infer-directions visits callees first
    # (once a recursion, now its own stack)
    { echo "${head_fn%%    @pl.function*}"
      awk 'BEGIN { n = 60000; for (i = 0; i < n; i++) {
          print "    @pl.function(type=pl.FunctionType.InCore)"
          printf "    def f%d(self, x: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:\n", i
          if (i + 1 < n) { printf "        y: pl.Tensor[[64], pl.FP32] = self.f%d(x)\n        return y\n", i + 1 }
          else print "        return x" } }'; }
    echo ok 8192 60 --passes=infer-directions,derive-call-directions >&3
}

gen_elif_chain() { # N: an if with N elifs
    { echo "$head_fn"
      printf '        if a < 0:\n            r: pl.Scalar[pl.INDEX] = 0\n'
      awk -v n="$1" 'BEGIN { for (i = 1; i <= n; i++) printf "        elif a < %d:\n            r: pl.Scalar[pl.INDEX] = %d\n", i, i }'
      printf '        else:\n            r: pl.Scalar[pl.INDEX] = b\n'; }
}
gen_elif_chain_97() {
    # the longest chain whose print (else: + if, a level each) re-reads
    gen_elif_chain 97
    echo ok 8192 10 >&3
}
gen_elif_chain_100000() {
    # a located error at the 98th elif, in linear time (was: SIGSEGV in the
    # parser at 10^5, in the printer at 5*10^4, in convert-to-ssa at 2*10^4)
    gen_elif_chain 100000
    echo any 8192 10 --passes=convert-to-ssa >&3
}

all_cases=(sum_chain_300k and_chain_300k subscript_chain_300k call_chain_20000_functions
           nesting_at_the_limits nested_tuple_type_900 many_statements_100k many_functions_20000
           many_comments_100k long_line_2mb wide_call_100k_args many_renamed_vars_16000
           call_chain_60000_infer_directions elif_chain_97 elif_chain_100000)
cases=("$@")
[ ${#cases[@]} -eq 0 ] && cases=("${all_cases[@]}")

pass=0
fail=0
failed=()
for c in "${cases[@]}"; do
    f="$tmp/$c.pto"
    if ! declare -F "gen_$c" > /dev/null; then
        echo "FAIL $c: no such case"
        fail=$((fail + 1))
        failed+=("$c")
        continue
    fi
    read -r kind stack_kb cpu_s extra < <("gen_$c" 3>&1 > "$f")
    why=""
    ( ulimit -s "$stack_kb"; ulimit -t "$cpu_s"; exec "$tool" $extra "$f" ) > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -ge 128 ]; then
        why="killed by signal $((rc - 128))"
        [ $((rc - 128)) -eq 24 ] || [ $((rc - 128)) -eq 9 ] && why="$why (over $cpu_s s of CPU?)"
    elif grep -aqE 'Sanitizer|runtime error:' "$tmp/err"; then
        why="sanitizer report (exit code $rc)"
    elif [ $rc -eq 1 ]; then
        if [ "$kind" = ok ]; then
            why="exit code 1 (input within the limits)"
        elif ! grep -aqE "^$(printf '%s' "$f" | sed 's/[.[\*^$/]/\\&/g'):[0-9]+:[0-9]+: error: " "$tmp/err"; then
            why="exit code 1 without a located error message"
        fi
    elif [ $rc -ne 0 ]; then
        why="exit code $rc"
    elif [ ! -s "$tmp/out" ]; then
        why="exit code 0 but no output"
    else
        # the output must be canonical: it prints back unchanged
        ( ulimit -s "$stack_kb"; ulimit -t 60; ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" exec "$tool" $extra "$tmp/out" ) > "$tmp/out2" 2> /dev/null
        rc2=$?
        if [ $rc2 -ne 0 ]; then
            why="re-reading the output: exit code $rc2"
        elif ! cmp -s "$tmp/out" "$tmp/out2"; then
            why="the output does not print back unchanged"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        failed+=("$c")
        echo "FAIL $c: $why"
        head -n 3 "$tmp/err" | cut -c1-200 | sed 's/^/    /'
    fi
    rm -f "$f" "$tmp/out" "$tmp/out2"
done

echo "stress: $pass passed, $fail failed"
if [ $fail -gt 0 ]; then
    echo "failed: ${failed[*]}"
    exit 1
fi
exit 0
