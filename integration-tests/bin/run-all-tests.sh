#!/usr/bin/env bash
# Runs every test: Rust unit and scenario tests, then the Java tests and the integration
# tests against a real ResourceManager and real NodeManagers. Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/../.."
source integration-tests/bin/prerequisites.sh
ensure_prerequisites

echo "== Rust formatting and lints (cargo fmt --check, cargo clippy)"
cargo fmt --all --check
cargo fmt --manifest-path rust-core/fuzz/Cargo.toml --check
cargo clippy --workspace --locked --all-targets --all-features -- -D warnings
cargo clippy --manifest-path rust-core/fuzz/Cargo.toml --locked --all-targets -- -D warnings

echo "== Rust tests (cargo test, every feature on)"
cargo test --workspace --locked --all-features 2>&1 | tee /tmp/capsched-cargo-test.log
echo "== Rust unit tests again in the release profile (the build the ResourceManager loads)"
# Debug assertions and overflow checks are off there: code that behaves differently
# without them shows up here, not in the run above.
cargo test --workspace --locked --all-features --release --lib 2>&1 | tee /tmp/capsched-cargo-test-release.log
grep -q 'test result: ok' /tmp/capsched-cargo-test-release.log
echo "== Fuzzing targets over their seeds and every input that ever failed (rust-core/fuzz)"
cargo test --manifest-path rust-core/fuzz/Cargo.toml --locked --release 2>&1 | tee -a /tmp/capsched-cargo-test.log
echo "== Fuzzing, bounded: each target 60 s under AFL++ (the long run: integration-tests/bin/fuzz.sh 3600)"
bash integration-tests/bin/fuzz.sh 60
rust_passed=$(grep -Eo 'test result: ok\. [0-9]+ passed' /tmp/capsched-cargo-test.log | awk '{s+=$4} END {print s+0}')

echo "== Java and integration tests (gradle test)"
rm -rf java-shim/build/test-results integration-tests/build/test-results
run_gradle test

java_tests=0; java_failed=0
for f in java-shim/build/test-results/test/*.xml integration-tests/build/test-results/test/*.xml; do
  [ -f "$f" ] || continue
  t=$(grep -o '<testsuite [^>]*' "$f" | grep -o ' tests="[0-9]*"' | grep -o '[0-9]*')
  fl=$(grep -o '<testsuite [^>]*' "$f" | grep -o ' failures="[0-9]*"' | grep -o '[0-9]*')
  er=$(grep -o '<testsuite [^>]*' "$f" | grep -o ' errors="[0-9]*"' | grep -o '[0-9]*')
  java_tests=$((java_tests + t)); java_failed=$((java_failed + fl + er))
done
if [ "$java_tests" -eq 0 ]; then
  echo "no Java test ran" >&2
  exit 1
fi
echo "rust: ${rust_passed} passed; java+integration: $((java_tests - java_failed)) passed, ${java_failed} failed"
echo "$((rust_passed + java_tests - java_failed)) passed, ${java_failed} failed"
[ "$java_failed" -eq 0 ]

echo "== Apache's ResourceManager tests with both schedulers (gradle :java-shim:apacheRmTests, quick list)"
# Fails when a test passes with Apache's CapacityScheduler and not with ours without a
# reason listed in integration-tests/apache-rm-tests/only-apache.txt.
run_gradle :java-shim:apacheRmTests
