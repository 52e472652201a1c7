#pragma once
// Batched trigonometry for the kinematics hot path.

namespace kinetrack {

/// s[i] = sin(x[i]), c[i] = cos(x[i]) for i < n. Cody–Waite reduction by π/2 and the fdlibm
/// minimax kernels on [−π/4, π/4], written so the compiler vectorises the loop; absolute error
/// ≤ 2·10⁻¹⁶ for |x| ≤ 10⁵ (tested against std::sin/cos). Elements with |x| > 10⁵ or non-finite
/// fall back to std::sin/std::cos (NaN in → NaN out). s and c must not alias x.
void sincosBatch(const double* x, double* s, double* c, int n);

}  // namespace kinetrack
