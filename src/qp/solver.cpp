// qp::Solver: input checks, warm-start bookkeeping, and the elastic fallback for infeasible
// problems around the Goldfarb–Idnani core (goldfarb_idnani.cpp).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "goldfarb_idnani.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/qp/qp.hpp"

namespace kinetrack::qp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string shape(Eigen::Index rows, Eigen::Index cols) { return std::to_string(rows) + " × " + std::to_string(cols); }

void expectShape(const char* what, Eigen::Index rows, Eigen::Index cols, Eigen::Index want_rows,
                 Eigen::Index want_cols) {
  if (rows != want_rows || cols != want_cols)
    throw InvalidArgument(std::string("qp::Solver::solve: expected ") + what + " of " + shape(want_rows, want_cols) +
                          ", got " + shape(rows, cols));
}

void expectBounds(const char* lo_name, const char* hi_name, const VectorXd& lo, const VectorXd& hi) {
  for (Eigen::Index i = 0; i < lo.size(); ++i) {
    const double l = lo[i], u = hi[i];
    if (std::isnan(l) || std::isnan(u) || l == kInf || u == -kInf || l > u)
      throw InvalidArgument(std::string("qp::Solver::solve: ") + lo_name + "[" + std::to_string(i) + "] = " +
                            std::to_string(l) + ", " + hi_name + "[" + std::to_string(i) + "] = " + std::to_string(u) +
                            " (need " + lo_name + " ≤ " + hi_name + ", neither NaN, no +inf lower or −inf upper)");
  }
}

void validate(const Problem& p, int n, int m, Eigen::Index x_size) {
  expectShape("H", p.H.rows(), p.H.cols(), n, n);
  expectShape("g", p.g.rows(), 1, n, 1);
  expectShape("lb", p.lb.rows(), 1, n, 1);
  expectShape("ub", p.ub.rows(), 1, n, 1);
  expectShape("A", p.A.rows(), p.A.cols(), m, n);
  expectShape("lbA", p.lbA.rows(), 1, m, 1);
  expectShape("ubA", p.ubA.rows(), 1, m, 1);
  expectShape("x", x_size, 1, n, 1);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i)
      if (!std::isfinite(p.H(i, j)))
        throw InvalidArgument("qp::Solver::solve: H(" + std::to_string(i) + ", " + std::to_string(j) +
                              ") is not finite");
  if (!p.g.allFinite()) throw InvalidArgument("qp::Solver::solve: g has a non-finite entry");
  if (!p.A.allFinite()) throw InvalidArgument("qp::Solver::solve: A has a non-finite entry");
  expectBounds("lb", "ub", p.lb, p.ub);
  expectBounds("lbA", "ubA", p.lbA, p.ubA);
}

}  // namespace

struct Solver::Impl {
  Impl(int n_, int m_, Options o)
      : n(n_),
        m(m_),
        options(o),
        core(n_, m_),
        warm(static_cast<std::size_t>(n_)),
        bound_mult(VectorXd::Zero(n_)),
        row_mult(VectorXd::Zero(m_)),
        hx(n_) {
    if (m > 0) {
      // Elastic problem (see solve): variables (x, s), rows [A I] (lower side) and [A −I]
      // (upper side). The constant parts are written once here.
      elastic = std::make_unique<detail::GoldfarbIdnani>(n + m, 2 * m);
      ep = Problem(n + m, 2 * m);
      ep.A.topRightCorner(m, m).setIdentity();
      ep.A.bottomRightCorner(m, m) = -MatrixXd::Identity(m, m);
      ep.lb.tail(m).setZero();
      ep.ubA.head(m).setConstant(kInf);
      ep.lbA.tail(m).setConstant(-kInf);
    }
  }

  int n, m;
  Options options;
  detail::GoldfarbIdnani core;
  std::unique_ptr<detail::GoldfarbIdnani> elastic;
  Problem ep;
  std::vector<detail::ActiveEntry> warm;
  int num_warm = 0;
  VectorXd bound_mult, row_mult, hx;

  // Multipliers in the API's sign convention from a core's active set; `elastic_rows` maps the
  // elastic problem's rows and slacks back to the original constraints.
  void collectMultipliers(const detail::GoldfarbIdnani& c, bool elastic_rows, Result& result) {
    bound_mult.setZero();
    row_mult.setZero();
    result.active_bounds = 0;
    result.active_rows = 0;
    const int nv = elastic_rows ? n + m : n;
    for (int j = 0; j < c.numActive(); ++j) {
      const detail::ActiveEntry& a = c.active(j);
      // Stationarity reads Hx + g = Σ u n_k: n = +e for a lower side → multiplier −u.
      const double lambda = a.side > 0 ? -c.multiplier(j) : c.multiplier(j);
      if (a.id < n) {
        bound_mult[a.id] += lambda;
        ++result.active_bounds;
      } else if (a.id < nv) {
        // slack bound s ≥ 0: not a constraint of the original problem
      } else {
        const int row = (a.id - nv) % m;
        row_mult[row] += lambda;
        ++result.active_rows;
      }
    }
  }

  // Elastic problem for an infeasible QP (bounds alone are always consistent since lb ≤ ub):
  //   min ½xᵀHx + gᵀx + ρ Σ s_j + ½μ‖s‖²  s.t.  lb ≤ x ≤ ub,  s ≥ 0,
  //       a_jᵀx + s_j ≥ lbA_j,  a_jᵀx − s_j ≤ ubA_j.
  // It is always feasible. ℓ1 violation is polyhedral, hence a weak sharp minimum, so for ρ above
  // the objective's gradient scale the solution minimises Σ_j violation_j exactly and then the
  // objective among such points (μ only keeps the Hessian positive definite).
  detail::CoreStatus solveElastic(const Problem& p) {
    double h_scale = 1.0;
    for (int j = 0; j < n; ++j) h_scale = std::max(h_scale, p.H.col(j).tail(n - j).cwiseAbs().maxCoeff());
    const double g_scale = std::max(1.0, p.g.cwiseAbs().maxCoeff());
    const double rho = 1e6 * std::max(h_scale, g_scale);
    const double mu = 1e-8 * h_scale;
    ep.H.topLeftCorner(n, n).triangularView<Eigen::Lower>() = p.H.triangularView<Eigen::Lower>();
    ep.H.bottomRightCorner(m, m).diagonal().setConstant(mu);
    ep.g.head(n) = p.g;
    ep.g.tail(m).setConstant(rho);
    ep.lb.head(n) = p.lb;
    ep.ub.head(n) = p.ub;
    ep.A.topLeftCorner(m, n) = p.A;
    ep.A.bottomLeftCorner(m, n) = p.A;
    ep.lbA.head(m) = p.lbA;
    ep.ubA.tail(m) = p.ubA;
    const int max_iterations = std::max(options.max_iterations, 4 * (n + 2 * m));
    return elastic->solve(ep, options.feasibility_tol, max_iterations, nullptr, 0);
  }
};

Solver::Solver(int n, int m, Options options) {
  if (n <= 0 || m < 0)
    throw InvalidArgument("qp::Solver: need n > 0 and m ≥ 0, got n = " + std::to_string(n) +
                          ", m = " + std::to_string(m));
  if (!(options.feasibility_tol >= 0.0) || options.max_iterations < 0)
    throw InvalidArgument("qp::Solver: need feasibility_tol ≥ 0 and max_iterations ≥ 0");
  impl_ = new Impl(n, m, options);
}

Solver::~Solver() { delete impl_; }
Solver::Solver(Solver&& other) noexcept : impl_(other.impl_) { other.impl_ = nullptr; }
Solver& Solver::operator=(Solver&& other) noexcept {
  if (this != &other) {
    delete impl_;
    impl_ = other.impl_;
    other.impl_ = nullptr;
  }
  return *this;
}

int Solver::numVariables() const { return impl_->n; }
int Solver::numRows() const { return impl_->m; }
const Options& Solver::options() const { return impl_->options; }
const VectorXd& Solver::boundMultipliers() const { return impl_->bound_mult; }
const VectorXd& Solver::rowMultipliers() const { return impl_->row_mult; }
void Solver::reset() { impl_->num_warm = 0; }

Result Solver::solve(const Problem& problem, Eigen::Ref<VectorXd> x) {
  Impl& s = *impl_;
  validate(problem, s.n, s.m, x.size());
  const double tol = s.options.feasibility_tol;
  Result result;

  const int num_warm = s.options.warm_start ? s.num_warm : 0;
  detail::CoreStatus status = s.core.solve(problem, tol, s.options.max_iterations, s.warm.data(), num_warm);
  result.iterations = s.core.iterations();
  result.warm_started = s.core.warmStarted();
  s.num_warm = 0;

  if (status == detail::CoreStatus::NotConvex) {
    result.status = Status::NotConvex;  // x left unchanged; objective and violation reported at it
    s.bound_mult.setZero();
    s.row_mult.setZero();
  } else if (status == detail::CoreStatus::Infeasible && s.m > 0) {
    const detail::CoreStatus es = s.solveElastic(problem);
    result.iterations += s.elastic->iterations();
    x = s.elastic->x().head(s.n);
    s.collectMultipliers(*s.elastic, true, result);
    // The elastic solve only fails numerically (it is always feasible); report what we have.
    result.status = es == detail::CoreStatus::IterationLimit ? Status::IterationLimit : Status::Infeasible;
  } else {
    x = s.core.x();
    s.collectMultipliers(s.core, false, result);
    switch (status) {
      case detail::CoreStatus::Optimal: result.status = Status::Optimal; break;
      case detail::CoreStatus::IterationLimit: result.status = Status::IterationLimit; break;
      default: result.status = Status::Infeasible; break;  // bounds only: numerical breakdown
    }
    if (status == detail::CoreStatus::Optimal) {
      s.num_warm = s.core.numActive();
      for (int j = 0; j < s.num_warm; ++j) s.warm[j] = s.core.active(j);
    }
  }

  // Never hand out NaN for finite input: fall back to the bound projection of 0.
  if (result.status != Status::NotConvex && !x.allFinite()) {
    for (int i = 0; i < s.n; ++i) x[i] = std::clamp(0.0, problem.lb[i], problem.ub[i]);
    result.status = Status::IterationLimit;
    s.num_warm = 0;
  }

  s.hx.noalias() = problem.H.selfadjointView<Eigen::Lower>() * x;
  result.objective = 0.5 * x.dot(s.hx) + problem.g.dot(x);
  double violation = 0.0;
  for (int i = 0; i < s.n; ++i) violation = std::max({violation, problem.lb[i] - x[i], x[i] - problem.ub[i]});
  for (int j = 0; j < s.m; ++j) {
    const double ax = problem.A.row(j).dot(x);
    violation = std::max({violation, problem.lbA[j] - ax, ax - problem.ubA[j]});
  }
  result.max_violation = violation;
  // An elastic solution that satisfies every constraint means the infeasibility was a numerical
  // false alarm of the dual method; the elastic problem is then an exact penalty of the original.
  if (result.status == Status::Infeasible && violation <= tol && s.m > 0) result.status = Status::Optimal;
  return result;
}

}  // namespace kinetrack::qp
