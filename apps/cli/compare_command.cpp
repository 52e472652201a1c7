// `kinetrack experiment compare`: the DYN paper's Fig. 7 study on real captures (issue 5): models
// (human66, human48, iCub) × scenarios (T-pose held, walking, running; ../shared/data/README.md
// names the clips) × methods (DYN, whole-body instantaneous native and Ipopt, pair-wise). Writes
// compare.csv (model, scenario, method, frame, log10 MNTE, log10 RMSE, time_us), compare.png
// (box plots, scripts/plot_compare.py) and prints a median/IQR table.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/atomic_file.hpp"
#include "kinetrack/io/segment_map.hpp"
#include "kinetrack/io/urdf.hpp"
#include "kinetrack/metrics/tracking.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/segment_pairs.hpp"
#include "plotting.hpp"
#include "track_job.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;

struct CompareConfig {
  std::string out = "out/compare";
  std::string data = "../shared/data";
  std::string icub = "../shared/models/icub/iCubGazeboV2_5_model.urdf";
  std::string methods = "dynamical,wholebody,wholebody-ipopt,pairwise";
  int threads = 0;
  std::string plot_script;
  double tpose_seconds = 4.0;
  double transient = 2.0;
  bool no_plot = false;
};

struct Scenario {
  std::string name;
  std::string file;   ///< relative to --data
  bool hold_first = false;  ///< T-pose: frame 0 held as a static target
};

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> s = {
      {"T-pose", "bvh/cmu_cgspeed/cmu_01_01.bvh", true},
      {"walking", "bvh/bandai/dataset-2_walk_normal_001.bvh", false},
      {"running", "bvh/bandai/dataset-2_run_normal_001.bvh", false},
  };
  return s;
}

/// The capture's first frame repeated for `seconds` at its frame rate (a static target).
track::Capture holdFirstFrame(const track::Capture& c, double seconds) {
  track::Capture h = c;
  const double dt = c.clip.numFrames() > 1 ? c.clip.times[1] - c.clip.times[0] : 1.0 / 120.0;
  const int n = std::max(2, static_cast<int>(std::lround(seconds / dt)));
  const std::size_t ns = c.clip.segment_names.size();
  h.clip.times.resize(static_cast<std::size_t>(n));
  h.clip.poses.resize(static_cast<std::size_t>(n) * ns);
  h.clip.valid.resize(static_cast<std::size_t>(n) * ns);
  for (int f = 0; f < n; ++f) {
    h.clip.times[static_cast<std::size_t>(f)] = f * dt;
    for (std::size_t s = 0; s < ns; ++s) {
      h.clip.poses[static_cast<std::size_t>(f) * ns + s] = c.clip.poses[s];
      h.clip.valid[static_cast<std::size_t>(f) * ns + s] = c.clip.valid[s];
    }
  }
  h.clip.linear_velocity.clear();
  h.clip.angular_velocity.clear();
  return h;
}

struct Series {
  std::string model, scenario, method;
  std::vector<double> log_mnte, log_rmse, time_us;
};

double log10Floor(double v) { return std::log10(std::max(v, 1e-16)); }

std::string iqrCell(const std::vector<double>& v, const char* format) {
  if (v.empty()) return "-";
  std::vector<double> s = v;
  std::sort(s.begin(), s.end());
  auto q = [&](double p) {
    const double x = p * static_cast<double>(s.size() - 1);
    const auto i = static_cast<std::size_t>(x);
    return i + 1 < s.size() ? s[i] + (x - static_cast<double>(i)) * (s[i + 1] - s[i]) : s.back();
  };
  return fmt::format(fmt::runtime(format), q(0.5), q(0.75) - q(0.25));
}

int runCompare(const CompareConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> methods;
  for (std::size_t p = 0; p <= cfg.methods.size();) {
    const std::size_t c = std::min(cfg.methods.find(',', p), cfg.methods.size());
    if (c > p) methods.push_back(cfg.methods.substr(p, c - p));
    p = c + 1;
  }
  if (methods.empty()) throw UsageError("--methods: no method given");
  for (const std::string& m : methods) {
    track::TrackerOptions probe;
    setSolver(probe, m, cfg.threads);  // validates the name
  }
  fs::path script;
  if (!cfg.no_plot) {
    if (!cfg.plot_script.empty() && !fs::is_regular_file(cfg.plot_script))
      throw UsageError("--plot-script: no such file '" + cfg.plot_script + "'");
    script = findScript(cfg.plot_script, "plot_compare.py");
  }
  std::vector<std::pair<std::string, Model>> models = {{"human66", makeHuman66()}, {"human48", makeHuman48()}};
  if (fs::is_regular_file(cfg.icub)) {
    models.emplace_back("iCub", icubForRetargeting(io::loadUrdf(cfg.icub)));
  } else {
    fmt::print(stderr, "kinetrack: warning: {} not found: iCub left out\n", cfg.icub);
  }
  prepareOutputDirectory(cfg.out);

  std::vector<Series> series;
  for (const Scenario& sc : scenarios()) {
    const fs::path file = fs::path(cfg.data) / sc.file;
    track::Capture capture = track::loadCapture(file.string());
    if (sc.hold_first) capture = holdFirstFrame(capture, cfg.tpose_seconds);
    const io::SegmentMap clip_map = io::resolveSegmentMap(capture.clip.segment_names, "");
    for (const auto& [model_name, model] : models) {
      std::vector<track::SegmentPair> pairs;
      const bool robot = isIcub(model);
      if (robot) {
        pairs = track::composeMaps(clip_map, io::builtinRobotMap("icub"));
      } else {
        pairs = track::segmentPairsOnModel(model, clip_map).pairs;
      }
      track::PlanOptions po;
      po.calibration = "first";
      const track::Retargeting plan = track::planTracking(model, capture, pairs, po);
      for (const std::string& method : methods) {
        track::TrackerOptions to;
        to.dynamical.use_model_velocity_limits = robot;
        setSolver(to, method, cfg.threads);
        const track::TrackRecord r = track::runTracking(model, capture, plan, to, {});
        Series s{model_name, sc.name, method, {}, {}, {}};
        const double t0 = r.times.front();
        const double cut = std::min(cfg.transient, 0.5 * (r.times.back() - t0));
        for (std::size_t f = 0; f < r.times.size(); ++f) {
          if (r.gap[f] || r.times[f] - t0 < cut) continue;
          s.log_mnte.push_back(log10Floor(r.mnte[f]));
          s.log_rmse.push_back(log10Floor(r.rmse[f]));
          s.time_us.push_back(r.step_us[f]);
        }
        series.push_back(std::move(s));
      }
    }
  }

  std::string csv = "model,scenario,method,frame,log10_mnte,log10_rmse,time_us\n";
  for (const Series& s : series)
    for (std::size_t f = 0; f < s.time_us.size(); ++f)
      csv += fmt::format("{},{},{},{},{:.6g},{:.6g},{:.6g}\n", s.model, s.scenario, s.method, f, s.log_mnte[f], s.log_rmse[f], s.time_us[f]);
  const fs::path csv_path = fs::path(cfg.out) / "compare.csv";
  io::writeFileAtomically(csv_path.string(), csv);

  fmt::print("DYN Fig. 7 on real captures: median (IQR) after a {:g} s transient\n\n", cfg.transient);
  fmt::print("{:<8} {:<8} {:<16} {:>18} {:>18} {:>18}\n", "model", "scenario", "method", "log10 MNTE", "log10 RMSE", "time (us)");
  for (const Series& s : series)
    fmt::print("{:<8} {:<8} {:<16} {:>18} {:>18} {:>18}\n", s.model, s.scenario, s.method, iqrCell(s.log_mnte, "{:.2f} ({:.2f})"),
               iqrCell(s.log_rmse, "{:.2f} ({:.2f})"), iqrCell(s.time_us, "{:.1f} ({:.1f})"));
  fmt::print("\nwrote {}\n", csv_path.string());
  if (!cfg.no_plot) {
    const fs::path png = fs::path(cfg.out) / "compare.png";
    runPlot(script, "plot_compare.py", {csv_path.string(), png.string()}, png);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("done in {:.1f} s\n", seconds);
  return kExitOk;
}

}  // namespace

void addCompareCommand(CLI::App& experiment, Action& action) {
  auto cfg = std::make_shared<CompareConfig>();
  CLI::App* cmd = experiment.add_subcommand(
      "compare", "DYN Fig. 7: human66, human48, iCub x T-pose, walking, running x methods (CSV, box plots, table)");
  cmd->add_option("--out", cfg->out, "output directory")->capture_default_str();
  cmd->add_option("--data", cfg->data, "the shared data folder (../shared/data)")->capture_default_str();
  cmd->add_option("--icub", cfg->icub, "iCub URDF (left out with a warning when missing)")->capture_default_str();
  cmd->add_option("--methods", cfg->methods, "comma-separated: dynamical, wholebody, wholebody-ipopt, pairwise")->capture_default_str();
  cmd->add_option("--threads", cfg->threads, "threads of the pairwise method (0 = one per hardware thread)")->capture_default_str();
  cmd->add_option("--transient", cfg->transient, "seconds excluded from the statistics")->capture_default_str();
  cmd->add_option("--tpose-seconds", cfg->tpose_seconds, "length of the held T-pose")->capture_default_str();
  cmd->add_option("--plot-script", cfg->plot_script, "path of scripts/plot_compare.py (default: searched)");
  cmd->add_flag("--no-plot", cfg->no_plot, "write the CSV and table only");
  cmd->callback([&action, cfg] { action = [cfg] { return runCompare(*cfg); }; });
}

}  // namespace kinetrack::cli
