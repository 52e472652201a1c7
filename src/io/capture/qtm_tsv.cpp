#include "kinetrack/io/capture/qtm_tsv.hpp"

#include <cmath>
#include <string_view>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"

namespace kinetrack::io {

namespace {

using detail::parseNumber;
using detail::trim;

// Tab-separated fields of one line (trailing '\r' removed), untrimmed.
void tabs(std::string_view line, std::vector<std::string_view>& out) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  detail::splitOn(line, '\t', out);
}

bool isNanWord(std::string_view s) { return s == "nan" || s == "NaN" || s == "NAN" || s == "-nan"; }

}  // namespace

QtmTsv parseQtmTsv(const std::string& text, const std::string& source) {
  QtmTsv out;
  MarkerTrajectories& m = out.markers;
  m.source = source;
  auto fail = [&](int line, const std::string& msg) { return ParseError(source, line, msg); };
  std::vector<std::string_view> f;
  std::size_t pos = 0;
  int line_no = 0, last_row = 0;
  long frames = -1, nmarkers = -1;
  bool header_done = false;
  const std::string_view all(text);
  static const char* axis[] = {"X", "Y", "Z"};
  std::vector<Vector3d> row;
  while (pos <= all.size()) {
    const std::size_t eol = all.find('\n', pos);
    const std::string_view line = all.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? all.size() + 1 : eol + 1;
    ++line_no;
    if (trim(line).empty() || trim(line) == "\r") continue;
    tabs(line, f);
    const std::string_view key = trim(f[0]);
    if (!header_done) {
      // Header keys are upper-case words; the first numeric first field starts the data.
      double first = 0.0;
      if (key == "Frame") continue;  // the column row
      if (!parseNumber(key, first)) {
        auto number = [&](long& dst) {
          double v = 0.0;
          if (f.size() < 2 || !parseNumber(trim(f[1]), v) || v < 0 || v > 1e9 || v != std::floor(v))
            throw fail(line_no, std::string(key) + ": '" + (f.size() > 1 ? std::string(trim(f[1])) : "") +
                                    "' is not a non-negative integer");
          dst = static_cast<long>(v);
        };
        if (key == "NO_OF_FRAMES") {
          number(frames);
        } else if (key == "NO_OF_MARKERS") {
          number(nmarkers);
        } else if (key == "NO_OF_CAMERAS") {
          long c = 0;
          number(c);
          out.cameras = static_cast<int>(c);
        } else if (key == "FREQUENCY") {
          if (f.size() < 2 || !parseNumber(trim(f[1]), out.frequency) || !(out.frequency > 0.0) ||
              !std::isfinite(out.frequency))
            throw fail(line_no,
                       "FREQUENCY: '" + (f.size() > 1 ? std::string(trim(f[1])) : "") + "' is not a positive number");
        } else if (key == "DATA_INCLUDED") {
          if (f.size() < 2 || trim(f[1]) != "3D")
            throw fail(line_no, "DATA_INCLUDED: only 3D marker exports are read (got '" +
                                    (f.size() > 1 ? std::string(trim(f[1])) : "") + "')");
        } else if (key == "MARKER_NAMES") {
          for (std::size_t i = 1; i < f.size(); ++i)
            if (!trim(f[i]).empty()) m.names.emplace_back(trim(f[i]));
          for (std::size_t a = 0; a < m.names.size(); ++a)
            for (std::size_t b = a + 1; b < m.names.size(); ++b)
              if (m.names[a] == m.names[b]) throw fail(line_no, "MARKER_NAMES: '" + m.names[a] + "' appears twice");
        } else if (key == "TRAJECTORY_TYPES") {
          for (std::size_t i = 1; i < f.size(); ++i)
            if (!trim(f[i]).empty()) out.trajectory_types.emplace_back(trim(f[i]));
        } else if (key == "TIME_STAMP") {
          out.time_stamp = f.size() > 1 ? std::string(trim(f[1])) : "";
        } else if (key == "DESCRIPTION") {
          out.description = f.size() > 1 ? std::string(trim(f[1])) : "";
        }
        continue;  // other keys (NO_OF_ANALOG, …) are informational
      }
      // First data row: the header must be complete.
      if (frames < 0 || nmarkers < 0 || !(out.frequency > 0.0) || m.names.empty())
        throw fail(line_no, "header incomplete: NO_OF_FRAMES, NO_OF_MARKERS, FREQUENCY and MARKER_NAMES are required");
      if (static_cast<long>(m.names.size()) != nmarkers)
        throw fail(line_no, "NO_OF_MARKERS is " + std::to_string(nmarkers) + " but MARKER_NAMES lists " +
                                std::to_string(m.names.size()));
      m.data_rate = out.frequency;
      m.times.reserve(static_cast<std::size_t>(frames));
      m.positions.reserve(static_cast<std::size_t>(frames) * m.names.size());
      header_done = true;
    }
    const std::size_t nm = m.names.size();
    if (f.size() != 2 + 3 * nm && !(f.size() == 3 + 3 * nm && trim(f.back()).empty()))
      throw fail(line_no, "row has " + std::to_string(f.size()) + " fields, expected " + std::to_string(2 + 3 * nm) +
                              " (frame, time, X Y Z × " + std::to_string(nm) + ")");
    if (m.numFrames() >= frames) throw fail(line_no, "more data rows than NO_OF_FRAMES " + std::to_string(frames));
    double t = 0.0;
    if (!parseNumber(trim(f[1]), t) || !std::isfinite(t))
      throw fail(line_no, "column 2 (Time): '" + std::string(trim(f[1])) + "' is not a finite number");
    if (!m.times.empty() && !(t > m.times.back()))
      throw fail(line_no, "Time " + std::string(trim(f[1])) + " does not increase");
    row.assign(nm, Vector3d::Zero());
    for (std::size_t k = 0; k < nm; ++k) {
      int missing = 0;
      for (int a = 0; a < 3; ++a) {
        const std::string_view v = trim(f[2 + 3 * k + static_cast<std::size_t>(a)]);
        double x = 0.0;
        if (v.empty() || isNanWord(v)) {
          ++missing;
          continue;
        }
        if (!parseNumber(v, x) || !std::isfinite(x))
          throw fail(line_no, "column " + std::to_string(3 + 3 * k + static_cast<std::size_t>(a)) + " (" + m.names[k] +
                                  " " + axis[a] + "): '" + std::string(v) + "' is not a finite number");
        row[k][a] = x * 1e-3;
      }
      if (missing == 3 || (missing == 0 && row[k].isZero(0.0))) {
        row[k].setConstant(std::numeric_limits<double>::quiet_NaN());
        ++out.missing_samples;
      } else if (missing > 0) {
        throw fail(line_no, "marker " + m.names[k] + " (columns " + std::to_string(3 + 3 * k) + "–" +
                                std::to_string(5 + 3 * k) + "): only some coordinates are missing");
      }
    }
    m.times.push_back(t);
    m.positions.insert(m.positions.end(), row.begin(), row.end());
    last_row = line_no;
  }
  if (!header_done) throw fail(line_no, "no data rows (or header incomplete)");
  if (m.numFrames() != frames)
    throw fail(last_row, "NO_OF_FRAMES is " + std::to_string(frames) + " but the file has " +
                             std::to_string(m.numFrames()) + " data rows (truncated?)");
  return out;
}

QtmTsv readQtmTsv(const std::string& path) { return parseQtmTsv(detail::readTextFile(path), path); }

}  // namespace kinetrack::io
