#include <kinetrack/cga/cga.hpp>
#include <kinetrack/fabrik/model_angles.hpp>
#include <kinetrack/io/model/urdf.hpp>
#include <kinetrack/kinematics/forward_kinematics.hpp>
#include <kinetrack/model/human_models.hpp>
#include <kinetrack/track/stream_tracker.hpp>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

int main() {
  const kinetrack::Model model = kinetrack::makeHuman66();
  const kinetrack::Model reloaded = kinetrack::io::parseUrdf(kinetrack::io::toUrdf(model), "human66.urdf");
  kinetrack::Data data(reloaded);
  kinetrack::forwardKinematics(reloaded, data, kinetrack::Configuration(reloaded));
  const auto& head = data.link[static_cast<std::size_t>(reloaded.linkId("Head").value)].p;
  std::printf("joints %d head z %.3f\n", reloaded.numJoints(), head.z());

  // The stream tracker through kinetrack::track (which links the Ipopt backend): one frame, the
  // head turned 10° about z, every method.
  bool tracked = true;
  for (const kinetrack::track::Method method : kinetrack::track::allMethods()) {
    kinetrack::track::TrackerOptions options;
    options.method = method;
    options.pairwise.threads = 1;
    kinetrack::track::StreamTracker tracker(std::make_shared<const kinetrack::Model>(model), {{"Head"}}, options);
    const std::vector<kinetrack::Matrix3d> R = {
        Eigen::AngleAxisd(0.1745, kinetrack::Vector3d::UnitZ()).toRotationMatrix()};
    const std::vector<kinetrack::Vector3d> p = {kinetrack::Vector3d::Zero()};
    const kinetrack::track::FrameOutcome o = tracker.track(0.0, R, p);
    std::printf("%s: %s, MNTE %.1e\n", kinetrack::track::toString(method), kinetrack::ik::toString(o.status), o.mnte);
    tracked = tracked && o.mnte < 1e-6;
  }
  // kinetrack::cga: two unit spheres 1 m apart meet in a circle of radius √3/2 in both backends.
  const kinetrack::cga::Sphere s1{kinetrack::Vector3d::Zero(), 1.0}, s2{kinetrack::Vector3d::UnitX(), 1.0};
  const kinetrack::cga::CircleResult c = kinetrack::cga::meetSpheres(s1, s2);
  const bool cga_ok = c.status == kinetrack::cga::Case::Real && std::abs(c.circle.radius - std::sqrt(0.75)) < 1e-12 &&
                      std::abs(kinetrack::cga::euclid::meetSpheres(s1, s2).circle.radius - c.circle.radius) < 1e-12;
  std::printf("cga circle radius %.6f\n", c.circle.radius);
  // FABRIK through kinetrack::fabrik: a 2-bone chain reaching a point.
  Eigen::Matrix3Xd chain(3, 3);
  chain << 0, 0, 0, 0, 0, 0, 0, 1, 2;
  kinetrack::fabrik::Solver fabrik(kinetrack::fabrik::Skeleton({-1, 0, 1}, chain));
  fabrik.setTarget(2, kinetrack::Vector3d(1.0, 0.0, 1.0));
  const bool reached = fabrik.solve(chain).status == kinetrack::ik::Status::Converged;
  std::printf("fabrik %s\n", reached ? "converged" : "failed");
  return cga_ok && reloaded.numJoints() == 66 && head.z() > 0.3 && tracked && reached ? 0 : 1;
}
