#pragma once
// A retargeted motion as robot-learning pipelines read it: per frame the root position, the
// root orientation as a quaternion, and the joint positions in the robot's joint order, with
// their velocities, at the capture's rate or a chosen one; written as CSV or NumPy .npz.
#include <string>
#include <vector>

#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::track {

/// Quaternion order of the root orientation: x, y, z, w (scalar last) is the order of Isaac
/// Gym/Lab, ProtoMotions and GMR's output; w, x, y, z that of MuJoCo's qpos.
enum class QuaternionOrder : std::uint8_t { XYZW, WXYZ };
/// "xyzw", "wxyz"; parseQuaternionOrder throws InvalidArgument for another name.
const char* toString(QuaternionOrder o);
QuaternionOrder parseQuaternionOrder(const std::string& name);

struct RobotMotion {
  double fps = 0.0;                              ///< frames per second (0 for uneven input times kept as they are)
  std::vector<double> times;                     ///< s, one per frame
  std::vector<std::string> joint_names;          ///< the robot's joint order
  std::vector<Vector3d> root_position;           ///< m, world
  std::vector<Eigen::Vector4d> root_quaternion;  ///< unit, hemisphere continuous, in `order`
  QuaternionOrder order = QuaternionOrder::XYZW;
  std::vector<VectorXd> joints;                 ///< rad or m
  std::vector<Vector3d> root_linear_velocity;   ///< m/s, world
  std::vector<Vector3d> root_angular_velocity;  ///< rad/s, world
  std::vector<VectorXd> joint_velocity;         ///< rad/s or m/s
  std::vector<std::uint8_t> gap;                ///< 1 where the input frame was a gap (state held)
};

/// The motion of `q` at `times` (one configuration per time, strictly increasing). `rate` > 0
/// resamples at that rate from the first time to the last (joints and root position linearly,
/// the root orientation by slerp; a resampled frame is a gap when either neighbour is);
/// 0 keeps the input frames. Velocities are central differences (one-sided at the ends), the
/// angular one from the SO(3) logarithm. Throws InvalidArgument for mismatched lengths, fewer
/// than one frame, times not increasing, a negative or non-finite rate, or configurations of
/// another model.
RobotMotion robotMotion(const Model& model, const std::vector<double>& times, const std::vector<Configuration>& q,
                        const std::vector<std::uint8_t>& gap = {}, double rate = 0.0,
                        QuaternionOrder order = QuaternionOrder::XYZW);

/// CSV: time, root_x, root_y, root_z, the quaternion columns in its order (root_qx …), one column
/// per joint, root_vx…, root_wx…, then <joint>_vel per joint, gap. 17 significant digits.
std::string robotMotionCsv(const RobotMotion& motion);
void writeRobotMotionCsv(const RobotMotion& motion, const std::string& path);
/// NumPy .npz: fps (scalar), time (N), joint_names (N_j strings), root_pos (N×3), root_rot (N×4,
/// in `order`), quat_order (string), dof_pos (N×N_j), root_lin_vel, root_ang_vel (N×3),
/// dof_vel (N×N_j), gap (N, 0/1).
void writeRobotMotionNpz(const RobotMotion& motion, const std::string& path);
/// By extension: ".npz" as NumPy, otherwise CSV.
void writeRobotMotion(const RobotMotion& motion, const std::string& path);

}  // namespace kinetrack::track
