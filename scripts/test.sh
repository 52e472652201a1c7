#!/usr/bin/env bash
# Sets up (dependencies + build) and runs the whole test suite with ctest.
# Tests that read ../shared/models skip with a message when ../shared is absent.
# Usage: scripts/test.sh [--sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=build
if [ "${1:-}" = "--sanitize" ]; then build_dir=build-asan; fi
scripts/setup.sh "$@"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
