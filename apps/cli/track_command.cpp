// `kinetrack track`: a recorded capture (BVH, MVNX, pose-target CSV) tracked onto a model with
// DYN; one joint-trajectory row per input frame, a summary table and optional summary JSON,
// MOT and BVH outputs.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "cli_common.hpp"
#include "kinetrack/app/prior_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "track_command.hpp"

namespace kinetrack::cli {

int runTrackCommand(const TrackConfig& cfg) {
  const app::TrackOptions& o = cfg.job;
  if (!cfg.targets.empty() || !cfg.prior.empty()) {
    if (cfg.targets.empty()) throw UsageError("--prior needs --targets (e.g. --targets head,hands)");
    if (o.files.joints.empty()) throw UsageError("--out is required");
    const app::SparseTrackOptions so{o, cfg.targets, cfg.prior, cfg.sparse_solver};
    const app::SparseTrackResult r = app::runSparseTrack(so, cliReporter(!cfg.quiet));
    out("{}", app::summaryText(r, so));
    return kExitOk;
  }
  const app::TrackResult r = app::runTrack(o, cliReporter(!cfg.quiet));
  out("{}{}", app::summaryText(r), app::wroteLine(r, o.files));
  return r.exitStatus();
}

void addTrackCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<TrackConfig>();
  CLI::App* cmd = app.add_subcommand("track", "track a capture (BVH, MVNX, pose-target CSV) onto a model with DYN");
  cmd->add_option("--model", cfg->job.model.model,
                  "built-in model (human66, human48), URDF path, or from-clip (BVH skeleton)")
      ->required();
  cmd->add_option("--height", cfg->job.model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", cfg->job.model.mass, kMassHelp);
  cmd->add_option("--input", cfg->job.input, "capture file: .bvh, .mvnx, or .csv pose targets (docs/formats.md)")
      ->required();
  cmd->add_option("--out", cfg->job.files.joints,
                  "joint trajectory CSV: time, base position, base quaternion (w,x,y,z), joints, gap")
      ->required();
  cmd->add_option("--summary-json", cfg->job.files.summary_json, "write the run's summary as JSON");
  cmd->add_option("--bvh-out", cfg->job.files.bvh, "write the tracked motion of the model as BVH (Blender)");
  cmd->add_option("--mot-out", cfg->job.files.mot, "write the joint trajectories as an OpenSim MOT file");
  cmd->add_option("--map", cfg->job.map,
                  "segment map: auto (default), a built-in map name, or a JSON file (docs/segment_maps.md)");
  cmd->add_option("--calibration", cfg->job.calibration,
                  "calibration pose: none, first, frame:N, rest (BVH), identity|npose|tpose (MVNX); default first "
                  "(BVH), npose (MVNX), none (CSV)");
  cmd->add_option(
         "--solver", cfg->job.solver,
         "dynamical (DYN, default), wholebody (per-frame Levenberg-Marquardt), wholebody-ipopt (per-frame Ipopt), "
         "pairwise (per-frame, one subsystem per pair of adjacent targets, on a thread pool)")
      ->capture_default_str();
  cmd->add_option("--threads", cfg->job.threads, "threads of --solver pairwise (0 = one per hardware thread)")
      ->capture_default_str();
  cmd->add_option("--kappa", cfg->job.kappa,
                  "DYN per-step gain kappa = K*dt of every target, 0 < kappa < 2 (1 = dead-beat); "
                  "--gain elsewhere is K in 1/s")
      ->capture_default_str();
  cmd->add_option("--rate", cfg->job.rate, "frame rate of the input (Hz), replacing the file's frame times");
  cmd->add_option("--units", cfg->job.units, "BVH length unit: auto, m, cm, in, cmu")->capture_default_str();
  cmd->add_option("--transient", cfg->job.transient, "seconds excluded from the accuracy statistics")
      ->capture_default_str();
  cmd->add_option("--max-step-deg", cfg->job.max_step_deg,
                  "largest target rotation per solver step (sub-stepping), degrees")
      ->capture_default_str();
  cmd->add_option("--max-substeps", cfg->job.max_substeps, "largest number of solver steps per frame")
      ->capture_default_str();
  cmd->add_flag("--quiet", cfg->quiet, "no progress bar");
  cmd->add_option("--targets", cfg->targets,
                  "track from these targets only (head, hands, feet, pelvis or frame names, comma-separated) with "
                  "gradient-projection IK (docs/gpm.md)");
  cmd->add_option("--prior", cfg->prior, "with --targets: a prior file (`kinetrack prior build`) in the null space");
  cmd->add_option("--sparse-solver", cfg->sparse_solver,
                  "with --targets: dyn (DYN, the prior as its posture term) or gp (gradient projection)")
      ->check(CLI::IsMember({"dyn", "gp"}))
      ->capture_default_str();
  cmd->callback([&action, cfg] { action = [cfg] { return runTrackCommand(*cfg); }; });
}

}  // namespace kinetrack::cli
