#include "kinetrack/dynamics/dynamics_filter.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "dynamics_filter_work.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"

namespace kinetrack {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool finite(const Configuration& q) {
  return q.base_position.allFinite() && q.base_rotation.allFinite() && q.joints.allFinite();
}

// The force QP's outcome as the frame's status (written "solver_limit" whenever not optimal).
ik::Status statusOf(qp::Status s) {
  switch (s) {
    case qp::Status::Optimal: return ik::Status::Converged;
    case qp::Status::IterationLimit: return ik::Status::IterationLimit;
    case qp::Status::Infeasible: return ik::Status::Infeasible;
    case qp::Status::NotConvex: return ik::Status::Failed;
  }
  return ik::Status::Failed;
}

// The wrench (force; moment about the link origin o) of a unit force along `axis` at the world
// point p: the dual of the mixed-representation Jacobian's rows (linear; angular).
Vector6d unitWrench(const Vector3d& axis, const Vector3d& p, const Vector3d& o) {
  Vector6d w;
  w << axis, (p - o).cross(axis);
  return w;
}

}  // namespace

bool touchesGround(const Model& model, const Data& data, const ContactBody& body, const VectorXd& v,
                   const GroundPlane& ground, double height, double speed, Matrix6Xd& J, double point_tolerance) {
  frameJacobian(model, data, model.linkFrame(body.link), J);
  const Transform& X = data.link[static_cast<std::size_t>(body.link.value)];
  const Vector6d V = J * v;  // (v_o; ω)
  double lowest = kInf;
  for (const Vector3d& p : body.points) lowest = std::min(lowest, ground.height(X.p + X.R * p));
  if (!(lowest <= height)) return false;
  // The speed of the touching points only (within point_tolerance of the lowest): at heel strike
  // and toe-off the touching edge is still while the rest of the sole swings.
  Vector3d mean_velocity = Vector3d::Zero();
  int touching = 0;
  for (const Vector3d& p : body.points) {
    const Vector3d r = X.R * p;
    if (!(ground.height(X.p + r) <= lowest + point_tolerance)) continue;
    mean_velocity += V.head<3>() + V.tail<3>().cross(r);
    ++touching;
  }
  if (touching == 0) return false;  // a NaN tolerance
  mean_velocity /= static_cast<double>(touching);
  return (mean_velocity - ground.velocity).norm() <= speed;
}

DynamicsFilter::DynamicsFilter(std::shared_ptr<const Model> model, std::vector<ContactBody> contacts,
                               const DynamicsFilterOptions& options)
    : model_(std::move(model)), contacts_(std::move(contacts)), options_(options) {
  if (!model_) throw InvalidArgument("DynamicsFilter: null model");
  const Model& m = *model_;
  const DynamicsFilterOptions& o = options_;
  // Options.
  for (const double g : {o.residual_softness, o.kp_base, o.kd_base, o.kp_joint, o.kd_joint, o.kp_head, o.kd_head,
                         o.head_damping, o.force_regularisation, o.force_tracking, o.contact_height, o.contact_speed,
                         o.contact_point_tolerance, o.contact_kp, o.contact_kd})
    if (!std::isfinite(g) || g < 0.0)
      throw InvalidArgument("DynamicsFilter: gains, weights and thresholds must be finite and >= 0");
  if (!(o.weight_base > 0.0) || !(o.weight_joint > 0.0) || !std::isfinite(o.weight_base) ||
      !std::isfinite(o.weight_joint))
    throw InvalidArgument("DynamicsFilter: acceleration-change weights must be finite and > 0");
  if (!(o.max_deviation > 0.0)) throw InvalidArgument("DynamicsFilter: max_deviation must be > 0");
  if (o.contact_forces == ContactForces::Measured && o.force_tracking > 0.0)
    throw InvalidArgument(
        "DynamicsFilter: force_tracking pulls solved contact forces towards the measured ones; with "
        "ContactForces::Measured the measured ones are applied (set force_tracking to 0)");
  if (!(o.friction > 0.0) || !std::isfinite(o.friction))
    throw InvalidArgument("DynamicsFilter: friction coefficient must be finite and > 0");
  if (!o.ground.normal.allFinite() || std::abs(o.ground.normal.norm() - 1.0) > 1e-9 ||
      !std::isfinite(o.ground.offset) || !o.ground.velocity.allFinite())
    throw InvalidArgument("DynamicsFilter: the ground normal must be a finite unit vector");
  if (!o.gravity.allFinite()) throw InvalidArgument("DynamicsFilter: gravity must be finite");
  if (o.head.valid() && o.head.value >= m.numLinks())
    throw InvalidArgument("DynamicsFilter: head link id " + std::to_string(o.head.value) + " out of range");
  // Unactuated coordinates.
  unactuated_ = o.unactuated;
  if (unactuated_.empty()) {
    if (m.nvBase() != 6)
      throw InvalidArgument("DynamicsFilter: model '" + m.name() +
                            "' has a fixed base: name its unactuated coordinates (options.unactuated)");
    unactuated_ = {0, 1, 2, 3, 4, 5};
  }
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(m.nv()), 0);
  for (const int u : unactuated_) {
    if (u < 0 || u >= m.nv())
      throw InvalidArgument("DynamicsFilter: unactuated index " + std::to_string(u) + " outside 0.." +
                            std::to_string(m.nv() - 1));
    if (seen[static_cast<std::size_t>(u)]++)
      throw InvalidArgument("DynamicsFilter: unactuated index " + std::to_string(u) + " given twice");
  }
  // Contacts.
  int np = 0;
  for (const ContactBody& b : contacts_) {
    if (!b.link.valid() || b.link.value >= m.numLinks())
      throw InvalidArgument("DynamicsFilter: contact '" + b.name + "' on link id " + std::to_string(b.link.value) +
                            ", the model has " + std::to_string(m.numLinks()) + " links");
    if (b.points.empty()) throw InvalidArgument("DynamicsFilter: contact '" + b.name + "' has no points");
    for (const Vector3d& p : b.points)
      if (!p.allFinite()) throw InvalidArgument("DynamicsFilter: contact '" + b.name + "' has a non-finite point");
    np += static_cast<int>(b.points.size());
  }
  const int nu = static_cast<int>(unactuated_.size()), nc = static_cast<int>(contacts_.size());
  work_ = std::make_shared<Work>(m, nu, nc, std::max(np, 1));  // DynamicsData checks the masses
  Work& w = *work_;
  w.mass = m.totalMass();
  if (!(w.mass > 0.0)) throw InvalidArgument("DynamicsFilter: model '" + m.name() + "' has no mass");
  // Per-coordinate gains and inverse weights.
  const int nb = m.nvBase();
  w.kp.setConstant(o.kp_joint);
  w.kd.setConstant(o.kd_joint);
  w.kp.head(nb).setConstant(o.kp_base);
  w.kd.head(nb).setConstant(o.kd_base);
  for (const int u : unactuated_) w.kp[u] = o.kp_base, w.kd[u] = o.kd_base;  // an OpenSim pelvis
  w.winv.setConstant(1.0 / o.weight_joint);
  for (const int u : unactuated_) w.winv[u] = 1.0 / o.weight_base;
  w.winv_const = w.winv;
  // Ground frame: tangents t1, t2 and the normal n.
  const Vector3d n = o.ground.normal;
  Vector3d t1 = n.cross(Vector3d::UnitX());
  if (t1.norm() < 0.1) t1 = n.cross(Vector3d::UnitY());
  t1.normalize();
  w.T.col(0) = t1;
  w.T.col(1) = n.cross(t1);
  w.T.col(2) = n;
  // The friction pyramid: per point ±f_t1 − μ f_n ≤ 0, ±f_t2 − μ f_n ≤ 0 (rows fixed for good).
  for (qp::Problem* p : {&w.problem, &w.before}) {
    for (int i = 0; i < np; ++i) {
      const int x = 3 * i, r = 4 * i;
      for (int s = 0; s < 2; ++s) {
        p->A(r + 2 * s, x + s) = 1.0;
        p->A(r + 2 * s + 1, x + s) = -1.0;
        p->A(r + 2 * s, x + 2) = -o.friction;
        p->A(r + 2 * s + 1, x + 2) = -o.friction;
        p->ubA[r + 2 * s] = 0.0;
        p->ubA[r + 2 * s + 1] = 0.0;
      }
    }
  }
  w.solver = std::make_unique<qp::Solver>(3 * std::max(np, 1), 4 * std::max(np, 1), o.qp);
  w.solver_before = std::make_unique<qp::Solver>(3 * std::max(np, 1), 4 * std::max(np, 1), o.qp);
  // Output frame.
  DynamicsFilterFrame& fr = frame_;
  fr.q = Configuration(m);
  fr.v = VectorXd::Zero(m.nv());
  fr.acceleration = VectorXd::Zero(m.nv());
  fr.desired = VectorXd::Zero(m.nv());
  fr.change = VectorXd::Zero(m.nv());
  fr.tau = VectorXd::Zero(m.nv());
  fr.residual_before = VectorXd::Zero(nu);
  fr.residual_after = VectorXd::Zero(nu);
  fr.in_contact.assign(static_cast<std::size_t>(nc), 0);
  fr.wrenches.resize(static_cast<std::size_t>(nc));
  for (int b = 0; b < nc; ++b)
    fr.wrenches[static_cast<std::size_t>(b)].link = contacts_[static_cast<std::size_t>(b)].link;
  fr.point_forces.assign(static_cast<std::size_t>(np), Vector3d::Zero());
  for (int b = 0; b < nc; ++b) w.ext[static_cast<std::size_t>(b)].link = contacts_[static_cast<std::size_t>(b)].link;
}

void DynamicsFilter::reset(const Configuration& q, const VectorXd& v) {
  const Model& m = *model_;
  if (q.joints.size() != m.numJoints() || v.size() != m.nv())
    throw InvalidArgument("DynamicsFilter::reset: expected " + std::to_string(m.numJoints()) + " joints and " +
                          std::to_string(m.nv()) + " velocities");
  if (!finite(q) || !v.allFinite()) throw InvalidArgument("DynamicsFilter::reset: non-finite state");
  Work& w = *work_;
  w.q = q;
  w.v = v;
  std::fill(w.was_active.begin(), w.was_active.end(), 0);
  std::fill(w.point_was_on.begin(), w.point_was_on.end(), 0);
  w.solver->reset();
  w.solver_before->reset();
  started_ = true;
}

void DynamicsFilter::detectContacts(const VectorXd& v_ref, std::span<const std::uint8_t> given) {
  Work& w = *work_;
  const Model& m = *model_;
  for (std::size_t b = 0; b < contacts_.size(); ++b) {
    const ContactBody& body = contacts_[b];
    if (options_.residual_before) frameJacobian(m, w.kin_ref, m.linkFrame(body.link), w.J_c_ref[b]);
    if (options_.contact_source == ContactSource::Given) {
      frame_.in_contact[b] = given[b] != 0;
      continue;
    }
    frame_.in_contact[b] = touchesGround(m, w.kin_ref, body, v_ref, options_.ground, options_.contact_height,
                                         options_.contact_speed, w.J_c_ref[b], options_.contact_point_tolerance);
  }
}

// Per body in contact: the points that touch (within contact_point_tolerance of the body's lowest
// point at the reference) carry force. Three or more: the link is welded (6 rows); one or two (a
// heel, a toe edge: the foot rolls): only their centroid is held (3 rows, rotation free). A new
// mode or point set re-anchors at the current pose (snapped onto the ground).
void DynamicsFilter::updateAnchors() {
  Work& w = *work_;
  const GroundPlane& g = options_.ground;
  int x = 0;
  for (std::size_t b = 0; b < contacts_.size(); ++b) {
    const ContactBody& body = contacts_[b];
    const int np = static_cast<int>(body.points.size());
    const Transform& Xr = w.kin_ref.link[static_cast<std::size_t>(body.link.value)];
    double lowest = kInf;
    for (const Vector3d& p : body.points) lowest = std::min(lowest, g.height(Xr.p + Xr.R * p));
    int on = 0;
    bool changed = false;
    Vector3d c = Vector3d::Zero();
    for (int i = 0; i < np; ++i) {
      const auto k = static_cast<std::size_t>(x + i);
      const Vector3d& p = body.points[static_cast<std::size_t>(i)];
      w.point_on[k] = frame_.in_contact[b] && g.height(Xr.p + Xr.R * p) <= lowest + options_.contact_point_tolerance;
      if (w.point_on[k]) ++on, c += p;
      changed = changed || w.point_on[k] != w.point_was_on[k];
      w.point_was_on[k] = w.point_on[k];
    }
    const std::uint8_t mode = on == 0 ? 0 : (on >= 3 || np < 3) ? 6 : 3;
    if (mode != 0 && (mode != w.was_active[b] || (mode == 3 && changed))) {
      const Transform& X =
          options_.anchor_at_reference ? Xr : w.dyn.kinematics.link[static_cast<std::size_t>(body.link.value)];
      w.anchor[b] = X;
      if (mode == 3) {
        w.centroid[b] = c / on;
        w.anchor[b].p = X.p + X.R * w.centroid[b];
        if (options_.snap_to_ground) w.anchor[b].p -= g.height(w.anchor[b].p) * g.normal;
      } else if (options_.snap_to_ground) {
        double low = kInf;
        for (const Vector3d& p : body.points) low = std::min(low, g.height(X.p + X.R * p));
        w.anchor[b].p -= low * g.normal;
      }
    }
    w.was_active[b] = mode;
    x += np;
  }
}

void DynamicsFilter::desiredAcceleration(const Configuration& q_ref, const VectorXd& v_ref, const VectorXd& a_ref) {
  Work& w = *work_;
  const Model& m = *model_;
  VectorXd& ad = frame_.desired;
  // Resolved-acceleration feedback on every coordinate, the base included (q_ref ⊖ q in the
  // world frame for the base rotation).
  difference(m, w.q, q_ref, w.diff);
  ad = a_ref + w.kd.cwiseProduct(v_ref - w.v) + w.kp.cwiseProduct(w.diff);
  if (!options_.head.valid()) return;
  // Skyhook: the head's acceleration made J_h ν̇_ref + J̇_h ν + K_p e + K_d ė (a spring-damper to
  // its reference pose in the world) by the least change of ν̇ᵈ; J̇_h ν cancels out of the change.
  const FrameId head = m.linkFrame(options_.head);
  frameJacobian(m, w.dyn.kinematics, head, w.J_head);
  frameJacobian(m, w.kin_ref, head, w.J_head_ref);
  const Transform& X = w.dyn.kinematics.link[static_cast<std::size_t>(options_.head.value)];
  const Transform& Xr = w.kin_ref.link[static_cast<std::size_t>(options_.head.value)];
  Vector6d e, rate;
  e << Xr.p - X.p, so3::log(Xr.R * X.R.transpose());
  rate.noalias() = w.J_head_ref * v_ref;
  rate.noalias() -= w.J_head * w.v;
  Vector6d corr = options_.kp_head * e + options_.kd_head * rate;
  corr.noalias() += w.J_head * a_ref;
  corr.noalias() -= w.J_head * ad;
  Matrix6d S;
  S.noalias() = w.J_head * w.J_head.transpose();
  S.diagonal().array() += options_.head_damping * S.trace() / 6.0 + 1e-12;
  const Vector6d y = S.llt().solve(corr);
  ad.noalias() += w.J_head.transpose() * y;
}

void DynamicsFilter::buildContactRows() {
  Work& w = *work_;
  const Model& m = *model_;
  const int nu = static_cast<int>(unactuated_.size());
  const VectorXd& ad = frame_.desired;
  const MatrixXd& M = w.dyn.mass_matrix;
  // Unactuated rows of Eq. 1: M_U Δν̇ − (Σ Jᵀ P f)_U = −(M ν̇ᵈ + h)_U.
  for (int i = 0; i < nu; ++i) {
    const int u = unactuated_[static_cast<std::size_t>(i)];
    w.G.row(i) = M.row(u);
    w.c[i] = -(M.row(u).dot(ad) + w.h[u]);
  }
  w.D.setZero();
  w.P.setZero();
  int col = 0;
  for (std::size_t b = 0; b < contacts_.size(); ++b) {
    const ContactBody& body = contacts_[b];
    const int r0 = nu + 6 * static_cast<int>(b), np = static_cast<int>(body.points.size());
    if (w.was_active[b] == 0) {
      w.G.middleRows(r0, 6).setZero();
      w.c.segment<6>(r0).setZero();
      col += 3 * np;
      continue;
    }
    const auto l = static_cast<std::size_t>(body.link.value);
    const Transform& X = w.dyn.kinematics.link[l];
    Matrix6Xd& J = w.J_c[b];
    frameJacobian(m, w.dyn.kinematics, m.linkFrame(body.link), J);
    // J̇ν of the link frame from RNEA's spatial velocity and bias acceleration (ν̇ = 0) at the
    // world origin: a_o = a_O + α × o + ω × v_o with the fictitious gravity removed.
    const Vector6d& V = w.dyn.velocity[l];
    Vector6d A = w.dyn.acceleration[l];
    A.tail<3>() += options_.gravity;
    const Vector3d omega = V.head<3>(), v_o = V.tail<3>() + omega.cross(X.p);
    const Vector3d alpha = A.head<3>();
    Vector6d bias;
    bias << A.tail<3>() + alpha.cross(X.p) + omega.cross(v_o), alpha;
    if (w.was_active[b] == 6) {
      // Baumgarte: the weld pulls the link back to its touch-down pose.
      Vector6d err, vel;
      err << X.p - w.anchor[b].p, so3::log(X.R * w.anchor[b].R.transpose());
      vel.noalias() = J * w.v;
      vel.head<3>() -= options_.ground.velocity;  // relative to the (moving) surface
      Vector6d target = -w.kd_c * vel - w.kp_c * err - bias;
      target.noalias() -= J * ad;
      w.G.middleRows(r0, 6) = J;
      w.c.segment<6>(r0) = target;
    } else {
      // A rolling foot: the touching points' centroid p held, the rotation free. J_p = J_lin −
      // [p − o]× J_ang; J̇_p ν = a_o + α × r + ω × (ω × r) with r = p − o.
      const Vector3d r = X.R * w.centroid[b], p = X.p + r;
      auto Jp = w.G.middleRows(r0, 3);
      Jp = J.topRows<3>();
      Jp.row(0) += r.z() * J.row(4) - r.y() * J.row(5);
      Jp.row(1) += r.x() * J.row(5) - r.z() * J.row(3);
      Jp.row(2) += r.y() * J.row(3) - r.x() * J.row(4);
      w.G.middleRows(r0 + 3, 3).setZero();
      const Vector3d vp = v_o + omega.cross(r) - options_.ground.velocity;
      const Vector3d bias_p = bias.head<3>() + alpha.cross(r) + omega.cross(omega.cross(r));
      Vector3d target = -w.kd_c * vp - w.kp_c * (p - w.anchor[b].p) - bias_p;
      target.noalias() -= Jp * ad;
      w.c.segment<3>(r0) = target;
      w.c.segment<3>(r0 + 3).setZero();
    }
    // Point forces (ground frame t1, t2, n) → link wrench P and unactuated generalised force D.
    for (int i = 0; i < np; ++i) {
      const Vector3d p = X.p + X.R * body.points[static_cast<std::size_t>(i)];
      for (int k = 0; k < 3; ++k, ++col) {
        const Vector6d uw = unitWrench(w.T.col(k), p, X.p);
        w.P.block<6, 1>(6 * static_cast<int>(b), col) = uw;
        for (int r = 0; r < nu; ++r) w.D(r, col) = J.col(unactuated_[static_cast<std::size_t>(r)]).dot(uw);
      }
    }
  }
  // K = G W⁻¹ Gᵀ (inactive contact rows are zero: unit diagonal there, λ = 0 for them).
  if (options_.weighting == ChangeWeighting::InertiaDiagonal)
    for (int i = 0; i < m.nv(); ++i) w.winv[i] = w.winv_const[i] / std::max(M(i, i), 1e-9);
  w.GW.noalias() = w.G * w.winv.asDiagonal();
  w.K.noalias() = w.GW * w.G.transpose();
  // A soft residual (residual_softness σ > 0): the unactuated rows may keep a residual s at the
  // cost ½‖s‖²/(σm)² (RRA's residual actuators); eliminating s adds (σm)² to their diagonal.
  if (options_.residual_softness > 0.0)
    w.K.diagonal().head(nu).array() += std::pow(options_.residual_softness * w.mass, 2);
  for (std::size_t b = 0; b < contacts_.size(); ++b)
    if (w.was_active[b] == 0) w.K.block<6, 6>(nu + 6 * static_cast<int>(b), nu + 6 * static_cast<int>(b)).setIdentity();
  w.llt.compute(w.K);
  // Dependent rows (two welded feet with straight knees): damp, more until it factorises.
  const double scale = w.K.diagonal().cwiseAbs().maxCoeff();
  for (double damping = 1e-10; w.llt.info() != Eigen::Success && damping < 1e-2; damping *= 100.0) {
    w.K.diagonal().array() += damping * scale;
    w.llt.compute(w.K);
  }
  // Scaled so that ½‖L⁻¹(c + D f)‖² is the weighted ½‖Δν̇‖²_W of the least change given f.
  w.llt.matrixL().solveInPlace(w.D);
  w.llt.matrixL().solveInPlace(w.c);
}

void DynamicsFilter::solveForces(std::span<const ExternalWrench> measured) {
  Work& w = *work_;
  const double eps = options_.force_regularisation / (w.mass * w.mass);
  qp::Problem& p = w.problem;
  // ½‖D̃ f + c̃‖² + ½ε‖f‖²/m² (+ ½ w‖P f − w_meas‖²/m²).
  p.H.noalias() = w.D.transpose() * w.D;
  p.H.diagonal().array() += eps;
  p.g.noalias() = w.D.transpose() * w.c;
  const bool track = options_.force_tracking > 0.0 && !measured.empty();
  if (track) {
    const double wt = options_.force_tracking / (w.mass * w.mass);
    for (std::size_t b = 0; b < contacts_.size(); ++b) {
      const ExternalWrench& e = measured[b];
      const Vector3d o = w.dyn.kinematics.link[static_cast<std::size_t>(contacts_[b].link.value)].p;
      w.w_meas.segment<6>(6 * static_cast<int>(b)) << e.force, e.moment + (e.point - o).cross(e.force);
    }
    p.H.noalias() += wt * (w.P.transpose() * w.P);
    p.g.noalias() -= wt * (w.P.transpose() * w.w_meas);
  }
  int x = 0;
  for (std::size_t b = 0; b < contacts_.size(); ++b) {
    for (std::size_t i = 0; i < contacts_[b].points.size(); ++i, x += 3) {
      const bool on = w.point_on[static_cast<std::size_t>(x / 3)] != 0;
      for (int k = 0; k < 3; ++k) {
        p.lb[x + k] = on ? -kInf : 0.0;
        p.ub[x + k] = on ? kInf : 0.0;
      }
      if (on) p.lb[x + 2] = 0.0;  // unilateral: f_n ≥ 0
    }
  }
  w.before.lb = p.lb;
  w.before.ub = p.ub;
  if (!p.H.allFinite() || !p.g.allFinite()) {  // a degenerate frame: no forces, reported
    w.f.setZero();
    frame_.status = ik::Status::Failed;
    return;
  }
  const qp::Result r = w.solver->solve(p, w.f);
  frame_.qp_iterations = r.iterations;
  frame_.iterations = 1;
  frame_.status = statusOf(r.status);
  // Activity: unilateral bounds and friction rows of contact points active at the optimum.
  const VectorXd& bm = w.solver->boundMultipliers();
  const VectorXd& rm = w.solver->rowMultipliers();
  x = 0;
  for (std::size_t b = 0; b < contacts_.size(); ++b) {
    for (std::size_t i = 0; i < contacts_[b].points.size(); ++i, x += 3) {
      if (!w.point_on[static_cast<std::size_t>(x / 3)]) continue;
      // A point without (meaningful: < 1e-3 of the weight) normal force has its rows at ~zero:
      // count it as unilateral only.
      if (bm[x + 2] != 0.0 || w.f[x + 2] <= 1e-3 * w.mass * options_.gravity.norm()) {
        ++frame_.binding_unilateral;
        continue;
      }
      for (int k = 0; k < 4; ++k)
        if (rm[4 * (x / 3) + k] != 0.0) ++frame_.binding_friction;
    }
  }
}

void DynamicsFilter::residualBefore(const Configuration& q_ref, const VectorXd& v_ref, const VectorXd& a_ref) {
  Work& w = *work_;
  const Model& m = *model_;
  const int nu = static_cast<int>(unactuated_.size());
  // The reference's generalised forces M ν̇_ref + h (RNEA) and the contact map at the reference.
  const VectorXd& tau = rnea(m, w.dyn_ref, q_ref, v_ref, a_ref, {}, options_.gravity);
  for (int i = 0; i < nu; ++i) w.tau_ref[i] = tau[unactuated_[static_cast<std::size_t>(i)]];
  w.Dref.setZero();
  int col = 0;
  for (std::size_t b = 0; b < contacts_.size(); ++b) {
    const ContactBody& body = contacts_[b];
    if (!frame_.in_contact[b]) {
      col += 3 * static_cast<int>(body.points.size());
      continue;
    }
    const Transform& X = w.kin_ref.link[static_cast<std::size_t>(body.link.value)];
    for (const Vector3d& pl : body.points) {
      const Vector3d p = X.p + X.R * pl;
      for (int k = 0; k < 3; ++k, ++col) {
        const Vector6d uw = unitWrench(w.T.col(k), p, X.p);
        for (int r = 0; r < nu; ++r)
          w.Dref(r, col) = w.J_c_ref[b].col(unactuated_[static_cast<std::size_t>(r)]).dot(uw);
      }
    }
  }
  // The best feasible contact forces: min ½‖τ_U − D f‖² + ½ε‖f‖²/m² over the friction pyramid.
  qp::Problem& p = w.before;
  if (!w.Dref.allFinite() || !w.tau_ref.allFinite()) {
    frame_.residual_before.setZero();
    return;
  }
  p.H.noalias() = w.Dref.transpose() * w.Dref;
  p.H.diagonal().array() += options_.force_regularisation / (w.mass * w.mass);
  p.g.noalias() = w.Dref.transpose() * w.tau_ref;
  p.g = -p.g;
  w.solver_before->solve(p, w.f_before);
  frame_.residual_before = w.tau_ref;
  frame_.residual_before.noalias() -= w.Dref * w.f_before;
}

void DynamicsFilter::finish(double dt) {
  Work& w = *work_;
  const Model& m = *model_;
  DynamicsFilterFrame& fr = frame_;
  // Δν̇ = W⁻¹ Gᵀ K⁻¹ (c + D f): λ = L⁻ᵀ (c̃ + D̃ f).
  w.lambda = w.c;
  w.lambda.noalias() += w.D * w.f;
  w.llt.matrixU().solveInPlace(w.lambda);
  fr.change.noalias() = w.G.transpose() * w.lambda;
  fr.change.array() *= w.winv.array();
  fr.acceleration = fr.desired + fr.change;
  // τ = M ν̇ + h − Σ J_cᵀ w; contact wrenches at the link origins, point forces in the world.
  fr.tau = w.h;
  fr.tau.noalias() += w.dyn.mass_matrix * fr.acceleration;
  if (options_.contact_forces == ContactForces::Measured) finishMeasured();  // h has them
  int x = 0;
  for (std::size_t b = 0; b < contacts_.size() && options_.contact_forces == ContactForces::Solved; ++b) {
    ExternalWrench& e = fr.wrenches[b];
    const Transform& X = w.dyn.kinematics.link[static_cast<std::size_t>(contacts_[b].link.value)];
    e.point = X.p;
    e.force.setZero();
    e.moment.setZero();
    for (const Vector3d& pl : contacts_[b].points) {
      const Vector3d F = w.T * w.f.segment<3>(x);
      fr.point_forces[static_cast<std::size_t>(x / 3)] = F;
      e.force += F;
      e.moment += (X.R * pl).cross(F);
      x += 3;
    }
    if (!fr.in_contact[b]) continue;
    Vector6d wr;
    wr << e.force, e.moment;
    fr.tau.noalias() -= w.J_c[b].transpose() * wr;
  }
  for (std::size_t i = 0; i < unactuated_.size(); ++i)
    fr.residual_after[static_cast<Eigen::Index>(i)] = fr.tau[unactuated_[i]];
  // The anchors ride on the surface (a treadmill belt).
  for (std::size_t b = 0; b < contacts_.size(); ++b)
    if (w.was_active[b]) w.anchor[b].p += dt * options_.ground.velocity;
  // Semi-implicit Euler, as Simulator (Integrator::SemiImplicitEuler).
  w.v.noalias() += dt * fr.acceleration;
  integrate(m, w.q, w.v, dt, w.q);
}

const DynamicsFilterFrame& DynamicsFilter::step(const Configuration& q_ref, const VectorXd& v_ref,
                                                const VectorXd& a_ref, double dt, std::span<const std::uint8_t> contact,
                                                std::span<const ExternalWrench> measured) {
  const Model& m = *model_;
  Work& w = *work_;
  const std::size_t nc = contacts_.size();
  if (q_ref.joints.size() != m.numJoints() || v_ref.size() != m.nv() || a_ref.size() != m.nv())
    throw InvalidArgument("DynamicsFilter::step: expected " + std::to_string(m.numJoints()) + " joints and " +
                          std::to_string(m.nv()) + " velocities and accelerations");
  if (!(dt > 0.0) || !std::isfinite(dt)) throw InvalidArgument("DynamicsFilter::step: dt must be finite and > 0");
  if (options_.contact_source == ContactSource::Given && contact.size() != nc)
    throw InvalidArgument("DynamicsFilter::step: expected " + std::to_string(nc) + " contact flags, got " +
                          std::to_string(contact.size()));
  const bool track = options_.force_tracking > 0.0;
  const bool apply = options_.contact_forces == ContactForces::Measured;
  if (apply && measured.size() != nc)
    throw InvalidArgument("DynamicsFilter::step: ContactForces::Measured needs " + std::to_string(nc) +
                          " measured wrenches (one per contact body), got " + std::to_string(measured.size()));
  if (track && !measured.empty() && measured.size() != nc)
    throw InvalidArgument("DynamicsFilter::step: expected " + std::to_string(nc) + " measured wrenches, got " +
                          std::to_string(measured.size()));
  // Hold the last valid reference over invalid frames.
  bool valid = finite(q_ref) && v_ref.allFinite() && a_ref.allFinite();
  for (const ExternalWrench& e : measured)
    valid = valid && e.force.allFinite() && e.point.allFinite() && e.moment.allFinite();
  if (valid) {
    w.q_hold = q_ref;
    w.v_hold = v_ref;
    w.a_hold = a_ref;
    w.has_hold = true;
  } else {
    if (!w.has_hold) w.q_hold = started_ ? w.q : Configuration(m);
    w.has_hold = true;
    w.v_hold.setZero();
    w.a_hold.setZero();
  }
  const Configuration& qr = w.q_hold;
  const VectorXd &vr = w.v_hold, &ar = w.a_hold;
  if (!started_) reset(qr, vr);
  DynamicsFilterFrame& fr = frame_;
  fr.status = ik::Status::Converged;
  fr.iterations = 0;
  fr.gap = fr.no_contact = fr.reset = false;
  fr.binding_unilateral = fr.binding_friction = 0;
  fr.q = w.q;
  fr.v = w.v;
  // Dynamics at the filter's state: M, h, and (from the same RNEA) the links' velocities and
  // bias accelerations for J̇ν; kinematics of the reference.
  crba(m, w.dyn, w.q);
  if (apply)
    applyMeasured(measured, valid);  // h − Σ Jᵀ w_meas
  else
    w.h = nonlinearEffects(m, w.dyn, w.q, w.v, options_.gravity);
  forwardKinematics(m, w.kin_ref, qr);
  detectContacts(vr, valid ? contact : std::span<const std::uint8_t>(fr.in_contact));
  if (!apply) updateAnchors();  // measured loads: no contact rows
  fr.active_contacts = static_cast<int>(std::count(fr.in_contact.begin(), fr.in_contact.end(), std::uint8_t{1}));
  desiredAcceleration(qr, vr, ar);
  // Pinned contacts: the contact rows remove the held velocity within this step (K_d = 1/Δt, and
  // K_p at most 1/Δt² so the position error decays without overshoot), so that after the
  // semi-implicit step the held point moves only by the K_p correction: no slide.
  w.kd_c = options_.pin_contacts ? 1.0 / dt : options_.contact_kd;
  w.kp_c = options_.pin_contacts ? std::min(options_.contact_kp, 1.0 / (dt * dt)) : options_.contact_kp;
  buildContactRows();
  if (apply) {
    w.f.setZero();
    fr.qp_iterations = 0;
  } else {
    solveForces(valid ? measured : std::span<const ExternalWrench>{});
  }
  if (options_.residual_before) apply ? residualBeforeMeasured(qr, vr, ar) : residualBefore(qr, vr, ar);
  finish(dt);
  fr.no_contact = fr.active_contacts == 0;
  fr.gap = !valid;
  // A state that left the reference by more than max_deviation (or is not finite) restarts from
  // the reference: the frame says so, the output stays finite.
  difference(m, qr, w.q, w.diff);
  if (!w.diff.allFinite() || !w.v.allFinite() || !fr.tau.allFinite() || !fr.acceleration.allFinite() ||
      w.diff.cwiseAbs().maxCoeff() > options_.max_deviation) {
    reset(qr, vr);
    if (!fr.tau.allFinite() || !fr.acceleration.allFinite()) {
      fr.tau.setZero();
      fr.acceleration.setZero();
      fr.change.setZero();
      for (ExternalWrench& e : fr.wrenches) e.force.setZero(), e.moment.setZero();
    }
    if (!fr.residual_after.allFinite()) fr.residual_after.setZero();
    fr.reset = true;
  }
  return fr;
}

}  // namespace kinetrack
