#!/usr/bin/env bash
# Regression check for refactorings: runs two kinetrack binaries on the same cases, every command
# on ../shared data (track on every BVH clip with five set-ups, the MVNX capture, the demo,
# retarget, sparse tracking, markers ik/label, hand, dynamics id/filter, simulate, muscles, prior,
# view, model, batch and every experiment), and compares every output file (scripts/compare_outputs.py):
# byte-identical, or (for files that differ between two runs of OLD: timings) identical once the
# columns or JSON keys that moved between those two runs are left out. Exit 1 on a difference.
# Usage: scripts/compare_builds.sh OLD_KINETRACK NEW_KINETRACK [WORK_DIR]
#   WORK_DIR keeps OLD's outputs (old/, old2/) between calls: a later call with the same WORK_DIR
#   reruns only NEW. --only REGEX limits the cases (by name).
set -uo pipefail
cd "$(dirname "$0")/.."
only=""
if [ "${1:-}" = "--only" ]; then only=$2; shift 2; fi
[ $# -ge 2 ] || { echo "usage: $0 [--only REGEX] OLD_KINETRACK NEW_KINETRACK [WORK_DIR]" >&2; exit 2; }
old=$(realpath "$1") new=$(realpath "$2") work=${3:-$(mktemp -d)}
mkdir -p "$work" && work=$(realpath "$work")
S=$(realpath ../shared)
[ -d "$S/data/bvh" ] || { echo "compare_builds.sh: ../shared/data/bvh not found" >&2; exit 2; }
G=$S/data/opensim/gait2354_walk
A=$S/data/opensim/arm26_static_optimization
ICUB=$S/models/icub/iCubGazeboV2_5_model.urdf
H66=$S/models/human-gazebo/humanSubject01/humanSubject01_66dof.urdf
WALK=$S/data/bvh/bandai/dataset-2_walk_normal_001.bvh
RUN=$S/data/bvh/bandai/dataset-2_run_normal_001.bvh

# One case per line: NAME then the arguments; {o} is the case's output directory, $I the inputs made
# by OLD once (prepare) and read by both.
cases() {
  for f in $(find "$S/data/bvh" -name '*.bvh' | sort); do
    local n; n=$(basename "$f" .bvh)
    echo "track.h66.$n track --model human66 --input $f --out {o}/q.csv"
    echo "track.h48.$n track --model human48 --input $f --out {o}/q.csv"
    echo "track.clip.$n track --model from-clip --input $f --out {o}/q.csv"
    echo "track.h48wb.$n track --model human48 --solver wholebody --input $f --out {o}/q.csv"
    echo "track.h66pw.$n track --model human66 --solver pairwise --threads 1 --input $f --out {o}/q.csv"
    echo "retarget.icub.$n retarget --robot $ICUB --input $f --out {o}/q.csv"
  done
  echo "track.mvnx track --model $H66 --input $S/data/mvnx/test_mocap.mvnx --out {o}/q.csv --summary-json {o}/s.json"
  echo "track.outputs track --model human66 --input $WALK --out {o}/q.csv --summary-json {o}/s.json --mot-out {o}/q.mot --bvh-out {o}/q.bvh"
  echo "track.ipopt track --model human48 --solver wholebody-ipopt --input $RUN --out {o}/q.csv --summary-json {o}/s.json"
  echo "demo demo --out {o}/demo.csv"
  echo "demo.h48 demo --model human48 --duration 3 --out {o}/demo.csv"
  echo "retarget.osim retarget --robot $G/subject01_simbody.osim --map gait2354 --input $WALK --out {o}/q.csv --summary-json {o}/s.json"
  echo "prior.build prior build --out {o}/prior.bin $S/data/bvh/bandai/dataset-2_walk_normal_001.bvh $S/data/bvh/bandai/dataset-2_run_normal_001.bvh"
  echo "track.sparse.dyn track --model human66 --input $S/data/bvh/bandai/dataset-2_walk_normal_001.bvh --out {o}/q.csv --targets head,hands --prior $I/prior.bin"
  echo "track.sparse.gp track --model human66 --input $WALK --out {o}/q.csv --targets head,hands --prior $I/prior.bin --sparse-solver gp"
  echo "markers.ik.gait markers ik --setup $G/subject01_Setup_IK.xml --out {o}/ik.mot --errors {o}/err.sto --summary-json {o}/s.json"
  echo "markers.ik.pig markers ik --model human66 --markerset human66_plugin_gait --vsk $S/data/c3d/pycgm_Test.vsk --static $S/data/c3d/pycgm_Static_trial.c3d --markers $S/data/c3d/pycgm_Movement_trial.c3d --out {o}/pig.csv --summary-json {o}/s.json"
  echo "markers.label.gait markers label --model $G/subject01_simbody.osim --input $G/subject01_walk1.trc --strip-labels --out {o}/l.trc --ik-out {o}/ik.mot --report {o}/r.csv --summary-json {o}/s.json"
  echo "hand.track hand track --input $S/data/hand/dfki_glove_recording_20210826.tsv --out {o}/hand.csv --summary-json {o}/s.json --errors {o}/e.csv --urdf {o}/hand.urdf --compare-lm"
  echo "hand.track.cga hand track --input $S/data/hand/dfki_glove_recording_20210826.tsv --out {o}/hand.csv --backend cga --use-middle-markers"
  echo "dynamics.id.urdf dynamics id --model $H66 --motion $I/mvnx.csv --out {o}/tau.csv"
  echo "dynamics.id.h66 dynamics id --model human66 --motion $I/walk.csv --out {o}/tau.csv --derivatives butterworth --cutoff 6"
  echo "dynamics.id.osim dynamics id --model $G/subject01_simbody.osim --motion $G/subject01_walk1_ik_REFERENCE.mot --loads $G/subject01_walk1_grf.xml --cutoff 6 --out {o}/id.sto"
  echo "dynamics.filter.bvh dynamics filter --model human66 --input $WALK --out {o}/f.csv --torques {o}/tau.csv --summary-json {o}/s.json --report-csv {o}/r.csv"
  echo "dynamics.filter.slope dynamics filter --model human66 --input $WALK --slope-deg 10 --out {o}/f.csv --summary-json {o}/s.json"
  echo "dynamics.filter.grf dynamics filter --model $G/subject01_simbody.osim --input $G/subject01_walk1_ik_REFERENCE.mot --grf $G/subject01_walk1_grf.xml --adjust-com torso --out {o}/f.mot --torques {o}/tau.sto --summary-json {o}/s.json --report-csv {o}/r.csv"
  echo "dynamics.filter.contacts dynamics filter --model $G/subject01_simbody.osim --input $G/subject01_walk1_ik_REFERENCE.mot --grf $G/subject01_walk1_grf.xml --grf-mode contacts --out {o}/f.mot --summary-json {o}/s.json"
  echo "simulate.random simulate --model human48 --gravity 0 --initial random --velocity 0.3 --duration 1 --out {o}/q.csv"
  echo "simulate.hold simulate --model human48 --hold LeftHand --hold RightHand@0.5 --posture-gain 5 --duration 1 --out {o}/q.csv"
  echo "simulate.release simulate --model human48 --hold LeftHand --hold RightHand@0.1 --posture-gain 5 --duration 0.3 --initial random --seed 3 --out {o}/q.csv --plot {o}/q.png"
  echo "simulate.assembly simulate --model human48 --solver assembly --schedule parallel --threads 2 --duration 0.5 --out {o}/q.csv"
  echo "muscles.so.arm26 muscles static-opt --setup $A/arm26_Setup_StaticOptimization.xml --no-plot --out {o}"
  echo "muscles.so.gait muscles static-opt --model $G/subject01_simbody.osim --motion $G/subject01_walk1_ik_REFERENCE.mot --loads $G/subject01_walk1_grf.xml --lowpass 6 --start 0.4 --end 0.8 --force-set $G/gait2354_CMC_Actuators.xml --no-plot --out {o}"
  echo "muscles.qp muscles qp --setup $A/arm26_Setup_StaticOptimization.xml --no-plot --out {o}"
  echo "muscles.lp muscles lp --setup $A/arm26_Setup_StaticOptimization.xml --no-plot --out {o}"
  echo "view view --model human66 --result $I/walk.csv --input $WALK --out {o}/view"
  echo "model.info model info $ICUB --json"
  echo "model.fk model fk human66 --frame Head --joint jRightKnee_roty=-1 --json"
  echo "model.export model export human48 --height 1.6 --out {o}/m.urdf"
  echo "experiment.sparse experiment sparse --out {o}"
  echo "experiment.compare experiment compare --out {o}"
  echo "experiment.convergence experiment convergence --model human66 --gains 0,1,5,50 --rate 100 --out {o}"
  echo "experiment.assembly experiment assembly --out {o}"
  echo "experiment.gpm experiment gpm --out {o}"
  echo "experiment.pindrag experiment pindrag --model human66 --out {o}"
  echo "experiment.labelling experiment labelling --out {o} --no-plot"
  echo "experiment.mapping experiment mapping --out {o}"
  echo "batch batch --manifest $work/manifest.csv --out {o} --threads 2"
}

cat >"$work/manifest.csv" <<MANIFEST
input,command,model,args
$WALK,track,human66,
$RUN,retarget,$ICUB,
$G/subject01_walk1.trc,markers ik,$G/subject01_simbody.osim,--setup $G/subject01_Setup_IK.xml
$S/data/hand/dfki_glove_recording_20210826.tsv,hand track,,
$G/subject01_walk1_ik_REFERENCE.mot,dynamics id,$G/subject01_simbody.osim,
MANIFEST

run() {  # BIN TAG
  local bin=$1 tag=$2 name args d r
  while read -r name args; do
    [ -n "$only" ] && ! [[ $name =~ $only ]] && continue
    d=$work/$tag/$name
    # Every binary writes into the same directory ($work/run/NAME), so paths in outputs agree.
    r=$work/run/$name
    rm -rf "$d" "$r" && mkdir -p "$r" "$(dirname "$d")"
    args=${args//\{o\}/$r}
    # shellcheck disable=SC2086
    "$bin" $args >"$r.stdout" 2>"$r.stderr"
    echo $? >"$r.exit"
    mv "$r" "$d" && mv "$r.stdout" "$d.stdout" && mv "$r.stderr" "$d.stderr" && mv "$r.exit" "$d.exit"
  done < <(cases)
}
I=$work/inputs
prepare() {  # the inputs of the cases that read another command's output, made once by OLD
  mkdir -p "$I"
  [ -f "$I/prior.bin" ] || "$old" prior build --out "$I/prior.bin" "$WALK" "$RUN" >/dev/null
  [ -f "$I/walk.csv" ] || "$old" track --quiet --model human66 --input "$WALK" --out "$I/walk.csv" >/dev/null
  [ -f "$I/mvnx.csv" ] || "$old" track --quiet --model "$H66" --input "$S/data/mvnx/test_mocap.mvnx" --out "$I/mvnx.csv" >/dev/null
}
started=$(date +%s)
prepare
if [ ! -f "$work/old.done" ] || [ -n "$only" ]; then
  echo "compare_builds.sh: running $old (twice: what differs between two runs is timing) …"
  run "$old" old && run "$old" old2 && { [ -n "$only" ] || touch "$work/old.done"; }
fi
echo "compare_builds.sh: running $new …"
run "$new" new
/usr/bin/python3 scripts/compare_outputs.py "$work" ${only:+--only "$only"}
status=$?
echo "compare_builds.sh: $(( $(date +%s) - started )) s (outputs in $work)"
exit $status
