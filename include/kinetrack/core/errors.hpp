#pragma once
// Error types. Three tiers (STYLE.md): debug assertions for internal invariants, exceptions for
// bad API input and bad files (below), and status values in result objects for numerical outcomes.
#include <stdexcept>
#include <string>

namespace kinetrack {

/// Bad argument to a library call (wrong size, unknown name, value out of range).
class InvalidArgument : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A file could not be read or is malformed. what() names the file, and the line and field
/// when they are known: "model.urdf:12: joint 'elbow': origin xyz: 'nan' is not a finite number".
class ParseError : public std::runtime_error {
 public:
  ParseError(std::string file, int line, const std::string& message);
  [[nodiscard]] const std::string& file() const { return file_; }
  /// 1-based line number, or 0 when the error is not tied to a line.
  [[nodiscard]] int line() const { return line_; }
  /// The message without the "file:line: " prefix.
  [[nodiscard]] const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  std::string message_;
};

}  // namespace kinetrack
