// io::OpenSimModelDocument on a small 4.0 model whose answers are worked out by hand: unequal
// factors on a body (OpenSim's equivalent-cylinder inertia, mass × volume when the distribution is
// not preserved), its mass centre, geometry, wrap cylinder and sphere, the joint's child offset
// frame, its marker; markers set and appended; muscle lengths; refused inputs.
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/opensim_model_edit.hpp"

namespace KINETRACK_UNITY_ID {

using namespace kinetrack;

const char* kModel = R"(<?xml version="1.0" encoding="UTF-8" ?>
<OpenSimDocument Version="40000">
  <Model name="m">
    <Ground name="ground"/>
    <BodySet name="bodyset"><objects>
      <Body name="b">
        <!--kept-->
        <attached_geometry><Mesh name="g"><scale_factors>1 1 1</scale_factors></Mesh></attached_geometry>
        <WrapObjectSet name="wrapobjectset"><objects>
          <WrapCylinder name="cyl"><xyz_body_rotation>0 0 0</xyz_body_rotation><translation>0.01 0.02 0.03</translation>
            <radius>0.05</radius><length>0.2</length></WrapCylinder>
          <WrapSphere name="sph"><translation>0 0 0</translation><radius>0.1</radius></WrapSphere>
        </objects></WrapObjectSet>
        <mass>2</mass>
        <mass_center>0 -0.1 0</mass_center>
        <inertia>0.1 0.02 0.1 0 0 0</inertia>
      </Body>
    </objects></BodySet>
    <JointSet name="jointset"><objects>
      <PinJoint name="j">
        <socket_parent_frame>ground_offset</socket_parent_frame>
        <socket_child_frame>b_offset</socket_child_frame>
        <frames>
          <PhysicalOffsetFrame name="ground_offset"><socket_parent>/ground</socket_parent><translation>0 1 0</translation></PhysicalOffsetFrame>
          <PhysicalOffsetFrame name="b_offset"><socket_parent>/bodyset/b</socket_parent><translation>0 0.1 0</translation></PhysicalOffsetFrame>
        </frames>
      </PinJoint>
    </objects></JointSet>
    <ForceSet name="forceset"><objects>
      <Thelen2003Muscle name="mus"><optimal_fiber_length>0.1</optimal_fiber_length><tendon_slack_length>0.2</tendon_slack_length></Thelen2003Muscle>
    </objects></ForceSet>
    <MarkerSet name="markerset"><objects>
      <Marker name="M"><socket_parent_frame>/bodyset/b</socket_parent_frame><location>0.1 0.1 0.1</location><fixed>false</fixed></Marker>
    </objects></MarkerSet>
  </Model>
</OpenSimDocument>
)";

/// The numbers of the first element `tag` (with that name attribute, when given) in `parent`'s subtree.
std::vector<double> numbersOf(const std::string& text, const std::string& owner_tag, const std::string& owner,
                              const char* tag) {
  tinyxml2::XMLDocument doc;
  EXPECT_EQ(doc.Parse(text.c_str()), tinyxml2::XML_SUCCESS);
  std::vector<const tinyxml2::XMLElement*> stack = {doc.RootElement()};
  while (!stack.empty()) {
    const tinyxml2::XMLElement* e = stack.back();
    stack.pop_back();
    if (owner_tag == e->Name() && e->Attribute("name") && owner == e->Attribute("name")) {
      const tinyxml2::XMLElement* c = e->FirstChildElement(tag);
      if (!c) return {};
      std::istringstream in(c->GetText());
      std::vector<double> v;
      for (double x; in >> x;) v.push_back(x);
      return v;
    }
    for (const tinyxml2::XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) stack.push_back(c);
  }
  return {};
}

void expectNear(const std::vector<double>& a, const std::vector<double>& b, double tol = 1e-12) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << i;
}

TEST(OpenSimModelEdit, UnequalFactorsOnABody) {
  io::OpenSimModelDocument doc(kModel, "m.osim");
  const io::OpenSimScaleReport rep = doc.scale({{"b", Vector3d(1, 2, 1)}}, -1.0, false);
  EXPECT_DOUBLE_EQ(rep.mass_before, 2.0);
  EXPECT_DOUBLE_EQ(rep.mass_after, 4.0);  // × s_x s_y s_z
  const std::string t = doc.text();
  expectNear(numbersOf(t, "Body", "b", "mass"), {4.0});
  expectNear(numbersOf(t, "Body", "b", "mass_center"), {0, -0.2, 0});
  // Cylinder about y (the smallest moment): r² = 2·0.02/2 = 0.02, l² = 12·(0.1 − 0.25·2·0.02)/2 =
  // 0.54; l × 2; Iyy = ½·4·0.02 = 0.04, Ixx = Izz = 4·(4·0.54/12 + 0.25·0.02) = 0.74.
  expectNear(numbersOf(t, "Body", "b", "inertia"), {0.74, 0.04, 0.74, 0, 0, 0});
  expectNear(numbersOf(t, "Mesh", "g", "scale_factors"), {1, 2, 1});
  // Cylinder along z: length × s_z, radius × (s_x + s_y)/2; sphere × the mean factor.
  expectNear(numbersOf(t, "WrapCylinder", "cyl", "translation"), {0.01, 0.04, 0.03});
  expectNear(numbersOf(t, "WrapCylinder", "cyl", "radius"), {0.075});
  expectNear(numbersOf(t, "WrapCylinder", "cyl", "length"), {0.2});
  expectNear(numbersOf(t, "WrapSphere", "sph", "radius"), {0.1 * 4.0 / 3.0});
  // The child frame on b scales, the parent frame on ground does not.
  expectNear(numbersOf(t, "PhysicalOffsetFrame", "b_offset", "translation"), {0, 0.2, 0});
  expectNear(numbersOf(t, "PhysicalOffsetFrame", "ground_offset", "translation"), {0, 1, 0});
  expectNear(numbersOf(t, "Marker", "M", "location"), {0.1, 0.2, 0.1});
  EXPECT_NE(t.find("<!--kept-->"), std::string::npos);
  EXPECT_EQ(rep.wrap_objects, 2);
  EXPECT_EQ(rep.offset_frames, 1);
}

TEST(OpenSimModelEdit, EqualFactorsPreservedMassAndSubjectMass) {
  io::OpenSimModelDocument doc(kModel, "m.osim");
  const io::OpenSimScaleReport rep = doc.scale({{"b", Vector3d::Constant(1.1)}}, 3.0, true);
  EXPECT_DOUBLE_EQ(rep.mass_after, 3.0);
  const std::string t = doc.text();
  expectNear(numbersOf(t, "Body", "b", "mass"), {3.0});
  // Inertia × s² (mass kept), then × 3/2 with the mass.
  const double k = 1.1 * 1.1 * 1.5;
  expectNear(numbersOf(t, "Body", "b", "inertia"), {0.1 * k, 0.02 * k, 0.1 * k, 0, 0, 0});
}

TEST(OpenSimModelEdit, MarkersMuscleLengthsAndRefusals) {
  io::OpenSimModelDocument doc(kModel, "m.osim");
  io::OpenSimMarker moved{"M", "ground", Vector3d(1, 2, 3), true, {}, 0};
  io::OpenSimMarker added{"N", "b", Vector3d(0.5, 0, 0), false, {}, 0};
  doc.setMarkers({moved, added});
  doc.scaleMuscleLengths({{"mus", 1.5}});
  const std::string t = doc.text();
  expectNear(numbersOf(t, "Marker", "M", "location"), {1, 2, 3});
  expectNear(numbersOf(t, "Marker", "N", "location"), {0.5, 0, 0});
  EXPECT_NE(t.find("<socket_parent_frame>/ground</socket_parent_frame>"), std::string::npos);
  expectNear(numbersOf(t, "Thelen2003Muscle", "mus", "optimal_fiber_length"), {0.15});
  expectNear(numbersOf(t, "Thelen2003Muscle", "mus", "tendon_slack_length"), {0.3});
  EXPECT_THROW(doc.scaleMuscleLengths({{"nobody", 1.0}}), InvalidArgument);
  EXPECT_THROW(doc.setMarkers({{"X", "thorax", Vector3d::Zero(), false, {}, 0}}), InvalidArgument);
  EXPECT_THROW(doc.scale({{"thorax", Vector3d::Ones()}}, -1, true), InvalidArgument);
  EXPECT_THROW(doc.scale({{"b", Vector3d(1, 0, 1)}}, -1, true), InvalidArgument);
  std::string old = kModel;
  old.replace(old.find("40000"), 5, "30000");
  EXPECT_THROW(io::OpenSimModelDocument(old, "old.osim"), InvalidArgument);
  EXPECT_THROW(io::OpenSimModelDocument("<OpenSimDocument><Model>", "bad.osim"), ParseError);
}

/// A CustomJoint child of b whose parent frame is named by its absolute path: its translations are
/// multiplied by |axis| · s_b, except the identity of a coordinate (a degree of freedom).
TEST(OpenSimModelEdit, CustomJointTranslations) {
  std::string text = kModel;
  const std::string joint = R"(
      <CustomJoint name="c">
        <socket_parent_frame>/jointset/c/b_offset2</socket_parent_frame>
        <socket_child_frame>b_offset2</socket_child_frame>
        <frames><PhysicalOffsetFrame name="b_offset2"><socket_parent>/bodyset/b</socket_parent><translation>0 0 0</translation></PhysicalOffsetFrame></frames>
        <SpatialTransform>
          <TransformAxis name="translation1"><coordinates>c_x</coordinates><axis>1 0 0</axis>
            <LinearFunction name="function"><coefficients> 1 0</coefficients></LinearFunction></TransformAxis>
          <TransformAxis name="translation2"><coordinates>c_y</coordinates><axis>0 -1 0</axis>
            <SimmSpline name="function"><x>0 1</x><y>0.1 0.2</y></SimmSpline></TransformAxis>
          <TransformAxis name="translation3"><axis>0 0 1</axis>
            <MultiplierFunction name="function"><function><Constant><value>0.3</value></Constant></function><scale>2</scale></MultiplierFunction></TransformAxis>
        </SpatialTransform>
      </CustomJoint>)";
  text.insert(text.find("</PinJoint>") + 11, joint);
  io::OpenSimModelDocument doc(text, "m.osim");
  const io::OpenSimScaleReport rep = doc.scale({{"b", Vector3d(1, 2, 3)}}, -1.0, true);
  EXPECT_EQ(rep.translation_functions, 2);
  EXPECT_TRUE(rep.notices.empty());
  const std::string t = doc.text();
  // translation2: wrapped, scale |(0, −1, 0)| · (1, 2, 3) = 2; translation3: the multiplier's 2 × 3.
  EXPECT_NE(t.find("<SimmSpline>"), std::string::npos);  // moved into the multiplier, its name dropped
  tinyxml2::XMLDocument x;
  ASSERT_EQ(x.Parse(t.c_str()), tinyxml2::XML_SUCCESS);
  std::vector<double> scales;
  std::vector<const tinyxml2::XMLElement*> stack = {x.RootElement()};
  while (!stack.empty()) {
    const tinyxml2::XMLElement* e = stack.back();
    stack.pop_back();
    if (std::string(e->Name()) == "MultiplierFunction")
      scales.push_back(std::stod(e->FirstChildElement("scale")->GetText()));
    for (const tinyxml2::XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) stack.push_back(c);
  }
  std::sort(scales.begin(), scales.end());
  expectNear(scales, {2.0, 6.0});
  EXPECT_NE(t.find("<LinearFunction name=\"function\">"), std::string::npos);  // the degree of freedom, untouched
}

}  // namespace KINETRACK_UNITY_ID
