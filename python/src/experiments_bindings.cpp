// The papers' experiments that live in the experiments module (kinetrack/experiments/), as
// `kinetrack experiment …` runs them: each writes its CSV files into `out` and returns a dict with
// the result's rows (one list of dicts per table) and "summary", the text the CLI prints (its notes
// and summaryText). The plots are the CLI's: scripts/plot_*.py read the same CSVs.
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

/// Runs `f(reporter)` without the GIL; `text` receives the notes it made (the CLI's set-up lines).
template <class F>
auto withNotes(std::string& text, F&& f) {
  app::Reporter reporter;
  reporter.note = [&text](const std::string& n) { text += n; };
  return released([&] { return f(reporter); });
}

/// A copy of `v` as a 1-D numpy array.
py::array_t<double> array(const std::vector<double>& v) {
  return py::array_t<double>(static_cast<py::ssize_t>(v.size()), v.data());
}

py::dict gainRun(const experiments::GainRun& r) {
  return py::dict(py::arg("gain") = r.gain, py::arg("mnte") = array(r.mnte), py::arg("last_residual") = r.last_residual,
                  py::arg("unstable_gain") = r.unstable_gain, py::arg("diverging") = r.diverging,
                  py::arg("qp_not_optimal") = r.qp_not_optimal);
}

}  // namespace

void bindExperiments(py::module_& m) {
  py::module_ e = m.def_submodule("experiments", "The papers' experiments (`kinetrack experiment …`).");
  e.def(
      "pindrag",
      [](const std::string& out, const std::string& model, const std::string& urdf) {
        experiments::PinDragExperimentOptions o;
        o.out = out, o.model = model, o.urdf = urdf;
        std::string text;
        const auto r =
            withNotes(text, [&](const app::Reporter& rep) { return experiments::runPinDragExperiment(o, rep); });
        py::list phases, steps;
        for (const auto& p : r.phases)
          phases.append(
              py::dict(py::arg("phase") = p.name, py::arg("pin_position_max") = p.pin_position,
                       py::arg("pin_orientation_max") = p.pin_orientation, py::arg("speed_ratio_max") = p.speed_ratio,
                       py::arg("limit_violation_max") = p.limit_violation, py::arg("drag_error") = p.drag_error,
                       py::arg("sr_damping_max") = p.sr_damping, py::arg("finite") = p.finite));
        for (const auto& s : r.steps)
          steps.append(py::dict(py::arg("step") = s.step, py::arg("time") = s.time, py::arg("phase") = s.phase,
                                py::arg("pin_position_error") = s.pin_position_error,
                                py::arg("pin_orientation_error") = s.pin_orientation_error,
                                py::arg("drag_error") = s.drag_error, py::arg("max_speed_ratio") = s.max_speed_ratio,
                                py::arg("sr_damping") = s.sr_damping, py::arg("velocity_scale") = s.velocity_scale,
                                py::arg("limit_violation") = s.limit_violation));
        return py::dict(py::arg("summary") = text + experiments::summaryText(r), py::arg("phases") = phases,
                        py::arg("steps") = steps);
      },
      py::arg("out"), py::kw_only(), py::arg("model") = "human66",
      py::arg("urdf") = experiments::PinDragExperimentOptions{}.urdf,
      "`kinetrack experiment pindrag`: writes out/pindrag.csv; returns {summary, phases, steps}.");
  e.def(
      "assembly",
      [](const std::string& out, int max_links, int threads, const std::string& figure, int batches, double batch_ms) {
        experiments::AssemblyExperimentOptions o;
        o.out = out, o.max_links = max_links, o.max_threads = threads, o.figure = figure, o.batches = batches;
        o.batch_ms = batch_ms;
        std::string text;
        const auto r =
            withNotes(text, [&](const app::Reporter& rep) { return experiments::runAssemblyExperiment(o, rep); });
        py::list rows;
        for (const auto& x : r.rows)
          rows.append(py::dict(py::arg("kind") = x.kind, py::arg("links") = x.links, py::arg("nv") = x.dof,
                               py::arg("loops") = x.loops, py::arg("schedule") = x.schedule,
                               py::arg("threads") = x.threads, py::arg("time_us") = x.time_us,
                               py::arg("aba_us") = x.aba_us, py::arg("total_flops") = x.total,
                               py::arg("critical_path_flops") = x.critical, py::arg("threaded_flops") = x.threaded,
                               py::arg("height") = x.height));
        return py::dict(py::arg("summary") = text + experiments::summaryText(r), py::arg("rows") = rows);
      },
      py::arg("out"), py::kw_only(), py::arg("max_links") = 1024, py::arg("threads") = 2, py::arg("figure") = "human48",
      py::arg("batches") = 15, py::arg("batch_ms") = 20.0,
      "`kinetrack experiment assembly` (Nakamura Table 1): writes out/assembly.csv; returns {summary, rows}.");
  e.def(
      "mapping",
      [](const std::string& out, const std::string& human, const std::string& model, const std::string& map,
         std::optional<std::vector<std::string>> train, std::optional<std::vector<std::string>> test, int degree,
         const std::string& roundtrip) {
        experiments::MappingExperimentOptions o;
        o.out = out, o.human = human, o.model = model, o.map = map, o.degree = degree, o.roundtrip = roundtrip;
        if (train) o.train = *train;
        if (test) o.test = *test;
        std::string text;
        const auto r =
            withNotes(text, [&](const app::Reporter& rep) { return experiments::runMappingExperiment(o, rep); });
        py::list clips, error, coordinates;
        for (const auto& c : r.clips)
          clips.append(py::dict(py::arg("clip") = c.path, py::arg("role") = c.train ? "train" : "test",
                                py::arg("frames") = c.frames, py::arg("pairs") = c.pairs, py::arg("gaps") = c.gaps,
                                py::arg("dropped") = c.dropped, py::arg("human_mnte_median") = c.human_mnte,
                                py::arg("model_mnte_median") = c.model_mnte));
        for (const auto& x : r.error)
          error.append(py::dict(py::arg("direction") = x.direction, py::arg("k") = x.k,
                                py::arg("singular_value") = x.singular_value,
                                py::arg("train_rms_deg") = x.train_rms_deg, py::arg("test_rms_deg") = x.test_rms_deg));
        for (const auto& x : r.coordinates)
          coordinates.append(
              py::dict(py::arg("direction") = x.direction, py::arg("coordinate") = x.coordinate,
                       py::arg("train_rms_deg_best") = x.train_best, py::arg("test_rms_deg_best") = x.test_best,
                       py::arg("train_rms_deg_full") = x.train_full, py::arg("test_rms_deg_full") = x.test_full));
        return py::dict(py::arg("summary") = text + experiments::summaryText(r), py::arg("clips") = clips,
                        py::arg("error") = error, py::arg("coordinates") = coordinates);
      },
      py::arg("out"), py::kw_only(), py::arg("human") = "human48",
      py::arg("model") = experiments::MappingExperimentOptions{}.model, py::arg("map") = "gait2354",
      py::arg("train") = py::none(), py::arg("test") = py::none(), py::arg("degree") = 2,
      py::arg("roundtrip") = experiments::MappingExperimentOptions{}.roundtrip,
      "`kinetrack experiment mapping` (Nakamura Eq. 14-15): writes out/mapping_error.csv and the per-clip CSVs; "
      "returns {summary, clips, error, coordinates}.");
  e.def(
      "gpm",
      [](const std::string& out, const std::string& data, const std::vector<int>& incs,
         const std::vector<std::string>& subjects, double rate, int robustness_inc, bool leave_one_out) {
        experiments::GpmExperimentOptions o;
        o.out = out, o.data = data, o.incs = incs, o.subjects = subjects, o.rate = rate;
        o.robustness_inc = robustness_inc, o.no_loo = !leave_one_out;
        std::string text;
        const auto r = withNotes(text, [&](const app::Reporter& rep) { return experiments::runGpmExperiment(o, rep); });
        py::list rows, robustness, fits;
        for (const auto& x : r.rows)
          rows.append(py::dict(py::arg("subject") = x.subject, py::arg("inc") = x.inc,
                               py::arg("method") = x.method == prior::IkMethod::LeastNorm ? "LN" : "GP",
                               py::arg("included") = x.included, py::arg("rms_deg") = x.rms_deg));
        for (const auto& x : r.robustness)
          robustness.append(py::dict(py::arg("test") = x.test, py::arg("subject") = x.subject,
                                     py::arg("included") = x.included, py::arg("rms_deg") = x.rms_deg));
        for (const auto& f : r.fits)
          fits.append(py::dict(py::arg("subject") = f.subject, py::arg("clips") = f.clips,
                               py::arg("frames") = f.quality.frames,
                               py::arg("hand_position_rms") = f.quality.hand_position_rms,
                               py::arg("hand_position_max") = f.quality.hand_position_max,
                               py::arg("hand_orientation_rms") = f.quality.hand_orientation_rms,
                               py::arg("limits_widened") = f.quality.limits_widened));
        return py::dict(py::arg("summary") = text + experiments::summaryText(r), py::arg("rows") = rows,
                        py::arg("robustness") = robustness, py::arg("fits") = fits);
      },
      py::arg("out"), py::kw_only(), py::arg("data") = "../shared/data",
      py::arg("incs") = experiments::GpmExperimentOptions{}.incs, py::arg("subjects") = std::vector<std::string>{},
      py::arg("rate") = 30.0, py::arg("robustness_inc") = 5, py::arg("leave_one_out") = true,
      "`kinetrack experiment gpm` (GPM seed, Fig. 4/5): writes out/gpm.csv, gpm_robustness.csv, gpm_fits.csv; "
      "returns {summary, rows, robustness, fits}.");
  e.def(
      "sparse",
      [](const std::string& out, const std::string& data, const std::string& targets,
         const std::vector<std::string>& subjects, double rate, int inc, bool dyn) {
        experiments::SparseExperimentOptions o;
        o.out = out, o.data = data, o.targets = targets, o.subjects = subjects, o.rate = rate, o.inc = inc;
        o.no_dyn = !dyn;
        std::string text;
        const auto r =
            withNotes(text, [&](const app::Reporter& rep) { return experiments::runSparseExperiment(o, rep); });
        py::list rows;
        for (const auto& x : r.rows)
          rows.append(py::dict(py::arg("subject") = x.subject, py::arg("method") = x.method,
                               py::arg("joint_rms_deg") = x.joint_rms_deg, py::arg("hand_error_mm") = x.hand_error_mm,
                               py::arg("frame_us") = x.frame_us));
        return py::dict(py::arg("summary") = text + experiments::summaryText(r), py::arg("rows") = rows);
      },
      py::arg("out"), py::kw_only(), py::arg("data") = "../shared/data", py::arg("targets") = "head,hands",
      py::arg("subjects") = std::vector<std::string>{}, py::arg("rate") = 30.0, py::arg("inc") = 1,
      py::arg("dyn") = true,
      "`kinetrack experiment sparse`: held-out subjects tracked from few targets (LN, prior, DYN, DYN + prior); "
      "writes out/sparse.csv; returns {summary, rows}.");
  e.def(
      "convergence",
      [](const std::string& out, const std::string& model, const std::vector<double>& gains, double rate,
         double duration, std::uint64_t seed, const std::string& jacobian) {
        experiments::ConvergenceExperimentOptions o;
        o.out = out, o.model.model = model, o.gains = gains, o.rate = rate, o.duration = duration, o.seed = seed;
        o.jacobian = jacobian;
        std::string text;
        const auto r =
            withNotes(text, [&](const app::Reporter& rep) { return experiments::runConvergenceExperiment(o, rep); });
        py::list runs;
        for (const auto& g : r.runs) runs.append(gainRun(g));
        return py::dict(py::arg("summary") = text + experiments::summaryText(r), py::arg("model") = r.model_name,
                        py::arg("rate") = r.rate, py::arg("runs") = runs);
      },
      py::arg("out"), py::kw_only(), py::arg("model") = "human66",
      py::arg("gains") = experiments::ConvergenceExperimentOptions{}.gains, py::arg("rate") = 100.0,
      py::arg("duration") = 5.0, py::arg("seed") = 1, py::arg("jacobian") = "midpoint",
      "`kinetrack experiment convergence` (DYN Fig. 8): writes out/convergence.csv; returns {summary, model, rate, "
      "runs} (runs: gain, mnte after every step, …).");
  e.def(
      "compare",
      [](const std::string& out, const std::string& data, const std::string& icub,
         const std::vector<std::string>& methods, int threads, double transient) {
        experiments::CompareOptions o;
        o.data = data, o.icub = icub, o.threads = threads, o.transient = transient;
        o.methods.clear();
        for (const std::string& m : methods) o.methods.push_back(track::parseMethod(m));
        const auto r = released([&] { return experiments::runCompareExperiment(o, out); });
        py::list series;
        for (const auto& s : r.compare.series)
          series.append(py::dict(py::arg("model") = s.model, py::arg("scenario") = s.scenario,
                                 py::arg("method") = track::toString(s.method),
                                 py::arg("log10_mnte") = array(s.log_mnte), py::arg("log10_rmse") = array(s.log_rmse),
                                 py::arg("time_us") = array(s.time_us)));
        return py::dict(py::arg("summary") = experiments::summaryText(r), py::arg("series") = series,
                        py::arg("warnings") = r.compare.warnings);
      },
      py::arg("out"), py::kw_only(), py::arg("data") = "../shared/data",
      py::arg("icub") = experiments::CompareOptions{}.icub,
      py::arg("methods") = std::vector<std::string>{"dynamical", "wholebody", "wholebody-ipopt", "pairwise"},
      py::arg("threads") = 0, py::arg("transient") = 2.0,
      "`kinetrack experiment compare` (DYN Fig. 7): writes out/compare.csv; returns {summary, series, warnings}.");
  e.def(
      "labelling",
      [](const std::string& out, const std::string& data, std::uint64_t seed, int seeds,
         const std::vector<std::string>& only, bool events) {
        experiments::LabellingExperimentOptions o;
        o.out = out, o.data = data, o.seed = seed, o.seeds = seeds, o.only = only, o.events = events;
        std::string text;
        const auto r =
            withNotes(text, [&](const app::Reporter& rep) { return experiments::runLabellingExperiment(o, rep); });
        py::list runs;
        for (const auto& x : r.runs)
          runs.append(py::dict(
              py::arg("trial") = x.trial, py::arg("scenario") = x.scenario, py::arg("seed") = x.seed,
              py::arg("present") = x.score.present, py::arg("correct") = x.score.correct,
              py::arg("accuracy") = x.score.accuracy(), py::arg("wrong") = x.score.wrong,
              py::arg("missed") = x.score.missed, py::arg("ghost_points") = x.score.ghost_points,
              py::arg("ghosts_labelled") = x.score.ghosts_labelled,
              py::arg("reacquire_frames") = x.score.reacquire_frames, py::arg("initialisations") = x.initialisations,
              py::arg("lost_frames") = x.lost, py::arg("frames") = x.frames, py::arg("angle_rms_deg") = x.angle_rms_deg,
              py::arg("angle_max_deg") = x.angle_max_deg, py::arg("us_median") = x.us_median,
              py::arg("us_p95") = x.us_p95, py::arg("held_out") = x.held_out,
              py::arg("unsure_frames") = x.unsure_frames, py::arg("swaps_corrected") = x.swaps_corrected,
              py::arg("wrong_labels") = x.wrong_labels, py::arg("wrong_flagged") = x.wrong_flagged,
              py::arg("wrong_silent") = x.wrong_silent, py::arg("right_flagged") = x.right_flagged));
        py::list marker_rows;
        for (const auto& x : r.marker_rows)
          marker_rows.append(
              py::dict(py::arg("trial") = x.trial, py::arg("scenario") = x.scenario, py::arg("seed") = x.seed,
                       py::arg("held_out") = x.held_out, py::arg("marker") = x.marker, py::arg("present") = x.present,
                       py::arg("correct") = x.correct, py::arg("wrong") = x.wrong, py::arg("missed") = x.missed,
                       py::arg("accuracy") = x.accuracy(), py::arg("confidence_right") = x.confidence_right,
                       py::arg("confidence_wrong") = x.confidence_wrong));
        return py::dict(py::arg("summary") = text + experiments::summaryText(r), py::arg("runs") = runs,
                        py::arg("markers") = marker_rows);
      },
      py::arg("out"), py::kw_only(), py::arg("data") = "../shared/data", py::arg("seed") = 1, py::arg("seeds") = 1,
      py::arg("only") = std::vector<std::string>{}, py::arg("events") = false,
      "`kinetrack experiment labelling` (issue 16): writes out/labelling.csv, labelling_markers.csv, "
      "labelling_frames.csv (and labelling_events.csv); returns {summary, runs, markers} (runs: held_out and the "
      "confidence figures among their fields; markers: the per-marker rows).");
}

}  // namespace kinetrack::python
