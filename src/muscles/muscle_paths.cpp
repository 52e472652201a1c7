// Muscle-tendon lengths and their Jacobian (muscle_paths.hpp).
#include "kinetrack/muscles/muscle_paths.hpp"

#include <Eigen/Geometry>
#include <algorithm>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "wrapping.hpp"

namespace kinetrack::muscles {

namespace {
using PointKind = io::OpenSimPathPoint::Kind;
}

MusclePathData::MusclePathData(const MusclePaths& paths)
    : length(VectorXd::Zero(paths.numMuscles())),
      jacobian(MatrixXd::Zero(paths.numMuscles(), paths.model().nv())),
      wraps_active(paths.numMuscles(), 0),
      kin(paths.model()),
      body_jacobian(paths.bodies.size(), Matrix6Xd::Zero(6, paths.model().nv())),
      points(paths.max_points),
      needs_difference(paths.numMuscles(), 0),
      q_shift(paths.model()),
      length_plus(VectorXd::Zero(paths.numMuscles())) {}

MusclePaths::MusclePaths(std::shared_ptr<const io::OpenSimModel> model, io::OpenSimMuscleSet set)
    : model_(std::move(model)), set_(std::move(set)) {
  if (!model_ || !model_->model) throw InvalidArgument("MusclePaths: no model");
  const Model& m = *model_->model;
  auto bodyIndex = [&](const std::string& body, int line, const std::string& what) {
    FrameId f;
    try {
      f = m.frameId(body);
    } catch (const InvalidArgument&) {
      throw ParseError(set_.source, line, what + ": body '" + body + "' is not a body of the model");
    }
    const auto it = std::find(bodies.begin(), bodies.end(), f);
    if (it != bodies.end()) return static_cast<int>(it - bodies.begin());
    bodies.push_back(f);
    return static_cast<int>(bodies.size() - 1);
  };
  auto jointOf = [&](const std::string& coordinate, int line, const std::string& what) {
    const io::OpenSimCoordinate* c = model_->findCoordinate(coordinate);
    if (!c) throw ParseError(set_.source, line, what + ": unknown coordinate '" + coordinate + "'");
    return c->joint.value;
  };
  for (const io::OpenSimWrapObject& w : set_.wrap_objects)
    wrap_body.push_back(bodyIndex(w.body, w.line, "wrap object '" + w.name + "'"));
  for (const io::OpenSimMuscle& mu : set_.muscles) {
    std::vector<PointRef> r;
    for (const io::OpenSimPathPoint& p : mu.points) {
      const std::string what = "muscle '" + mu.name + "', path point '" + p.name + "'";
      PointRef ref;
      ref.body = bodyIndex(p.body, p.line, what);
      if (p.kind == PointKind::Conditional) ref.joint = jointOf(p.coordinate, p.line, what);
      if (p.kind == PointKind::Moving)
        for (int k = 0; k < 3; ++k)
          if (!p.coordinates[k].empty()) ref.joints[k] = jointOf(p.coordinates[k], p.line, what);
      r.push_back(ref);
    }
    refs.push_back(std::move(r));
    max_points = std::max(max_points, static_cast<int>(mu.points.size() + 2 * mu.wraps.size()));
  }
}

int MusclePaths::muscleIndex(std::string_view name) const {
  for (int i = 0; i < numMuscles(); ++i)
    if (set_.muscles[i].name == name) return i;
  return -1;
}

void MusclePaths::buildPath(int muscle, const Configuration& q, MusclePathData& data) const {
  const io::OpenSimMuscle& mu = set_.muscles[muscle];
  const std::vector<PointRef>& r = refs[muscle];
  std::size_t n = 0;
  for (std::size_t k = 0; k < mu.points.size(); ++k) {
    const io::OpenSimPathPoint& p = mu.points[k];
    Vector3d local = p.location;
    if (p.kind == PointKind::Conditional) {
      const double v = q.joints[r[k].joint];
      if (v < p.range_min || v > p.range_max) continue;
    } else if (p.kind == PointKind::Moving) {
      for (int a = 0; a < 3; ++a)
        if (r[k].joints[a] >= 0) local(a) = p.function[a].value(q.joints[r[k].joints[a]]);
    }
    const Transform& X = data.kin.frame[bodies[r[k].body].value];
    MusclePathData::Point& pt = data.points[n++];
    pt.world = X.R * local + X.p;
    pt.body = r[k].body;
    pt.source = static_cast<int>(k);
    pt.arc_to_next = -1.0;
    pt.moving = p.kind == PointKind::Moving ? static_cast<int>(k) : -1;
  }
  int active = 0;
  data.needs_difference[muscle] = 0;
  for (const io::OpenSimPathWrap& pw : mu.wraps) {
    const io::OpenSimWrapObject& obj = set_.wrap_objects[pw.wrap_object];
    const int wb = wrap_body[pw.wrap_object];
    const Transform& Xb = data.kin.frame[bodies[wb].value];
    const Matrix3d R = Xb.R * obj.rotation;
    const Vector3d o = Xb.R * obj.translation + Xb.p;
    for (std::size_t k = 0; k + 1 < n; ++k) {
      MusclePathData::Point& a = data.points[k];
      const MusclePathData::Point& b = data.points[k + 1];
      if (a.arc_to_next >= 0.0) continue;
      const int first = pw.range_begin < 0 ? 0 : pw.range_begin - 1;
      const int last = pw.range_end < 0 ? static_cast<int>(mu.points.size()) - 1 : pw.range_end - 1;
      if (a.source < first || b.source > last) continue;
      const detail::WrapResult w =
          detail::wrapSegment(obj, R.transpose() * (a.world - o), R.transpose() * (b.world - o));
      if (!w.wrapped) continue;
      std::move_backward(data.points.begin() + static_cast<long>(k) + 1, data.points.begin() + static_cast<long>(n),
                         data.points.begin() + static_cast<long>(n) + 2);
      MusclePathData::Point& t1 = data.points[k + 1];
      MusclePathData::Point& t2 = data.points[k + 2];
      t1 = {R * w.t1 + o, wb, a.source, w.arc, -1, pw.wrap_object};
      t2 = {R * w.t2 + o, wb, a.source, -1.0, -1, -1};
      n += 2;
      ++active;
      if (obj.kind == io::OpenSimWrapObject::Kind::Ellipsoid) data.needs_difference[muscle] = 1;
      break;
    }
  }
  data.wraps_active[muscle] = active;
  // Mark the end of the path.
  if (n < data.points.size()) data.points[n].source = -1;
}

namespace {
// Number of points of the built path (buildPath marks the end with source = −1).
std::size_t pathSize(const MusclePathData& data) {
  std::size_t n = 0;
  while (n < data.points.size() && data.points[n].source >= 0) ++n;
  return n;
}

double pathLength(const MusclePathData& data, std::size_t n) {
  double l = 0.0;
  for (std::size_t k = 0; k + 1 < n; ++k) {
    const MusclePathData::Point& a = data.points[k];
    l += a.arc_to_next >= 0.0 ? a.arc_to_next : (data.points[k + 1].world - a.world).norm();
  }
  return l;
}
}  // namespace

int MusclePaths::maxDrawnPoints(int muscle, int arc_samples) const {
  const io::OpenSimMuscle& mu = set_.muscles[static_cast<std::size_t>(muscle)];
  return static_cast<int>(mu.points.size() + mu.wraps.size() * (2 + static_cast<std::size_t>(arc_samples)));
}

int MusclePaths::drawnPath(int muscle, const Configuration& q, MusclePathData& data, std::vector<Vector3d>& out,
                           int arc_samples) const {
  buildPath(muscle, q, data);
  const std::size_t n = pathSize(data);
  const std::size_t before = out.size();
  for (std::size_t k = 0; k < n; ++k) {
    const MusclePathData::Point& a = data.points[k];
    out.push_back(a.world);
    if (a.arc_to_next < 0.0 || a.wrap < 0 || k + 1 >= n) continue;
    const io::OpenSimWrapObject& obj = set_.wrap_objects[static_cast<std::size_t>(a.wrap)];
    const Transform& Xb =
        data.kin.frame[bodies[static_cast<std::size_t>(wrap_body[static_cast<std::size_t>(a.wrap)])].value];
    const Matrix3d R = Xb.R * obj.rotation;
    const Vector3d o = Xb.R * obj.translation + Xb.p;
    const Vector3d p1 = R.transpose() * (a.world - o), p2 = R.transpose() * (data.points[k + 1].world - o);
    for (int s = 1; s <= arc_samples; ++s) {
      const double t = static_cast<double>(s) / (arc_samples + 1);
      Vector3d c = (1.0 - t) * p1 + t * p2;
      switch (obj.kind) {
        case io::OpenSimWrapObject::Kind::Sphere:
          if (c.norm() > 1e-12) c *= obj.radius / c.norm();
          break;
        case io::OpenSimWrapObject::Kind::Cylinder: {
          const double r = c.head<2>().norm();
          if (r > 1e-12) c.head<2>() *= obj.radius / r;
          break;
        }
        case io::OpenSimWrapObject::Kind::Ellipsoid: {
          const double f = c.cwiseQuotient(obj.dimensions).norm();
          if (f > 1e-12) c /= f;
          break;
        }
      }
      out.push_back(R * c + o);
    }
  }
  return static_cast<int>(out.size() - before);
}

double MusclePaths::muscleLength(int muscle, const Configuration& q, MusclePathData& data) const {
  buildPath(muscle, q, data);
  return pathLength(data, pathSize(data));
}

void MusclePaths::evaluate(const Configuration& q, MusclePathData& data, bool with_jacobian) const {
  const Model& m = model();
  framesForwardKinematics(m, data.kin, q);
  if (with_jacobian)
    for (std::size_t b = 0; b < bodies.size(); ++b) frameJacobian(m, data.kin, bodies[b], data.body_jacobian[b]);
  for (int i = 0; i < numMuscles(); ++i) {
    buildPath(i, q, data);
    const std::size_t n = pathSize(data);
    data.length(i) = pathLength(data, n);
    if (!with_jacobian) continue;
    auto row = data.jacobian.row(i);
    row.setZero();
    for (std::size_t k = 0; k < n; ++k) {
      const MusclePathData::Point& pt = data.points[k];
      // ∂l/∂x of this point from its straight neighbour segments.
      Vector3d g = Vector3d::Zero();
      if (k > 0 && data.points[k - 1].arc_to_next < 0.0) g += (pt.world - data.points[k - 1].world).normalized();
      if (k + 1 < n && pt.arc_to_next < 0.0) g -= (data.points[k + 1].world - pt.world).normalized();
      if (g.isZero()) continue;
      const Transform& X = data.kin.frame[bodies[pt.body].value];
      const Matrix6Xd& Jb = data.body_jacobian[pt.body];
      const Vector3d rg = (pt.world - X.p).cross(g);
      row.noalias() += g.transpose() * Jb.topRows<3>() + rg.transpose() * Jb.bottomRows<3>();
      if (pt.moving >= 0) {
        const io::OpenSimPathPoint& p = set_.muscles[i].points[pt.moving];
        const Vector3d gl = X.R.transpose() * g;
        for (int a = 0; a < 3; ++a) {
          const int j = refs[i][pt.moving].joints[a];
          if (j < 0) continue;
          double f = 0.0, df = 0.0, ddf = 0.0;
          p.function[a].evaluate(q.joints[j], f, df, ddf);
          row(m.nvBase() + j) += gl(a) * df;
        }
      }
    }
  }
  if (with_jacobian) differenceRows(q, data);
}

void MusclePaths::differenceRows(const Configuration& q, MusclePathData& data) const {
  bool any = false;
  for (std::uint8_t f : data.needs_difference) any = any || f;
  if (!any) return;
  const Model& m = model();
  constexpr double h = 1e-7;
  data.q_shift = q;
  for (int j = 0; j < m.numJoints(); ++j) {
    for (const double sign : {1.0, -1.0}) {
      data.q_shift.joints[j] = q.joints[j] + sign * h;
      framesForwardKinematics(m, data.kin, data.q_shift);
      for (int i = 0; i < numMuscles(); ++i) {
        if (!data.needs_difference[i]) continue;
        const double l = muscleLength(i, data.q_shift, data);
        data.needs_difference[i] = 1;
        if (sign > 0)
          data.length_plus(i) = l;
        else
          data.jacobian(i, m.nvBase() + j) = (data.length_plus(i) - l) / (2 * h);
      }
    }
    data.q_shift.joints[j] = q.joints[j];
  }
  framesForwardKinematics(m, data.kin, q);
  for (int i = 0; i < numMuscles(); ++i)
    if (data.needs_difference[i]) (void)muscleLength(i, q, data);  // restore wraps_active
}

}  // namespace kinetrack::muscles
