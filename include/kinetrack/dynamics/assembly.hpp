#pragma once
// Assembly–disassembly forward dynamics (Yamane & Nakamura's parallel O(log N) algorithm, SPEC §5,
// seed `nakamura-dynamics-and-behavior-capture`; the divide-and-conquer articulated-body method
// of Featherstone 1999, parts 1 and 2): the bodies are joined two subassemblies at a time along a
// binary schedule tree (step 1: each subassembly's inverse inertia seen at its open joints, its
// "handles"), then the tree is undone from the root (step 2: the constraint force of every
// joint), after which every body's acceleration (step 3) and every joint's (step 4) follow.
// Subassemblies that do not touch are joined in parallel: on enough processors the time grows
// with the schedule's height, O(log N) for a balanced schedule.
//
// Closed kinematic loops (a figure holding a bar) are joints like the others: a LoopClosure
// between two links, or a link and the world, joins whichever subassemblies it connects; the
// loop's constraint force comes out of step 2. Drift is held by Baumgarte stabilisation.
//
// Same conventions as rigid_body.hpp (world-frame Plücker spatial vectors, ν = (ṗ_B, ω_B, ṡ)):
// on an open tree the result equals aba() to rounding (tests: 1e-9 relative).
//
// Model/Data split: an AssemblyPlan (schedule, immutable, shared between threads) and one
// AssemblyData per calling thread (workspace, and the worker threads when threads > 1). The call
// does not allocate.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/dynamics/rigid_body.hpp"

namespace kinetrack {

/// How the binary schedule tree is built (paper, Fig. 2–3).
enum class AssemblySchedule : std::uint8_t {
  /// Least total work: each body joined to its subtrees one at a time from the leaves, the tree
  /// with the fewest branches (Fig. 2(a)); on a serial chain a single path (no parallelism).
  Serial,
  /// Least height: the tree of joints cut recursively at the joint that best balances the two
  /// halves (Fig. 3(b)); O(log N) height on a chain, more total work.
  Parallel,
};
const char* toString(AssemblySchedule s);
/// "serial" or "parallel"; throws InvalidArgument naming the accepted values.
AssemblySchedule parseAssemblySchedule(std::string_view name);

/// What a loop closure holds: the whole relative pose (a hand gripping a bar), or only the
/// position of a point (a ball joint: rotation about the point stays free).
enum class ClosureType : std::uint8_t { Weld, Point };

/// A closed kinematic loop: frame `frame` of the figure held at pose `offset` relative to frame
/// `other` (or relative to the world when `other` is empty). Baumgarte stabilisation with
/// natural frequency `frequency` (1/s, critically damped: the constraint's relative
/// acceleration is −2ω Δv − ω² Δx) keeps integration drift bounded; 0 turns it off.
struct LoopClosure {
  std::string name;
  FrameId frame;
  std::optional<FrameId> other;
  Transform offset;
  ClosureType type = ClosureType::Weld;
  double frequency = 20.0;

  /// A closure that holds `frame` where it is at q (relative to `other`, or to the world).
  static LoopClosure holding(const Model& model, const Configuration& q, std::string name, FrameId frame,
                             std::optional<FrameId> other = {}, ClosureType type = ClosureType::Weld);
};

struct AssemblyOptions {
  AssemblySchedule schedule = AssemblySchedule::Serial;
  /// Threads of one call, the caller included (≥ 1). Subtrees of the schedule are handed out
  /// to them; the joints above them run on the caller.
  int threads = 1;
  std::vector<LoopClosure> loops;
  /// Steps of iterative refinement after the solve: the residual of the equations of motion at
  /// the result (an O(N) Newton–Euler pass) solved again with the same factorisation (vectors
  /// only, about a third of a call). The inverse-inertia form loses digits where light bodies
  /// hang on heavy ones (a toe on a foot: its acceleration comes from large, nearly balanced
  /// forces); one step brings the result to ABA's accuracy (docs/dynamics.md, "Accuracy").
  int refinement_steps = 0;
};

/// Size and cost of a schedule, counted from the operations each step performs (floating-point
/// multiply and add each count one), so the O(log N) height is shown by counting, not assumed.
struct AssemblyStats {
  int bodies = 0;                    ///< rigid bodies (links with mass; the world or a fixed root as one)
  int joints = 0;                    ///< tree joints between bodies (a chain of massless links is one joint)
  int closures = 0;                  ///< loop closures
  int nodes = 0;                     ///< nodes of the schedule tree (bodies + joining steps)
  int height = 0;                    ///< levels of the schedule tree (a single body: 1)
  int max_handles = 0;               ///< the most ports (bodies with open joints) of a subassembly
  double total_flops = 0.0;          ///< one call, every step: the serial cost
  double critical_path_flops = 0.0;  ///< the longest dependent chain: the time on ∞ processors
  double threaded_flops = 0.0;       ///< the time on `threads` processors with the plan's split
  int tasks = 0;                     ///< subtrees handed to threads (0 when threads = 1)
};

/// A schedule for one model and set of loops. Throws InvalidArgument when the model is not fit
/// for dynamics (checkMassProperties), a massless link has more than one child (a body without
/// inertia cannot be a subassembly: give it mass), a massless floating root, more than 6
/// joints through massless links, an unknown closure frame, or more than 8 joints closing in one
/// step.
class AssemblyPlan {
 public:
  explicit AssemblyPlan(std::shared_ptr<const Model> model, AssemblyOptions options = {});
  AssemblyPlan(const Model& model, AssemblyOptions options = {});

  [[nodiscard]] const Model& model() const { return *model_; }
  [[nodiscard]] const AssemblyOptions& options() const { return options_; }
  [[nodiscard]] const AssemblyStats& stats() const;
  /// The schedule tree as text (one line per node, indented by depth), for docs and debugging.
  [[nodiscard]] std::string describe() const;

  struct Impl;
  [[nodiscard]] const Impl& impl() const { return *impl_; }

 private:
  std::shared_ptr<const Model> model_;
  AssemblyOptions options_;
  std::shared_ptr<const Impl> impl_;
};

/// Per-thread workspace of one plan (and its worker threads when the plan's threads > 1).
class AssemblyData {
 public:
  explicit AssemblyData(const AssemblyPlan& plan);
  ~AssemblyData();
  AssemblyData(AssemblyData&&) noexcept;
  AssemblyData& operator=(AssemblyData&&) noexcept;

  VectorXd ddq;  ///< ν̇ (nv), as aba()
  /// Per joint of the model: the spatial force (moment about the world origin; force), world
  /// frame, that the joint transmits from its parent link to its child link (step 2's result;
  /// its projection on the joint axis is the joint torque).
  std::vector<Vector6d> joint_force;
  /// Per loop closure: the spatial force (moment about the world origin; force), world frame,
  /// that the constraint applies to the link of `frame`; minus it acts on `other`'s link.
  std::vector<Vector6d> closure_force;
  /// Per loop closure at the last call: the position-level error (rotation angle in rad for a
  /// weld, 0 for a point; translation in m) and the velocity-level error norm.
  std::vector<double> closure_rotation_error, closure_position_error, closure_velocity_error;

  struct Workspace;
  [[nodiscard]] Workspace& workspace() { return *ws_; }

 private:
  std::unique_ptr<Workspace> ws_;
};

/// Forward dynamics by assembly–disassembly: ν̇ at (q, ν) under τ (nv; a floating base's entries
/// a wrench on the base, like aba()), external wrenches and gravity, with the plan's loop
/// closures enforced at the acceleration level. Throws InvalidArgument for wrong sizes, a
/// wrench on an unknown or massless link. Returns data.ddq.
const VectorXd& assemblyForwardDynamics(const AssemblyPlan& plan, AssemblyData& data, const Configuration& q,
                                        const VectorXd& v, const VectorXd& tau,
                                        std::span<const ExternalWrench> wrenches = {},
                                        const Vector3d& gravity = kStandardGravity);

}  // namespace kinetrack
