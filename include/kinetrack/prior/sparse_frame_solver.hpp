#pragma once
// Sparse tracking (a few pose targets, e.g. head and hands, and the human prior for the rest)
// under the track::FrameSolver interface, so a StreamTracker drives it like every other method:
// `kinetrack track --targets`, Python and the server feed it frame by frame. Two solvers:
//  - "sparse-dyn": SparseDynamicalIk, DYN with the prior's posture term (one step of the frame's
//    interval per frame);
//  - "sparse-gp":  SparsePriorIk, the per-frame damped least squares with the prior's gradient.
// The first frame is reached from the state with kFirstFrameRepeats solves of the first frame's
// interval (TrackerOptions::first_frame_interval).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/prior/human_prior.hpp"
#include "kinetrack/prior/prior_posture.hpp"
#include "kinetrack/track/frame_solver.hpp"

namespace kinetrack::prior {

/// Solves of the first frame, reached from an arbitrary state.
inline constexpr int kFirstFrameRepeats = 30;

/// The sparse solvers as a frame solver. Every slot is a pose target (orientation and position),
/// added in the order of `frames`.
class SparseFrameSolver final : public track::FrameSolver {
 public:
  /// `dynamical`: SparseDynamicalIk ("sparse-dyn"), else SparsePriorIk ("sparse-gp"). `prior`
  /// may be null (no posture term); when given it must match the model and outlive the solver.
  /// Throws InvalidArgument as the solvers do.
  SparseFrameSolver(std::shared_ptr<const Model> model, std::vector<std::string> frames, const HumanPrior* prior,
                    bool dynamical);

  [[nodiscard]] std::string name() const override { return dyn_ ? "sparse-dyn" : "sparse-gp"; }
  [[nodiscard]] const Model& model() const override { return *model_; }
  /// Slot k must be frames[k] as a pose target; throws InvalidArgument otherwise.
  int addTarget(const std::string& frame, bool orientation, bool position, double weight) override;
  [[nodiscard]] int numSlots() const override { return slots_; }
  void setState(const Configuration& q) override;
  [[nodiscard]] const Configuration& state() const override;
  [[nodiscard]] const Data& data() const override { return data_; }
  /// One frame (the first: kFirstFrameRepeats solves). Iterations: the solves made.
  ik::Result solve(const track::FrameTargets& targets) override;
  [[nodiscard]] const DynamicalIk* dynamical() const override { return dyn_ ? &dyn_->solver() : nullptr; }

  /// The last solve's result (position and orientation errors after the frame).
  [[nodiscard]] const SparseFrameResult& last() const { return last_; }
  /// Prior groups in an empty cell, summed over every solve of the last frame.
  [[nodiscard]] int fallbacks() const { return fallbacks_; }

 private:
  std::shared_ptr<const Model> model_;
  std::vector<std::string> frames_;
  const HumanPrior* prior_;
  std::optional<SparseDynamicalIk> dyn_;
  std::optional<SparsePriorIk> gp_;
  void refresh();  ///< kinematics at the state: links and the target frames
  std::vector<FrameId> frame_ids_;
  std::vector<Transform> targets_;
  Data data_;
  SparseFrameResult last_;
  int slots_ = 0, fallbacks_ = 0;
};

}  // namespace kinetrack::prior
