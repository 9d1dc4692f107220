#!/usr/bin/env bash
# Determinism (issue #8): the same input and options give the same bytes
# (stdout, exit code, and stderr up to the shown file name) whatever the
# locale, time zone, environment size, heap contents and input route.
#
# usage: determinism.sh PTOOPT [--sample] DIR|FILE...
# Every *.pto under each DIR is a case.  A case in a conformance layout
# (DIR/CASE/input.pto beside DIR/CASE/args) runs with its args; others with
# no options and once more with --passes=convert-to-ssa.  --sample checks
# about 80 cases spread over the corpus (the meson test); without it, all.
#
# Each case runs three times, ASLR left on (a different address layout each
# run, so any output that depends on pointer values or hash-table order of
# addresses shows up):
#   1. FILE,        LC_ALL=C,       TZ=UTC
#   2. stdin (-),   LC_ALL=C.UTF-8, TZ=Asia/Kathmandu, MALLOC_PERTURB_ set
#      (fresh heap memory is garbage, so a read of uninitialised memory that
#      reaches the output differs), a 4 KB environment variable
#   3. -o OUT FILE, LANG/LC_ALL unset, TZ=America/St_Johns
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 PTOOPT [--sample] DIR|FILE..." >&2
    exit 2
fi
tool=$1
shift
sample=0
if [ "$1" = --sample ]; then sample=1; shift; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptoopt-det.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
ulimit -t 120 2>/dev/null

aslr=$(cat /proc/sys/kernel/randomize_va_space 2>/dev/null || echo "?")
[ "$aslr" = 0 ] && echo "determinism: warning: ASLR is off (randomize_va_space=0)" >&2

files=()
for a in "$@"; do
    if [ -d "$a" ]; then
        while IFS= read -r f; do files+=("$f"); done < <(find "$a" -name '*.pto' -type f | LC_ALL=C sort)
    else
        files+=("$a")
    fi
done
if [ $sample -eq 1 ] && [ ${#files[@]} -gt 80 ]; then
    step=$(( ${#files[@]} / 80 ))
    picked=()
    for ((i = 0; i < ${#files[@]}; i += step)); do picked+=("${files[$i]}"); done
    files=("${picked[@]}")
fi

pad=$(head -c 4096 /dev/zero | tr '\0' x)
runs=0 fail=0
# check FILE ARGS...: three runs, compared byte for byte
check() {
    local f=$1 rc1 rc2 rc3
    shift
    env LC_ALL=C TZ=UTC "$tool" "$@" "$f" > "$tmp/o1" 2> "$tmp/e1"; rc1=$?
    env LC_ALL=C.UTF-8 TZ=Asia/Kathmandu MALLOC_PERTURB_=165 PTOOPT_DET_PAD="$pad" \
        "$tool" "$@" - < "$f" > "$tmp/o2" 2> "$tmp/e2"; rc2=$?
    rm -f "$tmp/out.pto"
    env -u LANG -u LC_ALL TZ=America/St_Johns "$tool" "$@" -o "$tmp/out.pto" "$f" > "$tmp/o3" 2> "$tmp/e3"; rc3=$?
    runs=$((runs + 3))
    local why=""
    # the stdin run names its input <stdin> in messages
    sed "s|^<stdin>:|$f:|" "$tmp/e2" > "$tmp/e2f"
    if [ $rc1 -ge 128 ] || [ $rc2 -ge 128 ] || [ $rc3 -ge 128 ]; then
        why="crashed (exit codes $rc1 $rc2 $rc3)"
    elif [ $rc1 -ne $rc2 ] || [ $rc1 -ne $rc3 ]; then
        why="exit codes differ: $rc1 $rc2 $rc3"
    elif ! cmp -s "$tmp/o1" "$tmp/o2"; then
        why="stdout differs between file and stdin / locale"
    elif [ $rc1 -eq 0 ] && ! cmp -s "$tmp/o1" "$tmp/out.pto"; then
        why="-o file differs from stdout"
    elif [ $rc1 -ne 0 ] && [ -e "$tmp/out.pto" ]; then
        why="-o file written on failure"
    elif [ -s "$tmp/o3" ]; then
        why="stdout not empty with -o"
    elif ! cmp -s "$tmp/e1" "$tmp/e2f" || ! cmp -s "$tmp/e1" "$tmp/e3"; then
        why="stderr differs"
    fi
    if [ -n "$why" ]; then
        echo "FAIL $f $*: $why"
        fail=$((fail + 1))
    fi
}

for f in "${files[@]}"; do
    d=${f%/*}
    if [ "${f##*/}" = input.pto ] && [ -f "$d/args" ]; then
        read -r -a args < <(cat "$d/args"; echo)
        check "$f" "${args[@]}"
    else
        check "$f"
        check "$f" --passes=convert-to-ssa
    fi
done
echo "determinism: ${#files[@]} inputs, $runs runs, $fail differing (ASLR randomize_va_space=$aslr)"
[ $fail -eq 0 ]
