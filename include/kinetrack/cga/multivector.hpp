#pragma once
// Multivectors of the conformal geometric algebra G(4,1) (docs/cga.md).
//
// Storage: 32 coefficients over the blades of the orthonormal basis {e1, e2, e3, e+, e-} with
// e1² = e2² = e3² = e+² = 1 and e-² = -1. Blade k is the outer product of the basis vectors whose
// bit is set in k (bit 0 = e1, bit 1 = e2, bit 2 = e3, bit 3 = e+, bit 4 = e-), in increasing bit
// order. The null basis used by the API is
//   e0 = ½(e- - e+)   (origin),   e∞ = e- + e+   (infinity),   so e0² = e∞² = 0, e0·e∞ = -1.
// The pseudoscalar is I = e1 e2 e3 e+ e- = e0 ∧ e1 ∧ e2 ∧ e3 ∧ e∞, I² = -1, and I commutes with
// every multivector. All operations are value-type, fixed-size and never allocate.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

#include "kinetrack/core/types.hpp"

namespace kinetrack::cga {

namespace detail {

/// Sign of the geometric product of basis blades a and b (0 when it vanishes; never here, the
/// basis is non-degenerate): reordering sign times the metric of the shared vectors.
constexpr int bladeProductSign(unsigned a, unsigned b) {
  int swaps = 0;
  for (unsigned t = a >> 1; t != 0; t >>= 1) swaps += std::popcount(t & b);
  int sign = (swaps % 2 == 0) ? 1 : -1;
  if ((a & b & 0x10u) != 0) sign = -sign;  // e-² = -1
  return sign;
}

constexpr std::array<std::array<signed char, 32>, 32> makeSignTable() {
  std::array<std::array<signed char, 32>, 32> t{};
  for (unsigned a = 0; a < 32; ++a)
    for (unsigned b = 0; b < 32; ++b) t[a][b] = static_cast<signed char>(bladeProductSign(a, b));
  return t;
}

inline constexpr auto kSign = makeSignTable();

constexpr std::array<std::array<double, 32>, 32> makeSignTableD() {
  std::array<std::array<double, 32>, 32> t{};
  for (unsigned a = 0; a < 32; ++a)
    for (unsigned b = 0; b < 32; ++b) t[a][b] = bladeProductSign(a, b);
  return t;
}

inline constexpr auto kSignD = makeSignTableD();

}  // namespace detail

/// A general multivector of G(4,1): 32 coefficients, blade index = bitmask (see file comment).
struct Multivector {
  std::array<double, 32> c{};

  [[nodiscard]] double& operator[](int blade) { return c[static_cast<std::size_t>(blade)]; }
  [[nodiscard]] double operator[](int blade) const { return c[static_cast<std::size_t>(blade)]; }

  [[nodiscard]] static Multivector scalar(double s) {
    Multivector m;
    m.c[0] = s;
    return m;
  }
  /// The grade-1 multivector x1 e1 + x2 e2 + x3 e3 + a e0 + b e∞.
  [[nodiscard]] static Multivector vector(const Vector3d& x, double e0_coef, double einf_coef) {
    Multivector m;
    m.c[1] = x.x();
    m.c[2] = x.y();
    m.c[4] = x.z();
    m.c[8] = -0.5 * e0_coef + einf_coef;  // e+
    m.c[16] = 0.5 * e0_coef + einf_coef;  // e-
    return m;
  }

  Multivector& operator+=(const Multivector& o) {
    for (std::size_t i = 0; i < 32; ++i) c[i] += o.c[i];
    return *this;
  }
  Multivector& operator-=(const Multivector& o) {
    for (std::size_t i = 0; i < 32; ++i) c[i] -= o.c[i];
    return *this;
  }
  Multivector& operator*=(double s) {
    for (double& v : c) v *= s;
    return *this;
  }
};

inline constexpr int kE1 = 1, kE2 = 2, kE3 = 4, kEPlus = 8, kEMinus = 16, kPseudoscalar = 31;

/// Grade of basis blade k.
[[nodiscard]] constexpr int bladeGrade(int k) { return std::popcount(static_cast<unsigned>(k)); }

[[nodiscard]] inline Multivector operator+(Multivector a, const Multivector& b) { return a += b; }
[[nodiscard]] inline Multivector operator-(Multivector a, const Multivector& b) { return a -= b; }
[[nodiscard]] inline Multivector operator*(Multivector a, double s) { return a *= s; }
[[nodiscard]] inline Multivector operator*(double s, Multivector a) { return a *= s; }
[[nodiscard]] inline Multivector operator-(Multivector a) { return a *= -1.0; }

/// The origin e0 and the point at infinity e∞.
[[nodiscard]] inline Multivector e0() { return Multivector::vector(Vector3d::Zero(), 1.0, 0.0); }
[[nodiscard]] inline Multivector einf() { return Multivector::vector(Vector3d::Zero(), 0.0, 1.0); }
/// The unit pseudoscalar I = e1 e2 e3 e+ e- = e0 ∧ e1 ∧ e2 ∧ e3 ∧ e∞.
[[nodiscard]] inline Multivector pseudoscalar() {
  Multivector m;
  m.c[kPseudoscalar] = 1.0;
  return m;
}

namespace detail {
// Shared loop of the three products: keep the blade pairs (i, j) that `Keep` accepts. Only the
// non-zero coefficients of both factors are visited (conformal objects are sparse: a point has 5
// of 32, a sphere ∧ sphere circle 10).
template <class Keep>
inline Multivector product(const Multivector& a, const Multivector& b, Keep keep) {
  unsigned nz_b[32];
  unsigned nb = 0;
  for (unsigned j = 0; j < 32; ++j)
    if (b.c[j] != 0.0) nz_b[nb++] = j;
  Multivector r;
  for (unsigned i = 0; i < 32; ++i) {
    const double ai = a.c[i];
    if (ai == 0.0) continue;
    for (unsigned k = 0; k < nb; ++k) {
      const unsigned j = nz_b[k];
      if (!keep(i, j)) continue;
      r.c[i ^ j] += kSignD[i][j] * ai * b.c[j];
    }
  }
  return r;
}
}  // namespace detail

/// Geometric product ab.
[[nodiscard]] inline Multivector operator*(const Multivector& a, const Multivector& b) {
  return detail::product(a, b, [](unsigned, unsigned) { return true; });
}
[[nodiscard]] inline Multivector geometricProduct(const Multivector& a, const Multivector& b) { return a * b; }

/// Outer (wedge) product a ∧ b.
[[nodiscard]] inline Multivector outer(const Multivector& a, const Multivector& b) {
  return detail::product(a, b, [](unsigned i, unsigned j) { return (i & j) == 0; });
}
[[nodiscard]] inline Multivector operator^(const Multivector& a, const Multivector& b) { return outer(a, b); }

/// Left contraction a ⌋ b (grade(b) - grade(a) part of ab for blades; zero if grade(a) > grade(b)).
/// For vectors it is the inner product a · b.
[[nodiscard]] inline Multivector leftContraction(const Multivector& a, const Multivector& b) {
  return detail::product(a, b, [](unsigned i, unsigned j) { return (i & j) == i; });
}

/// Scalar part ⟨ab⟩₀ (for vectors: the inner product a · b).
[[nodiscard]] inline double scalarProduct(const Multivector& a, const Multivector& b) {
  double s = 0.0;
  for (unsigned i = 0; i < 32; ++i) s += detail::kSign[i][i] * a.c[i] * b.c[i];
  return s;
}

/// Grade projection ⟨a⟩_k.
[[nodiscard]] inline Multivector grade(const Multivector& a, int k) {
  Multivector r;
  for (int i = 0; i < 32; ++i)
    if (bladeGrade(i) == k) r[i] = a[i];
  return r;
}

/// Reverse ã: the order of the vectors of every blade reversed, sign (-1)^(k(k-1)/2) on grade k.
[[nodiscard]] inline Multivector reverse(const Multivector& a) {
  Multivector r = a;
  for (int i = 0; i < 32; ++i) {
    const int k = bladeGrade(i);
    if ((k * (k - 1) / 2) % 2 != 0) r[i] = -r[i];
  }
  return r;
}

/// Right multiplication by the pseudoscalar, a I: a signed permutation of the blades (blade i
/// goes to its complement i ^ 31).
[[nodiscard]] inline Multivector timesPseudoscalar(const Multivector& a) {
  Multivector r;
  for (unsigned i = 0; i < 32; ++i) r.c[i ^ 31u] = detail::kSignD[i][31] * a.c[i];
  return r;
}
/// Dual a* = a I⁻¹ = -a I. dual(dual(a)) = -a in G(4,1).
[[nodiscard]] inline Multivector dual(const Multivector& a) { return -timesPseudoscalar(a); }
/// Inverse of dual: undual(a) = a I, undual(dual(a)) = a.
[[nodiscard]] inline Multivector undual(const Multivector& a) { return timesPseudoscalar(a); }

/// Meet of two blades given in outer-product (OPNS) form, through their duals:
/// a ∨ b = undual(dual(a) ∧ dual(b)). Represents the intersection when a and b are in general
/// position (the sign/weight is convention; geometric extraction normalises it away).
[[nodiscard]] inline Multivector meet(const Multivector& a, const Multivector& b) {
  return undual(outer(dual(a), dual(b)));
}

/// Norm sqrt(|⟨a ã⟩₀|) (for blades; zero for null vectors).
[[nodiscard]] inline double norm(const Multivector& a) { return std::sqrt(std::abs(scalarProduct(a, reverse(a)))); }

/// Largest absolute coefficient (a size measure for tolerances and tests).
[[nodiscard]] inline double maxAbs(const Multivector& a) {
  double m = 0.0;
  for (double v : a.c) m = std::max(m, std::abs(v));
  return m;
}

/// Coefficients of a grade-1 multivector on the null basis: v = x + e0_coef e0 + einf_coef e∞.
[[nodiscard]] inline Vector3d euclideanPart(const Multivector& v) { return {v[kE1], v[kE2], v[kE3]}; }
[[nodiscard]] inline double e0Coefficient(const Multivector& v) { return v[kEMinus] - v[kEPlus]; }
[[nodiscard]] inline double einfCoefficient(const Multivector& v) { return 0.5 * (v[kEPlus] + v[kEMinus]); }

}  // namespace kinetrack::cga
