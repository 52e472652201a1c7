// The papers' experiments that live in the experiments module (kinetrack/experiments/), as
// `kinetrack experiment …` runs them: each writes its CSV files into `out` and returns the tables
// the CLI prints (the plots are the CLI's: scripts/plot_*.py read the same CSVs).
#include <pybind11/stl.h>

#include <filesystem>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/experiments/assembly.hpp"
#include "kinetrack/experiments/convergence.hpp"
#include "kinetrack/experiments/dyn.hpp"
#include "kinetrack/experiments/gpm.hpp"
#include "kinetrack/experiments/labelling.hpp"
#include "kinetrack/experiments/mapping.hpp"
#include "kinetrack/experiments/pindrag.hpp"
#include "kinetrack/experiments/sparse.hpp"

namespace kinetrack::python {
namespace {

/// Runs `f(reporter)` without the GIL and returns the notes it made (the CLI's printed tables).
template <class F>
std::string notes(F&& f) {
  std::string text;
  app::Reporter reporter;
  reporter.note = [&text](const std::string& n) { text += n; };
  released([&] {
    f(reporter);
    return 0;
  });
  return text;
}

}  // namespace

void bindExperiments(py::module_& m) {
  py::module_ e = m.def_submodule("experiments", "The papers' experiments (`kinetrack experiment …`).");
  e.def(
      "pindrag",
      [](const std::string& out, const std::string& model, const std::string& urdf) {
        experiments::PinDragExperimentOptions o;
        o.out = out, o.model = model, o.urdf = urdf;
        return notes([&](const app::Reporter& r) { experiments::runPinDragExperiment(o, r); });
      },
      py::arg("out"), py::kw_only(), py::arg("model") = "human66",
      py::arg("urdf") = experiments::PinDragExperimentOptions{}.urdf,
      "`kinetrack experiment pindrag`: writes out/pindrag.csv, returns the table per phase.");
  e.def(
      "assembly",
      [](const std::string& out, int max_links, int threads, const std::string& figure, int batches, double batch_ms) {
        experiments::AssemblyExperimentOptions o;
        o.out = out, o.max_links = max_links, o.max_threads = threads, o.figure = figure, o.batches = batches;
        o.batch_ms = batch_ms;
        return notes([&](const app::Reporter& r) { experiments::runAssemblyExperiment(o, r); });
      },
      py::arg("out"), py::kw_only(), py::arg("max_links") = 1024, py::arg("threads") = 2, py::arg("figure") = "human48",
      py::arg("batches") = 15, py::arg("batch_ms") = 20.0,
      "`kinetrack experiment assembly` (Nakamura Table 1): writes out/assembly.csv, returns the tables.");
  e.def(
      "mapping",
      [](const std::string& out, const std::string& human, const std::string& model, const std::string& map,
         std::optional<std::vector<std::string>> train, std::optional<std::vector<std::string>> test, int degree,
         const std::string& roundtrip) {
        experiments::MappingExperimentOptions o;
        o.out = out, o.human = human, o.model = model, o.map = map, o.degree = degree, o.roundtrip = roundtrip;
        if (train) o.train = *train;
        if (test) o.test = *test;
        return notes([&](const app::Reporter& r) { experiments::runMappingExperiment(o, r); });
      },
      py::arg("out"), py::kw_only(), py::arg("human") = "human48",
      py::arg("model") = experiments::MappingExperimentOptions{}.model, py::arg("map") = "gait2354",
      py::arg("train") = py::none(), py::arg("test") = py::none(), py::arg("degree") = 2,
      py::arg("roundtrip") = experiments::MappingExperimentOptions{}.roundtrip,
      "`kinetrack experiment mapping` (Nakamura Eq. 14-15): writes out/mapping_error.csv and the per-clip CSVs, "
      "returns the tables.");
  e.def(
      "gpm",
      [](const std::string& out, const std::string& data, const std::vector<int>& incs,
         const std::vector<std::string>& subjects, double rate, int robustness_inc, bool leave_one_out) {
        experiments::GpmExperimentOptions o;
        o.out = out, o.data = data, o.incs = incs, o.subjects = subjects, o.rate = rate;
        o.robustness_inc = robustness_inc, o.no_loo = !leave_one_out;
        return notes([&](const app::Reporter& r) { experiments::runGpmExperiment(o, r); });
      },
      py::arg("out"), py::kw_only(), py::arg("data") = "../shared/data",
      py::arg("incs") = experiments::GpmExperimentOptions{}.incs, py::arg("subjects") = std::vector<std::string>{},
      py::arg("rate") = 30.0, py::arg("robustness_inc") = 5, py::arg("leave_one_out") = true,
      "`kinetrack experiment gpm` (GPM seed, Fig. 4/5): writes out/gpm.csv, gpm_robustness.csv, gpm_fits.csv, "
      "returns the tables.");
  e.def(
      "sparse",
      [](const std::string& out, const std::string& data, const std::string& targets,
         const std::vector<std::string>& subjects, double rate, int inc, bool dyn) {
        experiments::SparseExperimentOptions o;
        o.out = out, o.data = data, o.targets = targets, o.subjects = subjects, o.rate = rate, o.inc = inc;
        o.no_dyn = !dyn;
        return notes([&](const app::Reporter& r) { experiments::runSparseExperiment(o, r); });
      },
      py::arg("out"), py::kw_only(), py::arg("data") = "../shared/data", py::arg("targets") = "head,hands",
      py::arg("subjects") = std::vector<std::string>{}, py::arg("rate") = 30.0, py::arg("inc") = 1,
      py::arg("dyn") = true,
      "`kinetrack experiment sparse`: held-out subjects tracked from few targets (LN, prior, DYN, DYN + prior); "
      "writes out/sparse.csv, returns the table.");
  e.def(
      "convergence",
      [](const std::string& out, const std::string& model, const std::vector<double>& gains, double rate,
         double duration, std::uint64_t seed, const std::string& jacobian) {
        experiments::ConvergenceExperimentOptions o;
        o.out = out, o.model.model = model, o.gains = gains, o.rate = rate, o.duration = duration, o.seed = seed;
        o.jacobian = jacobian;
        return notes([&](const app::Reporter& r) { experiments::runConvergenceExperiment(o, r); });
      },
      py::arg("out"), py::kw_only(), py::arg("model") = "human66",
      py::arg("gains") = experiments::ConvergenceExperimentOptions{}.gains, py::arg("rate") = 100.0,
      py::arg("duration") = 5.0, py::arg("seed") = 1, py::arg("jacobian") = "midpoint",
      "`kinetrack experiment convergence` (DYN Fig. 8): writes out/convergence.csv, returns the tables.");
  e.def(
      "compare",
      [](const std::string& out, const std::string& data, const std::string& icub,
         const std::vector<std::string>& methods, int threads, double transient) {
        experiments::CompareOptions o;
        o.data = data, o.icub = icub, o.threads = threads, o.transient = transient;
        o.methods.clear();
        for (const std::string& m : methods) o.methods.push_back(track::parseMethod(m));
        return released([&] {
          app::prepareDirectory(out);
          const experiments::CompareResult r = experiments::runCompare(o);
          app::writeTextFile((std::filesystem::path(out) / "compare.csv").string(), experiments::compareCsv(r));
          std::string text;
          for (const std::string& w : r.warnings) text += "warning: " + w + "\n";
          return text + experiments::compareTable(r, o.transient);
        });
      },
      py::arg("out"), py::kw_only(), py::arg("data") = "../shared/data",
      py::arg("icub") = experiments::CompareOptions{}.icub,
      py::arg("methods") = std::vector<std::string>{"dynamical", "wholebody", "wholebody-ipopt", "pairwise"},
      py::arg("threads") = 0, py::arg("transient") = 2.0,
      "`kinetrack experiment compare` (DYN Fig. 7): writes out/compare.csv, returns the table (and warnings).");
  e.def(
      "labelling",
      [](const std::string& out, const std::string& data, std::uint64_t seed, int seeds,
         const std::vector<std::string>& only, bool events) {
        experiments::LabellingExperimentOptions o;
        o.out = out, o.data = data, o.seed = seed, o.seeds = seeds, o.only = only, o.events = events;
        return notes([&](const app::Reporter& r) { experiments::runLabellingExperiment(o, r); });
      },
      py::arg("out"), py::kw_only(), py::arg("data") = "../shared/data", py::arg("seed") = 1, py::arg("seeds") = 1,
      py::arg("only") = std::vector<std::string>{}, py::arg("events") = false,
      "`kinetrack experiment labelling` (issue 16): writes out/labelling.csv, labelling_frames.csv (and "
      "labelling_events.csv), returns the tables.");
}

}  // namespace kinetrack::python
