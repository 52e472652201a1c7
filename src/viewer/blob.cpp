#include "blob.hpp"

#include <bit>

#include "kinetrack/core/base64.hpp"

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
  s += base64Encode(bytes_);
  s += "\";\n";
  return s;
}

}  // namespace kinetrack::viewer::detail
