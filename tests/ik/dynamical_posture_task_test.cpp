// DYN reads posture tasks from its TaskSet (ik::PostureTask): a velocity reference without pose
// values is bit for bit the former private posture term (H += diag μ, g −= μ∘v after the damping,
// solved by the same QP backend); pose values are a pull v* = K(ŝ − s) (Eq. 9 per joint, the
// solver's discretisation and gain mode), with the given velocity as feed-forward; disabled,
// removed and zero-weight tasks leave the QP untouched; per-step calls do not allocate.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/qp/qp.hpp"
#include "kinetrack/qp/tree_box_qp.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

constexpr double kDt = 0.01;

/// human66 in a mid-range pose, a pose target on each hand a few cm away (κ = 0.5 per step) and
/// a random joint velocity reference v and pose ŝ near the start.
struct TaskCase {
  std::shared_ptr<const Model> model = std::make_shared<const Model>(makeHuman66());
  Configuration q0{*model};
  VectorXd v, pose;
  Transform right, left;
  explicit TaskCase(unsigned seed = 11) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const Model& m = *model;
    const int n = m.numJoints();
    v = VectorXd(n);
    pose = VectorXd(n);
    for (int j = 0; j < n; ++j) {
      const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
      q0.joints[j] = std::isfinite(lo) && std::isfinite(hi) ? 0.5 * (lo + hi) + 0.1 * (hi - lo) * u(rng) : 0.2 * u(rng);
      v[j] = 0.3 * u(rng);                     // rad/s
      pose[j] = q0.joints[j] + 0.01 * u(rng);  // rad: a small pull
    }
    q0.base_position = Vector3d(0.1, 0.2, 0.95);
    Data d(m);
    framesForwardKinematics(m, d, q0);
    right = d.frame[static_cast<std::size_t>(m.frameId("RightHand").value)];
    left = d.frame[static_cast<std::size_t>(m.frameId("LeftHand").value)];
    right.p += Vector3d(0.03, -0.01, 0.02);
    left.p += Vector3d(-0.02, 0.02, -0.01);
  }
  DynamicalIk solver(bool sparse_qp = true) const {
    DynamicalIkOptions o;
    o.gain_mode = GainMode::PerStep;
    o.sparse_qp = sparse_qp;
    DynamicalIk ik(model, o);
    const TargetId r = ik.tasks().addPose("RightHand", {1.0, 0.5}, {1.0, 0.5});
    const TargetId l = ik.tasks().addPose("LeftHand", {1.0, 0.5}, {1.0, 0.5});
    ik.tasks().setPosition(r, right.p);
    ik.tasks().setOrientation(r, right.R);
    ik.tasks().setPosition(l, left.p);
    ik.tasks().setOrientation(l, left.R);
    ik.setState(q0);
    return ik;
  }
};

/// DYN's QP variables as a tree (the base a chain, each joint below its parent link's joint):
/// the structure its sparse backend, qp::TreeBoxSolver, is built with.
std::vector<int> variableTree(const Model& m) {
  const int nb = m.nvBase();
  std::vector<int> parent(static_cast<std::size_t>(m.nv()), -1);
  for (int c = 1; c < nb; ++c) parent[static_cast<std::size_t>(c)] = c - 1;
  for (int j = 0; j < m.numJoints(); ++j) {
    const int p = m.parentLink(JointId(j)).value;
    parent[static_cast<std::size_t>(nb + j)] = p > 0 ? nb + p - 1 : nb - 1;
  }
  return parent;
}

TEST(DynamicalPostureTask, AVelocityReferenceIsBitIdenticalToTheFormerPostureTerm) {
  const TaskCase c;
  const int n = c.model->numJoints();
  for (const bool sparse : {true, false}) {
    for (const double weight : {1e-3, 0.2}) {
      // The step without a posture term: its QP, before the posture term, is the former path's.
      DynamicalIk plain = c.solver(sparse);
      plain.step(kDt);
      qp::Problem expected = plain.lastProblem();
      const VectorXd mu = VectorXd::Constant(n, weight);
      expected.H.diagonal().tail(n) += mu;  // the former DynamicalIk::setPosture* term, verbatim
      expected.g.tail(n) -= mu.cwiseProduct(c.v);
      VectorXd nu = VectorXd::Zero(c.model->nv());
      qp::Result qr;
      if (sparse) {
        qp::TreeBoxSolver tree(variableTree(*c.model), plain.options().qp);
        qr = tree.solve(expected, nu);
      } else {
        qp::Solver dense(c.model->nv(), 0, plain.options().qp);
        qr = dense.solve(expected, nu);
      }
      ASSERT_EQ(qr.status, qp::Status::Optimal);

      DynamicalIk ik = c.solver(sparse);
      const ik::PostureTaskId p = ik.tasks().addPosture(weight);
      ik.tasks().setVelocities(p, c.v);
      const StepResult r = ik.step(kDt);
      ASSERT_EQ(r.status, ik::Status::Converged);
      const std::string what = std::string(sparse ? "tree" : "dense") + " QP, weight " + std::to_string(weight);
      EXPECT_TRUE(ik.lastProblem().H == expected.H) << what;
      EXPECT_TRUE(ik.lastProblem().g == expected.g) << what;
      EXPECT_TRUE(ik.velocity() == nu) << what << "\n" << (ik.velocity() - nu).cwiseAbs().maxCoeff();
      EXPECT_DOUBLE_EQ(r.max_gain_dt, 0.5) << "a velocity reference pulls towards no pose: " << what;
    }
  }
}

TEST(DynamicalPostureTask, PoseValuesPullTowardsThePoseWithTheGivenVelocityAsFeedForward) {
  const TaskCase c;
  const int n = c.model->numJoints();
  const double w = 0.05, kappa = 0.4, k = kappa / kDt;
  for (const Discretization disc : {Discretization::Consistent, Discretization::Paper}) {
    for (const bool with_velocity : {false, true}) {
      DynamicalIk plain = c.solver();
      DynamicalIkOptions o = plain.options();
      o.discretization = disc;
      plain.setOptions(o);
      plain.step(kDt);
      DynamicalIk ik = c.solver();
      ik.setOptions(o);
      VectorXd w_j = VectorXd::Constant(n, w);
      w_j[3] = 0.0;  // out: adds nothing
      const ik::PostureTaskId p = ik.tasks().addPosture(w_j, kappa);
      VectorXd pose = c.pose;
      pose[5] = std::nan("");  // no value: out of the pull, and with no velocity out altogether
      ik.tasks().setValues(p, pose);
      if (with_velocity) ik.tasks().setVelocities(p, c.v);
      const StepResult r = ik.step(kDt);
      ASSERT_EQ(r.status, ik::Status::Converged);
      EXPECT_DOUBLE_EQ(r.max_gain_dt, 0.5);  // the hands' κ; the posture's 0.4 is below
      // By hand: v*_j = K r_j (+ the feed-forward: v_j, or (1 − KΔt) v_j under Consistent);
      // without a value but with a velocity, v*_j = v_j.
      const qp::Problem& P = ik.lastProblem();
      const qp::Problem& P0 = plain.lastProblem();
      const int nb = c.model->nvBase();
      EXPECT_TRUE(P.H.topLeftCorner(nb, nb) == P0.H.topLeftCorner(nb, nb));
      EXPECT_TRUE(P.g.head(nb) == P0.g.head(nb));
      for (int j = 0; j < n; ++j) {
        double wj = w, vstar = 0.0;
        if (j == 3) {
          wj = 0.0;
        } else if (j == 5) {
          if (with_velocity)
            vstar = c.v[j];
          else
            wj = 0.0;
        } else {
          const double rj = pose[j] - c.q0.joints[j];
          const double ff = !with_velocity                       ? 0.0
                            : disc == Discretization::Consistent ? (1.0 - k * kDt) * c.v[j]
                                                                 : c.v[j];
          vstar = ff + k * rj;
        }
        EXPECT_EQ(P.H(nb + j, nb + j), P0.H(nb + j, nb + j) + wj) << "joint " << j;
        EXPECT_EQ(P.g[nb + j], P0.g[nb + j] - wj * vstar) << "joint " << j;
      }
    }
  }
}

TEST(DynamicalPostureTask, AlonePoseValuesAreReachedAndAVelocityIsFollowed) {
  const TaskCase c;
  const int n = c.model->numJoints();
  DynamicalIkOptions o;
  o.gain_mode = GainMode::PerStep;
  DynamicalIk ik(c.model, o);  // no frame targets: the posture term alone
  ik.setState(c.q0);
  const ik::PostureTaskId p = ik.tasks().addPosture(1.0, 0.5);
  ik.tasks().setValues(p, c.pose);
  for (int s = 0; s < 60; ++s) ik.step(kDt);
  EXPECT_LT((ik.state().joints - c.pose).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT(ik.velocity().head(c.model->nvBase()).norm(), 1e-12);  // the base has no posture term
  // Values cleared (NaN), a velocity given: the joints follow it.
  ik.tasks().setValues(p, VectorXd::Constant(n, std::nan("")));
  ik.tasks().setVelocities(p, c.v);
  ik.step(kDt);
  EXPECT_LT((ik.velocity().tail(n) - c.v).cwiseAbs().maxCoeff(), 1e-6);
  ik.tasks().clearVelocities(p);  // neither: every joint out, ν = 0
  EXPECT_FALSE(ik.tasks()[p].velocity_given);
  ik.step(kDt);
  EXPECT_EQ(ik.velocity().cwiseAbs().maxCoeff(), 0.0);
}

TEST(DynamicalPostureTask, DisabledRemovedAndZeroWeightTasksLeaveTheQpUntouched) {
  const TaskCase c;
  const int n = c.model->numJoints();
  DynamicalIk plain = c.solver();
  plain.step(kDt);
  auto stepWith = [&](auto&& setup) {
    DynamicalIk ik = c.solver();
    const ik::PostureTaskId p = ik.tasks().addPosture(0.3);
    ik.tasks().setVelocities(p, c.v);
    ik.tasks().setValues(p, c.pose);
    setup(ik, p);
    ik.step(kDt);
    EXPECT_TRUE(ik.lastProblem().H == plain.lastProblem().H);
    EXPECT_TRUE(ik.lastProblem().g == plain.lastProblem().g);
    EXPECT_TRUE(ik.state().joints == plain.state().joints);
  };
  stepWith([](DynamicalIk& ik, ik::PostureTaskId p) { ik.tasks().setEnabled(p, false); });
  stepWith([](DynamicalIk& ik, ik::PostureTaskId p) { ik.tasks().remove(p); });
  stepWith([&](DynamicalIk& ik, ik::PostureTaskId p) { ik.tasks().setWeights(p, VectorXd::Zero(n)); });
}

TEST(DynamicalPostureTask, TheTaskSetChecksPostureInput) {
  const TaskCase c;
  DynamicalIk ik = c.solver();
  EXPECT_TRUE(ik.tasks().kinds().posture);
  EXPECT_THROW(ik.tasks().addMarker("Head"), InvalidArgument);  // still refused
  EXPECT_THROW(ik.tasks().addPosture(1.0, -1.0), InvalidArgument);
  EXPECT_THROW(ik.tasks().addPosture(1.0, std::nan("")), InvalidArgument);
  const ik::PostureTaskId p = ik.tasks().addPosture(1.0);
  EXPECT_EQ(ik.tasks()[p].gain, 10.0);
  EXPECT_FALSE(ik.tasks()[p].velocity_given);
  EXPECT_EQ(ik.tasks()[p].velocities, VectorXd::Zero(c.model->numJoints()));
  EXPECT_THROW(ik.tasks().setGain(p, -0.1), InvalidArgument);
  ik.tasks().setGain(p, 2.0);
  EXPECT_EQ(ik.tasks()[p].gain, 2.0);
  EXPECT_THROW(ik.tasks().setVelocities(p, VectorXd::Zero(c.model->numJoints() + 1)), InvalidArgument);
  VectorXd bad = c.v;
  bad[7] = std::nan("");
  EXPECT_THROW(ik.tasks().setVelocities(p, bad), InvalidArgument);
  EXPECT_FALSE(ik.tasks()[p].velocity_given);  // the refused call changed nothing
  ik.tasks().remove(p);
  EXPECT_THROW(ik.tasks().setVelocities(p, c.v), InvalidArgument);
}

TEST(DynamicalPostureTask, PerStepCallsDoNotAllocate) {
  const TaskCase c;
  DynamicalIk ik = c.solver();
  const ik::PostureTaskId p = ik.tasks().addPosture(0.1, 0.3);
  ik.tasks().setValues(p, c.pose);
  ik.step(kDt);
  const VectorXd v2 = -c.v, w = VectorXd::Constant(c.model->numJoints(), 0.2);
  long allocations = 0;
  {
    testing::AllocationCounter guard;
    ik.tasks().setVelocities(p, v2);
    ik.tasks().setValues(p, c.pose);
    ik.tasks().setWeights(p, w);
    ik.tasks().setGain(p, 0.5);
    ik.step(kDt);
    ik.tasks().clearVelocities(p);
    ik.tasks().setEnabled(p, false);
    ik.step(kDt);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
