#pragma once
// A plain right-aligned text table for the CLI's summaries (first row = header).
#include <string>
#include <vector>

namespace kinetrack::cli {

/// Prints `rows` to stdout, columns right-aligned to their widest cell, two spaces apart; the
/// last column is left as is. Rows may have different lengths.
void printTextTable(const std::vector<std::vector<std::string>>& rows);

}  // namespace kinetrack::cli
