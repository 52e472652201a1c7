// Pose-target CSV reader and writer (docs/formats.md).
#include "kinetrack/io/capture/target_csv.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <string_view>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/table/atomic_file.hpp"

namespace kinetrack::io {

using detail::appendNumber;
using detail::splitFields;

namespace {

// Column suffixes: 0–2 position, 3–6 orientation.
constexpr const char* kSuffix[] = {"px", "py", "pz", "qw", "qx", "qy", "qz"};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string formatNumber(double v) {
  std::string s;
  appendNumber(s, v);
  return s;
}

}  // namespace

PoseTargets parseTargetCsv(const std::string& text, const std::string& source) {
  PoseTargets out;
  MotionClip& clip = out.clip;
  clip.source = source;
  std::vector<std::string> columns;
  std::vector<std::vector<int>> column_of;  // per segment: field index of each suffix, or −1
  std::vector<std::string_view> fields;
  std::size_t pos = 0;
  int line_number = 0;
  bool have_header = false;
  const auto fail = [&](const std::string& msg) { return ParseError(source, line_number, msg); };
  const auto columnError = [&](std::size_t c, const std::string& msg) {
    return fail("column '" + columns[c] + "': " + msg);
  };
  std::string_view line;
  while (detail::nextDataLine(text, pos, line_number, line)) {
    splitFields(line, fields);
    if (!have_header) {
      have_header = true;
      for (const std::string_view f : fields) columns.emplace_back(f);
      detail::GroupedColumns g = detail::parseGroupedHeader(columns, {std::begin(kSuffix), std::end(kSuffix)},
                                                            "segment", "segment", source, line_number);
      column_of = std::move(g.column_of);
      clip.segment_names = std::move(g.names);
      for (int s = 0; s < clip.numSegments(); ++s) {
        const auto& cols = column_of[static_cast<std::size_t>(s)];
        const std::string& seg = clip.segment_names[static_cast<std::size_t>(s)];
        for (const auto& [first, count] : {std::pair{0, 3}, std::pair{3, 4}}) {
          int present = 0;
          for (int k = first; k < first + count; ++k) present += cols[static_cast<std::size_t>(k)] >= 0;
          if (present == 0 || present == count) continue;
          for (int k = first; k < first + count; ++k)
            if (cols[static_cast<std::size_t>(k)] < 0)
              throw fail("header: segment '" + seg + "' has " + (first == 0 ? "position" : "orientation") +
                         " columns but no '" + seg + "." + kSuffix[k] + "' (a segment gives all of " +
                         (first == 0 ? "px, py, pz" : "qw, qx, qy, qz") + " or none)");
        }
        out.has_position.push_back(cols[0] >= 0);
        out.has_orientation.push_back(cols[3] >= 0);
      }
      clip.segment_parent.assign(clip.segment_names.size(), -1);
      continue;
    }
    if (fields.size() != columns.size())
      throw fail("expected " + std::to_string(columns.size()) + " fields, got " + std::to_string(fields.size()));
    // A field: a finite number (true), or a gap (false) when empty or NaN.
    const auto value = [&](std::size_t c, double& v) {
      const std::string_view f = fields[c];
      if (f.empty()) return false;
      if (!detail::parseNumber(f, v)) throw columnError(c, "'" + std::string(f) + "' is not a number");
      if (std::isnan(v)) return false;
      if (!std::isfinite(v)) throw columnError(c, "'" + std::string(f) + "' is not finite");
      return true;
    };
    double t = 0.0;
    if (!value(0, t)) throw columnError(0, "the time of a row cannot be empty or NaN");
    if (clip.numFrames() > 0 && !(t > clip.times.back()))
      throw columnError(0, formatNumber(t) + " does not increase (previous " + formatNumber(clip.times.back()) + ")");
    // computeVelocities divides position differences by time differences: both overflowing gave NaN.
    if (clip.numFrames() > 0 && !std::isfinite(t - clip.times.front()))
      throw columnError(0, formatNumber(t) + " is too far from the first time " + formatNumber(clip.times.front()) +
                               " (the difference is not finite)");
    clip.times.push_back(t);
    for (int s = 0; s < clip.numSegments(); ++s) {
      const auto& cols = column_of[static_cast<std::size_t>(s)];
      Transform pose;
      bool p_ok = false, q_ok = false;
      if (out.has_position[static_cast<std::size_t>(s)]) {
        p_ok = true;
        for (int k = 0; k < 3; ++k)
          p_ok = value(static_cast<std::size_t>(cols[static_cast<std::size_t>(k)]), pose.p[k]) && p_ok;
        if (!p_ok) pose.p.setConstant(kNaN);
      }
      if (out.has_orientation[static_cast<std::size_t>(s)]) {
        Eigen::Vector4d q;
        q_ok = true;
        for (int k = 0; k < 4; ++k)
          q_ok = value(static_cast<std::size_t>(cols[static_cast<std::size_t>(k + 3)]), q[k]) && q_ok;
        if (q_ok) {
          if (std::abs(q.norm() - 1.0) > 1e-3)
            throw columnError(
                static_cast<std::size_t>(cols[3]),
                "quaternion (w, x, y, z) has norm " + formatNumber(q.norm()) + ", expected 1 within 1e-3");
          pose.R = so3::fromQuaternionWxyz(q);
        } else {
          pose.R.setConstant(kNaN);
        }
      }
      clip.poses.push_back(pose);
      out.position_valid.push_back(p_ok);
      out.orientation_valid.push_back(q_ok);
      clip.valid.push_back((p_ok || !out.has_position[static_cast<std::size_t>(s)]) &&
                           (q_ok || !out.has_orientation[static_cast<std::size_t>(s)]));
    }
  }
  if (!have_header) throw ParseError(source, line_number, "empty file: no header line");
  computeVelocities(clip);
  return out;
}

PoseTargets readTargetCsv(const std::string& path) { return parseTargetCsv(detail::readTextFile(path), path); }

PoseTargets poseTargetsFromClip(const MotionClip& clip) {
  PoseTargets t;
  t.clip = clip;
  t.has_position.assign(clip.segment_names.size(), 1);
  t.has_orientation.assign(clip.segment_names.size(), 1);
  t.position_valid = clip.valid;
  t.orientation_valid = clip.valid;
  return t;
}

std::string toTargetCsv(const PoseTargets& targets) {
  const MotionClip& clip = targets.clip;
  const std::size_t ns = clip.segment_names.size();
  const std::size_t samples = clip.times.size() * ns;
  if (targets.has_position.size() != ns || targets.has_orientation.size() != ns || clip.poses.size() != samples ||
      targets.position_valid.size() != samples || targets.orientation_valid.size() != samples)
    throw InvalidArgument("toTargetCsv: expected " + std::to_string(ns) + " segment flags and " +
                          std::to_string(samples) + " poses and validity flags (frames × segments)");
  std::string out =
      "# kinetrack pose targets: time s; <segment>.px,py,pz m (world, Z up); <segment>.qw,qx,qy,qz unit "
      "quaternion (w, x, y, z) of R_W,segment; empty field = gap\ntime";
  for (std::size_t s = 0; s < ns; ++s) {
    const std::string& name = clip.segment_names[s];
    if (name.empty() || name.find_first_of(",\"\r\n") != std::string::npos || name.front() == ' ' || name.back() == ' ')
      throw InvalidArgument("toTargetCsv: segment name '" + name + "' cannot be a CSV column name");
    if (!targets.has_position[s] && !targets.has_orientation[s])
      throw InvalidArgument("toTargetCsv: segment '" + name + "' has neither position nor orientation");
    for (int k = targets.has_position[s] ? 0 : 3; k < (targets.has_orientation[s] ? 7 : 3); ++k)
      out.append(",").append(name).append(".").append(kSuffix[k]);
  }
  out += '\n';
  for (std::size_t f = 0; f < clip.times.size(); ++f) {
    appendNumber(out, clip.times[f]);
    for (std::size_t s = 0; s < ns; ++s) {
      const std::size_t i = f * ns + s;
      const Transform& pose = clip.poses[i];
      if (targets.has_position[s]) {
        const bool ok = targets.position_valid[i] && pose.p.allFinite();
        for (int k = 0; k < 3; ++k) {
          out += ',';
          if (ok) appendNumber(out, pose.p[k]);
        }
      }
      if (targets.has_orientation[s]) {
        const bool ok = targets.orientation_valid[i] && pose.R.allFinite();
        const Eigen::Vector4d q = ok ? so3::toQuaternionWxyz(pose.R) : Eigen::Vector4d::Zero();
        for (int k = 0; k < 4; ++k) {
          out += ',';
          if (ok) appendNumber(out, q[k]);
        }
      }
    }
    out += '\n';
  }
  return out;
}

void writeTargetCsv(const PoseTargets& targets, const std::string& path) {
  writeFileAtomically(path, toTargetCsv(targets));
}

void writeTargetCsv(const MotionClip& clip, const std::string& path) {
  writeTargetCsv(poseTargetsFromClip(clip), path);
}

}  // namespace kinetrack::io
