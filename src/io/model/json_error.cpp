#include "json_error.hpp"

namespace kinetrack::io::detail {

JsonErrorPlace jsonErrorPlace(const nlohmann::json::exception& e, const std::string& text) {
  JsonErrorPlace p;
  std::string what = e.what();
  if (const auto* pe = dynamic_cast<const nlohmann::json::parse_error*>(&e)) {
    // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error …"
    const std::size_t column = what.find("column ");
    const std::size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
    if (colon != std::string::npos) what = what.substr(colon + 2);
    p.known = true;
    p.byte = pe->byte == 0 ? 0 : pe->byte - 1;
    p.message = what;
    return p;
  }
  // "[json.exception.out_of_range.406] number overflow parsing '1e999'": the quoted token's line.
  if (const std::size_t b = what.find("] "); b != std::string::npos) what = what.substr(b + 2);
  const std::size_t q = what.find('\'');
  const std::string token = q == std::string::npos ? "" : what.substr(q + 1, what.find('\'', q + 1) - q - 1);
  const std::size_t at = token.empty() ? std::string::npos : text.find(token);
  p.known = at != std::string::npos;
  p.byte = p.known ? at : 0;
  p.message = what;
  return p;
}

}  // namespace kinetrack::io::detail
