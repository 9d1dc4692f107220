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
#   FUZZ_KEEP_GOING 1: after a finding, start the harness again until
#              SECONDS are used up (long runs; findings add up)
#   FUZZ_MAX_LEN  largest input the fuzzer makes (default 8192; seeds over
#              it are left out)
#
# Speed (measured on the 2-core CI-like machine, issue #8): three settings
# below took the harnesses from 250-400 to several thousand execs/s:
#  - -entropic_feature_frequency_threshold=8: libFuzzer's entropic schedule
#    keeps a "rare features" list that it searches linearly for every
#    feature of every run, and only trims it once a feature has been seen
#    255 times; with our ~40 000 features that search was half the time.
#    Trimming at 8 keeps the list short (and the schedule itself on).
#  - -max_len=8192: the time of a run grows with the input, and a corpus
#    allowed 64 KB inputs fills up with them (they ran at ~20 execs/s);
#    the seeds are ~650 bytes (median), 2 KB (90th percentile).
#  - ASAN_OPTIONS=quarantine_size_mb=16: with the default 256 MB quarantine
#    every run's allocations land on memory not touched for a while, so a
#    large part of the time went to page faults; 16 MB still catches a
#    use-after-free of memory freed within the last thousand-odd runs.
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
    while IFS= read -r f; do files+=("$f"); done < <(find "$root/testdata" -name '*.pto' -size -"${maxlen}c")
    local cases=()
    if [ "${FUZZ_SEEDS:-all}" != testdata ] && [ -d "$conf" ]; then
        while IFS= read -r f; do cases+=("${f%input.pto}"); done < <(
            find "$conf" -mindepth 3 -maxdepth 3 -name input.pto -size -"${maxlen}c" | sort)
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
        # the whole file (cut to FUZZ_MAX_LEN by libFuzzer: mostly its
        # comment header) and slices of 4 and of 16 entries (one line
        # each): small inputs mutate faster
        cp "$root/data/ops.yaml" "$s/ops.yaml"
        local per
        for per in 4 16; do
            awk -v dir="$s" -v per="$per" '
                /^ops:/ { sect = "ops:"; next }
                /^sugar:/ { sect = "sugar:"; next }
                /^  - / { n++; f = dir "/slice" per "_" int(n / per) "_" sect ".yaml"
                          if (!(f in seen)) { print sect > f; seen[f] = 1 }
                          print >> f; close(f) }' "$root/data/ops.yaml"
        done
        ;;
    esac
}

maxlen=${FUZZ_MAX_LEN:-8192}
jobs=${FUZZ_JOBS:-1}
harnesses=${FUZZ_ONLY:-parse_print pipeline ops}
run_one() {
    local h=$1 dict=()
    local corpus=$work/corpus-$h art=$work/artifacts-$h log=$work/log-$h.txt
    mkdir -p "$corpus" "$art"
    seeds "$h"
    [ "$h" != ops ] && dict=(-dict="$root/tests/fuzz/pto.dict")
    : > "$log"
    touch "$work/start-$h"
    local start=$SECONDS left=$secs execs=0 n attempt=0
    # A finding stops libFuzzer; with FUZZ_KEEP_GOING=1 (long runs) the
    # harness starts again on the grown corpus until the time is used up.
    while [ "$left" -gt 0 ] && [ $attempt -lt 20 ]; do
        attempt=$((attempt + 1))
        # -timeout: a hang is any input over 10 s; -rss_limit_mb: the 2 GB
        # memory cap is itself a finding (a blow-up on a small input).
        # UBSan's stack is not symbolized: in the long run a UB report's
        # llvm-symbolizer call deadlocked with libFuzzer's timeout alarm and
        # the harness hung for 15 minutes (the report's file:line stays).
        ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:quarantine_size_mb=16 \
        LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0 \
        UBSAN_OPTIONS=halt_on_error=1:suppressions=$root/tests/fuzz/ubsan.supp:print_stacktrace=1:symbolize=0 \
        "$build/tests/fuzz/fuzz_$h" "$corpus" "$work/seeds-$h" "${dict[@]}" \
            -max_total_time="$left" -timeout=10 -rss_limit_mb=2048 -max_len="$maxlen" \
            -entropic_feature_frequency_threshold=8 \
            -print_final_stats=1 -artifact_prefix="$art/" > "$log.part" 2>&1 || true
        cat "$log.part" >> "$log"
        # executions: the final stats, or after a crash the last status line
        n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log.part" | tail -n1)
        [ -n "$n" ] || n=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log.part" | tail -n1)
        execs=$((execs + ${n:-0}))
        left=$((secs - (SECONDS - start)))
        [ "${FUZZ_KEEP_GOING:-0}" = 1 ] || break
    done
    rm -f "$log.part"
    local elapsed=$((SECONDS - start)) found
    [ $elapsed -gt 0 ] || elapsed=1
    found=$(find "$art" -type f -newer "$work/start-$h" \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'slow-unit-*' \) | wc -l)
    printf 'fuzz %-12s %10s execs %7s execs/s  %s findings  (corpus %s; log %s)\n' \
        "$h" "$execs" "$((execs / elapsed))" "$found" "$(ls "$corpus" | wc -l)" "$log"
    grep -E '^==[0-9]+==ERROR|runtime error|deadly signal' "$log" | sort -u | head -n 5 | sed 's/^/    /' || true
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
