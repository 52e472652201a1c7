#pragma once
// Private helper shared by the JSON readers of kinetrack_io (segment maps, marker sets): where an
// nlohmann-json exception points in the text, and its message without the library's prefix.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace kinetrack::io::detail {

struct JsonErrorPlace {
  bool known = false;    ///< false when the exception names no position nor a token of the text
  std::size_t byte = 0;  ///< offset of the offending byte in the text (when known)
  std::string message;   ///< e.g. "syntax error while parsing value …"
};

/// A parse error gives its byte; other errors (e.g. "number overflow parsing '1e999'") name a
/// quoted token, found back in the text.
JsonErrorPlace jsonErrorPlace(const nlohmann::json::exception& e, const std::string& text);

}  // namespace kinetrack::io::detail
