// The dynamics filter's set-up helpers (ground plane, foot contacts of known models) and the
// offline driver filterMotion.
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include <Eigen/Eigenvalues>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/dynamics/dynamics_filter.hpp"
#include "kinetrack/dynamics/trajectory.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack {

const char* outcomeName(const DynamicsFilterFrame& frame) {
  // The precedence of the events and outcomes, as the filter's report has always written them.
  if (frame.reset) return "reset";
  if (frame.gap) return "invalid_reference";
  if (frame.status != ik::Status::Converged) return "solver_limit";
  if (frame.no_contact) return "no_contact";
  return "ok";
}

GroundPlane GroundPlane::slope(const Vector3d& up, const Vector3d& downhill, double degrees, const Vector3d& point) {
  if (!std::isfinite(degrees) || std::abs(degrees) >= 60.0)
    throw InvalidArgument("GroundPlane::slope: the angle must be finite and within ±60 degrees");
  if (!up.allFinite() || !downhill.allFinite() || up.norm() < 1e-12)
    throw InvalidArgument("GroundPlane::slope: the up direction must be finite and non-zero");
  const Vector3d n0 = up.normalized();
  Vector3d d = downhill - downhill.dot(n0) * n0;  // horizontal part
  if (d.norm() < 1e-9) throw InvalidArgument("GroundPlane::slope: the downhill direction is parallel to up");
  d.normalize();
  // The ground falls along d: its normal leans towards d by the slope angle.
  const double a = degrees * M_PI / 180.0;
  GroundPlane g;
  g.normal = (std::cos(a) * n0 + std::sin(a) * d).normalized();
  g.offset = g.normal.dot(point);
  return g;
}

namespace {

// The joint that attaches `toe` (through massless intermediate links) to `foot`: its placement
// in the foot frame is the ball of the foot.
std::optional<Vector3d> ballOfFoot(const Model& m, LinkId foot, LinkId toe) {
  LinkId l = toe;
  while (l.valid() && m.parent(l).valid() && m.parent(l) != foot) l = m.parent(l);
  if (!l.valid() || m.parent(l) != foot) return std::nullopt;
  return m.jointPlacement(m.jointOfLink(l)).p;
}

ContactBody sole(const Model& m, const Data& neutral, const std::string& name, LinkId foot, const Vector3d& ball,
                 const Vector3d& up, double heel_back) {
  // In the foot frame at the neutral pose: up, forward (towards the ball, horizontal), lateral.
  const Matrix3d& R = neutral.link[static_cast<std::size_t>(foot.value)].R;
  const Vector3d u = R.transpose() * up;
  Vector3d fwd = ball - ball.dot(u) * u;
  const double len = fwd.norm();
  if (len < 1e-6) throw InvalidArgument("footContacts: the ball of '" + m.linkName(foot) + "' is above its origin");
  fwd /= len;
  const Vector3d lat = u.cross(fwd);
  // The sole is the plane through the ball normal to up; the heel lies below the origin, moved
  // back by heel_back × the origin-to-ball length.
  const Vector3d heel = (ball.dot(u)) * u - heel_back * len * fwd;
  const double length = len * (1.0 + heel_back);
  ContactBody b;
  b.name = name;
  b.link = foot;
  b.points = {ball + 0.25 * length * lat, ball - 0.25 * length * lat, heel + 0.15 * length * lat,
              heel - 0.15 * length * lat};
  return b;
}

}  // namespace

std::vector<ContactBody> footContacts(const Model& model, const Vector3d& up) {
  struct Scheme {
    const char *right_foot, *right_toe, *left_foot, *left_toe;
    double heel_back;  // heel behind the foot origin, × origin-to-ball length
  };
  // Built-in humans: origin at the ankle, the heel ~30 % of the ankle-to-ball length behind it;
  // OpenSim gait models: calcn's origin at the back of the heel.
  static const Scheme schemes[] = {{"RightFoot", "RightToe", "LeftFoot", "LeftToe", 0.3},
                                   {"calcn_r", "toes_r", "calcn_l", "toes_l", 0.0}};
  Data neutral(model);
  Configuration q0(model);
  forwardKinematics(model, neutral, q0);
  const Vector3d u = up.normalized();
  for (const Scheme& s : schemes) {
    const auto rf = model.findLink(s.right_foot), rt = model.findLink(s.right_toe);
    const auto lf = model.findLink(s.left_foot), lt = model.findLink(s.left_toe);
    if (!rf || !rt || !lf || !lt) continue;
    const auto rb = ballOfFoot(model, *rf, *rt), lb = ballOfFoot(model, *lf, *lt);
    if (!rb || !lb) continue;
    return {sole(model, neutral, "right foot", *rf, *rb, u, s.heel_back),
            sole(model, neutral, "left foot", *lf, *lb, u, s.heel_back)};
  }
  throw InvalidArgument("footContacts: model '" + model.name() +
                        "' has neither RightFoot/RightToe/LeftFoot/LeftToe (built-in human models) nor "
                        "calcn_r/toes_r/calcn_l/toes_l (OpenSim gait models) links");
}

std::vector<ContactBody> fitSolesToStance(const Model& model, std::vector<ContactBody> contacts,
                                          std::span<const Configuration> q, std::span<const double> times,
                                          const GroundPlane& ground, double still_speed, int min_frames) {
  if (q.size() != times.size())
    throw InvalidArgument("fitSolesToStance: " + std::to_string(q.size()) + " configurations but " +
                          std::to_string(times.size()) + " times");
  if (q.size() < 3) throw InvalidArgument("fitSolesToStance: needs at least 3 frames");
  if (!(still_speed > 0.0) || !std::isfinite(still_speed))
    throw InvalidArgument("fitSolesToStance: still_speed must be finite and > 0 (m/s)");
  for (std::size_t k = 1; k < times.size(); ++k)
    if (!(times[k] > times[k - 1])) throw InvalidArgument("fitSolesToStance: times must increase");
  const std::size_t n = q.size(), nb = contacts.size();
  // Link placements of every body at every frame.
  std::vector<std::vector<Matrix3d>> R(nb, std::vector<Matrix3d>(n));
  std::vector<std::vector<Vector3d>> p(nb, std::vector<Vector3d>(n));
  Data data(model);
  for (std::size_t k = 0; k < n; ++k) {
    forwardKinematics(model, data, q[k]);
    for (std::size_t b = 0; b < nb; ++b) {
      const auto& X = data.link[static_cast<std::size_t>(contacts[b].link.value)];
      R[b][k] = X.R;
      p[b][k] = X.p;
    }
  }
  const Vector3d up = ground.normal.normalized();
  for (std::size_t b = 0; b < nb; ++b) {
    ContactBody& body = contacts[b];
    if (body.points.empty()) continue;
    Vector3d sum = Vector3d::Zero();
    int still = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t a = k == 0 ? 0 : k - 1, c = k + 1 == n ? k : k + 1;
      Vector3d vel = (p[b][c] - p[b][a]) / (times[c] - times[a]) - ground.velocity;
      vel -= vel.dot(up) * up;  // along the surface
      const double vz = ((p[b][c] - p[b][a]) / (times[c] - times[a])).dot(up);
      if (!R[b][k].allFinite() || !vel.allFinite() || std::hypot(vel.norm(), vz) > still_speed) continue;
      sum += R[b][k].transpose() * up;
      ++still;
    }
    if (still < min_frames || sum.norm() < 1e-9) continue;
    const Vector3d u = sum.normalized();  // the ground normal in the link frame, flat stance
    double lowest = std::numeric_limits<double>::infinity();
    for (const Vector3d& x : body.points) lowest = std::min(lowest, u.dot(x));
    for (Vector3d& x : body.points) x -= (u.dot(x) - lowest) * u;
  }
  return contacts;
}

double soleTilt(const Model& model, const ContactBody& body, const Vector3d& up) {
  if (body.points.size() < 3) throw InvalidArgument("soleTilt: '" + body.name + "' has fewer than 3 points");
  Vector3d mean = Vector3d::Zero();
  for (const Vector3d& x : body.points) mean += x;
  mean /= static_cast<double>(body.points.size());
  Eigen::Matrix3d S = Eigen::Matrix3d::Zero();
  for (const Vector3d& x : body.points) S += (x - mean) * (x - mean).transpose();
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(S);
  const Vector3d normal = eig.eigenvectors().col(0);  // smallest spread
  Data neutral(model);
  forwardKinematics(model, neutral, Configuration(model));
  const Vector3d u = neutral.link[static_cast<std::size_t>(body.link.value)].R.transpose() * up.normalized();
  return std::acos(std::min(1.0, std::abs(normal.dot(u))));
}

namespace {

void checkMotionSizes(const DynamicsFilter& filter, std::size_t n, std::size_t times, std::size_t contact,
                      std::size_t measured) {
  const std::size_t nc = filter.contacts().size();
  if (times != n)
    throw InvalidArgument("filterMotion: " + std::to_string(n) + " configurations but " + std::to_string(times) +
                          " times");
  if (filter.options().contact_source == ContactSource::Given && contact != n * nc)
    throw InvalidArgument("filterMotion: expected " + std::to_string(n * nc) +
                          " contact flags (frames × bodies), got " + std::to_string(contact));
  if (measured != 0 && measured != n)
    throw InvalidArgument("filterMotion: expected one measured wrench list per frame, got " + std::to_string(measured) +
                          " for " + std::to_string(n) + " frames");
}

}  // namespace

FilteredMotion filterMotion(DynamicsFilter& filter, const std::vector<Configuration>& q, const std::vector<double>& t,
                            std::span<const std::uint8_t> contact,
                            std::span<const std::vector<ExternalWrench>> measured,
                            const std::function<void(int, int)>& progress) {
  const Model& m = filter.model();
  const std::size_t n = q.size();
  checkMotionSizes(filter, n, t.size(), contact.size(), measured.size());
  // Frames with non-finite values are gaps: no derivative uses them, the filter holds over them.
  std::vector<std::uint8_t> gap(n, 0);
  std::vector<Configuration> clean = q;
  for (std::size_t k = 0; k < n; ++k) {
    const bool ok = q[k].joints.size() == m.numJoints() && q[k].base_position.allFinite() &&
                    q[k].base_rotation.allFinite() && q[k].joints.allFinite();
    if (!ok) {
      gap[k] = 1;
      clean[k] = Configuration(m);
    }
  }
  return filterMotion(filter, clean, t, differentiate(m, clean, t, gap), contact, measured, progress);
}

FilteredMotion filterMotion(DynamicsFilter& filter, const std::vector<Configuration>& q, const std::vector<double>& t,
                            const TrajectoryDerivatives& d, std::span<const std::uint8_t> contact,
                            std::span<const std::vector<ExternalWrench>> measured,
                            const std::function<void(int, int)>& progress) {
  const Model& m = filter.model();
  const std::size_t n = q.size(), nc = filter.contacts().size();
  checkMotionSizes(filter, n, t.size(), contact.size(), measured.size());
  if (d.velocity.size() != n || d.acceleration.size() != n || d.valid.size() != n)
    throw InvalidArgument("filterMotion: the derivatives do not have one entry per frame");
  if (n < 2) throw InvalidArgument("filterMotion: at least 2 frames are needed");
  Configuration invalid(m);
  invalid.joints.setConstant(std::numeric_limits<double>::quiet_NaN());
  FilteredMotion out;
  out.frames.reserve(n);
  out.seconds_per_frame.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    const double dt = k + 1 < n ? t[k + 1] - t[k] : t[k] - t[k - 1];
    const std::span<const std::uint8_t> flags = contact.empty() ? contact : contact.subspan(k * nc, nc);
    const std::span<const ExternalWrench> meas =
        measured.empty() ? std::span<const ExternalWrench>{} : std::span<const ExternalWrench>(measured[k]);
    const auto start = std::chrono::steady_clock::now();
    const DynamicsFilterFrame& f =
        filter.step(d.valid[k] ? q[k] : invalid, d.velocity[k], d.acceleration[k], dt, flags, meas);
    out.seconds_per_frame.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    out.frames.push_back(f);
    if (progress) progress(static_cast<int>(k + 1), static_cast<int>(n));
  }
  return out;
}

}  // namespace kinetrack
