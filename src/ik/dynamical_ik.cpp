#include "kinetrack/ik/dynamical_ik.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "composite_reduction.hpp"

namespace kinetrack {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Target {
  FrameId frame;
  TargetType type = TargetType::Pose;
  double kp = 0, ko = 0, wp = 1, wo = 1;
  bool alive = true, enabled = true;
  bool has_position = false, has_orientation = false;
  bool position_velocity_given = false, orientation_velocity_given = false;
  bool has_previous = false;  // a previous target value exists (finite differences)
  Vector3d p = Vector3d::Zero(), pdot = Vector3d::Zero(), p_prev = Vector3d::Zero();
  Matrix3d R = Matrix3d::Identity(), R_prev = Matrix3d::Identity();
  Vector3d omega = Vector3d::Zero();
  // Given velocities of the previous step, for the mean over the step (Consistent scheme).
  bool has_previous_velocity = false;
  Vector3d pdot_prev = Vector3d::Zero(), omega_prev = Vector3d::Zero();
  bool hasPosition() const { return type != TargetType::Orientation; }
  bool hasOrientation() const { return type != TargetType::Position; }
};

void checkFinite(double v, const char* what) {
  if (!std::isfinite(v)) throw InvalidArgument(std::string(what) + " must be finite");
}

}  // namespace

struct DynamicalIk::Impl {
  Model model;
  DynamicalIkOptions options;
  Data data;
  Data mid_data;        // kinematics at the predicted mid-step configuration
  std::vector<Matrix6d> Mc;  // composite target "inertias" per link (see assembleHessian)
  std::vector<Vector6d> fc;  // composite target "wrenches" per link
  std::vector<Vector6d> S;   // column screws (ω; v at the base origin)
  Configuration q, q_mid;
  VectorXd nu;
  std::vector<Target> targets;
  qp::Problem problem;
  qp::Solver solver;
  qp::TreeBoxSolver tree_solver;
  double previous_residual = -1.0;
  int growth_streak = 0;

  Impl(const Model& m, DynamicalIkOptions o)
      : model(m),
        options(o),
        data(model),
        mid_data(model),
        Mc(static_cast<std::size_t>(model.numLinks()), Matrix6d::Zero()),
        fc(static_cast<std::size_t>(model.numLinks()), Vector6d::Zero()),
        S(static_cast<std::size_t>(model.nv()), Vector6d::Zero()),
        q(model),
        q_mid(model),
        nu(VectorXd::Zero(model.nv())),
        problem(model.nv(), static_cast<int>(model.linearConstraints().size())),
        solver(model.nv(), static_cast<int>(model.linearConstraints().size()), o.qp),
        tree_solver(detail::variableTree(model), o.qp) {
    // The rows of Eq. 13 have constant normals G = A; only their bounds change per step.
    for (std::size_t r = 0; r < model.linearConstraints().size(); ++r)
      problem.A.row(static_cast<Eigen::Index>(r)).tail(model.numJoints()) =
          model.linearConstraints()[r].coefficients.transpose();
    forwardKinematics(model, data, q);
  }

  Target& target(TargetId t) {
    if (!t.valid() || t.value >= static_cast<int>(targets.size()) || !targets[static_cast<std::size_t>(t.value)].alive)
      throw InvalidArgument("DynamicalIk: invalid or removed target id " + std::to_string(t.value));
    return targets[static_cast<std::size_t>(t.value)];
  }

  TargetId add(std::string_view frame, TargetType type, double kp, double ko, double wp, double wo) {
    for (double v : {kp, ko, wp, wo})
      if (!std::isfinite(v) || v < 0.0) throw InvalidArgument("DynamicalIk: gains and weights must be finite and ≥ 0");
    Target t;
    t.frame = model.frameId(frame);
    t.type = type;
    t.kp = kp;
    t.ko = ko;
    t.wp = wp;
    t.wo = wo;
    targets.push_back(std::move(t));
    return TargetId(static_cast<std::int32_t>(targets.size() - 1));
  }

  // Composite assembly of H = Σ_t J_tᵀ W_t J_t and g = −Σ_t J_tᵀ W_t v*_t (no Jacobians formed).
  // Column c of any J_t is the screw S_c = (ω_c; v_c) (angular; linear velocity at a reference
  // point, the base origin) read at the target point p (relative to that point):
  // (v_c + ω_c × p; ω_c). Hence J_tᵀW J_t = Sᵀ M_t S with
  //   M_t = w_p [−[p]×², [p]×; −[p]×, I] + w_o [I, 0; 0, 0],
  // and J_tᵀ W v* = Sᵀ f_t with f_t = (w_o v*_o + p × w_p v*_p; w_p v*_p). Column c only sees
  // targets in the subtree of its link, so with composites M_c(l), f_c(l) summed over subtrees,
  //   H(c, d) = S_dᵀ M_c(l_c) S_c   for every d supporting l_c,   g_c = −S_cᵀ f_c(l_c),
  // the same branch-induced sparsity as a joint-space inertia matrix (CRBA), in O(n·depth).
  // p is relative to the reference point (the base position): moments about a point near the
  // body keep H well conditioned however far from the world origin the body is.
  void addTarget(LinkId link, const Vector3d& p, double wp, const Vector3d& vp, double wo, const Vector3d& vo) {
    Matrix6d& M = Mc[static_cast<std::size_t>(link.value)];
    Vector6d& f = fc[static_cast<std::size_t>(link.value)];
    if (wp != 0.0) {
      const Matrix3d P = so3::skew(p);
      M.topLeftCorner<3, 3>() -= wp * P * P;
      M.topRightCorner<3, 3>() += wp * P;
      M.bottomLeftCorner<3, 3>() -= wp * P;
      M.bottomRightCorner<3, 3>().diagonal().array() += wp;
      f.head<3>() += p.cross(wp * vp);
      f.tail<3>() += wp * vp;
    }
    if (wo != 0.0) {
      M.topLeftCorner<3, 3>().diagonal().array() += wo;
      f.head<3>() += wo * vo;
    }
  }

  void assembleHessian(const Data& kin) {
    if (model.nvBase() == 6) {
      for (int c = 0; c < 3; ++c) {
        S[static_cast<std::size_t>(c)] << Vector3d::Zero(), Vector3d::Unit(c);
        S[static_cast<std::size_t>(c + 3)] << Vector3d::Unit(c), Vector3d::Zero();
      }
    }
    detail::reduceComposites(model, kin, Mc, fc, S, &problem.H, problem.g);
  }

  // Feed-forward velocity of one target component over the step (see Discretization).
  template <class Chord>
  Vector3d feedForward(bool given, const Vector3d& v, const Vector3d& v_prev, const Target& t, Chord chord) const {
    if (given) {
      if (options.discretization == Discretization::Consistent && t.has_previous_velocity) return 0.5 * (v + v_prev);
      return v;
    }
    if (options.velocity_source == TargetVelocitySource::FiniteDifference && t.has_previous) return chord();
    return Vector3d::Zero();
  }

  // Corrected velocity (Eq. 9, or its consistent discretisation).
  Vector3d vstar(const Vector3d& v, const Vector3d& r, double k, double dt) const {
    if (options.discretization == Discretization::Consistent) return (1.0 - k * dt) * v + k * r;
    return v + k * r;
  }

  // Eq. 12 with the optional discrete-time guard; returns (lower, upper) velocity bounds.
  std::pair<double, double> shapedBounds(double value, double lower, double upper, double vmax_model, double dt) const {
    const double k = options.limit_gain;
    double lo = -vmax_model, hi = vmax_model;  // sides without a position limit
    const double vshape = std::isfinite(vmax_model) ? vmax_model : options.default_velocity_limit;
    // Discrete guard: inside, a step may not cross the limit; outside (the sign of the tanh
    // bound flips and pushes back in), the push may not exceed what lands on the limit in one
    // step — with a large velocity bound (URDF placeholders of 50000 rad/s) it would throw the
    // joint far across its range.
    if (std::isfinite(lower)) {
      lo = -vshape * std::tanh(k * (value - lower));  // sign flips past the limit: pushes back in
      if (options.discrete_safe_limits)
        lo = value >= lower ? std::max(lo, (lower - value) / dt) : std::min(lo, (lower - value) / dt);
    }
    if (std::isfinite(upper)) {
      hi = vshape * std::tanh(k * (upper - value));
      if (options.discrete_safe_limits)
        hi = value <= upper ? std::min(hi, (upper - value) / dt) : std::max(hi, (upper - value) / dt);
    }
    if (lo > hi) {  // only when both limits push (state outside an empty or tiny range)
      const double mid = 0.5 * (lo + hi);
      lo = hi = mid;
    }
    return {lo, hi};
  }

  StepResult step(double dt) {
    if (!(dt > 0.0) || !std::isfinite(dt)) throw InvalidArgument("DynamicalIk::step: dt must be finite and > 0");
    StepResult res;
    const int nb = model.nvBase();
    const int n = model.numJoints();
    // H keeps its structural zeros from step to step: assembleHessian() writes exactly the
    // entries (c, d), d supporting c's link, of the lower triangle.
    for (auto& M : Mc) M.setZero();
    for (auto& f : fc) f.setZero();
    // Jacobians at the mid-step configuration predicted with the previous ν: the frame
    // displacement over the step, ∫J(q(τ))ν dτ, is then Δt·J(q_mid)ν + O(Δt³) instead of O(Δt²).
    // Only for monotone error dynamics (K·Δt ≤ 1): above, ν alternates in sign from step to
    // step, the predicted midpoint lands on the wrong side and the loop can lock into a
    // period-2 cycle; the paper's J(q_{k−1}) is used there.
    double gain_dt = 0.0;
    for (const Target& t : targets)
      if (t.alive && t.enabled)
        gain_dt = std::max(gain_dt, (options.gain_mode == GainMode::PerStep ? std::max(t.kp, t.ko)
                                                                            : std::max(t.kp, t.ko) * dt));
    const Data* jac_data = &data;
    if (options.midpoint_jacobian && gain_dt <= 1.0 && nu.cwiseAbs().maxCoeff() > 0.0) {
      predictMidpoint(dt);
      forwardKinematics(model, mid_data, q_mid);
      jac_data = &mid_data;
    }

    // Residuals and corrected velocities at q_{k−1} (Eq. 5, 9), in the world frame (SPEC §2.1).
    double residual2 = 0.0, mnte_sum = 0.0;
    int n_orient = 0;
    for (Target& t : targets) {
      if (!t.alive || !t.enabled) continue;
      const bool use_p = t.hasPosition() && t.has_position;
      const bool use_o = t.hasOrientation() && t.has_orientation;
      if (!use_p && !use_o) continue;
      const Transform& F = updateFramePlacement(model, data, t.frame);
      const Vector3d p_jac =
          (jac_data == &data ? F.p : frameOrigin(model, *jac_data, t.frame)) - jac_data->link[0].p;
      const LinkId link = model.frameLink(t.frame);
      const double kp = options.gain_mode == GainMode::PerStep ? t.kp / dt : t.kp;
      const double ko = options.gain_mode == GainMode::PerStep ? t.ko / dt : t.ko;
      if (use_p) {
        const Vector3d r = t.p - F.p;
        const Vector3d v = feedForward(t.position_velocity_given, t.pdot, t.pdot_prev, t,
                                       [&] { return Vector3d((t.p - t.p_prev) / dt); });
        addTarget(link, p_jac, t.wp, vstar(v, r, kp, dt), 0.0, Vector3d::Zero());
        residual2 += r.squaredNorm();
        res.max_gain_dt = std::max(res.max_gain_dt, kp * dt);
      }
      if (use_o) {
        const Vector3d r = so3::vee(t.R * F.R.transpose());  // sk(R hᵀ)^∨, world frame
        const Vector3d w = feedForward(t.orientation_velocity_given, t.omega, t.omega_prev, t,
                                       [&] { return Vector3d(so3::log(t.R * t.R_prev.transpose()) / dt); });
        addTarget(link, p_jac, 0.0, Vector3d::Zero(), t.wo, vstar(w, r, ko, dt));
        residual2 += r.squaredNorm();
        mnte_sum += metrics::normalizedTraceError(F.R, t.R);
        ++n_orient;
        res.max_gain_dt = std::max(res.max_gain_dt, ko * dt);
      }
    }
    res.residual_norm = std::sqrt(residual2);
    res.mnte = n_orient ? mnte_sum / n_orient : 0.0;
    res.unstable_gain = res.max_gain_dt >= 2.0;
    if (res.unstable_gain && previous_residual >= 0.0 && res.residual_norm > previous_residual)
      ++growth_streak;
    else
      growth_streak = 0;
    res.diverging = growth_streak >= 3;
    previous_residual = res.residual_norm;

    assembleHessian(*jac_data);
    problem.H.diagonal().array() += options.damping;
    // Bounds (Eq. 10b, 12): base, then joints.
    for (int c = 0; c < nb; ++c) {
      const double lim = c < 3 ? options.base_linear_velocity_limit : options.base_angular_velocity_limit;
      problem.lb[c] = -lim;
      problem.ub[c] = lim;
    }
    const VectorXd& smin = model.lowerPositionLimits();
    const VectorXd& smax = model.upperPositionLimits();
    for (int j = 0; j < n; ++j) {
      const double vmax = options.use_model_velocity_limits ? model.upperVelocityLimits()[j] : kInf;
      const auto [lo, hi] = shapedBounds(q.joints[j], smin[j], smax[j], vmax, dt);
      problem.lb[nb + j] = lo;
      problem.ub[nb + j] = hi;
    }
    // Linear rows (Eq. 13): bounds shaped on the row value a·s with the row's velocity bound.
    const auto& rows = model.linearConstraints();
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const double c = rows[r].coefficients.dot(q.joints);
      const double bv = std::isfinite(rows[r].velocity_bound) ? rows[r].velocity_bound : options.default_velocity_limit;
      auto [lo, hi] = shapedBounds(c, rows[r].lower, rows[r].upper, bv, dt);
      if (!std::isfinite(rows[r].lower)) lo = -kInf;
      if (!std::isfinite(rows[r].upper)) hi = kInf;
      problem.lbA[static_cast<Eigen::Index>(r)] = lo;
      problem.ubA[static_cast<Eigen::Index>(r)] = hi;
    }

    if (!problem.g.allFinite() || !problem.H.diagonal().allFinite() || problem.lb.hasNaN() ||
        problem.ub.hasNaN() || problem.lbA.hasNaN() || problem.ubA.hasNaN()) {
      res.non_finite = true;  // never throw from the hot loop on a diverged state
      res.qp_status = qp::Status::IterationLimit;
      nu.setZero();
    } else {
      const qp::Result qr =
          options.sparse_qp && rows.empty() ? tree_solver.solve(problem, nu) : solver.solve(problem, nu);
      res.qp_status = qr.status;
      res.qp_iterations = qr.iterations;
      res.active_bounds = qr.active_bounds;
      if (qr.status == qp::Status::NotConvex || !nu.allFinite()) nu.setZero();
    }

    integrate(dt);
    forwardKinematics(model, data, q);
    for (Target& t : targets) {
      t.p_prev = t.p;
      t.R_prev = t.R;
      t.has_previous = t.has_position || t.has_orientation;
      t.pdot_prev = t.pdot;
      t.omega_prev = t.omega;
      t.has_previous_velocity = t.position_velocity_given || t.orientation_velocity_given;
    }
    // Constraint satisfaction at q_k.
    for (int j = 0; j < n; ++j)
      res.limit_violation = std::max({res.limit_violation, smin[j] - q.joints[j], q.joints[j] - smax[j]});
    res.row_violation = linearRowViolation(model, q);
    return res;
  }

  // q_mid = q ⊕ ½Δt·ν_{k−1}, without allocating.
  void predictMidpoint(double dt) {
    const double h = 0.5 * dt;
    q_mid.joints.noalias() = q.joints + h * nu.tail(model.numJoints());
    q_mid.base_position = q.base_position;
    q_mid.base_rotation = q.base_rotation;
    if (model.nvBase() == 6) {
      q_mid.base_position += h * nu.head<3>();
      q_mid.base_rotation = so3::exp(h * Vector3d(nu.segment<3>(3))) * q.base_rotation;
    }
  }

  void integrate(double dt) {
    const int nb = model.nvBase();
    q.joints.noalias() += dt * nu.tail(model.numJoints());
    if (nb == 0) return;
    q.base_position += dt * nu.head<3>();
    const Vector3d w = nu.segment<3>(3);
    Matrix3d& R = q.base_rotation;
    const double rho = std::min(options.baumgarte_gain, 1.0 / dt);
    switch (options.integrator) {
      case BaseIntegrator::Exponential: R = so3::exp(dt * w) * R; break;
      case BaseIntegrator::ExponentialBaumgarte: {
        R = so3::exp(dt * w) * R;
        const Matrix3d drift = (R.transpose() * R).inverse() - Matrix3d::Identity();
        R += dt * 0.5 * rho * R * drift;
        break;
      }
      case BaseIntegrator::EulerBaumgarte: {
        const Matrix3d drift = (R.transpose() * R).inverse() - Matrix3d::Identity();
        R += dt * (so3::skew(w) * R + 0.5 * rho * R * drift);
        break;
      }
    }
  }

  double currentMnte() {
    double sum = 0.0;
    int count = 0;
    for (const Target& t : targets) {
      if (!t.alive || !t.enabled || !t.hasOrientation() || !t.has_orientation) continue;
      sum += metrics::normalizedTraceError(updateFramePlacement(model, data, t.frame).R, t.R);
      ++count;
    }
    return count ? sum / count : 0.0;
  }
};

DynamicalIk::DynamicalIk(const Model& model, DynamicalIkOptions options)
    : impl_(std::make_unique<Impl>(model, options)) {}
DynamicalIk::~DynamicalIk() = default;
DynamicalIk::DynamicalIk(DynamicalIk&&) noexcept = default;
DynamicalIk& DynamicalIk::operator=(DynamicalIk&&) noexcept = default;

const Model& DynamicalIk::model() const { return impl_->model; }
const DynamicalIkOptions& DynamicalIk::options() const { return impl_->options; }
void DynamicalIk::setOptions(const DynamicalIkOptions& options) {
  impl_->options = options;
  impl_->solver = qp::Solver(impl_->model.nv(), static_cast<int>(impl_->model.linearConstraints().size()), options.qp);
  impl_->tree_solver = qp::TreeBoxSolver(detail::variableTree(impl_->model), options.qp);
}

TargetId DynamicalIk::addPositionTarget(std::string_view frame, double gain, double weight) {
  return impl_->add(frame, TargetType::Position, gain, 0.0, weight, 0.0);
}
TargetId DynamicalIk::addOrientationTarget(std::string_view frame, double gain, double weight) {
  return impl_->add(frame, TargetType::Orientation, 0.0, gain, 0.0, weight);
}
TargetId DynamicalIk::addPoseTarget(std::string_view frame, double position_gain, double orientation_gain,
                                    double position_weight, double orientation_weight) {
  return impl_->add(frame, TargetType::Pose, position_gain, orientation_gain, position_weight, orientation_weight);
}
void DynamicalIk::removeTarget(TargetId t) { impl_->target(t).alive = false; }
void DynamicalIk::setEnabled(TargetId t, bool enabled) { impl_->target(t).enabled = enabled; }
void DynamicalIk::setGains(TargetId t, double position_gain, double orientation_gain) {
  checkFinite(position_gain, "position gain");
  checkFinite(orientation_gain, "orientation gain");
  if (position_gain < 0 || orientation_gain < 0) throw InvalidArgument("DynamicalIk: gains must be ≥ 0");
  Target& x = impl_->target(t);
  x.kp = position_gain;
  x.ko = orientation_gain;
}
void DynamicalIk::setWeights(TargetId t, double position_weight, double orientation_weight) {
  checkFinite(position_weight, "position weight");
  checkFinite(orientation_weight, "orientation weight");
  if (position_weight < 0 || orientation_weight < 0) throw InvalidArgument("DynamicalIk: weights must be ≥ 0");
  Target& x = impl_->target(t);
  x.wp = position_weight;
  x.wo = orientation_weight;
}
int DynamicalIk::numTargets() const {
  return static_cast<int>(std::count_if(impl_->targets.begin(), impl_->targets.end(), [](const Target& t) { return t.alive; }));
}
TargetType DynamicalIk::targetType(TargetId t) const { return impl_->target(t).type; }
FrameId DynamicalIk::targetFrame(TargetId t) const { return impl_->target(t).frame; }

void DynamicalIk::setTargetPosition(TargetId t, const Vector3d& p, const Vector3d& velocity) {
  if (!p.allFinite() || !velocity.allFinite()) throw InvalidArgument("setTargetPosition: non-finite position or velocity");
  Target& x = impl_->target(t);
  if (!x.hasPosition()) throw InvalidArgument("setTargetPosition: target is orientation-only");
  x.p = p;
  x.pdot = velocity;
  x.has_position = true;
  x.position_velocity_given = true;
}
void DynamicalIk::setTargetPosition(TargetId t, const Vector3d& p) {
  setTargetPosition(t, p, Vector3d::Zero());
  impl_->target(t).position_velocity_given = false;
}
void DynamicalIk::setTargetOrientation(TargetId t, const Matrix3d& R, const Vector3d& omega) {
  if (!R.allFinite() || !omega.allFinite()) throw InvalidArgument("setTargetOrientation: non-finite rotation or angular velocity");
  if ((R.transpose() * R - Matrix3d::Identity()).cwiseAbs().maxCoeff() > 1e-6 || R.determinant() < 0.0)
    throw InvalidArgument("setTargetOrientation: not a rotation matrix (RᵀR ≠ I or det < 0)");
  Target& x = impl_->target(t);
  if (!x.hasOrientation()) throw InvalidArgument("setTargetOrientation: target is position-only");
  x.R = R;
  x.omega = omega;
  x.has_orientation = true;
  x.orientation_velocity_given = true;
}
void DynamicalIk::setTargetOrientation(TargetId t, const Matrix3d& R) {
  setTargetOrientation(t, R, Vector3d::Zero());
  impl_->target(t).orientation_velocity_given = false;
}

void DynamicalIk::setState(const Configuration& q) {
  if (q.joints.size() != impl_->model.numJoints())
    throw InvalidArgument("DynamicalIk::setState: expected " + std::to_string(impl_->model.numJoints()) +
                          " joint coordinates, got " + std::to_string(q.joints.size()));
  if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite())
    throw InvalidArgument("DynamicalIk::setState: non-finite configuration");
  impl_->q = q;
  impl_->nu.setZero();
  impl_->previous_residual = -1.0;
  impl_->growth_streak = 0;
  forwardKinematics(impl_->model, impl_->data, impl_->q);
}
const Configuration& DynamicalIk::state() const { return impl_->q; }
const VectorXd& DynamicalIk::velocity() const { return impl_->nu; }
const Data& DynamicalIk::data() const { return impl_->data; }
StepResult DynamicalIk::step(double dt) { return impl_->step(dt); }
double DynamicalIk::mnte() const { return impl_->currentMnte(); }
const qp::Problem& DynamicalIk::lastProblem() const { return impl_->problem; }

}  // namespace kinetrack
