// Proves the per-frame kinematics calls do not touch the heap: forwardKinematics,
// updateFramePlacements, updateFramePlacement, frameJacobian and frameJacobianSupport.
//
// The guard counts, while armed on the current thread,
//  - every global operator new / new[] (all replaceable forms), in every build, and
//  - every malloc / calloc / realloc / memalign family call (Eigen's dynamic matrices allocate
//    through std::malloc, bypassing operator new), in non-sanitized glibc builds only: under
//    AddressSanitizer the runtime owns malloc and must not be replaced.
// The replacements forward to std::malloc / std::free (resp. glibc's __libc_* functions), which
// is compatible with ASan.
#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "kinetrack/io/model/urdf.hpp"
#include "kinetrack/kinematics/configuration.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/kinematics/jacobian.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/alloc_guard.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

using testing::AllocationCounter;

const bool kCountsMalloc = AllocationCounter::countsMalloc();

TEST(NoAlloc, GuardSeesOperatorNewAndStdContainers) {
  long n = 0;
  {
    AllocationCounter guard;
    auto* p = new int(3);
    delete p;
    std::vector<double> v;
    v.push_back(1.0);
    n = guard.count();
  }
  EXPECT_GE(n, 2);
  {
    AllocationCounter guard;
    n = guard.count();
  }
  EXPECT_EQ(n, 0);
}

TEST(NoAlloc, GuardSeesEigenHeapAllocations) {
  if (!kCountsMalloc)
    GTEST_SKIP() << "malloc is owned by the sanitizer runtime in this build; operator new is still counted";
  long n = 0;
  {
    AllocationCounter guard;
    VectorXd v = VectorXd::Ones(100);
    Matrix6Xd J(6, 40);
    J.setZero();
    n = guard.count() + static_cast<long>(v.sum() + J.sum()) * 0;
  }
  EXPECT_GE(n, 2);
}

void expectNoAllocation(const Model& model, int configs) {
  std::mt19937_64 rng(9);
  std::vector<Configuration> qs;
  for (int i = 0; i < configs; ++i) qs.push_back(randomConfiguration(model, rng));
  Data data(model);
  Matrix6Xd J(6, model.nv()), Js = Matrix6Xd::Zero(6, model.nv());
  // Different frames: link frames, fixed frames, the root.
  std::vector<FrameId> frames;
  for (int f = 0; f < model.numFrames(); f += 7) frames.emplace_back(f);
  frames.emplace_back(model.numFrames() - 1);
  double checksum = 0.0;
  long allocations = 0;
  {
    AllocationCounter guard;
    for (const Configuration& q : qs) {
      forwardKinematics(model, data, q);
      updateFramePlacements(model, data);
      for (const FrameId f : frames) {
        checksum += updateFramePlacement(model, data, f).p.x();
        frameJacobian(model, data, f, J);
        frameJacobianSupport(model, data, f, Js);
        checksum += J(0, 0) + Js(5, model.nv() - 1) + frameOrigin(model, data, f).z();
      }
      framesForwardKinematics(model, data, q);
    }
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0) << model.name() << ": heap allocations in the per-frame kinematics calls";
  EXPECT_TRUE(std::isfinite(checksum));
}

TEST(NoAlloc, Human66) { expectNoAllocation(makeHuman66(), 20); }
TEST(NoAlloc, Human48) { expectNoAllocation(makeHuman48(), 20); }

TEST(NoAlloc, Human48FixedBase) {
  HumanModelOptions o;
  o.base = BaseType::Fixed;
  expectNoAllocation(makeHuman48(o), 5);
}

TEST(NoAlloc, ICub) {
  KINETRACK_REQUIRE_SHARED(path, "models/icub/iCubGazeboV2_5_model.urdf");
  expectNoAllocation(io::loadUrdf(path), 20);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
