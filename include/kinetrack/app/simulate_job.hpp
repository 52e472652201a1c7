#pragma once
// `kinetrack simulate` as a job (SPEC §5): forward simulation of a model, ABA for an open tree or
// the assembly–disassembly forward dynamics when frames are held (loop closures to the world: a
// figure on a bar), holds released at given times (Nakamura Fig. 4), a random initial velocity
// projected onto what the holds allow, PD control holding the initial posture. The joint CSV
// `kinetrack track` writes, energy, momentum, closure errors and hold forces.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/core/types.hpp"
#include "kinetrack/model/configuration.hpp"

namespace kinetrack::app {

/// A frame held where it is at the start, let go at `release` s (infinity: never).
struct HoldSpec {
  std::string frame;
  double release = std::numeric_limits<double>::infinity();
};
/// "FRAME" or "FRAME@T" (the CLI's --hold); throws InvalidArgument for a bad or negative time.
HoldSpec parseHold(const std::string& text);

struct SimulateOptions {
  io::ModelSpec model;                               ///< built-in model or URDF with inertials
  double duration = 2.0, step = 1e-3, rate = 100.0;  ///< s, s, output rows per second
  std::string integrator = "rk4";                    ///< rk4 | euler (semi-implicit)
  double gravity = 9.80665;                          ///< along −z, m/s²
  std::string initial = "zero";  ///< zero | random (within the limits) | a joint CSV (its first row)
  double base_height = 0.0;      ///< added to the initial base height (m)
  double velocity = 0.0;         ///< random initial velocity, standard deviation per coordinate
  unsigned seed = 1;
  std::vector<HoldSpec> holds;
  double posture_gain = 0.0;        ///< PD to the initial posture, natural frequency (rad/s)
  std::string solver = "auto";      ///< auto (assembly with holds, else ABA) | aba | assembly
  std::string schedule = "serial";  ///< assembly schedule: serial | parallel
  int threads = 1, refine = 1;
  std::string out;  ///< joint CSV (empty: not written)
};

struct SimulateResult {
  std::shared_ptr<const Model> model;  ///< the model simulated
  std::string model_name;
  int dof = 0;
  double mass = 0;
  bool assembly = false;
  std::vector<double> times;  ///< the output rows
  std::vector<Configuration> q;
  std::vector<double> energy_change;  ///< J, per output row
  std::vector<double> hold_drift;     ///< m, largest while held so far, per output row
  long steps = 0;                     ///< good steps
  double step_us_median = 0, step_us_p95 = 0, step_us_max = 0;
  double energy_start = 0, energy_end = 0, momentum_change = 0;  ///< J, J, relative
  std::vector<double> hold_force_z;                              ///< per hold, mean vertical force while held (N)
  double worst_gap = 0, worst_rotation = 0;
  std::string diverged;  ///< why the run stopped early (empty: it did not)
  long rows_written = 0;
  double wall_seconds = 0;
};

/// Runs `kinetrack simulate`: progress counts steps, a note at each release. A run that diverges
/// (non-finite state, a hold drifting > 1 cm) ends early with `diverged` set and the rows so far
/// written. Throws InvalidArgument for bad options.
SimulateResult runSimulate(const SimulateOptions& options, const Reporter& reporter = {});
/// The summary as printed (or the divergence's explanation, for stderr, when it diverged).
std::string summaryText(const SimulateResult& r, const SimulateOptions& options);
/// time,energy_change,hold_drift per output row (the plot's data).
std::string energyCsv(const SimulateResult& r);

}  // namespace kinetrack::app
