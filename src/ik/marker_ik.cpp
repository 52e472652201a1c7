#include "kinetrack/ik/marker_ik.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "composite_reduction.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/qp/qp.hpp"
#include "kinetrack/qp/tree_box_qp.hpp"

namespace kinetrack::ik {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kHardCouplerMeritWeight = 1e10;

void checkOptions(const MarkerIkOptions& o) {
  if (!(o.accuracy > 0.0) || !std::isfinite(o.accuracy))
    throw InvalidArgument("MarkerIk: accuracy must be a positive number, got " + std::to_string(o.accuracy));
  if (!(o.relative_tolerance >= 0.0) || !(o.relative_tolerance < 1.0))
    throw InvalidArgument("MarkerIk: relative_tolerance must be in [0, 1)");
  if (o.max_iterations < 1 || o.first_solve_iterations < 1)
    throw InvalidArgument("MarkerIk: iteration counts must be ≥ 1");
  if (!(o.min_damping > 0.0) || !(o.initial_damping >= o.min_damping) || !(o.max_damping >= o.initial_damping) ||
      !std::isfinite(o.max_damping))
    throw InvalidArgument("MarkerIk: damping must satisfy 0 < min ≤ initial ≤ max < infinity");
}

// The task kinds MarkerIk reads.
constexpr TaskKinds kMarkerIkKinds{.frame = true, .marker = true, .coordinate = true, .coupler = true, .posture = true};

// Frame tasks MarkerIk reads: orientation targets (an IMU's measured orientation). A position is
// a marker task.
void orientationOnly(const Model&, const FrameTask& t, std::string_view frame) {
  if (t.type != TargetType::Orientation)
    throw InvalidArgument("MarkerIk reads orientation targets only; frame '" + std::string(frame) +
                          "': a position is a marker task (tasks().addMarker)");
}

// World orientation of frame f from the link placements.
Matrix3d frameRotation(const Model& m, const Data& d, FrameId f) {
  return d.link[static_cast<std::size_t>(m.frameLink(f).value)].R * m.framePlacement(f).R;
}

// The rotation vector (world frame) that turns the model frame onto the target: log(R_T R_Mᵀ).
Vector3d orientationResidual(const Model& m, const Data& d, const FrameTask& t) {
  return so3::log(t.R * frameRotation(m, d, t.frame).transpose());
}

}  // namespace

struct MarkerIk::Impl {
  std::shared_ptr<const Model> model;
  MarkerIkOptions options;
  TaskSet tasks;
  CoordinateBounds bounds;

  Configuration q, q_trial;
  Data kin, kin_trial;
  bool first = true;
  double damping = 0.0;

  // Assembly scratch, sized by prepare() for the task layout below.
  bool prepared = false;
  std::size_t prepared_added = 0;  // tasks of every kind ever added
  int prepared_couplers = 0;       // active couplers (their joints make the Hessian dense)
  int rows = 0;                    // active exact couplers: the QP's equality rows
  bool dense = false;
  std::vector<Matrix6d> Mc;
  std::vector<Vector6d> fc, S;
  MatrixXd H;
  VectorXd g, step, lb, ub;
  qp::Problem problem;
  std::optional<qp::TreeBoxSolver> tree_qp;
  std::optional<qp::Solver> dense_qp;
  // The dense QP over the unlocked variables only (locked joints' steps are 0): OpenSim models
  // lock many coordinates (the OpenSense Rajagopal model 26 of 39), and the dense solver's cost
  // grows with the cube of its size. Rebuilt when the bounds or the layout change.
  std::vector<int> free_vars;
  std::uint64_t reduced_revision = ~std::uint64_t{0};
  qp::Problem reduced;
  std::optional<qp::Solver> reduced_qp;
  VectorXd reduced_step;
  std::vector<double> errors;              // per marker task, at the state
  std::vector<double> orientation_errors;  // per frame task (rad), at the state

  Impl(std::shared_ptr<const Model> m, MarkerIkOptions o)
      : model(std::move(m)),
        options(o),
        tasks(model, "MarkerIk", orientationOnly, kMarkerIkKinds),
        bounds(model, "MarkerIk"),
        q(*model),
        q_trial(*model),
        kin(*model),
        kin_trial(*model) {
    forwardKinematics(*model, kin, q);
  }

  [[nodiscard]] std::size_t added() const {
    return tasks.all().size() + tasks.markers().size() + tasks.coordinates().size() + tasks.couplers().size() +
           tasks.postures().size();
  }
  void countCouplers(int& active, int& exact) const {
    active = exact = 0;
    for (const CouplerTask& k : tasks.couplers())
      if (k.active()) ++active, exact += k.exact() ? 1 : 0;
  }
  // The scratch is re-sized after an add (as before the task layer: adding a task re-prepares)
  // and when the couplers' rows or the Hessian's pattern change (a coupler removed, enabled,
  // switched between exact and penalty); weights and values of markers, coordinate and posture
  // tasks do not touch it, so changing them between frames does not allocate.
  [[nodiscard]] bool layoutChanged() const {
    if (!prepared || added() != prepared_added) return true;
    int active, exact;
    countCouplers(active, exact);
    return active != prepared_couplers || exact != rows;
  }

  void prepare() {
    const Model& m = *model;
    const int nv = m.nv(), nl = m.numLinks();
    int active, exact;
    countCouplers(active, exact);
    // Couplers tie joints of different branches: the Hessian (or the equality rows) leaves the
    // tree pattern, so the dense solver takes over.
    dense = active > 0;
    rows = exact;
    Mc.assign(static_cast<std::size_t>(nl), Matrix6d::Zero());
    fc.assign(static_cast<std::size_t>(nl), Vector6d::Zero());
    S.assign(static_cast<std::size_t>(nv), Vector6d::Zero());
    H = MatrixXd::Zero(nv, nv);
    g = VectorXd::Zero(nv);
    step = VectorXd::Zero(nv);
    problem = qp::Problem(nv, rows);
    qp::Options qo;
    qo.max_iterations = 4 * nv + 20;
    if (dense) {
      dense_qp.emplace(nv, rows, qo);
      tree_qp.reset();
    } else {
      tree_qp.emplace(detail::variableTree(m), qo);
      dense_qp.reset();
    }
    reduced_revision = ~std::uint64_t{0};
    errors.assign(tasks.markers().size(), std::numeric_limits<double>::quiet_NaN());
    orientation_errors.assign(tasks.all().size(), std::numeric_limits<double>::quiet_NaN());
    prepared_added = added();
    prepared_couplers = active;
    prepared = true;
  }

  // The unlocked variables (the base's and every joint with lower < upper), and the reduced dense
  // QP when some are locked; allocates only when the bounds changed since the last call.
  void prepareReduction() {
    if (!dense || bounds.revision() == reduced_revision) return;
    const Model& m = *model;
    const int nb = m.nvBase(), nv = m.nv();
    free_vars.clear();
    for (int v = 0; v < nv; ++v)
      if (v < nb || bounds.lower()[v - nb] < bounds.upper()[v - nb]) free_vars.push_back(v);
    const int nf = static_cast<int>(free_vars.size());
    if (nf < nv && nf > 0) {
      reduced = qp::Problem(nf, rows);
      qp::Options qo;
      qo.max_iterations = 4 * nf + 20;
      reduced_qp.emplace(nf, rows, qo);
      reduced_step = VectorXd::Zero(nf);
    } else {
      reduced_qp.reset();
    }
    reduced_revision = bounds.revision();
  }

  // The step of problem: on the reduced QP when joints are locked (their steps 0), else directly.
  qp::Result solveStep() {
    if (!dense) return tree_qp->solve(problem, step);
    if (!reduced_qp) return dense_qp->solve(problem, step);
    const int nf = static_cast<int>(free_vars.size());
    for (int a = 0; a < nf; ++a) {
      const int va = free_vars[static_cast<std::size_t>(a)];
      for (int b = 0; b <= a; ++b) reduced.H(a, b) = problem.H(va, free_vars[static_cast<std::size_t>(b)]);
      reduced.g[a] = problem.g[va];
      reduced.lb[a] = problem.lb[va];
      reduced.ub[a] = problem.ub[va];
      reduced.A.col(a) = problem.A.col(va);
    }
    reduced.lbA = problem.lbA;
    reduced.ubA = problem.ubA;
    const qp::Result r = reduced_qp->solve(reduced, reduced_step);
    step.setZero();
    for (int a = 0; a < nf; ++a) step[free_vars[static_cast<std::size_t>(a)]] = reduced_step[a];
    return r;
  }

  // ½ Σ w‖m − m̂‖² + ½ Σ w_o ‖log(R̂ Rᵀ)‖² + ½ Σ w_c (s − ŝ)² + ½ Σ_p Σ_j w_pj (s_j − ŝ_pj)² + ½ Σ w_k (s_dep −
  // f(s_ind))² at the kinematics `d` of q.
  [[nodiscard]] double objective(const Data& d, const Configuration& x) const {
    const Model& m = *model;
    double F = 0.0;
    for (const MarkerTask& mk : tasks.markers())
      if (mk.active()) F += mk.weight * (frameOrigin(m, d, mk.frame) - mk.measured).squaredNorm();
    for (const FrameTask& t : tasks.all())
      if (t.orientationSet() && t.orientation_weight > 0.0)
        F += t.orientation_weight * orientationResidual(m, d, t).squaredNorm();
    for (const CoordinateTask& c : tasks.coordinates())
      if (c.active()) {
        const double e = x.joints[c.joint.value] - c.value;
        F += c.weight * e * e;
      }
    for (const PostureTask& p : tasks.postures()) {
      if (!p.active()) continue;
      for (Eigen::Index j = 0; j < p.weights.size(); ++j)
        if (p.weights[j] > 0.0 && std::isfinite(p.values[j])) {
          const double e = x.joints[j] - p.values[j];
          F += p.weights[j] * e * e;
        }
    }
    // Exactly enforced couplers are equality rows of every step's QP; in the merit function that
    // accepts steps they count with a large weight, so restoring them is never refused.
    for (const CouplerTask& k : tasks.couplers()) {
      if (!k.active()) continue;
      const double wk = k.exact() ? kHardCouplerMeritWeight : k.weight;
      const double e = x.joints[k.dependent.value] - k.function.value(x.joints[k.independent.value]);
      F += wk * e * e;
    }
    return 0.5 * F;
  }

  // H = Σ JᵀWJ (lower triangle) and g = ∇(½F) at the current state, from per-link composites.
  void assemble() {
    const Model& m = *model;
    const int nb = m.nvBase();
    for (auto& M : Mc) M.setZero();
    for (auto& f : fc) f.setZero();
    if (dense) H.setZero();
    const Vector3d& ref = kin.link[0].p;
    for (const MarkerTask& mk : tasks.markers()) {
      if (!mk.active()) continue;
      const Vector3d origin = frameOrigin(m, kin, mk.frame);
      const Vector3d p = origin - ref;
      const Vector3d wr = mk.weight * (mk.measured - origin);  // w (m̂ − m): g = −Sᵀ f
      Matrix6d& M = Mc[static_cast<std::size_t>(mk.link.value)];
      Vector6d& f = fc[static_cast<std::size_t>(mk.link.value)];
      f.head<3>() += p.cross(wr);
      f.tail<3>() += wr;
      const Matrix3d P = so3::skew(p);
      M.topLeftCorner<3, 3>().noalias() -= mk.weight * P * P;
      M.topRightCorner<3, 3>() += mk.weight * P;
      M.bottomLeftCorner<3, 3>() -= mk.weight * P;
      M.bottomRightCorner<3, 3>().diagonal().array() += mk.weight;
    }
    // Orientation targets: the residual e = log(R̂ Rᵀ) falls by δω to first order (δω the frame's
    // world angular displacement), so each adds w·I to the angular block and w·e to the moment.
    for (const FrameTask& t : tasks.all()) {
      if (!t.orientationSet() || !(t.orientation_weight > 0.0)) continue;
      const Vector3d e = orientationResidual(m, kin, t);
      Matrix6d& M = Mc[static_cast<std::size_t>(t.link.value)];
      fc[static_cast<std::size_t>(t.link.value)].head<3>() += t.orientation_weight * e;
      M.topLeftCorner<3, 3>().diagonal().array() += t.orientation_weight;
    }
    detail::reduceComposites(m, kin, Mc, fc, S, &H, g);
    for (const CoordinateTask& c : tasks.coordinates()) {
      if (!c.active()) continue;
      const int v = nb + c.joint.value;
      H(v, v) += c.weight;
      g[v] += c.weight * (q.joints[c.joint.value] - c.value);
    }
    for (const PostureTask& pt : tasks.postures()) {
      if (!pt.active()) continue;
      for (Eigen::Index j = 0; j < pt.weights.size(); ++j) {
        const double w = pt.weights[j];
        if (!(w > 0.0) || !std::isfinite(pt.values[j])) continue;
        const Eigen::Index v = nb + j;
        H(v, v) += w;
        g[v] += w * (q.joints[j] - pt.values[j]);
      }
    }
    Eigen::Index k = 0;  // equality row of the next exact coupler
    for (const CouplerTask& cp : tasks.couplers()) {
      if (!cp.active()) continue;
      double f, df, ddf;
      cp.function.evaluate(q.joints[cp.independent.value], f, df, ddf);
      const double e = q.joints[cp.dependent.value] - f;
      const int a = nb + cp.dependent.value, b = nb + cp.independent.value;
      if (cp.exact()) {
        // Linearised equality: δ_dep − f′ δ_ind = −e.
        problem.A.row(k).setZero();
        problem.A(k, a) = 1.0;
        problem.A(k, b) = -df;
        problem.lbA[k] = problem.ubA[k] = -e;
        ++k;
      } else {
        const double w = cp.weight;
        H(a, a) += w;
        H(b, b) += w * df * df;
        H(std::max(a, b), std::min(a, b)) -= w * df;
        g[a] += w * e;
        g[b] -= w * e * df;
      }
    }
  }

  // kin.frame of every marker and orientation frame at the state (what data() promises).
  void updateMarkerFrames() {
    for (const MarkerTask& mk : tasks.markers())
      if (mk.alive) (void)updateFramePlacement(*model, kin, mk.frame);
    for (const FrameTask& t : tasks.all())
      if (t.alive) (void)updateFramePlacement(*model, kin, t.frame);
  }

  // Marker errors and the result's error fields at the current state.
  void report(MarkerIkResult& r) {
    const Model& m = *model;
    updateMarkerFrames();
    r.markers_used = 0;
    r.total_squared_error = r.max_error = 0.0;
    r.worst_marker = -1;
    const std::vector<MarkerTask>& markers = tasks.markers();
    for (std::size_t i = 0; i < markers.size(); ++i) {
      if (!markers[i].active()) {
        errors[i] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      const double e = (frameOrigin(m, kin, markers[i].frame) - markers[i].measured).norm();
      errors[i] = e;
      ++r.markers_used;
      r.total_squared_error += e * e;
      if (e > r.max_error || r.worst_marker < 0) {
        r.max_error = e;
        r.worst_marker = static_cast<int>(i);
      }
    }
    r.rms_error = r.markers_used > 0 ? std::sqrt(r.total_squared_error / r.markers_used) : 0.0;
    r.orientations_used = 0;
    r.orientation_rms_error = r.orientation_max_error = 0.0;
    r.worst_orientation = -1;
    double sum = 0.0;
    const std::vector<FrameTask>& targets = tasks.all();
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const FrameTask& t = targets[i];
      if (!t.orientationSet() || !(t.orientation_weight > 0.0)) {
        orientation_errors[i] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      const double e = orientationResidual(m, kin, t).norm();
      orientation_errors[i] = e;
      ++r.orientations_used;
      sum += e * e;
      if (e > r.orientation_max_error || r.worst_orientation < 0) {
        r.orientation_max_error = e;
        r.worst_orientation = static_cast<int>(i);
      }
    }
    r.orientation_rms_error = r.orientations_used > 0 ? std::sqrt(sum / r.orientations_used) : 0.0;
    r.coupler_violation = 0.0;
    for (const CouplerTask& k : tasks.couplers())
      if (k.active())
        r.coupler_violation = std::max(r.coupler_violation, std::abs(q.joints[k.dependent.value] -
                                                                     k.function.value(q.joints[k.independent.value])));
    r.limit_violation = bounds.violation(q.joints);
  }

  MarkerIkResult solve() {
    const Model& m = *model;
    const int nb = m.nvBase(), n = m.numJoints(), nv = m.nv();
    if (layoutChanged()) prepare();
    prepareReduction();
    MarkerIkResult r;
    const int max_it = first ? options.first_solve_iterations : options.max_iterations;
    if (first || damping <= 0.0) damping = options.initial_damping;
    first = false;
    // Bring the state inside the bounds first (a locked joint jumps to its value).
    bounds.project(q.joints);
    forwardKinematics(m, kin, q);
    double F = objective(kin, q);
    r.initial_cost = 2.0 * F;
    double nu_factor = 2.0;
    r.status = Status::IterationLimit;
    int it = 0;
    for (; it < max_it; ++it) {
      assemble();
      double hmax = 0.0;
      for (int c = 0; c < nv; ++c) hmax = std::max(hmax, H(c, c));
      if (hmax <= 0.0 && rows == 0) {  // nothing to fit: no active markers or tasks
        r.status = Status::Converged;
        break;
      }
      const double mu = damping * std::max(hmax, 1.0);
      problem.H = H;
      problem.H.diagonal().array() += mu;
      problem.g = g;
      for (int c = 0; c < nb; ++c) problem.lb[c] = -kInf, problem.ub[c] = kInf;
      bounds.displacementBounds(q.joints, problem.lb.segment(nb, n), problem.ub.segment(nb, n));
      const qp::Result qr = solveStep();
      if (qr.status == qp::Status::NotConvex || !step.allFinite()) {
        r.status = Status::Failed;
        break;
      }
      // Predicted decrease of the undamped Gauss–Newton model.
      double quad = 0.0;
      for (int c = 0; c < nv; ++c) {
        double row = H(c, c) * step[c];
        for (int d = 0; d < c; ++d) row += 2.0 * H(c, d) * step[d];
        quad += row * step[c];
      }
      const double predicted = -(g.dot(step) + 0.5 * quad);
      integrate(m, q, step, 1.0, q_trial);
      forwardKinematics(m, kin_trial, q_trial);
      const double F_trial = objective(kin_trial, q_trial);
      const double actual = F - F_trial;
      const double max_step = step.cwiseAbs().maxCoeff();
      if (actual > 0.0) {
        const double rho = predicted > 0.0 ? actual / predicted : 1.0;
        std::swap(q, q_trial);
        std::swap(kin, kin_trial);
        const double old_F = F;
        F = F_trial;
        damping = std::max(options.min_damping, damping * std::max(1.0 / 3.0, 1.0 - std::pow(2.0 * rho - 1.0, 3)));
        nu_factor = 2.0;
        if (max_step <= options.accuracy || actual <= options.relative_tolerance * old_F) {
          r.status = Status::Converged;
          ++it;
          break;
        }
      } else {
        ++r.rejected_steps;
        if (max_step <= options.accuracy * 1e-3 || predicted <= 0.0) {  // at the minimum to round-off
          r.status = Status::Converged;
          ++it;
          break;
        }
        damping *= nu_factor;
        nu_factor *= 2.0;
        if (damping > options.max_damping) {
          r.status = Status::Failed;
          ++it;
          break;
        }
      }
    }
    r.iterations = it;
    r.cost = 2.0 * F;
    report(r);
    return r;
  }
};

MarkerIk::MarkerIk(std::shared_ptr<const Model> model, MarkerIkOptions options) {
  if (!model) throw InvalidArgument("MarkerIk: null model");
  checkOptions(options);
  impl_ = std::make_unique<Impl>(std::move(model), options);
}

MarkerIk::~MarkerIk() = default;
MarkerIk::MarkerIk(MarkerIk&&) noexcept = default;
MarkerIk& MarkerIk::operator=(MarkerIk&&) noexcept = default;

const Model& MarkerIk::model() const { return *impl_->model; }
const MarkerIkOptions& MarkerIk::options() const { return impl_->options; }

void MarkerIk::setOptions(const MarkerIkOptions& options) {
  checkOptions(options);
  impl_->options = options;
}

TaskSet& MarkerIk::tasks() { return impl_->tasks; }
const TaskSet& MarkerIk::tasks() const { return impl_->tasks; }
CoordinateBounds& MarkerIk::bounds() { return impl_->bounds; }
const CoordinateBounds& MarkerIk::bounds() const { return impl_->bounds; }

void MarkerIk::setState(const Configuration& q) {
  const Model& m = *impl_->model;
  if (q.joints.size() != m.numJoints())
    throw InvalidArgument("MarkerIk::setState: expected " + std::to_string(m.numJoints()) + " joint coordinates");
  if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite())
    throw InvalidArgument("MarkerIk::setState: configuration is not finite");
  impl_->q = q;
  forwardKinematics(m, impl_->kin, impl_->q);
  impl_->updateMarkerFrames();
  impl_->first = true;
  if (impl_->tree_qp) impl_->tree_qp->reset();
  if (impl_->dense_qp) impl_->dense_qp->reset();
  if (impl_->reduced_qp) impl_->reduced_qp->reset();
}

const Configuration& MarkerIk::state() const { return impl_->q; }
const Data& MarkerIk::data() const { return impl_->kin; }

MarkerIkResult MarkerIk::solve() { return impl_->solve(); }

MarkerIkResult MarkerIk::solve(std::span<const Vector3d> markers, std::span<const double> coordinates) {
  TaskSet& t = impl_->tasks;
  if (markers.size() != t.markers().size())
    throw InvalidArgument("MarkerIk::solve: expected " + std::to_string(t.markers().size()) +
                          " marker positions, got " + std::to_string(markers.size()));
  if (!coordinates.empty() && coordinates.size() != t.coordinates().size())
    throw InvalidArgument("MarkerIk::solve: expected " + std::to_string(t.coordinates().size()) +
                          " coordinate values, got " + std::to_string(coordinates.size()));
  t.setMeasurements(markers);
  t.setCoordinateValues(coordinates);  // none: every coordinate task off for this frame
  return impl_->solve();
}

namespace {
void checkMarkerId(const TaskSet& t, MarkerTaskId m) {
  if (!m.valid() || m.value >= static_cast<int>(t.markers().size()))
    throw InvalidArgument("MarkerIk: invalid marker task id " + std::to_string(m.value));
}
}  // namespace

double MarkerIk::markerError(MarkerTaskId marker) const {
  checkMarkerId(impl_->tasks, marker);
  if (static_cast<std::size_t>(marker.value) >= impl_->errors.size()) return std::numeric_limits<double>::quiet_NaN();
  return impl_->errors[static_cast<std::size_t>(marker.value)];
}

double MarkerIk::orientationError(TargetId target) const {
  const TaskSet& t = impl_->tasks;
  if (!target.valid() || target.value >= static_cast<int>(t.all().size()))
    throw InvalidArgument("MarkerIk: invalid orientation target id " + std::to_string(target.value));
  if (static_cast<std::size_t>(target.value) >= impl_->orientation_errors.size())
    return std::numeric_limits<double>::quiet_NaN();
  return impl_->orientation_errors[static_cast<std::size_t>(target.value)];
}

Vector3d MarkerIk::modelMarker(MarkerTaskId marker) const {
  checkMarkerId(impl_->tasks, marker);
  return frameOrigin(*impl_->model, impl_->kin, impl_->tasks.markers()[static_cast<std::size_t>(marker.value)].frame);
}

}  // namespace kinetrack::ik
