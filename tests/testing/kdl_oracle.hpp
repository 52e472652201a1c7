#pragma once
// KDL (orocos-kdl) as an independent oracle and benchmark peer. The KDL tree is built straight
// from urdfdom's parse of the URDF (not from kinetrack's Model), the way ROS's kdl_parser does.
#include <kdl/jntarray.hpp>
#include <kdl/tree.hpp>
#include <kdl/treefksolverpos_recursive.hpp>
#include <kdl/treeidsolver_recursive_newton_euler.hpp>
#include <kdl/treejnttojacsolver.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::testing {

class KdlOracle {
 public:
  /// Builds the KDL tree from URDF text (throws std::runtime_error if urdfdom rejects it).
  static KdlOracle fromUrdfText(const std::string& xml);
  static KdlOracle fromUrdfFile(const std::string& path);

  const KDL::Tree& tree() const { return *tree_; }
  unsigned numJoints() const { return tree_->getNrOfJoints(); }
  const std::string& rootName() const { return root_; }

  /// KDL joint array for q, matching joints by name (throws if a model joint is unknown to KDL).
  KDL::JntArray jointArray(const Model& model, const Configuration& q) const;

  /// World pose of URDF link `segment` for configuration q (base pose applied on top of KDL's
  /// root-relative pose).
  Transform pose(const Model& model, const Configuration& q, const std::string& segment);

  /// Mixed-representation Jacobian columns of the model's joints (6 × n, rows linear; angular,
  /// world frame, reference point at the segment origin), from KDL.
  Eigen::Matrix<double, 6, Eigen::Dynamic> jointJacobian(const Model& model, const Configuration& q,
                                                         const std::string& segment);

  /// Joint torques (n, the model's joint order) of KDL's TreeIdSolver_RNE for the fixed-base tree
  /// at the URDF root, gravity (0, 0, −9.80665) m/s², no external wrenches; q̇, q̈ in the model's
  /// joint order.
  VectorXd inverseDynamics(const Model& model, const Configuration& q, const VectorXd& qd, const VectorXd& qdd);

  /// KDL's index (q_nr) of a joint, by name (throws std::out_of_range if unknown).
  unsigned qIndex(const std::string& joint) const { return q_index_.at(joint); }

  /// The raw KDL solvers, for benchmarks.
  KDL::TreeFkSolverPos_recursive& fkSolver() { return *fk_; }
  KDL::TreeJntToJacSolver& jacSolver() { return *jac_; }
  KDL::TreeIdSolver_RNE& idSolver() { return *id_; }

 private:
  std::unique_ptr<KDL::Tree> tree_;
  std::unique_ptr<KDL::TreeFkSolverPos_recursive> fk_;
  std::unique_ptr<KDL::TreeJntToJacSolver> jac_;
  std::unique_ptr<KDL::TreeIdSolver_RNE> id_;
  std::map<std::string, unsigned> q_index_;  // joint name → KDL q_nr
  std::string root_;
};

}  // namespace kinetrack::testing
