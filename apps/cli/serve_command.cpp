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

#include "app/command_options.hpp"
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
  std::cout << app::serveBannerText(o, *server) << std::flush;
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
  app::addServeOptions(*cmd, cfg->job);
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
  rep->callback([&action, rc] { action = [rc] { return runReplay(*rc); }; });
}

}  // namespace kinetrack::cli
