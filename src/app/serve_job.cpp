#include "kinetrack/app/serve_job.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <thread>

#include "kinetrack/app/label_job.hpp"
#include "kinetrack/app/track_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/feasible.hpp"
#include "kinetrack/io/model/opensense_setup.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/muscles/muscle_paths.hpp"
#include "kinetrack/stream/client.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "kinetrack/viewer/viewer.hpp"

namespace kinetrack::app {
namespace {

std::string row(long v) { return std::to_string(v); }

/// Markers mode: marker IK on the model with the marker set (calibrated on --static first when
/// given: the stream then starts from the calibrated static pose), every set marker an input.
std::unique_ptr<stream::LiveInput> markerInput(const ServeOptions& cfg, const Reporter& reporter) {
  const io::LoadedModel loaded = loadModel(cfg.model, reporter);
  auto model = std::make_shared<const Model>(loaded.model);
  const io::MarkerSet set = loadMarkerSet(cfg.markerset, loaded.height, cfg.model.model);
  std::optional<io::MarkerTrajectories> static_trial;
  if (!cfg.static_trial.empty())
    static_trial = io::readMarkerTrial(cfg.static_trial, false, io::parseMarkerAxes(cfg.marker_axes));
  subject::MarkerSetProblem problem = subject::markerSetProblem(model, set, static_trial ? &*static_trial : nullptr);
  if (problem.calibration && !cfg.quiet)
    reporter.say(fmt::format("static calibration on {}: marker RMS {:.1f} -> {:.1f} mm\n", cfg.static_trial,
                             problem.calibration->rms_before * 1e3, problem.calibration->rms_after * 1e3));
  return std::make_unique<stream::MarkerLiveTracker>(track::markerIkSpec(std::move(problem.model)),
                                                     cfg.rate > 0.0 ? cfg.rate : 100.0);
}

/// IMU mode: the IMU IK of `kinetrack imu ik` on the calibrated model, every "<body>_imu" offset
/// frame of the model an input (file order).
std::unique_ptr<stream::LiveInput> imuInput(const ServeOptions& cfg, const Reporter& reporter) {
  if (!hasSuffix(cfg.model.model, ".osim"))
    throw InvalidArgument("--imus tracks an OpenSim model calibrated by `kinetrack imu place`: --model X.osim, got '" +
                          cfg.model.model + "'");
  const io::OpenSimModel osim = io::readOpenSimModel(cfg.model.model);
  for (const std::string& n : osim.notices) reporter.warn(fmt::format("{}: {}", cfg.model.model, n));
  std::vector<std::string> names;
  for (const io::OpenSimOffsetFrame& f : osim.offset_frames)
    if (!track::imuBody(f.name).empty()) names.push_back(f.name);
  io::ImuIkSetup setup;
  if (!cfg.imu_setup.empty()) setup = io::readImuIkSetup(cfg.imu_setup);
  std::vector<std::pair<std::string, double>> weights;
  for (const io::ImuWeightSpec& w : setup.orientation_weights) weights.emplace_back(w.name, w.weight);
  track::ImuIkSpec spec = track::imuIkSpec(osim, names, weights);
  spec.data_rotation = io::sensorToOpenSimRotation(setup.sensor_to_opensim_rotations);
  spec.options.accuracy = setup.accuracy;
  if (!cfg.quiet) reporter.say(fmt::format("IMU IK of {} IMUs on {}\n", spec.sensors.size(), cfg.model.model));
  return std::make_unique<stream::ImuLiveTracker>(spec, cfg.rate > 0.0 ? cfg.rate : 100.0);
}

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
      throw InvalidArgument("--faults: unknown fault '" + item +
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
    throw InvalidArgument(std::string(flag) + ": expected IPv4:port, got '" + text + "'");
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  return addr;
}

/// What replay sends: frame k of the input (looped) as one message of the chosen protocol.
class ReplaySource {
 public:
  explicit ReplaySource(const ReplayOptions& cfg) : frame_(std::make_unique<stream::KtpFrame>()) {
    protocol_ = cfg.protocol;
    const auto dot = cfg.input.rfind('.');
    const std::string ext = dot == std::string::npos ? "" : cfg.input.substr(dot);
    markers_ = ext == ".c3d" || ext == ".trc" || ext == ".C3D" || ext == ".TRC";
    if (protocol_.empty()) protocol_ = markers_ ? "ktp" : "mxtp";
    if (protocol_ != "mxtp" && protocol_ != "ktp" && protocol_ != "ktp-json")
      throw InvalidArgument("--protocol: expected mxtp, ktp or ktp-json, got '" + protocol_ + "'");
    if (markers_) {
      if (protocol_ == "mxtp") throw InvalidArgument("--protocol mxtp carries segment poses: a marker trial needs ktp");
      // The server's marker list is the set's markers in order (hello "input.names").
      names_ = loadMarkerSet(cfg.markerset, std::nullopt, "(the server's)").names();
      trial_ = io::readMarkerTrial(cfg.input, false, io::parseMarkerAxes(cfg.marker_axes));
      for (const std::string& n : names_) {
        const auto at = std::find(trial_.names.begin(), trial_.names.end(), n);
        column_.push_back(at == trial_.names.end() ? -1 : static_cast<int>(at - trial_.names.begin()));
      }
      if (std::count(column_.begin(), column_.end(), -1) == static_cast<long>(column_.size()))
        throw InvalidArgument("--input: no marker of the marker set is in " + cfg.input);
      frames_ = trial_.numFrames();
      file_rate_ = trial_.data_rate > 0.0 ? trial_.data_rate : 100.0;
    } else {
      if (!cfg.markerset.empty()) throw InvalidArgument("--markerset goes with a marker trial (.c3d/.trc) --input");
      capture_ = track::loadCapture(cfg.input);
      if (capture_.kind != track::CaptureKind::Mvnx)
        throw InvalidArgument("--input: expected an .mvnx file (segment poses) or a .c3d/.trc marker trial, got " +
                              cfg.input);
      names_ = capture_.clip.segment_names;
      frames_ = capture_.clip.numFrames();
      file_rate_ = 1.0 / track::meanFrameInterval(capture_.clip);
    }
    if (frames_ < 1) throw InvalidArgument("--input: no frames in " + cfg.input);
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

}  // namespace

std::string serverSummaryText(const stream::ServerSummary& s, bool interactive) {
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
  return textTable(rows);
}

Configuration standingPose(const Model& model) {
  Configuration q = nearestFeasible(model, Configuration(model));
  Data data(model);
  forwardKinematics(model, data, q);
  double zmin = std::numeric_limits<double>::infinity();
  for (const Transform& T : data.link) zmin = std::min(zmin, T.p.z());
  if (model.nvBase() > 0 && std::isfinite(zmin)) q.base_position.z() -= zmin;
  return q;
}

std::string serveBannerText(const ServeOptions& o, const stream::Server& server) {
  const stream::ServerOptions& so = o.server;
  std::string x = fmt::format("kinetrack serve: {} mode, WebSocket ws://{}:{}/", o.interactive ? "interactive" : "live",
                              so.host, server.wsPort());
  if (!so.http_root.empty() || viewer::bundled())
    x += fmt::format(" (viewer http://{}:{}/?ws=auto)", so.host, server.wsPort());
  if (!o.interactive) {
    const bool imus = o.imus || !o.imu_setup.empty(), markers = !o.markerset.empty();
    x += fmt::format(", {} UDP {}:{} ({})",
                     imus      ? "KTP poses (IMU orientations)"
                     : markers ? "KTP markers"
                               : "MXTP",
                     so.host, server.udpPort(),
                     imus || markers ? "and over WebSocket" : "and KTP poses over UDP and WebSocket");
  }
  return x + "\n";
}

std::string latencyCsv(const std::vector<stream::LatencyRecord>& records) {
  std::string out = "seq,source_time_s,latency_us\n";
  for (const auto& r : records) out += fmt::format("{},{:.6f},{:.2f}\n", r.seq, r.source_time, r.latency_us);
  return out;
}

namespace {

// The page the server serves from memory: the bundled viewer (unless --http-root gives another)
// and the model's geometry (meshes.js), so that a browser at http://host:port/?ws=auto draws
// the streamed model with its meshes.
stream::ServerOptions withViewerFiles(stream::ServerOptions so, const Model& model, const std::string& model_file) {
  // An OpenSim model's muscles: their paths go out with every frame.
  if (hasSuffix(model_file, ".osim")) {
    io::OpenSimMuscleSet set = io::readOpenSimMuscles(model_file);
    if (!set.muscles.empty())
      so.muscles = std::make_shared<const muscles::MusclePaths>(
          std::make_shared<const io::OpenSimModel>(io::readOpenSimModel(model_file)), std::move(set));
  }
  if (!viewer::bundled()) return so;
  if (so.http_root.empty())
    for (const viewer::Asset& a : viewer::assets()) so.files["/" + std::string(a.name)] = std::string(a.text);
  so.files["/meshes.js"] = viewer::geometryScript(viewer::viewerGeometry(model, viewer::kDefaultMeshCell));
  return so;
}

}  // namespace

std::unique_ptr<stream::Server> makeServer(const ServeOptions& cfg, const Reporter& reporter) {
  if (cfg.server.queue_depth < 1) throw InvalidArgument("--queue must be >= 1");
  if (cfg.server.ws_port < 0 || cfg.server.ws_port > 65535 || cfg.server.udp_port < 0 || cfg.server.udp_port > 65535)
    throw InvalidArgument("--port/--udp-port must be in [0, 65535]");
  std::unique_ptr<stream::Server> server;
  stream::ServerOptions so = cfg.server;
  so.model_name = cfg.model.model;
  if (cfg.interactive) {
    if (!cfg.layout.empty() || !cfg.markerset.empty())
      throw InvalidArgument("--interactive takes no --layout or --markerset: clients drive the model");
    Model model = loadModel(cfg.model, reporter).model;
    // --retarget on the iCub: the robot's coupled shoulder/forearm rows (hard limits of the
    // pin-and-drag IK) and velocity limits, as `kinetrack retarget` uses them.
    if (cfg.retarget && isIcub(model)) model = icubForRetargeting(model);
    server = std::make_unique<stream::Server>(model, standingPose(model), withViewerFiles(so, model, cfg.model.model));
  } else if (cfg.imus || !cfg.imu_setup.empty()) {
    if (!cfg.layout.empty() || !cfg.markerset.empty())
      throw InvalidArgument("--imus tracks IMU orientations: no --layout or --markerset");
    auto input = imuInput(cfg, reporter);
    const stream::ServerOptions files = withViewerFiles(so, input->model(), cfg.model.model);
    server = std::make_unique<stream::Server>(std::move(input), files);
  } else if (!cfg.markerset.empty()) {
    if (!cfg.layout.empty())
      throw InvalidArgument("--layout (segment poses) and --markerset (markers): one or the other");
    auto input = markerInput(cfg, reporter);
    const stream::ServerOptions files = withViewerFiles(so, input->model(), cfg.model.model);
    server = std::make_unique<stream::Server>(std::move(input), files);
  } else {
    if (cfg.layout.empty())
      throw InvalidArgument(
          "--layout FILE.mvnx (segment poses) or --markerset SET (markers) is required without --interactive: the "
          "subject's MVNX file gives the segment order of the stream and the calibration poses");
    const track::Capture capture = track::loadCapture(cfg.layout);
    if (capture.kind != track::CaptureKind::Mvnx)
      throw InvalidArgument("--layout: expected an .mvnx file, got " + cfg.layout);
    track::PlanOptions po;
    po.calibration = cfg.calibration;
    track::TrackSetup setup;
    track::TrackerOptions to;
    if (cfg.retarget) {  // the job of `kinetrack retarget`, planned on the layout
      RetargetOptions ro;
      ro.map = cfg.map;
      ro.calibration = cfg.calibration;
      ro.solver = cfg.solver;
      ro.max_step_deg = cfg.max_step_deg;
      ro.contacts = cfg.contacts;
      ro.collisions = cfg.collisions;
      ro.collision_margin = cfg.collision_margin;
      const Model robot = loadModel(cfg.model, reporter).model;
      Reporter notes = reporter;  // --quiet: no robot map printed
      if (cfg.quiet) notes.note = {};
      RetargetJob job = prepareRetarget(ro, notes, &robot, &capture);
      setup.model = *job.model;
      setup.plan = std::move(job.plan);
      to = job.tracker;
    } else {
      setup = track::setupOnModel(loadModel(cfg.model, reporter).model, capture, cfg.map, po);
    }
    to.kappa = cfg.kappa;
    to.max_step_rotation = cfg.max_step_deg * M_PI / 180.0;
    to.max_substeps = cfg.max_substeps;
    setSolver(to, cfg.solver);
    const double rate = cfg.rate > 0.0 ? cfg.rate : 1.0 / track::meanFrameInterval(capture.clip);
    auto live = std::make_unique<stream::LiveTracker>(setup, capture.clip.segment_names, to, rate);
    const stream::ServerOptions files = withViewerFiles(so, live->model(), cfg.model.model);
    server = std::make_unique<stream::Server>(std::move(live), files);
  }
  return server;
}

ReplayResult runReplay(const ReplayOptions& cfg, const Reporter& reporter) {
  if (!cfg.ws.empty() && cfg.protocol == "mxtp") throw InvalidArgument("--ws carries KTP messages: MXTP is UDP only");
  if (cfg.rate < 0.0) throw InvalidArgument("--rate must be >= 0 (0: the file's own frame rate)");
  if (cfg.loops < 1) throw InvalidArgument("--loops must be >= 1");
  if (cfg.fault_every < 1) throw InvalidArgument("--fault-every must be >= 1");
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
    if (fd < 0) throw InvalidArgument("replay: cannot open a UDP socket");
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
  const int progress_total = static_cast<int>(std::min<long>(total, std::numeric_limits<int>::max()));
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
    if (k % 64 == 0)
      reporter.report(static_cast<int>(std::min<long>(k + 1, std::numeric_limits<int>::max())), progress_total);
    if (!inject) continue;
    ++counts[static_cast<int>(fault)];
    std::vector<std::uint8_t> bad(msg.begin(), msg.end());
    if (fault == Fault::Malformed) bad[3] = 'Q';
    if (fault == Fault::Truncated) bad.resize(msg.size() / 2);
    if (fault == Fault::Oversized) bad.resize(msg.size() + 16, 0);
    send(bad.data(), bad.size());
    ++sent;
  }
  reporter.report(progress_total, progress_total);
  if (fd >= 0) ::close(fd);
  if (ws) {  // the server's answers to the bad messages: each one is answered; wait (at most 5 s) for them
    const long expected = counts[0] + counts[1] + counts[2];
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    while (ws->errors() < expected && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ReplayResult r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.protocol = source.protocol();
  r.rate = rate;
  r.frames_in_file = n;
  r.frames = frames;
  r.sent = sent;
  for (int i = 0; i < 5; ++i) r.injected[i] = counts[i];
  r.error_replies = ws ? ws->errors() : -1;
  r.binary = binary;
  return r;
}

std::string summaryText(const ReplayResult& r, const ReplayOptions& cfg) {
  const bool ws = r.error_replies >= 0;
  std::vector<std::vector<std::string>> rows{{"quantity", "value"}};
  rows.push_back({"input", cfg.input});
  rows.push_back({"protocol", r.protocol + (ws ? " over WebSocket " + cfg.ws : " over UDP " + cfg.to)});
  rows.push_back({"rate (Hz)", fmt::format("{:.2f}", r.rate)});
  rows.push_back({"frames in file x loops", fmt::format("{} x {}", r.frames_in_file, cfg.loops)});
  rows.push_back({"well-formed frames sent in order", row(r.frames)});
  rows.push_back({ws ? "messages sent" : "datagrams sent", row(r.sent)});
  rows.push_back({"injected malformed", row(r.injected[0])});
  rows.push_back({"injected truncated", row(r.injected[1])});
  rows.push_back({"injected oversized", row(r.injected[2])});
  rows.push_back({"injected duplicate", row(r.injected[3])});
  rows.push_back({"injected reorder (late frames)", row(r.injected[4])});
  if (ws) rows.push_back({"error replies from the server", row(r.error_replies)});
  rows.push_back({"run time (s)", fmt::format("{:.2f}", r.seconds)});
  std::string t = textTable(rows);
  if (!r.binary && r.injected[1] + r.injected[2] > 0)
    t += "note: ktp-json has no length field: the server counts truncated and oversized copies as malformed\n";
  return t;
}

}  // namespace kinetrack::app
