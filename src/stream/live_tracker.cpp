// The per-datagram tracking path of `kinetrack serve` and the viewer-protocol JSON encoders.
#include "kinetrack/stream/live_tracker.hpp"

#include <fmt/format.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::stream {

LatencyHistogram::LatencyHistogram() : bins_(new std::atomic<std::uint32_t>[kBins + 1]) {
  for (std::size_t i = 0; i <= kBins; ++i) bins_[i].store(0);
}

void LatencyHistogram::add(double us) {
  if (!std::isfinite(us) || us < 0.0) us = 0.0;
  const auto bin = static_cast<std::size_t>(std::min(us * 10.0, static_cast<double>(kBins)));
  bins_[bin].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  const auto ns = static_cast<std::int64_t>(us * 1e3);
  std::int64_t old = max_ns_.load();
  while (ns > old && !max_ns_.compare_exchange_weak(old, ns)) {
  }
}

double LatencyHistogram::quantile(double q) const {
  const long n = count_.load();
  if (n == 0) return 0.0;
  const auto rank = static_cast<long>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(n)));
  long seen = 0;
  for (std::size_t i = 0; i <= kBins; ++i) {
    seen += bins_[i].load(std::memory_order_relaxed);
    if (seen >= std::max(rank, 1L)) return i == kBins ? max() : (static_cast<double>(i) + 0.5) * 0.1;
  }
  return max();
}

LiveInput::LiveInput(double rate_hz) : rate_hz_(rate_hz) {
  if (!(rate_hz > 0.0) || !std::isfinite(rate_hz))
    throw InvalidArgument("live input: the input rate must be positive, got " + std::to_string(rate_hz));
}

LiveInput::~LiveInput() = default;

DatagramResult LiveInput::reject(ParseStatus s, const char* reason) {
  switch (s) {
    case ParseStatus::Ok: break;
    case ParseStatus::Truncated: ++counters_.truncated; break;
    case ParseStatus::Oversized: ++counters_.oversized; break;
    case ParseStatus::Malformed: ++counters_.malformed; break;
    case ParseStatus::Unsupported: ++counters_.unsupported; break;
  }
  std::snprintf(error_.data(), error_.size(), "%s", reason);
  return DatagramResult::Rejected;
}

DatagramResult LiveInput::admit(std::uint32_t seq, double time) {
  switch (sequencer_.offer(seq)) {
    case FrameSequencer::Verdict::Accept: break;
    case FrameSequencer::Verdict::Duplicate: ++counters_.duplicates; return DatagramResult::Duplicate;
    case FrameSequencer::Verdict::OutOfOrder: ++counters_.out_of_order; return DatagramResult::OutOfOrder;
  }
  counters_.skipped = sequencer_.skipped();
  if (time <= last_time_) {  // a newer frame with an older time: the trackers need increasing time
    ++counters_.out_of_order;
    return DatagramResult::OutOfOrder;
  }
  last_time_ = time;
  seq_ = seq;
  source_time_ = time;
  return DatagramResult::Tracked;
}

namespace {

/// MXTP datagrams start with "MXTP" (a shorter datagram: a prefix of it).
bool isMxtp(std::span<const std::uint8_t> bytes) {
  const std::size_t n = std::min<std::size_t>(bytes.size(), 4);
  return n > 0 && std::memcmp(bytes.data(), "MXTP", n) == 0;
}

const char* mxtpReason(ParseStatus s) {
  switch (s) {
    case ParseStatus::Truncated: return "MXTP: truncated datagram";
    case ParseStatus::Oversized: return "MXTP: oversized datagram";
    case ParseStatus::Malformed: return "MXTP: malformed datagram";
    case ParseStatus::Unsupported: return "MXTP: unsupported message type (only 02, one datagram per sample)";
    case ParseStatus::Ok: break;
  }
  return "";
}

}  // namespace

LiveTracker::LiveTracker(const track::TrackSetup& setup, std::vector<std::string> segment_names,
                         const track::TrackerOptions& options, double rate_hz)
    : LiveInput(rate_hz),
      model_(std::make_shared<const Model>(setup.model)),
      plan_(setup.plan),
      data_(*model_),
      ktp_(std::make_unique<KtpFrame>()) {
  if (segment_names.empty()) throw InvalidArgument("LiveTracker: no segments");
  const std::size_t n = segment_names.size();
  frame_clip_.segment_names = std::move(segment_names);
  frame_clip_.segment_parent.assign(n, -1);
  frame_clip_.times = {0.0};
  frame_clip_.poses.assign(n, Transform{});
  frame_clip_.valid.assign(n, 0);
  track::checkBindings(frame_clip_, plan_.bindings);
  track::TrackerOptions o = options;
  o.first_frame_interval = 1.0 / rate_hz;
  std::vector<track::StreamTarget> targets = track::streamTargets(plan_.bindings);
  if (plan_.soles) {
    const track::SoleContactPlan& sp = *plan_.soles;
    if (sp.feet.size() != sp.frames.size())
      throw InvalidArgument("LiveTracker: held soles need the live detector's feet (SoleContactPlan::feet)");
    soles_ = std::make_unique<track::SoleContacts>(*model_, sp);
    feet_ = std::make_unique<track::FootContactTracker>(sp.feet, sp.contacts.point_levels, sp.detector);
    for (track::StreamTarget& t : soles_->targets()) targets.push_back(std::move(t));
    down_.assign(sp.frames.size(), 0);
  }
  tracker_ = std::make_unique<track::StreamTracker>(model_, std::move(targets), o);
  tracker_->setState(plan_.initial);
  R_.assign(static_cast<std::size_t>(tracker_->numTargets()), Matrix3d::Identity());
  p_.assign(static_cast<std::size_t>(tracker_->numTargets()), Vector3d::Zero());
  if (soles_) active_.assign(R_.size(), 1);
  for (std::size_t i = 0; i < plan_.bindings.size(); ++i)
    if (plan_.bindings[i].position) {
      position_targets_.push_back(static_cast<int>(i));
      target_names_.push_back(plan_.bindings[i].frame);
    }
  target_p_.assign(position_targets_.size(), Vector3d::Zero());
  forwardKinematics(*model_, data_, tracker_->state());
}

DatagramResult LiveTracker::onDatagram(std::span<const std::uint8_t> bytes) {
  ++counters_.datagrams;
  auto setPose = [this](std::size_t k, double qw, double qx, double qy, double qz, const Vector3d& p) {
    frame_clip_.poses[k].R = Eigen::Quaterniond(qw, qx, qy, qz).normalized().toRotationMatrix();
    frame_clip_.poses[k].p = p;
    frame_clip_.valid[k] = 1;
  };
  const std::size_t n = frame_clip_.segment_names.size();
  if (isMxtp(bytes)) {
    const ParseStatus s = parseMxtp(bytes, datagram_);
    if (s != ParseStatus::Ok) return reject(s, mxtpReason(s));
    const MxtpHeader& h = datagram_.header;
    if (const DatagramResult r = admit(h.sample, static_cast<double>(h.time_ms) * 1e-3); r != DatagramResult::Tracked)
      return r;
    std::fill(frame_clip_.valid.begin(), frame_clip_.valid.end(), std::uint8_t{0});
    for (int i = 0; i < datagram_.count; ++i) {
      const MxtpSegmentPose& g = datagram_.segments[static_cast<std::size_t>(i)];
      const auto k = static_cast<std::size_t>(g.id - 1);
      if (k >= n) continue;  // props and finger segments beyond the body's
      setPose(k, g.quaternion[0], g.quaternion[1], g.quaternion[2], g.quaternion[3],
              Vector3d(g.position[0], g.position[1], g.position[2]));
    }
    return trackFrame();
  }
  const ParseStatus s = parseKtp(bytes, KtpKind::Poses, frame_clip_.segment_names, *ktp_);
  if (s != ParseStatus::Ok) return reject(s, ktp_->errorText());
  if (const DatagramResult r = admit(ktp_->seq, ktp_->time); r != DatagramResult::Tracked) return r;
  std::fill(frame_clip_.valid.begin(), frame_clip_.valid.end(), std::uint8_t{0});
  for (int i = 0; i < ktp_->count; ++i) {
    const KtpItem& it = ktp_->items[static_cast<std::size_t>(i)];
    setPose(static_cast<std::size_t>(it.index), it.q[0], it.q[1], it.q[2], it.q[3],
            Vector3d(it.p[0], it.p[1], it.p[2]));
  }
  return trackFrame();
}

DatagramResult LiveTracker::trackFrame() {
  const std::size_t nb = plan_.bindings.size();
  const bool valid = track::clipFrameTargets(frame_clip_, plan_.bindings, plan_.alignment, 0, std::span(R_).first(nb),
                                             std::span(p_).first(nb));
  if (soles_) {
    feet_->update(source_time_, frame_clip_, 0, down_);
    soles_->frame(down_, frame_clip_, 0, plan_.alignment, tracker_->solver().data(), std::span(R_).subspan(nb),
                  std::span(p_).subspan(nb), std::span(active_).subspan(nb));
  }
  for (std::size_t i = 0; i < position_targets_.size(); ++i)
    target_p_[i] = p_[static_cast<std::size_t>(position_targets_[i])];
  track::FrameOutcome o;
  try {
    o = tracker_->track(source_time_, R_, p_, valid, active_);
  } catch (const InvalidArgument&) {  // unreachable for parsed data (finite, unit quaternions); never fatal
    ++counters_.failed;
    status_ = "failed";
    return DatagramResult::Rejected;
  }
  forwardKinematics(*model_, data_, tracker_->state());
  return tracked(o.gap, o.non_finite);
}

std::string LiveTracker::hello(const std::string& model_name) const {
  return helloJson(*model_, model_name, false, rate_hz_, KtpKind::Poses, frame_clip_.segment_names);
}

// -- markers ---------------------------------------------------------------------------------

MarkerLiveTracker::MarkerLiveTracker(const track::MarkerIkSpec& spec, double rate_hz)
    : LiveInput(rate_hz),
      tracker_(std::make_unique<track::MarkerStreamTracker>(spec)),
      ktp_(std::make_unique<KtpFrame>()) {
  for (const auto& m : spec.markers) names_.push_back(m.name);
  if (names_.empty()) throw InvalidArgument("MarkerLiveTracker: no markers");
  if (names_.size() > kKtpMaxItems)
    throw InvalidArgument("MarkerLiveTracker: " + std::to_string(names_.size()) + " markers, more than the " +
                          std::to_string(kKtpMaxItems) + " a KTP message can carry");
  obs_.assign(names_.size(), Vector3d::Constant(std::numeric_limits<double>::quiet_NaN()));
}

MarkerLiveTracker::~MarkerLiveTracker() = default;

const Model& MarkerLiveTracker::model() const { return tracker_->model(); }
const Configuration& MarkerLiveTracker::state() const { return tracker_->state(); }
const Data& MarkerLiveTracker::data() const { return tracker_->solver().data(); }

DatagramResult MarkerLiveTracker::onDatagram(std::span<const std::uint8_t> bytes) {
  ++counters_.datagrams;
  if (isMxtp(bytes))
    return reject(ParseStatus::Unsupported, "MXTP segment poses: this server tracks markers (KTP markers messages)");
  const ParseStatus s = parseKtp(bytes, KtpKind::Markers, names_, *ktp_);
  if (s != ParseStatus::Ok) return reject(s, ktp_->errorText());
  if (const DatagramResult r = admit(ktp_->seq, ktp_->time); r != DatagramResult::Tracked) return r;
  std::fill(obs_.begin(), obs_.end(), Vector3d::Constant(std::numeric_limits<double>::quiet_NaN()));
  for (int i = 0; i < ktp_->count; ++i) {
    const KtpItem& it = ktp_->items[static_cast<std::size_t>(i)];
    obs_[static_cast<std::size_t>(it.index)] = Vector3d(it.p[0], it.p[1], it.p[2]);
  }
  last_ = tracker_->track(source_time_, obs_);
  return tracked(last_.gap, last_.status == ik::Status::Failed);
}

DatagramResult LiveInput::tracked(bool gap, bool failed) {
  ++counters_.frames;
  if (gap) {
    ++counters_.gaps;
    status_ = "gap";
    return DatagramResult::Gap;
  }
  if (failed) ++counters_.failed;
  status_ = failed ? "failed" : "ok";
  return DatagramResult::Tracked;
}

ImuLiveTracker::ImuLiveTracker(const track::ImuIkSpec& spec, double rate_hz)
    : LiveInput(rate_hz),
      tracker_(std::make_unique<track::ImuStreamTracker>(spec)),
      ktp_(std::make_unique<KtpFrame>()) {
  for (const auto& s : spec.sensors) {
    names_.push_back(s.name);
    frames_.push_back(tracker_->model().frameId(s.frame));
  }
  if (names_.empty()) throw InvalidArgument("ImuLiveTracker: no IMUs");
  if (names_.size() > kKtpMaxItems)
    throw InvalidArgument("ImuLiveTracker: " + std::to_string(names_.size()) + " IMUs, more than the " +
                          std::to_string(kKtpMaxItems) + " a KTP message can carry");
  obs_.assign(names_.size(), Eigen::Quaterniond(NAN, NAN, NAN, NAN));
  positions_.assign(names_.size(), Vector3d::Constant(std::numeric_limits<double>::quiet_NaN()));
}

ImuLiveTracker::~ImuLiveTracker() = default;

const Model& ImuLiveTracker::model() const { return tracker_->model(); }
const Configuration& ImuLiveTracker::state() const { return tracker_->state(); }
const Data& ImuLiveTracker::data() const { return tracker_->solver().data(); }

DatagramResult ImuLiveTracker::onDatagram(std::span<const std::uint8_t> bytes) {
  ++counters_.datagrams;
  if (isMxtp(bytes))
    return reject(ParseStatus::Unsupported, "MXTP segment poses: this server tracks IMUs (KTP poses messages)");
  const ParseStatus s = parseKtp(bytes, KtpKind::Poses, names_, *ktp_);
  if (s != ParseStatus::Ok) return reject(s, ktp_->errorText());
  if (const DatagramResult r = admit(ktp_->seq, ktp_->time); r != DatagramResult::Tracked) return r;
  std::fill(obs_.begin(), obs_.end(), Eigen::Quaterniond(NAN, NAN, NAN, NAN));
  for (int i = 0; i < ktp_->count; ++i) {
    const KtpItem& it = ktp_->items[static_cast<std::size_t>(i)];
    obs_[static_cast<std::size_t>(it.index)] = Eigen::Quaterniond(it.q[0], it.q[1], it.q[2], it.q[3]);
  }
  last_ = tracker_->track(source_time_, obs_);
  const Data& d = tracker_->solver().data();
  for (std::size_t i = 0; i < frames_.size(); ++i)
    positions_[i] = d.frame[static_cast<std::size_t>(frames_[i].value)].p;
  return tracked(last_.gap, last_.status == ik::Status::Failed);
}

std::size_t ImuLiveTracker::frameCapacity() const { return messageCapacity(model(), names_.size()); }

void ImuLiveTracker::encodeFrame(double latency_us, std::string& out) const {
  out.clear();
  appendFrameJson(model(), state(), data(), frameMessage(latency_us), names_, positions_, out);
}

std::string ImuLiveTracker::hello(const std::string& model_name) const {
  return helloJson(model(), model_name, false, rate_hz_, KtpKind::Poses, names_);
}

FrameMessage LiveInput::frameMessage(double latency_us) const {
  FrameMessage m;
  m.seq = seq_;
  m.source_time = source_time_;
  m.latency_us = latency_us;
  m.status = status_;
  return m;
}

std::size_t LiveInput::messageCapacity(const Model& m, std::size_t names) {
  return 512 + 32 * static_cast<std::size_t>(m.numJoints() + 7) + 200 * static_cast<std::size_t>(m.numLinks()) +
         128 * names;
}

std::size_t MarkerLiveTracker::frameCapacity() const { return messageCapacity(model(), names_.size()); }

void MarkerLiveTracker::encodeFrame(double latency_us, std::string& out) const {
  out.clear();
  appendFrameJson(model(), state(), data(), frameMessage(latency_us), names_, obs_, out);
}

std::string MarkerLiveTracker::hello(const std::string& model_name) const {
  return helloJson(model(), model_name, false, rate_hz_, KtpKind::Markers, names_);
}

std::size_t LiveTracker::frameCapacity() const { return messageCapacity(*model_, plan_.bindings.size()); }

void LiveTracker::encodeFrame(double latency_us, std::string& out) const {
  out.clear();
  appendFrameJson(*model_, tracker_->state(), data_, frameMessage(latency_us), target_names_, target_p_, out);
}

namespace {

/// Appends v with `digits` decimals (|v| < 9e12; larger or non-finite values as JSON null).
/// Integer arithmetic: several times faster than printf-style fixed formatting, which dominated
/// the frame message (about 500 numbers for human66).
void appendFixed(std::string& out, double v, int digits) {
  static constexpr std::array<double, 10> kScale{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9};
  if (!std::isfinite(v) || std::abs(v) >= 9e12) {
    out += "null";
    return;
  }
  const auto scaled = std::llround(std::abs(v) * kScale[static_cast<std::size_t>(digits)]);
  if (v < 0 && scaled != 0) out += '-';
  const auto unit = static_cast<long long>(kScale[static_cast<std::size_t>(digits)]);
  fmt::format_to(std::back_inserter(out), "{}", scaled / unit);
  if (digits == 0) return;
  out += '.';
  char frac[16];
  long long f = scaled % unit;
  for (int i = digits - 1; i >= 0; --i, f /= 10) frac[i] = static_cast<char>('0' + f % 10);
  out.append(frac, static_cast<std::size_t>(digits));
}

}  // namespace

void appendFrameJson(const Model& model, const Configuration& q, const Data& data, const FrameMessage& m,
                     std::span<const std::string> target_names, std::span<const Vector3d> target_positions,
                     std::string& out) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{{\"type\":\"frame\",\"seq\":{},\"source_time\":", m.seq);
  appendFixed(out, m.source_time, 6);
  out += ",\"latency_us\":";
  appendFixed(out, m.latency_us, 1);
  fmt::format_to(it, ",\"status\":\"{}\",\"q\":[", m.status);
  const Eigen::Vector4d bq = so3::toQuaternionWxyz(q.base_rotation);
  for (int k = 0; k < 3; ++k) {
    appendFixed(out, q.base_position[k], 6);
    out += ',';
  }
  for (int k = 0; k < 4; ++k) {
    appendFixed(out, bq[k], 6);
    if (k < 3 || q.joints.size() > 0) out += ',';
  }
  for (Eigen::Index j = 0; j < q.joints.size(); ++j) {
    appendFixed(out, q.joints[j], 6);
    if (j + 1 < q.joints.size()) out += ',';
  }
  out += "],\"links\":[";
  for (int l = 0; l < model.numLinks(); ++l) {
    const Transform& T = data.link[static_cast<std::size_t>(l)];
    const Eigen::Vector4d lq = so3::toQuaternionWxyz(T.R);
    out += l == 0 ? "[" : ",[";
    for (int k = 0; k < 3; ++k) {
      appendFixed(out, T.p[k], 5);
      out += ',';
    }
    for (int k = 0; k < 4; ++k) {
      appendFixed(out, lq[k], 5);
      out += k < 3 ? ',' : ']';
    }
  }
  fmt::format_to(it, "],\"targets\":[");
  bool first = true;
  for (std::size_t i = 0; i < target_names.size() && i < target_positions.size(); ++i) {
    if (!target_positions[i].allFinite()) continue;  // a missing marker: no target this frame
    fmt::format_to(it, "{}{{\"link\":\"{}\",\"p\":[{:.6f},{:.6f},{:.6f}]}}", first ? "" : ",", target_names[i],
                   target_positions[i].x(), target_positions[i].y(), target_positions[i].z());
    first = false;
  }
  fmt::format_to(it, "],\"pins\":[");
  for (std::size_t i = 0; i < m.pins.size(); ++i) fmt::format_to(it, "{}\"{}\"", i == 0 ? "" : ",", m.pins[i]);
  fmt::format_to(it, "],\"drags\":[");
  for (std::size_t i = 0; i < m.drags.size(); ++i) fmt::format_to(it, "{}\"{}\"", i == 0 ? "" : ",", m.drags[i]);
  fmt::format_to(it, "]}}");
}

std::string helloJson(const Model& model, const std::string& model_name, bool interactive, double rate_hz,
                      KtpKind input_kind, std::span<const std::string> input_names) {
  nlohmann::json links = nlohmann::json::array();
  for (int l = 0; l < model.numLinks(); ++l) {
    const LinkId parent = model.parent(LinkId(l));
    links.push_back({{"name", model.linkName(LinkId(l))}, {"parent", l == 0 ? -1 : parent.value}});
  }
  const Vector3d& u = model.up();
  const nlohmann::json up = {u.x() + 0.0, u.y() + 0.0, u.z() + 0.0};
  std::vector<int> slides;  // links moved by a prismatic joint: no bone is drawn to them
  for (int j = 0; j < model.numJoints(); ++j)
    if (model.jointType(JointId(j)) == JointType::Prismatic) slides.push_back(j + 1);
  nlohmann::json j = {{"type", "hello"},
                      {"version", 1},
                      {"mode", interactive ? "interactive" : "live"},
                      {"model", {{"name", model_name}, {"links", links}, {"up", up}, {"slides", slides}}},
                      {"joint_names", model.jointNames()},
                      {"rate_hz", rate_hz}};
  if (!interactive) {
    nlohmann::json protocols = nlohmann::json::array();
    if (input_kind == KtpKind::Poses) protocols.push_back("mxtp");
    protocols.push_back("ktp");
    j["input"] = {{"protocols", protocols},
                  {"ktp_version", kKtpVersion},
                  {"kind", toString(input_kind)},
                  {"names", std::vector<std::string>(input_names.begin(), input_names.end())}};
  }
  return j.dump();
}

std::string statsJson(const LiveCounters& c, const LatencyHistogram& latency) {
  return fmt::format(
      "{{\"type\":\"stats\",\"frames\":{},\"dropped\":{},\"malformed\":{},\"duplicates\":{},\"out_of_order\":{},"
      "\"truncated\":{},\"oversized\":{},\"unsupported\":{},\"latency_p50_us\":{:.1f},\"latency_p99_us\":{:.1f},"
      "\"latency_max_us\":{:.1f}}}",
      c.frames.load(), c.dropped.load(), c.malformed.load(), c.duplicates.load(), c.out_of_order.load(),
      c.truncated.load(), c.oversized.load(), c.unsupported.load(), latency.quantile(0.5), latency.quantile(0.99),
      latency.max());
}

void clipFrameDatagram(const io::MotionClip& clip, int f, double rate_hz, MxtpPoseDatagram& out) {
  const int n = std::min(clip.numSegments(), static_cast<int>(kMxtpMaxItems));
  out.header = MxtpHeader{};
  out.header.sample = static_cast<std::uint32_t>(f);
  const double t = rate_hz > 0.0 ? f / rate_hz : clip.times[static_cast<std::size_t>(f)] - clip.times.front();
  out.header.time_ms = static_cast<std::uint32_t>(std::llround(t * 1e3));
  out.header.body_segments = static_cast<std::uint8_t>(n);
  out.count = 0;
  for (int s = 0; s < n; ++s) {
    if (!clip.isValid(f, s)) continue;
    const Transform& T = clip.pose(f, s);
    const Eigen::Vector4d q = so3::toQuaternionWxyz(T.R);
    MxtpSegmentPose& r = out.segments[static_cast<std::size_t>(out.count++)];
    r.id = s + 1;
    r.position = {static_cast<float>(T.p.x()), static_cast<float>(T.p.y()), static_cast<float>(T.p.z())};
    r.quaternion = {static_cast<float>(q[0]), static_cast<float>(q[1]), static_cast<float>(q[2]),
                    static_cast<float>(q[3])};
  }
}

}  // namespace kinetrack::stream
