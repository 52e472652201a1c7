#include "kinetrack/track/frame_solver.hpp"

#include <algorithm>
#include <vector>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::track {
namespace {

struct Slot {
  TargetId orientation, position;  // invalid when the binding lacks that kind
};

// The part both adapters share: the wrapped solver, one slot of target ids per binding.
template <class Ik>
class SlotSolver : public FrameSolver {
 public:
  explicit SlotSolver(Ik ik) : ik_(std::move(ik)) {}
  const Model& model() const override { return ik_.model(); }
  void setTarget(int slot, const Matrix3d* R, const Vector3d* p) override {
    const Slot& s = slots_.at(static_cast<std::size_t>(slot));
    if (R != nullptr && s.orientation.valid()) ik_.setTargetOrientation(s.orientation, *R);
    if (p != nullptr && s.position.valid()) ik_.setTargetPosition(s.position, *p);
  }
  void setState(const Configuration& q) override { ik_.setState(q); }
  const Configuration& state() const override { return ik_.state(); }
  const Data& data() const override { return ik_.data(); }

 protected:
  int addSlot(const Slot& s) {
    slots_.push_back(s);
    return static_cast<int>(slots_.size()) - 1;
  }
  Ik ik_;

 private:
  std::vector<Slot> slots_;
};

class WholeBodySolver final : public SlotSolver<InstantaneousIk> {
 public:
  explicit WholeBodySolver(InstantaneousIk ik) : SlotSolver(std::move(ik)) {}
  std::string name() const override {
    return ik_.options().backend == InstantaneousIkBackend::Ipopt ? "wholebody-ipopt" : "wholebody";
  }
  int addTarget(const std::string& frame, bool orientation, bool position, double weight) override {
    Slot s;
    // A pose target keeps one frame for both kinds (one residual block).
    if (orientation && position) s.orientation = s.position = ik_.addPoseTarget(frame, weight, weight);
    else if (orientation) s.orientation = ik_.addOrientationTarget(frame, weight);
    else if (position) s.position = ik_.addPositionTarget(frame, weight);
    else throw InvalidArgument("FrameSolver: target on '" + frame + "' has neither orientation nor position");
    return addSlot(s);
  }
  FrameSolveResult solve(int min_iterations) override {
    SolveResult r;
    if (min_iterations > ik_.options().max_iterations) {
      const InstantaneousIkOptions saved = ik_.options();
      InstantaneousIkOptions o = saved;
      o.max_iterations = min_iterations;
      ik_.setOptions(o);
      r = ik_.solve();
      ik_.setOptions(saved);
    } else {
      r = ik_.solve();
    }
    return {r.status, r.iterations, r.mnte, r.limit_violation, r.row_violation};
  }
  const InstantaneousIk* instantaneous() const override { return &ik_; }
};

class PairwiseSolver final : public SlotSolver<PairwiseIk> {
 public:
  explicit PairwiseSolver(PairwiseIk ik) : SlotSolver(std::move(ik)) {}
  std::string name() const override { return "pairwise"; }
  int addTarget(const std::string& frame, bool orientation, bool position, double weight) override {
    if (!orientation && !position)
      throw InvalidArgument("FrameSolver: target on '" + frame + "' has neither orientation nor position");
    Slot s;
    if (orientation) s.orientation = ik_.addOrientationTarget(frame, weight);
    if (position) {
      try {
        s.position = ik_.addPositionTarget(frame, weight);
      } catch (const InvalidArgument& e) {
        throw InvalidArgument(std::string("pair-wise solver: ") + e.what() +
                              "; track position targets on other segments with DYN or the whole-body solver");
      }
    }
    return addSlot(s);
  }
  FrameSolveResult solve(int min_iterations) override {
    // A solve continues from the subsystems' previous solutions, so repeating it on the same
    // targets continues the iterations (no re-partition, unlike changing the options).
    PairwiseSolveResult r = ik_.solve();
    int done = r.max_iterations;
    while (r.status == SolveStatus::IterationLimit && done < min_iterations) {
      r = ik_.solve();
      done += r.max_iterations;
    }
    return {r.status, done, r.mnte, r.limit_violation, std::max(r.row_violation, r.unenforced_row_violation)};
  }
  const PairwiseIk* pairwise() const override { return &ik_; }
};

}  // namespace

std::unique_ptr<FrameSolver> makeFrameSolver(InstantaneousIk solver) {
  return std::make_unique<WholeBodySolver>(std::move(solver));
}
std::unique_ptr<FrameSolver> makeFrameSolver(PairwiseIk solver) {
  return std::make_unique<PairwiseSolver>(std::move(solver));
}

}  // namespace kinetrack::track
