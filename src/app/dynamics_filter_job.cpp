// The dynamics filter job: the options checked, the filter's options from the job's, the run, the result's tables
// (the filtered motion and torques in the input's layout) and the files of the options.
#include <fmt/format.h>

#include <cmath>
#include <span>

#include "kinetrack/app/dynamics_filter_job.hpp"
#include "kinetrack/biomech/opensim_id.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/table/force_csv.hpp"
#include "kinetrack/io/table/joint_csv.hpp"

namespace kinetrack::app {
namespace {

// The filtered motion in the input's layout (FilterJobResult::filtered).
FilterTable filteredTable(const FilterInput& in, const FilteredMotion& out) {
  const Model& m = *in.model;
  const auto n = static_cast<Eigen::Index>(out.frames.size());
  FilterTable t;
  if (in.osim) {
    t.values.resize(n, static_cast<Eigen::Index>(in.osim->coordinates.size()));
    for (std::size_t c = 0; c < in.osim->coordinates.size(); ++c) {
      const io::OpenSimCoordinate& oc = in.osim->coordinates[c];
      t.columns.push_back(oc.name);
      const double scale = oc.rotational && in.mot.in_degrees ? 180.0 / M_PI : 1.0;
      for (Eigen::Index k = 0; k < n; ++k)
        t.values(k, static_cast<Eigen::Index>(c)) =
            scale * out.frames[static_cast<std::size_t>(k)].q.joints[oc.joint.value];
    }
    return t;
  }
  t.columns = {"base_x", "base_y", "base_z", "base_qw", "base_qx", "base_qy", "base_qz"};
  t.columns.insert(t.columns.end(), m.jointNames().begin(), m.jointNames().end());
  t.values.resize(n, static_cast<Eigen::Index>(t.columns.size()));
  for (Eigen::Index k = 0; k < n; ++k) {
    const Configuration& q = out.frames[static_cast<std::size_t>(k)].q;
    t.values.row(k) << q.base_position.transpose(), so3::toQuaternionWxyz(q.base_rotation).transpose(),
        q.joints.transpose();
  }
  return t;
}

// The generalised forces as the torques file holds them (FilterJobResult::torques).
FilterTable torqueTable(const FilterInput& in, const FilteredMotion& out) {
  const Model& m = *in.model;
  const auto n = static_cast<Eigen::Index>(out.frames.size());
  FilterTable t;
  if (in.osim) {
    t.values.resize(n, static_cast<Eigen::Index>(in.osim->coordinates.size()));
    for (std::size_t c = 0; c < in.osim->coordinates.size(); ++c) {
      t.columns.push_back(biomech::generalizedForceColumn(in.osim->coordinates[c]));
      for (Eigen::Index k = 0; k < n; ++k)
        t.values(k, static_cast<Eigen::Index>(c)) =
            out.frames[static_cast<std::size_t>(k)].tau[m.nvBase() + in.osim->coordinates[c].joint.value];
    }
    return t;
  }
  if (m.nvBase() == 6) t.columns = {"base_fx", "base_fy", "base_fz", "base_mx", "base_my", "base_mz"};
  t.columns.insert(t.columns.end(), m.jointNames().begin(), m.jointNames().end());
  t.values.resize(n, m.nv());
  for (Eigen::Index k = 0; k < n; ++k) t.values.row(k) = out.frames[static_cast<std::size_t>(k)].tau.transpose();
  return t;
}

io::MotTable motTable(const FilterInput& in, const FilterTable& table, std::string name) {
  io::MotTable t;
  t.name = std::move(name);
  t.in_degrees_declared = true;
  t.times = in.t;
  t.columns = table.columns;
  t.values = table.values;
  return t;
}

// The files of the options whose path is set.
void writeOutputs(const FilterJobOptions& cfg, const FilterJobResult& r) {
  const FilterInput& in = r.input;
  const FilteredMotion& out = r.motion;
  const std::size_t n = out.frames.size();
  if (!cfg.out.empty()) {
    if (in.osim) {
      io::MotTable t = motTable(in, r.filtered, "filtered");
      t.in_degrees = in.mot.in_degrees;
      io::writeMot(t, cfg.out);
    } else {
      io::JointCsvWriter w(*in.model, cfg.out);
      for (std::size_t k = 0; k < n; ++k) w.write(in.t[k], out.frames[k].q, out.frames[k].gap && !out.frames[k].reset);
      w.commit();
    }
  }
  if (!cfg.torques.empty()) {
    if (in.osim) {
      io::writeMot(motTable(in, r.torques, "filtered generalized forces"), cfg.torques);
    } else {
      std::vector<VectorXd> tau(n);
      std::vector<std::uint8_t> valid(n);
      for (std::size_t k = 0; k < n; ++k) {
        tau[k] = out.frames[k].tau;
        valid[k] = !(out.frames[k].gap && !out.frames[k].reset);
      }
      io::writeForceCsv(cfg.torques, *in.model, in.t, tau, valid);
    }
  }
  if (!cfg.summary_json.empty()) writeTextFile(cfg.summary_json, summaryJson(r, cfg));
  if (!cfg.report_csv.empty()) writeTextFile(cfg.report_csv, filterReportCsv(r.frames));
}

// The CLI's default weight of the base's acceleration change for a floating base with solved
// contacts (dimensionless, the joints' weight being 1).
constexpr double kCapturedMotionWeightBase = 100.0;

}  // namespace

void checkOptions(const FilterJobOptions& cfg) {
  if (!std::isfinite(cfg.slope_deg) || std::abs(cfg.slope_deg) >= 45.0)
    throw InvalidArgument("--slope-deg must be within (-45, 45) degrees");
  if (!(cfg.friction > 0.0)) throw InvalidArgument("--friction must be > 0");
  if (cfg.force_tracking > 0.0 && cfg.grf.empty()) throw InvalidArgument("--force-tracking needs --grf");
  if (!cfg.adjust_com.empty() && cfg.grf.empty()) throw InvalidArgument("--adjust-com needs --grf");
  if (cfg.force_tracking > 0.0 && cfg.grf_mode == "apply")
    throw InvalidArgument("--force-tracking pulls solved contact forces to the plates: it needs --grf-mode contacts");
  // The CLI checks these while parsing; other callers (Python, batch) only here.
  const auto oneOf = [](const std::string& flag, const std::string& value, std::initializer_list<const char*> valid) {
    std::string names;
    for (const char* v : valid) {
      if (value == v) return;
      names += (names.empty() ? "" : ", ") + std::string(v);
    }
    throw InvalidArgument(flag + ": expected one of " + names + ", got '" + value + "'");
  };
  oneOf("--grf-mode", cfg.grf_mode, {"apply", "contacts"});
  oneOf("--weighting", cfg.weighting, {"unit", "inertia"});
  oneOf("--sole", cfg.sole, {"auto", "stance", "model"});
  if (cfg.residual_softness < 0.0) throw InvalidArgument("--residual-softness must be >= 0");
  if (cfg.input.empty()) throw InvalidArgument("--input: no motion file given");
}

FilterJobResult runDynamicsFilter(const FilterJobOptions& cfg, const Reporter& reporter) {
  FilterJobResult r;
  r.input = prepareFilterInput(cfg, reporter);
  FilterInput& in = r.input;
  const bool apply = !cfg.grf.empty() && cfg.grf_mode == "apply";
  // Gains not given: DynamicsFilterOptions::measuredLoads()'s with the plates applied, else the defaults.
  DynamicsFilterOptions o = apply ? DynamicsFilterOptions::measuredLoads() : DynamicsFilterOptions{};
  const auto given = [](double x, double fallback) { return std::isfinite(x) ? x : fallback; };
  o.kp_joint = given(cfg.kp, o.kp_joint);
  o.kd_joint = given(cfg.kd, o.kd_joint);
  o.kp_base = given(cfg.kp_base, std::isfinite(cfg.kp) ? cfg.kp : o.kp_base);
  o.kd_base = given(cfg.kd_base, std::isfinite(cfg.kd) ? cfg.kd : o.kd_base);
  o.residual_softness = given(cfg.residual_softness, o.residual_softness);
  if (!cfg.no_skyhook) o.head = in.head;
  o.friction = cfg.friction;
  o.contact_height = cfg.contact_height;
  o.contact_speed = cfg.contact_speed;
  o.force_tracking = cfg.force_tracking;
  o.contact_forces = apply ? ContactForces::Measured : ContactForces::Solved;
  o.weighting = cfg.weighting == "inertia" ? ChangeWeighting::InertiaDiagonal : ChangeWeighting::Constant;
  o.pin_contacts = !cfg.no_pin;
  o.anchor_at_reference = cfg.anchor_at_reference;
  // A floating base (built-in humans: BVH, joint CSV) with the filter's own contacts: the base's
  // acceleration change weighted 100 (docs/dynamics_filter.md, "Captured BVH walks"): with unit
  // weights the least change that balances the base rows is mostly base acceleration (it moves
  // the whole mass), and the captured walks fell behind the capture until reset; with the soles
  // fitted (--sole stance) the joints carry it at 1.6° RMS. OpenSim pelvis coordinates keep 1
  // (gait2354 with --grf-mode contacts: 3.6° → 4.6° joint change at 100).
  o.weight_base = std::isfinite(cfg.weight_base) ? cfg.weight_base
                  : (!in.osim && !apply)         ? kCapturedMotionWeightBase
                                                 : o.weight_base;
  o.ground = in.ground;
  o.gravity = in.gravity;
  o.unactuated = in.unactuated;
  o.contact_source = in.contact.empty() ? ContactSource::Detect : ContactSource::Given;
  in.options = o;
  DynamicsFilter filter(in.model, in.feet, o);
  r.motion = filterMotion(
      filter, in.q, in.t, in.derivatives, in.contact,
      cfg.force_tracking > 0.0 || apply ? std::span(in.plates) : std::span<const std::vector<ExternalWrench>>{},
      [&](int done, int total) { reporter.report(done, total, "filtered frame"); });
  r.report = summarize(in, r.motion);
  r.frames = filterFrameReport(in, r.motion);
  r.filtered = filteredTable(in, r.motion);
  r.torques = torqueTable(in, r.motion);
  writeOutputs(cfg, r);
  return r;
}

}  // namespace kinetrack::app
