#include "kinetrack/model/joint_function.hpp"

#include <algorithm>
#include <cmath>

#include "kinetrack/core/errors.hpp"

namespace kinetrack {

namespace {

void checkKnots(const std::vector<double>& x, const std::vector<double>& y, const char* what) {
  if (x.size() != y.size())
    throw InvalidArgument(std::string(what) + ": " + std::to_string(x.size()) + " knots but " +
                          std::to_string(y.size()) + " values");
  if (x.size() < 2)
    throw InvalidArgument(std::string(what) + ": needs at least 2 knots, got " + std::to_string(x.size()));
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i]))
      throw InvalidArgument(std::string(what) + ": knot " + std::to_string(i) + " is not finite");
    if (i > 0 && !(x[i] > x[i - 1]))
      throw InvalidArgument(std::string(what) + ": knots must increase strictly (knot " + std::to_string(i) + " is " +
                            std::to_string(x[i]) + " after " + std::to_string(x[i - 1]) + ")");
  }
}

// Cubic spline through (x_i, y_i) in the moment form: σ_i = S''(x_i) / 6 solves
//   h_{i−1} σ_{i−1} + 2 (h_{i−1} + h_i) σ_i + h_i σ_{i+1} = δ_i − δ_{i−1}   (interior knots)
// with h_i = x_{i+1} − x_i and δ_i = (y_{i+1} − y_i) / h_i, closed by two end rows. `fmm` selects
// Forsythe–Malcolm–Moler's end rows (S''' at each end equal to that of the cubic through the four
// end knots; with three knots, equal S'' at both ends), else the natural ones (σ = 0 at the ends).
// Writes the piecewise coefficients S = y_i + b_i h + c_i h² + d_i h³ (b and c at the last knot
// too, for extrapolation and the end derivatives).
void splineCoefficients(const std::vector<double>& x, const std::vector<double>& y, bool fmm, std::vector<double>& b,
                        std::vector<double>& c, std::vector<double>& d) {
  const std::size_t n = x.size();
  b.assign(n, 0.0);
  c.assign(n, 0.0);
  d.assign(n, 0.0);
  if (n == 2) {
    b[0] = b[1] = (y[1] - y[0]) / (x[1] - x[0]);
    return;
  }
  std::vector<double> h(n - 1), delta(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    h[i] = x[i + 1] - x[i];
    delta[i] = (y[i + 1] - y[i]) / h[i];
  }
  // Tridiagonal rows: sub[i] σ_{i−1} + diag[i] σ_i + sup[i] σ_{i+1} = rhs[i].
  std::vector<double> sub(n, 0.0), diag(n, 0.0), sup(n, 0.0), rhs(n, 0.0), sigma(n, 0.0);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    sub[i] = h[i - 1];
    diag[i] = 2.0 * (h[i - 1] + h[i]);
    sup[i] = h[i];
    rhs[i] = delta[i] - delta[i - 1];
  }
  if (fmm) {
    // S''' on the first piece is 6 (σ_1 − σ_0) / h_0; the cubic through x_0..x_3 has S''' = 6 Δ³
    // (its third divided difference): −h_0 σ_0 + h_0 σ_1 = h_0² Δ³_0, and at the other end
    // h σ_{n−2} − h σ_{n−1} = −h² Δ³_end with h = h_{n−2}.
    double third_first = 0.0, third_last = 0.0;
    if (n > 3) {
      third_first = ((delta[2] - delta[1]) / (x[3] - x[1]) - (delta[1] - delta[0]) / (x[2] - x[0])) / (x[3] - x[0]);
      third_last = ((delta[n - 2] - delta[n - 3]) / (x[n - 1] - x[n - 3]) -
                    (delta[n - 3] - delta[n - 4]) / (x[n - 2] - x[n - 4])) /
                   (x[n - 1] - x[n - 4]);
    }
    diag[0] = -h[0];
    sup[0] = h[0];
    rhs[0] = h[0] * h[0] * third_first;
    sub[n - 1] = h[n - 2];
    diag[n - 1] = -h[n - 2];
    rhs[n - 1] = -h[n - 2] * h[n - 2] * third_last;
  } else {
    diag[0] = diag[n - 1] = 1.0;  // σ = 0 at both ends
  }
  // Thomas algorithm (no pivoting, as the reference algorithm).
  for (std::size_t i = 1; i < n; ++i) {
    const double m = sub[i] / diag[i - 1];
    diag[i] -= m * sup[i - 1];
    rhs[i] -= m * rhs[i - 1];
  }
  sigma[n - 1] = rhs[n - 1] / diag[n - 1];
  for (std::size_t k = n - 1; k-- > 0;) sigma[k] = (rhs[k] - sup[k] * sigma[k + 1]) / diag[k];
  for (std::size_t i = 0; i + 1 < n; ++i) {
    b[i] = delta[i] - h[i] * (sigma[i + 1] + 2.0 * sigma[i]);
    c[i] = 3.0 * sigma[i];
    d[i] = (sigma[i + 1] - sigma[i]) / h[i];
  }
  b[n - 1] = delta[n - 2] + h[n - 2] * (sigma[n - 2] + 2.0 * sigma[n - 1]);
  c[n - 1] = 3.0 * sigma[n - 1];
  d[n - 1] = d[n - 2];
}

}  // namespace

ScalarFunction ScalarFunction::constant(double value) {
  if (!std::isfinite(value)) throw InvalidArgument("Constant function: value is not finite");
  ScalarFunction f;
  f.kind_ = Kind::Constant;
  f.coef_ = {value};
  return f;
}

ScalarFunction ScalarFunction::linear(double slope, double intercept) {
  if (!std::isfinite(slope) || !std::isfinite(intercept))
    throw InvalidArgument("LinearFunction: a coefficient is not finite");
  ScalarFunction f;
  f.kind_ = Kind::Linear;
  f.coef_ = {slope, intercept};
  return f;
}

ScalarFunction ScalarFunction::polynomial(std::vector<double> coefficients_highest_first) {
  if (coefficients_highest_first.empty()) throw InvalidArgument("PolynomialFunction: no coefficients");
  for (double v : coefficients_highest_first)
    if (!std::isfinite(v)) throw InvalidArgument("PolynomialFunction: a coefficient is not finite");
  ScalarFunction f;
  f.kind_ = Kind::Polynomial;
  f.coef_ = std::move(coefficients_highest_first);
  return f;
}

ScalarFunction ScalarFunction::spline(Kind kind, std::vector<double> x, std::vector<double> y) {
  const bool fmm = kind == Kind::SimmSpline;
  checkKnots(x, y, fmm ? "SimmSpline" : "NaturalCubicSpline");
  ScalarFunction f;
  f.kind_ = kind;
  splineCoefficients(x, y, fmm, f.b_, f.c_, f.d_);
  f.x_ = std::move(x);
  f.y_ = std::move(y);
  return f;
}

ScalarFunction ScalarFunction::simmSpline(std::vector<double> x, std::vector<double> y) {
  return spline(Kind::SimmSpline, std::move(x), std::move(y));
}

ScalarFunction ScalarFunction::naturalCubicSpline(std::vector<double> x, std::vector<double> y) {
  return spline(Kind::NaturalCubicSpline, std::move(x), std::move(y));
}

ScalarFunction ScalarFunction::scaled(double k) const {
  if (!std::isfinite(k)) throw InvalidArgument("MultiplierFunction: scale is not finite");
  ScalarFunction f = *this;
  f.scale_ *= k;
  return f;
}

bool ScalarFunction::isConstant() const { return kind_ == Kind::Constant || scale_ == 0.0; }

bool ScalarFunction::isIdentity() const {
  return kind_ == Kind::Linear && scale_ == 1.0 && coef_[0] == 1.0 && coef_[1] == 0.0;
}

double ScalarFunction::slope() const {
  if (kind_ == Kind::Linear) return scale_ * coef_[0];
  if (kind_ == Kind::Constant) return 0.0;
  throw InvalidArgument("ScalarFunction::slope: " + describe() + " is not affine");
}

double ScalarFunction::intercept() const {
  if (kind_ == Kind::Linear) return scale_ * coef_[1];
  if (kind_ == Kind::Constant) return scale_ * coef_[0];
  throw InvalidArgument("ScalarFunction::intercept: " + describe() + " is not affine");
}

void ScalarFunction::evaluateUnscaled(double x, double& f, double& df, double& ddf) const {
  switch (kind_) {
    case Kind::Constant:
      f = coef_[0];
      df = ddf = 0.0;
      return;
    case Kind::Linear:
      f = coef_[0] * x + coef_[1];
      df = coef_[0];
      ddf = 0.0;
      return;
    case Kind::Polynomial: {
      // Horner for p, p′ and p″ together.
      f = df = ddf = 0.0;
      for (double a : coef_) {
        ddf = ddf * x + 2.0 * df;
        df = df * x + f;
        f = f * x + a;
      }
      return;
    }
    case Kind::SimmSpline:
    case Kind::NaturalCubicSpline: {
      const std::size_t n = x_.size();
      if (x <= x_[0]) {  // linear extrapolation with the end slope (the end knot itself included)
        f = y_[0] + (x - x_[0]) * b_[0];
        df = b_[0];
        ddf = x < x_[0] ? 0.0 : 2.0 * c_[0];
        return;
      }
      if (x >= x_[n - 1]) {
        f = y_[n - 1] + (x - x_[n - 1]) * b_[n - 1];
        df = b_[n - 1];
        ddf = x > x_[n - 1] ? 0.0 : 2.0 * c_[n - 1];
        return;
      }
      // Piece k with x_k ≤ x < x_{k+1}.
      const auto it = std::upper_bound(x_.begin(), x_.end(), x);
      const std::size_t k = static_cast<std::size_t>(it - x_.begin()) - 1;
      const double h = x - x_[k];
      f = y_[k] + h * (b_[k] + h * (c_[k] + h * d_[k]));
      df = b_[k] + h * (2.0 * c_[k] + 3.0 * h * d_[k]);
      ddf = 2.0 * c_[k] + 6.0 * h * d_[k];
      return;
    }
  }
  f = df = ddf = 0.0;
}

void ScalarFunction::evaluate(double x, double& f, double& df, double& ddf) const {
  evaluateUnscaled(x, f, df, ddf);
  f *= scale_;
  df *= scale_;
  ddf *= scale_;
}

double ScalarFunction::value(double x) const {
  double f, df, ddf;
  evaluate(x, f, df, ddf);
  return f;
}

std::string ScalarFunction::describe() const {
  std::string s;
  switch (kind_) {
    case Kind::Constant: s = "Constant " + std::to_string(coef_[0]); break;
    case Kind::Linear: s = "LinearFunction " + std::to_string(coef_[0]) + "·x + " + std::to_string(coef_[1]); break;
    case Kind::Polynomial: s = "PolynomialFunction of degree " + std::to_string(coef_.size() - 1); break;
    case Kind::SimmSpline: s = "SimmSpline with " + std::to_string(x_.size()) + " knots"; break;
    case Kind::NaturalCubicSpline: s = "NaturalCubicSpline with " + std::to_string(x_.size()) + " knots"; break;
  }
  if (scale_ != 1.0) s += " × " + std::to_string(scale_);
  return s;
}

}  // namespace kinetrack
