#include "kinetrack/prior/prior_posture.hpp"

#include <cmath>
#include <limits>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/tasks.hpp"
#include "kinetrack/track/frame_solver.hpp"

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
  // No pose values: DYN reads the velocities as they are (v* = v), the term ½Σμ(ν − v)².
  task_ = ik.tasks().addPosture(options.weight);
  ik.tasks().setVelocities(task_, velocity_);
}

PriorPosture::~PriorPosture() {
  // Not through operator[] (it throws for a removed task, and a destructor must not throw).
  if (ik_.tasks().postures()[static_cast<std::size_t>(task_.value)].alive) ik_.tasks().remove(task_);
}

void PriorPosture::enable(bool on) { ik_.tasks().setEnabled(task_, on); }

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
  ik_.tasks().setVelocities(task_, velocity_);
  return fallbacks;
}

namespace {

DynamicalIkOptions sparseDynamicalOptions() {
  DynamicalIkOptions d = track::TrackerOptions::dynamicalTrackingOptions();
  d.gain_mode = GainMode::PerStep;  // κ = 1: each step closes the residual of its frame
  return d;
}

}  // namespace

SparseDynamicalIk::SparseDynamicalIk(std::shared_ptr<const Model> model, const std::vector<std::string>& targets,
                                     const HumanPrior* prior, const PriorPostureOptions& posture)
    : model_(std::move(model)), ik_(model_, sparseDynamicalOptions()) {
  for (const std::string& n : targets) {
    ids_.push_back(ik_.tasks().addPose(n, {1.0, 1.0}, {1.0, 1.0}));
    frames_.push_back(model_->frameId(n));
  }
  if (prior) posture_ = std::make_unique<PriorPosture>(ik_, *prior, posture);
}

SparseFrameResult SparseDynamicalIk::solve(std::span<const Transform> targets, double dt) {
  if (targets.size() != ids_.size())
    throw InvalidArgument("SparseDynamicalIk::solve: " + std::to_string(targets.size()) + " targets for " +
                          std::to_string(ids_.size()) + " target frames");
  if (!(dt > 0.0) || !std::isfinite(dt)) throw InvalidArgument("SparseDynamicalIk::solve: dt must be finite and > 0");
  SparseFrameResult r;
  for (const Transform& t : targets)
    if (!t.p.allFinite() || !ik::isRotation(t.R)) {  // as SparsePriorIk: the state stays, the errors are NaN
      r.position_error = r.orientation_error = std::numeric_limits<double>::quiet_NaN();
      r.gap = true;
      return r;
    }
  for (std::size_t k = 0; k < ids_.size(); ++k) {
    ik_.tasks().setPosition(ids_[k], targets[k].p);
    ik_.tasks().setOrientation(ids_[k], targets[k].R);
  }
  if (posture_) r.fallbacks = posture_->update(dt);
  static_cast<ik::Result&>(r) = ik_.step(dt);  // status, steps, MNTE, violations of the step
  const Model& m = *model_;
  for (std::size_t k = 0; k < ids_.size(); ++k) {  // the step leaves the links' poses in data()
    const Transform& L = ik_.data().link[static_cast<std::size_t>(m.frameLink(frames_[k]).value)];
    const Transform& P = m.framePlacement(frames_[k]);
    r.position_error = std::max(r.position_error, (targets[k].p - (L.p + L.R * P.p)).norm());
    r.orientation_error = std::max(r.orientation_error, so3::log(targets[k].R * (L.R * P.R).transpose()).norm());
  }
  return r;
}

}  // namespace kinetrack::prior
