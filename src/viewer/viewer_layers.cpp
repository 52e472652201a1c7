// The viewer's layers (layers.hpp): muscle paths and their values, markers, external forces,
// centre of mass and contact, per frame of a motion.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/dynamics/rigid_body.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/muscles/muscle_paths.hpp"
#include "kinetrack/viewer/viewer.hpp"

namespace kinetrack::viewer {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void put(std::vector<double>& v, std::size_t i, const Vector3d& p) {
  for (std::size_t k = 0; k < 3; ++k) v[i * 3 + k] = p[static_cast<Eigen::Index>(k)];
}

/// Linear interpolation of column c of `table` at t; NaN outside its time range (widened by half
/// a mean sample period: tables written with other digits end a few 1e-7 s before the motion).
double interpolate(const io::MotTable& table, int c, double t) {
  const std::vector<double>& T = table.times;
  if (T.empty()) return kNaN;
  const double half = T.size() > 1 ? 0.5 * (T.back() - T.front()) / static_cast<double>(T.size() - 1) : 1e-9;
  if (t < T.front() - half || t > T.back() + half) return kNaN;
  t = std::clamp(t, T.front(), T.back());
  const auto it = std::lower_bound(T.begin(), T.end(), t);
  const auto j =
      static_cast<Eigen::Index>(std::min<std::ptrdiff_t>(it - T.begin(), static_cast<std::ptrdiff_t>(T.size()) - 1));
  if (j == 0 || T[static_cast<std::size_t>(j)] <= t) return table.values(j, c);
  const double t0 = T[static_cast<std::size_t>(j - 1)], t1 = T[static_cast<std::size_t>(j)];
  const double a = (t - t0) / (t1 - t0);
  return (1.0 - a) * table.values(j - 1, c) + a * table.values(j, c);
}

void checkFrames(const ViewerData& data, const Motion& motion) {
  if (static_cast<int>(motion.configurations.size()) != data.numFrames())
    throw InvalidArgument("viewer layer: the motion has " + std::to_string(motion.configurations.size()) +
                          " frames, the data " + std::to_string(data.numFrames()));
}

}  // namespace

void addMuscles(ViewerData& data, const muscles::MusclePaths& paths, const Motion& motion, const io::MotTable* values,
                const std::string& values_source) {
  checkFrames(data, motion);
  if (paths.model().numLinks() != data.numLinks())
    throw InvalidArgument("addMuscles: the muscles' model has " + std::to_string(paths.model().numLinks()) +
                          " links, the viewer's " + std::to_string(data.numLinks()));
  MuscleLayer& L = data.muscles;
  L = {};
  const int nm = paths.numMuscles();
  const auto frames = static_cast<std::size_t>(data.numFrames());
  for (int m = 0; m < nm; ++m) {
    L.names.push_back(paths.set().muscles[static_cast<std::size_t>(m)].name);
    L.first.push_back(L.slots);
    L.capacity.push_back(paths.maxDrawnPoints(m));
    L.slots += L.capacity.back();
  }
  L.points.assign(frames * static_cast<std::size_t>(L.slots) * 3, 0.0);
  L.count.assign(frames * static_cast<std::size_t>(nm), 0);
  muscles::MusclePathData work(paths);
  std::vector<Vector3d> path;
  for (std::size_t f = 0; f < frames; ++f) {
    const Configuration& q = motion.configurations[f];
    framesForwardKinematics(paths.model(), work.kin, q);
    for (int m = 0; m < nm; ++m) {
      path.clear();
      const int n = std::min(paths.drawnPath(m, q, work, path), L.capacity[static_cast<std::size_t>(m)]);
      L.count[f * static_cast<std::size_t>(nm) + static_cast<std::size_t>(m)] = static_cast<std::uint16_t>(n);
      for (int k = 0; k < n; ++k)
        put(L.points,
            f * static_cast<std::size_t>(L.slots) + static_cast<std::size_t>(L.first[static_cast<std::size_t>(m)] + k),
            path[static_cast<std::size_t>(k)]);
    }
  }
  if (values == nullptr) return;
  L.value_source = values_source;
  L.values.assign(frames * static_cast<std::size_t>(nm), kNaN);
  std::vector<int> column(static_cast<std::size_t>(nm), -1);
  for (std::size_t c = 0; c < values->columns.size(); ++c) {
    const auto it = std::find(L.names.begin(), L.names.end(), values->columns[c]);
    if (it == L.names.end()) {
      L.not_muscles.push_back(values->columns[c]);
      continue;
    }
    column[static_cast<std::size_t>(it - L.names.begin())] = static_cast<int>(c);
  }
  if (std::all_of(column.begin(), column.end(), [](int c) { return c < 0; }))
    throw InvalidArgument(values_source + ": no column names a muscle of the model (first columns: " +
                          (values->columns.empty() ? std::string("none") : values->columns.front()) + ")");
  double largest = 0.0;
  for (int m = 0; m < nm; ++m) {
    const int c = column[static_cast<std::size_t>(m)];
    if (c < 0) continue;
    for (std::size_t f = 0; f < frames; ++f) {
      const double v = interpolate(*values, c, motion.times[f]);
      L.values[f * static_cast<std::size_t>(nm) + static_cast<std::size_t>(m)] = v;
      if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
    }
  }
  const bool forces = largest > 1.0 + 1e-9;
  L.value_name = std::string(forces ? "force" : "activation");
  if (forces) L.value_unit = std::string("N");
  L.value_scale = forces ? largest : 1.0;
}

void addMarkers(ViewerData& data, const Model& model, const Motion& motion, const io::MarkerTrajectories& trial) {
  checkFrames(data, motion);
  MarkerLayer& L = data.markers;
  L = {};
  L.source = trial.source;
  L.names = trial.names;
  const auto frames = static_cast<std::size_t>(data.numFrames());
  const auto nm = static_cast<std::size_t>(trial.numMarkers());
  L.measured.assign(frames * nm * 3, kNaN);
  L.model.assign(frames * nm * 3, kNaN);
  std::vector<std::optional<FrameId>> frame(nm);
  for (std::size_t m = 0; m < nm; ++m) {
    frame[m] = model.findFrame(trial.names[m]);
    if (frame[m]) ++L.matched;
  }
  const double half = trial.data_rate > 0.0 ? 0.5 / trial.data_rate : 1e-3;
  Data kin(model);
  double sum = 0.0;
  long count = 0;
  for (std::size_t f = 0; f < frames; ++f) {
    const double t = motion.times[f];
    const auto it = std::lower_bound(trial.times.begin(), trial.times.end(), t - half);
    const int row =
        it != trial.times.end() && std::abs(*it - t) <= half ? static_cast<int>(it - trial.times.begin()) : -1;
    framesForwardKinematics(model, kin, motion.configurations[f]);
    for (std::size_t m = 0; m < nm; ++m) {
      const bool measured = row >= 0 && trial.isValid(row, static_cast<int>(m));
      if (measured) put(L.measured, f * nm + m, trial.position(row, static_cast<int>(m)));
      if (!frame[m]) continue;
      const Vector3d p = kin.frame[static_cast<std::size_t>(frame[m]->value)].p;
      put(L.model, f * nm + m, p);
      if (!measured) continue;
      const double e = (p - trial.position(row, static_cast<int>(m))).norm();
      sum += e * e;
      ++count;
      L.max_error = std::max(L.max_error, e);
    }
  }
  L.rms_error = count > 0 ? std::sqrt(sum / static_cast<double>(count)) : 0.0;
}

void addForces(ViewerData& data, const Model& model, const Motion& motion, const io::ExternalLoads& loads) {
  checkFrames(data, motion);
  ForceLayer& L = data.forces;
  L = {};
  L.source = loads.spec.source;
  const auto frames = static_cast<std::size_t>(data.numFrames());
  const std::size_t nf = loads.forces.size();
  for (const io::ExternalForceSpec& s : loads.forces) {
    L.names.push_back(s.name);
    const auto f = model.findFrame(s.applied_to_body);
    L.link.push_back(f ? model.frameLink(*f).value : -1);
  }
  L.point.assign(frames * nf * 3, kNaN);
  L.force.assign(frames * nf * 3, kNaN);
  std::vector<io::ExternalForceSample> sample(nf);
  Data kin(model);
  const auto placement = [&](const std::string& body) -> std::optional<Transform> {
    if (body.empty() || body == "ground") return Transform{};
    const auto f = model.findFrame(body);
    if (!f) return std::nullopt;
    return kin.frame[static_cast<std::size_t>(f->value)];
  };
  for (std::size_t f = 0; f < frames; ++f) {
    const double t = motion.times[f];
    if (t < loads.firstTime() - 1e-6 || t > loads.lastTime() + 1e-6) continue;
    loads.sample(std::clamp(t, loads.firstTime(), loads.lastTime()), sample);
    framesForwardKinematics(model, kin, motion.configurations[f]);
    for (std::size_t k = 0; k < nf; ++k) {
      const auto Xf = placement(loads.forces[k].force_expressed_in_body);
      const auto Xp = placement(loads.forces[k].point_expressed_in_body);
      if (!Xf || !Xp) continue;
      const Vector3d force = Xf->R * sample[k].force;
      const Vector3d point = sample[k].has_point ? Vector3d(Xp->R * sample[k].point + Xp->p)
                             : L.link[k] >= 0    ? kin.link[static_cast<std::size_t>(L.link[k])].p
                                                 : Vector3d::Zero();
      put(L.force, f * nf + k, force);
      put(L.point, f * nf + k, point);
      L.max_force = std::max(L.max_force, force.norm());
    }
  }
}

void addBody(ViewerData& data, const Model& model, const Motion& motion) {
  checkFrames(data, motion);
  BodyLayer& L = data.body;
  L = {};
  const auto frames = static_cast<std::size_t>(data.numFrames());
  const auto nl = static_cast<std::size_t>(model.numLinks());
  // The centre of mass of the rigid-body dynamics (none for a model without physical mass).
  std::optional<DynamicsData> dyn;
  try {
    dyn.emplace(model);
  } catch (const InvalidArgument&) {
  }
  if (dyn) {
    L.com.assign(frames * 3, 0.0);
    for (std::size_t f = 0; f < frames; ++f) put(L.com, f, centerOfMass(model, *dyn, motion.configurations[f]));
  }
  const Vector3d up = model.up();
  if (!data.forces.empty()) {
    L.contact_rule = "force > 20 N (" + std::filesystem::path(data.forces.source).filename().string() + ")";
    const std::size_t nf = data.forces.names.size();
    for (std::size_t k = 0; k < nf; ++k)
      if (data.forces.link[k] >= 0 && std::find(L.feet.begin(), L.feet.end(), data.forces.link[k]) == L.feet.end())
        L.feet.push_back(data.forces.link[k]);
    L.contact.assign(frames * L.feet.size(), 0);
    for (std::size_t f = 0; f < frames; ++f)
      for (std::size_t k = 0; k < nf; ++k) {
        const auto foot = std::find(L.feet.begin(), L.feet.end(), data.forces.link[k]);
        if (foot == L.feet.end()) continue;
        const Vector3d F(data.forces.force[(f * nf + k) * 3], data.forces.force[(f * nf + k) * 3 + 1],
                         data.forces.force[(f * nf + k) * 3 + 2]);
        if (F.allFinite() && F.norm() > 20.0)
          L.contact[f * L.feet.size() + static_cast<std::size_t>(foot - L.feet.begin())] = 1;
      }
    return;
  }
  for (std::size_t l = 1; l < nl; ++l) {
    std::string name = model.linkName(LinkId(static_cast<int>(l)));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    for (const char* word : {"foot", "ankle_roll", "calcn", "toes", "sole"})
      if (name.find(word) != std::string::npos) {
        L.feet.push_back(static_cast<int>(l));
        break;
      }
  }
  if (L.feet.empty()) return;
  L.contact_rule = "within 2 cm of its lowest height, slower than 0.3 m/s";
  const std::size_t nk = L.feet.size();
  std::vector<double> height(frames * nk);
  std::vector<Vector3d> where(frames * nk);
  for (std::size_t f = 0; f < frames; ++f)
    for (std::size_t k = 0; k < nk; ++k) {
      const std::size_t i = (f * nl + static_cast<std::size_t>(L.feet[k])) * 3;
      where[f * nk + k] = Vector3d(data.positions[i], data.positions[i + 1], data.positions[i + 2]);
      height[f * nk + k] = where[f * nk + k].dot(up);
    }
  L.contact.assign(frames * nk, 0);
  for (std::size_t k = 0; k < nk; ++k) {
    double lowest = std::numeric_limits<double>::infinity();
    for (std::size_t f = 0; f < frames; ++f) lowest = std::min(lowest, height[f * nk + k]);
    for (std::size_t f = 0; f < frames; ++f) {
      const std::size_t a = f > 0 ? f - 1 : f, b = f + 1 < frames ? f + 1 : f;
      const double dt = b > a ? motion.times[b] - motion.times[a] : 0.0;
      const double speed = dt > 0.0 ? (where[b * nk + k] - where[a * nk + k]).norm() / dt : 0.0;
      L.contact[f * nk + k] = height[f * nk + k] <= lowest + 0.02 && speed < 0.3 ? 1 : 0;
    }
  }
}

}  // namespace kinetrack::viewer
