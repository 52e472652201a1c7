#pragma once
// Which model frame each clip segment of a capture drives: the segment map (built-in, detected,
// automatic or a JSON file, io::resolveSegmentMap) restricted to the frames a model has.
#include <string>
#include <vector>

#include "kinetrack/io/model/segment_map.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/track/retarget.hpp"

namespace kinetrack::track {

/// Clip segment → model frame pairs of one capture on one model, and what was left out.
struct SegmentPairs {
  std::vector<SegmentPair> pairs;     ///< clip order
  std::vector<std::string> skipped;   ///< map entries whose frame the model lacks, "segment -> frame"
  std::vector<std::string> unmapped;  ///< clip segments the map does not name (clip order)
  io::SegmentMap clip_map;            ///< resolveRobotPairs: the capture's resolved segment map
  /// resolveRobotPairs only: the robot map used (what `kinetrack retarget --save-map` writes).
  io::SegmentMap robot_map = {};
};

/// The entries of a resolved segment map `map` (io::resolveSegmentMap) whose model frame `model`
/// has, as pairs with the entry's offset and weight; the others are listed in `skipped`, and
/// map.unmapped is copied to `unmapped`. May return no pair; does not throw.
SegmentPairs segmentPairsOnModel(const Model& model, const io::SegmentMap& map);

/// The pairs `kinetrack track` tracks: for a pose-target CSV without `map_spec`, one identity
/// pair per clip segment onto the model frame of the same name (pose targets are named after
/// model frames); otherwise segmentPairsOnModel(model, io::resolveSegmentMap(clip segment
/// names, map_spec)), where `map_spec` is "" or "auto", a built-in map name or a JSON file.
/// Throws InvalidArgument when a pose-target segment is not a frame of the model (listing the
/// valid frames), when no mapped segment is a frame of the model, or as io::resolveSegmentMap
/// (ParseError for a bad map file, InvalidArgument for an unknown map or a map naming segments
/// the clip lacks).
SegmentPairs resolveSegmentPairs(const Model& model, const Capture& capture, const std::string& map_spec);

/// The robot map of `robot`. `robot_map_spec`: empty = the built-in map detected from the robot's
/// frame and joint names (io::detectRobotMap: the Unitree G1 23/29 DoF, H1, H1-2, the iCub),
/// else the automatic map (autoRobotMap, robot_map_auto.hpp); "auto" = the automatic map; a path
/// or a name ending in .json = that JSON file; else a built-in robot map name. Throws
/// InvalidArgument for an unknown name (listing the built-in maps) or when the automatic map
/// cannot be built (naming what it could not find), ParseError for a bad file.
io::SegmentMap resolveRobotMap(const Model& robot, const std::string& robot_map_spec);

/// A robot map for review, as `kinetrack retarget` shows it: "robot map 'name':" and one line
/// per entry, "  Canonical -> frame" (its weight when not 1, "rotated" when it has an offset).
std::string robotMapText(const io::SegmentMap& map);

/// The pairs `kinetrack retarget` tracks: the capture's segment map (`segment_map_spec`, as in
/// resolveSegmentPairs) composed with resolveRobotMap(robot, robot_map_spec) (composeMaps:
/// offsets compose, weights multiply). `skipped` lists the clip map's entries the robot map
/// lacks ("segment -> canonical (not in robot map 'name')"), `unmapped` the clip segments the
/// segment map does not name. Throws as the functions it calls.
SegmentPairs resolveRobotPairs(const Model& robot, const Capture& capture, const std::string& segment_map_spec,
                               const std::string& robot_map_spec);

}  // namespace kinetrack::track
