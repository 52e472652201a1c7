// The dynamics filter job (app::runDynamicsFilter) as a library call: its options checked before
// any file is read (InvalidArgument naming the flag), bad files as ParseError naming the file,
// the input's preparation (soles, the slope's refusal of a motion that does not travel), and a
// run on a small joint CSV: the tables of the result (the filtered motion and torques in the
// input's layout, the per-frame report) agree with the filter's frames and with the files the job
// writes, only the files asked for are written, a gap row is held, progress reaches every frame.
// The CLI's end-to-end cases (gait2354 with plates, the Bandai BVH walks) stay in
// tests/cli/dynamics_filter_test.cpp.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "kinetrack/app/dynamics_filter_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/filter_fixtures.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;

// A scratch directory of this test, removed at its end.
struct Scratch {
  fs::path dir;
  Scratch() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() /
          (std::string("kinetrack_filter_job_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  [[nodiscard]] std::string file(const std::string& name) const { return (dir / name).string(); }
};

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// human66 standing on its soles and swaying (0.05 rad), n frames at 100 Hz, as a joint CSV; the
// row `gap_row` (if >= 0) marked as a gap.
std::string writeSwayingMotion(const std::string& path, int n, int gap_row = -1) {
  const Model m = makeHuman66();
  const std::vector<ContactBody> feet = footContacts(m);
  const std::vector<Configuration> q = testing::swaying(m, testing::standing(m, feet), n, 0.01, 0.05, 7);
  io::JointCsvWriter w(m, path);
  for (int k = 0; k < n; ++k) w.write(0.01 * k, q[static_cast<std::size_t>(k)], k == gap_row);
  w.commit();
  return path;
}

// `edit`ed options on a missing input: the job must refuse them before reading any file.
std::string refusal(const std::function<void(app::FilterJobOptions&)>& edit) {
  app::FilterJobOptions o;
  o.model.model = "human66";
  o.input = "/nonexistent/motion.csv";
  edit(o);
  try {
    app::runDynamicsFilter(o);
  } catch (const InvalidArgument& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not InvalidArgument: ") + e.what();
  }
  return "no exception";
}

TEST(DynamicsFilterJob, OptionsAreCheckedBeforeAnyFileIsRead) {
  using O = app::FilterJobOptions;
  const struct {
    std::function<void(O&)> edit;
    std::string flag;
  } cases[] = {
      {[](O& o) { o.slope_deg = 80.0; }, "--slope-deg"},
      {[](O& o) { o.slope_deg = std::nan(""); }, "--slope-deg"},
      {[](O& o) { o.friction = 0.0; }, "--friction"},
      {[](O& o) { o.force_tracking = 1.0; }, "--force-tracking needs --grf"},
      {[](O& o) { o.adjust_com = "torso"; }, "--adjust-com needs --grf"},
      {[](O& o) { o.grf = "plates.xml", o.force_tracking = 1.0; }, "--grf-mode contacts"},
      // The CLI checks these while parsing (CLI11); Python and batch reach the job directly.
      {[](O& o) { o.grf_mode = "plates"; }, "--grf-mode: expected one of apply, contacts, got 'plates'"},
      {[](O& o) { o.weighting = "mass"; }, "--weighting"},
      {[](O& o) { o.sole = "flat"; }, "--sole: expected one of auto, stance, model"},
      {[](O& o) { o.residual_softness = -1.0; }, "--residual-softness"},
      {[](O& o) { o.input.clear(); }, "--input"},
  };
  for (const auto& c : cases) {
    const std::string message = refusal(c.edit);
    EXPECT_NE(message.find(c.flag), std::string::npos) << c.flag << ": " << message;
  }
}

TEST(DynamicsFilterJob, BadFilesThrowParseErrorNamingTheFile) {
  Scratch s;
  app::FilterJobOptions o;
  o.model.model = "human66";
  o.input = s.file("missing.csv");
  o.out = s.file("out.csv");
  try {
    app::runDynamicsFilter(o);
    ADD_FAILURE() << "no exception";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), o.input);
  }
  o.input = s.file("broken.csv");
  std::ofstream(o.input) << "time,base_x\n0,1\n";
  try {
    app::runDynamicsFilter(o);
    ADD_FAILURE() << "no exception";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), o.input);
    EXPECT_EQ(e.line(), 1);  // the header
  }
  EXPECT_FALSE(fs::exists(o.out));
}

TEST(DynamicsFilterJob, TheInputIsPreparedWithItsSoles) {
  Scratch s;
  app::FilterJobOptions o;
  o.model.model = "human66";
  o.input = writeSwayingMotion(s.file("motion.csv"), 60);
  const app::FilterInput stance = app::prepareFilterInput(o);
  EXPECT_EQ(stance.kind, "joint CSV");
  EXPECT_EQ(stance.sole, "stance");  // auto: a built-in human
  EXPECT_EQ(stance.q.size(), 60u);
  EXPECT_EQ(stance.feet.size(), 2u);
  EXPECT_EQ(stance.sole_tilt_deg.size(), 2u);
  EXPECT_TRUE(stance.contact.empty());  // detected by the filter
  o.sole = "model";
  const app::FilterInput model = app::prepareFilterInput(o);
  EXPECT_EQ(model.sole, "model");
  for (const double tilt : model.sole_tilt_deg) EXPECT_NEAR(tilt, 0.0, 1e-3);
  // --start/--end select frames after the low-pass over the whole motion.
  o.time_start = 0.1, o.time_end = 0.3;
  const app::FilterInput range = app::prepareFilterInput(o);
  ASSERT_EQ(range.t.size(), 21u);
  EXPECT_DOUBLE_EQ(range.t.front(), 0.1);
  o.time_start = 5.0, o.time_end = 6.0;
  EXPECT_THROW(app::prepareFilterInput(o), InvalidArgument);
  // A motion standing in place cannot be put on a slope (its walking direction is not defined).
  o.time_start = -std::numeric_limits<double>::infinity(), o.time_end = std::numeric_limits<double>::infinity();
  o.slope_deg = 10.0;
  try {
    app::prepareFilterInput(o);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("does not travel"), std::string::npos) << e.what();
  }
}

TEST(DynamicsFilterJob, AJointCsvRunGivesItsTablesAndWritesTheFilesAsked) {
  Scratch s;
  const int n = 81;
  app::FilterJobOptions o;
  o.model.model = "human66";
  o.input = writeSwayingMotion(s.file("motion.csv"), n, 40);
  o.cutoff = 0.0;
  int last_done = 0, total = 0;
  app::Reporter reporter;
  reporter.progress = [&](int done, int all, std::string_view label) {
    if (label == "filtered frame") last_done = done, total = all;
  };
  // No paths: nothing written, everything in the result.
  const app::FilterJobResult r = app::runDynamicsFilter(o, reporter);
  EXPECT_EQ(std::distance(fs::directory_iterator(s.dir), fs::directory_iterator()), 1);  // the input only
  EXPECT_EQ(last_done, n);
  EXPECT_EQ(total, n);
  const Model& m = *r.input.model;
  ASSERT_EQ(r.motion.frames.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(r.report.frames, n);
  EXPECT_GT(r.report.outcomes.invalid_reference, 0);  // the gap row, held
  EXPECT_LT(r.report.residual_force_rms_after, 1e-3);
  EXPECT_LT(r.report.residual_moment_rms_after, 1e-3);
  EXPECT_DOUBLE_EQ(r.input.options.weight_base, 100.0);  // a floating base with solved contacts

  // The filtered motion in the joint CSV's layout.
  ASSERT_EQ(r.filtered.columns.size(), 7u + static_cast<std::size_t>(m.numJoints()));
  EXPECT_EQ(r.filtered.columns[3], "base_qw");
  EXPECT_EQ(r.filtered.columns[7], m.jointName(JointId(0)));
  ASSERT_EQ(r.filtered.values.rows(), n);
  EXPECT_TRUE(r.filtered.values.allFinite());
  for (int k = 0; k < n; k += 20) {
    const Configuration& q = r.motion.frames[static_cast<std::size_t>(k)].q;
    EXPECT_EQ(Vector3d(r.filtered.values.row(k).head<3>().transpose()), q.base_position);
    EXPECT_EQ(VectorXd(r.filtered.values.row(k).tail(m.numJoints()).transpose()), q.joints);
    EXPECT_GE(r.filtered.values(k, 3), 0.0);  // w >= 0
  }
  // Torques: the floating base's six rows, then the joints; τ of every frame.
  ASSERT_EQ(r.torques.columns.size(), static_cast<std::size_t>(m.nv()));
  EXPECT_EQ(r.torques.columns[0], "base_fx");
  EXPECT_EQ(r.torques.columns[6], m.jointName(JointId(0)));
  for (int k = 0; k < n; k += 20)
    EXPECT_EQ(VectorXd(r.torques.values.row(k).transpose()), r.motion.frames[static_cast<std::size_t>(k)].tau);
  // The per-frame report: 8 columns and 3 per foot, times those of the input.
  ASSERT_EQ(r.frames.columns.size(), 8u + 3u * r.input.feet.size());
  EXPECT_EQ(r.frames.columns.front(), "time");
  ASSERT_EQ(r.frames.values.rows(), n);
  ASSERT_EQ(r.frames.status.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(r.frames.status[40], "invalid_reference");
  for (int k = 0; k < n; ++k) EXPECT_EQ(r.frames.values(k, 0), r.input.t[static_cast<std::size_t>(k)]);

  // The summary as text and JSON.
  const std::string text = app::summaryText(r, o);
  EXPECT_EQ(text.rfind("dynamics filter of " + o.input + " on human66", 0), 0u) << text;
  EXPECT_NE(text.find("joint CSV"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(app::summaryJson(r, o));
  EXPECT_EQ(j["frames"].get<int>(), n);
  EXPECT_EQ(j["sole"].get<std::string>(), "stance");
  EXPECT_GT(j["status"]["invalid_reference"].get<int>(), 0);

  // With paths: the same numbers in the files (one run of the filter is deterministic).
  o.out = s.file("out.csv");
  o.torques = s.file("tau.csv");
  o.summary_json = s.file("s.json");
  o.report_csv = s.file("r.csv");
  const app::FilterJobResult w = app::runDynamicsFilter(o);
  EXPECT_EQ(w.filtered.values, r.filtered.values);
  const io::JointTrajectory back = io::readJointCsv(o.out);
  ASSERT_EQ(back.numFrames(), n);
  EXPECT_EQ(back.joints, Eigen::MatrixXd(r.filtered.values.rightCols(m.numJoints())));  // shortest round-trip numbers
  EXPECT_EQ(back.gap[40], 1);
  EXPECT_EQ(readText(o.report_csv), app::filterReportCsv(w.frames));
  EXPECT_EQ(readText(o.report_csv).rfind("time,status,contacts,force_before,", 0), 0u);
  const nlohmann::json written = nlohmann::json::parse(readText(o.summary_json));
  EXPECT_EQ(written["frames"], j["frames"]);
  EXPECT_EQ(written["residual_force_rms_after_n"], j["residual_force_rms_after_n"]);
  const std::string tau = readText(o.torques);
  EXPECT_EQ(tau.rfind("time,base_fx,", 0), 0u) << tau.substr(0, 40);
  EXPECT_EQ(std::count(tau.begin(), tau.end(), '\n'), n + 1);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
