#pragma once
// MuJoCo (2.2.2, Debian libmujoco-dev) loading an MJCF document with its own parser: the oracle of
// kinetrack's MJCF reader (tests/io/mjcf_*_test.cpp). What is done to the text first (in memory,
// through a MuJoCo VFS):
//   - attributes MuJoCo 2.2.2 does not know yet are removed (`actuatorfrcrange`,
//     `actuatorfrclimited`: joint actuator-force limits, no part of the kinematics);
//   - <compiler autolimits="true"> (MuJoCo ≥ 2.3's default, which kinetrack's reader follows);
//   - with `replace_meshes`, every mesh geom becomes a sphere of radius 1 mm at the same pos and
//     orientation (same count and order, so unnamed geoms keep their numbers) and the mesh assets
//     are dropped: MuJoCo would load (or miss) the files, and a mesh geom's placement in
//     kinetrack is that of the XML, which the sphere keeps (MuJoCo re-centres meshes).
// Names are kinetrack's: an unnamed body is "body<id>", an unnamed joint, site or geom
// "<body>/joint<k>", "<body>/site<k>", "<body>/geom<k>" (k counting the body's joints, sites or
// geoms in order).
#include <mujoco/mujoco.h>

#include <string>

#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::testing {

/// The MJCF text MuJoCo 2.2.2 is given (see above).
std::string mujoco222Mjcf(const std::string& xml, bool replace_meshes);

class MjcfOracle {
 public:
  /// Throws std::runtime_error with MuJoCo's message when it rejects the document.
  explicit MjcfOracle(const std::string& xml, bool replace_meshes = false);
  ~MjcfOracle();
  MjcfOracle(const MjcfOracle&) = delete;
  MjcfOracle& operator=(const MjcfOracle&) = delete;

  [[nodiscard]] const mjModel* model() const { return m_; }
  [[nodiscard]] mjData* data() { return d_; }

  /// Sets MuJoCo's qpos from kinetrack's configuration of `model` (joints by name; the free
  /// joint from the base; a ball from the rotation Rx·Ry·Rz of its "_x", "_y", "_z" joints) and
  /// runs mj_kinematics. Throws std::runtime_error for a MuJoCo joint the model lacks.
  void setConfiguration(const Model& model, const Configuration& q);

  [[nodiscard]] std::string bodyName(int b) const;
  [[nodiscard]] std::string siteName(int s) const;
  [[nodiscard]] std::string geomName(int g) const;
  /// World placements after setConfiguration.
  [[nodiscard]] Transform body(int b) const;
  [[nodiscard]] Transform site(int s) const;
  [[nodiscard]] Transform geom(int g) const;
  /// Body b's mass properties in its own frame (from body_ipos, body_iquat, body_inertia).
  [[nodiscard]] Inertial inertial(int b) const;

 private:
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
};

}  // namespace kinetrack::testing
