#pragma once
// Beyond the GPM seed: the learned joint-angle prior over a whole-body model (human66) used in
// the null space of a gradient-projection IK when only a few targets are given (a headset and
// two hand controllers, or pelvis + head + hands + feet). docs/gpm.md, "Sparse-input tracking".
//
// The prior: a DensityPrior over the model's joints in three groups — right arm, left arm, the
// rest (trunk, neck, legs) — whose cells are selected by the hands' positions relative to the
// head, in the head's heading frame (yaw only), so no pelvis is needed to pick a cell.
#include <Eigen/Cholesky>
#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/ik/status.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/prior/density.hpp"

namespace kinetrack::prior {

/// A joint-angle prior learned on one model.
struct HumanPrior {
  std::string model_name;
  std::vector<std::string> joint_names;  ///< the model's joints in order (checked on use)
  std::string head = "Head", right_hand = "RightHand", left_hand = "LeftHand";  ///< key frames
  DensityPrior density;
};

/// The three joint groups of `model` (right arm, left arm, rest): a joint is in an arm when it
/// moves that hand's link but not the parent link of the arm's root frame (`RightShoulder`).
std::vector<std::vector<int>> humanPriorGroups(const Model& model, const std::string& right_hand = "RightHand",
                                               const std::string& left_hand = "LeftHand",
                                               const std::string& right_root = "RightShoulder",
                                               const std::string& left_root = "LeftShoulder");

/// Key points of a pose (after forwardKinematics into `data`): right hand, left hand, and their
/// midpoint, each relative to the head in the head's heading frame (m).
std::array<Vector3d, 3> humanKeyPoints(const Model& model, const Data& data, FrameId head, FrameId right_hand,
                                       FrameId left_hand);

/// The prior from motions of `model` (configurations, e.g. full tracking of clips). Throws
/// InvalidArgument for a model without the key frames or no finite configuration.
HumanPrior buildHumanPrior(const Model& model, const std::vector<std::vector<Configuration>>& motions,
                           const DensityOptions& options);

/// Throws InvalidArgument unless `prior` was learned on a model with `model`'s joints (names and
/// order), naming the model and the first difference.
void checkPriorMatchesModel(const HumanPrior& prior, const Model& model, const std::string& source = "prior");

/// Binary prior files ("KTPRIOR", format version 1, little-endian doubles). readHumanPrior throws
/// ParseError(path, 0, field) for a missing file, another format or version, a truncated file or
/// a non-finite or inconsistent table; writeHumanPrior writes atomically.
void writeHumanPrior(const std::string& path, const HumanPrior& prior);
HumanPrior readHumanPrior(const std::string& path);

struct SparseIkOptions {
  int iterations = 3;              ///< updates per frame
  double damping = 1e-2;           ///< λ of J⁺ = Jᵀ(JJᵀ + λ²I)⁻¹
  double gain = 0.02;              ///< k of the prior gradient (as GpmOptions::gain)
  double max_prior_step = 0.0087;  ///< cap of |∇H_i| per update (rad, 0.5°; docs/gpm.md sweep)
  double max_step = 0.5;           ///< cap of |ν|∞ per update
};

/// One frame of SparsePriorIk or SparseDynamicalIk. The ik::Result fields: gap (a target not
/// finite or not a rotation: the state held, the errors NaN); status Converged once the frame's
/// updates were taken (SparsePriorIk: a fixed count, no tolerance test; Failed if the state is not
/// finite), iterations the updates; mnte over the pose targets, limit_violation after the frame.
/// SparseDynamicalIk: its DYN step's (ik::Result of DynamicalIk::step).
struct SparseFrameResult : ik::Result {
  double position_error = 0.0;     ///< max over targets after the frame (m)
  double orientation_error = 0.0;  ///< max over targets (rad)
  int fallbacks = 0;               ///< prior groups in an empty cell (last update)
};

/// Gradient-projection IK on a floating-base model with a few pose targets: per update
/// ν = J⁺e − (I − J⁺J)∇H (∇H over the joints, 0 on the base), q ← q ⊕ ν, joints clamped to
/// their limits (joints without limits wrapped into (−π, π], the same rotation). Without a prior (or use_prior = false)
/// it is damped least-norm IK. Never allocates in solve().
class SparsePriorIk {
 public:
  /// `targets`: model frames that get pose targets. `prior` may be null; when given it must
  /// match the model (checkPriorMatchesModel) and outlive the solver. Throws InvalidArgument.
  SparsePriorIk(std::shared_ptr<const Model> model, const std::vector<std::string>& targets, const HumanPrior* prior,
                const SparseIkOptions& options = {});

  /// Throws InvalidArgument for a wrong size or non-finite configuration.
  void setState(const Configuration& q);
  [[nodiscard]] const Configuration& state() const { return q_; }
  [[nodiscard]] int numTargets() const { return static_cast<int>(frames_.size()); }

  /// One frame toward `targets` (world poses, one per target frame, in constructor order).
  /// A target that is not finite or whose R is not a rotation (ik::isRotation) leaves the state
  /// unchanged (errors NaN).
  SparseFrameResult solve(std::span<const Transform> targets, bool use_prior);

 private:
  std::shared_ptr<const Model> model_;
  const HumanPrior* prior_;
  SparseIkOptions options_;
  std::vector<FrameId> frames_;
  FrameId head_, right_, left_;
  Data data_;
  Configuration q_;
  MatrixXd J_, A_;
  Matrix6Xd Jf_;
  VectorXd e_, y_, g_, nu_, joint_grad_;
  Eigen::LLT<MatrixXd> llt_;
  std::vector<std::uint8_t> continuous_;  ///< joints without limits: kept in (−π, π]
};

/// "head,hands" → Head, RightHand, LeftHand; also pelvis, feet, or any frame names of the model,
/// comma-separated. Throws InvalidArgument for an empty spec or an unknown frame (listing them).
std::vector<std::string> parseTargetSpec(const Model& model, const std::string& spec);

}  // namespace kinetrack::prior
