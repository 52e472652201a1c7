#include "kinetrack/ik/instantaneous_ik.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "composite_reduction.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/qp/tree_box_qp.hpp"
#include "solver_detail.hpp"

namespace kinetrack {

const char* ik::toString(ik::Status s) {
  switch (s) {
    case ik::Status::Converged: return "converged";
    case ik::Status::Stationary: return "stationary";
    case ik::Status::IterationLimit: return "iteration-limit";
    case ik::Status::Infeasible: return "infeasible";
    case ik::Status::Failed: return "failed";
  }
  return "?";
}

namespace detail {

void validateOptions(const InstantaneousIkOptions& o) {
  auto nonNegative = [](double v, const char* name) {
    if (!std::isfinite(v) || v < 0.0)
      throw InvalidArgument(std::string("InstantaneousIkOptions: ") + name + " must be finite and ≥ 0, got " +
                            std::to_string(v));
  };
  nonNegative(o.orientation_tolerance, "orientation_tolerance");
  nonNegative(o.position_tolerance, "position_tolerance");
  nonNegative(o.step_tolerance, "step_tolerance");
  nonNegative(o.function_tolerance, "function_tolerance");
  nonNegative(o.feasibility_tolerance, "feasibility_tolerance");
  if (o.max_iterations < 0)
    throw InvalidArgument("InstantaneousIkOptions: max_iterations must be ≥ 0, got " +
                          std::to_string(o.max_iterations));
  if (!(o.min_damping > 0.0) || !(o.min_damping <= o.initial_damping) || !(o.initial_damping <= o.max_damping) ||
      !std::isfinite(o.max_damping))
    throw InvalidArgument("InstantaneousIkOptions: need 0 < min_damping ≤ initial_damping ≤ max_damping < ∞");
  if (!(o.ipopt_tolerance > 0.0) || !std::isfinite(o.ipopt_tolerance))
    throw InvalidArgument("InstantaneousIkOptions: ipopt_tolerance must be finite and > 0");
  // What the QP solvers' constructors check, so that options are refused before any is built.
  if (!(o.qp.feasibility_tol >= 0.0) || o.qp.max_iterations < 0)
    throw InvalidArgument("qp::Solver: need feasibility_tol ≥ 0 and max_iterations ≥ 0");
}

}  // namespace detail

struct InstantaneousIk::Impl {
  InstantaneousIkOptions options;
  InstantaneousIkProblem problem;
  std::unique_ptr<InstantaneousIkExternalSolver> external;
  int rows;
  qp::Problem qp;
  qp::Solver dense;
  qp::TreeBoxSolver tree;
  VectorXd delta, hdiag;
  double last_damping = 0.0;  // μ at the end of the previous solve (0: none yet)

  Impl(std::shared_ptr<const Model> model_ptr, InstantaneousIkOptions o,
       std::unique_ptr<InstantaneousIkExternalSolver> ext)
      : options(o),
        problem(std::move(model_ptr), o.orientation_residual),
        external(std::move(ext)),
        rows(problem.numRows()),
        qp(problem.numVariables(), rows),
        dense(problem.numVariables(), rows, o.qp),
        tree(detail::variableTree(problem.model()), o.qp),
        delta(VectorXd::Zero(problem.numVariables())),
        hdiag(VectorXd::Zero(problem.numVariables())) {
    checkOptions(o);
    qp.A = problem.rowMatrix();
  }

  void checkOptions(const InstantaneousIkOptions& o) const {
    detail::validateOptions(o);
    if (o.backend == InstantaneousIkBackend::Ipopt && !external)
      throw InvalidArgument(
          "InstantaneousIk: the Ipopt backend lives in kinetrack::ik_ipopt; construct the solver with "
          "makeInstantaneousIk() from kinetrack/ik_ipopt/instantaneous_ik_ipopt.hpp");
  }

  bool accurate(const PoseError& e) const { return withinTolerances(e, options); }
  bool feasible() const {
    return problem.limitViolation() <= options.feasibility_tolerance &&
           problem.rowViolation() <= options.feasibility_tolerance;
  }

  SolveResult solveNative() {
    SolveResult res;
    const PoseError* e = &problem.refreshCentre();  // targets changed since the last solve
    res.evaluations = 1;
    res.initial_cost = e->cost;
    double F = e->cost;
    double mu = options.keep_damping && last_damping > 0.0
                    ? std::clamp(last_damping, options.min_damping, options.initial_damping)
                    : options.initial_damping;
    double growth = 2.0;
    bool have_model = false, restoring = false;
    const bool use_tree = options.sparse_qp && rows == 0;
    for (;;) {
      if (accurate(*e) && feasible()) {
        res.status = ik::Status::Converged;
        break;
      }
      if (res.iterations >= options.max_iterations) {
        res.status = ik::Status::IterationLimit;
        break;
      }
      if (!have_model) {  // Gauss–Newton model and bounds at the (new) centre, chart x = δ
        problem.derivatives(qp.H, qp.g);
        hdiag = qp.H.diagonal();
        problem.chartBounds(qp.lb, qp.ub, qp.lbA, qp.ubA);
        have_model = true;
        // A centre outside the limits or rows (a user-set state): the QP step lands on the
        // feasible set and is taken whatever it does to F.
        restoring = !feasible();
        if (!qp.g.allFinite() || !hdiag.allFinite()) {
          res.status = ik::Status::Failed;
          break;
        }
      }
      qp.H.diagonal() = hdiag.array() + mu;
      delta.setZero();
      ++res.iterations;
      const qp::Result qr = use_tree ? tree.solve(qp, delta) : dense.solve(qp, delta);
      res.qp_iterations += qr.iterations;
      const bool usable =
          (qr.status == qp::Status::Optimal || qr.status == qp::Status::Infeasible) && delta.allFinite();
      // Predicted decrease of the Gauss–Newton model (without the damping term):
      // −(gᵀδ + ½δᵀHδ) = −(QP objective) + ½μ‖δ‖².
      const double pred = usable ? -qr.objective + 0.5 * mu * delta.squaredNorm() : 0.0;
      if (usable && restoring && qr.status == qp::Status::Optimal) {
        problem.evaluate(delta);
        ++res.evaluations;
        problem.recentre();
        e = &problem.centreError();
        F = e->cost;
        have_model = false;
        continue;
      }
      if (usable && !(pred > options.function_tolerance * F)) {
        // No decrease left to predict: the projected gradient vanishes (to round-off).
        res.status = accurate(*e) && feasible() ? ik::Status::Converged : ik::Status::Stationary;
        break;
      }
      double rho = -1.0;
      if (usable) {
        const PoseError& trial = problem.evaluate(delta);
        ++res.evaluations;
        if (std::isfinite(trial.cost)) rho = (F - trial.cost) / pred;
      }
      if (rho > 1e-4) {  // accept: gain ratio test
        problem.recentre();
        e = &problem.centreError();
        F = e->cost;
        have_model = false;
        const double t = 2.0 * rho - 1.0;
        mu = std::max(options.min_damping, mu * std::max(1.0 / 3.0, 1.0 - t * t * t));
        growth = 2.0;
        if (delta.cwiseAbs().maxCoeff() <= options.step_tolerance) {
          res.status = accurate(*e) && feasible() ? ik::Status::Converged : ik::Status::Stationary;
          break;
        }
      } else {
        ++res.rejected_steps;
        mu *= growth;
        growth *= 2.0;
        if (mu > options.max_damping) {
          res.status = ik::Status::Failed;
          break;
        }
      }
    }
    last_damping = mu;
    res.damping = mu;
    res.cost = e->cost;
    res.max_orientation_error = e->max_orientation;
    res.max_position_error = e->max_position;
    res.mnte = e->mnte;
    res.limit_violation = problem.limitViolation();
    res.row_violation = problem.rowViolation();
    return res;
  }
};

InstantaneousIk::InstantaneousIk(const Model& model, InstantaneousIkOptions options)
    : InstantaneousIk(std::make_shared<const Model>(model), options, nullptr) {}
InstantaneousIk::InstantaneousIk(std::shared_ptr<const Model> model, InstantaneousIkOptions options)
    : InstantaneousIk(std::move(model), options, nullptr) {}
InstantaneousIk::InstantaneousIk(std::shared_ptr<const Model> model, InstantaneousIkOptions options,
                                 std::unique_ptr<InstantaneousIkExternalSolver> external)
    : impl_(std::make_unique<Impl>(std::move(model), options, std::move(external))) {}
InstantaneousIk::~InstantaneousIk() = default;
InstantaneousIk::InstantaneousIk(InstantaneousIk&&) noexcept = default;
InstantaneousIk& InstantaneousIk::operator=(InstantaneousIk&&) noexcept = default;

const Model& InstantaneousIk::model() const { return impl_->problem.model(); }
const std::shared_ptr<const Model>& InstantaneousIk::sharedModel() const { return impl_->problem.sharedModel(); }
const InstantaneousIkOptions& InstantaneousIk::options() const { return impl_->options; }
void InstantaneousIk::setOptions(const InstantaneousIkOptions& options) {
  impl_->checkOptions(options);
  impl_->options = options;
  if (impl_->problem.orientationResidual() != options.orientation_residual)
    impl_->problem.setOrientationResidual(options.orientation_residual);
  impl_->dense = qp::Solver(model().nv(), impl_->rows, options.qp);
  impl_->tree = qp::TreeBoxSolver(detail::variableTree(model()), options.qp);
  impl_->last_damping = 0.0;
}

ik::TaskSet& InstantaneousIk::tasks() { return impl_->problem.tasks(); }
const ik::TaskSet& InstantaneousIk::tasks() const { return impl_->problem.tasks(); }

void InstantaneousIk::setState(const Configuration& q) {
  impl_->problem.setCentre(q);
  impl_->dense.reset();
  impl_->tree.reset();
  impl_->last_damping = 0.0;
  if (impl_->external) impl_->external->reset();
}
const Configuration& InstantaneousIk::state() const { return impl_->problem.centre(); }
const Data& InstantaneousIk::data() const { return impl_->problem.centreData(); }

SolveResult InstantaneousIk::solve() {
  if (impl_->options.backend == InstantaneousIkBackend::Ipopt)
    return impl_->external->solve(impl_->problem, impl_->options);
  return impl_->solveNative();
}

double InstantaneousIk::mnte() const { return impl_->problem.refreshCentre().mnte; }
InstantaneousIkProblem& InstantaneousIk::problem() { return impl_->problem; }

}  // namespace kinetrack
