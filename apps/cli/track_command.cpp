// `kinetrack track`: a recorded capture (BVH, MVNX, pose-target CSV) tracked onto a model with
// DYN; one joint-trajectory row per input frame, a summary table and optional summary JSON,
// MOT and BVH outputs.
#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "sparse_track.hpp"
#include "track_job.hpp"
#include "track_report.hpp"

namespace kinetrack::cli {
namespace {

io::BvhUnits parseUnits(const std::string& u) {
  try {
    return io::parseBvhUnits(u);
  } catch (const InvalidArgument&) {
    throw UsageError("--units: expected auto, m, cm, in or cmu, got '" + u + "'");
  }
}

}  // namespace

TrackJobResult trackInput(const TrackConfig& cfg, const Model* loaded) {
  const auto start = std::chrono::steady_clock::now();
  track::CaptureOptions co;
  co.units = parseUnits(cfg.units);
  co.rate = cfg.rate;
  const track::Capture capture = track::loadCapture(cfg.input, co);

  track::TrackSetup setup;
  if (cfg.model.model == "from-clip") {
    if (!capture.bvh) throw UsageError("--model from-clip needs a BVH input");
    setup = track::setupFromClip(capture, co.units, cfg.rate <= 0.0);  // re-timed: no truth
  } else {
    track::PlanOptions po;
    po.calibration = cfg.calibration;
    setup = track::setupOnModel(loaded != nullptr ? *loaded : loadModelAndWarn(cfg.model).model, capture, cfg.map, po);
  }

  if (!cfg.targets.empty() || !cfg.prior.empty()) {
    if (cfg.targets.empty()) throw UsageError("--prior needs --targets (e.g. --targets head,hands)");
    TrackJobResult sparse;
    sparse.status = runSparseTrackJob(
        setup, capture, {cfg.input, cfg.output.out, cfg.targets, cfg.prior, cfg.sparse_solver, cfg.output.quiet});
    return sparse;
  }
  track::TrackerOptions to;
  to.kappa = cfg.kappa;
  to.max_step_rotation = cfg.max_step_deg * M_PI / 180.0;
  to.max_substeps = cfg.max_substeps;
  setSolver(to, cfg.solver, cfg.threads);
  return runTrackJob(setup.model, capture, setup.plan, to, cfg.output, cfg.input,
                     setup.truth.empty() ? nullptr : &setup.truth, setup.skipped, setup.unmapped, start);
}

void addTrackCommand(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<TrackConfig>();
  CLI::App* cmd = app.add_subcommand("track", "track a capture (BVH, MVNX, pose-target CSV) onto a model with DYN");
  cmd->add_option("--model", cfg->model.model,
                  "built-in model (human66, human48), URDF path, or from-clip (BVH skeleton)")
      ->required();
  cmd->add_option("--height", cfg->model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", cfg->model.mass, kMassHelp);
  cmd->add_option("--input", cfg->input, "capture file: .bvh, .mvnx, or .csv pose targets (docs/formats.md)")
      ->required();
  cmd->add_option("--out", cfg->output.out,
                  "joint trajectory CSV: time, base position, base quaternion (w,x,y,z), joints, gap")
      ->required();
  cmd->add_option("--summary-json", cfg->output.summary_json, "write the run's summary as JSON");
  cmd->add_option("--bvh-out", cfg->output.bvh_out, "write the tracked motion of the model as BVH (Blender)");
  cmd->add_option("--mot-out", cfg->output.mot_out, "write the joint trajectories as an OpenSim MOT file");
  cmd->add_option("--map", cfg->map,
                  "segment map: auto (default), a built-in map name, or a JSON file (docs/segment_maps.md)");
  cmd->add_option("--calibration", cfg->calibration,
                  "calibration pose: none, first, frame:N, rest (BVH), identity|npose|tpose (MVNX); default first "
                  "(BVH), npose (MVNX), none (CSV)");
  cmd->add_option(
         "--solver", cfg->solver,
         "dynamical (DYN, default), wholebody (per-frame Levenberg-Marquardt), wholebody-ipopt (per-frame Ipopt), "
         "pairwise (per-frame, one subsystem per pair of adjacent targets, on a thread pool)")
      ->capture_default_str();
  cmd->add_option("--threads", cfg->threads, "threads of --solver pairwise (0 = one per hardware thread)")
      ->capture_default_str();
  cmd->add_option("--kappa", cfg->kappa,
                  "DYN per-step gain kappa = K*dt of every target, 0 < kappa < 2 (1 = dead-beat); "
                  "--gain elsewhere is K in 1/s")
      ->capture_default_str();
  cmd->add_option("--rate", cfg->rate, "frame rate of the input (Hz), replacing the file's frame times");
  cmd->add_option("--units", cfg->units, "BVH length unit: auto, m, cm, in, cmu")->capture_default_str();
  cmd->add_option("--transient", cfg->output.transient, "seconds excluded from the accuracy statistics")
      ->capture_default_str();
  cmd->add_option("--max-step-deg", cfg->max_step_deg,
                  "largest target rotation per solver step (sub-stepping), degrees")
      ->capture_default_str();
  cmd->add_option("--max-substeps", cfg->max_substeps, "largest number of solver steps per frame")
      ->capture_default_str();
  cmd->add_flag("--quiet", cfg->output.quiet, "no progress bar");
  cmd->add_option("--targets", cfg->targets,
                  "track from these targets only (head, hands, feet, pelvis or frame names, comma-separated) with "
                  "gradient-projection IK (docs/gpm.md)");
  cmd->add_option("--prior", cfg->prior, "with --targets: a prior file (`kinetrack prior build`) in the null space");
  cmd->add_option("--sparse-solver", cfg->sparse_solver,
                  "with --targets: dyn (DYN, the prior as its posture term) or gp (gradient projection)")
      ->check(CLI::IsMember({"dyn", "gp"}))
      ->capture_default_str();
  cmd->callback([&action, cfg] { action = [cfg] { return trackInput(*cfg).status; }; });
}

}  // namespace kinetrack::cli
