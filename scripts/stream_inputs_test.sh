#!/bin/sh
# Inputs read once, in order (issue 16): every capture in testdata gives the
# same `flows --json` from stdin ("-"), through a FIFO and through bash's
# process substitution as from its path, except for the "path" field, which
# names what was given; `diagnose` reads stdin (spooling it, with a warning);
# so do `timeline`, `replay`, `convert`, and `flows` of host-state logs.
# Usage: stream_inputs_test.sh SOURCE_DIR BINARY_DIR
set -eu
src=$1
bin=$2/cli/ccreplay
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# `flows --json` without its "path" line.
strip_path() { grep -v '^    "path": ' "$1"; }

count=0
for f in $(find "$src/testdata" -name '*.pcap' -o -name '*.pcapng' \
             -o -name '*.pcap.gz' -o -name '*.pcapng.gz' | sort); do
  count=$((count + 1))
  "$bin" flows "$f" --json > "$work/file.json" || fail "flows $f"
  sh -c "cat '$f' | '$bin' flows - --json" > "$work/stdin.json" ||
    fail "stdin: $f"
  grep -q '^    "path": "-",$' "$work/stdin.json" || fail "path '-': $f"
  strip_path "$work/file.json" > "$work/a"
  strip_path "$work/stdin.json" > "$work/b"
  cmp -s "$work/a" "$work/b" || fail "stdin differs: $f"
done
[ "$count" -ge 10 ] || fail "only $count captures found"

lab="$src/testdata/lab/reno_ecn1_stepK60k_50mbit/sender.pcap.gz"
"$bin" flows "$lab" --json | grep -v '^    "path": ' > "$work/lab.json"
# Process substitution: /dev/fd/63, a pipe, opened by path.
bash -c "'$bin' flows <(zcat '$lab') --json" | grep -v '^    "path": ' \
  > "$work/procsub.json" || fail "process substitution"
cmp -s "$work/lab.json" "$work/procsub.json" || fail "process substitution differs"
# A FIFO, the decompressed capture written into it.
mkfifo "$work/fifo"
zcat "$lab" > "$work/fifo" &
"$bin" flows "$work/fifo" --json | grep -v '^    "path": ' > "$work/fifo.json" ||
  fail "fifo"
wait
cmp -s "$work/lab.json" "$work/fifo.json" || fail "fifo differs"

# Every other command that takes an input reads "-" (issue 21): its output
# from stdin equals its output from the path, the path itself aside.
same_from_stdin() {  # INPUT ARGS...: `ARGS INPUT` vs `cat INPUT | ARGS -`
  input=$1
  shift
  "$bin" "$@" "$input" 2>/dev/null | sed "s|$input|INPUT|g" > "$work/path.out" ||
    fail "$* $input"
  cat "$input" | "$bin" "$@" - 2>/dev/null |
    sed 's|"-"|"INPUT"|g; s|^-:|INPUT:|' > "$work/stdin.out" || fail "$* -"
  [ -s "$work/path.out" ] || fail "no output: $* $input"
  cmp -s "$work/path.out" "$work/stdin.out" || fail "stdin differs: $* $input"
}
same_from_stdin "$lab" timeline --json
same_from_stdin "$lab" replay --cc reno --json
same_from_stdin "$lab" convert --json
same_from_stdin "$lab" flows --json --filter 'tcp port 42408'
# Host-state text: an ss log, a gzip'd tcp_probe trace.
same_from_stdin "$src/testdata/lab/reno_ecn1_stepK60k_50mbit/ss.log" flows --json
same_from_stdin \
  "$src/testdata/lab/k618_reno_20ms_paced_20mbit_pfifo50/tcp_probe.txt.gz" \
  flows --json

# diagnose from stdin: the same diagnosis as from the file, a spool warning
# on stderr and in the diagnosis's own "warnings" (compared apart: the
# top-level "input" and "warnings" are what differ).
no_input_or_warnings() {
  sed -e '/^  "input": /d' -e '/^  "warnings": \[\]/d' \
    -e '/^  "warnings": \[$/,/^  \]/d' "$1"
}
"$bin" diagnose "$lab" --json --nosimulate > "$work/diag_file.json" ||
  fail "diagnose file"
sh -c "cat '$lab' | '$bin' diagnose - --json --nosimulate" \
  2> "$work/diag.err" > "$work/diag_stdin.json" || fail "diagnose stdin"
no_input_or_warnings "$work/diag_file.json" > "$work/diag_file.rest"
no_input_or_warnings "$work/diag_stdin.json" > "$work/diag_stdin.rest"
cmp -s "$work/diag_file.rest" "$work/diag_stdin.rest" || fail "diagnose differs"
grep -q 'copied to a temporary file' "$work/diag.err" || fail "no spool warning"
grep -q '^    ".*copied to a temporary file' "$work/diag_stdin.json" ||
  fail "no spool warning in the diagnosis's warnings"
[ -s "$work/diag_file.rest" ] || fail "empty diagnosis"

echo "$count captures; $failures failures"
[ "$failures" -eq 0 ]
