#pragma once
// Mapping between a human figure and a musculoskeletal model (Nakamura seed, Eq. 14–15; SPEC §5):
// φ = M f(θ) and θ = N g(φ), with f, g the monomials of a polynomial in the joint angles and the
// matrices M, N fitted to sample posture pairs by a pseudo-inverse from the singular value
// decomposition of the sample feature matrix, truncated to a chosen number of singular values
// (fewer: a smoother map that follows the samples less closely). docs/mapping.md.
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"

namespace kinetrack::biomech {

/// Every monomial of degree ≤ `degree` in `inputs` variables, in graded order: 1, x₀ … x_{n−1},
/// x₀², x₀x₁, …, x_{n−1}², x₀³, … (C(n + d, d) terms). Each term is an earlier term times one
/// variable, so evaluation is one multiplication per term and allocates nothing.
class PolynomialFeatures {
 public:
  /// Throws InvalidArgument for inputs < 1, degree < 0 or more than 10⁶ terms.
  PolynomialFeatures(int inputs, int degree);

  [[nodiscard]] int inputs() const { return inputs_; }
  [[nodiscard]] int degree() const { return degree_; }
  [[nodiscard]] int size() const { return static_cast<int>(parent_.size()); }

  /// f(x) into `out` (size() entries). x must have inputs() entries; no allocation.
  void evaluate(const Eigen::Ref<const VectorXd>& x, Eigen::Ref<VectorXd> out) const;
  [[nodiscard]] VectorXd operator()(const VectorXd& x) const;
  /// One column f(x_j) per column x_j of `samples` (inputs() × N) → size() × N.
  [[nodiscard]] MatrixXd matrix(const MatrixXd& samples) const;

  /// The variable indices whose product is term k (empty for the constant term), ascending.
  [[nodiscard]] std::vector<int> term(int k) const;
  /// "1", "x3", "x0*x0*x2" — or with variable names, "hip_flexion_r*knee_angle_r".
  [[nodiscard]] std::string termName(int k, const std::vector<std::string>& names = {}) const;

 private:
  int inputs_, degree_;
  std::vector<int> parent_;    ///< term k = term parent_[k] · x[variable_[k]] (k ≥ 1)
  std::vector<int> variable_;  ///< −1 for the constant term
};

/// y = M f(x): a fitted polynomial map (Eq. 14 or 15).
class PolynomialMap {
 public:
  /// Throws InvalidArgument when M's column count is not features.size().
  PolynomialMap(PolynomialFeatures features, MatrixXd matrix);

  [[nodiscard]] const PolynomialFeatures& features() const { return features_; }
  [[nodiscard]] const MatrixXd& matrix() const { return m_; }
  [[nodiscard]] int inputs() const { return features_.inputs(); }
  [[nodiscard]] int outputs() const { return static_cast<int>(m_.rows()); }

  /// y = M f(x) with a caller-owned feature buffer (resized once; no allocation after that).
  void apply(const Eigen::Ref<const VectorXd>& x, Eigen::Ref<VectorXd> y, VectorXd& feature_buffer) const;
  [[nodiscard]] VectorXd operator()(const VectorXd& x) const;
  /// One column per sample column (inputs() × N → outputs() × N).
  [[nodiscard]] MatrixXd applyAll(const MatrixXd& samples) const;

 private:
  PolynomialFeatures features_;
  MatrixXd m_;
};

/// The fit of y ≈ M f(x) to sample pairs (columns of X, Y), kept as the SVD of the feature
/// matrix F = [f(x₁) … f(x_N)] = U S Vᵀ, so that M for any number k of singular values,
/// M_k = Y V_k S_k⁻¹ U_kᵀ (the least-squares M of smallest norm when k = rank), costs no new
/// decomposition.
class PolynomialMapFit {
 public:
  /// Throws InvalidArgument for X, Y with different sample counts, no sample, a non-finite
  /// entry (naming sample and row), or a feature matrix of rank 0. Singular values below
  /// `relative_tolerance` × the largest do not count (rank()).
  PolynomialMapFit(const MatrixXd& x, const MatrixXd& y, int degree, double relative_tolerance = 1e-12);

  [[nodiscard]] const PolynomialFeatures& features() const { return features_; }
  [[nodiscard]] int rank() const { return static_cast<int>(s_.size()); }
  /// Singular values of F, descending (rank() of them).
  [[nodiscard]] const VectorXd& singularValues() const { return s_; }

  /// The map truncated to k singular values, 1 ≤ k ≤ rank(); throws InvalidArgument otherwise.
  [[nodiscard]] PolynomialMap map(int k) const;
  /// Predictions for every k at once: column k−1 of the result is the root-mean-square error of
  /// M_k f(x) against y over all samples and outputs (one row per output, in Y's units; the
  /// last row is the RMS over all outputs), for k = 1 … rank(). Cost O(rank · (p + m) · N).
  [[nodiscard]] MatrixXd rmsErrorByRank(const MatrixXd& x, const MatrixXd& y) const;

 private:
  PolynomialFeatures features_;
  MatrixXd u_;   ///< p × r
  VectorXd s_;   ///< r
  MatrixXd yv_;  ///< m × r: Y V
};

}  // namespace kinetrack::biomech
