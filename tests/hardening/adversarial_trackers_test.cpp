// Adversarial frames through the trackers (issue 20): StreamTracker with every method on
// human48 (position limits) and DYN on human66 (continuous, Euler-angle gimbal lock), and the
// live MXTP tracker of `kinetrack serve`. 10,000 frames per attack (tests/hardening/
// adversarial.hpp): every frame a row (an outcome with a status, or a refusal the contract
// allows: a non-finite or non-rotation target), a finite state, no non-finite figure, the
// position limits kept to 1e-6 and the coupled rows reported.
#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "hardening/adversarial.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/stream/live_tracker.hpp"
#include "kinetrack/stream/mxtp.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/stream_tracker.hpp"
#include "testing/ik_fixtures.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::testing {
namespace {

// The singular pose: every "_roty" coordinate (the middle angle of human66's x→y→z Euler
// chains: gimbal lock) at ±π/2, every other joint at 0 (straight, fully stretched limbs), each
// clamped into its limits (human48: at the bound).
Configuration singularPose(const Model& m, double sign) {
  Configuration q(m);
  q.base_position = Vector3d(0.0, 0.0, 1.0);
  for (int j = 0; j < m.numJoints(); ++j) {
    const std::string& name = m.jointName(JointId(j));
    const double want = name.ends_with("_roty") ? sign * std::numbers::pi / 2 : 0.0;
    q.joints[j] = std::clamp(want, m.lowerPositionLimits()[j], m.upperPositionLimits()[j]);
  }
  return q;
}

// Target values (R per slot, p of the Pelvis slot) at configuration q.
struct HumanTargets {
  const Model& model;
  Data data;
  std::vector<FrameId> frames;
  std::vector<Matrix3d> R;
  std::vector<Vector3d> p;
  explicit HumanTargets(const Model& m) : model(m), data(m) {
    for (const std::string& s : humanSegmentNames()) frames.push_back(m.frameId(s));
    R.resize(frames.size());
    p.resize(frames.size());
  }
  void at(const Configuration& q) {
    framesForwardKinematics(model, data, q);
    for (std::size_t i = 0; i < frames.size(); ++i) {
      R[i] = data.frame[static_cast<std::size_t>(frames[i].value)].R;
      p[i] = data.frame[static_cast<std::size_t>(frames[i].value)].p;
    }
  }
};

std::vector<track::StreamTarget> humanStreamTargets() {
  std::vector<track::StreamTarget> t;
  for (const std::string& s : humanSegmentNames()) t.push_back({s, true, s == "Pelvis", 1.0});
  return t;
}

// One frame's targets under `plan`: the smooth motion at t, with the hit slots corrupted.
void attackFrame(AttackPlan& plan, const Model& m, int f, HumanTargets& nominal, HumanTargets& other,
                 std::vector<std::uint8_t>& hit) {
  const double t = f / 120.0;
  nominal.at(smoothMotion(m, t));
  if (!plan.plan(f, hit)) return;
  switch (plan.attack()) {
    case Attack::Singular: other.at(singularPose(m, (f / 4) % 2 == 0 ? 1.0 : -1.0)); break;
    case Attack::Teleport: {
      RandomConfigurationOptions o;
      o.base_box = 100.0;
      other.at(randomConfiguration(m, plan.rng(), o));
      break;
    }
    default: break;
  }
  for (std::size_t i = 0; i < hit.size(); ++i) {
    if (hit[i] == 0) continue;
    switch (plan.attack()) {
      case Attack::NaN:
      case Attack::Inf:
      case Attack::Huge:
        if (i == 0 && std::bernoulli_distribution(0.5)(plan.rng()))
          plan.corruptPosition(nominal.p[i]);
        else
          plan.corruptRotation(nominal.R[i]);
        break;
      case Attack::PiRotation: nominal.R[i] = plan.flipped(nominal.R[i]); break;
      case Attack::Singular:
      case Attack::Teleport:
        nominal.R[i] = other.R[i];
        nominal.p[i] = other.p[i];
        break;
    }
  }
}

bool refusalAllowed(Attack a) { return a == Attack::NaN || a == Attack::Inf || a == Attack::Huge; }

struct TrackerCase {
  std::string model;
  track::Method method;
  int frames;
};

Tally runStreamTracker(const TrackerCase& c, Attack attack) {
  const auto model = std::make_shared<const Model>(makeBuiltinModel(c.model));
  const Model& m = *model;
  track::TrackerOptions o;
  o.method = c.method;
  o.pairwise.threads = 1;
  // Caps that keep 10,000 frames of unreachable targets within the test's time: the per-frame
  // optimisers' iterations (an iteration limit is a status like any other) and DYN's sub-steps
  // (every attacked frame is a large jump, split into the most sub-steps allowed; 16 instead of
  // 64 runs the same code).
  o.wholebody.max_iterations = 8;
  o.pairwise.solver.max_iterations = 8;
  o.first_frame_iterations = 50;
  o.max_substeps = 16;
  track::StreamTracker tracker(model, humanStreamTargets(), o);
  tracker.setState(smoothMotion(m, 0.0));
  HumanTargets nominal(m), other(m);
  std::vector<std::uint8_t> hit(nominal.frames.size());
  AttackPlan plan(attack, 20 + static_cast<std::uint64_t>(attack));
  Tally tally;
  int unexpected_refusals = 0;
  std::string first_refusal;
  for (int f = 0; f < c.frames; ++f) {
    attackFrame(plan, m, f, nominal, other, hit);
    try {
      const track::FrameOutcome r = tracker.track(f / 120.0, nominal.R, nominal.p);
      tally.addStatus(static_cast<int>(r.status));
      tally.checkOutput({r.mnte, r.rmse, r.limit_violation, r.row_violation});
    } catch (const InvalidArgument& e) {
      tally.addRefused();
      if (!refusalAllowed(attack)) {
        ++unexpected_refusals;
        if (first_refusal.empty()) first_refusal = std::to_string(f) + ": " + e.what();
      }
    }
    tally.checkState(m, tracker.state(), f);
  }
  EXPECT_EQ(unexpected_refusals, 0) << "first: " << first_refusal;
  return tally;
}

class AdversarialStreamTracker : public ::testing::TestWithParam<Attack> {};

void expectTracker(const TrackerCase& c, Attack attack) {
  const Tally t = runStreamTracker(c, attack);
  const std::string what = c.model + " " + track::toString(c.method) + " " + attackName(attack);
  t.expectClean(c.frames, what);

  std::cout << what << ": " << t.summary() << ", worst limit excess " << t.limit_excess << '\n';
}

TEST_P(AdversarialStreamTracker, DynamicalHuman48) {
  expectTracker({"human48", track::Method::Dynamical, kAdversarialFrames}, GetParam());
}
TEST_P(AdversarialStreamTracker, DynamicalHuman66) {
  expectTracker({"human66", track::Method::Dynamical, kAdversarialFrames}, GetParam());
}
TEST_P(AdversarialStreamTracker, WholeBodyHuman48) {
  expectTracker({"human48", track::Method::WholeBody, kAdversarialFrames}, GetParam());
}
TEST_P(AdversarialStreamTracker, PairwiseHuman48) {
  expectTracker({"human48", track::Method::Pairwise, kAdversarialFrames}, GetParam());
}
// Ipopt is ~100× slower per frame: 300 frames per attack.
TEST_P(AdversarialStreamTracker, WholeBodyIpoptHuman48) {
  expectTracker({"human48", track::Method::WholeBodyIpopt, 300}, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Attacks, AdversarialStreamTracker, ::testing::ValuesIn(kAttacks), AttackName());

// --- the live MXTP tracker of `kinetrack serve` -------------------------------------------------

// Records of hit segments attacked in the datagram's floats: NaN / Inf / 1e9 in a position or
// quaternion component; π rotations (with the quaternion's sign flipped on alternate frames:
// the same rotation); identity orientations (straight limbs: the T-pose's singular arm and leg
// chains) at the pelvis position; teleports (100 m, random orientation).
void attackDatagram(AttackPlan& plan, int f, stream::MxtpPoseDatagram& d, std::vector<std::uint8_t>& hit) {
  const bool sign_flip = f % 2 == 1;
  if (plan.attack() == Attack::PiRotation && sign_flip)
    for (int i = 0; i < d.count; ++i)
      for (float& c : d.segments[static_cast<std::size_t>(i)].quaternion) c = -c;
  if (!plan.plan(f, hit)) return;
  const Vector3d shift = 100.0 * plan.unit();
  for (int i = 0; i < d.count; ++i) {
    if (hit[static_cast<std::size_t>(i)] == 0) continue;
    stream::MxtpSegmentPose& s = d.segments[static_cast<std::size_t>(i)];
    Eigen::Quaterniond q(s.quaternion[0], s.quaternion[1], s.quaternion[2], s.quaternion[3]);
    Vector3d p(s.position[0], s.position[1], s.position[2]);
    switch (plan.attack()) {
      case Attack::NaN:
      case Attack::Inf:
      case Attack::Huge: {
        const int c = std::uniform_int_distribution<int>(0, 6)(plan.rng());
        const auto v = static_cast<float>(plan.badValue());
        if (c < 3)
          s.position[static_cast<std::size_t>(c)] = v;
        else
          s.quaternion[static_cast<std::size_t>(c - 3)] = v;
        continue;
      }
      case Attack::PiRotation: q = q * Eigen::Quaterniond(Eigen::AngleAxisd(std::numbers::pi, plan.unit())); break;
      case Attack::Singular:
        q = Eigen::Quaterniond::Identity();
        p = Vector3d(d.segments[0].position[0], d.segments[0].position[1], d.segments[0].position[2]);
        break;
      case Attack::Teleport:
        q = Eigen::Quaterniond(
            so3::exp(std::numbers::pi * std::uniform_real_distribution<double>()(plan.rng()) * plan.unit()));
        p += shift;
        break;
    }
    if (sign_flip) q.coeffs() = -q.coeffs();
    s.quaternion = {static_cast<float>(q.w()), static_cast<float>(q.x()), static_cast<float>(q.y()),
                    static_cast<float>(q.z())};
    s.position = {static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z())};
  }
}

class AdversarialLiveTracker : public ::testing::TestWithParam<Attack> {};

TEST_P(AdversarialLiveTracker, MxtpOnHuman66) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  const track::Capture capture = track::loadCapture(path);
  io::ModelSpec spec;
  spec.model = "human66";
  const track::TrackSetup setup = track::setupOnModel(io::loadModel(spec).model, capture, "");
  const io::MotionClip& clip = capture.clip;
  constexpr double kRate = 240.0;
  track::TrackerOptions o;
  o.max_substeps = 16;  // as the StreamTracker campaign above (serve's default is 64)
  stream::LiveTracker live(setup, clip.segment_names, o, kRate);
  const Model& m = live.model();
  stream::MxtpPoseDatagram d;
  std::vector<std::uint8_t> buf(stream::kMxtpMaxDatagram);
  std::string msg;
  AttackPlan plan(GetParam(), 71);
  std::vector<std::uint8_t> hit(clip.segment_names.size());
  Tally tally;
  int bad_json = 0;
  for (int f = 0; f < kAdversarialFrames; ++f) {
    stream::clipFrameDatagram(clip, f % clip.numFrames(), kRate, d);
    d.header.sample = static_cast<std::uint32_t>(f);
    d.header.time_ms = static_cast<std::uint32_t>(std::llround(f * 1e3 / kRate));
    attackDatagram(plan, f, d, hit);
    const std::size_t n = stream::encodeMxtp(d, buf);
    ASSERT_GT(n, 0U);
    const stream::DatagramResult r = live.onDatagram(std::span(buf.data(), n));
    tally.addStatus(static_cast<int>(r));
    if (r == stream::DatagramResult::Rejected) ++tally.refused;
    tally.checkState(m, live.state(), f);
    live.encodeFrame(10.0, msg);
    if (msg.find("nan") != std::string::npos || msg.find("inf") != std::string::npos) ++bad_json;
  }
  EXPECT_EQ(live.counters().datagrams.load(), kAdversarialFrames);
  EXPECT_EQ(bad_json, 0) << "frame messages with nan or inf";
  // Well-formed datagrams are tracked: only non-finite values and unnormalised quaternions (a
  // 1e9 component) are refused by the parser.
  if (!refusalAllowed(GetParam())) {
    EXPECT_EQ(tally.status[0], kAdversarialFrames);
  }
  tally.expectClean(kAdversarialFrames, std::string("live tracker ") + attackName(GetParam()));
  std::cout << tally.summary() << ", worst limit excess " << tally.limit_excess << '\n';
}

INSTANTIATE_TEST_SUITE_P(Attacks, AdversarialLiveTracker, ::testing::ValuesIn(kAttacks), AttackName());

}  // namespace
}  // namespace kinetrack::testing
