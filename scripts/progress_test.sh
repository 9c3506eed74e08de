#!/bin/sh
# Progress on stderr (issue 21): a read that takes over a second draws its
# progress line when stderr is a terminal (a pty from script(1)), and
# nothing when stderr is a file or under --quiet. The input is a FIFO whose
# writer holds it open 1.5 s after the capture, so that the read lasts
# that long; its size is unknown, so the line counts packets.
# Usage: progress_test.sh SOURCE_DIR BINARY_DIR  (exit 77: skipped)
set -eu
src=$1
bin=$2/cli/ccreplay
command -v script > /dev/null || { echo "script(1) not installed"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
lab="$src/testdata/lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"
mkfifo "$work/fifo"

slow_writer() { { zcat "$lab"; sleep 1.5; } > "$work/fifo" & }

# A terminal: the line names the 18487 records (capinfos -c) at the end.
slow_writer
script -qec "'$bin' flows '$work/fifo' --json > '$work/tty.json'" \
  /dev/null > "$work/tty.err"
wait
grep -q 'ccreplay flows: 18487 packets' "$work/tty.err" ||
  fail "no progress line on a terminal: $(cat "$work/tty.err")"
# ... and the line is cleared (CSI K) before the command ends.
grep -q "$(printf '\r\033\\[K')" "$work/tty.err" || fail "line not cleared"
[ -s "$work/tty.json" ] || fail "no flows on stdout"

# --quiet on a terminal: nothing.
slow_writer
script -qec "'$bin' flows '$work/fifo' --quiet --json > /dev/null" \
  /dev/null > "$work/quiet.err"
wait
[ ! -s "$work/quiet.err" ] || fail "--quiet drew: $(cat "$work/quiet.err")"

# stderr a file: nothing.
slow_writer
"$bin" flows "$work/fifo" --json > /dev/null 2> "$work/file.err"
wait
[ ! -s "$work/file.err" ] || fail "non-tty stderr got: $(cat "$work/file.err")"

echo "$failures failures"
[ "$failures" -eq 0 ]
