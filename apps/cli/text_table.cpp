#include "text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kinetrack::cli {

void printTextTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c + 1 < row.size(); ++c) line += fmt::format("{:>{}}  ", row[c], widths[c]);
    if (!row.empty()) line += row.back();
    fmt::print("{}\n", line);
  }
}

}  // namespace kinetrack::cli
