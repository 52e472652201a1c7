// C3D analog channels and force platforms: OpenSim's C3DFileAdapter reading of walking2.c3d (its
// own test data: the analog table and the ground reactions at the plate origin and at the centre
// of pressure, at the rows OpenSim's test wrote), the four plate types on synthetic files whose
// channels are made from a known wrench, and broken plates.
#include "kinetrack/io/capture/force_plates.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/model/external_loads.hpp"
#include "testing/c3d_writer.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using testing::C3dCpu;
using testing::C3dExtraParameter;
using testing::C3dSpec;

// ---- OpenSim's std files -----------------------------------------------------------------------

// A whitespace-separated table after "endheader": the column names, then numbers.
struct StdTable {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> rows;
};

StdTable readStd(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && line.rfind("endheader", 0) != 0) {
  }
  StdTable t;
  std::getline(in, line);
  std::istringstream h(line);
  for (std::string w; h >> w;) t.columns.push_back(w);
  while (std::getline(in, line)) {
    std::istringstream r(line);
    std::vector<double> row;
    for (double v; r >> v;) row.push_back(v);
    if (!row.empty()) t.rows.push_back(row);
  }
  return t;
}

C3dFile walking2() {
  const std::string path = testing::sharedFile("data/c3d_forceplates/walking2.c3d");
  return readC3d(path);
}

TEST(C3dAnalog, Walking2ChannelsEqualOpenSimsAnalogTable) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d_forceplates/walking2.c3d");
  KINETRACK_REQUIRE_SHARED(std_path, "data/c3d_forceplates/std_walking2_analog.sto");
  const C3dFile f = readC3d(path);
  EXPECT_EQ(f.analog.rate, 2000.0);
  ASSERT_EQ(f.analog.numChannels(), 12);
  EXPECT_EQ(f.analog.numSamples(), 1249 * 8);
  EXPECT_EQ(f.analog.labels[0], "Fx1");
  EXPECT_EQ(f.analog.units[3], "Nmm");
  const StdTable s = readStd(std_path);
  ASSERT_EQ(s.columns.size(), 13u);
  ASSERT_GE(s.rows.size(), 10u);
  double worst = 0;
  for (const auto& row : s.rows) {
    const int sample = static_cast<int>(std::lround(row[0] * 2000.0));
    ASSERT_LT(sample, f.analog.numSamples());
    for (std::size_t c = 1; c < row.size(); ++c) {
      ASSERT_EQ(f.analog.labels[c - 1], s.columns[c]);
      worst = std::max(
          worst, std::abs(f.analog.value(sample, static_cast<int>(c - 1)) - row[c]) / std::max(1.0, std::abs(row[c])));
    }
  }
  EXPECT_LT(worst, 1e-12) << "largest relative difference to OpenSim's analog table";
}

// Largest |ours − OpenSim's| per quantity (force N, point mm, moment N·mm) at the std rows.
struct Worst {
  double force = 0, point = 0, moment = 0;
};

Worst compareGrf(const GroundReactions& g, const StdTable& s) {
  Worst w;
  EXPECT_EQ(s.columns.size(), 19u);
  for (const auto& row : s.rows) {
    const int sample = static_cast<int>(std::lround(row[0] * g.rate));
    EXPECT_LT(sample, g.samples);
    if (sample >= g.samples) break;
    for (std::size_t p = 0; p < 2; ++p) {
      const PlateReactions& pr = g.plates[p];
      const auto k = static_cast<std::size_t>(sample);
      for (int a = 0; a < 3; ++a) {
        const std::size_t c = 1 + 9 * p + static_cast<std::size_t>(a);
        w.force = std::max(w.force, std::abs(pr.force[k][a] - row[c]));
        w.point = std::max(w.point, std::abs(pr.point[k][a] * 1e3 - row[c + 3]));
        w.moment = std::max(w.moment, std::abs(pr.moment[k][a] * 1e3 - row[c + 6]));
      }
    }
  }
  return w;
}

TEST(C3dForcePlates, Walking2AtTheOriginEqualsOpenSim) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d_forceplates/walking2.c3d");
  KINETRACK_REQUIRE_SHARED(std_path, "data/c3d_forceplates/std_walking2_grfs.sto");
  const C3dFile f = readC3d(path);
  ASSERT_EQ(f.force_plates.size(), 2u);
  EXPECT_EQ(f.force_plates[0].type, 2);
  const GroundReactions g = groundReactions(f);
  ASSERT_EQ(g.plates.size(), 2u);
  EXPECT_EQ(g.samples, 9992);
  const Worst w = compareGrf(g, readStd(std_path));
  // OpenSim's file prints 8 decimals: differences are its rounding.
  EXPECT_LT(w.force, 1e-8) << "N";
  EXPECT_LT(w.point, 1e-8) << "mm";
  EXPECT_LT(w.moment, 1e-8) << "N·mm";
  std::printf("origin: worst force %.3g N, point %.3g mm, moment %.3g N·mm\n", w.force, w.point, w.moment);
  RecordProperty("origin_worst", std::to_string(w.force) + " N, " + std::to_string(w.point) + " mm, " +
                                     std::to_string(w.moment) + " N·mm");
  // The right foot lands on plate 2, then the left on plate 1 (vertical reaction up to ~750 N).
  EXPECT_GT(g.plates[0].peak_vertical, 600);
  EXPECT_GT(g.plates[1].peak_vertical, 600);
  EXPECT_GT(g.plates[0].loaded_samples, 1000);
}

TEST(C3dForcePlates, Walking2AtTheCentreOfPressureEqualsOpenSim) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d_forceplates/walking2.c3d");
  KINETRACK_REQUIRE_SHARED(std_path, "data/c3d_forceplates/std_cop_walking2_grfs.sto");
  GroundReactionOptions o;
  o.location = ForceLocation::CentreOfPressure;
  const GroundReactions g = groundReactions(readC3d(path), o);
  const Worst w = compareGrf(g, readStd(std_path));
  // This file holds fewer digits than its origin twin (its forces differ from that file's by
  // up to 5e-8 N): the differences are its rounding.
  EXPECT_LT(w.force, 1e-7) << "N";
  EXPECT_LT(w.point, 1e-7) << "mm";
  EXPECT_LT(w.moment, 1e-6) << "N·mm";
  std::printf("cop: worst force %.3g N, point %.3g mm, moment %.3g N·mm\n", w.force, w.point, w.moment);
  // The free moment is about the plate normal: no x, y part.
  for (const Vector3d& m : g.plates[0].moment) EXPECT_LT(m.head<2>().norm(), 1e-12);
}

TEST(C3dForcePlates, ThresholdZeroesUnloadedSamples) {
  KINETRACK_REQUIRE_SHARED(path, "data/c3d_forceplates/walking2.c3d");
  GroundReactionOptions o;
  o.location = ForceLocation::CentreOfPressure;
  o.threshold = 40;
  const GroundReactions g = groundReactions(readC3d(path), o);
  const PlateReactions& p = g.plates[0];
  int zero = 0;
  for (std::size_t s = 0; s < p.force.size(); ++s)
    if (p.force[s].isZero()) {
      ++zero;
      EXPECT_TRUE(p.point[s].isApprox(p.centre));
      EXPECT_TRUE(p.moment[s].isZero());
    }
  EXPECT_GT(zero, 5000);  // the plate is unloaded (−14 N offset) most of the trial
  EXPECT_LT(zero, static_cast<int>(p.force.size()) - 1000);
}

// ---- synthetic plates -------------------------------------------------------------------------

C3dExtraParameter intParam(const std::string& name, std::vector<int> dims, const std::vector<int>& v,
                           const std::string& group = "FORCE_PLATFORM") {
  C3dExtraParameter p{group, name, 2, std::move(dims), {}};
  for (const int x : v) {
    const auto b = testing::c3dInt16(C3dCpu::Intel, x);
    p.data.insert(p.data.end(), b.begin(), b.end());
  }
  return p;
}

C3dExtraParameter floatParam(const std::string& name, std::vector<int> dims, const std::vector<double>& v,
                             const std::string& group = "FORCE_PLATFORM") {
  C3dExtraParameter p{group, name, 4, std::move(dims), {}};
  for (const double x : v) {
    const auto b = testing::c3dFloat(C3dCpu::Intel, static_cast<float>(x));
    p.data.insert(p.data.end(), b.begin(), b.end());
  }
  return p;
}

C3dExtraParameter textParam(const std::string& group, const std::string& name, const std::vector<std::string>& v,
                            int width) {
  C3dExtraParameter p{group, name, -1, {width, static_cast<int>(v.size())}, {}};
  for (std::string x : v) {
    x.resize(static_cast<std::size_t>(width), ' ');
    p.data.insert(p.data.end(), x.begin(), x.end());
  }
  return p;
}

// A plate turned like walking2's (plate x = lab −y, plate y = lab −x, plate z down), centre
// (0.8, 0.65, 0) m; per frame a known lab wrench: force, centre of pressure, free moment.
struct KnownWrench {
  Vector3d force, cop;
  double free_moment;
};

const Matrix3d kPlateAxes = (Matrix3d() << 0, -1, 0, -1, 0, 0, 0, 0, -1).finished();
const Vector3d kCentre(0.8, 0.65, 0.0);

std::vector<KnownWrench> knownWrenches(int n) {
  std::vector<KnownWrench> w;
  for (int i = 0; i < n; ++i) {
    const double t = i / static_cast<double>(n);
    w.push_back({Vector3d(30 * std::sin(3 * t), -50 + 20 * t, 600 + 200 * std::sin(2 * t)),
                 kCentre + Vector3d(0.05 * std::cos(4 * t), -0.08 + 0.12 * t, 0.0), 3.0 * std::sin(5 * t)});
  }
  return w;
}

// Channels of plate `type` (float data, N and N·mm or mm) for these wrenches; `origin` as written
// in the file (mm).
std::vector<std::vector<double>> plateChannels(int type, const std::vector<KnownWrench>& w, const Vector3d& origin_mm,
                                               const Eigen::Matrix<double, 6, 6>& cal) {
  std::vector<std::vector<double>> rows;
  const Matrix3d R = kPlateAxes;
  for (const KnownWrench& k : w) {
    const Vector3d F = R.transpose() * k.force;
    const Vector3d cop = R.transpose() * (k.cop - kCentre);  // plate frame, m, z = 0
    const Vector3d T = R.transpose() * Vector3d(0, 0, k.free_moment);
    const Vector3d Mc = cop.cross(F) + T;  // about the surface centre, N·m
    std::vector<double> ch;
    if (type == 1) {
      ch = {F.x(), F.y(), F.z(), cop.x() * 1e3, cop.y() * 1e3, T.z() * 1e3};
    } else if (type == 3) {
      const double a = origin_mm.x() * 1e-3, b = origin_mm.y() * 1e-3, az0 = origin_mm.z() * 1e-3;
      const Vector3d Ms = Mc - Vector3d(0, 0, -az0).cross(F);
      // fz1..fz4 from Fz, Mx = b(f1+f2−f3−f4), My = a(−f1+f2+f3−f4), f1−f2+f3−f4 = 0.
      Eigen::Matrix4d A;
      A << 1, 1, 1, 1, b, b, -b, -b, -a, a, a, -a, 1, -1, 1, -1;
      const Eigen::Vector4d fz = A.colPivHouseholderQr().solve(Eigen::Vector4d(F.z(), Ms.x(), Ms.y(), 0));
      const double d = Ms.z() / b;  // fx34 − fx12 (fy14 = fy23)
      ch = {F.x() / 2 - d / 2, F.x() / 2 + d / 2, F.y() / 2, F.y() / 2, fz[0], fz[1], fz[2], fz[3]};
    } else {
      const Vector3d Mo = Mc - (origin_mm * 1e-3).cross(F);
      Eigen::Matrix<double, 6, 1> wv;
      wv << F, Mo * 1e3;
      if (type == 4) wv = cal.inverse() * wv;
      ch.assign(wv.data(), wv.data() + 6);
    }
    rows.push_back(ch);
  }
  return rows;
}

C3dSpec plateSpec(int type, int frames, const Vector3d& origin_mm, const Eigen::Matrix<double, 6, 6>& cal) {
  C3dSpec s;
  s.float_data = true;
  s.scale = 0.1f;
  s.rate = 100;
  s.labels = {"M1"};
  s.frames.assign(static_cast<std::size_t>(frames), {Vector3d(800, 650, 10)});
  const int nch = type == 3 ? 8 : 6;
  s.analog_channels = nch;
  s.analog_samples = 2;
  s.analog = plateChannels(type, knownWrenches(frames * 2), origin_mm, cal);
  std::vector<std::string> labels, units;
  for (int c = 0; c < nch; ++c) {
    labels.push_back("Ch" + std::to_string(c + 1));
    units.push_back(type == 3 || c < 3 ? "N" : (type == 1 && c < 5 ? "mm" : "Nmm"));
  }
  s.extra.push_back(textParam("ANALOG", "LABELS", labels, 8));
  s.extra.push_back(textParam("ANALOG", "UNITS", units, 4));
  s.extra.push_back(intParam("USED", {}, {1}));
  s.extra.push_back(intParam("TYPE", {1}, {type}));
  std::vector<int> channels;
  for (int c = 1; c <= nch; ++c) channels.push_back(c);
  s.extra.push_back(intParam("CHANNEL", {nch, 1}, channels));
  // Corners in mm, lab frame: corner 1 − corner 2 along plate x (lab −y), corner 1 − corner 4
  // along plate y (lab −x).
  s.extra.push_back(floatParam("CORNERS", {3, 4, 1}, {600, 400, 0, 600, 900, 0, 1000, 900, 0, 1000, 400, 0}));
  s.extra.push_back(floatParam("ORIGIN", {3, 1}, {origin_mm.x(), origin_mm.y(), origin_mm.z()}));
  if (type == 4) {
    std::vector<double> v;
    for (int c = 0; c < 6; ++c)
      for (int r = 0; r < 6; ++r) v.push_back(cal(r, c));
    s.extra.push_back(floatParam("CAL_MATRIX", {6, 6, 1}, v));
  }
  return s;
}

C3dFile parseSpec(const C3dSpec& s) {
  const std::string bytes = testing::writeC3d(s);
  return parseC3d(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), "plates.c3d");
}

Eigen::Matrix<double, 6, 6> someCalibration() {
  Eigen::Matrix<double, 6, 6> cal;
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) cal(r, c) = r == c ? (r < 3 ? 250.0 : 90000.0) : 0.7 * (r - c) + (r < 3 ? 0 : 40 * c);
  return cal;
}

class PlateTypes : public ::testing::TestWithParam<int> {};

TEST_P(PlateTypes, RecoverTheKnownWrenchAtOriginAndCentreOfPressure) {
  const int type = GetParam();
  const Vector3d origin = type == 3 ? Vector3d(210, 160, -45) : Vector3d(1.5, -2.0, 38.0);
  const C3dFile f = parseSpec(plateSpec(type, 25, origin, someCalibration()));
  ASSERT_EQ(f.force_plates.size(), 1u);
  EXPECT_EQ(f.force_plates[0].type, type);
  const std::vector<KnownWrench> w = knownWrenches(50);
  GroundReactionOptions o;
  o.location = ForceLocation::CentreOfPressure;
  const GroundReactions cop = groundReactions(f, o);
  o.location = ForceLocation::Origin;
  const GroundReactions org = groundReactions(f, o);
  ASSERT_EQ(cop.samples, 50);
  const PlateReactions& pc = cop.plates[0];
  const PlateReactions& po = org.plates[0];
  EXPECT_TRUE(pc.centre.isApprox(kCentre, 1e-6));
  EXPECT_TRUE(pc.axes.isApprox(kPlateAxes, 1e-9));
  for (std::size_t s = 0; s < w.size(); ++s) {
    // Float32 channels: ~1e-7 relative.
    EXPECT_LT((pc.force[s] - w[s].force).norm(), 1e-3) << s;
    EXPECT_LT((pc.point[s] - w[s].cop).norm(), 1e-5) << s;
    EXPECT_LT((pc.moment[s] - Vector3d(0, 0, w[s].free_moment)).norm(), 1e-3) << s;
    // At the origin: the same wrench about the centre.
    EXPECT_TRUE(po.point[s].isApprox(kCentre));
    const Vector3d expected = (w[s].cop - kCentre).cross(w[s].force) + Vector3d(0, 0, w[s].free_moment);
    EXPECT_LT((po.moment[s] - expected).norm(), 1e-3) << s;
  }
}

INSTANTIATE_TEST_SUITE_P(C3dForcePlates, PlateTypes, ::testing::Values(1, 2, 3, 4));

TEST(C3dAnalog, OffsetScaleAndGeneralScaleOfIntegerData) {
  C3dSpec s;
  s.labels = {"M1"};
  s.frames.assign(3, {Vector3d(1, 2, 3)});
  s.analog_channels = 2;
  s.analog_samples = 2;
  s.analog = {{110, -20}, {120, -10}, {130, 0}, {140, 10}, {150, 20}, {160, 30}};
  s.extra.push_back(textParam("ANALOG", "LABELS", {"EMG1", "EMG2"}, 4));
  s.extra.push_back(intParam("OFFSET", {2}, {100, -20}, "ANALOG"));
  s.extra.push_back(floatParam("SCALE", {2}, {0.5, 0.25}, "ANALOG"));
  s.extra.push_back(floatParam("GEN_SCALE", {}, {2.0}, "ANALOG"));
  const C3dFile f = parseSpec(s);
  ASSERT_EQ(f.analog.numChannels(), 2);
  ASSERT_EQ(f.analog.numSamples(), 6);
  EXPECT_EQ(f.analog.rate, 200.0);
  for (int k = 0; k < 6; ++k) {
    EXPECT_DOUBLE_EQ(f.analog.value(k, 0), (s.analog[k][0] - 100) * 0.5 * 2.0);
    EXPECT_DOUBLE_EQ(f.analog.value(k, 1), (s.analog[k][1] + 20) * 0.25 * 2.0);
  }
  EXPECT_EQ(f.analog.channel("emg2"), 1);
  EXPECT_EQ(f.analog.channel("EMG3"), -1);
  const AnalogData one = selectChannels(f.analog, {"EMG2"});
  EXPECT_EQ(one.numChannels(), 1);
  EXPECT_DOUBLE_EQ(one.value(5, 0), f.analog.value(5, 1));
  try {
    selectChannels(f.analog, {"GMAX"});
    ADD_FAILURE();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("no analog channel 'GMAX' (channels: EMG1, EMG2)"), std::string::npos)
        << e.what();
  }
}

std::string plateError(const C3dSpec& s) {
  try {
    groundReactions(parseSpec(s));
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "plates.c3d");
    return e.message();
  }
  ADD_FAILURE() << "no error";
  return "";
}

void replaceExtra(C3dSpec& s, const C3dExtraParameter& p) {
  for (C3dExtraParameter& e : s.extra)
    if (e.group == p.group && e.name == p.name) e = p;
}

TEST(C3dForcePlates, BadPlatesAreClearErrors) {
  const Eigen::Matrix<double, 6, 6> cal = someCalibration();
  C3dSpec s = plateSpec(2, 5, Vector3d(0, 0, 40), cal);
  replaceExtra(s, intParam("TYPE", {1}, {6}));
  EXPECT_EQ(plateError(s), "force plate 1: FORCE_PLATFORM:TYPE 6 is not read (types 1–4 are)");

  s = plateSpec(2, 5, Vector3d(0, 0, 40), cal);
  replaceExtra(s, intParam("CHANNEL", {6, 1}, {1, 2, 3, 4, 5, 9}));
  EXPECT_EQ(plateError(s), "force plate 1: FORCE_PLATFORM:CHANNEL names analog channel 9, the file has channels 1–6");

  s = plateSpec(2, 5, Vector3d(0, 0, 40), cal);
  replaceExtra(s, floatParam("CORNERS", {3, 4, 1}, {600, 400, 0, 700, 400, 0, 800, 400, 0, 900, 400, 0}));
  EXPECT_NE(plateError(s).find("do not span a plate"), std::string::npos);

  s = plateSpec(2, 5, Vector3d(0, 0, 40), cal);
  s.analog[3][2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(plateError(s), "force plate 1: channel 3 (Ch3): sample 3 (t = 0.015 s) is NaN or infinite");

  s = plateSpec(4, 5, Vector3d(0, 0, 40), cal);
  s.extra.pop_back();  // no CAL_MATRIX
  EXPECT_EQ(plateError(s), "force plate 1: type 4 needs a 6×6 FORCE_PLATFORM:CAL_MATRIX, the file gives 0×0");

  s = plateSpec(2, 5, Vector3d(0, 0, 40), cal);
  replaceExtra(s, textParam("ANALOG", "UNITS", {"N", "N", "N", "V", "Nmm", "Nmm"}, 4));
  EXPECT_EQ(plateError(s), "force plate 1: channel 4 (Ch4): ANALOG:UNITS 'V' is not a moment unit (Nmm or Nm)");

  // The reader itself stays lenient: markers and analog of such a file are still read.
  EXPECT_EQ(parseSpec(s).markers.numMarkers(), 1);
}

TEST(C3dForcePlates, TableAndExternalLoadsReadBackAsOpenSimFiles) {
  const C3dFile f = parseSpec(plateSpec(2, 10, Vector3d(0, 0, 40), someCalibration()));
  const GroundReactions g = groundReactions(f);
  const MotTable t = groundReactionTable(g);
  ASSERT_EQ(t.columns.size(), 9u);
  EXPECT_EQ(t.columns[0], "1_ground_force_vx");
  EXPECT_EQ(t.columns[5], "1_ground_force_pz");
  EXPECT_EQ(t.columns[8], "1_ground_torque_z");
  const std::string xml = externalLoadsXml({{1, "calcn_r", ""}}, "grf.mot");
  const ExternalLoadsSpec spec = parseExternalLoadsSpec(xml, "grf.xml");
  ASSERT_EQ(spec.forces.size(), 1u);
  EXPECT_EQ(spec.forces[0].name, "plate1");
  EXPECT_EQ(spec.forces[0].applied_to_body, "calcn_r");
  EXPECT_EQ(spec.forces[0].force_identifier, "1_ground_force_v");
  EXPECT_EQ(spec.datafile, "grf.mot");
  const ExternalLoads loads = bindExternalLoads(spec, t, "grf.mot");
  EXPECT_EQ(loads.forces.size(), 1u);
  // Rotation to OpenSim's Y up: the vertical force moves from z to y.
  const Matrix3d to_y_up = (Matrix3d() << 0, 1, 0, 0, 0, 1, 1, 0, 0).finished();
  const GroundReactions r = rotated(g, to_y_up);
  EXPECT_NEAR(r.plates[0].force[0].y(), g.plates[0].force[0].z(), 1e-12);
}

// ---- Motion Analysis .anc ----------------------------------------------------------------------

const char* kAnc =
    "File_Type:\tAnalog R/C ASCII\tGeneration#:\t2\n"
    "Board_Type:\tNI USB-6225\tPolarity:\tBipolar\n"
    "Trial_Name:\tt\tTrial#:\t3\tDuration(Sec.):\t0.001\t#Channels:\t2\n"
    "BitDepth:\t16\tPreciseRate:\t2000.000000\n"
    "\n\n"
    "Name\tF1Z\tSOL\t\n"
    "Rate\t2000\t2000\t\n"
    "Range\t5000\t2500\t\n"
    "0.000000\t100\t-197\t\n"
    "0.000500\t-32768\t32767\t\n";

TEST(AncFile, CountsBecomeVolts) {
  const AnalogData a = parseAnc(kAnc, "emg.anc");
  ASSERT_EQ(a.labels, (std::vector<std::string>{"F1Z", "SOL"}));
  EXPECT_EQ(a.rate, 2000.0);
  ASSERT_EQ(a.numSamples(), 2);
  EXPECT_DOUBLE_EQ(a.value(0, 0), 100 * 5.0 / 32768);
  EXPECT_DOUBLE_EQ(a.value(0, 1), -197 * 2.5 / 32768);
  EXPECT_DOUBLE_EQ(a.value(1, 0), -5.0);  // full scale
  EXPECT_EQ(a.units[1], "V");
  const MotTable t = analogTable(a);
  EXPECT_EQ(t.columns[1], "SOL");
  EXPECT_DOUBLE_EQ(t.times[1], 0.0005);
}

std::string ancError(const std::string& text) {
  try {
    parseAnc(text, "emg.anc");
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), "emg.anc");
    return "line " + std::to_string(e.line()) + ": " + e.message();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(AncFile, BadFilesAreClearErrors) {
  std::string t = kAnc;
  EXPECT_EQ(ancError(t.replace(t.find("-197"), 4, "abc")), "line 10: channel 'SOL': 'abc' is not a number");
  t = kAnc;
  EXPECT_EQ(ancError(t.replace(t.find("\t-197\t"), 6, "\t")), "line 10: expected a time and 2 values, found 2 fields");
  t = kAnc;
  EXPECT_EQ(ancError(t.replace(t.find("0.000500"), 8, "0.000000")), "line 11: time 0.000000 does not increase");
  t = kAnc;
  EXPECT_EQ(ancError(t.replace(t.find("2500"), 4, "-1")),
            "line 9: Range of channel 'SOL': '-1' is not a positive number");
  t = kAnc;
  EXPECT_EQ(
      ancError(t.replace(t.find("Rate\t2000\t2000"), 14, "Rate\t2000\t1000")),
      "line 9: channel 'SOL' is sampled at 1000.000000 Hz, the file at 2000.000000 Hz: channels at other rates are "
      "not read");
  EXPECT_EQ(ancError("just text\n"), "line 0: no 'Name' row: not a Motion Analysis .anc file");
  EXPECT_THROW(readAnc("/nonexistent/emg.anc"), ParseError);
}

TEST(AncFile, TheRajagopalWalksRawEmg) {
  KINETRACK_REQUIRE_SHARED(path, "data/opensim/rajagopal_run_walk/emg_walk_raw.anc");
  const AnalogData a = readAnc(path);
  EXPECT_EQ(a.numChannels(), 28);
  EXPECT_EQ(a.channel("GMED"), 27);
  EXPECT_EQ(a.rate, 2000.0);
  EXPECT_GT(a.numSamples(), 4000);
  for (const double v : a.values) ASSERT_LE(std::abs(v), 5.0 + 1e-12);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
