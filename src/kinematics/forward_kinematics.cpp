#include "kinetrack/kinematics/forward_kinematics.hpp"

#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/fast_math.hpp"
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
template <int k>
inline void rotatePrincipal(const Matrix3d& Rj, double c, double s, Matrix3d& R) {
  constexpr int a = (k + 1) % 3, b = (k + 2) % 3;
  R.col(k) = Rj.col(k);
  R.col(a) = c * Rj.col(a) + s * Rj.col(b);
  R.col(b) = c * Rj.col(b) - s * Rj.col(a);
}

// A function-driven joint (model/joint_function.hpp) with joint frame rotation Rj and T.p at the
// joint origin: T ← joint frame ∘ M(s); w and v are the angular velocity and the velocity of the
// child origin per unit ṡ (world frame): v = Rj t′(s), w = Σ_k f_k′(s) (Rj R_1 ⋯ R_{k−1}) r_k.
void customMotion(const JointMotion& motion, double s, const Matrix3d& Rj, Transform& T, Vector3d& w, Vector3d& v) {
  Vector3d t = Vector3d::Zero(), dt = Vector3d::Zero();
  double f, df, ddf;
  for (const MotionAxis& ax : motion.translations) {
    ax.function.evaluate(s, f, df, ddf);
    t += f * ax.axis;
    dt += df * ax.axis;
  }
  T.p.noalias() += Rj * t;
  v.noalias() = Rj * dt;
  T.R = Rj;
  w.setZero();
  for (const MotionAxis& ax : motion.rotations) {
    ax.function.evaluate(s, f, df, ddf);
    const Vector3d axis_world = T.R * ax.axis;  // unchanged by the rotation about it
    w += df * axis_world;
    if (f != 0.0) T.R = T.R * so3::axisAngle(ax.axis, f);
  }
}

}  // namespace

void forwardKinematics(const Model& model, Data& data, const Configuration& q) {
  checkSizes(model, data, q);
  data.link[0].R = q.base_rotation;
  data.link[0].p = q.base_position;
  const int n = model.numJoints();
  // All sines and cosines in one vectorised pass (they are most of the cost of FK).
  sincosBatch(q.joints.data(), data.joint_sin.data(), data.joint_cos.data(), n);
  for (int jj = 0; jj < n; ++jj) {
    const JointId j(jj);
    const std::size_t l = static_cast<std::size_t>(jj + 1);
    const Transform& P = data.link[static_cast<std::size_t>(model.parentLink(j).value)];
    Transform& T = data.link[l];
    const Transform& X = model.jointPlacement(j);
    Vector3d& a = data.joint_axis[static_cast<std::size_t>(jj)];
    // Joint frame in the world: P ∘ X, skipping the identity / zero parts of X.
    if (model.placementTranslationIsZero(j))
      T.p = P.p;
    else
      T.p.noalias() = P.p + P.R * X.p;
    Matrix3d Rx;
    const Matrix3d* Rj = &P.R;
    if (!model.placementRotationIsIdentity(j)) {
      Rx.noalias() = P.R * X.R;
      Rj = &Rx;
    }
    const AxisKind kind = model.axisKind(j);
    const JointType type = model.jointType(j);
    if (type == JointType::Custom) {
      customMotion(model.jointMotion(j), q.joints[jj], *Rj, T, a, data.joint_linear[static_cast<std::size_t>(jj)]);
    } else if (type == JointType::Prismatic) {
      T.R = *Rj;
      a.noalias() = *Rj * model.jointAxis(j);
      T.p += q.joints[jj] * a;
    } else if (kind == AxisKind::General) {
      T.R.noalias() = *Rj * so3::axisAngle(model.jointAxis(j), q.joints[jj]);
      a.noalias() = *Rj * model.jointAxis(j);
    } else {
      const double c = data.joint_cos[static_cast<std::size_t>(jj)];
      const double sn = data.joint_sin[static_cast<std::size_t>(jj)];
      switch (kind) {
        case AxisKind::X:
          rotatePrincipal<0>(*Rj, c, sn, T.R);
          a = Rj->col(0);
          break;
        case AxisKind::Y:
          rotatePrincipal<1>(*Rj, c, sn, T.R);
          a = Rj->col(1);
          break;
        case AxisKind::Z:
          rotatePrincipal<2>(*Rj, c, sn, T.R);
          a = Rj->col(2);
          break;
        // Rotation by s about −e_k is rotation by −s about e_k.
        case AxisKind::NegX:
          rotatePrincipal<0>(*Rj, c, -sn, T.R);
          a = -Rj->col(0);
          break;
        case AxisKind::NegY:
          rotatePrincipal<1>(*Rj, c, -sn, T.R);
          a = -Rj->col(1);
          break;
        case AxisKind::NegZ:
          rotatePrincipal<2>(*Rj, c, -sn, T.R);
          a = -Rj->col(2);
          break;
        case AxisKind::General: break;
      }
    }
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
