// `kinetrack dynamics filter`: the numbers of a run (residuals before/after, joint change, foot
// slide, constraint activity, timing, contact forces vs plates), as a table, JSON and a per-frame
// CSV for the plot.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "kinetrack/app/dynamics_filter_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack::app {
namespace {

double norm(const VectorXd& x, const std::vector<int>& rows) {
  double s = 0.0;
  for (const int r : rows) s += x[r] * x[r];
  return std::sqrt(s);
}

double rms(const std::vector<double>& x) {
  double s = 0.0;
  for (const double v : x) s += v * v;
  return x.empty() ? 0.0 : std::sqrt(s / static_cast<double>(x.size()));
}

double maxOf(const std::vector<double>& x) { return x.empty() ? 0.0 : *std::max_element(x.begin(), x.end()); }

// The count of an outcome word (outcomeName) in the report's counts.
int& countOf(FilterReport::OutcomeCounts& c, std::string_view word) {
  if (word == "reset") return c.reset;
  if (word == "invalid_reference") return c.invalid_reference;
  if (word == "solver_limit") return c.solver_limit;
  if (word == "no_contact") return c.no_contact;
  return c.ok;
}

// Mean speed (m/s) along the ground, relative to the surface (a treadmill's belt), of the feet in
// contact over consecutive frames, at their contact points: in the filtered motion the sole
// points that carry force (normal force > 1e-3 of the weight at the first frame), in the input
// those within the filter's contact_point_tolerance of the foot's lowest point (a rolling foot's
// ankle moves, its touching edge should not); with `origin`, at the link origins (the ankles).
// Frame pairs across a reset or an invalid reference (the state jumps) are left out.
double slideSpeed(const FilterInput& in, const FilteredMotion& out, bool filtered, bool origin) {
  const Model& m = *in.model;
  const std::size_t nc = out.frames.empty() ? 0 : out.frames[0].in_contact.size();
  const double tolerance = DynamicsFilterOptions{}.contact_point_tolerance;
  const double loaded = 1e-3 * m.totalMass() * in.gravity.norm();
  const std::vector<ContactBody> feet = in.feet.empty() ? footContacts(m, in.up) : in.feet;
  Data d0(m), d1(m);
  double sum = 0.0;
  int count = 0;
  for (std::size_t k = 0; k + 1 < out.frames.size(); ++k) {
    const DynamicsFilterFrame &a = out.frames[k], &b = out.frames[k + 1];
    if ((a.gap && !a.reset) || (b.gap && !b.reset) || a.reset) continue;
    bool any = false;
    for (std::size_t c = 0; c < nc; ++c) any = any || (a.in_contact[c] && b.in_contact[c]);
    if (!any) continue;
    forwardKinematics(m, d0, filtered ? a.q : in.q[k]);
    forwardKinematics(m, d1, filtered ? b.q : in.q[k + 1]);
    std::size_t first = 0;  // the body's first contact point
    for (std::size_t c = 0; c < nc; first += feet[c].points.size(), ++c) {
      if (!(a.in_contact[c] && b.in_contact[c])) continue;
      const auto l = static_cast<std::size_t>(a.wrenches[c].link.value);
      const Transform &X0 = d0.link[l], &X1 = d1.link[l];
      Vector3d point = Vector3d::Zero();  // link frame
      if (!origin) {
        double lowest = std::numeric_limits<double>::infinity();
        for (const Vector3d& p : feet[c].points) lowest = std::min(lowest, in.ground.height(X0.p + X0.R * p));
        int n = 0;
        for (std::size_t i = 0; i < feet[c].points.size(); ++i) {
          const Vector3d& p = feet[c].points[i];
          const bool on = filtered ? a.point_forces[first + i].dot(in.ground.normal) > loaded
                                   : in.ground.height(X0.p + X0.R * p) <= lowest + tolerance;
          if (on) point += p, ++n;
        }
        if (n == 0) continue;  // held but unloaded
        point /= n;
      }
      Vector3d dp = X1.p + X1.R * point - X0.p - X0.R * point - (in.t[k + 1] - in.t[k]) * in.ground.velocity;
      dp -= dp.dot(in.ground.normal) * in.ground.normal;
      sum += dp.norm() / (in.t[k + 1] - in.t[k]);
      ++count;
    }
  }
  return count ? sum / count : 0.0;
}

}  // namespace

FilterReport summarize(const FilterInput& in, const FilteredMotion& out) {
  const Model& m = *in.model;
  FilterReport r;
  r.frames = static_cast<int>(out.frames.size());
  std::vector<double> fb, fa, mb, ma, change, base, us;
  std::vector<double> plate_sq(3, 0.0);
  int plate_n = 0;
  VectorXd diff(m.nv());
  std::vector<std::uint8_t> unact(static_cast<std::size_t>(m.nv()), 0);
  for (const int u : in.unactuated) unact[static_cast<std::size_t>(u)] = 1;
  if (in.unactuated.empty()) std::fill(unact.begin(), unact.begin() + 6, 1);
  for (std::size_t k = 0; k < out.frames.size(); ++k) {
    const DynamicsFilterFrame& f = out.frames[k];
    ++countOf(r.outcomes, outcomeName(f));
    us.push_back(out.seconds_per_frame[k] * 1e6);
    if (f.gap && !f.reset) continue;  // held (a reset frame is counted as one)
    if (f.active_contacts > 0) ++r.frames_in_contact;
    if (f.binding_unilateral + f.binding_friction > 0) ++r.frames_binding;
    if (f.binding_unilateral > 0) ++r.frames_unilateral;
    if (f.binding_friction > 0) ++r.frames_friction;
    fb.push_back(norm(f.residual_before, in.force_rows));
    fa.push_back(norm(f.residual_after, in.force_rows));
    mb.push_back(norm(f.residual_before, in.moment_rows));
    ma.push_back(norm(f.residual_after, in.moment_rows));
    // Kinematic change against the filter's input: rotational joints in degrees, base in metres.
    difference(m, in.q[k], f.q, diff);
    for (int j = 0; j < m.numJoints(); ++j) {
      const int i = m.nvBase() + j;
      if (m.jointType(JointId(j)) == JointType::Prismatic)
        base.push_back(diff[i]);
      else if (!unact[static_cast<std::size_t>(i)] || m.nvBase() == 0)
        change.push_back(diff[i] * 180.0 / M_PI);
    }
    if (m.nvBase() == 6) base.push_back(diff.head<3>().norm());
    if (!in.plates.empty()) {
      Vector3d e = Vector3d::Zero();
      for (std::size_t b = 0; b < f.wrenches.size(); ++b) e += f.wrenches[b].force - in.plates[k][b].force;
      for (int a = 0; a < 3; ++a) plate_sq[static_cast<std::size_t>(a)] += e[a] * e[a];
      ++plate_n;
    }
  }
  r.residual_force_rms_before = rms(fb);
  r.residual_force_rms_after = rms(fa);
  r.residual_force_max_before = maxOf(fb);
  r.residual_force_max_after = maxOf(fa);
  r.residual_moment_rms_before = rms(mb);
  r.residual_moment_rms_after = rms(ma);
  r.residual_moment_max_before = maxOf(mb);
  r.residual_moment_max_after = maxOf(ma);
  r.joint_change_rms_deg = rms(change);
  for (const double c : change) r.joint_change_max_deg = std::max(r.joint_change_max_deg, std::abs(c));
  r.base_change_rms_m = rms(base);
  r.foot_slide_mm = 1000.0 * slideSpeed(in, out, true, false);
  r.foot_slide_input_mm = 1000.0 * slideSpeed(in, out, false, false);
  r.foot_slide_origin_mm = 1000.0 * slideSpeed(in, out, true, true);
  r.foot_slide_origin_input_mm = 1000.0 * slideSpeed(in, out, false, true);
  if (!us.empty()) {
    const metrics::Summary s = metrics::summarize(us);
    r.step_us_p50 = s.median;
    r.step_us_p95 = s.p95;
  }
  if (plate_n > 0)
    for (int a = 0; a < 3; ++a) r.plate_rms.push_back(std::sqrt(plate_sq[static_cast<std::size_t>(a)] / plate_n));
  return r;
}

std::string summaryText(const FilterJobResult& result, const FilterJobOptions& cfg) {
  const FilterInput& in = result.input;
  const FilterReport& r = result.report;
  std::string t;
  const Model& m = *in.model;
  t += fmt::format("dynamics filter of {} on {} ({} DoF, {:.2f} kg)\n", cfg.input, m.name(), m.nv(), m.totalMass());
  t += fmt::format("  {:<26} {}\n", "input", in.kind);
  t += fmt::format("  {:<26} {}\n", "ground", in.ground_note);
  t += fmt::format("  {:<26} joints {:g} /s², {:g} /s; base {:g} /s², {:g} /s; weighting {}, base change weight {:g}\n",
                   "feedback gains", in.options.kp_joint, in.options.kd_joint, in.options.kp_base, in.options.kd_base,
                   cfg.weighting, in.options.weight_base);
  if (!in.sole_tilt_deg.empty()) {
    std::string tilts;
    for (const double d : in.sole_tilt_deg) tilts += fmt::format("{}{:.1f}°", tilts.empty() ? "" : ", ", d);
    t += fmt::format("  {:<26} {} (tilted {} from the model's zero pose)\n", "soles", in.sole, tilts);
  }
  t += fmt::format("  {:<26} {}\n", "contacts",
                   cfg.slope_deg != 0.0 ? "scheduled on the level reference (height + speed rule)"
                   : !cfg.grf.empty()
                       ? fmt::format("force plates {} (normal force > {:g} N)", cfg.grf, cfg.grf_threshold)
                       : fmt::format("detected: sole within {:g} m of the ground, speed <= {:g} m/s",
                                     cfg.contact_height, cfg.contact_speed));
  if (!cfg.grf.empty())
    t += fmt::format("  {:<26} {}\n", "plate loads",
                     cfg.grf_mode == "apply"
                         ? fmt::format("applied (measured), the accelerations balance the base; residual softness {:g}",
                                       in.options.residual_softness)
                         : std::string("contact intervals only: the filter solves its own contact forces"));
  if (in.com) {
    const Vector3d& d = in.com->offset;
    std::string before, after;
    for (const int r : in.moment_rows) {
      before += fmt::format("{}{:.2f}", before.empty() ? "" : ", ", in.com->mean_before[r]);
      after += fmt::format("{}{:.2f}", after.empty() ? "" : ", ", in.com->mean_after[r]);
    }
    t += fmt::format(
        "  {:<26} {} mass centre moved by ({:.4f}, {:.4f}, {:.4f}) m (its frame); mean residual moments "
        "({}) -> ({}) N m over {} frames\n",
        "mass-centre adjustment", in.com_body, d.x(), d.y(), d.z(), before, after, in.com->frames);
  }
  std::vector<std::vector<std::string>> rows = {{"", "before (RMS / max)", "after (RMS / max)"}};
  rows.push_back({"residual force (N)",
                  fmt::format("{:.2f} / {:.2f}", r.residual_force_rms_before, r.residual_force_max_before),
                  fmt::format("{:.2e} / {:.2e}", r.residual_force_rms_after, r.residual_force_max_after)});
  rows.push_back({"residual moment (N m)",
                  fmt::format("{:.2f} / {:.2f}", r.residual_moment_rms_before, r.residual_moment_max_before),
                  fmt::format("{:.2e} / {:.2e}", r.residual_moment_rms_after, r.residual_moment_max_after)});
  t += textTable(rows);
  t += fmt::format("  {:<26} {}\n", "frames", r.frames);
  t += fmt::format("  {:<26} {} ok, {} no contact, {} invalid reference (held), {} QP iteration limit, {} reset\n",
                   "status", r.outcomes.ok, r.outcomes.no_contact, r.outcomes.invalid_reference,
                   r.outcomes.solver_limit, r.outcomes.reset);
  t += fmt::format("  {:<26} {} frames in contact; constraints bind in {} ({} unilateral, {} friction; mu = {:g})\n",
                   "contact activity", r.frames_in_contact, r.frames_binding, r.frames_unilateral, r.frames_friction,
                   cfg.friction);
  t += fmt::format("  {:<26} {:.2f} deg RMS, {:.1f} deg max (rotational joints); {:.4f} m RMS (base / translations)\n",
                   "change vs input", r.joint_change_rms_deg, r.joint_change_max_deg, r.base_change_rms_m);
  t += fmt::format(
      "  {:<26} {:.1f} mm/s filtered, {:.1f} mm/s input (mean, touching sole points of feet in contact); "
      "link origin {:.1f} / {:.1f} mm/s\n",
      "foot slide", r.foot_slide_mm, r.foot_slide_input_mm, r.foot_slide_origin_mm, r.foot_slide_origin_input_mm);
  if (!r.plate_rms.empty())
    t += fmt::format("  {:<26} {:.1f} / {:.1f} / {:.1f} N RMS (x / y / z, both feet summed)\n",
                     "contact force vs plates", r.plate_rms[0], r.plate_rms[1], r.plate_rms[2]);
  t += fmt::format("  {:<26} {:.1f} / {:.1f} us (p50 / p95)\n", "time per frame", r.step_us_p50, r.step_us_p95);
  return t;
}

std::string summaryJson(const FilterJobResult& result, const FilterJobOptions& cfg) {
  const FilterInput& in = result.input;
  const FilterReport& r = result.report;
  nlohmann::json j;
  j["input"] = cfg.input;
  j["model"] = in.model->name();
  j["frames"] = r.frames;
  j["residual_force_rms_before_n"] = r.residual_force_rms_before;
  j["residual_force_rms_after_n"] = r.residual_force_rms_after;
  j["residual_force_max_before_n"] = r.residual_force_max_before;
  j["residual_force_max_after_n"] = r.residual_force_max_after;
  j["residual_moment_rms_before_nm"] = r.residual_moment_rms_before;
  j["residual_moment_rms_after_nm"] = r.residual_moment_rms_after;
  j["residual_moment_max_before_nm"] = r.residual_moment_max_before;
  j["residual_moment_max_after_nm"] = r.residual_moment_max_after;
  j["joint_change_rms_deg"] = r.joint_change_rms_deg;
  j["joint_change_max_deg"] = r.joint_change_max_deg;
  j["base_change_rms_m"] = r.base_change_rms_m;
  j["foot_slide_mm_per_s"] = r.foot_slide_mm;
  j["foot_slide_input_mm_per_s"] = r.foot_slide_input_mm;
  j["foot_slide_origin_mm_per_s"] = r.foot_slide_origin_mm;
  j["foot_slide_origin_input_mm_per_s"] = r.foot_slide_origin_input_mm;
  j["frames_in_contact"] = r.frames_in_contact;
  j["frames_constraints_binding"] = r.frames_binding;
  j["frames_unilateral_binding"] = r.frames_unilateral;
  j["frames_friction_binding"] = r.frames_friction;
  j["friction_coefficient"] = cfg.friction;
  j["status"] = {{"ok", r.outcomes.ok},
                 {"no_contact", r.outcomes.no_contact},
                 {"invalid_reference", r.outcomes.invalid_reference},
                 {"solver_limit", r.outcomes.solver_limit},
                 {"reset", r.outcomes.reset}};
  j["time_per_frame_us_p50"] = r.step_us_p50;
  j["time_per_frame_us_p95"] = r.step_us_p95;
  j["slope_deg"] = cfg.slope_deg;
  if (!r.plate_rms.empty()) j["contact_force_vs_plates_rms_n"] = r.plate_rms;
  if (!cfg.grf.empty()) {
    j["grf_mode"] = cfg.grf_mode;
  }
  const DynamicsFilterOptions& o = in.options;
  j["residual_softness"] = o.residual_softness;
  j["gains"] = {{"kp_joint", o.kp_joint}, {"kd_joint", o.kd_joint}, {"kp_base", o.kp_base}, {"kd_base", o.kd_base}};
  j["weighting"] = cfg.weighting;
  j["weight_base"] = o.weight_base;
  j["sole"] = in.sole;
  j["sole_tilt_deg"] = in.sole_tilt_deg;
  if (in.com) {
    std::vector<double> before, after;
    for (const int r : in.moment_rows) before.push_back(in.com->mean_before[r]), after.push_back(in.com->mean_after[r]);
    j["com_adjustment"] = {{"body", in.com_body},
                           {"offset_m", {in.com->offset.x(), in.com->offset.y(), in.com->offset.z()}},
                           {"mean_residual_moment_before_nm", before},
                           {"mean_residual_moment_after_nm", after},
                           {"frames", in.com->frames}};
  }
  return j.dump(2) + "\n";
}

FilterFrameReport filterFrameReport(const FilterInput& in, const FilteredMotion& out) {
  const Model& m = *in.model;
  FilterFrameReport r;
  r.columns = {"time",          "contacts",     "force_before",  "force_after",
               "moment_before", "moment_after", "root_up_input", "root_up_filtered"};
  const std::size_t nc = out.frames.empty() ? 0 : out.frames[0].wrenches.size();
  for (std::size_t b = 0; b < nc; ++b) {
    const std::string n = m.linkName(out.frames[0].wrenches[b].link);
    for (const char* axis : {"fx", "fy", "fz"}) r.columns.push_back(fmt::format("{}_{}", n, axis));
    if (!in.plates.empty())
      for (const char* axis : {"fx", "fy", "fz"}) r.columns.push_back(fmt::format("plate_{}_{}", n, axis));
  }
  r.values.resize(static_cast<Eigen::Index>(out.frames.size()), static_cast<Eigen::Index>(r.columns.size()));
  Data d(m);
  for (std::size_t k = 0; k < out.frames.size(); ++k) {
    const DynamicsFilterFrame& f = out.frames[k];
    forwardKinematics(m, d, f.q);
    const double filtered = d.link[static_cast<std::size_t>(in.root.value)].p.dot(in.up);
    double input = std::numeric_limits<double>::quiet_NaN();
    if (in.q[k].joints.allFinite() && in.q[k].base_position.allFinite()) {
      forwardKinematics(m, d, in.q[k]);
      input = d.link[static_cast<std::size_t>(in.root.value)].p.dot(in.up);
    }
    auto row = r.values.row(static_cast<Eigen::Index>(k));
    row.head<8>() << in.t[k], f.active_contacts, norm(f.residual_before, in.force_rows),
        norm(f.residual_after, in.force_rows), norm(f.residual_before, in.moment_rows),
        norm(f.residual_after, in.moment_rows), input, filtered;
    Eigen::Index c = 8;
    for (std::size_t b = 0; b < nc; ++b) {
      row.segment<3>(c) = f.wrenches[b].force.transpose(), c += 3;
      if (!in.plates.empty()) row.segment<3>(c) = in.plates[k][b].force.transpose(), c += 3;
    }
    r.status.push_back(outcomeName(f));
  }
  return r;
}

std::string filterReportCsv(const FilterFrameReport& r) {
  // time with 6 decimals, the status and the contact count as they are, the rest 6 digits.
  std::string s = "time,status";
  for (std::size_t c = 1; c < r.columns.size(); ++c) s += "," + r.columns[c];
  s += "\n";
  for (Eigen::Index k = 0; k < r.values.rows(); ++k) {
    s += fmt::format("{:.6f},{},{}", r.values(k, 0), r.status[static_cast<std::size_t>(k)],
                     static_cast<int>(r.values(k, 1)));
    for (Eigen::Index c = 2; c < r.values.cols(); ++c) s += fmt::format(",{:.6g}", r.values(k, c));
    s += "\n";
  }
  return s;
}

}  // namespace kinetrack::app
