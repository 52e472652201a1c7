#include "testing/ik_fixtures.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kinetrack/core/random.hpp"
#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/model/icub.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack::testing {

Configuration feasibleRandom(const Model& m, std::mt19937_64& rng, double range) {
  RandomConfigurationOptions o;
  o.unbounded_range = range;
  o.base_box = 0.5;
  for (int attempt = 0; attempt < 100000; ++attempt) {
    Configuration q = randomConfiguration(m, rng, o);
    if (linearRowViolation(m, q) == 0.0) return q;
  }
  throw std::runtime_error("feasibleRandom: no configuration of '" + m.name() + "' satisfies the rows");
}

Configuration perturbed(const Model& m, const Configuration& q, std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> mag(lo, hi), unit(-1.0, 1.0);
  std::bernoulli_distribution sign(0.5);
  Configuration out = q;
  for (int j = 0; j < m.numJoints(); ++j) {
    const double d = (sign(rng) ? 1.0 : -1.0) * mag(rng);
    out.joints[j] = std::clamp(q.joints[j] + d, m.lowerPositionLimits()[j], m.upperPositionLimits()[j]);
  }
  if (m.nvBase() == 6) {
    const Vector3d axis = randomVector3(unit, rng).normalized();
    out.base_rotation = so3::exp(mag(rng) * axis) * q.base_rotation;
    out.base_position += 0.05 * randomVector3(unit, rng);
  }
  return out;
}

Configuration smoothMotion(const Model& m, double t) {
  Configuration q(m);
  for (int j = 0; j < m.numJoints(); ++j) {
    const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
    const bool bounded = std::isfinite(lo) && std::isfinite(hi);
    const double c = bounded ? 0.5 * (lo + hi) : 0.1 * std::sin(j);
    const double a = bounded ? 0.4 * 0.5 * (hi - lo) : 0.6;
    q.joints[j] = c + a * std::sin(2.0 * M_PI * (0.3 + 0.07 * (j % 10)) * t + j);
  }
  q.base_position = Vector3d(0.3 * std::sin(0.6 * t), 0.1 * std::cos(0.6 * t), 1.0);
  q.base_rotation = so3::exp(Vector3d(0.0, 0.0, 0.5 * std::sin(0.4 * t)));
  return q;
}

Model icubWithCoupling(const std::string& path) {
  ModelBuilder b(io::loadUrdf(path));
  addIcubCouplingConstraints(b);
  return b.build();
}

}  // namespace kinetrack::testing
