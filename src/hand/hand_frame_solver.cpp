#include "kinetrack/hand/hand_frame_solver.hpp"

#include <algorithm>
#include <cmath>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::hand {

HandFrameSolver::HandFrameSolver(HandGeometry geometry, TrackerOptions options)
    : model_(std::make_shared<const Model>(buildHandModel(geometry))),
      tracker_(std::move(geometry), options),
      q_(*model_),
      data_(*model_) {
  const Vector3d missing = Vector3d::Constant(std::nan(""));
  triad_.fill(missing);
  tips_.fill(missing);
  middles_.fill(missing);
  refresh();
  last_ = &none_;
}

void HandFrameSolver::refresh() {
  forwardKinematics(*model_, data_, q_);
  for (const FrameId f : frames_) updateFramePlacement(*model_, data_, f);
}

int HandFrameSolver::addTarget(const std::string& frame, bool orientation, bool position, double /*weight*/) {
  if (orientation)
    throw InvalidArgument("FABRIK hand: the target on '" + frame +
                          "' asks for an orientation; the hand tracks markers");
  if (!position) throw InvalidArgument("FrameSolver: target on '" + frame + "' has neither orientation nor position");
  Vector3d* slot = nullptr;
  static const std::array<const char*, 3> triad = {"hand_top", "hand_left", "hand_right"};
  std::string names;
  for (std::size_t i = 0; i < 3; ++i) {
    if (frame == triad[i]) slot = &triad_[i];
    names += std::string(names.empty() ? "" : ", ") + triad[i];
  }
  for (int d = 0; d < kDigits; ++d) {
    const std::string tip = std::string(digitName(d)) + "_tip", middle = std::string(digitName(d)) + "_middle";
    if (frame == tip) slot = &tips_[static_cast<std::size_t>(d)];
    if (frame == middle) slot = &middles_[static_cast<std::size_t>(d)];
    names += ", " + tip + ", " + middle;
  }
  if (slot == nullptr)
    throw InvalidArgument("FABRIK hand: '" + frame + "' is not a marker frame of the hand model (" + names + ")");
  for (const Vector3d* s : slots_)
    if (s == slot) throw InvalidArgument("FABRIK hand: marker '" + frame + "' has two targets");
  slots_.push_back(slot);
  frames_.push_back(model_->frameId(frame));
  return numSlots() - 1;
}

void HandFrameSolver::setState(const Configuration& q) {
  if (q.joints.size() != model_->numJoints() || !q.joints.allFinite() || !q.base_position.allFinite() ||
      !q.base_rotation.allFinite())
    throw InvalidArgument("FABRIK hand: setState needs " + std::to_string(model_->numJoints()) +
                          " finite joint values and a finite base");
  q_ = q;
  tracker_.reset();
  refresh();
}

ik::Result HandFrameSolver::solve(const track::FrameTargets& in) {
  for (std::size_t b = 0; b < slots_.size(); ++b) *slots_[b] = in.p[b];
  const HandFrameResult& r = tracker_.track(triad_, tips_, middles_);
  last_ = &r;
  q_.base_position = tracker_.handPose().p;
  q_.base_rotation = tracker_.handPose().R;
  for (int d = 0; d < kDigits; ++d) {
    const DigitPose& p = tracker_.digitPose(d);
    q_.joints[4 * d] = p.psi;
    for (int j = 0; j < 3; ++j) q_.joints[4 * d + j + 1] = p.theta[static_cast<std::size_t>(j)];
  }
  refresh();
  // The tracker's own outcome (worst digit, iterations summed, gap when the triad is incomplete)
  // and the digits' largest range and plane violation.
  ik::Result out = r;
  for (const DigitResult& d : r.digits)
    if (!d.gap) out.limit_violation = std::max(out.limit_violation, d.violation);
  return out;
}

}  // namespace kinetrack::hand
