// Hand-model calibration from the recording: triad shape by medians, each digit by a bundle
// adjustment (Levenberg–Marquardt, Schur complement over the per-frame pose angles). docs/hand.md.
#include "kinetrack/hand/hand_calibration.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::hand {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;
constexpr double kPiF = std::numbers::pi;
using Vec8 = Eigen::Matrix<double, 8, 1>;
using Vec4 = Eigen::Vector4d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat68 = Eigen::Matrix<double, 6, 8>;
using Mat64 = Eigen::Matrix<double, 6, 4>;
using Mat48 = Eigen::Matrix<double, 4, 8>;
using Mat8 = Eigen::Matrix<double, 8, 8>;

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

Vector3d medianPoint(const std::vector<Vector3d>& pts) {
  Vector3d m;
  for (int k = 0; k < 3; ++k) {
    std::vector<double> c;
    c.reserve(pts.size());
    for (const auto& p : pts) c.push_back(p[k]);
    m[k] = median(std::move(c));
  }
  return m;
}

// One digit's bundle adjustment. Digit parameters g: root (3), axis tilt (2), scale, marker
// along, marker offset. Frame parameters x: ψ, θ1, θ2, θ3.
struct DigitProblem {
  bool thumb = false;
  Vector3d axis0, ref, u1, u2;  // initial axis, reference direction, tilt directions
  std::array<double, 3> lengths0{};
  std::array<std::array<double, 2>, 3> bounds{};  // per-frame flexion bounds (rad)
  Vec8 g0;                                        // prior means
  Vec8 prior_weight;                              // prior residual = w (g − g0)
  std::vector<Vector3d> middle, tip;              // hand frame

  DigitGeometry geometry(const Vec8& g) const {
    DigitGeometry d;
    d.root = g.head<3>();
    d.axis = (axis0 + g[3] * u1 + g[4] * u2).normalized();
    if (thumb) {
      d.zero = d.axis;
      d.flex = (ref - ref.dot(d.axis) * d.axis).normalized();
    } else {
      d.flex = -d.axis;
      d.zero = (ref - ref.dot(d.axis) * d.axis).normalized();
    }
    for (std::size_t j = 0; j < 3; ++j) d.length[j] = g[5] * lengths0[j];
    d.marker_bone = thumb ? 1 : 0;
    d.marker_along = g[6];
    d.marker_offset = g[7];
    return d;
  }

  static DigitPose pose(const Vec4& x) { return DigitPose{x[0], {x[1], x[2], x[3]}}; }

  Vec6 residual(const DigitGeometry& d, const Vec4& x, std::size_t f) const {
    Vec6 r;
    const DigitPose p = pose(x);
    r.head<3>() = middleMarker(d, p) - middle[f];
    r.tail<3>() = digitPoints(d, p)[3] - tip[f];
    return r;
  }

  double cost(const Vec8& g, const std::vector<Vec4>& x) const {
    const DigitGeometry d = geometry(g);
    double c = prior_weight.cwiseProduct(g - g0).squaredNorm();
    for (std::size_t f = 0; f < x.size(); ++f) c += residual(d, x[f], f).squaredNorm();
    return c;
  }
};

void solveDigit(const DigitProblem& P, Vec8& g, std::vector<Vec4>& x, int iterations) {
  const std::size_t K = x.size();
  std::vector<Eigen::Matrix4d> U(K), Uinv(K);
  std::vector<Mat48> W(K);
  std::vector<Vec4> gf(K);
  double lambda = 1e-3;
  double cost = P.cost(g, x);
  constexpr double h = 1e-6;
  for (int it = 0; it < iterations; ++it) {
    const DigitGeometry d = P.geometry(g);
    std::array<DigitGeometry, 16> dg;  // ± perturbed geometries
    for (int k = 0; k < 8; ++k) {
      Vec8 gp = g, gm = g;
      gp[k] += h;
      gm[k] -= h;
      dg[static_cast<std::size_t>(2 * k)] = P.geometry(gp);
      dg[static_cast<std::size_t>(2 * k + 1)] = P.geometry(gm);
    }
    Mat8 V = P.prior_weight.cwiseAbs2().asDiagonal();
    Vec8 gg = P.prior_weight.cwiseAbs2().cwiseProduct(g - P.g0);
    for (std::size_t f = 0; f < K; ++f) {
      const Vec6 r = P.residual(d, x[f], f);
      Mat64 A;
      Mat68 B;
      for (int k = 0; k < 4; ++k) {
        Vec4 xp = x[f], xm = x[f];
        xp[k] += h;
        xm[k] -= h;
        A.col(k) = (P.residual(d, xp, f) - P.residual(d, xm, f)) / (2 * h);
      }
      for (int k = 0; k < 8; ++k) {
        B.col(k) = (P.residual(dg[static_cast<std::size_t>(2 * k)], x[f], f) -
                    P.residual(dg[static_cast<std::size_t>(2 * k + 1)], x[f], f)) /
                   (2 * h);
      }
      U[f] = A.transpose() * A;
      W[f] = A.transpose() * B;
      gf[f] = A.transpose() * r;
      V += B.transpose() * B;
      gg += B.transpose() * r;
    }
    bool accepted = false;
    for (int attempt = 0; attempt < 10 && !accepted; ++attempt) {
      Mat8 S = V;
      S.diagonal() *= 1.0 + lambda;
      S.diagonal().array() += 1e-12;
      Vec8 rhs = -gg;
      for (std::size_t f = 0; f < K; ++f) {
        Eigen::Matrix4d Ud = U[f];
        Ud.diagonal() *= 1.0 + lambda;
        Ud.diagonal().array() += 1e-12;
        Uinv[f] = Ud.inverse();
        S -= W[f].transpose() * Uinv[f] * W[f];
        rhs += W[f].transpose() * Uinv[f] * gf[f];
      }
      const Vec8 dgl = S.ldlt().solve(rhs);
      Vec8 g_new = g + dgl;
      std::vector<Vec4> x_new(K);
      for (std::size_t f = 0; f < K; ++f) {
        x_new[f] = x[f] - Uinv[f] * (gf[f] + W[f] * dgl);
        for (std::size_t j = 0; j < 3; ++j) {
          const auto i = static_cast<Eigen::Index>(j) + 1;
          x_new[f][i] = std::clamp(x_new[f][i], P.bounds[j][0], P.bounds[j][1]);
        }
      }
      const double c = g_new.allFinite() ? P.cost(g_new, x_new) : std::numeric_limits<double>::infinity();
      if (c < cost) {
        const double gain = cost - c;
        g = g_new;
        x.swap(x_new);
        cost = c;
        lambda = std::max(lambda / 3.0, 1e-9);
        accepted = true;
        if (gain < 1e-12 * cost) return;
      } else {
        lambda *= 5.0;
      }
    }
    if (!accepted) return;
  }
}

}  // namespace

std::array<double, 3> averageBoneLengths(int digit) {
  // Rounded adult averages of the phalanges (thumb: metacarpal, proximal, distal), the distal
  // bone taken to the nail marker, after Buryanov & Kotiuk (2010); only the ratios matter here.
  static constexpr std::array<std::array<double, 3>, kDigits> kLengths{{
      {0.046, 0.032, 0.022},  // thumb
      {0.040, 0.023, 0.016},  // index
      {0.045, 0.027, 0.017},  // middle
      {0.042, 0.026, 0.017},  // ring
      {0.033, 0.018, 0.016},  // little
  }};
  if (digit < 0 || digit >= kDigits) throw InvalidArgument("hand::averageBoneLengths: digit out of range");
  return kLengths[static_cast<std::size_t>(digit)];
}

HandMarkerIndex findHandMarkers(const io::MarkerTrajectories& recording, const HandMarkerNames& names) {
  auto find = [&](const std::string& n) {
    for (int m = 0; m < recording.numMarkers(); ++m) {
      if (recording.names[static_cast<std::size_t>(m)] == n) return m;
    }
    std::string known;
    for (const auto& k : recording.names) known += (known.empty() ? "" : ", ") + k;
    throw InvalidArgument(recording.source + ": marker '" + n + "' not found; the recording has: " + known);
  };
  HandMarkerIndex idx;
  for (std::size_t i = 0; i < 3; ++i) idx.triad[i] = find(names.triad[i]);
  for (std::size_t d = 0; d < kDigits; ++d) {
    idx.tip[d] = find(names.tip[d]);
    idx.middle[d] = find(names.middle[d]);
  }
  return idx;
}

HandCalibration calibrateHand(const io::MarkerTrajectories& rec, const HandMarkerIndex& mk,
                              const CalibrationOptions& options) {
  HandCalibration out;
  const int F = options.end_frame < 0 ? rec.numFrames() : options.end_frame;
  const int F0 = options.first_frame;
  if (F0 < 0 || F > rec.numFrames() || F0 >= F) {
    throw InvalidArgument(rec.source + ": calibration frames [" + std::to_string(F0) + ", " + std::to_string(F) +
                          ") are empty or outside the recording's " + std::to_string(rec.numFrames()) + " frames");
  }
  std::vector<Transform> frames(static_cast<std::size_t>(F));
  std::vector<std::uint8_t> valid(static_cast<std::size_t>(F), 0);
  std::array<std::vector<Vector3d>, 3> triad_local;
  for (int f = F0; f < F; ++f) {
    Transform T;
    if (!handFrame(rec.position(f, mk.triad[0]), rec.position(f, mk.triad[1]), rec.position(f, mk.triad[2]), T)) {
      continue;
    }
    frames[static_cast<std::size_t>(f)] = T;
    valid[static_cast<std::size_t>(f)] = 1;
    for (std::size_t i = 0; i < 3; ++i) {
      triad_local[i].push_back(T.R.transpose() * (rec.position(f, mk.triad[i]) - T.p));
    }
  }
  out.triad_frames = static_cast<int>(triad_local[0].size());
  if (out.triad_frames == 0) throw InvalidArgument(rec.source + ": the hand triad is never complete");
  double ss = 0.0;
  for (std::size_t i = 0; i < 3; ++i) {
    out.geometry.triad[i] = medianPoint(triad_local[i]);
    for (const auto& p : triad_local[i]) ss += (p - out.geometry.triad[i]).squaredNorm();
  }
  out.triad_rms = std::sqrt(ss / (3.0 * out.triad_frames));

  // Index first: the thumb's plane axis starts towards the index root.
  for (const int digit : {1, 2, 3, 4, 0}) {
    const auto ds = static_cast<std::size_t>(digit);
    DigitProblem P;
    P.thumb = digit == 0;
    std::vector<int> usable;
    for (int f = F0; f < F; ++f) {
      if (valid[static_cast<std::size_t>(f)] && rec.isValid(f, mk.tip[ds]) && rec.isValid(f, mk.middle[ds])) {
        usable.push_back(f);
      }
    }
    if (usable.size() < 20) {
      throw InvalidArgument(rec.source + ": digit '" + digitName(digit) + "' has only " +
                            std::to_string(usable.size()) + " frames with the triad and both markers (20 needed)");
    }
    const std::size_t K =
        std::min<std::size_t>(usable.size(), static_cast<std::size_t>(std::max(20, options.max_frames)));
    for (std::size_t s = 0; s < K; ++s) {
      const int f = usable[s * usable.size() / K];
      const Transform& T = frames[static_cast<std::size_t>(f)];
      P.middle.push_back(T.R.transpose() * (rec.position(f, mk.middle[ds]) - T.p));
      P.tip.push_back(T.R.transpose() * (rec.position(f, mk.tip[ds]) - T.p));
    }
    P.lengths0 = averageBoneLengths(digit);
    // Flexion bounds of the fit: they pick the anatomical branch of the two in-plane solutions
    // (flexed, not hyperextended); the thumb's zero is along its plane axis, so it is left free.
    if (P.thumb) {
      P.bounds = {{{-kPiF, kPiF}, {-kPiF, kPiF}, {-30 * kDeg, 100 * kDeg}}};
    } else {
      P.bounds = {{{-40 * kDeg, 100 * kDeg}, {-10 * kDeg, 120 * kDeg}, {-20 * kDeg, 100 * kDeg}}};
    }
    const Vector3d mid = medianPoint(P.middle);
    Vector3d root0;
    if (P.thumb) {
      root0 = Vector3d(-0.030, 0.030, -0.030);
      P.axis0 = (out.geometry.digits[1].root - root0).normalized();
      P.ref = -Vector3d::UnitZ();
    } else {
      root0 = mid - 0.5 * P.lengths0[0] * Vector3d::UnitX() - 0.012 * Vector3d::UnitZ();
      P.axis0 = Vector3d::UnitZ();
      P.ref = Vector3d::UnitX();
    }
    P.ref = (P.ref - P.ref.dot(P.axis0) * P.axis0).normalized();
    P.u1 = P.ref;
    P.u2 = P.axis0.cross(P.ref);
    P.g0 << root0, 0.0, 0.0, 1.0, 0.5 * P.lengths0[static_cast<std::size_t>(P.thumb ? 1 : 0)], -0.010;
    // Priors only settle directions the motion leaves undetermined: a 1 mm marker residual
    // weighs as much as 20 mm of root, 0.3 rad of tilt, 20 % of scale or 10 mm of marker offset.
    P.prior_weight << 0.05, 0.05, 0.05, 10.0, 10.0, 1e-3 / 0.2, 10.0, 10.0;
    Vec8 g = P.g0;
    std::vector<Vec4> x(K);
    {
      const DigitGeometry d0 = P.geometry(g);
      for (std::size_t f = 0; f < K; ++f) {
        x[f] << planeAngle(d0, d0.axis.cross(P.tip[f] - d0.root)), 0.3, 0.3, 0.2;
      }
    }
    solveDigit(P, g, x, options.iterations);

    DigitGeometry d = P.geometry(g);
    // Re-centre ψ on the median plane angle and set the ranges.
    std::vector<double> psis;
    for (const auto& xf : x) psis.push_back(std::remainder(xf[0], 2.0 * std::numbers::pi));
    const double psi_mid = median(psis);
    const Matrix3d R = planeRotation(d, psi_mid);
    d.zero = R * d.zero;
    d.flex = R * d.flex;
    std::array<std::vector<double>, 4> values;
    for (auto& xf : x) {
      xf[0] = std::remainder(xf[0] - psi_mid, 2.0 * std::numbers::pi);
      for (int j = 1; j < 4; ++j) xf[j] = std::remainder(xf[j], 2.0 * std::numbers::pi);
      for (int j = 0; j < 4; ++j) values[static_cast<std::size_t>(j)].push_back(xf[j]);
    }
    // Ranges from the 1st–99th percentiles of the fitted angles (a few frames fold onto the
    // mirror solution ψ + π) widened by a margin; the fingers' flexions keep the fit's bounds.
    auto span = [&](std::size_t j, double margin) -> std::array<double, 2> {
      std::vector<double>& v = values[j];
      std::sort(v.begin(), v.end());
      const double lo = v[v.size() / 100], hi = v[v.size() - 1 - v.size() / 100];
      return {std::max(-kPiF, lo - margin), std::min(kPiF, hi + margin)};
    };
    d.psi_range = span(0, options.psi_margin);
    for (std::size_t j = 0; j < 3; ++j) {
      d.flex_range[j] = P.thumb ? span(j + 1, 20 * kDeg) : P.bounds[j];
    }
    d.coupling = P.thumb ? 0.0 : 2.0 / 3.0;
    DigitCalibration& rep = out.digits[ds];
    rep.frames = static_cast<int>(K);
    rep.scale = g[5];
    double sm = 0.0, st = 0.0;
    for (std::size_t f = 0; f < K; ++f) {
      const Vec6 r = P.residual(d, Vec4(x[f][0], x[f][1], x[f][2], x[f][3]), f);
      sm += r.head<3>().squaredNorm();
      st += r.tail<3>().squaredNorm();
    }
    rep.middle_rms = std::sqrt(sm / static_cast<double>(K));
    rep.tip_rms = std::sqrt(st / static_cast<double>(K));
    out.geometry.digits[ds] = d;
  }
  return out;
}

}  // namespace kinetrack::hand
