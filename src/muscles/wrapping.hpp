#pragma once
// Private to muscle_paths.cpp: one segment P–S wrapped over one wrap object, in the object's
// frame (see muscle_paths.hpp for the rules).
#include <Eigen/Core>

#include "kinetrack/io/model/opensim_muscles.hpp"

namespace kinetrack::muscles::detail {

struct WrapResult {
  bool wrapped = false;
  Vector3d t1 = Vector3d::Zero(), t2 = Vector3d::Zero();  ///< tangent points, wrap frame
  double arc = 0.0;                                       ///< surface length from t1 to t2
};

/// P and S in the wrap object's frame (its centre at the origin).
WrapResult wrapSegment(const io::OpenSimWrapObject& object, const Vector3d& P, const Vector3d& S);

}  // namespace kinetrack::muscles::detail
