// End-to-end test of `kinetrack experiment mapping` (issue 18, Eq. 14–15): the CSVs' shape on two
// real walks, the in-sample error falling with the number of singular values while the
// out-of-sample one is smallest below full rank, bad input exits 2 naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_mapping_") {}
};

std::vector<std::vector<std::string>> readCsv(const fs::path& path, std::string& header) {
  std::ifstream in(path);
  std::getline(in, header);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    rows.push_back(f);
  }
  return rows;
}

TEST(MappingCli, TwoWalksGiveTheFig14Shape) {
  KINETRACK_REQUIRE_SHARED(model, "data/opensim/gait2354_walk/subject01_simbody.osim");
  KINETRACK_REQUIRE_SHARED(a, "data/bvh/cmu_iclone/cmu_ic_005_01.bvh");
  KINETRACK_REQUIRE_SHARED(b, "data/bvh/cmu_iclone/cmu_ic_006_01.bvh");
  KINETRACK_REQUIRE_SHARED(c, "data/bvh/cmu_iclone/cmu_ic_007_12.bvh");
  ScratchDir dir;
  const fs::path out = dir.file("m");
  const RunResult r = runCli({"experiment", "mapping", "--model", model, "--train", a, b, "--test", c, "--degree", "1",
                              "--out", out.string(), "--no-plot", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(best test)"), std::string::npos) << r.out;
  std::string header;
  const auto err = readCsv(out / "mapping_error.csv", header);
  EXPECT_EQ(header, "direction,k,singular_value,train_rms_deg,test_rms_deg");
  // Degree 1: 1 + 27 features (human48) one way, 1 + 17 (gait2354) the other.
  int hm = 0, mh = 0;
  double first_train = 0, last_train = 0, best_test = 1e9, full_test = 0;
  for (const auto& f : err) {
    ASSERT_EQ(f.size(), 5u);
    if (f[0] == "human->model") {
      ++hm;
      if (hm == 1) first_train = std::stod(f[3]);
      last_train = std::stod(f[3]);
      best_test = std::min(best_test, std::stod(f[4]));
      full_test = std::stod(f[4]);
    } else {
      EXPECT_EQ(f[0], "model->human");
      ++mh;
    }
  }
  // At most that many singular values: joints that two walks never move make the matrix
  // rank-deficient.
  EXPECT_GE(hm, 20);
  EXPECT_LE(hm, 28);
  EXPECT_GE(mh, 14);
  EXPECT_LE(mh, 18);
  EXPECT_LT(last_train, 0.5 * first_train);
  EXPECT_LE(best_test, full_test);
  EXPECT_LT(best_test, 12.0);
  const auto pairs = readCsv(out / "mapping_pairs.csv", header);
  EXPECT_EQ(header.rfind("clip,role,time,human:", 0), 0u) << header;
  ASSERT_FALSE(pairs.empty());
  EXPECT_EQ(pairs.front().size(), 3u + 27u + 17u);
  const auto clips = readCsv(out / "mapping_clips.csv", header);
  ASSERT_EQ(clips.size(), 3u);
  EXPECT_EQ(clips[2][1], "test");
  EXPECT_TRUE(fs::is_regular_file(out / "mapping_coordinates.csv"));
  EXPECT_TRUE(fs::is_regular_file(out / "mapping_series.csv"));
}

TEST(MappingCli, BadInputExitsTwoNamingTheFile) {
  ScratchDir dir;
  RunResult r = runCli({"experiment", "mapping", "--train", "no_such_clip.bvh", "--test", "other.bvh", "--out",
                        dir.file("m"), "--no-plot", "--quiet"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no_such_clip.bvh"), std::string::npos) << r.err;
  r = runCli({"experiment", "mapping", "--degree", "9", "--out", dir.file("m"), "--no-plot"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--degree"), std::string::npos) << r.err;
  r = runCli({"experiment", "mapping", "--model", "missing.osim", "--out", dir.file("m"), "--no-plot"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing.osim"), std::string::npos) << r.err;
}

}  // namespace KINETRACK_UNITY_ID
