#pragma once
// Private helpers shared by the text readers of kinetrack_io.
#include <string>
#include <string_view>
#include <vector>

namespace kinetrack::io::detail {

/// Whole file as text; throws ParseError(path, 0, "cannot open file: <reason>").
std::string readTextFile(const std::string& path);

/// Parses exactly one number (no surrounding whitespace): an optional '+', anything
/// std::from_chars accepts (".5", "1e-3"), or nan/NaN/NAN/-nan as quiet NaN.
bool parseNumber(std::string_view s, double& v);

/// `s` without leading and trailing spaces and tabs.
std::string_view trim(std::string_view s);
/// Whitespace-separated fields of `s` (XML list values such as `<datafile>` or force names).
std::vector<std::string> words(const std::string& s);

/// Comma-separated fields of one line, trimmed, into `out` (cleared first; reuse it across lines).
void splitFields(std::string_view line, std::vector<std::string_view>& out);

/// Fields of one line separated by `separator`, untrimmed (empty fields kept), into `out`
/// (cleared first).
void splitOn(std::string_view line, char separator, std::vector<std::string_view>& out);

/// Advances `pos` over `text` to the next line that is neither blank nor a '#' comment, with a
/// trailing '\r' removed; `line_number` (1-based) follows. False at the end of the text.
bool nextDataLine(std::string_view text, std::size_t& pos, int& line_number, std::string_view& line);

/// Appends the shortest representation of `v` that reads back exactly (std::to_chars).
void appendNumber(std::string& out, double v);

/// The header of a CSV of `time` then `<name>.<suffix>` columns in any order (pose targets,
/// wrenches): the names in first-seen order and, per name, the field index of each suffix (−1
/// when absent). Throws ParseError(source, line, …) when the first column is not `time`, a column
/// is not `<name>.<one of suffixes>` ("column 'c': expected <noun>.a, .b or .c"), a column appears
/// twice, or no column follows `time` ("header: no <what> columns after 'time'").
struct GroupedColumns {
  std::vector<std::string> names;
  std::vector<std::vector<int>> column_of;
};
GroupedColumns parseGroupedHeader(const std::vector<std::string>& columns, const std::vector<std::string>& suffixes,
                                  const std::string& noun, const std::string& what, const std::string& source,
                                  int line);

}  // namespace kinetrack::io::detail
