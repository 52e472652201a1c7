// The learned joint-angle prior beyond the GPM seed (docs/gpm.md, "Sparse-input tracking"):
//   kinetrack prior build --out prior.bin CLIP...      clips tracked onto the model, densities learned
//   kinetrack track ... --targets head,hands [--prior prior.bin]   few targets, prior in the null space
//   kinetrack experiment sparse --out DIR              held-out subjects: LN vs prior vs DYN
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/prior_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/dynamical_ik.hpp"
#include "kinetrack/io/atomic_file.hpp"
#include "kinetrack/io/joint_csv.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/prior/prior_posture.hpp"
#include "kinetrack/prior/sparse_study.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "plotting.hpp"
#include "text_table.hpp"

namespace kinetrack::cli {
namespace {

namespace fs = std::filesystem;
using namespace kinetrack::prior;

// --- prior build ------------------------------------------------------------------------------

int runBuild(const app::PriorBuildOptions& o) {
  const app::PriorBuildResult r = app::runPriorBuild(o, cliReporter(true, "clip"));
  fmt::print("{}", app::summaryText(r, o.out));
  return kExitOk;
}

// --- experiment sparse ------------------------------------------------------------------------

struct SparseConfig {
  std::string out, data = "../shared/data", targets = "head,hands", plot_script;
  std::vector<std::string> subjects;
  double rate = 30.0;
  int inc = 1;
  bool no_dyn = false, no_plot = false;
  SparseIkOptions ik;
  PriorPostureOptions posture;
};

int runSparse(const SparseConfig& cfg) {
  const auto start = std::chrono::steady_clock::now();
  if (!(cfg.rate > 0.0) || !std::isfinite(cfg.rate)) throw UsageError("--rate: need a finite rate > 0 (Hz)");
  std::error_code ec;
  if (!fs::is_directory(fs::path(cfg.data) / "bvh", ec))
    throw UsageError("--data: '" + cfg.data + "' has no bvh/ folder (give the path of shared/data)");
  std::vector<StudySubject> subjects = sharedDataSubjects(cfg.data);
  if (!cfg.subjects.empty())
    std::erase_if(subjects, [&](const StudySubject& s) {
      return std::find(cfg.subjects.begin(), cfg.subjects.end(), s.name) == cfg.subjects.end();
    });
  if (subjects.size() < 2) throw UsageError("--subjects: need at least two known subjects (leave one out)");
  fs::path script;
  if (!cfg.no_plot) script = findScript(cfg.plot_script, "plot_gpm.py");
  prepareOutputDirectory(cfg.out);
  const Model model = makeBuiltinModel("human66");
  SparseStudyOptions so;
  so.targets = parseTargetSpec(model, cfg.targets);
  so.density.inc = cfg.inc;
  so.dyn_peer = !cfg.no_dyn;
  so.ik = cfg.ik;
  so.posture = cfg.posture;
  fmt::print("experiment sparse: {} subjects tracked onto human66 with every segment (reference), then only {}\n",
             subjects.size(), cfg.targets);
  std::vector<ReferenceMotion> motions;
  {
    ProgressBar bar(static_cast<int>(subjects.size()), true, "subject");
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      bar.update(static_cast<int>(i), "reference " + subjects[i].name);
      motions.push_back(referenceMotion(model, subjects[i], cfg.rate));
    }
    bar.update(static_cast<int>(subjects.size()));
  }
  std::unique_ptr<ProgressBar> bar;
  so.progress = [&bar](int done, int total, const std::string& label) {
    if (!bar) bar = std::make_unique<ProgressBar>(total, true, "subject");
    bar->update(done, label.empty() ? label : "left out: " + label);
  };
  const std::vector<SparseRow> rows = runSparseStudy(model, motions, so);
  const fs::path csv = fs::path(cfg.out) / "sparse.csv";
  io::writeFileAtomically(csv.string(), sparseCsv(rows));

  std::vector<std::vector<std::string>> t = {{"subject", "frames", "LN [deg]", "prior [deg]", "change", "DYN [deg]",
                                              "DYN+prior [deg]", "change", "LN [us]", "prior [us]", "DYN [us]",
                                              "DYN+prior [us]"}};
  std::map<std::string, std::map<std::string, SparseRow>> by;
  for (const SparseRow& r : rows) by[r.subject][r.method] = r;
  std::map<std::string, double> sum_deg, sum_us;
  const auto change = [](double a, double b) { return fmt::format("{:+.0f} %", 100.0 * (a / b - 1.0)); };
  for (const ReferenceMotion& m : motions) {
    auto& r = by[m.subject];
    for (const auto& [method, row] : r) sum_deg[method] += row.joint_rms_deg, sum_us[method] += row.frame_us;
    const bool dyn = r.contains("DYN");
    const auto deg = [&](const char* k) {
      return dyn || k[0] != 'D' ? fmt::format("{:.2f}", r[k].joint_rms_deg) : "-";
    };
    const auto us = [&](const char* k) { return dyn || k[0] != 'D' ? fmt::format("{:.1f}", r[k].frame_us) : "-"; };
    t.push_back({m.subject, std::to_string(m.frames()), deg("LN"), deg("GP"),
                 change(r["GP"].joint_rms_deg, r["LN"].joint_rms_deg), deg("DYN"), deg("DYN+GP"),
                 dyn ? change(r["DYN+GP"].joint_rms_deg, r["DYN"].joint_rms_deg) : "-", us("LN"), us("GP"), us("DYN"),
                 us("DYN+GP")});
  }
  fmt::print(
      "\njoint RMS of human66 (66 joints) against the full-capture reference; each subject left out of its "
      "prior\n");
  printTextTable(t);
  const double n = static_cast<double>(motions.size());
  fmt::print("mean over subjects: LN {:.2f} deg, prior {:.2f} deg ({:+.0f} %), time x{:.2f}\n", sum_deg["LN"] / n,
             sum_deg["GP"] / n, 100.0 * (sum_deg["GP"] / sum_deg["LN"] - 1.0), sum_us["GP"] / sum_us["LN"]);
  if (so.dyn_peer)
    fmt::print("                    DYN {:.2f} deg, DYN+prior {:.2f} deg ({:+.0f} %), time x{:.2f}\n",
               sum_deg["DYN"] / n, sum_deg["DYN+GP"] / n, 100.0 * (sum_deg["DYN+GP"] / sum_deg["DYN"] - 1.0),
               sum_us["DYN+GP"] / sum_us["DYN"]);
  fmt::print("wrote {}\n", csv.string());
  if (!cfg.no_plot)
    runPlot(script, "plot_gpm.py", {"sparse", csv.string(), (fs::path(cfg.out) / "sparse.png").string()},
            fs::path(cfg.out) / "sparse.png");
  fmt::print("done in {:.1f} s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return kExitOk;
}

}  // namespace

void addPriorCommands(CLI::App& parent, CLI::App& experiment, Action& action) {
  auto build = std::make_shared<app::PriorBuildOptions>();
  CLI::App* prior =
      parent.add_subcommand("prior", "learned joint-angle priors (GPM densities) for sparse-input tracking");
  prior->require_subcommand(1);
  CLI::App* b = prior->add_subcommand("build", "track clips onto a model and learn its joint-angle densities");
  b->add_option("clips", build->clips, "captures (.bvh, .mvnx)")->required();
  b->add_option("--out", build->out, "prior file to write (binary, docs/gpm.md)")->required();
  b->add_option("--model", build->model.model, "built-in model (human66, human48) or URDF")->capture_default_str();
  b->add_option("--rate", build->rate, "frames kept per second of capture (Hz)")->capture_default_str();
  b->add_option("--inc", build->inc, "workspace divisions per axis of the hands' cells")->capture_default_str();
  b->add_option("--min-samples", build->min_samples, "cells with fewer samples stay empty")->capture_default_str();
  b->callback([&action, build] { action = [build] { return runBuild(*build); }; });

  auto sp = std::make_shared<SparseConfig>();
  CLI::App* s = experiment.add_subcommand(
      "sparse", "held-out subjects tracked from few targets: damped least norm vs the learned prior vs DYN");
  s->add_option("--out", sp->out, "output directory: sparse.csv, sparse.png")->required();
  s->add_option("--data", sp->data, "the shared data folder (holding bvh/)")->capture_default_str();
  s->add_option("--targets", sp->targets, "targets: head, hands, feet, pelvis or frame names")->capture_default_str();
  s->add_option("--subjects", sp->subjects, "only these subjects (comma-separated)")->delimiter(',');
  s->add_option("--rate", sp->rate, "frames kept per second (Hz)")->capture_default_str();
  s->add_option("--inc", sp->inc, "workspace divisions per axis of the prior")->capture_default_str();
  s->add_flag("--no-dyn", sp->no_dyn, "skip the DYN peer");
  s->add_option("--gain", sp->ik.gain, "k of the prior gradient")->capture_default_str();
  s->add_option("--max-prior-step", sp->ik.max_prior_step, "cap of |grad H_i| per update (rad)")->capture_default_str();
  s->add_option("--iterations", sp->ik.iterations, "updates per frame")->capture_default_str();
  s->add_option("--dyn-weight", sp->posture.weight, "DYN+prior: weight mu of the posture term")->capture_default_str();
  s->add_option("--dyn-gain", sp->posture.gain, "DYN+prior: k of the prior gradient")->capture_default_str();
  s->add_option("--dyn-max-step", sp->posture.max_step, "DYN+prior: cap of k|grad H_i| per step (rad)")
      ->capture_default_str();
  s->add_flag("--no-plot", sp->no_plot, "write the CSV only");
  s->add_option("--plot-script", sp->plot_script, "path of plot_gpm.py");
  s->callback([&action, sp] { action = [sp] { return runSparse(*sp); }; });
}

}  // namespace kinetrack::cli
