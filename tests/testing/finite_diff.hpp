#pragma once
// Central finite differences of frame poses on the configuration manifold R³ × SO(3) × Rⁿ, as an
// independent check of the analytic frame Jacobians (mixed representation, SPEC §0).
//
// Perturbations (ε > 0, k-th velocity coordinate):
//   base linear  k ∈ [0, 3):  p_B ← p_B ± ε e_k
//   base angular k ∈ [3, 6):  R_B ← exp(±ε e_k) · R_B          (world-frame ω_B)
//   joint j:                 s_j ← s_j ± ε
// and for every frame pose (R, p) at q⁺ and q⁻ the column is
//   linear  (p⁺ − p⁻) / (2ε)
//   angular vee(R⁺ R⁻ᵀ) / (2ε)   (= log(R⁺ R⁻ᵀ)/(2ε) up to O(ε²); world frame)
// The perturbations are applied here directly, not through kinetrack::integrate, so the helper
// does not depend on the code it checks beyond forward kinematics.
#include <vector>

#include "kinetrack/core/types.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::testing {

/// q perturbed by `delta` along velocity coordinate k (0 ≤ k < model.nv()), as described above.
Configuration perturbAlong(const Model& model, const Configuration& q, int k, double delta);

/// Central finite-difference (6 × nv) Jacobians of the given frames at q, written into
/// `jacobians` (resized to frames.size(), each 6 × nv). Cost: 2·nv forward-kinematics passes.
void finiteDifferenceFrameJacobians(const Model& model, const Configuration& q, const std::vector<FrameId>& frames,
                                    std::vector<Matrix6Xd>& jacobians, double eps = 1e-6);

/// Same for one frame.
Matrix6Xd finiteDifferenceFrameJacobian(const Model& model, const Configuration& q, FrameId frame, double eps = 1e-6);

/// Every frame id of the model, in order.
std::vector<FrameId> allFrames(const Model& model);

}  // namespace kinetrack::testing
