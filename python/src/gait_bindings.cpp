// `kinetrack gait` (the same job): a lab's trial from markers to muscle forces.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/gait_job.hpp"

namespace kinetrack::python {

void bindGait(py::module_& m) {
  m.def(
      "gait",
      [](const std::string& model, const std::string& trial, const std::string& out, const std::string& scale_setup,
         const std::string& static_trial, const std::string& ik_setup, const std::string& loads,
         const std::string& muscles, const std::vector<std::pair<std::string, double>>& reserves,
         const std::vector<std::string>& force_sets, double cutoff, const std::string& emg,
         const std::vector<std::string>& emg_channels, int threads, const std::string& marker_set,
         const std::string& emg_side, const std::vector<std::string>& emg_map) {
        app::GaitOptions o;
        o.model = model;
        o.trial = trial;
        o.out = out;
        o.scale_setup = scale_setup;
        o.static_trial = static_trial;
        o.ik_setup = ik_setup;
        o.loads = loads;
        o.muscles = muscles;
        o.reserves = reserves;
        o.force_sets = force_sets;
        o.cutoff = cutoff;
        o.emg = emg;
        o.emg_channels = emg_channels;
        o.threads = threads;
        o.marker_set = marker_set;
        o.emg_side = emg_side;
        o.emg_map = emg_map;
        std::vector<std::string> warnings;
        app::Reporter reporter;
        reporter.warning = [&warnings](const std::string& w) { warnings.push_back(w); };
        const app::GaitResult r = released([&] { return app::runGait(o, reporter); });
        py::list stages;
        for (const app::GaitStage& s : r.stages)
          stages.append(py::dict(py::arg("name") = s.name, py::arg("seconds") = s.seconds, py::arg("result") = s.detail,
                                 py::arg("file") = s.file));
        py::dict emg_muscles;
        for (const auto& [channel, muscle] : r.emg_muscles) emg_muscles[py::str(channel)] = muscle;
        return py::dict(py::arg("model") = r.model, py::arg("stages") = stages, py::arg("text") = r.text,
                        py::arg("emg_muscles") = emg_muscles, py::arg("wall_seconds") = r.wall_seconds,
                        py::arg("warnings") = warnings);
      },
      py::arg("model"), py::arg("trial"), py::arg("out"), py::kw_only(), py::arg("scale_setup") = "",
      py::arg("static_trial") = "", py::arg("ik_setup") = "", py::arg("loads") = "", py::arg("muscles") = "static-opt",
      py::arg("reserves") = std::vector<std::pair<std::string, double>>{},
      py::arg("force_sets") = std::vector<std::string>{}, py::arg("cutoff") = 6.0, py::arg("emg") = "",
      py::arg("emg_channels") = std::vector<std::string>{}, py::arg("threads") = 0, py::arg("marker_set") = "",
      py::arg("emg_side") = "r", py::arg("emg_map") = std::vector<std::string>{},
      R"doc(`kinetrack gait` (the same job): scale (with scale_setup and the static trial), marker IK of the
trial (ik_setup optional), inverse dynamics with the loads (ExternalLoads XML or a C3D; default the
trial when it is a C3D with plates), muscle forces ('static-opt', 'qp', 'lp' or 'none'; reserves
default to 1 on every coordinate), EMG envelopes of emg_channels (each matched to a model muscle on
emg_side by its abbreviation, or emg_map=['SOL=soleus_r']); OpenSim's files, emg_onoff.csv and
stages.csv in `out`. Returns a dict: model (the one the trial ran on), stages (name, seconds, result,
file), emg_muscles, text, wall_seconds, warnings.)doc");
}

}  // namespace kinetrack::python
