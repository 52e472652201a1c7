#include "kinetrack/io/capture/point_cloud.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"

namespace kinetrack::io {

void PointCloud::addFrame(long number, double time, std::span<const Vector3d> frame_points) {
  if (offsets.empty()) offsets.push_back(points.size());
  int bad = 0;
  for (const Vector3d& p : frame_points) {
    if (p.allFinite())
      points.push_back(p);
    else
      ++bad;
  }
  frame_numbers.push_back(number);
  times.push_back(time);
  dropped.push_back(bad);
  offsets.push_back(points.size());
}

PointCloud parsePointCsv(const std::string& text, const std::string& source, double scale) {
  if (!(scale > 0.0) || !std::isfinite(scale))
    throw InvalidArgument(fmt::format("parsePointCsv: scale must be finite and > 0, got {}", scale));
  PointCloud cloud;
  cloud.source = source;
  cloud.offsets.push_back(0);
  std::size_t pos = 0;
  int line_number = 0;
  std::string_view line;
  std::vector<std::string_view> fields;
  if (!detail::nextDataLine(text, pos, line_number, line))
    throw ParseError(source, line_number, "empty file: expected the header 'frame,time,x,y,z'");
  detail::splitFields(line, fields);
  static const char* kColumns[] = {"frame", "time", "x", "y", "z"};
  bool header_ok = fields.size() == 5;
  for (std::size_t i = 0; header_ok && i < 5; ++i) header_ok = fields[i] == kColumns[i];
  if (!header_ok)
    throw ParseError(source, line_number, "header: expected 'frame,time,x,y,z', got '" + std::string(line) + "'");
  std::vector<Vector3d> frame_points;
  long current = 0;
  double current_time = 0.0;
  int current_bad = 0;
  bool have_frame = false;
  auto flush = [&] {
    if (!have_frame) return;
    cloud.addFrame(current, current_time, frame_points);
    cloud.dropped.back() += current_bad;
  };
  while (detail::nextDataLine(text, pos, line_number, line)) {
    detail::splitFields(line, fields);
    auto fail = [&](const std::string& msg) { return ParseError(source, line_number, msg); };
    if (fields.size() != 5) throw fail(fmt::format("expected 5 fields (frame,time,x,y,z), got {}", fields.size()));
    long number = 0;
    {
      const std::string_view f = fields[0];
      const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), number);
      if (ec != std::errc() || ptr != f.data() + f.size())
        throw fail("field 'frame': '" + std::string(f) + "' is not an integer");
    }
    double time = 0.0;
    if (!detail::parseNumber(fields[1], time) || !std::isfinite(time))
      throw fail("field 'time': '" + std::string(fields[1]) + "' is not a finite number");
    Vector3d p;
    int empty = 0;
    static const char* kAxes[] = {"x", "y", "z"};
    for (int c = 0; c < 3; ++c) {
      const std::string_view f = fields[static_cast<std::size_t>(2 + c)];
      if (f.empty()) {
        ++empty;
        p[c] = std::nan("");
      } else if (!detail::parseNumber(f, p[c])) {
        throw fail(std::string("field '") + kAxes[c] + "': '" + std::string(f) + "' is not a number");
      }
    }
    if (empty != 0 && empty != 3)
      throw fail("fields x, y, z: give all three, or leave all three empty for a frame without points");
    if (!have_frame || number != current) {
      if (have_frame && number < current)
        throw fail(
            fmt::format("field 'frame': {} after frame {} (frame numbers must increase; rows of one frame "
                        "stay together)",
                        number, current));
      if (have_frame && !(time > current_time))
        throw fail(fmt::format("field 'time': {} at frame {} does not increase (frame {} has {})", time, number,
                               current, current_time));
      flush();
      frame_points.clear();
      current = number, current_time = time, current_bad = 0, have_frame = true;
    } else if (time != current_time) {
      throw fail(fmt::format("field 'time': {} differs from {} of the frame's earlier rows (frame {})", time,
                             current_time, number));
    }
    if (empty == 3) continue;  // a frame with no point
    if (!p.allFinite()) {
      ++current_bad;  // NaN coordinate: not a point, counted
      continue;
    }
    frame_points.push_back(scale * p);
  }
  flush();
  return cloud;
}

PointCloud readPointCsv(const std::string& path, double scale) {
  return parsePointCsv(detail::readTextFile(path), path, scale);
}

PointCloud stripLabels(const MarkerTrajectories& trial) {
  PointCloud cloud;
  cloud.source = trial.source;
  cloud.offsets.push_back(0);
  const int nm = trial.numMarkers();
  for (int f = 0; f < trial.numFrames(); ++f) {
    std::span<const Vector3d> row(trial.positions.data() + static_cast<std::size_t>(f) * static_cast<std::size_t>(nm),
                                  static_cast<std::size_t>(nm));
    cloud.addFrame(f + 1, trial.times[static_cast<std::size_t>(f)], row);
    cloud.dropped.back() = 0;  // a missing marker of a labelled trial is a gap, not a bad point
  }
  return cloud;
}

std::string toTrc(const MarkerTrajectories& trial, const TrcWriteOptions& options) {
  double scale = 0.0;
  if (options.units == "mm")
    scale = 1e3;
  else if (options.units == "cm")
    scale = 1e2;
  else if (options.units == "m")
    scale = 1.0;
  else
    throw InvalidArgument("toTrc: units '" + options.units + "' (expected mm, cm or m)");
  const std::size_t nm = trial.names.size();
  const std::size_t nf = trial.times.size();
  if (trial.positions.size() != nm * nf)
    throw InvalidArgument(
        fmt::format("toTrc: {} positions for {} frames x {} markers", trial.positions.size(), nf, nm));
  if (!options.frame_numbers.empty() && options.frame_numbers.size() != nf)
    throw InvalidArgument(fmt::format("toTrc: {} frame numbers for {} frames", options.frame_numbers.size(), nf));
  double rate = trial.data_rate;
  if (!(rate > 0.0)) {
    // The median frame step, as a rate (TRC needs one).
    std::vector<double> dt;
    for (std::size_t k = 1; k < nf; ++k) dt.push_back(trial.times[k] - trial.times[k - 1]);
    if (!dt.empty()) {
      std::nth_element(dt.begin(), dt.begin() + static_cast<std::ptrdiff_t>(dt.size() / 2), dt.end());
      rate = 1.0 / dt[dt.size() / 2];
    }
    if (!(rate > 0.0) || !std::isfinite(rate)) rate = 1.0;
  }
  std::string out;
  const std::string file = trial.source.empty() ? "labelled.trc" : trial.source;
  out += "PathFileType\t4\t(X/Y/Z)\t" + file.substr(file.find_last_of('/') + 1) + "\n";
  out += "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n";
  out += fmt::format("{:.6g}\t{:.6g}\t{}\t{}\t{}\t{:.6g}\t1\t{}\n", rate, rate, nf, nm, options.units, rate, nf);
  out += "Frame#\tTime";
  for (const std::string& n : trial.names) out += "\t" + n + "\t\t";
  out += "\n\t";
  for (std::size_t m = 0; m < nm; ++m) out += fmt::format("\tX{}\tY{}\tZ{}", m + 1, m + 1, m + 1);
  out += "\n\n";
  for (std::size_t f = 0; f < nf; ++f) {
    out += std::to_string(options.frame_numbers.empty() ? static_cast<long>(f + 1) : options.frame_numbers[f]);
    out += '\t';
    detail::appendNumber(out, trial.times[f]);
    for (std::size_t m = 0; m < nm; ++m) {
      const Vector3d& p = trial.positions[f * nm + m];
      for (int c = 0; c < 3; ++c) {
        out += '\t';
        if (p.allFinite()) detail::appendNumber(out, scale * p[c]);
      }
    }
    out += '\n';
  }
  return out;
}

void writeTrc(const MarkerTrajectories& trial, const std::string& path, const TrcWriteOptions& options) {
  writeFileAtomically(path, toTrc(trial, options));
}

}  // namespace kinetrack::io
