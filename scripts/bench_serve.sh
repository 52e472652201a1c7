#!/usr/bin/env bash
# End-to-end latency of `kinetrack serve` on loopback, one run per input protocol and transport:
# `kinetrack replay` sends the capture at RATE Hz LOOPS times, the server measures each frame from
# the receive of its message to its joint state sent (UDP out and queued for WebSocket clients),
# and its summary's p50/p99/max are printed as one table row per case (BENCHMARKS.md, "Streaming").
# Usage: scripts/bench_serve.sh [--rate HZ] [--loops N] [--build DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
rate=240
loops=20
build=build
while [ $# -gt 0 ]; do
  case "$1" in
    --rate) rate="$2"; shift ;;
    --loops) loops="$2"; shift ;;
    --build) build="$2"; shift ;;
    *) echo "bench_serve.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift
done
kt="$build/apps/cli/kinetrack"
mvnx=../shared/data/mvnx/test_mocap.mvnx
c3d=../shared/data/c3d/pycgm_Movement_trial.c3d
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

value() { sed -n "s/^ *$1 *\([0-9.]*\).*/\1/p" "$2" | head -1; }

# case NAME "SERVE ARGS" "REPLAY ARGS" (REPLAY ARGS may use @UDP@ and @WS@)
run_case() {
  local name="$1" serve_args="$2" replay_args="$3" out="$work/serve.out" udp="" ws=""
  : >"$out"  # emptied here: the child's redirect may come after the first read below
  # shellcheck disable=SC2086
  "$kt" serve $serve_args --port 0 --udp-port 0 --quiet >"$out" 2>&1 &
  local pid=$!
  for _ in $(seq 1 200); do
    udp=$(sed -n 's/.*UDP 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$out")
    ws=$(sed -n 's|.*ws://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$out")
    [ -n "$udp" ] && [ -n "$ws" ] && break
    sleep 0.05
  done
  replay_args=${replay_args//@UDP@/127.0.0.1:$udp}
  replay_args=${replay_args//@WS@/127.0.0.1:$ws}
  # shellcheck disable=SC2086
  "$kt" replay $replay_args --rate "$rate" --quiet >"$work/replay.out"
  sleep 0.3
  kill -TERM "$pid"
  wait "$pid"
  if [ "$(value 'frames tracked' "$out")" != "$(value 'well-formed frames sent in order' "$work/replay.out")" ]; then
    echo "bench_serve.sh: $name: the server's summary differs from the replay's:" >&2
    cat "$out" "$work/replay.out" >&2
  fi
  printf '| %s | %s of %s | %s µs | %s µs | %s µs |\n' "$name" "$(value 'frames tracked' "$out")" \
    "$(value 'well-formed frames sent in order' "$work/replay.out")" "$(value 'latency p50 (us)' "$out")" \
    "$(value 'latency p99 (us)' "$out")" "$(value 'latency max (us)' "$out")"
}

echo "| input | frames tracked | p50 | p99 | max |"
echo "|---|---:|---:|---:|---:|"
run_case "MXTP, UDP" "--layout $mvnx" "--input $mvnx --loops $loops --to @UDP@"
run_case "KTP poses binary, UDP" "--layout $mvnx" "--input $mvnx --loops $loops --protocol ktp --to @UDP@"
run_case "KTP poses JSON, UDP" "--layout $mvnx" "--input $mvnx --loops $loops --protocol ktp-json --to @UDP@"
run_case "KTP poses binary, WebSocket" "--layout $mvnx" "--input $mvnx --loops $loops --protocol ktp --ws @WS@"
run_case "KTP poses JSON, WebSocket" "--layout $mvnx" "--input $mvnx --loops $loops --protocol ktp-json --ws @WS@"
markers="--input $c3d --markerset human66_plugin_gait --loops $(( (loops * 112 + 322) / 323 ))"
run_case "KTP markers binary, UDP (Plug-in Gait, marker IK)" "--markerset human66_plugin_gait" "$markers --protocol ktp --to @UDP@"
run_case "KTP markers JSON, WebSocket (Plug-in Gait, marker IK)" "--markerset human66_plugin_gait" "$markers --protocol ktp-json --ws @WS@"
