// `kinetrack gait` end to end on OpenSim's gait2354 subject01 walk: from OpenSim's scaled model
// the chain's inverse dynamics equals OpenSim's ID result (our IK, our ID); from the generic
// model scaled by `kinetrack scale`, the joint angles and moments stay near OpenSim's (its
// reference was made by OpenSim 3.x, docs/scaling.md); bad input → exit 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "kinetrack/app/gait_job.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_gait_") {}
};

constexpr const char* kGait = "data/opensim/gait2354_walk/";

// Per column of `ref` also in `ours`: the RMS difference over ours' rows inside ref's times
// (ref interpolated linearly); sorted.
std::vector<double> columnRms(const kinetrack::io::MotTable& ours, const kinetrack::io::MotTable& ref,
                              bool skip_translations = false) {
  std::vector<double> out;
  for (std::size_t c = 0; c < ours.columns.size(); ++c) {
    const auto it = std::find(ref.columns.begin(), ref.columns.end(), ours.columns[c]);
    if (it == ref.columns.end() || (skip_translations && ours.columns[c].rfind("pelvis_t", 0) == 0)) continue;
    const auto rc = static_cast<Eigen::Index>(it - ref.columns.begin());
    double sum = 0;
    int n = 0;
    for (std::size_t f = 0; f < ours.times.size(); ++f) {
      const double t = ours.times[f];
      if (t < ref.times.front() || t > ref.times.back()) continue;
      const auto k =
          static_cast<std::size_t>(std::upper_bound(ref.times.begin(), ref.times.end(), t) - ref.times.begin());
      const std::size_t hi = std::min(k, ref.times.size() - 1), lo = hi == 0 ? 0 : hi - 1;
      const double w = hi == lo ? 0.0 : (t - ref.times[lo]) / (ref.times[hi] - ref.times[lo]);
      const double r =
          (1 - w) * ref.values(static_cast<Eigen::Index>(lo), rc) + w * ref.values(static_cast<Eigen::Index>(hi), rc);
      const double d = ours.values(static_cast<Eigen::Index>(f), static_cast<Eigen::Index>(c)) - r;
      sum += d * d;
      ++n;
    }
    if (n > 0) out.push_back(std::sqrt(sum / n));
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CliGait, FromOpenSimsScaledModelTheChainsMomentsAreOpenSims) {
  KINETRACK_REQUIRE_SHARED(model, std::string(kGait) + "subject01_simbody.osim");
  const std::string dir = model.substr(0, model.rfind('/') + 1);
  ScratchDir scratch;
  const std::string out = scratch.file("day");
  const RunResult r =
      runCli({"gait", "--quiet", "--model", model, "--trial", dir + "subject01_walk1.trc", "--ik-setup",
              dir + "subject01_Setup_IK.xml", "--loads", dir + "subject01_walk1_grf.xml", "--out", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("73/73 frames feasible"), std::string::npos) << r.out;
  for (const char* f : {"ik.mot", "ik_errors.sto", "id.sto", "muscles/activation.sto"})
    EXPECT_TRUE(fs::exists(fs::path(out) / f)) << f;
  const std::vector<double> rms = columnRms(kinetrack::io::readMot(out + "/id.sto"),
                                            kinetrack::io::readMot(dir + "subject01_walk1_id_REFERENCE.sto"));
  ASSERT_GE(rms.size(), 20u);
  // Measured: median 0.019 N m, worst 0.37 (pelvis_tz_force).
  EXPECT_LT(rms[rms.size() / 2], 0.05);
  EXPECT_LT(rms.back(), 0.6);
}

TEST(CliGait, FromTheGenericModelScaledFirst) {
  KINETRACK_REQUIRE_SHARED(generic, std::string(kGait) + "gait2354_simbody_GENERIC.osim");
  const std::string dir = generic.substr(0, generic.rfind('/') + 1);
  ScratchDir scratch;
  const std::string out = scratch.file("day");
  const RunResult r =
      runCli({"gait", "--quiet", "--model", generic, "--scale-setup", dir + "subject01_Setup_Scale.xml", "--static",
              dir + "subject01_static.trc", "--trial", dir + "subject01_walk1.trc", "--ik-setup",
              dir + "subject01_Setup_IK.xml", "--loads", dir + "subject01_walk1_grf.xml", "--out", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(out + "/scaled.osim"));
  EXPECT_TRUE(fs::exists(out + "/static_pose.mot"));
  const std::vector<double> ik = columnRms(kinetrack::io::readMot(out + "/ik.mot"),
                                           kinetrack::io::readMot(dir + "subject01_walk1_ik_REFERENCE.mot"), true);
  // Measured: median 0.43°, worst 2.9° (knee_angle_l): the placed markers differ from OpenSim
  // 3.x's (docs/scaling.md).
  ASSERT_GE(ik.size(), 15u);
  EXPECT_LT(ik[ik.size() / 2], 1.0);
  EXPECT_LT(ik.back(), 4.0);
  const std::vector<double> id = columnRms(kinetrack::io::readMot(out + "/id.sto"),
                                           kinetrack::io::readMot(dir + "subject01_walk1_id_REFERENCE.sto"));
  // Measured: median 0.91 N m, worst 6.8 (pelvis_ty_force).
  EXPECT_LT(id[id.size() / 2], 2.0);
  EXPECT_LT(id.back(), 10.0);
}

TEST(CliGait, BadInputExitsTwoNamingIt) {
  KINETRACK_REQUIRE_SHARED(model, std::string(kGait) + "subject01_simbody.osim");
  ScratchDir scratch;
  RunResult r = runCli({"gait", "--model", model, "--trial", scratch.file("missing.trc"), "--out", scratch.file("d")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing.trc"), std::string::npos) << r.err;
  r = runCli({"gait", "--model", model, "--trial", "x.trc", "--muscles", "cmc", "--out", scratch.file("d")});
  EXPECT_EQ(r.status, 2);
}

}  // namespace KINETRACK_UNITY_ID

namespace KINETRACK_UNITY_ID {

TEST(GaitEmg, ChannelsFindTheirMusclesByAbbreviation) {
  const std::vector<std::string> rajagopal = {"soleus_r", "gasmed_r", "tibant_r", "semiten_r", "bflh_r",  "vaslat_r",
                                              "vasmed_r", "recfem_r", "glmax1_r", "glmed1_r",  "soleus_l"};
  const std::vector<std::string> gait2354 = {"soleus_r",   "med_gas_r", "tib_ant_r",   "bifemlh_r",
                                             "rect_fem_r", "vas_int_r", "glut_max1_r", "glut_med1_r"};
  using kinetrack::app::emgMuscle;
  EXPECT_EQ(emgMuscle("SOL", rajagopal, "r"), "soleus_r");
  EXPECT_EQ(emgMuscle("SOL", rajagopal, "l"), "soleus_l");
  EXPECT_EQ(emgMuscle("gas", rajagopal, "r"), "gasmed_r");
  EXPECT_EQ(emgMuscle("GMAX", rajagopal, "r"), "glmax1_r");
  EXPECT_EQ(emgMuscle("GAS", gait2354, "r"), "med_gas_r");
  EXPECT_EQ(emgMuscle("VL", gait2354, "r"), "vas_int_r");
  EXPECT_EQ(emgMuscle("MH", gait2354, "r"), "");
  EXPECT_EQ(emgMuscle("XYZ", rajagopal, "r"), "");
}

// The Rajagopal walk: placement only (its setup has no measurements), its raw EMG beside the
// activations; every stage runs and each EMG channel finds its muscle.
TEST(CliGait, TheRajagopalWalkWithItsEmg) {
  KINETRACK_REQUIRE_SHARED(generic, "data/opensim/rajagopal_run_walk/Rajagopal2016_GENERIC.osim");
  const std::string dir = generic.substr(0, generic.rfind('/') + 1);
  ScratchDir scratch;
  const std::string out = scratch.file("walk");
  const RunResult r = runCli({"gait",           "--quiet",
                              "--model",        generic,
                              "--scale-setup",  dir + "scale_setup_walk.xml",
                              "--marker-set",   dir + "markerset_walk_preScale.xml",
                              "--static",       dir + "static_walk_1.trc",
                              "--trial",        dir + "motion_capture_walk.trc",
                              "--ik-setup",     dir + "ik_setup_walk.xml",
                              "--loads",        dir + "grf_walk.xml",
                              "--emg",          dir + "emg_walk_raw.anc",
                              "--emg-channels", "SOL,GAS,TA,MH,BF,VL,VM,RF,GMAX,GMED",
                              "--out",          out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("238/238 frames feasible"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("grf_walk.mot beside it is read"), std::string::npos) << r.err;
  std::ifstream onoff(out + "/emg_onoff.csv");
  std::string all((std::istreambuf_iterator<char>(onoff)), std::istreambuf_iterator<char>());
  for (const char* m : {"SOL,soleus_r,", "GAS,gasmed_r,", "TA,tibant_r,", "GMED,glmed1_r,"})
    EXPECT_NE(all.find(m), std::string::npos) << m;
  EXPECT_TRUE(fs::exists(out + "/stages.csv"));
}

}  // namespace KINETRACK_UNITY_ID

namespace KINETRACK_UNITY_ID {

// `kinetrack batch` runs the day per trial: OUTDIR/<stem>/ holds the trial's files.
TEST(CliGait, BatchRunsTheDayPerTrial) {
  KINETRACK_REQUIRE_SHARED(model, std::string(kGait) + "subject01_simbody.osim");
  const std::string dir = model.substr(0, model.rfind('/') + 1);
  ScratchDir scratch;
  const std::string manifest = scratch.file("trials.csv");
  {
    std::ofstream m(manifest);
    m << "input,command,model,args\n"
      << dir << "subject01_walk1.trc,gait," << model << ",--ik-setup " << dir << "subject01_Setup_IK.xml --loads "
      << dir << "subject01_walk1_grf.xml\n";
  }
  const std::string out = scratch.file("batch");
  const RunResult r = runCli({"batch", "--manifest", manifest, "--out", out});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("1 ok, 0 failed"), std::string::npos) << r.out;
  for (const char* f : {"ik.mot", "id.sto", "muscles/activation.sto", "stages.csv"})
    EXPECT_TRUE(fs::exists(fs::path(out) / "subject01_walk1" / f)) << f;
}

}  // namespace KINETRACK_UNITY_ID
