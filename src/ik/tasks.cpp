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

// The weight of a marker, coordinate or posture task (finite, ≥ 0) or of a coupler (also +inf).
// "owner: marker 'RASI': weight must be …", built only on failure.
void checkWeight(const std::string& owner, double w, std::string_view kind, std::string_view name,
                 bool infinite_ok = false) {
  if (w >= 0.0 && (std::isfinite(w) || infinite_ok)) return;
  std::string what(kind);
  if (!name.empty()) what += " '" + std::string(name) + "'";
  const char* allowed = infinite_ok ? "≥ 0 or +infinity" : "finite and ≥ 0";
  throw InvalidArgument(owner + ": " + what + ": weight must be " + allowed + ", got " + std::to_string(w));
}

}  // namespace

void checkRotation(const Matrix3d& R, std::string_view what, std::string_view where) {
  if (isRotation(R)) return;  // messages are built only on failure
  if (!R.allFinite()) throw InvalidArgument(std::string(what) + std::string(where) + ": non-finite rotation");
  throw InvalidArgument(std::string(what) + std::string(where) + ": not a rotation matrix (RᵀR ≠ I or det < 0)");
}

TaskSet::TaskSet(std::shared_ptr<const Model> model, std::string owner, Rule rule, TaskKinds kinds)
    : model_(std::move(model)), owner_(std::move(owner)), rule_(std::move(rule)), kinds_(kinds) {
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
  checkKind(kinds_.frame, "frame targets");
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

// --- marker, coordinate, coupler and posture tasks ------------------------------------------------

void TaskSet::refuseKindId(const char* kind, int id) const {
  throw InvalidArgument(owner_ + ": invalid or removed " + kind + " id " + std::to_string(id));
}

void TaskSet::checkKind(bool accepted, const char* kind) const {
  if (!accepted) throw InvalidArgument(owner_ + ": " + kind + " are not read by this solver");
}

void TaskSet::retire(bool& alive) {
  alive = false;
  ++structure_revision_;
}

void TaskSet::reweigh(double& weight, double value, bool structural) {
  // A weight becoming or ceasing to be zero adds or drops the task's terms.
  if (structural || (weight == 0.0) != (value == 0.0)) ++structure_revision_;
  weight = value;
  ++weight_revision_;
}

void TaskSet::changedEnabled(bool& flag, bool enabled) {
  if (flag == enabled) return;
  flag = enabled;
  ++structure_revision_;
}

MarkerTaskId TaskSet::addMarker(std::string_view frame, double weight) {
  checkKind(kinds_.marker, "marker tasks");
  checkWeight(owner_, weight, "marker", frame);
  MarkerTask t;
  t.frame = model_->frameId(frame);  // throws, listing the valid names
  t.link = model_->frameLink(t.frame);
  t.weight = weight;
  markers_.push_back(t);
  ++structure_revision_;
  ++weight_revision_;
  return MarkerTaskId(static_cast<std::int32_t>(markers_.size() - 1));
}

void TaskSet::remove(MarkerTaskId m) { retire(markerAt(m).alive); }
void TaskSet::setEnabled(MarkerTaskId m, bool enabled) { changedEnabled(markerAt(m).enabled, enabled); }

void TaskSet::setWeight(MarkerTaskId m, double weight) {
  MarkerTask& x = markerAt(m);
  checkWeight(owner_, weight, "marker", model_->frameName(x.frame));
  reweigh(x.weight, weight, false);
}

void TaskSet::setMeasurements(std::span<const Vector3d> p) {
  if (p.size() != markers_.size())
    throw InvalidArgument(owner_ + "::setMeasurements: expected " + std::to_string(markers_.size()) +
                          " marker positions, got " + std::to_string(p.size()));
  for (std::size_t i = 0; i < p.size(); ++i) markers_[i].measured = p[i];
}

const MarkerTask& TaskSet::operator[](MarkerTaskId m) const { return const_cast<TaskSet*>(this)->markerAt(m); }

CoordinateTaskId TaskSet::addCoordinate(std::string_view joint, double weight) {
  checkKind(kinds_.coordinate, "coordinate tasks");
  checkWeight(owner_, weight, "coordinate task", joint);
  CoordinateTask t;
  t.joint = model_->jointId(joint);  // throws, listing the valid names
  t.weight = weight;
  coordinates_.push_back(t);
  ++structure_revision_;
  ++weight_revision_;
  return CoordinateTaskId(static_cast<std::int32_t>(coordinates_.size() - 1));
}

void TaskSet::remove(CoordinateTaskId c) { retire(coordinateAt(c).alive); }
void TaskSet::setEnabled(CoordinateTaskId c, bool enabled) { changedEnabled(coordinateAt(c).enabled, enabled); }

void TaskSet::setWeight(CoordinateTaskId c, double weight) {
  CoordinateTask& x = coordinateAt(c);
  checkWeight(owner_, weight, "coordinate task", model_->jointName(x.joint));
  reweigh(x.weight, weight, false);
}

void TaskSet::setCoordinateValues(std::span<const double> values) {
  if (values.empty()) {
    for (CoordinateTask& t : coordinates_) t.value = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  if (values.size() != coordinates_.size())
    throw InvalidArgument(owner_ + "::setCoordinateValues: expected " + std::to_string(coordinates_.size()) +
                          " coordinate values (or none), got " + std::to_string(values.size()));
  for (std::size_t c = 0; c < values.size(); ++c) coordinates_[c].value = values[c];
}

const CoordinateTask& TaskSet::operator[](CoordinateTaskId c) const {
  return const_cast<TaskSet*>(this)->coordinateAt(c);
}

CouplerTaskId TaskSet::addCoupler(std::string name, std::string_view dependent, std::string_view independent,
                                  ScalarFunction f, double weight) {
  checkKind(kinds_.coupler, "coupler tasks");
  checkWeight(owner_, weight, "coupler", name, true);
  CouplerTask t;
  t.dependent = model_->jointId(dependent);  // throw, listing the valid names
  t.independent = model_->jointId(independent);
  if (t.dependent == t.independent)
    throw InvalidArgument(owner_ + ": coupler '" + name + "': joint '" + std::string(dependent) +
                          "' cannot depend on itself");
  t.name = std::move(name);
  t.function = std::move(f);
  t.weight = weight;
  couplers_.push_back(std::move(t));
  ++structure_revision_;
  ++weight_revision_;
  return CouplerTaskId(static_cast<std::int32_t>(couplers_.size() - 1));
}

void TaskSet::remove(CouplerTaskId k) { retire(couplerAt(k).alive); }
void TaskSet::setEnabled(CouplerTaskId k, bool enabled) { changedEnabled(couplerAt(k).enabled, enabled); }

void TaskSet::setWeight(CouplerTaskId k, double weight) {
  CouplerTask& x = couplerAt(k);
  checkWeight(owner_, weight, "coupler", x.name, true);
  // Exact ↔ penalty changes the solver's equality rows, as zero ↔ non-zero changes its terms.
  reweigh(x.weight, weight, std::isinf(x.weight) != std::isinf(weight));
}

const CouplerTask& TaskSet::operator[](CouplerTaskId k) const { return const_cast<TaskSet*>(this)->couplerAt(k); }

PostureTaskId TaskSet::addPosture(const VectorXd& weights, double gain) {
  checkKind(kinds_.posture, "posture tasks");
  checkGain(owner_, gain, "posture gain");
  const int n = model_->numJoints();
  if (weights.size() != n)
    throw InvalidArgument(owner_ + ": posture task: expected " + std::to_string(n) + " joint weights, got " +
                          std::to_string(weights.size()));
  for (int j = 0; j < n; ++j) checkWeight(owner_, weights[j], "posture task, joint", model_->jointName(JointId(j)));
  PostureTask t;
  t.weights = weights;
  t.values = VectorXd::Constant(n, std::numeric_limits<double>::quiet_NaN());
  t.velocities = VectorXd::Zero(n);
  t.gain = gain;
  postures_.push_back(std::move(t));
  ++structure_revision_;
  ++weight_revision_;
  return PostureTaskId(static_cast<std::int32_t>(postures_.size() - 1));
}

PostureTaskId TaskSet::addPosture(double weight, double gain) {
  checkKind(kinds_.posture, "posture tasks");
  checkWeight(owner_, weight, "posture task", {});
  return addPosture(VectorXd::Constant(model_->numJoints(), weight), gain);
}

void TaskSet::remove(PostureTaskId p) { retire(postureAt(p).alive); }
void TaskSet::setEnabled(PostureTaskId p, bool enabled) { changedEnabled(postureAt(p).enabled, enabled); }

void TaskSet::setWeights(PostureTaskId p, const VectorXd& weights) {
  PostureTask& x = postureAt(p);
  const int n = model_->numJoints();
  if (weights.size() != n)
    throw InvalidArgument(owner_ + ": posture task: expected " + std::to_string(n) + " joint weights, got " +
                          std::to_string(weights.size()));
  bool zeros_change = false;
  for (int j = 0; j < n; ++j) {
    checkWeight(owner_, weights[j], "posture task, joint", model_->jointName(JointId(j)));
    zeros_change = zeros_change || ((x.weights[j] == 0.0) != (weights[j] == 0.0));
  }
  x.weights = weights;
  if (zeros_change) ++structure_revision_;
  ++weight_revision_;
}

void TaskSet::setValues(PostureTaskId p, const VectorXd& values) {
  PostureTask& x = postureAt(p);
  if (values.size() != x.values.size())
    throw InvalidArgument(owner_ + "::setValues: expected " + std::to_string(x.values.size()) + " joint values, got " +
                          std::to_string(values.size()));
  x.values = values;
  x.any_value = values.array().isFinite().any();
}

void TaskSet::setGain(PostureTaskId p, double gain) {
  PostureTask& x = postureAt(p);
  checkGain(owner_, gain, "posture gain");
  x.gain = gain;
  ++weight_revision_;
}

void TaskSet::setVelocities(PostureTaskId p, const VectorXd& velocities) {
  PostureTask& x = postureAt(p);
  if (velocities.size() != x.velocities.size())
    throw InvalidArgument(owner_ + "::setVelocities: expected " + std::to_string(x.velocities.size()) +
                          " joint velocities, got " + std::to_string(velocities.size()));
  for (Eigen::Index j = 0; j < velocities.size(); ++j)
    if (!std::isfinite(velocities[j]))
      throw InvalidArgument(owner_ + "::setVelocities: joint '" + model_->jointName(JointId(static_cast<int>(j))) +
                            "': velocity must be finite, got " + std::to_string(velocities[j]));
  x.velocities = velocities;
  x.velocity_given = true;
}

void TaskSet::clearVelocities(PostureTaskId p) {
  PostureTask& x = postureAt(p);
  x.velocities.setZero();
  x.velocity_given = false;
}

const PostureTask& TaskSet::operator[](PostureTaskId p) const { return const_cast<TaskSet*>(this)->postureAt(p); }

}  // namespace kinetrack::ik
