// `kinetrack c3d export|info`: a C3D file as OpenSim's files (TRC, GRF .mot + ExternalLoads,
// analog .sto) and a summary.
#include "kinetrack/app/c3d_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <numbers>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/point_cloud.hpp"
#include "kinetrack/io/table/atomic_file.hpp"

namespace kinetrack::app {

namespace {

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// 'R' / 'L' when `name` is a foot marker of that side, else 0.
char footSide(const std::string& name) {
  static const char* kKeys[] = {"HEE", "CAL", "TOE", "MT", "MH", "MET", "ANK", "MAL", "FOOT", "AJC"};
  const std::string n = upper(name);
  auto hasKey = [](const std::string& stem) {
    return std::any_of(std::begin(kKeys), std::end(kKeys),
                       [&](const char* k) { return stem.find(k) != std::string::npos; });
  };
  if (n.size() >= 3 && (n[0] == 'R' || n[0] == 'L') && hasKey(n.substr(1))) return n[0];
  if (n.size() >= 4 && n[n.size() - 2] == '_' && (n.back() == 'R' || n.back() == 'L') &&
      hasKey(n.substr(0, n.size() - 2)))
    return n.back();
  return 0;
}

Matrix3d axisRotation(char axis, double degrees) {
  const double a = degrees * std::numbers::pi / 180.0;
  switch (axis) {
    case 'x': return Eigen::AngleAxisd(a, Vector3d::UnitX()).toRotationMatrix();
    case 'y': return Eigen::AngleAxisd(a, Vector3d::UnitY()).toRotationMatrix();
    default: return Eigen::AngleAxisd(a, Vector3d::UnitZ()).toRotationMatrix();
  }
}

// The body of each plate: named by "P=BODY", else the side's body from the feet; `named` marks
// the plates named. With `for_loads`, a loaded plate of unknown foot is an error.
std::vector<std::string> plateBodies(const std::string& input, const std::vector<PlateFoot>& feet,
                                     const std::vector<std::string>& apply_to, const std::string& right_body,
                                     const std::string& left_body, bool for_loads, const Reporter& reporter,
                                     std::vector<bool>& named) {
  const std::size_t plates = feet.size();
  std::vector<std::string> bodies(plates);
  named.assign(plates, false);
  for (const std::string& a : apply_to) {
    const std::size_t eq = a.find('=');
    int plate = 0;
    if (eq != std::string::npos) plate = std::atoi(a.substr(0, eq).c_str());
    if (eq == std::string::npos || plate < 1 || trimmed(a.substr(eq + 1)).empty())
      throw InvalidArgument("--apply-to '" + a + "': expected PLATE=BODY (plates from 1), e.g. 1=calcn_r");
    if (static_cast<std::size_t>(plate) > plates)
      throw InvalidArgument("--apply-to '" + a + "': " + input + " has " + std::to_string(plates) + " force plates");
    bodies[static_cast<std::size_t>(plate - 1)] = trimmed(a.substr(eq + 1));
    named[static_cast<std::size_t>(plate - 1)] = true;
  }
  for (std::size_t p = 0; p < plates; ++p) {
    if (named[p]) continue;
    const PlateFoot& foot = feet[p];
    if (foot.side == 'R') bodies[p] = right_body;
    if (foot.side == 'L') bodies[p] = left_body;
    const int minority = std::min(foot.right_votes, foot.left_votes);
    if (minority > 0 && minority * 5 > foot.right_votes + foot.left_votes)
      reporter.warn(fmt::format("plate {}: both feet stood on it ({} frames right, {} left): applied to {}", p + 1,
                                foot.right_votes, foot.left_votes, bodies[p]));
    if (for_loads && foot.side == '?' && foot.loaded_frames > 0)
      throw InvalidArgument(fmt::format(
          "{}: plate {} is loaded on {} frames but no foot markers (heel, toe, ankle names with an R/L side) tell "
          "which foot: name its body with --apply-to {}=BODY",
          input, p + 1, foot.loaded_frames, p + 1));
    if (for_loads && foot.loaded_frames == 0)
      reporter.warn(fmt::format("plate {} is never loaded: left out of the external loads", p + 1));
  }
  return bodies;
}

// The ExternalForces to write: each plate with a body that was named or stood on.
std::vector<io::ExternalForceAssignment> loadedForces(const std::vector<std::string>& bodies,
                                                      const std::vector<bool>& named,
                                                      const std::vector<PlateFoot>& feet) {
  std::vector<io::ExternalForceAssignment> forces;
  for (std::size_t p = 0; p < bodies.size(); ++p)
    if (!bodies[p].empty() && (named[p] || feet[p].loaded_frames > 0))
      forces.push_back({static_cast<int>(p) + 1, bodies[p], ""});
  return forces;
}

}  // namespace

bool isC3dPath(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".c3d";
}

Matrix3d parseRotation(const std::string& spec) {
  const std::string s = trimmed(spec);
  if (s.empty() || s == "none") return Matrix3d::Identity();
  if (s == "y-up" || s == "opensim") return (Matrix3d() << 0, 1, 0, 0, 0, 1, 1, 0, 0).finished();
  Matrix3d r = Matrix3d::Identity();
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t comma = std::min(s.find(',', pos), s.size());
    const std::string item = trimmed(s.substr(pos, comma - pos));
    const std::size_t colon = item.find(':');
    const std::string axis = colon == std::string::npos ? "" : trimmed(item.substr(0, colon));
    double degrees = 0;
    bool ok = axis.size() == 1 && (axis[0] == 'x' || axis[0] == 'y' || axis[0] == 'z');
    if (ok) {
      const std::string number = trimmed(item.substr(colon + 1));
      char* end = nullptr;
      degrees = std::strtod(number.c_str(), &end);
      ok = !number.empty() && end == number.c_str() + number.size() && std::isfinite(degrees);
    }
    if (!ok)
      throw InvalidArgument("rotation '" + spec + "': '" + item +
                            "' is not AXIS:DEGREES (x, y or z; e.g. x:-90,z:180), y-up or none");
    r = axisRotation(axis[0], degrees) * r;
    pos = comma + 1;
  }
  return r;
}

std::vector<PlateFoot> plateFeet(const io::C3dFile& file, const io::GroundReactions& cop, double threshold) {
  const io::MarkerTrajectories& m = file.markers;
  std::vector<int> right, left;
  for (int k = 0; k < m.numMarkers(); ++k) {
    const char side = footSide(m.names[static_cast<std::size_t>(k)]);
    if (side == 'R') right.push_back(k);
    if (side == 'L') left.push_back(k);
  }
  const int spf = std::max(file.analog_samples_per_frame, 1);
  // Unzeroed plates drift by tens of newtons: a foot is on the plate from 50 N.
  const double load = std::max(threshold, 50.0);
  std::vector<PlateFoot> out(cop.plates.size());
  for (std::size_t p = 0; p < cop.plates.size(); ++p) {
    const io::PlateReactions& pr = cop.plates[p];
    PlateFoot& foot = out[p];
    std::vector<double> right_d, left_d;
    // Distances in the plate's plane (the markers stand above the plate).
    const Matrix3d flat = Matrix3d::Identity() - pr.axes.col(2) * pr.axes.col(2).transpose();
    for (int f = 0; f < m.numFrames(); ++f) {
      const auto s = static_cast<std::size_t>(f) * static_cast<std::size_t>(spf);
      if (s >= pr.force.size() || std::abs(pr.force[s].dot(pr.axes.col(2))) < load) continue;
      ++foot.loaded_frames;
      auto meanOf = [&](const std::vector<int>& ks, Vector3d& c) {
        c.setZero();
        int n = 0;
        for (const int k : ks)
          if (m.isValid(f, k)) c += m.position(f, k), ++n;
        if (n > 0) c /= n;
        return n > 0;
      };
      Vector3d r, l;
      const bool has_r = meanOf(right, r), has_l = meanOf(left, l);
      if (!has_r && !has_l) continue;
      const double dr = has_r ? (flat * (r - pr.point[s])).norm() : 1e300;
      const double dl = has_l ? (flat * (l - pr.point[s])).norm() : 1e300;
      if (dr <= dl)
        ++foot.right_votes, right_d.push_back(dr);
      else
        ++foot.left_votes, left_d.push_back(dl);
    }
    if (foot.right_votes + foot.left_votes == 0) continue;
    foot.side = foot.right_votes >= foot.left_votes ? 'R' : 'L';
    std::vector<double>& d = foot.side == 'R' ? right_d : left_d;
    std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
    foot.distance = d[d.size() / 2];
  }
  return out;
}

C3dExportResult runC3dExport(const C3dExportOptions& o, const Reporter& reporter) {
  if (o.input.empty()) throw InvalidArgument("no C3D file given");
  if (!o.external_loads.empty() && o.grf.empty())
    throw InvalidArgument("--external-loads names the GRF file's columns: give --grf too");
  C3dExportResult r;
  r.rotation = parseRotation(o.rotate);
  reporter.say(fmt::format("reading {}\n", o.input));
  r.file = io::readC3d(o.input);
  for (const std::string& w : r.file.warnings) reporter.warn(o.input + ": " + w);
  const io::C3dFile& f = r.file;

  // Plates: the asked location in the output axes, and the feet from the centre of pressure.
  io::GroundReactionOptions go;
  go.location = o.location;
  go.threshold = o.threshold;
  go.zero = o.zero;
  const bool need_plates = !f.force_plates.empty();
  if (need_plates) {
    io::GroundReactionOptions cop_options = go;
    cop_options.location = io::ForceLocation::CentreOfPressure;
    const io::GroundReactions cop = io::groundReactions(f, cop_options);
    for (const std::string& w : cop.warnings) reporter.warn(o.input + ": " + w);
    r.feet = plateFeet(f, cop, o.threshold);
    r.reactions = o.location == io::ForceLocation::CentreOfPressure ? cop : io::groundReactions(f, go);
    r.reactions = io::rotated(std::move(r.reactions), r.rotation);
  } else if (!o.grf.empty()) {
    throw InvalidArgument(o.input + ": no force plates (FORCE_PLATFORM:USED is absent or 0): nothing for --grf");
  }

  // Bodies per plate: --apply-to, else the foot that stood on it.
  const std::size_t plates = r.reactions.plates.size();
  std::vector<bool> named;
  r.bodies =
      plateBodies(o.input, r.feet, o.apply_to, o.right_body, o.left_body, !o.external_loads.empty(), reporter, named);

  // Everything to write, prepared before the first file is written.
  std::vector<std::pair<std::string, std::string>> files;  // path, text
  std::vector<std::string> what;
  if (!o.trc.empty()) {
    io::MarkerTrajectories m = f.markers;
    for (Vector3d& x : m.positions) x = r.rotation * x;
    io::TrcWriteOptions w;
    w.units = "mm";
    for (int k = 0; k < m.numFrames(); ++k) w.frame_numbers.push_back(f.first_frame + k);
    files.emplace_back(o.trc, io::toTrc(m, w));
    what.push_back(fmt::format("{} markers × {} frames, mm", m.numMarkers(), m.numFrames()));
  }
  if (!o.grf.empty()) {
    const io::MotTable t = io::groundReactionTable(r.reactions);
    files.emplace_back(o.grf, io::toMot(t));
    what.push_back(fmt::format("{} plates × {} samples at {:g} Hz, {}", plates, r.reactions.samples, r.reactions.rate,
                               io::toString(o.location)));
  }
  if (!o.external_loads.empty()) {
    const std::vector<io::ExternalForceAssignment> forces = loadedForces(r.bodies, named, r.feet);
    if (forces.empty()) throw InvalidArgument(o.input + ": no plate is loaded: nothing for --external-loads");
    namespace fs = std::filesystem;
    const fs::path dir = fs::absolute(fs::path(o.external_loads)).parent_path();
    const std::string datafile = fs::proximate(fs::absolute(fs::path(o.grf)), dir).generic_string();
    files.emplace_back(o.external_loads, io::externalLoadsXml(forces, datafile));
    std::string list;
    for (const auto& fa : forces) list += fmt::format("{}plate {} → {}", list.empty() ? "" : ", ", fa.plate, fa.body);
    what.push_back(list);
  }
  if (!o.analog.empty()) {
    if (f.analog.numChannels() == 0) throw InvalidArgument(o.input + ": no analog channels: nothing for --analog");
    const io::AnalogData a = o.channels.empty() ? f.analog : io::selectChannels(f.analog, o.channels);
    files.emplace_back(o.analog, io::toMot(io::analogTable(a)));
    what.push_back(fmt::format("{} channels × {} samples at {:g} Hz", a.numChannels(), a.numSamples(), a.rate));
  } else if (!o.channels.empty()) {
    (void)io::selectChannels(f.analog, o.channels);  // still checks the names
  }

  // The summary.
  const double duration = f.markers.numFrames() > 1 ? f.markers.times.back() : 0.0;
  r.text = fmt::format(
      "{}: {} markers at {:g} Hz, {} frames ({:.3f} s); {} analog channels at {:g} Hz; {} force "
      "plates\n",
      std::filesystem::path(o.input).filename().string(), f.markers.numMarkers(), f.markers.data_rate,
      f.markers.numFrames(), duration, f.analog.numChannels(), f.analog.rate, f.force_plates.size());
  if (plates > 0) {
    std::vector<std::vector<std::string>> rows{
        {"plate", "type", "centre (m)", "peak Fz (N)", "loaded (s)", "foot", "applied to"}};
    for (std::size_t p = 0; p < plates; ++p) {
      const io::PlateReactions& pr = r.reactions.plates[p];
      const PlateFoot& foot = r.feet[p];
      rows.push_back({std::to_string(p + 1), std::to_string(pr.type),
                      fmt::format("({:.3f}, {:.3f}, {:.3f})", pr.centre.x(), pr.centre.y(), pr.centre.z()),
                      fmt::format("{:.1f}", pr.peak_vertical),
                      fmt::format("{:.2f}", pr.loaded_samples / std::max(r.reactions.rate, 1e-9)),
                      foot.side == '?' ? "-"
                                       : fmt::format("{} ({}/{} frames, {:.0f} mm)", foot.side,
                                                     std::max(foot.right_votes, foot.left_votes),
                                                     foot.right_votes + foot.left_votes, foot.distance * 1e3),
                      r.bodies[p].empty() ? "-" : r.bodies[p]});
    }
    r.text += textTable(rows);
  }
  if (f.analog.numChannels() > 0) {
    std::string labels;
    for (const std::string& l : f.analog.labels) labels += (labels.empty() ? "" : " ") + l;
    r.text += "analog: " + labels + "\n";
  }

  for (std::size_t k = 0; k < files.size(); ++k) {
    io::writeFileAtomically(files[k].first, files[k].second);
    r.written.push_back(files[k].first + " (" + what[k] + ")");
  }
  return r;
}

io::ExternalLoads c3dExternalLoads(const std::string& path, const C3dLoadOptions& o, const Reporter& reporter) {
  const io::C3dFile file = io::readC3d(path);
  for (const std::string& w : file.warnings) reporter.warn(path + ": " + w);
  if (file.force_plates.empty()) throw InvalidArgument(path + ": no force plates (FORCE_PLATFORM:USED is absent or 0)");
  io::GroundReactionOptions go;
  go.location = io::ForceLocation::CentreOfPressure;
  go.threshold = o.threshold;
  io::GroundReactions cop = io::groundReactions(file, go);
  for (const std::string& w : cop.warnings) reporter.warn(path + ": " + w);
  const std::vector<PlateFoot> feet = plateFeet(file, cop, o.threshold);
  std::vector<bool> named;
  const std::vector<std::string> bodies =
      plateBodies(path, feet, o.apply_to, o.right_body, o.left_body, true, reporter, named);
  if (o.location == io::ForceLocation::Origin) {
    go.location = io::ForceLocation::Origin;
    cop = io::groundReactions(file, go);
  }
  const io::GroundReactions g = io::rotated(std::move(cop), o.rotation);
  const std::vector<io::ExternalForceAssignment> forces = loadedForces(bodies, named, feet);
  if (forces.empty()) throw InvalidArgument(path + ": no force plate is loaded");
  io::ExternalLoadsSpec spec = io::parseExternalLoadsSpec(io::externalLoadsXml(forces, path), path + " (plates)");
  return io::bindExternalLoads(std::move(spec), io::groundReactionTable(g), path);
}

io::ExternalLoads readLoads(const std::string& path, const Vector3d& up, const Reporter& reporter) {
  if (!isC3dPath(path)) {
    io::ExternalLoads loads = io::readExternalLoads(path);
    for (const std::string& n : loads.notices) reporter.warn(n);
    return loads;
  }
  C3dLoadOptions lo;
  if (up.y() > 0.5) lo.rotation = parseRotation("y-up");
  return c3dExternalLoads(path, lo, reporter);
}

}  // namespace kinetrack::app
