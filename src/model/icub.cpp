#include "kinetrack/model/icub.hpp"

#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"

namespace kinetrack {

void addIcubCouplingConstraints(ModelBuilder& b, double velocity_bound) {
  constexpr double c = 1.71;
  constexpr double none = std::numeric_limits<double>::infinity();
  for (const std::string side : {"l_", "r_"}) {
    const std::string pitch = side + "shoulder_pitch", roll = side + "shoulder_roll", yaw = side + "shoulder_yaw",
                      elbow = side + "elbow", prosup = side + "wrist_prosup";
    const std::string name = side + "coupling";
    b.addLinearConstraint(name + "1", {{pitch, c}, {roll, -c}}, -6.0563, none, velocity_bound);
    b.addLinearConstraint(name + "2", {{pitch, c}, {roll, -c}, {yaw, -c}}, -6.3979, 1.9622, velocity_bound);
    b.addLinearConstraint(name + "3", {{roll, 1.0}, {yaw, 1.0}}, -1.1623, 3.7228, velocity_bound);
    b.addLinearConstraint(name + "4", {{roll, 1.0}, {yaw, 0.0427}}, 0.4611, none, velocity_bound);
    b.addLinearConstraint(name + "5", {{roll, 1.0}}, -none, 1.7453, velocity_bound);
    b.addLinearConstraint(name + "6", {{elbow, 2.5}, {prosup, 1.0}}, -none, 5.2796, velocity_bound);
    b.addLinearConstraint(name + "7", {{elbow, -2.5}, {prosup, 1.0}}, -5.2796, none, velocity_bound);
  }
}

bool isIcub(const Model& model) {
  for (const char* side : {"l_", "r_"})
    for (const char* j : {"shoulder_pitch", "shoulder_roll", "shoulder_yaw", "elbow", "wrist_prosup"})
      if (!model.findJoint(std::string(side) + j)) return false;
  return true;
}

Model icubForRetargeting(const Model& urdf_model, double shoulder_velocity, double torso_velocity) {
  if (!isIcub(urdf_model))
    throw InvalidArgument("icubForRetargeting: model '" + urdf_model.name() + "' lacks the iCub arm joints");
  ModelBuilder b(urdf_model);
  addIcubCouplingConstraints(b, shoulder_velocity);
  for (const char* side : {"l_", "r_"})
    for (const char* j : {"shoulder_pitch", "shoulder_roll", "shoulder_yaw"})
      b.setVelocityLimit(std::string(side) + j, shoulder_velocity);
  for (const char* j : {"torso_pitch", "torso_roll", "torso_yaw"})
    if (urdf_model.findJoint(j)) b.setVelocityLimit(j, torso_velocity);
  return b.build();
}

}  // namespace kinetrack
