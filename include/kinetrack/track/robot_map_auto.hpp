#pragma once
// The automatic robot map: which frames of a humanoid robot the canonical human segments drive,
// found from the robot's kinematic tree and its zero-pose geometry, for robots without a built-in
// map (maps/robots/*.json). Names only break ties, so a robot whose links and joints are renamed
// gets the renamed counterparts of the same frames. docs/segment_maps.md, "Robot maps".
#include "kinetrack/io/model/segment_map.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::track {

/// Automatic robot map (canonical human segment → robot link), named "auto", from the model's
/// tree and its zero configuration (base at the origin, every joint at 0). H is the robot's
/// extent along Model::up() (link and fixed frames).
///
/// - Legs: the leaf link lowest along up, and the lowest other leaf within H/4 of it whose
///   branch from the first (their deepest common link) is at least H/5 away from both along the
///   tree. Pelvis = that branch link (the base link in every robot shipped).
/// - Forward: where the feet move back when the knees bend towards their farther limit (the
///   joints of both knee clusters, weighted by how lopsided their ranges are), made normal to up;
///   +X when the knees' limits do not tell (the convention x forward, y left, z up). Left =
///   up × forward.
/// - Arms: among the other leaves, the pair whose common link T lies at least H/5 from each along
///   the tree and which end on opposite sides of T (lateral coordinate, beyond H/50), the pair
///   farthest apart laterally. T8 = T, unless T is the Pelvis link.
/// - Head: the end of the highest remaining chain below T that ends above T (optional).
/// - Sides: the larger mean lateral coordinate is left; when equal (1e-6·H), the names decide
///   (left/l_/L… against right/r_/R…); when they do not, InvalidArgument.
/// - Along a limb (from the link after the branch to its end: the first link whose children all
///   end within 0.15·H, e.g. a palm before its fingers, else the leaf), each joint is placed at
///   the point of its axis line nearest the previous joint (a revolute joint is a line: a twist
///   joint along a bone sits where the bone starts); the joints are split into clusters at gaps
///   of at least 0.35 × the limb's largest gap or 0.06·H, whichever is shorter (bones; the end
///   link's farthest fixed frame may add a last bone), a joint within 0.01·H of the next
///   cluster's first joint joining that cluster (a ball joint); the two consecutive bones with
///   the largest shorter one are the upper and lower limb. UpperArm/UpperLeg = the link after the
///   last joint of the cluster before them (shoulder, hip); ForeArm/LowerLeg = the link after the
///   last joint of the cluster between them (elbow, knee) that lies at its first joint (the
///   calibration takes bones from frame origins, so the forearm's origin must be the elbow's
///   centre); Hand/Foot = after the last joint of the cluster after them (wrist, ankle), or after
///   the elbow cluster's last joint when that lies beyond the elbow and no wrist follows; a
///   cluster before the shoulder gives Shoulder, one after the ankle gives Toe.
///
/// The description lists what was found (links, forward, clusters, sides). Throws
/// InvalidArgument naming what could not be found: "auto robot map for 'x': found 1 leg chain
/// (needs 2): …", "found 0 arm chains (needs 2): …", a limb without a second cluster ("has no
/// elbow"), undecidable sides.
io::SegmentMap autoRobotMap(const Model& robot);

}  // namespace kinetrack::track
