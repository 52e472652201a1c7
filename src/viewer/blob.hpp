#pragma once
// Private to kinetrack_viewer: binary arrays for the page, packed into one little-endian blob
// (each array 8-byte aligned, so the page views it as a typed array in place) and written as a
// base64 string inside a script (browsers load scripts, not fetched files, from file://).
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace kinetrack::viewer::detail {

class Blob {
 public:
  /// Appends `values` as array `name` of type "f32", "f64", "u8", "u16" or "u32".
  template <class T>
  void add(const std::string& name, std::span<const T> values) {
    static_assert(std::is_arithmetic_v<T>);
    const std::size_t offset = bytes_.size();
    bytes_.resize(offset + values.size_bytes());
    if (!values.empty()) std::memcpy(bytes_.data() + offset, values.data(), values.size_bytes());
    while (bytes_.size() % 8 != 0) bytes_.push_back(0);
    arrays_[name] = {{"type", typeName<T>()}, {"offset", offset}, {"length", values.size()}};
  }
  /// float32 copy of doubles.
  void addFloats(const std::string& name, const std::vector<double>& values);

  /// The header entry naming every array: {name: {type, offset, length}}.
  [[nodiscard]] const nlohmann::json& arrays() const { return arrays_; }
  [[nodiscard]] std::size_t size() const { return bytes_.size(); }
  /// `window.<head_var> = <head with "arrays">;\nwindow.<blob_var> = "<base64>";\n`
  [[nodiscard]] std::string script(const std::string& head_var, nlohmann::json head, const std::string& blob_var) const;

 private:
  template <class T>
  static const char* typeName() {
    if constexpr (std::is_same_v<T, float>)
      return "f32";
    else if constexpr (std::is_same_v<T, double>)
      return "f64";
    else if constexpr (std::is_same_v<T, std::uint8_t>)
      return "u8";
    else if constexpr (std::is_same_v<T, std::uint16_t>)
      return "u16";
    else {
      static_assert(std::is_same_v<T, std::uint32_t>);
      return "u32";
    }
  }
  std::vector<unsigned char> bytes_;
  nlohmann::json arrays_ = nlohmann::json::object();
};

}  // namespace kinetrack::viewer::detail
