#pragma once
// Fixtures shared by the per-frame IK tests (InstantaneousIk, PairwiseIk): targets set from the
// forward kinematics of a ground-truth configuration, feasible random configurations, perturbed
// starts, a smooth motion and the allocation count of a warm solve.
#include <random>
#include <string>
#include <vector>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/target.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::testing {

/// A configuration within the limits (joints without limits in ±range) that also satisfies the
/// model's linear rows (rejection sampling; throws std::runtime_error after 100000 attempts).
Configuration feasibleRandom(const Model& m, std::mt19937_64& rng, double range = 1.0);

/// q with every joint moved by ±U(lo, hi) rad (clamped to its limits), a floating base rotated by
/// U(lo, hi) rad about a random axis and shifted by up to 5 cm.
Configuration perturbed(const Model& m, const Configuration& q, std::mt19937_64& rng, double lo, double hi);

/// s_j(t) = c_j + a_j sin(2π f_j t + φ_j) inside the limits (40 % of each range, ±0.6 rad
/// unlimited), base on a slow ellipse turning about z.
Configuration smoothMotion(const Model& m, double t);

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

  FkTargets(Ik& ik, const std::vector<std::string>& names, const std::string& root_name)
      : model(ik.model()), data(ik.model()) {
    for (const auto& name : names) {
      frames.push_back(model.frameId(name));
      orientation.push_back(ik.tasks().addOrientation(name));
    }
    root = model.frameId(root_name);
    position = ik.tasks().addPosition(root_name);
  }
  void set(Ik& ik, const Configuration& q) {
    framesForwardKinematics(model, data, q);
    for (std::size_t i = 0; i < frames.size(); ++i)
      ik.tasks().setOrientation(orientation[i], data.frame[static_cast<std::size_t>(frames[i].value)].R);
    ik.tasks().setPosition(position, data.frame[static_cast<std::size_t>(root.value)].p);
  }
  /// Largest angle (rad) between the targets of `truth` and their frames at q, computed here
  /// (independent of the solver's report).
  double maxAngle(const Configuration& q, const Configuration& truth) {
    Data d(model);
    framesForwardKinematics(model, d, q);
    framesForwardKinematics(model, data, truth);
    double worst = 0.0;
    for (FrameId f : frames) {
      const Matrix3d E =
          data.frame[static_cast<std::size_t>(f.value)].R * d.frame[static_cast<std::size_t>(f.value)].R.transpose();
      worst = std::max(worst, so3::log(E).norm());
    }
    return worst;
  }
};

/// `cases` ground-truth recoveries with `ik`: a random feasible configuration (rng seeded with
/// `seed`, unlimited joints within ±range), its forward kinematics as the targets, a start
/// 0.1–0.3 rad away (perturbed); body(truth, ik.solve()) for each.
template <class Ik, class Body>
void forRandomRecoveries(Ik& ik, FkTargets<Ik>& targets, int cases, std::uint64_t seed, double range, Body body) {
  const Model& m = ik.model();
  std::mt19937_64 rng(seed);
  for (int c = 0; c < cases; ++c) {
    const Configuration truth = feasibleRandom(m, rng, range);
    ik.setState(perturbed(m, truth, rng, 0.1, 0.3));
    targets.set(ik, truth);
    body(truth, ik.solve());
  }
}

/// The iCub URDF at `path` with its coupled shoulder rows (addIcubCouplingConstraints).
Model icubWithCoupling(const std::string& path);

/// Heap allocations of one solve of `ik` (human targets on humanSegmentNames() + the Pelvis
/// position, following smoothMotion at 100 Hz) after three warm-up solves; returns the count and
/// hands the solve's result to `check`.
template <class Ik, class Check>
long allocationsOfWarmSolve(Ik& ik, Check check) {
  const Model& m = ik.model();
  FkTargets<Ik> targets(ik, humanSegmentNames(), "Pelvis");
  ik.setState(smoothMotion(m, 0.0));
  for (int k = 1; k <= 3; ++k) {  // warm up (a first solve may size buffers or partition)
    targets.set(ik, smoothMotion(m, 0.01 * k));
    ik.solve();
  }
  targets.set(ik, smoothMotion(m, 0.04));
  AllocationCounter guard;
  const auto r = ik.solve();
  const long allocations = guard.count();
  check(r);
  return allocations;
}

}  // namespace kinetrack::testing
