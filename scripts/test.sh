#!/usr/bin/env bash
# Sets up, builds and runs every test with ctest. Usage: scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)"
