#!/bin/sh
# A host-state log cut short (a .gz missing its second half) makes `replay`
# and `diagnose --ss/--probe` a partial result: exit 6 and the log's warning
# on stderr (issue 16); the whole log exits 0.
# Usage: partial_host_state_test.sh SOURCE_DIR BINARY_DIR
set -u
src=$1
bin=$2/cli/ccreplay
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

bundle="$src/testdata/lab/cubic_ecn_K60k_40mbit_ackdelay10ms"
gzip -c "$bundle/ss.log" > "$work/ss.gz"
size=$(wc -c < "$work/ss.gz")
head -c $((size / 2)) "$work/ss.gz" > "$work/ss_cut.gz"
head -c 100000 "$bundle/tcp_probe.txt.gz" > "$work/probe_cut.gz"

# expect CODE COMMAND...: exit CODE, and with 6 a "cut short" warning.
expect() {
  code=$1
  shift
  "$@" > /dev/null 2> "$work/err"
  rc=$?
  [ "$rc" -eq "$code" ] || fail "exit $rc, not $code: $*"
  if [ "$code" -eq 6 ]; then
    grep -q 'warning: .*compressed data cut short' "$work/err" ||
      fail "no cut-short warning: $*"
  fi
}

capture="$bundle/sender.pcap.gz"
expect 0 "$bin" replay "$capture" --ss "$work/ss.gz" --cc reno
expect 6 "$bin" replay "$capture" --ss "$work/ss_cut.gz" --cc reno
expect 6 "$bin" replay "$capture" --probe "$work/probe_cut.gz" --cc reno
expect 0 "$bin" diagnose "$capture" --ss "$work/ss.gz" --nosimulate
expect 6 "$bin" diagnose "$capture" --ss "$work/ss_cut.gz" --nosimulate
expect 6 "$bin" diagnose "$capture" --probe "$work/probe_cut.gz" --nosimulate

echo "$failures failures"
[ "$failures" -eq 0 ]
