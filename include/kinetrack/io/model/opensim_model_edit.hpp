#pragma once
// An OpenSim 4.0 model document (.osim) edited in place: scaled as OpenSim's Model::scale scales
// it, its markers replaced or moved, its muscles' fibre and tendon lengths rescaled; then written
// back with everything else (comments, components kinetrack does not read) as it was, so that
// OpenSim opens the result. The rules (OpenSim 4.x; docs/scaling.md):
// - Body with factors s (X, Y, Z of its frame): mass_center ∘ s; the scale_factors of its
//   attached geometry ∘ s; its wrap objects' translation ∘ s, a cylinder's radius × the mean of
//   ‖s ∘ x_w‖ and ‖s ∘ y_w‖ and its length × ‖s ∘ z_w‖ (x_w, y_w, z_w the wrap frame's axes in the
//   body), a sphere's radius × the mean of the three, an ellipsoid's semi-axis k × ‖s ∘ axis_k‖;
//   inertia: equal factors scale it by s² (× s³ when masses scale with the volume), unequal ones
//   through OpenSim's equivalent cylinder (axis = smallest moment); mass × s_x s_y s_z unless the
//   mass distribution is preserved; then, for a subject mass > 0, every mass and inertia × (subject
//   mass / total mass).
// - PhysicalOffsetFrame (joint frames and others) fixed to body B: translation ∘ s_B.
// - CustomJoint: each translation TransformAxis whose function is not the identity of its
//   coordinate gets its function multiplied by |axis| · s_parent (wrapped in a MultiplierFunction,
//   or that multiplier's scale updated).
// - Marker on B: location ∘ s_B. PathPoint and ConditionalPathPoint on B: location ∘ s_B;
//   MovingPathPoint: x/y/z_location functions × s_B,x/y/z (MultiplierFunction).
// Muscles' optimal_fiber_length and tendon_slack_length (Muscle::postScale: × path length after /
// before scaling in the default pose) need the paths, so the caller computes the ratios
// (kinetrack::muscles) and applies them with scaleMuscleLengths.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/io/model/opensim_model.hpp"

namespace kinetrack::io {

/// What scaling changed, for reports and tests.
struct OpenSimScaleReport {
  double mass_before = 0.0, mass_after = 0.0;  ///< kg, sum over bodies
  int bodies = 0, offset_frames = 0, translation_functions = 0, markers = 0, path_points = 0, moving_points = 0,
      wrap_objects = 0, geometry = 0;
  std::vector<std::string> notices;  ///< what was left unscaled (named)
};

class OpenSimModelDocument {
 public:
  /// Parses .osim text (format 4.0: OpenSimDocument Version ≥ 40000). Throws ParseError for
  /// malformed XML or no <Model>, InvalidArgument for an older format ("open and save it in
  /// OpenSim 4 first").
  OpenSimModelDocument(const std::string& xml_text, std::string source);
  static OpenSimModelDocument read(const std::string& path);
  ~OpenSimModelDocument();
  OpenSimModelDocument(OpenSimModelDocument&&) noexcept;
  OpenSimModelDocument& operator=(OpenSimModelDocument&&) noexcept;

  [[nodiscard]] const std::string& source() const { return source_; }

  /// Scales the bodies named in `factors` (others keep factor 1) and everything fixed to them, then
  /// the masses to `subject_mass` when > 0 (rules above). Throws InvalidArgument for a body name the
  /// model lacks or a factor that is not positive and finite.
  OpenSimScaleReport scale(const std::vector<std::pair<std::string, Vector3d>>& factors, double subject_mass,
                           bool preserve_mass_distribution);

  /// Sets each marker: an existing marker of that name gets the body, location and fixed flag;
  /// a new one is appended to the MarkerSet (OpenSim's Model::updateMarkerSet). Throws
  /// InvalidArgument for a marker on a body the model lacks.
  void setMarkers(const std::vector<OpenSimMarker>& markers);

  /// Sets each offset frame as OpenSense's IMUPlacer writes an IMU: a PhysicalOffsetFrame in its
  /// body's <components> (the ground's for "ground") with socket_parent "..", translation and
  /// orientation (body-fixed X-Y-Z angles of X_BF.R), frame axes and an orange brick of 4 × 2 × 1 cm
  /// for OpenSim's viewer. A frame of that name already in the body's components gets the new
  /// placement (IMUPlacer updates an existing frame's rotation). Throws InvalidArgument for a body
  /// the model lacks or a placement that is not finite.
  void setOffsetFrames(const std::vector<OpenSimOffsetFrame>& frames);

  /// Multiplies optimal_fiber_length and tendon_slack_length of each named force by its ratio.
  /// Throws InvalidArgument for a name that is not a force of the model with both properties.
  void scaleMuscleLengths(const std::vector<std::pair<std::string, double>>& ratios);

  /// The document as text (UTF-8 XML).
  [[nodiscard]] std::string text() const;
  /// Writes text() to `path` atomically (io::writeFileAtomically).
  void write(const std::string& path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string source_;
};

}  // namespace kinetrack::io
