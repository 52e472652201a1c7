#pragma once
// Private to the C3D reader: bounds-checked reads of a C3D file's bytes in the number formats of
// its processor, and the parameter section (groups and parameters). Every failure is a
// ParseError(source, 0, "byte N: …").
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace kinetrack::io::detail {

enum class C3dProcessor { Intel, Dec, Mips };

/// A VAX F_floating number (DEC processor files) from its four bytes as stored: two little-endian
/// 16-bit words, the first holding the sign, the exponent (bias 128) and the high fraction bits.
/// Exponent 0 is zero (or, with the sign set, the reserved operand: NaN).
double vaxToDouble(const std::uint8_t* p);

/// Metres per unit of a length unit ("mm", "cm", "dm", "m", any case); 0 when it is not one.
double unitMetres(std::string_view unit);

class C3dBytes {
 public:
  C3dBytes(std::span<const std::uint8_t> bytes, const std::string& source) : bytes_(bytes), source_(source) {}
  void setProcessor(C3dProcessor p) { processor_ = p; }
  [[nodiscard]] C3dProcessor processor() const { return processor_; }
  [[nodiscard]] std::size_t size() const { return bytes_.size(); }
  [[nodiscard]] const std::string& source() const { return source_; }

  /// ParseError(source, 0, "byte <at>: <message>").
  [[noreturn]] void fail(std::size_t at, const std::string& message) const;
  /// Throws unless [at, at + n) lies in the file: "byte <at>: <field>: needs n bytes, the file
  /// ends at byte <size>".
  void need(std::size_t at, std::size_t n, std::string_view field) const;

  // Checked reads (need(at, size, field) first).
  [[nodiscard]] std::uint8_t u8(std::size_t at, std::string_view field) const;
  [[nodiscard]] std::int8_t i8(std::size_t at, std::string_view field) const;
  [[nodiscard]] std::uint16_t u16(std::size_t at, std::string_view field) const;
  [[nodiscard]] std::int16_t i16(std::size_t at, std::string_view field) const;
  [[nodiscard]] double f32(std::size_t at, std::string_view field) const;

  // Unchecked reads, for ranges checked once (the data section).
  [[nodiscard]] std::uint16_t u16At(std::size_t at) const;
  [[nodiscard]] std::int16_t i16At(std::size_t at) const { return static_cast<std::int16_t>(u16At(at)); }
  [[nodiscard]] double f32At(std::size_t at) const;

 private:
  std::span<const std::uint8_t> bytes_;
  std::string source_;
  C3dProcessor processor_ = C3dProcessor::Intel;
};

/// One parameter: its data stays in the file's bytes.
struct C3dParameter {
  std::string group;  ///< upper case
  std::string name;   ///< upper case
  int type = 0;       ///< −1 char, 1 byte, 2 int16, 4 float
  std::vector<int> dims;
  std::size_t at = 0;        ///< byte of the item (its name length), for messages
  std::size_t data_at = 0;   ///< byte of the first data element
  std::size_t elements = 0;  ///< product of dims (1 for a scalar)
  [[nodiscard]] std::string fullName() const { return group + ":" + name; }
};

class C3dParameters {
 public:
  /// Parses the items of [begin, end) (after the 4-byte section header). Items must lie inside
  /// the section; the offset to the next item must move forward.
  C3dParameters(const C3dBytes& bytes, std::size_t begin, std::size_t end, std::vector<std::string>& warnings);

  /// The parameter GROUP:NAME (case-insensitive), or null.
  [[nodiscard]] const C3dParameter* find(std::string_view group, std::string_view name) const;

  /// Element i as a number (byte and int16 signed, float as read). Throws for a char parameter.
  [[nodiscard]] double number(const C3dParameter& p, std::size_t i = 0) const;
  /// Element i as an unsigned count: int16 read as 0–65535, a byte as 0–255, a float when it is an
  /// integer in [0, 2³¹). Throws otherwise, naming the parameter.
  [[nodiscard]] long long count(const C3dParameter& p, std::size_t i = 0) const;
  /// The strings of a char parameter (dims[0] characters each; one string for 0 or 1 dimension),
  /// trailing spaces and NULs removed. Throws for a numeric parameter.
  [[nodiscard]] std::vector<std::string> strings(const C3dParameter& p) const;
  /// strings() of GROUP:NAME followed by those of GROUP:NAME2, GROUP:NAME3, … while they exist;
  /// empty when GROUP:NAME is absent.
  [[nodiscard]] std::vector<std::string> stringsWithContinuations(std::string_view group, std::string_view name) const;
  /// The first string of GROUP:NAME trimmed of spaces, or "" when absent or not char.
  [[nodiscard]] std::string text(std::string_view group, std::string_view name) const;

  [[nodiscard]] const std::vector<C3dParameter>& all() const { return params_; }

 private:
  [[noreturn]] void failParam(const C3dParameter& p, const std::string& message) const;
  const C3dBytes& bytes_;
  std::vector<C3dParameter> params_;
  std::unordered_map<std::string, std::size_t> index_;  ///< "GROUP:NAME" → params_ index
};

}  // namespace kinetrack::io::detail
