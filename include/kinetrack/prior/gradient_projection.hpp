#pragma once
// Least-norm IK (Eq. 3) and the gradient projection method with a density prior (Eq. 4–5) on the
// 25-DoF upper-body model (SPEC §6). Per frame, `iterations` times:
//   θ ← θ + J⁺ (x − fk(θ)) − (I − J⁺J) ∇H,   ∇H_i = clamp(k · d/dθ_i (p_max,i / p_i(θ_i)), ±max_prior_step)
// with J⁺ = Jᵀ(JJᵀ + λ²I)⁻¹ (a damped pseudo-inverse, λ small) and the densities of the cell of
// the target hand positions. The gradient is subtracted: H = 1/density is minimised (the paper
// writes +∇H for "the gradient of a function that should be minimised"; see docs/gpm.md).
// Joint limits: a step that would leave [lower, upper] clamps those joints, removes their
// columns and redoes the step with the others. LN is the same with ∇H = 0.
#include <array>

#include "kinetrack/ik/status.hpp"
#include "kinetrack/prior/density.hpp"
#include "kinetrack/prior/upper_body.hpp"

namespace kinetrack::prior {

enum class IkMethod : std::uint8_t { LeastNorm, GradientProjection };
const char* toString(IkMethod m);

struct GpmOptions {
  int iterations = 3;             ///< Eq. 3/4 updates per frame (≥ 1)
  double damping = 1e-3;          ///< λ of J⁺ (m for position rows, rad for orientation rows)
  double gain = 0.02;             ///< k of Eq. 5 (rad per unit of d/dθ (p_max/p))
  double max_prior_step = 0.035;  ///< cap of |∇H_i| per iteration (rad, ≈ 2°)
  double max_step = 0.5;          ///< cap of |Δθ|∞ per iteration (rad); larger steps are scaled down
};

/// What one frame did. The ik::Result fields: gap (a hand target not finite or not a rotation: θ
/// held, the errors NaN); status Converged once the frame's iterations were taken (a fixed count,
/// no tolerance test; Failed if θ is not finite), iterations; mnte over the two hands;
/// limit_violation 0 (θ is clamped into its limits).
struct GpmFrameResult : ik::Result {
  double position_error = 0.0;     ///< max over hands of |p_target − p_hand| after the frame (m)
  double orientation_error = 0.0;  ///< max over hands of the rotation angle between them (rad)
  int fallbacks = 0;               ///< groups whose key point fell in an empty cell (last iteration)
  int limited = 0;                 ///< joints held at a limit (last iteration)
};

/// LN / GP solver for one UpperBodyModel, reused every frame; never allocates after construction.
class GradientProjectionIk {
 public:
  /// `prior` may be null (then only LN is available); it must outlive the solver and have 25
  /// joints in three groups keyed by (right hand, left hand, hands' midpoint) as upperBodyPrior
  /// builds it. Throws InvalidArgument for a prior of another size or bad options.
  GradientProjectionIk(const UpperBodyModel& model, const DensityPrior* prior, const GpmOptions& options = {});

  /// One frame: moves θ (in/out) toward the hand targets (base frame). Throws InvalidArgument
  /// for GradientProjection without a prior. A target that is not finite or whose R is not a
  /// rotation (ik::isRotation) leaves θ unchanged (result errors NaN).
  GpmFrameResult solve(const std::array<Transform, 2>& target, Vector25d& theta, IkMethod method);

  [[nodiscard]] const GpmOptions& options() const { return options_; }
  [[nodiscard]] const UpperBodyData& data() const { return data_; }

 private:
  const UpperBodyModel* model_;
  const DensityPrior* prior_;
  GpmOptions options_;
  UpperBodyData data_;
  Vector25d grad_, step_, free_;
};

/// The key points of the 25-DoF prior for hand positions: right hand, left hand, midpoint.
std::array<Vector3d, 3> upperBodyKeyPoints(const std::array<Transform, 2>& hands);

/// The 25-DoF prior's joint groups: right arm joints (key: right hand), left arm (left hand),
/// torso (midpoint of the hands).
std::vector<std::vector<int>> upperBodyGroups();

}  // namespace kinetrack::prior
