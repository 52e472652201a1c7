// External-wrench CSV reader and writer, binding to a model and resampling at motion times
// (docs/formats.md).
#include "kinetrack/io/table/wrench_csv.hpp"

#include <cmath>
#include <iterator>
#include <string_view>

#include <Eigen/Geometry>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "text_util.hpp"

namespace kinetrack::io {

using detail::appendNumber;
using detail::splitFields;

namespace {

// Column suffixes of a body: 0–2 force, 3–5 point, 6–8 free moment.
constexpr const char* kSuffix[] = {"fx", "fy", "fz", "px", "py", "pz", "mx", "my", "mz"};
constexpr int kNumSuffix = 9;

std::string formatNumber(double v) {
  std::string s;
  appendNumber(s, v);
  return s;
}

}  // namespace

WrenchTrajectory parseWrenchCsv(const std::string& text, const std::string& source) {
  WrenchTrajectory w;
  w.source = source;
  std::vector<std::string> columns;
  std::vector<std::vector<int>> column_of;  // per body: field index of each suffix, or −1
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
      w.header_line = line_number;
      for (const std::string_view f : fields) columns.emplace_back(f);
      detail::GroupedColumns g = detail::parseGroupedHeader(columns, {std::begin(kSuffix), std::end(kSuffix)}, "body",
                                                            "wrench", source, line_number);
      column_of = std::move(g.column_of);
      for (std::string& name : g.names) {
        w.bodies.push_back({});
        w.bodies.back().body = std::move(name);
      }
      for (std::size_t b = 0; b < w.bodies.size(); ++b) {
        const auto& cols = column_of[b];
        const std::string& name = w.bodies[b].body;
        for (int k = 0; k < 6; ++k)
          if (cols[static_cast<std::size_t>(k)] < 0)
            throw fail("header: body '" + name + "' has no column '" + name + "." + kSuffix[k] +
                       "' (every body needs fx, fy, fz and px, py, pz)");
        int moments = 0;
        for (int k = 6; k < kNumSuffix; ++k) moments += cols[static_cast<std::size_t>(k)] >= 0;
        if (moments != 0 && moments != 3)
          for (int k = 6; k < kNumSuffix; ++k)
            if (cols[static_cast<std::size_t>(k)] < 0)
              throw fail("header: body '" + name + "' has moment columns but no '" + name + "." + kSuffix[k] +
                         "' (a body gives all of mx, my, mz or none)");
        w.bodies[b].has_moment = moments == 3;
      }
      continue;
    }
    if (fields.size() != columns.size())
      throw fail("expected " + std::to_string(columns.size()) + " fields, got " + std::to_string(fields.size()));
    const auto number = [&](std::size_t c) {
      const std::string_view f = fields[c];
      double v = 0.0;
      if (f.empty()) throw columnError(c, "empty field (write 0 force for an unloaded body)");
      if (!detail::parseNumber(f, v)) throw columnError(c, "'" + std::string(f) + "' is not a number");
      if (!std::isfinite(v)) throw columnError(c, "'" + std::string(f) + "' is not finite (NaN is not allowed)");
      return v;
    };
    const double t = number(0);
    if (!w.times.empty() && !(t > w.times.back()))
      throw columnError(0, formatNumber(t) + " does not increase (previous " + formatNumber(w.times.back()) + ")");
    w.times.push_back(t);
    for (std::size_t b = 0; b < w.bodies.size(); ++b) {
      const auto& cols = column_of[b];
      const auto vec = [&](int first) {
        return Vector3d(number(static_cast<std::size_t>(cols[static_cast<std::size_t>(first)])),
                        number(static_cast<std::size_t>(cols[static_cast<std::size_t>(first + 1)])),
                        number(static_cast<std::size_t>(cols[static_cast<std::size_t>(first + 2)])));
      };
      BodyWrenches& bw = w.bodies[b];
      bw.force.push_back(vec(0));
      bw.point.push_back(vec(3));
      bw.moment.push_back(bw.has_moment ? vec(6) : Vector3d::Zero());
    }
  }
  if (!have_header) throw ParseError(source, line_number, "empty file: no header line");
  if (w.times.empty()) throw ParseError(source, line_number, "no data rows after the header");
  return w;
}

WrenchTrajectory readWrenchCsv(const std::string& path) { return parseWrenchCsv(detail::readTextFile(path), path); }

std::string toWrenchCsv(const WrenchTrajectory& wrenches) {
  const std::size_t n = wrenches.times.size();
  std::string out =
      "# kinetrack external wrenches: time s; <body>.fx,fy,fz force N at the point <body>.px,py,pz m; "
      "<body>.mx,my,mz free moment N m; world frame, Z up\ntime";
  for (const BodyWrenches& b : wrenches.bodies) {
    const std::string& name = b.body;
    if (name.empty() || name.find_first_of(",\"\r\n") != std::string::npos || name.front() == ' ' || name.back() == ' ')
      throw InvalidArgument("toWrenchCsv: body name '" + name + "' cannot be a CSV column name");
    if (b.force.size() != n || b.point.size() != n || b.moment.size() != n)
      throw InvalidArgument("toWrenchCsv: body '" + name + "' has " + std::to_string(b.force.size()) + " forces, " +
                            std::to_string(b.point.size()) + " points and " + std::to_string(b.moment.size()) +
                            " moments for " + std::to_string(n) + " times");
    for (int k = 0; k < (b.has_moment ? 9 : 6); ++k) out.append(",").append(name).append(".").append(kSuffix[k]);
  }
  out += '\n';
  for (std::size_t i = 0; i < n; ++i) {
    const double t = wrenches.times[i];
    if (!std::isfinite(t) || (i > 0 && !(t > wrenches.times[i - 1])))
      throw InvalidArgument("toWrenchCsv: time " + formatNumber(t) + " at sample " + std::to_string(i) +
                            " is not finite or does not increase");
    appendNumber(out, t);
    for (const BodyWrenches& b : wrenches.bodies) {
      if (!b.force[i].allFinite() || !b.point[i].allFinite() || !b.moment[i].allFinite())
        throw InvalidArgument("toWrenchCsv: body '" + b.body + "' has a NaN or infinite value at sample " +
                              std::to_string(i));
      for (const Vector3d* v : {&b.force[i], &b.point[i], &b.moment[i]}) {
        if (v == &b.moment[i] && !b.has_moment) break;
        for (int k = 0; k < 3; ++k) {
          out += ',';
          appendNumber(out, (*v)[k]);
        }
      }
    }
    out += '\n';
  }
  return out;
}

void writeWrenchCsv(const std::string& path, const WrenchTrajectory& wrenches) {
  writeFileAtomically(path, toWrenchCsv(wrenches));
}

std::vector<LinkId> bindWrenchBodies(const WrenchTrajectory& wrenches, const Model& model) {
  std::vector<LinkId> links;
  links.reserve(wrenches.bodies.size());
  for (const BodyWrenches& b : wrenches.bodies) {
    const std::optional<FrameId> frame = model.findFrame(b.body);
    if (!frame) {
      std::string names;
      for (const std::string& n : model.frameNames()) names += (names.empty() ? "" : ", ") + n;
      throw ParseError(wrenches.source, wrenches.header_line,
                       "column '" + b.body + ".fx': body '" + b.body + "' is neither a link nor a frame of model '" +
                           model.name() + "' (links and frames: " + names + ")");
    }
    links.push_back(model.frameLink(*frame));
  }
  return links;
}

WrenchTrajectory resampleWrenches(const WrenchTrajectory& wrenches, std::span<const double> times,
                                  WrenchOutside outside) {
  const std::size_t n = wrenches.times.size();
  if (n == 0) throw InvalidArgument("resampleWrenches: '" + wrenches.source + "' has no samples");
  for (const BodyWrenches& b : wrenches.bodies)
    if (b.force.size() != n || b.point.size() != n || b.moment.size() != n)
      throw InvalidArgument("resampleWrenches: body '" + b.body + "' does not have one wrench per sample");
  WrenchTrajectory out;
  out.source = wrenches.source;
  out.header_line = wrenches.header_line;
  out.times.assign(times.begin(), times.end());
  for (const BodyWrenches& b : wrenches.bodies) {
    BodyWrenches& r = out.bodies.emplace_back();
    r.body = b.body;
    r.has_moment = b.has_moment;
    r.force.reserve(times.size());
    r.point.reserve(times.size());
    r.moment.reserve(times.size());
  }
  const double first = wrenches.times.front(), last = wrenches.times.back();
  std::size_t i = 0;  // wrench interval [i, i + 1] of the current time; times do not decrease
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double t = times[k];
    if (!std::isfinite(t) || (k > 0 && t < times[k - 1]))
      throw InvalidArgument("resampleWrenches: time " + formatNumber(t) + " s at row " + std::to_string(k) +
                            " is not finite or decreases");
    if (t < first - kWrenchTimeTolerance || t > last + kWrenchTimeTolerance) {
      if (outside == WrenchOutside::Error)
        throw InvalidArgument("resampleWrenches: time " + formatNumber(t) + " s (row " + std::to_string(k) +
                              ") is outside the time range [" + formatNumber(first) + ", " + formatNumber(last) +
                              "] s of the wrenches of '" + wrenches.source + "'");
      for (BodyWrenches& r : out.bodies) {
        r.force.emplace_back(Vector3d::Zero());
        r.point.emplace_back(Vector3d::Zero());
        r.moment.emplace_back(Vector3d::Zero());
      }
      continue;
    }
    while (i + 1 < n && wrenches.times[i + 1] <= t) ++i;
    // Sample i itself (t at or within the tolerance of a sample, or at the end): copy it.
    const bool copy = i + 1 == n || t <= wrenches.times[i];
    const double s = copy ? 0.0 : (t - wrenches.times[i]) / (wrenches.times[i + 1] - wrenches.times[i]);
    for (std::size_t b = 0; b < wrenches.bodies.size(); ++b) {
      const BodyWrenches& src = wrenches.bodies[b];
      BodyWrenches& r = out.bodies[b];
      if (copy) {
        r.force.push_back(src.force[i]);
        r.point.push_back(src.point[i]);
        r.moment.push_back(src.moment[i]);
        continue;
      }
      // Linear in the spatial force (T + P × F; F): F and the moment about the origin.
      const Vector3d f = (1.0 - s) * src.force[i] + s * src.force[i + 1];
      const Vector3d p = (1.0 - s) * src.point[i] + s * src.point[i + 1];
      const Vector3d n0 = src.moment[i] + src.point[i].cross(src.force[i]);
      const Vector3d n1 = src.moment[i + 1] + src.point[i + 1].cross(src.force[i + 1]);
      r.force.push_back(f);
      r.point.push_back(p);
      r.moment.push_back((1.0 - s) * n0 + s * n1 - p.cross(f));
    }
  }
  return out;
}

}  // namespace kinetrack::io
