#pragma once
// The Xsens MVN real-time network streaming protocol ("MXTP", UDP, default port 9763), message
// type 02: segment poses as position + quaternion. Written from the vendor's public protocol
// specification (MVN real-time network streaming protocol, document MV0305P): every datagram
// starts with a 24-byte header, then one 32-byte record per item; all fields big-endian (network
// order). Parsing never trusts a length field: every fault is a ParseStatus, never a read out of
// the datagram. Neither parsing nor encoding allocates.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace kinetrack::stream {

inline constexpr std::uint16_t kMxtpDefaultPort = 9763;
inline constexpr std::size_t kMxtpHeaderSize = 24;
inline constexpr std::size_t kMxtpPoseRecordSize = 32;  ///< type 02: id (i32), position (3 f32), quaternion (4 f32)
inline constexpr std::size_t kMxtpMaxItems = 255;       ///< the header's item count is one byte
inline constexpr std::size_t kMxtpMaxDatagram = kMxtpHeaderSize + kMxtpMaxItems * kMxtpPoseRecordSize;

/// The 24-byte header (offsets in bytes):
///  0  6  ID string "MXTP" + two ASCII digits of the message type ("02")
///  6  4  sample counter (u32)            10 1  datagram counter (bit 7 set: last datagram of the sample)
/// 11  1  number of items (u8)            12 4  time code (u32, ms since the start of the recording)
/// 16  1  character (avatar) ID (u8)      17 1  number of body segments (u8)
/// 18  1  number of props (u8)            19 1  number of finger-tracking segments (u8)
/// 20  2  reserved                        22 2  payload size in bytes (u16)
struct MxtpHeader {
  std::array<char, 2> type{'0', '2'};
  std::uint32_t sample = 0;
  std::uint8_t datagram_counter = 0x80;  ///< index 0, last
  std::uint8_t items = 0;
  std::uint32_t time_ms = 0;
  std::uint8_t character = 0;
  std::uint8_t body_segments = 0, props = 0, finger_segments = 0;
  std::uint16_t payload_size = 0;
};

/// One type-02 record: segment ID (1-based in MVN's segment order), position (m, Z up) and
/// segment-to-world quaternion (w, x, y, z).
struct MxtpSegmentPose {
  std::int32_t id = 0;
  std::array<float, 3> position{};
  std::array<float, 4> quaternion{1.0F, 0.0F, 0.0F, 0.0F};
};

/// One pose datagram: fixed capacity, no allocation.
struct MxtpPoseDatagram {
  MxtpHeader header;
  std::array<MxtpSegmentPose, kMxtpMaxItems> segments{};
  int count = 0;  ///< records in segments (= header.items after a successful parse)
};

enum class ParseStatus : std::uint8_t {
  Ok,
  Truncated,    ///< shorter than the header, or than the header's items × record size / payload size
  Oversized,    ///< longer than the header's items and payload size account for, or than kMxtpMaxDatagram
  Malformed,    ///< bad ID string, inconsistent sizes, non-finite values, unnormalised quaternion, bad IDs
  Unsupported,  ///< a well-formed MXTP datagram of another message type, or one sample split over datagrams
};
std::string_view toString(ParseStatus s);

/// Parses one datagram. On anything but Ok, `out` holds no meaningful data.
ParseStatus parseMxtp(std::span<const std::uint8_t> bytes, MxtpPoseDatagram& out);

/// Encodes `d` (header.items and payload_size are set from d.count) into `out`; returns the
/// datagram's size, or 0 when `out` is too small or d.count is out of [0, kMxtpMaxItems].
std::size_t encodeMxtp(const MxtpPoseDatagram& d, std::span<std::uint8_t> out);

/// Orders frames by their sample counter: the first is accepted, then only counters strictly
/// greater than the last accepted; an equal counter is a duplicate, a smaller one out of order
/// (both dropped and counted). Late frames are useless to a live tracker, so no reordering buffer.
class FrameSequencer {
 public:
  enum class Verdict : std::uint8_t { Accept, Duplicate, OutOfOrder };
  Verdict offer(std::uint32_t sample);
  void reset() { have_ = false; }
  [[nodiscard]] long accepted() const { return accepted_; }
  [[nodiscard]] long duplicates() const { return duplicates_; }
  [[nodiscard]] long outOfOrder() const { return out_of_order_; }
  /// Samples skipped between accepted frames (lost or still to come out of order).
  [[nodiscard]] long skipped() const { return skipped_; }

 private:
  bool have_ = false;
  std::uint32_t last_ = 0;
  long accepted_ = 0, duplicates_ = 0, out_of_order_ = 0, skipped_ = 0;
};

}  // namespace kinetrack::stream
