#pragma once
// MuJoCo (2.2, Debian libmujoco-dev) as an independent oracle and benchmark peer of kinetrack's
// rigid-body dynamics, loading the URDF file with MuJoCo's own URDF importer (mj_loadXML).
//
// What is done to the URDF before MuJoCo reads it (in memory, through a MuJoCo VFS):
//   - <visual> and <collision> are removed: MuJoCo would load their meshes (package:// URIs it
//     cannot resolve) and geoms play no part in these dynamics;
//   - a <mujoco><compiler …/></mujoco> block: fusestatic="false" (keep fixed-joint links as
//     bodies; MujocoOptions::fuse_static merges them, as kinetrack does), inertiafromgeom="false",
//     balanceinertia="false";
//   - massless links on moving joints (the intermediate links of human-gazebo's 3-DoF joints) get
//     a placeholder mass and inertia of 1e-12, because MuJoCo's compiler refuses them ("mass and
//     inertia of moving bodies must be larger than mjMINVAL"); after compilation their mass and
//     inertia are set back to zero in the mjModel, so the model is the URDF's exactly;
//   - every <inertial> is rewritten in principal axes (rpy of the principal frame, diagonal
//     inertia; the same body to rounding): MuJoCo 2.2 diagonalises a full tensor itself with a
//     Jacobi iteration (mju_eig3) that stops early — on the iCub's chest the tensor it rebuilds is
//     off by 1.3e-7 relative, ~5e-9 in τ and M;
//   - floating base: a link "world" and a joint of type "floating" from it to the URDF root (MuJoCo
//     2.2 turns "world" into its world body and "floating" into a free joint at the root's origin).
// Then gravity is set to (0, 0, −9.80665) (MuJoCo's default is −9.81) and passive forces (URDF
// <dynamics> damping) and the constraint solver (joint limits, friction loss) are disabled.
//
// Coordinates: MuJoCo's free joint has qpos = (p_B, quaternion w x y z of R_B) and qvel = (ṗ_B
// in the world frame, ω in the BODY frame), so ν = T qvel with T = diag(1, R_B, 1), qacc = T⁻¹ ν̇
// (exactly: d/dt(R_Bᵀ ω) = R_Bᵀ ω̇), generalised forces τ_mj = Tᵀ τ and M_mj = Tᵀ M T.
#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include "testing/dynamics_peer.hpp"

namespace kinetrack::testing {

struct MujocoOptions {
  /// MuJoCo's compiler fusestatic: merge links on fixed joints into their parents (the iCub's 180
  /// sensor and cover frames), as kinetrack's Model does, and as MuJoCo does by default for a URDF.
  /// Default false: keep every URDF link, because MuJoCo re-diagonalises a merged inertia with
  /// mju_eig3 (see above): 1.3e-8 relative on the iCub's r_shoulder_3, ~3e-11 in τ and M.
  bool fuse_static = false;
};

class MujocoOracle final : public DynamicsPeer {
 public:
  /// Loads `urdf_path` for `model` (fixed or floating base as model.baseType()), matching joints
  /// by name. Throws std::runtime_error if MuJoCo rejects the file or lacks a model joint.
  MujocoOracle(const std::string& urdf_path, const Model& model, const MujocoOptions& options = {});
  ~MujocoOracle() override;
  MujocoOracle(const MujocoOracle&) = delete;
  MujocoOracle& operator=(const MujocoOracle&) = delete;

  [[nodiscard]] std::string engine() const override;
  VectorXd inverseDynamics(const Configuration& q, const VectorXd& v, const VectorXd& a) override;
  MatrixXd massMatrix(const Configuration& q) override;
  VectorXd forwardDynamics(const Configuration& q, const VectorXd& v, const VectorXd& tau) override;

  /// kinetrack's q, ν, ν̇ and τ as MuJoCo's qpos (nq), qvel, qacc and qfrc_applied (nv), for
  /// benchmarks.
  [[nodiscard]] VectorXd qpos(const Configuration& q) const;
  [[nodiscard]] VectorXd qvel(const Configuration& q, const VectorXd& v) const { return velocityMap(q) * v; }
  [[nodiscard]] VectorXd qacc(const Configuration& q, const VectorXd& a) const { return velocityMap(q) * a; }
  [[nodiscard]] VectorXd qfrc(const Configuration& q, const VectorXd& tau) const { return velocityMap(q) * tau; }

  const mjModel* model() const { return m_; }
  mjData* data() { return d_; }
  /// Number of massless moving links whose zero mass was restored after compilation (see above).
  int restoredMasslessBodies() const { return restored_; }

 private:
  // qvel = C ν: the base columns (ṗ_B, ω_B) → (ṗ_B, R_Bᵀ ω_B), the joints permuted to MuJoCo's dof
  // order. C is orthogonal, so ν = Cᵀ qvel, τ = Cᵀ qfrc, qfrc = C τ and M = Cᵀ M_mj C.
  [[nodiscard]] MatrixXd velocityMap(const Configuration& q) const;
  void setState(const Configuration& q, const VectorXd* v);

  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
  bool floating_ = false;
  int nv_ = 0;
  int base_qpos_ = -1, base_dof_ = -1;   // free joint addresses (floating base)
  std::vector<int> qpos_adr_, dof_adr_;  // per kinetrack joint
  int restored_ = 0;
};

}  // namespace kinetrack::testing
