#!/usr/bin/env bash
# The test command: installs the system tools the tests compare against or render with,
# then runs the whole test suite. Tests that need a tool fail loudly without it.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v lspci >/dev/null 2>&1 || need+=(pciutils)
command -v dot >/dev/null 2>&1 || need+=(graphviz)
command -v fio >/dev/null 2>&1 || need+=(fio)
command -v rsvg-convert >/dev/null 2>&1 || need+=(librsvg2-bin)
command -v losetup >/dev/null 2>&1 || need+=(mount)
command -v bzip2 >/dev/null 2>&1 || need+=(bzip2)
command -v xz >/dev/null 2>&1 || need+=(xz-utils)
# promtool (Debian ships it in the prometheus package) checks the node_exporter textfile.
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
# The completion scripts run in the shells they are for.
command -v zsh >/dev/null 2>&1 || need+=(zsh)
command -v fish >/dev/null 2>&1 || need+=(fish)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

log=$(mktemp)
# Tests that cannot make what they need (a loop or zram device: root and kernel modules)
# append a line here; the summary counts and lists them, so none passes silently.
export LANEPLAN_SKIP_LOG=$(mktemp)
trap 'rm -f "$log" "$LANEPLAN_SKIP_LOG"' EXIT
set +e
# --all-targets also runs the benches once in their quick test mode.
cargo test --all-targets --no-fail-fast "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(grep -Eo 'test result: [a-zA-Z]+\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
failed=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s += $1} END {print s + 0}')
skipped=$(grep -c . "$LANEPLAN_SKIP_LOG" || true)
passed=$((passed - skipped)) # a skipped test reports "ok" to the harness
echo
if [ "$skipped" -gt 0 ]; then
  echo "skipped (these tests returned early without checking anything):"
  sed 's/^/  /' "$LANEPLAN_SKIP_LOG"
fi
echo "summary: $passed passed, $failed failed, $skipped skipped"
exit "$status"
