#include "kinetrack/dynamics/simulator.hpp"

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/kinematics/configuration.hpp"

namespace kinetrack {

namespace {

// φ̇ = J_l⁻¹(φ) ω for R = exp(φ)·R₀ and a world angular velocity ω, with the inverse left
// Jacobian of SO(3): J_l⁻¹(φ) = 1 − ½[φ]× + (1/θ² − (1 + cos θ)/(2θ sin θ)) [φ]×².
Vector3d dexpInv(const Vector3d& phi, const Vector3d& w) {
  const double t2 = phi.squaredNorm();
  double c;
  if (t2 < 1e-8) {
    c = 1.0 / 12.0 + t2 / 720.0;
  } else {
    const double t = std::sqrt(t2);
    c = 1.0 / t2 - (1.0 + std::cos(t)) / (2.0 * t * std::sin(t));
  }
  const Vector3d pw = phi.cross(w);
  return w - 0.5 * pw + c * phi.cross(pw);
}

}  // namespace

Simulator::Simulator(const Model& model, Integrator integrator, const Vector3d& gravity)
    : Simulator(std::make_shared<const Model>(model), integrator, gravity) {}

Simulator::Simulator(std::shared_ptr<const Model> model, Integrator integrator, const Vector3d& gravity)
    : model_(std::move(model)),
      integrator_(integrator),
      gravity_(gravity),
      data_(*model_),
      q_(*model_),
      qs_(*model_),
      v_(VectorXd::Zero(model_->nv())),
      vs_(VectorXd::Zero(model_->nv())),
      delta_(VectorXd::Zero(model_->nv())) {
  if (!gravity.allFinite()) throw InvalidArgument("Simulator: non-finite gravity");
  for (int i = 0; i < 4; ++i) {
    kq_[i] = VectorXd::Zero(model_->nv());
    kv_[i] = VectorXd::Zero(model_->nv());
  }
}

void Simulator::setState(const Configuration& q, const VectorXd& v) {
  if (q.joints.size() != model_->numJoints() || v.size() != model_->nv())
    throw InvalidArgument("Simulator::setState: expected " + std::to_string(model_->numJoints()) + " joints and " +
                          std::to_string(model_->nv()) + " velocities, got " + std::to_string(q.joints.size()) +
                          " and " + std::to_string(v.size()));
  if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite() || !v.allFinite())
    throw InvalidArgument("Simulator::setState: non-finite state");
  q_ = q;
  v_ = v;
}

const VectorXd& Simulator::acceleration(const Configuration& q, const VectorXd& v, const VectorXd& tau,
                                        std::span<const ExternalWrench> wrenches) {
  if (plan_) return assemblyForwardDynamics(*plan_, *adata_, q, v, tau, wrenches, gravity_);
  return aba(*model_, data_, q, v, tau, wrenches, gravity_);
}

void Simulator::setAssembly(const AssemblyOptions& options) {
  auto plan = std::make_unique<AssemblyPlan>(model_, options);
  adata_ = std::make_unique<AssemblyData>(*plan);
  plan_ = std::move(plan);
}

void Simulator::useAba() {
  adata_.reset();
  plan_.reset();
}

const VectorXd& Simulator::accelerationNow(const VectorXd& tau, std::span<const ExternalWrench> wrenches) {
  if (tau.size() != model_->nv())
    throw InvalidArgument("Simulator::accelerationNow: expected " + std::to_string(model_->nv()) +
                          " generalised forces");
  return acceleration(q_, v_, tau, wrenches);
}

void Simulator::step(double h, const VectorXd& tau, std::span<const ExternalWrench> wrenches) {
  if (!(h > 0.0) || !std::isfinite(h)) throw InvalidArgument("Simulator::step: h must be finite and > 0");
  if (tau.size() != model_->nv() || !tau.allFinite())
    throw InvalidArgument("Simulator::step: expected " + std::to_string(model_->nv()) + " finite generalised forces");
  const Model& m = *model_;
  const bool floating = m.nvBase() == 6;
  if (integrator_ == Integrator::SemiImplicitEuler) {
    v_ += h * acceleration(q_, v_, tau, wrenches);
    integrate(m, q_, v_, h, q_);
    return;
  }
  // RK4 on (φ, ν) with q = q₀ ⊕ φ, φ(0) = 0 (Munthe-Kaas): kq_i = dφ/dt at stage i.
  static constexpr double kStage[4] = {0.0, 0.5, 0.5, 1.0};
  for (int i = 0; i < 4; ++i) {
    if (i == 0) {
      qs_ = q_;
      vs_ = v_;
      delta_.setZero();
    } else {
      delta_ = (kStage[i] * h) * kq_[i - 1];
      integrate(m, q_, delta_, 1.0, qs_);
      vs_ = v_ + (kStage[i] * h) * kv_[i - 1];
    }
    kq_[i] = vs_;
    if (floating) kq_[i].segment<3>(3) = dexpInv(delta_.segment<3>(3), vs_.segment<3>(3));
    kv_[i] = acceleration(qs_, vs_, tau, wrenches);
  }
  delta_ = (h / 6.0) * (kq_[0] + 2.0 * kq_[1] + 2.0 * kq_[2] + kq_[3]);
  v_ += (h / 6.0) * (kv_[0] + 2.0 * kv_[1] + 2.0 * kv_[2] + kv_[3]);
  integrate(m, q_, delta_, 1.0, q_);
}

double Simulator::kineticEnergy() { return kinetrack::kineticEnergy(*model_, data_, q_, v_); }

Vector6d Simulator::momentum() { return spatialMomentum(*model_, data_, q_, v_); }

}  // namespace kinetrack
