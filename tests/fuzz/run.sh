#!/usr/bin/env bash
# Run every libFuzzer harness for SECONDS each and report executions,
# execs/s and findings.
#
# usage: tests/fuzz/run.sh SECONDS [BUILD_DIR]
#   BUILD_DIR  a build configured with CC=clang meson setup DIR -Dfuzz=true
#              (default: build-fuzz beside the checkout; configured and built
#              here when missing)
#   FUZZ_JOBS  harnesses run at once (default 1; each is one process)
#   FUZZ_ONLY  space-separated subset: parse_print pipeline ops
#   FUZZ_SEEDS testdata: seed from testdata/ only (fast start; CI)
#
# Seeds: testdata/**/*.pto and the conformance inputs and expected outputs
# (../shared/conformance/cases/*/*/); the pipeline harness gets each
# conformance input with its own pass list as a "# ptoopt: ARGS" first line;
# the ops harness gets data/ops.yaml whole and in small slices.  The corpus
# each run grows is kept in BUILD_DIR/fuzz/corpus-HARNESS for the next run;
# crash / leak / timeout inputs land in BUILD_DIR/fuzz/artifacts-HARNESS.
# Exits 1 when a harness found something.
set -euo pipefail
secs=${1:?usage: run.sh SECONDS [BUILD_DIR]}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$root/../build-fuzz}
conf=$root/../shared/conformance/cases
[ -d "$conf" ] || conf=/work/shared/conformance/cases

if [ ! -x "$build/tests/fuzz/fuzz_parse_print" ]; then
    [ -d "$build" ] || CC=clang meson setup "$build" "$root" -Dfuzz=true >/dev/null
    ninja -C "$build" tests/fuzz/fuzz_parse_print tests/fuzz/fuzz_pipeline tests/fuzz/fuzz_ops >/dev/null
fi

work=$build/fuzz
mkdir -p "$work"
# ---------------------------------------------------------------- seeds
# FUZZ_SEEDS=testdata: seed from testdata/ only (the CI smoke run: starting
# up on the ~3000 conformance files alone takes minutes under ASan).
# Built without a process per file: on a loaded machine that dominated.
seeds() {
    local h=$1 s=$work/seeds-$h i=0 f d a lines
    rm -rf "$s"
    mkdir -p "$s"
    local files=()
    while IFS= read -r f; do files+=("$f"); done < <(find "$root/testdata" -name '*.pto' -size -200k)
    local cases=()
    if [ "${FUZZ_SEEDS:-all}" != testdata ] && [ -d "$conf" ]; then
        for d in "$conf"/*/*/; do [ -f "$d/input.pto" ] && cases+=("$d"); done
    fi
    case $h in
    parse_print|pipeline)
        for f in "${files[@]}"; do
            mapfile -t lines < "$f"
            printf '%s\n' "${lines[@]}" > "$s/t$((i++)).pto"
        done
        for d in "${cases[@]}"; do
            mapfile -t lines < "$d/input.pto"
            a=""
            [ "$h" = pipeline ] && [ -f "$d/args" ] && read -r a < "$d/args"
            if [ -n "${a// /}" ]; then
                printf '%s\n' "# ptoopt: $a" "${lines[@]}" > "$s/c$((i++)).pto"
            else
                printf '%s\n' "${lines[@]}" > "$s/c$((i++)).pto"
            fi
            if [ "$h" = parse_print ] && [ -f "$d/expected.pto" ]; then
                mapfile -t lines < "$d/expected.pto"
                printf '%s\n' "${lines[@]}" > "$s/e$((i++)).pto"
            fi
        done
        ;;
    ops)
        cp "$root/data/ops.yaml" "$s/ops.yaml"
        # slices of a few entries each: small inputs mutate faster
        awk -v dir="$s" '
            /^ops:/ { sect = "ops:"; next }
            /^sugar:/ { sect = "sugar:"; next }
            /^  - / { n++; f = dir "/slice" int(n / 4) "_" sect ".yaml"
                      if (!(f in seen)) { print sect > f; seen[f] = 1 }
                      print >> f; close(f) }' "$root/data/ops.yaml"
        ;;
    esac
}

jobs=${FUZZ_JOBS:-1}
harnesses=${FUZZ_ONLY:-parse_print pipeline ops}
run_one() {
    local h=$1 dict=()
    local corpus=$work/corpus-$h art=$work/artifacts-$h log=$work/log-$h.txt
    mkdir -p "$corpus" "$art"
    seeds "$h"
    [ "$h" != ops ] && dict=(-dict="$root/tests/fuzz/pto.dict")
    # -timeout: a hang is any input over 10 s; -rss_limit_mb: the 2 GB
    # memory cap is itself a finding (a blow-up on a small input)
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0 \
    UBSAN_OPTIONS=halt_on_error=1:suppressions=$root/tests/fuzz/ubsan.supp:print_stacktrace=1 \
    "$build/tests/fuzz/fuzz_$h" "$corpus" "$work/seeds-$h" "${dict[@]}" \
        -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$art/" > "$log" 2>&1 || true
    local execs rate found
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
    found=$(find "$art" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) | wc -l)
    printf 'fuzz %-12s %10s execs %7s execs/s  %s findings  (corpus %s; log %s)\n' \
        "$h" "${execs:-?}" "${rate:-?}" "$found" "$(ls "$corpus" | wc -l)" "$log"
    grep -m1 -E '^==[0-9]+==ERROR|runtime error|deadly signal' "$log" | sed 's/^/    /' || true
}

pids=()
for h in $harnesses; do
    run_one "$h" > "$work/summary-$h.txt" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait
total=0 bad=0
for h in $harnesses; do
    cat "$work/summary-$h.txt"
    e=$(awk 'NR == 1 {print $3}' "$work/summary-$h.txt")
    [[ $e =~ ^[0-9]+$ ]] && total=$((total + e))
    n=$(awk 'NR == 1 {print $7}' "$work/summary-$h.txt")
    [ "${n:-0}" != 0 ] && bad=1
done
echo "fuzz: $total executions in total"
exit $bad
