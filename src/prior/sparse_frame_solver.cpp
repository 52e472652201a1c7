#include "kinetrack/prior/sparse_frame_solver.hpp"

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::prior {

SparseFrameSolver::SparseFrameSolver(std::shared_ptr<const Model> model, std::vector<std::string> frames,
                                     const HumanPrior* prior, bool dynamical)
    : model_(std::move(model)), frames_(std::move(frames)), prior_(prior), data_(*model_) {
  // Only the chosen solver is built.
  if (dynamical)
    dyn_.emplace(model_, frames_, prior_);
  else
    gp_.emplace(model_, frames_, prior_);
  targets_.resize(frames_.size());
  for (const std::string& f : frames_) frame_ids_.push_back(model_->frameId(f));
  refresh();
}

void SparseFrameSolver::refresh() {
  forwardKinematics(*model_, data_, state());
  for (const FrameId f : frame_ids_) updateFramePlacement(*model_, data_, f);
}

int SparseFrameSolver::addTarget(const std::string& frame, bool orientation, bool position, double /*weight*/) {
  if (slots_ >= static_cast<int>(frames_.size()) || frame != frames_[static_cast<std::size_t>(slots_)])
    throw InvalidArgument("sparse tracking: target " + std::to_string(slots_ + 1) + " on '" + frame +
                          "' is not the solver's next target frame" +
                          (slots_ < static_cast<int>(frames_.size())
                               ? " '" + frames_[static_cast<std::size_t>(slots_)] + "'"
                               : std::string(" (it has all its targets)")));
  if (!orientation || !position)
    throw InvalidArgument("sparse tracking: the target on '" + frame + "' must be a pose (orientation and position)");
  return slots_++;
}

void SparseFrameSolver::setState(const Configuration& q) {
  if (dyn_)
    dyn_->setState(q);
  else
    gp_->setState(q);
  refresh();
}

const Configuration& SparseFrameSolver::state() const { return dyn_ ? dyn_->state() : gp_->state(); }

ik::Result SparseFrameSolver::solve(const track::FrameTargets& in) {
  for (std::size_t k = 0; k < targets_.size(); ++k) targets_[k] = {in.R[k], in.p[k]};
  const int repeats = in.first ? kFirstFrameRepeats : 1;
  fallbacks_ = 0;
  for (int rep = 0; rep < repeats; ++rep) {
    last_ = dyn_ ? dyn_->solve(targets_, in.dt) : gp_->solve(targets_, prior_ != nullptr);
    fallbacks_ += last_.fallbacks;
  }
  refresh();
  ik::Result out;
  out.iterations = repeats;
  // A refused target (not finite, not a rotation) leaves the state and reports NaN errors.
  if (!std::isfinite(last_.position_error)) out.status = ik::Status::Failed;
  return out;
}

}  // namespace kinetrack::prior
