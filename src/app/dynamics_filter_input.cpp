// The input of the dynamics filter job: the motion (joint CSV, OpenSim coordinates with OpenSim's
// ID preparation, or a BVH tracked first), the time range, the force plates, the RRA mass-centre
// adjustment, the ground under the feet, a treadmill's belt, the soles and the slope.
#include <fmt/format.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/app/c3d_job.hpp"
#include "kinetrack/app/dynamics_filter_job.hpp"
#include "kinetrack/biomech/opensim_id.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/track/pipeline.hpp"

namespace kinetrack::app {
namespace {

bool endsWith(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  std::string tail = s.substr(s.size() - suffix.size());
  std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return std::tolower(c); });
  return tail == suffix;
}

// The floating base's rows: force (0–2) and moment (3–5) about the base origin.
void floatingBaseRows(FilterInput& in) {
  in.force_rows = {0, 1, 2};
  in.moment_rows = {3, 4, 5};
}

// An OpenSim model on its coordinates: OpenSim's ID preparation (odd-reflection padding, zero-lag
// Butterworth at --cutoff, quintic spline derivatives), the pelvis coordinates unactuated.
void loadOpenSim(const FilterJobOptions& cfg, FilterInput& in) {
  in.osim = io::readOpenSimModel(cfg.model.model);
  const io::OpenSimModel& om = *in.osim;
  in.model = om.model;
  const Model& m = *in.model;
  if (!(endsWith(cfg.input, ".mot") || endsWith(cfg.input, ".sto")))
    throw InvalidArgument("--input: an OpenSim model (.osim) takes OpenSim coordinates (.mot or .sto), got " +
                          cfg.input);
  in.mot = io::readMot(cfg.input);
  biomech::OpenSimIdOptions o;
  o.lowpass_cutoff_hz = cfg.cutoff > 0.0 ? cfg.cutoff : -1.0;
  const biomech::CoordinateTrajectory ct = biomech::prepareCoordinates(om, in.mot, o, cfg.input);
  const std::size_t n = ct.times.size();
  in.kind = "OpenSim coordinates (6 Hz-style low-pass and quintic-spline derivatives as OpenSim's ID tool)";
  in.t = ct.times;
  in.q.assign(n, om.defaultConfiguration());
  in.derivatives.velocity.assign(n, VectorXd::Zero(m.nv()));
  in.derivatives.acceleration.assign(n, VectorXd::Zero(m.nv()));
  in.derivatives.valid.assign(n, 1);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t c = 0; c < om.coordinates.size(); ++c) {
      const int j = om.coordinates[c].joint.value;
      in.q[k].joints[j] = ct.q(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c));
      in.derivatives.velocity[k][m.nvBase() + j] = ct.qd(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c));
      in.derivatives.acceleration[k][m.nvBase() + j] =
          ct.qdd(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c));
    }
  // The pelvis' free joint: the coordinates on the path ground → pelvis.
  const auto pelvis = m.findLink("pelvis");
  if (!pelvis) throw InvalidArgument(cfg.model.model + ": no body 'pelvis' (the filter needs the model's free joint)");
  in.root = *pelvis;
  for (const std::int32_t j : m.support(*pelvis)) {
    const int row = static_cast<int>(in.unactuated.size());
    in.unactuated.push_back(m.nvBase() + j);
    (m.jointType(JointId(j)) == JointType::Prismatic ? in.force_rows : in.moment_rows).push_back(row);
  }
  in.gravity = om.gravity;
  in.up = -om.gravity.normalized();
  if (const auto torso = m.findLink("torso")) in.head = *torso;
}

// A BVH clip tracked on the model (`kinetrack track`'s pipeline with its defaults).
void trackBvh(const FilterJobOptions& cfg, FilterInput& in, std::vector<std::uint8_t>& gap, const Reporter& reporter) {
  const track::Capture capture = track::loadCapture(cfg.input);
  const track::TrackSetup setup = track::setupOnModel(*in.model, capture, "");
  const int n = capture.clip.numFrames();
  in.q.assign(static_cast<std::size_t>(n), Configuration(*in.model));
  gap.assign(static_cast<std::size_t>(n), 0);
  track::runTracking(setup.model, capture, setup.plan, track::TrackerOptions{},
                     [&](int f, const Configuration& q, const track::FrameOutcome& o) {
                       in.q[static_cast<std::size_t>(f)] = q;
                       gap[static_cast<std::size_t>(f)] = o.gap || o.non_finite;
                       reporter.report(f + 1, n, "tracked frame");
                     });
  in.t = capture.clip.times;
  in.kind = "BVH tracked on " + in.model->name() + " (DYN, kinetrack track's defaults)";
}

void loadMotion(const FilterJobOptions& cfg, FilterInput& in, const Reporter& reporter) {
  const std::string& model = cfg.model.model;
  if (endsWith(model, ".osim")) {
    loadOpenSim(cfg, in);
    return;
  }
  in.model = std::make_shared<const Model>(loadModel(cfg.model, reporter).model);
  const Model& m = *in.model;
  if (m.nvBase() != 6) throw InvalidArgument(model + ": the filter needs a floating base (or an OpenSim model)");
  floatingBaseRows(in);
  in.root = LinkId(0);
  if (const auto head = m.findLink("Head")) in.head = *head;
  std::vector<std::uint8_t> gap;
  if (endsWith(cfg.input, ".bvh")) {
    trackBvh(cfg, in, gap, reporter);
  } else {
    const io::JointTrajectory traj = io::readJointCsv(cfg.input);
    in.q = io::toConfigurations(traj, m);
    in.t = traj.times;
    gap = traj.gap;
    in.kind = "joint CSV";
  }
  if (cfg.cutoff > 0.0) in.q = lowPassMotion(m, in.q, in.t, cfg.cutoff, gap);
  in.derivatives = differentiate(m, in.q, in.t, gap);
}

// Force plates: each enabled force of the ExternalLoads applies to a contact body (by link name);
// a body is in contact where its plate's normal force exceeds --grf-threshold. For an OpenSim
// model the wrenches are those `kinetrack dynamics id --loads` applies (OpenSimIdSolver, at the
// reference's pose), else the forces and points must be expressed in ground. Several forces on
// one body are summed into one wrench at the first one's point.
void loadPlates(const FilterJobOptions& cfg, const std::vector<ContactBody>& feet, FilterInput& in) {
  const Model& m = *in.model;
  const io::ExternalLoads loads = readLoads(cfg.grf, m.up());
  std::vector<int> body_of(loads.forces.size(), -1);
  std::string names;
  for (const ContactBody& b : feet) names += (names.empty() ? "" : ", ") + m.linkName(b.link);
  for (std::size_t f = 0; f < loads.forces.size(); ++f) {
    const io::ExternalForceSpec& s = loads.forces[f];
    for (std::size_t b = 0; b < feet.size(); ++b)
      if (m.linkName(feet[b].link) == s.applied_to_body) body_of[f] = static_cast<int>(b);
    if (body_of[f] < 0)
      throw ParseError(cfg.grf, s.line,
                       fmt::format("ExternalForce '{}' is applied to '{}', which is not a contact body ({})", s.name,
                                   s.applied_to_body, names));
    if (!in.osim && (s.force_expressed_in_body != "ground" ||
                     (!s.point_identifier.empty() && s.point_expressed_in_body != "ground")))
      throw ParseError(cfg.grf, s.line,
                       fmt::format("ExternalForce '{}': only forces and points expressed in ground are supported for a "
                                   "non-OpenSim model",
                                   s.name));
  }
  const std::size_t n = in.t.size(), nc = feet.size();
  if (in.t.front() < loads.firstTime() - 1e-6 || in.t.back() > loads.lastTime() + 1e-6)
    throw InvalidArgument(fmt::format("{}: its times {:g} … {:g} s do not cover the motion's {:g} … {:g} s", cfg.grf,
                                      loads.firstTime(), loads.lastTime(), in.t.front(), in.t.back()));
  in.contact.assign(n * nc, 0);
  in.plates.assign(n, std::vector<ExternalWrench>(nc));
  std::optional<biomech::OpenSimIdSolver> id;
  if (in.osim) id.emplace(*in.osim, &loads);
  std::vector<io::ExternalForceSample> samples(loads.forces.size());
  std::vector<ExternalWrench> ground(loads.forces.size());
  double height_sum = 0.0;
  int height_count = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double t = std::clamp(in.t[k], loads.firstTime(), loads.lastTime());
    loads.sample(t, samples);
    const std::vector<ExternalWrench>* wrenches = &ground;
    if (id) {
      wrenches = &id->externalWrenches(t, in.q[k]);
    } else {
      for (std::size_t f = 0; f < samples.size(); ++f) {
        ground[f].force = samples[f].force;
        ground[f].moment = samples[f].torque;
        ground[f].point = samples[f].point;  // no point: at the origin of ground
      }
    }
    std::vector<std::uint8_t> first(nc, 1);
    for (std::size_t b = 0; b < nc; ++b) in.plates[k][b].link = feet[b].link;
    for (std::size_t f = 0; f < samples.size(); ++f) {
      const auto b = static_cast<std::size_t>(body_of[f]);
      const ExternalWrench& e = (*wrenches)[f];
      ExternalWrench& w = in.plates[k][b];
      if (first[b]) w.point = e.point, first[b] = 0;
      w.force += e.force;
      w.moment += e.moment + (e.point - w.point).cross(e.force);
      if (e.force.dot(in.up) > cfg.grf_threshold) {
        in.contact[k * nc + b] = 1;
        if (samples[f].has_point) {
          height_sum += e.point.dot(in.up);
          ++height_count;
        }
      }
    }
  }
  // The plates' centre-of-pressure plane, for information: the model's soles (footContacts, from
  // its joints) need not sit at the lab's floor height, so the ground is placed under the feet.
  if (height_count > 0)
    in.ground_note = fmt::format(" (plates' centre of pressure at {:.4f} m)", height_sum / height_count);
}

// The ground under the motion: given, or the 5th percentile of the lowest sole point per frame.
void placeGround(const FilterJobOptions& cfg, const std::vector<ContactBody>& feet, FilterInput& in) {
  in.ground.normal = in.up;
  if (std::isfinite(cfg.ground_height)) {
    in.ground.offset = cfg.ground_height;
    in.ground_note = fmt::format("{:.4f} m along up (--ground-height)", cfg.ground_height) + in.ground_note;
    return;
  }
  const Model& m = *in.model;
  Data d(m);
  std::vector<double> lowest;
  for (const Configuration& q : in.q) {
    if (!q.joints.allFinite() || !q.base_position.allFinite()) continue;
    forwardKinematics(m, d, q);
    double low = std::numeric_limits<double>::infinity();
    for (const ContactBody& b : feet) {
      const Transform& X = d.link[static_cast<std::size_t>(b.link.value)];
      for (const Vector3d& p : b.points) low = std::min(low, in.up.dot(X.p + X.R * p));
    }
    lowest.push_back(low);
  }
  if (lowest.empty()) throw InvalidArgument(cfg.input + ": no frame with finite values");
  std::sort(lowest.begin(), lowest.end());
  in.ground.offset = lowest[lowest.size() / 20];
  in.ground_note =
      fmt::format("{:.4f} m along up (5th percentile of the lowest sole point per frame)", in.ground.offset) +
      in.ground_note;
}

// A treadmill: the stance feet of the reference move with the belt. Its velocity is the median
// velocity (along the ground) of the contact bodies while in contact (given flags, else the
// height rule alone); below 0.2 m/s the ground is taken as still.
void estimateBelt(const FilterJobOptions& cfg, const std::vector<ContactBody>& feet, FilterInput& in) {
  const Model& m = *in.model;
  Data d(m);
  Matrix6Xd J(6, m.nv());
  std::vector<double> vx, vy, vz;
  const std::size_t nc = feet.size();
  for (std::size_t k = 0; k < in.q.size(); ++k) {
    if (!in.derivatives.valid[k]) continue;
    forwardKinematics(m, d, in.q[k]);
    for (std::size_t b = 0; b < nc; ++b) {
      const bool on = in.contact.empty() ? touchesGround(m, d, feet[b], in.derivatives.velocity[k], in.ground,
                                                         cfg.contact_height, 1e9, J)
                                         : in.contact[k * nc + b] != 0;
      if (!on) continue;
      frameJacobian(m, d, m.linkFrame(feet[b].link), J);
      Vector3d v = (J * in.derivatives.velocity[k]).head<3>();
      v -= v.dot(in.up) * in.up;
      vx.push_back(v.x()), vy.push_back(v.y()), vz.push_back(v.z());
    }
  }
  if (vx.empty()) return;
  const auto median = [](std::vector<double>& x) {
    std::nth_element(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(x.size() / 2), x.end());
    return x[x.size() / 2];
  };
  const Vector3d belt(median(vx), median(vy), median(vz));
  if (belt.norm() < 0.2) return;
  // On a treadmill the body stays in place: the feet's mean position does not travel. Over
  // ground (a run: the height rule alone also takes swing feet skimming the floor) it travels
  // about as fast as the "belt" and the ground is still.
  std::optional<Vector3d> first, last;
  double t0 = 0.0, t1 = 0.0;
  for (std::size_t k = 0; k < in.q.size(); ++k) {
    if (!in.derivatives.valid[k]) continue;
    forwardKinematics(m, d, in.q[k]);
    Vector3d mid = Vector3d::Zero();
    for (const ContactBody& b : feet) mid += d.link[static_cast<std::size_t>(b.link.value)].p / double(nc);
    mid -= mid.dot(in.up) * in.up;
    if (!first) first = mid, t0 = in.t[k];
    last = mid, t1 = in.t[k];
  }
  const double travel = t1 > t0 ? (*last - *first).norm() / (t1 - t0) : 0.0;
  if (travel > 0.5 * belt.norm()) {
    in.ground_note += fmt::format(
        "; still (the feet travel at {:.2f} m/s: not a treadmill, although the feet near the ground move at "
        "{:.2f} m/s)",
        travel, belt.norm());
    return;
  }
  in.ground.velocity = belt;
  in.ground_note +=
      fmt::format("; moving at ({:.3f}, {:.3f}, {:.3f}) m/s (a treadmill: median velocity of the feet in contact)",
                  belt.x(), belt.y(), belt.z());
}

// Fig. 6: the level walk put on a down slope. Contacts are scheduled on the level reference (the
// rule of ContactSource::Detect), then the reference is lowered along up by tan(slope) × its
// progress downhill, and the ground tilted to match.
void putOnSlope(const FilterJobOptions& cfg, const std::vector<ContactBody>& feet, FilterInput& in) {
  const Model& m = *in.model;
  if (m.nvBase() != 6) throw InvalidArgument("--slope-deg needs a floating-base model");
  if (!in.contact.empty()) throw InvalidArgument("--slope-deg and --grf cannot be combined (the plates are level)");
  const std::size_t n = in.q.size(), nc = feet.size();
  in.contact.assign(n * nc, 0);
  Data d(m);
  Matrix6Xd J(6, m.nv());
  for (std::size_t k = 0; k < n; ++k) {
    if (!in.derivatives.valid[k]) continue;
    forwardKinematics(m, d, in.q[k]);
    for (std::size_t b = 0; b < nc; ++b)
      in.contact[k * nc + b] = touchesGround(m, d, feet[b], in.derivatives.velocity[k], in.ground, cfg.contact_height,
                                             cfg.contact_speed, J, DynamicsFilterOptions{}.contact_point_tolerance);
  }
  const Vector3d p0 = in.q.front().base_position;
  Vector3d dir = in.q.back().base_position - p0;
  dir -= dir.dot(in.up) * in.up;
  if (dir.norm() < 0.2) throw InvalidArgument("--slope-deg: the motion does not travel (needs a walk or run)");
  dir.normalize();
  const double slope = std::tan(cfg.slope_deg * M_PI / 180.0);
  for (std::size_t k = 0; k < n; ++k) {
    in.q[k].base_position -= slope * dir.dot(in.q[k].base_position - p0) * in.up;
    // ν and ν̇ of the lowered reference: the base's vertical rate follows its downhill rate.
    in.derivatives.velocity[k].head<3>() -= slope * dir.dot(in.derivatives.velocity[k].head<3>()) * in.up;
    in.derivatives.acceleration[k].head<3>() -= slope * dir.dot(in.derivatives.acceleration[k].head<3>()) * in.up;
  }
  const Vector3d point = in.ground.offset * in.up + dir.dot(p0) * dir;
  in.ground = GroundPlane::slope(in.up, dir, cfg.slope_deg, point);
  in.ground_note +=
      fmt::format("; tilted {:g} deg down along ({:.2f}, {:.2f}, {:.2f})", cfg.slope_deg, dir.x(), dir.y(), dir.z());
}

// --start / --end: the frames within the time range, after the input's low-pass and derivatives
// over the whole motion (as OpenSim's tools select their range).
void selectTimeRange(const FilterJobOptions& cfg, FilterInput& in) {
  if (!std::isfinite(cfg.time_start) && !std::isfinite(cfg.time_end)) return;
  std::vector<std::size_t> keep;
  for (std::size_t k = 0; k < in.t.size(); ++k)
    if (in.t[k] >= cfg.time_start - 1e-6 && in.t[k] <= cfg.time_end + 1e-6) keep.push_back(k);
  if (keep.size() < 2)
    throw InvalidArgument(fmt::format("--start {:g} --end {:g}: {} frame(s) of the input's {:g} … {:g} s; need 2",
                                      cfg.time_start, cfg.time_end, keep.size(), in.t.front(), in.t.back()));
  const auto pick = [&](auto& v) {
    std::remove_reference_t<decltype(v)> out;
    out.reserve(keep.size());
    for (const std::size_t k : keep) out.push_back(v[k]);
    v = std::move(out);
  };
  pick(in.t);
  pick(in.q);
  pick(in.derivatives.velocity);
  pick(in.derivatives.acceleration);
  pick(in.derivatives.valid);
}

// --adjust-com BODY: RRA's mass-centre adjustment from the reference motion and the plates, the
// model replaced by the adjusted one before filtering.
void adjustCom(const FilterJobOptions& cfg, FilterInput& in) {
  const Model& m = *in.model;
  const auto link = m.findLink(cfg.adjust_com);
  if (!link) throw InvalidArgument("--adjust-com: model " + m.name() + " has no body '" + cfg.adjust_com + "'");
  if (in.plates.empty()) throw InvalidArgument("--adjust-com needs the measured loads (--grf)");
  std::vector<int> unactuated = in.unactuated;
  if (unactuated.empty()) unactuated = {0, 1, 2, 3, 4, 5};
  in.com =
      estimateComAdjustment(m, *link, in.q, in.derivatives, in.plates, unactuated, in.moment_rows, in.gravity, in.up);
  in.com_body = cfg.adjust_com;
  in.model = std::make_shared<const Model>(withComOffset(m, *link, in.com->offset));
  if (in.osim) in.osim->model = in.model;
}

}  // namespace

FilterInput prepareFilterInput(const FilterJobOptions& cfg, const Reporter& reporter) {
  checkOptions(cfg);
  FilterInput in;
  loadMotion(cfg, in, reporter);
  selectTimeRange(cfg, in);
  const Model& m = *in.model;
  std::vector<ContactBody> feet = footContacts(m, in.up);
  if (!cfg.grf.empty()) loadPlates(cfg, feet, in);
  if (!cfg.adjust_com.empty()) adjustCom(cfg, in);
  placeGround(cfg, feet, in);
  estimateBelt(cfg, feet, in);
  // --sole stance: the soles as the (level) reference puts its feet down flat; before the slope,
  // which only moves the reference along up.
  in.sole = cfg.sole == "auto" ? (in.osim ? "model" : "stance") : cfg.sole;
  if (in.sole == "stance") {
    GroundPlane level = in.ground;
    level.normal = in.up.normalized();
    feet = fitSolesToStance(*in.model, std::move(feet), in.q, in.t, level);
  }
  for (const ContactBody& f : feet) in.sole_tilt_deg.push_back(soleTilt(*in.model, f, in.up) * 180.0 / M_PI);
  in.feet = feet;
  if (cfg.slope_deg != 0.0) putOnSlope(cfg, feet, in);
  return in;
}

}  // namespace kinetrack::app
