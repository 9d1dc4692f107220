# check_lib.sh - shared by the shell tests that run ptoopt case by case
# (cli.sh, pipeline.sh): a scratch directory, pass/fail counters and helpers
# that run the tool and check its exit code.  Source it after setting $tool
# (an absolute path) and $suite (the name shown in the summary).
#
#   current=NAME      names the check that ok / bad count
#   run ARGS...       runs the tool, stdin /dev/null; ./out, ./err, $rc
#   run_stdin F ARGS  the same with stdin from F
#   expect_rc N       exit code N and no sanitizer report (else counts a failure)
#   has TEXT FILE     FILE contains TEXT literally
#   finish            prints the summary and exits 0 or 1

# a sanitizer report must never look like an ordinary exit code
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-$suite.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
umask 022

pass=0
fail=0
failed=()
current=""

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    failed+=("$current")
    echo "FAIL $current: $*"
    if [ -s err ]; then
        head -n 4 err | cut -c1-200 | sed 's/^/    stderr: /'
    fi
}
run() {
    "$tool" "$@" > out 2> err < /dev/null
    rc=$?
}
run_stdin() {
    local f=$1
    shift
    "$tool" "$@" > out 2> err < "$f"
    rc=$?
}
expect_rc() {
    if grep -aqE 'Sanitizer|runtime error:' err 2>/dev/null; then
        bad "sanitizer report (exit code $rc)"
        return 1
    fi
    if [ "$rc" -ne "$1" ]; then
        bad "exit code $rc, expected $1"
        return 1
    fi
    return 0
}
has() { grep -qF -- "$1" "$2"; }
finish() {
    echo "$suite: $pass passed, $fail failed"
    if [ "$fail" -ne 0 ]; then
        echo "failed: ${failed[*]}"
        exit 1
    fi
    exit 0
}
