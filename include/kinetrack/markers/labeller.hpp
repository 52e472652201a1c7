#pragma once
// Real-time labelling of unlabelled optical markers, closed with marker IK (SPEC §5, behaviour
// capture; issue 16). Per frame, causally (past frames only):
//
//   1. predict every marker from the model: its place at the last solved pose extrapolated at
//      constant velocity in the world (x̂ = x(q_k) + s·(x(q_k) − x(q_{k−1})), s the ratio of the
//      frame steps), x including the marker's residual offset (its last measured position minus
//      the model's, kept in its link frame, so a marker that sits off its model place is
//      predicted where it really is);
//   2. gate: a point is a candidate for a marker within gate_radius of its prediction (the gate
//      grows while the marker is unseen); at most max_candidates per marker;
//   3. assign by an optimal assignment (AssignmentSolver, the Hungarian method) on squared
//      distance, with a gap cost of gate² per marker, solved per cluster of markers that compete
//      for points (most markers have one uncontested candidate);
//   4. rigid-segment check: markers on one link keep their distances (learnt when the track
//      starts); a marker inconsistent with most of its link's assigned markers is unassigned;
//   5. marker IK (ik::MarkerIk) on the labelled points; the solution is the next prediction's pose;
//   6. at the solved pose (issue 40): a marker on a link with three or more markers takes an
//      unlabelled point near its solved place when the link's rigid fit + the distance is better
//      with it, other markers are assigned again around their solved places when an unlabelled
//      point is nearer than their own; limbs and segments are searched again, a close pair the
//      model's geometry says is exchanged (else the worst-fitting one) is tried exchanged; every
//      label gets a confidence (FrameLabels::confidence).
//
// Points not assigned are ghosts; markers not assigned are gaps. When too few markers are
// assigned (the subject left the volume, a long occlusion, a jump) the track is lost and the
// labeller re-initialises: a search over the body's heading (yaw about `up`) and position that
// fits the model's markers to the cloud by assignment + rigid fit, then articulated refinement
// (assignment ↔ marker IK) — also how the first frame starts.
//
// LabellerModel is immutable and shared; Labeller is per-thread state (its label() does not
// allocate once warm: the workspace is sized for max_points points).
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/subject/marker_model.hpp"

namespace kinetrack::markers {

/// The subject's marker model as the labeller uses it: the markers (names = the labels, in output
/// order; weights = the IK's), bounds, couplers, the reference pose the initialisation starts from
/// (standing, the static pose) and `up` (the heading search turns about it), plus what the
/// labeller derives from them. Build with labellerModel.
struct LabellerModel : subject::MarkerModel {
  std::vector<FrameId> frame_ids;  ///< the model frame of each marker
  std::vector<int> link;           ///< link index of each marker (the rigid segment)
  /// Marker pairs on one link (i < j), for the rigid-segment check.
  struct Pair {
    int i = 0, j = 0;
  };
  std::vector<Pair> pairs;
};

/// The labeller's model of a marker model (subject::markerModel: from an OpenSim model, or a
/// kinetrack model with a marker set): the marker frames resolved, their links and same-link
/// pairs; bounds empty: the model's joint limits; the reference empty: the zero configuration; a
/// marker of weight 0 (a set's unweighted marker) is labelled with weight 1; `up` normalised.
/// Throws InvalidArgument for a null model, fewer than 3 markers, a marker frame the model lacks
/// (naming it and listing the model's frames), a duplicate name, a negative or non-finite weight,
/// bounds or a reference of the wrong size, or a zero `up`.
LabellerModel labellerModel(subject::MarkerModel model);

/// Where the constant-velocity prediction extrapolates.
enum class PredictionSpace {
  /// Every marker's world position: x̂ = x(q_k) + s·(x(q_k) − x(q_{k−1})); the IK warm-starts from
  /// q_k. Joint-space wander the markers do not see (a redundant arm, Euler angles near gimbal
  /// lock) does not move the prediction.
  Markers,
  /// The pose on the configuration manifold: q̂ = q_k ⊕ s·(q_k ⊖ q_{k−1}), markers at q̂; the IK
  /// warm-starts from q̂. Kept for comparison: on Plug-in Gait / human66 the arm's joints wander
  /// while a marker is hidden and the extrapolated pose puts the forearm 15–20 cm off.
  Joints,
};

struct LabellerOptions {
  /// Prediction of the next frame's markers (see PredictionSpace).
  PredictionSpace prediction = PredictionSpace::Markers;
  /// Gate radius (m) of a marker seen in the last frame, or of a hidden marker whose link is
  /// seen (its prediction follows the link) ...
  double gate_radius = 0.05;
  /// ... grown by this much (m) per frame while its whole link is unseen, up to gate_max (m).
  /// After the IK of a frame, hidden markers are looked for again at the solved pose (a second,
  /// smaller assignment among the points left).
  double gate_growth = 0.01;
  double gate_max = 0.15;
  /// Candidate points kept per marker (the nearest within the gate).
  int max_candidates = 4;
  /// Rigid-segment check: a pair of markers on one link is inconsistent when its distance
  /// differs from the learnt one by more than this (m). 0 disables the check.
  double rigid_tolerance = 0.025;
  /// Weight of a new frame in the running mean of the learnt distances (real segments are not
  /// rigid: on gait2354's foot, heel-to-midfoot distances change by 36 mm over a stride).
  double rigid_learning_rate = 0.5;
  /// A learnt distance older than this many frames (one of its markers unseen) is not checked
  /// until both markers are labelled again.
  int rigid_max_age = 3;
  /// The check never undoes a label whose point lies within this distance (m) of the marker's
  /// prediction.
  double rigid_min_miss = 0.01;
  /// Loss of track: after this long (s) without a solved frame the next frame initialises
  /// (with the last pose among the starts) instead of predicting from a stale pose.
  double reinit_after = 0.1;
  /// Loss of track: fewer than this fraction of the markers assigned in the last good frame
  /// (and of the points present) are assigned → re-initialise on this frame.
  double lost_fraction = 0.5;
  /// Initialisation: heading hypotheses (yaw steps of 360°/n), rigid iterations per hypothesis,
  /// gate of the rigid fit (m), articulated refinement rounds and their final gate (m).
  int init_headings = 12;
  /// Each heading's rigid fit also starts moved by ± this (m) along `up` (0: only at the cloud's
  /// median): a fit started at the median can lock onto the points one marker spacing above or
  /// below (thigh markers on the shank's, …), a local minimum the refinement does not leave.
  double init_vertical_offset = 0.2;
  int init_rigid_iterations = 8;
  double init_gate = 0.40;
  int init_refine_rounds = 30;
  double init_refine_gate = 0.08;
  /// An initialisation is accepted when at least this fraction of min(markers, points) is
  /// assigned and the IK's marker RMS is below init_max_rms (m).
  double init_min_fraction = 0.6;
  double init_max_rms = 0.03;
  /// Loss of track by fit: this many consecutive frames whose IK marker RMS exceeds lost_rms (m)
  /// mean the labels are wrong (a wrong initialisation fits worse): re-initialise.
  double lost_rms = 0.035;
  int lost_rms_frames = 5;
  /// Heading hypotheses refined articulated (the best rigid fits, at least 30° apart): a walking
  /// body seen from behind with its legs swapped fits rigidly almost as well as the right one.
  int init_candidates = 4;
  /// After the refinement, try swapping the labels of nearby marker pairs (a wrist bar's two
  /// markers, heel and toe) and keep a swap that fits clearly better.
  bool init_swap_search = true;
  /// Weight (m² per rad² or per m²) of a coordinate task pulling every unlocked joint towards its
  /// value at the IK's warm start (the last pose; the extrapolated one with
  /// PredictionSpace::Joints): it holds joints no labelled marker observes (a torso whose markers are all
  /// hidden) instead of letting them drift; 1e-4 moves a joint that markers observe by far less
  /// than 0.01°. 0 disables it.
  double posture_weight = 1e-4;
  /// Per-limb re-search: after a frame's IK, a limb (the markers of a link's subtree, at most
  /// half the set) with a gap, or with a labelled marker farther than limb_error (m) from its
  /// prediction (at an initialisation: from its model place), is searched again among the points left while the other
  /// labels stay: its joints restart from the current, reference and zero poses, then assignment and IK alternate with
  /// a gate shrinking from limb_gate to init_refine_gate (m); the labels are kept when the whole body's fit improves by
  /// 2 %. While tracking, a search holds every limb for limb_search_interval frames, and a limb whose search failed
  /// waits 2, 4, … 8 times that; at most limb_max_per_frame searches a tracked frame (an initialisation searches every
  /// limb).
  bool limb_search = true;
  double limb_error = 0.03;
  double limb_gate = 0.30;
  int limb_search_interval = 5;
  int limb_max_per_frame = 1;
  /// Assignment ↔ IK rounds of one start of a limb search (the gate reaches init_refine_gate
  /// half-way).
  int limb_rounds = 30;
  /// Weight (m² per rad²) of the distance of the joints from the reference pose in the scores of
  /// the swap and limb searches (not in the IK): of two labellings that fit alike, the one whose
  /// pose is nearer the reference wins (a wrist bar swapped turns the forearm by 180°).
  double init_pose_weight = 1e-4;
  /// While tracking, pairs of markers closer than this (m) at the reference pose on near links
  /// are tried swapped, one pair every limb_search_interval frames. 0 disables it.
  double swap_check_distance = 0.12;
  /// Crowding: two labelled points closer than min(crowd_distance, half the two markers'
  /// distance at the reference pose) are not two markers — one is a ghost beside the other (or a
  /// hidden marker took its neighbour's ghost): the one farther from its prediction is unlabelled,
  /// and a limb search may not produce such labels. 0 disables it.
  double crowd_distance = 0.03;
  /// Residual offsets larger than this (m) are not kept (a wrong label must not teach the model).
  double max_residual = 0.08;
  /// Confidence of a label (FrameLabels::confidence): the posterior of marker i's point p over the
  /// best other point q of the frame, for equal priors and Gaussian misses of σ =
  /// confidence_sigma (m): c = 1 / (1 + exp(−(cost(q) − cost(p)) / 2σ²)), cost(·) = the squared
  /// distance from the marker's solved place (its model place at the solved pose plus its residual
  /// offset), plus, on a link with three or more labelled markers, the residuals of the link's
  /// rigid fit with that point. q may be another marker's point (a swap) or a ghost. A label is
  /// *unsure* below unsure_threshold (Rajagopal run at 60 Hz, 2 mm + 5 % + 3 ghosts, 3 seeds: 39
  /// of its 46 wrong labels and 0.6 % of its right ones are below 0.8).
  double confidence_sigma = 0.01;
  double unsure_threshold = 0.8;
  /// Leave unsure labels out of the output (gaps) rather than give a label that may be wrong; the
  /// track and the pose keep them.
  bool drop_unsure = false;
  /// Points per frame the workspace is sized for; more are handled (allocating) and counted.
  int max_points = 256;
  ik::MarkerIkOptions ik{};
};

enum class TrackState { Tracking, Initialised, Lost };
const char* toString(TrackState s);

/// One frame's labels and its IK.
struct FrameLabels {
  std::vector<int> marker_point;  ///< per marker: index of its point in the frame's input, −1 = gap
  int points = 0;                 ///< finite points in the input
  int invalid_points = 0;         ///< non-finite points ignored
  int assigned = 0;               ///< markers labelled
  int gaps = 0;                   ///< markers not labelled
  int ghosts = 0;                 ///< points not labelled
  int rigid_rejections = 0;       ///< assignments undone by the rigid-segment check
  int relabelled = 0;             ///< limbs re-searched and marker pairs swapped with new labels
  int swaps_corrected = 0;        ///< of which marker pairs found swapped and exchanged
  /// Per marker: confidence of its label in [0, 1] (LabellerOptions::confidence_sigma); NaN for a gap.
  std::vector<double> confidence;
  int unsure = 0;                       ///< labelled markers below unsure_threshold (dropped when drop_unsure)
  TrackState state = TrackState::Lost;  ///< Initialised: this frame (re)started the track
  ik::MarkerIkResult ik;                ///< marker IK on the labelled set (iterations 0 when not run)
  /// Wall time of the frame's marker IK (µs; an initialisation's IK solves included), so a
  /// caller can tell labelling from IK time.
  double ik_microseconds = 0.0;
};

class Labeller {
 public:
  /// Throws InvalidArgument for bad options (non-positive gates, max_candidates < 1, …).
  explicit Labeller(std::shared_ptr<const LabellerModel> model, LabellerOptions options = {});
  ~Labeller();
  Labeller(Labeller&&) noexcept;
  Labeller& operator=(Labeller&&) noexcept;

  /// Labels one frame: `points` (m, model world), any order and count; non-finite points are
  /// ignored; `time` (s) increases from call to call (it scales the velocity of the
  /// prediction). The result stays valid until the next call. Does not allocate once warm
  /// (at most max_points points; an initialisation may allocate nothing either, it is just slow).
  /// Throws InvalidArgument for a non-finite time or one that does not increase.
  const FrameLabels& label(std::span<const Vector3d> points, double time);

  /// Starts (or restarts) the track from known labels instead of a search: `marker_point[i]` is
  /// the index in `points` of marker i's point, −1 for a gap (a frame labelled by hand, or by a
  /// previous run). The pose is fitted to them from the reference pose turned and moved onto the
  /// labelled points. Labels that fit worse than init_max_rms are checked as an initialisation's
  /// are (nearby pairs tried exchanged, limbs searched again); otherwise they are taken as given
  /// and the tracking that follows corrects what is wrong. Throws InvalidArgument for a marker_point of the wrong size,
  /// an index out of range or used twice, fewer than 3 labelled finite points, or a time that does not increase.
  const FrameLabels& start(std::span<const Vector3d> points, double time, std::span<const int> marker_point);

  /// Forgets the track: the next frame initialises.
  void reset();
  /// Pose solved at the last frame (the reference pose before the first).
  [[nodiscard]] const Configuration& pose() const;
  /// Predicted world position of each marker for the last labelled frame (m).
  [[nodiscard]] std::span<const Vector3d> predictions() const;
  [[nodiscard]] const LabellerModel& model() const;
  [[nodiscard]] const LabellerOptions& options() const;
  /// Frames that (re)initialised the track since construction / reset.
  [[nodiscard]] int initialisations() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinetrack::markers
