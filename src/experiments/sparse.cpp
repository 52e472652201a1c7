#include "kinetrack/experiments/sparse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::experiments {

using namespace kinetrack::prior;
namespace fs = std::filesystem;

SparseExperimentResult runSparseExperiment(const SparseExperimentOptions& cfg, const app::Reporter& reporter) {
  if (!(cfg.rate > 0.0) || !std::isfinite(cfg.rate)) throw InvalidArgument("--rate: need a finite rate > 0 (Hz)");
  std::error_code ec;
  if (!fs::is_directory(fs::path(cfg.data) / "bvh", ec))
    throw InvalidArgument("--data: '" + cfg.data + "' has no bvh/ folder (give the path of shared/data)");
  std::vector<StudySubject> subjects = sharedDataSubjects(cfg.data);
  if (!cfg.subjects.empty())
    std::erase_if(subjects, [&](const StudySubject& s) {
      return std::find(cfg.subjects.begin(), cfg.subjects.end(), s.name) == cfg.subjects.end();
    });
  if (subjects.size() < 2) throw InvalidArgument("--subjects: need at least two known subjects (leave one out)");
  app::prepareDirectory(cfg.out);
  const Model model = makeBuiltinModel("human66");
  SparseStudyOptions so;
  so.targets = parseTargetSpec(model, cfg.targets);
  so.density.inc = cfg.inc;
  so.dyn_peer = !cfg.no_dyn;
  so.ik = cfg.ik;
  so.posture = cfg.posture;
  reporter.say(
      fmt::format("experiment sparse: {} subjects tracked onto human66 with every segment (reference), then only {}\n",
                  subjects.size(), cfg.targets));
  std::vector<ReferenceMotion> motions;
  {
    const int total = static_cast<int>(subjects.size());
    for (int i = 0; i < total; ++i) {
      reporter.report(i, total, "reference " + subjects[static_cast<std::size_t>(i)].name);
      motions.push_back(referenceMotion(model, subjects[static_cast<std::size_t>(i)], cfg.rate));
    }
    reporter.report(total, total);
  }
  so.progress = [&reporter](int done, int total, const std::string& label) {
    reporter.report(done, total, label.empty() ? label : "left out: " + label);
  };
  SparseExperimentResult result;
  result.out = cfg.out;
  result.dyn = so.dyn_peer;
  for (const ReferenceMotion& m : motions) result.subjects.push_back({m.subject, m.frames()});
  result.rows = runSparseStudy(model, motions, so);
  io::writeFileAtomically((fs::path(cfg.out) / "sparse.csv").string(), sparseCsv(result.rows));
  return result;
}

std::string summaryText(const SparseExperimentResult& result) {
  std::string text;
  std::vector<std::vector<std::string>> t = {{"subject", "frames", "LN [deg]", "prior [deg]", "change", "DYN [deg]",
                                              "DYN+prior [deg]", "change", "LN [us]", "prior [us]", "DYN [us]",
                                              "DYN+prior [us]"}};
  std::map<std::string, std::map<std::string, SparseRow>> by;
  for (const SparseRow& r : result.rows) by[r.subject][r.method] = r;
  std::map<std::string, double> sum_deg, sum_us;
  const auto change = [](double a, double b) { return fmt::format("{:+.0f} %", 100.0 * (a / b - 1.0)); };
  for (const SparseSubject& m : result.subjects) {
    auto& r = by[m.name];
    for (const auto& [method, row] : r) sum_deg[method] += row.joint_rms_deg, sum_us[method] += row.frame_us;
    const bool dyn = r.contains("DYN");
    const auto deg = [&](const char* k) {
      return dyn || k[0] != 'D' ? fmt::format("{:.2f}", r[k].joint_rms_deg) : "-";
    };
    const auto us = [&](const char* k) { return dyn || k[0] != 'D' ? fmt::format("{:.1f}", r[k].frame_us) : "-"; };
    t.push_back({m.name, std::to_string(m.frames), deg("LN"), deg("GP"),
                 change(r["GP"].joint_rms_deg, r["LN"].joint_rms_deg), deg("DYN"), deg("DYN+GP"),
                 dyn ? change(r["DYN+GP"].joint_rms_deg, r["DYN"].joint_rms_deg) : "-", us("LN"), us("GP"), us("DYN"),
                 us("DYN+GP")});
  }
  text += fmt::format(
      "\njoint RMS of human66 (66 joints) against the full-capture reference; each subject left out of its "
      "prior\n");
  text += app::textTable(t);
  const double n = static_cast<double>(result.subjects.size());
  text +=
      fmt::format("mean over subjects: LN {:.2f} deg, prior {:.2f} deg ({:+.0f} %), time x{:.2f}\n", sum_deg["LN"] / n,
                  sum_deg["GP"] / n, 100.0 * (sum_deg["GP"] / sum_deg["LN"] - 1.0), sum_us["GP"] / sum_us["LN"]);
  if (result.dyn)
    text += fmt::format("                    DYN {:.2f} deg, DYN+prior {:.2f} deg ({:+.0f} %), time x{:.2f}\n",
                        sum_deg["DYN"] / n, sum_deg["DYN+GP"] / n, 100.0 * (sum_deg["DYN+GP"] / sum_deg["DYN"] - 1.0),
                        sum_us["DYN+GP"] / sum_us["DYN"]);
  text += fmt::format("wrote {}\n", (fs::path(result.out) / "sparse.csv").string());
  return text;
}

}  // namespace kinetrack::experiments
