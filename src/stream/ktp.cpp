// The kinetrack input protocol (KTP) v1: the binary form (little-endian, every length checked
// before a read), the checks both forms share, and the encoders. The JSON reader: ktp_json.cpp.
#include "kinetrack/stream/ktp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <bitset>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string_view>

#include "kinetrack/core/errors.hpp"
#include "ktp_internal.hpp"

namespace kinetrack::stream {

namespace detail {

const char* ktpItemsKey(KtpKind k) { return k == KtpKind::Poses ? "segments" : "markers"; }

ParseStatus ktpFail(KtpFrame& f, ParseStatus s, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(f.error.data(), f.error.size(), fmt, args);
  va_end(args);
  return s;
}

ParseStatus ktpCheckItem(KtpFrame& f, int i, std::size_t names, std::bitset<kKtpMaxItems>& seen) {
  const KtpItem& it = f.items[static_cast<std::size_t>(i)];
  const char* key = ktpItemsKey(f.kind);
  if (it.index < 0 || static_cast<std::size_t>(it.index) >= names)
    return ktpFail(f, ParseStatus::Malformed, "%s[%d]: index %d outside the server's %zu %s", key, i, it.index, names,
                   key);
  if (seen.test(static_cast<std::size_t>(it.index)))
    return ktpFail(f, ParseStatus::Malformed, "%s[%d]: index %d given twice", key, i, it.index);
  seen.set(static_cast<std::size_t>(it.index));
  for (double v : it.p)
    if (!std::isfinite(v)) return ktpFail(f, ParseStatus::Malformed, "%s[%d].p: not finite", key, i);
  if (f.kind == KtpKind::Poses) {
    double n2 = 0.0;
    for (double v : it.q) {
      if (!std::isfinite(v)) return ktpFail(f, ParseStatus::Malformed, "%s[%d].q: not finite", key, i);
      n2 += v * v;
    }
    if (std::abs(n2 - 1.0) > 1e-3)
      return ktpFail(f, ParseStatus::Malformed, "%s[%d].q: squared norm %.6g, expected 1 (w, x, y, z)", key, i, n2);
  }
  return ParseStatus::Ok;
}

ParseStatus ktpCheckKind(KtpFrame& f, int kind, KtpKind expected) {
  if (kind != 1 && kind != 2)
    return ktpFail(f, ParseStatus::Malformed, "kind %d: expected 1 (poses) or 2 (markers)", kind);
  f.kind = static_cast<KtpKind>(kind);
  if (f.kind != expected)
    return ktpFail(f, ParseStatus::Unsupported, "a %s message: this server takes %s", toString(f.kind),
                   toString(expected));
  return ParseStatus::Ok;
}

}  // namespace detail

namespace {

using detail::ktpCheckItem;
using detail::ktpCheckKind;
using detail::ktpFail;
using detail::ktpItemsKey;

std::uint16_t readU16(const std::uint8_t* b) { return static_cast<std::uint16_t>(b[0] | (b[1] << 8U)); }
std::uint32_t readU32(const std::uint8_t* b) {
  return std::uint32_t{b[0]} | (std::uint32_t{b[1]} << 8U) | (std::uint32_t{b[2]} << 16U) |
         (std::uint32_t{b[3]} << 24U);
}
std::uint64_t readU64(const std::uint8_t* b) {
  return std::uint64_t{readU32(b)} | (std::uint64_t{readU32(b + 4)} << 32U);
}
float readF32(const std::uint8_t* b) { return std::bit_cast<float>(readU32(b)); }
double readF64(const std::uint8_t* b) { return std::bit_cast<double>(readU64(b)); }
void writeU16(std::uint8_t* b, std::uint16_t v) {
  b[0] = static_cast<std::uint8_t>(v);
  b[1] = static_cast<std::uint8_t>(v >> 8U);
}
void writeU32(std::uint8_t* b, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) b[k] = static_cast<std::uint8_t>(v >> (8U * static_cast<unsigned>(k)));
}
void writeU64(std::uint8_t* b, std::uint64_t v) {
  writeU32(b, static_cast<std::uint32_t>(v));
  writeU32(b + 4, static_cast<std::uint32_t>(v >> 32U));
}
void writeF32(std::uint8_t* b, double v) { writeU32(b, std::bit_cast<std::uint32_t>(static_cast<float>(v))); }

std::size_t recordSize(KtpKind k) { return k == KtpKind::Poses ? kKtpPoseRecordSize : kKtpMarkerRecordSize; }

ParseStatus parseBinary(std::span<const std::uint8_t> bytes, KtpKind expected, std::size_t names, KtpFrame& f) {
  if (bytes.size() > kKtpMaxBinary)
    return ktpFail(f, ParseStatus::Oversized, "%zu bytes: more than the largest message (%zu)", bytes.size(),
                   kKtpMaxBinary);
  if (bytes.size() < kKtpHeaderSize)
    return ktpFail(f, ParseStatus::Truncated, "%zu bytes: shorter than the %zu-byte header", bytes.size(),
                   kKtpHeaderSize);
  const std::uint8_t* b = bytes.data();
  if (b[4] != kKtpVersion)
    return ktpFail(f, ParseStatus::Unsupported, "version %d: this server speaks version %d", b[4], kKtpVersion);
  if (const ParseStatus s = ktpCheckKind(f, b[5], expected); s != ParseStatus::Ok) return s;
  const std::size_t count = readU16(b + 6);
  f.seq = readU32(b + 8);
  if (readU32(b + 12) != 0) return ktpFail(f, ParseStatus::Malformed, "reserved header bytes 12..15 not zero");
  f.time = readF64(b + 16);
  if (!std::isfinite(f.time) || f.time < 0.0)
    return ktpFail(f, ParseStatus::Malformed, "time %g: expected a finite time >= 0 s", f.time);
  if (count > kKtpMaxItems)
    return ktpFail(f, ParseStatus::Malformed, "count %zu: more than %zu records", count, kKtpMaxItems);
  const std::size_t rec = recordSize(f.kind), expected_size = kKtpHeaderSize + count * rec;
  if (bytes.size() < expected_size)
    return ktpFail(f, ParseStatus::Truncated, "%zu bytes: the header announces %zu records (%zu bytes)", bytes.size(),
                   count, expected_size);
  if (bytes.size() > expected_size)
    return ktpFail(f, ParseStatus::Oversized, "%zu bytes: the header announces %zu records (%zu bytes)", bytes.size(),
                   count, expected_size);
  std::bitset<kKtpMaxItems> seen;
  const std::uint8_t* r = b + kKtpHeaderSize;
  for (std::size_t i = 0; i < count; ++i, r += rec) {
    KtpItem& it = f.items[i];
    it.index = readU16(r);
    if (readU16(r + 2) != 0)
      return ktpFail(f, ParseStatus::Malformed, "%s[%zu]: reserved bytes not zero", ktpItemsKey(f.kind), i);
    for (std::size_t k = 0; k < 3; ++k) it.p[k] = readF32(r + 4 + 4 * k);
    if (f.kind == KtpKind::Poses)
      for (std::size_t k = 0; k < 4; ++k) it.q[k] = readF32(r + 16 + 4 * k);
    if (const ParseStatus s = ktpCheckItem(f, static_cast<int>(i), names, seen); s != ParseStatus::Ok) return s;
  }
  f.count = static_cast<int>(count);
  return ParseStatus::Ok;
}

}  // namespace

const char* toString(KtpKind k) { return k == KtpKind::Poses ? "poses" : "markers"; }

bool looksLikeKtp(std::span<const std::uint8_t> bytes) {
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "KTRK", 4) == 0) return true;
  for (const std::uint8_t c : bytes) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{';
  }
  return false;
}

ParseStatus parseKtp(std::span<const std::uint8_t> bytes, KtpKind expected, std::span<const std::string> names,
                     KtpFrame& out) {
  out.count = 0;
  out.error[0] = '\0';
  const std::size_t n = std::min(names.size(), kKtpMaxItems);
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "KTRK", 4) == 0) return parseBinary(bytes, expected, n, out);
  if (looksLikeKtp(bytes)) return detail::parseKtpJson(bytes, expected, names.first(n), out);
  // A short prefix of the magic is a truncated binary message; anything else is not ours.
  if (!bytes.empty() && bytes.size() < 4 && std::memcmp(bytes.data(), "KTRK", bytes.size()) == 0)
    return ktpFail(out, ParseStatus::Truncated, "%zu bytes: shorter than the %zu-byte header", bytes.size(),
                   kKtpHeaderSize);
  return ktpFail(out, ParseStatus::Malformed, "neither a binary KTP message (\"KTRK\") nor a JSON object");
}

std::size_t encodeKtp(const KtpFrame& f, std::span<std::uint8_t> out) {
  if (f.count < 0 || static_cast<std::size_t>(f.count) > kKtpMaxItems) return 0;
  const std::size_t rec = recordSize(f.kind), size = kKtpHeaderSize + static_cast<std::size_t>(f.count) * rec;
  if (out.size() < size) return 0;
  for (int i = 0; i < f.count; ++i)
    if (f.items[static_cast<std::size_t>(i)].index < 0 || f.items[static_cast<std::size_t>(i)].index > 65535) return 0;
  std::uint8_t* b = out.data();
  std::memcpy(b, "KTRK", 4);
  b[4] = kKtpVersion;
  b[5] = static_cast<std::uint8_t>(f.kind);
  writeU16(b + 6, static_cast<std::uint16_t>(f.count));
  writeU32(b + 8, f.seq);
  writeU32(b + 12, 0);
  writeU64(b + 16, std::bit_cast<std::uint64_t>(f.time));
  std::uint8_t* r = b + kKtpHeaderSize;
  for (int i = 0; i < f.count; ++i, r += rec) {
    const KtpItem& it = f.items[static_cast<std::size_t>(i)];
    writeU16(r, static_cast<std::uint16_t>(it.index));
    writeU16(r + 2, 0);
    for (std::size_t k = 0; k < 3; ++k) writeF32(r + 4 + 4 * k, it.p[k]);
    if (f.kind == KtpKind::Poses)
      for (std::size_t k = 0; k < 4; ++k) writeF32(r + 16 + 4 * k, it.q[k]);
  }
  return size;
}

void encodeKtpJson(const KtpFrame& f, std::span<const std::string> names, std::string& out) {
  out.clear();
  auto o = std::back_inserter(out);
  fmt::format_to(o, R"({{"type":"{}","version":{},"seq":{},"time":{},"{}":[)", toString(f.kind), kKtpVersion, f.seq,
                 f.time, ktpItemsKey(f.kind));
  for (int i = 0; i < f.count; ++i) {
    const KtpItem& it = f.items[static_cast<std::size_t>(i)];
    if (it.index < 0 || static_cast<std::size_t>(it.index) >= names.size())
      throw InvalidArgument("encodeKtpJson: index " + std::to_string(it.index) + " outside the " +
                            std::to_string(names.size()) + " names");
    // Names are the server's segment / marker names: JSON-escaped by nlohmann in case of quotes.
    fmt::format_to(o, R"({}{{"name":{},"p":[{},{},{}])", i == 0 ? "" : ",",
                   nlohmann::json(names[static_cast<std::size_t>(it.index)]).dump(), it.p[0], it.p[1], it.p[2]);
    if (f.kind == KtpKind::Poses) fmt::format_to(o, R"(,"q":[{},{},{},{}])", it.q[0], it.q[1], it.q[2], it.q[3]);
    out += '}';
  }
  out += "]}";
}

}  // namespace kinetrack::stream
