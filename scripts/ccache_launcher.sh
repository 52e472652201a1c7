#!/usr/bin/env bash
# Prints the cmake option that compiles through ccache, or nothing when ccache is not installed
# (scripts/setup.sh installs it). Paths under the checkout are hashed relative to it and the
# working directory is left out of the hash, so a second clone (CI's clean clone of main) reuses
# the objects an earlier build compiled: docs/hardening.md, "CI's time".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command -v ccache >/dev/null 2>&1 || exit 0
echo "-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$root;CCACHE_NOHASHDIR=true;ccache"
