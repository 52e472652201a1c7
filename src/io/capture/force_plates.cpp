// Ground reactions from C3D force platforms (types 1–4).
#include "kinetrack/io/capture/force_plates.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "c3d_format.hpp"
#include "kinetrack/core/errors.hpp"

namespace kinetrack::io {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// N·m per unit of a moment unit ("Nmm", "N.mm", "N*mm", "N mm", "Nm", …); 0 when it is not one.
double momentScale(const std::string& unit) {
  std::string u;
  for (const char c : lower(unit))
    if (c != '.' && c != '*' && c != ' ' && c != '-' && c != '\xb7') u += c;
  if (u == "nmm") return 1e-3;
  if (u == "ncm") return 1e-2;
  if (u == "nm") return 1.0;
  if (u == "knm") return 1e3;
  return 0.0;
}

// N per unit of a force unit; 0 when it is not one.
double forceScale(const std::string& unit) {
  const std::string u = lower(unit);
  if (u == "n") return 1.0;
  if (u == "kn") return 1e3;
  return 0.0;
}

struct PlateReader {
  const C3dFile& file;
  const C3dForcePlate& plate;
  int number;  // 1-based
  std::vector<std::string>& warnings;

  [[noreturn]] void fail(const std::string& message) const {
    throw ParseError(file.analog.source.empty() ? file.markers.source : file.analog.source, 0,
                     "force plate " + std::to_string(number) + ": " + message);
  }
  [[nodiscard]] std::string channelName(std::size_t k) const {
    const int c = plate.channels[k];
    return "channel " + std::to_string(plate.channel_numbers[k]) +
           (c >= 0 ? " (" + file.analog.labels[static_cast<std::size_t>(c)] + ")" : "");
  }
  [[nodiscard]] const std::string& unit(std::size_t k) const {
    return file.analog.units[static_cast<std::size_t>(plate.channels[k])];
  }
  // Scale to SI of a force channel: N unless the unit says otherwise.
  double forceUnit(std::size_t k) const {
    const std::string& u = unit(k);
    if (u.empty()) return 1.0;
    const double s = forceScale(u);
    if (s == 0 && plate.type != 4) fail(channelName(k) + ": ANALOG:UNITS '" + u + "' is not a force unit (N)");
    return s == 0 ? 1.0 : s;
  }
  // Scale to SI of a moment channel; without a unit, N·(the points' length unit).
  double momentUnit(std::size_t k, double point_metres) const {
    const std::string& u = unit(k);
    const double s = momentScale(u);
    if (s != 0) return s;
    if (u.empty() || plate.type == 4) {
      warnings.push_back("force plate " + std::to_string(number) + ": " + channelName(k) + " has " +
                         (u.empty() ? std::string("no unit") : "unit '" + u + "' (calibrated by CAL_MATRIX)") + ": N·" +
                         (point_metres == 1e-3 ? std::string("mm") : "m") + " assumed");
      return point_metres;
    }
    fail(channelName(k) + ": ANALOG:UNITS '" + u + "' is not a moment unit (Nmm or Nm)");
  }
  double lengthUnit(std::size_t k, double point_metres) const {
    const std::string& u = unit(k);
    if (u.empty()) return point_metres;
    const double s = detail::unitMetres(u);
    if (s == 0) fail(channelName(k) + ": ANALOG:UNITS '" + u + "' is not a length unit (mm or m)");
    return s;
  }
};

}  // namespace

ForceLocation parseForceLocation(const std::string& name) {
  const std::string n = lower(name);
  if (n == "origin") return ForceLocation::Origin;
  if (n == "cop" || n == "centre_of_pressure" || n == "center_of_pressure" || n == "centreofpressure" ||
      n == "centerofpressure")
    return ForceLocation::CentreOfPressure;
  throw InvalidArgument("force location '" + name + "': expected origin or cop");
}

const char* toString(ForceLocation location) { return location == ForceLocation::Origin ? "origin" : "cop"; }

GroundReactions groundReactions(const C3dFile& file, const GroundReactionOptions& options) {
  if (!(options.threshold >= 0) || !std::isfinite(options.threshold))
    throw InvalidArgument("force threshold " + fmt(options.threshold) + " N: expected a finite number ≥ 0");
  GroundReactions out;
  out.source = file.analog.source.empty() ? file.markers.source : file.analog.source;
  out.rate = file.analog.rate;
  out.samples = file.analog.numSamples();
  out.location = options.location;
  const AnalogData& a = file.analog;
  const double point_metres = [&] {
    const double s = detail::unitMetres(file.point_units);
    return s == 0 ? 1e-3 : s;
  }();
  const auto n = static_cast<std::size_t>(out.samples);
  const auto spf = static_cast<std::size_t>(std::max(file.analog_samples_per_frame, 1));
  for (std::size_t p = 0; p < file.force_plates.size(); ++p) {
    const C3dForcePlate& plate = file.force_plates[p];
    const PlateReader r{file, plate, static_cast<int>(p) + 1, out.warnings};
    if (plate.type < 1 || plate.type > 4)
      r.fail("FORCE_PLATFORM:TYPE " + std::to_string(plate.type) + " is not read (types 1–4 are)");
    const std::size_t need = plate.type == 3 ? 8 : 6;
    if (plate.channels.size() < need)
      r.fail("FORCE_PLATFORM:CHANNEL gives " + std::to_string(plate.channels.size()) + " channels, type " +
             std::to_string(plate.type) + " needs " + std::to_string(need));
    for (std::size_t k = 0; k < need; ++k)
      if (plate.channels[k] < 0)
        r.fail("FORCE_PLATFORM:CHANNEL names analog channel " + std::to_string(plate.channel_numbers[k]) +
               ", the file has channels 1–" + std::to_string(a.numChannels()));
    for (const Vector3d& c : plate.corners)
      if (!c.allFinite()) r.fail("FORCE_PLATFORM:CORNERS are missing or not finite");
    Vector3d x = plate.corners[0] - plate.corners[1], y = plate.corners[0] - plate.corners[3];
    Vector3d z = x.cross(y);
    if (x.norm() < 1e-6 || y.norm() < 1e-6 || z.norm() < 1e-9)
      r.fail("FORCE_PLATFORM:CORNERS do not span a plate (corners 1, 2 and 4 coincide or are collinear)");
    x.normalize();
    z.normalize();
    y = z.cross(x);
    PlateReactions pr;
    pr.type = plate.type;
    pr.axes.col(0) = x;
    pr.axes.col(1) = y;
    pr.axes.col(2) = z;
    pr.centre = (plate.corners[0] + plate.corners[1] + plate.corners[2] + plate.corners[3]) / 4.0;
    Eigen::Matrix<double, 6, 6> cal = Eigen::Matrix<double, 6, 6>::Identity();
    if (plate.type == 4) {
      if (plate.calibration.rows() != 6 || plate.calibration.cols() != 6)
        r.fail("type 4 needs a 6×6 FORCE_PLATFORM:CAL_MATRIX, the file gives " +
               std::to_string(plate.calibration.rows()) + "×" + std::to_string(plate.calibration.cols()));
      cal = plate.calibration;
      if (!cal.allFinite()) r.fail("FORCE_PLATFORM:CAL_MATRIX is not finite");
    }
    // Per channel: its SI scale.
    std::vector<double> unit(need, 1.0);
    if (plate.type == 3) {
      for (std::size_t k = 0; k < 8; ++k) unit[k] = r.forceUnit(k);
    } else {
      for (std::size_t k = 0; k < 3; ++k) unit[k] = r.forceUnit(k);
      if (plate.type == 1) {
        unit[3] = r.lengthUnit(3, point_metres);
        unit[4] = r.lengthUnit(4, point_metres);
        unit[5] = r.momentUnit(5, point_metres);
      } else {
        for (std::size_t k = 3; k < 6; ++k) unit[k] = r.momentUnit(k, point_metres);
      }
    }
    // Baseline per channel from FORCE_PLATFORM:ZERO (type 1: forces and the free moment only).
    std::vector<double> baseline(need, 0.0);
    const auto [z0, z1] = file.force_plate_zero;
    if (options.zero && z0 >= 1 && z1 >= z0) {
      const long long first = static_cast<long long>(z0 - file.first_frame) * static_cast<long long>(spf);
      const long long last = static_cast<long long>(z1 - file.first_frame + 1) * static_cast<long long>(spf);
      if (first >= 0 && last <= static_cast<long long>(n) && last > first) {
        for (std::size_t k = 0; k < need; ++k) {
          if (plate.type == 1 && (k == 3 || k == 4)) continue;
          double sum = 0;
          long long count = 0;
          for (long long s = first; s < last; ++s) {
            const double v = a.value(static_cast<int>(s), plate.channels[k]);
            if (std::isfinite(v)) sum += v, ++count;
          }
          baseline[k] = count > 0 ? sum / static_cast<double>(count) : 0.0;
        }
        if (p == 0)
          out.warnings.push_back("force plates zeroed on frames " + std::to_string(z0) + "–" + std::to_string(z1) +
                                 " (FORCE_PLATFORM:ZERO)");
      } else if (p == 0) {
        out.warnings.push_back("FORCE_PLATFORM:ZERO frames " + std::to_string(z0) + "–" + std::to_string(z1) +
                               " are outside the trial: not zeroed");
      }
    }
    // Sensor origin → surface centre (plate axes, metres).
    const Vector3d to_sensor = plate.type == 3 ? Vector3d(0, 0, -plate.origin.z()) : plate.origin;
    pr.force.resize(n);
    pr.point.resize(n);
    pr.moment.resize(n);
    double ch[8];
    for (std::size_t s = 0; s < n; ++s) {
      for (std::size_t k = 0; k < need; ++k) {
        const double v = a.value(static_cast<int>(s), plate.channels[k]);
        if (!std::isfinite(v))
          r.fail(r.channelName(k) + ": sample " + std::to_string(s) +
                 " (t = " + fmt(static_cast<double>(s) / out.rate) + " s) is NaN or infinite");
        // Type 4: the units are those of the calibrated wrench (applied after CAL_MATRIX).
        ch[k] = (v - baseline[k]) * (plate.type == 4 ? 1.0 : unit[k]);
      }
      Vector3d F, Mc;  // plate axes; moment about the surface centre
      switch (plate.type) {
        case 1: {
          F = Vector3d(ch[0], ch[1], ch[2]);
          Mc = Vector3d(ch[4] * F.z(), -ch[3] * F.z(), ch[5] + ch[3] * F.y() - ch[4] * F.x());
          break;
        }
        case 3: {
          const double a3 = plate.origin.x(), b3 = plate.origin.y();
          F = Vector3d(ch[0] + ch[1], ch[2] + ch[3], ch[4] + ch[5] + ch[6] + ch[7]);
          const Vector3d M(b3 * (ch[4] + ch[5] - ch[6] - ch[7]), a3 * (-ch[4] + ch[5] + ch[6] - ch[7]),
                           b3 * (-ch[0] + ch[1]) + a3 * (ch[2] - ch[3]));
          Mc = M + to_sensor.cross(F);
          break;
        }
        default: {
          Eigen::Matrix<double, 6, 1> w;
          for (int k = 0; k < 6; ++k) w[k] = ch[k];
          if (plate.type == 4) {
            w = cal * w;
            for (int k = 0; k < 6; ++k) w[k] *= unit[static_cast<std::size_t>(k)];
          }
          F = w.head<3>();
          Mc = w.tail<3>() + to_sensor.cross(F);
          break;
        }
      }
      const double fz = F.z();
      pr.peak_vertical = std::max(pr.peak_vertical, std::abs(fz));
      if (std::abs(fz) >= std::max(options.threshold, 50.0)) ++pr.loaded_samples;
      if (options.threshold > 0 && std::abs(fz) < options.threshold) {
        pr.force[s].setZero();
        pr.moment[s].setZero();
        pr.point[s] = pr.centre;
        continue;
      }
      pr.force[s] = pr.axes * F;
      if (options.location == ForceLocation::Origin || fz == 0.0) {
        pr.point[s] = pr.centre;
        pr.moment[s] = pr.axes * Mc;
      } else {
        const double px = -Mc.y() / fz, py = Mc.x() / fz;
        const double tz = Mc.z() - px * F.y() + py * F.x();
        pr.point[s] = pr.centre + pr.axes * Vector3d(px, py, 0.0);
        pr.moment[s] = pr.axes.col(2) * tz;
      }
    }
    // A plate far from every marker is probably described in other axes or units.
    const MarkerTrajectories& m = file.markers;
    double nearest = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < m.positions.size(); k += std::max<std::size_t>(1, m.positions.size() / 2000))
      if (m.positions[k].allFinite()) nearest = std::min(nearest, (m.positions[k] - pr.centre).norm());
    if (std::isfinite(nearest) && nearest > 5.0)
      out.warnings.push_back("force plate " + std::to_string(p + 1) + ": its centre is " + fmt(nearest) +
                             " m from the nearest marker: check FORCE_PLATFORM:CORNERS and the units");
    out.plates.push_back(std::move(pr));
  }
  return out;
}

GroundReactions rotated(GroundReactions reactions, const Matrix3d& rotation) {
  for (PlateReactions& p : reactions.plates) {
    p.centre = rotation * p.centre;
    p.axes = rotation * p.axes;
    for (Vector3d& v : p.force) v = rotation * v;
    for (Vector3d& v : p.point) v = rotation * v;
    for (Vector3d& v : p.moment) v = rotation * v;
  }
  return reactions;
}

MotTable groundReactionTable(const GroundReactions& reactions) {
  MotTable t;
  t.name = "ground_reactions";
  const char* axes[] = {"x", "y", "z"};
  for (std::size_t p = 0; p < reactions.plates.size(); ++p) {
    const std::string pre = std::to_string(p + 1) + "_ground_";
    for (const char* a : axes) t.columns.push_back(pre + "force_v" + a);
    for (const char* a : axes) t.columns.push_back(pre + "force_p" + a);
    for (const char* a : axes) t.columns.push_back(pre + "torque_" + a);
  }
  const auto n = static_cast<Eigen::Index>(reactions.samples);
  t.times.resize(static_cast<std::size_t>(n));
  t.values.resize(n, static_cast<Eigen::Index>(t.columns.size()));
  for (Eigen::Index s = 0; s < n; ++s) {
    t.times[static_cast<std::size_t>(s)] = static_cast<double>(s) / reactions.rate;
    for (std::size_t p = 0; p < reactions.plates.size(); ++p) {
      const PlateReactions& pr = reactions.plates[p];
      const auto c = static_cast<Eigen::Index>(9 * p);
      const auto k = static_cast<std::size_t>(s);
      t.values.block<1, 3>(s, c) = pr.force[k].transpose();
      t.values.block<1, 3>(s, c + 3) = pr.point[k].transpose();
      t.values.block<1, 3>(s, c + 6) = pr.moment[k].transpose();
    }
  }
  return t;
}

std::string externalLoadsXml(const std::vector<ExternalForceAssignment>& forces, const std::string& datafile) {
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<OpenSimDocument Version=\"40000\">\n";
  x += "\t<ExternalLoads name=\"externalloads\">\n\t\t<objects>\n";
  for (const ExternalForceAssignment& f : forces) {
    if (f.plate < 1)
      throw InvalidArgument("external force on plate " + std::to_string(f.plate) + ": plates count from 1");
    if (f.body.empty()) throw InvalidArgument("external force on plate " + std::to_string(f.plate) + ": no body");
    const std::string p = std::to_string(f.plate);
    x += "\t\t\t<ExternalForce name=\"" + (f.name.empty() ? "plate" + p : f.name) + "\">\n";
    x += "\t\t\t\t<applied_to_body>" + f.body + "</applied_to_body>\n";
    x += "\t\t\t\t<force_expressed_in_body>ground</force_expressed_in_body>\n";
    x += "\t\t\t\t<point_expressed_in_body>ground</point_expressed_in_body>\n";
    x += "\t\t\t\t<force_identifier>" + p + "_ground_force_v</force_identifier>\n";
    x += "\t\t\t\t<point_identifier>" + p + "_ground_force_p</point_identifier>\n";
    x += "\t\t\t\t<torque_identifier>" + p + "_ground_torque_</torque_identifier>\n";
    x += "\t\t\t</ExternalForce>\n";
  }
  x += "\t\t</objects>\n\t\t<groups />\n\t\t<datafile>" + datafile + "</datafile>\n";
  x += "\t</ExternalLoads>\n</OpenSimDocument>\n";
  return x;
}

}  // namespace kinetrack::io
