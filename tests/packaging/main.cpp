#include <kinetrack/io/urdf.hpp>
#include <kinetrack/kinematics/forward_kinematics.hpp>
#include <kinetrack/model/human_models.hpp>

#include <cstdio>

int main() {
  const kinetrack::Model model = kinetrack::makeHuman66();
  const kinetrack::Model reloaded = kinetrack::io::parseUrdf(kinetrack::io::toUrdf(model), "human66.urdf");
  kinetrack::Data data(reloaded);
  kinetrack::forwardKinematics(reloaded, data, kinetrack::Configuration(reloaded));
  const auto& head = data.link[static_cast<std::size_t>(reloaded.linkId("Head").value)].p;
  std::printf("joints %d head z %.3f\n", reloaded.numJoints(), head.z());
  return reloaded.numJoints() == 66 && head.z() > 0.3 ? 0 : 1;
}
