// Per-frame muscle forces: OpenSim static optimisation, Eq. 13 QP and LP (muscle_forces.hpp).
#include "kinetrack/muscles/muscle_forces.hpp"

#include <glpk.h>

#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/qp/qp.hpp"

namespace kinetrack::muscles {

const char* toString(Method m) {
  switch (m) {
    case Method::StaticOptimization: return "static-opt";
    case Method::QP: return "qp";
    case Method::LP: return "lp";
  }
  return "?";
}

double thelenActiveForceLength(const io::OpenSimMuscle& m, double normalized_length) {
  const double d = normalized_length - 1.0;
  return std::exp(-d * d / m.kshape_active);
}

double thelenForceVelocity(const io::OpenSimMuscle& m, double v) {
  if (v <= -1.0) return 0.0;
  if (v <= 0.0) return (1.0 + v) / (1.0 - v / m.af);
  const double c = 2.0 + 2.0 / m.af;
  return (m.flen - 1.0 + v * c * m.flen) / (m.flen - 1.0 + v * c);
}

FiberState rigidTendonFiber(const io::OpenSimMuscle& m, double mt_length, double mt_speed) {
  FiberState s;
  const double width = m.optimal_fiber_length * std::sin(m.pennation_angle);
  const double along = std::max(mt_length - m.tendon_slack_length, 1e-9 * m.optimal_fiber_length);
  s.length = std::hypot(width, along);
  s.cos_pennation = along / s.length;
  s.velocity = mt_speed * s.cos_pennation;
  s.force_length = thelenActiveForceLength(m, s.length / m.optimal_fiber_length);
  s.force_velocity = thelenForceVelocity(m, s.velocity / (m.max_contraction_velocity * m.optimal_fiber_length));
  s.unit_force = m.max_isometric_force * s.force_length * s.force_velocity * s.cos_pennation;
  return s;
}

struct MuscleForceSolver::Impl {
  int n = 0, m = 0;
  qp::Problem problem;
  std::unique_ptr<qp::Solver> qp;
  VectorXd x, unit;
  glp_prob* lp = nullptr;
  glp_smcp smcp{};
  std::vector<int> idx;
  std::vector<double> val;
  ~Impl() {
    if (lp) glp_delete_prob(lp);
  }
};

MuscleForceSolver::~MuscleForceSolver() = default;
MuscleForceSolver::MuscleForceSolver(MuscleForceSolver&&) noexcept = default;

MuscleForceSolver::MuscleForceSolver(std::shared_ptr<const MusclePaths> paths, MuscleForceOptions options)
    : paths_(std::move(paths)), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  if (!paths_) throw InvalidArgument("MuscleForceSolver: no muscle paths");
  const io::OpenSimModel& osim = paths_->osim();
  if (options_.use_model_actuators && !options_.replace_actuators) actuators_ = paths_->set().actuators;
  for (const io::OpenSimCoordinateActuator& a : options_.actuators) actuators_.push_back(a);
  const int nvb = paths_->model().nvBase();
  for (const io::OpenSimCoordinateActuator& a : actuators_) {
    const io::OpenSimCoordinate* c = osim.findCoordinate(a.coordinate);
    if (!c)
      throw ParseError(paths_->set().source, a.line,
                       "CoordinateActuator '" + a.name + "': unknown coordinate '" + a.coordinate + "'");
    actuator_dof_.push_back(nvb + c->joint.value);
  }
  for (const io::OpenSimCoordinate& c : osim.coordinates)
    if (!c.locked) rows_.push_back(nvb + c.joint.value);
  Impl& s = *impl_;
  const int nm = numMuscles(), na = static_cast<int>(actuators_.size());
  s.n = nm + na;
  s.m = static_cast<int>(rows_.size());
  s.x = VectorXd::Zero(s.n);
  s.unit = VectorXd::Ones(s.n);
  if (s.n == 0) throw InvalidArgument("MuscleForceSolver: the model has no muscles or actuators");
  if (options_.method != Method::LP) {
    s.problem = qp::Problem(s.n, s.m);
    s.problem.H.setIdentity();
    for (int i = 0; i < nm; ++i) {
      const io::OpenSimMuscle& mu = paths_->set().muscles[i];
      const bool act = options_.method == Method::StaticOptimization;
      s.problem.lb(i) = act ? mu.min_control : 0.0;
      s.problem.ub(i) = act ? mu.max_control : mu.max_isometric_force;
    }
    for (int k = 0; k < na; ++k) {
      s.problem.lb(nm + k) = actuators_[k].min_control;
      s.problem.ub(nm + k) = actuators_[k].max_control;
    }
    qp::Options qo;
    qo.warm_start = options_.warm_start;
    s.qp = std::make_unique<qp::Solver>(s.n, s.m, qo);
    return;
  }
  // LP columns: muscles f_i, actuators x_k⁺ and x_k⁻, then slacks s_j⁺, s_j⁻ per row (cost 1e6).
  glp_term_out(GLP_OFF);
  s.lp = glp_create_prob();
  glp_set_obj_dir(s.lp, GLP_MIN);
  glp_add_rows(s.lp, s.m);
  const int cols = nm + 2 * na + 2 * s.m;
  glp_add_cols(s.lp, cols);
  for (int i = 0; i < nm; ++i) {
    glp_set_col_bnds(s.lp, i + 1, GLP_DB, 0.0, paths_->set().muscles[i].max_isometric_force);
    glp_set_obj_coef(s.lp, i + 1, 1.0);
  }
  for (int k = 0; k < na; ++k) {
    const io::OpenSimCoordinateActuator& a = actuators_[k];
    const double up = std::isfinite(a.max_control) ? std::max(a.max_control, 0.0) : 0.0;
    const double dn = std::isfinite(a.min_control) ? std::max(-a.min_control, 0.0) : 0.0;
    glp_set_col_bnds(s.lp, nm + 2 * k + 1, std::isfinite(a.max_control) ? GLP_DB : GLP_LO, 0.0, up);
    glp_set_col_bnds(s.lp, nm + 2 * k + 2, std::isfinite(a.min_control) ? GLP_DB : GLP_LO, 0.0, dn);
    glp_set_obj_coef(s.lp, nm + 2 * k + 1, a.optimal_force);
    glp_set_obj_coef(s.lp, nm + 2 * k + 2, a.optimal_force);
  }
  for (int j = 0; j < 2 * s.m; ++j) {
    glp_set_col_bnds(s.lp, nm + 2 * na + j + 1, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(s.lp, nm + 2 * na + j + 1, 1e6);
  }
  s.idx.assign(cols + 1, 0);
  s.val.assign(cols + 1, 0.0);
  glp_init_smcp(&s.smcp);
  s.smcp.msg_lev = GLP_MSG_OFF;
  s.smcp.presolve = GLP_OFF;
}

std::vector<std::string> MuscleForceSolver::names() const {
  std::vector<std::string> out;
  for (const io::OpenSimMuscle& m : paths_->set().muscles) out.push_back(m.name);
  for (const io::OpenSimCoordinateActuator& a : actuators_) out.push_back(a.name);
  return out;
}

void MuscleForceSolver::solve(const Configuration& q, const VectorXd& v, const VectorXd& tau, MusclePathData& data,
                              FrameForces& out) {
  Impl& s = *impl_;
  const int nm = numMuscles(), na = static_cast<int>(actuators_.size());
  const int nv = paths_->model().nv();
  if (v.size() != nv || tau.size() != nv || !v.allFinite() || !tau.allFinite() || !q.joints.allFinite())
    throw InvalidArgument("MuscleForceSolver::solve: q, v and tau must be finite, v and tau of size nv = " +
                          std::to_string(nv));
  if (out.control.size() != s.n) {
    out.control = VectorXd::Zero(s.n);
    out.force = VectorXd::Zero(s.n);
    out.residual = VectorXd::Zero(nv);
  }
  paths_->evaluate(q, data, true);
  for (int i = 0; i < nm; ++i) {
    if (options_.method == Method::StaticOptimization) {
      const io::OpenSimMuscle& mu = paths_->set().muscles[i];
      const double speed = data.jacobian.row(i).dot(v);
      s.unit(i) = options_.use_muscle_physiology ? rigidTendonFiber(mu, data.length(i), speed).unit_force
                                                 : mu.max_isometric_force;
    } else {
      s.unit(i) = 1.0;
    }
  }
  for (int k = 0; k < na; ++k) s.unit(nm + k) = actuators_[k].optimal_force;
  // Row r: dof rows_[r]; muscle column i: −J(i, dof)·unit_i; actuator k: unit on its dof.
  auto coefficient = [&](int r, int col) {
    if (col < nm) return -data.jacobian(col, rows_[r]) * s.unit(col);
    return actuator_dof_[col - nm] == rows_[r] ? s.unit(col) : 0.0;
  };
  if (options_.method != Method::LP) {
    for (int r = 0; r < s.m; ++r) {
      for (int c = 0; c < s.n; ++c) s.problem.A(r, c) = coefficient(r, c);
      s.problem.lbA(r) = s.problem.ubA(r) = tau(rows_[r]);
    }
    const qp::Result res = s.qp->solve(s.problem, s.x);
    // Round-off can leave x a few ulps outside a bound (−1e-31 below 0): project it back.
    out.control = s.x.cwiseMax(s.problem.lb).cwiseMin(s.problem.ub);
    out.feasible = res.status == qp::Status::Optimal;
  } else {
    for (int r = 0; r < s.m; ++r) {
      int k = 0;
      for (int c = 0; c < s.n; ++c) {
        const double a = coefficient(r, c);
        if (a == 0.0) continue;
        const int col = c < nm ? c + 1 : nm + 2 * (c - nm) + 1;
        s.idx[++k] = col;
        s.val[k] = a;
        if (c >= nm) {
          s.idx[++k] = col + 1;
          s.val[k] = -a;
        }
      }
      s.idx[++k] = nm + 2 * na + 2 * r + 1;
      s.val[k] = 1.0;
      s.idx[++k] = nm + 2 * na + 2 * r + 2;
      s.val[k] = -1.0;
      glp_set_mat_row(s.lp, r + 1, k, s.idx.data(), s.val.data());
      glp_set_row_bnds(s.lp, r + 1, GLP_FX, tau(rows_[r]), tau(rows_[r]));
    }
    if (!options_.warm_start) glp_std_basis(s.lp);
    const int rc = glp_simplex(s.lp, &s.smcp);
    const bool ok = rc == 0 && glp_get_status(s.lp) == GLP_OPT;
    for (int i = 0; i < nm; ++i) out.control(i) = ok ? glp_get_col_prim(s.lp, i + 1) : 0.0;
    for (int k = 0; k < na; ++k)
      out.control(nm + k) = ok ? glp_get_col_prim(s.lp, nm + 2 * k + 1) - glp_get_col_prim(s.lp, nm + 2 * k + 2) : 0.0;
    out.feasible = ok;
  }
  out.force = out.control.cwiseProduct(s.unit);
  out.residual.setZero();
  out.max_residual = 0.0;
  for (int r = 0; r < s.m; ++r) {
    double produced = 0.0;
    for (int c = 0; c < s.n; ++c) produced += coefficient(r, c) * out.control(c);
    out.residual(rows_[r]) = tau(rows_[r]) - produced;
    out.max_residual = std::max(out.max_residual, std::abs(out.residual(rows_[r])));
  }
  if (out.max_residual > 1e-6 * std::max(1.0, tau.cwiseAbs().maxCoeff())) out.feasible = false;
}

void releaseThreadSolverMemory() { glp_free_env(); }

}  // namespace kinetrack::muscles
