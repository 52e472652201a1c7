// How sure the labeller is of each label, and which close pair of markers the model's geometry
// says is swapped (labeller.hpp, LabellerOptions::confidence_sigma).
#include <cmath>
#include <limits>

#include "labeller_impl.hpp"

namespace kinetrack::markers {

int Labeller::Impl::confidences(int n) {
  // Marker i's label p against the best other point q near its solved place x̂ (the model's
  // marker at the solved pose plus its residual offset of the past frames): the logistic of
  // (‖q − x̂‖² − ‖p − x̂‖²) / 2σ², the posterior of p over q for equal priors and Gaussian
  // misses of σ. Another marker's point counts as q (a swap is the doubt that matters most).
  const Data& d = ik.data();
  const double inv = 1.0 / (2.0 * opt.confidence_sigma * opt.confidence_sigma);
  int unsure = 0;
  for (int i = 0; i < m; ++i) {
    const auto I = static_cast<std::size_t>(i);
    const int p = mp[I];
    if (p < 0) {
      out.confidence[I] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const FrameId fr = lm->frame_ids[I];
    const Matrix3d R = d.link[lm->model->frameLink(fr).value].R * lm->model->framePlacement(fr).R;
    const Vector3d x = ik.modelMarker(ik::MarkerTaskId(i)) + R * residual[I];
    const double own = (pts[static_cast<std::size_t>(p)] - x).squaredNorm();
    double alt = std::numeric_limits<double>::infinity();
    for (int q = 0; q < n; ++q)
      if (q != p) alt = std::min(alt, (pts[static_cast<std::size_t>(q)] - x).squaredNorm());
    const double z = (alt - own) * inv;
    const double c = std::isinf(alt) ? 1.0 : z > 40.0 ? 1.0 : z < -40.0 ? 0.0 : 1.0 / (1.0 + std::exp(-z));
    out.confidence[I] = c;
    unsure += c < opt.unsure_threshold;
  }
  return unsure;
}

int Labeller::Impl::suspectPair() const {
  // At the solved pose, without residual offsets (they follow whatever the labels were), a pair
  // whose two points fit the model's two marker places better exchanged than as labelled: the
  // segment's orientation and the markers' places on it say which is which.
  int best = -1;
  double best_margin = 0.0;
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
  }
  return best;
}

}  // namespace kinetrack::markers
