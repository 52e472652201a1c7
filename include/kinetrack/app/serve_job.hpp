#pragma once
// `kinetrack serve` and `kinetrack replay` as jobs (docs/streaming.md). serve: a stream::Server
// set up for live tracking of segment poses (MXTP / KTP poses, an MVNX layout: the same setup as
// `kinetrack track`, or as `kinetrack retarget` with retarget), live marker IK (KTP markers, a
// marker set optionally calibrated on a static trial) or interactive pin-and-drag from a feasible
// standing pose; its summary as text. replay: an MVNX capture or a marker trial sent as MXTP or
// KTP messages over UDP or WebSocket at its recorded or a chosen rate, with faults injected.
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/stream/server.hpp"

namespace kinetrack::app {

struct ServeOptions {
  io::ModelSpec model{"human66", std::nullopt, false, std::nullopt};
  std::string layout;  ///< live poses: the subject's MVNX (segment order, calibration poses)
  std::string map, calibration, solver = "dynamical";
  std::string markerset, static_trial, marker_axes = "auto";  ///< live markers
  /// Live IMUs: OpenSense's IMU IK on model.model (a calibrated .osim), the input one quaternion
  /// per "<body>_imu" frame of the model (KTP poses); the setup (optional) gives the rotations,
  /// weights and accuracy.
  bool imus = false;
  std::string imu_setup;
  double kappa = 1.0, rate = 0.0, max_step_deg = 5.0;
  int max_substeps = 64;
  bool interactive = false;  ///< pin-and-drag driven by WebSocket clients
  /// As `kinetrack retarget` (app::prepareRetarget on the layout: robot map, the iCub's rows and
  /// velocity limits; a humanoid stands on the ground, its soles held while the person's feet
  /// are down, contacts found as frames arrive, collision rows).
  bool retarget = false;
  bool contacts = true, collisions = true;  ///< retarget: RetargetOptions::contacts / collisions
  double collision_margin = 0.01;           ///< retarget: m kept between two links
  bool quiet = false;                       ///< no note of the static calibration
  stream::ServerOptions server;
};

/// The server of `options` (bound, not yet running: run() it). Throws InvalidArgument for options
/// that contradict each other or are out of range (queue depth < 1, a port outside [0, 65535]),
/// ParseError for bad files.
std::unique_ptr<stream::Server> makeServer(const ServeOptions& options, const Reporter& reporter = {});
/// The interactive start pose: the zero pose moved into the model's limits and linear rows
/// (nearestFeasible), the base lifted so that the lowest link origin is on z = 0.
Configuration standingPose(const Model& model);
/// The summary table `kinetrack serve` prints.
std::string serverSummaryText(const stream::ServerSummary& s, bool interactive);
/// The line `kinetrack serve` starts with: the mode, the WebSocket URL (and viewer), the input
/// kind and its UDP port.
std::string serveBannerText(const ServeOptions& options, const stream::Server& server);
/// seq,source_time_s,latency_us per frame.
std::string latencyCsv(const std::vector<stream::LatencyRecord>& records);

struct ReplayOptions {
  std::string input;                            ///< .mvnx (segment poses) or .c3d/.trc (markers)
  std::string to = "127.0.0.1:9763";            ///< UDP endpoint (IPv4:port)
  std::string ws;                               ///< WebSocket endpoint instead (IPv4:port)
  std::string protocol;                         ///< mxtp | ktp | ktp-json; default mxtp for poses, ktp for markers
  std::string markerset, marker_axes = "auto";  ///< markers: the server's marker set (its order)
  std::string faults;  ///< comma-separated: malformed, truncated, oversized, duplicate, reorder, all
  double rate = 0.0;   ///< Hz; 0: the file's own rate
  int loops = 1, fault_every = 10;
};
struct ReplayResult {
  std::string protocol;
  double rate = 0;
  int frames_in_file = 0;
  long frames = 0, sent = 0;
  long injected[5] = {0, 0, 0, 0, 0};  ///< malformed, truncated, oversized, duplicate, reorder
  long error_replies = -1;             ///< WebSocket: the server's error replies (−1 over UDP)
  bool binary = true;
  double seconds = 0;
};
/// Sends the input (progress counts messages). Throws InvalidArgument / ParseError.
ReplayResult runReplay(const ReplayOptions& options, const Reporter& reporter = {});
/// The summary table `kinetrack replay` prints.
std::string summaryText(const ReplayResult& r, const ReplayOptions& options);

}  // namespace kinetrack::app
