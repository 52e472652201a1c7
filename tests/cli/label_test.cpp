// `kinetrack markers label` end to end: a labelled TRC with --strip-labels gives back its labels
// (one TRC row per input frame, the model's marker names, points unchanged), the report and the
// joint angles; a long CSV of shuffled points with an empty frame and a NaN point; the labels'
// confidence (--confidence, the report's and the summary's unsure and swap figures, --drop-unsure);
// and bad input (malformed CSV line, TRC without --strip-labels, markers the model lacks) exiting
// with 2 and a message naming file, line and field. `experiment labelling`: --only, --seeds,
// --events, the held-out trial and the per-marker CSV.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cli_runner.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/markers/labeller.hpp"
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

namespace {

// Splits a CSV line (no quoting).
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line)
    if (c == ',')
      out.emplace_back();
    else
      out.back().push_back(c);
  return out;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t a = 0;
  for (std::size_t b; (b = text.find('\n', a)) != std::string::npos; a = b + 1) out.push_back(text.substr(a, b - a));
  return out;
}

}  // namespace

// --confidence writes every label's confidence (empty for a gap, as the labelled TRC); the report
// ends with swaps_corrected, unsure, min_confidence; the summary prints and the JSON holds the
// unsure frames and the swaps corrected.
TEST(CliLabel, ConfidenceFileReportColumnsAndSummary) {
  GAIT_FILES;
  ScratchDir dir;
  const std::string out = dir.file("l.trc"), rep = dir.file("r.csv"), conf = dir.file("c.csv"), js = dir.file("s.json");
  const RunResult r = runCli({"markers", "label", "--quiet", "--model", osim, "--input", trc, "--strip-labels", "--out",
                              out, "--report", rep, "--confidence", conf, "--summary-json", js});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("unsure frames"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("swaps corrected"), std::string::npos) << r.out;
  const kinetrack::io::MarkerTrajectories got = kinetrack::io::readTrc(out, {.y_up = false});
  const std::vector<std::string> c = lines(readFile(conf));
  ASSERT_EQ(c.size(), static_cast<std::size_t>(got.numFrames()) + 1);
  std::vector<std::string> header = {"frame", "time"};
  header.insert(header.end(), got.names.begin(), got.names.end());
  EXPECT_EQ(fields(c[0]), header);
  long below = 0;
  for (int f = 0; f < got.numFrames(); ++f) {
    const std::vector<std::string> row = fields(c[static_cast<std::size_t>(f) + 1]);
    ASSERT_EQ(row.size(), header.size()) << f;
    for (int i = 0; i < got.numMarkers(); ++i) {
      const std::string& v = row[static_cast<std::size_t>(i) + 2];
      EXPECT_EQ(v.empty(), !got.isValid(f, i)) << f << " " << got.names[static_cast<std::size_t>(i)];
      if (v.empty()) continue;
      const double x = std::stod(v);
      EXPECT_GE(x, 0.0);
      EXPECT_LE(x, 1.0);
      below += x < 0.5;
    }
  }
  const std::vector<std::string> report = lines(readFile(rep));
  const std::vector<std::string> rh = fields(report[0]);
  ASSERT_GE(rh.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(rh.end() - 3, rh.end()),
            (std::vector<std::string>{"swaps_corrected", "unsure", "min_confidence"}));
  long unsure = 0;
  for (std::size_t k = 1; k < report.size(); ++k) unsure += std::stol(fields(report[k])[rh.size() - 2]);
  const nlohmann::json j = nlohmann::json::parse(readFile(js));
  EXPECT_EQ(j["unsure_labels"].get<long>(), unsure);
  EXPECT_EQ(j["unsure_labels"].get<long>(), below);  // the report's count is the file's labels below 0.5
  EXPECT_LE(j["unsure_frames"].get<long>(), unsure);
  EXPECT_GE(j["swaps_corrected"].get<long>(), 0);
  EXPECT_FALSE(j["drop_unsure"].get<bool>());
}

// --drop-unsure leaves the unsure labels out: the same track (the pose is solved with them), so
// the labels kept are the others, and none below the threshold is written. The input is the walk's
// first second with 2 mm noise and a ghost within 4 mm of a marker every frame, so that some labels
// are unsure.
TEST(CliLabel, DropUnsureLeavesTheUnsureLabelsOut) {
  GAIT_FILES;
  ScratchDir dir;
  const kinetrack::io::MarkerTrajectories t = kinetrack::io::readTrc(trc, {.y_up = false});
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::string csv = "frame,time,x,y,z\n";
  for (int f = 0; f < 60; ++f) {
    const double time = t.times[static_cast<std::size_t>(f)];
    std::vector<kinetrack::Vector3d> pts;
    for (int c = 0; c < t.numMarkers(); ++c)
      if (t.isValid(f, c)) pts.push_back(t.position(f, c) + 0.002 * kinetrack::Vector3d(u(rng), u(rng), u(rng)));
    const kinetrack::Vector3d near = pts[static_cast<std::size_t>(f) % pts.size()];
    pts.push_back(near + 0.004 * kinetrack::Vector3d(u(rng), u(rng), u(rng)).normalized());
    std::shuffle(pts.begin(), pts.end(), rng);
    for (const auto& p : pts)
      csv += fmt::format("{},{},{},{},{}\n", f + 1, time, 1e3 * p.x(), 1e3 * p.y(), 1e3 * p.z());
  }
  const std::string in = dir.write("points.csv", csv);
  nlohmann::json js[2];
  std::vector<std::string> conf[2];
  for (int k = 0; k < 2; ++k) {
    const std::string out = dir.file(fmt::format("l{}.trc", k)), c = dir.file(fmt::format("c{}.csv", k)),
                      s = dir.file(fmt::format("s{}.json", k));
    std::vector<std::string> args = {"markers", "label", "--quiet", "--model",      osim, "--input",
                                     in,        "--out", out,       "--confidence", c,    "--summary-json",
                                     s};
    if (k == 1) args.push_back("--drop-unsure");
    const RunResult r = runCli(args);
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    js[k] = nlohmann::json::parse(readFile(s));
    conf[k] = lines(readFile(c));
  }
  EXPECT_TRUE(js[1]["drop_unsure"].get<bool>());
  EXPECT_GT(js[0]["unsure_labels"].get<long>(), 0) << "no unsure label: the test input no longer tests the flag";
  EXPECT_EQ(js[1]["unsure_labels"], js[0]["unsure_labels"]);  // the same track …
  EXPECT_EQ(js[1]["gaps"].get<long>(),
            js[0]["gaps"].get<long>() + js[0]["unsure_labels"].get<long>());  // … fewer labels
  ASSERT_EQ(conf[0].size(), conf[1].size());
  for (std::size_t f = 1; f < conf[0].size(); ++f) {
    const std::vector<std::string> a = fields(conf[0][f]), b = fields(conf[1][f]);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 2; i < a.size(); ++i) {
      if (!a[i].empty() && std::stod(a[i]) < kinetrack::markers::LabellerOptions{}.unsure_threshold)
        EXPECT_TRUE(b[i].empty()) << f << " " << i;  // dropped
      else
        EXPECT_EQ(a[i], b[i]) << f << " " << i;  // kept as it was
    }
  }
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

// `experiment labelling`'s held-out trial and per-marker CSV: the Rajagopal walk is held out (its
// own section of the table and of the goals, held_out 1 in both CSVs); labelling_markers.csv has one
// row per run and marker, whose counts add up to the run's; the per-marker table of the target
// scenario and the goals per trial are printed.
TEST(CliLabel, ExperimentHeldOutTrialAndPerMarkerCsv) {
  KINETRACK_REQUIRE_SHARED(osim, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(c3d, "data/c3d/pycgm_Movement_trial.c3d");
  KINETRACK_REQUIRE_SHARED(walk, "data/opensim/rajagopal_run_walk/motion_capture_walk.trc");
  const std::string data = kinetrack::testing::sharedDir() + "/data";
  ScratchDir dir;
  const std::string out = dir.file("exp");
  const RunResult r = runCli({"experiment", "labelling", "--out", out, "--data", data, "--only",
                              "rajagopal walk: clean", "--only", "gait2354 walk: 2 mm +", "--no-plot", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::vector<std::string> table = lines(readFile(out + "/labelling.csv"));
  ASSERT_EQ(table.size(), 3u);  // header + 2 runs
  const std::vector<std::string> th = fields(table[0]);
  EXPECT_EQ(th[3], "held_out");
  for (const char* col : {"unsure_frames", "swaps_corrected", "wrong_labels", "wrong_flagged", "wrong_silent"})
    EXPECT_NE(std::find(th.begin(), th.end(), col), th.end()) << col;
  EXPECT_EQ(table[1].rfind("gait2354 walk,2 mm + 5% + 3 ghosts,12,0,", 0), 0u) << table[1];
  EXPECT_EQ(table[2].rfind("Rajagopal walk,clean,1,1,", 0), 0u) << table[2];
  const auto col = [&](const std::vector<std::string>& row, const char* name) {
    return std::stol(row[static_cast<std::size_t>(std::find(th.begin(), th.end(), name) - th.begin())]);
  };
  for (std::size_t k = 1; k < table.size(); ++k) {
    const std::vector<std::string> row = fields(table[k]);
    EXPECT_EQ(col(row, "wrong_flagged") + col(row, "wrong_silent"), col(row, "wrong_labels")) << table[k];
    EXPECT_GE(col(row, "wrong_labels"), col(row, "wrong")) << table[k];
  }

  const std::vector<std::string> markers = lines(readFile(out + "/labelling_markers.csv"));
  ASSERT_GT(markers.size(), 1u);
  EXPECT_EQ(
      markers[0],
      "trial,scenario,seed,held_out,marker,present,correct,wrong,missed,accuracy,confidence_right,confidence_wrong");
  long rows_gait = 0, present = 0, correct = 0, wrong = 0, missed = 0;
  for (std::size_t k = 1; k < markers.size(); ++k) {
    const std::vector<std::string> m = fields(markers[k]);
    ASSERT_EQ(m.size(), 12u) << markers[k];
    EXPECT_EQ(m[3], m[0] == "Rajagopal walk" ? "1" : "0") << markers[k];
    if (m[0] != "gait2354 walk") continue;
    ++rows_gait;
    present += std::stol(m[5]), correct += std::stol(m[6]), wrong += std::stol(m[7]), missed += std::stol(m[8]);
  }
  EXPECT_EQ(rows_gait, 31);  // the walk's markers
  const std::vector<std::string> gait = fields(table[1]);
  EXPECT_EQ(present, col(gait, "present"));
  EXPECT_EQ(correct, col(gait, "correct"));
  EXPECT_EQ(wrong, col(gait, "wrong"));
  EXPECT_EQ(missed, col(gait, "missed"));

  // The table's held-out section comes after the tuned trials; the goals name every trial.
  const std::size_t top = r.out.find("\ntrial ");  // the table's header (the trials are noted before it)
  ASSERT_NE(top, std::string::npos) << r.out;
  const std::size_t held = r.out.find("held out (not tuned on)", top), gait_row = r.out.find("gait2354 walk  ", top),
                    walk_row = r.out.find("Rajagopal walk  ", top);
  ASSERT_NE(held, std::string::npos) << r.out;
  EXPECT_LT(gait_row, held) << r.out;
  EXPECT_LT(held, walk_row) << r.out;
  EXPECT_NE(r.out.find("per marker at 2 mm + 5% + 3 ghosts"), std::string::npos) << r.out;
  const std::size_t goals = r.out.find("goals:");
  ASSERT_NE(goals, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("clean not run; 2 mm + 5% + 3 ghosts", goals), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("held out (not tuned on)", goals), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Rajagopal walk", goals), std::string::npos) << r.out;
}

}  // namespace KINETRACK_UNITY_ID
