#pragma once
// URDF reading (urdfdom, with a tinyxml2 pre-pass that reports errors with line numbers) and
// writing. Fixed joints are merged: a fixed child link becomes a Fixed frame of its parent's
// link, so it costs nothing in kinematics. <mimic> tags are kept as Model::mimics() and as
// equality linear constraints, and reported as warnings.
//
// Geometry: every <visual> and <collision> (box, cylinder, sphere, mesh with scale) becomes a
// Geom of the link (a merged fixed link's on its parent's link), collision or visual, named by
// its name attribute or "<link>/visual<k>" / "<link>/collision<k>"; a visual's colour is its
// material's (inline <color> or a top-level <material>). Mesh files are resolved against the
// URDF's folder (relative paths; "package://pkg/rest": the first existing of dir/rest,
// dir/../rest, then A/rest and A/pkg/rest for each ancestor A of dir; none: dir/rest), not
// loaded and not checked for existence. A shape of zero or negative size is skipped (a
// placeholder, e.g. the human-gazebo hands' COM boxes; no warning).
//
// Infinite limits: URDF needs finite velocity/effort (and position, for revolute/prismatic)
// values. The writer writes ±1.7976931348623157e+308 (the largest double) for an infinite limit
// and the reader maps that value back to infinity, so export → reload is exact.
#include <iosfwd>
#include <string>
#include <vector>

#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

struct UrdfOptions {
  /// URDF has no notion of a floating base; humans and humanoids are floating (the default).
  BaseType base = BaseType::Floating;
};

/// Load a URDF file. Throws ParseError (file, line, what) for a missing or malformed file:
/// XML syntax, unknown joint type, a joint naming a missing link, non-finite numbers, a tree
/// with several roots or cycles. Warnings (mimic tags, ignored elements) go to `warnings`.
Model loadUrdf(const std::string& path, const UrdfOptions& options = {}, std::vector<std::string>* warnings = nullptr);

/// Same as loadUrdf for URDF text held in memory; `source_name` is used in error messages.
Model parseUrdf(const std::string& xml, const std::string& source_name, const UrdfOptions& options = {},
                std::vector<std::string>* warnings = nullptr);

/// Writes `model` as URDF: links with their (merged) inertials and geoms (a <visual> and/or a
/// <collision> each, mesh paths absolute; capsules and ellipsoids, which URDF lacks, as comments),
/// moving joints, Fixed frames as fixed joints to their original parents, User frames as massless
/// links on fixed joints, and mimic tags. Linear constraints other than mimics are not expressible in URDF and are
/// written as comments. Numbers are written with 17 significant digits.
void writeUrdf(const Model& model, std::ostream& out);
std::string toUrdf(const Model& model);
/// Writes to a file; throws ParseError when it cannot be opened for writing.
void saveUrdf(const Model& model, const std::string& path);

}  // namespace kinetrack::io
