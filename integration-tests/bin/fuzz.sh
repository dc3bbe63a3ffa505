#!/usr/bin/env bash
# Coverage-guided fuzzing of the scheduling core's doors with AFL++ (cargo-afl, from
# crates.io): the configuration reader and validator, and the native seam's calls with raw
# arguments. Both targets run at once, one per core, for SECONDS each (default 60, the
# bounded run of the test command; the long run is `fuzz.sh 3600`).
#
#   bash integration-tests/bin/fuzz.sh [SECONDS]
#
# Fails if either target crashed or hung (an input over 1 s). Each failing input is kept in
# rust-core/fuzz/target/afl/TARGET/default/{crashes,hangs}; replay one with
#   cargo run --release --manifest-path rust-core/fuzz/Cargo.toml --example replay -- TARGET FILE
# and, once fixed, add it to rust-core/fuzz/regressions/TARGET/ (the replay test runs it
# from then on).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
fuzz=rust-core/fuzz
out=$fuzz/target/afl

if ! command -v cargo-afl >/dev/null 2>&1; then
  echo "installing cargo-afl from crates.io (it builds its own AFL++)" >&2
  cargo install cargo-afl --locked --version 0.18.2
fi
# Builds AFL++'s runtime for this rustc when it is missing (an error when it is there).
cargo afl config --build >/dev/null 2>&1 || true
cargo afl build --release --locked --features afl --manifest-path $fuzz/Cargo.toml

rm -rf "$out"
mkdir -p "$out/in-config" "$out/in-seam"
cp $fuzz/seeds/config/* $fuzz/regressions/config/* conf/capacity-scheduler.xml \
  integration-tests/configs/real-configs/*.xml "$out/in-config/" 2>/dev/null || true
cp $fuzz/seeds/seam/* $fuzz/regressions/seam/* "$out/in-seam/" 2>/dev/null || true

export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1
started=$(date +%s)
pids=()
for target in config seam; do
  cargo afl fuzz -V "$seconds" -t 1000 -i "$out/in-$target" -o "$out/$target" \
    $fuzz/target/release/fuzz-$target >"$out/$target.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
if [ "$status" -ne 0 ]; then
  echo "afl-fuzz failed to run; its logs: $out/config.log, $out/seam.log" >&2
  tail -n 20 "$out/config.log" "$out/seam.log" >&2
  exit 1
fi

figure() { grep "^$2 " "$out/$1/default/fuzzer_stats" | sed "s/.*: //"; }
failed=0
for target in config seam; do
  crashes=$(figure $target saved_crashes)
  hangs=$(figure $target saved_hangs)
  echo "fuzz-$target: $(figure $target execs_done) executions in $(( $(date +%s) - started )) s" \
    "($(figure $target execs_per_sec)/s), $(figure $target corpus_count) inputs in the corpus," \
    "$(figure $target bitmap_cvg) of the edge map covered, stability $(figure $target stability);" \
    "$crashes crashes, $hangs hangs"
  if [ "$crashes" != 0 ] || [ "$hangs" != 0 ]; then
    ls "$out/$target/default/crashes" "$out/$target/default/hangs" >&2
    failed=1
  fi
done
exit $failed
