#!/usr/bin/env bash
# Sets up what the demo needs (missing packages, then a build of the kinetrack binary only) with
# one line per stage, and runs kinetrack's main job on its embedded default. The setup's full
# output is kept in build/demo-build.log; its tail is shown only when a stage fails.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --demo --quiet --target kinetrack_cli --log build/demo-build.log
echo
./build/apps/cli/kinetrack demo
