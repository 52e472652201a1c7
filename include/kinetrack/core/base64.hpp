#pragma once
// Base64 (RFC 4648, standard alphabet): the viewer's binary blobs (viewer/viewer.hpp) and VTK's
// inline binary arrays (io::parseVtp).
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kinetrack {

/// With '=' padding.
std::string base64Encode(std::span<const unsigned char> bytes);

/// Decodes `text`, skipping whitespace and '=' padding; std::nullopt (and `bad` the offending
/// character, when given) for any other character outside the alphabet.
std::optional<std::vector<unsigned char>> base64Decode(std::string_view text, char* bad = nullptr);

}  // namespace kinetrack
