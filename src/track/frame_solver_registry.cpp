// The open registry of frame solvers, and the adapters that put marker IK and pin-and-drag under
// the FrameSolver interface (the four tracking methods' adapters are in frame_solver.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/limits.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/track/frame_solver.hpp"

namespace kinetrack::track {

namespace {

// --- marker IK -----------------------------------------------------------------------------------

class MarkerIkSolver final : public FrameSolver {
 public:
  explicit MarkerIkSolver(ik::MarkerIk ik) : ik_(std::move(ik)) {}
  std::string name() const override { return "marker-ik"; }
  const Model& model() const override { return ik_.model(); }
  const ik::MarkerIk* markerIk() const override { return &ik_; }
  int numSlots() const override { return static_cast<int>(slots_.size()); }
  void setState(const Configuration& q) override { ik_.setState(q); }
  const Configuration& state() const override { return ik_.state(); }
  const Data& data() const override { return ik_.data(); }

  int addTarget(const std::string& frame, bool orientation, bool position, double weight) override {
    if (orientation)
      throw InvalidArgument("marker IK: the target on '" + frame +
                            "' asks for an orientation; marker IK tracks positions (markers) only");
    if (!position) throw InvalidArgument("FrameSolver: target on '" + frame + "' has neither orientation nor position");
    slots_.push_back(ik_.tasks().addMarker(frame, weight));
    return numSlots() - 1;
  }

  ik::Result solve(const FrameTargets& in) override {
    // Each slot's marker task gets the frame's position (not finite: missing this frame); tasks
    // the caller added to the solver keep the values the caller sets.
    // An inactive slot is a missing marker too.
    for (std::size_t b = 0; b < slots_.size(); ++b)
      ik_.tasks().setMeasurement(slots_[b], in.active.empty() || in.active[b] != 0
                                                ? in.p[b]
                                                : Vector3d::Constant(std::numeric_limits<double>::quiet_NaN()));
    return ik_.solve();
  }

 private:
  ik::MarkerIk ik_;
  std::vector<ik::MarkerTaskId> slots_;
};

// --- pin-and-drag --------------------------------------------------------------------------------

constexpr double kDragTolerance = 1e-6;  // m or rad: the first frame's updates stop below it

class PinDragSolver final : public FrameSolver {
 public:
  explicit PinDragSolver(ik::PinDragIk ik) : ik_(std::move(ik)), data_(ik_.model()) { refresh(); }
  std::string name() const override { return "pin-drag"; }
  const Model& model() const override { return ik_.model(); }
  const ik::PinDragIk* pinDrag() const override { return &ik_; }
  int numSlots() const override { return static_cast<int>(slots_.size()); }
  void setState(const Configuration& q) override {
    ik_.setState(q);
    refresh();
  }
  const Configuration& state() const override { return ik_.state(); }
  const Data& data() const override { return data_; }

  int addTarget(const std::string& frame, bool orientation, bool position, double /*weight*/) override {
    if (!orientation && !position)
      throw InvalidArgument("FrameSolver: target on '" + frame + "' has neither orientation nor position");
    const FrameId f = ik_.model().frameId(frame);  // throws, listing the frames
    if (ik_.role(f) != ik::PinDragRole::Free)
      throw InvalidArgument("pin-and-drag: frame '" + frame + "' is already pinned or dragged");
    ik_.drag(f, orientation && position ? TargetType::Pose
                : orientation           ? TargetType::Orientation
                                        : TargetType::Position);
    slots_.push_back({f, orientation, position});
    return numSlots() - 1;
  }

  ik::Result solve(const FrameTargets& in) override {
    // Every value is checked before the first one is set: a refused frame moves nothing.
    for (std::size_t b = 0; b < slots_.size(); ++b) {
      if (!in.active.empty() && in.active[b] == 0)
        throw InvalidArgument("pin-and-drag: the drag target on '" + std::string(frameName(slots_[b].frame)) +
                              "' is inactive this frame; pin-and-drag drags every target every frame");
      const Slot& s = slots_[b];
      if (s.orientation) ik::checkRotation(in.R[b], "pin-and-drag: drag target", frameName(s.frame));
      if ((s.position && !(in.p[b].allFinite() && in.translation[b].allFinite())) ||
          (s.orientation && !in.rotation[b].allFinite()))
        throw InvalidArgument("pin-and-drag: the drag target on '" + std::string(frameName(s.frame)) +
                              "' is not finite");
    }
    for (std::size_t b = 0; b < slots_.size(); ++b) {
      const Slot& s = slots_[b];
      const double inv = in.first ? 0.0 : 1.0 / in.dt;  // the first frame has no chord to follow
      if (s.position) ik_.setDragTarget(s.frame, in.p[b], in.translation[b] * inv);
      if (s.orientation) ik_.setDragOrientation(s.frame, in.R[b], in.rotation[b] * inv);
    }
    ik::PinDragResult r = ik_.update(in.dt);
    int updates = 1;
    while (in.first && updates < in.min_iterations && r.drag_error > kDragTolerance) {
      r = ik_.update(in.dt);
      ++updates;
    }
    refresh();
    ik::Result out = r;  // status, MNTE, limit and row violations of the last update
    out.iterations = updates;
    return out;
  }

 private:
  struct Slot {
    FrameId frame;
    bool orientation = false, position = false;
  };
  // Kinematics at the state: every link and the target frames (the placements the tracker reads).
  void refresh() {
    forwardKinematics(ik_.model(), data_, ik_.state());
    for (const Slot& s : slots_) updateFramePlacement(ik_.model(), data_, s.frame);
  }
  const std::string& frameName(FrameId f) const { return ik_.model().frameName(f); }
  ik::PinDragIk ik_;
  Data data_;
  std::vector<Slot> slots_;
};

// --- the registry --------------------------------------------------------------------------------

struct Entry {
  FrameSolverInfo info;
  FrameSolverFactory make;
};

struct Registry {
  std::mutex mutex;
  std::vector<Entry> entries;
  Registry() {
    for (Method m : allMethods())
      entries.push_back({{toString(m), methodDescription(m), true, true},
                         [m](std::shared_ptr<const Model> model, const TrackerOptions& o) {
                           return makeFrameSolver(m, std::move(model), o);
                         }});
    entries.push_back({{"marker-ik", "marker IK (OpenSim's IK problem): position targets are markers", false, true},
                       [](std::shared_ptr<const Model> model, const TrackerOptions& o) {
                         return makeFrameSolver(ik::MarkerIk(std::move(model), o.marker_ik));
                       }});
    entries.push_back({{"pin-drag", "pin-and-drag IK (Nakamura): targets are dragged frames", true, true},
                       [](std::shared_ptr<const Model> model, const TrackerOptions& o) {
                         return makeFrameSolver(ik::PinDragIk(std::move(model), o.pin_drag));
                       }});
  }
  static const char* methodDescription(Method m) {
    switch (m) {
      case Method::Dynamical: return "DYN: one velocity QP per step, adaptive sub-steps between frames";
      case Method::WholeBody: return "per-frame whole-body IK (Levenberg-Marquardt)";
      case Method::WholeBodyIpopt: return "per-frame whole-body IK through Ipopt";
      case Method::Pairwise: return "per-frame pair-wise IK (position targets on the root link only)";
    }
    return "";
  }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::unique_ptr<FrameSolver> makeFrameSolver(ik::MarkerIk solver) {
  return std::make_unique<MarkerIkSolver>(std::move(solver));
}

std::unique_ptr<FrameSolver> makeFrameSolver(ik::PinDragIk solver) {
  return std::make_unique<PinDragSolver>(std::move(solver));
}

void registerFrameSolver(FrameSolverInfo info, FrameSolverFactory make) {
  if (info.name.empty()) throw InvalidArgument("registerFrameSolver: empty name");
  if (!make) throw InvalidArgument("registerFrameSolver: '" + info.name + "' has no factory");
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  for (const Entry& e : r.entries)
    if (e.info.name == info.name)
      throw InvalidArgument("registerFrameSolver: a frame solver named '" + info.name + "' is already registered");
  r.entries.push_back({std::move(info), std::move(make)});
}

std::vector<FrameSolverInfo> frameSolvers() {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  std::vector<FrameSolverInfo> out;
  for (const Entry& e : r.entries) out.push_back(e.info);
  return out;
}

std::unique_ptr<FrameSolver> makeFrameSolver(std::string_view name, std::shared_ptr<const Model> model,
                                             const TrackerOptions& options) {
  FrameSolverFactory make;
  {
    Registry& r = registry();
    const std::lock_guard lock(r.mutex);
    std::string names;
    for (const Entry& e : r.entries) {
      if (e.info.name == name) make = e.make;
      names += (names.empty() ? "" : ", ") + e.info.name;
    }
    if (!make) throw InvalidArgument("unknown frame solver '" + std::string(name) + "': registered are " + names);
  }
  if (!model) throw InvalidArgument("makeFrameSolver: null model");
  options.validate();
  return make(std::move(model), options);
}

}  // namespace kinetrack::track
