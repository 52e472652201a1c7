// Initialisation (and re-initialisation after a loss of track): which point is which marker when
// nothing is known but the model. Two stages:
//   1. rigid search: the model's markers at a start pose (the reference pose, and the last solved
//      pose when there is one), turned about `up` by each of init_headings yaw hypotheses and
//      moved onto the cloud's median (and ± init_vertical_offset along `up`); each hypothesis alternates a gated
//      optimal assignment with the best yaw + translation for it (a Kabsch fit restricted to rotations about `up`); the
//      least-cost hypothesis wins;
//   2. articulated refinement: the IK pose is driven to that rigid placement (steps of at most
//      45° so Gauss–Newton follows), then assignment ↔ marker IK alternate with a gate shrinking
//      from init_gate to init_refine_gate, so limbs away from the start pose are found.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include <Eigen/Geometry>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "labeller_impl.hpp"

namespace kinetrack::markers {

namespace {

Matrix3d yawRotation(const Vector3d& up, double theta) { return Eigen::AngleAxisd(theta, up).toRotationMatrix(); }

struct RigidFit {
  double theta = 0.0;
  Vector3d t = Vector3d::Zero();  // x' = R(theta) x + t
};

// Least-squares rotation about `up` and translation taking a[i] to b[mp[i]] for assigned i.
bool fitYaw(const Vector3d& up, const std::vector<Vector3d>& a, const std::vector<Vector3d>& b,
            const std::vector<int>& mp, RigidFit& fit) {
  Vector3d ca = Vector3d::Zero(), cb = Vector3d::Zero();
  int count = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (mp[i] < 0) continue;
    ca += a[i];
    cb += b[static_cast<std::size_t>(mp[i])];
    ++count;
  }
  if (count < 2) return false;
  ca /= count;
  cb /= count;
  double s_cos = 0.0, s_sin = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (mp[i] < 0) continue;
    Vector3d u = a[i] - ca, v = b[static_cast<std::size_t>(mp[i])] - cb;
    u -= up * up.dot(u);
    v -= up * up.dot(v);
    s_cos += u.dot(v);
    s_sin += up.dot(u.cross(v));
  }
  fit.theta = std::atan2(s_sin, s_cos);
  fit.t = cb - yawRotation(up, fit.theta) * ca;
  return true;
}

}  // namespace

const Configuration& Labeller::Impl::startPose(int s) const { return s == 0 ? lm->reference : s == 1 ? zero : q_curr; }

bool Labeller::Impl::initialise(int n) {
  if (n < 3) return false;
  const Vector3d& up = lm->up;
  // The cloud's centre: the coordinate-wise median (ghosts far away do not move it).
  Vector3d centre;
  for (int c = 0; c < 3; ++c) {
    scratch.clear();
    for (int p = 0; p < n; ++p) scratch.push_back(pts[static_cast<std::size_t>(p)][c]);
    const auto mid = scratch.begin() + static_cast<std::ptrdiff_t>(scratch.size() / 2);
    std::nth_element(scratch.begin(), mid, scratch.end());
    centre[c] = *mid;
  }
  std::fill(gate.begin(), gate.end(), opt.init_gate);

  // Stage 1: rigid search over start poses and headings.
  // Starts: the reference pose, the model's zero pose (another posture of the arms and legs),
  // and after a loss the last solved pose.
  const int starts = started ? 3 : 2;
  hypotheses.clear();
  for (int s = 0; s < starts; ++s) {
    markerPositions(startPose(s), false, model_markers);
    Vector3d cm = Vector3d::Zero();
    for (const Vector3d& x : model_markers) cm += x;
    cm /= m;
    // Each heading from the cloud's median and, when init_vertical_offset > 0, moved up and down
    // by it: an ICP-like fit from one start can lock onto points one marker spacing above or
    // below the right ones (gait2354's first frame with ghosts: thigh markers on the shank's).
    const int placements = opt.init_vertical_offset > 0.0 ? 3 : 1;
    for (int hv = 0; hv < opt.init_headings * placements; ++hv) {
      const int h = hv % opt.init_headings, v = hv / opt.init_headings;
      const double dz = v == 0 ? 0.0 : v == 1 ? opt.init_vertical_offset : -opt.init_vertical_offset;
      RigidFit fit;
      fit.theta = 2.0 * M_PI * h / opt.init_headings;
      fit.t = centre - yawRotation(up, fit.theta) * cm + dz * up;
      double cost = 0.0;
      for (int it = 0; it <= opt.init_rigid_iterations; ++it) {
        const Matrix3d R = yawRotation(up, fit.theta);
        for (int i = 0; i < m; ++i)
          targets[static_cast<std::size_t>(i)] = R * model_markers[static_cast<std::size_t>(i)] + fit.t;
        cost = assign(targets, gate, n);
        if (it == opt.init_rigid_iterations) break;
        RigidFit next;
        if (!fitYaw(up, model_markers, pts, mp, next)) break;
        const bool settled =
            std::abs(std::remainder(next.theta - fit.theta, 2.0 * M_PI)) < 1e-4 && (next.t - fit.t).norm() < 1e-4;
        fit = next;
        if (settled) {
          const Matrix3d R2 = yawRotation(up, fit.theta);
          for (int i = 0; i < m; ++i)
            targets[static_cast<std::size_t>(i)] = R2 * model_markers[static_cast<std::size_t>(i)] + fit.t;
          cost = assign(targets, gate, n);
          break;
        }
      }
      hypotheses.push_back({s, std::remainder(fit.theta, 2.0 * M_PI), cost, fit.t});
    }
  }
  std::sort(hypotheses.begin(), hypotheses.end(),
            [](const Hypothesis& a, const Hypothesis& b) { return a.cost < b.cost; });

  // Stage 2: articulated refinement of the best distinct hypotheses; the best final fit wins.
  double best_score = std::numeric_limits<double>::infinity();
  int tried = 0;
  for (std::size_t k = 0; k < hypotheses.size() && tried < opt.init_candidates; ++k) {
    // Skip a hypothesis near a better one (same start, heading within 30°): the same basin.
    bool distinct = true;
    for (std::size_t j = 0; j < k && distinct; ++j)
      distinct = hypotheses[j].start != hypotheses[k].start ||
                 std::abs(std::remainder(hypotheses[j].theta - hypotheses[k].theta, 2.0 * M_PI)) >= M_PI / 6.0;
    if (!distinct) continue;
    ++tried;
    const double score = refine(hypotheses[k], n);
    if (score < best_score) {
      best_score = score;
      best_mp = mp;
      init_q = ik.state();
      init_ik = out.ik;
    }
  }
  if (!std::isfinite(best_score)) return false;
  mp = best_mp;
  ik.setState(init_q);
  out.ik = init_ik;
  if (opt.init_swap_search) swapSearch(best_score);
  solveIk(init_q);  // the marker errors of the labels chosen, for the limb search
  limbSearch(n, false);
  init_q = ik.state();
  int assigned = 0;
  for (int i = 0; i < m; ++i) assigned += mp[static_cast<std::size_t>(i)] >= 0;
  markerPositions(init_q, false, pred);
  if (assigned < opt.init_min_fraction * std::min(m, n) || !(out.ik.rms_error <= opt.init_max_rms)) return false;
  newTrack();
  return true;
}

void Labeller::Impl::newTrack() {
  // A new track: offsets and learnt distances start from this frame.
  std::fill(residual.begin(), residual.end(), Vector3d::Zero());
  std::fill(pair_ref.begin(), pair_ref.end(), std::numeric_limits<double>::quiet_NaN());
  std::fill(pair_age.begin(), pair_age.end(), 0);
  std::fill(unseen.begin(), unseen.end(), 0);
}

bool Labeller::Impl::startFromLabels() {
  // The reference pose turned about `up` and moved onto the labelled points (the rigid fit of
  // the initialisation, its labels given), then the IK on them.
  markerPositions(lm->reference, false, model_markers);
  RigidFit fit;
  if (!fitYaw(lm->up, model_markers, pts, mp, fit)) return false;
  Hypothesis h;
  h.start = 0;
  h.theta = std::remainder(fit.theta, 2.0 * M_PI);
  h.t = fit.t;  // x' = R(θ) x + t
  driveTo(h);
  // The IK from the standing pose to a running one takes more than one solve's iterations: solve
  // again until the fit stops improving by 1 %.
  double last = std::numeric_limits<double>::infinity();
  for (int round = 0; round < 20; ++round) {
    if (!solveIk(ik.state())) return false;
    if (!(out.ik.rms_error < 0.99 * last)) break;
    last = out.ik.rms_error;
  }
  // Labels that fit worse than an initialisation would accept are checked as an
  // initialisation's are: pairs of nearby markers tried exchanged, limbs searched again (the
  // Rajagopal run with one elbow's epicondyles exchanged fits at 70 mm RMS, 17 mm right).
  if (!(out.ik.rms_error <= opt.init_max_rms)) {
    init_q = ik.state();
    init_ik = out.ik;
    newTrack();  // no learnt distance constrains the searches
    swapSearch(fitScore());
    solveIk(init_q);
    limbSearch(static_cast<int>(pts.size()), false);
  }
  newTrack();
  return true;
}

void Labeller::Impl::driveTo(const Hypothesis& h) {
  const Vector3d& up = lm->up;
  // Drive the IK pose to the rigid placement: rotate about the markers' centroid in steps of at
  // most 45°, translating proportionally; every marker is a target (reachable exactly when the
  // model's root can move freely).
  const Configuration& start = startPose(h.start);
  markerPositions(start, false, model_markers);
  Vector3d cm = Vector3d::Zero();
  for (const Vector3d& x : model_markers) cm += x;
  cm /= m;
  const Vector3d shift = yawRotation(up, h.theta) * cm + h.t - cm;
  const int steps = std::max(1, static_cast<int>(std::ceil(std::abs(h.theta) / (M_PI / 4.0))));
  ik.setState(start);
  for (int k = 1; k <= steps; ++k) {
    const double lambda = static_cast<double>(k) / steps;
    const Matrix3d R = yawRotation(up, lambda * h.theta);
    for (int i = 0; i < m; ++i)
      measured[static_cast<std::size_t>(i)] =
          R * (model_markers[static_cast<std::size_t>(i)] - cm) + cm + lambda * shift;
    for (std::size_t j = 0; j < task_joint.size(); ++j) task_value[j] = ik.state().joints[task_joint[j]];
    const auto t0 = std::chrono::steady_clock::now();
    (void)ik.solve(measured, task_value);
    out.ik_microseconds += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  }
}

double Labeller::Impl::refine(const Hypothesis& h, int n) {
  driveTo(h);
  // Articulated refinement: assignment ↔ IK, the gate shrinking geometrically to its final value
  // by half the rounds, then rounds at that gate until the labels settle.
  const int rounds = opt.init_refine_rounds;
  std::fill(settle_mp.begin(), settle_mp.end(), -2);
  for (int r = 0; r < rounds; ++r) {
    const double frac = std::min(1.0, 2.0 * r / std::max(1, rounds - 1));
    const double g = opt.init_gate * std::pow(opt.init_refine_gate / opt.init_gate, frac);
    std::fill(gate.begin(), gate.end(), g);
    markerPositions(ik.state(), false, targets);
    assign(targets, gate, n);
    if (frac >= 1.0 && mp == settle_mp) break;  // settled at the final gate
    settle_mp = mp;
    if (!solveIk(ik.state())) return std::numeric_limits<double>::infinity();
  }
  return fitScore();
}

double Labeller::Impl::fitScore() const {
  // Squared model-to-point distance of each labelled marker, the final gate² for a gap.
  const double g2 = opt.init_refine_gate * opt.init_refine_gate;
  double score = 0.0;
  for (int i = 0; i < m; ++i) {
    const double e = ik.markerError(ik::MarkerTaskId(i));
    score += mp[static_cast<std::size_t>(i)] >= 0 && std::isfinite(e) ? std::min(e * e, g2) : g2;
  }
  return score;
}

void Labeller::Impl::swapSearch(double score) {
  // Local minima of the refinement are label swaps the IK can fit almost as well: a wrist bar's
  // two markers (forearm turned 180°), heel and toe (foot turned round). Every pair of labelled
  // markers on one link or on links at most three joints apart, within 30 cm of each other, is
  // swapped and re-solved; a swap that lowers the fit (+ pose prior) by 2 % is kept.
  score += posePrior(init_q);
  for (int i = 0; i < m; ++i) {
    for (int j = i + 1; j < m; ++j) {
      const auto I = static_cast<std::size_t>(i), J = static_cast<std::size_t>(j);
      if (mp[I] < 0 || mp[J] < 0) continue;
      if (!nearLinks(lm->link[I], lm->link[J])) continue;
      if ((pts[static_cast<std::size_t>(mp[I])] - pts[static_cast<std::size_t>(mp[J])]).norm() > 0.3) continue;
      std::swap(mp[I], mp[J]);
      ik.setState(init_q);
      if (solveIk(init_q)) {
        const double swapped = fitScore() + posePrior(ik.state());
        if (swapped < 0.98 * score) {
          score = swapped;
          init_q = ik.state();
          init_ik = out.ik;
          continue;
        }
      }
      std::swap(mp[I], mp[J]);
    }
  }
  ik.setState(init_q);
  out.ik = init_ik;
}

}  // namespace kinetrack::markers

namespace kinetrack::markers {

const FrameLabels& Labeller::start(std::span<const Vector3d> points, double time, std::span<const int> marker_point) {
  Impl& s = *impl_;
  const int m = s.m;
  if (marker_point.size() != static_cast<std::size_t>(m))
    throw InvalidArgument("Labeller::start: " + std::to_string(marker_point.size()) + " labels for " +
                          std::to_string(m) + " markers");
  const int n = s.beginFrame(points, time, "Labeller::start");
  s.input_to_point.assign(points.size(), -1);
  for (int p = 0; p < n; ++p) s.input_to_point[static_cast<std::size_t>(s.pts_index[static_cast<std::size_t>(p)])] = p;
  int labelled = 0;
  for (int i = 0; i < m; ++i) {
    const int k = marker_point[static_cast<std::size_t>(i)];
    if (k < -1 || k >= static_cast<int>(points.size()))
      throw InvalidArgument("Labeller::start: marker '" + s.lm->markers[static_cast<std::size_t>(i)].name +
                            "': point " + std::to_string(k) + " is not in [−1, " + std::to_string(points.size()) + ")");
    for (int j = 0; j < i; ++j)
      if (k >= 0 && marker_point[static_cast<std::size_t>(j)] == k)
        throw InvalidArgument("Labeller::start: point " + std::to_string(k) + " given to markers '" +
                              s.lm->markers[static_cast<std::size_t>(j)].name + "' and '" +
                              s.lm->markers[static_cast<std::size_t>(i)].name + "'");
    s.mp[static_cast<std::size_t>(i)] = k >= 0 ? s.input_to_point[static_cast<std::size_t>(k)] : -1;
    labelled += s.mp[static_cast<std::size_t>(i)] >= 0;
  }
  if (labelled < 3)
    throw InvalidArgument("Labeller::start: " + std::to_string(labelled) +
                          " markers labelled with finite points (need 3)");
  s.relabelled = false;
  s.endFrame(n, time, s.startFromLabels(), true);
  return s.out;
}

}  // namespace kinetrack::markers
