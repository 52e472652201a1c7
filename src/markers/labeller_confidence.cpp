// How sure the labeller is of each label, and which close pair of markers the model's geometry
// says is swapped (labeller.hpp, LabellerOptions::confidence_sigma).
#include <cmath>
#include <limits>

#include "kinetrack/core/so3.hpp"
#include "labeller_impl.hpp"

namespace kinetrack::markers {

void Labeller::Impl::solvedPlaces(std::vector<Vector3d>& places) const {
  // The IK's own kinematics at the solved pose (no second forward-kinematics pass): each marker's
  // model place plus its residual offset turned by its frame.
  for (int i = 0; i < m; ++i)
    places[static_cast<std::size_t>(i)] =
        ik.modelMarker(ik::MarkerTaskId(i)) + markerRotation(i) * residual[static_cast<std::size_t>(i)];
}

int Labeller::Impl::confidences(int n) {
  // Marker i's label p against the best other point q near its solved place x̂ (the model's
  // marker at the solved pose plus its residual offset of the past frames): the logistic of
  // (cost(q) − cost(p)) / 2σ², the posterior of p over q for equal priors and Gaussian misses of
  // σ, with cost = ‖· − x̂‖², plus the link's rigid-fit residuals (clusterCost) on a link with
  // three or more labelled markers — the same costs clusterCheck decided by. Another marker's
  // point counts as q (a swap is the doubt that matters most).
  solvedPlaces(targets);
  const double inv = 1.0 / (2.0 * opt.confidence_sigma * opt.confidence_sigma);
  const double g2 = opt.gate_radius * opt.gate_radius;
  int unsure = 0;
  for (int i = 0; i < m; ++i) {
    const auto I = static_cast<std::size_t>(i);
    const int p = mp[I];
    if (p < 0) {
      out.confidence[I] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const Vector3d& x = targets[I];
    double own = (pts[static_cast<std::size_t>(p)] - x).squaredNorm();
    double alt = std::numeric_limits<double>::infinity();
    bool rival = false;  // another point within gate_radius: the cluster's fit has a say
    for (int q = 0; q < n; ++q) {
      if (q == p) continue;
      const double c = (pts[static_cast<std::size_t>(q)] - x).squaredNorm();
      alt = std::min(alt, c);
      rival = rival || c < g2;
    }
    // The cluster's fit is asked only when the distances leave doubt (c < 0.993): SVDs for every
    // foot marker whose neighbour is 4 cm away would double the labelling's time.
    if (rival && onCluster(i) && (alt - own) * inv < 5.0) {
      const int link = lm->link[I];
      const double own_fit = clusterCost(link, i, p);
      if (!std::isnan(own_fit)) {
        own += own_fit;
        alt = std::numeric_limits<double>::infinity();
        for (int q = 0; q < n; ++q) {
          if (q == p) continue;
          double c = (pts[static_cast<std::size_t>(q)] - x).squaredNorm();
          if (c < g2) c += clusterCost(link, i, q);
          alt = std::min(alt, c);
        }
      }
    }
    const double z = (alt - own) * inv;
    const double c = std::isinf(alt) ? 1.0 : z > 40.0 ? 1.0 : z < -40.0 ? 0.0 : 1.0 / (1.0 + std::exp(-z));
    out.confidence[I] = c;
    unsure += c < opt.unsure_threshold;
  }
  return unsure;
}

double Labeller::Impl::clusterCost(int link, int marker, int point) const {
  // Σ squared residuals of the rigid fit (Kabsch: the rotation from the SVD of the
  // cross-covariance, no reflection) of the link's learnt shape — its markers at the solved pose
  // with their residual offsets, i.e. where they were measured in the link's frame over the past
  // frames — onto its labelled points, `marker` on `point` instead of its own.
  const int first = link_first[static_cast<std::size_t>(link)], last = link_first[static_cast<std::size_t>(link) + 1];
  auto pointOf = [&](int i) { return i == marker ? point : mp[static_cast<std::size_t>(i)]; };
  int k = 0;
  Vector3d a = Vector3d::Zero(), b = Vector3d::Zero();
  for (int e = first; e < last; ++e) {
    const int i = link_markers[static_cast<std::size_t>(e)], p = pointOf(i);
    if (p < 0) continue;
    a += targets[static_cast<std::size_t>(i)];
    b += pts[static_cast<std::size_t>(p)];
    ++k;
  }
  if (k < 3) return std::numeric_limits<double>::quiet_NaN();
  a /= k;
  b /= k;
  // Kabsch: the rotation nearest the cross-covariance Σ (point − b)(shape − a)ᵀ.
  Matrix3d C = Matrix3d::Zero();
  for (int e = first; e < last; ++e) {
    const int i = link_markers[static_cast<std::size_t>(e)], p = pointOf(i);
    if (p >= 0) C += (pts[static_cast<std::size_t>(p)] - b) * (targets[static_cast<std::size_t>(i)] - a).transpose();
  }
  const Matrix3d R = so3::project(C);
  double cost = 0.0;
  for (int e = first; e < last; ++e) {
    const int i = link_markers[static_cast<std::size_t>(e)], p = pointOf(i);
    if (p >= 0)
      cost += (R * (targets[static_cast<std::size_t>(i)] - a) + b - pts[static_cast<std::size_t>(p)]).squaredNorm();
  }
  return cost;
}

int Labeller::Impl::clusterCheck(int n) {
  // A labelled marker on a link with at least three labelled markers, with an unlabelled point
  // within gate_radius of its solved place: the one of the two with the smaller sum of the link's
  // rigid-fit residuals and the squared distance from the solved place is the marker. The fit
  // alone cannot decide on a three-marker cluster (a ghost displaced along the rotation about the
  // other two markers' axis keeps every distance: a shank's ghost 31 mm off fitted better than the
  // marker 6 mm off), the distance alone misses where the whole body's fit is centimetres off (the
  // generic Rajagopal model: 18 mm RMS on the run). targets: the solved places.
  for (int p = 0; p < n; ++p) point_taken[static_cast<std::size_t>(p)] = 0;
  for (int i = 0; i < m; ++i)
    if (mp[static_cast<std::size_t>(i)] >= 0)
      point_taken[static_cast<std::size_t>(mp[static_cast<std::size_t>(i)])] = 1;
  const double g2 = opt.gate_radius * opt.gate_radius;
  int changed = 0;
  for (int i = 0; i < m; ++i) {
    const auto I = static_cast<std::size_t>(i);
    if (mp[I] < 0) continue;
    const int link = lm->link[I];
    if (!onCluster(i)) continue;
    double best = std::numeric_limits<double>::quiet_NaN();
    int best_p = mp[I];
    for (int q = 0; q < n; ++q) {
      if (point_taken[static_cast<std::size_t>(q)] ||
          !((pts[static_cast<std::size_t>(q)] - targets[I]).squaredNorm() < g2))
        continue;
      if (std::isnan(best))
        best = clusterCost(link, i, mp[I]) + (pts[static_cast<std::size_t>(mp[I])] - targets[I]).squaredNorm();
      if (std::isnan(best)) break;  // fewer than three labelled markers on the link
      const double c = clusterCost(link, i, q) + (pts[static_cast<std::size_t>(q)] - targets[I]).squaredNorm();
      if (c < best) best = c, best_p = q;
    }
    if (best_p != mp[I]) {
      point_taken[static_cast<std::size_t>(mp[I])] = 0;
      point_taken[static_cast<std::size_t>(best_p)] = 1;
      mp[I] = best_p;
      ++changed;
    }
  }
  return changed;
}

int Labeller::Impl::reassignAtSolvedPose(int n) {
  // The first assignment is to an extrapolated prediction, which misses by centimetres where the
  // body accelerates (a foot at 60 Hz): a ghost nearer that prediction than the marker wins. At
  // the solved pose the segment is where its markers put it. Markers of links with three or more
  // labelled markers are decided by the link's rigid fit (clusterCheck); any other labelled
  // marker with a point nearer its solved place (+ residual offset) than its own is assigned
  // again around its solved place (gate_radius), the rest of the labels fixed.
  solvedPlaces(targets);
  track_mp = mp;
  clusterCheck(n);
  // Doubt: an unlabelled point nearer a marker's solved place than its own (clusterCheck left
  // point_taken marking the labelled points). A labelled neighbour nearer is the model's misfit
  // (gait2354's acromion markers sit 6 cm off their model places), not a ghost; exchanged pairs
  // are the swap check's.
  bool doubt = false;
  for (int i = 0; i < m && !doubt; ++i) {
    const auto I = static_cast<std::size_t>(i);
    const int p = mp[I];
    if (p < 0 || onCluster(i)) continue;
    const double own = (pts[static_cast<std::size_t>(p)] - targets[I]).squaredNorm();
    for (int q = 0; q < n && !doubt; ++q)
      doubt = !point_taken[static_cast<std::size_t>(q)] &&
              (pts[static_cast<std::size_t>(q)] - targets[I]).squaredNorm() < own;
  }
  if (doubt) {
    settle_mp = mp;
    int before = 0;
    for (int p = 0; p < n; ++p) point_taken[static_cast<std::size_t>(p)] = 0;
    for (int i = 0; i < m; ++i) {
      const auto I = static_cast<std::size_t>(i);
      before += mp[I] >= 0;
      const bool free = mp[I] >= 0 && !onCluster(i);
      gate[I] = free ? opt.gate_radius : 1e-9;
      if (!free && mp[I] >= 0) point_taken[static_cast<std::size_t>(mp[I])] = 1;
    }
    assign(targets, gate, n, true);
    int after = 0;
    for (int i = 0; i < m; ++i) {
      const auto I = static_cast<std::size_t>(i);
      if (gate[I] < opt.gate_radius) mp[I] = settle_mp[I];
      after += mp[I] >= 0;
    }
    if (after < before) mp = settle_mp;  // labels lost: keep them as they were
  }
  int changed = 0;
  for (int i = 0; i < m; ++i) changed += mp[static_cast<std::size_t>(i)] != track_mp[static_cast<std::size_t>(i)];
  if (changed > 0) solveIk(ik.state());
  return changed;
}

int Labeller::Impl::suspectPair(int* worst_fit) const {
  // At the solved pose, without residual offsets (they follow whatever the labels were), a pair
  // whose two points fit the model's two marker places better exchanged than as labelled: the
  // segment's orientation and the markers' places on it say which is which. When none does, the
  // pair (not tried in the last pair_retry frames) whose two markers miss their model places
  // most: the IK turns a segment to half-fit a swapped pair (a humerus rolled under its two
  // epicondyles exchanged), so neither fits well, while a right pair misses by the model's error.
  int best = -1, worst = -1;
  double best_margin = 0.0, worst_miss = 0.0;
  for (std::size_t k = 0; k < close_pairs.size(); ++k) {
    const auto I = static_cast<std::size_t>(close_pairs[k].i), J = static_cast<std::size_t>(close_pairs[k].j);
    if (mp[I] < 0 || mp[J] < 0) continue;
    const Vector3d& xi = ik.modelMarker(ik::MarkerTaskId(close_pairs[k].i));
    const Vector3d& xj = ik.modelMarker(ik::MarkerTaskId(close_pairs[k].j));
    const Vector3d& pi = pts[static_cast<std::size_t>(mp[I])];
    const Vector3d& pj = pts[static_cast<std::size_t>(mp[J])];
    const double keep = (pi - xi).squaredNorm() + (pj - xj).squaredNorm();
    const double swapped = (pj - xi).squaredNorm() + (pi - xj).squaredNorm();
    if (keep - swapped > best_margin) best_margin = keep - swapped, best = static_cast<int>(k);
    if (pair_wait[k] == 0 && keep > worst_miss) worst_miss = keep, worst = static_cast<int>(k);
  }
  *worst_fit = worst;
  return best;
}

}  // namespace kinetrack::markers
