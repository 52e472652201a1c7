#pragma once
// Reporting of tracking runs, shared by `kinetrack track` and `kinetrack demo`: the summary
// table, summary.json, and the MOT table of a tracked motion.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kinetrack/io/opensim.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "kinetrack/track/retarget.hpp"

namespace kinetrack::cli {

/// summary.json: frames, gaps, mnte_median, mnte_p95, rmse_median, joint_rms_deg (null without
/// ground truth), limit_violation_max_rad, step_us_p50, step_us_p99, and context.
nlohmann::json summaryJson(const track::TrackSummary& s, const Model& model, const std::string& input,
                           const track::Retargeting& plan, const std::vector<std::string>& skipped,
                           const std::vector<std::string>& unmapped);
/// Writes `j` (temporary file + rename). Throws ParseError when the file cannot be written.
void writeSummaryJson(const std::string& path, const nlohmann::json& j);
/// Prints the summary table to stdout.
void printSummary(const track::TrackSummary& s, const Model& model, const std::string& input,
                  const track::Retargeting& plan, const std::vector<std::string>& skipped,
                  const std::vector<std::string>& unmapped, double seconds);
/// Joint trajectories as an OpenSim coordinate table (base as pelvis_tx/ty/tz and XYZ-fixed
/// angles pelvis_tilt/list/rotation in degrees, joints in degrees; prismatic joints in m).
io::MotTable motTable(const Model& model, const std::vector<double>& times, const std::vector<Configuration>& q);

}  // namespace kinetrack::cli
