#include "kinetrack/model/serial_chain.hpp"

#include <cmath>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack {

Model makeSerialChain(const SerialChainOptions& o) {
  if (o.links < 1) throw InvalidArgument("makeSerialChain: links must be >= 1");
  if (!(o.link_length > 0.0) || !(o.link_mass > 0.0) || !std::isfinite(o.link_length) || !std::isfinite(o.link_mass))
    throw InvalidArgument("makeSerialChain: link length and mass must be finite and > 0");
  // A solid rod along z: I_xx = I_yy = m(3r² + L²)/12, I_zz = m r²/2, centre at L/2.
  const double L = o.link_length, m = o.link_mass, r = L / 10.0;
  Inertial rod;
  rod.mass = m;
  rod.com = Vector3d(0.0, 0.0, 0.5 * L);
  rod.inertia = Vector3d(m * (3 * r * r + L * L) / 12.0, m * (3 * r * r + L * L) / 12.0, 0.5 * m * r * r).asDiagonal();
  ModelBuilder b("chain" + std::to_string(o.links), "base", o.base, o.base == BaseType::Floating ? rod : Inertial{});
  for (int i = 1; i <= o.links; ++i) {
    JointSpec s;
    s.name = "joint" + std::to_string(i);
    s.parent = i == 1 ? "base" : "link" + std::to_string(i - 1);
    s.child = "link" + std::to_string(i);
    s.placement.p = Vector3d(0.0, 0.0, i == 1 && o.base == BaseType::Fixed ? 0.0 : L);
    s.axis = (i % 3 == 1) ? Vector3d::UnitY() : ((i % 3 == 2) ? Vector3d::UnitX() : Vector3d::UnitZ());
    s.child_inertial = rod;
    b.addJoint(s);
  }
  return b.build();
}

}  // namespace kinetrack
