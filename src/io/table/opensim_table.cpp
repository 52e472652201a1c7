#include "kinetrack/io/table/opensim_table.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "text_util.hpp"

namespace kinetrack::io {

namespace {

// Splits text into lines (handles CRLF), keeping 1-based line numbers implicit by index.
std::vector<std::string_view> lines(const std::string& text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view l(text.data() + pos, end - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.push_back(l);
    if (end == text.size()) break;
    pos = end + 1;
  }
  return out;
}

// Tab-separated fields (empty fields kept).
std::vector<std::string_view> tabFields(std::string_view l) {
  std::vector<std::string_view> out;
  detail::splitOn(l, '\t', out);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool toDouble(std::string_view s, double& v) { return detail::parseNumber(trim(s), v); }

}  // namespace

MarkerTrajectories parseTrc(const std::string& text, const std::string& source, const TrcOptions& options) {
  const auto L = lines(text);
  auto fail = [&](std::size_t line_index, const std::string& msg) -> ParseError {
    return ParseError(source, static_cast<int>(line_index + 1), msg);
  };
  if (L.size() < 5) throw fail(L.size() - 1, "truncated TRC header (expected 5 header lines)");
  if (trim(L[0]).substr(0, 12) != "PathFileType")
    throw fail(0, "not a TRC file: first line must start with PathFileType");
  const auto keys = tabFields(L[1]);
  auto vals = tabFields(L[2]);
  // Some writers put two tabs between the header values (OpenSim's Rajagopal walk): with the
  // empty fields dropped the values line up with the keys again.
  if (vals.size() > keys.size()) {
    decltype(vals) packed;
    for (const auto& v : vals)
      if (!trim(v).empty()) packed.push_back(v);
    if (packed.size() == keys.size()) vals = std::move(packed);
  }
  double rate = 0, frames_d = -1, markers_d = -1;
  std::string units;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string_view k = trim(keys[i]);
    const std::string_view v = i < vals.size() ? trim(vals[i]) : std::string_view();
    if (k == "Units") units = std::string(v);
    double x = 0;
    if (k == "DataRate" || k == "NumFrames" || k == "NumMarkers") {
      if (!toDouble(v, x))
        throw fail(2, "header field " + std::string(k) + ": '" + std::string(v) + "' is not a number");
      (k == "DataRate" ? rate : k == "NumFrames" ? frames_d : markers_d) = x;
    }
  }
  // Counts are checked before the casts to int below (a NaN or 1e30 count would be UB there).
  auto count = [](double x) { return x >= 0 && x <= 1e9 && x == std::floor(x); };
  if (!(rate > 0) || !std::isfinite(rate) || !count(frames_d) || !count(markers_d))
    throw fail(2, "header needs a finite DataRate > 0 and NumFrames and NumMarkers as non-negative integers");
  double scale = 0;
  if (units == "mm")
    scale = 1e-3;
  else if (units == "cm")
    scale = 1e-2;
  else if (units == "m")
    scale = 1.0;
  else
    throw fail(2, "header field Units: '" + units + "' (expected mm, cm or m)");
  MarkerTrajectories m;
  m.source = source;
  m.data_rate = rate;
  const int nm = static_cast<int>(markers_d);
  const int nf = static_cast<int>(frames_d);
  const auto names = tabFields(L[3]);
  for (std::size_t i = 2; i < names.size(); ++i)
    if (!trim(names[i]).empty()) m.names.emplace_back(trim(names[i]));
  if (static_cast<int>(m.names.size()) != nm)
    throw fail(3, "NumMarkers is " + std::to_string(nm) + " but the name row lists " + std::to_string(m.names.size()));
  for (std::size_t a = 0; a < m.names.size(); ++a)
    for (std::size_t b = a + 1; b < m.names.size(); ++b)
      if (m.names[a] == m.names[b]) throw fail(3, "duplicate marker name '" + m.names[a] + "'");
  Eigen::Matrix3d C = Eigen::Matrix3d::Identity();
  if (options.y_up) C << 0, 0, 1, 1, 0, 0, 0, 1, 0;
  m.up = options.y_up ? Vector3d::UnitZ() : Vector3d::UnitY();
  static const char* axis[] = {"X", "Y", "Z"};
  for (std::size_t li = 5; li < L.size(); ++li) {
    if (trim(L[li]).empty()) continue;
    if (m.numFrames() >= nf) throw fail(li, "more data rows than NumFrames " + std::to_string(nf));
    const auto f = tabFields(L[li]);
    if (static_cast<int>(f.size()) > 2 + 3 * nm + 1 ||
        (static_cast<int>(f.size()) == 2 + 3 * nm + 1 && !trim(f.back()).empty()))
      throw fail(li, "row has " + std::to_string(f.size()) + " fields, expected at most " + std::to_string(2 + 3 * nm));
    double t = 0;
    if (f.size() < 2 || !toDouble(f[1], t) || !std::isfinite(t)) throw fail(li, "field Time: not a finite number");
    if (!m.times.empty() && !(t > m.times.back()))
      throw fail(li, "time " + fmt::format("{}", t) + " does not increase (previous " +
                         fmt::format("{}", m.times.back()) + ")");
    m.times.push_back(t);
    for (int k = 0; k < nm; ++k) {
      Vector3d p;
      for (int c = 0; c < 3; ++c) {
        const std::size_t idx = static_cast<std::size_t>(2 + 3 * k + c);
        const std::string_view s = idx < f.size() ? trim(f[idx]) : std::string_view();
        if (s.empty()) {
          p[c] = std::numeric_limits<double>::quiet_NaN();  // missing marker
        } else if (!toDouble(s, p[c])) {
          throw fail(li, "marker '" + m.names[static_cast<std::size_t>(k)] + "' " + axis[c] + ": '" + std::string(s) +
                             "' is not a number");
        }
      }
      m.positions.push_back(C * (scale * p));
    }
  }
  if (m.numFrames() != nf)
    throw fail(L.size() - 1, "truncated file: NumFrames " + std::to_string(nf) + " but " +
                                 std::to_string(m.numFrames()) + " data rows");
  return m;
}

MarkerTrajectories readTrc(const std::string& path, const TrcOptions& options) {
  return parseTrc(detail::readTextFile(path), path, options);
}

MotTable parseMot(const std::string& text, const std::string& source) {
  const auto L = lines(text);
  MotTable t;
  std::size_t li = 0;
  if (!L.empty()) t.name = std::string(trim(L[0]));
  for (; li < L.size(); ++li) {
    const std::string_view l = trim(L[li]);
    if (l == "endheader") break;
    if (l.rfind("inDegrees=", 0) == 0) {
      t.in_degrees = l.substr(10) == "yes";
      t.in_degrees_declared = true;
    }
  }
  if (li >= L.size()) throw ParseError(source, static_cast<int>(L.size()), "no 'endheader' line");
  ++li;
  while (li < L.size() && trim(L[li]).empty()) ++li;
  if (li >= L.size()) throw ParseError(source, static_cast<int>(li), "missing the column-name line after endheader");
  std::vector<std::string> cols;
  {
    std::istringstream in{std::string(L[li])};
    std::string c;
    while (in >> c) cols.push_back(c);
  }
  if (cols.empty() || cols[0] != "time")
    throw ParseError(source, static_cast<int>(li + 1), "the first column must be 'time'");
  t.columns.assign(cols.begin() + 1, cols.end());
  const int header_line = static_cast<int>(li + 1);
  std::vector<std::vector<double>> rows;
  for (++li; li < L.size(); ++li) {
    if (trim(L[li]).empty()) continue;
    std::vector<double> r;
    std::istringstream in{std::string(L[li])};
    std::string tok;
    while (in >> tok) {
      double v = 0;
      if (!toDouble(tok, v))
        throw ParseError(source, static_cast<int>(li + 1),
                         "column '" + (r.size() < cols.size() ? cols[r.size()] : std::string("?")) + "': '" + tok +
                             "' is not a number");
      r.push_back(v);
    }
    if (r.size() != cols.size())
      throw ParseError(source, static_cast<int>(li + 1),
                       "expected " + std::to_string(cols.size()) + " values (columns of line " +
                           std::to_string(header_line) + "), got " + std::to_string(r.size()));
    if (!std::isfinite(r[0])) throw ParseError(source, static_cast<int>(li + 1), "time is not a finite number");
    if (!rows.empty() && !(r[0] > rows.back()[0]))
      throw ParseError(source, static_cast<int>(li + 1), "time does not increase");
    rows.push_back(std::move(r));
    t.lines.push_back(static_cast<int>(li + 1));
  }
  t.values.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(t.columns.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    t.times.push_back(rows[i][0]);
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      t.values(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c)) = rows[i][c + 1];
  }
  return t;
}

MotTable readMot(const std::string& path) { return parseMot(detail::readTextFile(path), path); }

std::string toMot(const MotTable& t) {
  if (t.values.rows() != static_cast<Eigen::Index>(t.times.size()) ||
      t.values.cols() != static_cast<Eigen::Index>(t.columns.size()))
    throw InvalidArgument("toMot: values must be (times × columns)");
  std::string out = t.name + "\nversion=1\nnRows=" + std::to_string(t.times.size()) +
                    "\nnColumns=" + std::to_string(t.columns.size() + 1) +
                    "\ninDegrees=" + (t.in_degrees ? "yes" : "no") + "\nendheader\ntime";
  for (const auto& c : t.columns) out += "\t" + c;
  out += "\n";
  for (std::size_t i = 0; i < t.times.size(); ++i) {
    out += fmt::format("{:.17g}", t.times[i]);
    for (Eigen::Index c = 0; c < t.values.cols(); ++c)
      out += fmt::format("\t{:.17g}", t.values(static_cast<Eigen::Index>(i), c));
    out += "\n";
  }
  return out;
}

void writeMot(const MotTable& table, const std::string& path) { writeFileAtomically(path, toMot(table)); }

std::string upName(const Vector3d& up) {
  static const char* axis[] = {"X", "Y", "Z"};
  for (int i = 0; i < 3; ++i)
    if (std::abs(std::abs(up[i]) - 1.0) < 1e-9) return std::string(up[i] > 0 ? "+" : "-") + axis[i];
  return fmt::format("({:g}, {:g}, {:g})", up.x(), up.y(), up.z());
}

void checkSameUp(const Model& model, const MarkerTrajectories& markers) {
  if ((model.up() - markers.up).norm() < 1e-9) return;
  throw InvalidArgument("markers '" + markers.source + "' are " + upName(markers.up) + " up but model '" +
                        model.name() + "' is " + upName(model.up()) +
                        " up: read them in the model's axes (Python: read_trc(path, y_up=" +
                        (model.up().y() > 0.5 ? "False" : "True") + ") or markers.with_up(model); CLI: --marker-axes)");
}

MarkerTrajectories withUp(MarkerTrajectories m, const Vector3d& up) {
  if ((m.up - up).norm() < 1e-9) return m;
  const bool y_to_z = (m.up - Vector3d::UnitY()).norm() < 1e-9 && (up - Vector3d::UnitZ()).norm() < 1e-9;
  const bool z_to_y = (m.up - Vector3d::UnitZ()).norm() < 1e-9 && (up - Vector3d::UnitY()).norm() < 1e-9;
  if (!y_to_z && !z_to_y)
    throw InvalidArgument("markers '" + m.source + "': no conversion from " + upName(m.up) + " up to " + upName(up) +
                          " up (only between +Y and +Z)");
  for (Vector3d& p : m.positions) p = y_to_z ? Vector3d(p.z(), p.x(), p.y()) : Vector3d(p.y(), p.z(), p.x());
  m.up = up;
  return m;
}

}  // namespace kinetrack::io
