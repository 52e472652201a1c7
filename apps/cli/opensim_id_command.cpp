// `kinetrack dynamics id --model M.osim …`: inverse dynamics of an OpenSim model on a coordinate
// file (.mot/.sto) with OpenSim ExternalLoads, as OpenSim's InverseDynamicsTool does it
// (biomech/opensim_id.hpp), writing OpenSim's .sto layout; with --reference, a per-column RMS
// table against another ID result (OpenSim's) and an overlay plot.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/biomech/opensim_id.hpp"
#include "kinetrack/dynamics/com_adjustment.hpp"
#include "opensim_id_command.hpp"
#include "plotting.hpp"
#include "text_table.hpp"

namespace kinetrack::cli {

namespace fs = std::filesystem;

int runOpenSimInverseDynamics(const OpenSimIdConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<io::IdSetup> setup;
  if (!cfg.setup.empty()) setup = io::readIdSetup(cfg.setup);
  io::OpenSimModel model = io::readOpenSimModel(cfg.model);
  if (!cfg.com_offset.empty()) {
    // BODY:X,Y,Z — the mass-centre offset `kinetrack dynamics filter --adjust-com` reports.
    const auto colon = cfg.com_offset.find(':');
    Vector3d d;
    const std::string body = cfg.com_offset.substr(0, colon);
    if (colon == std::string::npos ||
        std::sscanf(cfg.com_offset.c_str() + colon + 1, "%lf,%lf,%lf", &d.x(), &d.y(), &d.z()) != 3 || !d.allFinite())
      throw UsageError("--com-offset: expected BODY:X,Y,Z (m, the body's frame), got '" + cfg.com_offset + "'");
    const auto link = model.model->findLink(body);
    if (!link) throw UsageError("--com-offset: " + cfg.model + " has no body '" + body + "'");
    model.model = std::make_shared<const Model>(withComOffset(*model.model, *link, d));
  }
  const io::MotTable motion = io::readMot(cfg.motion);
  std::string loads_file = cfg.loads;
  if (loads_file.empty() && setup && !setup->external_loads_file.empty())
    loads_file = setup->resolve(setup->external_loads_file);
  std::optional<io::ExternalLoads> loads;
  if (!loads_file.empty()) loads = io::readExternalLoads(loads_file);
  biomech::OpenSimIdOptions options;
  if (setup) options = biomech::OpenSimIdOptions::fromSetup(*setup);
  if (cfg.cutoff_given) options.lowpass_cutoff_hz = cfg.cutoff;
  if (cfg.degrees == "yes") options.in_degrees = 1;
  if (cfg.degrees == "no") options.in_degrees = 0;
  if (!std::isfinite(options.time_start)) options.time_start = cfg.time_start;
  if (!std::isfinite(options.time_end)) options.time_end = cfg.time_end;
  std::optional<ProgressBar> bar;
  const biomech::OpenSimIdResult result = biomech::opensimInverseDynamics(
      model, motion, loads ? &*loads : nullptr, options, cfg.motion, [&](int done, int total) {
        if (!bar) bar.emplace(total, !cfg.quiet);
        bar->update(done);
      });
  io::writeMot(result.table(), cfg.out);

  fmt::print("OpenSim inverse dynamics of {} on {} ({} coordinates)\n", cfg.motion, model.source,
             model.coordinates.size());
  fmt::print("  {:<26} {} ({:.4f}–{:.4f} s)\n", "frames", result.times.size(), result.times.front(),
             result.times.back());
  if (options.lowpass_cutoff_hz >= 0.0)
    fmt::print("  {:<26} pad ½ length, 3rd-order Butterworth forward+backward at {:g} Hz, quintic spline\n",
               "coordinates", options.lowpass_cutoff_hz);
  else
    fmt::print("  {:<26} quintic spline through the samples (no low-pass)\n", "coordinates");
  if (loads)
    fmt::print("  {:<26} {} ({} forces from {})\n", "external loads", loads_file, loads->forces.size(),
               loads->data_source);
  if (!result.missing_coordinates.empty()) {
    std::string names;
    for (const std::string& n : result.missing_coordinates) names += (names.empty() ? "" : ", ") + n;
    fmt::print("  {:<26} {} (held at their default values)\n", "coordinates not in motion", names);
  }
  if (!cfg.reference.empty()) {
    const io::MotTable reference = io::readMot(cfg.reference);
    const std::vector<biomech::ColumnComparison> cmp = biomech::compareColumns(result, reference);
    std::vector<std::vector<std::string>> rows = {{"column", "RMS diff", "max |diff|", "reference range", "frames"}};
    double worst = 0.0;
    std::string worst_column;
    for (const biomech::ColumnComparison& c : cmp) {
      rows.push_back({c.column, fmt::format("{:.4f}", c.rms), fmt::format("{:.4f}", c.max_abs),
                      fmt::format("{:.2f}", c.reference_range), std::to_string(c.frames)});
      if (!(c.rms <= worst)) {
        worst = c.rms;
        worst_column = c.column;
      }
    }
    fmt::print("\nagainst {} (N m for _moment, N for _force)\n", cfg.reference);
    printTextTable(rows);
    fmt::print("  worst column: {} ({:.4f} RMS)\n", worst_column, worst);
    if (!cfg.plot.empty())
      runPlot(findScript(cfg.plot_script, "plot_opensim_id.py"), "plot_opensim_id.py",
              {cfg.out, cfg.reference, cfg.plot}, cfg.plot);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("  {:<26} {:.2f} s\n", "wall time", seconds);
  fmt::print("wrote {} ({} rows)\n", cfg.out, result.times.size());
  return kExitOk;
}

}  // namespace kinetrack::cli
