#pragma once
// Plots drawn by the Python scripts in scripts/ (matplotlib, Debian's /usr/bin/python3): finding
// the script and running it, with a warning instead of a failure when plotting is impossible
// (the data files are written either way).
#include <filesystem>
#include <string>
#include <vector>

namespace kinetrack::cli {

/// `explicit_path` when given, else scripts/<name> under the working directory, else the source
/// tree of a build-tree binary (<exe_dir>/../../../scripts/<name>). Empty when not found.
std::filesystem::path findScript(const std::string& explicit_path, const std::string& name);

/// Runs `python3 script args…`; prints "wrote <png>" on success, otherwise a warning on stderr
/// saying why there is no plot (script or python missing, no matplotlib, script failure).
void runPlot(const std::filesystem::path& script, const std::string& name, const std::vector<std::string>& args,
             const std::filesystem::path& png);

}  // namespace kinetrack::cli
