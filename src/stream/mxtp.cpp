// MXTP type-02 datagrams: big-endian reads and writes with every length checked first.
#include "kinetrack/stream/mxtp.hpp"

#include <bit>
#include <cmath>
#include <cstring>

namespace kinetrack::stream {
namespace {

std::uint32_t readU32(const std::uint8_t* b) {
  return (std::uint32_t{b[0]} << 24U) | (std::uint32_t{b[1]} << 16U) | (std::uint32_t{b[2]} << 8U) |
         std::uint32_t{b[3]};
}
std::uint16_t readU16(const std::uint8_t* b) {
  return static_cast<std::uint16_t>((std::uint32_t{b[0]} << 8U) | std::uint32_t{b[1]});
}
float readF32(const std::uint8_t* b) { return std::bit_cast<float>(readU32(b)); }
void writeU32(std::uint8_t* b, std::uint32_t v) {
  b[0] = static_cast<std::uint8_t>(v >> 24U);
  b[1] = static_cast<std::uint8_t>(v >> 16U);
  b[2] = static_cast<std::uint8_t>(v >> 8U);
  b[3] = static_cast<std::uint8_t>(v);
}
void writeU16(std::uint8_t* b, std::uint16_t v) {
  b[0] = static_cast<std::uint8_t>(v >> 8U);
  b[1] = static_cast<std::uint8_t>(v);
}
void writeF32(std::uint8_t* b, float v) { writeU32(b, std::bit_cast<std::uint32_t>(v)); }
bool isDigit(std::uint8_t c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string_view toString(ParseStatus s) {
  switch (s) {
    case ParseStatus::Ok: return "ok";
    case ParseStatus::Truncated: return "truncated";
    case ParseStatus::Oversized: return "oversized";
    case ParseStatus::Malformed: return "malformed";
    case ParseStatus::Unsupported: return "unsupported";
  }
  return "unknown";
}

ParseStatus parseMxtp(std::span<const std::uint8_t> bytes, MxtpPoseDatagram& out) {
  out.count = 0;
  if (bytes.size() > kMxtpMaxDatagram) return ParseStatus::Oversized;
  if (bytes.size() < kMxtpHeaderSize) {
    // A short datagram that starts like MXTP is truncated; anything else is not ours.
    const std::size_t n = bytes.size() < 4 ? bytes.size() : 4;
    // (n > 0 first: memcmp of an empty span's null pointer is undefined, UBSan)
    return n > 0 && std::memcmp(bytes.data(), "MXTP", n) == 0 ? ParseStatus::Truncated : ParseStatus::Malformed;
  }
  const std::uint8_t* b = bytes.data();
  if (std::memcmp(b, "MXTP", 4) != 0 || !isDigit(b[4]) || !isDigit(b[5])) return ParseStatus::Malformed;
  MxtpHeader& h = out.header;
  h.type = {static_cast<char>(b[4]), static_cast<char>(b[5])};
  h.sample = readU32(b + 6);
  h.datagram_counter = b[10];
  h.items = b[11];
  h.time_ms = readU32(b + 12);
  h.character = b[16];
  h.body_segments = b[17];
  h.props = b[18];
  h.finger_segments = b[19];
  h.payload_size = readU16(b + 22);
  if (h.type[0] != '0' || h.type[1] != '2') return ParseStatus::Unsupported;
  const std::size_t payload = bytes.size() - kMxtpHeaderSize;
  const std::size_t expected = std::size_t{h.items} * kMxtpPoseRecordSize;
  if (payload < expected) return ParseStatus::Truncated;
  if (payload > expected) return ParseStatus::Oversized;
  // The payload size field: 0 (not filled by older senders) or the record bytes.
  if (h.payload_size != 0 && h.payload_size != expected) return ParseStatus::Malformed;
  if (h.items == 0) return ParseStatus::Malformed;
  if (h.datagram_counter != 0x80) return ParseStatus::Unsupported;  // one sample split over datagrams
  const std::uint8_t* r = b + kMxtpHeaderSize;
  for (int i = 0; i < h.items; ++i, r += kMxtpPoseRecordSize) {
    MxtpSegmentPose& s = out.segments[static_cast<std::size_t>(i)];
    s.id = static_cast<std::int32_t>(readU32(r));
    if (s.id < 1 || s.id > static_cast<std::int32_t>(kMxtpMaxItems)) return ParseStatus::Malformed;
    double n2 = 0.0;
    for (std::size_t k = 0; k < 3; ++k) {
      s.position[k] = readF32(r + 4 + 4 * k);
      if (!std::isfinite(s.position[k])) return ParseStatus::Malformed;
    }
    for (std::size_t k = 0; k < 4; ++k) {
      s.quaternion[k] = readF32(r + 16 + 4 * k);
      if (!std::isfinite(s.quaternion[k])) return ParseStatus::Malformed;
      n2 += double{s.quaternion[k]} * s.quaternion[k];
    }
    if (std::abs(n2 - 1.0) > 1e-3) return ParseStatus::Malformed;
  }
  out.count = h.items;
  return ParseStatus::Ok;
}

std::size_t encodeMxtp(const MxtpPoseDatagram& d, std::span<std::uint8_t> out) {
  if (d.count < 0 || d.count > static_cast<int>(kMxtpMaxItems)) return 0;
  const std::size_t payload = static_cast<std::size_t>(d.count) * kMxtpPoseRecordSize;
  const std::size_t size = kMxtpHeaderSize + payload;
  if (out.size() < size) return 0;
  std::uint8_t* b = out.data();
  std::memcpy(b, "MXTP", 4);
  b[4] = static_cast<std::uint8_t>(d.header.type[0]);
  b[5] = static_cast<std::uint8_t>(d.header.type[1]);
  writeU32(b + 6, d.header.sample);
  b[10] = d.header.datagram_counter;
  b[11] = static_cast<std::uint8_t>(d.count);
  writeU32(b + 12, d.header.time_ms);
  b[16] = d.header.character;
  b[17] = d.header.body_segments;
  b[18] = d.header.props;
  b[19] = d.header.finger_segments;
  b[20] = 0;
  b[21] = 0;
  writeU16(b + 22, static_cast<std::uint16_t>(payload));
  std::uint8_t* r = b + kMxtpHeaderSize;
  for (int i = 0; i < d.count; ++i, r += kMxtpPoseRecordSize) {
    const MxtpSegmentPose& s = d.segments[static_cast<std::size_t>(i)];
    writeU32(r, static_cast<std::uint32_t>(s.id));
    for (std::size_t k = 0; k < 3; ++k) writeF32(r + 4 + 4 * k, s.position[k]);
    for (std::size_t k = 0; k < 4; ++k) writeF32(r + 16 + 4 * k, s.quaternion[k]);
  }
  return size;
}

FrameSequencer::Verdict FrameSequencer::offer(std::uint32_t sample) {
  if (have_ && sample == last_) {
    ++duplicates_;
    return Verdict::Duplicate;
  }
  if (have_ && sample < last_) {
    ++out_of_order_;
    return Verdict::OutOfOrder;
  }
  if (have_) skipped_ += static_cast<long>(sample - last_ - 1);
  have_ = true;
  last_ = sample;
  ++accepted_;
  return Verdict::Accept;
}

}  // namespace kinetrack::stream
