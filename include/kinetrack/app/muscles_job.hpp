#pragma once
// `kinetrack muscles static-opt|qp|lp` as a job (docs/muscles.md): the muscle activations and
// forces that realise a motion of an OpenSim model: OpenSim's static optimisation (min Σ a²,
// Thelen 2003 muscle physiology) or the Nakamura Eq. 13 QP (min Σ f²) / LP (min Σ f), from an
// AnalyzeTool setup or options, with external loads and reserve actuators. activation.sto,
// force.sto and residuals.sto in OpenSim's layout; the RMS against a reference activation file.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/muscles/muscle_trial.hpp"

namespace kinetrack::app {

struct MusclesOptions {
  muscles::Method method = muscles::Method::StaticOptimization;
  std::string model, motion;            ///< .osim with muscles; coordinates (.mot/.sto); default: the setup's
  std::string setup;                    ///< OpenSim AnalyzeTool setup with a StaticOptimization analysis
  std::string loads;                    ///< ExternalLoads (else the setup's): then OpenSim's ID pipeline gives τ
  std::vector<std::string> force_sets;  ///< force-set files with CoordinateActuators (reserves)
  std::vector<std::pair<std::string, double>> reserves;  ///< coordinate, optimal force (N or N m)
  std::optional<double> lowpass;                         ///< Hz (≤ 0: none); default the setup's, else none
  std::optional<double> start, end;                      ///< s; default the setup's range, else the motion's
  int threads = 0;                                       ///< frames split across (0: one per hardware thread)
  std::string out;        ///< output directory for activation.sto, force.sto, residuals.sto (empty: none)
  std::string reference;  ///< OpenSim activation .sto to compare with
};

/// "static-opt", "qp", "lp"; throws InvalidArgument otherwise.
muscles::Method parseMuscleMethod(const std::string& name);
/// "COORDINATE=OPTIMAL_FORCE" (the CLI's --reserve); throws InvalidArgument.
std::pair<std::string, double> parseReserve(const std::string& text);

struct MusclesResult {
  muscles::MuscleTrialResult trial;  ///< times, names (muscles, then actuators), control, force, residual, feasible
  io::MotTable activation;           ///< activations (forces over F_max for qp/lp), OpenSim's layout
  int muscles = 0;
  std::string model, motion;  ///< as resolved from the options and the setup
  /// Per column: RMS against the reference (NaN: not in it, or no overlap).
  std::vector<double> reference_rms;
  std::string text;  ///< the summary as printed (without the wall time)
  double wall_seconds = 0;
  int threads = 0;  ///< threads used
};

/// Runs `kinetrack muscles …`: progress per frame. Throws InvalidArgument / ParseError.
MusclesResult runMuscles(const MusclesOptions& options, const Reporter& reporter = {});

}  // namespace kinetrack::app
