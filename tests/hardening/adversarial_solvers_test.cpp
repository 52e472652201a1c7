// Adversarial frames through the position solvers (issue 20): marker IK (human48 with bounds),
// pin-and-drag (human48: a dragged hand, pinned feet), FABRIK (a constrained hand skeleton) and
// the FABRIK hand tracker. 10,000 frames per attack (tests/hardening/adversarial.hpp): every
// frame a row, a finite state, no non-finite figure where the contract promises a number, limits
// (joint ranges, hinge ranges, cones) kept to 1e-6.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "fabrik/fabrik_fixtures.hpp"
#include "hardening/adversarial.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/hand/hand_tracker.hpp"
#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/ik/pin_drag.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "testing/hand_fixtures.hpp"
#include "testing/ik_fixtures.hpp"

namespace kinetrack::testing {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// --- marker IK ----------------------------------------------------------------------------------

// human48 with one marker per link, 6 cm off its origin.
std::shared_ptr<const Model> markedHuman48(std::vector<std::string>& names) {
  const Model base = makeHuman48();
  ModelBuilder b(base);
  for (int l = 0; l < base.numLinks(); ++l) {
    const std::string name = base.linkName(LinkId(l)) + "_adv";
    b.addFrame(name, base.linkName(LinkId(l)), Transform{Matrix3d::Identity(), Vector3d(0.04, 0.03, 0.035)});
    names.push_back(name);
  }
  return std::make_shared<const Model>(b.build());
}

std::vector<Vector3d> markerPositions(const Model& m, Data& d, const Configuration& q,
                                      const std::vector<FrameId>& frames) {
  forwardKinematics(m, d, q);
  std::vector<Vector3d> out;
  for (FrameId f : frames) out.push_back(frameOrigin(m, d, f));
  return out;
}

// The singular pose of the position solvers: every joint at 0 clamped into its limits (straight,
// fully stretched limbs; human48's knees and elbows at their extension bound).
Configuration stretched(const Model& m) {
  Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j)
    q.joints[j] = std::clamp(0.0, m.lowerPositionLimits()[j], m.upperPositionLimits()[j]);
  q.base_position = Vector3d(0.0, 0.0, 1.0);
  return q;
}

class AdversarialMarkerIk : public ::testing::TestWithParam<Attack> {};

TEST_P(AdversarialMarkerIk, Human48WithBounds) {
  std::vector<std::string> names;
  const auto model = markedHuman48(names);
  const Model& m = *model;
  ik::MarkerIkOptions o;
  o.max_iterations = 4;
  o.first_solve_iterations = 100;
  ik::MarkerIk solver(model, o);
  for (const std::string& n : names) solver.tasks().addMarker(n, 1.0);
  solver.bounds().clampAll();
  solver.setState(smoothMotion(m, 0.0));
  std::vector<FrameId> frames;
  for (const std::string& n : names) frames.push_back(m.frameId(n));
  Data d(m);
  AttackPlan plan(GetParam(), 31);
  std::vector<std::uint8_t> hit(names.size());
  Tally tally;
  for (int f = 0; f < kAdversarialFrames; ++f) {
    const Configuration q = smoothMotion(m, f / 120.0);
    std::vector<Vector3d> markers = markerPositions(m, d, q, frames);
    if (plan.plan(f, hit)) {
      std::vector<Vector3d> other;
      switch (GetParam()) {
        case Attack::PiRotation: {  // the body turned by π (about a random axis through the base)
          Configuration turned = q;
          turned.base_rotation = so3::exp(std::numbers::pi * plan.unit()) * q.base_rotation;
          other = markerPositions(m, d, turned, frames);
          break;
        }
        case Attack::Singular: other = markerPositions(m, d, stretched(m), frames); break;
        case Attack::Teleport: {
          RandomConfigurationOptions ro;
          ro.base_box = 100.0;
          other = markerPositions(m, d, randomConfiguration(m, plan.rng(), ro), frames);
          break;
        }
        default: break;
      }
      for (std::size_t i = 0; i < hit.size(); ++i)
        if (hit[i] != 0) {
          if (other.empty())
            plan.corruptPosition(markers[i]);
          else
            markers[i] = other[i];
        }
    }
    const ik::MarkerIkResult r = solver.solve(markers);
    tally.addStatus(static_cast<int>(r.status));
    if (r.markers_used > 0) tally.checkOutput({r.cost, r.rms_error, r.total_squared_error, r.limit_violation});
    tally.checkJoints(solver.bounds().lower(), solver.bounds().upper(), solver.state().joints, f);
    tally.checkState(m, solver.state(), f);
  }
  tally.expectClean(kAdversarialFrames, std::string("marker IK ") + attackName(GetParam()));
  std::cout << tally.summary() << ", worst limit excess " << tally.limit_excess << '\n';
}

INSTANTIATE_TEST_SUITE_P(Attacks, AdversarialMarkerIk, ::testing::ValuesIn(kAttacks), AttackName());

// --- pin and drag -------------------------------------------------------------------------------

class AdversarialPinDrag : public ::testing::TestWithParam<Attack> {};

TEST_P(AdversarialPinDrag, Human48HandDraggedFeetPinned) {
  const Model m = makeHuman48();
  ik::PinDragIk pd(m);
  Configuration q0 = stretched(m);
  pd.setState(q0);
  const bool pose = GetParam() == Attack::PiRotation;
  const FrameId hand = m.frameId("RightHand"), shoulder = m.frameId("RightUpperArm");
  pd.pin("LeftFoot");
  pd.pin("RightFoot");
  pd.drag(hand, pose ? TargetType::Pose : TargetType::Position);
  Data d(m);
  framesForwardKinematics(m, d, q0);
  const double reach =
      (d.frame[static_cast<std::size_t>(hand.value)].p - d.frame[static_cast<std::size_t>(shoulder.value)].p).norm();
  AttackPlan plan(GetParam(), 41);
  std::vector<std::uint8_t> hit(1);
  Tally tally;
  int unexpected_refusals = 0;
  for (int f = 0; f < kAdversarialFrames; ++f) {
    const double t = f / 120.0;
    // The nominal target: a slow circle in front of the shoulder, within reach.
    framesForwardKinematics(m, d, pd.state());
    const Vector3d sh = d.frame[static_cast<std::size_t>(shoulder.value)].p;
    Vector3d p = sh + 0.6 * reach * Vector3d(std::cos(t), 0.3 * std::sin(t), -0.5).normalized();
    Matrix3d R = so3::exp(Vector3d(0.0, 0.0, 0.3 * std::sin(t)));
    if (plan.plan(f, hit)) {
      switch (GetParam()) {
        case Attack::NaN:
        case Attack::Inf:
        case Attack::Huge:
          if (std::bernoulli_distribution(0.5)(plan.rng()))
            plan.corruptPosition(p);
          else
            plan.corruptRotation(R);
          break;
        case Attack::PiRotation: R = plan.flipped(R); break;
        // Alternately exactly at full reach from the shoulder and at the shoulder joint itself.
        case Attack::Singular: p = (f / 4) % 2 == 0 ? Vector3d(sh + reach * plan.unit()) : sh; break;
        case Attack::Teleport: p = 100.0 * plan.unit(); break;
      }
    }
    try {
      pd.setDragTarget(hand, p);
      if (pose) pd.setDragOrientation(hand, R);
    } catch (const InvalidArgument&) {
      ++tally.refused;  // the previous target stays; the update below is the frame's row
      if (GetParam() != Attack::NaN && GetParam() != Attack::Inf) ++unexpected_refusals;
    }
    const ik::PinDragResult r = pd.update(1.0 / 120.0);
    tally.addStatus(0);
    tally.checkOutput({r.pin_position_error, r.pin_orientation_error, r.drag_error, r.velocity_scale});
    tally.checkState(m, pd.state(), f);
  }
  EXPECT_EQ(unexpected_refusals, 0);
  tally.expectClean(kAdversarialFrames, std::string("pin-drag ") + attackName(GetParam()));
  std::cout << tally.summary() << ", worst limit excess " << tally.limit_excess << '\n';
}

INSTANTIATE_TEST_SUITE_P(Attacks, AdversarialPinDrag, ::testing::ValuesIn(kAttacks), AttackName());

// --- FABRIK -------------------------------------------------------------------------------------

// The test hand (wrist, palm, five four-bone fingers) with constraints: knuckles ball joints
// (cone 50°, twist ±20°), PIP and DIP hinges over [0°, 100°], DIP coupled at 2/3.
fabrik::test::Hand constrainedHand() {
  fabrik::test::Hand h = fabrik::test::makeHand();
  for (int finger = 0; finger < 5; ++finger) {
    const int knuckle = 2 + 4 * finger;
    fabrik::JointConstraint ball;
    ball.type = fabrik::ConstraintType::Ball;
    ball.cone_angle = 50 * kDeg;
    ball.min_twist = -20 * kDeg;
    ball.max_twist = 20 * kDeg;
    h.skeleton.setConstraint(knuckle, ball);
    fabrik::JointConstraint hinge;
    hinge.type = fabrik::ConstraintType::Hinge;
    hinge.min_angle = 0.0;
    hinge.max_angle = 100 * kDeg;
    h.skeleton.setConstraint(knuckle + 1, hinge);
    h.skeleton.setConstraint(knuckle + 2, hinge);
  }
  for (int finger = 0; finger < 5; ++finger) h.skeleton.setCoupling(2 + 4 * finger + 2, 2.0 / 3.0);
  return h;
}

// Largest constraint excess (rad) and bone length error (relative) of a solved pose.
void checkFabrik(const fabrik::Solver& s, const fabrik::Matrix3Xd& p, Tally& tally, int f) {
  const fabrik::Skeleton& sk = s.skeleton();
  if (!p.allFinite()) ++tally.non_finite_state;
  double excess = 0.0;
  for (int j = 1; j < sk.size(); ++j) {
    const Vector3d bone = p.col(j) - p.col(sk.parent(j));
    excess = std::max(excess, std::abs(bone.norm() - sk.length(j)) / sk.length(j) * 1e-3);  // 1e-9 relative
    const fabrik::JointConstraint& c = sk.constraint(j);
    if (c.type == fabrik::ConstraintType::Hinge) {
      const double a = s.hingeAngle(j);
      excess = std::max({excess, c.min_angle - a, a - c.max_angle});
      // The bone lies in the hinge plane: perpendicular to the hinge axis in world.
      const Vector3d axis = s.constraintFrame(j) * c.hinge_axis;
      excess = std::max(excess, std::abs(std::asin(std::clamp(axis.dot(bone.normalized()), -1.0, 1.0))));
    } else if (c.type == fabrik::ConstraintType::Ball) {
      const Vector3d z = s.constraintFrame(j).col(2);
      excess = std::max(excess, std::acos(std::clamp(z.dot(bone.normalized()), -1.0, 1.0)) - c.cone_angle);
    }
  }
  if (!(excess <= tally.limit_excess)) {
    tally.limit_excess = std::isfinite(excess) ? excess : 1e300;
    tally.limit_frame = f;
  }
}

class AdversarialFabrik : public ::testing::TestWithParam<Attack> {};

TEST_P(AdversarialFabrik, ConstrainedHand) {
  const fabrik::test::Hand hand = constrainedHand();
  fabrik::Solver solver(hand.skeleton);
  fabrik::Matrix3Xd p = hand.rest;
  fabrik::Options o;
  o.max_iterations = 20;
  o.stop_when_stalled = true;
  AttackPlan plan(GetParam(), 51);
  std::vector<std::uint8_t> hit(hand.tips.size());
  Tally tally;
  const Vector3d palm = hand.rest.col(1);
  double reach = 0.0;
  for (int j = 2; j <= 5; ++j) reach += hand.skeleton.length(j);
  int unexpected_refusals = 0;
  for (int f = 0; f < kAdversarialFrames; ++f) {
    const double t = f / 120.0;
    const bool attacked = plan.plan(f, hit);
    int refusals = 0;
    for (std::size_t k = 0; k < hand.tips.size(); ++k) {
      const int tip = hand.tips[k];
      // Nominal: each tip curls slowly towards the palm.
      const double curl = 0.5 + 0.4 * std::sin(t + static_cast<double>(k));
      Vector3d target = palm + (hand.rest.col(tip) - palm) * (1.0 - 0.5 * curl) + Vector3d(0.0, -0.03 * curl, 0.0);
      if (attacked && hit[k] != 0) {
        switch (GetParam()) {
          case Attack::NaN:
          case Attack::Inf:
          case Attack::Huge: plan.corruptPosition(target); break;
          case Attack::PiRotation:  // the target turned by π about the palm
            target = palm + so3::exp(std::numbers::pi * plan.unit()) * (target - palm);
            break;
          case Attack::Singular:  // exactly at full reach of the finger, or on its knuckle
            target = (f / 4) % 2 == 0 ? Vector3d(p.col(tip - 4 + 1) + reach * plan.unit()) : Vector3d(p.col(tip - 3));
            break;
          case Attack::Teleport: target = 100.0 * plan.unit(); break;
        }
      }
      try {
        solver.setTarget(tip, target);
      } catch (const InvalidArgument&) {  // non-finite: refused, the previous target stays
        ++refusals;
        if (GetParam() != Attack::NaN && GetParam() != Attack::Inf) ++unexpected_refusals;
      }
    }
    if (refusals > 0) ++tally.refused;
    const fabrik::Result r = solver.solve(p, o);
    tally.addStatus(static_cast<int>(r.status));
    tally.checkOutput({r.error});
    checkFabrik(solver, p, tally, f);
  }
  EXPECT_EQ(unexpected_refusals, 0);
  tally.expectClean(kAdversarialFrames, std::string("FABRIK ") + attackName(GetParam()));
  std::cout << tally.summary() << ", worst constraint excess " << tally.limit_excess << '\n';
}

INSTANTIATE_TEST_SUITE_P(Attacks, AdversarialFabrik, ::testing::ValuesIn(kAttacks), AttackName());

// --- the FABRIK hand tracker ----------------------------------------------------------------------

class AdversarialHandTracker : public ::testing::TestWithParam<Attack> {};

TEST_P(AdversarialHandTracker, SyntheticGlove) {
  const hand::HandGeometry geometry = hand::fixtures::syntheticHand();
  hand::TrackerOptions o;
  o.use_middle_markers = true;
  hand::HandTracker tracker(geometry, o);
  AttackPlan plan(GetParam(), 61);
  // Slots: 3 triad markers, 5 tips, 5 middles.
  std::vector<std::uint8_t> hit(13);
  Tally tally;
  for (int f = 0; f < kAdversarialFrames; ++f) {
    const double t = f / 120.0;
    hand::fixtures::SyntheticFrame fr = hand::fixtures::syntheticFrame(geometry, t);
    if (plan.plan(f, hit)) {
      hand::fixtures::SyntheticFrame other = fr;
      if (GetParam() == Attack::Teleport || GetParam() == Attack::Singular || GetParam() == Attack::PiRotation) {
        other =
            hand::fixtures::syntheticFrame(geometry, t + 100.0 * std::uniform_real_distribution<double>()(plan.rng()));
        Vector3d shift = Vector3d::Zero();
        Matrix3d turn = Matrix3d::Identity();
        if (GetParam() == Attack::Teleport) shift = 100.0 * plan.unit();
        if (GetParam() == Attack::PiRotation) turn = so3::exp(std::numbers::pi * plan.unit());
        const Vector3d c = (fr.triad[0] + fr.triad[1] + fr.triad[2]) / 3.0;
        auto move = [&](Vector3d& v) { v = c + turn * (v - c) + shift; };
        for (Vector3d& v : other.triad) move(v);
        for (Vector3d& v : other.tips) move(v);
        for (Vector3d& v : other.middles) move(v);
        if (GetParam() == Attack::Singular) {
          // Collinear triad (no hand frame), tips on their roots or at full stretch.
          other.triad[2] = 0.5 * (other.triad[0] + other.triad[1]);
          for (std::size_t k = 0; k < 5; ++k)
            other.tips[k] = (f / 4) % 2 == 0 ? fr.triad[0] : Vector3d(fr.tips[k] + 0.2 * plan.unit());
        }
      }
      for (std::size_t i = 0; i < hit.size(); ++i) {
        if (hit[i] == 0) continue;
        Vector3d& v = i < 3 ? fr.triad[i] : i < 8 ? fr.tips[i - 3] : fr.middles[i - 8];
        const Vector3d& w = i < 3 ? other.triad[i] : i < 8 ? other.tips[i - 3] : other.middles[i - 8];
        if (GetParam() == Attack::NaN || GetParam() == Attack::Inf || GetParam() == Attack::Huge)
          plan.corruptPosition(v);
        else
          v = w;
      }
    }
    const hand::HandFrameResult& r = tracker.track(fr.triad, fr.tips, fr.middles);
    tally.addStatus(r.gap ? 1 : 0);
    if (!tracker.handPose().p.allFinite() || !tracker.handPose().R.allFinite()) ++tally.non_finite_state;
    for (int k = 0; k < hand::kDigits; ++k) {
      const hand::DigitGeometry& g = geometry.digits[static_cast<std::size_t>(k)];
      const hand::DigitPose& dp = tracker.digitPose(k);
      const auto ks = static_cast<std::size_t>(k);
      tally.checkOutput({r.digits[ks].violation, r.digits[ks].length_drift});
      Eigen::Vector4d s(dp.psi, dp.theta[0], dp.theta[1], dp.theta[2]);
      Eigen::Vector4d lo(g.psi_range[0], g.flex_range[0][0], g.flex_range[1][0], g.flex_range[2][0]);
      Eigen::Vector4d hi(g.psi_range[1], g.flex_range[0][1], g.flex_range[1][1], g.flex_range[2][1]);
      tally.checkJoints(lo, hi, s, f);
    }
  }
  tally.expectClean(kAdversarialFrames, std::string("hand tracker ") + attackName(GetParam()));
  std::cout << tally.summary() << ", worst range excess " << tally.limit_excess << '\n';
}

INSTANTIATE_TEST_SUITE_P(Attacks, AdversarialHandTracker, ::testing::ValuesIn(kAttacks), AttackName());

}  // namespace
}  // namespace kinetrack::testing
