// `kinetrack serve`: live tracking of an MXTP (Xsens MVN network streaming) input with DYN,
// joint states out over WebSocket and UDP, or pin-and-drag driven by WebSocket clients.
// `kinetrack replay`: an MVNX file sent as MXTP datagrams at its recorded or a chosen rate, with
// optional fault injection. Protocols and figures: docs/streaming.md.
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "cli_common.hpp"
#include "kinetrack/app/serve_job.hpp"
#include "kinetrack/core/so3.hpp"
#include "plotting.hpp"

namespace kinetrack::cli {
namespace {

struct ServeConfig {
  app::ServeOptions job;
  std::string latency_out, plot, plot_script;
};

int runServe(const ServeConfig& cfg) {
  app::ServeOptions o = cfg.job;
  o.server.model_name = o.model.model;
  const std::unique_ptr<stream::Server> server = app::makeServer(o, cliReporter(false));
  const stream::ServerOptions& so = o.server;
  std::cout << fmt::format("kinetrack serve: {} mode, WebSocket ws://{}:{}/", o.interactive ? "interactive" : "live",
                           so.host, server->wsPort());
  if (!so.http_root.empty()) std::cout << fmt::format(" (viewer http://{}:{}/?ws=auto)", so.host, server->wsPort());
  if (!o.interactive)
    std::cout << fmt::format(
        ", {} UDP {}:{} ({})",
        !o.imu_setup.empty() || o.imus ? "KTP poses (IMU orientations)"
        : o.markerset.empty()          ? "MXTP"
                                       : "KTP markers",
        so.host, server->udpPort(),
        o.markerset.empty() && !o.imus ? "and KTP poses over UDP and WebSocket" : "and over WebSocket");
  std::cout << std::endl;
  // A status line on a terminal's stderr once a second (not with --quiet), like the progress
  // bars of the file commands.
  std::atomic<bool> running{true};
  std::thread status;
  if (!o.quiet && ::isatty(STDERR_FILENO) != 0)
    status = std::thread([&] {
      while (running) {
        for (int i = 0; i < 10 && running; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        const stream::ServerSummary now = server->summary();
        std::fprintf(stderr, "\r%ld frames, %ld rejected, %ld clients, latency p50 %.0f us p99 %.0f us   ", now.frames,
                     now.truncated + now.oversized + now.malformed + now.unsupported, now.clients, now.latency_p50_us,
                     now.latency_p99_us);
      }
      std::fputc('\n', stderr);
    });
  const stream::ServerSummary s = server->run();
  running = false;
  if (status.joinable()) status.join();
  std::cout << app::serverSummaryText(s, o.interactive);
  if (!cfg.latency_out.empty()) {
    const std::vector<stream::LatencyRecord> records = server->latencyRecords();
    app::writeTextFile(cfg.latency_out, app::latencyCsv(records));
    std::cout << fmt::format("wrote {} ({} of {} frames)\n", cfg.latency_out, records.size(), s.frames);
    if (!cfg.plot.empty())
      runPlot(findScript(cfg.plot_script, "plot_latency.py"), "plot_latency.py", {cfg.latency_out, cfg.plot}, cfg.plot);
  }
  return kExitOk;
}

struct ReplayConfig {
  app::ReplayOptions job;
  bool quiet = false;
};

int runReplay(const ReplayConfig& cfg) {
  const app::ReplayResult r = app::runReplay(cfg.job, cliReporter(!cfg.quiet));
  std::cout << app::summaryText(r, cfg.job);
  return kExitOk;
}

}  // namespace

void addServeCommands(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<ServeConfig>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "track a live MXTP stream (Xsens MVN network streaming) with DYN, or run pin-and-drag IK, and stream "
      "joint states over WebSocket/UDP (docs/streaming.md)");
  cmd->add_option("--model", cfg->job.model.model, "built-in model (human66, human48) or URDF path")
      ->capture_default_str();
  cfg->job.model.model = "human66";
  cmd->add_option("--height", cfg->job.model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", cfg->job.model.mass, kMassHelp);
  cmd->add_option("--layout", cfg->job.layout,
                  "live mode: the subject's MVNX file (segment order of the stream, calibration poses)");
  cmd->add_option("--markerset", cfg->job.markerset,
                  "markers mode: marker IK on the model with this marker set (built-in name or JSON file); the "
                  "input is KTP markers messages (docs/streaming.md)");
  cmd->add_option("--static", cfg->job.static_trial,
                  "markers mode: static trial (.c3d/.trc) calibrating the set first");
  cmd->add_option("--marker-axes", cfg->job.marker_axes, "axes of the --static file: auto, y-up, z-up")
      ->capture_default_str();
  cmd->add_flag("--imus", cfg->job.imus,
                "IMU mode: OpenSense's IMU IK on --model, an .osim calibrated by `kinetrack imu place`; the input is "
                "KTP poses messages, one quaternion per <body>_imu frame of the model (docs/imu.md)");
  cmd->add_option("--imu-setup", cfg->job.imu_setup,
                  "IMU mode: IMU IK setup (.xml) giving sensor_to_opensim_rotations, weights and accuracy");
  cmd->add_option("--map", cfg->job.map, "segment map: auto (default), a built-in map name, or a JSON file");
  cmd->add_flag("--retarget", cfg->job.retarget,
                "the model is a robot (URDF, MJCF): retarget as `kinetrack retarget` (robot map, velocity limits, "
                "on the ground, soles held while the person's feet are down, collision rows; with --interactive the "
                "iCub's coupling rows bind the pin-and-drag)");
  cmd->add_flag("!--no-contacts", cfg->job.contacts, "--retarget: do not hold the soles (no contact detection)");
  cmd->add_flag("!--no-collisions", cfg->job.collisions, "--retarget: no ground or self-collision rows");
  cmd->add_option("--collision-margin", cfg->job.collision_margin, "--retarget: m kept between two links")
      ->capture_default_str();
  cmd->add_option("--calibration", cfg->job.calibration,
                  "calibration pose: none, identity|npose|tpose (default npose)");
  cmd->add_option("--solver", cfg->job.solver, "dynamical (DYN, default), wholebody, wholebody-ipopt, pairwise")
      ->capture_default_str();
  cmd->add_option("--kappa", cfg->job.kappa, "DYN per-step gain kappa = K*dt, 0 < kappa < 2")->capture_default_str();
  cmd->add_option("--rate", cfg->job.rate, "nominal input rate (Hz); default: the layout file's");
  cmd->add_option("--max-step-deg", cfg->job.max_step_deg, "largest target rotation per solver step (degrees)")
      ->capture_default_str();
  cmd->add_option("--max-substeps", cfg->job.max_substeps, "largest number of solver steps per frame")
      ->capture_default_str();
  cmd->add_option("--host", cfg->job.server.host, "IPv4 address to listen on")->capture_default_str();
  cmd->add_option("--port", cfg->job.server.ws_port, "WebSocket + HTTP port (0: any free port)")->capture_default_str();
  cmd->add_option("--udp-port", cfg->job.server.udp_port, "MXTP input UDP port (0: any free port)")
      ->capture_default_str();
  cmd->add_option("--udp-out", cfg->job.server.udp_out, "send each frame's joint state (JSON) to this IPv4:port");
  cmd->add_option("--http-root", cfg->job.server.http_root, "serve static files from DIR on the WebSocket port");
  cmd->add_flag("--interactive", cfg->job.interactive, "pin-and-drag IK driven by WebSocket clients (no UDP input)");
  cmd->add_option("--interactive-rate", cfg->job.server.interactive_rate, "Hz of the pin-and-drag loop")
      ->capture_default_str();
  cmd->add_flag("--quiet", cfg->job.quiet, "no status line on the terminal, no calibration line");
  cmd->add_option("--queue", cfg->job.server.queue_depth, "messages queued per client before drops")
      ->capture_default_str();
  cmd->add_option("--duration", cfg->job.server.duration, "stop after this many seconds (0: on SIGINT/SIGTERM)")
      ->capture_default_str();
  cmd->add_option("--latency-out", cfg->latency_out,
                  "live mode: write each frame's latency (seq, source_time_s, latency_us) to this CSV on exit "
                  "(first 1,000,000 frames)");
  cmd->add_option("--plot", cfg->plot, "with --latency-out: a PNG of the latency over time and its distribution");
  cmd->add_option("--plot-script", cfg->plot_script, "plot_latency.py to use (default: scripts/plot_latency.py)");
  // Checks run inside the action: main() handles its errors (a throw from a CLI11 callback
  // would escape them and abort).
  cmd->callback([&action, cfg] {
    action = [cfg] {
      if (!cfg->plot.empty() && cfg->latency_out.empty()) throw UsageError("--plot needs --latency-out");
      if (!cfg->latency_out.empty()) cfg->job.server.latency_records = 1000000;
      if (cfg->job.server.queue_depth < 1) throw UsageError("--queue must be >= 1");
      if (cfg->job.server.ws_port < 0 || cfg->job.server.ws_port > 65535 || cfg->job.server.udp_port < 0 ||
          cfg->job.server.udp_port > 65535)
        throw UsageError("--port/--udp-port must be in [0, 65535]");
      return runServe(*cfg);
    };
  });

  auto rc = std::make_shared<ReplayConfig>();
  CLI::App* rep = app.add_subcommand("replay",
                                     "send an MVNX capture (segment poses) or a marker trial as MXTP or KTP "
                                     "messages over UDP or WebSocket at its recorded or a chosen rate, "
                                     "optionally injecting faults");
  rep->add_option("--input", rc->job.input, "MVNX file (segment poses) or marker trial (.c3d/.trc, with --markerset)")
      ->required();
  rep->add_option("--protocol", rc->job.protocol,
                  "mxtp (MVN network streaming, default for .mvnx), ktp (kinetrack binary, default for markers) or "
                  "ktp-json (docs/streaming.md)");
  rep->add_option("--markerset", rc->job.markerset,
                  "marker trials: the server's marker set (built-in name or JSON): its order numbers the markers");
  rep->add_option("--marker-axes", rc->job.marker_axes, "axes of the marker file: auto, y-up, z-up")
      ->capture_default_str();
  rep->add_option("--to", rc->job.to, "destination IPv4:port (UDP)")->capture_default_str();
  rep->add_option("--ws", rc->job.ws, "send over WebSocket to this IPv4:port instead of UDP (KTP only)");
  rep->add_option("--rate", rc->job.rate, "send rate (Hz); 0: the file's frame rate")->capture_default_str();
  rep->add_option("--loops", rc->job.loops, "times the capture is sent (one continuous stream)")->capture_default_str();
  rep->add_option("--faults", rc->job.faults,
                  "comma-separated faults injected in turn: malformed, truncated, oversized, duplicate (extra "
                  "datagrams), reorder (a frame sent after the next one), all");
  rep->add_option("--fault-every", rc->job.fault_every, "inject one fault every N frames")->capture_default_str();
  rep->add_flag("--quiet", rc->quiet, "no progress bar");
  rep->callback([&action, rc] {
    action = [rc] {
      if (!rc->job.ws.empty() && rc->job.protocol == "mxtp")
        throw UsageError("--ws carries KTP messages: MXTP is UDP only");
      return runReplay(*rc);
    };
  });
}

}  // namespace kinetrack::cli
