#!/usr/bin/env bash
# Runs every cargo-fuzz target for a bounded time (FUZZ_SECONDS each, default 60), each from
# its committed corpus (fuzz/corpus/<target>: the real captures) and a scratch copy that
# takes the new inputs. Installs cargo-fuzz when missing; fails loudly, never skips.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
fail() { echo "FUZZ FAILED: $*" >&2; exit 1; }
rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal \
  || fail "no nightly toolchain and it cannot be installed (cargo fuzz needs -Z sanitizer)"
if ! cargo fuzz --version >/dev/null 2>&1; then
  t0=$(date +%s)
  cargo install cargo-fuzz --locked || fail "cannot install cargo-fuzz"
  echo "fuzz: installed cargo-fuzz in $(( $(date +%s) - t0 )) s"
fi
t0=$(date +%s)
(cd fuzz && cargo +nightly fuzz build -O) || fail "the fuzz targets do not build"
echo "fuzz: built the targets in $(( $(date +%s) - t0 )) s"
targets=$(cd fuzz && cargo +nightly fuzz list)
[ -n "$targets" ] || fail "no fuzz targets listed"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in $targets; do
  [ -d "fuzz/corpus/$t" ] || fail "$t has no corpus in fuzz/corpus/$t"
  mkdir -p "$scratch/$t"
  t0=$(date +%s)
  # -max_total_time bounds the run; -timeout fails an input that hangs; -rss_limit_mb one
  # that grows without bound.
  (cd fuzz && cargo +nightly fuzz run -O "$t" "$scratch/$t" "corpus/$t" -- \
      -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1) \
    > "$scratch/$t.log" 2>&1 || { tail -50 "$scratch/$t.log" >&2; fail "$t: a crash, hang or leak (artifacts in fuzz/artifacts/$t)"; }
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/$t.log" | grep -o '[0-9]*$' || echo "?")
  echo "fuzz: $t ran $runs inputs in $(( $(date +%s) - t0 )) s, no crash"
done
