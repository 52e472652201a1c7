#pragma once
// BVH writing: the motion of a kinetrack Model as a Biovision hierarchy that Blender's importer
// and io::readBvh read back (docs/formats.md).
//
// Hierarchy: one BVH joint per model link, named as the link, except that a chain of links
// joined with zero-length offsets is collapsed into its last link (human66's three revolute
// joints per spherical joint, through the massless links <Segment>_f1, _f2, become one BVH joint
// <Segment>). Each BVH joint's frame is its link's frame: its world pose in the file equals the
// link's world pose from forward kinematics. Leaves end with an End Site.
//
// Channels: the root has Xposition Yposition Zposition Zrotation Xrotation Yrotation; other
// joints Zrotation Xrotation Yrotation (local rotation R = Rz·Rx·Ry relative to the parent BVH
// joint, degrees), preceded by Xposition Yposition Zposition (OFFSET 0) when a prismatic joint
// makes their offset vary. Axes and units: BVH's Y-up world, (x, y, z)_BVH = (y, z, x)_kinetrack
// (the inverse of readBvh's mapping), centimetres. The rest pose (all channels 0) has every
// link frame parallel to the world: for the built-in human models, the zero configuration.
#include <string>
#include <vector>

#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

/// One joint of the BVH hierarchy of a model.
struct BvhExportJoint {
  LinkId link;      ///< the model link whose frame and name the BVH joint takes
  int parent = -1;  ///< index of the parent BVH joint, −1 for the root
  /// Model joints from the parent BVH joint's link (exclusive) to `link` (inclusive), root side
  /// first; their product of placements and motions is the BVH joint's local transform. Empty
  /// for the root (its pose is the base pose).
  std::vector<JointId> chain;
  bool position_channels = false;          ///< the root, or a chain with a prismatic joint
  Vector3d offset = Vector3d::Zero();      ///< OFFSET (cm, BVH axes); 0 with position channels
  bool end_site = false;                   ///< a leaf: followed by an End Site
  Vector3d end_offset = Vector3d::Zero();  ///< End Site OFFSET (cm, BVH axes) when end_site
};

/// The BVH hierarchy written for `model`, in file order (depth first, children in link order).
/// A non-root link is collapsed into its child when it has exactly one child link and the joint
/// to that child has a zero placement translation. An End Site is placed at the farthest frame
/// attached to the leaf's link (e.g. a hand's centre-of-mass frame), or else half the leaf's own
/// OFFSET further along it. Throws InvalidArgument when a link name that becomes a BVH joint is
/// empty or contains whitespace.
std::vector<BvhExportJoint> bvhSkeleton(const Model& model);

/// The BVH text of `frames` (one configuration of `model` per frame, `frame_time` s apart).
/// Numbers are written in the shortest form that reads back to the same double. Throws
/// InvalidArgument when frames is empty, frame_time is not finite and > 0, or a configuration
/// has the wrong number of joints or a NaN or infinite coordinate.
std::string toBvh(const Model& model, const std::vector<Configuration>& frames, double frame_time);

/// Writes toBvh(model, frames, frame_time) to "<path>.part" and renames it to `path`. Throws as
/// toBvh, and ParseError when the file cannot be written (the temporary file is removed).
void writeBvh(const Model& model, const std::vector<Configuration>& frames, double frame_time, const std::string& path);

}  // namespace kinetrack::io
