// C3D reader: the Vicon Nexus files of ../shared/data/c3d (model outputs checked against Nexus's
// own CSV export), synthetic files of every processor and data format written in memory by the
// test-only writer (tests/testing/c3d_writer.hpp), and broken files.
#include "kinetrack/io/capture/c3d.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "testing/c3d_writer.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using testing::C3dCpu;
using testing::C3dSpec;

C3dFile parse(const std::string& bytes, const C3dOptions& o = {}) {
  return parseC3d(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), "synthetic.c3d", o);
}

int indexOf(const MarkerTrajectories& m, const std::string& name) {
  const auto it = std::find(m.names.begin(), m.names.end(), name);
  return it == m.names.end() ? -1 : static_cast<int>(it - m.names.begin());
}

int countKind(const C3dFile& f, C3dPointKind k) {
  return static_cast<int>(std::count(f.all_point_kinds.begin(), f.all_point_kinds.end(), k));
}

// The message of the ParseError `f` throws ("" when it throws none); checks file and line 0.
template <class F>
std::string parseError(F&& f, const std::string& file = "synthetic.c3d") {
  try {
    f();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.line(), 0);
    return e.message();
  }
  ADD_FAILURE() << "no ParseError";
  return "";
}

// The 35 Plug-in Gait full-body markers, and the upper-arm and forearm wands of the Ai set.
const std::vector<std::string> kPigMarkers = {"LFHD", "RFHD", "LBHD", "RBHD", "C7",   "T10",  "CLAV", "STRN", "RBAK",
                                              "LSHO", "LELB", "LWRA", "LWRB", "LFIN", "RSHO", "RELB", "RWRA", "RWRB",
                                              "RFIN", "LASI", "RASI", "LPSI", "RPSI", "LTHI", "LKNE", "LTIB", "LANK",
                                              "LHEE", "LTOE", "RTHI", "RKNE", "RTIB", "RANK", "RHEE", "RTOE"};
const std::vector<std::string> kArmMarkers = {"LUPA", "LFRM", "RUPA", "RFRM"};

// ---- the real files ----------------------------------------------------------------------------

void expectPigMarkers(const C3dFile& f) {
  const MarkerTrajectories& m = f.markers;
  EXPECT_EQ(m.numMarkers(), 39);
  for (const auto* set : {&kPigMarkers, &kArmMarkers})
    for (const std::string& name : *set) EXPECT_GE(indexOf(m, name), 0) << name;
  for (const C3dPointKind k : f.marker_kinds) EXPECT_EQ(k, C3dPointKind::Marker);
  // Every labelled marker is present in every frame of both trials.
  for (int f2 = 0; f2 < m.numFrames(); ++f2)
    for (int k = 0; k < m.numMarkers(); ++k) ASSERT_TRUE(m.isValid(f2, k)) << m.names[k] << " frame " << f2;
  // The pelvis is rigid: LASI–RASI stays near PROCESSING:InterAsisDistance (306 mm).
  const int lasi = indexOf(m, "LASI"), rasi = indexOf(m, "RASI");
  double lo = 1, hi = 0;
  for (int k = 0; k < m.numFrames(); ++k) {
    const double d = (m.position(k, lasi) - m.position(k, rasi)).norm();
    lo = std::min(lo, d);
    hi = std::max(hi, d);
  }
  EXPECT_GT(lo, 0.28);
  EXPECT_LT(hi, 0.33);
  EXPECT_LT(hi - lo, 0.01);
}

TEST(C3d, MovementTrial) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d/pycgm_Movement_trial.c3d");
  const C3dFile f = readC3d(path);
  const MarkerTrajectories& m = f.markers;
  EXPECT_EQ(f.processor, "Intel");
  EXPECT_TRUE(f.float_data);
  EXPECT_EQ(f.point_units, "mm");
  EXPECT_FLOAT_EQ(static_cast<float>(f.point_scale), -0.01f);
  EXPECT_EQ(f.angle_units, "deg");
  EXPECT_EQ(f.first_frame, 695);
  EXPECT_EQ(f.last_frame, 1017);
  EXPECT_EQ(m.numFrames(), 323);
  EXPECT_EQ(m.data_rate, 120.0);
  EXPECT_EQ(m.times[0], 0.0);
  EXPECT_DOUBLE_EQ(m.times[322], 322.0 / 120.0);
  EXPECT_EQ(f.analog_channels, 69);
  EXPECT_EQ(f.analog_samples_per_frame, 9);
  EXPECT_EQ(f.analog_rate, 1080.0);
  EXPECT_EQ(f.subjects, std::vector<std::string>{"Test"});
  EXPECT_EQ(f.manufacturer, "Vicon Vicon Nexus");
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  // 239 POINT entries: 39 markers, 19 Plug-in Gait segments × O/A/L/P, 42 unlabelled
  // trajectories (*115–*156) and the model outputs listed in POINT:ANGLES, … MODELED_MARKERS.
  ASSERT_EQ(f.all_point_labels.size(), 239u);
  EXPECT_EQ(f.all_point_labels[0], "LBHD");
  EXPECT_EQ(f.all_point_labels[115], "*115");
  EXPECT_EQ(countKind(f, C3dPointKind::Marker), 39);
  EXPECT_EQ(countKind(f, C3dPointKind::SegmentFrame), 76);
  EXPECT_EQ(countKind(f, C3dPointKind::Unlabeled), 42);
  EXPECT_EQ(countKind(f, C3dPointKind::Angle), 26);
  EXPECT_EQ(countKind(f, C3dPointKind::Force), 20);
  EXPECT_EQ(countKind(f, C3dPointKind::Moment), 18);
  EXPECT_EQ(countKind(f, C3dPointKind::Power), 16);
  EXPECT_EQ(countKind(f, C3dPointKind::ModeledMarker), 2);
  expectPigMarkers(f);
  // LASI of the first frame as stored (float32 mm): 1036.8084716796875, 56.71729278564453,
  // 1696.67919921875.
  const int lasi = indexOf(m, "LASI");
  EXPECT_EQ(m.position(0, lasi), Vector3d(1036.8084716796875, 56.71729278564453, 1696.67919921875) * 1e-3);
  EXPECT_EQ(f.residuals[static_cast<std::size_t>(lasi)], 0.0);
  // The subject walks down steps (force plates at 0, 195, 389 and 584 mm, FORCE_PLATFORM:CORNERS):
  // Z up, the forehead 1.35–1.6 m above the lower heel, the four head markers above all others.
  const int head = indexOf(m, "LFHD"), lhee = indexOf(m, "LHEE"), rhee = indexOf(m, "RHEE");
  for (int k = 0; k < m.numFrames(); ++k) {
    const double h = m.position(k, head).z() - std::min(m.position(k, lhee).z(), m.position(k, rhee).z());
    EXPECT_TRUE(h > 1.35 && h < 1.6) << "frame " << k << ": " << h;
    double lowest_head = 1e9, highest_other = -1e9;
    for (int p = 0; p < m.numMarkers(); ++p) {
      const bool is_head = m.names[p].size() == 4 && m.names[p].substr(2) == "HD";
      (is_head ? lowest_head : highest_other) =
          is_head ? std::min(lowest_head, m.position(k, p).z()) : std::max(highest_other, m.position(k, p).z());
    }
    EXPECT_GT(lowest_head, highest_other + 0.03) << "frame " << k;
  }
  EXPECT_EQ(readC3dMarkers(path).names, m.names);
}

TEST(C3d, StaticTrial) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d/pycgm_Static_trial.c3d");
  const C3dFile f = readC3d(path);
  const MarkerTrajectories& m = f.markers;
  EXPECT_EQ(m.numFrames(), 498);
  EXPECT_EQ(f.first_frame, 1);
  EXPECT_EQ(f.last_frame, 498);
  EXPECT_EQ(m.data_rate, 120.0);
  EXPECT_TRUE(f.warnings.empty());
  ASSERT_EQ(f.all_point_labels.size(), 179u);
  EXPECT_EQ(countKind(f, C3dPointKind::SegmentFrame), 76);
  EXPECT_EQ(countKind(f, C3dPointKind::Unlabeled), 38);
  EXPECT_EQ(countKind(f, C3dPointKind::Angle), 26);
  expectPigMarkers(f);
  // Standing (subject height 1679 mm): forehead markers 1.5–1.7 m above the heels.
  const int head = indexOf(m, "LFHD"), heel = indexOf(m, "LHEE");
  for (int k = 0; k < m.numFrames(); k += 50) {
    const double h = m.position(k, head).z() - m.position(k, heel).z();
    EXPECT_TRUE(h > 1.5 && h < 1.7) << "frame " << k << ": " << h;
  }
}

// One value of the Nexus CSV (printed with 6 significant digits); NaN when the cell is empty.
double csvValue(const std::string& s) { return s.empty() ? std::numeric_limits<double>::quiet_NaN() : std::stod(s); }

// |c3d − csv| within half a unit of the 6th significant digit of csv: the CSV prints the
// value stored in the C3D file.
bool samePrinted(double c3d, double csv) {
  if (csv == 0) return c3d == 0;
  const double unit = std::pow(10.0, std::floor(std::log10(std::abs(csv))) - 5);
  return std::abs(c3d - csv) <= 0.5 * unit * (1 + 1e-9);
}

TEST(C3d, MovementModelOutputsMatchTheNexusCsv) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d/pycgm_Movement_trial.c3d");
  KINETRACK_REQUIRE_SHARED(csv_path, "data/c3d/pycgm_Movement_trial_NexusModelOutputs.csv");
  C3dOptions o;
  o.keep_virtual_points = true;
  const C3dFile f = readC3d(path, o);
  const MarkerTrajectories& m = f.markers;
  EXPECT_EQ(m.numMarkers(), 239 - 42);  // all but the unlabelled trajectories
  // The CSV: "Model Outputs", the rate, names ("Test:LHipAngles" over its columns), components
  // (X Y Z, or RX RY RZ TX TY TZ SX SY SZ for a segment), units, then one row per frame.
  std::ifstream in(csv_path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(std::move(cells));
  }
  ASSERT_EQ(rows.size(), 5u + 323u);
  // Per output name: its first column and component names.
  std::map<std::string, std::pair<std::size_t, std::vector<std::string>>> columns;
  std::string current;
  for (std::size_t c = 2; c < rows[2].size() && c < rows[3].size(); ++c) {
    if (!rows[2][c].empty()) current = rows[2][c], columns[current].first = c;
    if (!current.empty()) columns[current].second.push_back(rows[3][c]);
  }
  EXPECT_EQ(columns.size(), 101u);
  int outputs = 0, segments = 0, values = 0, missing = 0, exact = 0;
  double worst = 0;
  for (const auto& [name, col] : columns) {
    ASSERT_EQ(name.substr(0, 5), "Test:");
    const std::string output = name.substr(5);
    std::size_t first = col.first;
    int point = indexOf(m, output);
    double unit = 1;               // angles, forces, moments, powers: as in the file
    if (col.second.size() == 9) {  // a segment: its origin TX, TY, TZ is the point <segment>O
      ASSERT_EQ(col.second[3], "TX") << name;
      point = indexOf(m, output + "O");
      first += 3;
      ++segments;
    }
    ASSERT_GE(point, 0) << output << " is not a point of the C3D file";
    const C3dPointKind kind = f.marker_kinds[static_cast<std::size_t>(point)];
    if (isPositional(kind)) unit = 1e3;  // metres → the CSV's mm
    ++outputs;
    for (int k = 0; k < 323; ++k) {
      const std::vector<std::string>& row = rows[5 + static_cast<std::size_t>(k)];
      ASSERT_EQ(row[0], std::to_string(695 + k));
      const Vector3d p = m.position(k, point) * unit;
      for (int c = 0; c < 3; ++c) {
        const double v = first + static_cast<std::size_t>(c) < row.size()
                             ? csvValue(row[first + static_cast<std::size_t>(c)])
                             : std::nan("");
        // Missing in the CSV exactly where missing in the C3D file.
        ASSERT_EQ(std::isnan(v), std::isnan(p[c])) << output << " frame " << 695 + k;
        if (std::isnan(v)) {
          ++missing;
          continue;
        }
        ++values;
        exact += samePrinted(p[c], v);
        // Nexus wrote the CSV and the C3D file from separate runs of the model: they differ in
        // the 6th digit now and then (up to 17 units of it for small ankle moments), never by
        // more than 0.001 + 5e-6 |v| (the largest: 0.0052 on a 2253 mm segment origin).
        worst = std::max(worst, std::abs(p[c] - v) / (1e-3 + 5e-6 * std::abs(v)));
      }
    }
  }
  EXPECT_LT(worst, 1.0);
  EXPECT_GT(exact, 0.93 * values);  // 93.8 % print exactly as in the CSV
  // 82 three-component outputs (angles, forces, moments, powers, CentreOfMass,
  // CentreOfMassFloor) and 19 segment origins, every frame.
  EXPECT_EQ(outputs, 101);
  EXPECT_EQ(segments, 19);
  EXPECT_EQ(values + missing, 101 * 3 * 323);
  EXPECT_GT(values, 80000);
}

// ---- synthetic files ---------------------------------------------------------------------------

// Three points over four frames (point 1 missing in frame 2), in file units.
C3dSpec threePoints(C3dCpu cpu, bool float_data) {
  C3dSpec s;
  s.cpu = cpu;
  s.float_data = float_data;
  s.labels = {"LASI", "RASI", "C7"};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int f = 0; f < 4; ++f) {
    // Integer data: multiples of the scale 0.5 in the int16 range (±16383.5).
    std::vector<Vector3d> pts = {Vector3d(1234.5 + f, -20.0, 16383.5), Vector3d(-16384.0, 0.5 * f, 7.0),
                                 Vector3d(100.0, 200.0 + f, 1500.5)};
    if (float_data) pts[2] = Vector3d(1234.567, -0.001 * (f + 1), 98765.4);
    if (f == 2) pts[1] = Vector3d::Constant(nan);
    s.frames.push_back(pts);
  }
  s.analog_channels = 2;
  s.analog_samples = 3;
  return s;
}

// What the reader must return for point p of spec frame f: the stored value (int16 × scale, or the
// float32) × metres per unit, NaN when missing.
Vector3d expected(const C3dSpec& s, int f, int p, double metres) {
  const Vector3d& x = s.frames[static_cast<std::size_t>(f)][static_cast<std::size_t>(p)];
  if (!x.allFinite()) return x;
  Vector3d v;
  for (int c = 0; c < 3; ++c) {
    // volatile: GCC 12.2 at -O3 (SLP vectorizer) drops the double → float → double rounding of
    // this loop's first two lanes.
    volatile float stored = static_cast<float>(x[c]);
    v[c] = s.float_data ? static_cast<double>(stored)
                        : static_cast<double>(std::lround(x[c] / s.scale)) * static_cast<double>(s.scale);
  }
  return v * metres;
}

void expectSamePositions(const C3dFile& f, const C3dSpec& s, double metres, const std::string& what) {
  const MarkerTrajectories& m = f.markers;
  ASSERT_EQ(m.numFrames(), static_cast<int>(s.frames.size())) << what;
  ASSERT_EQ(m.numMarkers(), static_cast<int>(s.labels.size())) << what;
  for (int k = 0; k < m.numFrames(); ++k)
    for (int p = 0; p < m.numMarkers(); ++p) {
      const Vector3d e = expected(s, k, p, metres);
      if (!e.allFinite()) {
        EXPECT_FALSE(m.isValid(k, p)) << what;
        EXPECT_TRUE(std::isnan(f.residuals[static_cast<std::size_t>(k * m.numMarkers() + p)])) << what;
      } else {
        EXPECT_EQ(m.position(k, p), e) << what << " frame " << k << " point " << p;
        // Residual word 0x0305: residual byte 5 × |scale|.
        EXPECT_EQ(f.residuals[static_cast<std::size_t>(k * m.numMarkers() + p)], 5 * 0.5 * metres) << what;
      }
    }
}

TEST(C3d, SyntheticEveryProcessorAndDataFormat) {
  for (const C3dCpu cpu : {C3dCpu::Intel, C3dCpu::Dec, C3dCpu::Mips})
    for (const bool float_data : {false, true}) {
      C3dSpec s = threePoints(cpu, float_data);
      s.first_frame = 7;
      s.last_offset_zero = cpu == C3dCpu::Dec;
      const std::string what = std::string(cpu == C3dCpu::Intel ? "Intel"
                                           : cpu == C3dCpu::Dec ? "DEC"
                                                                : "MIPS") +
                               (float_data ? " float" : " integer");
      const C3dFile f = parse(testing::writeC3d(s));
      EXPECT_EQ(f.processor, cpu == C3dCpu::Intel ? "Intel" : cpu == C3dCpu::Dec ? "DEC" : "MIPS") << what;
      EXPECT_EQ(f.float_data, float_data) << what;
      EXPECT_EQ(f.point_scale, float_data ? -0.5 : 0.5) << what;
      EXPECT_EQ(f.markers.data_rate, 100.0) << what;
      EXPECT_EQ(f.markers.times, (std::vector<double>{0, 0.01, 0.02, 0.03})) << what;
      EXPECT_EQ(f.first_frame, 7) << what;
      EXPECT_EQ(f.last_frame, 10) << what;
      EXPECT_EQ(f.analog_channels, 2) << what;
      EXPECT_EQ(f.analog_samples_per_frame, 3) << what;
      EXPECT_EQ(f.analog_rate, 300.0) << what;
      EXPECT_EQ(f.manufacturer, "kinetrack") << what;
      EXPECT_EQ(f.markers.names, s.labels) << what;
      EXPECT_TRUE(f.warnings.empty()) << what << ": " << f.warnings.front();
      expectSamePositions(f, s, 1e-3, what);
    }
}

TEST(C3d, VaxFloats) {
  // VAX F_floating 1.0 is the longword 0x00004080 (bytes 80 40 00 00); −2.5 is C120 0000.
  EXPECT_EQ(testing::c3dFloat(C3dCpu::Dec, 1.0f), (std::vector<std::uint8_t>{0x80, 0x40, 0, 0}));
  EXPECT_EQ(testing::c3dFloat(C3dCpu::Dec, -2.5f), (std::vector<std::uint8_t>{0x20, 0xc1, 0, 0}));
  C3dSpec s;
  s.cpu = C3dCpu::Dec;
  s.float_data = true;
  s.units = "m";
  s.labels = {"A"};
  s.frames = {{Vector3d(1.0, -2.5, 3.0e4)}, {Vector3d(1e-30, -1e30, 0.1)}};
  const C3dFile f = parse(testing::writeC3d(s));
  EXPECT_EQ(f.markers.position(0, 0), Vector3d(1.0, -2.5, 3.0e4));
  EXPECT_EQ(f.markers.position(1, 0), Vector3d(double(1e-30f), double(-1e30f), double(0.1f)));
}

TEST(C3d, UnitsAndAxes) {
  for (const auto& [units, metres] :
       std::vector<std::pair<std::string, double>>{{"m", 1.0}, {"cm", 1e-2}, {"mm", 1e-3}}) {
    C3dSpec s = threePoints(C3dCpu::Intel, true);
    s.units = units;
    const C3dFile f = parse(testing::writeC3d(s));
    EXPECT_EQ(f.point_units, units);
    expectSamePositions(f, s, metres, units);
  }
  // Y up: (x, y, z) → (z, x, y).
  const C3dSpec s = threePoints(C3dCpu::Mips, false);
  C3dOptions y_up;
  y_up.z_up = false;
  const C3dFile f = parse(testing::writeC3d(s), y_up);
  const Vector3d e = expected(s, 1, 0, 1e-3);
  EXPECT_EQ(f.markers.position(1, 0), Vector3d(e.z(), e.x(), e.y()));
  C3dSpec bad = s;
  bad.units = "furlong";
  EXPECT_NE(parseError([&] { parse(testing::writeC3d(bad)); }).find("POINT:UNITS 'furlong'"), std::string::npos);
}

TEST(C3d, LabelsContinuationPrefixesAndDuplicates) {
  // 300 labels: POINT:LABELS (255) and LABELS2 (45), as Vicon writes them.
  C3dSpec s;
  for (int p = 0; p < 300; ++p) s.labels.push_back(std::string("M").append(std::to_string(p)));
  s.frames.assign(2, std::vector<Vector3d>(300, Vector3d(1, 2, 3)));
  C3dFile f = parse(testing::writeC3d(s));
  EXPECT_EQ(f.markers.names, s.labels);
  EXPECT_EQ(f.markers.position(1, 299), Vector3d(1, 2, 3) * 1e-3);
  // Two labels per parameter (LABELS, LABELS2, LABELS3): a subject prefix, trailing spaces, a
  // repeated name, an empty one.
  s = C3dSpec();
  s.labels_per_parameter = 2;
  s.labels = {"Sub:LASI  ", "RASI", "LASI", "", "Sub:RASI"};
  s.frames.assign(1, std::vector<Vector3d>(5, Vector3d(1, 2, 3)));
  f = parse(testing::writeC3d(s));
  EXPECT_EQ(f.all_point_labels, (std::vector<std::string>{"Sub:LASI", "RASI", "LASI", "", "Sub:RASI"}));
  EXPECT_EQ(f.markers.names, (std::vector<std::string>{"LASI", "RASI", "Point3", "Point4", "Sub:RASI"}));
  ASSERT_EQ(f.warnings.size(), 3u);
  EXPECT_EQ(f.warnings[0], "point 3: label 'LASI' repeats an earlier name: named 'Point3'");
  EXPECT_EQ(f.warnings[1], "point 4: empty label: named 'Point4'");
  // 30 points labelled "A": 29 renamed, 20 warnings and a count.
  C3dSpec same;
  same.labels.assign(30, "A");
  same.frames.assign(1, std::vector<Vector3d>(30, Vector3d(1, 2, 3)));
  f = parse(testing::writeC3d(same));
  EXPECT_EQ(f.markers.names[29], "Point30");
  ASSERT_EQ(f.warnings.size(), 21u);
  EXPECT_EQ(f.warnings.back(), "… and 9 more points renamed");
  // LABELS3 renamed: the fifth point has no label.
  std::string bytes = testing::writeC3d(s);
  const testing::C3dItem l3 = testing::c3dItem(bytes, "POINT", "LABELS3");
  bytes[l3.at + 2 + 6] = 'X';  // LABELX3
  f = parse(bytes);
  EXPECT_EQ(f.markers.names.back(), "Point5");
  EXPECT_EQ(f.all_point_labels.back(), "");
}

TEST(C3d, VirtualPointsAndOptions) {
  C3dSpec s;
  s.labels = {"LASI", "PELO", "Sub:LFEA", "LHipAngles", "CentreOfMass", "*12", "XYZO", "Speed", "RASI"};
  s.point_lists = {{"ANGLES", {"LHipAngles"}}, {"MODELED_MARKERS", {"CentreOfMass"}}, {"SCALARS", {"Speed"}}};
  s.point_lists.push_back({"TYPE_GROUPS", {"ANGLES", "ANGLE", "SCALARS", "SCALAR"}});
  s.frames.assign(2, std::vector<Vector3d>(s.labels.size(), Vector3d(10, 20, 30)));
  const std::string bytes = testing::writeC3d(s);
  C3dFile f = parse(bytes);
  EXPECT_EQ(f.markers.names, (std::vector<std::string>{"LASI", "XYZO", "RASI"}));
  EXPECT_EQ(f.marker_point_index, (std::vector<int>{0, 6, 8}));
  using K = C3dPointKind;
  EXPECT_EQ(f.all_point_kinds, (std::vector<K>{K::Marker, K::SegmentFrame, K::SegmentFrame, K::Angle, K::ModeledMarker,
                                               K::Unlabeled, K::Marker, K::Other, K::Marker}));
  C3dOptions o;
  o.keep_unlabeled = true;
  f = parse(bytes, o);
  EXPECT_EQ(f.markers.names, (std::vector<std::string>{"LASI", "*12", "XYZO", "RASI"}));
  o.keep_virtual_points = true;
  o.z_up = false;
  f = parse(bytes, o);
  ASSERT_EQ(f.markers.names, (std::vector<std::string>{"LASI", "PELO", "LFEA", "LHipAngles", "CentreOfMass", "*12",
                                                       "XYZO", "Speed", "RASI"}));
  // Positions in metres, Y up → Z up; angles and other outputs as stored.
  EXPECT_EQ(f.markers.position(0, 1), Vector3d(30, 10, 20) * 1e-3);
  EXPECT_EQ(f.markers.position(0, 4), Vector3d(30, 10, 20) * 1e-3);
  EXPECT_EQ(f.markers.position(0, 3), Vector3d(10, 20, 30));
  EXPECT_EQ(f.markers.position(0, 7), Vector3d(10, 20, 30));
  EXPECT_EQ(f.marker_kinds[3], C3dPointKind::Angle);
}

TEST(C3d, FrameCounts) {
  C3dSpec s = threePoints(C3dCpu::Intel, false);
  s.point_frames_as_float = true;
  EXPECT_EQ(parse(testing::writeC3d(s)).markers.numFrames(), 4);
  s.write_point_frames = false;  // the header's first and last frames
  EXPECT_EQ(parse(testing::writeC3d(s)).markers.numFrames(), 4);
  // 70000 frames starting at frame 100000: beyond the 16-bit header words and POINT:FRAMES;
  // TRIAL:ACTUAL_START_FIELD / END_FIELD hold them.
  C3dSpec lng;
  lng.labels = {"A"};
  lng.first_frame = 100000;
  lng.trial_fields = true;
  for (int k = 0; k < 70000; ++k) lng.frames.push_back({Vector3d(k % 1000, 1, 2)});
  const C3dFile f = parse(testing::writeC3d(lng));
  EXPECT_EQ(f.markers.numFrames(), 70000);
  EXPECT_EQ(f.first_frame, 100000);
  EXPECT_EQ(f.last_frame, 169999);
  EXPECT_EQ(f.markers.position(69999, 0), Vector3d(999, 1, 2) * 1e-3);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
}

TEST(C3d, BrokenFiles) {
  const std::string good = testing::writeC3d(threePoints(C3dCpu::Intel, true));
  EXPECT_NE(parseError([] { readC3d("/nonexistent/walk.c3d"); }, "/nonexistent/walk.c3d").find("cannot open file"),
            std::string::npos);
  EXPECT_EQ(parseError([&] { parse(good.substr(0, 100)); }),
            "byte 0: not a C3D file: 100 bytes, less than the 512-byte header block");
  std::string b = good;
  b[1] = 0x51;
  EXPECT_EQ(parseError([&] { parse(b); }), "byte 1: not a C3D file: byte 1 is 81, expected 80 (0x50)");
  b = good;
  b[512 + 3] = 83;
  EXPECT_EQ(parseError([&] { parse(b); }), "byte 515: processor type 83 (expected 84 Intel, 85 DEC or 86 MIPS)");
  // POINT:LABELS claiming 255 × 255 characters.
  b = good;
  const testing::C3dItem labels = testing::c3dItem(b, "POINT", "LABELS");
  b[labels.data_at - 2] = static_cast<char>(255);
  b[labels.data_at - 1] = static_cast<char>(255);
  EXPECT_EQ(parseError([&] { parse(b); }),
            "byte " + std::to_string(labels.at) +
                ": parameter POINT:LABELS: dimensions 255×255 of 1-byte elements run past the parameter section "
                "(ends at byte 1024)");
  // The last frame cut short.
  const std::string cut = good.substr(0, good.size() - 10);
  const std::string message = parseError([&] { parse(cut); });
  EXPECT_NE(message.find("expected 4 frames of 72 bytes (3 points, 6 analog values), the file holds 3 complete frames"),
            std::string::npos)
      << message;
  // A zero rate.
  b = good;
  const testing::C3dItem rate = testing::c3dItem(b, "POINT", "RATE");
  std::fill(b.begin() + static_cast<std::ptrdiff_t>(rate.data_at),
            b.begin() + static_cast<std::ptrdiff_t>(rate.data_at + 4), '\0');
  EXPECT_EQ(parseError([&] { parse(b); }),
            "byte 20: POINT:RATE (or the header's frame rate) is 0, expected a positive number");
}

TEST(C3d, NonFiniteFloatCoordinatesAreMissing) {
  const C3dSpec s = threePoints(C3dCpu::Intel, true);
  std::string b = testing::writeC3d(s);
  const std::size_t data = testing::c3dDataStart(b);
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::size_t frame = (3 * 4 + 2 * 3) * 4;         // 3 points, 2 analog channels × 3 samples
  std::memcpy(&b[data + 4], &nan, 4);                    // frame 0, point 0, y
  std::memcpy(&b[data + frame + 16 + 8], &inf, 4);       // frame 1, point 1, z
  std::memcpy(&b[data + 2 * frame + 32 + 12], &nan, 4);  // frame 2, point 2, residual: missing
  const C3dFile f = parse(b);
  EXPECT_FALSE(f.markers.isValid(0, 0));
  EXPECT_FALSE(f.markers.isValid(1, 1));
  EXPECT_FALSE(f.markers.isValid(2, 2));
  EXPECT_TRUE(f.markers.isValid(0, 1));
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_EQ(f.warnings[0], "2 point samples had NaN or infinite coordinates: read as missing");
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
