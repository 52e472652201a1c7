// Model registry: built-in names with a height and base type, URDF paths with their warnings
// returned (never printed), and the errors for unknown names, heights and bad files.
#include "kinetrack/io/model/model_source.hpp"

#include <gtest/gtest.h>

#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/model/human_models.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::io {
namespace KINETRACK_UNITY_ID {

const std::string kData = kinetrack::testing::testDataDir() + "/urdf/";

TEST(ModelSource, BuiltinNamesWithHeightAndBase) {
  const LoadedModel a = loadModel({"human66", std::nullopt, false});
  EXPECT_EQ(a.source, "built-in");
  ASSERT_TRUE(a.height.has_value());
  EXPECT_EQ(*a.height, 1.75);
  EXPECT_EQ(a.model.numJoints(), makeHuman66().numJoints());
  EXPECT_GT(a.model.nvBase(), 0);
  EXPECT_TRUE(a.warnings.empty());

  const LoadedModel b = loadModel({"human48", 1.6, true});
  EXPECT_EQ(*b.height, 1.6);
  EXPECT_EQ(b.model.nvBase(), 0);
  EXPECT_EQ(b.model.numJoints(), makeBuiltinModel("human48", 1.6).numJoints());
}

TEST(ModelSource, UrdfWithMimicJointsReturnsTheWarnings) {
  const LoadedModel m = loadModel({kData + "mimic.urdf", std::nullopt, false});
  EXPECT_EQ(m.source, kData + "mimic.urdf");
  EXPECT_FALSE(m.height.has_value());
  EXPECT_EQ(m.model.name(), "gripper");
  ASSERT_FALSE(m.warnings.empty());
  EXPECT_NE(m.warnings.front().find("right_finger_joint"), std::string::npos) << m.warnings.front();
}

TEST(ModelSource, UnknownNameListsTheBuiltinNames) {
  try {
    loadModel({"human99", std::nullopt, false});
    ADD_FAILURE() << "loaded an unknown model";
  } catch (const InvalidArgument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("unknown model 'human99'"), std::string::npos) << what;
    for (const std::string& name : builtinModelNames()) EXPECT_NE(what.find(name), std::string::npos) << what;
  }
}

TEST(ModelSource, BadHeightsAndFiles) {
  EXPECT_THROW(loadModel({"human66", 3.0, false}), InvalidArgument);
  EXPECT_THROW(loadModel({kData + "mimic.urdf", 1.8, false}), InvalidArgument);  // height with a URDF
  try {
    loadModel({kData + "no_such.urdf", std::nullopt, false});  // looks like a path: a file error
    ADD_FAILURE() << "loaded a missing file";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), kData + "no_such.urdf");
  }
  try {
    loadModel({kData + "nan_origin.urdf", std::nullopt, false});
    ADD_FAILURE() << "loaded a malformed file";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.file(), kData + "nan_origin.urdf");
    EXPECT_EQ(e.line(), 8);
  }
  EXPECT_THROW(loadModel({kData, std::nullopt, false}), ParseError);  // a directory
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::io
