#include "kinetrack/ik/instantaneous_ik_problem.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "composite_reduction.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/limits.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "solver_detail.hpp"

namespace kinetrack {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Per target, at the last evaluated point: which residuals count, the frame origin, the residuals
// and, for OrientationResidual::Sine, its Jacobian factor L = ½(tr(E)·I − Eᵀ) (∂r_o/∂ω = −L,
// E = R_t h_oᵀ).
struct Residual {
  bool use_p = false, use_o = false;
  Vector3d origin = Vector3d::Zero();
  Vector3d rp = Vector3d::Zero(), ro = Vector3d::Zero();
  Matrix3d L = Matrix3d::Identity();
};

// Left Jacobian of SO(3): exp(sk(φ + dφ)) = exp(sk(J_l(φ) dφ))·exp(sk(φ)) to first order, so the
// world angular velocity of the chart's base rotation is ω = J_l(x_ω)·ẋ_ω.
Matrix3d leftJacobian(const Vector3d& phi) {
  const double t2 = phi.squaredNorm();
  double a, b;  // J = I + a sk(φ) + b sk(φ)²
  if (t2 < 1e-8) {
    a = 0.5 - t2 / 24.0;
    b = 1.0 / 6.0 - t2 / 120.0;
  } else {
    const double t = std::sqrt(t2);
    a = (1.0 - std::cos(t)) / t2;
    b = (t - std::sin(t)) / (t2 * t);
  }
  const Matrix3d S = so3::skew(phi);
  return Matrix3d::Identity() + a * S + b * S * S;
}

}  // namespace

struct InstantaneousIkProblem::Impl {
  std::shared_ptr<const Model> model_ptr;
  const Model& model;
  ik::TaskSet tasks;
  std::vector<Residual> residuals;  // per task id
  ik::JointLimits joint_limits;
  ik::RowLimits row_limits;
  // Two kinematic states: the centre and the last evaluated (trial) point; recentre() swaps them.
  Data data[2];
  Configuration q[2];
  PoseError err[2];
  int centre_slot = 0, eval_slot = 0;
  Vector3d x_omega = Vector3d::Zero();  // chart coordinate of the base rotation at the evaluated point
  VectorXd zero;
  // Composite assembly (see assemble()).
  std::vector<Matrix6d> Mc;
  std::vector<Vector6d> fc;
  std::vector<Vector6d> S;
  std::vector<std::pair<int, int>> pattern;

  OrientationResidual residual;

  Impl(std::shared_ptr<const Model> m, OrientationResidual r)
      : model_ptr(std::move(m)),
        model(*model_ptr),
        tasks(model_ptr, "InstantaneousIk"),
        joint_limits(model),
        row_limits(model),
        data{Data(model), Data(model)},
        q{Configuration(model), Configuration(model)},
        zero(VectorXd::Zero(model.nv())),
        Mc(static_cast<std::size_t>(model.numLinks()), Matrix6d::Zero()),
        fc(static_cast<std::size_t>(model.numLinks()), Vector6d::Zero()),
        S(static_cast<std::size_t>(model.nv()), Vector6d::Zero()),
        residual(r) {
    const int nb = model.nvBase();
    for (int c = 0; c < nb; ++c)
      for (int d = 0; d <= c; ++d) pattern.emplace_back(c, d);
    for (int j = 0; j < model.numJoints(); ++j) {
      for (int d = 0; d < nb; ++d) pattern.emplace_back(nb + j, d);
      for (std::int32_t i : model.support(LinkId(j + 1))) pattern.emplace_back(nb + j, nb + i);
    }
    evaluate(zero);
    centre_slot = eval_slot;
  }

  const PoseError& evaluate(const Eigen::Ref<const VectorXd>& x) {
    const int slot = 1 - centre_slot;
    const Configuration& c = q[centre_slot];
    Configuration& qe = q[slot];
    const int nb = model.nvBase();
    if (nb == 6) {
      x_omega = x.segment<3>(3);
      qe.base_position = c.base_position + x.head<3>();
      qe.base_rotation = so3::exp(x_omega) * c.base_rotation;
    } else {
      x_omega.setZero();
      qe.base_position = c.base_position;
      qe.base_rotation = c.base_rotation;
    }
    qe.joints.noalias() = c.joints + x.tail(model.numJoints());
    Data& d = data[slot];
    forwardKinematics(model, d, qe);
    PoseError& e = err[slot];
    e = PoseError{};
    double mnte_sum = 0.0;
    const std::vector<ik::FrameTask>& targets = tasks.all();
    if (residuals.size() != targets.size()) residuals.resize(targets.size());  // allocates only after adds
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const ik::FrameTask& t = targets[i];
      Residual& x = residuals[i];
      x.use_p = t.positionSet() && t.position_weight > 0.0;
      x.use_o = t.orientationSet() && t.orientation_weight > 0.0;
      if (!x.use_p && !x.use_o) continue;
      const Transform& F = updateFramePlacement(model, d, t.frame);
      x.origin = F.p;
      if (x.use_p) {
        x.rp = t.p - F.p;
        const double r2 = x.rp.squaredNorm();
        e.cost += 0.5 * t.position_weight * r2;
        e.max_position = std::max(e.max_position, std::sqrt(r2));
        ++e.position_targets;
      }
      if (x.use_o) {
        const Matrix3d E = t.R * F.R.transpose();  // world-frame error rotation (SPEC §2.1)
        x.ro = so3::vee(E);                        // sin θ · axis
        const double tr = E.trace();
        const auto [theta, one_minus_cos] = detail::rotationError(x.ro, tr);  // ½ tr(I − hᵀR) = 1 − cos θ
        if (residual == OrientationResidual::Chordal) {
          e.cost += t.orientation_weight * one_minus_cos;  // ½‖(R_t − h)/√2‖²_F
        } else {
          x.L = -0.5 * E.transpose();
          x.L.diagonal().array() += 0.5 * tr;
          e.cost += 0.5 * t.orientation_weight * x.ro.squaredNorm();
        }
        e.max_orientation = std::max(e.max_orientation, theta);
        mnte_sum += one_minus_cos;
        ++e.orientation_targets;
      }
    }
    e.mnte = e.orientation_targets ? mnte_sum / e.orientation_targets : 0.0;
    eval_slot = slot;
    return e;
  }

  void recentre() {
    centre_slot = eval_slot;
    x_omega.setZero();
  }

  // Composite assembly of H = Σ_t J_tᵀ W_t J_t and g = −Σ_t J_tᵀ W_t r_t (DYN's scheme, see
  // dynamical_ik.cpp): column c of any target Jacobian is the screw S_c = (ω_c; v_c) (v at the
  // base origin) read at the target point p, so J_tᵀW_tJ_t = Sᵀ M_t S with, in (angular;
  // linear) order, M_t = w_p [−[p]×², [p]×; −[p]×, I] + [w_o LᵀL, 0; 0, 0] and the gradient
  // part f_t = (p × w_p r_p + w_o Lᵀ r_o; w_p r_p). L is the exact Jacobian factor of the
  // orientation residual (L = I for the chordal one, as in DYN's QP), so the Gauss–Newton fixed
  // point is a true stationary point of F also when the targets are out of reach.
  void assemble(Eigen::Ref<MatrixXd>* H, Eigen::Ref<VectorXd> g) {
    const Data& kin = data[eval_slot];
    const int nb = model.nvBase(), n = model.numJoints();
    for (auto& M : Mc) M.setZero();
    for (auto& f : fc) f.setZero();
    const Vector3d& ref = kin.link[0].p;
    const std::vector<ik::FrameTask>& targets = tasks.all();
    for (std::size_t i = 0; i < targets.size(); ++i) {
      const ik::FrameTask& t = targets[i];
      const Residual& x = residuals[i];
      if (!x.use_p && !x.use_o) continue;
      const std::size_t l = static_cast<std::size_t>(t.link.value);
      Matrix6d& M = Mc[l];
      Vector6d& f = fc[l];
      const double wp = t.position_weight, wo = t.orientation_weight;
      if (x.use_p) {
        const Vector3d p = x.origin - ref;
        const Vector3d wr = wp * x.rp;
        f.head<3>() += p.cross(wr);
        f.tail<3>() += wr;
        if (H) {
          const Matrix3d P = so3::skew(p);
          M.topLeftCorner<3, 3>() -= wp * P * P;
          M.topRightCorner<3, 3>() += wp * P;
          M.bottomLeftCorner<3, 3>() -= wp * P;
          M.bottomRightCorner<3, 3>().diagonal().array() += wp;
        }
      }
      if (x.use_o) {
        if (residual == OrientationResidual::Chordal) {
          // F_o = w(1 − cos θ): gradient −w r_o, Gauss–Newton Hessian w·I (the 9-row residual
          // (R_t − h)/√2 has ‖∂/∂ω‖² = ‖ω‖²) — DYN's QP blocks with r_o in place of v*.
          f.head<3>() += wo * x.ro;
          if (H) M.topLeftCorner<3, 3>().diagonal().array() += wo;
        } else {
          f.head<3>() += wo * (x.L.transpose() * x.ro);
          if (H) M.topLeftCorner<3, 3>().noalias() += wo * (x.L.transpose() * x.L);
        }
      }
    }
    detail::reduceComposites(model, kin, Mc, fc, S, H, g);
    // Chart coordinates: ν = T ẋ with T = blockdiag(I, J_l(x_ω), I), so ∇ₓF = Tᵀ∇F, Hₓ = TᵀHT.
    if (nb == 6 && x_omega.squaredNorm() > 0.0) {
      const Matrix3d T = leftJacobian(x_omega);
      g.segment<3>(3) = T.transpose() * g.segment<3>(3);
      if (!H) return;
      Matrix6d B;
      for (int c = 0; c < 6; ++c)
        for (int d = 0; d <= c; ++d) B(c, d) = B(d, c) = (*H)(c, d);
      B.rightCols<3>() = B.rightCols<3>() * T;
      B.bottomRows<3>() = T.transpose() * B.bottomRows<3>();
      for (int c = 0; c < 6; ++c)
        for (int d = 0; d <= c; ++d) (*H)(c, d) = B(c, d);
      for (int c = 6; c < nb + n; ++c) {
        const Eigen::RowVector3d row = (*H).block<1, 3>(c, 3) * T;
        (*H).block<1, 3>(c, 3) = row;
      }
    }
  }
};

InstantaneousIkProblem::InstantaneousIkProblem(const Model& model, OrientationResidual residual)
    : InstantaneousIkProblem(std::make_shared<const Model>(model), residual) {}
InstantaneousIkProblem::InstantaneousIkProblem(std::shared_ptr<const Model> model, OrientationResidual residual)
    : impl_(std::make_unique<Impl>(std::move(model), residual)) {}
InstantaneousIkProblem::~InstantaneousIkProblem() = default;
InstantaneousIkProblem::InstantaneousIkProblem(InstantaneousIkProblem&&) noexcept = default;
InstantaneousIkProblem& InstantaneousIkProblem::operator=(InstantaneousIkProblem&&) noexcept = default;

const Model& InstantaneousIkProblem::model() const { return impl_->model; }
const std::shared_ptr<const Model>& InstantaneousIkProblem::sharedModel() const { return impl_->model_ptr; }
OrientationResidual InstantaneousIkProblem::orientationResidual() const { return impl_->residual; }
void InstantaneousIkProblem::setOrientationResidual(OrientationResidual residual) {
  impl_->residual = residual;
  refreshCentre();
}
int InstantaneousIkProblem::numVariables() const { return impl_->model.nv(); }
int InstantaneousIkProblem::numRows() const { return impl_->row_limits.size(); }

ik::TaskSet& InstantaneousIkProblem::tasks() { return impl_->tasks; }
const ik::TaskSet& InstantaneousIkProblem::tasks() const { return impl_->tasks; }

void InstantaneousIkProblem::setCentre(const Configuration& q) {
  const Model& m = impl_->model;
  if (q.joints.size() != m.numJoints())
    throw InvalidArgument("InstantaneousIk::setState: expected " + std::to_string(m.numJoints()) +
                          " joint coordinates, got " + std::to_string(q.joints.size()));
  if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite())
    throw InvalidArgument("InstantaneousIk::setState: non-finite configuration");
  impl_->q[impl_->centre_slot] = q;
  refreshCentre();
}
const Configuration& InstantaneousIkProblem::centre() const { return impl_->q[impl_->centre_slot]; }
const Data& InstantaneousIkProblem::centreData() const { return impl_->data[impl_->centre_slot]; }
const PoseError& InstantaneousIkProblem::centreError() const { return impl_->err[impl_->centre_slot]; }
const PoseError& InstantaneousIkProblem::refreshCentre() {
  impl_->evaluate(impl_->zero);  // q(0) is the centre exactly (exp(0) = I)
  impl_->recentre();
  return centreError();
}

const PoseError& InstantaneousIkProblem::evaluate(const Eigen::Ref<const VectorXd>& x) { return impl_->evaluate(x); }
const Configuration& InstantaneousIkProblem::evaluated() const { return impl_->q[impl_->eval_slot]; }
const PoseError& InstantaneousIkProblem::evaluatedError() const { return impl_->err[impl_->eval_slot]; }
void InstantaneousIkProblem::recentre() { impl_->recentre(); }

void InstantaneousIkProblem::derivatives(Eigen::Ref<MatrixXd> H, Eigen::Ref<VectorXd> g) {
  const int nv = numVariables();
  if (H.rows() != nv || H.cols() != nv || g.size() != nv)
    throw InvalidArgument("InstantaneousIkProblem::derivatives: expected H " + std::to_string(nv) + " × " +
                          std::to_string(nv) + " and g of size " + std::to_string(nv));
  impl_->assemble(&H, g);
}
void InstantaneousIkProblem::gradient(Eigen::Ref<VectorXd> g) {
  if (g.size() != numVariables())
    throw InvalidArgument("InstantaneousIkProblem::gradient: expected size " + std::to_string(numVariables()));
  impl_->assemble(nullptr, g);
}
const std::vector<std::pair<int, int>>& InstantaneousIkProblem::pattern() const { return impl_->pattern; }

void InstantaneousIkProblem::chartBounds(Eigen::Ref<VectorXd> lb, Eigen::Ref<VectorXd> ub, Eigen::Ref<VectorXd> lbA,
                                         Eigen::Ref<VectorXd> ubA) const {
  const Model& m = impl_->model;
  const int nb = m.nvBase(), n = m.numJoints(), rows = numRows();
  if (lb.size() != m.nv() || ub.size() != m.nv() || lbA.size() != rows || ubA.size() != rows)
    throw InvalidArgument("InstantaneousIkProblem::chartBounds: expected bounds of size " + std::to_string(m.nv()) +
                          " and row bounds of size " + std::to_string(rows));
  const VectorXd& s = centre().joints;
  lb.head(nb).setConstant(-kInf);
  ub.head(nb).setConstant(kInf);
  impl_->joint_limits.displacementBounds(s, lb.tail(n), ub.tail(n));
  impl_->row_limits.displacementBounds(s, lbA, ubA);
}
const MatrixXd& InstantaneousIkProblem::rowMatrix() const { return impl_->row_limits.matrix(); }

double InstantaneousIkProblem::limitViolation() const { return impl_->joint_limits.violation(centre().joints); }
double InstantaneousIkProblem::rowViolation() const { return impl_->row_limits.violation(centre().joints); }

}  // namespace kinetrack
