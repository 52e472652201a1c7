#include "kinetrack/subject/marker_calibration.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "rigid_fit.hpp"

namespace kinetrack::subject {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Frames of `trial` whose time lies in [t0, t1] (a quarter sample of slack for rounded times).
std::vector<int> framesInRange(const io::MarkerTrajectories& trial, double t0, double t1) {
  const double slack = trial.data_rate > 0.0 ? 0.25 / trial.data_rate : 1e-9;
  std::vector<int> out;
  for (int k = 0; k < trial.numFrames(); ++k) {
    const double t = trial.times[static_cast<std::size_t>(k)];
    if (t >= t0 - slack && t <= t1 + slack) out.push_back(k);
  }
  return out;
}

// One calibration pose: its measured markers (set order, NaN when absent) and its time.
struct Pose {
  double time = 0.0;
  std::vector<Vector3d> measured;
};

ik::MarkerIk makeIk(std::shared_ptr<const Model> model_with, const io::MarkerSet& set,
                    const MarkerCalibrationOptions& options, double posture_weight = 0.0) {
  ik::MarkerIk ik(model_with, options.ik);
  for (const auto& m : set.markers) ik.tasks().addMarker(m.name, m.weight);
  if (posture_weight > 0.0)
    for (int j = 0; j < model_with->numJoints(); ++j)
      ik.tasks().addCoordinate(model_with->jointName(JointId(j)), posture_weight);
  if (options.model_limits) ik.bounds().clampAll();
  return ik;
}

}  // namespace

std::vector<Vector3d> meanMarkerPositions(const io::MarkerTrajectories& trial, double time_start, double time_end,
                                          int* frames) {
  const std::vector<int> in_range = framesInRange(trial, time_start, time_end);
  if (frames) *frames = static_cast<int>(in_range.size());
  std::vector<Vector3d> sum(static_cast<std::size_t>(trial.numMarkers()), Vector3d::Zero());
  std::vector<int> count(sum.size(), 0);
  for (int k : in_range)
    for (int i = 0; i < trial.numMarkers(); ++i)
      if (trial.isValid(k, i)) {
        sum[static_cast<std::size_t>(i)] += trial.position(k, i);
        ++count[static_cast<std::size_t>(i)];
      }
  for (std::size_t i = 0; i < sum.size(); ++i)
    sum[i] = count[i] > 0 ? Vector3d(sum[i] / count[i]) : Vector3d::Constant(kNaN);
  return sum;
}

MarkerCalibration calibrateMarkers(std::shared_ptr<const Model> model, const io::MarkerSet& initial,
                                   const io::MarkerTrajectories& trial, const MarkerCalibrationOptions& options) {
  if (!model) throw InvalidArgument("calibrateMarkers: no model");
  if (options.poses < 1 || options.max_rounds < 1 || !(options.tolerance > 0.0) || !(options.posture_weight >= 0.0) ||
      !(options.regularization >= 0.0) || !std::isfinite(options.regularization))
    throw InvalidArgument(
        "calibrateMarkers: need poses ≥ 1, max_rounds ≥ 1, tolerance > 0 and a finite "
        "regularization ≥ 0");
  const std::size_t nm = initial.markers.size();
  io::MarkerSet set = initial;
  auto model_with = std::make_shared<const Model>(io::withMarkers(*model, set));  // validates the set

  // Trial column of each set marker (−1: absent).
  std::vector<int> column(nm, -1);
  for (std::size_t i = 0; i < nm; ++i)
    for (int c = 0; c < trial.numMarkers(); ++c)
      if (trial.names[static_cast<std::size_t>(c)] == set.markers[i].name) column[i] = c;

  // The calibration poses.
  const std::vector<int> in_range = framesInRange(trial, options.time_start, options.time_end);
  if (in_range.empty())
    throw InvalidArgument("calibrateMarkers: no frame of " + trial.source + " lies in the time range");
  std::vector<Pose> poses;
  MarkerCalibration out;
  if (options.poses == 1) {
    const std::vector<Vector3d> mean = meanMarkerPositions(trial, options.time_start, options.time_end);
    Pose p;
    for (int k : in_range) p.time += trial.times[static_cast<std::size_t>(k)];
    p.time /= static_cast<double>(in_range.size());
    for (std::size_t i = 0; i < nm; ++i)
      p.measured.push_back(column[i] >= 0 ? mean[static_cast<std::size_t>(column[i])] : Vector3d::Constant(kNaN));
    poses.push_back(p);
  } else {
    const int n = static_cast<int>(in_range.size());
    const int kposes = std::min(options.poses, n);
    for (int j = 0; j < kposes; ++j) {
      const int k = in_range[static_cast<std::size_t>(
          kposes == 1 ? 0 : std::lround(static_cast<double>(j) * (n - 1) / (kposes - 1)))];
      Pose p;
      p.time = trial.times[static_cast<std::size_t>(k)];
      for (std::size_t i = 0; i < nm; ++i)
        p.measured.push_back(column[i] >= 0 ? trial.position(k, column[i]) : Vector3d::Constant(kNaN));
      poses.push_back(p);
    }
  }
  out.frames_used = static_cast<int>(options.poses == 1 ? in_range.size() : poses.size());
  for (const Pose& p : poses) {
    int present = 0;
    for (std::size_t i = 0; i < nm; ++i) present += p.measured[i].allFinite() && set.markers[i].weight > 0.0 ? 1 : 0;
    if (present < 3)
      throw InvalidArgument("calibrateMarkers: the pose at t = " + std::to_string(p.time) + " s of " + trial.source +
                            " has " + std::to_string(present) + " weighted markers of the set (need 3)");
    out.pose_times.push_back(p.time);
  }

  // Errors of every marker at every pose for the current model and poses.
  std::vector<Configuration> q(poses.size());
  auto errors = [&](std::vector<std::vector<double>>& e) {
    e.assign(poses.size(), std::vector<double>(nm, kNaN));
    for (std::size_t k = 0; k < poses.size(); ++k) {
      const std::vector<Vector3d> mk = detail::modelMarkers(*model_with, set, q[k]);
      for (std::size_t i = 0; i < nm; ++i)
        if (poses[k].measured[i].allFinite()) e[k][i] = (mk[i] - poses[k].measured[i]).norm();
    }
  };
  auto rms = [&](const std::vector<std::vector<double>>& e, double* max) {
    double sum = 0.0, mx = 0.0;
    int n = 0;
    for (const auto& ek : e)
      for (std::size_t i = 0; i < nm; ++i)
        if (!std::isnan(ek[i]) && set.markers[i].weight > 0.0) sum += ek[i] * ek[i], mx = std::max(mx, ek[i]), ++n;
    if (max) *max = mx;
    return n > 0 ? std::sqrt(sum / n) : 0.0;
  };

  std::vector<std::vector<double>> err_before, err_after;
  const double lambda = options.regularization;
  for (int round = 0; round < options.max_rounds; ++round) {
    out.rounds = round + 1;
    ik::MarkerIk ik = makeIk(model_with, set, options);
    for (std::size_t k = 0; k < poses.size(); ++k) {
      Configuration start = q[k];
      if (round == 0) {
        // First round: from the previous pose (or the zero pose), rigidly aligned; with the
        // posture prior when there is one (the plain solves come in the next rounds).
        start = detail::aligned(*model_with, set, k == 0 ? Configuration(*model_with) : q[k - 1], poses[k].measured);
        if (options.posture_weight > 0.0) {
          ik::MarkerIk prior = makeIk(model_with, set, options, options.posture_weight);
          const std::vector<double> values(start.joints.data(), start.joints.data() + start.joints.size());
          prior.setState(start);
          prior.solve(poses[k].measured, values);
          q[k] = prior.state();
          continue;
        }
      }
      ik.setState(start);
      ik.solve(poses[k].measured);
      q[k] = ik.state();
    }
    std::vector<std::vector<double>> e;
    errors(e);
    out.rms_per_round.push_back(rms(e, nullptr));
    if (round == 0) err_before = e;

    // Placement: each free marker where it was measured, in its link frame.
    Data d(*model_with);
    std::vector<std::vector<Transform>> links(poses.size());
    for (std::size_t k = 0; k < poses.size(); ++k) {
      forwardKinematics(*model_with, d, q[k]);
      links[k] = d.link;
    }
    double largest_move = 0.0;
    for (std::size_t i = 0; i < nm; ++i) {
      io::MarkerSetMarker& m = set.markers[i];
      if (m.fixed) continue;
      const LinkId l = model_with->linkId(m.link);
      Vector3d sum = lambda * initial.markers[i].offset;
      int n = 0;
      for (std::size_t k = 0; k < poses.size(); ++k)
        if (poses[k].measured[i].allFinite()) {
          const Transform& X = links[k][static_cast<std::size_t>(l.value)];
          sum += X.R.transpose() * (poses[k].measured[i] - X.p);
          ++n;
        }
      if (n == 0) continue;
      const Vector3d o = sum / (n + lambda);
      largest_move = std::max(largest_move, (o - m.offset).norm());
      m.offset = o;
    }
    model_with = std::make_shared<const Model>(io::withMarkers(*model, set));
    if (largest_move <= options.tolerance) break;
  }
  errors(err_after);
  out.rms_before = rms(err_before, nullptr);
  out.rms_after = rms(err_after, &out.max_after);
  out.poses = q;
  out.markers = set;
  for (std::size_t i = 0; i < nm; ++i) {
    MarkerPlacement p;
    p.name = set.markers[i].name;
    p.link = set.markers[i].link;
    p.fixed = set.markers[i].fixed;
    p.initial_offset = initial.markers[i].offset;
    p.offset = set.markers[i].offset;
    p.moved = (p.offset - p.initial_offset).norm();
    double sb = 0.0, sa = 0.0;
    for (std::size_t k = 0; k < poses.size(); ++k)
      if (!std::isnan(err_after[k][i])) {
        sb += err_before[k][i] * err_before[k][i];
        sa += err_after[k][i] * err_after[k][i];
        ++p.poses_present;
      }
    p.error_before = p.poses_present > 0 ? std::sqrt(sb / p.poses_present) : kNaN;
    p.error_after = p.poses_present > 0 ? std::sqrt(sa / p.poses_present) : kNaN;
    out.placements.push_back(p);
  }
  return out;
}

MarkerSetProblem markerSetProblem(std::shared_ptr<const Model> model, const io::MarkerSet& set,
                                  const io::MarkerTrajectories* static_trial, const io::MarkerTrajectories* trial) {
  if (!model) throw InvalidArgument("markerSetProblem: no model");
  MarkerSetProblem problem;
  io::MarkerSet placed = set;
  Configuration start;  // the reference: the calibrated static pose when there is one
  if (static_trial) {
    problem.calibration = calibrateMarkers(model, set, *static_trial);
    placed = problem.calibration->markers;
    if (!problem.calibration->poses.empty()) start = problem.calibration->poses.front();
  }
  problem.model = markerModel(model, placed, start);
  if (!trial) return problem;
  std::vector<MarkerModel::Marker> present;
  for (const MarkerModel::Marker& mk : problem.model.markers) {
    if (std::find(trial->names.begin(), trial->names.end(), mk.name) != trial->names.end())
      present.push_back(mk);
    else
      problem.absent.push_back(mk.name);
  }
  if (present.empty()) throw InvalidArgument("no marker of the marker set '" + set.name + "' is in " + trial->source);
  problem.model.markers = std::move(present);
  return problem;
}

}  // namespace kinetrack::subject
