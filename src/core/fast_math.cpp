#include "kinetrack/core/fast_math.hpp"

#include <cmath>

namespace kinetrack {

namespace {
// π/2 split into three 33-bit parts so q·P1, q·P2 are exact for |q| < 2²⁰ (fdlibm's pio2_1..3).
constexpr double kTwoOverPi = 6.36619772367581382433e-01;
constexpr double kP1 = 1.57079632673412561417e+00;
constexpr double kP2 = 6.07710050630396597660e-11;
constexpr double kP3 = 2.02226624871116645580e-21;
// fdlibm __kernel_sin / __kernel_cos coefficients.
constexpr double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03, S3 = -1.98412698298579493134e-04,
                 S4 = 2.75573137070700676789e-06, S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
constexpr double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03, C3 = 2.48015872894767294178e-05,
                 C4 = -2.75573143513906633035e-07, C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
constexpr double kShift = 6755399441055744.0;  // 1.5·2⁵²: adding it rounds to an integer
constexpr double kLimit = 1e5;
}  // namespace

// On x86-64 with GCC, an AVX2+FMA clone is selected at load time on CPUs that have them.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define KINETRACK_TARGET_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define KINETRACK_TARGET_CLONES
#endif

KINETRACK_TARGET_CLONES void sincosBatch(const double* x, double* s, double* c, int n) {
  // Branch-free so the loop vectorises: the quadrant selects are products with exact 0/1 and
  // ±1 factors, which round nothing.
  for (int i = 0; i < n; ++i) {
    const double xi = x[i];
    const double q = (xi * kTwoOverPi + kShift) - kShift;  // nearest integer to x·2/π
    const double r = ((xi - q * kP1) - q * kP2) - q * kP3;
    const double z = r * r;
    const double sr = r + r * z * (S1 + z * (S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)))));
    const double cr = 1.0 - 0.5 * z + z * z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    // k = q mod 4 ∈ {0,1,2,3}: (sin, cos) = (sr, cr), (cr, −sr), (−sr, −cr), (−cr, sr).
    const double q4 = ((q * 0.25 - 0.375) + kShift) - kShift;  // floor(q / 4)
    const double k = q - 4.0 * q4;
    const double hi = ((k * 0.5 - 0.375) + kShift) - kShift;  // k ≥ 2
    const double odd = k - 2.0 * hi;                          // k odd
    const double a = odd * cr + (1.0 - odd) * sr;
    const double b = odd * sr + (1.0 - odd) * cr;
    const double cneg = odd + hi - 2.0 * odd * hi;  // k ∈ {1, 2}
    s[i] = a * (1.0 - 2.0 * hi);
    c[i] = b * (1.0 - 2.0 * cneg);
  }
  for (int i = 0; i < n; ++i) {
    if (!(std::abs(x[i]) <= kLimit)) {  // also catches NaN and ±inf
      s[i] = std::sin(x[i]);
      c[i] = std::cos(x[i]);
    }
  }
}

}  // namespace kinetrack
