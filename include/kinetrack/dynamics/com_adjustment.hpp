#pragma once
// OpenSim RRA's mass-centre adjustment (adjust_com_to_reduce_residuals; docs/dynamics_filter.md,
// "Measured loads"): a constant offset of one body's centre of mass that removes the mean of the
// residual moments a motion has under its measured loads — a model error (the torso's mass centre
// estimated from markers) that would otherwise be absorbed by the kinematics, the whole body's
// momentum being fixed by the loads.
#include <span>
#include <vector>

#include "kinetrack/dynamics/rigid_body.hpp"
#include "kinetrack/dynamics/trajectory.hpp"

namespace kinetrack {

struct ComAdjustment {
  Vector3d offset = Vector3d::Zero();  ///< m, in the link's frame (zero along the axis kept)
  int axis_kept = 1;                   ///< the link axis most nearly along `up` (not adjusted)
  VectorXd mean_before, mean_after;    ///< mean residual per unactuated entry (N or N m)
  int frames = 0;                      ///< valid frames averaged
};

/// The offset δ of `link`'s centre of mass, along the two link axes most nearly horizontal (at
/// the first valid frame: a vertical shift changes no gravity moment), that minimises in least
/// squares the mean over the valid frames of the residual moments — the entries `moment_rows` of
/// the unactuated generalised forces (RNEA of q, ν, ν̇ with `loads[k]`, any links): three
/// Gauss–Newton steps from δ = 0 (the residual is affine in δ but for the rotational inertia about
/// the joints, quadratic in δ and small). Throws InvalidArgument for sizes that disagree, an invalid link, a link
/// without mass, fewer than two moment rows or no valid frame.
ComAdjustment estimateComAdjustment(const Model& model, LinkId link, std::span<const Configuration> q,
                                    const TrajectoryDerivatives& derivatives,
                                    std::span<const std::vector<ExternalWrench>> loads, std::span<const int> unactuated,
                                    std::span<const int> moment_rows, const Vector3d& gravity,
                                    const Vector3d& up = Vector3d::UnitZ());

/// The model with `link`'s centre of mass moved by `offset` (m, link frame), mass and inertia
/// about the centre of mass kept (what RRA writes to its adjusted model).
Model withComOffset(const Model& model, LinkId link, const Vector3d& offset);

}  // namespace kinetrack
