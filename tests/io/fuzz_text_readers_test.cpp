// Fuzz-style robustness of the text readers (issue 4): TRC, MOT, URDF, MJCF, joint trajectory CSV,
// pose-target CSV, external-wrench CSV and OpenSim models (BVH, MVNX and segment maps are in
// fuzz_readers_test.cpp; the machinery is in tests/testing/mutations.hpp). Truncated and
// corrupted copies of the fixtures must either parse into a self-consistent result, which the
// downstream consumers then take without crashing, or throw kinetrack::ParseError naming the
// file and a line of the input (InvalidArgument only where the API documents it). Run it under
// ASan/UBSan too: scripts/test.sh --sanitize, then ctest --test-dir build-asan -R Fuzz.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <set>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/target_csv.hpp"
#include "kinetrack/io/model/mjcf.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/io/table/wrench_csv.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "kinetrack/track/synthetic.hpp"
#include "testing/mutations.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using testing::twoJointModel;

using namespace kinetrack::testing;

// ---- fixtures ----------------------------------------------------------------------------------

// A TRC file cut to its first `frames` data rows, NumFrames rewritten.
std::string shrinkTrc(const std::string& text, int frames) {
  const auto L = splitLines(text);
  std::string out;
  for (std::size_t i = 0; i < 5; ++i) out += L[i];
  // Line 3 holds the values of line 2's keys; NumFrames is the third.
  std::string values(L[2]);
  std::size_t b = 0;
  for (int k = 0; k < 2; ++k) b = values.find('\t', b) + 1;
  values.replace(b, values.find('\t', b) - b, std::to_string(frames));
  out.replace(L[0].size() + L[1].size(), L[2].size(), values);
  int kept = 0;
  for (std::size_t i = 5; i < L.size() && kept < frames; ++i) {
    out += L[i];
    kept += blank(L[i]) ? 0 : 1;
  }
  return out;
}

// A MOT file cut to its first `rows` rows after the column names.
std::string shrinkMot(const std::string& text, int rows) {
  std::string out;
  bool table = false;
  int kept = -1;  // the column-name line comes first
  for (std::string_view l : splitLines(text)) {
    if (table && kept == rows) break;
    out += l;
    if (table && !blank(l)) ++kept;
    if (l.substr(0, 9) == "endheader") table = true;
  }
  return out;
}

// ---- contracts of the results ------------------------------------------------------------------

void checkTrc(const MarkerTrajectories& m) {
  require(m.data_rate > 0 && std::isfinite(m.data_rate), "trc: data rate");
  std::set<std::string> names;
  for (const std::string& n : m.names) require(!n.empty() && names.insert(n).second, "trc: marker names");
  require(m.positions.size() == m.times.size() * m.names.size(), "trc: positions size");
  for (std::size_t f = 0; f < m.times.size(); ++f)
    require(std::isfinite(m.times[f]) && (f == 0 || m.times[f] > m.times[f - 1]),
            "trc: times not finite and increasing");
}

bool sameValues(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (!(a.data()[i] == b.data()[i] || (std::isnan(a.data()[i]) && std::isnan(b.data()[i])))) return false;
  return true;
}

void checkMot(const MotTable& t, const std::string& source) {
  require(t.values.rows() == static_cast<Eigen::Index>(t.times.size()) &&
              t.values.cols() == static_cast<Eigen::Index>(t.columns.size()),
          "mot: values are not (times × columns)");
  for (std::size_t f = 0; f < t.times.size(); ++f)
    require(std::isfinite(t.times[f]) && (f == 0 || t.times[f] > t.times[f - 1]),
            "mot: times not finite and increasing");
  // Downstream: the writer's output reads back to the same table.
  MotTable r;
  try {
    r = parseMot(toMot(t), source);
  } catch (const ParseError& e) {
    throw Inconsistent{std::string("mot: toMot output does not read back: ") + e.what()};
  }
  require(
      r.columns == t.columns && r.times == t.times && r.in_degrees == t.in_degrees && sameValues(r.values, t.values),
      "mot: toMot → parseMot round trip differs");
}

bool validUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += n;
  }
  return true;
}

void checkUrdf(const Model& m, const std::string& source, const UrdfOptions& o) {
  checkModel(m);
  Data data(m);
  checkKinematics(m, data, Configuration(m));
  // Downstream: the writer's output loads back to the same structure. Not for names that are not
  // UTF-8: the writer escapes '<' as "&lt;", and urdfdom's TinyXML reads a broken multi-byte
  // sequence followed by '&' differently from tinyxml2 (a clean ParseError, reported as a
  // limitation, not checked here).
  for (const auto* names : {&m.linkNames(), &m.jointNames(), &m.frameNames()})
    for (const std::string& n : *names)
      if (!validUtf8(n)) return;
  for (int f = 0; f < m.numFrames(); ++f)  // fixed joints are written under these names
    if (!validUtf8(m.frameJointName(FrameId(f)))) return;
  Model r = m;
  try {
    r = parseUrdf(toUrdf(m), source, o);
  } catch (const ParseError& e) {
    throw Inconsistent{std::string("urdf: toUrdf output does not load back: ") + e.what()};
  }
  require(r.jointNames() == m.jointNames() && r.linkNames() == m.linkNames() && r.numFrames() == m.numFrames(),
          "urdf: toUrdf → parseUrdf round trip differs");
}

// The file readers (readBvh, …) on a few mutated copies written to disk: same outcome as parsing.
// ---- the tests ---------------------------------------------------------------------------------

TEST(FuzzReaders, Trc) {
  const std::vector<std::string> files = {"data/opensim/gait2354_walk/subject01_walk1.trc",
                                          "data/opensim/gait2354_walk/subject01_static.trc"};
  const std::vector<Fixture> small = sharedFixtures(files, [](const std::string& t) { return shrinkTrc(t, 6); });
  if (small.empty()) GTEST_SKIP() << "../shared/data/opensim not found";
  Stats st{"trc"};
  auto read = [](const Fixture& fx, const std::string& text) {
    checkTrc(parseTrc(text, fx.name));
    checkTrc(parseTrc(text, fx.name, TrcOptions{false}));
  };
  for (const Fixture& fx : small) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name << " cut to 6 frames";
  const Vocabulary words = {{"Units", "PathFileType"}, {"\t", "\t\t", "mm", "cm", "m", "Frame#", "Time", "X1", "\n"}};
  fuzz(st, small, {25 * kScale, 400 * kScale, 20000, words}, read);
  fuzz(st, sharedFixtures(files), {3 * kScale, 0, 0, {}, false}, read);
  viaFiles(
      st, small[0], ".trc", [](const std::string& p) { readTrc(p); },
      [](const std::string& t, const std::string& p) { parseTrc(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

TEST(FuzzReaders, Mot) {
  const std::vector<std::string> files = {"data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot",
                                          "data/opensim/gait2354_walk/subject01_static_output_REFERENCE.mot",
                                          "data/opensim/opensense_imu_walk/placement_orientations.sto"};
  const std::vector<Fixture> small = sharedFixtures(files, [](const std::string& t) { return shrinkMot(t, 6); });
  if (small.empty()) GTEST_SKIP() << "../shared/data/opensim not found";
  Stats st{"mot"};
  auto read = [](const Fixture& fx, const std::string& text) { checkMot(parseMot(text, fx.name), fx.name); };
  for (const Fixture& fx : small) {  // the .sto holds quaternions "w,x,y,z": not a MOT table, always rejected
    if (fx.name.ends_with(".mot")) {
      EXPECT_NO_THROW(read(fx, fx.text)) << fx.name << " cut to 6 rows";
    }
  }
  const Vocabulary words = {{"endheader", "inDegrees"},
                            {"endheader", "inDegrees=yes", "inDegrees=no", "time", "\t", "\n"}};
  fuzz(st, small, {25 * kScale, 400 * kScale, 20000, words}, read);
  fuzz(st, sharedFixtures(files), {3 * kScale, 0, 0, {}, false}, read);
  viaFiles(
      st, small[0], ".mot", [](const std::string& p) { readMot(p); },
      [](const std::string& t, const std::string& p) { parseMot(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

TEST(FuzzReaders, Urdf) {
  // The small hand-written fixtures (several deliberately broken), then real models.
  std::vector<Fixture> small;
  for (const auto& e : std::filesystem::directory_iterator(kinetrack::testing::testDataDir() + "/urdf"))
    small.push_back({e.path().filename().string(), slurp(e.path().string())});
  std::sort(small.begin(), small.end(), [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  const std::vector<Fixture> large = sharedFixtures(
      {"models/human-gazebo/humanSubject01/humanSubject01_48dof.urdf", "models/icub/iCubGazeboV2_5_model.urdf"});
  Stats st{"urdf"};
  std::uint32_t variant = 0;
  auto read = [&](const Fixture& fx, const std::string& text) {
    UrdfOptions o;
    o.base = variant++ % 2 ? BaseType::Fixed : BaseType::Floating;
    std::vector<std::string> warnings;
    checkUrdf(parseUrdf(text, fx.name, o, &warnings), fx.name, o);
  };
  for (const Fixture& fx : large) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  for (const Fixture& fx : small) {  // the other hand-written fixtures are broken on purpose
    if (fx.name == "mimic.urdf") {
      EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
    }
  }
  const Vocabulary words = {{"<origin", "<axis", "<limit", "<mass", "<inertia ", "<mimic"},
                            {"revolute", "continuous", "prismatic", "fixed",  "floating", "planar",     "<link",
                             "<joint",   "</link>",    "</joint>",  "parent", "child",    "name",       "link",
                             "joint",    "<limit",     "<mimic",    "<axis",  "<origin",  "<inertial>", "</inertial>",
                             "lower",    "upper",      "velocity",  "effort", "xyz",      "rpy",        "robot"}};
  fuzz(st, small, {20 * kScale, 150 * kScale, 20000, words}, read);
  fuzz(st, large, {5 * kScale, 25 * kScale, 0, words}, read);
  viaFiles(
      st, small[0], ".urdf", [](const std::string& p) { loadUrdf(p); },
      [](const std::string& t, const std::string& p) { parseUrdf(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

void checkMjcf(const Model& m) {
  checkModel(m);
  Data data(m);
  checkKinematics(m, data, Configuration(m));
  for (const Geom& g : m.geoms())
    require(g.link.valid() && g.link.value < m.numLinks() && g.placement.R.allFinite() && g.placement.p.allFinite() &&
                g.size.allFinite(),
            "mjcf: a geom's link, placement or size");
  // Downstream: the URDF export (refused only for what URDF cannot hold).
  try {
    (void)toUrdf(m);
  } catch (const InvalidArgument&) {
  }
}

TEST(FuzzReaders, Mjcf) {
  // The small hand-written documents (tests/data/mjcf), then the Unitree G1 and H1.
  std::vector<Fixture> small;
  for (const auto& e : std::filesystem::directory_iterator(kinetrack::testing::testDataDir() + "/mjcf"))
    small.push_back({e.path().filename().string(), slurp(e.path().string())});
  std::sort(small.begin(), small.end(), [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  const std::vector<Fixture> large = sharedFixtures({"models/unitree/g1/g1_29dof.xml", "models/unitree/h1/h1.xml"});
  Stats st{"mjcf"};
  auto read = [&](const Fixture& fx, const std::string& text) {
    std::vector<std::string> warnings;
    checkMjcf(parseMjcf(text, fx.name, {}, &warnings));
  };
  for (const Fixture& fx : large) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  for (const Fixture& fx : small) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  const Vocabulary words = {{"range=\"", "pos=\"", "size=\"", "quat=\"", "euler=\"", "axis=\""},
                            {"<body",        "</body>",    "<joint",
                             "<freejoint/>", "<geom",      "<site",
                             "<default",     "</default>", "<inertial",
                             "<frame",       "hinge",      "slide",
                             "ball",         "free",       "quat",
                             "euler",        "axisangle",  "xyaxes",
                             "zaxis",        "fromto",     "class",
                             "childclass",   "range",      "limited",
                             "type",         "mesh",       "capsule",
                             "cylinder",     "box",        "ellipsoid",
                             "plane",        "mass",       "diaginertia",
                             "fullinertia",  "radian",     "degree",
                             "eulerseq",     "autolimits", "actuatorfrcrange"}};
  fuzz(st, small, {20 * kScale, 150 * kScale, 20000, words}, read);
  fuzz(st, large, {5 * kScale, 25 * kScale, 0, words}, read);
  viaFiles(
      st, small[0], ".xml", [](const std::string& p) { loadMjcf(p); },
      [](const std::string& t, const std::string& p) { parseMjcf(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

// ---- joint trajectory CSV ----------------------------------------------------------------------

// The CSV readers' ParseError names a line of the text (1 … lines; 0 only when it has none).
template <class Parse>
auto csvParse(const std::string& text, Parse&& parse) {
  try {
    return parse();
  } catch (const ParseError& e) {
    const long lines = std::count(text.begin(), text.end(), '\n') + (text.empty() || text.back() == '\n' ? 0 : 1);
    require(e.line() >= (lines > 0 ? 1 : 0) && e.line() <= lines, "csv: the ParseError's line is not in the text");
    throw;
  }
}

std::string tempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("kinetrack_fuzz_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// `frames` random configurations of `model` (seeded), frame 2 a gap, written by JointCsvWriter.
std::string jointCsvText(const Model& model, int frames, std::uint64_t seed) {
  const std::string path = tempPath("q.csv");
  {
    JointCsvWriter out(model, path);
    std::mt19937_64 rng(seed);
    for (int f = 0; f < frames; ++f) out.write(0.1 + f / 120.0, randomConfiguration(model, rng), f == 2);
    out.commit();
  }
  std::string text = slurp(path);
  std::filesystem::remove(path);
  return text;
}

void checkJointCsv(const JointTrajectory& t, const Model& model, Data& data) {
  const std::size_t nf = t.times.size();
  require(
      t.joints.rows() == t.numFrames() && t.joints.cols() == t.numJoints() && t.base.size() == nf && t.gap.size() == nf,
      "joint csv: sizes");
  const std::set<std::string> names(t.joint_names.begin(), t.joint_names.end());
  require(names.size() == t.joint_names.size() && !names.contains(""), "joint csv: joint names empty or repeated");
  for (std::size_t f = 0; f < nf; ++f) {
    require(std::isfinite(t.times[f]) && (f == 0 || t.times[f] > t.times[f - 1]),
            "joint csv: times not finite and increasing");
    require(t.base[f].p.allFinite() && rotation(t.base[f].R) && t.gap[f] <= 1, "joint csv: base pose or gap");
  }
  require(t.joints.allFinite(), "joint csv: a joint value is not finite");
  // Downstream: configurations of the model when the columns are its joints (any order), else
  // the documented InvalidArgument.
  const bool matches = names == std::set<std::string>(model.jointNames().begin(), model.jointNames().end());
  std::vector<Configuration> qs;
  try {
    qs = toConfigurations(t, model);
  } catch (const InvalidArgument&) {
    require(!matches, "joint csv: toConfigurations rejected the model's own columns");
    return;
  }
  require(matches && qs.size() == nf, "joint csv: toConfigurations accepted columns that are not the model's");
  for (std::size_t f = 0; f < nf; ++f) {
    require(qs[f].joints.size() == model.numJoints() && qs[f].joints.allFinite() &&
                qs[f].base_rotation == t.base[f].R && qs[f].base_position == t.base[f].p,
            "joint csv: a configuration differs from its row");
    if (f < 2) checkKinematics(model, data, qs[f]);
  }
}

TEST(FuzzReaders, JointCsv) {
  const Model human66 = makeHuman66(), two = twoJointModel();
  Data human66_data(human66), two_data(two);
  const std::vector<Fixture> fixtures = {{"human66_q.csv", jointCsvText(human66, 4, 66)},
                                         {"two_q.csv", "# two joints\n" + jointCsvText(two, 6, 2)}};
  Stats st{"jointcsv"};
  auto read = [&](const Fixture& fx, const std::string& text) {
    const bool big = fx.name == fixtures[0].name;
    const JointTrajectory t = csvParse(text, [&] { return parseJointCsv(text, fx.name); });
    checkJointCsv(t, big ? human66 : two, big ? human66_data : two_data);
  };
  for (const Fixture& fx : fixtures) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  const Vocabulary words = {{}, {"time", "base_x", "base_qw", "base_qz", "gap", ",", "\n", "#", " ", "0", "1", "-"}};
  fuzz(st, fixtures, {25 * kScale, 1000 * kScale, 20000, words}, read);
  viaFiles(
      st, fixtures[0], ".csv", [](const std::string& p) { readJointCsv(p); },
      [](const std::string& t, const std::string& p) { parseJointCsv(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

// ---- pose-target CSV ---------------------------------------------------------------------------

// A synthetic human66 walk as pose targets: every segment (5 frames), then three segments with
// position only, orientation only, both, and gaps (4 frames).
std::vector<Fixture> targetFixtures() {
  const MotionClip walk = track::syntheticWalk(makeHuman66(), 0.05, 100).clip;
  PoseTargets mixed;
  MotionClip& c = mixed.clip;
  const int segments[] = {walk.findSegment("Pelvis"), walk.findSegment("Head"), walk.findSegment("LeftHand")};
  for (const int s : segments) c.segment_names.push_back(walk.segment_names[static_cast<std::size_t>(s)]);
  c.segment_parent.assign(3, -1);
  mixed.has_position = {1, 0, 1};
  mixed.has_orientation = {1, 1, 0};
  for (int f = 0; f < 4; ++f) {
    c.times.push_back(walk.times[static_cast<std::size_t>(f)]);
    for (int k = 0; k < 3; ++k) {
      c.poses.push_back(walk.pose(f, segments[k]));
      const bool gap = (f + k) % 3 == 1;
      mixed.position_valid.push_back(!gap);
      mixed.orientation_valid.push_back(!gap);
      c.valid.push_back(!gap);
    }
  }
  return {{"walk_targets.csv", toTargetCsv(poseTargetsFromClip(walk))}, {"mixed_targets.csv", toTargetCsv(mixed)}};
}

bool writableName(const std::string& n) {  // toTargetCsv's rule for a segment name
  return !n.empty() && n.find_first_of(",\"\r\n") == std::string::npos && n.front() != ' ' && n.back() != ' ';
}

void checkTargets(const PoseTargets& t, const std::string& source) {
  const MotionClip& c = t.clip;
  checkClip(c, true);
  const std::size_t ns = c.segment_names.size(), n = c.poses.size();
  require(ns > 0 && t.has_position.size() == ns && t.has_orientation.size() == ns && t.position_valid.size() == n &&
              t.orientation_valid.size() == n,
          "targets: flag sizes");
  const std::set<std::string> names(c.segment_names.begin(), c.segment_names.end());
  require(names.size() == ns && !names.contains(""), "targets: segment names empty or repeated");
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t s = k % ns;
    const bool hp = t.has_position[s], ho = t.has_orientation[s], pv = t.position_valid[k], ov = t.orientation_valid[k];
    const Transform& T = c.poses[k];
    require(hp || ho, "targets: a segment with neither position nor orientation");
    require((!pv || hp) && (!ov || ho) && c.valid[k] == ((pv || !hp) && (ov || !ho)), "targets: validity flags");
    // Documented: a part the segment lacks is p = 0 or R = I, a missing part NaN.
    require(pv ? T.p.allFinite() : hp ? T.p.hasNaN() : T.p.isZero(0), "targets: position of a sample");
    require(ov ? rotation(T.R) : ho ? T.R.hasNaN() : T.R.isIdentity(0), "targets: orientation of a sample");
  }
  // Downstream: the writer's output reads back to the same targets, for names it can write.
  if (!std::all_of(c.segment_names.begin(), c.segment_names.end(), writableName)) return;
  PoseTargets r;
  try {
    r = parseTargetCsv(toTargetCsv(t), source);
  } catch (const ParseError& e) {
    throw Inconsistent{std::string("targets: toTargetCsv output does not read back: ") + e.what()};
  }
  bool same = r.clip.segment_names == c.segment_names && r.clip.times == c.times && r.clip.valid == c.valid &&
              r.has_position == t.has_position && r.has_orientation == t.has_orientation &&
              r.position_valid == t.position_valid && r.orientation_valid == t.orientation_valid;
  for (std::size_t k = 0; same && k < n; ++k) {
    if (t.position_valid[k]) same = r.clip.poses[k].p == c.poses[k].p;
    if (same && t.orientation_valid[k]) same = (r.clip.poses[k].R - c.poses[k].R).cwiseAbs().maxCoeff() < 1e-12;
  }
  require(same, "targets: toTargetCsv → parseTargetCsv round trip differs");
}

TEST(FuzzReaders, TargetCsv) {
  const std::vector<Fixture> fixtures = targetFixtures();
  Stats st{"targetcsv"};
  auto read = [](const Fixture& fx, const std::string& text) {
    checkTargets(csvParse(text, [&] { return parseTargetCsv(text, fx.name); }), fx.name);
  };
  for (const Fixture& fx : fixtures) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  const Vocabulary words = {{}, {"time", ".px", ".pz", ".qw", ".qz", ",", ",,", "\n", "#", " ", "nan", "-"}};
  fuzz(st, fixtures, {25 * kScale, 600 * kScale, 20000, words}, read);
  viaFiles(
      st, fixtures[1], ".csv", [](const std::string& p) { readTargetCsv(p); },
      [](const std::string& t, const std::string& p) { parseTargetCsv(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

// ---- external-wrench CSV -------------------------------------------------------------------------

// Two feet with free moments and a hand frame without, over 5 samples; and one body, 3 samples.
std::vector<Fixture> wrenchFixtures() {
  WrenchTrajectory w;
  w.bodies.resize(3);
  w.bodies[0].body = "LeftFoot";
  w.bodies[1].body = "RightFoot";
  w.bodies[2].body = "RightHandCOM";
  w.bodies[0].has_moment = w.bodies[1].has_moment = true;
  for (int k = 0; k < 5; ++k) {
    w.times.push_back(0.2 + k / 100.0);
    for (BodyWrenches& b : w.bodies) {
      b.force.emplace_back(10.0 * k, -3.5, 700.25 - k);
      b.point.emplace_back(0.1 * k, 0.25, 0.0);
      b.moment.push_back(b.has_moment ? Vector3d(0.5, -0.125, 1e-3 * k) : Vector3d::Zero());
    }
  }
  return {{"feet_wrenches.csv", toWrenchCsv(w)},
          {"plate.csv", "time,P.fx,P.fy,P.fz,P.px,P.py,P.pz\n0,1,2,3,4,5,6\n0.5,1,2,3,4,5,6\n1,0,0,0,0,0,0\n"}};
}

void checkWrenches(const WrenchTrajectory& w, const Model& model) {
  const std::size_t n = w.times.size();
  require(n > 0 && !w.bodies.empty(), "wrenches: no samples or no bodies");
  std::set<std::string> names;
  for (const BodyWrenches& b : w.bodies) {
    require(!b.body.empty() && names.insert(b.body).second, "wrenches: body names empty or repeated");
    require(b.force.size() == n && b.point.size() == n && b.moment.size() == n, "wrenches: sizes");
    for (std::size_t k = 0; k < n; ++k)
      require(b.force[k].allFinite() && b.point[k].allFinite() && b.moment[k].allFinite() &&
                  (b.has_moment || b.moment[k].isZero(0)),
              "wrenches: a value is not finite, or a moment without moment columns");
  }
  for (std::size_t k = 0; k < n; ++k)
    require(std::isfinite(w.times[k]) && (k == 0 || w.times[k] > w.times[k - 1]), "wrenches: times");
  // Downstream: binding to a model gives a link per body or the documented ParseError at the header;
  // resampling at its own times copies every sample.
  bool known = true;
  for (const BodyWrenches& b : w.bodies) known = known && model.findFrame(b.body).has_value();
  try {
    const std::vector<LinkId> links = bindWrenchBodies(w, model);
    require(known && links.size() == w.bodies.size(), "wrenches: bound an unknown body");
  } catch (const ParseError& e) {
    require(!known && e.line() == w.header_line, "wrenches: binding rejected known bodies or named another line");
  }
  const WrenchTrajectory r = resampleWrenches(w, w.times);
  for (std::size_t b = 0; b < w.bodies.size(); ++b)
    require(r.bodies[b].force == w.bodies[b].force && r.bodies[b].point == w.bodies[b].point &&
                r.bodies[b].moment == w.bodies[b].moment,
            "wrenches: resampling at the sample times changed a sample");
}

TEST(FuzzReaders, WrenchCsv) {
  const std::vector<Fixture> fixtures = wrenchFixtures();
  const Model human66 = makeHuman66();
  Stats st{"wrenchcsv"};
  auto read = [&](const Fixture& fx, const std::string& text) {
    checkWrenches(csvParse(text, [&] { return parseWrenchCsv(text, fx.name); }), human66);
  };
  for (const Fixture& fx : fixtures) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  const Vocabulary words = {{}, {"time", ".fx", ".pz", ".mx", ".mz", ",", ",,", "\n", "#", " ", "nan", "-", "1e308"}};
  fuzz(st, fixtures, {25 * kScale, 600 * kScale, 20000, words}, read);
  viaFiles(
      st, fixtures[0], ".csv", [](const std::string& p) { readWrenchCsv(p); },
      [](const std::string& t, const std::string& p) { parseWrenchCsv(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

// ---- OpenSim models (.osim) --------------------------------------------------------------------

void checkOpenSim(const OpenSimModel& m) {
  require(m.model != nullptr, "osim: no model");
  const Model& model = *m.model;
  checkModel(model);
  require(model.baseType() == BaseType::Fixed && model.linkName(LinkId(0)) == "ground", "osim: fixed base 'ground'");
  require(static_cast<int>(m.coordinates.size()) == model.numJoints(), "osim: one joint per coordinate");
  std::set<int> joints;
  for (const OpenSimCoordinate& c : m.coordinates)
    require(c.joint.valid() && model.jointName(c.joint) == c.name && joints.insert(c.joint.value).second &&
                !(c.range_min > c.range_max) && std::isfinite(c.default_value),
            "osim: a coordinate is not its own joint, or its range or default is broken");
  for (const std::string& b : m.bodies) require(model.findFrame(b).has_value(), "osim: a body has no frame");
  for (const OpenSimMarker& k : m.markers)
    require(k.frame.valid() && model.frameName(k.frame) == k.name && k.location.allFinite(), "osim: marker frames");
  // Downstream: forward kinematics at the zero and the default coordinates.
  Data data(model);
  checkKinematics(model, data, Configuration(model));
  checkKinematics(model, data, m.defaultConfiguration());
}

TEST(FuzzReaders, OpenSimModel) {
  std::vector<Fixture> small = {
      {"synthetic_40.osim", slurp(kinetrack::testing::testDataDir() + "/opensim/synthetic_40.osim")}};
  for (Fixture& fx : sharedFixtures({"data/opensim/arm26_inverse_dynamics/arm26.osim",
                                     "data/opensim/arm26_static_optimization/arm26.osim",
                                     "data/opensim/arm26_static_optimization/arm26_v40_opensim-models.osim"}))
    small.push_back(std::move(fx));
  const std::vector<Fixture> large = sharedFixtures({"data/opensim/gait2354_walk/subject01_simbody.osim",
                                                     "data/opensim/opensense_imu_walk/Rajagopal2015_opensense.osim"});
  Stats st{"osim"};
  auto read = [](const Fixture& fx, const std::string& text) { checkOpenSim(parseOpenSimModel(text, fx.name)); };
  for (const Fixture& fx : small) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  for (const Fixture& fx : large) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  const Vocabulary words = {{"<range>", "<default_value>", "<location>", "<translation>", "<orientation>", "<x>", "<y>",
                             "<coefficients>", "<scale>", "<value>", "<mass>", "<inertia>", "<axis>", "Version="},
                            {"CustomJoint",
                             "PinJoint",
                             "WeldJoint",
                             "FreeJoint",
                             "BallJoint",
                             "SliderJoint",
                             "UniversalJoint",
                             "PlanarJoint",
                             "EllipsoidJoint",
                             "SimmSpline",
                             "LinearFunction",
                             "Constant",
                             "MultiplierFunction",
                             "PolynomialFunction",
                             "GCVSpline",
                             "rotation1",
                             "rotation3",
                             "translation2",
                             "coordinates",
                             "socket_parent_frame",
                             "socket_child_frame",
                             "socket_parent",
                             "/bodyset/",
                             "/ground",
                             "..",
                             "true",
                             "false",
                             "reverse",
                             "Coordinate",
                             "Body",
                             "Marker",
                             "function",
                             "parent_body",
                             "ground"}};
  fuzz(st, small, {25 * kScale, 250 * kScale, 20000, words}, read);
  fuzz(st, large, {5 * kScale, 30 * kScale, 0, words}, read);
  viaFiles(
      st, small[0], ".osim", [](const std::string& p) { readOpenSimModel(p); },
      [](const std::string& t, const std::string& p) { parseOpenSimModel(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

// ---- regressions: the bugs the fuzzing found, one input each ----------------------------------

constexpr const char* kTrc =
    "PathFileType\t4\t(X/Y/Z)\tx.trc\n"
    "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\n"
    "100\t100\t2\t1\tmm\n"
    "Frame#\tTime\tA\t\t\n"
    "\t\tX1\tY1\tZ1\n"
    "\n"
    "1\t0.00\t1\t2\t3\n"
    "2\t0.01\t1\t2\t3\n";

TEST(FuzzReaders, RegressionsOpenSim) {
  // DataRate inf was accepted; NumFrames and NumMarkers went through static_cast<int> unchecked
  // (NaN or 1e30: undefined behaviour).
  for (const char* header : {"inf\t100\t2\t1\tmm", "100\t100\tnan\t1\tmm", "100\t100\t1e30\t1\tmm",
                             "100\t100\t2\t1e30\tmm", "100\t100\t2.5\t1\tmm"})
    EXPECT_EQ(parseErrorLine([&] { parseTrc(edited(kTrc, "100\t100\t2\t1\tmm", header), "f.trc"); }), 3) << header;
  // A first time of -inf (or nan) was kept: times not finite.
  EXPECT_EQ(parseErrorLine([&] { parseTrc(edited(kTrc, "1\t0.00", "1\t-inf"), "f.trc"); }), 7);
  const std::string mot = "x\nendheader\ntime\ta\n0\t1\n0.1\t2\n";
  EXPECT_EQ(parseErrorLine([&] { parseMot(edited(mot, "0\t1", "-inf\t1"), "f.mot"); }), 4);
  EXPECT_EQ(parseErrorLine([&] { parseMot(edited(mot, "0\t1", "nan\t1"), "f.mot"); }), 4);
}

constexpr const char* kUrdf =
    "<robot name=\"r\">\n"
    "  <link name=\"base\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
    "izz=\"1\"/></inertial></link>\n"
    "  <link name=\"a\"/>\n"
    "  <link name=\"b\"/>\n"
    "  <joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/><axis xyz=\"0 0 1\"/>\n"
    "    <limit lower=\"-1\" upper=\"1\" velocity=\"1\" effort=\"1\"/></joint>\n"
    "  <joint name=\"j2\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 1 0\"/></joint>\n"
    "</robot>\n";

TEST(FuzzReaders, RegressionsUrdf) {
  EXPECT_EQ(parseUrdf(kUrdf, "f.urdf").numJoints(), 2);
  // <limit> without "upper" and lower > 0: the message appended a null attribute text (SIGSEGV).
  EXPECT_EQ(parseErrorLine([&] { parseUrdf(edited(kUrdf, "lower=\"-1\" upper=\"1\"", "lower=\"1\""), "f.urdf"); }), 6);
  // A negative mass on the root link: the builder's InvalidArgument escaped parseUrdf.
  EXPECT_GE(parseErrorLine([&] { parseUrdf(edited(kUrdf, "mass value=\"1\"", "mass value=\"-1\""), "f.urdf"); }), 0);
  // A CRLF inside a joint name: urdfdom (TinyXML 1) and tinyxml2 read it differently, and the
  // joint looked up by tinyxml2's name was null (SIGSEGV). A name with a control character is now
  // refused at its element.
  EXPECT_EQ(parseErrorLine([&] { parseUrdf(edited(kUrdf, "name=\"j2\"", "name=\"j\r\n2\""), "f.urdf"); }), 7);
  EXPECT_EQ(parseErrorLine([&] { parseUrdf(edited(kUrdf, "name=\"a\"", "name=\"a\tb\""), "f.urdf"); }), 3);
  // A cycle apart from the root's tree (a → b → a under a lone root) passed the one-root check and
  // its joints were silently left out of the model.
  EXPECT_GE(parseErrorLine([&] {
              parseUrdf(edited(edited(kUrdf, "<parent link=\"base\"/><child link=\"a\"/>",
                                      "<parent link=\"b\"/><child link=\"a\"/>"),
                               "<robot name=\"r\">\n", "<robot name=\"r\">\n  <link name=\"root\"/>\n"),
                        "f.urdf");
            }),
            0);
  // A fixed child whose inertial sits at 1e200 m: merging it into its parent overflowed the
  // parent's inertia, and the model was built with an infinite inertial.
  const std::string fixed = edited(edited(kUrdf, "  <link name=\"b\"/>\n",
                                          "  <link name=\"b\"/>\n  <link name=\"c\"><inertial><mass "
                                          "value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" "
                                          "iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"),
                                   "</robot>",
                                   "  <joint name=\"j3\" type=\"fixed\"><parent link=\"base\"/><child "
                                   "link=\"c\"/><origin xyz=\"1e200 0 0\"/></joint>\n</robot>");
  EXPECT_EQ(parseErrorLine([&] { parseUrdf(fixed, "f.urdf"); }), 0);
  EXPECT_EQ(parseUrdf(edited(fixed, "1e200", "1"), "f.urdf").numJoints(), 2);
  // An axis whose norm overflows ("1e200 1 0"): the builder normalised it to zero.
  const Model m = parseUrdf(edited(kUrdf, "<axis xyz=\"0 0 1\"/>", "<axis xyz=\"1e200 1 0\"/>"), "f.urdf");
  EXPECT_LT((m.jointAxis(JointId(0)) - Vector3d::UnitX()).norm(), 1e-12);
}

TEST(FuzzReaders, RegressionsTargetCsv) {
  // Times -1e308 and 1e308 differ by more than the largest double: with positions -1e308 and
  // 1e308, computeVelocities divided inf by inf, a NaN velocity on a valid sample.
  const std::string text = "time,A.px,A.py,A.pz\n-1e308,-1e308,0,0\n1e308,1e308,0,0\n";
  EXPECT_EQ(parseErrorLine([&] { parseTargetCsv(text, "f.csv"); }), 3);
  // A finite span still parses; the velocity overflows to inf, never NaN.
  const PoseTargets t = parseTargetCsv(edited(text, "-1e308,-1e308", "0,-1e308"), "f.csv");
  EXPECT_NO_THROW(checkClip(t.clip, true));
  EXPECT_EQ(t.clip.linear_velocity[0].x(), std::numeric_limits<double>::infinity());
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
