#pragma once
// Shared pieces of the `kinetrack` command-line tool: exit codes, the deferred-action pattern
// used by every subcommand, model loading from a built-in name or a URDF path, and small
// formatting helpers. The library never prints; everything shown to the user is decided here.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::cli {

/// Exit codes: 0 success, 1 an internal failure (a bug, a failed self-check), 2 bad input
/// (command line, model name, file contents), in the spirit of getopt-based Unix tools.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

/// Bad command-line input detected by the CLI itself (not by CLI11 or the library), e.g. a
/// malformed --joint NAME=VALUE. Reported like library input errors, with exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a subcommand does once the command line parsed: CLI11 callbacks only store one of
/// these, main() runs it inside its error handling (so library exceptions never cross CLI11).
using Action = std::function<int()>;

/// Registers `kinetrack model {info, export, fk}` on `app`; the parsed subcommand sets `action`.
void addModelCommands(CLI::App& app, Action& action);
/// Registers `kinetrack demo` on `app`.
void addDemoCommand(CLI::App& app, Action& action);
/// Registers `kinetrack experiment convergence` (experiment_command.cpp).
void addExperimentCommand(CLI::App& app, Action& action);
/// Registers `kinetrack track` (track_command.cpp).
void addTrackCommand(CLI::App& app, Action& action);
/// Registers `kinetrack retarget` (retarget_command.cpp).
void addRetargetCommand(CLI::App& app, Action& action);
/// Registers `kinetrack dynamics filter` (dynamics_filter_command.cpp) under `dynamics`.
void addDynamicsFilterCommand(CLI::App& dynamics, Action& action);
/// Registers `kinetrack dynamics id` (dynamics_command.cpp).
void addDynamicsCommand(CLI::App& app, Action& action);
/// Registers `kinetrack simulate` (simulate_command.cpp).
void addSimulateCommand(CLI::App& app, Action& action);
/// Registers `kinetrack markers ik` (markers_command.cpp).
void addMarkersCommand(CLI::App& app, Action& action);
/// Registers `kinetrack hand track` (hand_command.cpp).
void addHandCommand(CLI::App& app, Action& action);
/// Registers `kinetrack view` (view_command.cpp).
void addViewCommand(CLI::App& app, Action& action);
/// Registers `kinetrack serve` and `kinetrack replay` (serve_command.cpp).
void addServeCommands(CLI::App& app, Action& action);
/// Registers `kinetrack batch` (batch_command.cpp).
void addBatchCommand(CLI::App& app, Action& action);
/// Registers `kinetrack muscles static-opt|qp|lp` (muscles_command.cpp).
void addMusclesCommand(CLI::App& app, Action& action);
/// Registers `kinetrack c3d info|export` (c3d_command.cpp).
void addC3dCommand(CLI::App& app, Action& action);
/// Registers `kinetrack emg envelope` (emg_command.cpp).
void addEmgCommand(CLI::App& app, Action& action);
/// Registers `kinetrack gait` (gait_command.cpp).
void addGaitCommand(CLI::App& app, Action& action);
/// Registers `kinetrack scale` (scale_command.cpp).
void addScaleCommand(CLI::App& app, Action& action);
void addImuCommand(CLI::App& app, Action& action);

/// Which model to load (a built-in name or a URDF path) and the loaded model: the library's
/// model registry (kinetrack/io/model/model_source.hpp).
using io::LoadedModel;
using io::ModelSpec;

/// io::loadModel(spec), printing the URDF warnings to stderr ("kinetrack: warning: …"). Throws
/// as io::loadModel, except UsageError for --height or --mass with a URDF file.
LoadedModel loadModelAndWarn(const ModelSpec& spec);

/// The help text of --mass (body mass of a built-in model, kg).
inline constexpr const char* kMassHelp = "body mass of a built-in model (kg, 20 to 300; default 73)";

/// A one-line progress bar on stderr, drawn only when stderr is a terminal and `enabled`:
/// "[#####     ]  50%  <unit> 12/24  <label>" (items done / total, what runs now), redrawn at most
/// every 100 ms unless a label is given, ended with a newline once every item is done.
class ProgressBar {
 public:
  ProgressBar(int total, bool enabled, std::string unit = "frame");
  /// `done` items of the total are finished; `label` names the one running now.
  void update(int done, std::string_view label = {});
  [[nodiscard]] int total() const { return total_; }

 private:
  int total_;
  bool enabled_;
  std::string unit_;
  std::chrono::steady_clock::time_point last_{};
};

/// What a command prints: to stdout (printOut, out) or stderr (printErr, after flushing stdout).
void printOut(std::string_view text);
void printErr(std::string_view text);
template <typename... T>
void out(fmt::format_string<T...> format, T&&... args) {
  printOut(fmt::format(format, std::forward<T>(args)...));
}

/// The reporter of a job run from the command line: a ProgressBar of `unit`s on stderr (when
/// `progress` and stderr is a terminal), notes printed to stdout, warnings to stderr
/// ("kinetrack: warning: …").
app::Reporter cliReporter(bool progress, const std::string& unit = "frame");

/// Parses a whole string as a finite double ("1e-3", "-0.5"); throws UsageError naming `what`.
double parseFiniteDouble(std::string_view text, std::string_view what);

}  // namespace kinetrack::cli
