// Qualisys QTM TSV reader (io/qtm_tsv.hpp) on the shared glove recording (21 markers, 100 Hz,
// 6000 frames, CRLF, "nan" gaps) and on small synthetic files: header keys, gaps (empty, nan,
// zero triples), errors naming line and column, and a fuzz run with the shared mutation machinery.
#include "kinetrack/io/capture/qtm_tsv.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "testing/mutations.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using namespace kinetrack::testing;

const char* kSmall =
    "NO_OF_FRAMES\t3\r\nNO_OF_CAMERAS\t7\r\nNO_OF_MARKERS\t2\r\nFREQUENCY\t100\r\nNO_OF_ANALOG\t0\r\n"
    "DESCRIPTION\t--\r\nTIME_STAMP\t2021-08-26, 15:19:24.317\t1483034.68\r\nDATA_INCLUDED\t3D\r\n"
    "MARKER_NAMES\ta\tb\r\nTRAJECTORY_TYPES\tMeasured\tMixed\r\n"
    "Frame\tTime\ta X\ta Y\ta Z\tb X\tb Y\tb Z\r\n"
    "1\t0.00000\t1000.0\t2000.0\t3000.0\t1.0\t2.0\t3.0\r\n"
    "2\t0.01000\tnan\tnan\tnan\t1.5\t2.5\t3.5\r\n"
    "3\t0.02000\t0.000\t0.000\t0.000\t\t\t\r\n";

std::string edited(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

int errorLine(const std::string& text) {
  try {
    (void)parseQtmTsv(text, "t.tsv");
  } catch (const ParseError& e) {
    return e.line();
  }
  return -1;
}

TEST(QtmTsv, SmallFileWithEveryKindOfGap) {
  const QtmTsv q = parseQtmTsv(kSmall, "t.tsv");
  EXPECT_EQ(q.markers.numFrames(), 3);
  EXPECT_EQ(q.markers.names, (std::vector<std::string>{"a", "b"}));
  EXPECT_DOUBLE_EQ(q.frequency, 100.0);
  EXPECT_DOUBLE_EQ(q.markers.data_rate, 100.0);
  EXPECT_EQ(q.cameras, 7);
  EXPECT_EQ(q.time_stamp, "2021-08-26, 15:19:24.317");
  EXPECT_EQ(q.trajectory_types, (std::vector<std::string>{"Measured", "Mixed"}));
  EXPECT_EQ(q.markers.position(0, 0), Vector3d(1.0, 2.0, 3.0));  // mm → m
  EXPECT_TRUE(q.markers.isValid(0, 1));
  EXPECT_FALSE(q.markers.isValid(1, 0));  // nan triple
  EXPECT_FALSE(q.markers.isValid(2, 0));  // zero triple (QTM's gap)
  EXPECT_FALSE(q.markers.isValid(2, 1));  // empty fields
  EXPECT_EQ(q.missing_samples, 3);
  EXPECT_DOUBLE_EQ(q.markers.times[2], 0.02);
}

TEST(QtmTsv, ErrorsNameLineAndColumn) {
  EXPECT_EQ(errorLine(edited(kSmall, "1.5\t2.5", "1.5\tx")), 13);
  try {
    (void)parseQtmTsv(edited(kSmall, "1.5\t2.5", "1.5\tx"), "t.tsv");
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("b Y"), std::string::npos) << e.what();
  }
  EXPECT_EQ(errorLine(edited(kSmall, "nan\tnan\tnan", "nan\t1\tnan")), 13);  // partly missing
  EXPECT_EQ(errorLine(edited(kSmall, "1.5\t2.5", "inf\t2.5")), 13);
  EXPECT_EQ(errorLine(edited(kSmall, "0.01000", "0.00000")), 13);                  // time does not increase
  EXPECT_EQ(errorLine(edited(kSmall, "NO_OF_FRAMES\t3", "NO_OF_FRAMES\t4")), 14);  // truncated
  EXPECT_EQ(errorLine(edited(kSmall, "NO_OF_FRAMES\t3", "NO_OF_FRAMES\t2")), 14);  // too many rows
  EXPECT_EQ(errorLine(edited(kSmall, "NO_OF_MARKERS\t2", "NO_OF_MARKERS\t3")), 12);
  EXPECT_EQ(errorLine(edited(kSmall, "FREQUENCY\t100", "FREQUENCY\t-1")), 4);
  EXPECT_EQ(errorLine(edited(kSmall, "DATA_INCLUDED\t3D", "DATA_INCLUDED\t6D")), 8);
  EXPECT_EQ(errorLine(edited(kSmall, "MARKER_NAMES\ta\tb", "MARKER_NAMES\ta\ta")), 9);
  EXPECT_EQ(errorLine(edited(kSmall, "3000.0\t1.0", "3000.0")), 12);   // field count
  EXPECT_EQ(errorLine(edited(kSmall, "FREQUENCY\t100\r\n", "")), 11);  // header incomplete
  EXPECT_THROW(readQtmTsv("/no/such/file.tsv"), ParseError);
}

TEST(QtmTsv, SharedGloveRecording) {
  KINETRACK_REQUIRE_SHARED(path, "data/hand/dfki_glove_recording_20210826.tsv");
  const QtmTsv q = readQtmTsv(path);
  const MarkerTrajectories& m = q.markers;
  ASSERT_EQ(m.numFrames(), 6000);
  ASSERT_EQ(m.numMarkers(), 21);
  EXPECT_DOUBLE_EQ(q.frequency, 100.0);
  EXPECT_EQ(m.names[0], "hand_top");
  EXPECT_EQ(m.names[3], "thumb_tip");
  EXPECT_NEAR(m.times.back(), 59.99, 1e-9);
  // Gaps ("nan" triples): thumb_tip 493 frames, ring_tip 42, middle_tip 78, nothing else.
  auto gaps = [&](int k) {
    int n = 0;
    for (int f = 0; f < m.numFrames(); ++f) n += m.isValid(f, k) ? 0 : 1;
    return n;
  };
  EXPECT_EQ(gaps(3), 493);
  EXPECT_EQ(gaps(7), 42);
  EXPECT_EQ(gaps(10), 78);
  EXPECT_EQ(q.missing_samples, 493 + 42 + 78);
  // The back-of-hand triad is rigid: its three distances vary by well under a millimetre.
  for (auto [a, b] : {std::pair{0, 1}, std::pair{0, 2}, std::pair{1, 2}}) {
    double lo = 1e9, hi = 0.0;
    for (int f = 0; f < m.numFrames(); ++f) {
      if (!m.isValid(f, a) || !m.isValid(f, b)) continue;
      const double d = (m.position(f, a) - m.position(f, b)).norm();
      lo = std::min(lo, d);
      hi = std::max(hi, d);
    }
    EXPECT_GT(lo, 0.02) << a << "-" << b;
    EXPECT_LT(hi - lo, 2e-3) << a << "-" << b;
  }
}

TEST(QtmTsv, SurvivesMutations) {
  Stats st{"qtm_tsv"};
  const std::vector<Fixture> fixtures = {{"small.tsv", kSmall}};
  auto read = [](const Fixture& fx, const std::string& text) {
    const QtmTsv q = parseQtmTsv(text, fx.name);
    for (const Vector3d& p : q.markers.positions)
      if (!p.allFinite() && !p.array().isNaN().all()) throw Inconsistent{"qtm: partly missing marker accepted"};
  };
  const Vocabulary words = {{"NO_OF_FRAMES", "NO_OF_MARKERS", "FREQUENCY", "MARKER_NAMES", "DATA_INCLUDED"},
                            {"\t", "\r\n", "nan", "0.000", "3D", "-1", "1e308"}};
  fuzz(st, fixtures, {25 * kScale, 400 * kScale, 20000, words}, read);
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
