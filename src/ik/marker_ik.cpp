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

struct Marker {
  std::string name;
  FrameId frame;
  LinkId link;
  double weight;
};

struct CoordinateTask {
  JointId joint;
  double weight;
};

struct Coupler {
  std::string name;
  JointId dependent, independent;
  ScalarFunction function;
};

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
  if (!(o.constraint_weight > 0.0))
    throw InvalidArgument("MarkerIk: constraint_weight must be positive (infinity enforces couplers exactly)");
}

// `kind` and `name` make the message ("marker 'RASI'"); it is only built when the weight is bad, so
// a weight set every frame costs no allocation.
void checkWeight(double w, std::string_view kind, std::string_view name = {}) {
  if (w >= 0.0 && std::isfinite(w)) return;
  std::string what(kind);
  if (!name.empty()) what += " '" + std::string(name) + "'";
  throw InvalidArgument("MarkerIk: " + what + ": weight must be finite and ≥ 0, got " + std::to_string(w));
}

}  // namespace

struct MarkerIk::Impl {
  std::shared_ptr<const Model> model;
  MarkerIkOptions options;
  std::vector<Marker> markers;
  std::vector<CoordinateTask> tasks;
  std::vector<Coupler> couplers;
  VectorXd lower, upper;

  Configuration q, q_trial;
  Data kin, kin_trial;
  bool first = true;
  double damping = 0.0;

  // Per-frame inputs (views into the caller's arrays during solve()).
  std::span<const Vector3d> observed;
  std::span<const double> coordinate_values;

  // Assembly scratch, sized by prepare().
  bool prepared = false;
  bool dense = false;
  std::vector<Matrix6d> Mc;
  std::vector<Vector6d> fc, S;
  MatrixXd H;
  VectorXd g, step, lb, ub;
  qp::Problem problem;
  std::optional<qp::TreeBoxSolver> tree_qp;
  std::optional<qp::Solver> dense_qp;
  std::vector<double> errors;  // per marker, at the state

  Impl(std::shared_ptr<const Model> m, MarkerIkOptions o)
      : model(std::move(m)), options(o), q(*model), q_trial(*model), kin(*model), kin_trial(*model) {
    const int n = model->numJoints();
    lower = VectorXd::Constant(n, -kInf);
    upper = VectorXd::Constant(n, kInf);
    forwardKinematics(*model, kin, q);
  }

  [[nodiscard]] bool hardCouplers() const { return !couplers.empty() && std::isinf(options.constraint_weight); }

  void prepare() {
    const Model& m = *model;
    const int nv = m.nv(), nl = m.numLinks();
    // Couplers tie joints of different branches: the Hessian (or the equality rows) leaves the
    // tree pattern, so the dense solver takes over.
    dense = !couplers.empty();
    Mc.assign(static_cast<std::size_t>(nl), Matrix6d::Zero());
    fc.assign(static_cast<std::size_t>(nl), Vector6d::Zero());
    S.assign(static_cast<std::size_t>(nv), Vector6d::Zero());
    H = MatrixXd::Zero(nv, nv);
    g = VectorXd::Zero(nv);
    step = VectorXd::Zero(nv);
    const int rows = hardCouplers() ? static_cast<int>(couplers.size()) : 0;
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
    errors.assign(markers.size(), std::numeric_limits<double>::quiet_NaN());
    prepared = true;
  }

  [[nodiscard]] bool markerActive(std::size_t i) const { return markers[i].weight > 0.0 && observed[i].allFinite(); }
  [[nodiscard]] bool taskActive(std::size_t c) const {
    return tasks[c].weight > 0.0 && c < coordinate_values.size() && std::isfinite(coordinate_values[c]);
  }

  // ½ Σ w‖m − m̂‖² + ½ Σ w_c (s − ŝ)² + ½ w_k Σ (s_dep − f(s_ind))² at the kinematics `d` of q.
  [[nodiscard]] double objective(const Data& d, const Configuration& x) const {
    const Model& m = *model;
    double F = 0.0;
    for (std::size_t i = 0; i < markers.size(); ++i)
      if (markerActive(i)) F += markers[i].weight * (frameOrigin(m, d, markers[i].frame) - observed[i]).squaredNorm();
    for (std::size_t c = 0; c < tasks.size(); ++c)
      if (taskActive(c)) {
        const double e = x.joints[tasks[c].joint.value] - coordinate_values[c];
        F += tasks[c].weight * e * e;
      }
    // Exactly enforced couplers are equality rows of every step's QP; in the merit function that
    // accepts steps they count with a large weight, so restoring them is never refused.
    const double wk = hardCouplers() ? kHardCouplerMeritWeight : options.constraint_weight;
    for (const Coupler& k : couplers) {
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
    for (std::size_t i = 0; i < markers.size(); ++i) {
      if (!markerActive(i)) continue;
      const Marker& mk = markers[i];
      const Vector3d origin = frameOrigin(m, kin, mk.frame);
      const Vector3d p = origin - ref;
      const Vector3d wr = mk.weight * (observed[i] - origin);  // w (m̂ − m): g = −Sᵀ f
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
    detail::reduceComposites(m, kin, Mc, fc, S, &H, g);
    for (std::size_t c = 0; c < tasks.size(); ++c) {
      if (!taskActive(c)) continue;
      const int v = nb + tasks[c].joint.value;
      H(v, v) += tasks[c].weight;
      g[v] += tasks[c].weight * (q.joints[tasks[c].joint.value] - coordinate_values[c]);
    }
    const bool hard = hardCouplers();
    for (std::size_t k = 0; k < couplers.size(); ++k) {
      const Coupler& cp = couplers[k];
      double f, df, ddf;
      cp.function.evaluate(q.joints[cp.independent.value], f, df, ddf);
      const double e = q.joints[cp.dependent.value] - f;
      const int a = nb + cp.dependent.value, b = nb + cp.independent.value;
      if (hard) {
        // Linearised equality: δ_dep − f′ δ_ind = −e.
        problem.A.row(static_cast<Eigen::Index>(k)).setZero();
        problem.A(static_cast<Eigen::Index>(k), a) = 1.0;
        problem.A(static_cast<Eigen::Index>(k), b) = -df;
        problem.lbA[static_cast<Eigen::Index>(k)] = problem.ubA[static_cast<Eigen::Index>(k)] = -e;
      } else {
        const double w = options.constraint_weight;
        H(a, a) += w;
        H(b, b) += w * df * df;
        H(std::max(a, b), std::min(a, b)) -= w * df;
        g[a] += w * e;
        g[b] -= w * e * df;
      }
    }
  }

  // kin.frame of every marker frame at the state (what data() promises after a solve).
  void updateMarkerFrames() {
    for (const auto& mk : markers) (void)updateFramePlacement(*model, kin, mk.frame);
  }

  // Marker errors and the result's error fields at the current state.
  void report(MarkerIkResult& r) {
    const Model& m = *model;
    updateMarkerFrames();
    r.markers_used = 0;
    r.total_squared_error = r.max_error = 0.0;
    r.worst_marker = -1;
    for (std::size_t i = 0; i < markers.size(); ++i) {
      if (!markerActive(i)) {
        errors[i] = std::numeric_limits<double>::quiet_NaN();
        continue;
      }
      const double e = (frameOrigin(m, kin, markers[i].frame) - observed[i]).norm();
      errors[i] = e;
      ++r.markers_used;
      r.total_squared_error += e * e;
      if (e > r.max_error || r.worst_marker < 0) {
        r.max_error = e;
        r.worst_marker = static_cast<int>(i);
      }
    }
    r.rms_error = r.markers_used > 0 ? std::sqrt(r.total_squared_error / r.markers_used) : 0.0;
    r.coupler_violation = 0.0;
    for (const Coupler& k : couplers)
      r.coupler_violation = std::max(
          r.coupler_violation, std::abs(q.joints[k.dependent.value] - k.function.value(q.joints[k.independent.value])));
    r.limit_violation = 0.0;
    for (int j = 0; j < m.numJoints(); ++j)
      r.limit_violation = std::max({r.limit_violation, lower[j] - q.joints[j], q.joints[j] - upper[j]});
  }

  MarkerIkResult solve() {
    const Model& m = *model;
    const int nb = m.nvBase(), n = m.numJoints(), nv = m.nv();
    if (!prepared) prepare();
    MarkerIkResult r;
    const int max_it = first ? options.first_solve_iterations : options.max_iterations;
    if (first || damping <= 0.0) damping = options.initial_damping;
    first = false;
    // Bring the state inside the bounds first (a locked joint jumps to its value).
    for (int j = 0; j < n; ++j) q.joints[j] = std::clamp(q.joints[j], lower[j], upper[j]);
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
      if (hmax <= 0.0 && !hardCouplers()) {  // nothing to fit: no active markers or tasks
        r.status = Status::Converged;
        break;
      }
      const double mu = damping * std::max(hmax, 1.0);
      problem.H = H;
      problem.H.diagonal().array() += mu;
      problem.g = g;
      for (int c = 0; c < nb; ++c) problem.lb[c] = -kInf, problem.ub[c] = kInf;
      for (int j = 0; j < n; ++j) {
        problem.lb[nb + j] = lower[j] - q.joints[j];
        problem.ub[nb + j] = upper[j] - q.joints[j];
      }
      const qp::Result qr = dense ? dense_qp->solve(problem, step) : tree_qp->solve(problem, step);
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
  const bool rows_change = std::isinf(options.constraint_weight) != std::isinf(impl_->options.constraint_weight);
  impl_->options = options;
  if (rows_change) impl_->prepared = false;
}

int MarkerIk::addMarker(std::string_view frame, double weight) {
  checkWeight(weight, "marker", frame);
  const FrameId f = impl_->model->frameId(frame);
  impl_->markers.push_back({std::string(frame), f, impl_->model->frameLink(f), weight});
  impl_->prepared = false;
  return static_cast<int>(impl_->markers.size()) - 1;
}

int MarkerIk::addCoordinateTask(std::string_view joint, double weight) {
  checkWeight(weight, "coordinate task", joint);
  impl_->tasks.push_back({impl_->model->jointId(joint), weight});
  impl_->prepared = false;
  return static_cast<int>(impl_->tasks.size()) - 1;
}

void MarkerIk::addCoupler(std::string name, std::string_view dependent, std::string_view independent,
                          ScalarFunction f) {
  const JointId a = impl_->model->jointId(dependent), b = impl_->model->jointId(independent);
  if (a == b) throw InvalidArgument("MarkerIk: coupler '" + name + "': a joint cannot depend on itself");
  impl_->couplers.push_back({std::move(name), a, b, std::move(f)});
  impl_->prepared = false;
}

void MarkerIk::setMarkerWeight(int marker, double weight) {
  if (marker < 0 || marker >= numMarkers()) throw InvalidArgument("MarkerIk: marker index out of range");
  checkWeight(weight, "marker", impl_->markers[static_cast<std::size_t>(marker)].name);
  impl_->markers[static_cast<std::size_t>(marker)].weight = weight;
}

void MarkerIk::setCoordinateTaskWeight(int task, double weight) {
  if (task < 0 || task >= numCoordinateTasks()) throw InvalidArgument("MarkerIk: coordinate task index out of range");
  checkWeight(weight, "coordinate task");
  impl_->tasks[static_cast<std::size_t>(task)].weight = weight;
}

void MarkerIk::setBounds(const VectorXd& lower, const VectorXd& upper) {
  const int n = impl_->model->numJoints();
  if (lower.size() != n || upper.size() != n)
    throw InvalidArgument("MarkerIk::setBounds: expected " + std::to_string(n) + " entries");
  for (int j = 0; j < n; ++j)
    if (std::isnan(lower[j]) || std::isnan(upper[j]) || lower[j] > upper[j] || lower[j] == kInf || upper[j] == -kInf)
      throw InvalidArgument("MarkerIk::setBounds: joint '" + impl_->model->jointName(JointId(j)) + "': bounds [" +
                            std::to_string(lower[j]) + ", " + std::to_string(upper[j]) + "] are not an interval");
  impl_->lower = lower;
  impl_->upper = upper;
}

void MarkerIk::lock(std::string_view joint, double value) {
  if (!std::isfinite(value)) throw InvalidArgument("MarkerIk::lock: value is not finite");
  const JointId j = impl_->model->jointId(joint);
  impl_->lower[j.value] = impl_->upper[j.value] = value;
}

const VectorXd& MarkerIk::lowerBounds() const { return impl_->lower; }
const VectorXd& MarkerIk::upperBounds() const { return impl_->upper; }
int MarkerIk::numMarkers() const { return static_cast<int>(impl_->markers.size()); }
int MarkerIk::numCoordinateTasks() const { return static_cast<int>(impl_->tasks.size()); }
const std::string& MarkerIk::markerName(int marker) const {
  if (marker < 0 || marker >= numMarkers()) throw InvalidArgument("MarkerIk: marker index out of range");
  return impl_->markers[static_cast<std::size_t>(marker)].name;
}

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
}

const Configuration& MarkerIk::state() const { return impl_->q; }
const Data& MarkerIk::data() const { return impl_->kin; }

MarkerIkResult MarkerIk::solve(std::span<const Vector3d> markers, std::span<const double> coordinates) {
  if (markers.size() != impl_->markers.size())
    throw InvalidArgument("MarkerIk::solve: expected " + std::to_string(impl_->markers.size()) +
                          " marker positions, got " + std::to_string(markers.size()));
  if (!coordinates.empty() && coordinates.size() != impl_->tasks.size())
    throw InvalidArgument("MarkerIk::solve: expected " + std::to_string(impl_->tasks.size()) +
                          " coordinate values, got " + std::to_string(coordinates.size()));
  impl_->observed = markers;
  impl_->coordinate_values = coordinates;
  MarkerIkResult r = impl_->solve();
  return r;
}

double MarkerIk::markerError(int marker) const {
  if (marker < 0 || marker >= numMarkers()) throw InvalidArgument("MarkerIk: marker index out of range");
  if (impl_->errors.empty()) return std::numeric_limits<double>::quiet_NaN();
  return impl_->errors[static_cast<std::size_t>(marker)];
}

Vector3d MarkerIk::modelMarker(int marker) const {
  if (marker < 0 || marker >= numMarkers()) throw InvalidArgument("MarkerIk: marker index out of range");
  return frameOrigin(*impl_->model, impl_->kin, impl_->markers[static_cast<std::size_t>(marker)].frame);
}

}  // namespace kinetrack::ik
