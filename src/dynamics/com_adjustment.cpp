// OpenSim RRA's mass-centre adjustment: least squares of the mean residual moments over a constant
// centre-of-mass offset of one link (kinetrack/dynamics/com_adjustment.hpp).
#include "kinetrack/dynamics/com_adjustment.hpp"

#include <Eigen/QR>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack {

Model withComOffset(const Model& model, LinkId link, const Vector3d& offset) {
  if (!link.valid() || link.value >= model.numLinks())
    throw InvalidArgument("withComOffset: link id " + std::to_string(link.value) + " out of range");
  Inertial in = model.inertial(link);
  in.com += offset;
  return model.withInertial(link, in);
}

namespace {

// Mean over the valid frames of the unactuated entries of RNEA with the loads.
VectorXd meanResidual(const Model& m, std::span<const Configuration> q, const TrajectoryDerivatives& d,
                      std::span<const std::vector<ExternalWrench>> loads, std::span<const int> unactuated,
                      const Vector3d& gravity, int& frames) {
  DynamicsData data(m);
  VectorXd sum = VectorXd::Zero(static_cast<Eigen::Index>(unactuated.size()));
  frames = 0;
  for (std::size_t k = 0; k < q.size(); ++k) {
    if (!d.valid[k]) continue;
    const VectorXd& tau = rnea(m, data, q[k], d.velocity[k], d.acceleration[k], loads[k], gravity);
    for (std::size_t i = 0; i < unactuated.size(); ++i) sum[static_cast<Eigen::Index>(i)] += tau[unactuated[i]];
    ++frames;
  }
  return frames > 0 ? VectorXd(sum / frames) : sum;
}

}  // namespace

ComAdjustment estimateComAdjustment(const Model& model, LinkId link, std::span<const Configuration> q,
                                    const TrajectoryDerivatives& d, std::span<const std::vector<ExternalWrench>> loads,
                                    std::span<const int> unactuated, std::span<const int> moment_rows,
                                    const Vector3d& gravity, const Vector3d& up) {
  const std::size_t n = q.size();
  if (d.velocity.size() != n || d.acceleration.size() != n || d.valid.size() != n || loads.size() != n)
    throw InvalidArgument("estimateComAdjustment: " + std::to_string(n) +
                          " configurations, but derivatives or loads of another length");
  if (!link.valid() || link.value >= model.numLinks())
    throw InvalidArgument("estimateComAdjustment: link id " + std::to_string(link.value) + " out of range");
  if (!(model.inertial(link).mass > 0.0))
    throw InvalidArgument("estimateComAdjustment: link '" + model.linkName(link) + "' has no mass to move");
  if (moment_rows.size() < 2) throw InvalidArgument("estimateComAdjustment: needs at least two residual moment rows");
  for (const int r : moment_rows)
    if (r < 0 || r >= static_cast<int>(unactuated.size()))
      throw InvalidArgument("estimateComAdjustment: moment row " + std::to_string(r) + " outside the unactuated " +
                            std::to_string(unactuated.size()));
  ComAdjustment out;
  out.mean_before = meanResidual(model, q, d, loads, unactuated, gravity, out.frames);
  if (out.frames == 0) throw InvalidArgument("estimateComAdjustment: no valid frame");
  // The link axis most nearly vertical (at the first valid frame) is kept.
  Data kin(model);
  for (std::size_t k = 0; k < n; ++k)
    if (d.valid[k]) {
      forwardKinematics(model, kin, q[k]);
      break;
    }
  const Matrix3d& R = kin.link[static_cast<std::size_t>(link.value)].R;
  (R.transpose() * up.normalized()).cwiseAbs().maxCoeff(&out.axis_kept);
  // The mean residual is nearly affine in δ (the first moment enters linearly, the rotational
  // inertia about the joint origins quadratically): Gauss–Newton from δ = 0, the Jacobian along
  // each adjusted axis by central differences of 1 cm (exact for a quadratic), three iterations.
  constexpr double h = 0.01;
  const auto rows = static_cast<Eigen::Index>(moment_rows.size());
  Eigen::MatrixXd A(rows, 2);
  Eigen::VectorXd b(rows);
  int axes[2], na = 0;
  for (int a = 0; a < 3; ++a)
    if (a != out.axis_kept) axes[na++] = a;
  VectorXd mean = out.mean_before;
  for (int iteration = 0; iteration < 3; ++iteration) {
    for (int j = 0; j < 2; ++j) {
      int frames = 0;
      const Vector3d e = h * Vector3d::Unit(axes[j]);
      const VectorXd plus =
          meanResidual(withComOffset(model, link, out.offset + e), q, d, loads, unactuated, gravity, frames);
      const VectorXd minus =
          meanResidual(withComOffset(model, link, out.offset - e), q, d, loads, unactuated, gravity, frames);
      for (Eigen::Index r = 0; r < rows; ++r) {
        const int k = moment_rows[static_cast<std::size_t>(r)];
        A(r, j) = (plus[k] - minus[k]) / (2.0 * h);
      }
    }
    for (Eigen::Index r = 0; r < rows; ++r) b[r] = -mean[moment_rows[static_cast<std::size_t>(r)]];
    const Eigen::Vector2d x = A.colPivHouseholderQr().solve(b);
    out.offset[axes[0]] += x[0];
    out.offset[axes[1]] += x[1];
    int frames = 0;
    mean = meanResidual(withComOffset(model, link, out.offset), q, d, loads, unactuated, gravity, frames);
  }
  out.mean_after = mean;
  return out;
}

}  // namespace kinetrack
