#!/usr/bin/env bash
# Runs `ccreplay diagnose --json` over every capture and qlog in testdata/
# and ../shared/testdata (a lab bundle directory, with its meta.json, counts as one input) and
# prints one Markdown table row per input: exit code, vantage, the
# verdict's first clause, the limiter shares and the findings
# (kind:severity). docs/corpus.md holds its output, dated with the commit.
# Usage: scripts/diagnose-corpus.sh [CCREPLAY] (default build/ccreplay),
# from the repository root. Needs python3 (for reading the JSON).
set -uo pipefail
bin=${1:-build/ccreplay}
roots=(testdata ../shared/testdata)
inputs() {
  for root in "${roots[@]}"; do
    [ -d "$root" ] || continue
    # Lab bundles: directories with a meta.json (older runs' meta.txt
    # directories are read file by file).
    find "$root" -name meta.json -printf '%h\n'
    find "$root" -type f \( -name '*.pcap' -o -name '*.pcap.gz' \
      -o -name '*.pcapng' -o -name '*.pcapng.gz' -o -name '*.cap' \
      -o -name '*.qlog' -o -name '*.qlog.gz' -o -name '*.sqlog' \
      -o -name '*.qlog.js' -o -name '*.json.qlog' \) \
      -not -path '*/golden/*' -not -path '*/fuzz*'
  done | sort -u | while read -r p; do
    # Files inside a bundle are read through the bundle.
    [ -f "$(dirname "$p")/meta.json" ] && [ -f "$p" ] && continue
    echo "$p"
  done
}
echo "| input | exit | vantage | verdict (first clause) | limiters | findings |"
echo "|---|---|---|---|---|---|"
inputs | while read -r input; do
  json=$(timeout 120 "$bin" diagnose --json "$input" 2>/dev/null)
  rc=$?
  printf '%s' "$json" | python3 -c '
import json, re, sys
name, rc = sys.argv[1], sys.argv[2]
try:
    d = json.load(sys.stdin)
except ValueError:
    d = {}
verdict = d.get("verdict", "")
first = re.split(r"[.;:]\s", verdict, maxsplit=1)[0].strip()
lim = ", ".join("%s %.0f%%" % (l.get("limiter", "?"), 100 * l.get("time_fraction", 0))
                for l in d.get("limiters", []) if l.get("time_fraction", 0) >= 0.005)
fnd = ", ".join("%s:%s" % (f.get("kind"), f.get("severity"))
                for f in d.get("findings", []))
cell = lambda s: s.replace("|", "\\|")
print("| %s | %s | %s | %s | %s | %s |" % (cell(name), rc, d.get("vantage", ""),
      cell(first), cell(lim), cell(fnd)))
' "$input" "$rc"
done
