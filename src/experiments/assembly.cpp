// `kinetrack experiment assembly`: Table 1 of the Nakamura seed (SPEC §5) and the 40-DoF-figure
// timings. Serial chains of 8 … N links and a human figure hanging from a bar by 0, 1 or 2 hands,
// each with the serial and the parallel schedule on 1 … T threads: the measured time of one
// forward-dynamics call (median over batches, ABA in the same run for scale) and the counted
// operations of the schedule — total work, critical path (the time on unlimited processors) and
// the split on T threads — so the O(log N) height shows by counting, not by this 2-core machine.
// Writes DIR/assembly.csv and DIR/assembly.png (scripts/plot_assembly.py) and prints the table.
#include "kinetrack/experiments/assembly.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/dynamics/assembly.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/human_models.hpp"
#include "kinetrack/model/serial_chain.hpp"

namespace kinetrack::experiments {
namespace {

using Row = AssemblyRow;

// Median per-call time (µs) of `f` over `batches` batches of about `batch_ms` each.
template <class F>
double medianMicros(F&& f, int batches, double batch_ms) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < 20; ++i) f();
  auto t0 = Clock::now();
  int calls = 0;
  while (std::chrono::duration<double, std::milli>(Clock::now() - t0).count() < batch_ms / 4) {
    f();
    ++calls;
  }
  const int n = std::max(1, calls * 4);
  std::vector<double> per(static_cast<std::size_t>(batches));
  for (double& p : per) {
    t0 = Clock::now();
    for (int i = 0; i < n; ++i) f();
    p = std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / n;
  }
  std::nth_element(per.begin(), per.begin() + static_cast<long>(per.size() / 2), per.end());
  return per[per.size() / 2];
}

std::vector<Row> measure(const std::string& kind, const std::shared_ptr<const Model>& model,
                         const std::vector<LoopClosure>& loops, const AssemblyExperimentOptions& cfg,
                         const Configuration& q, const VectorXd& v, const VectorXd& tau, const app::Reporter& reporter,
                         int total, int& done, const std::string& label) {
  const Model& m = *model;
  DynamicsData d(m);
  const double aba_us = medianMicros([&] { aba(m, d, q, v, tau); }, cfg.batches, cfg.batch_ms);
  std::vector<Row> rows;
  for (const AssemblySchedule s : {AssemblySchedule::Serial, AssemblySchedule::Parallel})
    for (int t = 1; t <= cfg.max_threads; ++t) {
      AssemblyOptions o;
      o.schedule = s;
      o.threads = t;
      o.loops = loops;
      const AssemblyPlan plan(model, o);
      AssemblyData ad(plan);
      Row r;
      r.kind = kind;
      r.links = plan.stats().bodies - 1;
      r.dof = m.nv();
      r.loops = static_cast<int>(loops.size());
      r.threads = t;
      r.schedule = toString(s);
      r.height = plan.stats().height;
      r.total = plan.stats().total_flops;
      r.critical = plan.stats().critical_path_flops;
      r.threaded = plan.stats().threaded_flops;
      r.aba_us = aba_us;
      r.time_us = medianMicros([&] { assemblyForwardDynamics(plan, ad, q, v, tau); }, cfg.batches, cfg.batch_ms);
      rows.push_back(r);
      reporter.report(++done, total, label);
    }
  return rows;
}

}  // namespace

AssemblyExperimentResult runAssemblyExperiment(const AssemblyExperimentOptions& cfg, const app::Reporter& reporter) {
  if (cfg.max_links < 8) throw InvalidArgument("--max-links must be >= 8");
  if (cfg.max_threads < 1 || cfg.max_threads > 64) throw InvalidArgument("--threads must be 1 to 64");
  if (cfg.batches < 3 || !(cfg.batch_ms > 0.0)) throw InvalidArgument("--batches must be >= 3 and --batch-ms > 0");
  app::prepareDirectory(cfg.out);
  std::vector<int> sizes;
  for (int n = 8; n <= cfg.max_links; n *= 2) sizes.push_back(n);
  const int total = static_cast<int>(sizes.size() + 3) * 2 * cfg.max_threads;
  int done = 0;
  std::vector<Row> rows;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> g(0.0, 1.0);
  auto randomVec = [&](int n, double s) {
    VectorXd x(n);
    for (int i = 0; i < n; ++i) x[i] = s * g(rng);
    return x;
  };
  for (const int n : sizes) {
    SerialChainOptions o;
    o.links = n;
    auto model = std::make_shared<const Model>(makeSerialChain(o));
    const Configuration q = randomConfiguration(*model, rng);
    const auto r = measure("chain", model, {}, cfg, q, randomVec(model->nv(), 1.0), randomVec(model->nv(), 5.0),
                           reporter, total, done, fmt::format("chain of {} links", n));
    rows.insert(rows.end(), r.begin(), r.end());
  }
  // The human figure on a bar: hands held where they are in a reaching-up pose.
  const Model figure = cfg.figure == "human66" ? makeHuman66() : makeHuman48();
  auto fig = std::make_shared<const Model>(figure);
  Configuration qf = randomConfiguration(figure, rng);
  qf.base_position = Vector3d(0, 0, 1.0);
  const FrameId rh = figure.frameId("RightHand"), lh = figure.frameId("LeftHand");
  const std::vector<std::vector<LoopClosure>> holds = {
      {},
      {LoopClosure::holding(figure, qf, "right", rh)},
      {LoopClosure::holding(figure, qf, "right", rh), LoopClosure::holding(figure, qf, "left", lh)}};
  for (const auto& loops : holds) {
    const auto r = measure("figure", fig, loops, cfg, qf, randomVec(figure.nv(), 0.5), randomVec(figure.nv(), 10.0),
                           reporter, total, done, fmt::format("{} holding {} hand(s)", figure.name(), loops.size()));
    rows.insert(rows.end(), r.begin(), r.end());
  }

  AssemblyExperimentResult result;
  result.out = cfg.out;
  result.figure_name = figure.name();
  result.figure_dof = figure.nv();
  result.max_threads = cfg.max_threads;
  result.batches = cfg.batches;
  result.sizes = sizes;
  result.rows = std::move(rows);
  io::writeFileAtomically((std::filesystem::path(cfg.out) / "assembly.csv").string(), assemblyCsv(result));
  return result;
}

std::string assemblyCsv(const AssemblyExperimentResult& result) {
  std::string csv =
      "kind,links,nv,loops,schedule,threads,time_us,aba_us,total_flops,critical_path_flops,threaded_flops,height\n";
  for (const Row& r : result.rows)
    csv += fmt::format("{},{},{},{},{},{},{:.4f},{:.4f},{:.0f},{:.0f},{:.0f},{}\n", r.kind, r.links, r.dof, r.loops,
                       r.schedule, r.threads, r.time_us, r.aba_us, r.total, r.critical, r.threaded, r.height);
  return csv;
}

std::string summaryText(const AssemblyExperimentResult& result) {
  const std::vector<Row>& rows = result.rows;
  const std::vector<int>& sizes = result.sizes;
  const int max_threads = result.max_threads;
  const std::filesystem::path dir(result.out);
  std::string text;
  text +=
      fmt::format("assembly–disassembly forward dynamics (Yamane–Nakamura), one call; time = median of {} batches\n",
                  result.batches);
  text += fmt::format("serial chains (fixed base), measured microseconds per call\n");
  text += fmt::format("  {:<22}", "links");
  for (const int n : sizes) text += fmt::format("{:>10}", n);
  text += fmt::format("\n");
  auto find = [&](const char* kind, int links, int loops, const char* s, int t) -> const Row* {
    for (const Row& r : rows)
      if (r.kind == kind && (links < 0 || r.links == links) && r.loops == loops && r.schedule == s && r.threads == t)
        return &r;
    return nullptr;
  };
  for (const char* s : {"serial", "parallel"})
    for (int t = 1; t <= max_threads; ++t) {
      text += fmt::format("  {:<22}", fmt::format("{} schedule x{}", s, t));
      for (const int n : sizes) text += fmt::format("{:>10.1f}", find("chain", n, 0, s, t)->time_us);
      text += fmt::format("\n");
    }
  text += fmt::format("  {:<22}", "ABA");
  for (const int n : sizes) text += fmt::format("{:>10.1f}", find("chain", n, 0, "serial", 1)->aba_us);
  text += fmt::format(
      "\ncounted kflop per call: total work (1 processor), on {} threads with the plan's split, and the "
      "critical path (unlimited processors)\n",
      max_threads);
  for (const char* s : {"serial", "parallel"}) {
    text += fmt::format("  {:<22}", fmt::format("{}: 1 processor", s));
    for (const int n : sizes) text += fmt::format("{:>10.0f}", find("chain", n, 0, s, 1)->total / 1e3);
    text += fmt::format("\n");
    if (max_threads > 1) {
      text += fmt::format("  {:<22}", fmt::format("{}: {} threads", s, max_threads));
      for (const int n : sizes) text += fmt::format("{:>10.0f}", find("chain", n, 0, s, max_threads)->threaded / 1e3);
      text += fmt::format("\n");
    }
    text += fmt::format("  {:<22}", fmt::format("{}: critical path", s));
    for (const int n : sizes) text += fmt::format("{:>10.0f}", find("chain", n, 0, s, 1)->critical / 1e3);
    text += fmt::format("\n");
  }
  text += fmt::format(
      "  (paper, 1 GHz Pentium III, 8/16/32 links: 1 proc 1.31/2.75/6.08 ms, 2 procs 0.984/1.87/3.93 ms)\n");
  text += fmt::format("{} on a bar ({} DoF with the floating base): microseconds (ABA {:.1f} us, open tree)\n",
                      result.figure_name, result.figure_dof, rows.back().aba_us);
  text += fmt::format("  {:<22}{:>10}{:>10}{:>10}\n", "hands held", 0, 1, 2);
  for (const char* s : {"serial", "parallel"})
    for (int t = 1; t <= max_threads; ++t) {
      text += fmt::format("  {:<22}", fmt::format("{} schedule x{}", s, t));
      for (int l = 0; l <= 2; ++l) text += fmt::format("{:>10.1f}", find("figure", -1, l, s, t)->time_us);
      text += fmt::format("\n");
    }
  text += fmt::format("  (paper, 40-DoF figure, serial: 5.1 / 6.3 / 7.2 ms for 0 / 1 / 2 hands)\n");
  text += fmt::format("wrote {}\n", (dir / "assembly.csv").string());
  return text;
}

}  // namespace kinetrack::experiments
