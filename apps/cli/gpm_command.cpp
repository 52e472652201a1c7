// `kinetrack experiment gpm`: the GPM seed's study (SPEC §6) on the performers of ../shared/data.
// Fits each subject's 25-DoF DH model and recorded joint angles, then LN and GP (RMS, Eq. 6) for
// inc = 1 … 20 with every subject in the densities and with each one left out (Fig. 4), and the
// robustness test of Table II at one inc (Fig. 5). Writes DIR/gpm.csv, DIR/gpm_robustness.csv,
// DIR/gpm_fits.csv, the PNGs (scripts/plot_gpm.py) and prints the tables.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/io/atomic_file.hpp"
#include "kinetrack/prior/gpm_study.hpp"
#include "plotting.hpp"
#include "text_table.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;
using namespace kinetrack::prior;

struct GpmConfig {
  std::string out, data = "../shared/data", plot_script;
  std::vector<int> incs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  std::vector<std::string> subjects;
  double rate = 30.0;
  int robustness_inc = 5;
  bool no_loo = false, no_plot = false, raw_twists = false;
  GpmOptions gpm;
  int min_samples = DensityOptions{}.min_samples;
};

std::string meanSd(const std::vector<double>& v) {
  if (v.empty()) return "-";
  double m = 0.0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double var = 0.0;
  for (double x : v) var += (x - m) * (x - m);
  const double sd = v.size() > 1 ? std::sqrt(var / static_cast<double>(v.size() - 1)) : 0.0;
  return fmt::format("{:.2f} ± {:.2f}", m, sd);
}

std::string fitsCsv(const std::vector<SubjectFit>& fits) {
  std::string s =
      "subject,clips,frames,hand_position_rms_mm,hand_position_max_mm,hand_orientation_rms_deg,limits_widened\n";
  for (const SubjectFit& f : fits)
    s += fmt::format("{},{},{},{:.3f},{:.3f},{:.4f},{}\n", f.subject, f.clips.size(), f.quality.frames,
                     1e3 * f.quality.hand_position_rms, 1e3 * f.quality.hand_position_max,
                     f.quality.hand_orientation_rms * 180.0 / M_PI, f.quality.limits_widened);
  return s;
}

void printStudy(const StudyResult& r, const std::vector<int>& incs) {
  std::vector<std::vector<std::string>> t = {{"inc", "LN [deg]", "GP included [deg]", "GP excluded [deg]"}};
  for (int inc : incs) {
    std::vector<double> ln, in, ex;
    for (const StudyRow& row : r.rows) {
      if (row.inc != inc) continue;
      if (row.method == IkMethod::LeastNorm)
        ln.push_back(row.rms_deg);
      else
        (row.included ? in : ex).push_back(row.rms_deg);
    }
    t.push_back({std::to_string(inc), meanSd(ln), meanSd(in), meanSd(ex)});
  }
  fmt::print(
      "\nRMS joint-angle error (Eq. 6), mean ± sd over subjects (paper: LN 11.1 ± 1.5; GP 7.7 ± 1.0 at "
      "inc 1 to 3.7 ± 0.4 at inc 20, included subjects)\n");
  printTextTable(t);
  if (r.robustness.empty()) return;
  std::map<int, std::pair<std::vector<double>, std::vector<double>>> by_test;
  for (const RobustnessRow& row : r.robustness)
    (row.included ? by_test[row.test].first : by_test[row.test].second).push_back(row.rms_deg);
  std::vector<std::vector<std::string>> u = {{"test", "included subjects", "GP included [deg]", "GP excluded [deg]"}};
  for (const auto& [test, v] : by_test)
    u.push_back({std::to_string(test), std::to_string(v.first.size()), meanSd(v.first), meanSd(v.second)});
  fmt::print("\nrobustness (Table II / Fig. 5): the first N subjects in the densities\n");
  printTextTable(u);
}

int runGpm(const GpmConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  if (!(cfg.rate > 0.0) || !std::isfinite(cfg.rate)) throw UsageError("--rate: need a finite rate > 0 (Hz)");
  for (int inc : cfg.incs)
    if (inc < 1 || inc > 40) throw UsageError(fmt::format("--incs: {} is outside 1 … 40", inc));
  if (cfg.robustness_inc < 0 || cfg.robustness_inc > 40) throw UsageError("--robustness-inc: 0 (skip) … 40");
  std::error_code ec;
  if (!fs::is_directory(fs::path(cfg.data) / "bvh", ec))
    throw UsageError("--data: '" + cfg.data + "' has no bvh/ folder (give the path of shared/data)");
  std::vector<StudySubject> subjects = sharedDataSubjects(cfg.data);
  if (!cfg.subjects.empty()) {
    std::vector<StudySubject> chosen;
    for (const std::string& name : cfg.subjects) {
      bool found = false;
      for (const auto& s : subjects)
        if (s.name == name) chosen.push_back(s), found = true;
      if (!found) {
        std::string valid;
        for (const auto& s : subjects) valid += (valid.empty() ? "" : ", ") + s.name;
        throw UsageError("--subjects: unknown subject '" + name + "'; valid: " + valid);
      }
    }
    subjects = chosen;
  }
  fs::path script;
  if (!cfg.no_plot) script = findScript(cfg.plot_script, "plot_gpm.py");
  prepareOutputDirectory(cfg.out);

  fmt::print("experiment gpm (GPM seed, SPEC §6): {} subjects, frames resampled to ~{:g} Hz\n", subjects.size(),
             cfg.rate);
  std::vector<SubjectFit> fits;
  {
    ProgressBar bar(static_cast<int>(subjects.size()), true, "subject");
    SubjectFitOptions fo;
    fo.rate = cfg.rate;
    fo.center_twists = !cfg.raw_twists;
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      bar.update(static_cast<int>(i), "fitting " + subjects[i].name);
      fits.push_back(fitSubject(subjects[i].name, subjects[i].clips, fo));
    }
    bar.update(static_cast<int>(subjects.size()));
  }
  std::vector<std::vector<std::string>> ft = {
      {"subject", "clips", "frames", "hand pos RMS [mm]", "max [mm]", "hand ori RMS [deg]", "limits widened"}};
  for (const SubjectFit& f : fits)
    ft.push_back({f.subject, std::to_string(f.clips.size()), std::to_string(f.quality.frames),
                  fmt::format("{:.1f}", 1e3 * f.quality.hand_position_rms),
                  fmt::format("{:.1f}", 1e3 * f.quality.hand_position_max),
                  fmt::format("{:.3f}", f.quality.hand_orientation_rms * 180.0 / M_PI),
                  std::to_string(f.quality.limits_widened)});
  fmt::print("\nsubject models and recorded angles (model at the recorded angles vs the capture's wrists)\n");
  printTextTable(ft);

  StudyOptions so;
  so.incs = cfg.incs;
  so.robustness_inc = cfg.robustness_inc;
  so.leave_one_out = !cfg.no_loo;
  so.gpm = cfg.gpm;
  so.density.min_samples = cfg.min_samples;
  std::unique_ptr<ProgressBar> study_bar;
  so.progress = [&study_bar](int done, int total, const std::string& label) {
    if (!study_bar) study_bar = std::make_unique<ProgressBar>(total, true, "run");
    study_bar->update(done, label);
  };
  const StudyResult result = runGpmStudy(fits, so);

  const fs::path dir(cfg.out);
  io::writeFileAtomically((dir / "gpm.csv").string(), studyCsv(result.rows));
  io::writeFileAtomically((dir / "gpm_robustness.csv").string(), robustnessCsv(result.robustness));
  io::writeFileAtomically((dir / "gpm_fits.csv").string(), fitsCsv(fits));
  printStudy(result, cfg.incs);
  fmt::print("\nwrote {}, {}, {}\n", (dir / "gpm.csv").string(), (dir / "gpm_robustness.csv").string(),
             (dir / "gpm_fits.csv").string());
  if (!cfg.no_plot) {
    runPlot(script, "plot_gpm.py", {"fig4", (dir / "gpm.csv").string(), (dir / "gpm_fig4.png").string()},
            dir / "gpm_fig4.png");
    if (!result.robustness.empty())
      runPlot(script, "plot_gpm.py",
              {"fig5", (dir / "gpm_robustness.csv").string(), (dir / "gpm_fig5.png").string(), "--inc",
               std::to_string(cfg.robustness_inc)},
              dir / "gpm_fig5.png");
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("done in {:.1f} s\n", s);
  return kExitOk;
}

}  // namespace

void addGpmExperiment(CLI::App& experiment, Action& action) {
  auto cfg = std::make_shared<GpmConfig>();
  CLI::App* cmd = experiment.add_subcommand(
      "gpm", "GPM seed: LN vs density gradient projection on the 25-DoF upper body, Fig. 4 and 5 (Table II)");
  cmd->add_option("--out", cfg->out, "output directory: gpm.csv, gpm_robustness.csv, gpm_fits.csv, PNGs")->required();
  cmd->add_option("--data", cfg->data, "the shared data folder (holding bvh/)")->capture_default_str();
  cmd->add_option("--incs", cfg->incs, "workspace divisions per axis, comma-separated")->delimiter(',');
  cmd->add_option("--subjects", cfg->subjects, "only these subjects (comma-separated names)")->delimiter(',');
  cmd->add_option("--rate", cfg->rate, "frames kept per second of capture (Hz)")->capture_default_str();
  cmd->add_option("--robustness-inc", cfg->robustness_inc, "inc of the Table II test (0: skip)")->capture_default_str();
  cmd->add_option("--gain", cfg->gpm.gain, "k of Eq. 5 (rad per unit gradient of p_max/p)")->capture_default_str();
  cmd->add_option("--iterations", cfg->gpm.iterations, "Eq. 3/4 updates per frame")->capture_default_str();
  cmd->add_option("--max-prior-step", cfg->gpm.max_prior_step, "cap of |grad H_i| per update (rad)")
      ->capture_default_str();
  cmd->add_option("--min-samples", cfg->min_samples, "cells with fewer samples are empty (LN fallback)")
      ->capture_default_str();
  cmd->add_flag("--raw-twists", cfg->raw_twists,
                "keep each skeleton's own zero of the bone-axis twists (default: the subject's median)");
  cmd->add_flag("--no-loo", cfg->no_loo, "skip the leave-one-subject-out runs (included = 0 rows)");
  cmd->add_flag("--no-plot", cfg->no_plot, "write the CSVs only");
  cmd->add_option("--plot-script", cfg->plot_script, "path of plot_gpm.py (default: scripts/ of the source tree)");
  cmd->callback([&action, cfg] { action = [cfg] { return runGpm(*cfg); }; });
}

}  // namespace kinetrack::cli
