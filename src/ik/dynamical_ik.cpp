#include "kinetrack/ik/dynamical_ik.hpp"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>

#include "composite_reduction.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack {

namespace {

// What a step remembers of each target's previous value (finite differences, mean velocity).
struct History {
  bool has_previous = false;           // a previous target value exists (finite differences)
  bool has_previous_velocity = false;  // given velocities of the previous step (Consistent scheme)
  Vector3d p_prev = Vector3d::Zero(), pdot_prev = Vector3d::Zero(), omega_prev = Vector3d::Zero();
  Matrix3d R_prev = Matrix3d::Identity();
};

ik::Status statusOf(qp::Status s) {
  switch (s) {
    case qp::Status::Optimal: return ik::Status::Converged;
    case qp::Status::Infeasible: return ik::Status::Infeasible;
    case qp::Status::IterationLimit: return ik::Status::IterationLimit;
    default: return ik::Status::Failed;
  }
}

// Steps the dense solver takes after the tree solver's row rounds failed (see solveQp).
constexpr int kDenseRun = 8;

ik::LimitShaping shapingOf(const DynamicalIkOptions& o) {
  return {o.limit_gain, o.default_velocity_limit, o.discrete_safe_limits};
}

}  // namespace

struct DynamicalIk::Impl {
  std::shared_ptr<const Model> model_ptr;
  const Model& model;
  DynamicalIkOptions options;
  ik::TaskSet tasks;
  std::vector<History> history;  // per task id
  ik::JointLimits joint_limits;
  ik::RowLimits row_limits;
  Data data;
  Data mid_data;             // kinematics at the predicted mid-step configuration
  std::vector<Matrix6d> Mc;  // composite target "inertias" per link (see assembleHessian)
  std::vector<Vector6d> fc;  // composite target "wrenches" per link
  std::vector<Vector6d> S;   // column screws (ω; v at the base origin)
  Configuration q, q_mid;
  VectorXd nu;
  VectorXd posture_weight, posture_velocity;  // one posture task's w and v* (addPostures)
  qp::Problem problem;
  qp::Solver solver;
  qp::TreeBoxSolver tree_solver;
  double previous_residual = -1.0;
  int growth_streak = 0;
  // Collision limits (setCollisionProxies): their rows follow the model's in `problem`.
  std::vector<CollisionProxy> proxies;
  std::unique_ptr<ik::CollisionLimits> collision;
  // Steps left that go straight to the dense solver: the tree solver's row rounds failed on a
  // recent step, and such steps come in runs (a contact against a joint limit).
  int dense_steps_left = 0;

  Impl(std::shared_ptr<const Model> m, DynamicalIkOptions o)
      : model_ptr(std::move(m)),
        model(*model_ptr),
        options(o),
        tasks(model_ptr, "DynamicalIk", {}, ik::TaskKinds{.frame = true, .posture = true}),
        joint_limits(model),
        row_limits(model),
        data(model),
        mid_data(model),
        Mc(static_cast<std::size_t>(model.numLinks()), Matrix6d::Zero()),
        fc(static_cast<std::size_t>(model.numLinks()), Vector6d::Zero()),
        S(static_cast<std::size_t>(model.nv()), Vector6d::Zero()),
        q(model),
        q_mid(model),
        nu(VectorXd::Zero(model.nv())),
        posture_weight(VectorXd::Zero(model.numJoints())),
        posture_velocity(VectorXd::Zero(model.numJoints())),
        problem(model.nv(), static_cast<int>(model.linearConstraints().size())),
        solver(model.nv(), static_cast<int>(model.linearConstraints().size()), o.qp),
        tree_solver(detail::variableTree(model), o.qp) {
    problem.A = row_limits.matrix();  // Eq. 13: constant normals G = A; bounds change per step
    forwardKinematics(model, data, q);
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
  Vector3d feedForward(bool given, const Vector3d& v, const Vector3d& v_prev, const History& h, Chord chord) const {
    if (given) {
      if (options.discretization == Discretization::Consistent && h.has_previous_velocity) return 0.5 * (v + v_prev);
      return v;
    }
    if (options.velocity_source == TargetVelocitySource::FiniteDifference && h.has_previous) return chord();
    return Vector3d::Zero();
  }

  // Corrected velocity (Eq. 9, or its consistent discretisation): of a frame target component
  // (Vector3d) or of a posture task's joint (double).
  template <class V>
  V vstar(const V& v, const V& r, double k, double dt) const {
    if (options.discretization == Discretization::Consistent) return (1.0 - k * dt) * v + k * r;
    return v + k * r;
  }

  StepResult step(double dt) {
    if (!(dt > 0.0) || !std::isfinite(dt)) throw InvalidArgument("DynamicalIk::step: dt must be finite and > 0");
    StepResult res;
    if (history.size() != tasks.all().size()) history.resize(tasks.all().size());  // allocates only after adds
    const Data& jac_data = jacobianData(dt);
    assembleTasks(jac_data, dt, res);
    assembleHessian(jac_data);
    const bool rows_active = collision && collision->activeRows() > 0;
    problem.H.diagonal().array() += options.damping + (rows_active ? options.collision_damping : 0.0);
    addPostures(dt, res);
    writeBounds(dt);
    if (hasCollisionRows()) writeCollisionRows(dt, res);
    solveQp(res);
    integrate(dt);
    forwardKinematics(model, data, q);
    rememberTargets();
    // Constraint satisfaction at q_k.
    res.iterations = 1;
    res.limit_violation = joint_limits.violation(q.joints);
    res.row_violation = row_limits.violation(q.joints);
    if (collision) {
      collision->update(data);
      res.collision = collision->violation();
    }
    return res;
  }

  [[nodiscard]] bool hasCollisionRows() const { return collision && collision->numRows() > 0; }

  // (Re)builds the collision limits from the proxies and options.collision, and sizes the QP for
  // their rows after the model's. Builds before it replaces: a throw leaves the solver as it was.
  void buildCollision() {
    const int mr = row_limits.size();
    std::unique_ptr<ik::CollisionLimits> limits;
    if (!proxies.empty() && options.collision.enabled())
      limits = std::make_unique<ik::CollisionLimits>(model_ptr, proxies, options.collision);
    const int mc = limits ? limits->numRows() : 0;
    if (problem.A.rows() != mr + mc) {
      qp::Problem p(model.nv(), mr + mc);
      p.A.topRows(mr) = row_limits.matrix();
      solver = qp::Solver(model.nv(), mr + mc, options.qp);
      problem = std::move(p);
    }
    if (mc > 0 && mr == 0) tree_solver.reserveRows(mc);
    collision = std::move(limits);
    if (collision) collision->update(data);
  }

  // The collision rows (after the model's) at q_{k−1}.
  void writeCollisionRows(double dt, StepResult& res) {
    const int mc = collision->numRows();
    collision->velocityRows(data, dt, problem.A.bottomRows(mc), problem.lbA.tail(mc), problem.ubA.tail(mc));
    res.collision_rows = collision->activeRows();
  }

  // Kinematics for the task Jacobians. At the mid-step configuration predicted with the previous
  // ν: the frame displacement over the step, ∫J(q(τ))ν dτ, is then Δt·J(q_mid)ν + O(Δt³) instead
  // of O(Δt²). Only for monotone error dynamics (K·Δt ≤ 1): above, ν alternates in sign from step
  // to step, the predicted midpoint lands on the wrong side and the loop can lock into a period-2
  // cycle; the paper's J(q_{k−1}) is used there.
  const Data& jacobianData(double dt) {
    double gain_dt = 0.0;
    for (const ik::FrameTask& t : tasks.all())
      if (t.alive && t.enabled) {
        const double k = std::max(t.position_gain, t.orientation_gain);
        gain_dt = std::max(gain_dt, options.gain_mode == GainMode::PerStep ? k : k * dt);
      }
    // Nor with collision rows in the step: they are linearised at q_{k−1}, and tasks at another
    // configuration than their rows' lock into the same period-2 cycle (measured on the G1 with
    // its soles held on the ground: ±20 rad/s at the knee step after step, the soles sliding
    // 25 mm a frame).
    const bool rows_active = collision && collision->activeRows() > 0;
    if (!(options.midpoint_jacobian && gain_dt <= 1.0 && !rows_active && nu.cwiseAbs().maxCoeff() > 0.0)) return data;
    predictMidpoint(dt);
    forwardKinematics(model, mid_data, q_mid);
    return mid_data;
  }

  // Residuals and corrected velocities at q_{k−1} (Eq. 5, 9), in the world frame (SPEC §2.1),
  // into the composites of the QP (assembleHessian); the residual norm, MNTE and gain flags.
  void assembleTasks(const Data& jac_data, double dt, StepResult& res) {
    // H keeps its structural zeros from step to step: assembleHessian() writes exactly the
    // entries (c, d), d supporting c's link, of the lower triangle.
    for (auto& M : Mc) M.setZero();
    for (auto& f : fc) f.setZero();
    const std::vector<ik::FrameTask>& targets = tasks.all();
    double residual2 = 0.0, mnte_sum = 0.0;
    int n_orient = 0;
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const ik::FrameTask& t = targets[i];
      const History& h = history[i];
      const bool use_p = t.positionSet();
      const bool use_o = t.orientationSet();
      if (!use_p && !use_o) continue;
      const Transform& F = updateFramePlacement(model, data, t.frame);
      const Vector3d p_jac = (&jac_data == &data ? F.p : frameOrigin(model, jac_data, t.frame)) - jac_data.link[0].p;
      const LinkId link = model.frameLink(t.frame);
      const double kp = options.gain_mode == GainMode::PerStep ? t.position_gain / dt : t.position_gain;
      const double ko = options.gain_mode == GainMode::PerStep ? t.orientation_gain / dt : t.orientation_gain;
      if (use_p) {
        const Vector3d r = t.p - F.p;
        const Vector3d v =
            feedForward(t.velocity_given, t.velocity, h.pdot_prev, h, [&] { return Vector3d((t.p - h.p_prev) / dt); });
        addTarget(link, p_jac, t.position_weight, vstar(v, r, kp, dt), 0.0, Vector3d::Zero());
        residual2 += r.squaredNorm();
        res.max_gain_dt = std::max(res.max_gain_dt, kp * dt);
      }
      if (use_o) {
        const Vector3d r = so3::vee(t.R * F.R.transpose());  // sk(R hᵀ)^∨, world frame
        const Vector3d w = feedForward(t.angular_velocity_given, t.angular_velocity, h.omega_prev, h,
                                       [&] { return Vector3d(so3::log(t.R * h.R_prev.transpose()) / dt); });
        addTarget(link, p_jac, 0.0, Vector3d::Zero(), t.orientation_weight, vstar(w, r, ko, dt));
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
  }

  // Posture tasks, a secondary objective ½ Σ_j w_j (ν_j − v*_j)² over the joints per task
  // (ik::PostureTask): H += diag w, g −= w∘v*. A joint out of a task (w = 0, or neither a finite
  // value nor a velocity) adds exact zeros.
  void addPostures(double dt, StepResult& res) {
    const int n = model.numJoints();
    for (const ik::PostureTask& p : tasks.postures()) {
      if (!p.active()) continue;
      if (!p.any_value) {  // a pure velocity reference (the prior's): w_j ≥ 0 as given, v* = v̂
        if (!p.velocity_given) continue;
        problem.H.diagonal().tail(n) += p.weights;
        problem.g.tail(n) -= p.weights.cwiseProduct(p.velocities);
        continue;
      }
      const double k = options.gain_mode == GainMode::PerStep ? p.gain / dt : p.gain;
      bool pulls = false;
      for (int j = 0; j < n; ++j) {
        const double w = p.weights[j];
        const bool has_value = std::isfinite(p.values[j]);
        if (!(w > 0.0) || (!has_value && !p.velocity_given)) {
          posture_weight[j] = posture_velocity[j] = 0.0;
          continue;
        }
        posture_weight[j] = w;
        if (has_value) {  // Eq. 9 per joint: the pull towards the pose, with the feed-forward if given
          posture_velocity[j] = vstar(p.velocities[j], p.values[j] - q.joints[j], k, dt);
          pulls = true;
        } else {
          posture_velocity[j] = p.velocities[j];  // a pure velocity reference
        }
      }
      if (pulls) res.max_gain_dt = std::max(res.max_gain_dt, k * dt);
      problem.H.diagonal().tail(n) += posture_weight;
      problem.g.tail(n) -= posture_weight.cwiseProduct(posture_velocity);
    }
    res.unstable_gain = res.max_gain_dt >= 2.0;
  }

  // Bounds (Eq. 10b, 12): base, then joints; linear rows (Eq. 13) shaped on the row values.
  void writeBounds(double dt) {
    const int nb = model.nvBase(), n = model.numJoints();
    const ik::LimitShaping shaping = shapingOf(options);
    ik::BaseVelocityLimit{options.base_linear_velocity_limit, options.base_angular_velocity_limit}.bounds(
        nb, problem.lb, problem.ub);
    joint_limits.velocityBounds(q.joints, dt, shaping, options.use_model_velocity_limits, problem.lb.tail(n),
                                problem.ub.tail(n));
    row_limits.velocityBounds(q.joints, dt, shaping, problem.lbA, problem.ubA);
  }

  // ν from the QP (Eq. 10); a non-finite problem or result leaves ν = 0 (never throw from the
  // hot loop on a diverged state). With collision rows and no linear rows of the model the tree
  // solver takes the rows (TreeBoxSolver's row iterations); when they do not settle, the dense
  // solver solves the step.
  void solveQp(StepResult& res) {
    if (!problem.g.allFinite() || !problem.H.diagonal().allFinite() || problem.lb.hasNaN() || problem.ub.hasNaN() ||
        problem.lbA.hasNaN() || problem.ubA.hasNaN()) {
      res.non_finite = true;
      res.qp_status = qp::Status::IterationLimit;
      res.status = ik::Status::Failed;
      nu.setZero();
      return;
    }
    const bool rows = hasCollisionRows();
    const bool tree = options.sparse_qp && row_limits.empty() && !(rows && dense_steps_left > 0);
    if (rows && dense_steps_left > 0) --dense_steps_left;
    qp::Result qr = tree ? tree_solver.solve(problem, nu) : solver.solve(problem, nu);
    if (tree && rows && qr.status == qp::Status::IterationLimit) {
      solver.reset();  // its warm start is from an older step, with other rows
      qr = solver.solve(problem, nu);
      res.dense_qp = true;
      dense_steps_left = kDenseRun;
    } else {
      res.dense_qp = rows && !tree;
    }
    res.qp_status = qr.status;
    res.qp_iterations = qr.iterations;
    res.active_bounds = qr.active_bounds;
    res.status = statusOf(qr.status);
    if (qr.status == qp::Status::NotConvex || !nu.allFinite()) {
      nu.setZero();
      res.status = ik::Status::Failed;
      return;
    }
    if (rows) {
      const VectorXd& y = tree && !res.dense_qp ? tree_solver.rowMultipliers() : solver.rowMultipliers();
      const int mr = row_limits.size();
      for (int r = 0; r < res.collision_rows; ++r) res.collision_rows_active += y[mr + r] != 0.0;
    }
  }

  // The targets of this step become the previous ones (finite differences, mean velocities).
  void rememberTargets() {
    const std::vector<ik::FrameTask>& targets = tasks.all();
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const ik::FrameTask& t = targets[i];
      History& h = history[i];
      h.p_prev = t.p;
      h.R_prev = t.R;
      h.has_previous = t.has_position || t.has_orientation;
      h.pdot_prev = t.velocity;
      h.omega_prev = t.angular_velocity;
      h.has_previous_velocity = t.velocity_given || t.angular_velocity_given;
    }
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
    for (const ik::FrameTask& t : tasks.all()) {
      if (!t.orientationSet()) continue;
      sum += metrics::normalizedTraceError(updateFramePlacement(model, data, t.frame).R, t.R);
      ++count;
    }
    return count ? sum / count : 0.0;
  }
};

DynamicalIk::DynamicalIk(const Model& model, DynamicalIkOptions options)
    : DynamicalIk(std::make_shared<const Model>(model), options) {}
DynamicalIk::DynamicalIk(std::shared_ptr<const Model> model, DynamicalIkOptions options) {
  if (!(std::isfinite(options.collision_damping) && options.collision_damping >= 0.0))
    throw InvalidArgument("DynamicalIk: collision_damping must be finite and ≥ 0");
  impl_ = std::make_unique<Impl>(std::move(model), options);
}
DynamicalIk::~DynamicalIk() = default;
DynamicalIk::DynamicalIk(DynamicalIk&&) noexcept = default;
DynamicalIk& DynamicalIk::operator=(DynamicalIk&&) noexcept = default;

const Model& DynamicalIk::model() const { return impl_->model; }
const std::shared_ptr<const Model>& DynamicalIk::sharedModel() const { return impl_->model_ptr; }
const DynamicalIkOptions& DynamicalIk::options() const { return impl_->options; }
void DynamicalIk::setOptions(const DynamicalIkOptions& options) {
  const DynamicalIkOptions previous = impl_->options;
  impl_->options = options;
  if (!impl_->proxies.empty()) {
    try {
      impl_->buildCollision();
    } catch (...) {
      impl_->options = previous;
      throw;
    }
  }
  const int rows = static_cast<int>(impl_->problem.A.rows());
  impl_->solver = qp::Solver(impl_->model.nv(), rows, options.qp);
  impl_->tree_solver = qp::TreeBoxSolver(detail::variableTree(impl_->model), options.qp);
  if (rows > 0 && impl_->row_limits.empty()) impl_->tree_solver.reserveRows(rows);
}

void DynamicalIk::setCollisionProxies(std::vector<CollisionProxy> proxies) {
  std::vector<CollisionProxy> previous = std::move(impl_->proxies);
  impl_->proxies = std::move(proxies);
  try {
    impl_->buildCollision();
  } catch (...) {
    impl_->proxies = std::move(previous);
    throw;
  }
}

const ik::CollisionLimits* DynamicalIk::collisionLimits() const { return impl_->collision.get(); }

ik::TaskSet& DynamicalIk::tasks() { return impl_->tasks; }
const ik::TaskSet& DynamicalIk::tasks() const { return impl_->tasks; }

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
  if (impl_->collision) impl_->collision->update(impl_->data);
}
const Configuration& DynamicalIk::state() const { return impl_->q; }
const VectorXd& DynamicalIk::velocity() const { return impl_->nu; }
const Data& DynamicalIk::data() const { return impl_->data; }
StepResult DynamicalIk::step(double dt) { return impl_->step(dt); }

double DynamicalIk::mnte() const { return impl_->currentMnte(); }
const qp::Problem& DynamicalIk::lastProblem() const { return impl_->problem; }

}  // namespace kinetrack
