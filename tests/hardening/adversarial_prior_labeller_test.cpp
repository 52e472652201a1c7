// Adversarial frames through the prior solvers and the marker labeller (issue 20): the gradient
// projection IK on the 25-DoF upper body (least-norm and GP with a density prior, alternating),
// the sparse prior IK and DYN + prior on human66 (head and hands), and the labeller on human48
// with three markers per segment. kAdversarialFrames frames per attack
// (tests/hardening/adversarial.hpp; the labeller fewer, below): every frame a row, a finite state
// inside the limits to 1e-6, no non-finite figure where the contract promises a number, and for
// the labeller labels that are a valid partial assignment of the frame's points.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "hardening/adversarial.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/random.hpp"
#include "kinetrack/ik/tasks.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/prior/density.hpp"
#include "kinetrack/prior/gradient_projection.hpp"
#include "kinetrack/prior/human_prior.hpp"
#include "kinetrack/prior/prior_posture.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "prior/prior_fixtures.hpp"
#include "testing/ik_fixtures.hpp"
#include "testing/sanitizer.hpp"

namespace kinetrack::testing {
namespace {

// --- gradient projection on the 25-DoF upper body ------------------------------------------------

struct UpperBodyCase {
  prior::UpperBodyModel model;
  prior::DensityPrior density;
  std::vector<prior::Vector25d> theta;  // the smooth motion the prior is learned from
};

const UpperBodyCase& upperBody() {
  static const UpperBodyCase c = [] {
    const auto body = prior::testing::syntheticBody(0);
    UpperBodyCase out{prior::upperBodyFromAxes("adversarial", body.axes, body.hands), {}, {}};
    out.model.lower = prior::Vector25d::Constant(-1.2);  // limits the motion touches
    out.model.upper = prior::Vector25d::Constant(1.2);
    prior::PriorSamples s;
    s.num_joints = prior::kUpperBodyDof;
    prior::UpperBodyData d;
    for (int f = 0; f < 600; ++f) {
      prior::Vector25d th;
      for (int i = 0; i < prior::kUpperBodyDof; ++i) th[i] = 1.3 * std::sin(0.4 * (1 + i % 5) * f / 30.0 + i);
      th = th.cwiseMax(out.model.lower).cwiseMin(out.model.upper);
      out.theta.push_back(th);
      prior::upperBodyForwardKinematics(out.model, d, th);
      s.joints.insert(s.joints.end(), th.data(), th.data() + prior::kUpperBodyDof);
      for (const Vector3d& k : prior::upperBodyKeyPoints(d.hand)) s.key_points.push_back(k);
    }
    prior::DensityOptions o;
    o.inc = 2;
    out.density = prior::DensityPrior(s, prior::upperBodyGroups(), o);
    return out;
  }();
  return c;
}

// A frame's targets are valid when finite with rotation matrices (ik::isRotation); the solvers
// refuse the others: the state stays and the errors are NaN.
template <std::size_t N>
bool validTargets(const std::array<Transform, N>& t) {
  return std::all_of(t.begin(), t.end(), [](const Transform& x) { return x.p.allFinite() && ik::isRotation(x.R); });
}

template <class Result>
void expectRefused(const Result& r, bool state_kept, int f) {
  EXPECT_TRUE(std::isnan(r.position_error) && std::isnan(r.orientation_error))
      << "frame " << f << ": refusal not signalled";
  EXPECT_TRUE(state_kept) << "frame " << f << ": a refused frame moved the state";
}

class AdversarialGradientProjection : public ::testing::TestWithParam<Attack> {};

TEST_P(AdversarialGradientProjection, UpperBody25LeastNormAndPrior) {
  const UpperBodyCase& c = upperBody();
  prior::GradientProjectionIk ik(c.model, &c.density);
  prior::UpperBodyData d;
  prior::upperBodyForwardKinematics(c.model, d, prior::Vector25d::Zero());
  const std::array<Transform, 2> stretched = d.hand;  // T-pose: both arms straight
  std::array<Vector3d, 2> shoulder;                   // a point on the shoulder axes
  for (int s = 0; s < 2; ++s) shoulder[static_cast<std::size_t>(s)] = d.frames[static_cast<std::size_t>(s)][7].p;
  AttackPlan plan(GetParam(), 41);
  std::vector<std::uint8_t> hit(2);
  prior::Vector25d theta = c.theta.front();
  Tally tally;
  std::uniform_real_distribution<double> box(-100.0, 100.0);
  for (int f = 0; f < kAdversarialFrames; ++f) {
    prior::upperBodyForwardKinematics(c.model, d, c.theta[static_cast<std::size_t>(f) % c.theta.size()]);
    std::array<Transform, 2> target = d.hand;
    if (plan.plan(f, hit))
      for (std::size_t i = 0; i < 2; ++i) {
        if (hit[i] == 0) continue;
        Transform& t = target[i];
        switch (plan.attack()) {
          case Attack::NaN:
          case Attack::Inf:
          case Attack::Huge:
            if (std::bernoulli_distribution(0.5)(plan.rng()))
              plan.corruptPosition(t.p);
            else
              plan.corruptRotation(t.R);
            break;
          case Attack::PiRotation: t.R = plan.flipped(t.R); break;
          case Attack::Singular:  // the arm fully stretched, or the hand on its shoulder's axis
            t = (f / 4) % 2 == 0 ? stretched[i] : Transform{t.R, shoulder[i]};
            break;
          case Attack::Teleport: t.p = Vector3d(box(plan.rng()), box(plan.rng()), box(plan.rng())); break;
        }
      }
    const auto method = (f / 50) % 2 == 0 ? prior::IkMethod::LeastNorm : prior::IkMethod::GradientProjection;
    const prior::Vector25d before = theta;
    const prior::GpmFrameResult r = ik.solve(target, theta, method);
    if (validTargets(target))
      tally.addStatus(r.limited > 0 ? 1 : 0), tally.checkOutput({r.position_error, r.orientation_error});
    else
      tally.addRefused(), expectRefused(r, theta == before, f);
    tally.checkJoints(c.model.lower, c.model.upper, theta, f);
  }
  tally.expectClean(kAdversarialFrames, std::string("gradient projection ") + attackName(GetParam()));
  std::cout << tally.summary() << " (1 = a joint held at a limit), worst limit excess " << tally.limit_excess << '\n';
}

INSTANTIATE_TEST_SUITE_P(Attacks, AdversarialGradientProjection, ::testing::ValuesIn(kAttacks), AttackName());

// --- sparse prior IK and DYN + prior on human66 ---------------------------------------------------

const std::vector<std::string> kSparseTargets = {"Head", "RightHand", "LeftHand"};

struct SparseCase {
  std::shared_ptr<const Model> model = std::make_shared<const Model>(makeHuman66());
  std::vector<Configuration> walk = track::syntheticWalk(*model, 4.0, 30.0, 1.1).truth;
  prior::HumanPrior prior = prior::buildHumanPrior(*model, {walk}, prior::DensityOptions{});
};

const SparseCase& sparseCase() {
  static const SparseCase c;
  return c;
}

// The head and hands at q (world poses, kSparseTargets order).
void sparseTargets(const Model& m, Data& d, const Configuration& q, std::array<Transform, 3>& out) {
  framesForwardKinematics(m, d, q);
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k] = d.frame[static_cast<std::size_t>(m.frameId(kSparseTargets[k]).value)];
}

// Frame f's targets under `plan`: the walk, with the hit targets corrupted.
void attackSparse(AttackPlan& plan, const SparseCase& c, Data& d, int f, std::vector<std::uint8_t>& hit,
                  std::array<Transform, 3>& targets) {
  const Model& m = *c.model;
  sparseTargets(m, d, c.walk[static_cast<std::size_t>(f) % c.walk.size()], targets);
  if (!plan.plan(f, hit)) return;
  std::array<Transform, 3> other{};
  if (plan.attack() == Attack::Singular) {  // straight, stretched limbs (every joint 0 clamped)
    Configuration q(m);
    for (int j = 0; j < m.numJoints(); ++j)
      q.joints[j] = std::clamp(0.0, m.lowerPositionLimits()[j], m.upperPositionLimits()[j]);
    q.base_position = Vector3d(0.0, 0.0, 1.0);
    sparseTargets(m, d, q, other);
  } else if (plan.attack() == Attack::Teleport) {
    RandomConfigurationOptions o;
    o.base_box = 100.0;
    sparseTargets(m, d, randomConfiguration(m, plan.rng(), o), other);
  }
  for (std::size_t i = 0; i < hit.size(); ++i) {
    if (hit[i] == 0) continue;
    switch (plan.attack()) {
      case Attack::NaN:
      case Attack::Inf:
      case Attack::Huge:
        if (std::bernoulli_distribution(0.5)(plan.rng()))
          plan.corruptPosition(targets[i].p);
        else
          plan.corruptRotation(targets[i].R);
        break;
      case Attack::PiRotation: targets[i].R = plan.flipped(targets[i].R); break;
      case Attack::Singular:
      case Attack::Teleport: targets[i] = other[i]; break;
    }
  }
}

bool sameState(const Configuration& a, const Configuration& b) {
  return a.joints == b.joints && a.base_position == b.base_position && a.base_rotation == b.base_rotation;
}

class AdversarialSparsePrior : public ::testing::TestWithParam<Attack> {};

// One attacked stream through a sparse solver: `solve(ik, targets, f)` runs frame f.
template <class Ik, class Solve>
void runSparseStream(Ik& ik, Attack attack, std::uint64_t seed, const std::string& what, Solve solve) {
  const SparseCase& c = sparseCase();
  const Model& m = *c.model;
  ik.setState(c.walk.front());
  Data d(m);
  AttackPlan plan(attack, seed);
  std::vector<std::uint8_t> hit(kSparseTargets.size());
  std::array<Transform, 3> targets{};
  Tally tally;
  for (int f = 0; f < kAdversarialFrames; ++f) {
    attackSparse(plan, c, d, f, hit, targets);
    const Configuration before = ik.state();
    const prior::SparseFrameResult r = solve(ik, targets, f);
    if (validTargets(targets))
      tally.addStatus(r.fallbacks > 0 ? 1 : 0), tally.checkOutput({r.position_error, r.orientation_error});
    else
      tally.addRefused(), expectRefused(r, sameState(before, ik.state()), f);
    tally.checkState(m, ik.state(), f);
  }
  tally.expectClean(kAdversarialFrames, what + " " + attackName(plan.attack()));
  std::cout << tally.summary() << " (1 = a prior group fell back), worst limit excess " << tally.limit_excess << '\n';
}

TEST_P(AdversarialSparsePrior, SparsePriorIkOnHuman66) {
  prior::SparsePriorIk ik(sparseCase().model, kSparseTargets, &sparseCase().prior);
  runSparseStream(ik, GetParam(), 43, "sparse prior IK",
                  [](prior::SparsePriorIk& s, const std::array<Transform, 3>& t, int f) {
                    return s.solve(t, (f / 50) % 2 == 1);  // the prior on and off every 50 frames
                  });
}

TEST_P(AdversarialSparsePrior, DynWithThePriorOnHuman66) {
  prior::SparseDynamicalIk ik(sparseCase().model, kSparseTargets, &sparseCase().prior);
  runSparseStream(
      ik, GetParam(), 47, "DYN + prior",
      [](prior::SparseDynamicalIk& s, const std::array<Transform, 3>& t, int) { return s.solve(t, 1.0 / 30.0); });
}

INSTANTIATE_TEST_SUITE_P(Attacks, AdversarialSparsePrior, ::testing::ValuesIn(kAttacks), AttackName());

// --- the marker labeller ---------------------------------------------------------------------------

// A frame that finds too few markers where the track expects them searches again from scratch
// (Labeller: a rigid search over headings and heights, then articulated refinement: ~180 ms on
// this model's 141 markers), and every attack but NaN and Inf does that on most frames (finite
// points, none where expected): the labeller gets 400 frames, 100 cycles of every attack
// pattern. The sanitizer build searches ~25× slower (3.3 s a frame, 267 s for 80 frames of π
// turns beside the rest of the suite, near ctest's 300 s): 20 frames there, 5 cycles. The long
// run of docs/hardening.md sets KINETRACK_LABELLER_FRAMES=10000 (about an hour of CPU in Release).
#if KINETRACK_TEST_ASAN
constexpr int kLabellerFrames = 20;
#else
constexpr int kLabellerFrames = 400;
#endif

int labellerFrames() {
  const char* text = std::getenv("KINETRACK_LABELLER_FRAMES");
  if (text == nullptr || *text == '\0') return kLabellerFrames;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 1 || v > 1000000)
    throw std::invalid_argument(std::string("KINETRACK_LABELLER_FRAMES: '") + text +
                                "' is not a frame count from 1 to 1000000");
  return static_cast<int>(v);
}

struct LabellerCase {
  std::shared_ptr<const markers::LabellerModel> model;
  std::vector<FrameId> frames;
};

const LabellerCase& labellerCase() {
  static const LabellerCase c = [] {
    auto base = std::make_shared<const Model>(makeHuman48());
    io::MarkerSet set;
    set.name = "adversarial";
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-0.08, 0.08);
    for (int l = 1; l < base->numLinks(); ++l)
      for (int k = 0; k < 3; ++k)
        set.markers.push_back({base->linkName(LinkId(l)) + "_" + std::to_string(k), base->linkName(LinkId(l)),
                               randomVector3(u, rng), 1.0, false});
    LabellerCase out;
    out.model = std::make_shared<const markers::LabellerModel>(markers::labellerModel(subject::markerModel(base, set)));
    out.frames = out.model->frame_ids;
    return out;
  }();
  return c;
}

// The subject walking off with a turn (human48 joints on sines inside their limits).
Configuration labellerMotion(const Model& m, double t) {
  Configuration q(m);
  q.base_rotation = Eigen::AngleAxisd(0.4 * t, Vector3d::UnitZ()).toRotationMatrix();
  q.base_position = Vector3d(0.5 * std::sin(0.3 * t), 1.0, 0.95);
  for (int j = 0; j < m.numJoints(); ++j)
    q.joints[j] =
        std::clamp(0.3 * std::sin(2.0 * t + j), m.lowerPositionLimits()[j] + 0.01, m.upperPositionLimits()[j] - 0.01);
  return q;
}

class AdversarialLabeller : public ::testing::TestWithParam<Attack> {};

TEST_P(AdversarialLabeller, Human48ThreeMarkersPerSegment) {
  const LabellerCase& c = labellerCase();
  const markers::LabellerModel& lm = *c.model;
  const Model& m = *lm.model;
  markers::Labeller labeller(c.model);
  Data d(m);
  AttackPlan plan(GetParam(), 53);
  const int n = lm.numMarkers();
  std::vector<std::uint8_t> hit(static_cast<std::size_t>(n));
  std::vector<Vector3d> points, other;
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::uniform_real_distribution<double> box(-100.0, 100.0);
  Tally tally;
  int lost = 0, initialised = 0, invalid_rows = 0, searched = 0, rejections = 0;
  double ik_us = 0.0, worst_ms = 0.0, total_ms = 0.0;
  const int frames = labellerFrames();
  for (int f = 0; f < frames; ++f) {
    const double t = f / 100.0;
    const Configuration q = labellerMotion(m, t);
    forwardKinematics(m, d, q);
    points.clear();
    for (FrameId fr : c.frames) points.push_back(updateFramePlacement(m, d, fr).p);
    if (plan.plan(f, hit)) {
      const Vector3d centre = std::accumulate(points.begin(), points.end(), Vector3d(Vector3d::Zero())) / n;
      Matrix3d turn = Matrix3d::Identity();
      Vector3d jump = Vector3d::Zero();
      if (plan.attack() == Attack::PiRotation) turn = so3::exp(std::numbers::pi * plan.unit());
      if (plan.attack() == Attack::Teleport) jump = Vector3d(box(plan.rng()), box(plan.rng()), box(plan.rng()));
      for (std::size_t i = 0; i < hit.size(); ++i) {
        if (hit[i] == 0) continue;
        switch (plan.attack()) {
          case Attack::NaN:
          case Attack::Inf:
          case Attack::Huge: plan.corruptPosition(points[i]); break;
          case Attack::PiRotation: points[i] = centre + turn * (points[i] - centre); break;  // turned by π
          case Attack::Singular: points[i] = centre; break;  // the hit markers on one point
          case Attack::Teleport: points[i] += jump; break;
        }
      }
    }
    std::shuffle(order.begin(), order.end(), plan.rng());
    other.resize(points.size());
    for (std::size_t k = 0; k < order.size(); ++k) other[k] = points[static_cast<std::size_t>(order[k])];
    const auto t0 = std::chrono::steady_clock::now();
    const markers::FrameLabels& L = labeller.label(other, t);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    worst_ms = std::max(worst_ms, ms);
    total_ms += ms;
    tally.addStatus(static_cast<int>(L.state));
    lost += L.state == markers::TrackState::Lost ? 1 : 0;
    searched += L.relabelled > 0 ? 1 : 0;
    ik_us += L.ik_microseconds;
    rejections += L.rigid_rejections;
    initialised += L.state == markers::TrackState::Initialised ? 1 : 0;
    // A valid partial assignment: one entry per marker, each a distinct point of this frame.
    std::set<int> used;
    bool valid = static_cast<int>(L.marker_point.size()) == n && L.assigned + L.gaps == n &&
                 L.points + L.invalid_points == static_cast<int>(other.size());
    for (const int p : L.marker_point) {
      if (p < -1 || p >= static_cast<int>(other.size()) || (p >= 0 && !used.insert(p).second)) valid = false;
      if (p >= 0 && !other[static_cast<std::size_t>(p)].allFinite()) valid = false;
    }
    invalid_rows += valid ? 0 : 1;
    if (L.ik.iterations > 0 && L.ik.markers_used > 0) tally.checkOutput({L.ik.cost, L.ik.rms_error, L.ik.max_error});
    tally.checkJoints(lm.lower, lm.upper, labeller.pose().joints, f);
    tally.checkState(m, labeller.pose(), f);
  }
  tally.expectClean(frames, std::string("labeller ") + attackName(GetParam()));
  EXPECT_EQ(invalid_rows, 0) << "frames whose labels are not a partial assignment of the frame's finite points";
  std::cout << tally.summary() << " (0 tracking, 1 initialised, 2 lost): " << initialised << " initialisations, "
            << lost << " lost, " << searched << " frames with limbs searched again, " << rejections
            << " rigid rejections; a frame " << total_ms / frames << " ms mean (IK " << 1e-3 * ik_us / frames
            << " ms), " << worst_ms << " ms worst; worst limit excess " << tally.limit_excess << '\n';
}

INSTANTIATE_TEST_SUITE_P(Attacks, AdversarialLabeller, ::testing::ValuesIn(kAttacks), AttackName());

}  // namespace
}  // namespace kinetrack::testing
