#include "kinetrack/ik/pairwise_ik.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <numeric>
#include <string>
#include <thread>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/core/worker_pool.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "solver_detail.hpp"

namespace kinetrack {

namespace {

void validate(const PairwiseIkOptions& o) {
  if (o.threads < 0) throw InvalidArgument("PairwiseIkOptions: threads must be ≥ 0, got " + std::to_string(o.threads));
  if (!std::isfinite(o.spin_microseconds) || o.spin_microseconds < 0.0)
    throw InvalidArgument("PairwiseIkOptions: spin_microseconds must be finite and ≥ 0");
  if (o.solver.backend != InstantaneousIkBackend::Native)
    throw InvalidArgument("PairwiseIkOptions: the subsystems use the Native backend only");
  detail::validateOptions(o.solver);
}

int resolveThreads(int threads) {
  if (threads > 0) return threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

detail::RotationError angleBetween(const Matrix3d& target, const Matrix3d& actual) {
  const Matrix3d E = target * actual.transpose();
  return detail::rotationError(so3::vee(E), E.trace());
}

bool active(const ik::FrameTask& t) { return t.alive && t.enabled && t.weight() > 0.0; }
bool hasValue(const ik::FrameTask& t) { return t.type == TargetType::Position ? t.has_position : t.has_orientation; }

// Pair-wise holds orientation targets and position targets on the root link (they place the base).
void pairwiseRule(const Model& model, const ik::FrameTask& t, std::string_view frame) {
  if (t.type == TargetType::Pose)
    throw InvalidArgument("PairwiseIk: pose target on '" + std::string(frame) +
                          "': add an orientation target (and a position target on the root link)");
  if (t.type == TargetType::Position && t.link.value != 0)
    throw InvalidArgument("PairwiseIk::addPosition: frame '" + std::string(frame) + "' is on link '" +
                          model.linkName(t.link) + "'; position targets must be on the root link '" +
                          model.linkName(LinkId(0)) + "' (they place the base; subsystems hold orientations)");
}

// Where a target sits in the partition: its subsystem and its id there (-1: none).
struct Placement {
  int subsystem = -1;
  TargetId sub_id;
};

// One subsystem at run time (cache-line aligned: neighbours may run on different threads).
struct alignas(64) Subsystem {
  InstantaneousIk ik;
  std::vector<int> joints;                        // full-model joint index of each sub joint
  std::vector<std::pair<int, TargetId>> targets;  // (full target index, sub target id)
  int reference = -1;                             // full target index giving R_WA (-1: base)
  LinkId parent_link;
  Configuration warm;  // scratch for setState
  SolveResult result;
  std::exception_ptr error;
};

enum class RowKind : std::uint8_t { Enforced, Untouched, Unenforced };

}  // namespace

struct PairwiseIk::Impl {
  std::shared_ptr<const Model> model_ptr;
  const Model& model;
  PairwiseIkOptions options;
  int threads = 1;
  std::unique_ptr<detail::WorkerPool> pool;
  ik::TaskSet tasks;
  std::vector<Placement> placement;  // per task id, as of the last partition
  std::uint64_t partition_revision = ~std::uint64_t{0}, synced_weights = 0;
  Configuration q;
  Data data;  // forward kinematics of every frame at q

  // Partition (valid unless dirty or the tasks' structure changed).
  bool dirty = true;
  bool resync = true;  // subsystems must take their joints from q (after setState / re-partition)
  std::vector<Subsystem> subs;
  std::vector<PairwiseSubsystem> infos;
  std::vector<int> schedule;  // claim order: largest subsystems first
  std::vector<RowKind> row_kind;
  std::vector<int> unenforced;
  std::vector<SolveResult> results;
  int root_orientation = -1, root_position = -1;  // target indices placing the base (-1: none)

  Impl(std::shared_ptr<const Model> m, PairwiseIkOptions o)
      : model_ptr(std::move(m)),
        model(*model_ptr),
        options(o),
        tasks(model_ptr, "PairwiseIk", pairwiseRule),
        q(model),
        data(model) {
    validate(o);
    threads = resolveThreads(o.threads);
    if (threads > 1) pool = std::make_unique<detail::WorkerPool>(threads, o.spin_microseconds);
    framesForwardKinematics(model, data, q);
  }

  bool stale() const { return dirty || tasks.structureRevision() != partition_revision; }

  // Subsystem weights follow the tasks' (a weight change that keeps every task active).
  void syncWeights() {
    if (tasks.weightRevision() == synced_weights) return;
    const std::vector<ik::FrameTask>& targets = tasks.all();
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const Placement& pl = placement[i];
      if (pl.subsystem >= 0)
        subs[static_cast<std::size_t>(pl.subsystem)].ik.tasks().setWeights(pl.sub_id, 0.0, targets[i].weight());
    }
    synced_weights = tasks.weightRevision();
  }

  // ---- partition ------------------------------------------------------------------------------

  // Union–find over link indices (a group is named by one of its child target links).
  static int find(std::vector<int>& uf, int a) {
    while (uf[static_cast<std::size_t>(a)] != a) {
      int& up = uf[static_cast<std::size_t>(a)];
      up = uf[static_cast<std::size_t>(up)];  // path halving
      a = up;
    }
    return a;
  }

  // The links from which the joints of `group` hang (parent links not moved by a group joint).
  std::vector<int> topLinks(const std::vector<int>& joint_group, std::vector<int>& uf, const std::vector<int>& groups) {
    std::vector<int> tops;
    auto in = [&](int j) {
      const int g = joint_group[static_cast<std::size_t>(j)];
      return g >= 0 && std::find(groups.begin(), groups.end(), find(uf, g)) != groups.end();
    };
    for (int j = 0; j < model.numJoints(); ++j) {
      if (!in(j)) continue;
      const int p = model.parentLink(JointId(j)).value;
      if ((p == 0 || !in(p - 1)) && std::find(tops.begin(), tops.end(), p) == tops.end()) tops.push_back(p);
    }
    return tops;
  }

  void partition() {
    const int n = model.numJoints(), nl = model.numLinks();
    const auto& rows = model.linearConstraints();
    subs.clear();
    infos.clear();
    const std::vector<ik::FrameTask>& targets = tasks.all();
    placement.assign(targets.size(), Placement{});
    // The first active orientation target of each link, and the root's position target.
    std::vector<int> first(static_cast<std::size_t>(nl), -1);
    root_position = -1;
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const ik::FrameTask& t = targets[i];
      if (!active(t)) continue;
      if (t.type == TargetType::Orientation && first[static_cast<std::size_t>(t.link.value)] < 0)
        first[static_cast<std::size_t>(t.link.value)] = static_cast<int>(i);
      if (t.type == TargetType::Position && root_position < 0) root_position = static_cast<int>(i);
    }
    root_orientation = first[0];
    auto isTargetLink = [&](int l) { return l == 0 || first[static_cast<std::size_t>(l)] >= 0; };
    // Each target link's path up to the nearest target link above it; shared joints merge groups.
    std::vector<int> joint_group(static_cast<std::size_t>(n), -1), uf(static_cast<std::size_t>(nl));
    std::iota(uf.begin(), uf.end(), 0);
    for (int l = 1; l < nl; ++l) {
      if (!isTargetLink(l)) continue;
      int k = l;
      do {
        int& g = joint_group[static_cast<std::size_t>(k - 1)];
        if (g < 0)
          g = l;
        else
          uf[static_cast<std::size_t>(find(uf, l))] = find(uf, g);
        k = model.parent(LinkId(k)).value;
      } while (!isTargetLink(k));
    }
    auto groupsOfRow = [&](const LinearConstraint& row, bool& touches_free) {
      std::vector<int> gs;
      touches_free = false;
      for (int j = 0; j < n; ++j) {
        if (row.coefficients[j] == 0.0) continue;
        const int g = joint_group[static_cast<std::size_t>(j)];
        if (g < 0) {
          touches_free = true;
          continue;
        }
        const int r = find(uf, g);
        if (std::find(gs.begin(), gs.end(), r) == gs.end()) gs.push_back(r);
      }
      return gs;
    };
    // Optional merge of subsystems coupled by a row, while the union hangs from one link.
    for (bool changed = options.merge_coupled_subsystems; changed;) {
      changed = false;
      for (const LinearConstraint& row : rows) {
        bool free = false;
        const std::vector<int> gs = groupsOfRow(row, free);
        if (free || gs.size() < 2 || topLinks(joint_group, uf, gs).size() != 1) continue;
        for (std::size_t i = 1; i < gs.size(); ++i) uf[static_cast<std::size_t>(gs[i])] = gs[0];
        changed = true;
      }
    }
    // Subsystems in model order of their first joint.
    std::vector<int> sub_of_group(static_cast<std::size_t>(nl), -1);
    std::vector<std::vector<int>> sub_joints;
    for (int j = 0; j < n; ++j) {
      const int g = joint_group[static_cast<std::size_t>(j)];
      if (g < 0) continue;
      int& s = sub_of_group[static_cast<std::size_t>(find(uf, g))];
      if (s < 0) {
        s = static_cast<int>(sub_joints.size());
        sub_joints.emplace_back();
      }
      sub_joints[static_cast<std::size_t>(s)].push_back(j);
    }
    auto subOfJoint = [&](int j) {
      const int g = joint_group[static_cast<std::size_t>(j)];
      return g < 0 ? -1 : sub_of_group[static_cast<std::size_t>(find(uf, g))];
    };
    // Rows: enforced by one subsystem, untouched (no solved joint), or unenforced.
    row_kind.assign(rows.size(), RowKind::Untouched);
    unenforced.clear();
    std::vector<std::vector<int>> sub_rows(sub_joints.size());
    for (std::size_t r = 0; r < rows.size(); ++r) {
      int owner = -2;  // -2: no joint seen yet
      bool split = false, any_solved = false;
      for (int j = 0; j < n; ++j) {
        if (rows[r].coefficients[j] == 0.0) continue;
        const int s = subOfJoint(j);
        any_solved = any_solved || s >= 0;
        if (owner == -2)
          owner = s;
        else if (owner != s)
          split = true;
      }
      if (!any_solved) continue;
      if (split) {
        row_kind[r] = RowKind::Unenforced;
        unenforced.push_back(static_cast<int>(r));
      } else {
        row_kind[r] = RowKind::Enforced;
        sub_rows[static_cast<std::size_t>(owner)].push_back(static_cast<int>(r));
      }
    }
    for (std::size_t s = 0; s < sub_joints.size(); ++s)
      build(static_cast<int>(s), sub_joints[s], sub_rows[s], first, subOfJoint);
    schedule.resize(subs.size());
    std::iota(schedule.begin(), schedule.end(), 0);
    std::stable_sort(schedule.begin(), schedule.end(), [&](int a, int b) {
      return subs[static_cast<std::size_t>(a)].joints.size() > subs[static_cast<std::size_t>(b)].joints.size();
    });
    results.assign(subs.size(), SolveResult{});
    dirty = false;
    partition_revision = tasks.structureRevision();
    synced_weights = tasks.weightRevision();
    resync = true;
  }

  // Builds subsystem s: a fixed-base model rooted at its parent link, its joints (model order,
  // same placements, axes and limits), its target frames and its rows; an InstantaneousIk on it.
  template <class SubOfJoint>
  void build(int s, const std::vector<int>& joints, const std::vector<int>& rows, const std::vector<int>& first,
             const SubOfJoint& subOfJoint) {
    PairwiseSubsystem info;
    info.parent_link = model.parentLink(JointId(joints.front()));
    const int ref = first[static_cast<std::size_t>(info.parent_link.value)];
    if (info.parent_link.value != 0) info.parent_target = TargetId(ref);
    std::string name = model.name() + "/pair:" + model.linkName(info.parent_link);
    ModelBuilder b(name, model.linkName(info.parent_link), BaseType::Fixed);
    for (int j : joints) {
      b.addJoint(jointSpecOf(model, JointId(j)));
      info.joints.push_back(JointId(j));
    }
    std::vector<int> mine;
    const std::vector<ik::FrameTask>& targets = tasks.all();
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const ik::FrameTask& t = targets[i];
      if (!active(t) || t.type != TargetType::Orientation || t.link.value == 0 || subOfJoint(t.link.value - 1) != s)
        continue;
      mine.push_back(static_cast<int>(i));
      const std::string& frame = model.frameName(t.frame);
      if (!b.hasName(frame)) b.addFrame(frame, model.linkName(t.link), model.framePlacement(t.frame));
      if (first[static_cast<std::size_t>(t.link.value)] == static_cast<int>(i)) info.child_links.push_back(t.link);
      info.targets.push_back(TargetId(static_cast<std::int32_t>(i)));
    }
    for (int r : rows) {
      const LinearConstraint& row = model.linearConstraints()[static_cast<std::size_t>(r)];
      b.addLinearConstraint(row.name, rowTermsOf(model, row), row.lower, row.upper, row.velocity_bound);
    }
    info.rows = rows;
    Subsystem sub{InstantaneousIk(std::make_shared<const Model>(b.build()), options.solver),
                  joints,
                  {},
                  info.parent_link.value == 0 ? -1 : ref,
                  info.parent_link,
                  Configuration(),
                  SolveResult{},
                  nullptr};
    sub.warm = Configuration(sub.ik.model());
    for (int i : mine) {
      const ik::FrameTask& t = targets[static_cast<std::size_t>(i)];
      Placement& pl = placement[static_cast<std::size_t>(i)];
      pl.subsystem = s;
      pl.sub_id = sub.ik.tasks().addOrientation(model.frameName(t.frame), {.weight = t.weight()});
      sub.targets.emplace_back(i, pl.sub_id);
    }
    subs.push_back(std::move(sub));
    infos.push_back(std::move(info));
  }

  // ---- solve ----------------------------------------------------------------------------------

  // R_WA of a subsystem's parent link: measured (the reference target with its frame placement
  // removed), else the link's orientation at the state before this solve; the base on the root.
  Matrix3d parentOrientation(const Subsystem& s) const {
    if (s.reference < 0) return q.base_rotation;
    const ik::FrameTask& t = tasks.all()[static_cast<std::size_t>(s.reference)];
    if (!hasValue(t)) return data.link[static_cast<std::size_t>(s.parent_link.value)].R;
    return t.R * model.framePlacement(t.frame).R.transpose();
  }

  // One subsystem's frame (runs on any thread; touches only the subsystem and its joints of q).
  void solveSubsystem(int i) {
    Subsystem& s = subs[static_cast<std::size_t>(i)];
    try {
      const Matrix3d R_AW = parentOrientation(s).transpose();
      for (const auto& [full, sub_id] : s.targets) {
        const ik::FrameTask& t = tasks.all()[static_cast<std::size_t>(full)];
        if (hasValue(t)) s.ik.tasks().setOrientation(sub_id, R_AW * t.R);
      }
      if (resync) {
        for (std::size_t k = 0; k < s.joints.size(); ++k)
          s.warm.joints[static_cast<Eigen::Index>(k)] = q.joints[s.joints[k]];
        s.ik.setState(s.warm);
      }
      s.result = s.ik.solve();
      const VectorXd& x = s.ik.state().joints;
      for (std::size_t k = 0; k < s.joints.size(); ++k) q.joints[s.joints[k]] = x[static_cast<Eigen::Index>(k)];
    } catch (...) {
      s.error = std::current_exception();
    }
  }

  static void task(void* context, int k) {
    auto* self = static_cast<Impl*>(context);
    self->solveSubsystem(self->schedule[static_cast<std::size_t>(k)]);
  }

  // The base pose from the root targets (floating base only).
  void placeBase() {
    if (model.baseType() != BaseType::Floating) return;
    if (root_orientation >= 0) {
      const ik::FrameTask& t = tasks.all()[static_cast<std::size_t>(root_orientation)];
      if (hasValue(t)) q.base_rotation = t.R * model.framePlacement(t.frame).R.transpose();
    }
    if (root_position >= 0) {
      const ik::FrameTask& t = tasks.all()[static_cast<std::size_t>(root_position)];
      if (hasValue(t)) q.base_position = t.p - q.base_rotation * model.framePlacement(t.frame).p;
    }
  }

  PairwiseSolveResult solve() {
    if (stale()) partition();
    syncWeights();
    const auto t0 = std::chrono::steady_clock::now();
    placeBase();
    const int count = static_cast<int>(subs.size());
    if (pool)
      pool->run(count, &Impl::task, this);
    else
      for (int k = 0; k < count; ++k) task(this, k);
    resync = false;
    std::exception_ptr error;
    for (Subsystem& s : subs)
      if (s.error) {
        if (!error) error = s.error;
        s.error = nullptr;
        resync = true;  // a failed subsystem's state is unknown
      }
    if (error) std::rethrow_exception(error);
    framesForwardKinematics(model, data, q);
    PairwiseSolveResult res;
    res.subsystems = count;
    for (int i = 0; i < count; ++i) {
      const SolveResult& r = subs[static_cast<std::size_t>(i)].result;
      results[static_cast<std::size_t>(i)] = r;
      res.status = ik::worst(res.status, r.status);
      res.not_converged += r.status != ik::Status::Converged;
      res.iterations = std::max(res.iterations, r.iterations);
      res.total_iterations += r.iterations;
      res.max_pair_orientation_error = std::max(res.max_pair_orientation_error, r.max_orientation_error);
    }
    evaluateErrors(res);
    res.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  }

  // World errors, MNTE, limits and rows at q (data current).
  void evaluateErrors(PairwiseSolveResult& res) const {
    int count = 0;
    double sum = 0.0;
    for (const ik::FrameTask& t : tasks.all()) {
      if (!active(t) || !hasValue(t)) continue;
      const Transform& F = data.frame[static_cast<std::size_t>(t.frame.value)];
      if (t.type == TargetType::Position) {
        res.max_position_error = std::max(res.max_position_error, (t.p - F.p).norm());
        continue;
      }
      const detail::RotationError e = angleBetween(t.R, F.R);
      res.max_orientation_error = std::max(res.max_orientation_error, e.theta);
      sum += e.one_minus_cos;
      ++count;
    }
    res.mnte = count ? sum / count : 0.0;
    res.limit_violation = positionLimitViolation(model, q);
    const auto& rows = model.linearConstraints();
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const double v = linearRowViolation(rows[r], q.joints);
      if (row_kind.empty() || row_kind[r] != RowKind::Unenforced)
        res.row_violation = std::max(res.row_violation, v);
      else
        res.unenforced_row_violation = std::max(res.unenforced_row_violation, v);
    }
  }
};

PairwiseIk::PairwiseIk(const Model& model, PairwiseIkOptions options)
    : PairwiseIk(std::make_shared<const Model>(model), options) {}
PairwiseIk::PairwiseIk(std::shared_ptr<const Model> model, PairwiseIkOptions options)
    : impl_(std::make_unique<Impl>(std::move(model), options)) {}
PairwiseIk::~PairwiseIk() = default;
PairwiseIk::PairwiseIk(PairwiseIk&&) noexcept = default;
PairwiseIk& PairwiseIk::operator=(PairwiseIk&&) noexcept = default;

const Model& PairwiseIk::model() const { return impl_->model; }
const std::shared_ptr<const Model>& PairwiseIk::sharedModel() const { return impl_->model_ptr; }
const PairwiseIkOptions& PairwiseIk::options() const { return impl_->options; }
int PairwiseIk::threads() const { return impl_->threads; }

void PairwiseIk::setOptions(const PairwiseIkOptions& options) {
  validate(options);
  const int threads = resolveThreads(options.threads);
  if (threads != impl_->threads || options.spin_microseconds != impl_->options.spin_microseconds) {
    impl_->pool.reset();
    if (threads > 1) impl_->pool = std::make_unique<detail::WorkerPool>(threads, options.spin_microseconds);
    impl_->threads = threads;
  }
  impl_->options = options;
  impl_->dirty = true;  // new solver options or merge rule: rebuild the subsystems
}

ik::TaskSet& PairwiseIk::tasks() { return impl_->tasks; }
const ik::TaskSet& PairwiseIk::tasks() const { return impl_->tasks; }

void PairwiseIk::setState(const Configuration& q) {
  const Model& m = impl_->model;
  if (q.joints.size() != m.numJoints())
    throw InvalidArgument("PairwiseIk::setState: expected " + std::to_string(m.numJoints()) +
                          " joint coordinates, got " + std::to_string(q.joints.size()));
  if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite())
    throw InvalidArgument("PairwiseIk::setState: non-finite configuration");
  impl_->q = q;
  framesForwardKinematics(m, impl_->data, impl_->q);
  impl_->resync = true;
}
const Configuration& PairwiseIk::state() const { return impl_->q; }
const Data& PairwiseIk::data() const { return impl_->data; }

PairwiseSolveResult PairwiseIk::solve() { return impl_->solve(); }

const std::vector<PairwiseSubsystem>& PairwiseIk::subsystems() {
  if (impl_->stale()) impl_->partition();
  return impl_->infos;
}
const std::vector<int>& PairwiseIk::unenforcedRows() {
  if (impl_->stale()) impl_->partition();
  return impl_->unenforced;
}
const std::vector<SolveResult>& PairwiseIk::subsystemResults() const { return impl_->results; }
const Model& PairwiseIk::subsystemModel(int i) const {
  if (i < 0 || i >= static_cast<int>(impl_->subs.size()))
    throw InvalidArgument("PairwiseIk::subsystemModel: index " + std::to_string(i) + " out of range [0, " +
                          std::to_string(impl_->subs.size()) + ")");
  return impl_->subs[static_cast<std::size_t>(i)].ik.model();
}

double PairwiseIk::mnte() const {
  PairwiseSolveResult r;
  impl_->evaluateErrors(r);
  return r.mnte;
}

}  // namespace kinetrack
