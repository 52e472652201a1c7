// `kinetrack markers label` end to end: a labelled TRC with --strip-labels gives back its labels
// (one TRC row per input frame, the model's marker names, points unchanged), the report and the
// joint angles; a long CSV of shuffled points with an empty frame and a NaN point; and bad input
// (malformed CSV line, TRC without --strip-labels, markers the model lacks) exiting with 2 and a
// message naming file, line and field.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cli_runner.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

using kinetrack::testing::readFile;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_label_") {}
};

#define GAIT_FILES                                                                     \
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim"); \
  KINETRACK_REQUIRE_SHARED(trc, "data/opensim/gait2354_walk/subject01_walk1.trc")

TEST(CliLabel, StrippedTrcGetsItsLabelsBack) {
  GAIT_FILES;
  ScratchDir dir;
  const std::string out = dir.file("labelled.trc"), mot = dir.file("ik.mot"), rep = dir.file("report.csv"),
                    js = dir.file("s.json");
  const RunResult r = runCli({"markers", "label", "--quiet", "--model", osim, "--input", trc, "--strip-labels", "--out",
                              out, "--ik-out", mot, "--report", rep, "--summary-json", js});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("labelling alone"), std::string::npos) << r.out;
  const kinetrack::io::MarkerTrajectories in = kinetrack::io::readTrc(trc, {.y_up = false});
  const kinetrack::io::MarkerTrajectories got = kinetrack::io::readTrc(out, {.y_up = false});
  ASSERT_EQ(got.numFrames(), in.numFrames());
  EXPECT_EQ(got.numMarkers(), 31);
  for (int i = 0; i < got.numMarkers(); ++i) {
    const int c = static_cast<int>(std::find(in.names.begin(), in.names.end(), got.names[static_cast<std::size_t>(i)]) -
                                   in.names.begin());
    ASSERT_LT(c, in.numMarkers());
    for (int f = 0; f < in.numFrames(); ++f)
      if (in.isValid(f, c)) {
        EXPECT_LT((got.position(f, i) - in.position(f, c)).norm(), 1e-9) << got.names[static_cast<std::size_t>(i)];
      }
  }
  EXPECT_EQ(kinetrack::io::readMot(mot).times.size(), static_cast<std::size_t>(in.numFrames()));
  const nlohmann::json j = nlohmann::json::parse(readFile(js));
  EXPECT_EQ(j["frames"], in.numFrames());
  EXPECT_EQ(j["initialisations"], 1);
  EXPECT_EQ(j["lost_frames"], 0);
  const std::string report = readFile(rep);
  EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), in.numFrames() + 1);
}

TEST(CliLabel, LongCsvWithEmptyFrameAndNanPoint) {
  GAIT_FILES;
  ScratchDir dir;
  const kinetrack::io::MarkerTrajectories t = kinetrack::io::readTrc(trc, {.y_up = false});
  std::mt19937_64 rng(3);
  std::string csv = "frame,time,x,y,z\n";
  for (int f = 0; f < 30; ++f) {
    const double time = t.times[static_cast<std::size_t>(f)];
    if (f == 10) {
      csv += fmt::format("{},{},,,\n", f + 1, time);  // a frame without points
      continue;
    }
    std::vector<int> order;
    for (int c = 0; c < t.numMarkers(); ++c)
      if (t.isValid(f, c)) order.push_back(c);
    std::shuffle(order.begin(), order.end(), rng);
    for (int c : order) {
      const auto& p = t.position(f, c);
      csv += fmt::format("{},{},{},{},{}\n", f + 1, time, 1e3 * p.x(), 1e3 * p.y(), 1e3 * p.z());
    }
    if (f == 5) csv += fmt::format("{},{},nan,0,0\n", f + 1, time);
  }
  const std::string in = dir.write("points.csv", csv), out = dir.file("l.trc"), js = dir.file("s.json");
  const RunResult r = runCli(
      {"markers", "label", "--quiet", "--model", osim, "--input", in, "--out", out, "--summary-json", js, "--markers",
       "R.ASIS,L.ASIS,V.Sacral,R.Thigh.Upper,R.Thigh.Front,R.Thigh.Rear,L.Thigh.Upper,L.Thigh.Front,L.Thigh.Rear,"
       "R.Shank.Upper,R.Shank.Front,R.Shank.Rear,L.Shank.Upper,L.Shank.Front,L.Shank.Rear,R.Heel,R.Midfoot.Sup,"
       "R.Midfoot.Lat,R.Toe.Tip,L.Heel,L.Midfoot.Sup,L.Midfoot.Lat,L.Toe.Tip,Sternum,R.Acromium,L.Acromium"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const kinetrack::io::MarkerTrajectories got = kinetrack::io::readTrc(out, {.y_up = false});
  EXPECT_EQ(got.numFrames(), 30);  // every input frame has a row, the empty one too
  EXPECT_EQ(got.numMarkers(), 26);
  for (int i = 0; i < got.numMarkers(); ++i) EXPECT_FALSE(got.isValid(10, i));
  const nlohmann::json j = nlohmann::json::parse(readFile(js));
  EXPECT_EQ(j["points_dropped_nan"], 1);
  // The empty frame is lost; the first frame may be too (its initialisation fit is checked
  // against LabellerOptions::init_max_rms, and this subset of markers starts on the second).
  EXPECT_GE(j["lost_frames"].get<int>(), 1);
  EXPECT_LE(j["lost_frames"].get<int>(), 2);
}

TEST(CliLabel, BadInputExitsWithTwo) {
  GAIT_FILES;
  ScratchDir dir;
  const std::string out = dir.file("l.trc");
  const std::string bad = dir.write("bad.csv", "frame,time,x,y,z\n1,0,1,2,3\n1,0,1,2,oops\n");
  RunResult r = runCli({"markers", "label", "--model", osim, "--input", bad, "--out", out});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("bad.csv:3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("field 'z'"), std::string::npos) << r.err;
  const std::string back = dir.write("back.csv", "frame,time,x,y,z\n2,0,1,2,3\n1,0.1,1,2,3\n");
  r = runCli({"markers", "label", "--model", osim, "--input", back, "--out", out});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("back.csv:3"), std::string::npos) << r.err;
  r = runCli({"markers", "label", "--model", osim, "--input", trc, "--out", out});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--strip-labels"), std::string::npos) << r.err;
  r = runCli({"markers", "label", "--model", osim, "--input", bad, "--out", out, "--markers", "No.Such,Other"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// human66 is bounded by clinical limits for labelling (its joints are continuous otherwise and the
// IK wanders over equivalent Euler branches: the correct labels of this trial gave a clavicle at
// -194°); --no-joint-limits keeps the continuous joints. Both label the clean trial.
TEST(CliLabel, Human66IsBoundedUnlessAskedNot) {
  KINETRACK_REQUIRE_SHARED(st, "data/c3d/pycgm_Static_trial.c3d");
  KINETRACK_REQUIRE_SHARED(trial, "data/c3d/pycgm_Movement_trial.c3d");
  KINETRACK_REQUIRE_SHARED(vsk, "data/c3d/pycgm_Test.vsk");
  ScratchDir dir;
  double largest[2] = {0.0, 0.0};
  for (int k = 0; k < 2; ++k) {
    const std::string out = dir.file("l.trc"), mot = dir.file("ik.mot"), js = dir.file("s.json");
    std::vector<std::string> args = {"markers",
                                     "label",
                                     "--quiet",
                                     "--model",
                                     "human66",
                                     "--markerset",
                                     "human66_plugin_gait",
                                     "--static",
                                     st,
                                     "--vsk",
                                     vsk,
                                     "--input",
                                     trial,
                                     "--strip-labels",
                                     "--out",
                                     out,
                                     "--ik-out",
                                     mot,
                                     "--summary-json",
                                     js};
    if (k == 1) args.push_back("--no-joint-limits");
    const RunResult r = runCli(args);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    const nlohmann::json j = nlohmann::json::parse(readFile(js));
    EXPECT_EQ(j["initialisations"], 1) << k;
    EXPECT_EQ(j["lost_frames"], 0) << k;
    const kinetrack::io::MotTable t = kinetrack::io::readMot(mot);
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      if (t.columns[c].rfind("j", 0) == 0)
        largest[k] = std::max(largest[k], t.values.col(static_cast<Eigen::Index>(c)).cwiseAbs().maxCoeff());
  }
  EXPECT_LE(largest[0], 195.0 + 1e-6);  // the widest bound: a shoulder's 180° + 15°
  EXPECT_GT(largest[1], 195.0);         // continuous joints past any clinical range
}

// `experiment labelling`'s instruments: --only picks runs by "trial: scenario", --seeds repeats
// them, --events lists every marker-frame labelled wrong or missed (none on clean data); a filter
// matching nothing is a usage error.
TEST(CliLabel, ExperimentOnlySeedsAndEvents) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(c3d, "data/c3d/pycgm_Movement_trial.c3d");
  const std::string data = kinetrack::testing::sharedDir() + "/data";
  ScratchDir dir;
  const std::string out = dir.file("exp");
  RunResult r = runCli({"experiment", "labelling", "--out", out, "--data", data, "--only", "gait2354 walk: clean",
                        "--only", "GAIT2354 WALK: NOISE 1", "--seeds", "2", "--events", "--no-plot", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("over 2 seeds"), std::string::npos) << r.out;
  const std::string table = readFile(out + "/labelling.csv");
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 5) << table;  // header + 2 scenarios × 2 seeds
  EXPECT_NE(table.find("gait2354 walk,noise 1 mm,102,"), std::string::npos) << table;
  const std::string events = readFile(out + "/labelling_events.csv");
  EXPECT_EQ(events.rfind("trial,scenario,seed,frame,time,marker,kind,took,distance_m,state,relabelled,rigid\n", 0), 0u);
  r = runCli({"experiment", "labelling", "--out", out, "--data", data, "--only", "no such run", "--no-plot"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--only"), std::string::npos) << r.err;
}

}  // namespace KINETRACK_UNITY_ID
