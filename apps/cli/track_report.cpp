#include "track_report.hpp"

#include <fmt/format.h>

#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/atomic_file.hpp"

namespace kinetrack::cli {
namespace {

nlohmann::json finiteOrNull(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json summaryJson(const track::TrackSummary& s, const Model& model, const std::string& input,
                           const track::Retargeting& plan, const std::vector<std::string>& skipped,
                           const std::vector<std::string>& unmapped) {
  nlohmann::json j;
  j["input"] = input;
  j["model"] = model.name();
  j["dof"] = model.numJoints();
  j["targets"] = plan.bindings.size();
  j["frames"] = s.frames;
  j["gaps"] = s.gaps;
  j["transient_s"] = s.transient_s;
  j["frames_after_transient"] = s.frames_after_transient;
  j["mnte_median"] = finiteOrNull(s.mnte_median);
  j["mnte_p95"] = finiteOrNull(s.mnte_p95);
  j["mnte_max"] = finiteOrNull(s.mnte_max);
  j["rmse_median"] = finiteOrNull(s.rmse_median);
  j["joint_rms_deg"] = s.has_truth ? finiteOrNull(s.joint_rms_deg) : nlohmann::json(nullptr);
  j["limit_violation_max_rad"] = s.limit_violation_max_rad;
  j["row_violation_max"] = s.row_violation_max;
  j["step_us_p50"] = s.step_us_p50;
  j["step_us_p99"] = s.step_us_p99;
  j["step_us_max"] = s.step_us_max;
  j["substeps_mean"] = s.substeps_mean;
  j["non_finite_steps"] = s.non_finite;
  if (s.solvedFrames() > 0)
    j["solve_status"] = {{"converged", s.converged},
                         {"stationary", s.stationary},
                         {"iteration_limit", s.iteration_limit},
                         {"infeasible", s.infeasible},
                         {"failed", s.failed}};
  j["map_entries_skipped"] = skipped;
  j["clip_segments_unmapped"] = unmapped;
  return j;
}

void writeSummaryJson(const std::string& path, const nlohmann::json& j) {
  io::writeFileAtomically(path, j.dump(2) + '\n');
}

void printSummary(const track::TrackSummary& s, const Model& model, const std::string& input,
                  const track::Retargeting& plan, const std::vector<std::string>& skipped,
                  const std::vector<std::string>& unmapped, double seconds) {
  fmt::print("tracked {} on {} ({} DoF, {} targets)\n", input, model.name(), model.numJoints(), plan.bindings.size());
  if (!unmapped.empty()) {
    std::string list;
    for (const auto& u : unmapped) list += (list.empty() ? "" : ", ") + u;
    fmt::print("  clip segments not mapped ({}): {}\n", unmapped.size(), list);
  }
  if (!skipped.empty()) {
    std::string list;
    for (const auto& u : skipped) list += (list.empty() ? "" : ", ") + u;
    fmt::print("  map entries without a model frame ({}): {}\n", skipped.size(), list);
  }
  fmt::print("  {:<28} {}\n", "frames", s.frames);
  fmt::print("  {:<28} {}\n", "gaps (state held)", s.gaps);
  fmt::print("  {:<28} {:.1f} s ({} frames after it)\n", "transient excluded", s.transient_s, s.frames_after_transient);
  fmt::print("  {:<28} {:.2e} / {:.2e} / {:.2e}\n", "MNTE median / p95 / max", s.mnte_median, s.mnte_p95, s.mnte_max);
  fmt::print("  {:<28} {:.3e} rad/s\n", "ang. velocity RMSE median", s.rmse_median);
  if (s.has_truth) fmt::print("  {:<28} {:.4f} deg\n", "joint RMS vs clip angles", s.joint_rms_deg);
  fmt::print("  {:<28} {:.2e} rad\n", "max joint-limit violation", s.limit_violation_max_rad);
  if (!model.linearConstraints().empty())
    fmt::print("  {:<28} {:.2e}\n", "max coupled-row violation", s.row_violation_max);
  fmt::print("  {:<28} {:.1f} / {:.1f} / {:.1f} us ({:.2f} solver steps per frame)\n", "time per frame p50/p99/max",
             s.step_us_p50, s.step_us_p99, s.step_us_max, s.substeps_mean);
  if (s.solvedFrames() > 0)
    fmt::print("  {:<28} {} converged, {} stationary (out of reach), {} iteration limit, {} infeasible, {} failed\n",
               "per-frame solves", s.converged, s.stationary, s.iteration_limit, s.infeasible, s.failed);
  if (s.non_finite > 0) fmt::print("  WARNING: {} frames produced a non-finite step (state held)\n", s.non_finite);
  fmt::print("  {:<28} {:.2f} s ({:.0f} frames/s including I/O)\n", "wall time", seconds,
             seconds > 0 ? s.frames / seconds : 0.0);
}

io::MotTable motTable(const Model& model, const std::vector<double>& times, const std::vector<Configuration>& q) {
  io::MotTable t;
  t.in_degrees = true;
  const bool floating = model.nvBase() > 0;
  if (floating) t.columns = {"base_tx", "base_ty", "base_tz", "base_roll", "base_pitch", "base_yaw"};
  for (int j = 0; j < model.numJoints(); ++j) t.columns.push_back(model.jointName(JointId(j)));
  t.times = times;
  t.values.resize(static_cast<Eigen::Index>(q.size()), static_cast<Eigen::Index>(t.columns.size()));
  const double deg = 180.0 / M_PI;
  for (std::size_t f = 0; f < q.size(); ++f) {
    Eigen::Index c = 0;
    const auto r = static_cast<Eigen::Index>(f);
    if (floating) {
      const Vector3d rpy = so3::toRpy(q[f].base_rotation);
      for (int k = 0; k < 3; ++k) t.values(r, c++) = q[f].base_position[k];
      for (int k = 0; k < 3; ++k) t.values(r, c++) = rpy[k] * deg;
    }
    for (int j = 0; j < model.numJoints(); ++j)
      t.values(r, c++) = q[f].joints[j] * (model.jointType(JointId(j)) == JointType::Prismatic ? 1.0 : deg);
  }
  return t;
}

}  // namespace kinetrack::cli
