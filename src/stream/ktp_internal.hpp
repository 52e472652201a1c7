#pragma once
// Shared between the binary (ktp.cpp) and JSON (ktp_json.cpp) forms of the kinetrack input
// protocol: the reason recorder and the checks every decoded record passes. Not installed.
#include <bitset>
#include <cstddef>
#include <span>
#include <string>

#include "kinetrack/stream/ktp.hpp"

namespace kinetrack::stream::detail {

/// Records a printf-style reason in f.error (a fixed buffer, no allocation) and returns `s`.
[[gnu::format(printf, 3, 4)]] ParseStatus ktpFail(KtpFrame& f, ParseStatus s, const char* fmt, ...);

/// "segments" or "markers".
const char* ktpItemsKey(KtpKind k);

/// Sets f.kind from the message's kind number (1 poses, 2 markers): Malformed for another
/// number, Unsupported when it is not `expected`.
ParseStatus ktpCheckKind(KtpFrame& f, int kind, KtpKind expected);

/// Range, duplicate, finiteness and unit-quaternion checks of decoded record i.
ParseStatus ktpCheckItem(KtpFrame& f, int i, std::size_t names, std::bitset<kKtpMaxItems>& seen);

/// The JSON form (the first non-blank byte is '{'), read in place without allocating.
ParseStatus parseKtpJson(std::span<const std::uint8_t> bytes, KtpKind expected, std::span<const std::string> names,
                         KtpFrame& f);

}  // namespace kinetrack::stream::detail
