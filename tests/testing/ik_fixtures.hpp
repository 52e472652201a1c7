#pragma once
// Fixtures shared by the per-frame IK tests (InstantaneousIk, PairwiseIk): targets set from the
// forward kinematics of a ground-truth configuration, feasible random configurations, perturbed
// starts, and row violations measured independently of the solvers.
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/target.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::testing {

/// Largest violation of the model's linear rows at q (0 when all hold).
double rowViolation(const Model& m, const Configuration& q);

/// A configuration within the limits (joints without limits in ±range) that also satisfies the
/// model's linear rows (rejection sampling; throws std::runtime_error after 100000 attempts).
Configuration feasibleRandom(const Model& m, std::mt19937_64& rng, double range = 1.0);

/// q with every joint moved by ±U(lo, hi) rad (clamped to its limits), a floating base rotated by
/// U(lo, hi) rad about a random axis and shifted by up to 5 cm.
Configuration perturbed(const Model& m, const Configuration& q, std::mt19937_64& rng, double lo, double hi);

/// Orientation targets on `names` and a position target on `root_name` of a per-frame solver
/// (InstantaneousIk, PairwiseIk), set from the forward kinematics of a configuration.
template <class Ik>
struct FkTargets {
  const Model& model;
  Data data;
  std::vector<FrameId> frames;
  std::vector<TargetId> orientation;
  FrameId root;
  TargetId position;

  FkTargets(Ik& ik, const std::vector<std::string>& names, const std::string& root_name) : model(ik.model()), data(ik.model()) {
    for (const auto& name : names) {
      frames.push_back(model.frameId(name));
      orientation.push_back(ik.addOrientationTarget(name));
    }
    root = model.frameId(root_name);
    position = ik.addPositionTarget(root_name);
  }
  void set(Ik& ik, const Configuration& q) {
    framesForwardKinematics(model, data, q);
    for (std::size_t i = 0; i < frames.size(); ++i)
      ik.setTargetOrientation(orientation[i], data.frame[static_cast<std::size_t>(frames[i].value)].R);
    ik.setTargetPosition(position, data.frame[static_cast<std::size_t>(root.value)].p);
  }
  /// Largest angle (rad) between the targets of `truth` and their frames at q, computed here
  /// (independent of the solver's report).
  double maxAngle(const Configuration& q, const Configuration& truth) {
    Data d(model);
    framesForwardKinematics(model, d, q);
    framesForwardKinematics(model, data, truth);
    double worst = 0.0;
    for (FrameId f : frames) {
      const Matrix3d E = data.frame[static_cast<std::size_t>(f.value)].R * d.frame[static_cast<std::size_t>(f.value)].R.transpose();
      worst = std::max(worst, so3::log(E).norm());
    }
    return worst;
  }
};

}  // namespace kinetrack::testing
