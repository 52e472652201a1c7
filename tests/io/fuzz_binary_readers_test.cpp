// Fuzz-style robustness of the binary readers: C3D (the text readers are in
// fuzz_readers_test.cpp and fuzz_text_readers_test.cpp; the machinery is in
// tests/testing/mutations.hpp). The Vicon Nexus files of ../shared/data/c3d cut to a few frames and
// synthetic files of every processor (tests/testing/c3d_writer.hpp) are truncated, mutated as
// bytes (the text mutations of mutations.hpp) and mutated field by field: header words, the
// parameter section header, every item's name length, group id and offset, every parameter's
// type, dimensions and first value, set to 0, ±1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, NaN,
// ±inf, huge or random values. Each must parse into a self-consistent C3dFile or throw a
// ParseError naming the fixture. Run it under ASan/UBSan too: scripts/test.sh --sanitize, then
// ctest --test-dir build-asan -R Fuzz.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "testing/c3d_writer.hpp"
#include "testing/mutations.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

using namespace kinetrack::testing;

C3dFile parseBytes(const std::string& text, const std::string& source, const C3dOptions& o = {}) {
  return parseC3d(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()), source, o);
}

// ---- fixtures ----------------------------------------------------------------------------------

std::string shrinkTo6(const std::string& file) { return shrinkC3d(file, 6); }

// Synthetic files: DEC integer data with analog channels, labels split two per parameter, model
// outputs and 32-bit TRIAL frame numbers; MIPS float data with subject prefixes and a missing point.
std::vector<Fixture> syntheticFixtures() {
  C3dSpec dec;
  dec.cpu = C3dCpu::Dec;
  dec.labels = {"LASI", "RASI", "PELO", "LHipAngles", "*7", "CentreOfMass"};
  dec.point_lists = {{"ANGLES", {"LHipAngles"}}, {"MODELED_MARKERS", {"CentreOfMass"}}};
  dec.labels_per_parameter = 2;
  dec.analog_channels = 3;
  dec.analog_samples = 2;
  dec.trial_fields = true;
  dec.first_frame = 70000;
  for (int f = 0; f < 5; ++f) dec.frames.push_back(std::vector<Vector3d>(6, Vector3d(100.5 * f, -20, 900)));
  C3dSpec mips;
  mips.cpu = C3dCpu::Mips;
  mips.float_data = true;
  mips.units = "m";
  mips.labels = {"Sub:LASI", "Sub:RASI", "Sub:C7"};
  mips.subjects = {"Sub"};
  for (int f = 0; f < 4; ++f) mips.frames.push_back(std::vector<Vector3d>(3, Vector3d(0.1 * f, 0.2, 1.5)));
  mips.frames[2][1] = Vector3d::Constant(std::nan(""));
  return {{"synthetic_dec.c3d", writeC3d(dec)}, {"synthetic_mips.c3d", writeC3d(mips)}};
}

// ---- binary mutations --------------------------------------------------------------------------

struct Field {
  std::size_t at, size;  ///< size 1, 2 or 4 (a float)
};

// The structural fields of a well-formed file: header words, the parameter section header, each
// item's name length, group id and offset, each parameter's type, dimensions and first value.
std::vector<Field> c3dFields(const std::string& f) {
  std::vector<Field> out;
  for (std::size_t w = 0; w < 12; ++w)
    if (w != 6 && w != 10) out.push_back({2 * w, w == 7 || w == 11 ? std::size_t{4} : std::size_t{2}});
  out.push_back({0, 1});
  out.push_back({1, 1});
  const std::size_t section = (static_cast<std::uint8_t>(f[0]) - 1) * 512;
  out.push_back({section + 2, 1});
  out.push_back({section + 3, 1});
  for (const C3dItem& it : c3dItems(f)) {
    out.push_back({it.at, 1});
    out.push_back({it.at + 1, 1});
    out.push_back({it.offset_at, 2});
    if (it.type == 0) continue;
    out.push_back({it.offset_at + 2, 1});
    out.push_back({it.offset_at + 3, 1});
    for (std::size_t k = 0; k < it.dims.size(); ++k) out.push_back({it.offset_at + 4 + k, 1});
    const std::size_t size = it.type == 4 ? 4 : it.type == 2 ? 2 : 1;
    if (it.data_at + size <= f.size()) out.push_back({it.data_at, size});
  }
  return out;
}

// One to three field mutations, or (one time in four) a truncation or a byte flip before them.
Mutated c3dMutated(const std::string& base, const std::vector<Field>& fields, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto uniform = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n)(rng); };  // [0, n]
  Mutated m;
  m.text = base;
  auto note = [&](std::size_t at, const std::string& what) {
    m.at = at;
    m.what += (m.what.empty() ? "" : "; ") + what + "@" + std::to_string(at);
  };
  if (uniform(3) == 0 && !m.text.empty()) {
    const std::size_t at = uniform(m.text.size() - 1);
    if (uniform(1)) {
      m.text.resize(at);
      note(at, "truncate");
    } else {
      m.text[at] = static_cast<char>(m.text[at] ^ (1 << uniform(7)));
      note(at, "flip a bit");
    }
  }
  static const std::vector<std::vector<std::uint8_t>> k1 = {{0}, {1}, {0x7f}, {0x80}, {0xff}, {0x81}, {0xfe}};
  static const std::vector<std::vector<std::uint8_t>> k2 = {{0, 0},       {1, 0},       {0xff, 0x7f}, {0, 0x80},
                                                            {0xff, 0xff}, {0xfe, 0xff}, {0, 1},       {1, 1}};
  static const std::vector<std::vector<std::uint8_t>> k4 = {
      {0, 0, 0xc0, 0x7f}, {0, 0, 0x80, 0x7f}, {0, 0, 0x80, 0xff}, {0, 0, 0x80, 0xbf}, {0xff, 0xff, 0x7f, 0x7f},
      {0, 0, 0, 0},       {1, 0, 0, 0},       {0, 0, 0x80, 0x3f}, {0, 0, 0, 0x80},    {0x80, 0x40, 0, 0}};
  const std::size_t count = 1 + uniform(2);
  for (std::size_t k = 0; k < count && !fields.empty(); ++k) {
    const Field& f = fields[uniform(fields.size() - 1)];
    const auto& values = f.size == 1 ? k1 : f.size == 2 ? k2 : k4;
    std::vector<std::uint8_t> v = values[uniform(values.size() - 1)];
    if (uniform(4) == 0)
      for (std::uint8_t& b : v) b = static_cast<std::uint8_t>(uniform(255));
    if (f.at + v.size() > m.text.size()) continue;
    for (std::size_t i = 0; i < v.size(); ++i) m.text[f.at + i] = static_cast<char>(v[i]);
    note(f.at, "field of " + std::to_string(f.size) + " bytes → " + printable(std::string(v.begin(), v.end())));
  }
  if (m.what.empty()) m.what = "unchanged";
  return m;
}

// ---- the contract of a C3dFile -----------------------------------------------------------------

void checkC3d(const C3dFile& f, const C3dOptions& o) {
  const MarkerTrajectories& m = f.markers;
  require(m.data_rate > 0 && std::isfinite(m.data_rate), "c3d: rate");
  require(f.processor == "Intel" || f.processor == "DEC" || f.processor == "MIPS", "c3d: processor");
  std::set<std::string> names;
  for (const std::string& n : m.names) require(!n.empty() && names.insert(n).second, "c3d: names empty or repeated");
  const std::size_t nm = m.names.size(), nf = m.times.size(), np = f.all_point_labels.size();
  require(m.positions.size() == nf * nm && f.residuals.size() == nf * nm, "c3d: positions/residuals size");
  require(f.marker_kinds.size() == nm && f.marker_point_index.size() == nm, "c3d: per-marker sizes");
  require(f.all_point_kinds.size() == np && f.point_descriptions.size() == np, "c3d: per-point sizes");
  for (std::size_t j = 0; j < nm; ++j) {
    const int i = f.marker_point_index[j];
    require(i >= 0 && static_cast<std::size_t>(i) < np && (j == 0 || i > f.marker_point_index[j - 1]) &&
                f.all_point_kinds[static_cast<std::size_t>(i)] == f.marker_kinds[j],
            "c3d: marker_point_index");
    const C3dPointKind k = f.marker_kinds[j];
    require(k == C3dPointKind::Marker || (k == C3dPointKind::Unlabeled && o.keep_unlabeled) ||
                (k != C3dPointKind::Unlabeled && o.keep_virtual_points),
            "c3d: a point kept against the options");
  }
  for (std::size_t k = 0; k < nf; ++k)
    require(std::isfinite(m.times[k]) && (k == 0 ? m.times[k] == 0 : m.times[k] > m.times[k - 1]),
            "c3d: times not finite and increasing from 0");
  require(
      static_cast<long long>(f.last_frame) == static_cast<long long>(f.first_frame) + static_cast<long long>(nf) - 1,
      "c3d: last frame");
  for (std::size_t k = 0; k < nf * nm; ++k) {
    const Vector3d& p = m.positions[k];
    const bool valid = p.allFinite();
    require(valid || p.array().isNaN().all(), "c3d: a sample partly missing");
    require(valid ? f.residuals[k] >= 0 && std::isfinite(f.residuals[k]) : std::isnan(f.residuals[k]),
            "c3d: residual and position disagree");
  }
}

TEST(FuzzReaders, C3d) {
  std::vector<Fixture> fixtures =
      sharedFixtures({"data/c3d/pycgm_Movement_trial.c3d", "data/c3d/pycgm_Static_trial.c3d"}, &shrinkTo6);
  const bool shared = !fixtures.empty();
  for (Fixture& fx : syntheticFixtures()) fixtures.push_back(std::move(fx));
  Stats st{"c3d"};
  C3dOptions all;
  all.keep_virtual_points = true;
  all.keep_unlabeled = true;
  all.z_up = false;
  auto read = [&](const Fixture& fx, const std::string& text) {
    checkC3d(parseBytes(text, fx.name), {});
    checkC3d(parseBytes(text, fx.name, all), all);
  };
  for (const Fixture& fx : fixtures) {
    EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
    EXPECT_TRUE(parseBytes(fx.text, fx.name).warnings.empty()) << fx.name;
  }
  if (shared) {
    EXPECT_EQ(parseBytes(fixtures[0].text, fixtures[0].name).markers.numFrames(), 6);
  }
  // Byte mutations (the text machinery: truncations, bit flips, random bytes, spans deleted or
  // copied, NULs, …), then field mutations.
  fuzz(st, fixtures, {25 * kScale, 150 * kScale, 0, {}}, read);
  std::vector<std::vector<Field>> fields;
  for (const Fixture& fx : fixtures) fields.push_back(c3dFields(fx.text));
  for (std::size_t i = 0; i < fixtures.size(); ++i) {
    Plan plan{0, 300 * kScale, 0, {}, false};
    plan.mutate = [&, i](const std::string& base, std::uint32_t seed) { return c3dMutated(base, fields[i], seed); };
    fuzz(st, {fixtures[i]}, plan, read);
  }
  viaFiles(
      st, fixtures.back(), ".c3d", [](const std::string& p) { readC3d(p); },
      [](const std::string& t, const std::string& p) { parseBytes(t, p); });
  KINETRACK_EXPECT_FUZZ_CLEAN(st);
}

// ---- regressions -------------------------------------------------------------------------------

TEST(FuzzReaders, RegressionsC3d) {
  const std::string good = syntheticFixtures()[0].text;
  // POINT:USED 0xffff: 65535 points of the data section, which holds 6.
  std::string b = good;
  const C3dItem used = c3dItem(b, "POINT", "USED");
  b[used.data_at] = b[used.data_at + 1] = static_cast<char>(0xff);
  EXPECT_EQ(parseErrorLine([&] { parseBytes(b, "f.c3d"); }), 0);
  // Dimensions 255 × 255 × 255 × 255 of a float parameter: the product is checked as it grows.
  b = good;
  const C3dItem scale = c3dItem(b, "POINT", "SCALE");
  b[scale.offset_at + 3] = 4;
  for (int k = 0; k < 4; ++k) b[scale.offset_at + 4 + static_cast<std::size_t>(k)] = static_cast<char>(255);
  EXPECT_EQ(parseErrorLine([&] { parseBytes(b, "f.c3d"); }), 0);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
