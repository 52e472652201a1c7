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
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/stream/client.hpp"
#include "kinetrack/stream/server.hpp"
#include "kinetrack/track/marker_calibration.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "plotting.hpp"
#include "text_table.hpp"

namespace kinetrack::cli {
namespace {

struct ServeConfig {
  ModelSpec model;
  std::string layout, map, calibration, solver = "dynamical";
  std::string markerset, static_trial, marker_axes = "auto";  ///< markers mode
  double kappa = 1.0, rate = 0.0, max_step_deg = 5.0;
  int max_substeps = 64;
  bool interactive = false, quiet = false, retarget = false;
  std::string latency_out, plot, plot_script;
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
    rows.push_back({"WebSocket inputs dropped (tracker behind)", row(s.inputs_dropped)});
  } else {
    rows.push_back({"pin-and-drag frames", row(s.frames)});
  }
  rows.push_back({"UDP joint states sent", row(s.udp_messages)});
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

/// The interactive start pose: zero joints moved into the model's linear rows (the iCub's zero
/// pose violates its shoulder coupling: alternating projections onto each violated row and the
/// joint limits), the base lifted so the lowest link origin is on z = 0.
Configuration standingPose(const Model& model) {
  Configuration q(model);
  const VectorXd& lo = model.lowerPositionLimits();
  const VectorXd& hi = model.upperPositionLimits();
  for (int pass = 0; pass < 100; ++pass) {
    bool inside = true;
    for (const LinearConstraint& row : model.linearConstraints()) {
      const double v = row.coefficients.dot(q.joints), n2 = row.coefficients.squaredNorm();
      const double target = std::clamp(v, row.lower, row.upper);
      if (std::abs(target - v) <= 1e-9 || n2 == 0.0) continue;
      inside = false;
      q.joints += row.coefficients * ((target - v) / n2);
    }
    q.joints = q.joints.cwiseMax(lo).cwiseMin(hi);
    if (inside) break;
  }
  Data data(model);
  forwardKinematics(model, data, q);
  double zmin = std::numeric_limits<double>::infinity();
  for (const Transform& T : data.link) zmin = std::min(zmin, T.p.z());
  if (model.nvBase() > 0 && std::isfinite(zmin)) q.base_position.z() -= zmin;
  return q;
}

/// The per-frame latency CSV (seq, source_time_s, latency_us) and its plot.
void writeLatency(const ServeConfig& cfg, const std::vector<stream::LatencyRecord>& records,
                  const stream::ServerSummary& s) {
  std::ofstream out(cfg.latency_out);
  if (!out) throw ParseError(cfg.latency_out, 0, "cannot write the latency CSV");
  out << "seq,source_time_s,latency_us\n";
  for (const auto& r : records) out << fmt::format("{},{:.6f},{:.2f}\n", r.seq, r.source_time, r.latency_us);
  out.close();
  if (!out) throw ParseError(cfg.latency_out, 0, "write failed");
  std::cout << fmt::format("wrote {} ({} of {} frames)\n", cfg.latency_out, records.size(), s.frames);
  if (!cfg.plot.empty())
    runPlot(findScript(cfg.plot_script, "plot_latency.py"), "plot_latency.py", {cfg.latency_out, cfg.plot}, cfg.plot);
}

/// Markers mode: marker IK on the model with the marker set (calibrated on --static first when
/// given: the stream then starts from the calibrated static pose), every set marker an input.
std::unique_ptr<stream::LiveInput> markerInput(const ServeConfig& cfg) {
  const LoadedModel loaded = loadModelAndWarn(cfg.model);
  auto model = std::make_shared<const Model>(loaded.model);
  io::MarkerSet set = loadMarkerSet(cfg.markerset, loaded.height, cfg.model.model);
  Configuration start;
  if (!cfg.static_trial.empty()) {
    const track::MarkerCalibration cal = track::calibrateMarkers(
        model, set, track::readMarkerTrial(cfg.static_trial, false, track::parseMarkerAxes(cfg.marker_axes)));
    set = cal.markers;
    if (!cal.poses.empty()) start = cal.poses.front();
    if (!cfg.quiet)
      std::cout << fmt::format("static calibration on {}: marker RMS {:.1f} -> {:.1f} mm\n", cfg.static_trial,
                               cal.rms_before * 1e3, cal.rms_after * 1e3);
  }
  const auto with = std::make_shared<const Model>(io::withMarkers(*model, set));
  return std::make_unique<stream::MarkerLiveTracker>(track::markerIkSpec(with, set, start),
                                                     cfg.rate > 0.0 ? cfg.rate : 100.0);
}

int runServe(const ServeConfig& cfg) {
  std::unique_ptr<stream::Server> server;
  stream::ServerOptions so = cfg.server;
  so.model_name = cfg.model.model;
  std::string input = "MXTP";
  if (cfg.interactive) {
    if (!cfg.layout.empty() || !cfg.markerset.empty())
      throw UsageError("--interactive takes no --layout or --markerset: clients drive the model");
    Model model = loadModelAndWarn(cfg.model).model;
    // --retarget on the iCub: the robot's coupled shoulder/forearm rows (hard limits of the
    // pin-and-drag IK) and velocity limits, as `kinetrack retarget` uses them.
    if (cfg.retarget && isIcub(model)) model = icubForRetargeting(model);
    server = std::make_unique<stream::Server>(model, standingPose(model), so);
  } else if (!cfg.markerset.empty()) {
    if (!cfg.layout.empty()) throw UsageError("--layout (segment poses) and --markerset (markers): one or the other");
    server = std::make_unique<stream::Server>(markerInput(cfg), so);
    input = "KTP markers";
  } else {
    if (cfg.layout.empty())
      throw UsageError(
          "--layout FILE.mvnx (segment poses) or --markerset SET (markers) is required without --interactive: the "
          "subject's MVNX file gives the segment order of the stream and the calibration poses");
    const track::Capture capture = track::loadCapture(cfg.layout);
    if (capture.kind != track::CaptureKind::Mvnx)
      throw UsageError("--layout: expected an .mvnx file, got " + cfg.layout);
    track::PlanOptions po;
    po.calibration = cfg.calibration;
    track::TrackSetup setup;
    track::TrackerOptions to;
    if (cfg.retarget) {  // as `kinetrack retarget`: robot segment map, the iCub's joint velocity limits
      setup.model = loadModelAndWarn(cfg.model).model;
      if (isIcub(setup.model)) setup.model = icubForRetargeting(setup.model);
      const track::SegmentPairs pairs = track::resolveRobotPairs(setup.model, capture, "", cfg.map);
      setup.plan = track::planTracking(setup.model, capture, pairs.pairs, po);
      to.dynamical.use_model_velocity_limits = true;
    } else {
      setup = track::setupOnModel(loadModelAndWarn(cfg.model).model, capture, cfg.map, po);
    }
    to.kappa = cfg.kappa;
    to.max_step_rotation = cfg.max_step_deg * M_PI / 180.0;
    to.max_substeps = cfg.max_substeps;
    app::setSolver(to, cfg.solver);
    const double rate = cfg.rate > 0.0 ? cfg.rate : 1.0 / track::meanFrameInterval(capture.clip);
    auto live = std::make_unique<stream::LiveTracker>(setup, capture.clip.segment_names, to, rate);
    server = std::make_unique<stream::Server>(std::move(live), so);
  }
  std::cout << fmt::format("kinetrack serve: {} mode, WebSocket ws://{}:{}/", cfg.interactive ? "interactive" : "live",
                           so.host, server->wsPort());
  if (!so.http_root.empty()) std::cout << fmt::format(" (viewer http://{}:{}/?ws=auto)", so.host, server->wsPort());
  if (!cfg.interactive)
    std::cout << fmt::format(", {} UDP {}:{} ({})", input, so.host, server->udpPort(),
                             cfg.markerset.empty() ? "and KTP poses over UDP and WebSocket" : "and over WebSocket");
  std::cout << std::endl;
  // A status line on a terminal's stderr once a second (not with --quiet), like the progress
  // bars of the file commands.
  std::atomic<bool> running{true};
  std::thread status;
  if (!cfg.quiet && ::isatty(STDERR_FILENO) != 0)
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
  printSummary(s, cfg.interactive);
  if (!cfg.latency_out.empty()) writeLatency(cfg, server->latencyRecords(), s);
  return kExitOk;
}

// -- replay ----------------------------------------------------------------------------------

struct ReplayConfig {
  std::string input, to = "127.0.0.1:9763", ws, faults, protocol, markerset, marker_axes = "auto";
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

/// What replay sends: frame k of the input (looped) as one message of the chosen protocol.
class ReplaySource {
 public:
  explicit ReplaySource(const ReplayConfig& cfg) : frame_(std::make_unique<stream::KtpFrame>()) {
    protocol_ = cfg.protocol;
    const auto dot = cfg.input.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : cfg.input.substr(dot);
    markers_ = ext == ".c3d" || ext == ".trc" || ext == ".C3D" || ext == ".TRC";
    if (protocol_.empty()) protocol_ = markers_ ? "ktp" : "mxtp";
    if (protocol_ != "mxtp" && protocol_ != "ktp" && protocol_ != "ktp-json")
      throw UsageError("--protocol: expected mxtp, ktp or ktp-json, got '" + protocol_ + "'");
    if (markers_) {
      if (protocol_ == "mxtp") throw UsageError("--protocol mxtp carries segment poses: a marker trial needs ktp");
      // The server's marker list is the set's markers in order (hello "input.names").
      names_ = loadMarkerSet(cfg.markerset, std::nullopt, "(the server's)").names();
      trial_ = track::readMarkerTrial(cfg.input, false, track::parseMarkerAxes(cfg.marker_axes));
      for (const std::string& n : names_) {
        const auto at = std::find(trial_.names.begin(), trial_.names.end(), n);
        column_.push_back(at == trial_.names.end() ? -1 : static_cast<int>(at - trial_.names.begin()));
      }
      if (std::count(column_.begin(), column_.end(), -1) == static_cast<long>(column_.size()))
        throw UsageError("--input: no marker of the marker set is in " + cfg.input);
      frames_ = trial_.numFrames();
      file_rate_ = trial_.data_rate > 0.0 ? trial_.data_rate : 100.0;
    } else {
      if (!cfg.markerset.empty()) throw UsageError("--markerset goes with a marker trial (.c3d/.trc) --input");
      capture_ = track::loadCapture(cfg.input);
      if (capture_.kind != track::CaptureKind::Mvnx)
        throw UsageError("--input: expected an .mvnx file (segment poses) or a .c3d/.trc marker trial, got " +
                         cfg.input);
      names_ = capture_.clip.segment_names;
      frames_ = capture_.clip.numFrames();
      file_rate_ = 1.0 / track::meanFrameInterval(capture_.clip);
    }
    if (frames_ < 1) throw UsageError("--input: no frames in " + cfg.input);
  }
  [[nodiscard]] int frames() const { return frames_; }
  [[nodiscard]] double fileRate() const { return file_rate_; }
  [[nodiscard]] const std::string& protocol() const { return protocol_; }
  [[nodiscard]] bool binary() const { return protocol_ != "ktp-json"; }

  /// Message k of the stream at `rate` (sample counter k, time k / rate: loops continue both).
  std::span<const std::uint8_t> message(long k, double rate) {
    const int f = static_cast<int>(k % frames_);
    if (protocol_ == "mxtp") {
      stream::clipFrameDatagram(capture_.clip, f, rate, datagram_);
      datagram_.header.sample = static_cast<std::uint32_t>(k);
      datagram_.header.time_ms = static_cast<std::uint32_t>(std::llround(static_cast<double>(k) * 1e3 / rate));
      return {buf_.data(), stream::encodeMxtp(datagram_, buf_)};
    }
    stream::KtpFrame& fr = *frame_;
    fr.seq = static_cast<std::uint32_t>(k);
    fr.time = static_cast<double>(k) / rate;
    fr.count = 0;
    if (markers_) {
      fr.kind = stream::KtpKind::Markers;
      for (std::size_t i = 0; i < column_.size(); ++i) {
        if (column_[i] < 0) continue;
        const Vector3d p = trial_.position(f, column_[i]);
        if (!p.allFinite()) continue;  // missing in this frame
        fr.items[static_cast<std::size_t>(fr.count++)] = {static_cast<int>(i), {p.x(), p.y(), p.z()}, {}};
      }
    } else {
      fr.kind = stream::KtpKind::Poses;
      const io::MotionClip& clip = capture_.clip;
      for (int s = 0; s < clip.numSegments(); ++s) {
        if (!clip.isValid(f, s)) continue;
        const Transform& T = clip.pose(f, s);
        const Eigen::Vector4d q = so3::toQuaternionWxyz(T.R);
        fr.items[static_cast<std::size_t>(fr.count++)] = {s, {T.p.x(), T.p.y(), T.p.z()}, {q[0], q[1], q[2], q[3]}};
      }
    }
    if (binary()) return {buf_.data(), stream::encodeKtp(fr, buf_)};
    stream::encodeKtpJson(fr, names_, text_);
    return {reinterpret_cast<const std::uint8_t*>(text_.data()), text_.size()};
  }

 private:
  std::string protocol_;
  bool markers_ = false;
  track::Capture capture_;
  io::MarkerTrajectories trial_;
  std::vector<std::string> names_;
  std::vector<int> column_;
  int frames_ = 0;
  double file_rate_ = 60.0;
  stream::MxtpPoseDatagram datagram_;
  std::unique_ptr<stream::KtpFrame> frame_;
  std::vector<std::uint8_t> buf_ = std::vector<std::uint8_t>(stream::kKtpMaxBinary + stream::kMxtpMaxDatagram);
  std::string text_;
};

int runReplay(const ReplayConfig& cfg) {
  if (cfg.rate < 0.0) throw UsageError("--rate must be >= 0 (0: the file's own frame rate)");
  if (cfg.loops < 1) throw UsageError("--loops must be >= 1");
  if (cfg.fault_every < 1) throw UsageError("--fault-every must be >= 1");
  const std::vector<Fault> faults = parseFaults(cfg.faults);
  ReplaySource source(cfg);
  const double rate = cfg.rate > 0.0 ? cfg.rate : source.fileRate();
  const bool binary = source.binary();
  // Transport: UDP datagrams (--to) or WebSocket messages (--ws).
  sockaddr_in to{};
  std::unique_ptr<stream::WebSocketSender> ws;
  int fd = -1;
  if (!cfg.ws.empty()) {
    const sockaddr_in addr = parseEndpoint(cfg.ws, "--ws");
    char host[INET_ADDRSTRLEN];
    ::inet_ntop(AF_INET, &addr.sin_addr, host, sizeof host);
    ws = std::make_unique<stream::WebSocketSender>(host, ntohs(addr.sin_port));
  } else {
    to = parseEndpoint(cfg.to, "--to");
    fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw UsageError("replay: cannot open a UDP socket");
  }
  auto send = [&](const std::uint8_t* data, std::size_t size) {
    if (ws)
      ws->send({data, size}, binary);
    else
      ::sendto(fd, data, size, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  };
  const int n = source.frames();
  std::vector<std::uint8_t> held;
  long sent = 0, frames = 0, counts[5] = {0, 0, 0, 0, 0};
  std::size_t next_fault = 0;
  const auto start = std::chrono::steady_clock::now();
  const long total = static_cast<long>(n) * cfg.loops;
  ProgressBar progress(static_cast<int>(std::min<long>(total, std::numeric_limits<int>::max())), !cfg.quiet);
  for (long k = 0; k < total; ++k) {
    const std::span<const std::uint8_t> msg = source.message(k, rate);
    std::this_thread::sleep_until(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                              std::chrono::duration<double>(static_cast<double>(k) / rate)));
    const bool inject = !faults.empty() && (k + 1) % cfg.fault_every == 0 && k + 1 < total;
    const Fault fault = inject ? faults[next_fault++ % faults.size()] : Fault::Malformed;
    if (inject && fault == Fault::Reorder) {  // held back, sent after the next frame
      held.assign(msg.begin(), msg.end());
      ++counts[static_cast<int>(fault)];
      continue;
    }
    send(msg.data(), msg.size());
    ++sent;
    ++frames;
    if (!held.empty()) {
      send(held.data(), held.size());
      held.clear();
      ++sent;
    }
    if (k % 64 == 0) progress.update(static_cast<int>(std::min<long>(k + 1, std::numeric_limits<int>::max())));
    if (!inject) continue;
    ++counts[static_cast<int>(fault)];
    std::vector<std::uint8_t> bad(msg.begin(), msg.end());
    if (fault == Fault::Malformed) bad[3] = 'Q';
    if (fault == Fault::Truncated) bad.resize(msg.size() / 2);
    if (fault == Fault::Oversized) bad.resize(msg.size() + 16, 0);
    send(bad.data(), bad.size());
    ++sent;
  }
  progress.update(static_cast<int>(std::min<long>(total, std::numeric_limits<int>::max())));
  if (fd >= 0) ::close(fd);
  if (ws) {  // the server's answers to the bad messages: each one is answered; wait (at most 5 s) for them
    const long expected = counts[0] + counts[1] + counts[2];
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    while (ws->errors() < expected && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<std::vector<std::string>> rows{{"quantity", "value"}};
  rows.push_back({"input", cfg.input});
  rows.push_back({"protocol", source.protocol() + (ws ? " over WebSocket " + cfg.ws : " over UDP " + cfg.to)});
  rows.push_back({"rate (Hz)", fmt::format("{:.2f}", rate)});
  rows.push_back({"frames in file x loops", fmt::format("{} x {}", n, cfg.loops)});
  rows.push_back({"well-formed frames sent in order", row(frames)});
  rows.push_back({ws ? "messages sent" : "datagrams sent", row(sent)});
  rows.push_back({"injected malformed", row(counts[0])});
  rows.push_back({"injected truncated", row(counts[1])});
  rows.push_back({"injected oversized", row(counts[2])});
  rows.push_back({"injected duplicate", row(counts[3])});
  rows.push_back({"injected reorder (late frames)", row(counts[4])});
  if (ws) rows.push_back({"error replies from the server", row(ws->errors())});
  rows.push_back({"run time (s)", fmt::format("{:.2f}", seconds)});
  printTextTable(rows);
  if (!binary && counts[1] + counts[2] > 0)
    std::cout << "note: ktp-json has no length field: the server counts truncated and oversized copies as malformed\n";
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
  cmd->add_option("--markerset", cfg->markerset,
                  "markers mode: marker IK on the model with this marker set (built-in name or JSON file); the "
                  "input is KTP markers messages (docs/streaming.md)");
  cmd->add_option("--static", cfg->static_trial, "markers mode: static trial (.c3d/.trc) calibrating the set first");
  cmd->add_option("--marker-axes", cfg->marker_axes, "axes of the --static file: auto, y-up, z-up")
      ->capture_default_str();
  cmd->add_option("--map", cfg->map, "segment map: auto (default), a built-in map name, or a JSON file");
  cmd->add_flag("--retarget", cfg->retarget,
                "the model is a robot (e.g. the iCub URDF): retarget as `kinetrack retarget` (robot segment map, "
                "velocity limits; with --interactive the iCub's coupling rows bind the pin-and-drag)");
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
  cmd->add_flag("--quiet", cfg->quiet, "no status line on the terminal, no calibration line");
  cmd->add_option("--queue", cfg->server.queue_depth, "messages queued per client before drops")->capture_default_str();
  cmd->add_option("--duration", cfg->server.duration, "stop after this many seconds (0: on SIGINT/SIGTERM)")
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
      if (!cfg->latency_out.empty()) cfg->server.latency_records = 1000000;
      if (cfg->server.queue_depth < 1) throw UsageError("--queue must be >= 1");
      if (cfg->server.ws_port < 0 || cfg->server.ws_port > 65535 || cfg->server.udp_port < 0 ||
          cfg->server.udp_port > 65535)
        throw UsageError("--port/--udp-port must be in [0, 65535]");
      return runServe(*cfg);
    };
  });

  auto rc = std::make_shared<ReplayConfig>();
  CLI::App* rep = app.add_subcommand("replay",
                                     "send an MVNX capture (segment poses) or a marker trial as MXTP or KTP "
                                     "messages over UDP or WebSocket at its recorded or a chosen rate, "
                                     "optionally injecting faults");
  rep->add_option("--input", rc->input, "MVNX file (segment poses) or marker trial (.c3d/.trc, with --markerset)")
      ->required();
  rep->add_option("--protocol", rc->protocol,
                  "mxtp (MVN network streaming, default for .mvnx), ktp (kinetrack binary, default for markers) or "
                  "ktp-json (docs/streaming.md)");
  rep->add_option("--markerset", rc->markerset,
                  "marker trials: the server's marker set (built-in name or JSON): its order numbers the markers");
  rep->add_option("--marker-axes", rc->marker_axes, "axes of the marker file: auto, y-up, z-up")->capture_default_str();
  rep->add_option("--to", rc->to, "destination IPv4:port (UDP)")->capture_default_str();
  rep->add_option("--ws", rc->ws, "send over WebSocket to this IPv4:port instead of UDP (KTP only)");
  rep->add_option("--rate", rc->rate, "send rate (Hz); 0: the file's frame rate")->capture_default_str();
  rep->add_option("--loops", rc->loops, "times the capture is sent (one continuous stream)")->capture_default_str();
  rep->add_option("--faults", rc->faults,
                  "comma-separated faults injected in turn: malformed, truncated, oversized, duplicate (extra "
                  "datagrams), reorder (a frame sent after the next one), all");
  rep->add_option("--fault-every", rc->fault_every, "inject one fault every N frames")->capture_default_str();
  rep->add_flag("--quiet", rc->quiet, "no progress bar");
  rep->callback([&action, rc] {
    action = [rc] {
      if (!rc->ws.empty() && rc->protocol == "mxtp") throw UsageError("--ws carries KTP messages: MXTP is UDP only");
      return runReplay(*rc);
    };
  });
}

}  // namespace kinetrack::cli
