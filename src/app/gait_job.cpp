// `kinetrack gait`: scale → marker IK → inverse dynamics → muscles → EMG, each stage its job.
#include "kinetrack/app/gait_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "kinetrack/app/c3d_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/model/opensim_model.hpp"

namespace kinetrack::app {

namespace {

namespace fs = std::filesystem;

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string emgMuscle(const std::string& channel, const std::vector<std::string>& muscles, const std::string& side) {
  // Stems of each muscle's name in the common models (gait2354/2392, Rajagopal, Hamner, Arnold).
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kStems = {
      {"SOL", {"soleus", "sol"}},
      {"GAS", {"gasmed", "med_gas", "gasmeds"}},
      {"MG", {"gasmed", "med_gas"}},
      {"LG", {"gaslat", "lat_gas"}},
      {"TA", {"tibant", "tib_ant"}},
      {"MH", {"semiten", "semimem"}},
      {"ST", {"semiten"}},
      {"SM", {"semimem"}},
      {"BF", {"bflh", "bifemlh", "bfl"}},
      {"VL", {"vaslat", "vas_lat", "vas_int"}},
      {"VM", {"vasmed", "vas_med", "vas_int"}},
      {"RF", {"recfem", "rect_fem"}},
      {"GMAX", {"glmax1", "glut_max1", "glmax2", "glut_max2"}},
      {"GMED", {"glmed1", "glut_med1", "glmed2", "glut_med2"}},
      {"TFL", {"tfl"}},
      {"ADD", {"addlong", "add_long", "add_mag2"}},
  };
  std::string key;
  for (const char c : channel) key += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& [abbrev, stems] : kStems) {
    if (key != abbrev) continue;
    for (const std::string& stem : stems)
      for (const std::string& m : muscles)
        if (m == stem + "_" + side) return m;
  }
  return "";
}

GaitResult runGait(const GaitOptions& o, const Reporter& reporter) {
  const auto wall0 = std::chrono::steady_clock::now();
  if (o.model.empty()) throw InvalidArgument("--model is required (a generic or a subject's .osim)");
  if (o.trial.empty()) throw InvalidArgument("--trial is required (a .trc or .c3d marker trial)");
  if (o.out.empty()) throw InvalidArgument("--out is required (the output directory)");
  const bool with_muscles = o.muscles != "none";
  const muscles::Method method = with_muscles ? parseMuscleMethod(o.muscles) : muscles::Method::StaticOptimization;
  prepareDirectory(o.out);
  // The stages' own notes ("[1/3] …") would interleave with the day's: only progress and warnings.
  const Reporter sub{reporter.progress, reporter.warning, {}};
  GaitResult r;
  auto file = [&](const std::string& name) { return (fs::path(o.out) / name).string(); };
  const int total = 2 + (o.scale_setup.empty() ? 0 : 1) + (with_muscles ? 1 : 0) + (o.emg_channels.empty() ? 0 : 1);
  int stage = 0;
  auto say = [&](const std::string& what) { reporter.say(fmt::format("[{}/{}] {}\n", ++stage, total, what)); };

  // 1. Scale.
  r.model = o.model;
  if (!o.scale_setup.empty()) {
    say("scaling " + o.model + " (" + o.scale_setup + ")");
    const auto t0 = std::chrono::steady_clock::now();
    ScaleOptions so;
    so.setup = o.scale_setup;
    so.model = o.model;
    so.markers = o.static_trial;
    so.marker_set = o.marker_set;
    so.out = file("scaled.osim");
    so.static_pose = file("static_pose.mot");
    so.setup_outputs = false;
    r.scale = runScale(so, sub);
    r.model = so.out;
    std::string detail = fmt::format("{} bodies", r.scale->factors.bodies.size());
    if (r.scale->placement) detail += fmt::format(", static RMS {:.1f} mm", r.scale->placement->rms_error * 1e3);
    r.stages.push_back({"scale", detail, so.out, since(t0)});
  }

  // 2. Marker IK.
  say("marker IK of " + o.trial);
  {
    const auto t0 = std::chrono::steady_clock::now();
    MarkerIkOptions mo;
    mo.model = r.model;
    mo.markers = o.trial;
    mo.setup = o.ik_setup;
    mo.time_start = o.time_start;
    mo.time_end = o.time_end;
    mo.out = file("ik.mot");
    mo.errors = file("ik_errors.sto");
    r.ik = runMarkerIk(mo, sub);
    r.stages.push_back(
        {"marker IK",
         fmt::format("{} frames, RMS {:.1f} mm, max {:.1f} mm ({})", r.ik.summary.frames,
                     r.ik.summary.marker_rms_m * 1e3, r.ik.summary.marker_max_m * 1e3, r.ik.summary.worst_marker),
         mo.out, since(t0)});
  }

  // 3. Inverse dynamics with the loads.
  std::string loads = o.loads;
  if (loads.empty() && isC3dPath(o.trial) && !io::readC3d(o.trial).force_plates.empty()) loads = o.trial;
  if (loads.empty()) reporter.warn("no external loads (--loads, or a C3D trial with force plates): ID without them");
  say("inverse dynamics" + (loads.empty() ? std::string() : " with the loads of " + loads));
  {
    const auto t0 = std::chrono::steady_clock::now();
    InverseDynamicsOptions io_;
    io_.model.model = r.model;
    io_.motion = r.ik.out_path;
    io_.loads = loads;
    io_.cutoff = o.cutoff;
    io_.out = file("id.sto");
    r.id = runInverseDynamics(io_, sub);
    double worst = 0.0;
    std::string worst_name = "-";
    if (r.id->values.size() > 0) {
      Eigen::Index row = 0, col = 0;
      worst = r.id->values.cwiseAbs().maxCoeff(&row, &col);
      worst_name = r.id->columns[static_cast<std::size_t>(col)];
    }
    r.stages.push_back(
        {"inverse dynamics",
         fmt::format("{} frames, {}, largest |{}| {:.1f}", r.id->times.size(),
                     loads.empty() ? "no loads" : "loads " + fs::path(loads).filename().string(), worst_name, worst),
         io_.out, since(t0)});
  }

  // 4. Muscles.
  if (with_muscles) {
    say("muscle forces (" + o.muscles + ")");
    const auto t0 = std::chrono::steady_clock::now();
    MusclesOptions mo;
    mo.method = method;
    mo.model = r.model;
    mo.motion = r.ik.out_path;
    mo.loads = loads;
    mo.force_sets = o.force_sets;
    mo.reserves = o.reserves;
    if (mo.reserves.empty() && mo.force_sets.empty()) {
      const io::OpenSimModel osim = io::readOpenSimModel(r.model);
      for (const io::OpenSimCoordinate& c : osim.coordinates)
        if (!c.locked) mo.reserves.emplace_back(c.name, 1.0);
    }
    mo.lowpass = o.cutoff;
    mo.threads = o.threads;
    mo.out = file("muscles");
    r.muscles = runMuscles(mo, sub);
    int feasible = 0;
    for (const auto f : r.muscles->trial.feasible) feasible += f ? 1 : 0;
    r.stages.push_back({"muscles",
                        fmt::format("{} muscles, {}/{} frames feasible", r.muscles->muscles, feasible,
                                    r.muscles->trial.feasible.size()),
                        mo.out, since(t0)});
  }

  // 5. EMG.
  if (!o.emg_channels.empty()) {
    const std::string emg = !o.emg.empty() ? o.emg : o.trial;
    say("EMG envelopes of " + emg);
    const auto t0 = std::chrono::steady_clock::now();
    EmgJobOptions eo;
    eo.input = emg;
    eo.channels = o.emg_channels;
    eo.out = file("emg.sto");
    r.emg = runEmg(eo, sub);
    // Each channel's muscle: named by --emg-map, else by its abbreviation.
    std::vector<std::string> names;
    if (r.muscles)
      for (int k = 0; k < r.muscles->muscles; ++k) names.push_back(r.muscles->trial.names[static_cast<std::size_t>(k)]);
    std::string csv = "channel,muscle,on,off\n";
    for (const biomech::EmgChannel& c : r.emg->envelopes.channels) {
      std::string muscle = emgMuscle(c.label, names, o.emg_side);
      for (const std::string& pair : o.emg_map) {
        const auto eq = pair.find('=');
        if (eq == std::string::npos)
          throw InvalidArgument("--emg-map '" + pair + "': expected CHANNEL=MUSCLE, e.g. SOL=soleus_r");
        if (pair.substr(0, eq) != c.label) continue;
        muscle = pair.substr(eq + 1);
        if (!names.empty() && std::find(names.begin(), names.end(), muscle) == names.end())
          throw InvalidArgument("--emg-map '" + pair + "': the model has no muscle '" + muscle + "'");
      }
      r.emg_muscles.emplace_back(c.label, muscle);
      for (const auto& [on, off] : c.on) csv += fmt::format("{},{},{:.4f},{:.4f}\n", c.label, muscle, on, off);
      if (c.on.empty()) csv += fmt::format("{},{},,\n", c.label, muscle);
    }
    writeTextFile(file("emg_onoff.csv"), csv);
    r.stages.push_back(
        {"EMG", fmt::format("{} muscles, envelopes and on/off", r.emg->envelopes.channels.size()), eo.out, since(t0)});
  }

  r.wall_seconds = since(wall0);
  std::vector<std::vector<std::string>> rows{{"stage", "time (ms)", "result", "file"}};
  for (const GaitStage& s : r.stages)
    rows.push_back({s.name, fmt::format("{:.1f}", s.seconds * 1e3), s.detail, s.file});
  rows.push_back({"total", fmt::format("{:.1f}", r.wall_seconds * 1e3), "", ""});
  r.text = textTable(rows);
  std::string stages = "stage,seconds,result\n";
  for (const GaitStage& s : r.stages) stages += fmt::format("{},{:.6f},\"{}\"\n", s.name, s.seconds, s.detail);
  writeTextFile(file("stages.csv"), stages);
  return r;
}

}  // namespace kinetrack::app
