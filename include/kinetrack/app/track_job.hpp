#pragma once
// The tracking jobs: `kinetrack track` (a capture onto a model), `kinetrack retarget` (human motion
// onto a robot or an OpenSim model) and `kinetrack demo` (the built-in synthetic walk), for the
// CLI, Python, batch and the server alike. Each returns the tracked motion, the per-frame record
// and the summary as data, and writes the files asked for (the joint CSV last, so a failure
// leaves no complete-looking output); the summary's JSON and text are writers beside them.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/model/collision_proxy.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/track/foot_contact.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/retarget_quality.hpp"
#include "kinetrack/track/robot_motion.hpp"
#include "kinetrack/track/segment_pairs.hpp"

namespace kinetrack::app {

/// The files a tracking job writes; an empty path is not written.
struct TrackFiles {
  std::string joints;        ///< joint CSV: time, base position, base quaternion (w,x,y,z), joints, gap
  std::string summary_json;  ///< the summary (summaryJson)
  std::string bvh;           ///< the tracked motion of the model as BVH
  std::string mot;           ///< the joint trajectories as an OpenSim MOT table (motTable)
  bool timing = true;        ///< step_us_* in the summary JSON (batch: off, so outputs are reproducible)
};

/// What a tracking job produced.
struct TrackResult {
  std::shared_ptr<const Model> model;  ///< the model tracked on (a robot prepared for retargeting, a from-clip model)
  std::string input;                   ///< the capture's path (or source)
  std::vector<Configuration> q;        ///< one configuration per input frame (held at gaps)
  track::TrackRecord record;           ///< per frame: times, MNTE, RMSE, limit excess, step µs, gap, status
  track::TrackSummary summary;
  std::size_t targets = 0;            ///< targets bound to model frames
  std::vector<std::string> skipped;   ///< map entries without a model frame ("segment -> frame")
  std::vector<std::string> unmapped;  ///< clip segments the map does not name
  long rows_written = 0;              ///< rows of the joint CSV (0 when none was asked for)
  /// Retargeting: the person's foot contacts and the quality figures (assessRetargeting).
  std::optional<track::FootContacts> contacts;
  std::optional<track::RetargetQuality> quality;
  /// Retargeting: the motion for robot-learning pipelines (track::robotMotion).
  std::optional<track::RobotMotion> motion;
  double seconds = 0.0;  ///< wall time of the whole job, I/O included
  /// 0, or 1 when a step was non-finite (the CLI's exit status).
  [[nodiscard]] int exitStatus() const { return summary.non_finite > 0 ? 1 : 0; }
};

/// `kinetrack track`: everything of its command line but presentation.
struct TrackOptions {
  io::ModelSpec model;               ///< built-in name, model file, or "from-clip" (the BVH's own skeleton)
  std::string input;                 ///< capture: .bvh, .mvnx, or .csv pose targets
  std::string map;                   ///< segment map: "" (auto), a built-in name or a JSON file
  std::string calibration;           ///< "", none, first, frame:N, rest, identity|npose|tpose
  std::string units = "auto";        ///< BVH length unit: auto, m, cm, in, cmu
  std::string solver = "dynamical";  ///< track::parseMethod names
  double kappa = 1.0;                ///< DYN per-step gain K·Δt
  double rate = 0.0;                 ///< Hz > 0 replaces the file's frame times
  double max_step_deg = 5.0;         ///< sub-stepping: largest target rotation per solver step
  int max_substeps = 64;
  int threads = 0;         ///< pair-wise threads (0 = one per hardware thread)
  double transient = 2.0;  ///< s excluded from the statistics
  TrackFiles files;
};

/// The Method of a solver name; throws InvalidArgument naming `flag` and the valid names.
track::Method parseSolver(const std::string& solver, const std::string& flag = "--solver");

/// The capture of options.input (units and rate applied). Throws ParseError for a bad file.
track::Capture loadTrackCapture(const TrackOptions& options);
/// The model (loaded, or `loaded`; from-clip built from the capture), its targets and truth.
track::TrackSetup setupTrack(const TrackOptions& options, const track::Capture& capture, const Reporter& reporter = {},
                             const Model* loaded = nullptr);

/// Sets the method of `solver` (parseSolver) and the pair-wise threads (0 = one per hardware
/// thread). Throws InvalidArgument for an unknown name or negative threads.
void setSolver(track::TrackerOptions& options, const std::string& solver, int threads = 0);

/// Runs `kinetrack track`. `loaded` (optional) replaces loading options.model (batch loads each
/// distinct model once, Python passes its Model); `capture` (optional) replaces reading
/// options.input. Throws InvalidArgument for bad options, ParseError for bad files.
TrackResult runTrack(const TrackOptions& options, const Reporter& reporter = {}, const Model* loaded = nullptr,
                     const track::Capture* capture = nullptr);

/// `kinetrack retarget`: human motion onto a humanoid robot or an OpenSim model.
struct RetargetOptions {
  std::string robot;        ///< URDF, .osim or built-in model
  std::string input;        ///< capture: .bvh, .mvnx
  std::string map;          ///< robot map: "" (detected, else automatic), "auto", a built-in name or a JSON file
  std::string save_map;     ///< optional: write the robot map used here (JSON, readable as `map`)
  std::string segment_map;  ///< the capture's segment map ("" = auto)
  std::string calibration;
  std::string solver = "dynamical";
  double shoulder_velocity = 2.0, torso_velocity = 1.0;  ///< iCub: rad/s
  double max_step_deg = 5.0;
  int threads = 0;
  double transient = 2.0;
  /// Hold the robot's soles on the ground while the person's feet are down (track::SoleContacts).
  bool contacts = true;
  double contact_weight = 1000.0;  ///< of the sole targets (orientation targets weigh 1)
  /// Ground and self-collision rows from the robot's collision geometry (io::collisionProxies):
  /// no point below the ground, links kept `collision_margin` apart.
  bool collisions = true;
  double collision_margin = 0.01;  ///< m kept between two links
  double root_weight = 10.0;       ///< of the root position target (track::RetargetOptions::root_position_weight)
  track::FootContactOptions contact;
  TrackFiles files;
  std::string quality_json;  ///< the quality report (track::qualityJson); "" = not written
  std::string quality_csv;   ///< its per-frame series (track::qualityCsv); "" = not written
  /// The motion for robot-learning pipelines (track::writeRobotMotion: .npz or CSV); "" = not
  /// written. `motion_rate` > 0 resamples it (Hz); the quaternion order is "xyzw" or "wxyz".
  std::string motion_out;
  double motion_rate = 0.0;
  std::string quaternion_order = "xyzw";
};

/// What `kinetrack retarget` tracks, prepared: the robot with its sole frames (an iCub with its
/// coupled shoulder rows), the capture, the plan (orientation targets, the root, the held soles),
/// the tracker's options (DYN, the robot's velocity limits as hard bounds, collision rows) and
/// what the quality report reads. track::runTracking(*model, *capture, plan, tracker, sink) runs
/// it; so do runRetarget and the benchmarks.
struct RetargetJob {
  std::shared_ptr<const Model> model;
  std::shared_ptr<const track::Capture> capture;  ///< the given one (not owned) or the file read
  track::SegmentPairs pairs;
  track::Retargeting plan;
  track::TrackerOptions tracker;
  track::FootContacts contacts;    ///< the person's foot contacts
  std::vector<track::Sole> soles;  ///< the robot's foot roles with a sole frame, and that frame
  std::vector<track::SurfacePoint> surface;
  std::vector<CollisionProxy> proxies;  ///< the robot's collision proxies (used when options.collisions)
};
RetargetJob prepareRetarget(const RetargetOptions& options, const Reporter& reporter = {}, const Model* robot = nullptr,
                            const track::Capture* capture = nullptr);

/// Runs `kinetrack retarget` (prepareRetarget, then the tracking, the quality report, the motion
/// and the files). `robot` and `capture` (optional) replace loading the files.
TrackResult runRetarget(const RetargetOptions& options, const Reporter& reporter = {}, const Model* robot = nullptr,
                        const track::Capture* capture = nullptr);

/// `kinetrack demo`: the built-in synthetic walk tracked on a built-in human from its zero pose.
struct DemoOptions {
  std::string model = "human66";
  double height = 1.75, mass = kDefaultBodyMass;  ///< m, kg
  double duration = 10.0, rate = 120.0, transient = 2.0;
  std::string out;  ///< optional joint CSV
};
struct DemoResult {
  TrackResult track;
  bool check_ok = false;  ///< joint RMS < 0.1°, MNTE p95 < 1e-4, no gaps, no non-finite step
  /// The demo's closing check line, as printed (its first line, what it tracks, is a note).
  [[nodiscard]] std::string checkLine() const;
};
DemoResult runDemo(const DemoOptions& options, const Reporter& reporter = {});

/// The summary as JSON: input, model, dof, targets, frames, gaps, transient, MNTE median/p95/max,
/// RMSE median, joint RMS (null without truth), limit and row violations, step µs p50/p99/max
/// (when `timing`), sub-steps, non-finite steps, solve status counts, map entries skipped, clip
/// segments unmapped. Text with a trailing newline.
std::string summaryJson(const TrackResult& r, bool timing = true);
/// The summary table `kinetrack track` prints (with its wall time and the "wrote …" line when a
/// joint CSV was written and `files` is given).
std::string summaryText(const TrackResult& r);
/// Joint trajectories as an OpenSim coordinate table (base as base_tx/ty/tz and XYZ-fixed angles
/// base_roll/pitch/yaw in degrees, joints in degrees; prismatic joints in m).
io::MotTable motTable(const Model& model, const std::vector<double>& times, const std::vector<Configuration>& q);
/// The joint limits of `model` as CSV (joint,lower,upper,velocity; rad, rad/s): the retarget plot's.
void writeJointLimitsCsv(const Model& model, const std::string& path);
/// "wrote a.csv (N rows), b.json, …": the files of `files` that were written.
std::string wroteLine(const TrackResult& r, const TrackFiles& files);

}  // namespace kinetrack::app
