#pragma once
// A rigid-body dynamics engine used as an independent oracle for kinetrack's RNEA, CRBA and ABA
// (MuJoCo: mujoco_oracle.hpp, DART: dart_oracle.hpp). The engine loads the URDF file itself;
// joints are matched to the kinetrack Model by name. Every input and output is in kinetrack's
// coordinates (docs/dynamics.md): ν = (ṗ_B, ω_B, ṡ) with world-frame base velocities, τ's base
// entries the world-frame force and the moment about the base origin p_B, gravity
// (0, 0, −9.80665) m/s², no external forces, no joint damping, friction or armature. Oracles
// allocate; they are for tests and benchmarks only.
#include <string>

#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::testing {

class DynamicsPeer {
 public:
  virtual ~DynamicsPeer() = default;
  /// "MuJoCo 2.2.2", "DART 6.12.1", …
  [[nodiscard]] virtual std::string engine() const = 0;
  /// τ = M(q) ν̇ + h(q, ν) (nv): the engine's inverse dynamics.
  virtual VectorXd inverseDynamics(const Configuration& q, const VectorXd& v, const VectorXd& a) = 0;
  /// M(q) (nv × nv).
  virtual MatrixXd massMatrix(const Configuration& q) = 0;
  /// ν̇ = M⁻¹(τ − h) (nv): the engine's forward dynamics.
  virtual VectorXd forwardDynamics(const Configuration& q, const VectorXd& v, const VectorXd& tau) = 0;
};

}  // namespace kinetrack::testing
