// One description of a marker problem (subject::MarkerModel): its builders from an OpenSim model
// (tests/data/opensim/synthetic_40.osim) and from a kinetrack model with a marker set (human66
// with the built-in Plug-in Gait set), the marker IK of a trial and the labeller built on the same
// description, the IK it states, the static pose and the marker-set problem.
#include "kinetrack/subject/marker_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/markers/labeller.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::subject {
namespace KINETRACK_UNITY_ID {

const std::string kSynthetic = kinetrack::testing::testDataDir() + "/opensim/synthetic_40.osim";
constexpr double kInf = std::numeric_limits<double>::infinity();

std::shared_ptr<const Model> human66() { return std::make_shared<const Model>(makeHuman66()); }

// human66 a little away from its zero pose, the base moved.
Configuration nearZero(const Model& model, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  Configuration q(model);
  for (int j = 0; j < model.numJoints(); ++j) q.joints[j] = u(rng);
  q.base_position = Vector3d(0.2, -0.1, 0.95);
  return q;
}

// The markers of `mm` at q, as a trial of `frames` equal frames at 100 Hz (every marker or the
// named ones left out).
io::MarkerTrajectories trialAt(const MarkerModel& mm, const Configuration& q, int frames,
                               const std::vector<std::string>& without = {}) {
  const Model& m = *mm.model;
  Data d(m);
  framesForwardKinematics(m, d, q);
  io::MarkerTrajectories t;
  t.source = "synthetic";
  t.data_rate = 100.0;
  for (const MarkerModel::Marker& mk : mm.markers)
    if (std::find(without.begin(), without.end(), mk.name) == without.end()) t.names.push_back(mk.name);
  for (int k = 0; k < frames; ++k) {
    t.times.push_back(0.01 * k);
    for (const std::string& n : t.names) t.positions.push_back(d.frame[m.frameId(n).value].p);
  }
  return t;
}

TEST(MarkerModel, FromOpenSimModel) {
  const io::OpenSimModel osim = io::readOpenSimModel(kSynthetic);
  const MarkerModel mm = markerModel(osim);
  ASSERT_EQ(mm.numMarkers(), static_cast<int>(osim.markers.size()));
  for (std::size_t i = 0; i < osim.markers.size(); ++i) {
    EXPECT_EQ(mm.markers[i].name, osim.markers[i].name);
    EXPECT_EQ(mm.markers[i].frame, osim.markers[i].name);
    EXPECT_EQ(mm.markers[i].weight, 1.0);
    EXPECT_TRUE(mm.model->findFrame(mm.markers[i].frame));
  }
  EXPECT_EQ(mm.find("m_b"), 1);
  EXPECT_EQ(mm.find("nope"), -1);
  // Bounds: clamped → range, locked → held at the default, the rest free.
  const int n = mm.model->numJoints();
  ASSERT_EQ(mm.lower.size(), n);
  for (const io::OpenSimCoordinate& c : osim.coordinates) {
    const int j = c.joint.value;
    if (c.locked) {
      EXPECT_EQ(mm.lower[j], c.default_value) << c.name;
      EXPECT_EQ(mm.upper[j], c.default_value) << c.name;
    } else if (c.clamped) {
      EXPECT_EQ(mm.lower[j], c.range_min) << c.name;
      EXPECT_EQ(mm.upper[j], c.range_max) << c.name;
    } else {
      EXPECT_EQ(mm.lower[j], -kInf) << c.name;
      EXPECT_EQ(mm.upper[j], kInf) << c.name;
    }
  }
  std::size_t enforced = 0;
  for (const io::OpenSimCoupler& k : osim.couplers) enforced += k.enforced ? 1 : 0;
  ASSERT_EQ(mm.couplers.size(), enforced);
  for (const MarkerModel::Coupler& k : mm.couplers) EXPECT_EQ(k.weight, kInf) << k.name;
  EXPECT_EQ(mm.reference.joints, osim.defaultConfiguration().joints);
  EXPECT_TRUE(mm.up.isApprox(Vector3d::UnitY()));  // gravity −Y

  // A subset, in the order given; an unknown name is refused, naming it.
  const MarkerModel sub = markerModel(osim, {"m_k", "m_a"});
  ASSERT_EQ(sub.names(), (std::vector<std::string>{"m_k", "m_a"}));
  try {
    (void)markerModel(osim, {"m_a", "No.Such.Marker"});
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("No.Such.Marker"), std::string::npos);
  }
}

TEST(MarkerModel, FromMarkerSetOnKinetrackModel) {
  const auto model = human66();
  const io::MarkerSet set = io::builtinMarkerSet("human66_plugin_gait");
  const MarkerModel mm = markerModel(model, set);
  EXPECT_EQ(mm.names(), set.names());
  for (std::size_t i = 0; i < set.markers.size(); ++i) {
    EXPECT_EQ(mm.markers[i].frame, set.markers[i].name);
    EXPECT_EQ(mm.markers[i].weight, set.markers[i].weight);
    EXPECT_TRUE(mm.model->findFrame(mm.markers[i].frame)) << set.markers[i].name;
  }
  EXPECT_FALSE(model->findFrame(set.markers[0].name));  // the caller's model is not changed
  EXPECT_EQ(mm.lower, model->lowerPositionLimits());
  EXPECT_EQ(mm.upper, model->upperPositionLimits());
  EXPECT_EQ(mm.reference.joints, Configuration(*model).joints);
  EXPECT_EQ(mm.up, Vector3d::UnitZ());
  EXPECT_TRUE(mm.couplers.empty());

  const Configuration q = nearZero(*model, 3);
  EXPECT_EQ(markerModel(model, set, q).reference.joints, q.joints);
  Configuration wrong(*model);
  wrong.joints.resize(3);
  EXPECT_THROW((void)markerModel(model, set, wrong), InvalidArgument);
  EXPECT_THROW((void)markerModel(std::shared_ptr<const Model>{}, set), InvalidArgument);
  io::MarkerSet bad = set;
  bad.markers[0].link = "Skull";
  EXPECT_THROW((void)markerModel(model, bad), InvalidArgument);
}

// The marker IK of a trial and the labeller read one description: the same markers, bounds,
// couplers, reference and up; each adds only its own.
TEST(MarkerModel, MarkerIkAndLabellerAreBuiltOnOneDescription) {
  for (const bool opensim : {true, false}) {
    const MarkerModel mm =
        opensim ? markerModel(io::readOpenSimModel(kSynthetic))
                : markerModel(human66(), io::builtinMarkerSet("human66_plugin_gait"), nearZero(*human66(), 5));
    const track::MarkerIkSpec spec = track::markerIkSpec(mm);
    const markers::LabellerModel lm = markers::labellerModel(mm);
    for (const MarkerModel* m : {static_cast<const MarkerModel*>(&spec), static_cast<const MarkerModel*>(&lm)}) {
      EXPECT_EQ(m->model, mm.model);
      EXPECT_EQ(m->names(), mm.names());
      ASSERT_EQ(m->markers.size(), mm.markers.size());
      for (std::size_t i = 0; i < mm.markers.size(); ++i) {
        EXPECT_EQ(m->markers[i].frame, mm.markers[i].frame);
        EXPECT_EQ(m->markers[i].weight, mm.markers[i].weight);
      }
      EXPECT_EQ(m->couplers.size(), mm.couplers.size());
      EXPECT_EQ(m->lower, mm.lower);
      EXPECT_EQ(m->upper, mm.upper);
      EXPECT_EQ(m->reference.joints, mm.reference.joints);
      EXPECT_EQ(m->up, mm.up);
    }
    // Marker IK's own: no coordinate task, the base aligned, default options.
    EXPECT_TRUE(spec.coordinate_tasks.empty());
    EXPECT_TRUE(spec.align_base);
    // The labeller's own: every marker's frame, its link and the pairs on one link.
    ASSERT_EQ(lm.frame_ids.size(), mm.markers.size());
    for (int i = 0; i < lm.numMarkers(); ++i) {
      const FrameId f = lm.frame_ids[static_cast<std::size_t>(i)];
      EXPECT_EQ(lm.model->frameName(f), mm.markers[static_cast<std::size_t>(i)].frame);
      EXPECT_EQ(lm.link[static_cast<std::size_t>(i)], lm.model->frameLink(f).value);
    }
    std::size_t pairs = 0;
    for (int i = 0; i < lm.numMarkers(); ++i)
      for (int j = i + 1; j < lm.numMarkers(); ++j)
        pairs += lm.link[static_cast<std::size_t>(i)] == lm.link[static_cast<std::size_t>(j)] ? 1 : 0;
    EXPECT_EQ(lm.pairs.size(), pairs);
    for (const markers::LabellerModel::Pair& p : lm.pairs)
      EXPECT_EQ(lm.link[static_cast<std::size_t>(p.i)], lm.link[static_cast<std::size_t>(p.j)]);
  }
}

TEST(MarkerModel, LabellerRefusesWhatItCannotLabel) {
  MarkerModel mm = markerModel(human66(), io::builtinMarkerSet("human66_plugin_gait"));
  MarkerModel unweighted = mm;
  unweighted.markers[0].weight = 0.0;  // a set's unweighted marker is still labelled
  EXPECT_EQ(markers::labellerModel(unweighted).markers[0].weight, 1.0);
  MarkerModel m = mm;
  m.markers.resize(2);
  EXPECT_THROW((void)markers::labellerModel(m), InvalidArgument);  // fewer than 3
  m = mm;
  m.markers[1].name = m.markers[0].name;
  EXPECT_THROW((void)markers::labellerModel(m), InvalidArgument);  // a name twice
  m = mm;
  m.markers[2].weight = -1.0;
  EXPECT_THROW((void)markers::labellerModel(m), InvalidArgument);
  m = mm;
  m.markers[2].frame = "NoSuchFrame";
  EXPECT_THROW((void)markers::labellerModel(m), InvalidArgument);
  m = mm;
  m.up.setZero();
  EXPECT_THROW((void)markers::labellerModel(m), InvalidArgument);
  m = mm;
  m.lower.resize(2);
  EXPECT_THROW((void)markers::labellerModel(m), InvalidArgument);
  m = mm;
  m.lower.resize(0);
  m.upper.resize(0);  // no bounds: the model's limits
  EXPECT_EQ(markers::labellerModel(m).lower, mm.model->lowerPositionLimits());
}

// The IK the model states starts at its reference and, fed the model's own markers at a pose
// near it, finds that pose's markers; staticPose does so from a static trial's mean markers.
TEST(MarkerModel, MarkerIkAndStaticPoseFitTheModelsMarkers) {
  const auto model = human66();
  const Configuration start = nearZero(*model, 11);
  const MarkerModel mm = markerModel(model, io::builtinMarkerSet("human66_plugin_gait"), start);
  ik::MarkerIk ik = makeMarkerIk(mm);
  EXPECT_EQ(ik.state().joints, start.joints);
  EXPECT_EQ(ik.state().base_position, start.base_position);

  Configuration q = start;
  for (int j = 0; j < model->numJoints(); ++j) q.joints[j] += 0.02 * std::sin(j);
  const io::MarkerTrajectories still = trialAt(mm, q, 5);
  const Configuration pose = staticPose(mm, still);
  const MarkerModel at_pose = markerModel(model, io::builtinMarkerSet("human66_plugin_gait"), pose);
  const io::MarkerTrajectories fitted = trialAt(at_pose, pose, 1);
  double worst = 0.0;
  for (int i = 0; i < still.numMarkers(); ++i)
    worst = std::max(worst, (fitted.position(0, i) - still.position(0, i)).norm());
  EXPECT_LT(worst, 1e-4);

  const io::MarkerTrajectories few = trialAt(mm, q, 2, [&] {
    std::vector<std::string> all = mm.names();
    all.erase(all.begin(), all.begin() + 2);
    return all;
  }());
  EXPECT_THROW((void)staticPose(mm, few), InvalidArgument);  // 2 markers only
}

TEST(MarkerSetProblem, KeepsTheTrialsMarkersAndStartsFromTheCalibratedStaticPose) {
  const auto model = human66();
  const io::MarkerSet set = io::builtinMarkerSet("human66_plugin_gait");
  const MarkerSetProblem plain = markerSetProblem(model, set);
  EXPECT_EQ(plain.model.names(), set.names());
  EXPECT_FALSE(plain.calibration);
  EXPECT_TRUE(plain.absent.empty());
  EXPECT_EQ(plain.model.reference.joints, Configuration(*model).joints);

  const io::MarkerTrajectories trial = trialAt(plain.model, nearZero(*model, 7), 3, {"LFIN", "RFIN"});
  const MarkerSetProblem fitted = markerSetProblem(model, set, nullptr, &trial);
  EXPECT_EQ(fitted.absent, (std::vector<std::string>{"LFIN", "RFIN"}));
  EXPECT_EQ(fitted.model.numMarkers(), static_cast<int>(set.markers.size()) - 2);
  EXPECT_EQ(fitted.model.find("LFIN"), -1);

  // A static trial: the set calibrated on it, the reference its calibrated pose.
  const io::MarkerTrajectories still = trialAt(plain.model, nearZero(*model, 9), 4);
  const MarkerSetProblem calibrated = markerSetProblem(model, set, &still, &trial);
  ASSERT_TRUE(calibrated.calibration);
  EXPECT_EQ(calibrated.calibration->frames_used, 4);
  EXPECT_EQ(calibrated.model.reference.joints, calibrated.calibration->poses.front().joints);
  EXPECT_EQ(calibrated.absent, fitted.absent);

  io::MarkerTrajectories none = trial;
  for (std::string& n : none.names) n += "_x";
  EXPECT_THROW((void)markerSetProblem(model, set, nullptr, &none), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::subject
