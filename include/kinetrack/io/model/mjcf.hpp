#pragma once
// MJCF (MuJoCo's XML model format) reading: kinetrack's own reader (tinyxml2), not libmujoco's
// parser (docs/models.md says why). What is read and how it maps onto a Model:
//   - <compiler> angle (MuJoCo's default: degree), eulerseq, autolimits (default true, as MuJoCo
//     ≥ 2.3), meshdir/assetdir, strippath, inertiafromgeom (warned about: geoms give no mass here);
//     <option gravity> sets Model::up (against gravity); <include file> anywhere (relative to the
//     main file's folder); <default> classes (nested), class= and childclass= for joints, geoms,
//     sites, meshes and actuators; <asset><mesh name file scale>; <frame> (pos, orientation,
//     childclass) around bodies, geoms and sites.
//   - <worldbody>: bodies with pos and one of quat (w x y z), axisangle, euler (eulerseq:
//     lowercase axes rotate with the body, uppercase stay fixed), xyaxes, zaxis. A top-level body
//     with a free joint is the floating base (its pos/quat are MuJoCo's qpos0, not part of the
//     model); without one, the base is fixed: the root link is "world" and top-level bodies hang
//     from it. A body without joints is merged into its parent (a Fixed frame, as a URDF fixed
//     joint). Several free bodies: the first is the base, the others are skipped with a warning
//     (so are other top-level bodies beside a floating base, and worldbody geoms).
//   - Joints: hinge → Revolute (Continuous when not limited), slide → Prismatic, ball → three
//     Revolute joints "<joint>_x", "_y", "_z" about the body's x, y, z (each limited to ± the
//     ball's cone bound range[1]), free → the floating base (top-level bodies only, alone in their
//     body). The joint coordinate is MuJoCo's qpos: `ref` is folded into the joint placement. A
//     body's joints form a chain of links in file order: the link after each joint but the last
//     is "<body>/<joint>"; the last link is the body itself, unless its joint's anchor (`pos`)
//     is off the joint axis: then that link is "<body>/<joint>" at the anchor and "<body>" is a
//     Fixed frame on it, exactly where MuJoCo puts the body frame. Unnamed joints are
//     "<body>/joint<k>", unnamed bodies "body<id>" (MuJoCo's body id).
//   - Limits: range (degrees under angle="degree") when limited (limited="true", or "auto" with
//     autolimits and a range given); effort from the joint's actuatorfrcrange when limited, else
//     the largest bound over the actuators on the joint: forcerange when force-limited, else for
//     <motor> and <general> ctrlrange × |gear|; no velocity limits (MJCF has none): infinite.
//   - <inertial> pos, orientation, mass, diaginertia or fullinertia; <site> → User frames
//     (unnamed: "<body>/site<k>"); <geom> → Model::geoms(): sphere, capsule, cylinder, box,
//     ellipsoid, mesh (the asset's file; size = the asset's scale); fromto for capsule,
//     cylinder, box and ellipsoid; collision = contype | conaffinity ≠ 0; visual = group 0–2;
//     unnamed: "<body>/geom<k>". Planes, height fields and SDFs on bodies are skipped (warning).
//   - Everything else (actuator other than limits, sensor, tendon, equality, contact, keyframe,
//     visual, statistic, light, camera …) is ignored and listed once in the warnings.
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/model/model.hpp"

namespace kinetrack::io {

struct MjcfOptions {
  /// The base type; empty: from the file (floating when a top-level body has a free joint).
  /// Fixed with a free joint in the file: that body is the root, fixed at the world origin.
  std::optional<BaseType> base;
};

/// Load an MJCF file. Throws ParseError(file, line, "… field …") for a missing or malformed file:
/// XML syntax, a root that is not <mujoco>, a number that is malformed or not finite, a wrong
/// count of numbers, an unknown joint or geom type, an unknown default class, a free joint below
/// the top level or beside other joints, a duplicate body/joint/geom/site/mesh name, a geom naming
/// a missing mesh asset, a limited joint whose range is empty, a range without `limited` when
/// autolimits is off, a broken or recursive <include>. Warnings (ignored elements, skipped
/// bodies and geoms, mesh files not found, missing inertials) go to `warnings`.
Model loadMjcf(const std::string& path, const MjcfOptions& options = {}, std::vector<std::string>* warnings = nullptr);

/// Same as loadMjcf for MJCF text in memory; `source_name` is used in error messages and its
/// folder resolves <include> and mesh files.
Model parseMjcf(const std::string& xml, const std::string& source_name, const MjcfOptions& options = {},
                std::vector<std::string>* warnings = nullptr);

/// True when the text's first element is <mujoco> (an MJCF document), skipping an XML
/// declaration, comments and whitespace; reads no further.
bool looksLikeMjcf(const std::string& text);

}  // namespace kinetrack::io
