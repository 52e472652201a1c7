#!/usr/bin/env bash
# Sets up (dependencies + build) and runs kinetrack's main job on its embedded default.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
./build/apps/cli/kinetrack demo
