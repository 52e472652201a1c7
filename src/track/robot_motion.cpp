#include "kinetrack/track/robot_motion.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/io/table/npz.hpp"

namespace kinetrack::track {
namespace {

/// Central differences (one-sided at the ends) of samples at `t`.
template <class V, class Diff>
std::vector<V> differentiate(const std::vector<double>& t, std::size_t n, Diff diff) {
  std::vector<V> out(n);
  for (std::size_t f = 0; f < n; ++f) {
    const std::size_t a = f > 0 ? f - 1 : f, b = f + 1 < n ? f + 1 : f;
    out[f] = a == b ? V(diff(a, a) * 0.0) : V(diff(a, b) / (t[b] - t[a]));
  }
  return out;
}

}  // namespace

const char* toString(QuaternionOrder o) { return o == QuaternionOrder::XYZW ? "xyzw" : "wxyz"; }

QuaternionOrder parseQuaternionOrder(const std::string& name) {
  if (name == "xyzw") return QuaternionOrder::XYZW;
  if (name == "wxyz") return QuaternionOrder::WXYZ;
  throw InvalidArgument("quaternion order: expected xyzw or wxyz, got '" + name + "'");
}

RobotMotion robotMotion(const Model& model, const std::vector<double>& times, const std::vector<Configuration>& q,
                        const std::vector<std::uint8_t>& gap, double rate, QuaternionOrder order) {
  if (times.size() != q.size() || times.empty())
    throw InvalidArgument(fmt::format("robot motion: {} times for {} configurations", times.size(), q.size()));
  if (!gap.empty() && gap.size() != q.size())
    throw InvalidArgument(fmt::format("robot motion: {} gap flags for {} configurations", gap.size(), q.size()));
  if (!(std::isfinite(rate) && rate >= 0.0)) throw InvalidArgument("robot motion: the rate must be finite and ≥ 0");
  for (std::size_t f = 0; f < q.size(); ++f) {
    if (q[f].joints.size() != model.numJoints())
      throw InvalidArgument(fmt::format("robot motion: configuration {} has {} joints, the model {}", f,
                                        q[f].joints.size(), model.numJoints()));
    if (f > 0 && !(times[f] > times[f - 1])) throw InvalidArgument("robot motion: times must increase");
  }
  RobotMotion m;
  m.order = order;
  m.joint_names = model.jointNames();
  // The frames: the input's, or resampled.
  std::vector<Configuration> out;
  if (rate > 0.0) {
    m.fps = rate;
    const double t0 = times.front(), t1 = times.back();
    const auto count = static_cast<std::size_t>(std::floor((t1 - t0) * rate + 1e-9)) + 1;
    std::size_t k = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const double t = t0 + static_cast<double>(i) / rate;
      while (k + 2 < times.size() && times[k + 1] <= t) ++k;
      const std::size_t k1 = std::min(k + 1, times.size() - 1);
      const double u = k1 == k ? 0.0 : std::clamp((t - times[k]) / (times[k1] - times[k]), 0.0, 1.0);
      Configuration c = q[k];
      c.joints = (1.0 - u) * q[k].joints + u * q[k1].joints;
      c.base_position = (1.0 - u) * q[k].base_position + u * q[k1].base_position;
      c.base_rotation =
          so3::exp(u * so3::log(q[k1].base_rotation * q[k].base_rotation.transpose())) * q[k].base_rotation;
      m.times.push_back(t);
      m.gap.push_back(!gap.empty() && (gap[k] != 0 || (u > 0.0 && gap[k1] != 0)) ? 1 : 0);
      out.push_back(std::move(c));
    }
  } else {
    m.times = times;
    m.fps = times.size() > 1 ? static_cast<double>(times.size() - 1) / (times.back() - times.front()) : 0.0;
    m.gap = gap.empty() ? std::vector<std::uint8_t>(q.size(), 0) : gap;
    out = q;
  }
  const std::size_t n = out.size();
  Eigen::Vector4d previous = Eigen::Vector4d::Zero();
  for (const Configuration& c : out) {
    m.root_position.push_back(c.base_position);
    Eigen::Vector4d wxyz = so3::toQuaternionWxyz(c.base_rotation);
    if (previous.dot(wxyz) < 0.0) wxyz = -wxyz;  // the hemisphere of the previous frame
    previous = wxyz;
    m.root_quaternion.push_back(order == QuaternionOrder::WXYZ ? wxyz
                                                               : Eigen::Vector4d(wxyz[1], wxyz[2], wxyz[3], wxyz[0]));
    m.joints.push_back(c.joints);
  }
  m.root_linear_velocity = differentiate<Vector3d>(
      m.times, n, [&](std::size_t a, std::size_t b) { return Vector3d(out[b].base_position - out[a].base_position); });
  m.root_angular_velocity = differentiate<Vector3d>(m.times, n, [&](std::size_t a, std::size_t b) {
    return Vector3d(so3::log(out[b].base_rotation * out[a].base_rotation.transpose()));
  });
  m.joint_velocity = differentiate<VectorXd>(
      m.times, n, [&](std::size_t a, std::size_t b) { return VectorXd(out[b].joints - out[a].joints); });
  return m;
}

std::string robotMotionCsv(const RobotMotion& m) {
  std::string s = "time,root_x,root_y,root_z,";
  s += m.order == QuaternionOrder::XYZW ? "root_qx,root_qy,root_qz,root_qw" : "root_qw,root_qx,root_qy,root_qz";
  for (const std::string& j : m.joint_names) s.append(",").append(j);
  s += ",root_vx,root_vy,root_vz,root_wx,root_wy,root_wz";
  for (const std::string& j : m.joint_names) s.append(",").append(j).append("_vel");
  s += ",gap\n";
  auto add = [&s](double v) { fmt::format_to(std::back_inserter(s), ",{:.17g}", v); };
  for (std::size_t f = 0; f < m.times.size(); ++f) {
    fmt::format_to(std::back_inserter(s), "{:.17g}", m.times[f]);
    for (int i = 0; i < 3; ++i) add(m.root_position[f][i]);
    for (int i = 0; i < 4; ++i) add(m.root_quaternion[f][i]);
    for (const double v : m.joints[f]) add(v);
    for (int i = 0; i < 3; ++i) add(m.root_linear_velocity[f][i]);
    for (int i = 0; i < 3; ++i) add(m.root_angular_velocity[f][i]);
    for (const double v : m.joint_velocity[f]) add(v);
    s += m.gap[f] != 0 ? ",1\n" : ",0\n";
  }
  return s;
}

void writeRobotMotionCsv(const RobotMotion& m, const std::string& path) {
  io::writeFileAtomically(path, robotMotionCsv(m));
}

void writeRobotMotionNpz(const RobotMotion& m, const std::string& path) {
  const std::size_t n = m.times.size(), nj = m.joint_names.size();
  auto rows = [&](const char* name, std::size_t cols, auto get) {
    io::NpyArray a;
    a.name = name;
    a.shape = {n, cols};
    a.values.reserve(n * cols);
    for (std::size_t f = 0; f < n; ++f)
      for (std::size_t c = 0; c < cols; ++c) a.values.push_back(get(f, c));
    return a;
  };
  std::vector<io::NpyArray> arrays;
  arrays.push_back({"fps", {}, {m.fps}, {}});
  arrays.push_back({"time", {n}, m.times, {}});
  arrays.push_back({"joint_names", {nj}, {}, m.joint_names});
  arrays.push_back({"quat_order", {1}, {}, {toString(m.order)}});
  const auto idx = [](std::size_t c) { return static_cast<Eigen::Index>(c); };
  arrays.push_back(rows("root_pos", 3, [&](std::size_t f, std::size_t c) { return m.root_position[f][idx(c)]; }));
  arrays.push_back(rows("root_rot", 4, [&](std::size_t f, std::size_t c) { return m.root_quaternion[f][idx(c)]; }));
  arrays.push_back(rows("dof_pos", nj, [&](std::size_t f, std::size_t c) { return m.joints[f][idx(c)]; }));
  arrays.push_back(
      rows("root_lin_vel", 3, [&](std::size_t f, std::size_t c) { return m.root_linear_velocity[f][idx(c)]; }));
  arrays.push_back(
      rows("root_ang_vel", 3, [&](std::size_t f, std::size_t c) { return m.root_angular_velocity[f][idx(c)]; }));
  arrays.push_back(rows("dof_vel", nj, [&](std::size_t f, std::size_t c) { return m.joint_velocity[f][idx(c)]; }));
  io::NpyArray g{"gap", {n}, {}, {}};
  for (const std::uint8_t v : m.gap) g.values.push_back(v);
  arrays.push_back(std::move(g));
  io::writeNpz(path, arrays);
}

void writeRobotMotion(const RobotMotion& m, const std::string& path) {
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npz") == 0)
    writeRobotMotionNpz(m, path);
  else
    writeRobotMotionCsv(m, path);
}

}  // namespace kinetrack::track
