#include "kinetrack/ik/tasks.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::ik {

namespace {

void checkGain(const std::string& owner, double v, const char* what) {
  if (!std::isfinite(v) || v < 0.0)
    throw InvalidArgument(owner + ": " + what + " must be finite and ≥ 0, got " + std::to_string(v));
}

}  // namespace

void checkRotation(const Matrix3d& R, std::string_view what, std::string_view where) {
  if (isRotation(R)) return;  // messages are built only on failure
  if (!R.allFinite()) throw InvalidArgument(std::string(what) + std::string(where) + ": non-finite rotation");
  throw InvalidArgument(std::string(what) + std::string(where) + ": not a rotation matrix (RᵀR ≠ I or det < 0)");
}

TaskSet::TaskSet(std::shared_ptr<const Model> model, std::string owner, Rule rule)
    : model_(std::move(model)), owner_(std::move(owner)), rule_(std::move(rule)) {
  if (!model_) throw InvalidArgument(owner_ + ": null model");
}

void TaskSet::refuseId(TargetId t) const {
  throw InvalidArgument(owner_ + ": invalid or removed target id " + std::to_string(t.value));
}

void TaskSet::refusePosition(const FrameTask& x, const Vector3d& p, const Vector3d& velocity) const {
  if (!p.allFinite() || !velocity.allFinite())
    throw InvalidArgument(owner_ + "::setPosition: non-finite position or velocity");
  if (!x.hasPosition()) throw InvalidArgument(owner_ + "::setPosition: target is orientation-only");
  throw InvalidArgument(owner_ + "::setPosition: refused");
}

void TaskSet::refuseOrientation(const FrameTask& x, const Matrix3d& R, const Vector3d& omega) const {
  if (!omega.allFinite()) throw InvalidArgument(owner_ + "::setOrientation: non-finite angular velocity");
  checkRotation(R, owner_, "::setOrientation");
  if (!x.hasOrientation()) throw InvalidArgument(owner_ + "::setOrientation: target is position-only");
  throw InvalidArgument(owner_ + "::setOrientation: refused");
}

const FrameTask& TaskSet::operator[](TargetId t) const { return const_cast<TaskSet*>(this)->at(t); }

TargetId TaskSet::add(std::string_view frame, TargetType type, TaskGain position, TaskGain orientation) {
  checkGain(owner_, position.weight, "weights");
  checkGain(owner_, orientation.weight, "weights");
  checkGain(owner_, position.gain, "gains");
  checkGain(owner_, orientation.gain, "gains");
  FrameTask t;
  t.frame = model_->frameId(frame);  // throws, listing the valid names
  t.link = model_->frameLink(t.frame);
  t.type = type;
  if (t.hasPosition()) {
    t.position_weight = position.weight;
    t.position_gain = position.gain;
  }
  if (t.hasOrientation()) {
    t.orientation_weight = orientation.weight;
    t.orientation_gain = orientation.gain;
  }
  if (rule_) rule_(*model_, t, frame);
  tasks_.push_back(t);
  ++structure_revision_;
  ++weight_revision_;
  return TargetId(static_cast<std::int32_t>(tasks_.size() - 1));
}

TargetId TaskSet::addPosition(std::string_view frame, TaskGain position) {
  return add(frame, TargetType::Position, position, {});
}
TargetId TaskSet::addOrientation(std::string_view frame, TaskGain orientation) {
  return add(frame, TargetType::Orientation, {}, orientation);
}
TargetId TaskSet::addPose(std::string_view frame, TaskGain position, TaskGain orientation) {
  return add(frame, TargetType::Pose, position, orientation);
}

void TaskSet::remove(TargetId t) {
  at(t).alive = false;
  ++structure_revision_;
}

void TaskSet::setEnabled(TargetId t, bool enabled) {
  FrameTask& x = at(t);
  if (x.enabled == enabled) return;
  x.enabled = enabled;
  ++structure_revision_;
}

void TaskSet::setWeights(TargetId t, double position_weight, double orientation_weight) {
  checkGain(owner_, position_weight, "weights");
  checkGain(owner_, orientation_weight, "weights");
  FrameTask& x = at(t);
  const bool was_zero = x.weight() == 0.0;
  x.position_weight = x.hasPosition() ? position_weight : 0.0;
  x.orientation_weight = x.hasOrientation() ? orientation_weight : 0.0;
  if (was_zero != (x.weight() == 0.0)) ++structure_revision_;
  ++weight_revision_;
}

void TaskSet::setGains(TargetId t, double position_gain, double orientation_gain) {
  checkGain(owner_, position_gain, "gains");
  checkGain(owner_, orientation_gain, "gains");
  FrameTask& x = at(t);
  x.position_gain = x.hasPosition() ? position_gain : 0.0;
  x.orientation_gain = x.hasOrientation() ? orientation_gain : 0.0;
  ++weight_revision_;
}

int TaskSet::size() const {
  return static_cast<int>(std::count_if(tasks_.begin(), tasks_.end(), [](const FrameTask& t) { return t.alive; }));
}

}  // namespace kinetrack::ik
