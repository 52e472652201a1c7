#include "kinetrack/track/frame_solver.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik_ipopt/instantaneous_ik_ipopt.hpp"

namespace kinetrack::track {

const char* toString(Method m) {
  switch (m) {
    case Method::Dynamical: return "dynamical";
    case Method::WholeBody: return "wholebody";
    case Method::WholeBodyIpopt: return "wholebody-ipopt";
    case Method::Pairwise: return "pairwise";
  }
  return "?";
}

const std::vector<Method>& allMethods() {
  static const std::vector<Method> all = {Method::Dynamical, Method::WholeBody, Method::WholeBodyIpopt,
                                          Method::Pairwise};
  return all;
}

Method parseMethod(std::string_view name) {
  for (Method m : allMethods())
    if (name == toString(m)) return m;
  throw InvalidArgument("unknown tracking method '" + std::string(name) +
                        "': expected dynamical, wholebody, wholebody-ipopt or pairwise");
}

void TrackerOptions::validate() const {
  if (!(kappa > 0.0 && kappa < 2.0))
    throw InvalidArgument("TrackerOptions::kappa must be in (0, 2), got " + std::to_string(kappa));
  if (!(max_step_rotation > 0.0)) throw InvalidArgument("TrackerOptions::max_step_rotation must be > 0");
  if (max_substeps < 1) throw InvalidArgument("TrackerOptions::max_substeps must be ≥ 1");
  if (first_frame_iterations < 1) throw InvalidArgument("TrackerOptions::first_frame_iterations must be ≥ 1");
  if (!(first_frame_interval > 0.0) || !std::isfinite(first_frame_interval))
    throw InvalidArgument("TrackerOptions::first_frame_interval must be finite and > 0");
}

void FrameTargets::resize(std::size_t slots) {
  R.resize(slots, Matrix3d::Identity());
  p.resize(slots, Vector3d::Zero());
  R_prev.resize(slots, Matrix3d::Identity());
  p_prev.resize(slots, Vector3d::Zero());
  rotation.resize(slots, Vector3d::Zero());
  translation.resize(slots, Vector3d::Zero());
  active.resize(slots, 1);
}

namespace {

struct Slot {
  TargetId orientation, position;  // invalid when the slot lacks that kind
  FrameId frame;
  bool enabled = true;  // FrameTargets::active of the last frame
};

bool slotActive(const FrameTargets& in, std::size_t b) { return in.active.empty() || in.active[b] != 0; }

// What every adapter shares: the wrapped solver and one slot of task ids per target.
template <class Ik>
class SlotSolver : public FrameSolver {
 public:
  explicit SlotSolver(Ik ik) : ik_(std::move(ik)) {}
  const Model& model() const override { return ik_.model(); }
  int numSlots() const override { return static_cast<int>(slots_.size()); }
  void setState(const Configuration& q) override { ik_.setState(q); }
  const Configuration& state() const override { return ik_.state(); }
  const Data& data() const override { return ik_.data(); }

 protected:
  int addSlot(const std::string& frame, bool orientation, bool position, Slot s) {
    if (!orientation && !position)
      throw InvalidArgument("FrameSolver: target on '" + frame + "' has neither orientation nor position");
    s.frame = ik_.tasks().frame(s.orientation.valid() ? s.orientation : s.position);  // resolved by the tasks
    slots_.push_back(s);
    return static_cast<int>(slots_.size()) - 1;
  }
  // Enables the slots active this frame and disables the others (only on a change: enabling
  // bumps the task set's structure revision).
  void syncActive(const FrameTargets& in) {
    for (std::size_t b = 0; b < slots_.size(); ++b) {
      const bool on = slotActive(in, b);
      if (on == slots_[b].enabled) continue;
      if (slots_[b].orientation.valid()) ik_.tasks().setEnabled(slots_[b].orientation, on);
      if (slots_[b].position.valid() && slots_[b].position != slots_[b].orientation)
        ik_.tasks().setEnabled(slots_[b].position, on);
      slots_[b].enabled = on;
    }
  }
  // The frame's target values into the solver's tasks (per-frame optimisers).
  void setTargets(const FrameTargets& in) {
    syncActive(in);
    for (std::size_t b = 0; b < slots_.size(); ++b) {
      if (!slots_[b].enabled) continue;
      if (slots_[b].orientation.valid()) ik_.tasks().setOrientation(slots_[b].orientation, in.R[b]);
      if (slots_[b].position.valid()) ik_.tasks().setPosition(slots_[b].position, in.p[b]);
    }
  }
  Ik ik_;
  std::vector<Slot> slots_;
};

// --- DYN -----------------------------------------------------------------------------------------

constexpr double kInitialStep = 0.01;  // s
constexpr int kInitialPolish = 5;

DynamicalIk perStep(DynamicalIk ik) {
  if (ik.options().gain_mode == GainMode::PerStep) return ik;  // setOptions would rebuild the QP and rows
  DynamicalIkOptions o = ik.options();
  o.gain_mode = GainMode::PerStep;
  ik.setOptions(o);
  return ik;
}

class DynamicalSolver final : public SlotSolver<DynamicalIk> {
 public:
  DynamicalSolver(DynamicalIk ik, const TrackerOptions& o) : SlotSolver(perStep(std::move(ik))), options_(o) {
    o.validate();
    const Model& m = ik_.model();
    for (int j = 0; j < m.numJoints(); ++j) {
      const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
      if (m.jointType(JointId(j)) != JointType::Prismatic && std::isfinite(lo) && std::isfinite(hi) &&
          hi - lo > 2.0 * M_PI + 1e-9)
        wrappable_.push_back(j);
    }
    scratch_ = Configuration(m);
  }
  std::string name() const override { return toString(Method::Dynamical); }
  const DynamicalIk* dynamical() const override { return &ik_; }

  int addTarget(const std::string& frame, bool orientation, bool position, double weight) override {
    const ik::TaskGain g{weight, options_.kappa};
    Slot s;
    // Pose targets weigh the position component only (the orientation keeps weight 1).
    if (orientation && position)
      s.orientation = s.position = ik_.tasks().addPose(frame, g, {1.0, options_.kappa});
    else if (orientation)
      s.orientation = ik_.tasks().addOrientation(frame, g);
    else if (position)
      s.position = ik_.tasks().addPosition(frame, g);
    const int slot = addSlot(frame, orientation, position, s);
    prev_R_.resize(slots_.size());
    prev_p_.resize(slots_.size());
    rotation_.resize(slots_.size());
    translation_.resize(slots_.size());
    return slot;
  }

  void setState(const Configuration& q) override {
    ik_.setState(q);
    static_cast<void>(ik_.mnte());  // refreshes the target frames' placements
  }

  ik::Result solve(const FrameTargets& in) override {
    const std::size_t nb = slots_.size();
    const std::vector<Matrix3d>* prev_R = &in.R_prev;
    const std::vector<Vector3d>* prev_p = &in.p_prev;
    const std::vector<Vector3d>* rot = &in.rotation;
    const std::vector<Vector3d>* dp = &in.translation;
    syncActive(in);
    if (in.first) {
      // Interpolate from where the model is now (mnte() refreshes the target frames' placements).
      static_cast<void>(ik_.mnte());
      const Data& data = ik_.data();
      for (std::size_t b = 0; b < nb; ++b) {
        const Transform& X = data.frame[static_cast<std::size_t>(slots_[b].frame.value)];
        prev_R_[b] = X.R;
        prev_p_[b] = X.p;
        rotation_[b] = slots_[b].orientation.valid() ? so3::log(in.R[b] * prev_R_[b].transpose()) : Vector3d::Zero();
        translation_[b] = slots_[b].position.valid() ? Vector3d(in.p[b] - prev_p_[b]) : Vector3d::Zero();
      }
      prev_R = &prev_R_;
      prev_p = &prev_p_;
      rot = &rotation_;
      dp = &translation_;
    }
    double max_angle = 0.0;
    for (std::size_t b = 0; b < nb; ++b)
      if (slots_[b].enabled) max_angle = std::max(max_angle, (*rot)[b].norm());
    ik::Result out;
    bool failed = false;
    auto absorb = [&](const StepResult& r) {
      out.limit_violation = std::max(out.limit_violation, r.limit_violation);
      out.row_violation = std::max(out.row_violation, r.row_violation);
      out.status = ik::worst(out.status, r.status);
      failed = failed || r.non_finite;
    };
    const double dt = in.dt;
    // Clamped before the conversion: a frame that is not a rotation (refused just below) can give
    // an infinite or huge angle, which does not fit an int (clang's UBSan: float-cast-overflow).
    const double wanted = std::ceil(max_angle / options_.max_step_rotation);
    const int n = wanted >= 1.0 ? static_cast<int>(std::min(wanted, static_cast<double>(options_.max_substeps))) : 1;
    // The first frame is reached from an arbitrary initial state: its steps get at least
    // kInitialStep each (not a motion to follow in real time, so the velocity bounds should not
    // throttle it), and a few more steps on the final targets polish the linearisation error.
    const double h = in.first ? std::max(dt / n, kInitialStep) : dt / n;
    ik::TaskSet& tasks = ik_.tasks();
    // The frame's own targets first: a value the tasks refuse (not a rotation, not finite) throws
    // before any step moves the state. The last sub-step aims at them (no interpolation
    // round-off, no exp); with one sub-step they are already set.
    auto setFrameTargets = [&] {
      for (std::size_t b = 0; b < nb; ++b) {
        if (!slots_[b].enabled) continue;
        if (slots_[b].orientation.valid()) tasks.setOrientation(slots_[b].orientation, in.R[b], (*rot)[b] / dt);
        if (slots_[b].position.valid()) tasks.setPosition(slots_[b].position, in.p[b], (*dp)[b] / dt);
      }
    };
    setFrameTargets();
    for (int i = 1; i <= n; ++i) {
      const double tau = static_cast<double>(i) / n;
      if (i < n) {
        for (std::size_t b = 0; b < nb; ++b) {
          if (!slots_[b].enabled) continue;
          if (slots_[b].orientation.valid())
            tasks.setOrientation(slots_[b].orientation, Matrix3d(so3::exp(tau * (*rot)[b]) * (*prev_R)[b]),
                                 (*rot)[b] / dt);
          if (slots_[b].position.valid())
            tasks.setPosition(slots_[b].position, Vector3d((*prev_p)[b] + tau * (*dp)[b]), (*dp)[b] / dt);
        }
      } else if (n > 1) {
        setFrameTargets();
      }
      absorb(ik_.step(h));
    }
    int steps = n;
    for (int i = 0; in.first && i < kInitialPolish; ++i, ++steps) absorb(ik_.step(h));
    unwind();
    if (failed) out.status = ik::Status::Failed;
    out.iterations = steps;
    out.mnte = ik_.mnte();  // also refreshes the target frames' placements in data
    return out;
  }

 private:
  // A revolute joint whose range spans more than 2π reaches the same pose at q ± 2π: when an
  // angle wanders within π of a limit (Euler-angle chains spin near gimbal lock), move it a turn
  // back so the limit never stops tracking. Continuous joints are left to wind freely.
  void unwind() {
    const Model& m = ik_.model();
    const Configuration& q = ik_.state();
    bool changed = false;
    for (const int j : wrappable_) {
      const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
      const double v = q.joints[j];
      if (v > lo + M_PI && v < hi - M_PI) continue;
      const double w = v - 2.0 * M_PI * std::round(v / (2.0 * M_PI));
      if (w > lo && w < hi && std::abs(w) < std::abs(v)) {
        if (!changed) scratch_ = q;
        scratch_.joints[j] = w;
        changed = true;
      }
    }
    if (changed) ik_.setState(scratch_);
  }

  TrackerOptions options_;
  std::vector<int> wrappable_;  // revolute joints with a range wider than 2π
  Configuration scratch_;
  std::vector<Matrix3d> prev_R_;  // first frame: the model's frames as the interpolation start
  std::vector<Vector3d> prev_p_, rotation_, translation_;
};

// --- per-frame optimisers ------------------------------------------------------------------------

class WholeBodySolver final : public SlotSolver<InstantaneousIk> {
 public:
  explicit WholeBodySolver(InstantaneousIk ik) : SlotSolver(std::move(ik)) {}
  std::string name() const override {
    return toString(ik_.options().backend == InstantaneousIkBackend::Ipopt ? Method::WholeBodyIpopt
                                                                           : Method::WholeBody);
  }
  const InstantaneousIk* instantaneous() const override { return &ik_; }
  int addTarget(const std::string& frame, bool orientation, bool position, double weight) override {
    Slot s;
    const ik::TaskGain w{weight, 0.0};
    // A pose target keeps one frame for both kinds (one residual block).
    if (orientation && position)
      s.orientation = s.position = ik_.tasks().addPose(frame, w, w);
    else if (orientation)
      s.orientation = ik_.tasks().addOrientation(frame, w);
    else if (position)
      s.position = ik_.tasks().addPosition(frame, w);
    return addSlot(frame, orientation, position, s);
  }
  ik::Result solve(const FrameTargets& in) override {
    setTargets(in);
    SolveResult r;
    if (in.min_iterations > ik_.options().max_iterations) {
      const InstantaneousIkOptions saved = ik_.options();
      InstantaneousIkOptions o = saved;
      o.max_iterations = in.min_iterations;
      ik_.setOptions(o);
      r = ik_.solve();
      ik_.setOptions(saved);
    } else {
      r = ik_.solve();
    }
    return r;
  }
};

class PairwiseSolver final : public SlotSolver<PairwiseIk> {
 public:
  explicit PairwiseSolver(PairwiseIk ik) : SlotSolver(std::move(ik)) {}
  std::string name() const override { return toString(Method::Pairwise); }
  const PairwiseIk* pairwise() const override { return &ik_; }
  int addTarget(const std::string& frame, bool orientation, bool position, double weight) override {
    if (!orientation && !position)
      throw InvalidArgument("FrameSolver: target on '" + frame + "' has neither orientation nor position");
    Slot s;
    const ik::TaskGain w{weight, 0.0};
    if (orientation) s.orientation = ik_.tasks().addOrientation(frame, w);
    if (position) {
      try {
        s.position = ik_.tasks().addPosition(frame, w);
      } catch (const InvalidArgument& e) {
        throw InvalidArgument(std::string("pair-wise solver: ") + e.what() +
                              "; track position targets on other segments with DYN or the whole-body solver");
      }
    }
    return addSlot(frame, orientation, position, s);
  }
  ik::Result solve(const FrameTargets& in) override {
    setTargets(in);
    // A solve continues from the subsystems' previous solutions, so repeating it on the same
    // targets continues the iterations (no re-partition, unlike changing the options).
    PairwiseSolveResult r = ik_.solve();
    int done = r.iterations;
    while (r.status == ik::Status::IterationLimit && done < in.min_iterations) {
      r = ik_.solve();
      done += r.iterations;
    }
    ik::Result out = r;
    out.iterations = done;
    out.row_violation = std::max(r.row_violation, r.unenforced_row_violation);
    return out;
  }
};

}  // namespace

std::unique_ptr<FrameSolver> makeFrameSolver(DynamicalIk solver, const TrackerOptions& options) {
  return std::make_unique<DynamicalSolver>(std::move(solver), options);
}
std::unique_ptr<FrameSolver> makeFrameSolver(InstantaneousIk solver) {
  return std::make_unique<WholeBodySolver>(std::move(solver));
}
std::unique_ptr<FrameSolver> makeFrameSolver(PairwiseIk solver) {
  return std::make_unique<PairwiseSolver>(std::move(solver));
}

std::unique_ptr<FrameSolver> makeFrameSolver(Method method, std::shared_ptr<const Model> model,
                                             const TrackerOptions& options) {
  options.validate();
  switch (method) {
    case Method::Dynamical: {
      DynamicalIkOptions o = options.dynamical;
      o.gain_mode = GainMode::PerStep;  // as the adapter runs it: its collision rows are built once
      DynamicalIk ik(std::move(model), o);
      if (options.dynamical.collision.enabled() && !options.collision_proxies.empty())
        ik.setCollisionProxies(options.collision_proxies);
      return makeFrameSolver(std::move(ik), options);
    }
    case Method::WholeBody: {
      InstantaneousIkOptions o = options.wholebody;
      o.backend = InstantaneousIkBackend::Native;
      return makeFrameSolver(InstantaneousIk(std::move(model), o));
    }
    case Method::WholeBodyIpopt: {
      InstantaneousIkOptions o = options.wholebody;
      o.backend = InstantaneousIkBackend::Ipopt;
      return makeFrameSolver(makeInstantaneousIk(std::move(model), o));
    }
    case Method::Pairwise: return makeFrameSolver(PairwiseIk(std::move(model), options.pairwise));
  }
  throw InvalidArgument("makeFrameSolver: unknown method");
}

}  // namespace kinetrack::track
