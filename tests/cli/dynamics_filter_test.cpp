// End-to-end tests of `kinetrack dynamics filter` (issue 19): the gait2354 walk with its force
// plates through the filter (one output row per input row in OpenSim's layout, the JSON keys the
// issue names, residual after ~0 while before is not, contact forces compared with the plates);
// with the plates applied (the default), an RRA equivalent: the filtered motion played back with
// the plates through our inverse dynamics has less pelvis residual than the IK and changes the
// kinematics by less than a degree, the torso mass-centre offset near RRA's; plates that do not
// cover the motion are refused;
// a joint CSV with a NaN row gives a held frame, never NaN; bad input exits 2 naming the file.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_filter_") {}
};

TEST(CliDynamicsFilter, Gait2354WalkWithForcePlates) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(ik, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  KINETRACK_REQUIRE_SHARED(grf, "data/opensim/gait2354_walk/subject01_walk1_grf.xml");
  ScratchDir dir;
  const std::string out = dir.file("filtered.mot"), tau = dir.file("tau.sto"), json = dir.file("s.json");
  const RunResult r = runCli({"dynamics", "filter", "--quiet", "--model", osim, "--input", ik, "--grf", grf,
                              "--grf-mode", "contacts", "--out", out, "--torques", tau, "--summary-json", json});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::MotTable in = kinetrack::io::readMot(ik), filtered = kinetrack::io::readMot(out);
  EXPECT_EQ(filtered.times.size(), in.times.size());  // one row per input row
  EXPECT_EQ(filtered.columns.size(), 23u);
  EXPECT_TRUE(filtered.values.allFinite());
  EXPECT_TRUE(kinetrack::io::readMot(tau).values.allFinite());
  std::ifstream f(json);
  const nlohmann::json s = nlohmann::json::parse(f);
  for (const char* key : {"frames", "residual_force_rms_before_n", "residual_force_rms_after_n",
                          "residual_moment_rms_before_nm", "residual_moment_rms_after_nm", "joint_change_rms_deg"})
    EXPECT_TRUE(s.contains(key)) << key;
  EXPECT_EQ(s["frames"].get<int>(), static_cast<int>(in.times.size()));
  EXPECT_GT(s["residual_force_rms_before_n"].get<double>(), 1.0);
  EXPECT_LT(s["residual_force_rms_after_n"].get<double>(), 1e-3);
  EXPECT_LT(s["residual_moment_rms_after_nm"].get<double>(), 1e-3);
  EXPECT_LT(s["joint_change_rms_deg"].get<double>(), 10.0);
  ASSERT_TRUE(s.contains("contact_force_vs_plates_rms_n"));
  EXPECT_EQ(s["contact_force_vs_plates_rms_n"].size(), 3u);
  EXPECT_NE(r.out.find("treadmill"), std::string::npos) << r.out;  // the belt was found
}

// RMS over RRA's window 0.75–1.25 s of |pelvis residual force| (N) of an OpenSim ID result.
double pelvisForceRms(const std::string& sto) {
  const kinetrack::io::MotTable t = kinetrack::io::readMot(sto);
  double sum = 0.0;
  int n = 0;
  for (std::size_t k = 0; k < t.times.size(); ++k) {
    if (t.times[k] < 0.75 - 1e-6 || t.times[k] > 1.25 + 1e-6) continue;
    double f2 = 0.0;
    for (const char* c : {"pelvis_tx_force", "pelvis_ty_force", "pelvis_tz_force"}) {
      const auto it = std::find(t.columns.begin(), t.columns.end(), c);
      const double f = t.values(static_cast<Eigen::Index>(k), it - t.columns.begin());
      f2 += f * f;
    }
    sum += f2, ++n;
  }
  return std::sqrt(sum / n);
}

// Mean over the 19 rotational coordinates of the RMS (deg) of filtered − IK over 0.75–1.25 s
// (same time stamps: the filter writes one row per input row).
double kinematicChangeDeg(const kinetrack::io::MotTable& ik, const kinetrack::io::MotTable& f) {
  double total = 0.0;
  int coords = 0;
  for (std::size_t c = 0; c < ik.columns.size(); ++c) {
    const std::string& name = ik.columns[c];
    if (name.rfind("pelvis_t", 0) == 0) continue;
    const auto it = std::find(f.columns.begin(), f.columns.end(), name);
    if (it == f.columns.end()) continue;
    double sum = 0.0;
    int n = 0;
    for (std::size_t k = 0; k < ik.times.size(); ++k) {
      if (ik.times[k] < 0.75 - 1e-6 || ik.times[k] > 1.25 + 1e-6) continue;
      const double d = f.values(static_cast<Eigen::Index>(k), it - f.columns.begin()) -
                       ik.values(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c));
      sum += d * d, ++n;
    }
    total += std::sqrt(sum / n), ++coords;
  }
  EXPECT_EQ(coords, 19);
  return total / coords;
}

// The plates applied (the default with --grf) and the torso mass centre adjusted, as OpenSim RRA
// does. Measured as docs/dynamics_filter.md does (our ID with the plates, 6 Hz low-pass, the same
// mass-centre offset): the residual of the filtered motion 14.1 N vs the IK's 33.1 N (the old
// --grf-mode contacts: 189 N), the kinematic change 0.37° (old: 2.70°; RRA 0.146°).
TEST(CliDynamicsFilter, Gait2354WithThePlatesAppliedIsAnRraEquivalent) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(ik, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  KINETRACK_REQUIRE_SHARED(grf, "data/opensim/gait2354_walk/subject01_walk1_grf.xml");
  ScratchDir dir;
  const std::string out = dir.file("filtered.mot"), json = dir.file("s.json");
  RunResult r = runCli({"dynamics", "filter", "--quiet", "--model", osim, "--input", ik, "--grf", grf, "--adjust-com",
                        "torso", "--out", out, "--summary-json", json});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::ifstream f(json);
  const nlohmann::json s = nlohmann::json::parse(f);
  EXPECT_EQ(s["grf_mode"].get<std::string>(), "apply");
  const std::vector<double> d = s["com_adjustment"]["offset_m"].get<std::vector<double>>();
  const std::string offset = fmt::format("torso:{},{},{}", d[0], d[1], d[2]);
  const std::string id_raw = dir.file("id_raw.sto"), id_filtered = dir.file("id_filtered.sto");
  for (const auto& [motion, result] : {std::pair{ik, id_raw}, std::pair{out, id_filtered}}) {
    r = runCli({"dynamics", "id", "--quiet", "--model", osim, "--com-offset", offset, "--motion", motion, "--loads",
                grf, "--cutoff", "6", "--out", result});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
  }
  const double raw = pelvisForceRms(id_raw), filtered = pelvisForceRms(id_filtered);
  const double change = kinematicChangeDeg(kinetrack::io::readMot(ik), kinetrack::io::readMot(out));
  RecordProperty("pelvis_force_rms_raw_n", fmt::format("{:.2f}", raw));
  RecordProperty("pelvis_force_rms_filtered_n", fmt::format("{:.2f}", filtered));
  RecordProperty("kinematic_change_deg", fmt::format("{:.3f}", change));
  EXPECT_GT(raw, 25.0);
  EXPECT_LT(filtered, 0.6 * raw);
  EXPECT_LT(change, 0.6);
  // Over RRA's own window the offset is RRA's (+4.85, 0, +1.67 cm) within a centimetre.
  r = runCli({"dynamics", "filter", "--quiet", "--model", osim, "--input", ik, "--grf", grf, "--adjust-com", "torso",
              "--start", "0.75", "--end", "1.25", "--out", out, "--summary-json", json});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::ifstream g(json);
  const nlohmann::json w = nlohmann::json::parse(g);
  EXPECT_EQ(w["frames"].get<int>(), 31);
  const std::vector<double> dw = w["com_adjustment"]["offset_m"].get<std::vector<double>>();
  EXPECT_NEAR(dw[0], 0.0485, 0.01);
  EXPECT_NEAR(dw[1], 0.0, 1e-12);
  EXPECT_NEAR(dw[2], 0.0167, 0.01);
}

// Plates that stop before the motion does: a clear error naming the file, nothing written.
TEST(CliDynamicsFilter, PlatesNotCoveringTheMotionAreRefused) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(ik, "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot");
  KINETRACK_REQUIRE_SHARED(grf, "data/opensim/gait2354_walk/subject01_walk1_grf.xml");
  KINETRACK_REQUIRE_SHARED(grf_mot, "data/opensim/gait2354_walk/subject01_walk1_grf.mot");
  ScratchDir dir;
  // The same plates up to 1.0 s only (the motion runs to 1.6 s).
  std::ifstream in(grf_mot);
  std::string line, text;
  bool data = false;
  int rows = 0;
  while (std::getline(in, line)) {
    if (data && !line.empty() && std::stod(line) > 1.0) break;
    if (data) ++rows;
    if (line.rfind("time", 0) == 0) data = true;
    text += line + "\n";
  }
  const auto at = text.find("nRows=");
  text.replace(at, text.find('\n', at) - at, "nRows=" + std::to_string(rows));
  dir.write("subject01_walk1_grf.mot", text);
  std::ifstream x(grf);
  const std::string xml((std::istreambuf_iterator<char>(x)), std::istreambuf_iterator<char>());
  const std::string short_grf = dir.write("short_grf.xml", xml);
  const std::string out = dir.file("f.mot");
  RunResult r =
      runCli({"dynamics", "filter", "--quiet", "--model", osim, "--input", ik, "--grf", short_grf, "--out", out});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("do not cover the motion"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("short_grf.xml"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // --adjust-com without plates, a body the model does not have.
  r = runCli({"dynamics", "filter", "--quiet", "--model", osim, "--input", ik, "--adjust-com", "torso", "--out", out});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--adjust-com needs --grf"), std::string::npos) << r.err;
  r = runCli({"dynamics", "filter", "--quiet", "--model", osim, "--input", ik, "--grf", grf, "--adjust-com", "head",
              "--out", out});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no body 'head'"), std::string::npos) << r.err;
}

// A captured run over ground (Bandai, 30 Hz): not taken for a treadmill (the feet travel), and
// its stance phases are found (the speed of the touching sole points, 0.8 m/s; before: 3 of 68
// frames); the foot slide is reported at the contact points and at the ankles.
TEST(CliDynamicsFilter, ABvhRunOverGroundHasItsStanceContacts) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_run_normal_001.bvh");
  ScratchDir dir;
  const std::string out = dir.file("out.csv"), json = dir.file("s.json");
  const RunResult r = runCli(
      {"dynamics", "filter", "--quiet", "--model", "human66", "--input", bvh, "--out", out, "--summary-json", json});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("not a treadmill"), std::string::npos) << r.out;
  std::ifstream f(json);
  const nlohmann::json s = nlohmann::json::parse(f);
  EXPECT_EQ(s["frames"].get<int>(), 68);
  EXPECT_GE(s["frames_in_contact"].get<int>(), 15);
  for (const char* key : {"foot_slide_mm_per_s", "foot_slide_input_mm_per_s", "foot_slide_origin_mm_per_s",
                          "foot_slide_origin_input_mm_per_s"})
    EXPECT_TRUE(s.contains(key) && std::isfinite(s[key].get<double>())) << key;
  EXPECT_TRUE(kinetrack::io::readJointCsv(out).joints.allFinite());
}

// The Bandai walk (30 Hz, 273 frames) no longer falls behind the capture (issue 19): with the
// soles fitted to its flat stances (its feet are pitched ~17° toe down against human66's zero
// pose, so the model's sole touched with its ball points only) and the base's change weighted 100,
// no frame is reset and the base stays within 0.024 m RMS of the capture (measured); before, 8
// resets and 0.32 m (--sole model --weight-base 1, checked below as the old behaviour).
TEST(CliDynamicsFilter, TheBandaiWalkFollowsItsCapture) {
  KINETRACK_REQUIRE_SHARED(bvh, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  ScratchDir dir;
  const auto run = [&](std::vector<std::string> extra) {
    const std::string out = dir.file("out.csv"), json = dir.file("s.json");
    std::vector<std::string> args{"dynamics", "filter", "--quiet", "--model",        "human66", "--input",
                                  bvh,        "--out",  out,       "--summary-json", json};
    args.insert(args.end(), extra.begin(), extra.end());
    const RunResult r = runCli(args);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    std::ifstream f(json);
    return nlohmann::json::parse(f);
  };
  const nlohmann::json s = run({});
  EXPECT_EQ(s["frames"].get<int>(), 273);
  EXPECT_EQ(s["sole"].get<std::string>(), "stance");
  EXPECT_DOUBLE_EQ(s["weight_base"].get<double>(), 100.0);
  for (const auto& tilt : s["sole_tilt_deg"]) EXPECT_GT(tilt.get<double>(), 10.0);  // 18.1°, 16.9°
  EXPECT_LE(s["status"]["reset"].get<int>(), 1);
  EXPECT_LT(s["base_change_rms_m"].get<double>(), 0.08);
  EXPECT_LT(s["joint_change_rms_deg"].get<double>(), 3.0);
  EXPECT_LT(s["residual_force_rms_after_n"].get<double>(), 1e-3);
  EXPECT_LT(s["residual_moment_rms_after_nm"].get<double>(), 1e-3);
  EXPECT_LT(s["residual_force_rms_before_n"].get<double>(), 30.0);  // 20.6 N (41 N with the model's soles)
  const nlohmann::json old = run({"--sole", "model", "--weight-base", "1"});
  EXPECT_GE(old["status"]["reset"].get<int>(), 5);
  EXPECT_GT(old["base_change_rms_m"].get<double>(), 0.2);
}

TEST(CliDynamicsFilter, ANanRowIsHeldNotPropagated) {
  ScratchDir dir;
  const kinetrack::Model m = kinetrack::makeHuman66();
  const std::string motion = dir.file("motion.csv"), out = dir.file("out.csv"), json = dir.file("s.json");
  {
    kinetrack::io::JointCsvWriter w(m, motion);
    for (int k = 0; k <= 100; ++k) {
      kinetrack::Configuration q(m);
      q.base_position.z() = 0.95;
      for (int j = 0; j < m.numJoints(); ++j) q.joints[j] = 0.05 * std::sin(0.02 * k + 0.3 * j);
      w.write(0.01 * k, q, k == 50);  // a gap row: held by the tracker
    }
    w.commit();
  }
  const RunResult r = runCli({"dynamics", "filter", "--quiet", "--model", "human66", "--input", motion, "--out", out,
                              "--summary-json", json, "--cutoff", "0"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::JointTrajectory t = kinetrack::io::readJointCsv(out);
  EXPECT_EQ(t.numFrames(), 101);
  EXPECT_TRUE(t.joints.allFinite());
  std::ifstream f(json);
  const nlohmann::json s = nlohmann::json::parse(f);
  EXPECT_GT(s["status"]["invalid_reference"].get<int>(), 0);
}

TEST(CliDynamicsFilter, BadInputExitsWithTwo) {
  ScratchDir dir;
  const std::string out = dir.file("out.csv");
  const std::string broken = dir.write("broken.csv", "time,base_x\n0,1\n");
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"dynamics", "filter", "--model", "human66", "--input", dir.file("missing.csv"), "--out", out}, "missing.csv"},
      {{"dynamics", "filter", "--model", "human66", "--input", broken, "--out", out}, "broken.csv"},
      {{"dynamics", "filter", "--model", "human66", "--input", broken, "--out", out, "--slope-deg", "80"},
       "--slope-deg"},
      {{"dynamics", "filter", "--model", "human66", "--input", broken, "--out", out, "--force-tracking", "1"}, "--grf"},
      {{"dynamics", "filter", "--model", "human66", "--input", broken, "--out", out, "--residual-softness", "-1"},
       "--residual-softness"},
      {{"dynamics", "filter", "--model", "human66", "--input", broken, "--out", out, "--grf-mode", "plates"},
       "--grf-mode"},
  };
  for (const auto& c : cases) {
    const RunResult r = runCli(c.args);
    EXPECT_EQ(r.status, 2) << c.message << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
}

}  // namespace KINETRACK_UNITY_ID
