// `kinetrack experiment gpm`: the GPM seed's study (SPEC §6) on the performers of ../shared/data.
// Fits each subject's 25-DoF DH model and recorded joint angles, then LN and GP (RMS, Eq. 6) for
// inc = 1 … 20 with every subject in the densities and with each one left out (Fig. 4), and the
// robustness test of Table II at one inc (Fig. 5). Writes DIR/gpm.csv, DIR/gpm_robustness.csv,
// DIR/gpm_fits.csv, the PNGs (scripts/plot_gpm.py) and prints the tables.
#include "kinetrack/experiments/gpm.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/prior/density.hpp"
#include "kinetrack/prior/gpm_study.hpp"
#include "kinetrack/prior/subject_fit.hpp"

namespace kinetrack::experiments {
namespace {

namespace fs = std::filesystem;
using namespace kinetrack::prior;

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

std::string studyText(const GpmExperimentResult& r) {
  const std::vector<int>& incs = r.incs;
  std::string text;
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
  text += fmt::format(
      "\nRMS joint-angle error (Eq. 6), mean ± sd over subjects (paper: LN 11.1 ± 1.5; GP 7.7 ± 1.0 at "
      "inc 1 to 3.7 ± 0.4 at inc 20, included subjects)\n");
  text += app::textTable(t);
  if (r.robustness.empty()) return text;
  std::map<int, std::pair<std::vector<double>, std::vector<double>>> by_test;
  for (const RobustnessRow& row : r.robustness)
    (row.included ? by_test[row.test].first : by_test[row.test].second).push_back(row.rms_deg);
  std::vector<std::vector<std::string>> u = {{"test", "included subjects", "GP included [deg]", "GP excluded [deg]"}};
  for (const auto& [test, v] : by_test)
    u.push_back({std::to_string(test), std::to_string(v.first.size()), meanSd(v.first), meanSd(v.second)});
  text += fmt::format("\nrobustness (Table II / Fig. 5): the first N subjects in the densities\n");
  text += app::textTable(u);
  return text;
}

}  // namespace

GpmExperimentResult runGpmExperiment(const GpmExperimentOptions& cfg, const app::Reporter& reporter) {
  if (!(cfg.rate > 0.0) || !std::isfinite(cfg.rate)) throw InvalidArgument("--rate: need a finite rate > 0 (Hz)");
  for (int inc : cfg.incs)
    if (inc < 1 || inc > 40) throw InvalidArgument(fmt::format("--incs: {} is outside 1 … 40", inc));
  if (cfg.robustness_inc < 0 || cfg.robustness_inc > 40) throw InvalidArgument("--robustness-inc: 0 (skip) … 40");
  std::error_code ec;
  if (!fs::is_directory(fs::path(cfg.data) / "bvh", ec))
    throw InvalidArgument("--data: '" + cfg.data + "' has no bvh/ folder (give the path of shared/data)");
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
        throw InvalidArgument("--subjects: unknown subject '" + name + "'; valid: " + valid);
      }
    }
    subjects = chosen;
  }
  app::prepareDirectory(cfg.out);

  reporter.say(fmt::format("experiment gpm (GPM seed, SPEC §6): {} subjects, frames resampled to ~{:g} Hz\n",
                           subjects.size(), cfg.rate));
  std::vector<SubjectFit> fits;
  {
    const int bar_total = static_cast<int>(subjects.size());
    SubjectFitOptions fo;
    fo.rate = cfg.rate;
    fo.center_twists = !cfg.raw_twists;
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      reporter.report(static_cast<int>(i), bar_total, "fitting " + subjects[i].name);
      fits.push_back(fitSubject(subjects[i].name, subjects[i].clips, fo));
    }
    reporter.report(bar_total, bar_total);
  }
  StudyOptions so;
  so.incs = cfg.incs;
  so.robustness_inc = cfg.robustness_inc;
  so.leave_one_out = !cfg.no_loo;
  so.gpm = cfg.gpm;
  so.density.min_samples = cfg.min_samples;
  so.progress = [&reporter](int done, int total, const std::string& label) { reporter.report(done, total, label); };
  StudyResult study = runGpmStudy(fits, so);

  GpmExperimentResult r;
  r.out = cfg.out;
  r.incs = cfg.incs;
  for (const SubjectFit& f : fits) r.fits.push_back({f.subject, static_cast<int>(f.clips.size()), f.quality});
  r.rows = std::move(study.rows);
  r.robustness = std::move(study.robustness);
  const fs::path dir(cfg.out);
  io::writeFileAtomically((dir / "gpm.csv").string(), studyCsv(r.rows));
  io::writeFileAtomically((dir / "gpm_robustness.csv").string(), robustnessCsv(r.robustness));
  io::writeFileAtomically((dir / "gpm_fits.csv").string(), gpmFitsCsv(r.fits));
  return r;
}

std::string gpmFitsCsv(const std::vector<GpmFitRow>& fits) {
  std::string s =
      "subject,clips,frames,hand_position_rms_mm,hand_position_max_mm,hand_orientation_rms_deg,limits_widened\n";
  for (const GpmFitRow& f : fits)
    s += fmt::format("{},{},{},{:.3f},{:.3f},{:.4f},{}\n", f.subject, f.clips, f.quality.frames,
                     1e3 * f.quality.hand_position_rms, 1e3 * f.quality.hand_position_max,
                     f.quality.hand_orientation_rms * 180.0 / M_PI, f.quality.limits_widened);
  return s;
}

std::string summaryText(const GpmExperimentResult& result) {
  std::string text;
  std::vector<std::vector<std::string>> ft = {
      {"subject", "clips", "frames", "hand pos RMS [mm]", "max [mm]", "hand ori RMS [deg]", "limits widened"}};
  for (const GpmFitRow& f : result.fits)
    ft.push_back({f.subject, std::to_string(f.clips), std::to_string(f.quality.frames),
                  fmt::format("{:.1f}", 1e3 * f.quality.hand_position_rms),
                  fmt::format("{:.1f}", 1e3 * f.quality.hand_position_max),
                  fmt::format("{:.3f}", f.quality.hand_orientation_rms * 180.0 / M_PI),
                  std::to_string(f.quality.limits_widened)});
  text += fmt::format("\nsubject models and recorded angles (model at the recorded angles vs the capture's wrists)\n");
  text += app::textTable(ft);

  text += studyText(result);
  const fs::path dir(result.out);
  text += fmt::format("\nwrote {}, {}, {}\n", (dir / "gpm.csv").string(), (dir / "gpm_robustness.csv").string(),
                      (dir / "gpm_fits.csv").string());
  return text;
}

}  // namespace kinetrack::experiments
