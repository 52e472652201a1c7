#include "kinetrack/prior/prior_posture.hpp"

#include <cmath>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::prior {

PriorPosture::PriorPosture(DynamicalIk& ik, const HumanPrior& prior, const PriorPostureOptions& options)
    : ik_(ik), prior_(prior), options_(options) {
  const Model& m = ik.model();
  if (!(options.gain >= 0.0) || !std::isfinite(options.gain) || !(options.max_step > 0.0) ||
      !std::isfinite(options.max_step) || !(options.weight >= 0.0) || !std::isfinite(options.weight))
    throw InvalidArgument("PriorPostureOptions: gain >= 0, max_step > 0 and weight >= 0 (finite) required");
  checkPriorMatchesModel(prior, m);
  head_ = m.frameId(prior.head);
  right_ = m.frameId(prior.right_hand);
  left_ = m.frameId(prior.left_hand);
  gradient_ = VectorXd::Zero(m.numJoints());
  velocity_ = VectorXd::Zero(m.numJoints());
  weights_ = VectorXd::Constant(m.numJoints(), options.weight);
  zeros_ = VectorXd::Zero(m.numJoints());
  enable(true);
}

void PriorPosture::enable(bool on) {
  if (on) {
    ik_.setPostureWeights(std::span<const double>(weights_.data(), static_cast<std::size_t>(weights_.size())));
    return;
  }
  ik_.setPostureWeights(std::span<const double>(zeros_.data(), static_cast<std::size_t>(zeros_.size())));
}

int PriorPosture::update(double dt) {
  if (!(dt > 0.0) || !std::isfinite(dt)) throw InvalidArgument("PriorPosture::update: dt must be finite and > 0");
  const Model& m = ik_.model();
  const Configuration& q = ik_.state();
  int fallbacks = 0;
  velocity_.setZero();
  if (q.joints.allFinite() && q.base_position.allFinite()) {
    const auto keys = humanKeyPoints(m, ik_.data(), head_, right_, left_);
    fallbacks = prior_.density.gradient(std::span<const double>(q.joints.data(), q.joints.size()),
                                        std::span<const Vector3d>(keys.data(), keys.size()),
                                        std::span<double>(gradient_.data(), gradient_.size()));
    velocity_ = (-options_.gain * gradient_).cwiseMax(-options_.max_step).cwiseMin(options_.max_step) / dt;
    if (!velocity_.allFinite()) velocity_.setZero();
  }
  ik_.setPostureVelocity(std::span<const double>(velocity_.data(), static_cast<std::size_t>(velocity_.size())));
  return fallbacks;
}

}  // namespace kinetrack::prior
