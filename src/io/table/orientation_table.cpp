#include "kinetrack/io/table/orientation_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "text_util.hpp"

namespace kinetrack::io {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string_view stripCr(std::string_view l) { return !l.empty() && l.back() == '\r' ? l.substr(0, l.size() - 1) : l; }

}  // namespace

int OrientationTable::find(const std::string& name) const {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

OrientationTable parseOrientationTable(const std::string& text, const std::string& source) {
  OrientationTable t;
  t.source = source;
  std::string_view all(text);
  std::size_t pos = 0;
  int line = 0;
  auto next = [&](std::string_view& l) {
    if (pos >= all.size()) return false;
    const std::size_t end = std::min(all.find('\n', pos), all.size());
    l = stripCr(all.substr(pos, end - pos));
    pos = end + 1;
    ++line;
    return true;
  };
  // Header: key=value lines up to "endheader".
  std::string_view l;
  bool ended = false;
  while (next(l)) {
    const std::string_view s = detail::trim(l);
    if (s == "endheader") {
      ended = true;
      break;
    }
    const std::size_t eq = s.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = detail::trim(s.substr(0, eq)), value = detail::trim(s.substr(eq + 1));
    if (key == "DataRate") {
      double v = 0.0;
      if (!detail::parseNumber(value, v) || !(v >= 0.0) || !std::isfinite(v))
        throw ParseError(source, line, fmt::format("DataRate: '{}' is not a rate in Hz", value));
      t.data_rate = v;
    } else if (key == "DataType" && value != "Quaternion") {
      throw ParseError(
          source, line,
          fmt::format("DataType is '{}': an orientation table holds quaternions (DataType=Quaternion)", value));
    }
  }
  if (!ended) throw ParseError(source, line, "no 'endheader' line: not an OpenSim storage file");
  // Column names.
  std::vector<std::string_view> fields;
  do {
    if (!next(l)) throw ParseError(source, line, "missing the column-name line after endheader");
  } while (detail::trim(l).empty());
  detail::splitOn(l, '\t', fields);
  if (fields.empty() || detail::trim(fields[0]) != "time")
    throw ParseError(source, line, "the first column must be 'time'");
  const int header_line = line;
  for (std::size_t c = 1; c < fields.size(); ++c) {
    std::string name(detail::trim(fields[c]));
    if (name.empty()) throw ParseError(source, line, fmt::format("column {} has no name", c + 1));
    if (t.find(name) >= 0) throw ParseError(source, line, fmt::format("column '{}' appears twice", name));
    t.names.push_back(std::move(name));
  }
  if (t.names.empty()) throw ParseError(source, line, "no IMU column after 'time'");
  // Rows: time, then one "w,x,y,z" cell per IMU.
  std::vector<std::string_view> parts;
  while (next(l)) {
    if (detail::trim(l).empty()) continue;
    detail::splitOn(l, '\t', fields);
    if (fields.size() != t.names.size() + 1)
      throw ParseError(source, line,
                       fmt::format("expected {} cells (the columns of line {}), got {}", t.names.size() + 1,
                                   header_line, fields.size()));
    double time = 0.0;
    if (!detail::parseNumber(detail::trim(fields[0]), time) || !std::isfinite(time))
      throw ParseError(source, line, fmt::format("column 'time': '{}' is not a finite number", fields[0]));
    if (!t.times.empty() && !(time > t.times.back()))
      throw ParseError(source, line, fmt::format("time {} does not increase (previous {})", time, t.times.back()));
    t.times.push_back(time);
    t.lines.push_back(line);
    for (std::size_t c = 0; c < t.names.size(); ++c) {
      const std::string_view cell = detail::trim(fields[c + 1]);
      if (cell.empty() || cell == "nan" || cell == "NaN") {
        t.orientations.emplace_back(kNaN, kNaN, kNaN, kNaN);
        continue;
      }
      detail::splitOn(cell, ',', parts);
      double q[4] = {0, 0, 0, 0};
      bool ok = parts.size() == 4;
      for (std::size_t k = 0; ok && k < 4; ++k) ok = detail::parseNumber(detail::trim(parts[k]), q[k]);
      if (!ok)
        throw ParseError(source, line, fmt::format("column '{}': '{}' is not a quaternion w,x,y,z", t.names[c], cell));
      const bool any_nan = std::isnan(q[0]) || std::isnan(q[1]) || std::isnan(q[2]) || std::isnan(q[3]);
      if (any_nan) {
        t.orientations.emplace_back(kNaN, kNaN, kNaN, kNaN);
        continue;
      }
      Eigen::Quaterniond Q(q[0], q[1], q[2], q[3]);
      const double n = Q.norm();
      if (!(std::abs(n - 1.0) <= 0.05))
        throw ParseError(source, line,
                         fmt::format("column '{}': quaternion {} has norm {:.4g}, not a unit quaternion (w,x,y,z)",
                                     t.names[c], cell, n));
      Q.coeffs() /= n;
      t.orientations.push_back(Q);
    }
  }
  if (t.times.empty()) throw ParseError(source, line, "no data row after the column names");
  return t;
}

OrientationTable readOrientationTable(const std::string& path) {
  return parseOrientationTable(detail::readTextFile(path), path);
}

std::string toOrientationSto(const OrientationTable& t) {
  if (t.orientations.size() != t.times.size() * t.names.size())
    throw InvalidArgument(fmt::format("orientation table {}: {} orientations for {} frames × {} IMUs", t.source,
                                      t.orientations.size(), t.times.size(), t.names.size()));
  std::string s =
      fmt::format("DataRate={:.6f}\nDataType=Quaternion\nversion=3\nOpenSimVersion=4.1\nendheader\ntime", t.data_rate);
  for (const std::string& n : t.names) s += "\t" + n;
  s += "\n";
  for (std::size_t f = 0; f < t.times.size(); ++f) {
    detail::appendNumber(s, t.times[f]);
    for (std::size_t i = 0; i < t.names.size(); ++i) {
      s += "\t";
      const Eigen::Quaterniond& q = t.orientations[f * t.names.size() + i];
      if (!q.coeffs().allFinite()) continue;
      detail::appendNumber(s, q.w());
      for (double v : {q.x(), q.y(), q.z()}) {
        s += ",";
        detail::appendNumber(s, v);
      }
    }
    s += "\n";
  }
  return s;
}

void writeOrientationTable(const OrientationTable& table, const std::string& path) {
  writeFileAtomically(path, toOrientationSto(table));
}

}  // namespace kinetrack::io
