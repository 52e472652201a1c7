#include "testing/finite_diff.hpp"

#include <stdexcept>

#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/data.hpp"

namespace kinetrack::testing {

Configuration perturbAlong(const Model& model, const Configuration& q, int k, double delta) {
  if (k < 0 || k >= model.nv()) throw std::out_of_range("perturbAlong: coordinate out of range");
  Configuration out = q;
  const int nb = model.nvBase();
  if (k < nb) {
    if (k < 3)
      out.base_position[k] += delta;
    else
      out.base_rotation = so3::exp(delta * Vector3d::Unit(k - 3)) * q.base_rotation;
  } else {
    out.joints[k - nb] += delta;
  }
  return out;
}

void finiteDifferenceFrameJacobians(const Model& model, const Configuration& q, const std::vector<FrameId>& frames,
                                    std::vector<Matrix6Xd>& jacobians, double eps) {
  const int nv = model.nv();
  jacobians.resize(frames.size());
  for (auto& J : jacobians) J.setZero(6, nv);
  Data plus(model), minus(model);
  for (int k = 0; k < nv; ++k) {
    framesForwardKinematics(model, plus, perturbAlong(model, q, k, eps));
    framesForwardKinematics(model, minus, perturbAlong(model, q, k, -eps));
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const Transform& Tp = plus.frame[static_cast<std::size_t>(frames[i].value)];
      const Transform& Tm = minus.frame[static_cast<std::size_t>(frames[i].value)];
      jacobians[i].col(k).head<3>() = (Tp.p - Tm.p) / (2.0 * eps);
      jacobians[i].col(k).tail<3>() = so3::vee(Tp.R * Tm.R.transpose()) / (2.0 * eps);
    }
  }
}

Matrix6Xd finiteDifferenceFrameJacobian(const Model& model, const Configuration& q, FrameId frame, double eps) {
  std::vector<Matrix6Xd> out;
  finiteDifferenceFrameJacobians(model, q, {frame}, out, eps);
  return out[0];
}

std::vector<FrameId> allFrames(const Model& model) {
  std::vector<FrameId> f;
  f.reserve(static_cast<std::size_t>(model.numFrames()));
  for (int i = 0; i < model.numFrames(); ++i) f.emplace_back(i);
  return f;
}

}  // namespace kinetrack::testing
