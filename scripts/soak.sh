#!/usr/bin/env bash
# The server soak (issue 20, tests/soak/server_soak.cpp) for a given time, at the lowest CPU
# priority: `kinetrack serve`'s server on loopback at 240 Hz with malformed, truncated, oversized,
# 64 kB, garbage, duplicated and reordered datagrams and WebSocket clients connecting, stalling,
# sending garbage and dropping. ctest runs 60 s of it (stream.server_soak_60s); this script the
# long version. Prints the figures (frames, faults, clients, RSS, latency p50/p99) and PASS/FAIL;
# the RSS series goes to OUT (CSV, t_s,rss_kb). --nice (default 19, the lowest priority): on a
# machine loaded far beyond its cores a nice-19 process is descheduled for seconds and the
# kernel drops datagrams from its full UDP receive buffer (the soak reports them); --nice 0 gives
# it a fair share (it needs a few % of one core).
#
#   scripts/soak.sh [--minutes 30] [--rate 240] [--nice 19] [--build build] [--out build/soak_rss.csv]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=30 rate=240 build=build out= niceness=19
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --nice) niceness=$2; shift 2 ;;
    *) echo "usage: scripts/soak.sh [--minutes M] [--rate HZ] [--nice N] [--build DIR] [--out FILE]" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || out="$build/soak_rss.csv"
cmake --build "$build" --target kinetrack_soak -j2 >/dev/null
seconds=$(awk -v m="$minutes" 'BEGIN { print m * 60 }')
exec nice -n "$niceness" "$build/tests/kinetrack_soak" --seconds "$seconds" --rate "$rate" --rss-csv "$out"
