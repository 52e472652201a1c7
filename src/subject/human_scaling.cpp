#include "kinetrack/subject/human_scaling.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <memory>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/subject/marker_calibration.hpp"
#include "rigid_fit.hpp"

namespace kinetrack::subject {

namespace {

struct Group {
  const char* name;
  std::vector<double HumanDimensions::*> dims;
  std::vector<std::string> links;
  int axis;  // offset component that scales (0 x, 1 y, 2 z), −1 every component
};

const std::vector<Group>& groups() {
  using D = HumanDimensions;
  static const std::vector<Group> g = {
      {"trunk",
       {&D::pelvis_to_l5, &D::l5_to_l3, &D::l3_to_t12, &D::t12_to_t8, &D::t8_to_neck, &D::t8_to_shoulder_vertical},
       {"L5", "L3", "T12", "T8"},
       2},
      {"head", {&D::neck_to_head, &D::head_length}, {"Neck", "Head"}, -1},
      {"shoulders", {&D::t8_to_shoulder_lateral, &D::clavicle}, {"RightShoulder", "LeftShoulder"}, 1},
      {"upper_arm", {&D::upper_arm}, {"RightUpperArm", "LeftUpperArm"}, 1},
      {"forearm", {&D::forearm}, {"RightForeArm", "LeftForeArm"}, 1},
      {"hand", {&D::hand_com, &D::hand_length}, {"RightHand", "LeftHand"}, -1},
      {"pelvis", {&D::hip_half_width}, {"Pelvis"}, -1},
      {"thigh", {&D::thigh}, {"RightUpperLeg", "LeftUpperLeg"}, 2},
      {"shank", {&D::shank}, {"RightLowerLeg", "LeftLowerLeg"}, 2},
      {"foot",
       {&D::ankle_to_ball_forward, &D::ankle_to_ball_down, &D::toe_length},
       {"RightFoot", "LeftFoot", "RightToe", "LeftToe"},
       -1},
  };
  return g;
}

void checkFactors(const std::vector<double>& f) {
  if (f.size() != groups().size())
    throw InvalidArgument("human scaling: expected " + std::to_string(groups().size()) + " scale factors, got " +
                          std::to_string(f.size()));
  for (double x : f)
    if (!(std::isfinite(x) && x > 0.0)) throw InvalidArgument("human scaling: scale factors must be finite and > 0");
}

// The segment of a link: "RightUpperLeg_f2" → "RightUpperLeg".
std::string segmentOf(const std::string& link) {
  const std::size_t f = link.rfind("_f");
  return f == std::string::npos ? link : link.substr(0, f);
}

Model buildHuman(const std::string& name, const HumanModelOptions& o) {
  return name == "human48" ? makeHuman48(o) : makeHuman66(o);
}

}  // namespace

const std::vector<std::string>& humanScaleGroups() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& g : groups()) v.emplace_back(g.name);
    return v;
  }();
  return names;
}

HumanDimensions scaledHumanDimensions(const HumanDimensions& dimensions, const std::vector<double>& factors) {
  checkFactors(factors);
  HumanDimensions d = dimensions;
  for (std::size_t g = 0; g < groups().size(); ++g)
    for (auto field : groups()[g].dims) d.*field *= factors[g];
  return d;
}

io::MarkerSet scaledHumanMarkerSet(const io::MarkerSet& set, const std::vector<double>& factors) {
  checkFactors(factors);
  io::MarkerSet out = set;
  for (auto& m : out.markers) {
    const std::string seg = segmentOf(m.link);
    for (std::size_t g = 0; g < groups().size(); ++g) {
      const auto& links = groups()[g].links;
      if (std::find(links.begin(), links.end(), seg) == links.end()) continue;
      if (groups()[g].axis < 0)
        m.offset *= factors[g];
      else
        m.offset[groups()[g].axis] *= factors[g];
    }
  }
  return out;
}

HumanScaling fitHumanScales(const HumanModelOptions& base, const io::MarkerSet& set,
                            const io::MarkerTrajectories& static_trial, const HumanScalingOptions& options) {
  if (options.model != "human66" && options.model != "human48")
    throw InvalidArgument("fitHumanScales: unknown model '" + options.model + "' (human66, human48)");
  if (!(options.scale_prior > 0.0) || !(options.min_scale > 0.0) || !(options.max_scale > options.min_scale) ||
      !(options.posture_weight >= 0.0) || options.max_iterations < 1 || !std::isfinite(options.scale_prior) ||
      !std::isfinite(options.max_scale))
    throw InvalidArgument(
        "fitHumanScales: need scale_prior > 0, 0 < min_scale < max_scale, posture_weight ≥ 0 and "
        "max_iterations ≥ 1");
  const std::size_t ng = groups().size(), nm = set.markers.size();

  // The mean static marker positions, in set order.
  HumanScaling out;
  const std::vector<Vector3d> mean =
      meanMarkerPositions(static_trial, options.time_start, options.time_end, &out.frames_used);
  if (out.frames_used == 0)
    throw InvalidArgument("fitHumanScales: no frame of " + static_trial.source + " lies in the time range");
  std::vector<Vector3d> measured(nm, Vector3d::Constant(std::numeric_limits<double>::quiet_NaN()));
  int present = 0;
  for (std::size_t i = 0; i < nm; ++i)
    for (int c = 0; c < static_trial.numMarkers(); ++c)
      if (static_trial.names[static_cast<std::size_t>(c)] == set.markers[i].name) {
        measured[i] = mean[static_cast<std::size_t>(c)];
        present += measured[i].allFinite() && set.markers[i].weight > 0.0 ? 1 : 0;
      }
  if (present < 3)
    throw InvalidArgument("fitHumanScales: " + static_trial.source + " has " + std::to_string(present) +
                          " weighted markers of the set (need 3)");

  // One evaluation: the model at log-scales θ, its static pose solved from `warm`, and the
  // residual vector (markers, posture, scale prior), whose squared norm is the cost.
  struct Eval {
    VectorXd r;
    Configuration q;
    double cost = 0.0, marker_sq = 0.0;
    int markers = 0;
  };
  ik::MarkerIkOptions ik_options = options.ik;
  auto evaluate = [&](const VectorXd& theta, const Configuration* warm) {
    std::vector<double> f(ng);
    for (std::size_t g = 0; g < ng; ++g) f[g] = std::exp(theta[static_cast<Eigen::Index>(g)]);
    HumanModelOptions mo = base;
    mo.dimensions = scaledHumanDimensions(base.dimensions, f);
    const io::MarkerSet s = scaledHumanMarkerSet(set, f);
    auto model = std::make_shared<const Model>(io::withMarkers(buildHuman(options.model, mo), s));
    ik::MarkerIk ik(model, ik_options);
    for (const auto& m : s.markers) ik.tasks().addMarker(m.name, m.weight);
    const int n = model->numJoints();
    if (options.posture_weight > 0.0)
      for (int j = 0; j < n; ++j) ik.tasks().addCoordinate(model->jointName(JointId(j)), options.posture_weight);
    const std::vector<double> zeros(options.posture_weight > 0.0 ? static_cast<std::size_t>(n) : 0, 0.0);
    ik.setState(warm ? *warm : detail::aligned(*model, s, Configuration(*model), measured));
    ik.solve(measured, zeros);
    Eval e;
    e.q = ik.state();
    const std::vector<Vector3d> mk = detail::modelMarkers(*model, s, e.q);
    e.r = VectorXd::Zero(static_cast<Eigen::Index>(3 * nm + static_cast<std::size_t>(n) + ng));
    for (std::size_t i = 0; i < nm; ++i)
      if (measured[i].allFinite() && s.markers[i].weight > 0.0) {
        const Vector3d d = mk[i] - measured[i];
        e.r.segment<3>(static_cast<Eigen::Index>(3 * i)) = std::sqrt(s.markers[i].weight) * d;
        e.marker_sq += d.squaredNorm();
        ++e.markers;
      }
    for (int j = 0; j < n; ++j)
      e.r[static_cast<Eigen::Index>(3 * nm) + j] = std::sqrt(options.posture_weight) * e.q.joints[j];
    e.r.tail(static_cast<Eigen::Index>(ng)) = std::sqrt(options.scale_prior) * theta;
    e.cost = e.r.squaredNorm();
    return e;
  };

  const double lo = std::log(options.min_scale), hi = std::log(options.max_scale);
  VectorXd theta = VectorXd::Zero(static_cast<Eigen::Index>(ng));
  Eval cur = evaluate(theta, nullptr);
  out.rms_before = std::sqrt(cur.marker_sq / cur.markers);
  ik_options.accuracy = std::min(ik_options.accuracy, 1e-10);  // smooth finite differences
  cur = evaluate(theta, &cur.q);
  double mu = 1e-3;
  constexpr double kStep = 1e-4;
  for (int it = 0; it < options.max_iterations; ++it) {
    out.iterations = it + 1;
    MatrixXd J(cur.r.size(), static_cast<Eigen::Index>(ng));
    for (std::size_t g = 0; g < ng; ++g) {
      VectorXd t = theta;
      t[static_cast<Eigen::Index>(g)] += kStep;
      J.col(static_cast<Eigen::Index>(g)) = (evaluate(t, &cur.q).r - cur.r) / kStep;
    }
    const MatrixXd JtJ = J.transpose() * J;
    const VectorXd grad = J.transpose() * cur.r;
    bool accepted = false;
    double largest = 0.0;
    for (int attempt = 0; attempt < 10 && !accepted; ++attempt) {
      MatrixXd A = JtJ;
      A.diagonal() += mu * JtJ.diagonal().cwiseMax(1e-12);
      VectorXd step = -A.ldlt().solve(grad);
      VectorXd trial = (theta + step).cwiseMax(lo).cwiseMin(hi);
      step = trial - theta;
      const Eval e = evaluate(trial, &cur.q);
      if (e.cost < cur.cost) {
        largest = step.cwiseAbs().maxCoeff();
        const double decrease = cur.cost - e.cost;
        theta = trial;
        cur = e;
        mu = std::max(1e-9, mu / 3.0);
        accepted = true;
        if (decrease <= 1e-12 * std::max(1.0, cur.cost)) largest = 0.0;
      } else {
        mu *= 4.0;
      }
    }
    if (!accepted || largest < 1e-5) break;
  }

  std::vector<double> f(ng);
  for (std::size_t g = 0; g < ng; ++g) {
    f[g] = std::exp(theta[static_cast<Eigen::Index>(g)]);
    out.scales.emplace_back(groups()[g].name, f[g]);
  }
  out.options = base;
  out.options.dimensions = scaledHumanDimensions(base.dimensions, f);
  out.markers = scaledHumanMarkerSet(set, f);
  out.pose = cur.q;
  out.rms_after = std::sqrt(cur.marker_sq / cur.markers);
  return out;
}

}  // namespace kinetrack::subject
