#pragma once
// The command-line options of the jobs a batch row runs (`retarget`, `markers ik`, `hand track`,
// `dynamics id`, `gait`, `imu ik`) and of the jobs whose options the CLI only declares (`imu place`,
// `serve`), declared once on a CLI11 command: `kinetrack <command>` declares them (adding
// its own --plot… through `extra`) and the batch parses a row's arguments with them
// (app::runCommandLine, batch.hpp). Not installed: CLI11 is a build dependency of the library
// only (linked PRIVATE), its types never cross an installed header.
//
// Each function declares, on `cmd`, the options in the order `kinetrack <command> --help` lists
// them, filling `options` as CLI11 parses; `quiet` gets --quiet ("no progress bar", always last:
// the batch passes it on every row). `extra` (optional) declares the caller's own options at their
// place in that list (given below); a parse without them refuses them as unexpected arguments.
// Values a job checks itself (files, names) are not checked here; a value that cannot be parsed
// (a frame range) is a CLI::ValidationError naming the option, as CLI11's own parse errors.
#include <CLI/CLI.hpp>
#include <functional>

#include "kinetrack/app/gait_job.hpp"
#include "kinetrack/app/hand_job.hpp"
#include "kinetrack/app/imu_job.hpp"
#include "kinetrack/app/inverse_dynamics_job.hpp"
#include "kinetrack/app/marker_ik_job.hpp"
#include "kinetrack/app/serve_job.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/app/view_job.hpp"

namespace kinetrack::app {

/// Declares a front end's own options on a command (e.g. the CLI's --plot).
using ExtraOptions = std::function<void(CLI::App& cmd)>;

/// `kinetrack retarget`: --robot, --input, --out … --mot-out, `extra`, --transient, --quiet.
void addRetargetOptions(CLI::App& cmd, RetargetOptions& options, bool& quiet, const ExtraOptions& extra = {});
/// `kinetrack markers ik`: --model … --marker-axes, `extra`, --quiet.
void addMarkerIkOptions(CLI::App& cmd, MarkerIkOptions& options, bool& quiet, const ExtraOptions& extra = {});
/// `kinetrack hand track`: --input … --errors, `extra`, --quiet. --calibration-frames FIRST:END
/// (0-based, END excluded, empty END: to the last frame) fills options.calibration_frames.
void addHandTrackOptions(CLI::App& cmd, HandTrackOptions& options, bool& quiet, const ExtraOptions& extra = {});
/// `kinetrack dynamics id`: --model … --com-offset, `extra`, --degrees, --start, --end, --quiet.
void addInverseDynamicsOptions(CLI::App& cmd, InverseDynamicsOptions& options, bool& quiet,
                               const ExtraOptions& extra = {});

/// `kinetrack gait`: --model … --threads, `extra`, --quiet; --reserve COORDINATE=FORCE strings go
/// to `reserves` (parseReserve turns each into the options').
void addGaitOptions(CLI::App& cmd, GaitOptions& options, std::vector<std::string>& reserves, bool& quiet,
                    const ExtraOptions& extra = {});

/// `kinetrack serve`: the job's options, --model … --duration (the CLI adds its latency file and
/// plot).
void addServeOptions(CLI::App& cmd, ServeOptions& options);
/// `kinetrack imu place`: --setup … --rotations, --quiet ("no stage notes").
void addImuPlaceOptions(CLI::App& cmd, ImuPlaceOptions& options, bool& quiet);
/// `kinetrack imu ik`: --setup … --summary-json, `extra`, --quiet. --rotations "X Y Z" (rad) and
/// --weight IMU=W (repeatable) are parsed into the options.
void addImuIkOptions(CLI::App& cmd, ImuIkOptions& options, bool& quiet, const ExtraOptions& extra = {});

/// `kinetrack view`: --model … --out, the layers (--markers, --loads, --muscle-values,
/// --no-muscles, --person), the still (--png T, --png-file, --size WxH, --layers), --quiet.
void addViewOptions(CLI::App& cmd, ViewOptions& options, bool& quiet);

}  // namespace kinetrack::app
