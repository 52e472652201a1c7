#pragma once
// Ground reactions from a C3D file's force platforms (FORCE_PLATFORM types 1–4), as OpenSim's
// C3DFileAdapter gives them: per plate and analog sample, the force, a point and a moment in the
// lab frame (the markers' axes), SI units. At the plate origin (the centre of its surface, with
// the moment about it) or at the centre of pressure (on the surface, with the free moment about
// the normal). The plate axes come from its corners: x from corner 2 to corner 1, y from corner 4
// to corner 1 (made orthogonal), z = x × y; the force is the one the plate measures (what the
// subject applies to it, as OpenSim writes it). docs/c3d.md shows the agreement with OpenSim.
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::io {

enum class ForceLocation { Origin, CentreOfPressure };
/// "origin" or "cop" (also "centre_of_pressure", "center_of_pressure"); throws InvalidArgument.
ForceLocation parseForceLocation(const std::string& name);
const char* toString(ForceLocation location);

struct GroundReactionOptions {
  ForceLocation location = ForceLocation::Origin;
  /// Samples whose vertical force (along the plate normal) is below this (N) get a zero force and
  /// moment, their point at the plate centre. 0: none (OpenSim's C3DFileAdapter has none).
  double threshold = 0.0;
  /// Subtract each channel's mean over FORCE_PLATFORM:ZERO's frames when the file gives a valid
  /// range (both ends ≥ 1).
  bool zero = true;
};

/// One plate's wrenches over the analog samples (lab frame, N, m, N·m).
struct PlateReactions {
  int type = 0;
  Vector3d centre = Vector3d::Zero();    ///< centre of the surface (mean of the corners)
  Matrix3d axes = Matrix3d::Identity();  ///< plate x, y, z axes as lab-frame columns
  std::vector<Vector3d> force, point, moment;
  int loaded_samples = 0;      ///< samples with a vertical force at or above the threshold (> 0 N without one)
  double peak_vertical = 0.0;  ///< largest |force · normal| (N)
};

struct GroundReactions {
  std::string source;
  double rate = 0.0;  ///< Hz (the analog rate)
  int samples = 0;    ///< sample s at time s / rate
  ForceLocation location = ForceLocation::Origin;
  std::vector<PlateReactions> plates;
  std::vector<std::string> warnings;  ///< zeroing applied, plates far from the markers, …
};

/// The ground reactions of every plate of `file`. Throws ParseError(source, 0, …) naming the
/// plate (1-based) and the item for: a type other than 1–4, a channel missing from the analog
/// data (0 or beyond ANALOG:USED), fewer channels than the type needs, corners that are not
/// finite or do not span a plate (coincident or collinear), a type-4 plate without a 6×6
/// CAL_MATRIX, a moment channel whose ANALOG:UNITS is not a moment unit, a NaN or infinite sample
/// in a plate channel (naming the channel and time). A file without plates gives none.
GroundReactions groundReactions(const C3dFile& file, const GroundReactionOptions& options = {});

/// The reactions rotated by `rotation` (lab → output axes: every force, point, moment and the
/// plate frames).
GroundReactions rotated(GroundReactions reactions, const Matrix3d& rotation);

/// OpenSim's GRF table: per plate p (from 1) `p_ground_force_vx/vy/vz` (N), `p_ground_force_px/
/// py/pz` (m), `p_ground_torque_x/y/z` (N·m), at the analog rate.
MotTable groundReactionTable(const GroundReactions& reactions);

/// One ExternalForce of an ExternalLoads file written for a GRF table.
struct ExternalForceAssignment {
  int plate = 1;     ///< 1-based
  std::string body;  ///< applied_to_body, e.g. calcn_r
  std::string name;  ///< "" → "plate<p>"
};
/// The ExternalLoads XML (OpenSim 4 format) applying each assigned plate's columns of
/// groundReactionTable to its body, force and point expressed in ground; `datafile` as given.
std::string externalLoadsXml(const std::vector<ExternalForceAssignment>& forces, const std::string& datafile);

}  // namespace kinetrack::io
