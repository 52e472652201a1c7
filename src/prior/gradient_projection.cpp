// LN (Eq. 3) and GP (Eq. 4–5) on the 25-DoF upper-body model.
#include "kinetrack/prior/gradient_projection.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <limits>
#include <span>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/tasks.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack::prior {

const char* toString(IkMethod m) { return m == IkMethod::LeastNorm ? "LN" : "GP"; }

std::array<Vector3d, 3> upperBodyKeyPoints(const std::array<Transform, 2>& hands) {
  return {hands[0].p, hands[1].p, 0.5 * (hands[0].p + hands[1].p)};
}

std::vector<std::vector<int>> upperBodyGroups() {
  std::vector<std::vector<int>> g(3);
  for (int k = kTorsoDof; k < kChainLength; ++k) {
    g[0].push_back(thetaIndex(Side::Right, k));
    g[1].push_back(thetaIndex(Side::Left, k));
  }
  for (int k = 0; k < kTorsoDof; ++k) g[2].push_back(k);
  return g;
}

GradientProjectionIk::GradientProjectionIk(const UpperBodyModel& model, const DensityPrior* prior,
                                           const GpmOptions& options)
    : model_(&model), prior_(prior), options_(options) {
  if (options.iterations < 1) throw InvalidArgument("GpmOptions::iterations must be >= 1");
  if (!(options.damping >= 0.0) || !(options.gain >= 0.0) || !(options.max_prior_step > 0.0) ||
      !(options.max_step > 0.0))
    throw InvalidArgument("GpmOptions: damping and gain must be >= 0, max_prior_step and max_step > 0");
  if (prior != nullptr && (prior->numJoints() != kUpperBodyDof || prior->numGroups() != 3))
    throw InvalidArgument("GradientProjectionIk: the prior has " + std::to_string(prior->numJoints()) + " joints in " +
                          std::to_string(prior->numGroups()) + " groups; the upper-body model needs 25 in 3");
  for (int i = 0; i < kUpperBodyDof; ++i)
    if (!(model.lower[i] < model.upper[i]))
      throw InvalidArgument("GradientProjectionIk: joint " + UpperBodyModel::jointNames()[static_cast<std::size_t>(i)] +
                            ": lower limit is not below the upper limit");
  grad_.setZero();
  step_.setZero();
  free_.setOnes();
}

GpmFrameResult GradientProjectionIk::solve(const std::array<Transform, 2>& target, Vector25d& theta, IkMethod method) {
  GpmFrameResult result;
  if (method == IkMethod::GradientProjection && prior_ == nullptr)
    throw InvalidArgument("GradientProjectionIk::solve: GP needs a prior");
  if (!theta.allFinite()) throw InvalidArgument("GradientProjectionIk::solve: θ is not finite");
  for (const Transform& t : target)
    if (!t.p.allFinite() || !ik::isRotation(t.R)) {  // refused: θ stays, the errors are NaN
      result.position_error = result.orientation_error = std::numeric_limits<double>::quiet_NaN();
      result.gap = true;
      return result;
    }
  const UpperBodyModel& m = *model_;
  const std::array<Vector3d, 3> keys = upperBodyKeyPoints(target);
  const double lambda2 = options_.damping * options_.damping;
  Matrix12x25d Jm;
  Eigen::Matrix<double, 12, 12> A;
  Eigen::LLT<Eigen::Matrix<double, 12, 12>> llt;
  for (int it = 0; it < options_.iterations; ++it) {
    upperBodyForwardKinematics(m, data_, theta);
    upperBodyJacobian(m, data_);
    Vector12d e = handError(data_, target);
    grad_.setZero();
    if (method == IkMethod::GradientProjection) {
      result.fallbacks = prior_->gradient(std::span<const double>(theta.data(), kUpperBodyDof),
                                          std::span<const Vector3d>(keys.data(), keys.size()),
                                          std::span<double>(grad_.data(), kUpperBodyDof));
      grad_ = (options_.gain * grad_).cwiseMax(-options_.max_prior_step).cwiseMin(options_.max_prior_step);
    }
    free_.setOnes();
    result.limited = 0;
    for (int pass = 0; pass < 2; ++pass) {
      Jm = data_.J * free_.asDiagonal();
      A.noalias() = Jm * Jm.transpose();
      A.diagonal().array() += lambda2;
      llt.compute(A);
      const Vector12d y = llt.solve(e);
      const Vector25d gm = free_.cwiseProduct(grad_);
      const Vector12d z = llt.solve(Jm * gm);
      // Eq. 4: J⁺(x − fk(θ)) − (I − J⁺J)∇H, with (I − J⁺J)∇H = ∇H − Jᵀ(JJᵀ)⁻¹J∇H.
      step_.noalias() = Jm.transpose() * (y + z);
      step_ -= gm;
      const double big = step_.cwiseAbs().maxCoeff();
      if (big > options_.max_step) step_ *= options_.max_step / big;
      bool violated = false;
      for (int i = 0; i < kUpperBodyDof; ++i) {
        if (free_[i] == 0.0) continue;
        const double v = theta[i] + step_[i];
        if (v < m.lower[i] || v > m.upper[i]) {
          violated = true;
          if (pass == 0) {
            // Hold the joint at its limit and let the others make up for its motion there.
            const double at = v < m.lower[i] ? m.lower[i] : m.upper[i];
            e -= data_.J.col(i) * (at - theta[i]);
            theta[i] = at;
            free_[i] = 0.0;
            ++result.limited;
          }
        }
      }
      if (!violated || pass == 1) {
        theta += free_.cwiseProduct(step_);
        theta = theta.cwiseMax(m.lower).cwiseMin(m.upper);
        break;
      }
    }
  }
  upperBodyForwardKinematics(m, data_, theta);
  for (int s = 0; s < 2; ++s) {
    const Transform& h = data_.hand[static_cast<std::size_t>(s)];
    const Transform& t = target[static_cast<std::size_t>(s)];
    result.position_error = std::max(result.position_error, (t.p - h.p).norm());
    const double c = std::clamp(0.5 * ((t.R * h.R.transpose()).trace() - 1.0), -1.0, 1.0);
    result.orientation_error = std::max(result.orientation_error, std::acos(c));
    result.mnte += 0.5 * metrics::normalizedTraceError(h.R, t.R);
  }
  result.iterations = options_.iterations;
  result.status = theta.allFinite() ? ik::Status::Converged : ik::Status::Failed;
  return result;
}

}  // namespace kinetrack::prior
