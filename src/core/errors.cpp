#include "kinetrack/core/errors.hpp"

namespace kinetrack {

namespace {
std::string formatParseError(const std::string& file, int line, const std::string& message) {
  std::string out;
  out.reserve(file.size() + message.size() + 16);
  out.append(file);
  if (line > 0) out.append(":").append(std::to_string(line));
  out.append(": ").append(message);
  return out;
}
}  // namespace

ParseError::ParseError(std::string file, int line, const std::string& message)
    : std::runtime_error(formatParseError(file, line, message)),
      file_(std::move(file)),
      line_(line),
      message_(message) {}

}  // namespace kinetrack
