// The 25-DoF DH upper-body model (GPM §III, Eq. 1): forward kinematics, the bilateral Jacobian,
// DH parameters from joint axes, and an independent Model of the same kinematics.
#include "kinetrack/prior/upper_body.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::prior {

const std::array<std::string, kUpperBodyDof>& UpperBodyModel::jointNames() {
  static const std::array<std::string, kUpperBodyDof> names = [] {
    std::array<std::string, kUpperBodyDof> n;
    n[0] = "torso_1";
    n[1] = "torso_2";
    n[2] = "torso_3";
    const std::array<const char*, kArmDof> arm = {"sc_1",      "sc_2",       "sc_3",       "gh_1",
                                                  "gh_2",      "gh_3",       "elbow_flex", "elbow_varus",
                                                  "pronation", "wrist_flex", "wrist_dev"};
    for (int k = 0; k < kArmDof; ++k) {
      n[static_cast<std::size_t>(thetaIndex(Side::Right, kTorsoDof + k))] = std::string("r_") + arm[k];
      n[static_cast<std::size_t>(thetaIndex(Side::Left, kTorsoDof + k))] = std::string("l_") + arm[k];
    }
    return n;
  }();
  return names;
}

Transform dhTransform(const DhLink& link, double q) {
  const double ca = std::cos(link.alpha), sa = std::sin(link.alpha);
  const double th = link.theta_offset + q, ct = std::cos(th), st = std::sin(th);
  Transform T;
  // Rx(α)·Rz(θ)
  T.R << ct, -st, 0.0, ca * st, ca * ct, -sa, sa * st, sa * ct, ca;
  // Rx(α)·(a, 0, 0) + Rx(α)·Rz(θ)·(0, 0, d)
  T.p = Vector3d(link.a, -sa * link.d, ca * link.d);
  return T;
}

void upperBodyForwardKinematics(const UpperBodyModel& model, UpperBodyData& data, const Vector25d& theta) {
  for (int s = 0; s < 2; ++s) {
    auto& F = data.frames[static_cast<std::size_t>(s)];
    const auto& rows = model.chain[static_cast<std::size_t>(s)];
    F[0] = model.base;
    for (int k = 0; k < kChainLength; ++k) {
      const Transform T = dhTransform(rows[static_cast<std::size_t>(k)], theta[thetaIndex(static_cast<Side>(s), k)]);
      const Transform& P = F[static_cast<std::size_t>(k)];
      Transform& C = F[static_cast<std::size_t>(k) + 1];
      C.R.noalias() = P.R * T.R;
      C.p.noalias() = P.R * T.p;
      C.p += P.p;
    }
    const Transform& last = F[kChainLength];
    const Transform& tool = model.tool[static_cast<std::size_t>(s)];
    Transform& H = data.hand[static_cast<std::size_t>(s)];
    H.R.noalias() = last.R * tool.R;
    H.p.noalias() = last.R * tool.p;
    H.p += last.p;
  }
}

void upperBodyJacobian(const UpperBodyModel& /*model*/, UpperBodyData& data) {
  for (int s = 0; s < 2; ++s) {
    const Vector3d& pe = data.hand[static_cast<std::size_t>(s)].p;
    for (int k = 0; k < kChainLength; ++k) {
      const Transform& F = data.frames[static_cast<std::size_t>(s)][static_cast<std::size_t>(k) + 1];
      const Vector3d z = F.R.col(2);
      const int c = thetaIndex(static_cast<Side>(s), k);
      data.J.block<3, 1>(6 * s, c) = z.cross(pe - F.p);
      data.J.block<3, 1>(6 * s + 3, c) = z;
    }
  }
}

Vector12d handError(const UpperBodyData& data, const std::array<Transform, 2>& target) {
  Vector12d e;
  for (int s = 0; s < 2; ++s) {
    const Transform& h = data.hand[static_cast<std::size_t>(s)];
    const Transform& t = target[static_cast<std::size_t>(s)];
    e.segment<3>(6 * s) = t.p - h.p;
    e.segment<3>(6 * s + 3) = so3::log(t.R * h.R.transpose());
  }
  return e;
}

namespace {

constexpr double kEps = 1e-9;

Vector3d anyPerpendicular(const Vector3d& z) {
  const Vector3d trial = std::abs(z.x()) < 0.9 ? Vector3d::UnitX() : Vector3d::UnitY();
  return (trial - trial.dot(z) * z).normalized();
}

Vector3d foot(const Vector3d& point, const JointAxis& axis) {
  return axis.point + (point - axis.point).dot(axis.direction) * axis.direction;
}

}  // namespace

std::vector<DhLink> dhFromAxes(const std::vector<JointAxis>& axes, const Transform& end_effector, Transform& frame0,
                               Transform& tool) {
  const std::size_t n = axes.size();
  if (n == 0) throw InvalidArgument("dhFromAxes: no joint axes");
  for (std::size_t i = 0; i < n; ++i) {
    const JointAxis& a = axes[i];
    if (!a.point.allFinite() || !a.direction.allFinite() || std::abs(a.direction.norm() - 1.0) > 1e-6)
      throw InvalidArgument("dhFromAxes: axis " + std::to_string(i) + " is not a finite unit vector at a finite point");
  }
  // Frame i: z along axis i, x along the common normal to axis i+1, origin where that normal
  // meets axis i (Craig §3.4).
  std::vector<Transform> F(n);
  Vector3d prev_origin = axes[0].point, prev_x = anyPerpendicular(axes[0].direction);
  for (std::size_t i = 0; i < n; ++i) {
    const Vector3d z = axes[i].direction;
    Vector3d o, x;
    if (i + 1 < n) {
      const JointAxis& next = axes[i + 1];
      const Vector3d cross = z.cross(next.direction);
      if (cross.norm() > kEps) {
        const Vector3d w0 = axes[i].point - next.point;
        const double b = z.dot(next.direction), d = z.dot(w0), e = next.direction.dot(w0);
        const double den = 1.0 - b * b;
        const Vector3d qi = axes[i].point + ((b * e - d) / den) * z;
        const Vector3d qj = next.point + ((e - b * d) / den) * next.direction;
        o = qi;
        x = (qj - qi).norm() > kEps ? Vector3d((qj - qi).normalized()) : Vector3d(cross.normalized());
      } else {
        o = foot(prev_origin, axes[i]);
        Vector3d v = next.point - o;
        v -= v.dot(z) * z;
        x = v.norm() > kEps ? v.normalized() : Vector3d(prev_x - prev_x.dot(z) * z);
        if (x.norm() < kEps) x = anyPerpendicular(z);
        x.normalize();
      }
    } else {
      o = foot(end_effector.p, axes[i]);
      x = prev_x - prev_x.dot(z) * z;
      x = x.norm() > kEps ? Vector3d(x.normalized()) : anyPerpendicular(z);
    }
    F[i].R.col(0) = x;
    F[i].R.col(1) = z.cross(x);
    F[i].R.col(2) = z;
    F[i].p = o;
    prev_origin = o;
    prev_x = x;
  }
  std::vector<DhLink> rows(n);
  for (std::size_t k = 1; k < n; ++k) {
    const Transform T = compose(inverse(F[k - 1]), F[k]);
    DhLink& r = rows[k];
    // T = Rx(α)Tx(a)Rz(θ)Tz(d): R = Rx(α)Rz(θ), p = (a, −sin α·d, cos α·d).
    r.theta_offset = std::atan2(-T.R(0, 1), T.R(0, 0));
    r.alpha = std::atan2(-T.R(1, 2), T.R(2, 2));
    r.a = T.p.x();
    r.d = T.p.z() * std::cos(r.alpha) - T.p.y() * std::sin(r.alpha);
  }
  frame0 = F[0];
  tool = compose(inverse(F[n - 1]), end_effector);
  return rows;
}

UpperBodyModel upperBodyFromAxes(std::string subject, const std::array<std::vector<JointAxis>, 2>& axes,
                                 const std::array<Transform, 2>& hands_at_zero) {
  UpperBodyModel m;
  m.subject = std::move(subject);
  for (int s = 0; s < 2; ++s) {
    const auto& a = axes[static_cast<std::size_t>(s)];
    if (a.size() != static_cast<std::size_t>(kChainLength))
      throw InvalidArgument("upperBodyFromAxes: expected 14 axes per side, got " + std::to_string(a.size()));
    for (int k = 0; k < kTorsoDof; ++k)
      if ((a[static_cast<std::size_t>(k)].point - axes[0][static_cast<std::size_t>(k)].point).norm() > 1e-12 ||
          (a[static_cast<std::size_t>(k)].direction - axes[0][static_cast<std::size_t>(k)].direction).norm() > 1e-12)
        throw InvalidArgument("upperBodyFromAxes: torso axis " + std::to_string(k) + " differs between the arms");
    Transform frame0;
    const std::vector<DhLink> rows =
        dhFromAxes(a, hands_at_zero[static_cast<std::size_t>(s)], frame0, m.tool[static_cast<std::size_t>(s)]);
    if (s == 0) m.base = frame0;
    for (int k = 0; k < kChainLength; ++k)
      m.chain[static_cast<std::size_t>(s)][static_cast<std::size_t>(k)] = rows[static_cast<std::size_t>(k)];
  }
  return m;
}

Model upperBodyReferenceModel(const std::array<std::vector<JointAxis>, 2>& axes,
                              const std::array<Transform, 2>& hands_at_zero) {
  for (const auto& side : axes)
    if (side.size() != static_cast<std::size_t>(kChainLength))
      throw InvalidArgument("upperBodyReferenceModel: expected 14 axes per side, got " + std::to_string(side.size()));
  const auto& names = UpperBodyModel::jointNames();
  ModelBuilder b("upper_body_reference", "pelvis", BaseType::Fixed);
  auto add = [&](const std::string& name, const std::string& parent, const Vector3d& from, const JointAxis& a) {
    JointSpec j;
    j.name = name;
    j.parent = parent;
    j.child = name + "_link";
    j.type = JointType::Continuous;
    j.placement.p = a.point - from;
    j.axis = a.direction;
    b.addJoint(j);
    return j.child;
  };
  std::string torso_parent = "pelvis";
  Vector3d from = Vector3d::Zero();
  for (int k = 0; k < kTorsoDof; ++k) {
    torso_parent = add(names[static_cast<std::size_t>(k)], torso_parent, from, axes[0][static_cast<std::size_t>(k)]);
    from = axes[0][static_cast<std::size_t>(k)].point;
  }
  const Vector3d torso_point = from;
  for (int s = 0; s < 2; ++s) {
    std::string parent = torso_parent;
    Vector3d p = torso_point;
    for (int k = kTorsoDof; k < kChainLength; ++k) {
      const JointAxis& a = axes[static_cast<std::size_t>(s)][static_cast<std::size_t>(k)];
      parent = add(names[static_cast<std::size_t>(thetaIndex(static_cast<Side>(s), k))], parent, p, a);
      p = a.point;
    }
    Transform hand = hands_at_zero[static_cast<std::size_t>(s)];
    hand.p -= p;
    b.addFrame(s == 0 ? "RightHand" : "LeftHand", parent, hand);
  }
  return b.build();
}

}  // namespace kinetrack::prior
