// `kinetrack serve`: live tracking of an MXTP (Xsens MVN network streaming) input with DYN,
// joint states out over WebSocket and UDP, or pin-and-drag driven by WebSocket clients.
// `kinetrack replay`: an MVNX file sent as MXTP datagrams at its recorded or a chosen rate, with
// optional fault injection. Protocols and figures: docs/streaming.md.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/stream/server.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "text_table.hpp"
#include "track_job.hpp"

namespace kinetrack::cli {
namespace {

struct ServeConfig {
  ModelSpec model;
  std::string layout, map, calibration, solver = "dynamical";
  double kappa = 1.0, rate = 0.0, max_step_deg = 5.0;
  int max_substeps = 64;
  bool interactive = false, quiet = false;
  stream::ServerOptions server;
};

std::string row(long v) { return std::to_string(v); }

void printSummary(const stream::ServerSummary& s, bool interactive) {
  std::vector<std::vector<std::string>> rows{{"quantity", "value"}};
  if (!interactive) {
    rows.push_back({"datagrams received", row(s.datagrams)});
    rows.push_back({"frames tracked", row(s.frames)});
    rows.push_back({"  of which gaps", row(s.gaps)});
    rows.push_back({"truncated (dropped)", row(s.truncated)});
    rows.push_back({"oversized (dropped)", row(s.oversized)});
    rows.push_back({"malformed (dropped)", row(s.malformed)});
    rows.push_back({"unsupported type (dropped)", row(s.unsupported)});
    rows.push_back({"duplicates (dropped)", row(s.duplicates)});
    rows.push_back({"out of order (dropped)", row(s.out_of_order)});
    rows.push_back({"samples never received", row(s.skipped)});
    rows.push_back({"solver failures", row(s.failed)});
    rows.push_back({"UDP joint states sent", row(s.udp_messages)});
  } else {
    rows.push_back({"pin-and-drag frames", row(s.frames)});
  }
  rows.push_back({"WebSocket clients", row(s.clients)});
  rows.push_back({"WebSocket messages sent", row(s.ws_messages)});
  rows.push_back({"client queue drops", row(s.dropped)});
  rows.push_back({"bad client messages", row(s.client_errors)});
  rows.push_back({"latency p50 (us)", fmt::format("{:.1f}", s.latency_p50_us)});
  rows.push_back({"latency p99 (us)", fmt::format("{:.1f}", s.latency_p99_us)});
  rows.push_back({"latency max (us)", fmt::format("{:.1f}", s.latency_max_us)});
  rows.push_back({"run time (s)", fmt::format("{:.1f}", s.seconds)});
  printTextTable(rows);
}

/// The interactive start pose: zero joints, the base lifted so the lowest link origin is on z = 0.
Configuration standingPose(const Model& model) {
  Configuration q(model);
  Data data(model);
  forwardKinematics(model, data, q);
  double zmin = std::numeric_limits<double>::infinity();
  for (const Transform& T : data.link) zmin = std::min(zmin, T.p.z());
  if (model.nvBase() > 0 && std::isfinite(zmin)) q.base_position.z() -= zmin;
  return q;
}

int runServe(const ServeConfig& cfg) {
  std::unique_ptr<stream::Server> server;
  stream::ServerOptions so = cfg.server;
  so.model_name = cfg.model.model;
  if (cfg.interactive) {
    const Model model = loadModelAndWarn(cfg.model).model;
    server = std::make_unique<stream::Server>(model, standingPose(model), so);
  } else {
    if (cfg.layout.empty())
      throw UsageError(
          "--layout FILE.mvnx is required without --interactive: the subject's MVNX file gives the "
          "segment order of the MXTP stream and the calibration poses");
    const track::Capture capture = track::loadCapture(cfg.layout);
    if (capture.kind != track::CaptureKind::Mvnx)
      throw UsageError("--layout: expected an .mvnx file, got " + cfg.layout);
    track::PlanOptions po;
    po.calibration = cfg.calibration;
    const track::TrackSetup setup = track::setupOnModel(loadModelAndWarn(cfg.model).model, capture, cfg.map, po);
    track::TrackerOptions to;
    to.kappa = cfg.kappa;
    to.max_step_rotation = cfg.max_step_deg * M_PI / 180.0;
    to.max_substeps = cfg.max_substeps;
    setSolver(to, cfg.solver);
    const double rate = cfg.rate > 0.0 ? cfg.rate : 1.0 / track::meanFrameInterval(capture.clip);
    auto live = std::make_unique<stream::LiveTracker>(setup, capture.clip.segment_names, to, rate);
    server = std::make_unique<stream::Server>(std::move(live), so);
  }
  std::cout << fmt::format("kinetrack serve: {} mode, WebSocket ws://{}:{}/", cfg.interactive ? "interactive" : "live",
                           so.host, server->wsPort());
  if (!so.http_root.empty()) std::cout << fmt::format(" (viewer http://{}:{}/?ws=auto)", so.host, server->wsPort());
  if (!cfg.interactive) std::cout << fmt::format(", MXTP UDP {}:{}", so.host, server->udpPort());
  std::cout << std::endl;
  const stream::ServerSummary s = server->run();
  printSummary(s, cfg.interactive);
  return kExitOk;
}

// -- replay ----------------------------------------------------------------------------------

struct ReplayConfig {
  std::string input, to = "127.0.0.1:9763", faults;
  double rate = 0.0;
  int loops = 1, fault_every = 10;
  bool quiet = false;
};

enum class Fault : std::uint8_t { Malformed, Truncated, Oversized, Duplicate, Reorder };

std::vector<Fault> parseFaults(const std::string& text) {
  std::vector<Fault> faults;
  if (text.empty()) return faults;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "all") {
      faults.insert(faults.end(),
                    {Fault::Malformed, Fault::Truncated, Fault::Oversized, Fault::Duplicate, Fault::Reorder});
    } else if (item == "malformed")
      faults.push_back(Fault::Malformed);
    else if (item == "truncated")
      faults.push_back(Fault::Truncated);
    else if (item == "oversized")
      faults.push_back(Fault::Oversized);
    else if (item == "duplicate")
      faults.push_back(Fault::Duplicate);
    else if (item == "reorder")
      faults.push_back(Fault::Reorder);
    else
      throw UsageError("--faults: unknown fault '" + item +
                       "'; valid: malformed, truncated, oversized, duplicate, reorder, all");
  }
  return faults;
}

sockaddr_in parseEndpoint(const std::string& text, const char* flag) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  const auto colon = text.rfind(':');
  int port = 0;
  try {
    port = colon == std::string::npos ? 0 : std::stoi(text.substr(colon + 1));
  } catch (const std::exception&) {
    port = 0;
  }
  if (port <= 0 || port > 65535 || ::inet_pton(AF_INET, text.substr(0, colon).c_str(), &addr.sin_addr) != 1)
    throw UsageError(std::string(flag) + ": expected IPv4:port, got '" + text + "'");
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  return addr;
}

int runReplay(const ReplayConfig& cfg) {
  if (cfg.rate < 0.0) throw UsageError("--rate must be >= 0 (0: the file's own frame times)");
  if (cfg.loops < 1) throw UsageError("--loops must be >= 1");
  if (cfg.fault_every < 1) throw UsageError("--fault-every must be >= 1");
  const std::vector<Fault> faults = parseFaults(cfg.faults);
  const sockaddr_in to = parseEndpoint(cfg.to, "--to");
  const track::Capture capture = track::loadCapture(cfg.input);
  if (capture.kind != track::CaptureKind::Mvnx) throw UsageError("--input: expected an .mvnx file, got " + cfg.input);
  const io::MotionClip& clip = capture.clip;
  const int n = clip.numFrames();
  const double rate = cfg.rate > 0.0 ? cfg.rate : 1.0 / track::meanFrameInterval(clip);
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw UsageError("replay: cannot open a UDP socket");
  auto send = [&](const std::uint8_t* data, std::size_t size) {
    ::sendto(fd, data, size, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  };
  stream::MxtpPoseDatagram d;
  std::vector<std::uint8_t> buf(stream::kMxtpMaxDatagram + 64), held;
  long sent = 0, frames = 0, counts[5] = {0, 0, 0, 0, 0};
  std::size_t next_fault = 0;
  const auto start = std::chrono::steady_clock::now();
  const long total = static_cast<long>(n) * cfg.loops;
  for (long k = 0; k < total; ++k) {
    const int f = static_cast<int>(k % n);
    // Every loop continues the sample counter and the time code (a looped capture is one stream).
    stream::clipFrameDatagram(clip, f, rate, d);
    d.header.sample = static_cast<std::uint32_t>(k);
    d.header.time_ms = static_cast<std::uint32_t>(std::llround(static_cast<double>(k) * 1e3 / rate));
    const std::size_t size = stream::encodeMxtp(d, buf);
    std::this_thread::sleep_until(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                              std::chrono::duration<double>(static_cast<double>(k) / rate)));
    const bool inject = !faults.empty() && (k + 1) % cfg.fault_every == 0 && k + 1 < total;
    const Fault fault = inject ? faults[next_fault++ % faults.size()] : Fault::Malformed;
    if (inject && fault == Fault::Reorder) {  // held back, sent after the next frame
      held.assign(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(size));
      ++counts[static_cast<int>(fault)];
      continue;
    }
    send(buf.data(), size);
    ++sent;
    ++frames;
    if (!held.empty()) {
      send(held.data(), held.size());
      held.clear();
      ++sent;
    }
    if (!inject) continue;
    ++counts[static_cast<int>(fault)];
    std::vector<std::uint8_t> bad(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(size));
    if (fault == Fault::Malformed) bad[3] = 'Q';
    if (fault == Fault::Truncated) bad.resize(size / 2);
    if (fault == Fault::Oversized) bad.resize(size + 16, 0);
    send(bad.data(), bad.size());
    ++sent;
    if (!cfg.quiet && k % 240 == 0) std::fprintf(stderr, "\rreplay: frame %ld / %ld", k + 1, total);
  }
  ::close(fd);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<std::vector<std::string>> rows{{"quantity", "value"}};
  rows.push_back({"input", cfg.input});
  rows.push_back({"rate (Hz)", fmt::format("{:.2f}", rate)});
  rows.push_back({"frames in file x loops", fmt::format("{} x {}", n, cfg.loops)});
  rows.push_back({"well-formed frames sent in order", row(frames)});
  rows.push_back({"datagrams sent", row(sent)});
  rows.push_back({"injected malformed", row(counts[0])});
  rows.push_back({"injected truncated", row(counts[1])});
  rows.push_back({"injected oversized", row(counts[2])});
  rows.push_back({"injected duplicate", row(counts[3])});
  rows.push_back({"injected reorder (late frames)", row(counts[4])});
  rows.push_back({"run time (s)", fmt::format("{:.2f}", seconds)});
  printTextTable(rows);
  return kExitOk;
}

}  // namespace

void addServeCommands(CLI::App& app, Action& action) {
  auto cfg = std::make_shared<ServeConfig>();
  CLI::App* cmd = app.add_subcommand(
      "serve",
      "track a live MXTP stream (Xsens MVN network streaming) with DYN, or run pin-and-drag IK, and stream "
      "joint states over WebSocket/UDP (docs/streaming.md)");
  cmd->add_option("--model", cfg->model.model, "built-in model (human66, human48) or URDF path")->capture_default_str();
  cfg->model.model = "human66";
  cmd->add_option("--height", cfg->model.height, "body height of a built-in model (m)");
  cmd->add_option("--mass", cfg->model.mass, kMassHelp);
  cmd->add_option("--layout", cfg->layout,
                  "live mode: the subject's MVNX file (segment order of the stream, calibration poses)");
  cmd->add_option("--map", cfg->map, "segment map: auto (default), a built-in map name, or a JSON file");
  cmd->add_option("--calibration", cfg->calibration, "calibration pose: none, identity|npose|tpose (default npose)");
  cmd->add_option("--solver", cfg->solver, "dynamical (DYN, default), wholebody, wholebody-ipopt, pairwise")
      ->capture_default_str();
  cmd->add_option("--kappa", cfg->kappa, "DYN per-step gain kappa = K*dt, 0 < kappa < 2")->capture_default_str();
  cmd->add_option("--rate", cfg->rate, "nominal input rate (Hz); default: the layout file's");
  cmd->add_option("--max-step-deg", cfg->max_step_deg, "largest target rotation per solver step (degrees)")
      ->capture_default_str();
  cmd->add_option("--max-substeps", cfg->max_substeps, "largest number of solver steps per frame")
      ->capture_default_str();
  cmd->add_option("--host", cfg->server.host, "IPv4 address to listen on")->capture_default_str();
  cmd->add_option("--port", cfg->server.ws_port, "WebSocket + HTTP port (0: any free port)")->capture_default_str();
  cmd->add_option("--udp-port", cfg->server.udp_port, "MXTP input UDP port (0: any free port)")->capture_default_str();
  cmd->add_option("--udp-out", cfg->server.udp_out, "send each frame's joint state (JSON) to this IPv4:port");
  cmd->add_option("--http-root", cfg->server.http_root, "serve static files from DIR on the WebSocket port");
  cmd->add_flag("--interactive", cfg->interactive, "pin-and-drag IK driven by WebSocket clients (no UDP input)");
  cmd->add_option("--interactive-rate", cfg->server.interactive_rate, "Hz of the pin-and-drag loop")
      ->capture_default_str();
  cmd->add_option("--queue", cfg->server.queue_depth, "messages queued per client before drops")->capture_default_str();
  cmd->add_option("--duration", cfg->server.duration, "stop after this many seconds (0: on SIGINT/SIGTERM)")
      ->capture_default_str();
  cmd->callback([&action, cfg] {
    if (cfg->server.queue_depth < 1) throw UsageError("--queue must be >= 1");
    if (cfg->server.ws_port < 0 || cfg->server.ws_port > 65535 || cfg->server.udp_port < 0 ||
        cfg->server.udp_port > 65535)
      throw UsageError("--port/--udp-port must be in [0, 65535]");
    action = [cfg] { return runServe(*cfg); };
  });

  auto rc = std::make_shared<ReplayConfig>();
  CLI::App* rep = app.add_subcommand("replay",
                                     "send an MVNX capture as MXTP datagrams (UDP) at its recorded or a "
                                     "chosen rate, optionally injecting faults");
  rep->add_option("--input", rc->input, "MVNX file")->required();
  rep->add_option("--to", rc->to, "destination IPv4:port")->capture_default_str();
  rep->add_option("--rate", rc->rate, "send rate (Hz); 0: the file's frame rate")->capture_default_str();
  rep->add_option("--loops", rc->loops, "times the capture is sent (one continuous stream)")->capture_default_str();
  rep->add_option("--faults", rc->faults,
                  "comma-separated faults injected in turn: malformed, truncated, oversized, duplicate (extra "
                  "datagrams), reorder (a frame sent after the next one), all");
  rep->add_option("--fault-every", rc->fault_every, "inject one fault every N frames")->capture_default_str();
  rep->add_flag("--quiet", rc->quiet, "no progress");
  rep->callback([&action, rc] { action = [rc] { return runReplay(*rc); }; });
}

}  // namespace kinetrack::cli
