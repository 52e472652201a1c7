#include "kinetrack/app/job.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace kinetrack::app {

std::string textTable(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t c = 0; c + 1 < row.size(); ++c) out += fmt::format("{:>{}}  ", row[c], widths[c]);
    if (!row.empty()) out += row.back();
    out += '\n';
  }
  return out;
}

}  // namespace kinetrack::app
