#pragma once
// Private helpers shared by the text readers of kinetrack_io.
#include <string>
#include <string_view>

namespace kinetrack::io::detail {

/// Whole file as text; throws ParseError(path, 0, "cannot open file: <reason>").
std::string readTextFile(const std::string& path);

/// Parses exactly one number (no surrounding whitespace): an optional '+', anything
/// std::from_chars accepts (".5", "1e-3"), or nan/NaN/NAN/-nan as quiet NaN.
bool parseNumber(std::string_view s, double& v);

}  // namespace kinetrack::io::detail
