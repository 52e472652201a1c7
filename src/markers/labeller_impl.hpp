#pragma once
// Private state of markers::Labeller, shared by the tracking (labeller.cpp) and the
// initialisation (labeller_init.cpp). Everything is sized in the constructor.
#include <vector>

#include "kinetrack/markers/assignment.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/model/data.hpp"

namespace kinetrack::markers {

struct Labeller::Impl {
  Impl(std::shared_ptr<const LabellerModel> model, const LabellerOptions& options);

  std::shared_ptr<const LabellerModel> lm;
  LabellerOptions opt;
  ik::MarkerIk ik;
  Data data;  // forward kinematics of predictions and initialisation hypotheses
  int m = 0;  // markers

  // Track state.
  bool started = false;  // a pose has been solved since construction / reset
  bool have_velocity = false;
  bool have_time = false;
  Configuration q_prev, q_curr, q_pred;
  VectorXd nu;
  double t_prev = 0.0, t_curr = 0.0;
  int last_good_assigned = 0;
  int bad_fit_frames = 0;  // consecutive tracked frames with IK RMS above lost_rms
  int initialisations = 0;
  std::vector<Vector3d> residual;  // per marker, in its frame (m)
  std::vector<int> unseen;         // frames since the marker was last labelled
  std::vector<double> pair_ref;    // learnt distance per LabellerModel::pairs entry, NaN = not yet
  std::vector<int> pair_age;       // frames since it was last learnt
  std::vector<int> link_seen;      // per link: markers labelled in the last solved frame
  double t_solved = 0.0;           // time of the last solved frame

  // Per-frame workspace.
  std::vector<Vector3d> pts;       // finite input points
  std::vector<int> pts_index;      // their index in the input
  std::vector<Vector3d> pred;      // predicted marker positions
  std::vector<double> gate;        // per marker (m)
  std::vector<Vector3d> measured;  // IK input: the labelled point or NaN
  std::vector<int> mp;             // marker → finite point (−1)
  std::vector<int> cand;           // m × max_candidates point indices
  std::vector<double> cand_d2;     // their squared distances
  std::vector<int> cand_n;         // candidates per marker
  std::vector<int> point_marker;   // point → first marker listing it (−1), or the cluster column
  std::vector<char> point_taken;   // points excluded from assign() (second pass)
  std::vector<int> uf;             // union-find over markers
  std::vector<int> cluster_next, cluster_head;
  std::vector<int> rows, cols;  // one cluster's markers and points
  std::vector<double> cost;     // its cost matrix
  std::vector<int> row_to_col;
  std::vector<int> bad, checks;  // rigid check counts per marker
  AssignmentSolver solver;
  FrameLabels out;

  std::vector<int> task_joint;     // joint of each posture task
  std::vector<double> task_value;  // its target this frame

  // Initialisation workspace.
  std::vector<Vector3d> model_markers, targets;
  std::vector<int> best_mp, track_mp, settle_mp;
  std::vector<double> scratch;
  struct Hypothesis {
    int start = 0;
    double theta = 0.0, cost = 0.0;
    Vector3d t = Vector3d::Zero();
  };
  std::vector<Hypothesis> hypotheses;
  Configuration init_q;
  Configuration zero;  // the model's zero configuration (an initialisation start)
  ik::MarkerIkResult init_ik;

  // Per-limb re-search (limbSearch): the model's limbs as regions, largest first.
  struct Region {
    std::vector<int> markers;  // markers on the region's links
    std::vector<int> joints;   // unlocked joints of its links (the joint into its top link included)
    bool segment = false;      // one segment's own cluster (the pelvis, the torso), not a subtree
  };
  std::vector<Region> regions;
  std::vector<int> region_cooldown;  // frames until a region may be searched again
  std::vector<int> region_backoff;   // its wait after a failed search, in limb_search_interval
  int limb_cooldown = 0;             // frames until any region may be searched
  bool relabelled = false;           // this frame's swap check changed labels (the whole pose jumps)
  // A limb relabelled this frame: its joints lose their velocity, its markers' gates open next
  // frame; the rest of the body keeps its prediction.
  std::vector<char> jumped_joint, jumped_marker;
  std::vector<char> in_region;   // per marker, for the region being searched
  std::vector<char> point_used;  // per point: labelled (limbSearch)
  std::vector<int> limb_saved_mp, limb_best_mp;
  Configuration limb_q, limb_start, limb_best_q;
  std::vector<int> prior_joints;                 // unlocked rotational joints (posePrior)
  std::vector<LabellerModel::Pair> close_pairs;  // nearby markers on near links (swapCheck)
  std::vector<double> crowd;                     // m × m: crowding distance of two markers (m)
  int swap_cooldown = 0;
  int suspect_wait = 0;        // frames until a suspect pair (suspectPair) may be tried again
  std::vector<int> pair_wait;  // per close pair: frames until it is tried again as the worst fit
  static constexpr int pair_retry = 50;
  std::vector<int> input_to_point;            // Labeller::start: input index → finite point (−1)
  std::vector<int> link_first, link_markers;  // markers per link (CSR over links: clusterCost)

  /// Sizes the point workspace for n points (allocates only above the current capacity).
  void ensurePoints(int n);
  /// World positions of the marker frames at q into `out` (plus residual offsets when asked).
  void markerPositions(const Configuration& q, bool with_residual, std::vector<Vector3d>& out);
  /// Optimal gated assignment of markers to pts: mp[i] = point or −1. Returns Σ cost (d²/gate²,
  /// 1 for a gap).
  /// Points with point_taken set are skipped when `skip_taken`.
  double assign(const std::vector<Vector3d>& target, const std::vector<double>& gates, int n, bool skip_taken = false);
  /// Gate of marker i this frame (m): `after_ik` for the second pass, when links labelled in this
  /// frame count as seen.
  double gateOf(int i, bool after_ik) const;
  /// Second pass after a tracked frame's IK: hidden markers looked for at the solved pose among
  /// the points left; returns how many were added (the IK is solved again when any).
  int secondPass(int n);
  /// Undoes assignments that break the learnt distances of their link, then crowded ones (two
  /// labelled points too close to be two markers); returns how many.
  int rigidCheck(int n);
  /// No point but marker i's own lies within gate_radius of its prediction.
  bool isolated(int i, int n) const;
  /// True when no marker whose label differs from `before` breaks a learnt distance to a partner
  /// on its link whose label stays, or crowds another labelled point (a limb search's candidate
  /// labels).
  bool consistentChange(const std::vector<int>& before) const;
  /// The crowding distance of markers i and j (m).
  [[nodiscard]] double crowdOf(int i, int j) const {
    return crowd[static_cast<std::size_t>(i) * static_cast<std::size_t>(m) + static_cast<std::size_t>(j)];
  }
  /// Marker IK on the assigned points (mp), the posture tasks pulling towards `prior`; false
  /// when too few markers are assigned.
  bool solveIk(const Configuration& prior);
  /// Drives the IK from a start pose to a rigid placement, then refines; returns the fit score.
  double refine(const Hypothesis& h, int n);
  /// Drives the IK from h's start pose to its rigid placement (the first half of refine).
  void driveTo(const Hypothesis& h);
  /// Offsets, learnt distances and unseen counters start again (a new track).
  void newTrack();
  /// Labeller::start: the pose fitted to the given labels (mp); false for too few.
  bool startFromLabels();
  /// Per marker: the confidence of its label (out.confidence) at the solved pose, before commit
  /// (the residual offsets of the past frames); returns the labels below unsure_threshold.
  int confidences(int n);
  /// The close pair whose labels the model's geometry at the solved pose (no residual offsets)
  /// fits better exchanged, by the largest margin, or −1; *worst_fit: the pair not tried for
  /// pair_retry frames whose markers miss their model places most, or −1.
  int suspectPair(int* worst_fit) const;
  /// After the IK: when a labelled point has another point nearer the marker's solved place (+
  /// residual offset), the markers are assigned again around their solved places and the IK
  /// re-solved; returns the labels changed.
  int reassignAtSolvedPose(int n);
  /// Each marker's place at the IK's solved pose plus its residual offset, from the IK's data.
  void solvedPlaces(std::vector<Vector3d>& places) const;
  /// Σ squared residuals of the rigid fit of link's learnt marker shape (targets: solved places +
  /// residual offsets) onto its labelled points with `marker` on `point`; NaN under 3 markers.
  double clusterCost(int link, int marker, int point) const;
  /// Markers of links with ≥ 3 labelled markers take an unlabelled point near their solved place
  /// when the link's rigid fit is better with it; returns the labels changed.
  int clusterCheck(int n);
  /// Marker i's link carries at least three markers of the set (a cluster clusterCheck decides).
  [[nodiscard]] bool onCluster(int i) const {
    const auto l = static_cast<std::size_t>(lm->link[static_cast<std::size_t>(i)]);
    return link_first[l + 1] - link_first[l] >= 3;
  }
  /// The refinement's fit: Σ over markers of min(IK marker error², gate²), gate² for a gap
  /// (init_refine_gate).
  double fitScore() const;
  /// Tries swapping the labels of nearby marker pairs of the chosen initialisation (see .cpp).
  void swapSearch(double score);
  /// After a solved frame: residual offsets, unseen counters, learnt distances, time and pose.
  void commit(double time, bool velocity_valid, bool learn);
  /// The search over heading and position + articulated refinement on pts[0, n). On success mp
  /// holds the labels, the IK state the pose, and true is returned.
  bool initialise(int n);
  /// Builds `regions` from the model's tree (constructor).
  void buildRegions();
  /// Per-limb re-search after a solved frame (or an initialisation): a region with a gap or a
  /// marker far from its model place while points are left is searched again among those points,
  /// the rest of the labels fixed: its joints restarted from the current, reference and zero
  /// poses, assignment ↔ IK with a shrinking gate; the best fit is kept when it beats the current
  /// one. `tracking`: rate-limited per region and at most limb_max_per_frame searches. Returns
  /// the number of regions relabelled.
  int limbSearch(int n, bool tracking);
  /// One start of a region's re-search; returns the fit score (mp, IK state: its result).
  double limbRefine(const Configuration& start, int n);
  /// opt.init_pose_weight × Σ over unlocked rotational joints of their squared (wrapped)
  /// distance from the reference pose: breaks the ties of label swaps a turned limb fits almost as
  /// well (a forearm rolled 180° under a swapped wrist bar).
  double posePrior(const Configuration& q) const;
  /// Links a and b are one link or at most three joints apart (either way).
  bool nearLinks(int a, int b) const;
  /// While tracking, every limb_search_interval frames, one pair of close_pairs (round robin) is
  /// swapped and re-solved; the swap is kept when the fit + pose prior improves by 2 %.
  void swapCheck();
  /// A frame's start (label and start): checks that `time` is finite and increases (`who` names
  /// the caller), keeps the finite points (pts, pts_index) and resets the frame's counters;
  /// returns the number of finite points.
  int beginFrame(std::span<const Vector3d> points, double time, const char* who);
  /// A frame's end: when solved, the confidences, the fit counter and the committed state (an
  /// initialised frame has no velocity); else every marker a gap, the pose held and its velocity
  /// forgotten; then the output labels (input indices; unsure ones dropped when asked), counts and
  /// state.
  void endFrame(int n, double time, bool solved, bool initialised);
  /// World rotation of marker i's frame at the IK's solved pose (its residual offset's frame).
  [[nodiscard]] Matrix3d markerRotation(int i) const;
  /// Start pose s of the initialisation: 0 reference, 1 zero, 2 last solved.
  const Configuration& startPose(int s) const;
};

}  // namespace kinetrack::markers
