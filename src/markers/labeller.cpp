// Per-frame labelling: predict, gate, assign (per conflict cluster), rigid-segment check, marker
// IK, carry the state (labeller.hpp describes the method).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/markers/labelling_trial.hpp"
#include "labeller_impl.hpp"

namespace kinetrack::markers {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Cost of an edge that does not exist (a point outside a marker's gate, another marker's gap
// column): larger than any gated cost, finite for the solver.
constexpr double kForbidden = 1e6;

int findRoot(std::vector<int>& uf, int i) {
  while (uf[static_cast<std::size_t>(i)] != i) {
    uf[static_cast<std::size_t>(i)] = uf[static_cast<std::size_t>(uf[static_cast<std::size_t>(i)])];
    i = uf[static_cast<std::size_t>(i)];
  }
  return i;
}

void checkOptions(const LabellerOptions& o) {
  auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  if (!positive(o.gate_radius) || !(o.gate_growth >= 0.0) || !positive(o.gate_max) || o.gate_max < o.gate_radius)
    throw InvalidArgument("LabellerOptions: gates must be finite, > 0, gate_growth >= 0 and gate_max >= gate_radius");
  if (o.max_candidates < 1) throw InvalidArgument("LabellerOptions: max_candidates must be >= 1");
  if (!(o.rigid_tolerance >= 0.0) || !(o.rigid_learning_rate >= 0.0 && o.rigid_learning_rate <= 1.0))
    throw InvalidArgument("LabellerOptions: rigid_tolerance >= 0 and rigid_learning_rate in [0, 1]");
  if (!(o.lost_fraction >= 0.0 && o.lost_fraction <= 1.0) ||
      !(o.init_min_fraction >= 0.0 && o.init_min_fraction <= 1.0))
    throw InvalidArgument("LabellerOptions: lost_fraction and init_min_fraction must be in [0, 1]");
  if (o.init_headings < 1 || o.init_rigid_iterations < 1 || o.init_refine_rounds < 1 || !positive(o.init_gate) ||
      !positive(o.init_refine_gate) || !positive(o.init_max_rms) || !positive(o.max_residual) ||
      o.init_candidates < 1 || !(o.posture_weight >= 0.0) || !positive(o.lost_rms) || o.lost_rms_frames < 1)
    throw InvalidArgument("LabellerOptions: initialisation counts must be >= 1 and its gates / RMS > 0");
  if (!(o.limb_error > 0.0) || !positive(o.limb_gate) || o.limb_search_interval < 1 || o.limb_rounds < 1 ||
      o.limb_max_per_frame < 0 || !(o.init_pose_weight >= 0.0) || !(o.swap_check_distance >= 0.0))
    throw InvalidArgument(
        "LabellerOptions: limb_error, limb_gate > 0, limb_search_interval >= 1, limb_max_per_frame, "
        "init_pose_weight and swap_check_distance >= 0");
  if (o.max_points < 1) throw InvalidArgument("LabellerOptions: max_points must be >= 1");
  if (!(o.init_vertical_offset >= 0.0) || !std::isfinite(o.init_vertical_offset))
    throw InvalidArgument("LabellerOptions: init_vertical_offset must be finite and >= 0");
  if (!(o.crowd_distance >= 0.0)) throw InvalidArgument("LabellerOptions: crowd_distance must be >= 0");
}

}  // namespace

const char* toString(TrackState s) {
  switch (s) {
    case TrackState::Tracking: return "tracking";
    case TrackState::Initialised: return "initialised";
    case TrackState::Lost: return "lost";
  }
  return "?";
}

Labeller::Impl::Impl(std::shared_ptr<const LabellerModel> model, const LabellerOptions& options)
    : lm(std::move(model)), opt(options), ik(subject::makeMarkerIk(*lm, options.ik)), data(*lm->model) {
  m = lm->numMarkers();
  if (opt.posture_weight > 0.0)
    for (int j = 0; j < lm->model->numJoints(); ++j)
      if (!(lm->lower[j] == lm->upper[j])) {
        ik.tasks().addCoordinate(lm->model->jointName(JointId(j)), opt.posture_weight);
        task_joint.push_back(j);
      }
  task_value.resize(task_joint.size());
  q_prev = q_curr = q_pred = lm->reference;
  nu = VectorXd::Zero(lm->model->nv());
  const auto M = static_cast<std::size_t>(m);
  const auto K = static_cast<std::size_t>(opt.max_candidates);
  residual.assign(M, Vector3d::Zero());
  unseen.assign(M, 0);
  pair_ref.assign(lm->pairs.size(), kNaN);
  pair_age.assign(lm->pairs.size(), 0);
  link_seen.assign(static_cast<std::size_t>(lm->model->numLinks()), 0);
  pred.resize(M);
  gate.resize(M);
  measured.resize(M);
  mp.assign(M, -1);
  cand.resize(M * K);
  cand_d2.resize(M * K);
  cand_n.resize(M);
  uf.resize(M);
  cluster_next.resize(M);
  cluster_head.resize(M);
  rows.reserve(M);
  cols.reserve(M * K);
  cost.resize(M * (M * K + M));
  row_to_col.resize(M);
  bad.resize(M);
  checks.resize(M);
  solver.reserve(static_cast<int>(M * K + M));
  out.marker_point.assign(M, -1);
  out.confidence.assign(M, kNaN);
  model_markers.resize(M);
  targets.resize(M);
  best_mp.resize(M);
  // Starts (reference, zero, last pose) × headings × vertical placements.
  hypotheses.reserve(static_cast<std::size_t>(3 * opt.init_headings * (opt.init_vertical_offset > 0.0 ? 3 : 1)));
  init_q = lm->reference;
  zero = Configuration(*lm->model);
  zero.base_position = lm->reference.base_position;  // a fixed base stays where it is
  zero.base_rotation = lm->reference.base_rotation;
  track_mp.resize(M);
  settle_mp.resize(M);
  buildRegions();
  ensurePoints(opt.max_points);
  const int links = lm->model->numLinks();
  link_first.assign(static_cast<std::size_t>(links) + 1, 0);
  for (int i = 0; i < m; ++i) ++link_first[static_cast<std::size_t>(lm->link[static_cast<std::size_t>(i)]) + 1];
  for (int l = 0; l < links; ++l)
    link_first[static_cast<std::size_t>(l) + 1] += link_first[static_cast<std::size_t>(l)];
  link_markers.assign(M, 0);
  std::vector<int> fill(link_first.begin(), link_first.end() - 1);
  for (int i = 0; i < m; ++i)
    link_markers[static_cast<std::size_t>(fill[static_cast<std::size_t>(lm->link[static_cast<std::size_t>(i)])]++)] = i;
}

void Labeller::Impl::ensurePoints(int n) {
  const auto N = static_cast<std::size_t>(std::max(n, 1));
  if (pts.capacity() < N) pts.reserve(N);
  if (pts_index.capacity() < N) pts_index.reserve(N);
  if (point_marker.size() < N) point_marker.resize(N);
  if (point_taken.size() < N) point_taken.resize(N);
  if (point_used.size() < N) point_used.resize(N);
  if (scratch.capacity() < N) scratch.reserve(N);
}

void Labeller::Impl::markerPositions(const Configuration& q, bool with_residual, std::vector<Vector3d>& out_pos) {
  const Model& model = *lm->model;
  forwardKinematics(model, data, q);
  for (int i = 0; i < m; ++i) {
    const Transform& X = updateFramePlacement(model, data, lm->frame_ids[static_cast<std::size_t>(i)]);
    out_pos[static_cast<std::size_t>(i)] =
        with_residual ? Vector3d(X.p + X.R * residual[static_cast<std::size_t>(i)]) : X.p;
  }
}

double Labeller::Impl::assign(const std::vector<Vector3d>& target, const std::vector<double>& gates, int n,
                              bool skip_taken) {
  const int K = opt.max_candidates;
  // Gate: the K nearest points within each marker's gate, nearest first (insertion).
  for (int i = 0; i < m; ++i) {
    const std::size_t base = static_cast<std::size_t>(i) * static_cast<std::size_t>(K);
    const double g2 = gates[static_cast<std::size_t>(i)] * gates[static_cast<std::size_t>(i)];
    const Vector3d& t = target[static_cast<std::size_t>(i)];
    int c = 0;
    for (int p = 0; p < n; ++p) {
      if (skip_taken && point_taken[static_cast<std::size_t>(p)]) continue;
      const double d2 = (pts[static_cast<std::size_t>(p)] - t).squaredNorm();
      if (!(d2 < g2)) continue;
      if (c == K && d2 >= cand_d2[base + static_cast<std::size_t>(K - 1)]) continue;
      int k = c < K ? c++ : K - 1;
      while (k > 0 && cand_d2[base + static_cast<std::size_t>(k - 1)] > d2) {
        cand_d2[base + static_cast<std::size_t>(k)] = cand_d2[base + static_cast<std::size_t>(k - 1)];
        cand[base + static_cast<std::size_t>(k)] = cand[base + static_cast<std::size_t>(k - 1)];
        --k;
      }
      cand_d2[base + static_cast<std::size_t>(k)] = d2;
      cand[base + static_cast<std::size_t>(k)] = p;
    }
    cand_n[static_cast<std::size_t>(i)] = c;
  }
  // Clusters: markers sharing a candidate point (union-find).
  for (int p = 0; p < n; ++p) point_marker[static_cast<std::size_t>(p)] = -1;
  for (int i = 0; i < m; ++i) uf[static_cast<std::size_t>(i)] = i;
  for (int i = 0; i < m; ++i) {
    const std::size_t base = static_cast<std::size_t>(i) * static_cast<std::size_t>(K);
    for (int k = 0; k < cand_n[static_cast<std::size_t>(i)]; ++k) {
      int& owner = point_marker[static_cast<std::size_t>(cand[base + static_cast<std::size_t>(k)])];
      if (owner < 0) {
        owner = i;
      } else {
        const int a = findRoot(uf, owner), b = findRoot(uf, i);
        if (a != b) uf[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
      }
    }
  }
  for (int i = 0; i < m; ++i) cluster_head[static_cast<std::size_t>(i)] = -1;
  for (int i = m - 1; i >= 0; --i) {
    const int r = findRoot(uf, i);
    cluster_next[static_cast<std::size_t>(i)] = cluster_head[static_cast<std::size_t>(r)];
    cluster_head[static_cast<std::size_t>(r)] = i;
  }
  for (int p = 0; p < n; ++p) point_marker[static_cast<std::size_t>(p)] = -1;  // now: column in cluster
  // Costs are squared distances in units of the marker's gate², a gap costs 1: a marker whose
  // gate grew (hidden for a while) takes an uncontested point anywhere in it, but does not win a
  // point from a marker predicted nearer it (with gate² as the gap cost it would: its gap costs
  // more than the other's).
  double total = 0.0;
  for (int r = 0; r < m; ++r) {
    const int head = cluster_head[static_cast<std::size_t>(r)];
    if (head < 0) continue;
    if (cluster_next[static_cast<std::size_t>(head)] < 0) {
      // One marker alone with its candidates: the nearest one (any candidate beats the gap).
      const std::size_t base = static_cast<std::size_t>(head) * static_cast<std::size_t>(K);
      if (cand_n[static_cast<std::size_t>(head)] > 0) {
        mp[static_cast<std::size_t>(head)] = cand[base];
        const double g = gates[static_cast<std::size_t>(head)];
        total += cand_d2[base] / (g * g);
      } else {
        mp[static_cast<std::size_t>(head)] = -1;
        total += 1.0;
      }
      continue;
    }
    // A conflict cluster: rows = its markers, columns = their candidate points, then one gap
    // column per row (cost gate², forbidden for the other rows).
    rows.clear();
    cols.clear();
    for (int i = head; i >= 0; i = cluster_next[static_cast<std::size_t>(i)]) {
      rows.push_back(i);
      const std::size_t base = static_cast<std::size_t>(i) * static_cast<std::size_t>(K);
      for (int k = 0; k < cand_n[static_cast<std::size_t>(i)]; ++k) {
        const int p = cand[base + static_cast<std::size_t>(k)];
        if (point_marker[static_cast<std::size_t>(p)] < 0) {
          point_marker[static_cast<std::size_t>(p)] = static_cast<int>(cols.size());
          cols.push_back(p);
        }
      }
    }
    const int nr = static_cast<int>(rows.size()), np = static_cast<int>(cols.size()), nc = np + nr;
    for (int a = 0; a < nr; ++a) {
      const int i = rows[static_cast<std::size_t>(a)];
      double* crow = cost.data() + static_cast<std::size_t>(a) * static_cast<std::size_t>(nc);
      std::fill(crow, crow + nc, kForbidden);
      const std::size_t base = static_cast<std::size_t>(i) * static_cast<std::size_t>(K);
      const double inv_g2 = 1.0 / (gates[static_cast<std::size_t>(i)] * gates[static_cast<std::size_t>(i)]);
      for (int k = 0; k < cand_n[static_cast<std::size_t>(i)]; ++k)
        crow[point_marker[static_cast<std::size_t>(cand[base + static_cast<std::size_t>(k)])]] =
            cand_d2[base + static_cast<std::size_t>(k)] * inv_g2;
      crow[np + a] = 1.0;
    }
    total += solver.solve(nr, nc, std::span<const double>(cost.data(), static_cast<std::size_t>(nr * nc)), row_to_col);
    for (int a = 0; a < nr; ++a) {
      const int c = row_to_col[static_cast<std::size_t>(a)];
      mp[static_cast<std::size_t>(rows[static_cast<std::size_t>(a)])] = c < np ? cols[static_cast<std::size_t>(c)] : -1;
    }
    for (int p : cols) point_marker[static_cast<std::size_t>(p)] = -1;
  }
  return total;
}

bool Labeller::Impl::isolated(int i, int n) const {
  const auto I = static_cast<std::size_t>(i);
  const double g2 = opt.gate_radius * opt.gate_radius;
  for (int p = 0; p < n; ++p)
    if (p != mp[I] && (pts[static_cast<std::size_t>(p)] - pred[I]).squaredNorm() < g2) return false;
  return true;
}

int Labeller::Impl::rigidCheck(int n) {
  if (opt.rigid_tolerance <= 0.0) return 0;
  const auto& pairs = lm->pairs;
  int rejected = 0;
  // Greedy: while a learnt pair is violated, unassign the marker with the most violations (ties:
  // the one farther from its prediction).
  for (int round = 0; round < m; ++round) {
    std::fill(bad.begin(), bad.end(), 0);
    std::fill(checks.begin(), checks.end(), 0);
    bool any = false;
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const int a = mp[static_cast<std::size_t>(pairs[k].i)], b = mp[static_cast<std::size_t>(pairs[k].j)];
      if (a < 0 || b < 0 || std::isnan(pair_ref[k]) || pair_age[k] > opt.rigid_max_age) continue;
      ++checks[static_cast<std::size_t>(pairs[k].i)], ++checks[static_cast<std::size_t>(pairs[k].j)];
      const double d = (pts[static_cast<std::size_t>(a)] - pts[static_cast<std::size_t>(b)]).norm();
      if (std::abs(d - pair_ref[k]) > opt.rigid_tolerance) {
        ++bad[static_cast<std::size_t>(pairs[k].i)], ++bad[static_cast<std::size_t>(pairs[k].j)];
        any = true;
      }
    }
    if (!any) break;
    int worst = -1;
    double worst_key = -1.0;
    for (int i = 0; i < m; ++i) {
      if (bad[static_cast<std::size_t>(i)] == 0) continue;
      const double miss =
          (pts[static_cast<std::size_t>(mp[static_cast<std::size_t>(i)])] - pred[static_cast<std::size_t>(i)]).norm();
      // A point right where the marker was predicted is the marker, however the segment deformed
      // (a foot bending at toe-off); ghosts and swapped neighbours sit farther away.
      if (miss < opt.rigid_min_miss) continue;
      // Nor a point with no rival: nothing else within gate_radius of the prediction. A marker
      // whose distances jump for a few frames (the Rajagopal run's LMT5 moves 5 cm against its
      // foot at frame 79, a shoe or skin artefact) is still the marker; a ghost or a swapped
      // neighbour has the marker's own point, or another, beside it.
      if (isolated(i, n)) continue;
      // Fraction of failed checks first, distance to the prediction (< 1 m) as the tie-break.
      const double key =
          static_cast<double>(bad[static_cast<std::size_t>(i)]) / checks[static_cast<std::size_t>(i)] * 10.0 +
          std::min(miss, 1.0);
      if (key > worst_key) worst_key = key, worst = i;
    }
    if (worst < 0) break;
    mp[static_cast<std::size_t>(worst)] = -1;
    ++rejected;
  }
  // Crowding: of two labelled points too close to be two markers, the one farther from its
  // prediction is a ghost beside the other's marker.
  if (opt.crowd_distance > 0.0)
    for (int i = 0; i < m; ++i) {
      const auto I = static_cast<std::size_t>(i);
      for (int j = i + 1; j < m && mp[I] >= 0; ++j) {
        const auto J = static_cast<std::size_t>(j);
        if (mp[J] < 0) continue;
        const Vector3d& a = pts[static_cast<std::size_t>(mp[I])];
        const Vector3d& b = pts[static_cast<std::size_t>(mp[J])];
        if (!((a - b).squaredNorm() < crowdOf(i, j) * crowdOf(i, j))) continue;
        const int worse = (a - pred[I]).squaredNorm() > (b - pred[J]).squaredNorm() ? i : j;
        mp[static_cast<std::size_t>(worse)] = -1;
        ++rejected;
      }
    }
  return rejected;
}

bool Labeller::Impl::consistentChange(const std::vector<int>& before) const {
  for (int i = 0; i < m; ++i) {
    const auto I = static_cast<std::size_t>(i);
    if (mp[I] < 0 || mp[I] == before[I]) continue;
    const Vector3d& a = pts[static_cast<std::size_t>(mp[I])];
    for (int j = 0; j < m; ++j) {
      const auto J = static_cast<std::size_t>(j);
      if (j == i || mp[J] < 0) continue;
      if ((a - pts[static_cast<std::size_t>(mp[J])]).squaredNorm() < crowdOf(i, j) * crowdOf(i, j)) return false;
    }
    if (opt.rigid_tolerance <= 0.0) continue;
    for (std::size_t k = 0; k < lm->pairs.size(); ++k) {
      const int pi = lm->pairs[k].i, pj = lm->pairs[k].j;
      if ((pi != i && pj != i) || std::isnan(pair_ref[k]) || pair_age[k] > opt.rigid_max_age) continue;
      // Against a partner whose label stays only: distances learnt with a partner that changed
      // too (or was a gap) may come from the labels being replaced.
      const int other = pi == i ? pj : pi;
      if (mp[static_cast<std::size_t>(other)] != before[static_cast<std::size_t>(other)]) continue;
      const int a_pt = mp[static_cast<std::size_t>(pi)], b_pt = mp[static_cast<std::size_t>(pj)];
      if (a_pt < 0 || b_pt < 0) continue;
      const double d = (pts[static_cast<std::size_t>(a_pt)] - pts[static_cast<std::size_t>(b_pt)]).norm();
      if (std::abs(d - pair_ref[k]) > opt.rigid_tolerance) return false;
    }
  }
  return true;
}

bool Labeller::Impl::solveIk(const Configuration& prior) {
  int assigned = 0;
  for (int i = 0; i < m; ++i) {
    const int p = mp[static_cast<std::size_t>(i)];
    measured[static_cast<std::size_t>(i)] = p >= 0 ? pts[static_cast<std::size_t>(p)] : Vector3d::Constant(kNaN);
    assigned += p >= 0;
  }
  if (assigned < 3) return false;
  for (std::size_t k = 0; k < task_joint.size(); ++k) task_value[k] = prior.joints[task_joint[k]];
  const auto t0 = std::chrono::steady_clock::now();
  out.ik = ik.solve(measured, task_value);
  out.ik_microseconds += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

Matrix3d Labeller::Impl::markerRotation(int i) const {
  // The marker frame's world rotation: its link's and its placement's (any fixed rotation of the
  // frame cancels out of the residual offset, kept and used in that frame).
  const FrameId fr = lm->frame_ids[static_cast<std::size_t>(i)];
  return ik.data().link[lm->model->frameLink(fr).value].R * lm->model->framePlacement(fr).R;
}

void Labeller::Impl::commit(double time, bool velocity_valid, bool learn) {
  for (int i = 0; i < m; ++i) {
    const auto I = static_cast<std::size_t>(i);
    const int p = mp[I];
    if (p < 0) {
      ++unseen[I];
      continue;
    }
    unseen[I] = 0;
    const Vector3d r =
        markerRotation(i).transpose() * (pts[static_cast<std::size_t>(p)] - ik.modelMarker(ik::MarkerTaskId(i)));
    residual[I] = r.norm() <= opt.max_residual ? r : Vector3d::Zero();
  }
  if (learn) {
    for (std::size_t k = 0; k < lm->pairs.size(); ++k) {
      const int a = mp[static_cast<std::size_t>(lm->pairs[k].i)], b = mp[static_cast<std::size_t>(lm->pairs[k].j)];
      if (a < 0 || b < 0) {
        ++pair_age[k];
        continue;
      }
      const double dist = (pts[static_cast<std::size_t>(a)] - pts[static_cast<std::size_t>(b)]).norm();
      const bool fresh = std::isnan(pair_ref[k]) || pair_age[k] > opt.rigid_max_age;
      pair_ref[k] = fresh ? dist : pair_ref[k] + opt.rigid_learning_rate * (dist - pair_ref[k]);
      pair_age[k] = 0;
    }
  }
  std::fill(link_seen.begin(), link_seen.end(), 0);
  for (int i = 0; i < m; ++i)
    if (mp[static_cast<std::size_t>(i)] >= 0)
      ++link_seen[static_cast<std::size_t>(lm->link[static_cast<std::size_t>(i)])];
  t_solved = time;
  q_prev = q_curr;
  q_curr = ik.state();
  have_velocity = velocity_valid;
  if (!velocity_valid) q_prev = q_curr;
  for (std::size_t j = 0; j < jumped_joint.size(); ++j)
    if (jumped_joint[j]) q_prev.joints[static_cast<Eigen::Index>(j)] = q_curr.joints[static_cast<Eigen::Index>(j)];
  t_prev = t_curr;
  t_curr = time;
  started = true;
}

double Labeller::Impl::gateOf(int i, bool after_ik) const {
  const auto I = static_cast<std::size_t>(i);
  // No velocity (or the marker's limb was relabelled): the prediction may lag.
  if ((!have_velocity || jumped_marker[I]) && !after_ik) return opt.gate_max;
  if (unseen[I] == 0) return opt.gate_radius;
  // A hidden marker on a link that is seen moves with it; one on an unseen link may be anywhere
  // the link went.
  const int seen = after_ik ? [&] {
    int c = 0;
    for (int j = 0; j < m; ++j) c += lm->link[static_cast<std::size_t>(j)] == lm->link[I] && mp[static_cast<std::size_t>(j)] >= 0;
    return c;
  }()
                            : link_seen[static_cast<std::size_t>(lm->link[I])];
  if (seen > 0) return opt.gate_radius;
  return std::min(opt.gate_radius + opt.gate_growth * unseen[I], opt.gate_max);
}

int Labeller::Impl::secondPass(int n) {
  int gaps = 0;
  for (int i = 0; i < m; ++i) gaps += mp[static_cast<std::size_t>(i)] < 0;
  int assigned = m - gaps;
  if (gaps == 0 || n <= assigned) return 0;
  // The points already labelled are taken; labelled markers do not compete (no gate).
  for (int p = 0; p < n; ++p) point_taken[static_cast<std::size_t>(p)] = 0;
  for (int i = 0; i < m; ++i)
    if (mp[static_cast<std::size_t>(i)] >= 0)
      point_taken[static_cast<std::size_t>(mp[static_cast<std::size_t>(i)])] = 1;
  track_mp = mp;
  markerPositions(ik.state(), true, targets);
  for (int i = 0; i < m; ++i)
    gate[static_cast<std::size_t>(i)] = track_mp[static_cast<std::size_t>(i)] >= 0 ? 1e-9 : gateOf(i, true);
  assign(targets, gate, n, true);
  int added = 0;
  for (int i = 0; i < m; ++i) {
    const auto I = static_cast<std::size_t>(i);
    if (track_mp[I] >= 0)
      mp[I] = track_mp[I];
    else if (mp[I] >= 0)
      ++added;
  }
  if (added == 0) return 0;
  const int rejected = rigidCheck(n);
  int now = 0;
  for (int i = 0; i < m; ++i) now += mp[static_cast<std::size_t>(i)] >= 0;
  if (now <= assigned) {  // the check undid them (or more): keep the first pass
    mp = track_mp;
    return 0;
  }
  out.rigid_rejections += rejected;
  solveIk(ik.state());
  return now - assigned;
}

Labeller::Labeller(std::shared_ptr<const LabellerModel> model, LabellerOptions options) {
  if (!model) throw InvalidArgument("Labeller: null model");
  checkOptions(options);
  impl_ = std::make_unique<Impl>(std::move(model), options);
}
Labeller::~Labeller() = default;
Labeller::Labeller(Labeller&&) noexcept = default;
Labeller& Labeller::operator=(Labeller&&) noexcept = default;

const Configuration& Labeller::pose() const { return impl_->q_curr; }
std::span<const Vector3d> Labeller::predictions() const { return impl_->pred; }
const LabellerModel& Labeller::model() const { return *impl_->lm; }
const LabellerOptions& Labeller::options() const { return impl_->opt; }
int Labeller::initialisations() const { return impl_->initialisations; }

void Labeller::reset() {
  Impl& s = *impl_;
  s.started = s.have_velocity = s.have_time = false;
  s.q_prev = s.q_curr = s.q_pred = s.lm->reference;
  std::fill(s.residual.begin(), s.residual.end(), Vector3d::Zero());
  std::fill(s.unseen.begin(), s.unseen.end(), 0);
  std::fill(s.pair_ref.begin(), s.pair_ref.end(), kNaN);
  std::fill(s.pair_age.begin(), s.pair_age.end(), 0);
  std::fill(s.link_seen.begin(), s.link_seen.end(), 0);
  s.last_good_assigned = 0;
  s.bad_fit_frames = 0;
  s.initialisations = 0;
  std::fill(s.region_cooldown.begin(), s.region_cooldown.end(), 0);
  std::fill(s.region_backoff.begin(), s.region_backoff.end(), 1);
  s.limb_cooldown = s.swap_cooldown = s.suspect_wait = 0;
  std::fill(s.pair_wait.begin(), s.pair_wait.end(), 0);
  std::fill(s.jumped_marker.begin(), s.jumped_marker.end(), 0);
  std::fill(s.jumped_joint.begin(), s.jumped_joint.end(), 0);
}

int Labeller::Impl::beginFrame(std::span<const Vector3d> points, double time, const char* who) {
  if (!std::isfinite(time)) throw InvalidArgument(std::string(who) + ": time is not finite");
  if (have_time && !(time > t_curr))
    throw InvalidArgument(std::string(who) + ": time " + std::to_string(time) + " does not increase (previous " +
                          std::to_string(t_curr) + ")");
  // Finite points only; their input indices are kept for the output.
  ensurePoints(static_cast<int>(points.size()));
  pts.clear();
  pts_index.clear();
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (!points[k].allFinite()) continue;
    pts.push_back(points[k]);
    pts_index.push_back(static_cast<int>(k));
  }
  const int n = static_cast<int>(pts.size());
  out.points = n;
  out.invalid_points = static_cast<int>(points.size()) - n;
  out.rigid_rejections = 0;
  out.relabelled = 0;
  out.swaps_corrected = 0;
  out.unsure = 0;
  out.ik_microseconds = 0.0;
  out.ik = ik::MarkerIkResult{};
  out.ik.iterations = 0;
  return n;
}

const FrameLabels& Labeller::label(std::span<const Vector3d> points, double time) {
  Impl& s = *impl_;
  const int n = s.beginFrame(points, time, "Labeller::label");
  const int m = s.m;
  FrameLabels& out = s.out;
  bool solved = false, initialised = false;
  for (int& c : s.region_cooldown) c = std::max(c - 1, 0);
  s.limb_cooldown = std::max(s.limb_cooldown - 1, 0);
  s.relabelled = false;

  if (s.started) {
    // Predict at constant velocity, scaled by the frame steps: the markers in the world (default)
    // or the pose on the configuration manifold.
    if (s.have_velocity && s.t_curr > s.t_prev) {
      const double ratio = std::min((time - s.t_curr) / (s.t_curr - s.t_prev), 4.0);
      if (s.opt.prediction == PredictionSpace::Markers) {
        // x̂ = x(q_k) + s·(x(q_k) − x(q_{k−1})), the current residual offsets at both poses (a
        // relabelled limb's joints have q_{k−1} = q_k: no velocity). Joint-space wander that
        // does not move the markers does not move the prediction either.
        s.q_pred = s.q_curr;
        s.markerPositions(s.q_prev, true, s.targets);
        s.markerPositions(s.q_curr, true, s.pred);
        for (std::size_t i = 0; i < static_cast<std::size_t>(m); ++i) s.pred[i] += ratio * (s.pred[i] - s.targets[i]);
      } else {
        difference(*s.lm->model, s.q_prev, s.q_curr, s.nu);
        integrate(*s.lm->model, s.q_curr, s.nu, ratio, s.q_pred);
        s.markerPositions(s.q_pred, true, s.pred);
      }
    } else {
      s.q_pred = s.q_curr;
      s.markerPositions(s.q_pred, true, s.pred);
    }
    for (int i = 0; i < m; ++i) s.gate[static_cast<std::size_t>(i)] = s.gateOf(i, false);
    std::fill(s.jumped_marker.begin(), s.jumped_marker.end(), 0);
    std::fill(s.jumped_joint.begin(), s.jumped_joint.end(), 0);
    s.assign(s.pred, s.gate, n);
    out.rigid_rejections = s.rigidCheck(n);
    int assigned = 0;
    for (int i = 0; i < m; ++i) assigned += s.mp[static_cast<std::size_t>(i)] >= 0;
    const int expected = std::min(s.last_good_assigned, n);
    // After a long loss the stale pose is no prediction: initialise (the last pose is one of the
    // starts) unless that fails.
    const bool stale = (time - s.t_solved > s.opt.reinit_after || s.bad_fit_frames >= s.opt.lost_rms_frames) && n >= 3;
    if (!stale && assigned >= 3 && !(assigned < s.opt.lost_fraction * expected)) {
      s.ik.setState(s.q_pred);
      solved = s.solveIk(s.q_pred);
      if (solved) s.secondPass(n);
      if (solved) s.reassignAtSolvedPose(n);
      if (solved) s.limbSearch(n, true);
      if (solved) s.swapCheck();
    } else if (n >= 3) {
      // Lost: too few markers where the model expects them. Search again on this frame; when
      // that fails too, keep what tracking found.
      s.track_mp = s.mp;
      initialised = s.initialise(n);
      solved = initialised;
      if (!initialised && assigned >= 3) {
        s.mp = s.track_mp;
        s.ik.setState(s.q_pred);
        solved = s.solveIk(s.q_pred);
      }
    }
  } else if (n >= 3) {
    initialised = s.initialise(n);
    solved = initialised;
  }

  s.endFrame(n, time, solved, initialised);
  return s.out;
}

void Labeller::Impl::endFrame(int n, double time, bool solved, bool initialised) {
  if (solved) {
    out.unsure = confidences(n);
    bad_fit_frames = initialised || !(out.ik.rms_error > opt.lost_rms) ? 0 : bad_fit_frames + 1;
    // A relabelled limb jumps: no velocity from this frame (the gates open for the next).
    commit(time, !initialised && !relabelled, true);
    if (initialised) ++initialisations;
  } else {
    // Nothing trustworthy: every marker is a gap, the pose is held and its velocity forgotten.
    std::fill(mp.begin(), mp.end(), -1);
    std::fill(out.confidence.begin(), out.confidence.end(), kNaN);
    for (int& u : unseen) ++u;
    have_velocity = false;
    q_prev = q_curr;
    t_prev = t_curr;
    t_curr = time;
  }
  have_time = true;
  int assigned = 0, shown = 0;
  for (int i = 0; i < m; ++i) {
    const auto I = static_cast<std::size_t>(i);
    const int p = mp[I];
    // An unsure label is left out of the output when asked (the track keeps it).
    const bool drop = p >= 0 && opt.drop_unsure && out.confidence[I] < opt.unsure_threshold;
    out.marker_point[I] = p >= 0 && !drop ? pts_index[static_cast<std::size_t>(p)] : -1;
    assigned += p >= 0;
    shown += out.marker_point[I] >= 0;
  }
  out.assigned = shown;
  out.gaps = m - shown;
  out.ghosts = n - shown;
  out.state = !solved ? TrackState::Lost : initialised ? TrackState::Initialised : TrackState::Tracking;
  // Markers expected next frame: what was labelled, forgotten slowly (a subject half out of the
  // volume lowers it within a second or so, one bad frame does not).
  if (solved) last_good_assigned = std::max(assigned, (last_good_assigned * 19) / 20);
}

}  // namespace kinetrack::markers
