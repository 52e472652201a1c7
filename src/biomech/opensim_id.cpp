#include "kinetrack/biomech/opensim_id.hpp"

#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <unsupported/Eigen/Splines>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::biomech {

namespace {

// OpenSim's padding (Signal::Pad): `pad` samples before and after, each an odd reflection of the
// signal about its end value (x₋ⱼ = 2x₀ − xⱼ), which keeps value and slope continuous.
std::vector<double> oddPad(const std::vector<double>& x, int pad) {
  const int n = static_cast<int>(x.size());
  std::vector<double> out(static_cast<std::size_t>(n + 2 * pad));
  for (int i = 0; i < pad; ++i)
    out[static_cast<std::size_t>(i)] = 2.0 * x.front() - x[static_cast<std::size_t>(pad - i)];
  std::copy(x.begin(), x.end(), out.begin() + pad);
  for (int i = 0; i < pad; ++i)
    out[static_cast<std::size_t>(pad + n + i)] = 2.0 * x.back() - x[static_cast<std::size_t>(n - 2 - i)];
  return out;
}

bool isGround(const std::string& body) { return body.empty() || body == "ground"; }

std::string bodyList(const io::OpenSimModel& m) {
  std::string s = "ground";
  for (const std::string& b : m.bodies) s += ", " + b;
  return s;
}

}  // namespace

OpenSimIdOptions OpenSimIdOptions::fromSetup(const io::IdSetup& setup) {
  OpenSimIdOptions o;
  o.time_start = setup.time_start;
  o.time_end = setup.time_end;
  o.lowpass_cutoff_hz = setup.lowpass_cutoff_hz;
  o.in_degrees = setup.coordinates_in_degrees;
  return o;
}

void butterworth3ZeroLag(std::vector<double>& x, double dt, double cutoff_hz) {
  if (!(dt > 0.0) || !(cutoff_hz > 0.0) || !std::isfinite(dt) || !std::isfinite(cutoff_hz))
    throw InvalidArgument("butterworth3ZeroLag: need dt > 0 and a cut-off > 0 (finite)");
  const std::size_t n = x.size();
  if (n < 4) throw InvalidArgument("butterworth3ZeroLag: need at least 4 samples, got " + std::to_string(n));
  const double fs = 1.0 / dt;
  if (cutoff_hz >= 0.5 * fs) cutoff_hz = 0.49 * fs;
  // Analogue prototype 1/((s+1)(s²+s+1)) at the pre-warped cut-off, bilinear transform.
  const double w = std::tan(std::numbers::pi * cutoff_hz * dt);
  const double w2 = w * w, w3 = w2 * w;
  const double den = (w + 1.0) * (w2 + w + 1.0);
  const double b0 = w3 / den, b1 = 3.0 * w3 / den;  // numerator w³(1, 3, 3, 1)/den
  const double a1 = (3.0 * w3 + 2.0 * w2 - 2.0 * w - 3.0) / den;
  const double a2 = (3.0 * w3 - 2.0 * w2 - 2.0 * w + 3.0) / den;
  const double a3 = (w - 1.0) * (w2 - w + 1.0) / den;
  std::vector<double> y(n);
  const auto pass = [&](const std::vector<double>& in, std::vector<double>& out) {
    for (std::size_t i = 0; i < 3; ++i) out[i] = in[i];
    for (std::size_t i = 3; i < n; ++i)
      out[i] =
          b0 * (in[i] + in[i - 3]) + b1 * (in[i - 1] + in[i - 2]) - a1 * out[i - 1] - a2 * out[i - 2] - a3 * out[i - 3];
  };
  pass(x, y);
  std::reverse(y.begin(), y.end());
  pass(y, x);
  std::reverse(x.begin(), x.end());
}

CoordinateTrajectory prepareCoordinates(const io::OpenSimModel& model, const io::MotTable& motion,
                                        const OpenSimIdOptions& options, const std::string& source) {
  const std::vector<double>& t = motion.times;
  const int n = static_cast<int>(t.size());
  if (n < 4) throw InvalidArgument(source + ": " + std::to_string(n) + " rows, inverse dynamics needs at least 4");
  double dt_min = std::numeric_limits<double>::infinity();
  for (int i = 1; i < n; ++i) {
    const double d = t[static_cast<std::size_t>(i)] - t[static_cast<std::size_t>(i - 1)];
    if (!(d > 0.0)) throw InvalidArgument(source + ": times do not increase at row " + std::to_string(i + 1));
    dt_min = std::min(dt_min, d);
  }
  const double dt_mean = (t.back() - t.front()) / (n - 1);
  if (dt_mean - dt_min > 0.3 * dt_mean)
    throw InvalidArgument(source + ": the sampling is not uniform (steps from " + std::to_string(dt_min) + " to ~" +
                          std::to_string(dt_mean) + " s); resample first");
  // As OpenSim: the header's inDegrees, and degrees for a legacy file without one.
  const bool degrees =
      options.in_degrees < 0 ? (motion.in_degrees_declared ? motion.in_degrees : true) : options.in_degrees == 1;
  // Output frames: the file's own stamps within the range (OpenSim's tolerance on the ends).
  constexpr double kTimeTolerance = 1e-6;
  CoordinateTrajectory out;
  std::vector<int> rows;
  for (int i = 0; i < n; ++i)
    if (t[static_cast<std::size_t>(i)] >= options.time_start - kTimeTolerance &&
        t[static_cast<std::size_t>(i)] <= options.time_end + kTimeTolerance) {
      rows.push_back(i);
      out.times.push_back(t[static_cast<std::size_t>(i)]);
    }
  if (rows.empty())
    throw InvalidArgument(source + ": the time range " + std::to_string(options.time_start) + "–" +
                          std::to_string(options.time_end) + " s selects none of its frames (" +
                          std::to_string(t.front()) + "–" + std::to_string(t.back()) + " s)");
  const int nc = static_cast<int>(model.coordinates.size());
  const int nf = static_cast<int>(rows.size());
  out.q.resize(nf, nc);
  out.qd.setZero(nf, nc);
  out.qdd.setZero(nf, nc);
  const int pad = options.lowpass_cutoff_hz >= 0.0 ? n / 2 : 0;
  const std::vector<double> tp = oddPad(t, pad);
  const double t0 = tp.front(), span = tp.back() - tp.front();
  Eigen::RowVectorXd knots(static_cast<Eigen::Index>(tp.size()));
  for (std::size_t i = 0; i < tp.size(); ++i) knots[static_cast<Eigen::Index>(i)] = (tp[i] - t0) / span;
  // The quintic interpolating spline's collocation matrix (as Eigen's SplineFitting::Interpolate
  // builds it: averaged knots, the basis functions at each parameter, the end points pinned) is
  // the same for every coordinate and banded: assembled sparse and factorised once. (Interpolate
  // itself factorises a dense n × n matrix per call: 5 s for 39 coordinates of a 510-frame run.)
  using Spline1 = Eigen::Spline<double, 1>;
  const Spline1::KnotVectorType parameters = knots;
  Spline1::KnotVectorType knot_vector;
  Eigen::KnotAveraging(parameters, 5, knot_vector);
  const Eigen::Index m = knots.size();
  const bool banded = m > 5;  // fewer points than a quintic's 6: Eigen's own fit, as before
  std::vector<Eigen::Triplet<double>> entries{{0, 0, 1.0}, {m - 1, m - 1, 1.0}};
  for (Eigen::Index i = 1; banded && i + 1 < m; ++i) {
    const Eigen::Index first = Spline1::Span(knots[i], 5, knot_vector) - 5;
    const auto basis = Spline1::BasisFunctions(knots[i], 5, knot_vector);
    for (Eigen::Index k = 0; k <= 5; ++k) entries.emplace_back(i, first + k, basis[k]);
  }
  Eigen::SparseMatrix<double> collocation(m, m);
  collocation.setFromTriplets(entries.begin(), entries.end());
  Eigen::SparseLU<Eigen::SparseMatrix<double>> collocation_lu;
  if (banded) collocation_lu.compute(collocation);
  if (banded && collocation_lu.info() != Eigen::Success)
    throw InvalidArgument(source + ": the coordinates' spline cannot be fitted to these times");
  for (int c = 0; c < nc; ++c) {
    const io::OpenSimCoordinate& coord = model.coordinates[static_cast<std::size_t>(c)];
    const auto it = std::find(motion.columns.begin(), motion.columns.end(), coord.name);
    if (it == motion.columns.end()) {
      out.missing.push_back(coord.name);
      out.q.col(c).setConstant(coord.default_value);
      continue;
    }
    const auto col = static_cast<Eigen::Index>(it - motion.columns.begin());
    std::vector<double> x(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      x[static_cast<std::size_t>(i)] = motion.values(i, col);
      if (!std::isfinite(x[static_cast<std::size_t>(i)]))
        throw ParseError(source, motion.line(i),
                         "column '" + coord.name + "' at time " + std::to_string(t[static_cast<std::size_t>(i)]) +
                             " is not a finite number");
    }
    std::vector<double> xp = oddPad(x, pad);
    if (options.lowpass_cutoff_hz >= 0.0) butterworth3ZeroLag(xp, dt_min, options.lowpass_cutoff_hz);
    const double scale = degrees && coord.rotational ? std::numbers::pi / 180.0 : 1.0;
    Eigen::RowVectorXd values(static_cast<Eigen::Index>(xp.size()));
    for (std::size_t i = 0; i < xp.size(); ++i) values[static_cast<Eigen::Index>(i)] = scale * xp[i];
    const Spline1 spline =
        banded ? Spline1(knot_vector, Eigen::VectorXd(collocation_lu.solve(values.transpose())).transpose())
               : Eigen::SplineFitting<Spline1>::Interpolate(values, 5, knots);
    for (int f = 0; f < nf; ++f) {
      const double u = knots[rows[static_cast<std::size_t>(f)] + pad];
      const auto d = spline.derivatives(u, 2);
      out.q(f, c) = d(0, 0);
      out.qd(f, c) = d(0, 1) / span;
      out.qdd(f, c) = d(0, 2) / (span * span);
    }
  }
  return out;
}

std::string generalizedForceColumn(const io::OpenSimCoordinate& c) {
  return c.name + (c.rotational ? "_moment" : "_force");
}

io::MotTable OpenSimIdResult::table() const {
  io::MotTable t;
  t.name = "Inverse Dynamics Generalized Forces";
  t.columns = columns;
  t.times = times;
  t.values = values;
  t.in_degrees = false;
  return t;
}

OpenSimIdSolver::OpenSimIdSolver(const io::OpenSimModel& model, const io::ExternalLoads* loads)
    : model_(&model),
      loads_(loads),
      dynamics_(*model.model),
      kinematics_(*model.model),
      config_(*model.model),
      v_(VectorXd::Zero(model.model->nv())),
      a_(VectorXd::Zero(model.model->nv())),
      out_(Eigen::VectorXd::Zero(static_cast<Eigen::Index>(model.coordinates.size()))) {
  const Model& m = *model.model;
  if (m.nvBase() != 0) throw InvalidArgument("OpenSimIdSolver: the model must have a fixed base (ground)");
  if (!loads) return;
  for (const io::ExternalForceSpec& f : loads->forces) {
    const auto frame = [&](const std::string& body, const char* what) {
      if (isGround(body)) return FrameId();
      const auto id = m.findFrame(body);
      if (!id || std::find(model.bodies.begin(), model.bodies.end(), body) == model.bodies.end())
        throw ParseError(loads->spec.source, f.line,
                         "ExternalForce '" + f.name + "': " + what + " '" + body + "' is not a body of the model " +
                             model.source + " (bodies: " + bodyList(model) + ")");
      return *id;
    };
    BoundForce b;
    b.applied = frame(f.applied_to_body, "applied_to_body");
    if (!b.applied.valid())
      throw ParseError(loads->spec.source, f.line,
                       "ExternalForce '" + f.name + "': applied to ground, which does not move");
    b.link = m.frameLink(b.applied);
    b.force_frame = frame(f.force_expressed_in_body, "force_expressed_in_body");
    b.point_frame = frame(f.point_expressed_in_body, "point_expressed_in_body");
    const bool has_point = !f.point_identifier.empty();
    needs_frames_ = needs_frames_ || b.force_frame.valid() || (has_point && b.point_frame.valid()) || !has_point;
    bound_.push_back(b);
  }
  samples_.resize(bound_.size());
  wrenches_.resize(bound_.size());
}

void OpenSimIdSolver::sampleLoads(double t, const Configuration& q) {
  const Model& m = *model_->model;
  loads_->sample(t, samples_);
  if (needs_frames_) forwardKinematics(m, kinematics_, q);
  const auto placement = [&](FrameId f) -> const Transform& { return updateFramePlacement(m, kinematics_, f); };
  for (std::size_t k = 0; k < bound_.size(); ++k) {
    const BoundForce& b = bound_[k];
    const io::ExternalForceSample& s = samples_[k];
    ExternalWrench& w = wrenches_[k];
    w.link = b.link;
    w.force = s.force;
    w.moment = s.torque;
    if (b.force_frame.valid()) {
      const Matrix3d& R = placement(b.force_frame).R;
      w.force = R * s.force;
      w.moment = R * s.torque;
    }
    if (!s.has_point) {
      w.point = placement(b.applied).p;
    } else if (b.point_frame.valid()) {
      const Transform& T = placement(b.point_frame);
      w.point = T.p + T.R * s.point;
    } else {
      w.point = s.point;
    }
  }
}

const std::vector<ExternalWrench>& OpenSimIdSolver::externalWrenches(double t, const Configuration& q) {
  const Model& m = *model_->model;
  if (q.joints.size() != m.numJoints())
    throw InvalidArgument("OpenSimIdSolver::externalWrenches: expected " + std::to_string(m.numJoints()) + " joints");
  if (loads_) sampleLoads(t, q);
  return wrenches_;
}

const Eigen::VectorXd& OpenSimIdSolver::solve(double t, const Eigen::Ref<const Eigen::VectorXd>& q,
                                              const Eigen::Ref<const Eigen::VectorXd>& qd,
                                              const Eigen::Ref<const Eigen::VectorXd>& qdd) {
  const Model& m = *model_->model;
  const auto nc = static_cast<Eigen::Index>(model_->coordinates.size());
  if (q.size() != nc || qd.size() != nc || qdd.size() != nc)
    throw InvalidArgument("OpenSimIdSolver::solve: expected " + std::to_string(nc) + " coordinates");
  for (Eigen::Index c = 0; c < nc; ++c) {
    const int j = model_->coordinates[static_cast<std::size_t>(c)].joint.value;
    config_.joints[j] = q[c];
    v_[j] = qd[c];
    a_[j] = qdd[c];
  }
  if (loads_) sampleLoads(t, config_);
  const VectorXd& tau = rnea(m, dynamics_, config_, v_, a_, wrenches_, model_->gravity);
  for (Eigen::Index c = 0; c < nc; ++c) out_[c] = tau[model_->coordinates[static_cast<std::size_t>(c)].joint.value];
  return out_;
}

OpenSimIdResult opensimInverseDynamics(const io::OpenSimModel& model, const io::MotTable& motion,
                                       const io::ExternalLoads* loads, const OpenSimIdOptions& options,
                                       const std::string& motion_source,
                                       const std::function<void(int, int)>& progress) {
  const CoordinateTrajectory traj = prepareCoordinates(model, motion, options, motion_source);
  if (loads) {
    constexpr double kTolerance = 1e-6;
    if (traj.times.front() < loads->firstTime() - kTolerance || traj.times.back() > loads->lastTime() + kTolerance)
      throw InvalidArgument("the motion " + motion_source + " (frames " + std::to_string(traj.times.front()) + "–" +
                            std::to_string(traj.times.back()) + " s) is not covered by the external loads " +
                            loads->data_source + " (" + std::to_string(loads->firstTime()) + "–" +
                            std::to_string(loads->lastTime()) + " s)");
  }
  OpenSimIdSolver solver(model, loads);
  OpenSimIdResult out;
  out.times = traj.times;
  out.missing_coordinates = traj.missing;
  for (const io::OpenSimCoordinate& c : model.coordinates) out.columns.push_back(generalizedForceColumn(c));
  const int nf = static_cast<int>(traj.times.size());
  out.values.resize(nf, static_cast<Eigen::Index>(model.coordinates.size()));
  for (int f = 0; f < nf; ++f) {
    out.values.row(f) = solver
                            .solve(traj.times[static_cast<std::size_t>(f)], traj.q.row(f).transpose(),
                                   traj.qd.row(f).transpose(), traj.qdd.row(f).transpose())
                            .transpose();
    if (progress) progress(f + 1, nf);
  }
  return out;
}

std::vector<ColumnComparison> compareColumns(const OpenSimIdResult& ours, const io::MotTable& reference) {
  std::vector<ColumnComparison> out;
  const std::vector<double>& rt = reference.times;
  for (std::size_t c = 0; c < ours.columns.size(); ++c) {
    ColumnComparison cmp;
    cmp.column = ours.columns[c];
    const auto it = std::find(reference.columns.begin(), reference.columns.end(), cmp.column);
    if (it == reference.columns.end() || rt.size() < 2) {
      cmp.rms = cmp.max_abs = std::numeric_limits<double>::quiet_NaN();
      out.push_back(cmp);
      continue;
    }
    const auto rc = static_cast<Eigen::Index>(it - reference.columns.begin());
    cmp.reference_range = reference.values.col(rc).maxCoeff() - reference.values.col(rc).minCoeff();
    double sum = 0.0;
    for (std::size_t f = 0; f < ours.times.size(); ++f) {
      const double t = ours.times[f];
      if (t < rt.front() - 1e-6 || t > rt.back() + 1e-6) continue;
      const auto up = std::upper_bound(rt.begin(), rt.end(), t);
      const auto i1 = std::clamp<std::size_t>(static_cast<std::size_t>(up - rt.begin()), 1, rt.size() - 1);
      const std::size_t i0 = i1 - 1;
      const double w = std::clamp((t - rt[i0]) / (rt[i1] - rt[i0]), 0.0, 1.0);
      const double r = (1.0 - w) * reference.values(static_cast<Eigen::Index>(i0), rc) +
                       w * reference.values(static_cast<Eigen::Index>(i1), rc);
      const double e = ours.values(static_cast<Eigen::Index>(f), static_cast<Eigen::Index>(c)) - r;
      sum += e * e;
      cmp.max_abs = std::max(cmp.max_abs, std::abs(e));
      ++cmp.frames;
    }
    cmp.rms = cmp.frames > 0 ? std::sqrt(sum / cmp.frames) : std::numeric_limits<double>::quiet_NaN();
    out.push_back(cmp);
  }
  return out;
}

}  // namespace kinetrack::biomech
