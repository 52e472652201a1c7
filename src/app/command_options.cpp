// The options of the batch-capable commands, declared once (command_options.hpp), and the batch's
// runner of a row's command line on them (app::runCommandLine, batch.hpp).
#include "command_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <cmath>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "kinetrack/app/batch.hpp"
#include "kinetrack/app/serve_job.hpp"
#include "kinetrack/core/errors.hpp"

namespace kinetrack::app {
namespace {

constexpr const char* kMassHelp = "body mass of a built-in model (kg, 20 to 300; default 73)";

// "A:B" → frames [A, B) (B empty: to the end, as -1).
std::pair<int, int> parseFrameRange(const std::string& text) {
  auto refuse = [](const std::string& why) { throw CLI::ValidationError("--calibration-frames", why); };
  auto whole = [&](std::string_view t, int empty) {
    if (t.empty()) return empty;
    const std::string_view digits = t.front() == '+' ? t.substr(1) : t;  // from_chars rejects a leading '+'
    double v = 0.0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
      refuse("'" + std::string(t) + "' is not a number");
    if (!std::isfinite(v)) refuse("'" + std::string(t) + "' is not a finite number");
    if (v != std::floor(v) || v < 0 || v > 1e9) refuse("'" + text + "' is not FIRST:END with whole frame numbers");
    return static_cast<int>(v);
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) refuse("'" + text + "' is not FIRST:END");
  const std::string_view t(text);
  return {whole(t.substr(0, colon), 0), whole(t.substr(colon + 1), -1)};
}

void addQuiet(CLI::App& cmd, bool& quiet, const char* help = "no progress bar") {
  cmd.add_flag("--quiet", quiet, help);
}

}  // namespace

void addRetargetOptions(CLI::App& cmd, RetargetOptions& o, bool& quiet, const ExtraOptions& extra) {
  cmd.add_option("--robot", o.robot, "robot URDF (the iCub gets its coupled shoulder rows and real velocity limits)")
      ->required();
  cmd.add_option("--input", o.input, "capture file: .bvh or .mvnx")->required();
  cmd.add_option("--out", o.files.joints,
                 "robot joint trajectory CSV: time, base position, base quaternion, joints, gap")
      ->required();
  cmd.add_option("--map", o.map,
                 "robot map: human segment -> robot frame (default: the built-in map of a recognised robot "
                 "(g1_23dof, g1_29dof, h1, h1_2, icub), else auto, the map found from the robot's tree; a built-in "
                 "name or a JSON file)");
  cmd.add_option("--save-map", o.save_map, "write the robot map used (JSON, readable with --map) and show it");
  cmd.add_option("--segment-map", o.segment_map,
                 "capture skeleton map: auto (default), a built-in map name, or a JSON file");
  cmd.add_option("--calibration", o.calibration,
                 "calibration pose: first (BVH default), frame:N, rest, npose (MVNX default), ...");
  cmd.add_option("--solver", o.solver, "dynamical (default), wholebody, wholebody-ipopt, pairwise")
      ->capture_default_str();
  cmd.add_option("--threads", o.threads, "threads of --solver pairwise (0 = one per hardware thread)")
      ->capture_default_str();
  cmd.add_option("--shoulder-velocity", o.shoulder_velocity, "iCub shoulder velocity limit (rad/s)")
      ->capture_default_str();
  cmd.add_option("--torso-velocity", o.torso_velocity, "iCub torso velocity limit (rad/s)")->capture_default_str();
  cmd.add_option("--max-step-deg", o.max_step_deg, "largest target rotation per solver step, degrees")
      ->capture_default_str();
  cmd.add_option("--summary-json", o.files.summary_json, "write the run's summary as JSON");
  cmd.add_option("--bvh-out", o.files.bvh, "write the robot's motion as BVH");
  cmd.add_option("--mot-out", o.files.mot, "write the robot's joint trajectories as an OpenSim MOT file");
  cmd.add_option("--quality-json", o.quality_json,
                 "write the quality report: foot slide, ground, limits, jerk, pose agreement (JSON)");
  cmd.add_option("--quality-csv", o.quality_csv, "write the quality report's per-frame series (CSV)");
  cmd.add_option("--motion-out", o.motion_out,
                 "write root position, root quaternion and joint positions with velocities (.npz or .csv)");
  cmd.add_option("--motion-rate", o.motion_rate, "resample --motion-out at this rate (Hz; 0 = the capture's frames)")
      ->capture_default_str();
  cmd.add_option("--quat-order", o.quaternion_order, "root quaternion order of --motion-out: xyzw or wxyz")
      ->capture_default_str();
  cmd.add_flag("!--no-collisions", o.collisions,
               "no ground or self-collision rows (by default the robot's collision geometry keeps its links above "
               "the ground and apart)");
  cmd.add_option("--collision-margin", o.collision_margin, "clearance kept between two links (m)")
      ->capture_default_str();
  cmd.add_flag("!--no-contacts", o.contacts, "do not hold the robot's soles while the person's feet are down");
  cmd.add_option("--contact-weight", o.contact_weight, "weight of the held soles (orientation targets: 1)")
      ->capture_default_str();
  cmd.add_option("--root-weight", o.root_weight, "weight of the root position target (orientation targets: 1)")
      ->capture_default_str();
  if (extra) extra(cmd);
  cmd.add_option("--transient", o.transient, "seconds excluded from the accuracy statistics")->capture_default_str();
  addQuiet(cmd, quiet);
}

void addMarkerIkOptions(CLI::App& cmd, MarkerIkOptions& o, bool& quiet, const ExtraOptions& extra) {
  cmd.add_option(
      "--model", o.model,
      "OpenSim model (.osim; default: the setup's <model_file>), or a built-in model / URDF with --markerset");
  cmd.add_option("--markers", o.markers, "marker trial (.trc or .c3d); default: the setup's <marker_file>");
  cmd.add_option("--setup", o.setup,
                 "OpenSim IK setup (Setup_IK.xml): marker/coordinate tasks, time range, accuracy; files given on the "
                 "command line override the paths inside it");
  cmd.add_option("--out", o.out,
                 "output: a name ending in .csv gets the joint CSV of `kinetrack track` (what `view` and "
                 "`dynamics id` read), any other OpenSim's .mot layout (degrees); for a built-in model the joint "
                 "CSV unless the name ends in .mot");
  cmd.add_option("--markerset", o.markerset,
                 "built-in models: marker set (built-in name, e.g. human66_plugin_gait, or a JSON file)");
  cmd.add_option("--static", o.static_trial,
                 "built-in models: static trial (.c3d/.trc) to calibrate the marker offsets on first");
  cmd.add_option("--vsk", o.vsk, "built-in models: Vicon subject file (.vsk) giving Height and Bodymass");
  cmd.add_option("--height", o.height, "built-in models: body height (m; default the .vsk's, else 1.75)");
  cmd.add_option("--mass", o.mass, kMassHelp);
  cmd.add_option("--errors", o.errors, "marker-error table (.sto: total squared error, RMS, max per frame)");
  cmd.add_option("--summary-json", o.summary_json, "write the run's summary as JSON");
  cmd.add_option("--start", o.time_start, "first time (s); default: the setup's time range, else the trial's");
  cmd.add_option("--end", o.time_end, "last time (s)");
  cmd.add_option("--marker-axes", o.marker_axes, "axes of the marker file: auto (TRC y-up, C3D z-up), y-up, z-up")
      ->check(CLI::IsMember({"auto", "y-up", "z-up"}));
  if (extra) extra(cmd);
  addQuiet(cmd, quiet);
}

void addHandTrackOptions(CLI::App& cmd, HandTrackOptions& o, bool& quiet, const ExtraOptions& extra) {
  cmd.add_option("--input", o.input, "Qualisys QTM TSV export (hand triad, per digit a tip and a middle marker)")
      ->required();
  cmd.add_option("--out", o.out, "joint CSV of the hand model, one row per frame (gap = 1 when the triad is lost)")
      ->required();
  cmd.add_option("--summary-json", o.summary_json, "write the summary as JSON");
  cmd.add_flag("--use-middle-markers", o.use_middle,
               "also target the middle markers (default: tips only, middle markers held out for validation)");
  cmd.add_flag("--compare-lm", o.compare_lm, "also run marker IK (bounded LM) on the same model and targets");
  cmd.add_option("--backend", o.backend, "geometry backend: euclid (plain vectors) or cga (conformal GA)")
      ->check(CLI::IsMember({"euclid", "cga"}));
  cmd.add_option_function<std::string>(
      "--calibration-frames", [&o](const std::string& text) { o.calibration_frames = parseFrameRange(text); },
      "calibrate on frames FIRST:END only (0-based, END excluded, empty END = last); the summary adds the errors on "
      "the other frames");
  cmd.add_option("--urdf", o.urdf, "write the calibrated hand model as URDF");
  cmd.add_option("--errors", o.errors, "per-frame tip and middle-marker errors (CSV, mm)");
  if (extra) extra(cmd);
  addQuiet(cmd, quiet);
}

void addInverseDynamicsOptions(CLI::App& cmd, InverseDynamicsOptions& o, bool& quiet, const ExtraOptions& extra) {
  cmd.add_option("--model", o.model.model,
                 "URDF with inertials, a built-in model with masses, or an OpenSim model (.osim: OpenSim's ID "
                 "pipeline on a .mot/.sto coordinate file, writes OpenSim's .sto)")
      ->required();
  cmd.add_option("--height", o.model.height, "body height of a built-in model (m)");
  cmd.add_option("--mass", o.model.mass, "body mass of a built-in model (kg)");
  cmd.add_option("--motion", o.motion,
                 "joint trajectory CSV (as `kinetrack track` writes it); for an .osim model a .mot/.sto or its joint "
                 "CSV (`markers ik --out x.csv`)")
      ->required();
  cmd.add_option("--out", o.out, "generalised forces CSV: time, base force and moment, joint torques, valid")
      ->required();
  cmd.add_option("--gravity", o.gravity, "gravity along -z (m/s^2)")->capture_default_str();
  cmd.add_option("--wrench-file", o.wrench_file,
                 "external wrenches CSV (world frame; time,<body>.fx,fy,fz,px,py,pz[,mx,my,mz]; docs/formats.md), "
                 "matched to the motion rows by linear interpolation in time");
  cmd.add_option("--wrench-outside", o.wrench_outside,
                 "motion rows outside the wrench file's time range: error, or zero (no external load there)")
      ->check(CLI::IsMember({"error", "zero"}))
      ->capture_default_str();
  cmd.add_option("--derivatives", o.derivatives,
                 "velocities and accelerations: fd (finite differences of the motion as given) or butterworth "
                 "(zero-lag 4th-order low-pass at --cutoff first)")
      ->check(CLI::IsMember({"fd", "butterworth"}))
      ->capture_default_str();
  // Unset unless given: an OpenSim model then takes its setup's cut-off (or none).
  cmd.add_option("--cutoff", o.cutoff, "-3 dB frequency of the butterworth low-pass (Hz)")->default_str("6");
  cmd.add_option("--loads", o.loads,
                 "OpenSim model only: ExternalLoads XML (*_grf.xml; its <datafile> is read relative to it), or a "
                 "C3D file: its force plates (centre of pressure, 20 N threshold) each applied to the foot that stood "
                 "on it (calcn_r / calcn_l), in the model's axes");
  cmd.add_option("--setup", o.setup,
                 "OpenSim model only: InverseDynamicsTool setup XML (time range, coordinate low-pass cut-off, "
                 "external loads file)");
  cmd.add_option("--reference", o.reference,
                 "OpenSim model only: an ID result .sto to compare with (per-column RMS table)");
  cmd.add_option("--com-offset", o.com_offset,
                 "OpenSim model only: BODY:X,Y,Z moves the body's mass centre by (X, Y, Z) m in its frame (the offset "
                 "`dynamics filter --adjust-com` reports)");
  if (extra) extra(cmd);
  cmd.add_option("--degrees", o.degrees, "OpenSim model only: motion angles in degrees: auto (header), yes, no")
      ->check(CLI::IsMember({"auto", "yes", "no"}))
      ->capture_default_str();
  cmd.add_option("--start", o.time_start, "OpenSim model only: first time (s) when no setup gives the range");
  cmd.add_option("--end", o.time_end, "OpenSim model only: last time (s) when no setup gives the range");
  addQuiet(cmd, quiet, "OpenSim model only: no progress bar");
}

void addGaitOptions(CLI::App& cmd, GaitOptions& o, std::vector<std::string>& reserves, bool& quiet,
                    const ExtraOptions& extra) {
  cmd.add_option("--model", o.model, "generic .osim (with --scale-setup) or the subject's")->required();
  cmd.add_option("--scale-setup", o.scale_setup, "OpenSim Setup_Scale.xml: scale on the static trial first");
  cmd.add_option("--static", o.static_trial, "static trial .trc/.c3d (default: the scale setup's)");
  cmd.add_option("--marker-set", o.marker_set, "marker-set file for the generic model (default: the setup's)");
  cmd.add_option("--trial", o.trial, "the trial's markers: .trc/.c3d")->required();
  cmd.add_option("--ik-setup", o.ik_setup, "OpenSim Setup_IK.xml (marker weights, coordinate tasks, time range)");
  cmd.add_option("--loads", o.loads,
                 "ExternalLoads XML or a C3D with force plates (default: the trial when it is such a C3D)");
  cmd.add_option("--muscles", o.muscles, "static-opt, qp, lp or none")
      ->check(CLI::IsMember({"static-opt", "qp", "lp", "none"}))
      ->capture_default_str();
  cmd.add_option("--reserve", reserves,
                 "reserve actuator COORDINATE=OPTIMAL_FORCE (repeatable; default: 1 on every coordinate)");
  cmd.add_option("--force-set", o.force_sets, "force-set file with CoordinateActuators (repeatable)");
  cmd.add_option("--cutoff", o.cutoff, "low-pass of the coordinates for ID and muscles (Hz)")->capture_default_str();
  cmd.add_option("--start", o.time_start, "first time (s; default the IK setup's, else the trial's)");
  cmd.add_option("--end", o.time_end, "last time (s)");
  cmd.add_option("--emg", o.emg, "EMG file .c3d/.anc (default: the trial when it is a C3D)");
  cmd.add_option("--emg-channels", o.emg_channels, "EMG channel labels (e.g. SOL,GAS,TA)")->delimiter(',');
  cmd.add_option("--emg-side", o.emg_side, "side of the EMG electrodes (r or l)")
      ->check(CLI::IsMember({"r", "l"}))
      ->capture_default_str();
  cmd.add_option("--emg-map", o.emg_map,
                 "CHANNEL=MUSCLE (repeatable): the model muscle a channel records (default: by abbreviation)");
  cmd.add_option("--threads", o.threads, "muscles: frames across threads (0: all cores)")->capture_default_str();
  cmd.add_option("--out", o.out, "output directory")->required();
  if (extra) extra(cmd);
  addQuiet(cmd, quiet, "no progress notes");
}

namespace {

// --rotations "X Y Z": OpenSense's sensor_to_opensim_rotations (rad), overriding the setup's.
void addRotationsOption(CLI::App& cmd, std::optional<Vector3d>& rotations) {
  cmd.add_option_function<std::string>(
      "--rotations",
      [&rotations](const std::string& v) {
        std::istringstream in(v);
        Vector3d r;
        std::string rest;
        if (!(in >> r.x() >> r.y() >> r.z()) || (in >> rest) || !r.allFinite())
          throw CLI::ValidationError("--rotations", "'" + v + "' is not three angles in rad (\"X Y Z\")");
        rotations = r;
      },
      "sensor_to_opensim_rotations: space-fixed X-Y-Z angles (rad), e.g. \"-1.5707963 0 0\"; default: the setup's");
}

}  // namespace

void addImuPlaceOptions(CLI::App& cmd, ImuPlaceOptions& o, bool& quiet) {
  cmd.add_option("--setup", o.setup, "IMUPlacer setup (.xml): rotations, base IMU and heading axis, calibration file");
  cmd.add_option("--model", o.model, "OpenSim model (.osim, 4.0 format); default: the setup's <model_file>");
  cmd.add_option("--orientations", o.orientations,
                 "calibration orientations (.sto or .mvnx); default: the setup's <orientation_file_for_calibration>");
  cmd.add_option("--out", o.out,
                 "calibrated model (.osim); default: the setup's <output_model_file>, else <model>_calibrated.osim");
  cmd.add_option("--time", o.time, "calibration sample: the row nearest this time (s); default the first row");
  cmd.add_option_function<std::string>(
      "--base-imu", [&o](const std::string& v) { o.base_imu = v; },
      "IMU whose heading axis is turned to the model's forward (X) direction; \"\" for none; default: the setup's");
  cmd.add_option_function<std::string>(
         "--base-heading-axis", [&o](const std::string& v) { o.base_heading_axis = v; },
         "the base IMU's heading axis: x, -x, y, -y, z or -z; default: the setup's")
      ->check(CLI::IsMember({"x", "-x", "y", "-y", "z", "-z"}));
  addRotationsOption(cmd, o.sensor_to_opensim_rotations);
  addQuiet(cmd, quiet, "no stage notes");
}

void addImuIkOptions(CLI::App& cmd, ImuIkOptions& o, bool& quiet, const ExtraOptions& extra) {
  cmd.add_option("--setup", o.setup,
                 "OpenSense IMU IK setup (IMUInverseKinematicsTool .xml): orientations file, rotations, time range, "
                 "weights; files given on the command line override it");
  cmd.add_option("--model", o.model, "calibrated OpenSim model (.osim from `kinetrack imu place`)");
  cmd.add_option("--orientations", o.orientations, "IMU orientations (.sto, quaternions; OpenSense's layout)");
  cmd.add_option("--out", o.out,
                 "coordinates: OpenSim's .mot (degrees), or kinetrack's joint CSV for a name ending in .csv; default: "
                 "the setup's <output_motion_file>");
  cmd.add_option("--errors", o.errors, "orientation errors per IMU and frame (.sto, rad)");
  cmd.add_option("--summary-json", o.summary_json, "write the run's summary as JSON");
  addRotationsOption(cmd, o.sensor_to_opensim_rotations);
  cmd.add_option_function<std::vector<std::string>>(
      "--weight",
      [&o](const std::vector<std::string>& v) {
        for (const std::string& w : v) {
          const auto eq = w.find('=');
          double x = 0.0;
          std::istringstream in(eq == std::string::npos ? std::string() : w.substr(eq + 1));
          std::string rest;
          if (eq == std::string::npos || eq == 0 || !(in >> x) || (in >> rest) || !std::isfinite(x))
            throw CLI::ValidationError("--weight", "'" + w + "' is not IMU=WEIGHT");
          o.weights.emplace_back(w.substr(0, eq), x);
        }
      },
      "IMU=WEIGHT (repeatable): an IMU's orientation weight (default 1)");
  cmd.add_option("--accuracy", o.accuracy, "convergence of each frame's solve (rad); default: the setup's, 1e-6");
  cmd.add_option("--start", o.time_start, "first time (s); default: the setup's time range, else the file's");
  cmd.add_option("--end", o.time_end, "last time (s)");
  if (extra) extra(cmd);
  addQuiet(cmd, quiet);
}

void addServeOptions(CLI::App& cmd, ServeOptions& o) {
  cmd.add_option("--model", o.model.model,
                 "built-in model (human66, human48), URDF path, or with --imus a calibrated .osim")
      ->capture_default_str();
  o.model.model = "human66";
  cmd.add_option("--height", o.model.height, "body height of a built-in model (m)");
  cmd.add_option("--mass", o.model.mass, kMassHelp);
  cmd.add_option("--layout", o.layout,
                 "live mode: the subject's MVNX file (segment order of the stream, calibration poses)");
  cmd.add_option("--markerset", o.markerset,
                 "markers mode: marker IK on the model with this marker set (built-in name or JSON file); the "
                 "input is KTP markers messages (docs/streaming.md)");
  cmd.add_option("--static", o.static_trial, "markers mode: static trial (.c3d/.trc) calibrating the set first");
  cmd.add_option("--marker-axes", o.marker_axes, "axes of the --static file: auto, y-up, z-up")->capture_default_str();
  cmd.add_flag("--imus", o.imus,
               "IMU mode: OpenSense's IMU IK on --model, an .osim calibrated by `kinetrack imu place`; the input is "
               "KTP poses messages, one quaternion per <body>_imu frame of the model (docs/imu.md)");
  cmd.add_option("--imu-setup", o.imu_setup,
                 "IMU mode: IMU IK setup (.xml) giving sensor_to_opensim_rotations, weights and accuracy");
  cmd.add_option("--map", o.map, "segment map: auto (default), a built-in map name, or a JSON file");
  cmd.add_flag("--retarget", o.retarget,
               "the model is a robot (URDF, MJCF): retarget as `kinetrack retarget` (robot map, velocity limits, "
               "on the ground, soles held while the person's feet are down, collision rows; with --interactive the "
               "iCub's coupling rows bind the pin-and-drag)");
  cmd.add_flag("!--no-contacts", o.contacts, "--retarget: do not hold the soles (no contact detection)");
  cmd.add_flag("!--no-collisions", o.collisions, "--retarget: no ground or self-collision rows");
  cmd.add_option("--collision-margin", o.collision_margin, "--retarget: m kept between two links")
      ->capture_default_str();
  cmd.add_option("--calibration", o.calibration, "calibration pose: none, identity|npose|tpose (default npose)");
  cmd.add_option("--solver", o.solver, "dynamical (DYN, default), wholebody, wholebody-ipopt, pairwise")
      ->capture_default_str();
  cmd.add_option("--kappa", o.kappa, "DYN per-step gain kappa = K*dt, 0 < kappa < 2")->capture_default_str();
  cmd.add_option("--rate", o.rate, "nominal input rate (Hz); default: the layout file's");
  cmd.add_option("--max-step-deg", o.max_step_deg, "largest target rotation per solver step (degrees)")
      ->capture_default_str();
  cmd.add_option("--max-substeps", o.max_substeps, "largest number of solver steps per frame")->capture_default_str();
  cmd.add_option("--host", o.server.host, "IPv4 address to listen on")->capture_default_str();
  cmd.add_option("--port", o.server.ws_port, "WebSocket + HTTP port (0: any free port)")->capture_default_str();
  cmd.add_option("--udp-port", o.server.udp_port, "MXTP input UDP port (0: any free port)")->capture_default_str();
  cmd.add_option("--udp-out", o.server.udp_out, "send each frame's joint state (JSON) to this IPv4:port");
  cmd.add_option("--http-root", o.server.http_root, "serve static files from DIR on the WebSocket port");
  cmd.add_flag("--interactive", o.interactive, "pin-and-drag IK driven by WebSocket clients (no UDP input)");
  cmd.add_option("--interactive-rate", o.server.interactive_rate, "Hz of the pin-and-drag loop")->capture_default_str();
  cmd.add_flag("--quiet", o.quiet, "no status line on the terminal, no calibration line");
  cmd.add_option("--queue", o.server.queue_depth, "messages queued per client before drops")->capture_default_str();
  cmd.add_option("--duration", o.server.duration, "stop after this many seconds (0: on SIGINT/SIGTERM)")
      ->capture_default_str();
}

int runCommandLine(const std::vector<std::string>& args, std::string& log) {
  // One parser with the five commands, as the CLI's: the row's words pick the command.
  CLI::App app{"kinetrack", "kinetrack"};
  app.require_subcommand(1);
  RetargetOptions retarget_options;
  MarkerIkOptions marker_options;
  HandTrackOptions hand_options;
  InverseDynamicsOptions id_options;
  bool quiet = false;  // a row has no progress bar either way
  CLI::App* retarget = app.add_subcommand("retarget");
  addRetargetOptions(*retarget, retarget_options, quiet);
  CLI::App* markers = app.add_subcommand("markers")->require_subcommand(1)->add_subcommand("ik");
  addMarkerIkOptions(*markers, marker_options, quiet);
  CLI::App* hand = app.add_subcommand("hand")->require_subcommand(1)->add_subcommand("track");
  addHandTrackOptions(*hand, hand_options, quiet);
  CLI::App* id = app.add_subcommand("dynamics")->require_subcommand(1)->add_subcommand("id");
  addInverseDynamicsOptions(*id, id_options, quiet);
  ImuIkOptions imu_options;
  CLI::App* imu = app.add_subcommand("imu")->require_subcommand(1)->add_subcommand("ik");
  addImuIkOptions(*imu, imu_options, quiet);
  GaitOptions gait_options;
  std::vector<std::string> gait_reserves;
  CLI::App* gait = app.add_subcommand("gait");
  addGaitOptions(*gait, gait_options, gait_reserves, quiet);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses a reversed vector
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw InvalidArgument(fmt::format("`kinetrack {}`: {}", fmt::join(args, " "), e.what()));
  }

  // What the single command prints (notes, warnings, its summary) goes into the log.
  Reporter reporter;
  reporter.note = [&log](const std::string& n) { log += n; };
  reporter.warning = [&log](const std::string& w) { log += "kinetrack: warning: " + w + "\n"; };
  if (retarget->parsed()) {
    const TrackResult r = runRetarget(retarget_options, reporter);
    log += summaryText(r) + wroteLine(r, retarget_options.files);
    return r.exitStatus();
  }
  if (markers->parsed()) {
    const MarkerIkResult r = runMarkerIk(marker_options, reporter);
    log += summaryText(r) + wroteLine(r, marker_options);
    return r.exitStatus();
  }
  if (hand->parsed()) {
    const HandTrackResult r = runHandTrack(hand_options, reporter);
    log += summaryText(r) + wroteLine(r, hand_options);
    return 0;
  }
  if (imu->parsed()) {
    const ImuIkResult r = runImuIk(imu_options, reporter);
    log += summaryText(r) + wroteLine(r, imu_options);
    return r.exitStatus();
  }
  if (gait->parsed()) {
    for (const std::string& reserve : gait_reserves) gait_options.reserves.push_back(parseReserve(reserve));
    const GaitResult r = runGait(gait_options, reporter);
    log += r.text;
    return 0;
  }
  const InverseDynamicsResult r = runInverseDynamics(id_options, reporter);
  log += r.text + closingLines(r, id_options);
  return 0;
}

void addViewOptions(CLI::App& cmd, ViewOptions& o, bool& quiet) {
  cmd.add_option("--model", o.model.model, "the result's model: a built-in name, URDF, MJCF or .osim file")->required();
  cmd.add_option("--height", o.model.height, "body height of a built-in model (m)");
  cmd.add_option("--mass", o.model.mass, "body mass of a built-in model (kg)");
  cmd.add_option(
         "--result", o.result,
         "the motion: joint CSV (kinetrack track/retarget --out), or OpenSim coordinates (.mot/.sto) on an .osim "
         "model")
      ->required();
  cmd.add_option("--input", o.input, "the capture the result was tracked from (overlaid, target errors)");
  cmd.add_option("--map", o.map, "with --input: segment map, as for kinetrack track");
  cmd.add_option("--calibration", o.calibration, "with --input: calibration, as for kinetrack track");
  cmd.add_option("--units", o.units, "with --input: BVH length unit, as for kinetrack track")->capture_default_str();
  cmd.add_option("--rate", o.rate, "with --input: frame rate replacing the file's, as for kinetrack track");
  cmd.add_option("--out", o.out, "output directory (created)")->required();
  cmd.add_option("--mesh-detail", o.mesh_detail,
                 "meshes simplified for display to this detail (m; 0 keeps every triangle)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--markers", o.markers, "marker trial (.trc/.c3d): measured markers, the model's, and their error");
  cmd.add_option("--loads", o.loads, "OpenSim ExternalLoads (.xml, e.g. *_grf.xml): ground reactions as arrows");
  cmd.add_option("--muscle-values", o.muscle_values,
                 "activations or forces (.sto: static optimisation, kinetrack muscles) colouring the muscle paths");
  cmd.add_flag("!--no-muscles", o.muscles, "do not draw an .osim model's muscle paths");
  cmd.add_option("--person", o.person,
                 "with --input on a robot: track the capture onto this human model (e.g. human66) and draw it beside");
  cmd.add_option("--person-offset", o.person_offset, "the person's distance to the robot's left (m; 0 overlays)")
      ->capture_default_str();
  cmd.add_option("--png", o.png_time, "also render the frame nearest this time (s) to a PNG (headless Chromium)");
  cmd.add_option("--png-file", o.png_file, "the still's path (default <out>/frame_<index>.png)");
  cmd.add_option_function<std::string>(
      "--size",
      [&o](const std::string& v) {
        const auto x = v.find('x');
        try {
          if (x == std::string::npos) throw std::invalid_argument(v);
          std::size_t used = 0;
          o.width = std::stoi(v.substr(0, x), &used);
          if (used != x) throw std::invalid_argument(v);
          o.height = std::stoi(v.substr(x + 1), &used);
          if (used != v.size() - x - 1) throw std::invalid_argument(v);
        } catch (const std::exception&) {
          throw CLI::ValidationError("--size", "'" + v + "' is not WIDTHxHEIGHT (e.g. 1280x720)");
        }
      },
      "the still's size in pixels, WIDTHxHEIGHT (default 1280x720)");
  cmd.add_option(
      "--layers", o.layers,
      "layers shown in the still (comma-separated: geometry, skeleton, input, muscles, markers, forces, com, "
      "contact, person); default all");
  addQuiet(cmd, quiet, "no progress bar");
}

}  // namespace kinetrack::app
