// `kinetrack hand track` end to end on the DFKI glove recording: one CSV row per frame, the JSON
// summary's required fields, the FABRIK / LM comparison, calibration on part of the recording with
// the errors on the frames it never saw, and bad input (malformed frame range, a range outside
// the recording, a missing file) exiting with 2 and a message naming the option or the file.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

using kinetrack::testing::readFile;
using kinetrack::testing::runCli;
using kinetrack::testing::RunResult;

struct ScratchDir : kinetrack::testing::ScratchDir {
  ScratchDir() : kinetrack::testing::ScratchDir("kinetrack_hand_") {}
};

int countLines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n' ? 1 : 0;
  return n;
}

TEST(CliHand, TracksTheGloveWithHeldOutFramesAndLm) {
  KINETRACK_REQUIRE_SHARED(tsv, "data/hand/dfki_glove_recording_20210826.tsv");
  ScratchDir dir;
  const std::string csv = dir.file("hand.csv"), js = dir.file("s.json");
  const RunResult r = runCli({"hand", "track", "--quiet", "--input", tsv, "--out", csv, "--summary-json", js,
                              "--compare-lm", "--calibration-frames", "0:3000"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("frames not used for calibration (3000 of 6000)"), std::string::npos) << r.out;
  EXPECT_EQ(countLines(readFile(csv)), 6001);  // header + one row per frame
  const nlohmann::json j = nlohmann::json::parse(readFile(js));
  EXPECT_EQ(j["frames"], 6000);
  EXPECT_EQ(j["gaps"], 0);
  EXPECT_EQ(j["calibration_frames"], nlohmann::json::array({0, 3000}));
  EXPECT_LT(j["constraint_violation_max_rad"].get<double>(), 1e-9);
  // Measured when written: FABRIK tip p95 1.7 mm, middle (held out) 3.6 mm on all frames, 4.5 mm
  // on the unseen half; LM the same within 0.2 mm. Bounds ~1.5×.
  EXPECT_LT(j["tip_error_mm_p95"].get<double>(), 2.5);
  EXPECT_LT(j["middle_error_mm_median"].get<double>(), 5.5);
  EXPECT_EQ(j["unseen"]["frames"], 3000);
  EXPECT_LT(j["unseen"]["middle_error_mm_median"].get<double>(), 7.0);
  EXPECT_LT(j["unseen"]["lm"]["middle_error_mm_median"].get<double>(), 7.0);
  EXPECT_LT(j["lm"]["tip_error_mm_p95"].get<double>(), 2.5);
}

TEST(CliHand, BadInputExitsWithAMessage) {
  KINETRACK_REQUIRE_SHARED(tsv, "data/hand/dfki_glove_recording_20210826.tsv");
  ScratchDir dir;
  const std::string csv = dir.file("hand.csv");
  RunResult r = runCli({"hand", "track", "--quiet", "--input", tsv, "--out", csv, "--calibration-frames", "10:x"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--calibration-frames: 'x' is not a number"), std::string::npos) << r.err;
  r = runCli({"hand", "track", "--quiet", "--input", tsv, "--out", csv, "--calibration-frames", "3000:9000"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("calibration frames [3000, 9000)"), std::string::npos) << r.err;
  r = runCli({"hand", "track", "--quiet", "--input", dir.file("missing.tsv"), "--out", csv});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("missing.tsv"), std::string::npos) << r.err;
}

}  // namespace KINETRACK_UNITY_ID
