#!/usr/bin/env bash
# Build the libFuzzer targets with clang into build-fuzz/ and run each for
# SECONDS (default 60):  tests/fuzz/run.sh [SECONDS]   (./tessera.sh fuzz [SECONDS])
#
#   fuzz_scenario   a scenario file, as YAML and as JSON: load, resolve, estimate
#   fuzz_hf         a Hugging Face config.json: import, resolve, count, estimate
#   fuzz_trainyaml  a HyperParallel train.yaml: import, resolve, estimate, write back
#   fuzz_import     any trainer's file (tessera import): recognise, read, resolve, estimate, export
#
# The corpora live in build-fuzz/corpus/<target>/: seeded on every run from
# tests/data and resources/presets (copies, so the sources stay untouched) and
# kept between runs, so later runs start where earlier ones stopped. A crash,
# sanitizer report, uncaught exception, hang (-timeout) or memory blowup
# (-rss_limit_mb) leaves its input in build-fuzz/crashes/ and makes this script
# exit 1. Reproduce one with: build-fuzz/tests/fuzz/<target> build-fuzz/crashes/<file>
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/../.."

duration=${1:-60}
[[ "$duration" =~ ^[0-9]+$ ]] && ((duration > 0)) || { echo "usage: tests/fuzz/run.sh [SECONDS]" >&2; exit 64; }
build=build-fuzz
targets=(fuzz_scenario fuzz_hf fuzz_trainyaml fuzz_import)

if [ ! -f "$build/build.ninja" ]; then
    CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTESSERA_FUZZ=ON >/dev/null
fi
# Only the fuzz targets (and the part of core they need): the app, the UI and
# the Qt tests are not needed here.
out=$(cmake --build "$build" --target "${targets[@]}" 2>&1) || { printf '%s\n' "$out" >&2; exit 1; }

# Seeds: every file a target's loader reads in the tests, plus the regression
# inputs of earlier fuzz finds and the guard-rail files.
seed() {  # seed TARGET DIR_OR_FILE...
    local dir="$build/corpus/$1" f
    shift
    mkdir -p "$dir"
    for f in "$@"; do
        [ -e "$f" ] || continue
        if [ -d "$f" ]; then
            find "$f" -type f ! -name '*.expect' -exec cp -n -t "$dir" {} +
        else
            cp -n -t "$dir" "$f"
        fi
    done
}
seed fuzz_scenario tests/data/valid tests/data/invalid tests/data/seed tests/data/cli resources/presets \
    tests/data/fuzz/scenario tests/data/fuzz/guardrails
seed fuzz_hf tests/data/hf tests/data/invalid/referenced tests/data/fuzz/hf
seed fuzz_trainyaml tests/data/train tests/data/seed tests/data/fuzz/trainyaml
seed fuzz_import tests/data/trainers tests/data/train tests/data/hf tests/data/fuzz/import

mkdir -p "$build/crashes" "$build/logs"
failed=()
for target in "${targets[@]}"; do
    log="$build/logs/$target.log"
    name=${target#fuzz_}
    # -max_len: the loaders refuse 4 MiB, but a scenario is a few kilobytes and
    # short inputs mutate faster; the 4 MiB limit has its own test.
    status=0
    UBSAN_OPTIONS=print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
        "$build/tests/fuzz/$target" "$build/corpus/$target" \
        -dict="tests/fuzz/$name.dict" \
        -max_total_time="$duration" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -artifact_prefix="$build/crashes/$target-" -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    # One line per target: runs, speed, coverage (the last status line libFuzzer printed).
    # (|| true: a target that fails on its seeds prints no status line, and under
    # pipefail the empty grep would end this script before it says which target failed.)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -n 1) || true
    if ((status == 0)); then
        printf '%-15s ok      %10s runs  %6s/s  %s\n' "$target" "${runs:-?}" "${speed:-?}" "${cov:-?}"
    else
        printf '%-15s FAILED  (exit %d) see %s\n' "$target" "$status" "$log"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|terminate called|  what\(\))' "$log" | head -n 5 | sed 's/^/    /' || true
        grep -Eo "Test unit written to [^ ]+" "$log" | sed 's/^/    /' || true
        failed+=("$target")
    fi
done

if ((${#failed[@]})); then
    echo "fuzz: ${#failed[@]} target(s) found a bug; inputs are in $build/crashes/" >&2
    exit 1
fi
