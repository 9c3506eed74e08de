#!/usr/bin/env bash
# Runs every example command of README.md as a newcomer would, and checks
# the output the README shows for it.
#
# Commands: each line of a ```sh block that starts with `ccreplay` (or
# build/cli/ccreplay), with its continuation lines (ending in `\` or `|`),
# run from a scratch directory where testdata/ is the repository's and
# `ccreplay` is the built binary. Each must exit 0 (or die of SIGPIPE in a
# pipeline cut short by `head`). Examples that need root or third-party
# data are written outside ```sh blocks and are not run.
#
# Output: a ```text block that directly follows a ```sh block (blank lines
# between) shows that block's stdout, trimmed: every line of it must be a
# line of the real output (trailing blanks ignored); a line with `[...]`
# must match up to that mark.
#
# Usage: scripts/readme_examples.sh README.md BUILD_DIR
set -euo pipefail
readme=$(realpath "$1")
build=$(realpath "$2")
source_dir=$(dirname "$readme")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/run"
ln -s "$source_dir/testdata" "$work/run/testdata"
ln -s "$source_dir/scripts" "$work/run/scripts"
ln -s "$build" "$work/run/build"
export PATH="$build/cli:$PATH"

# Records, one per line, fields split by a tab: "cmd BLOCK COMMAND" (the
# command's lines joined by \x1f) and "out BLOCK LINE".
awk '
  /^```sh$/ { state = "sh"; block++; next }
  /^```text$/ && state == "after_sh" { state = "text"; next }
  /^```/ { state = (state == "sh") ? "after_sh" : ""; next }
  state == "after_sh" && !/^[ \t]*$/ { state = "" }
  state == "text" { print "out\t" block "\t" $0; next }
  state != "sh" { next }
  cmd != "" { cmd = cmd "\x1f" $0 }
  cmd == "" && /^(build\/cli\/)?ccreplay / { cmd = $0 }
  cmd != "" && !/(\\|\|)[ \t]*$/ { print "cmd\t" block "\t" cmd; cmd = "" }
' "$readme" >"$work/records"
grep -q '^cmd' "$work/records" || { echo "no example commands in $readme" >&2; exit 1; }

failed=0
ran=0
checked=0
while IFS=$'\t' read -r kind block text; do
  if [ "$kind" = cmd ]; then
    cmd=${text//$'\x1f'/$'\n'}
    ran=$((ran + 1))
    status=0
    (cd "$work/run" && bash -euo pipefail -c "$cmd" </dev/null >"$work/out" 2>"$work/err") || status=$?
    sed 's/[ \t]*$//' "$work/out" >>"$work/out.$block"
    # 141: a command cut short by `| head` (SIGPIPE), as in any shell.
    if [ "$status" -ne 0 ] && ! [[ "$status" -eq 141 && "$cmd" == *"|"* ]]; then
      echo "FAILED (exit $status): $cmd" >&2
      tail -5 "$work/err" >&2
      failed=$((failed + 1))
    fi
    continue
  fi
  line=$(sed 's/[ \t]*$//' <<<"$text")
  [ -n "$line" ] || continue
  checked=$((checked + 1))
  if [[ "$line" == *"[...]"* ]]; then
    prefix=${line%%\[...\]*}
    awk -v p="$prefix" 'index($0, p) == 1 { found = 1 } END { exit !found }' \
      "$work/out.$block" && continue
  else
    grep -Fxq -- "$line" "$work/out.$block" && continue
  fi
  echo "OUTPUT DIFFERS: README shows a line the command no longer prints:" >&2
  echo "  $line" >&2
  failed=$((failed + 1))
done <"$work/records"
echo "$ran README commands run, $checked output lines checked, $failed failed" >&2
[ "$failed" -eq 0 ]
