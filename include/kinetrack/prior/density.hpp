#pragma once
// The learned joint-angle prior of the GPM seed (Eq. 5, SPEC §6): per joint a kernel density of
// recorded angles, one set per cell of an inc × inc × inc division of a workspace box, and the
// gradient ∇H_i = d/dθ_i (p_max,i / p_i(θ_i)) that the gradient projection follows downhill.
//
// Generic over the joints: a DensityPrior has n joints split into groups; each group's densities
// are selected by the cell of one key point (for the 25-DoF model: the right hand for the right
// arm, the left hand for the left arm, the hands' midpoint for the torso). Cells with fewer than
// min_samples samples are empty: their joints get a zero gradient (the paper's fallback to LN).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/core/types.hpp"

namespace kinetrack::prior {

struct DensityOptions {
  /// Divisions per axis of the workspace box (inc of the paper, ≥ 1): inc³ cells.
  int inc = 1;
  /// Cells with fewer samples than this are empty (zero gradient, LN fallback).
  int min_samples = 10;
  /// Lower bound of the kernel bandwidth (rad); Silverman's rule can give ~0 for a joint that
  /// barely moves.
  double min_bandwidth = 0.5 * M_PI / 180.0;
  /// The density is tabulated every bandwidth/table_resolution (and at most every 1°).
  int table_resolution = 4;
  /// Cap of |d/dθ (p_max/p)| (1/rad) in the tails, where p underflows.
  double max_gradient = 1e4;
};

/// A Gaussian kernel density of one joint angle, tabulated with its gradient. Bandwidth by
/// Silverman's rule of thumb, h = 0.9 · min(σ, IQR/1.34) · n^(−1/5) (σ when the IQR is 0),
/// floored at DensityOptions::min_bandwidth.
class JointDensity {
 public:
  JointDensity() = default;
  /// From `samples` (rad, finite, at least one). Throws InvalidArgument for an empty or
  /// non-finite sample.
  JointDensity(std::span<const double> samples, const DensityOptions& options);

  /// The density p(θ) (1/rad), interpolated from the table; 0 outside it.
  [[nodiscard]] double density(double theta) const;
  /// d/dθ (p_max / p(θ)) (1/rad), capped at ±max_gradient. Outside the table (and where p
  /// underflows) the gradient points back towards the samples. Does not allocate.
  [[nodiscard]] double gradient(double theta) const;

  [[nodiscard]] double bandwidth() const { return bandwidth_; }
  [[nodiscard]] int samples() const { return samples_; }
  [[nodiscard]] double lower() const { return lo_; }
  [[nodiscard]] double upper() const { return lo_ + step_ * static_cast<double>(density_.size() - 1); }

  /// Table access for serialisation (prior files).
  [[nodiscard]] double step() const { return step_; }
  [[nodiscard]] const std::vector<double>& densityTable() const { return density_; }
  [[nodiscard]] const std::vector<double>& gradientTable() const { return gradient_; }
  static JointDensity fromTables(double lo, double step, double bandwidth, int samples, std::vector<double> density,
                                 std::vector<double> gradient, double max_gradient);

 private:
  double lo_ = 0.0, step_ = 1.0, bandwidth_ = 0.0, max_gradient_ = 1e4;
  int samples_ = 0;
  std::vector<double> density_, gradient_;
};

/// An axis-aligned box divided into inc³ cells; points outside fall in the nearest edge cell.
struct WorkspaceGrid {
  Vector3d lower = Vector3d::Zero(), upper = Vector3d::Ones();
  int inc = 1;
  /// Cell index (0 … inc³ − 1) of point p; NaN coordinates give cell 0.
  [[nodiscard]] int cell(const Vector3d& p) const;
};

/// Training data of a DensityPrior: per sample the n joint values and one key point per group.
struct PriorSamples {
  int num_joints = 0;
  std::vector<double> joints;        ///< sample-major, num_joints per sample (rad)
  std::vector<Vector3d> key_points;  ///< sample-major, one per group (m)
  [[nodiscard]] int size() const { return num_joints == 0 ? 0 : static_cast<int>(joints.size()) / num_joints; }
};

/// Densities per (group, cell, joint of the group).
class DensityPrior {
 public:
  DensityPrior() = default;
  /// `groups[g]` lists the joints (indices < samples.num_joints) whose densities are selected
  /// by key point g; every joint in at most one group. The box spans the key points of all
  /// samples (all groups), padded by 1 cm. Samples with a non-finite value are skipped.
  /// Throws InvalidArgument for inconsistent sizes, a bad group, inc < 1 or no usable sample.
  DensityPrior(const PriorSamples& samples, std::vector<std::vector<int>> groups, const DensityOptions& options);

  [[nodiscard]] int numJoints() const { return num_joints_; }
  [[nodiscard]] int numGroups() const { return static_cast<int>(groups_.size()); }
  [[nodiscard]] const std::vector<int>& group(int g) const { return groups_[static_cast<std::size_t>(g)]; }
  [[nodiscard]] const WorkspaceGrid& grid() const { return grid_; }
  [[nodiscard]] const DensityOptions& options() const { return options_; }

  /// The densities of group g in `cell`, one per joint of the group, or nullptr for an empty cell.
  [[nodiscard]] const JointDensity* cellDensities(int g, int cell) const;
  /// Number of non-empty cells of group g.
  [[nodiscard]] int occupiedCells(int g) const;

  /// Writes d/dθ_j (p_max/p_j(θ_j)) for every joint of every group into `gradient` (size
  /// numJoints(); joints in no group and joints of groups whose key point falls in an empty cell
  /// get 0). `key_points` has one entry per group. Returns the number of groups that fell back
  /// (empty cell). Non-finite θ_j gives 0. Does not allocate.
  int gradient(std::span<const double> theta, std::span<const Vector3d> key_points, std::span<double> gradient) const;

  /// Raw access for serialisation: per group, the slot of each cell (−1 empty) and the
  /// densities (slot-major, group size per slot).
  [[nodiscard]] const std::vector<int>& cellSlots(int g) const { return cell_slot_[static_cast<std::size_t>(g)]; }
  [[nodiscard]] const std::vector<JointDensity>& densities(int g) const {
    return densities_[static_cast<std::size_t>(g)];
  }
  static DensityPrior fromParts(int num_joints, std::vector<std::vector<int>> groups, const WorkspaceGrid& grid,
                                const DensityOptions& options, std::vector<std::vector<int>> cell_slots,
                                std::vector<std::vector<JointDensity>> densities);

 private:
  int num_joints_ = 0;
  std::vector<std::vector<int>> groups_;
  WorkspaceGrid grid_;
  DensityOptions options_;
  std::vector<std::vector<int>> cell_slot_;           ///< [group][cell] → slot or −1
  std::vector<std::vector<JointDensity>> densities_;  ///< [group][slot · group size + k]
};

/// Silverman's rule-of-thumb bandwidth of `samples` (rad) before the floor: 0.9 · min(σ, IQR/1.34)
/// · n^(−1/5), σ alone when the IQR is 0. Throws InvalidArgument for fewer than one sample.
double silvermanBandwidth(std::span<const double> samples);

}  // namespace kinetrack::prior
