#pragma once
// A fixed-step forward simulator: ν̇ = ABA(q, ν, τ, wrenches) — or, with loop closures, the
// assembly–disassembly forward dynamics (assembly.hpp) — integrated on the configuration
// manifold. Joint limits are ignored (a rigid multibody, no contacts).
#include <memory>
#include <span>

#include "kinetrack/dynamics/assembly.hpp"
#include "kinetrack/dynamics/rigid_body.hpp"

namespace kinetrack {

enum class Integrator : std::uint8_t {
  /// ν ← ν + h ν̇(q, ν), then q ← q ⊕ h ν (symplectic Euler; one ABA per step).
  SemiImplicitEuler,
  /// Classical RK4 in the Lie-algebra coordinates of the base rotation (Runge–Kutta–Munthe-Kaas:
  /// stage increments through the inverse differential of exp, so the order stays 4 on SO(3));
  /// four ABA per step.
  RungeKutta4,
};

/// Integrates one model's motion with a fixed step. Built once; step() does not allocate.
class Simulator {
 public:
  /// Copies `model` (or shares it). Throws InvalidArgument for a non-finite gravity.
  explicit Simulator(const Model& model, Integrator integrator = Integrator::RungeKutta4,
                     const Vector3d& gravity = kStandardGravity);
  explicit Simulator(std::shared_ptr<const Model> model, Integrator integrator = Integrator::RungeKutta4,
                     const Vector3d& gravity = kStandardGravity);

  [[nodiscard]] const Model& model() const { return *model_; }
  /// Sets q and ν (size nv). Throws InvalidArgument for wrong sizes or non-finite values.
  void setState(const Configuration& q, const VectorXd& v);
  [[nodiscard]] const Configuration& configuration() const { return q_; }
  [[nodiscard]] const VectorXd& velocity() const { return v_; }

  /// Advances by h > 0 seconds under generalised forces τ (nv, held over the step; a floating
  /// base's entries are a wrench on the base) and external wrenches. Throws InvalidArgument for
  /// h ≤ 0, wrong sizes or non-finite τ.
  void step(double h, const VectorXd& tau, std::span<const ExternalWrench> wrenches = {});

  /// Uses the assembly–disassembly forward dynamics with `options` (its loop closures, schedule,
  /// threads) from now on, instead of ABA; call again to change the closures (e.g. release a
  /// hand). Throws as AssemblyPlan. Allocates (once per call), not per step.
  void setAssembly(const AssemblyOptions& options);
  /// Back to ABA (no closures).
  void useAba();
  /// The assembly's plan and workspace (closure forces and errors of the last evaluation), or
  /// null with ABA.
  [[nodiscard]] const AssemblyPlan* assemblyPlan() const { return plan_.get(); }
  [[nodiscard]] AssemblyData* assemblyData() { return adata_.get(); }
  /// ν̇ at the current state under τ and wrenches (evaluates the dynamics once; with closures it
  /// also refreshes assemblyData()'s closure forces and errors).
  const VectorXd& accelerationNow(const VectorXd& tau, std::span<const ExternalWrench> wrenches = {});

  /// Kinetic energy ½νᵀMν (J) and spatial momentum about the world origin at the current state.
  [[nodiscard]] double kineticEnergy();
  [[nodiscard]] Vector6d momentum();

 private:
  const VectorXd& acceleration(const Configuration& q, const VectorXd& v, const VectorXd& tau,
                               std::span<const ExternalWrench> wrenches);
  // q ⊕ δ where δ's base rotation part is a Lie-algebra coordinate (exp), like integrate().
  std::shared_ptr<const Model> model_;
  Integrator integrator_;
  Vector3d gravity_;
  DynamicsData data_;
  std::unique_ptr<AssemblyPlan> plan_;
  std::unique_ptr<AssemblyData> adata_;
  Configuration q_, qs_;
  VectorXd v_, vs_, kq_[4], kv_[4], delta_;
};

}  // namespace kinetrack
