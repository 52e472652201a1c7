// Geoms in the Model (ModelBuilder::addGeom): placement composed through merged and user frames,
// the link after merging, default names, validation naming the geom, copy-through in
// ModelBuilder(const Model&) and Model::withInertial.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/model/model_builder.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

Transform at(const Vector3d& p, const Matrix3d& R = Matrix3d::Identity()) { return {R, p}; }

Geom sphere(const std::string& name, double r, const Transform& X = {}) {
  Geom g;
  g.name = name;
  g.shape = GeomShape::Sphere;
  g.size = Vector3d(r, 0.0, 0.0);
  g.placement = X;
  return g;
}

ModelBuilder arm() {
  ModelBuilder b("arm", "base", BaseType::Fixed);
  JointSpec s;
  s.name = "shoulder";
  s.parent = "base";
  s.child = "upper";
  s.placement = at(Vector3d(0, 0, 0.5));
  b.addJoint(s);
  // A merged link (fixed joint) rotated and shifted, and a user frame on it.
  b.addFixedLink("cover", "upper", at(Vector3d(0.1, 0, 0), so3::axisAngle(Vector3d::UnitZ(), 0.5)));
  b.addFrame("marker", "cover", at(Vector3d(0, 0.2, 0), so3::axisAngle(Vector3d::UnitX(), 0.3)));
  return b;
}

TEST(ModelGeom, PlacementIsComposedThroughMergedAndUserFrames) {
  ModelBuilder b = arm();
  const Transform local = at(Vector3d(0.01, 0.02, 0.03), so3::axisAngle(Vector3d(1, 2, 3).normalized(), 0.7));
  b.addGeom("upper", sphere("on_link", 0.05, local));
  b.addGeom("cover", sphere("on_cover", 0.05, local));
  b.addGeom("marker", sphere("on_marker", 0.05, local));
  b.addGeom("base", sphere("", 0.05));
  b.addGeom("upper", sphere("", 0.05));
  const Model m = b.build();
  // Grouped by link (the base's first), in the order added within a link.
  ASSERT_EQ(m.geoms().size(), 5u);
  const LinkId upper = m.linkId("upper");
  EXPECT_EQ(m.geoms()[0].link, LinkId(0));
  for (int k = 1; k < 5; ++k) EXPECT_EQ(m.geoms()[static_cast<std::size_t>(k)].link, upper);
  for (const char* frame : {"upper", "cover", "marker"}) {
    const Geom& g = m.geoms()[static_cast<std::size_t>(frame[0] == 'u' ? 1 : frame[0] == 'c' ? 2 : 3)];
    const Transform expected = compose(m.framePlacement(m.frameId(frame)), local);
    EXPECT_LE((g.placement.R - expected.R).cwiseAbs().maxCoeff(), 1e-15) << frame;
    EXPECT_LE((g.placement.p - expected.p).cwiseAbs().maxCoeff(), 1e-15) << frame;
  }
  // Default names: "<link>/geom<k>", k counting the geoms already on that link.
  EXPECT_EQ(m.geoms()[0].name, "base/geom0");
  EXPECT_EQ(m.geoms()[4].name, "upper/geom3");
  EXPECT_STREQ(toString(GeomShape::Capsule), "capsule");
}

TEST(ModelGeom, CopiedByModelBuilderFromModelAndWithInertial) {
  ModelBuilder b = arm();
  Geom mesh;
  mesh.name = "shell";
  mesh.shape = GeomShape::Mesh;
  mesh.size = Vector3d(0.001, -0.001, 0.001);  // a mirrored scale is allowed
  mesh.mesh = "/nowhere/shell.stl";
  mesh.visual = true;
  mesh.collision = false;
  mesh.rgba = Vector4d(0.1, 0.2, 0.3, 0.4);
  b.addGeom("cover", mesh);
  const Model m = b.build();
  ModelBuilder again(m);
  again.addFrame("tip", "upper", at(Vector3d(0, 0, 1)));
  again.addGeom("tip", sphere("tip_ball", 0.01));
  const Model r = again.build();
  ASSERT_EQ(r.geoms().size(), 2u);
  const Geom& a = m.geoms()[0];
  const Geom& c = r.geoms()[0];
  EXPECT_EQ(c.name, a.name);
  EXPECT_EQ(c.link, a.link);
  EXPECT_EQ(c.placement.R, a.placement.R);
  EXPECT_EQ(c.placement.p, a.placement.p);
  EXPECT_EQ(c.shape, GeomShape::Mesh);
  EXPECT_EQ(c.size, a.size);
  EXPECT_EQ(c.mesh, "/nowhere/shell.stl");
  EXPECT_TRUE(c.visual);
  EXPECT_FALSE(c.collision);
  EXPECT_EQ(c.rgba, a.rgba);
  EXPECT_EQ(r.geoms()[1].placement.p, Vector3d(0, 0, 1));
  EXPECT_EQ(m.withInertial(LinkId(1), Inertial{}).geoms().size(), 1u);
}

TEST(ModelGeom, InvalidGeomsNameTheGeom) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto rejects = [](Geom g, const std::string& parent, const std::string& fragment) {
    ModelBuilder b = arm();
    try {
      b.addGeom(parent, g);
      ADD_FAILURE() << "accepted: " << fragment;
    } catch (const InvalidArgument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("geom '" + g.name + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(fragment), std::string::npos) << what;
    }
  };
  rejects(sphere("s", 0.0), "upper", "size x must be finite and > 0");
  rejects(sphere("s", -1.0), "upper", "size x");
  rejects(sphere("s", nan), "upper", "size x");
  Geom capsule = sphere("c", 0.1);
  capsule.shape = GeomShape::Capsule;
  rejects(capsule, "upper", "capsule size y");
  Geom box = sphere("b", 0.1);
  box.shape = GeomShape::Box;
  box.size = Vector3d(0.1, 0.1, std::numeric_limits<double>::infinity());
  rejects(box, "upper", "box size z");
  Geom mesh = sphere("m", 1.0);
  mesh.shape = GeomShape::Mesh;
  mesh.size = Vector3d(1, 0, 1);
  mesh.mesh = "x.stl";
  rejects(mesh, "upper", "mesh scale");
  mesh.size = Vector3d::Ones();
  mesh.mesh.clear();
  rejects(mesh, "upper", "path");
  Geom rotated = sphere("r", 0.1, at(Vector3d::Zero(), 2.0 * Matrix3d::Identity()));
  rejects(rotated, "upper", "not a rotation");
  Geom moved = sphere("p", 0.1, at(Vector3d(nan, 0, 0)));
  rejects(moved, "upper", "non-finite");
  Geom colour = sphere("c", 0.1);
  colour.rgba[2] = nan;
  rejects(colour, "upper", "rgba");
  rejects(sphere("u", 0.1), "nowhere", "not a link or frame");
  // The sizes a shape does not use are not checked (a sphere's y, z).
  ModelBuilder b = arm();
  Geom s = sphere("ok", 0.1);
  s.size.y() = nan;
  EXPECT_NO_THROW(b.addGeom("upper", s));
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
