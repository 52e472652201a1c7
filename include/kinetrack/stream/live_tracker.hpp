#pragma once
// The per-datagram path of `kinetrack serve`: an MXTP datagram in (parse, sequence), one DYN
// frame tracked (StreamTracker on the plan of `kinetrack track`), the model's link poses after
// forward kinematics, and the frame as a JSON message of the viewer protocol (docs/streaming.md).
// Everything is sized at construction: onDatagram and the JSON encoders do not allocate.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/model/data.hpp"
#include "kinetrack/stream/mxtp.hpp"
#include "kinetrack/track/pipeline.hpp"

namespace kinetrack::stream {

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

class LiveTracker {
 public:
  /// Tracks MXTP segment poses onto `setup.model` with `options` (the plan of
  /// track::setupOnModel on a capture whose segments are in MVN order: segment ID k is clip
  /// segment k − 1). `rate_hz` (> 0) is the nominal input rate (first-frame interval, hello).
  LiveTracker(const track::TrackSetup& setup, std::vector<std::string> segment_names,
              const track::TrackerOptions& options, double rate_hz);

  /// Parses, sequences and tracks one datagram; counts every outcome in counters().
  DatagramResult onDatagram(std::span<const std::uint8_t> bytes);

  [[nodiscard]] const Model& model() const { return *model_; }
  [[nodiscard]] const Configuration& state() const { return tracker_->state(); }
  [[nodiscard]] const Data& data() const { return data_; }  ///< link poses of the last tracked frame
  [[nodiscard]] std::uint32_t sequence() const { return seq_; }
  [[nodiscard]] double sourceTime() const { return source_time_; }
  [[nodiscard]] const char* status() const { return status_; }
  LiveCounters& counters() { return counters_; }
  [[nodiscard]] const LiveCounters& counters() const { return counters_; }
  [[nodiscard]] double rate() const { return rate_hz_; }
  /// Positions of the position targets of the last tracked frame (frame name, p).
  [[nodiscard]] int numPositionTargets() const { return static_cast<int>(position_targets_.size()); }

  /// Appends the frame message (viewer protocol) to `out`, cleared first; no allocation once
  /// `out` has reserved enough (frameCapacity()).
  void encodeFrame(double latency_us, std::string& out) const;
  [[nodiscard]] std::size_t frameCapacity() const;

 private:
  std::shared_ptr<const Model> model_;
  std::unique_ptr<track::StreamTracker> tracker_;
  track::Retargeting plan_;
  io::MotionClip frame_clip_;  ///< one frame, overwritten per datagram
  std::vector<Matrix3d> R_;
  std::vector<Vector3d> p_;
  std::vector<int> position_targets_;  ///< binding indices with a position
  std::vector<std::string> target_names_;
  std::vector<Vector3d> target_p_;
  Data data_;
  MxtpPoseDatagram datagram_;
  FrameSequencer sequencer_;
  LiveCounters counters_;
  double rate_hz_ = 60.0, source_time_ = 0.0, last_time_ = -1.0;
  std::uint32_t seq_ = 0;
  const char* status_ = "ok";
};

/// Writes a viewer-protocol frame message: q (base position, base quaternion w,x,y,z, joints),
/// one [x,y,z,qw,qx,qy,qz] per link, targets (frame name + position), pins and drags.
struct FrameMessage {
  std::uint64_t seq = 0;
  double source_time = 0.0, latency_us = 0.0;
  const char* status = "ok";
  std::span<const std::string> pins, drags;
};
void appendFrameJson(const Model& model, const Configuration& q, const Data& data, const FrameMessage& m,
                     std::span<const std::string> target_names, std::span<const Vector3d> target_positions,
                     std::string& out);

/// The hello message: {"type":"hello","version":1,"mode":..,"model":{"name":..,"links":[..]},..}.
std::string helloJson(const Model& model, const std::string& model_name, bool interactive, double rate_hz);
/// The stats message from the counters and latency histogram.
std::string statsJson(const LiveCounters& c, const LatencyHistogram& latency);

/// The MXTP datagram of clip frame f: segment k → ID k + 1, positions (m) and quaternions
/// (w,x,y,z) from the clip's world poses; sample = f, time code from the clip's time (ms from
/// the first frame) or, with rate_hz > 0, from f / rate_hz.
void clipFrameDatagram(const io::MotionClip& clip, int f, double rate_hz, MxtpPoseDatagram& out);

}  // namespace kinetrack::stream
