#include "blob.hpp"

#include <bit>

namespace kinetrack::viewer::detail {

static_assert(std::endian::native == std::endian::little, "the page reads the blob as little-endian");

void Blob::addFloats(const std::string& name, const std::vector<double>& values) {
  std::vector<float> f(values.begin(), values.end());
  add<float>(name, f);
}

std::string Blob::script(const std::string& head_var, nlohmann::json head, const std::string& blob_var) const {
  head["arrays"] = arrays_;
  head["blob_bytes"] = bytes_.size();
  std::string s = "window." + head_var + " = " + head.dump() + ";\nwindow." + blob_var + " = \"";
  s += base64(bytes_);
  s += "\";\n";
  return s;
}

std::string base64(std::span<const unsigned char> bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(bytes[i]) << 16 | static_cast<std::uint32_t>(bytes[i + 1]) << 8 |
                            static_cast<std::uint32_t>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t v = static_cast<std::uint32_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<std::uint32_t>(bytes[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace kinetrack::viewer::detail
