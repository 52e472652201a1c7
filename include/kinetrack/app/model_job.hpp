#pragma once
// `kinetrack model info | export | fk` as jobs: a model's report (links, joints, limits, frames,
// mass properties, coupled rows, mimics) as text or JSON, its URDF export, and the world
// placement of frames at given joint values.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/model/configuration.hpp"

namespace kinetrack::app {

/// `model info --json`: name, source, height, mass, base, dof, nv, links (mass, com, inertia),
/// joints (type, axis, limits), frames, linear constraints, mimics. Text with a trailing newline.
std::string modelInfoJson(const io::LoadedModel& model);
/// `model info`: the same as tables.
std::string modelInfoText(const io::LoadedModel& model);

/// `model export`: the model as URDF at `out` (written atomically). Throws InvalidArgument for an
/// empty name, ParseError for a directory or a missing parent directory.
void exportUrdf(const io::LoadedModel& model, const std::string& out);

struct FkOptions {
  io::ModelSpec model;
  std::vector<std::string> frames;                     ///< empty: the 23 segments, or every link
  std::vector<std::pair<std::string, double>> joints;  ///< joint values (rad or m); the others 0
};
/// "NAME=VALUE" with VALUE in rad, or in degrees with a "deg" suffix (the CLI's --joint).
std::pair<std::string, double> parseJointAssignment(const std::string& text);

struct FkResult {
  std::shared_ptr<const Model> model;
  Configuration q;
  std::vector<FrameId> frames;
  std::vector<Transform> placements;  ///< world placement of each frame, base at the origin
};
/// Warns of a joint value outside its position limits; throws InvalidArgument for an unknown
/// joint or frame (listing the valid names).
FkResult runFk(const FkOptions& options, const Reporter& reporter = {});
std::string fkJson(const FkResult& r);
std::string fkText(const FkResult& r);

}  // namespace kinetrack::app
