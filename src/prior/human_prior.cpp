// The whole-body joint-angle prior and the sparse-target gradient-projection IK.
#include "kinetrack/prior/human_prior.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/tasks.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/metrics/tracking.hpp"

namespace kinetrack::prior {

std::vector<std::vector<int>> humanPriorGroups(const Model& model, const std::string& right_hand,
                                               const std::string& left_hand, const std::string& right_root,
                                               const std::string& left_root) {
  std::vector<std::vector<int>> groups(3);
  std::vector<int> owner(static_cast<std::size_t>(model.numJoints()), 2);
  const std::array<std::pair<const std::string*, const std::string*>, 2> arms = {std::pair{&right_hand, &right_root},
                                                                                 std::pair{&left_hand, &left_root}};
  for (std::size_t a = 0; a < 2; ++a) {
    const LinkId hand = model.frameLink(model.frameId(*arms[a].first));
    const LinkId root_parent = model.parent(model.frameLink(model.frameId(*arms[a].second)));
    const auto& trunk = model.support(root_parent);
    const std::set<int> shared(trunk.begin(), trunk.end());
    for (int j : model.support(hand))
      if (!shared.contains(j)) owner[static_cast<std::size_t>(j)] = static_cast<int>(a);
  }
  for (int j = 0; j < model.numJoints(); ++j)
    groups[static_cast<std::size_t>(owner[static_cast<std::size_t>(j)])].push_back(j);
  return groups;
}

std::array<Vector3d, 3> humanKeyPoints(const Model& model, const Data& data, FrameId head, FrameId right_hand,
                                       FrameId left_hand) {
  const Transform& H = data.link[static_cast<std::size_t>(model.frameLink(head).value)];
  const Vector3d ph = frameOrigin(model, data, head);
  // Heading: yaw of the head's x axis; the key points do not depend on where the body stands.
  const double yaw = std::atan2(H.R(1, 0), H.R(0, 0));
  const double c = std::cos(yaw), s = std::sin(yaw);
  auto rel = [&](const Vector3d& p) {
    const Vector3d d = p - ph;
    return Vector3d(c * d.x() + s * d.y(), -s * d.x() + c * d.y(), d.z());
  };
  const Vector3d r = rel(frameOrigin(model, data, right_hand)), l = rel(frameOrigin(model, data, left_hand));
  return {r, l, 0.5 * (r + l)};
}

HumanPrior buildHumanPrior(const Model& model, const std::vector<std::vector<Configuration>>& motions,
                           const DensityOptions& options) {
  HumanPrior prior;
  prior.model_name = model.name();
  prior.joint_names = model.jointNames();
  const FrameId head = model.frameId(prior.head), rh = model.frameId(prior.right_hand),
                lh = model.frameId(prior.left_hand);
  PriorSamples s;
  s.num_joints = model.numJoints();
  Data d(model);
  for (const auto& motion : motions)
    for (const Configuration& q : motion) {
      if (q.joints.size() != model.numJoints() || !q.joints.allFinite() || !q.base_position.allFinite() ||
          !q.base_rotation.allFinite())
        continue;
      forwardKinematics(model, d, q);
      for (int j = 0; j < model.numJoints(); ++j) {
        const bool continuous =
            !std::isfinite(model.lowerPositionLimits()[j]) && !std::isfinite(model.upperPositionLimits()[j]);
        s.joints.push_back(continuous ? std::remainder(q.joints[j], 2.0 * M_PI) : q.joints[j]);  // same rotation
      }
      for (const Vector3d& k : humanKeyPoints(model, d, head, rh, lh)) s.key_points.push_back(k);
    }
  if (s.size() == 0) throw InvalidArgument("buildHumanPrior: no finite configuration of " + model.name());
  prior.density = DensityPrior(s, humanPriorGroups(model), options);
  return prior;
}

void checkPriorMatchesModel(const HumanPrior& prior, const Model& model, const std::string& source) {
  const auto& names = model.jointNames();
  std::string why;
  if (prior.density.numJoints() != static_cast<int>(prior.joint_names.size()))
    why = "its densities cover " + std::to_string(prior.density.numJoints()) + " joints but it names " +
          std::to_string(prior.joint_names.size());
  else if (prior.joint_names.size() != names.size())
    why = "it has " + std::to_string(prior.joint_names.size()) + " joints, the model " + std::to_string(names.size());
  else
    for (std::size_t j = 0; j < names.size() && why.empty(); ++j)
      if (prior.joint_names[j] != names[j])
        why = "joint " + std::to_string(j) + " is '" + prior.joint_names[j] + "' in the prior, '" + names[j] +
              "' in the model";
  if (!why.empty())
    throw InvalidArgument(source + ": learned on model '" + prior.model_name + "', not on '" + model.name() +
                          "': " + why + " (rebuild it with `kinetrack prior build` for this model)");
}

// --- sparse IK ------------------------------------------------------------------------------

SparsePriorIk::SparsePriorIk(std::shared_ptr<const Model> model, const std::vector<std::string>& targets,
                             const HumanPrior* prior, const SparseIkOptions& options)
    : model_(std::move(model)), prior_(prior), options_(options), data_(*model_), q_(*model_) {
  const Model& m = *model_;
  if (targets.empty()) throw InvalidArgument("SparsePriorIk: no targets");
  if (options.iterations < 1 || !(options.damping > 0.0) || !(options.gain >= 0.0) || !(options.max_prior_step > 0.0) ||
      !(options.max_step > 0.0))
    throw InvalidArgument("SparseIkOptions: iterations >= 1, damping > 0, gain >= 0, max steps > 0 required");
  for (const auto& t : targets) frames_.push_back(m.frameId(t));
  if (prior) {
    checkPriorMatchesModel(*prior, m);
    head_ = m.frameId(prior->head);
    right_ = m.frameId(prior->right_hand);
    left_ = m.frameId(prior->left_hand);
  }
  const auto rows = static_cast<Eigen::Index>(6 * frames_.size());
  J_ = MatrixXd::Zero(rows, m.nv());
  A_ = MatrixXd::Zero(rows, rows);
  Jf_ = Matrix6Xd::Zero(6, m.nv());
  e_ = VectorXd::Zero(rows);
  y_ = VectorXd::Zero(rows);
  g_ = VectorXd::Zero(m.nv());
  nu_ = VectorXd::Zero(m.nv());
  joint_grad_ = VectorXd::Zero(m.numJoints());
  // Sized by factorising an identity (a size-constructed LLT's status is uninitialised and the
  // assignment from a temporary reads it: UBSan).
  llt_.compute(MatrixXd::Identity(rows, rows));
  for (int j = 0; j < m.numJoints(); ++j)
    continuous_.push_back(!std::isfinite(m.lowerPositionLimits()[j]) && !std::isfinite(m.upperPositionLimits()[j]));
}

void SparsePriorIk::setState(const Configuration& q) {
  if (q.joints.size() != model_->numJoints())
    throw InvalidArgument("SparsePriorIk::setState: expected " + std::to_string(model_->numJoints()) + " joints, got " +
                          std::to_string(q.joints.size()));
  if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite())
    throw InvalidArgument("SparsePriorIk::setState: non-finite configuration");
  q_.base_position = q.base_position;
  q_.base_rotation = q.base_rotation;
  q_.joints = q.joints;
  for (int j = 0; j < model_->numJoints(); ++j)
    if (continuous_[static_cast<std::size_t>(j)]) q_.joints[j] = std::remainder(q_.joints[j], 2.0 * M_PI);
}

SparseFrameResult SparsePriorIk::solve(std::span<const Transform> targets, bool use_prior) {
  const Model& m = *model_;
  SparseFrameResult r;
  if (targets.size() != frames_.size())
    throw InvalidArgument("SparsePriorIk::solve: expected " + std::to_string(frames_.size()) + " targets, got " +
                          std::to_string(targets.size()));
  for (const Transform& t : targets)
    if (!t.p.allFinite() || !ik::isRotation(t.R)) {  // refused: the state stays, the errors are NaN
      r.position_error = r.orientation_error = std::numeric_limits<double>::quiet_NaN();
      r.gap = true;
      return r;
    }
  const bool prior = use_prior && prior_ != nullptr;
  for (int it = 0; it < options_.iterations; ++it) {
    forwardKinematics(m, data_, q_);
    for (std::size_t k = 0; k < frames_.size(); ++k) {
      frameJacobian(m, data_, frames_[k], Jf_);
      J_.middleRows(static_cast<Eigen::Index>(6 * k), 6) = Jf_;
      const Transform& L = data_.link[static_cast<std::size_t>(m.frameLink(frames_[k]).value)];
      const Transform& P = m.framePlacement(frames_[k]);
      const Vector3d p = L.p + L.R * P.p;
      const Matrix3d R = L.R * P.R;
      e_.segment<3>(static_cast<Eigen::Index>(6 * k)) = targets[k].p - p;
      e_.segment<3>(static_cast<Eigen::Index>(6 * k + 3)) = so3::log(targets[k].R * R.transpose());
    }
    g_.setZero();
    if (prior) {
      const auto keys = humanKeyPoints(m, data_, head_, right_, left_);
      r.fallbacks = prior_->density.gradient(std::span<const double>(q_.joints.data(), q_.joints.size()),
                                             std::span<const Vector3d>(keys.data(), keys.size()),
                                             std::span<double>(joint_grad_.data(), joint_grad_.size()));
      g_.tail(m.numJoints()) =
          (options_.gain * joint_grad_).cwiseMax(-options_.max_prior_step).cwiseMin(options_.max_prior_step);
    }
    // ν = J⁺e − (I − J⁺J)g = Jᵀ(JJᵀ + λ²I)⁻¹(e + Jg) − g
    A_.noalias() = J_ * J_.transpose();
    A_.diagonal().array() += options_.damping * options_.damping;
    llt_.compute(A_);
    y_.noalias() = J_ * g_;
    y_ += e_;
    llt_.solveInPlace(y_);
    nu_.noalias() = J_.transpose() * y_;
    nu_ -= g_;
    const double big = nu_.cwiseAbs().maxCoeff();
    if (big > options_.max_step) nu_ *= options_.max_step / big;
    integrate(m, q_, nu_, 1.0, q_);
    q_.joints = q_.joints.cwiseMax(m.lowerPositionLimits()).cwiseMin(m.upperPositionLimits());
    for (int j = 0; j < m.numJoints(); ++j)
      if (continuous_[static_cast<std::size_t>(j)]) q_.joints[j] = std::remainder(q_.joints[j], 2.0 * M_PI);
  }
  forwardKinematics(m, data_, q_);
  for (std::size_t k = 0; k < frames_.size(); ++k) {
    const Transform& L = data_.link[static_cast<std::size_t>(m.frameLink(frames_[k]).value)];
    const Transform& P = m.framePlacement(frames_[k]);
    r.position_error = std::max(r.position_error, (targets[k].p - (L.p + L.R * P.p)).norm());
    r.orientation_error = std::max(r.orientation_error, so3::log(targets[k].R * (L.R * P.R).transpose()).norm());
    r.mnte += metrics::normalizedTraceError(L.R * P.R, targets[k].R);
  }
  if (!frames_.empty()) r.mnte /= static_cast<double>(frames_.size());
  r.iterations = options_.iterations;
  const bool finite = q_.joints.allFinite() && q_.base_position.allFinite() && q_.base_rotation.allFinite();
  r.status = finite ? ik::Status::Converged : ik::Status::Failed;
  if (finite) r.limit_violation = positionLimitViolation(m, q_);
  return r;
}

std::vector<std::string> parseTargetSpec(const Model& model, const std::string& spec) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', start), spec.size());
    const std::string word = spec.substr(start, comma - start);
    start = comma + 1;
    if (word.empty()) continue;
    std::vector<std::string> names;
    if (word == "head")
      names = {"Head"};
    else if (word == "hands")
      names = {"RightHand", "LeftHand"};
    else if (word == "feet")
      names = {"RightFoot", "LeftFoot"};
    else if (word == "pelvis")
      names = {"Pelvis"};
    else
      names = {word};
    for (const auto& n : names) {
      if (!model.findFrame(n)) (void)model.frameId(n);  // throws, listing the frames
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  }
  if (out.empty()) throw InvalidArgument("--targets: no target given (e.g. head,hands)");
  return out;
}

}  // namespace kinetrack::prior
