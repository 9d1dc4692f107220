#!/usr/bin/env bash
# Bad-input tests: for every DIR/NAME.pto with a DIR/NAME.err (a line with
# a substring the error message must contain, optionally a second line
# LINE:COL where that error must be), and for the large inputs this
# script generates (deep nesting, 10^6-element lists; not committed), check
# that (ARGS: the line of DIR/NAME.args, word-split, when there is one -
# the passes whose errors the case is about)
#   PTOOPT ARGS FILE
#     exits with exactly 1 (not a crash, not a timeout),
#     prints nothing on stdout,
#     prints a "FILE:LINE:COL: error: MSG" line on stderr (FILE as given on
#     the command line) whose MSG contains the substring;
#   PTOOPT ARGS -o OUT FILE
#     exits with 1 and leaves neither OUT nor a temporary file behind.
#
# usage: bad_inputs.sh PTOOPT DIR [NAME...]
# Cases run in parallel (PTOOPT_TEST_JOBS, default: number of CPUs, max 4).
# In a sanitizer build only every third case repeats with -o, unless
# PTOOPT_BAD_FULL is set.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 PTOOPT DIR [NAME...]" >&2
    exit 2
fi
tool=$1
dir=$2
shift 2

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-bad.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
gen="$tmp/gen"
mkdir -p "$gen"
# no process may run away: 60 s of CPU at most (SIGXCPU counts as a crash)
ulimit -t 60 2>/dev/null
# a sanitizer report must never look like an ordinary exit code 1
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}

# ---------------------------------------------------------------- generated
header='import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:'

generate() {
    # 100 000 nested parentheses in one expression
    { echo "$header"; printf '        m: pl.Scalar[pl.INDEX] = '
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf "("; printf "n"; for (i = 0; i < 100000; i++) printf ")"; print "" }'
      echo '        return m'; } > "$gen/gen_deep_parens_100000.pto"
    echo 'nested too deeply' > "$gen/gen_deep_parens_100000.err"
    # 100 000 nested list brackets
    { echo "$header"; printf '        m: pl.Scalar[pl.INDEX] = '
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; printf "n"; for (i = 0; i < 100000; i++) printf "]"; print "" }'
      echo '        return m'; } > "$gen/gen_deep_brackets_100000.pto"
    echo 'nested too deeply' > "$gen/gen_deep_brackets_100000.err"
    # 100 000 unary minus signs / nots
    { echo "$header"; printf '        m: pl.Scalar[pl.INDEX] = '
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf "-"; print "n" }'
      echo '        return m'; } > "$gen/gen_deep_unary_100000.pto"
    echo 'nested too deeply' > "$gen/gen_deep_unary_100000.err"
    { echo "$header"; printf '        m: pl.Scalar[pl.BOOL] = '
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf "not "; print "n > 0" }'
      echo '        return n'; } > "$gen/gen_deep_not_100000.pto"
    echo 'nested too deeply' > "$gen/gen_deep_not_100000.err"
    # 100 000 nested pl.Tuple[...] in a type (one bracket per level)
    { echo "$header"; printf '        m: '
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf "pl.Tuple["; printf "pl.Scalar[pl.INDEX]"; for (i = 0; i < 100000; i++) printf "]"; print " = n" }'
      echo '        return n'; } > "$gen/gen_deep_tuple_type_100000.pto"
    echo 'nested too deeply' > "$gen/gen_deep_tuple_type_100000.err"
    # 100 000 nested dicts in attrs
    { echo "$header"; printf '        for i in pl.range(4, attrs='
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf "{\"k\": "; printf "1"; for (i = 0; i < 100000; i++) printf "}"; print "):" }'
      echo '            pass'; echo '        return n'; } > "$gen/gen_deep_dict_100000.pto"
    echo 'nested too deeply' > "$gen/gen_deep_dict_100000.err"
    # 10 000 levels of indentation (one more space per level; ~50 MB)
    { echo "$header"
      awk 'BEGIN { ind = "        "; for (i = 0; i < 10000; i++) { print ind "if n > 0:"; ind = ind " " } print ind "n = n + 1" }'
      echo '        return n'; } > "$gen/gen_deep_indent_10000.pto"
    echo 'too many levels of indentation' > "$gen/gen_deep_indent_10000.err"
    # 1 000 levels of tab indentation (tabs throughout: mixing them with
    # the header's spaces would be a TabError first)
    { printf '%s\n' "$header" | sed 's/^        /\t\t/; s/^    /\t/'
      awk 'BEGIN { ind = "\t\t"; for (i = 0; i < 1000; i++) { print ind "if n > 0:"; ind = ind "\t" } print ind "n = n + 1" }'
      printf '\t\treturn n\n'; } > "$gen/gen_deep_tab_indent_1000.pto"
    echo 'too many levels of indentation' > "$gen/gen_deep_tab_indent_1000.err"
    # 100 000 nested calls
    { echo "$header"; printf '        m: pl.Scalar[pl.INDEX] = '
      awk 'BEGIN { for (i = 0; i < 100000; i++) printf "pl.min(n, "; printf "n"; for (i = 0; i < 100000; i++) printf ")"; print "" }'
      echo '        return m'; } > "$gen/gen_deep_calls_100000.pto"
    echo 'nested too deeply' > "$gen/gen_deep_calls_100000.err"
    # 10^6-element lists: an undefined name as the last element, a list the
    # file ends in, 10^6 loop-carried names for one init value, 10^6 shape
    # dims contradicting the value's type
    { echo "$header"; printf '        m = pl.tensor.create(['
      awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "1, "; printf "zz" }'
      echo '], dtype=pl.FP32)'; echo '        return n'; } > "$gen/gen_list_1e6_undefined_last.pto"
    printf "Undefined variable 'zz'\n7:3000031\n" > "$gen/gen_list_1e6_undefined_last.err"
    { echo "$header"; printf '        m = pl.tensor.create(['
      awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "1, " }'; echo; } > "$gen/gen_list_1e6_unclosed.pto"
    echo 'end of file' > "$gen/gen_list_1e6_unclosed.err"
    { echo "$header"; printf '        for i, ('
      awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "a%d, ", i; printf "b" }'
      printf ') in pl.range(n, init_values=(n,)):\n            pass\n        return n\n'; } > "$gen/gen_loop_targets_1e6.pto"
    echo 'init_values has 1 value' > "$gen/gen_loop_targets_1e6.err"
    { echo "$header"; printf '        m: pl.Tensor[['
      awk 'BEGIN { for (i = 0; i < 1000000; i++) printf "1, "; printf "1" }'
      echo '], pl.FP32] = n'; echo '        return n'; } > "$gen/gen_shape_1e6_dims_contradiction.pto"
    echo "Type annotation for 'm' is Tensor but expression has type Scalar" > "$gen/gen_shape_1e6_dims_contradiction.err"
    # an integer literal of 5 000 digits
    { echo "$header"; printf '        m: pl.Scalar[pl.INDEX] = '
      awk 'BEGIN { for (i = 0; i < 5000; i++) printf "9"; print "" }'
      echo '        return m'; } > "$gen/gen_huge_int_5000_digits.pto"
    echo 'too' > "$gen/gen_huge_int_5000_digits.err"
    # an unterminated string that runs to the end of a 1 MB file
    { echo "$header"; printf '        m: pl.Scalar[pl.INDEX] = """'
      awk 'BEGIN { for (i = 0; i < 20000; i++) print "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" }'; } > "$gen/gen_unterminated_1mb_string.pto"
    echo 'unterminated string' > "$gen/gen_unterminated_1mb_string.err"
    # a NUL byte after 1 MB of valid statements
    { echo "$header"
      awk 'BEGIN { for (i = 0; i < 20000; i++) print "        m" i ": pl.Scalar[pl.INDEX] = n + " i }'
      printf '        q: pl.Scalar[pl.INDEX] = n\0\n'; } > "$gen/gen_nul_after_1mb.pto"
    echo 'NUL byte' > "$gen/gen_nul_after_1mb.err"
}

# ---------------------------------------------------------------- checking
# check_one FILE ERRFILE NAME WORKDIR: prints "PASS NAME" or "FAIL NAME: why"
# (plus indented stderr lines).
check_one() {
    local f=$1 errf=$2 name=$3 w=$4 why="" want="" at="" rc args=()
    { IFS= read -r want; IFS= read -r at; } < "$errf"
    if [ -f "${f%.pto}.args" ]; then
        read -r -a args < "${f%.pto}.args" || true
    fi
    "$tool" "${args[@]}" "$f" > "$w/out" 2> "$w/err"
    rc=$?
    if [ $rc -ge 128 ]; then
        why="killed by signal $((rc - 128))"
    elif grep -aqE 'Sanitizer|runtime error:' "$w/err"; then
        why="sanitizer report (exit code $rc)"
    elif [ $rc -ne 1 ]; then
        why="exit code $rc (expected 1)"
    elif [ -s "$w/out" ]; then
        why="stdout is not empty"
    elif [ -z "$want" ]; then
        why="empty $name.err"
    else
        # a located message "FILE:LINE:COL: error: MSG" whose MSG contains
        # the substring (not just the quoted source line or the file name)
        local located=0 found=0 line rest
        while IFS= read -r line; do
            if [[ $line == "$f:"* ]]; then
                rest=${line#"$f:"}
                if [[ $rest =~ ^([0-9]+:[0-9]+):\ error:\ (.*)$ ]]; then
                    located=1
                    [[ ${BASH_REMATCH[2]} == *"$want"* ]] &&
                        { [ -z "$at" ] || [ "${BASH_REMATCH[1]}" = "$at" ]; } && found=1
                fi
            fi
        done < "$w/err"
        if [ $located -eq 0 ]; then
            why="no '$f:LINE:COL: error: ' line on stderr"
        elif [ $found -eq 0 ] && [ -n "$at" ]; then
            why="no error at $at whose message contains '$want'"
        elif [ $found -eq 0 ]; then
            why="no located error message contains '$want'"
        fi
    fi
    if [ -z "$why" ] && { [ "$sanitized" -eq 0 ] || [ $((RANDOM_SEQ++ % 3)) -eq 0 ]; }; then
        # with -o: same failure, no output file, no temporary left behind
        # (leaks were checked by the first run; in a sanitizer build, where
        # every run costs a lot, only every third case repeats with -o)
        local od="$w/o" left
        ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" "$tool" "${args[@]}" -o "$od/out.pto" "$f" > "$w/out" 2> "$w/err2"
        rc=$?
        left=("$od"/* "$od"/.[!.]*)
        if [ $rc -ne 1 ]; then
            why="with -o: exit code $rc (expected 1)"
        elif grep -aqE 'Sanitizer|runtime error:' "$w/err2"; then
            why="with -o: sanitizer report"
        elif [ -e "$od/out.pto" ]; then
            why="with -o: the output file was created"
        elif [ ${#left[@]} -gt 0 ]; then
            why="with -o: left behind: ${left[*]##*/}"
        elif [ -s "$w/out" ]; then
            why="with -o: stdout is not empty"
        fi
        [ ${#left[@]} -gt 0 ] && rm -rf "$od" && mkdir "$od"
    fi
    if [ -z "$why" ]; then
        echo "PASS $name"
    else
        echo "FAIL $name: $why"
        local i=0
        while IFS= read -r line && [ $i -lt 3 ]; do
            echo "    ${line:0:200}"
            i=$((i + 1))
        done < "$w/err"
    fi
}

# run_worker K: checks every JOBS-th case starting at K
run_worker() {
    local k=$1 w="$tmp/w$1" i f e n
    shopt -s nullglob
    mkdir -p "$w/o"
    for ((i = k; i < ${#cases[@]}; i += jobs)); do
        n=${cases[$i]}
        if [ -f "$dir/$n.pto" ]; then
            f="$dir/$n.pto"
            e="$dir/$n.err"
        else
            f="$gen/$n.pto"
            e="$gen/$n.err"
        fi
        if [ ! -f "$f" ]; then
            echo "FAIL $n: no such test"
        elif [ ! -f "$e" ]; then
            echo "FAIL $n: no $n.err beside $n.pto"
        else
            check_one "$f" "$e" "$n" "$w"
        fi
        case $n in gen_*) rm -f "$f" ;; esac   # free the big ones early
    done
}

cases=("$@")
generate
if [ ${#cases[@]} -eq 0 ]; then
    for f in "$dir"/*.pto "$gen"/*.pto; do
        [ -e "$f" ] || continue
        n=${f##*/}
        cases+=("${n%.pto}")
    done
fi

# a sanitizer build (linked with libasan) is several times slower per run
sanitized=0
if command -v ldd > /dev/null && ldd "$tool" 2>/dev/null | grep -q 'libasan'; then
    sanitized=1
fi
[ -n "${PTOOPT_BAD_FULL:-}" ] && sanitized=0
RANDOM_SEQ=0

jobs=${PTOOPT_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
[ "$jobs" -gt 4 ] && jobs=4
[ "$jobs" -lt 1 ] && jobs=1
for ((k = 0; k < jobs; k++)); do
    run_worker "$k" > "$tmp/result$k" &
done
wait

cat "$tmp"/result* | grep -av '^PASS ' || true
pass=$(cat "$tmp"/result* | grep -ac '^PASS ')
fail=$(cat "$tmp"/result* | grep -ac '^FAIL ')
echo "bad inputs: $pass passed, $fail failed"
if [ "$fail" -gt 0 ]; then
    echo "failed: $(cat "$tmp"/result* | sed -n 's/^FAIL \([^:]*\):.*/\1/p' | sort | tr '\n' ' ')"
    exit 1
fi
exit 0
