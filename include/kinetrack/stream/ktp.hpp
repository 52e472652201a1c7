#pragma once
// The kinetrack input protocol (KTP), version 1: one frame of segment poses or of marker
// positions per message, as a compact binary message or as JSON text, over UDP (one datagram per
// frame) or WebSocket (one message per frame) into `kinetrack serve`. Byte layout, field names,
// units and versioning: docs/streaming.md, "Input: the kinetrack protocol".
//
// Binary (all fields little-endian, floats IEEE-754):
//   header, 24 bytes:  0 "KTRK" | 4 version u8 (1) | 5 kind u8 (1 poses, 2 markers) | 6 count u16 |
//                      8 seq u32 | 12 reserved u32 (0) | 16 time f64 (s)
//   pose record, 32:   0 index u16 | 2 reserved u16 (0) | 4 position 3×f32 (m) | 16 quaternion 4×f32 (w,x,y,z)
//   marker record, 16: 0 index u16 | 2 reserved u16 (0) | 4 position 3×f32 (m)
// JSON:
//   {"type":"poses","version":1,"seq":7,"time":0.0291,"segments":[{"name":"Pelvis","p":[x,y,z],"q":[w,x,y,z]},…]}
//   {"type":"markers","version":1,"seq":7,"time":0.0291,"markers":[{"name":"LASI","p":[x,y,z]},…]}
// Indices and names refer to the server's input list (hello message): the layout's segments in
// order, or the marker set's markers in order. A marker absent from a frame is missing in it.
//
// Parsing never trusts a length field and never throws: every fault is a ParseStatus with a
// reason naming the field. Neither parser allocates (the JSON form is scanned in place, strict
// RFC 8259, a key given twice refused), nor does the binary encoder.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "kinetrack/stream/mxtp.hpp"

namespace kinetrack::stream {

inline constexpr std::uint8_t kKtpVersion = 1;
inline constexpr std::size_t kKtpHeaderSize = 24;
inline constexpr std::size_t kKtpPoseRecordSize = 32;
inline constexpr std::size_t kKtpMarkerRecordSize = 16;
inline constexpr std::size_t kKtpMaxItems = 1024;  ///< records per message
/// Largest message accepted: binary 24 + 1024 × 32 bytes; JSON text up to 64 KiB.
inline constexpr std::size_t kKtpMaxBinary = kKtpHeaderSize + kKtpMaxItems * kKtpPoseRecordSize;
inline constexpr std::size_t kKtpMaxJson = 65536;

enum class KtpKind : std::uint8_t { Poses = 1, Markers = 2 };
/// "poses", "markers".
const char* toString(KtpKind k);

/// One record: the index into the server's list, position (m) and, for poses, the
/// segment-to-world quaternion (w, x, y, z).
struct KtpItem {
  int index = 0;
  std::array<double, 3> p{};
  std::array<double, 4> q{1.0, 0.0, 0.0, 0.0};
};

/// One decoded frame: fixed capacity, no allocation.
struct KtpFrame {
  KtpKind kind = KtpKind::Poses;
  std::uint32_t seq = 0;
  double time = 0.0;  ///< source timestamp (s), finite and ≥ 0
  int count = 0;      ///< records in items
  std::array<KtpItem, kKtpMaxItems> items{};
  /// Why the last parse failed ("" after Ok): names the field, e.g. "segments[3].q: norm 0.5, expected 1".
  std::array<char, 160> error{};
  [[nodiscard]] const char* errorText() const { return error.data(); }
};

/// True when the bytes look like a KTP message (binary magic "KTRK", or JSON text: the first
/// non-blank byte is '{').
bool looksLikeKtp(std::span<const std::uint8_t> bytes);

/// Parses one message of kind `expected` whose indices / names refer to `names` (the server's
/// input list). Ok, or: Truncated (shorter than the header or its count says), Oversized (longer
/// than the count says, or than kKtpMaxBinary / kKtpMaxJson), Malformed (bad magic, not JSON,
/// unknown or missing field, wrong type, reserved bytes not zero, unknown name, index out of
/// range, an index twice, non-finite value, negative time, quaternion norm² off 1 by more than
/// 1e-3), Unsupported (another version, or the other kind than `expected`).
ParseStatus parseKtp(std::span<const std::uint8_t> bytes, KtpKind expected, std::span<const std::string> names,
                     KtpFrame& out);

/// Binary encoding of `f` into `out`; returns its size, or 0 when `out` is too small, the count
/// is out of [0, kKtpMaxItems] or an index is outside [0, 65535]. Positions and quaternions are
/// rounded to float.
std::size_t encodeKtp(const KtpFrame& f, std::span<std::uint8_t> out);

/// JSON encoding of `f` (names[index] for each record; numbers in their shortest form that reads
/// back to the same double) into `out`, cleared first. Throws InvalidArgument for an index outside names.
void encodeKtpJson(const KtpFrame& f, std::span<const std::string> names, std::string& out);

}  // namespace kinetrack::stream
