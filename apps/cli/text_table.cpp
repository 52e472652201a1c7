#include "text_table.hpp"

#include <fmt/format.h>

#include "kinetrack/app/job.hpp"

namespace kinetrack::cli {

void printTextTable(const std::vector<std::vector<std::string>>& rows) { fmt::print("{}", app::textTable(rows)); }

}  // namespace kinetrack::cli
