#include "kinetrack/biomech/posture_mapping.hpp"

#include <Eigen/SVD>
#include <cmath>
#include <string>
#include <utility>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::biomech {

PolynomialFeatures::PolynomialFeatures(int inputs, int degree) : inputs_(inputs), degree_(degree) {
  if (inputs < 1) throw InvalidArgument("PolynomialFeatures: inputs must be ≥ 1, got " + std::to_string(inputs));
  if (degree < 0) throw InvalidArgument("PolynomialFeatures: degree must be ≥ 0, got " + std::to_string(degree));
  // C(n + d, d) terms, checked before building.
  double count = 1.0;
  for (int i = 1; i <= degree; ++i) count = count * (inputs + i) / i;
  if (count > 1e6)
    throw InvalidArgument("PolynomialFeatures: " + std::to_string(inputs) + " inputs at degree " +
                          std::to_string(degree) + " give more than 10^6 terms");
  parent_.push_back(-1);
  variable_.push_back(-1);
  // Terms of the previous degree as [begin, end) with the last variable of each: a term of the
  // next degree multiplies one of them by a variable ≥ its last one (each monomial once).
  std::vector<int> last{0};
  int begin = 0, end = 1;
  for (int d = 1; d <= degree; ++d) {
    std::vector<int> next_last;
    for (int t = begin; t < end; ++t)
      for (int v = last[static_cast<std::size_t>(t - begin)]; v < inputs; ++v) {
        parent_.push_back(t);
        variable_.push_back(v);
        next_last.push_back(v);
      }
    begin = end;
    end = static_cast<int>(parent_.size());
    last = std::move(next_last);
  }
}

void PolynomialFeatures::evaluate(const Eigen::Ref<const VectorXd>& x, Eigen::Ref<VectorXd> out) const {
  if (x.size() != inputs_ || out.size() != size())
    throw InvalidArgument("PolynomialFeatures::evaluate: expected " + std::to_string(inputs_) + " inputs and " +
                          std::to_string(size()) + " outputs, got " + std::to_string(x.size()) + " and " +
                          std::to_string(out.size()));
  out[0] = 1.0;
  for (int k = 1; k < size(); ++k)
    out[k] = out[parent_[static_cast<std::size_t>(k)]] * x[variable_[static_cast<std::size_t>(k)]];
}

VectorXd PolynomialFeatures::operator()(const VectorXd& x) const {
  VectorXd f(size());
  evaluate(x, f);
  return f;
}

MatrixXd PolynomialFeatures::matrix(const MatrixXd& samples) const {
  if (samples.rows() != inputs_)
    throw InvalidArgument("PolynomialFeatures::matrix: samples have " + std::to_string(samples.rows()) +
                          " rows, expected " + std::to_string(inputs_));
  MatrixXd f(size(), samples.cols());
  for (Eigen::Index j = 0; j < samples.cols(); ++j) evaluate(samples.col(j), f.col(j));
  return f;
}

std::vector<int> PolynomialFeatures::term(int k) const {
  if (k < 0 || k >= size())
    throw InvalidArgument("PolynomialFeatures::term: " + std::to_string(k) + " is not in [0, " +
                          std::to_string(size()) + ")");
  std::vector<int> vars;
  for (int t = k; t > 0; t = parent_[static_cast<std::size_t>(t)])
    vars.insert(vars.begin(), variable_[static_cast<std::size_t>(t)]);
  return vars;
}

std::string PolynomialFeatures::termName(int k, const std::vector<std::string>& names) const {
  if (!names.empty() && static_cast<int>(names.size()) != inputs_)
    throw InvalidArgument("PolynomialFeatures::termName: " + std::to_string(names.size()) + " names for " +
                          std::to_string(inputs_) + " inputs");
  const std::vector<int> vars = term(k);
  if (vars.empty()) return "1";
  std::string s;
  for (int v : vars) {
    if (!s.empty()) s += '*';
    s += names.empty() ? "x" + std::to_string(v) : names[static_cast<std::size_t>(v)];
  }
  return s;
}

PolynomialMap::PolynomialMap(PolynomialFeatures features, MatrixXd matrix)
    : features_(std::move(features)), m_(std::move(matrix)) {
  if (m_.cols() != features_.size())
    throw InvalidArgument("PolynomialMap: matrix has " + std::to_string(m_.cols()) + " columns for " +
                          std::to_string(features_.size()) + " features");
}

void PolynomialMap::apply(const Eigen::Ref<const VectorXd>& x, Eigen::Ref<VectorXd> y, VectorXd& feature_buffer) const {
  if (y.size() != outputs())
    throw InvalidArgument("PolynomialMap::apply: output has " + std::to_string(y.size()) + " entries, expected " +
                          std::to_string(outputs()));
  if (feature_buffer.size() != features_.size()) feature_buffer.resize(features_.size());
  features_.evaluate(x, feature_buffer);
  y.noalias() = m_ * feature_buffer;
}

VectorXd PolynomialMap::operator()(const VectorXd& x) const {
  VectorXd y(outputs()), f;
  apply(x, y, f);
  return y;
}

MatrixXd PolynomialMap::applyAll(const MatrixXd& samples) const { return m_ * features_.matrix(samples); }

namespace {

void requireFinite(const MatrixXd& a, const char* what) {
  for (Eigen::Index j = 0; j < a.cols(); ++j)
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      if (!std::isfinite(a(i, j)))
        throw InvalidArgument(std::string("PolynomialMapFit: ") + what + " sample " + std::to_string(j) + ", row " +
                              std::to_string(i) + " is not finite");
}

}  // namespace

PolynomialMapFit::PolynomialMapFit(const MatrixXd& x, const MatrixXd& y, int degree, double relative_tolerance)
    : features_(static_cast<int>(std::max<Eigen::Index>(x.rows(), 1)), degree) {
  if (x.cols() != y.cols())
    throw InvalidArgument("PolynomialMapFit: " + std::to_string(x.cols()) + " input samples but " +
                          std::to_string(y.cols()) + " output samples");
  if (x.cols() == 0 || x.rows() == 0 || y.rows() == 0)
    throw InvalidArgument("PolynomialMapFit: no samples (or no inputs or outputs)");
  requireFinite(x, "input");
  requireFinite(y, "output");
  const MatrixXd f = features_.matrix(x);
  const Eigen::BDCSVD<MatrixXd> svd(f, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const VectorXd& s = svd.singularValues();
  int r = 0;
  while (r < s.size() && s[r] > relative_tolerance * s[0]) ++r;
  if (r == 0) throw InvalidArgument("PolynomialMapFit: the sample feature matrix has rank 0");
  s_ = s.head(r);
  u_ = svd.matrixU().leftCols(r);
  yv_ = y * svd.matrixV().leftCols(r);
}

PolynomialMap PolynomialMapFit::map(int k) const {
  if (k < 1 || k > rank())
    throw InvalidArgument("PolynomialMapFit::map: " + std::to_string(k) + " singular values, expected 1 … " +
                          std::to_string(rank()));
  MatrixXd m = yv_.leftCols(k) * s_.head(k).cwiseInverse().asDiagonal() * u_.leftCols(k).transpose();
  return {features_, std::move(m)};
}

MatrixXd PolynomialMapFit::rmsErrorByRank(const MatrixXd& x, const MatrixXd& y) const {
  if (x.rows() != features_.inputs() || y.rows() != yv_.rows() || x.cols() != y.cols() || x.cols() == 0)
    throw InvalidArgument("PolynomialMapFit::rmsErrorByRank: expected " + std::to_string(features_.inputs()) +
                          " × N inputs and " + std::to_string(yv_.rows()) + " × N outputs, N ≥ 1");
  // M_k f = Σ_{i ≤ k} (Y V)_i (U_iᵀ f) / s_i: add one rank-one term per k.
  const MatrixXd c = (s_.cwiseInverse().asDiagonal() * u_.transpose()) * features_.matrix(x);  // r × N
  MatrixXd residual = -y;
  const auto m = y.rows();
  const double n = static_cast<double>(x.cols());
  MatrixXd out(m + 1, rank());
  for (int k = 0; k < rank(); ++k) {
    residual.noalias() += yv_.col(k) * c.row(k);
    const VectorXd sq = residual.rowwise().squaredNorm();
    out.col(k).head(m) = (sq / n).cwiseSqrt();
    out(m, k) = std::sqrt(sq.sum() / (n * static_cast<double>(m)));
  }
  return out;
}

}  // namespace kinetrack::biomech
