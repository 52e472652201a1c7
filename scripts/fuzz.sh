#!/usr/bin/env bash
# libFuzzer campaign over the file readers (issue 20; docs/hardening.md).
# Usage: scripts/fuzz.sh [--runs N] [--seconds S] [--max-len BYTES] [--smoke] [--build-dir DIR] [READER...]
#   Builds build-fuzz/ with clang-14 (-fsanitize=fuzzer,address,undefined; KINETRACK_FUZZ=ON),
#   then runs each harness fuzz_<reader> for N executions (default 10000) or S seconds at most
#   (default 60), seeded with the matching files of ../shared and the project, the corpus kept in
#   build-fuzz/corpus/<reader>. Readers: bvh mvnx target_csv trc mot c3d osim urdf mjcf setup
#   segment_map marker_set qtm joint_csv wrench_csv point_csv vsk mesh ktp mxtp (default: all; each
#   harness runs the file through what the CLI does with it, fuzz/fuzz_reader.cpp; ktp = the
#   kinetrack input protocol parser, mxtp = the Xsens MVN streaming parser, mesh = STL and OBJ
#   with the capsule fit; the CSV readers, mesh, ktp and mxtp are seeded from fuzz/seeds/<reader>). Exit 1 at the first finding (crash, leak,
#   sanitizer report, timeout); the reproducer is build-fuzz/findings/<reader>/.
#   --max-len: the longest input libFuzzer makes (default 1048576); seeds are cut to it, so a
#   small value (8192) trades the whole-file seeds for 10–100× more executions per second; the
#   compact seeds (scripts/fuzz_seeds.py: the shared files shortened to 3 frames, still valid)
#   keep the readers' whole path covered at such a limit.
#   --smoke: the CI smoke (ctest fuzz.smoke): each harness from its seeds only, in a throw-away
#   corpus (the campaign's corpus is left alone), findings in build-fuzz/findings-smoke/<reader>;
#   exit 77 (skipped) with a message when clang-14 or its libFuzzer runtime is not installed.
#   --build-dir DIR: run the harnesses of an existing build made with KINETRACK_FUZZ=ON instead
#   of building build-fuzz/ (the sanitizer build, scripts/setup.sh --sanitize: ctest fuzz.smoke
#   there runs what the suite's build made, at its -O1)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=10000
seconds=60
max_len=1048576
readers=()
smoke=0
build_dir=
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift ;;
    --seconds) seconds="$2"; shift ;;
    --max-len) max_len="$2"; shift ;;
    --smoke) smoke=1 ;;
    --build-dir) build_dir="$2"; shift ;;
    -h|--help) sed -n 2,22p "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
    *) readers+=("$1") ;;
  esac
  shift
done
all=(bvh mvnx target_csv trc mot c3d osim urdf mjcf setup segment_map marker_set qtm joint_csv wrench_csv point_csv vsk
     mesh ktp mxtp)
[ ${#readers[@]} -eq 0 ] && readers=("${all[@]}")

if ! command -v clang++-14 >/dev/null 2>&1 ||
   ! ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "fuzz.sh: skipped: clang-14 with its libFuzzer runtime is not installed (scripts/setup.sh installs clang-14)"
  exit 77
fi

if [ -n "$build_dir" ]; then
  build="$build_dir"
  for r in "${readers[@]}"; do
    if [ ! -x "$build/fuzz/fuzz_$r" ]; then
      echo "fuzz.sh: $build/fuzz/fuzz_$r is not built (a build with KINETRACK_FUZZ=ON: scripts/setup.sh --sanitize)" >&2
      exit 2
    fi
  done
else
  build=build-fuzz
  launcher=()  # ccache when the machine has it, with paths relative to the checkout
  l=$(scripts/ccache_launcher.sh --fuzz) && [ -n "$l" ] && launcher=("$l")
  # Two campaigns at once (one reader per core) share the build: one configures and builds at a time.
  mkdir -p "$build"
  exec 9>"$build/.build.lock"
  flock 9
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_C_COMPILER=clang-14 -DKINETRACK_FUZZ=ON -DKINETRACK_BUILD_TESTS=OFF -DKINETRACK_BUILD_BENCH=OFF \
    -DKINETRACK_PYTHON=OFF -DKINETRACK_MPI=OFF "${launcher[@]}" > /dev/null
  targets=()
  for r in "${readers[@]}"; do targets+=(--target "fuzz_$r"); done
  cmake --build "$build" -j2 "${targets[@]}"
  flock -u 9
fi

shared=../shared
# Compact seeds: the shared files shortened to 3 frames (frame counts patched) or, for models, a
# few of each element (scripts/fuzz_seeds.py), so that a small --max-len keeps valid inputs.
compact="$build/seeds-compact"
if [ ! -d "$compact" ] && [ -x /usr/bin/python3 ] && [ -d "$shared/data" ]; then
  mkdir -p "$build"
  tmp=$(mktemp -d "$build/seeds-compact.XXXXXX")  # two campaigns at once: the first rename wins
  /usr/bin/python3 scripts/fuzz_seeds.py "$shared" "$tmp" && mv -T "$tmp" "$compact" 2>/dev/null || rm -rf "$tmp"
fi
seeds() {  # the seed files of a reader
  [ -d "$compact/$1" ] && find "$compact/$1" -type f
  case "$1" in
    bvh) find "$shared/data" -name '*.bvh' -size -400k ;;
    mvnx) find "$shared/data" -name '*.mvnx' ;;
    trc) find "$shared/data" -name '*.trc' ;;
    mot) find "$shared/data" -name '*.mot' -o -name '*.sto' ;;
    c3d) find "$shared/data" -name '*.c3d' ;;
    osim) find "$shared/data" tests/data -name '*.osim' ;;
    urdf) find "$shared/models" tests/data -name '*.urdf' -size -200k ;;
    mjcf) find "$shared/models" tests/data/mjcf -name '*.xml' -size -200k ;;
    setup) find "$shared/data" -iname '*setup*.xml' ;;
    segment_map) find maps -maxdepth 1 -name '*.json'; echo maps/robots/icub.json ;;
    marker_set) find maps/markersets -name '*.json' ;;
    qtm) find "$shared/data" -name '*.tsv' ;;
    vsk) find "$shared/data" -name '*.vsk' ;;
    target_csv|joint_csv|wrench_csv|point_csv|mesh|ktp|mxtp) find "fuzz/seeds/$1" -type f ;;
  esac 2>/dev/null
}

# ASan keeps 5 frames of each allocation's stack (30 by default) and 16 MB of freed blocks in
# quarantine (256): about 20 % more executions per second on the C3D harness, measured; a use
# after free within one execution (a few MB of allocations at most) is still caught. Re-run a
# reproducer with ASAN_OPTIONS= for the full stacks. A caller's own ASAN_OPTIONS win.
export ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=5:quarantine_size_mb=16}"

status=0
tmp_corpus=
if [ "$smoke" -eq 1 ]; then
  tmp_corpus=$(mktemp -d)
  trap 'rm -rf "$tmp_corpus"' EXIT
fi
for r in "${readers[@]}"; do
  corpus="$build/corpus/$r" findings="$build/findings/$r" log="$build/fuzz_$r.log"
  if [ "$smoke" -eq 1 ]; then
    corpus="$tmp_corpus/$r" findings="$build/findings-smoke/$r" log="$build/fuzz_smoke_$r.log"
  fi
  mkdir -p "$corpus" "$findings"
  seed="$build/seeds/$r"
  rm -rf "$seed"; mkdir -p "$seed"
  for f in $(seeds "$r"); do ln -sf "$(realpath "$f")" "$seed/"; done
  echo "== fuzz_$r: $(ls "$seed" | wc -l) seeds, $runs runs or ${seconds} s"
  if ! "$build/fuzz/fuzz_$r" "$corpus" "$seed" -runs="$runs" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=2048 -max_len="$max_len" -artifact_prefix="$findings/" -print_final_stats=1 \
       > "$log" 2>&1; then
    echo "fuzz_$r: FINDING (see $log and $findings/)"; status=1
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|cov: [0-9]+" "$log" | tail -3
done
exit $status
