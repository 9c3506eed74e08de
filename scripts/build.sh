#!/usr/bin/env bash
# Configures and builds ccreplay in build/ (Release). Usage: scripts/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
