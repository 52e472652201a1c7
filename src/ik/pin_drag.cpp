#include "kinetrack/ik/pin_drag.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack::ik {

namespace {

void requireNonNegative(double value, const char* name) {
  if (!(value >= 0.0) || !std::isfinite(value)) {
    throw InvalidArgument(std::string("PinDragOptions: ") + name + " must be finite and >= 0, got " +
                          std::to_string(value));
  }
}

void requireFinite(const Eigen::Ref<const VectorXd>& v, const char* what) {
  if (!v.allFinite()) throw InvalidArgument(std::string("PinDragIk: ") + what + " is not finite");
}

// A lower bound of the smallest singular value of A = S M Sᵀ: λ_min ≥ 1/trace(A⁻¹) (within a
// factor n of λ_min, never above it, so damping is never raised too late); inv is n × n scratch.
double singularEstimate(const Eigen::LDLT<MatrixXd>& ldlt, MatrixXd& inv) {
  if (ldlt.info() != Eigen::Success || ldlt.vectorD().minCoeff() <= 0.0) return 0.0;
  inv.setIdentity();
  ldlt.solveInPlace(inv);
  const double t = inv.trace();
  return (t > 0.0 && std::isfinite(t)) ? std::sqrt(1.0 / t) : 0.0;
}

double gainOrDefault(std::optional<double> gain, double fallback, const char* where) {
  if (!gain) return fallback;
  if (!(*gain >= 0.0) || !std::isfinite(*gain)) {
    throw InvalidArgument(std::string(where) + ": gain must be finite and >= 0 (1/s), got " + std::to_string(*gain));
  }
  return *gain;
}

const std::shared_ptr<const Model>& nonNull(const std::shared_ptr<const Model>& model) {
  if (!model) throw InvalidArgument("PinDragIk: null model");
  return model;
}

// A frame's rotation as a task value: FK's R (a rotation to round-off) unchanged, else projected.
Matrix3d rotationValue(const Matrix3d& R) { return isRotation(R) ? R : so3::project(R); }

}  // namespace

PinDragIk::PinDragIk(const Model& model, const PinDragOptions& options)
    : PinDragIk(std::make_shared<const Model>(model), options) {}

PinDragIk::PinDragIk(std::shared_ptr<const Model> model_ptr, const PinDragOptions& options)
    : model_(nonNull(model_ptr)),
      options_(options),
      data_(*model_),
      q_(*model_),
      nu_(VectorXd::Zero(model_->nv())),
      pins_(model_, "PinDragIk::pins"),
      drags_(model_, "PinDragIk::drags"),
      joint_limits_(*model_),
      row_limits_(*model_),
      base_limit_{options.max_base_linear_velocity, options.max_base_angular_velocity} {
  requireNonNegative(options.drag_gain, "drag_gain");
  requireNonNegative(options.pin_gain, "pin_gain");
  requireNonNegative(options.limit_return_gain, "limit_return_gain");
  requireNonNegative(options.limit_margin, "limit_margin");
  requireNonNegative(options.posture_gain, "posture_gain");
  requireNonNegative(options.sr_max_damping, "sr_max_damping");
  requireNonNegative(options.sr_threshold, "sr_threshold");
  requireNonNegative(options.max_joint_velocity, "max_joint_velocity");
  requireNonNegative(options.max_base_linear_velocity, "max_base_linear_velocity");
  requireNonNegative(options.max_base_angular_velocity, "max_base_angular_velocity");
  requireNonNegative(options.base_mobility, "base_mobility");
  if (options.max_lock_passes < 0) throw InvalidArgument("PinDragOptions: max_lock_passes must be >= 0");

  const Model& model = *model_;
  const int nj = model.numJoints();
  const int nb = model.nvBase();
  const int nv = model.nv();
  // Velocity limits: the base's from its BaseVelocityLimit, the joints' the model's where finite.
  vmax_.resize(nv);
  VectorXd lower(nv);
  base_limit_.bounds(nb, lower, vmax_);
  for (int j = 0; j < nj; ++j) {
    const double v = std::abs(joint_limits_.velocity()[j]);
    vmax_[nb + j] = (std::isfinite(v) && v > 0.0) ? v : options.max_joint_velocity;
  }
  mobility_ = VectorXd::Ones(nj);
  base_mobility_ = VectorXd::Constant(nv, 1.0);
  base_mobility_.head(nb).setConstant(options.base_mobility);
  desired_ = VectorXd::Zero(nj);
  m_ = base_mobility_;
  fixed_ = VectorXd::Zero(nv);
  Jframe_ = Matrix6Xd::Zero(6, nv);
  y_ = VectorXd::Zero(nv);
  z_ = VectorXd::Zero(nv);
  w_ = VectorXd::Zero(nv);
  // The model's linear rows over the velocity vector (row_limits_.matrix(): base columns zero).
  const int nr = row_limits_.size();
  rowAct_ = MatrixXd::Zero(nr, nv);
  AD_ = MatrixXd::Zero(nr, nv);
  XG_ = MatrixXd::Zero(nr, nv);
  G_ = MatrixXd::Identity(nr, nr);
  ldltG_.compute(G_);
  Mfull_ = MatrixXd::Zero(nv, nv);
  rowVal_ = VectorXd::Zero(nr);
  rowB_ = VectorXd::Zero(nr);
  rr_ = VectorXd::Zero(nr);
  xr_ = VectorXd::Zero(nr);
  fixedJ_ = VectorXd::Zero(nv);
  zt_ = VectorXd::Zero(nv);
  active_ = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, 1>::Zero(nr);
  pin_structure_ = pins_.structureRevision();
  pin_weights_ = pins_.weightRevision();
  drag_structure_ = drags_.structureRevision();
  drag_weights_ = drags_.weightRevision();
  reserveWorkspace();
}

void PinDragIk::setState(const Configuration& q) {
  if (q.joints.size() != model_->numJoints()) {
    throw InvalidArgument("PinDragIk::setState: expected " + std::to_string(model_->numJoints()) +
                          " joint values, got " + std::to_string(q.joints.size()));
  }
  if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite()) {
    throw InvalidArgument("PinDragIk::setState: configuration is not finite");
  }
  q_ = q;
}

void PinDragIk::checkFrame(FrameId f) const {
  if (!f.valid() || f.value >= model_->numFrames()) {
    throw InvalidArgument("PinDragIk: invalid frame id " + std::to_string(f.value) + " (model has " +
                          std::to_string(model_->numFrames()) + " frames)");
  }
}

TargetId PinDragIk::findDrag(FrameId f, bool position) const {
  const std::vector<FrameTask>& all = drags_.all();
  for (std::size_t i = all.size(); i-- > 0;) {
    const FrameTask& t = all[i];
    if (t.alive && t.frame == f && (position ? t.hasPosition() : t.hasOrientation()))
      return TargetId(static_cast<std::int32_t>(i));
  }
  return TargetId();
}

PinDragRole PinDragIk::role(FrameId f) const {
  const auto on = [f](const TaskSet& set) {
    return std::any_of(set.all().begin(), set.all().end(),
                       [f](const FrameTask& t) { return t.alive && t.enabled && t.frame == f; });
  };
  if (on(pins_)) return PinDragRole::Pinned;
  if (on(drags_)) return PinDragRole::Dragged;
  return PinDragRole::Free;
}

TargetId PinDragIk::pin(FrameId f, TargetType type, std::optional<double> gain) {
  checkFrame(f);
  forwardKinematics(*model_, data_, q_);
  const Transform& X = updateFramePlacement(*model_, data_, f);
  return pinAt(f, X.p, X.R, type, gain);
}

TargetId PinDragIk::pin(std::string_view frame, TargetType type, std::optional<double> gain) {
  return pin(model_->frameId(frame), type, gain);
}

TargetId PinDragIk::pinAt(FrameId f, const Vector3d& p_W, const Matrix3d& R_W, TargetType type,
                          std::optional<double> gain) {
  checkFrame(f);
  if (!p_W.allFinite() || !R_W.allFinite()) throw InvalidArgument("PinDragIk::pinAt: pin placement is not finite");
  const double k = gainOrDefault(gain, options_.pin_gain, "PinDragIk::pin");
  const Matrix3d R = so3::project(R_W);
  release(f);
  const std::string& name = model_->frameName(f);
  const TaskGain g{.weight = 1.0, .gain = k};
  const TargetId t = type == TargetType::Position      ? pins_.addPosition(name, g)
                     : type == TargetType::Orientation ? pins_.addOrientation(name, g)
                                                       : pins_.addPose(name, g, g);
  if (type != TargetType::Orientation) pins_.setPosition(t, p_W);
  if (type != TargetType::Position) pins_.setOrientation(t, R);
  return t;
}

TargetId PinDragIk::drag(FrameId f, TargetType type, std::optional<double> gain) {
  checkFrame(f);
  const double k = gainOrDefault(gain, options_.drag_gain, "PinDragIk::drag");
  release(f);
  forwardKinematics(*model_, data_, q_);
  const Transform& X = updateFramePlacement(*model_, data_, f);
  const std::string& name = model_->frameName(f);
  const TaskGain g{.weight = 1.0, .gain = k};
  const TargetId t = type == TargetType::Position      ? drags_.addPosition(name, g)
                     : type == TargetType::Orientation ? drags_.addOrientation(name, g)
                                                       : drags_.addPose(name, g, g);
  // The target starts where the frame is, with a zero feed-forward.
  if (type != TargetType::Orientation) drags_.setPosition(t, X.p, Vector3d::Zero());
  if (type != TargetType::Position) drags_.setOrientation(t, rotationValue(X.R), Vector3d::Zero());
  return t;
}

TargetId PinDragIk::drag(std::string_view frame, TargetType type, std::optional<double> gain) {
  return drag(model_->frameId(frame), type, gain);
}

void PinDragIk::setDragTarget(FrameId f, const Vector3d& p_W, const Vector3d& v_W) {
  const TargetId t = findDrag(f, true);
  if (!t.valid()) {
    throw InvalidArgument("PinDragIk::setDragTarget: frame " + std::to_string(f.value) + " is not dragged in position");
  }
  if (!p_W.allFinite() || !v_W.allFinite()) throw InvalidArgument("PinDragIk::setDragTarget: target is not finite");
  drags_.setPosition(t, p_W, v_W);
}

void PinDragIk::setDragOrientation(FrameId f, const Matrix3d& R_W, const Vector3d& w_W) {
  const TargetId t = findDrag(f, false);
  if (!t.valid()) {
    throw InvalidArgument("PinDragIk::setDragOrientation: frame " + std::to_string(f.value) +
                          " is not dragged in orientation");
  }
  if (!R_W.allFinite() || !w_W.allFinite()) {
    throw InvalidArgument("PinDragIk::setDragOrientation: target is not finite");
  }
  drags_.setOrientation(t, so3::project(R_W), w_W);
}

void PinDragIk::release(FrameId f) {
  for (TaskSet* set : {&pins_, &drags_}) {
    for (std::size_t i = 0; i < set->all().size(); ++i) {
      if (set->all()[i].alive && set->all()[i].frame == f) set->remove(TargetId(static_cast<std::int32_t>(i)));
    }
  }
}

void PinDragIk::releaseAll() {
  for (TaskSet* set : {&pins_, &drags_}) {
    for (std::size_t i = 0; i < set->all().size(); ++i) {
      if (set->all()[i].alive) set->remove(TargetId(static_cast<std::int32_t>(i)));
    }
  }
}

void PinDragIk::setDesiredJoints(const Eigen::Ref<const VectorXd>& s_d) {
  if (s_d.size() != model_->numJoints()) {
    throw InvalidArgument("PinDragIk::setDesiredJoints: expected " + std::to_string(model_->numJoints()) +
                          " values, got " + std::to_string(s_d.size()));
  }
  requireFinite(s_d, "desired joint values");
  desired_ = s_d;
}

void PinDragIk::setJointMobility(const Eigen::Ref<const VectorXd>& mobility) {
  if (mobility.size() != model_->numJoints()) {
    throw InvalidArgument("PinDragIk::setJointMobility: expected " + std::to_string(model_->numJoints()) +
                          " values, got " + std::to_string(mobility.size()));
  }
  requireFinite(mobility, "joint mobility");
  if (mobility.minCoeff() < 0.0) throw InvalidArgument("PinDragIk::setJointMobility: mobilities must be >= 0");
  mobility_ = mobility;
  base_mobility_.tail(model_->numJoints()) = mobility;
}

// Sizes the workspace for the tasks in the solve: np_ drag rows, and aux rows for every pin row
// (npin_) plus one per joint with a finite limit (the most joint-range return rows an update can add).
void PinDragIk::reserveWorkspace() {
  const int nv = model_->nv();
  int limited = 0;
  for (int j = 0; j < model_->numJoints(); ++j) {
    if (std::isfinite(joint_limits_.lower()[j]) || std::isfinite(joint_limits_.upper()[j])) ++limited;
  }
  const int na = npin_ + limited;
  JP_.setZero(np_, nv);
  JPinv_.setZero(nv, np_);
  rP_.setZero(np_);
  Jaux_.setZero(na, nv);
  S_.setZero(na, nv);
  MSt_.setZero(nv, na);
  daux_.setZero(na);
  PM_.setZero(np_, nv);
  XP_.setZero(np_, nv);
  xP_.setZero(np_);
  xS_.setZero(na);
  // Sized by factorising an identity: a size-constructed LDLT leaves its status uninitialised,
  // and copying or moving it (as the assignment from a temporary does) reads that (UBSan).
  ldltP_.compute(MatrixXd::Identity(np_, np_));
  ldltS_.compute(MatrixXd::Identity(na, na));
  AP_.setZero(np_, np_);
  AS_.setZero(na, na);
  invP_.setZero(np_, np_);
  invS_.setZero(na, na);
  C_.setZero(na, np_);
  vP_.setZero(np_);
  vS_.setZero(na);
}

// The tasks of one set in the solve, in id order (the order they were added): live, enabled, with
// the components of non-zero weight; `rows` counts their rows (3 per component).
void PinDragIk::collect(const TaskSet& set, std::vector<Active>& list, int& rows) const {
  const std::vector<FrameTask>& all = set.all();
  list.clear();
  list.reserve(all.size());
  rows = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const FrameTask& t = all[i];
    if (!t.alive || !t.enabled) continue;
    Active a;
    a.task = TargetId(static_cast<std::int32_t>(i));
    a.position = t.hasPosition() && t.position_weight > 0.0;
    a.orientation = t.hasOrientation() && t.orientation_weight > 0.0;
    if (!a.position && !a.orientation) continue;
    rows += (a.position ? 3 : 0) + (a.orientation ? 3 : 0);
    list.push_back(a);
  }
}

void PinDragIk::syncTasks() {
  const bool structure = pins_.structureRevision() != pin_structure_ || drags_.structureRevision() != drag_structure_;
  if (!structure && pins_.weightRevision() == pin_weights_ && drags_.weightRevision() == drag_weights_) return;
  int npin = 0, np = 0;
  collect(pins_, active_pins_, npin);
  collect(drags_, active_drags_, np);
  pin_structure_ = pins_.structureRevision();
  pin_weights_ = pins_.weightRevision();
  drag_structure_ = drags_.structureRevision();
  drag_weights_ = drags_.weightRevision();
  if (structure || npin != npin_ || np != np_) {
    npin_ = npin;
    np_ = np;
    reserveWorkspace();
  }
}

// A component in the solve whose value was never set: the frame where it is now (FK at q_ done),
// as pin() and drag() take it (a pin's rotation projected, a drag's as FK gives it).
void PinDragIk::fillUnsetValues() {
  for (TaskSet* set : {&pins_, &drags_}) {
    const bool pins = set == &pins_;
    for (const Active& a : pins ? active_pins_ : active_drags_) {
      const FrameTask& t = set->all()[static_cast<std::size_t>(a.task.value)];
      const bool p = a.position && !t.has_position, R = a.orientation && !t.has_orientation;
      if (!p && !R) continue;
      const Transform& X = updateFramePlacement(*model_, data_, t.frame);
      if (p) set->setPosition(a.task, X.p);
      if (R) set->setOrientation(a.task, pins ? so3::project(X.R) : rotationValue(X.R));
    }
  }
}

double PinDragIk::dampingFor(double w) const {
  const double w0 = options_.sr_threshold;
  if (w >= w0) return 0.0;
  const double r = 1.0 - w / w0;
  return options_.sr_max_damping * r * r;
}

// Eq. 8 (pins), drag reference velocities, and the joint-range return rows; writes JP_, rP_,
// Jaux_, daux_ at the current FK.
void PinDragIk::stackTasks() {
  int row = 0;
  for (const Active& a : active_drags_) {  // ṙ_P^ref = v_target + K_P (r_target − r_P)
    const FrameTask& t = drags_.all()[static_cast<std::size_t>(a.task.value)];
    frameJacobian(*model_, data_, t.frame, Jframe_);
    const Transform& X = updateFramePlacement(*model_, data_, t.frame);
    if (a.position) {
      JP_.middleRows(row, 3) = Jframe_.topRows(3);
      if (t.velocity_given)
        rP_.segment(row, 3) = t.velocity + t.position_gain * (t.p - X.p);
      else
        rP_.segment(row, 3) = t.position_gain * (t.p - X.p);
      row += 3;
    }
    if (a.orientation) {
      JP_.middleRows(row, 3) = Jframe_.bottomRows(3);
      if (t.angular_velocity_given)
        rP_.segment(row, 3) = t.angular_velocity + t.orientation_gain * so3::log(t.R * X.R.transpose());
      else
        rP_.segment(row, 3) = t.orientation_gain * so3::log(t.R * X.R.transpose());
      row += 3;
    }
  }
  row = 0;
  for (const Active& a : active_pins_) {  // Eq. 8: ṙ_F^d = K_F (r_F^ref − r_F) (+ a given feed-forward)
    const FrameTask& t = pins_.all()[static_cast<std::size_t>(a.task.value)];
    frameJacobian(*model_, data_, t.frame, Jframe_);
    const Transform& X = updateFramePlacement(*model_, data_, t.frame);
    if (a.position) {
      Jaux_.middleRows(row, 3) = Jframe_.topRows(3);
      if (t.velocity_given)
        daux_.segment(row, 3) = t.velocity + t.position_gain * (t.p - X.p);
      else
        daux_.segment(row, 3) = t.position_gain * (t.p - X.p);
      row += 3;
    }
    if (a.orientation) {
      Jaux_.middleRows(row, 3) = Jframe_.bottomRows(3);
      if (t.angular_velocity_given)
        daux_.segment(row, 3) = t.angular_velocity + t.orientation_gain * so3::log(t.R * X.R.transpose());
      else
        daux_.segment(row, 3) = t.orientation_gain * so3::log(t.R * X.R.transpose());
      row += 3;
    }
  }
  // Joint-range return velocities: rows e_j for joints outside the margin-shrunk range.
  const int nb = model_->nvBase();
  const int na = static_cast<int>(daux_.size());
  Jaux_.bottomRows(na - row).setZero();
  daux_.tail(na - row).setZero();
  for (int j = 0; j < model_->numJoints() && row < na; ++j) {
    const double lo = joint_limits_.lower()[j], hi = joint_limits_.upper()[j];
    if (!std::isfinite(lo) && !std::isfinite(hi)) continue;
    const double margin = (std::isfinite(lo) && std::isfinite(hi)) ? std::min(options_.limit_margin, 0.25 * (hi - lo))
                                                                   : options_.limit_margin;
    const double s = q_.joints[j];
    const double target = std::clamp(s, lo + margin, hi - margin);
    if (target == s) continue;
    Jaux_(row, nb + j) = 1.0;
    daux_[row] = options_.limit_return_gain * (target - s);
    ++row;
  }
  aux_rows_ = row;
}

// One pass of Eq. 6–12 with mobilities m_ and the fixed velocities fixed_ of locked coordinates.
void PinDragIk::solve(double /*dt*/, PinDragResult& result) {
  const int nv = model_->nv();
  const int na = static_cast<int>(daux_.size());
  // Eq. 6: J_P^# = M J_Pᵀ (J_P M J_Pᵀ + k_P I)⁻¹, θ̇₀ = J_P^# (ṙ_P^ref − J_P ν_fixed) + ν_fixed.
  double kP = 0.0;
  if (np_ > 0) {
    if (dense_)
      PM_.noalias() = JP_ * Mfull_;
    else
      PM_.noalias() = JP_ * m_.asDiagonal();
    AP_.noalias() = PM_ * JP_.transpose();
    ldltP_.compute(AP_);
    kP = dampingFor(singularEstimate(ldltP_, invP_));
    if (kP > 0.0) {
      AP_.diagonal().array() += kP;
      ldltP_.compute(AP_);
    }
    XP_ = ldltP_.solve(PM_);  // A_P⁻¹ J_P M
    JPinv_ = XP_.transpose();
    vP_.noalias() = JP_ * fixed_;
    vP_ = rP_ - vP_;
    w_.noalias() = JPinv_ * vP_;  // θ̇₀ (free part)
  } else {
    w_.setZero();
  }
  // Eq. 10–11: S = J_aux W = J_aux − (J_aux J_P^#) J_P, Δṗ = ṗ^d − J_aux (θ̇₀ + ν_fixed).
  double k = 0.0;
  if (na > 0) {
    if (np_ > 0) {
      C_.noalias() = Jaux_ * JPinv_;
      S_ = Jaux_;
      S_.noalias() -= C_ * JP_;
    } else {
      S_ = Jaux_;
    }
    z_ = w_ + fixed_;
    vS_.noalias() = Jaux_ * z_;
    vS_ = daux_ - vS_;
    // Eq. 12: y = S^* Δṗ with S^* = M Sᵀ (S M Sᵀ + k I)⁻¹, k by the Nakamura–Hanafusa rule.
    if (dense_)
      MSt_.noalias() = Mfull_ * S_.transpose();
    else
      MSt_.noalias() = m_.asDiagonal() * S_.transpose();
    AS_.noalias() = S_ * MSt_;
    for (int i = aux_rows_; i < na; ++i) AS_(i, i) = 1.0;  // unused rows: identity, zero rhs
    ldltS_.compute(AS_);
    k = dampingFor(singularEstimate(ldltS_, invS_));
    if (k > 0.0) {
      AS_.diagonal().head(aux_rows_).array() += k;
      ldltS_.compute(AS_);
    }
    xS_ = ldltS_.solve(vS_);
    y_.noalias() = MSt_ * xS_;
  } else {
    y_.setZero();
  }
  // Desired joint values, in what the pins leave: y += (E − S^*S) M K_D (s_d − s).
  if (options_.posture_gain > 0.0) {
    const int nb = model_->nvBase();
    z_.head(nb).setZero();
    z_.tail(nv - nb) = options_.posture_gain * (desired_ - q_.joints);
    if (dense_) {
      zt_.noalias() = Mfull_ * z_;
      z_ = zt_;
    } else {
      z_.array() *= m_.array();
    }
    if (na > 0) {
      vS_.noalias() = S_ * z_;
      xS_ = ldltS_.solve(vS_);
      z_.noalias() -= MSt_ * xS_;
    }
    y_ += z_;
  }
  // Eq. 7: θ̇ = θ̇₀ + W y, W y = y − J_P^# (J_P y).
  nu_ = fixed_ + w_ + y_;
  if (np_ > 0) {
    vP_.noalias() = JP_ * y_;
    nu_.noalias() -= JPinv_ * vP_;
  }
  result.drag_damping = kP;
  result.sr_damping = k;
}

PinDragResult PinDragIk::update(double dt) {
  if (!(dt > 0.0) || !std::isfinite(dt)) throw InvalidArgument("PinDragIk::update: dt must be finite and > 0");
  PinDragResult result;
  syncTasks();
  const int nb = model_->nvBase();
  const int nj = model_->numJoints();
  const VectorXd& lower = joint_limits_.lower();
  const VectorXd& upper = joint_limits_.upper();
  const MatrixXd& rowA = row_limits_.matrix();
  forwardKinematics(*model_, data_, q_);
  fillUnsetValues();
  stackTasks();
  result.aux_rows = aux_rows_;
  m_ = base_mobility_;
  fixedJ_.setZero();
  active_.setZero();
  rowB_.setZero();
  rowVal_.noalias() = rowA.rightCols(nj) * q_.joints;
  const int max_passes = options_.max_lock_passes + row_limits_.size();
  // Solve, then lock every joint whose step would cross a limit, activate every model row whose
  // step would leave its range, and solve again.
  int clipped = 0, rows_left = 0;
  for (int pass = 0;; ++pass) {
    prepareMobility();
    solve(dt, result);
    result.iterations = pass + 1;
    int newly_locked = 0;
    for (int j = 0; j < nj; ++j) {
      const int c = nb + j;
      if (m_[c] == 0.0 && fixedJ_[c] != 0.0) continue;
      const double s = q_.joints[j];
      const double next = s + nu_[c] * dt;
      double v = nu_[c];
      if (next > upper[j]) v = std::max((upper[j] - s) / dt, -vmax_[c]);
      if (next < lower[j]) v = std::min((lower[j] - s) / dt, vmax_[c]);
      if (v == nu_[c]) continue;
      if (pass < max_passes) {
        m_[c] = 0.0;
        fixedJ_[c] = v;
        ++newly_locked;
      } else {
        nu_[c] = v;  // last pass: clip
        ++clipped;
      }
    }
    result.locked_joints += newly_locked;
    const int newly_active = pass < max_passes ? activateRows(dt, true) : 0;
    if (pass >= max_passes) rows_left = activateRows(dt, false);  // rows the passes could not take
    if ((newly_locked == 0 && newly_active == 0) || pass >= max_passes) break;
  }
  result.active_rows = static_cast<int>(active_.cast<int>().sum());
  if (!nu_.allFinite()) {  // numerical safety net: never integrate NaN
    nu_.setZero();
    result.status = Status::Failed;
  } else if (clipped > 0 || rows_left > 0) {
    result.status = Status::IterationLimit;
  }
  // Velocity limits: one uniform scale keeps the direction (and limits: s inside stays inside).
  double scale = 1.0;
  for (int i = 0; i < nu_.size(); ++i) {
    const double a = std::abs(nu_[i]);
    if (a > vmax_[i]) scale = std::min(scale, vmax_[i] / a);
  }
  if (scale < 1.0) nu_ *= scale;
  result.velocity_scale = scale;
  integrate(*model_, q_, nu_, dt, q_);
  // Errors after the step; MNTE over the orientation components.
  forwardKinematics(*model_, data_, q_);
  double trace_error = 0.0;
  int orientations = 0;
  for (const Active& a : active_pins_) {
    const FrameTask& t = pins_.all()[static_cast<std::size_t>(a.task.value)];
    const Transform& X = updateFramePlacement(*model_, data_, t.frame);
    if (a.position) result.pin_position_error = std::max(result.pin_position_error, (t.p - X.p).norm());
    if (a.orientation) {
      result.pin_orientation_error = std::max(result.pin_orientation_error, so3::log(t.R * X.R.transpose()).norm());
      trace_error += metrics::normalizedTraceError(X.R, t.R);
      ++orientations;
    }
  }
  for (const Active& a : active_drags_) {
    const FrameTask& t = drags_.all()[static_cast<std::size_t>(a.task.value)];
    const Transform& X = updateFramePlacement(*model_, data_, t.frame);
    const double err = a.position ? (t.p - X.p).norm() : so3::log(t.R * X.R.transpose()).norm();
    result.drag_error = std::max(result.drag_error, err);
    if (a.orientation) {
      trace_error += metrics::normalizedTraceError(X.R, t.R);
      ++orientations;
    }
  }
  result.mnte = orientations > 0 ? trace_error / orientations : 0.0;
  result.limit_violation = joint_limits_.violation(q_.joints);
  rowVal_.noalias() = rowA.rightCols(nj) * q_.joints;
  const std::vector<LinearConstraint>& rows = row_limits_.rows();
  for (int r = 0; r < rowVal_.size(); ++r) {
    const LinearConstraint& row = rows[static_cast<std::size_t>(r)];
    result.row_violation = std::max({result.row_violation, rowVal_[r] - row.upper, row.lower - rowVal_[r]});
  }
  return result;
}

// The mobility of this pass: diagonal m_ without active rows; else M' = D − D Aᵀ G⁻¹ A D with
// G = A D Aᵀ (inactive rows zero in A, identity in G), and the particular velocity
// ν_p = D Aᵀ G⁻¹ (b − A ν_locked) added to the locked joints' velocities.
void PinDragIk::prepareMobility() {
  dense_ = active_.size() > 0 && active_.maxCoeff() > 0;
  if (!dense_) {
    fixed_ = fixedJ_;
    return;
  }
  for (int r = 0; r < active_.size(); ++r) {
    if (active_[r] != 0)
      rowAct_.row(r) = row_limits_.matrix().row(r);
    else
      rowAct_.row(r).setZero();
  }
  AD_.noalias() = rowAct_ * m_.asDiagonal();
  G_.noalias() = AD_ * rowAct_.transpose();
  const double eps = 1e-12 * (1.0 + G_.diagonal().cwiseAbs().maxCoeff());
  for (int r = 0; r < active_.size(); ++r) G_(r, r) = active_[r] != 0 ? G_(r, r) + eps : 1.0;
  ldltG_.compute(G_);
  XG_ = ldltG_.solve(AD_);
  Mfull_.noalias() = -AD_.transpose() * XG_;
  Mfull_.diagonal() += m_;
  rr_ = rowB_;
  rr_.noalias() -= rowAct_ * fixedJ_;
  xr_ = ldltG_.solve(rr_);
  fixed_ = fixedJ_;
  fixed_.noalias() += AD_.transpose() * xr_;
}

// With apply: activates every inactive row whose step leaves its range (or that is outside and not
// returning at K_L), with the velocity b it gets; without: only counts them.
int PinDragIk::activateRows(double dt, bool apply) {
  int newly = 0;
  const std::vector<LinearConstraint>& rows = row_limits_.rows();
  for (int r = 0; r < active_.size(); ++r) {
    if (active_[r] != 0) continue;
    const double val = rowVal_[r], lo = rows[static_cast<std::size_t>(r)].lower,
                 hi = rows[static_cast<std::size_t>(r)].upper;
    const double rate = row_limits_.matrix().row(r).dot(nu_), next = val + rate * dt;
    double b = rate;
    if (val > hi) {
      b = std::min(rate, options_.limit_return_gain * (hi - val));  // outside: return at least at K_L
    } else if (val < lo) {
      b = std::max(rate, options_.limit_return_gain * (lo - val));
    } else if (next > hi) {
      b = (hi - val) / dt;  // would leave: land on the bound
    } else if (next < lo) {
      b = (lo - val) / dt;
    }
    if (b == rate) continue;
    ++newly;
    if (!apply) continue;
    active_[r] = 1;
    rowB_[r] = b;
  }
  return newly;
}

}  // namespace kinetrack::ik
