#pragma once
// The per-datagram path of `kinetrack serve`: a datagram in (MXTP or the kinetrack protocol KTP;
// parse, sequence), one frame tracked (segment poses: StreamTracker on the plan of `kinetrack
// track`; markers: marker IK as `kinetrack markers ik`), the model's link poses after forward
// kinematics, and the frame as a JSON message of the viewer protocol (docs/streaming.md).
// Everything is sized at construction: onDatagram on binary input and the frame encoders do not
// allocate (KTP JSON input is parsed into a document, which does).
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/model/data.hpp"
#include "kinetrack/stream/ktp.hpp"
#include "kinetrack/stream/mxtp.hpp"
#include "kinetrack/track/imu_tracking.hpp"
#include "kinetrack/track/marker_trial.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/sole_contacts.hpp"

namespace kinetrack::stream {

struct FrameMessage;  // below: the viewer protocol's frame header

/// Counters of a live run (read from other threads: atomics).
struct LiveCounters {
  std::atomic<long> datagrams{0}, frames{0}, truncated{0}, oversized{0}, malformed{0}, unsupported{0};
  std::atomic<long> duplicates{0}, out_of_order{0}, skipped{0}, gaps{0}, failed{0};
  std::atomic<long> dropped{0};  ///< messages a client queue could not take (slow or stalled client)
  [[nodiscard]] long rejected() const { return truncated + oversized + malformed + unsupported; }
};

/// Latency histogram: 0.1 µs bins up to 20 ms, one overflow bin, exact maximum. Lock-free adds.
class LatencyHistogram {
 public:
  LatencyHistogram();
  void add(double us);
  [[nodiscard]] long count() const { return count_.load(); }
  /// The q-quantile (0..1) in µs (bin centre), 0 when empty.
  [[nodiscard]] double quantile(double q) const;
  [[nodiscard]] double max() const { return static_cast<double>(max_ns_.load()) * 1e-3; }

 private:
  static constexpr std::size_t kBins = 200000;
  std::unique_ptr<std::atomic<std::uint32_t>[]> bins_;
  std::atomic<long> count_{0};
  std::atomic<std::int64_t> max_ns_{0};
};

/// What onDatagram did with one datagram.
enum class DatagramResult : std::uint8_t { Tracked, Rejected, Duplicate, OutOfOrder, Gap };

/// A live input of `kinetrack serve`: datagrams (UDP) or messages (WebSocket) in, one tracked
/// frame each, the frame message of the viewer protocol out. Implementations: LiveTracker
/// (segment poses: MXTP type 02 or KTP poses → DYN on a model), MarkerLiveTracker (KTP markers →
/// marker IK on a model with a marker set). Not thread-safe: one tracking thread calls it.
class LiveInput {
 public:
  virtual ~LiveInput();
  LiveInput(const LiveInput&) = delete;
  LiveInput& operator=(const LiveInput&) = delete;

  /// Parses, sequences and tracks one datagram or message; counts every outcome in counters().
  virtual DatagramResult onDatagram(std::span<const std::uint8_t> bytes) = 0;
  [[nodiscard]] virtual const Model& model() const = 0;
  [[nodiscard]] virtual const Configuration& state() const = 0;
  [[nodiscard]] virtual const Data& data() const = 0;  ///< link poses of the last tracked frame
  /// Appends the frame message (viewer protocol) to `out`, cleared first; no allocation once
  /// `out` has reserved enough (frameCapacity()).
  virtual void encodeFrame(double latency_us, std::string& out) const = 0;
  [[nodiscard]] virtual std::size_t frameCapacity() const = 0;
  /// The hello message, with this input's protocols and names (docs/streaming.md).
  [[nodiscard]] virtual std::string hello(const std::string& model_name) const = 0;

  [[nodiscard]] std::uint32_t sequence() const { return seq_; }
  [[nodiscard]] double sourceTime() const { return source_time_; }
  [[nodiscard]] const char* status() const { return status_; }
  LiveCounters& counters() { return counters_; }
  [[nodiscard]] const LiveCounters& counters() const { return counters_; }
  [[nodiscard]] double rate() const { return rate_hz_; }
  /// Why the last rejected datagram was rejected (the KTP parser's reason; "" when none).
  [[nodiscard]] const char* lastError() const { return error_.data(); }

 protected:
  explicit LiveInput(double rate_hz);
  /// Counts a parse failure (its class) and keeps `reason`; returns Rejected.
  DatagramResult reject(ParseStatus s, const char* reason);
  /// Orders a parsed frame (sequence number, then strictly increasing time): Tracked when it is
  /// to be tracked (seq and source time recorded), else Duplicate / OutOfOrder, counted.
  DatagramResult admit(std::uint32_t seq, double time);
  /// Counts a tracked frame and sets the status: Gap ("gap") for a held frame, else Tracked
  /// ("failed" when the solve failed, else "ok").
  DatagramResult tracked(bool gap, bool failed);
  /// The frame message's header fields of the last tracked frame.
  [[nodiscard]] FrameMessage frameMessage(double latency_us) const;
  /// Bytes a frame message of `model` naming `names` targets or markers needs (frameCapacity()).
  static std::size_t messageCapacity(const Model& model, std::size_t names);

  LiveCounters counters_;
  FrameSequencer sequencer_;
  double rate_hz_ = 60.0, source_time_ = 0.0, last_time_ = -1.0;
  std::uint32_t seq_ = 0;
  const char* status_ = "ok";
  std::array<char, 160> error_{};
};

/// Segment poses in — MXTP type 02 (segment ID k = layout segment k − 1) or KTP poses (index k =
/// layout segment k) over the same socket — tracked with DYN (or the chosen solver) as
/// `kinetrack track` does on the layout file. A plan with held soles (`kinetrack retarget` onto a
/// humanoid: app::prepareRetarget) holds them while the person's feet are down, the contacts
/// found as frames arrive (track::FootContactTracker on the plan's feet, their ground levels and thresholds).
class LiveTracker final : public LiveInput {
 public:
  /// Tracks segment poses onto `setup.model` with `options` (the plan of
  /// track::setupOnModel on a capture whose segments are `segment_names`, in MVN order).
  /// `rate_hz` (> 0) is the nominal input rate (first-frame interval, hello).
  LiveTracker(const track::TrackSetup& setup, std::vector<std::string> segment_names,
              const track::TrackerOptions& options, double rate_hz);

  DatagramResult onDatagram(std::span<const std::uint8_t> bytes) override;
  [[nodiscard]] const Model& model() const override { return *model_; }
  [[nodiscard]] const Configuration& state() const override { return tracker_->state(); }
  [[nodiscard]] const Data& data() const override { return data_; }
  void encodeFrame(double latency_us, std::string& out) const override;
  [[nodiscard]] std::size_t frameCapacity() const override;
  [[nodiscard]] std::string hello(const std::string& model_name) const override;
  [[nodiscard]] const std::vector<std::string>& segmentNames() const { return frame_clip_.segment_names; }
  /// Positions of the position targets of the last tracked frame (frame name, p).
  [[nodiscard]] int numPositionTargets() const { return static_cast<int>(position_targets_.size()); }
  /// The person's foot contacts of the last tracked frame, one per held sole (empty without).
  [[nodiscard]] std::span<const std::uint8_t> footContacts() const { return down_; }

 private:
  DatagramResult trackFrame();  ///< the filled frame clip → targets → one tracked frame

  std::shared_ptr<const Model> model_;
  std::unique_ptr<track::StreamTracker> tracker_;
  track::Retargeting plan_;
  io::MotionClip frame_clip_;  ///< one frame, overwritten per datagram
  std::vector<Matrix3d> R_;
  std::vector<Vector3d> p_;
  std::unique_ptr<track::SoleContacts> soles_;
  std::unique_ptr<track::FootContactTracker> feet_;
  std::vector<std::uint8_t> down_, active_;  // the person's contacts; targets active (with soles)
  std::vector<int> position_targets_;        ///< binding indices with a position
  std::vector<std::string> target_names_;
  std::vector<Vector3d> target_p_;
  Data data_;
  MxtpPoseDatagram datagram_;
  std::unique_ptr<KtpFrame> ktp_;
};

/// Marker positions in (KTP markers; index k = marker k of the spec), tracked with marker IK
/// frame by frame (track::MarkerStreamTracker: base placed on the first frame with three markers,
/// then warm-started) as `kinetrack markers ik` does on a trial. A frame without any weighted
/// marker holds the pose (status "gap"). The frame message's targets are the measured markers.
class MarkerLiveTracker final : public LiveInput {
 public:
  /// `spec` on a model carrying the markers (subject::markerModel; track::markerIkSpec). Throws
  /// InvalidArgument as MarkerStreamTracker does, or for more than kKtpMaxItems markers.
  MarkerLiveTracker(const track::MarkerIkSpec& spec, double rate_hz);
  ~MarkerLiveTracker() override;

  DatagramResult onDatagram(std::span<const std::uint8_t> bytes) override;
  [[nodiscard]] const Model& model() const override;
  [[nodiscard]] const Configuration& state() const override;
  [[nodiscard]] const Data& data() const override;
  void encodeFrame(double latency_us, std::string& out) const override;
  [[nodiscard]] std::size_t frameCapacity() const override;
  [[nodiscard]] std::string hello(const std::string& model_name) const override;
  [[nodiscard]] const std::vector<std::string>& markerNames() const { return names_; }
  /// The last tracked frame's marker-IK row (errors, iterations, gap).
  [[nodiscard]] const track::MarkerFrame& lastFrame() const { return last_; }

 private:
  std::unique_ptr<track::MarkerStreamTracker> tracker_;
  std::vector<std::string> names_;
  std::vector<Vector3d> obs_;
  track::MarkerFrame last_;
  std::unique_ptr<KtpFrame> ktp_;
};

/// IMU orientations in (KTP poses; index k = IMU k of the spec, its quaternion read, its position
/// ignored), tracked frame by frame as `kinetrack imu ik` does on a file (track::ImuStreamTracker:
/// the measured orientations turned by the spec's data rotation, the per-frame orientation solve).
/// An IMU absent from a message is a missing sample; a message without any holds the pose (status
/// "gap"). The frame message's targets are the IMU frames' positions on the model.
class ImuLiveTracker final : public LiveInput {
 public:
  /// Throws InvalidArgument as ImuStreamTracker does, or for more than kKtpMaxItems IMUs.
  ImuLiveTracker(const track::ImuIkSpec& spec, double rate_hz);
  ~ImuLiveTracker() override;

  DatagramResult onDatagram(std::span<const std::uint8_t> bytes) override;
  [[nodiscard]] const Model& model() const override;
  [[nodiscard]] const Configuration& state() const override;
  [[nodiscard]] const Data& data() const override;
  void encodeFrame(double latency_us, std::string& out) const override;
  [[nodiscard]] std::size_t frameCapacity() const override;
  [[nodiscard]] std::string hello(const std::string& model_name) const override;
  [[nodiscard]] const std::vector<std::string>& imuNames() const { return names_; }
  /// The last tracked frame's row (orientation errors, iterations, gap).
  [[nodiscard]] const track::ImuFrame& lastFrame() const { return last_; }

 private:
  std::unique_ptr<track::ImuStreamTracker> tracker_;
  std::vector<std::string> names_;
  std::vector<FrameId> frames_;
  std::vector<Eigen::Quaterniond> obs_;
  std::vector<Vector3d> positions_;  ///< the IMU frames on the model, for the frame message
  track::ImuFrame last_;
  std::unique_ptr<KtpFrame> ktp_;
};

/// Writes a viewer-protocol frame message: q (base position, base quaternion w,x,y,z, joints),
/// one [x,y,z,qw,qx,qy,qz] per link, targets (frame name + position; non-finite positions, i.e.
/// missing markers, are left out), pins and drags.
struct FrameMessage {
  std::uint64_t seq = 0;
  double source_time = 0.0, latency_us = 0.0;
  const char* status = "ok";
  std::span<const std::string> pins, drags;
};
void appendFrameJson(const Model& model, const Configuration& q, const Data& data, const FrameMessage& m,
                     std::span<const std::string> target_names, std::span<const Vector3d> target_positions,
                     std::string& out);

/// The hello message: {"type":"hello","version":1,"mode":..,"model":{"name":..,"links":[..]},..};
/// in live mode with "input":{"protocols":[..],"kind":"poses"|"markers","names":[..]} (the
/// names KTP indices refer to).
std::string helloJson(const Model& model, const std::string& model_name, bool interactive, double rate_hz,
                      KtpKind input_kind = KtpKind::Poses, std::span<const std::string> input_names = {});
/// The stats message from the counters and latency histogram.
std::string statsJson(const LiveCounters& c, const LatencyHistogram& latency);

/// The MXTP datagram of clip frame f: segment k → ID k + 1, positions (m) and quaternions
/// (w,x,y,z) from the clip's world poses; sample = f, time code from the clip's time (ms from
/// the first frame) or, with rate_hz > 0, from f / rate_hz.
void clipFrameDatagram(const io::MotionClip& clip, int f, double rate_hz, MxtpPoseDatagram& out);

}  // namespace kinetrack::stream
