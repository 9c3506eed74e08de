#!/usr/bin/env bash
# Cuts fuzzing seeds for every target from the test data (testdata/ and
# ../shared/testdata) into OUT/NAME/ (default build-fuzz/fuzz-seeds), small
# enough to fuzz fast: text logs as 16 KiB line-aligned slices, captures as
# their first 300 packets cut to 200 bytes (editcap), and gzip files of
# both. scripts/fuzz.sh reads them when present. They are never checked
# in: fuzz/corpus holds only what `-merge=1` keeps from our fuzz runs.
# Usage: scripts/fuzz-seeds.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build-fuzz/fuzz-seeds}"
rm -rf "$out"
mkdir -p "$out"/{pcap,ss,tcp_probe,qlog,quicly,gz}
data=(testdata)
[ -d ../shared/testdata ] && data+=(../shared/testdata)
n=0

# slice KIND FILE: the first and a middle 16 KiB of a (gzip) text file,
# each cut at line ends.
slice() {
  local kind="$1" file="$2" size
  size=$(zcat -f "$file" | wc -c)
  for skip in 0 $((size / 2)); do
    n=$((n + 1))
    zcat -f "$file" | tail -c +$((skip + 1)) | head -c 16384 |
      { [ "$skip" -gt 0 ] && sed 1d || cat; } | sed '$d' >"$out/$kind/$n" || true
  done
}
while IFS= read -r f; do
  case "$f" in
    *ss*.log | *ss*.log.gz) slice ss "$f" ;;
    *tcp_probe*) slice tcp_probe "$f" ;;
    *.qlog | *.sqlog | *.sqlog.gz) slice qlog "$f" ;;
    *.pcap | *.pcapng | *.pcap.gz | *.pcapng.gz)
      n=$((n + 1))
      editcap -s 200 -r "$f" "$out/pcap/$n" 1-300 2>/dev/null || rm -f "$out/pcap/$n" ;;
  esac
done < <(find "${data[@]}" -type f | sort)

# The quicly and tcp_probe tests' inline logs: raw string literals, and
# each test's plain literals joined as lines.
for t in quicly_log tcp_probe; do
  python3 - "parsers/${t}_test.cc" "$out/${t%_log}" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
seeds = re.findall(r'R"\((.*?)\)"', text, re.S)
for test in re.split(r"\nTEST", text):
    lines = re.findall(r'^\s*"((?:[^"\\]|\\.)*)"', test, re.M)
    if lines:
        seeds.append("".join(l.encode().decode("unicode_escape") for l in lines))
for i, body in enumerate(seeds):
    open(f"{sys.argv[2]}/test{i}", "w").write(body)
PY
done

# gzip of a few of each kind, and of the host-state files already small.
for kind in pcap ss tcp_probe qlog quicly; do
  for f in $(ls "$out/$kind" | head -8); do
    gzip -c "$out/$kind/$f" >"$out/gz/$kind-$f.gz"
  done
done

# Each target's seed directory: the kinds it reads.
link() { mkdir -p "$out/$1"; for k in "${@:2}"; do cp "$out/$k"/* "$out/$1/"; done; }
link pcap_fuzzer pcap
link timeline_fuzzer pcap
link replay_fuzzer pcap qlog
link diagnose_fuzzer pcap qlog
link ss_fuzzer ss
link tcp_probe_fuzzer tcp_probe
link qlog_fuzzer qlog
link quicly_fuzzer quicly
link detect_fuzzer ss tcp_probe qlog quicly gz
link gzip_fuzzer gz
du -sh "$out"/*_fuzzer
