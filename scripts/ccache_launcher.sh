#!/usr/bin/env bash
# Prints the cmake option that compiles through ccache, or nothing when ccache is not installed
# (scripts/setup.sh installs it). Paths under the checkout are hashed relative to it and the
# working directory is left out of the hash, so a second clone (CI's clean clone of main) reuses
# the objects an earlier build compiled: docs/hardening.md, "CI's time".
# Usage: scripts/ccache_launcher.sh [--fuzz]
#   --fuzz  for build-fuzz: the coverage ignore list's absolute path is left out of the hash and
#           its contents hashed instead (ccache knows neither the option nor the file)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command -v ccache >/dev/null 2>&1 || exit 0
# Precompiled headers (cmake/build_speed.cmake) are cached only with these sloppiness settings
# (ccache's manual, "Precompiled headers").
env="env;CCACHE_BASEDIR=$root;CCACHE_NOHASHDIR=true;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
if [ "${1:-}" = --fuzz ]; then
  env="$env;CCACHE_IGNOREOPTIONS=-fsanitize-coverage-ignorelist=*;CCACHE_EXTRAFILES=$root/fuzz/coverage_ignorelist.txt"
fi
echo "-DCMAKE_CXX_COMPILER_LAUNCHER=$env;ccache"
