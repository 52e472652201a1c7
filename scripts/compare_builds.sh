#!/usr/bin/env bash
# Regression check for refactorings: runs two kinetrack binaries on every BVH clip of
# ../shared/data/bvh (human66 and human48 with DYN, from-clip, human48 whole-body, human66
# pair-wise on one thread, the iCub retarget), the MVNX capture and the demo, and compares the
# joint CSVs byte for byte. Prints one line per differing file and a count; exit 1 on a difference.
# Usage: scripts/compare_builds.sh OLD_KINETRACK NEW_KINETRACK [WORK_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 OLD_KINETRACK NEW_KINETRACK [WORK_DIR]" >&2; exit 2; }
old=$1 new=$2 work=${3:-$(mktemp -d)}
shared=../shared
[ -d "$shared/data/bvh" ] || { echo "compare_builds.sh: $shared/data/bvh not found" >&2; exit 2; }
run() {  # BIN OUT_DIR
  local bin=$1 out=$2
  mkdir -p "$out"
  for f in $(find "$shared/data/bvh" -name '*.bvh' | sort); do
    local n
    n=$(basename "$f" .bvh)
    "$bin" track --quiet --model human66 --input "$f" --out "$out/$n.h66.dyn.csv" >/dev/null 2>&1
    "$bin" track --quiet --model human48 --input "$f" --out "$out/$n.h48.dyn.csv" >/dev/null 2>&1
    "$bin" track --quiet --model from-clip --input "$f" --out "$out/$n.clip.dyn.csv" >/dev/null 2>&1
    "$bin" track --quiet --model human48 --solver wholebody --input "$f" --out "$out/$n.h48.wb.csv" >/dev/null 2>&1
    "$bin" track --quiet --model human66 --solver pairwise --threads 1 --input "$f" --out "$out/$n.h66.pw.csv" >/dev/null 2>&1
    "$bin" retarget --quiet --robot "$shared/models/icub/iCubGazeboV2_5_model.urdf" --input "$f" \
      --out "$out/$n.icub.dyn.csv" >/dev/null 2>&1
  done
  "$bin" track --quiet --model "$shared/models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf" \
    --input "$shared/data/mvnx/test_mocap.mvnx" --out "$out/mvnx.csv" >/dev/null 2>&1
  "$bin" demo --out "$out/demo.csv" >/dev/null 2>&1
}
echo "compare_builds.sh: running $old …"
run "$old" "$work/old"
echo "compare_builds.sh: running $new …"
run "$new" "$work/new"
same=0 differ=0
for f in "$work"/old/*.csv; do
  n=$(basename "$f")
  if cmp -s "$f" "$work/new/$n"; then same=$((same + 1)); else differ=$((differ + 1)); echo "differs: $n"; fi
done
echo "compare_builds.sh: $same identical, $differ differing CSV files (in $work)"
[ "$differ" -eq 0 ]
