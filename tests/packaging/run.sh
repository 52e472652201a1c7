#!/usr/bin/env bash
# Installs the built project into a temporary prefix, then configures, builds and runs a consumer.
# Usage: run.sh BUILD_DIR
set -euo pipefail
build_dir="$1"
src_dir="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$src_dir" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer"
