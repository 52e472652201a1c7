// A whole motion through the muscle-force solver (muscle_trial.hpp).
#include "kinetrack/muscles/muscle_trial.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <numbers>
#include <sstream>
#include <thread>

#include "kinetrack/biomech/opensim_id.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/dynamics/trajectory.hpp"

namespace kinetrack::muscles {

namespace {

int resolveThreads(int threads) {
  if (threads > 0) return threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace

bool motInDegrees(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  bool version = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line == "endheader") break;
    if (line.rfind("inDegrees=", 0) == 0) return line.substr(10) == "yes";
    if (line.rfind("version=", 0) == 0) version = true;
  }
  return !version;
}

int MuscleTrialResult::infeasibleFrames() const {
  int n = 0;
  for (std::uint8_t f : feasible) n += f ? 0 : 1;
  return n;
}

MuscleTrialResult solveMuscleTrial(std::shared_ptr<const MusclePaths> paths, const io::MotTable& motion,
                                   const std::string& motion_source, const MuscleTrialOptions& options,
                                   const std::function<void(int, int)>& progress) {
  if (options.threads < 0)
    throw InvalidArgument("solveMuscleTrial: threads must be ≥ 0, got " + std::to_string(options.threads));
  const io::OpenSimModel& osim = paths->osim();
  const Model& model = paths->model();
  MuscleTrialResult out;
  const int frames = static_cast<int>(motion.times.size());
  if (frames < 3) throw ParseError(motion_source, 0, "fewer than 3 frames: speeds and accelerations need 3");
  if (options.time_start > motion.times.back() || options.time_end < motion.times.front())
    throw ParseError(motion_source, 0,
                     "the time range " + std::to_string(options.time_start) + "…" + std::to_string(options.time_end) +
                         " s does not overlap the motion's " + std::to_string(motion.times.front()) + "…" +
                         std::to_string(motion.times.back()) + " s");
  // Columns → coordinates.
  std::vector<int> column_joint(motion.columns.size(), -1);
  std::vector<double> column_scale(motion.columns.size(), 1.0);
  std::vector<bool> seen(osim.coordinates.size(), false);
  int used = 0;
  for (std::size_t c = 0; c < motion.columns.size(); ++c) {
    const io::OpenSimCoordinate* k = osim.findCoordinate(motion.columns[c]);
    if (!k) {
      out.notices.push_back("ignored column '" + motion.columns[c] + "' (not a coordinate of the model)");
      continue;
    }
    column_joint[c] = k->joint.value;
    column_scale[c] = options.in_degrees && k->rotational ? std::numbers::pi / 180.0 : 1.0;
    seen[static_cast<std::size_t>(k - osim.coordinates.data())] = true;
    ++used;
  }
  if (used == 0) throw ParseError(motion_source, 0, "no column is a coordinate of the model");
  for (std::size_t k = 0; k < osim.coordinates.size(); ++k)
    if (!seen[k])
      out.notices.push_back("coordinate '" + osim.coordinates[k].name + "' not in the motion: held at its default");
  std::vector<Configuration> q(frames, osim.defaultConfiguration());
  for (int f = 0; f < frames; ++f)
    for (std::size_t c = 0; c < motion.columns.size(); ++c) {
      if (column_joint[c] < 0) continue;
      const double v = motion.values(f, static_cast<Eigen::Index>(c));
      if (!std::isfinite(v))
        throw ParseError(
            motion_source, motion.line(f),
            "column '" + motion.columns[c] + "' at t = " + std::to_string(motion.times[f]) + " is not finite");
      q[f].joints[column_joint[c]] = v * column_scale[c];
    }
  std::vector<double> times = motion.times;
  TrajectoryDerivatives d;
  std::vector<VectorXd> tau;
  if (options.loads) {
    // OpenSim's ID pipeline with the external loads.
    biomech::OpenSimIdOptions io;
    io.time_start = options.time_start;
    io.time_end = options.time_end;
    io.lowpass_cutoff_hz = options.lowpass_hz > 0.0 ? options.lowpass_hz : -1.0;
    io.in_degrees = options.in_degrees ? 1 : 0;
    const biomech::CoordinateTrajectory ct = biomech::prepareCoordinates(osim, motion, io, motion_source);
    biomech::OpenSimIdSolver id(osim, options.loads);
    times = ct.times;
    const int n = static_cast<int>(times.size());
    q.assign(n, osim.defaultConfiguration());
    d.velocity.assign(n, VectorXd::Zero(model.nv()));
    d.acceleration.assign(n, VectorXd::Zero(model.nv()));
    d.valid.assign(n, 1);
    tau.assign(n, VectorXd::Zero(model.nv()));
    for (int f = 0; f < n; ++f) {
      const VectorXd& t =
          id.solve(times[f], ct.q.row(f).transpose(), ct.qd.row(f).transpose(), ct.qdd.row(f).transpose());
      for (std::size_t k = 0; k < osim.coordinates.size(); ++k) {
        const int j = model.nvBase() + osim.coordinates[k].joint.value;
        q[f].joints[osim.coordinates[k].joint.value] = ct.q(f, static_cast<Eigen::Index>(k));
        d.velocity[f](j) = ct.qd(f, static_cast<Eigen::Index>(k));
        tau[f](j) = t(static_cast<Eigen::Index>(k));
      }
    }
  } else {
    if (options.lowpass_hz > 0.0) q = lowPassMotion(model, q, motion.times, options.lowpass_hz);
    d = differentiate(model, q, motion.times);
    tau = inverseDynamics(model, q, d, osim.gravity);
  }

  MuscleForceOptions fo = options.forces;
  fo.warm_start = false;  // frames independent of each other: any split across threads, same bytes
  out.names = MuscleForceSolver(paths, fo).names();
  for (const io::OpenSimCoordinate& c : osim.coordinates)
    if (!c.locked) out.coordinates.push_back(c.name);
  std::vector<int> keep;
  for (int f = 0; f < static_cast<int>(times.size()); ++f)
    if (times[f] >= options.time_start - 1e-9 && times[f] <= options.time_end + 1e-9) keep.push_back(f);
  const int n = static_cast<int>(keep.size());
  out.control.resize(n, static_cast<Eigen::Index>(out.names.size()));
  out.force.resizeLike(out.control);
  out.residual.resize(n, static_cast<Eigen::Index>(out.coordinates.size()));
  out.feasible.assign(static_cast<std::size_t>(n), 1);
  for (int r = 0; r < n; ++r) out.times.push_back(times[keep[r]]);

  // Frames [begin, end) with a solver of their own; rows written in place.
  std::atomic<int> done{0};
  auto block = [&](int begin, int end, bool report) {
    MuscleForceSolver solver(paths, fo);
    MusclePathData data(*paths);
    FrameForces ff;
    for (int r = begin; r < end; ++r) {
      const int f = keep[r];
      solver.solve(q[f], d.velocity[f], tau[f], data, ff);
      out.control.row(r) = ff.control.transpose();
      out.force.row(r) = ff.force.transpose();
      int c = 0;
      for (const io::OpenSimCoordinate& k : osim.coordinates)
        if (!k.locked) out.residual(r, c++) = ff.residual(model.nvBase() + k.joint.value);
      out.feasible[static_cast<std::size_t>(r)] = ff.feasible ? 1 : 0;
      const int total = done.fetch_add(1) + 1;
      if (report && progress) progress(total, n);
    }
  };
  const int threads = std::max(1, std::min(n, resolveThreads(options.threads)));
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  const auto bound = [&](int t) { return static_cast<int>(static_cast<long>(n) * t / threads); };
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([&, t] {
      try {
        block(bound(t), bound(t + 1), false);
      } catch (...) {
        errors[static_cast<std::size_t>(t)] = std::current_exception();
      }
      releaseThreadSolverMemory();  // block's solver is gone; GLPK's environment of this thread too
    });
  try {
    block(0, bound(1), true);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  if (progress) progress(n, n);
  return out;
}

io::MotTable toTable(const MuscleTrialResult& r, bool forces, const std::string& title) {
  io::MotTable t;
  t.name = title;
  t.columns = r.names;
  t.times = r.times;
  t.values = forces ? r.force : r.control;
  t.in_degrees = false;
  return t;
}

io::MotTable residualTable(const MuscleTrialResult& r) {
  io::MotTable t;
  t.name = "Residuals";
  for (const std::string& c : r.coordinates) t.columns.push_back(c + "_residual");
  t.times = r.times;
  t.values = r.residual;
  return t;
}

}  // namespace kinetrack::muscles
