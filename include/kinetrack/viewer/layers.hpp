#pragma once
// What the viewer draws on top of the model, computed here per frame so the page only draws:
// muscle paths (with their wrapping) coloured by activation or force, measured and model markers
// with the error between them, ground reactions as arrows at their centre of pressure, the
// centre of mass and the feet in contact. Each add* fills one layer of a ViewerData built by
// buildViewerData from the same motion.
//
//   auto data = viewer::buildViewerData(model, motion);
//   viewer::addMuscles(data, paths, motion, &activations, "so_activation.sto");
//   viewer::addMarkers(data, model, motion, io::readMarkerTrial("walk.trc", true));
#include <cstdint>
#include <string>
#include <vector>

#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::muscles {
class MusclePaths;
}

namespace kinetrack::viewer {

struct Motion;
struct ViewerData;

/// Muscle paths per frame, in fixed slots: muscle m owns slots [first[m], first[m] + capacity[m])
/// of every frame and draws the first count[frame · muscles + m] of them.
struct MuscleLayer {
  std::vector<std::string> names;
  int slots = 0;
  std::vector<int> first, capacity;
  std::vector<double> points;        ///< (frame · slots + slot) · 3, world
  std::vector<std::uint16_t> count;  ///< frame · muscles + muscle
  std::string value_name;            ///< "activation", "force" or "" (no values)
  std::string value_unit;            ///< "" for activations, "N" for forces
  std::string value_source;
  std::vector<double> values;            ///< frame · muscles + muscle; NaN where the table has none
  double value_scale = 1.0;              ///< colour scale top: 1 for activations, the largest force
  std::vector<std::string> not_muscles;  ///< value columns that name no muscle (reserves, residuals)
  [[nodiscard]] bool empty() const { return names.empty(); }
};

/// A marker trial against the model's markers of the same names.
struct MarkerLayer {
  std::string source;
  std::vector<std::string> names;  ///< the trial's markers
  std::vector<double> measured;    ///< (frame · markers + m) · 3, world; NaN when missing or outside the trial
  std::vector<double> model;       ///< the model's marker of that name; NaN when the model has none
  int matched = 0;                 ///< markers the model has
  double rms_error = 0.0, max_error = 0.0;  ///< m, over frames and matched markers with data
  [[nodiscard]] bool empty() const { return names.empty(); }
};

/// External forces (ground reactions) as arrows: each force at its point (centre of pressure).
struct ForceLayer {
  std::string source;
  std::vector<std::string> names;
  std::vector<int> link;      ///< the body each is applied to (link index), −1 when unknown
  std::vector<double> point;  ///< (frame · forces + k) · 3, world; NaN outside the data's time
  std::vector<double> force;  ///< N, world; NaN outside the data's time
  double max_force = 0.0;     ///< N, largest magnitude
  [[nodiscard]] bool empty() const { return names.empty(); }
};

/// Centre of mass per frame and the feet in contact.
struct BodyLayer {
  std::vector<double> com;            ///< frame · 3, world; empty when the model has no mass
  std::vector<int> feet;              ///< links taken as feet
  std::vector<std::uint8_t> contact;  ///< frame · feet + k
  std::string contact_rule;           ///< how contact was decided (shown in the page)
};

/// Muscle paths of every frame (MusclePaths::drawnPath), coloured by the columns of `values`
/// (a static-optimisation or `kinetrack muscles` .sto: activations in [0, 1], or forces in N
/// when a value exceeds 1) interpolated linearly at the motion's times. `values` may be null.
/// Throws InvalidArgument when the paths' model differs from the one the data was built on.
void addMuscles(ViewerData& data, const muscles::MusclePaths& paths, const Motion& motion,
                const io::MotTable* values = nullptr, const std::string& values_source = "");

/// The trial's markers (already in the model's world: io::readMarkerTrial) at the motion's times
/// (the nearest sample within half a sample period, else missing), and the model's markers —
/// frames of the same names — by forward kinematics.
void addMarkers(ViewerData& data, const Model& model, const Motion& motion, const io::MarkerTrajectories& trial);

/// External loads at the motion's times (linear interpolation; NaN outside their time range),
/// points and forces expressed in ground taken as they are, in a body moved with it.
void addForces(ViewerData& data, const Model& model, const Motion& motion, const io::ExternalLoads& loads);

/// Centre of mass and feet in contact. Feet: the links the forces are applied to, when the data
/// has forces (contact: more than 20 N); else links named like feet (foot, ankle_roll, calcn,
/// toes, sole) with contact when the link is within 2 cm of its lowest height in the motion and
/// slower than 0.3 m/s.
void addBody(ViewerData& data, const Model& model, const Motion& motion);

}  // namespace kinetrack::viewer
