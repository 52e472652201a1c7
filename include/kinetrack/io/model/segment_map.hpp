#pragma once
// Segment maps: which segment of a capture skeleton (BVH joint, MVNX segment, …) drives which
// model frame. kinetrack's canonical targets are the 23 Xsens / human-gazebo segment names of
// humanSegmentNames() (Pelvis, L5, L3, T12, T8, Neck, Head, Left/Right Shoulder, UpperArm, ForeArm,
// Hand, UpperLeg, LowerLeg, Foot, Toe), which are the link frames of the built-in human models.
//
// A map is a JSON file (maps/*.json are built in; docs/segment_maps.md, "Segment maps"):
//
//   {
//     "name": "cmu_cgspeed",                   required, non-empty string
//     "description": "…",                      optional string (document choices here)
//     "detect": ["Hips", "LHipJoint", …],      optional: joint names whose presence identifies
//                                              the skeleton family (detectSegmentMap)
//     "segments": {"LeftUpLeg": "LeftUpperLeg", …},   required, non-empty: clip segment → model
//                                              frame; no model frame twice
//     "unmapped": ["LHipJoint", …],            optional: clip segments deliberately not mapped
//     "offsets": {"LeftUpLeg": {"rpy_deg": [r, p, y]}, "Head": {"quaternion_wxyz": [w, x, y, z]}},
//                                              optional fixed rotation per mapped segment,
//                                              R_target = R_clip · offset; rpy as in URDF,
//                                              offset = Rz(y)·Ry(p)·Rx(r), degrees; the
//                                              quaternion is normalised (non-zero)
//     "weights": {"Head": 0.5}                  optional per mapped segment, finite and > 0
//   }
//
// Unknown keys are errors. A BVH joint's frame sits at the joint, the proximal end of its bone,
// like the canonical segment frames: a canonical segment is mapped to the bone whose frame is
// its proximal joint (CMU LeftUpLeg = hip joint = LeftUpperLeg).
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"

namespace kinetrack::io {

struct SegmentMapEntry {
  std::string clip_segment;  ///< name of the segment (BVH joint) in the clip
  std::string model_frame;   ///< model frame it drives (a canonical segment name for built-in maps)
  /// Fixed rotation, clip segment frame → target frame: R_target = R_clip · offset.
  Matrix3d offset = Matrix3d::Identity();
  double weight = 1.0;  ///< relative weight of the target (> 0)
};

struct SegmentMap {
  std::string name;
  std::string description;
  std::vector<std::string> detect;       ///< names identifying the skeleton family (may be empty)
  std::vector<SegmentMapEntry> entries;  ///< file order; clip order after resolveSegmentMap
  /// Clip segments not mapped: the file's "unmapped" list after parsing; every clip segment
  /// without an entry after autoSegmentMap / resolveSegmentMap (clip order).
  std::vector<std::string> unmapped;
};

/// Parses a segment map from JSON text; `source` names the text in errors. Throws ParseError
/// (source, line where it can be found, field) for invalid JSON, a missing or wrongly typed
/// field, an unknown key, a duplicate key, a non-string target, a model frame mapped twice, an
/// offset or weight on an unmapped segment, an offset array of the wrong length, a zero
/// quaternion, and a non-finite number.
SegmentMap parseSegmentMap(const std::string& json_text, const std::string& source);

/// Reads a segment map file (ParseError as parseSegmentMap, or when the file cannot be read).
SegmentMap readSegmentMap(const std::string& path);

/// Names of the maps built into the library (maps/*.json of the source tree, embedded at build
/// time; installed to <datadir>/kinetrack/maps), sorted.
std::vector<std::string> builtinSegmentMapNames();

/// A built-in map by name. Throws InvalidArgument for an unknown name, listing the valid ones.
SegmentMap builtinSegmentMap(const std::string& name);

/// Robot maps shipped with kinetrack (maps/robots/*.json, same format): canonical human segment
/// name → robot frame, for retargeting ("g1_23dof", "g1_29dof", "h1", "h1_2", "icub", and
/// "gait2354" for OpenSim's model). builtinRobotMap throws InvalidArgument for an unknown name,
/// listing the built-in ones.
std::vector<std::string> builtinRobotMapNames();
SegmentMap builtinRobotMap(const std::string& name);

/// The built-in robot map whose "detect" names are all among `robot_names` (a robot's frame and
/// joint names: track::resolveRobotMap passes both); when several match, the most specific
/// (longest "detect" list; then the first name in sorted order). std::nullopt when none matches.
std::optional<std::string> detectRobotMap(const std::vector<std::string>& robot_names);

/// The built-in map whose "detect" names are all among `clip_segment_names`; when several
/// match, the most specific (longest "detect" list; then the first name in sorted order).
/// std::nullopt when none matches.
std::optional<std::string> detectSegmentMap(const std::vector<std::string>& clip_segment_names);

/// The map as JSON text in the format parseSegmentMap reads: name, description (when not
/// empty), detect and unmapped (when not empty), segments in entry order, offsets of the entries
/// whose offset is not the identity (as "quaternion_wxyz", 17 significant digits) and weights
/// other than 1; two-space indent, trailing newline. parseSegmentMap gives the map back (offsets
/// to rounding, the rest exactly).
std::string segmentMapJson(const SegmentMap& map);

/// Writes segmentMapJson(map) to `path` atomically (io::writeFileAtomically: ParseError naming
/// the path when it cannot be written).
void writeSegmentMap(const SegmentMap& map, const std::string& path);

/// Automatic map for an unknown skeleton, from the names alone (no geometry). Names are split
/// into lower-case tokens after dropping namespace and rig prefixes ("mixamorig:", "CC_Base_",
/// "Bip01 ", …) at separators (_ . - space) and camelCase / digit boundaries; the side is a
/// Left/Right/L/R prefix or suffix token, or an l/r glued to a body word ("lhand"). Synonyms
/// (a higher rank wins; equal ranks: the first in clip order):
///   Pelvis: Pelvis > Hips > Hip (no side) > *Root;  Head: Head > Face;  Neck: Neck, LowerNeck;
///   Shoulder: Collar, Clavicle; Shoulder when the side has an (upper) arm bone and no collar;
///   UpperArm: Arm, UpperArm, Humerus > Shoulder (when a collar/clavicle or no arm bone exists);
///   ForeArm: ForeArm, LowerArm > Elbow, Radius;  Hand: FingerBase (cgspeed CMU) > Hand > Wrist;
///   UpperLeg: UpLeg, UpperLeg, Thigh, Femur > Hip (with a side);
///   LowerLeg: Leg, LowerLeg, Shin, Calf, Shank, Tibia > Knee;  Foot: Foot > Ankle;
///   Toe: Toe, Toes, ToeBase > Ball.
/// Trunk: names equal to a canonical vertebra (L5, L3, T12, T8) map to themselves; the other
/// spine bones (Spine, Chest, LowerBack, UpperBack, Abdomen, Waist, Torso, Thorax, …), in clip
/// order, go to T8 (1 bone), L3, T8 (2), L5, L3, T8 (3), L5, L3, T12, T8 (4), and for ≥ 5 the
/// first three to L5, L3, T12 and the last to T8. Twist bones are used only when nothing else
/// fits (CC3 NeckTwist01 = Neck); ShareBone, End/Nub/Site, finger, toe-digit, face and
/// accessory bones are never mapped. No model frame is mapped twice; every clip segment
/// without an entry is listed in `unmapped`. Name: "auto".
SegmentMap autoSegmentMap(const std::vector<std::string>& clip_segment_names);

/// The map to use for a clip. `map_spec`: "" or "auto" (the detected built-in map, else
/// autoSegmentMap), a built-in name, or the path of a JSON map file. The result's entries are in
/// clip order and `unmapped` lists the clip segments without an entry. Throws InvalidArgument
/// when an entry names a segment absent from the clip (listing the missing and the available
/// names), when no entry remains, or for a spec that is neither a built-in name nor an existing
/// file (listing the built-in names); ParseError for a bad file.
SegmentMap resolveSegmentMap(const std::vector<std::string>& clip_segment_names, const std::string& map_spec);

}  // namespace kinetrack::io
