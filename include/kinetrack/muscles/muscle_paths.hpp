#pragma once
// Muscle-tendon paths of an OpenSim model: lengths l(q) and the length Jacobian J = ∂l/∂q
// (n_muscles × nv) at a configuration, with via points (fixed, conditional, moving) and wrapping
// over cylinders, ellipsoids and spheres (docs/muscles.md).
//
// Wrapping, per PathWrap in the muscle's order, on the path as the previous wraps left it:
// the first straight segment whose both ends lie in the PathWrap's range and that the object
// catches is replaced by  P → T1 → (arc on the surface) → T2 → S.
// - The surface curve lies in a plane: the cylinder's cross-section plane (the path unrolled on
//   the cylinder is a straight line, so the 3D length is √(L₂² + Δz²) with L₂ the in-plane
//   length, the tangent points' heights proportional along it); for a sphere and an ellipsoid
//   the plane through P, S and the centre (for a sphere the geodesic; for an ellipsoid an
//   approximation of OpenSim's iterative path, docs/muscles.md says by how much).
// - In the plane the curve is a conic x = L·(cos φ, sin φ); tangent points and the catching test
//   are those of the unit circle in the coordinates L⁻¹x.
// - Caught: the segment P–S crosses the curve; or the object has a quadrant constraint and the
//   segment passes on the forbidden side (the path is then forced around the allowed side).
//   Side: with a quadrant, the one whose arc midpoint has the quadrant's sign; otherwise the
//   shorter one. No wrap when P or S lies inside the curve. Cylinders are treated as infinite.
//
// J by the envelope argument: the wrapped length is stationary in the tangent points, so
// ∂l/∂q = Σ_segments u·(∂B/∂q − ∂A/∂q) with every point (tangent points included) moved with its
// body, plus the moving points' own ∂location/∂q. The planar ellipsoid section is not a geodesic,
// so a muscle with an ellipsoid wrap active gets its row by central differences (h = 1e-7)
// instead. Checked against central differences in the tests. Immutable MusclePaths, per-thread MusclePathData;
// evaluate() does not allocate.
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#include "kinetrack/model/data.hpp"

namespace kinetrack::muscles {

class MusclePaths;

/// Per-thread workspace and results of MusclePaths::evaluate.
struct MusclePathData {
  explicit MusclePathData(const MusclePaths& paths);
  VectorXd length;    ///< (n_muscles), m
  MatrixXd jacobian;  ///< (n_muscles × nv): ∂l/∂q; the moment arms are −jacobian
  /// Per muscle: number of wraps that caught a segment at the last evaluation.
  std::vector<int> wraps_active;

  // scratch
  Data kin;
  std::vector<Matrix6Xd> body_jacobian;  ///< per body used by the paths
  struct Point {
    Vector3d world = Vector3d::Zero();
    int body = 0;               ///< index into MusclePaths' bodies
    int source = 0;             ///< original path point index (0-based)
    double arc_to_next = -1.0;  ///< ≥ 0: the segment to the next point is an arc of that length
    int moving = -1;            ///< path point index when Moving
    int wrap = -1;              ///< with arc_to_next ≥ 0: the wrap object (index into the set's list)
  };
  std::vector<Point> points;                   ///< capacity: the most points of one muscle + 2 × its wraps
  std::vector<std::uint8_t> needs_difference;  ///< per muscle: an ellipsoid wrap is active
  Configuration q_shift;                       ///< scratch of the differences
  VectorXd length_plus;
};

class MusclePaths {
 public:
  /// Checks every body and coordinate name against the model (ParseError naming the muscle set's
  /// file and the element line for an unknown one).
  MusclePaths(std::shared_ptr<const io::OpenSimModel> model, io::OpenSimMuscleSet set);

  [[nodiscard]] const io::OpenSimModel& osim() const { return *model_; }
  [[nodiscard]] const Model& model() const { return *model_->model; }
  [[nodiscard]] const io::OpenSimMuscleSet& set() const { return set_; }
  [[nodiscard]] int numMuscles() const { return static_cast<int>(set_.muscles.size()); }
  [[nodiscard]] int muscleIndex(std::string_view name) const;  ///< −1 when unknown

  /// Lengths and (when `with_jacobian`) J at q into data. Allocation-free.
  void evaluate(const Configuration& q, MusclePathData& data, bool with_jacobian = true) const;
  /// Length of one muscle only (no Jacobian); uses data.kin, which must be at q
  /// (forwardKinematics + frame placements), as after evaluate.
  double muscleLength(int muscle, const Configuration& q, MusclePathData& data) const;

  /// The path of `muscle` as drawn (a viewer's polyline), appended to `out` in world coordinates:
  /// the active path points and, on each wrap the path takes, `arc_samples` points between the
  /// tangent points: the chord's points pushed onto the surface from the wrap's centre (a sphere:
  /// the great circle exactly; a cylinder: radially, the height along the chord; an ellipsoid:
  /// along the ray from its centre). Uses data.kin, which must be at q (as after evaluate or
  /// framesForwardKinematics). Returns the number of points appended.
  int drawnPath(int muscle, const Configuration& q, MusclePathData& data, std::vector<Vector3d>& out,
                int arc_samples = 8) const;
  /// The most points drawnPath can append for `muscle` (every point active, every wrap taken).
  [[nodiscard]] int maxDrawnPoints(int muscle, int arc_samples = 8) const;

  // internal layout, public for MusclePathData
  struct PointRef {
    int body = 0;                  ///< index into bodies
    int joint = -1;                ///< Conditional: the coordinate's joint
    int joints[3] = {-1, -1, -1};  ///< Moving: per axis
  };
  std::vector<FrameId> bodies;              ///< model frames of the bodies used
  std::vector<std::vector<PointRef>> refs;  ///< per muscle, per path point
  std::vector<int> wrap_body;               ///< per wrap object: index into bodies
  int max_points = 0;

 private:
  void buildPath(int muscle, const Configuration& q, MusclePathData& data) const;
  void differenceRows(const Configuration& q, MusclePathData& data) const;
  std::shared_ptr<const io::OpenSimModel> model_;
  io::OpenSimMuscleSet set_;
};

}  // namespace kinetrack::muscles
