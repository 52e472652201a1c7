#!/usr/bin/env bash
# Installs every Debian package kinetrack needs to build, test and benchmark (idempotent:
# packages already present are skipped), then configures and builds into ./build.
# Usage: scripts/setup.sh [--no-build] [--build-type Release|Debug] [--sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
build_type=Release
sanitize=OFF
build_dir=build
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --build-type) build_type="$2"; shift ;;
    --sanitize) sanitize=ON; build_type=Debug; build_dir=build-asan ;;
    *) echo "setup.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done

packages=(
  build-essential cmake pkg-config git
  libeigen3-dev liburdfdom-dev libtinyxml2-dev libconsole-bridge-dev
  libcli11-dev libfmt-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  liborocos-kdl-dev coinor-libipopt-dev
  python3 python3-matplotlib
)
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi

if [ "$build" -eq 1 ]; then
  cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" -DKINETRACK_SANITIZE="$sanitize"
  cmake --build "$build_dir" -j "$(nproc)"
fi
