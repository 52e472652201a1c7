#include "kinetrack/kinematics/forward_kinematics.hpp"

#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"

namespace kinetrack {

namespace {

void checkSizes(const Model& model, const Data& data, const Configuration& q) {
  if (q.joints.size() != model.numJoints())
    throw InvalidArgument("forwardKinematics: expected " + std::to_string(model.numJoints()) +
                          " joint coordinates, got " + std::to_string(q.joints.size()));
  if (data.num_joints != model.numJoints() || static_cast<int>(data.link.size()) != model.numLinks())
    throw InvalidArgument("forwardKinematics: data was built for a different model");
}

// R ← Rj · Rot(e_k, θ) for a principal axis k, touching only the two columns that change
// (R·Rx(θ): c1' = c·c1 + s·c2, c2' = −s·c1 + c·c2, and cyclically for y and z).
inline void rotatePrincipal(const Matrix3d& Rj, int k, double c, double s, Matrix3d& R) {
  const int a = (k + 1) % 3, b = (k + 2) % 3;
  R.col(k) = Rj.col(k);
  R.col(a) = c * Rj.col(a) + s * Rj.col(b);
  R.col(b) = c * Rj.col(b) - s * Rj.col(a);
}

}  // namespace

void forwardKinematics(const Model& model, Data& data, const Configuration& q) {
  checkSizes(model, data, q);
  data.link[0].R = q.base_rotation;
  data.link[0].p = q.base_position;
  const int nl = model.numLinks();
  for (int l = 1; l < nl; ++l) {
    const JointId j(l - 1);
    const Transform& P = data.link[static_cast<std::size_t>(model.parent(LinkId(l)).value)];
    Transform& T = data.link[static_cast<std::size_t>(l)];
    const Transform& X = model.jointPlacement(j);
    // Joint frame in the world: P ∘ X, skipping the identity / zero parts of X.
    Matrix3d Rj;
    if (model.placementRotationIsIdentity(j))
      Rj = P.R;
    else
      Rj.noalias() = P.R * X.R;
    if (model.placementTranslationIsZero(j))
      T.p = P.p;
    else
      T.p.noalias() = P.p + P.R * X.p;

    const double s = q.joints[j.value];
    Vector3d& a = data.joint_axis[static_cast<std::size_t>(j.value)];
    if (model.jointType(j) == JointType::Prismatic) {
      T.R = Rj;
      a.noalias() = Rj * model.jointAxis(j);
      T.p += s * a;
      continue;
    }
    const AxisKind kind = model.axisKind(j);
    if (kind == AxisKind::General) {
      T.R.noalias() = Rj * so3::axisAngle(model.jointAxis(j), s);
      a.noalias() = Rj * model.jointAxis(j);
      continue;
    }
    const int k = static_cast<int>(kind) % 3;
    const bool negative = static_cast<int>(kind) >= 3;
    const double c = std::cos(s), sn = negative ? -std::sin(s) : std::sin(s);
    rotatePrincipal(Rj, k, c, sn, T.R);
    a = negative ? Vector3d(-Rj.col(k)) : Vector3d(Rj.col(k));
  }
}

const Transform& updateFramePlacement(const Model& model, Data& data, FrameId f) {
  const Transform& L = data.link[static_cast<std::size_t>(model.frameLink(f).value)];
  Transform& F = data.frame[static_cast<std::size_t>(f.value)];
  if (model.frameIsLinkFrame(f)) {
    F = L;
  } else {
    const Transform& X = model.framePlacement(f);
    F.R.noalias() = L.R * X.R;
    F.p.noalias() = L.p + L.R * X.p;
  }
  return F;
}

void updateFramePlacements(const Model& model, Data& data) {
  const int nf = model.numFrames();
  for (int f = 0; f < nf; ++f) updateFramePlacement(model, data, FrameId(f));
}

}  // namespace kinetrack
