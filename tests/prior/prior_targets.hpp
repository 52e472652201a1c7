#pragma once
// Test helper shared by the prior tests: the world poses of some frames at a configuration.
#include <string>
#include <vector>

#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::prior::testing {

inline std::vector<Transform> frameTargets(const Model& m, const Configuration& q,
                                           const std::vector<std::string>& frames) {
  Data d(m);
  framesForwardKinematics(m, d, q);
  std::vector<Transform> t;
  for (const auto& n : frames) t.push_back(d.frame[static_cast<std::size_t>(m.frameId(n).value)]);
  return t;
}

}  // namespace kinetrack::prior::testing
