// Per-limb re-search: a limb that started wrong (a knee bent on a stair step, a wrist bar turned
// round) or whose markers came back after a long gap is searched again on its own, the labels of
// the rest of the body fixed, instead of re-initialising the whole body (which lands in the same
// minimum). A limb is the set of markers on a link's subtree.
#include <algorithm>
#include <cmath>
#include <limits>

#include "labeller_impl.hpp"

namespace kinetrack::markers {

void Labeller::Impl::buildRegions() {
  const Model& model = *lm->model;
  const int nl = model.numLinks();
  // Markers on the subtree of each link: every marker counts for its link and all its ancestors.
  std::vector<std::vector<int>> sub(static_cast<std::size_t>(nl));
  for (int i = 0; i < m; ++i)
    for (int l = lm->link[static_cast<std::size_t>(i)]; l >= 0; l = l == 0 ? -1 : model.parent(LinkId(l)).value)
      sub[static_cast<std::size_t>(l)].push_back(i);
  auto inSubtree = [&](int l, int top) {
    for (; l >= 0; l = l == 0 ? -1 : model.parent(LinkId(l)).value)
      if (l == top) return true;
    return false;
  };
  for (int top = 1; top < nl; ++top) {
    const auto& markers = sub[static_cast<std::size_t>(top)];
    if (markers.size() < 2 || 2 * static_cast<int>(markers.size()) > m) continue;
    // One region per marker set, at its topmost link (a 3-DoF hip is three links).
    const int parent = model.parent(LinkId(top)).value;
    if (parent > 0 && sub[static_cast<std::size_t>(parent)] == markers) continue;
    Region r;
    r.markers = markers;
    for (int l = top; l < nl; ++l)
      if (inSubtree(l, top)) {
        const int j = model.jointOfLink(LinkId(l)).value;
        if (!(lm->lower[j] == lm->upper[j])) r.joints.push_back(j);
      }
    if (!r.joints.empty()) regions.push_back(std::move(r));
  }
  // Segments whose subtree is too large to be a limb (the pelvis, the torso) but that carry a
  // cluster of their own (three or more markers): their markers alone, the joints between the
  // segment and the nearest ancestor with markers. An initialisation that put the pelvis's labels
  // wrong (LASI on LPSI's point, three gaps: the Rajagopal run with ghosts near, seed 108) is
  // otherwise tracked wrong to the end: no limb covers the pelvis.
  std::vector<int> own(static_cast<std::size_t>(nl), 0);
  for (int i = 0; i < m; ++i) ++own[static_cast<std::size_t>(lm->link[static_cast<std::size_t>(i)])];
  for (int l = 0; l < nl; ++l) {
    if (own[static_cast<std::size_t>(l)] < 3) continue;
    Region r;
    for (int i = 0; i < m; ++i)
      if (lm->link[static_cast<std::size_t>(i)] == l) r.markers.push_back(i);
    bool known = false;
    for (const Region& q : regions) known = known || q.markers == r.markers;
    if (known) continue;
    for (int k = l; k > 0; k = model.parent(LinkId(k)).value) {
      if (k != l && own[static_cast<std::size_t>(k)] > 0) break;
      const int j = model.jointOfLink(LinkId(k)).value;
      if (!(lm->lower[j] == lm->upper[j])) r.joints.push_back(j);
    }
    r.segment = true;
    regions.push_back(std::move(r));
  }
  std::stable_sort(regions.begin(), regions.end(),
                   [](const Region& a, const Region& b) { return a.markers.size() > b.markers.size(); });
  region_cooldown.assign(regions.size(), 0);
  region_backoff.assign(regions.size(), 1);
  in_region.assign(static_cast<std::size_t>(m), 0);
  jumped_marker.assign(static_cast<std::size_t>(m), 0);
  jumped_joint.assign(static_cast<std::size_t>(model.numJoints()), 0);
  limb_saved_mp.resize(static_cast<std::size_t>(m));
  limb_best_mp.resize(static_cast<std::size_t>(m));
  limb_q = limb_start = limb_best_q = lm->reference;
  for (int j = 0; j < model.numJoints(); ++j) {
    const JointType type = model.jointType(JointId(j));
    if (!(lm->lower[j] == lm->upper[j]) && (type == JointType::Revolute || type == JointType::Continuous))
      prior_joints.push_back(j);
  }
  // Close pairs: markers a few cm apart at the reference pose (a wrist bar's two markers); the
  // crowding distances: half of every pair's distance at the reference pose, at most crowd_distance.
  std::vector<Vector3d> x(static_cast<std::size_t>(m));
  markerPositions(lm->reference, false, x);
  crowd.assign(static_cast<std::size_t>(m) * static_cast<std::size_t>(m), 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j)
      if (i != j)
        crowd[static_cast<std::size_t>(i) * static_cast<std::size_t>(m) + static_cast<std::size_t>(j)] = std::min(
            opt.crowd_distance, 0.5 * (x[static_cast<std::size_t>(i)] - x[static_cast<std::size_t>(j)]).norm());
  if (opt.swap_check_distance > 0.0) {
    for (int i = 0; i < m; ++i)
      for (int j = i + 1; j < m; ++j)
        if (nearLinks(lm->link[static_cast<std::size_t>(i)], lm->link[static_cast<std::size_t>(j)]) &&
            (x[static_cast<std::size_t>(i)] - x[static_cast<std::size_t>(j)]).norm() < opt.swap_check_distance)
          close_pairs.push_back({i, j});
  }
  pair_wait.assign(close_pairs.size(), 0);
}

bool Labeller::Impl::nearLinks(int a, int b) const {
  const Model& model = *lm->model;
  auto up = [&](int from, int to) {
    for (int hops = 0, l = from; hops <= 3 && l >= 0; ++hops, l = l == 0 ? -1 : model.parent(LinkId(l)).value)
      if (l == to) return true;
    return false;
  };
  return up(a, b) || up(b, a);
}

double Labeller::Impl::posePrior(const Configuration& q) const {
  double sum = 0.0;
  for (int j : prior_joints) {
    const double d = std::remainder(q.joints[j] - lm->reference.joints[j], 2.0 * M_PI);
    sum += d * d;
  }
  return opt.init_pose_weight * sum;
}

void Labeller::Impl::swapCheck() {
  if (close_pairs.empty()) return;
  for (int& w : pair_wait) w = std::max(w - 1, 0);
  // A pair the model's geometry says is exchanged is tried at once (then no other such pair for
  // limb_search_interval frames if the swap does not fit better); otherwise, every
  // limb_search_interval frames, the pair whose markers miss their model places most among those
  // not tried for pair_retry frames.
  suspect_wait = std::max(suspect_wait - 1, 0);
  int worst = -1;
  const int suspect = suspectPair(&worst);
  const bool exchanged = suspect >= 0 && suspect_wait == 0;
  int k = exchanged ? suspect : worst;
  if (!exchanged && swap_cooldown-- > 0) return;
  if (exchanged)
    suspect_wait = opt.limb_search_interval;
  else
    swap_cooldown = opt.limb_search_interval - 1;
  if (k < 0) return;
  pair_wait[static_cast<std::size_t>(k)] = pair_retry;
  const LabellerModel::Pair pair = close_pairs[static_cast<std::size_t>(k)];
  const auto I = static_cast<std::size_t>(pair.i), J = static_cast<std::size_t>(pair.j);
  if (mp[I] < 0 || mp[J] < 0) return;
  limb_q = ik.state();
  init_ik = out.ik;
  const double base = fitScore() + posePrior(limb_q);
  std::swap(mp[I], mp[J]);
  if (solveIk(limb_q) && fitScore() + posePrior(ik.state()) < 0.98 * base) {
    relabelled = true;
    ++out.relabelled;
    ++out.swaps_corrected;
    suspect_wait = 0;
    // Kept: the two markers start their offsets and learnt distances again.
    residual[I].setZero();
    residual[J].setZero();
    for (std::size_t p = 0; p < lm->pairs.size(); ++p)
      if (lm->pairs[p].i == pair.i || lm->pairs[p].j == pair.i || lm->pairs[p].i == pair.j || lm->pairs[p].j == pair.j)
        pair_ref[p] = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  std::swap(mp[I], mp[J]);
  ik.setState(limb_q);
  solveIk(limb_q);
}

double Labeller::Impl::limbRefine(const Configuration& start, int n) {
  ik.setState(start);
  const int rounds = opt.limb_rounds;
  std::fill(settle_mp.begin(), settle_mp.end(), -2);
  for (int r = 0; r < rounds; ++r) {
    const double frac = std::min(1.0, 2.0 * r / std::max(1, rounds - 1));
    const double g = opt.limb_gate * std::pow(opt.init_refine_gate / opt.limb_gate, frac);
    // The labels outside the region stay; their points are not for the region.
    for (int p = 0; p < n; ++p) point_taken[static_cast<std::size_t>(p)] = 0;
    for (int i = 0; i < m; ++i) {
      const auto I = static_cast<std::size_t>(i);
      gate[I] = in_region[I] ? g : 1e-9;
      if (!in_region[I] && limb_saved_mp[I] >= 0) point_taken[static_cast<std::size_t>(limb_saved_mp[I])] = 1;
    }
    markerPositions(ik.state(), false, targets);
    assign(targets, gate, n, true);
    for (int i = 0; i < m; ++i)
      if (!in_region[static_cast<std::size_t>(i)])
        mp[static_cast<std::size_t>(i)] = limb_saved_mp[static_cast<std::size_t>(i)];
    if (frac >= 1.0 && mp == settle_mp) break;
    settle_mp = mp;
    if (!solveIk(ik.state())) return std::numeric_limits<double>::infinity();
  }
  return fitScore();
}

int Labeller::Impl::limbSearch(int n, bool tracking) {
  if (!opt.limb_search || regions.empty()) return 0;
  int relabelled = 0, searched = 0;
  for (std::size_t k = 0; k < regions.size(); ++k) {
    if (tracking && searched >= opt.limb_max_per_frame) break;
    const Region& region = regions[k];
    if (tracking && (region_cooldown[k] > 0 || limb_cooldown > 0)) continue;
    int assigned = 0;
    for (int p = 0; p < n; ++p) point_used[static_cast<std::size_t>(p)] = 0;
    for (int i = 0; i < m; ++i)
      if (mp[static_cast<std::size_t>(i)] >= 0)
        ++assigned, point_used[static_cast<std::size_t>(mp[static_cast<std::size_t>(i)])] = 1;
    if (assigned >= n) return relabelled;  // no point left to search among
    // Flagged: a marker far from its model place, or a gap with a point left within limb_gate of
    // where the model puts it (a marker hidden with nothing near is just hidden; a limb mostly
    // gaps may have been solved far from its points: twice that). A point crowding a labelled one
    // does not count: it is most likely a ghost beside that marker, and a search would give it to
    // the hidden marker.
    int gaps = 0;
    for (int i : region.markers) gaps += mp[static_cast<std::size_t>(i)] < 0;
    const double near = 2 * gaps >= static_cast<int>(region.markers.size()) ? 2.0 * opt.limb_gate
                        : tracking                                          ? opt.gate_max
                                                                            : opt.limb_gate;
    auto crowded = [&](int p) {
      for (int j = 0; j < m; ++j) {
        const int q = mp[static_cast<std::size_t>(j)];
        if (q >= 0 && (pts[static_cast<std::size_t>(p)] - pts[static_cast<std::size_t>(q)]).squaredNorm() <
                          opt.crowd_distance * opt.crowd_distance)
          return true;
      }
      return false;
    };
    bool flagged = false;
    for (int i : region.markers) {
      const auto I = static_cast<std::size_t>(i);
      const double e = ik.markerError(ik::MarkerTaskId(i));
      if (mp[I] >= 0) {
        // Tracking: the point against its prediction (the residual offset included: a marker
        // that sits off its model place is not inconsistent); initialisation: the IK's error.
        const double miss = tracking ? (pts[static_cast<std::size_t>(mp[I])] - pred[I]).norm() : e;
        flagged = flagged || (std::isfinite(miss) && miss > opt.limb_error);
        continue;
      }
      if (flagged) continue;
      const Vector3d x = ik.modelMarker(ik::MarkerTaskId(i));
      for (int p = 0; p < n && !flagged; ++p)
        flagged = !point_used[static_cast<std::size_t>(p)] &&
                  (pts[static_cast<std::size_t>(p)] - x).squaredNorm() < near * near && !crowded(p);
    }
    if (!flagged) continue;
    ++searched;
    if (tracking) {
      // A limb that keeps failing waits longer (up to 8 intervals); any search holds the others
      // for one interval, so a frame rarely pays for a search.
      region_backoff[k] = std::min(region_backoff[k] * 2, 8);
      region_cooldown[k] = opt.limb_search_interval * region_backoff[k];
      limb_cooldown = opt.limb_search_interval;
    }
    std::fill(in_region.begin(), in_region.end(), 0);
    for (int i : region.markers) in_region[static_cast<std::size_t>(i)] = 1;
    limb_saved_mp = mp;
    limb_q = ik.state();
    const double base = fitScore() + posePrior(limb_q);
    double best = base;
    bool found = false;
    // Starts of the region's joints: where they are, the reference pose's, the zero pose's, and
    // the middle of their bounds (a knee bent half-way: the trial on a stair step starts at 97°).
    // A segment region restarts from where it is only: its joints may place the whole body.
    for (int s = 0; s < (region.segment ? 1 : 4); ++s) {
      limb_start = limb_q;
      if (s == 1 || s == 2)
        for (int j : region.joints) limb_start.joints[j] = startPose(s - 1).joints[j];
      if (s == 3) {
        bool bounded = false;
        for (int j : region.joints)
          if (std::isfinite(lm->lower[j]) && std::isfinite(lm->upper[j])) {
            limb_start.joints[j] = 0.5 * (lm->lower[j] + lm->upper[j]);
            bounded = true;
          }
        if (!bounded) break;
      }
      const double score = limbRefine(limb_start, n) + posePrior(ik.state());
      // Only a relabelling counts: the same labels in another pose are the same answer.
      if (score < 0.98 * best && mp != limb_saved_mp && consistentChange(limb_saved_mp)) {
        best = score;
        found = true;
        limb_best_mp = mp;
        limb_best_q = ik.state();
      }
    }
    if (found) {
      mp = limb_best_mp;
      ik.setState(limb_best_q);
      ++relabelled;
      for (int j : region.joints) jumped_joint[static_cast<std::size_t>(j)] = 1;
      for (int i : region.markers) jumped_marker[static_cast<std::size_t>(i)] = 1;
      ++out.relabelled;
      region_cooldown[k] = 0;
      region_backoff[k] = 1;
      // Labels that changed start their offsets and learnt distances again.
      for (int i : region.markers)
        if (mp[static_cast<std::size_t>(i)] != limb_saved_mp[static_cast<std::size_t>(i)]) {
          residual[static_cast<std::size_t>(i)].setZero();
          for (std::size_t p = 0; p < lm->pairs.size(); ++p)
            if (lm->pairs[p].i == i || lm->pairs[p].j == i) pair_ref[p] = std::numeric_limits<double>::quiet_NaN();
        }
    } else {
      mp = limb_saved_mp;
      ik.setState(limb_q);
    }
    solveIk(ik.state());  // the IK result and marker errors of the labels kept
  }
  return relabelled;
}

}  // namespace kinetrack::markers
