// The dynamics filter job: the filter's options from the job's, the run, the files.
#include <fmt/format.h>

#include <cmath>
#include <span>

#include "kinetrack/app/dynamics_filter_job.hpp"
#include "kinetrack/biomech/opensim_id.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/force_csv.hpp"
#include "kinetrack/io/joint_csv.hpp"

namespace kinetrack::app {
namespace {

void writeOutputs(const FilterJobOptions& cfg, const FilterInput& in, const FilteredMotion& out) {
  const Model& m = *in.model;
  const std::size_t n = out.frames.size();
  if (in.osim) {
    io::MotTable t;
    t.name = "filtered";
    t.in_degrees = in.mot.in_degrees;
    t.in_degrees_declared = true;
    t.times = in.t;
    t.values.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(in.osim->coordinates.size()));
    for (std::size_t c = 0; c < in.osim->coordinates.size(); ++c) {
      const io::OpenSimCoordinate& oc = in.osim->coordinates[c];
      t.columns.push_back(oc.name);
      const double scale = oc.rotational && t.in_degrees ? 180.0 / M_PI : 1.0;
      for (std::size_t k = 0; k < n; ++k)
        t.values(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c)) =
            scale * out.frames[k].q.joints[oc.joint.value];
    }
    if (!cfg.out.empty()) io::writeMot(t, cfg.out);
  } else if (!cfg.out.empty()) {
    io::JointCsvWriter w(m, cfg.out);
    for (std::size_t k = 0; k < n; ++k)
      w.write(in.t[k], out.frames[k].q, out.frames[k].status == FilterStatus::InvalidReference);
    w.commit();
  }
  if (cfg.torques.empty()) return;
  if (in.osim) {
    io::MotTable t;
    t.name = "filtered generalized forces";
    t.times = in.t;
    t.in_degrees_declared = true;
    t.values.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(in.osim->coordinates.size()));
    for (std::size_t c = 0; c < in.osim->coordinates.size(); ++c) {
      t.columns.push_back(biomech::generalizedForceColumn(in.osim->coordinates[c]));
      for (std::size_t k = 0; k < n; ++k)
        t.values(static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(c)) =
            out.frames[k].tau[m.nvBase() + in.osim->coordinates[c].joint.value];
    }
    io::writeMot(t, cfg.torques);
  } else {
    std::vector<VectorXd> tau(n);
    std::vector<std::uint8_t> valid(n);
    for (std::size_t k = 0; k < n; ++k) {
      tau[k] = out.frames[k].tau;
      valid[k] = out.frames[k].status != FilterStatus::InvalidReference;
    }
    io::writeForceCsv(cfg.torques, m, in.t, tau, valid);
  }
}

// The CLI's default weight of the base's acceleration change for a floating base with solved
// contacts (dimensionless, the joints' weight being 1).
constexpr double kCapturedMotionWeightBase = 100.0;

}  // namespace

FilterJobResult runDynamicsFilter(const FilterJobOptions& cfg, const Reporter& reporter) {
  if (!std::isfinite(cfg.slope_deg) || std::abs(cfg.slope_deg) >= 45.0)
    throw InvalidArgument("--slope-deg must be within (-45, 45) degrees");
  if (!(cfg.friction > 0.0)) throw InvalidArgument("--friction must be > 0");
  if (cfg.force_tracking > 0.0 && cfg.grf.empty()) throw InvalidArgument("--force-tracking needs --grf");
  if (!cfg.adjust_com.empty() && cfg.grf.empty()) throw InvalidArgument("--adjust-com needs --grf");
  if (cfg.force_tracking > 0.0 && cfg.grf_mode == "apply")
    throw InvalidArgument("--force-tracking pulls solved contact forces to the plates: it needs --grf-mode contacts");
  FilterJobResult r;
  FilterInput& in = r.input;
  std::vector<ContactBody> feet;
  detail::prepareFilterInput(cfg, in, feet, reporter);
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
  DynamicsFilter filter(in.model, feet, o);
  r.motion = filterMotion(
      filter, in.q, in.t, in.derivatives, in.contact,
      cfg.force_tracking > 0.0 || apply ? std::span(in.plates) : std::span<const std::vector<ExternalWrench>>{},
      [&](int done, int total) { reporter.report(done, total, "filtered frame"); });
  writeOutputs(cfg, in, r.motion);
  r.report = summarize(in, r.motion);
  if (!cfg.summary_json.empty()) writeTextFile(cfg.summary_json, summaryJson(r, cfg));
  if (!cfg.report_csv.empty()) writeTextFile(cfg.report_csv, filterReportCsv(in, r.motion));
  return r;
}

}  // namespace kinetrack::app
