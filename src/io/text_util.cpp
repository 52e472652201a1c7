#include "text_util.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::io::detail {

std::string readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ParseError(path, 0, std::string("cannot open file: ") + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw ParseError(path, 0, "read error");
  return ss.str();
}

bool parseNumber(std::string_view s, double& v) {
  if (s == "nan" || s == "NaN" || s == "NAN" || s == "-nan") {
    v = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (b != e && *b == '+') ++b;
  const auto r = std::from_chars(b, e, v);
  return b != e && r.ec == std::errc() && r.ptr == e;
}

}  // namespace kinetrack::io::detail
