#pragma once
// `kinetrack gait`: a gait lab's day in one command — a generic OpenSim model scaled on the static
// trial (OpenSim's Scale tool, when a setup is given), marker IK of the trial, inverse dynamics
// with the force plates on the feet, muscle forces (static optimisation, or the QP / LP), the EMG
// envelopes beside them — each stage the job of its own command, OpenSim's files in one directory
// and a table of what each stage took and found.
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/app/emg_job.hpp"
#include "kinetrack/app/inverse_dynamics_job.hpp"
#include "kinetrack/app/job.hpp"
#include "kinetrack/app/marker_ik_job.hpp"
#include "kinetrack/app/muscles_job.hpp"
#include "kinetrack/app/scale_job.hpp"

namespace kinetrack::app {

struct GaitOptions {
  std::string model;         ///< generic .osim (scaled when scale_setup is given), else the subject's
  std::string scale_setup;   ///< Setup_Scale.xml ("" : the model is used as it is)
  std::string static_trial;  ///< .trc/.c3d for scaling (default: the setup's)
  std::string marker_set;    ///< marker-set file replacing the model's markers before scaling (default: the setup's)
  std::string trial;         ///< the trial: .trc/.c3d
  std::string ik_setup;      ///< Setup_IK.xml: marker weights, coordinate tasks, time range (optional)
  /// ExternalLoads XML or a C3D; default: the trial itself when it is a C3D with force plates.
  std::string loads;
  std::string muscles = "static-opt";  ///< static-opt | qp | lp | none
  /// Reserve actuators COORDINATE=OPTIMAL_FORCE; empty and no force set: every coordinate gets
  /// one of 1 (N or N m), so every frame is feasible and the reserves show what muscles lack.
  std::vector<std::pair<std::string, double>> reserves;
  std::vector<std::string> force_sets;                        ///< force-set files with CoordinateActuators
  double cutoff = 6.0;                                        ///< Hz: low-pass of the coordinates for ID and muscles
  double time_start = std::nan(""), time_end = std::nan("");  ///< s; NaN: the IK setup's, else the trial's
  std::string emg;                        ///< .c3d/.anc with EMG (default: the trial when it is a C3D)
  std::vector<std::string> emg_channels;  ///< EMG channel labels (none: no EMG stage)
  std::string emg_side = "r";             ///< the side the EMG electrodes were on (r or l)
  /// CHANNEL=MUSCLE pairs; channels not named are matched by their usual abbreviations (SOL →
  /// soleus, GAS → medial gastrocnemius, TA, MH, BF, VL, VM, RF, GMAX, GMED, …) to a muscle of
  /// the model on emg_side.
  std::vector<std::string> emg_map;
  std::string out;  ///< output directory (required)
  int threads = 0;  ///< muscles: frames across threads (0: all cores)
};

/// One stage: what ran, how long it took, its key figure, the file it wrote.
struct GaitStage {
  std::string name, detail, file;
  double seconds = 0.0;
};

struct GaitResult {
  std::vector<GaitStage> stages;
  std::optional<ScaleResult> scale;
  MarkerIkResult ik;
  std::optional<InverseDynamicsResult> id;
  std::optional<MusclesResult> muscles;
  std::optional<EmgJobResult> emg;
  std::vector<std::pair<std::string, std::string>> emg_muscles;  ///< EMG channel → model muscle ("" unmatched)
  std::string model;  ///< the model the trial ran on (the scaled one when scaled)
  std::string text;   ///< the summary as printed
  double wall_seconds = 0.0;
};

/// Runs the stages in order, each writing into options.out (scaled.osim, static_pose.mot, ik.mot,
/// ik_errors.sto, id.sto, muscles/, emg.sto, emg_onoff.csv: channel, muscle, on, off, and
/// stages.csv: stage, seconds, result). Throws what the stage that fails throws, naming it.
GaitResult runGait(const GaitOptions& options, const Reporter& reporter = {});

/// The model muscle an EMG channel records, by its usual abbreviation (SOL, GAS/MG, LG, TA, MH/ST,
/// SM, BF, VL, VM, RF, GMAX, GMED, …) among `muscles` on `side`; "" when none matches.
std::string emgMuscle(const std::string& channel, const std::vector<std::string>& muscles, const std::string& side);

}  // namespace kinetrack::app
