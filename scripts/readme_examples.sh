#!/usr/bin/env bash
# Runs every example command of README.md as a newcomer would: each line of
# a ```sh block that starts with `ccreplay` (or build/cli/ccreplay), with its
# continuation lines (ending in `\` or `|`), from a scratch directory where
# testdata/ is the repository's and `ccreplay` is the built binary. Fails,
# naming the command, on any non-zero exit. Examples that need root or
# third-party data are written outside ```sh blocks and are not run.
# Usage: scripts/readme_examples.sh README.md BUILD_DIR
set -euo pipefail
readme=$(realpath "$1")
build=$(realpath "$2")
source_dir=$(dirname "$readme")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ln -s "$source_dir/testdata" "$work/testdata"
ln -s "$source_dir/scripts" "$work/scripts"
ln -s "$build" "$work/build"
export PATH="$build/cli:$PATH"

# One command per output line, continuation lines joined.
commands=$(awk '
  /^```sh$/ { in_sh = 1; next }
  /^```/ { in_sh = 0; next }
  !in_sh { next }
  cmd != "" { cmd = cmd "\n" $0 }
  cmd == "" && /^(build\/cli\/)?ccreplay / { cmd = $0 }
  cmd != "" && !/(\\|\|)[ \t]*$/ { gsub(/\n/, "\x1f", cmd); print cmd; cmd = "" }
' "$readme")
[ -n "$commands" ] || { echo "no example commands found in $readme" >&2; exit 1; }

failed=0
ran=0
while IFS= read -r line; do
  cmd=${line//$'\x1f'/$'\n'}
  ran=$((ran + 1))
  status=0
  (cd "$work" && bash -euo pipefail -c "$cmd" >"$work/out" 2>"$work/err") || status=$?
  # 141: a command cut short by `| head` (SIGPIPE), as in any shell.
  if [ "$status" -ne 0 ] && ! [[ "$status" -eq 141 && "$cmd" == *"|"* ]]; then
    echo "FAILED (exit $status): $cmd" >&2
    tail -5 "$work/err" >&2
    failed=$((failed + 1))
  fi
done <<<"$commands"
echo "$ran README commands run, $failed failed" >&2
[ "$failed" -eq 0 ]
