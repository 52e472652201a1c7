#pragma once
// The FABRIK hand tracker (hand_tracker.hpp) under the track::FrameSolver interface, so a
// StreamTracker drives it like every other method (`kinetrack hand`, Python, a live feed). The
// solver's model is buildHandModel(geometry): every slot is a position target (a marker) on one
// of its marker frames — hand_top, hand_left, hand_right, "<digit>_tip", "<digit>_middle" — and a
// slot whose position is not finite is a missing marker (held by the tracker, not an error). A
// marker frame without a slot is missing on every frame. Each frame's state is the tracker's hand
// pose (the base) and the digits' plane and flexion angles (the joints).
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/hand/hand_tracker.hpp"
#include "kinetrack/track/frame_solver.hpp"

namespace kinetrack::hand {

class HandFrameSolver final : public track::FrameSolver {
 public:
  explicit HandFrameSolver(HandGeometry geometry, TrackerOptions options = {});

  [[nodiscard]] std::string name() const override { return "fabrik-hand"; }
  [[nodiscard]] const Model& model() const override { return *model_; }
  [[nodiscard]] std::shared_ptr<const Model> sharedModel() const { return model_; }
  /// Throws InvalidArgument for an orientation, a frame that is not a marker frame (listing them)
  /// or a marker frame that already has a slot.
  int addTarget(const std::string& frame, bool orientation, bool position, double weight) override;
  [[nodiscard]] int numSlots() const override { return static_cast<int>(slots_.size()); }
  /// Sets the reported state. FABRIK carries each digit's pose from frame to frame, not from a
  /// model configuration: the next frame starts from the neutral pose (HandTracker::reset).
  void setState(const Configuration& q) override;
  [[nodiscard]] const Configuration& state() const override { return q_; }
  [[nodiscard]] const Data& data() const override { return data_; }
  /// One frame of markers: the tracker's HandFrameResult as an ik::Result (the worst digit's status,
  /// iterations summed, gap when the triad is incomplete), limit_violation the digits' largest.
  ik::Result solve(const track::FrameTargets& targets) override;

  /// The tracker (per-digit poses, joint points) and its last frame's result.
  [[nodiscard]] const HandTracker& tracker() const { return tracker_; }
  [[nodiscard]] const HandFrameResult& last() const { return *last_; }

 private:
  std::shared_ptr<const Model> model_;
  HandTracker tracker_;
  Configuration q_;
  Data data_;
  void refresh();                 ///< kinematics at q_: links and the slots' marker frames
  std::vector<Vector3d*> slots_;  // where each slot's position goes
  std::vector<FrameId> frames_;   // each slot's marker frame
  std::array<Vector3d, 3> triad_;
  std::array<Vector3d, kDigits> tips_, middles_;
  const HandFrameResult* last_ = nullptr;
  HandFrameResult none_;
};

}  // namespace kinetrack::hand
