#include "text_util.hpp"
#include <cctype>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <unordered_map>

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
  if (b != e && *b == '+') {
    ++b;  // from_chars takes no '+'; a second sign after it is not a number
    if (b != e && (*b == '-' || *b == '+')) return false;
  }
  const auto r = std::from_chars(b, e, v);
  return b != e && r.ec == std::errc() && r.ptr == e;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

void splitFields(std::string_view line, std::vector<std::string_view>& out) {
  splitOn(line, ',', out);
  for (std::string_view& f : out) f = trim(f);
}

void splitOn(std::string_view line, char separator, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t pos = 0;
  while (true) {
    const std::size_t c = line.find(separator, pos);
    out.push_back(line.substr(pos, c == std::string_view::npos ? std::string_view::npos : c - pos));
    if (c == std::string_view::npos) break;
    pos = c + 1;
  }
}

bool nextDataLine(std::string_view text, std::size_t& pos, int& line_number, std::string_view& line) {
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string_view t = trim(line);
    if (!t.empty() && t.front() != '#') return true;
  }
  return false;
}

void appendNumber(std::string& out, double v) {
  char buf[32];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

GroupedColumns parseGroupedHeader(const std::vector<std::string>& columns, const std::vector<std::string>& suffixes,
                                  const std::string& noun, const std::string& what, const std::string& source,
                                  int line) {
  if (columns.empty() || columns[0] != "time")
    throw ParseError(source, line,
                     "header: the first column must be 'time', found '" + (columns.empty() ? "" : columns[0]) + "'");
  std::string expected = "expected <" + noun + ">";
  for (std::size_t k = 0; k < suffixes.size(); ++k)
    expected += (k == 0 ? "." : (k + 1 == suffixes.size() ? " or ." : ", .")) + suffixes[k];
  GroupedColumns g;
  std::unordered_map<std::string, int> index;
  for (std::size_t c = 1; c < columns.size(); ++c) {
    const std::string& name = columns[c];
    const std::size_t dot = name.rfind('.');
    int k = -1;
    for (std::size_t s = 0; s < suffixes.size() && dot != std::string::npos; ++s)
      if (name.compare(dot + 1, std::string::npos, suffixes[s]) == 0) k = static_cast<int>(s);
    if (dot == 0 || k < 0) throw ParseError(source, line, "column '" + name + "': " + expected);
    const auto [it, added] = index.emplace(name.substr(0, dot), static_cast<int>(g.names.size()));
    if (added) {
      g.names.push_back(it->first);
      g.column_of.emplace_back(suffixes.size(), -1);
    }
    int& slot = g.column_of[static_cast<std::size_t>(it->second)][static_cast<std::size_t>(k)];
    if (slot >= 0) throw ParseError(source, line, "column '" + name + "': appears twice");
    slot = static_cast<int>(c);
  }
  if (g.names.empty()) throw ParseError(source, line, "header: no " + what + " columns after 'time'");
  return g;
}

}  // namespace kinetrack::io::detail
