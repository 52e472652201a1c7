// What the viewer draws, checked against independent computations: the G1's meshes where MuJoCo
// puts them (its own MJCF parser, mesh loader and kinematics); OpenSim bones as visual geoms
// (4.0 and 3.x files, the lookup of Geometry/ folders, a missing mesh a note); muscle paths whose
// drawn length is the muscle length; forces, markers and the centre of mass against their
// sources; data.js decoding back to the numbers; `kinetrack view` on an OpenSim .mot.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "../cli/cli_runner.hpp"
#include "../testing/mujoco_mjcf.hpp"
#include "../testing/shared_paths.hpp"
#include "kinetrack/app/view_job.hpp"
#include "kinetrack/core/base64.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/capture/marker_file.hpp"
#include "kinetrack/io/model/collision_geometry.hpp"
#include "kinetrack/io/model/external_loads.hpp"
#include "kinetrack/io/model/mesh.hpp"
#include "kinetrack/io/model/mjcf.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/muscles/muscle_paths.hpp"
#include "kinetrack/track/virtual_imus.hpp"
#include "kinetrack/viewer/viewer.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

using testing::readFile;
using testing::runCli;
using testing::ScratchDir;

constexpr const char* kGaitModel = "data/opensim/gait2354_walk/subject01_simbody.osim";
constexpr const char* kGaitIk = "data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot";

Vector3d at(const std::vector<double>& v, std::size_t i) { return {v[3 * i], v[3 * i + 1], v[3 * i + 2]}; }

viewer::Motion gaitMotion(const io::OpenSimModel& osim, const std::string& mot) {
  const io::MotTable table = io::readMot(mot);
  viewer::Motion m;
  m.source = mot;
  m.times = table.times;
  m.configurations = track::openSimConfigurations(osim, table);
  return m;
}

// ---- geometry -----------------------------------------------------------------------------------

// The G1's meshes, drawn at random configurations, against MuJoCo loading the same MJCF and the
// same STL files: the world bounding box of every mesh geom's vertices agrees (MuJoCo moves each
// mesh to its inertial frame and the geom with it, so only the world vertices compare).
TEST(ViewerGeometry, G1MeshesAreWhereMujocoDrawsThem) {
  KINETRACK_REQUIRE_SHARED(xml, "models/unitree/g1/g1_29dof.xml");
  const Model m = io::loadMjcf(xml);
  const viewer::ViewerGeometry g = viewer::viewerGeometry(m);
  EXPECT_TRUE(g.notes.empty()) << g.notes.front();
  ASSERT_GT(g.meshes.size(), 20U);
  std::string text = readFile(xml);
  const std::string meshdir = "meshdir=\"meshes\"";
  ASSERT_NE(text.find(meshdir), std::string::npos);
  text.replace(text.find(meshdir), meshdir.size(),
               "meshdir=\"" + (std::filesystem::path(xml).parent_path() / "meshes").string() + "\"");
  testing::MjcfOracle oracle(text, /*replace_meshes=*/false);
  const mjModel* mm = oracle.model();
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Data data(m);
  double worst = 0.0;
  int compared = 0;
  for (int c = 0; c < 5; ++c) {
    Configuration q(m);
    for (int j = 0; j < m.numJoints(); ++j) {
      const double lo = m.lowerPositionLimits()[j], hi = m.upperPositionLimits()[j];
      q.joints[j] = lo + (hi - lo) * u(rng);
    }
    q.base_position = Vector3d(u(rng), u(rng), 0.8);
    q.base_rotation = so3::exp(Vector3d(0.3 * u(rng), 0.2, M_PI * u(rng)));
    forwardKinematics(m, data, q);
    oracle.setConfiguration(m, q);
    for (int gi = 0; gi < mm->ngeom; ++gi) {
      if (mm->geom_type[gi] != mjGEOM_MESH) continue;
      const std::string name = oracle.geomName(gi);
      const auto it = std::find_if(g.geoms.begin(), g.geoms.end(), [&](const auto& v) { return v.name == name; });
      if (it == g.geoms.end()) continue;  // a collision-only geom (group 3): not drawn
      ASSERT_GE(it->mesh, 0) << name;
      const Transform& L = data.link[static_cast<std::size_t>(it->link)];
      const Matrix3d R = L.R * so3::fromQuaternionWxyz(Eigen::Vector4d(it->quaternion[3], it->quaternion[0],
                                                                       it->quaternion[1], it->quaternion[2]));
      const Vector3d p = L.R * it->position + L.p;
      Vector3d lo = Vector3d::Constant(1e9), hi = Vector3d::Constant(-1e9);
      const auto& verts = g.meshes[static_cast<std::size_t>(it->mesh)].vertices;
      for (std::size_t k = 0; k < verts.size(); k += 3) {
        const Vector3d v = R * Vector3d(verts[k], verts[k + 1], verts[k + 2]).cwiseProduct(it->size) + p;
        lo = lo.cwiseMin(v);
        hi = hi.cwiseMax(v);
      }
      const Transform G = oracle.geom(gi);
      const int id = mm->geom_dataid[gi];
      Vector3d mlo = Vector3d::Constant(1e9), mhi = Vector3d::Constant(-1e9);
      for (int k = 0; k < mm->mesh_vertnum[id]; ++k) {
        const float* f = mm->mesh_vert + 3 * (mm->mesh_vertadr[id] + k);
        const Vector3d v = G.R * Vector3d(f[0], f[1], f[2]) + G.p;
        mlo = mlo.cwiseMin(v);
        mhi = mhi.cwiseMax(v);
      }
      worst = std::max({worst, (lo - mlo).cwiseAbs().maxCoeff(), (hi - mhi).cwiseAbs().maxCoeff()});
      ++compared;
    }
  }
  EXPECT_EQ(compared, 5 * 61) << "the MJCF's 61 drawn mesh geoms at 5 configurations";
  std::printf("  G1 mesh bounding boxes against MuJoCo: %d compared, worst %.2e m\n", compared, worst);
  EXPECT_LT(worst, 1e-6) << "metres (1.1e-8 in the run of 6 Dec 2026; both hold float32 vertices)";
}

// Vertex clustering keeps a surface within a cell of where it was and drops what collapses.
TEST(ViewerGeometry, SimplifiedMeshesStayWithinACellOfTheOriginal) {
  KINETRACK_REQUIRE_SHARED(stl, "models/unitree/g1/meshes/left_rubber_hand.STL");
  const io::TriangleMesh hand = io::loadMesh(stl);
  viewer::ViewerMesh full;
  for (const Vector3d& v : hand.vertices)
    for (int k = 0; k < 3; ++k) full.vertices.push_back(static_cast<float>(v[k]));
  for (const auto& t : hand.triangles)
    for (const int i : t) full.indices.push_back(static_cast<std::uint32_t>(i));
  EXPECT_EQ(viewer::simplifyMesh(full, 0.0).indices, full.indices);
  const double cell = 0.003;
  const viewer::ViewerMesh s = viewer::simplifyMesh(full, cell);
  EXPECT_LT(s.indices.size(), full.indices.size() / 2) << "a 3 mm cell halves the hand at least";
  EXPECT_GT(s.indices.size(), full.indices.size() / 20);
  // Every simplified vertex is the mean of a cell's vertices: within the cell's diagonal of one.
  double worst = 0.0;
  for (std::size_t v = 0; v < s.vertices.size(); v += 3) {
    const Vector3d p(s.vertices[v], s.vertices[v + 1], s.vertices[v + 2]);
    double nearest = 1e9;
    for (const Vector3d& q : hand.vertices) nearest = std::min(nearest, (p - q).norm());
    worst = std::max(worst, nearest);
  }
  EXPECT_LT(worst, cell * std::sqrt(3.0));
  for (const std::uint32_t i : s.indices) ASSERT_LT(i, s.vertices.size() / 3);
}

TEST(ViewerGeometry, UrdfAndMjcfOfTheG1DrawTheSameMeshes) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/g1/g1_29dof.urdf");
  KINETRACK_REQUIRE_SHARED(xml, "models/unitree/g1/g1_29dof.xml");
  const viewer::ViewerGeometry a = viewer::viewerGeometry(io::loadModel({urdf, {}, false, {}}).model);
  const viewer::ViewerGeometry b = viewer::viewerGeometry(io::loadMjcf(xml));
  EXPECT_TRUE(a.notes.empty()) << a.notes.front();
  std::set<std::string> fa, fb;
  for (const auto& m : a.meshes) fa.insert(std::filesystem::path(m.file).filename().string());
  for (const auto& m : b.meshes) fb.insert(std::filesystem::path(m.file).filename().string());
  EXPECT_EQ(fa, fb);
  EXPECT_EQ(a.triangles(), b.triangles());
}

TEST(ViewerGeometry, OpenSimBonesAreVisualGeomsFoundInGeometryFolders) {
  KINETRACK_REQUIRE_SHARED(path, kGaitModel);
  const io::OpenSimModel osim = io::readOpenSimModel(path);
  const Model& m = *osim.model;
  int visual = 0;
  for (const Geom& g : m.geoms()) {
    EXPECT_TRUE(g.visual && !g.collision) << g.name;
    EXPECT_EQ(g.shape, GeomShape::Mesh);
    EXPECT_TRUE(std::filesystem::exists(g.mesh)) << g.mesh;
    EXPECT_NE(g.mesh.find("/Geometry/"), std::string::npos) << g.mesh;
    ++visual;
  }
  EXPECT_EQ(visual, 19);
  const auto pelvis =
      std::find_if(m.geoms().begin(), m.geoms().end(), [](const Geom& g) { return g.name == "pelvis_geom_1"; });
  ASSERT_NE(pelvis, m.geoms().end());
  EXPECT_NEAR(pelvis->size.x(), 1.02458, 1e-12) << "the scaled model's scale factors";
  EXPECT_EQ(m.linkName(pelvis->link), "pelvis");
  EXPECT_TRUE(io::collisionProxies(m).empty()) << "bones are drawn, never collided";
  const viewer::ViewerGeometry g = viewer::viewerGeometry(m);
  EXPECT_TRUE(g.notes.empty());
  EXPECT_EQ(g.geoms.size(), 19U);
}

TEST(ViewerGeometry, OldOpenSimFilesKeepTheirDisplayGeometry) {
  KINETRACK_REQUIRE_SHARED(path, "data/opensim/arm26_static_optimization/arm26.osim");
  const io::OpenSimModel osim = io::readOpenSimModel(path);
  const Model& m = *osim.model;
  std::size_t files = 0;
  for (std::string text = readFile(path); text.find("<geometry_file>") != std::string::npos;) {
    text.erase(0, text.find("<geometry_file>") + 15);
    ++files;
  }
  EXPECT_EQ(m.geoms().size(), files);
  for (const Geom& g : m.geoms()) EXPECT_TRUE(std::filesystem::exists(g.mesh)) << g.mesh;
  // The ribs hang on the ground, the humerus on r_humerus.
  int ground = 0;
  for (const Geom& g : m.geoms()) ground += g.link.value == 0 ? 1 : 0;
  EXPECT_GE(ground, 3);
}

TEST(ViewerGeometry, AMissingMeshIsANoteNotAnError) {
  KINETRACK_REQUIRE_SHARED(path, kGaitModel);
  ScratchDir dir;
  const std::string copy = dir.write("alone.osim", readFile(path));  // no Geometry/ beside it or above
  const io::OpenSimModel osim = io::readOpenSimModel(copy);
  const Model& m = *osim.model;
  const viewer::ViewerGeometry g = viewer::viewerGeometry(m);
  EXPECT_TRUE(g.geoms.empty());
  ASSERT_EQ(g.notes.size(), 19U);
  EXPECT_NE(g.notes.front().find("/Geometry/"), std::string::npos) << g.notes.front();
  EXPECT_NE(g.notes.front().find("not drawn"), std::string::npos);
}

// ---- layers -------------------------------------------------------------------------------------

struct DrawnVsTrue {
  double straight = 0.0, wrapped = 0.0;  ///< m, and relative
  int with_wrap = 0;
};

// Every drawn path's polyline length against MusclePaths' own length at the same frames.
DrawnVsTrue drawnAgainstTrueLengths(const std::string& path, const std::string& mot) {
  auto osim = std::make_shared<const io::OpenSimModel>(io::readOpenSimModel(path));
  const muscles::MusclePaths paths(osim, io::readOpenSimMuscles(path));
  const viewer::Motion motion = gaitMotion(*osim, mot);
  viewer::ViewerData data = viewer::buildViewerData(*osim->model, motion);
  viewer::addMuscles(data, paths, motion);
  const viewer::MuscleLayer& L = data.muscles;
  EXPECT_EQ(L.names.size(), static_cast<std::size_t>(paths.numMuscles()));
  muscles::MusclePathData work(paths);
  const auto nm = static_cast<std::size_t>(paths.numMuscles());
  DrawnVsTrue r;
  for (int f = 0; f < data.numFrames(); f += 3) {
    paths.evaluate(motion.configurations[static_cast<std::size_t>(f)], work, false);
    for (std::size_t mu = 0; mu < nm; ++mu) {
      const int n = L.count[static_cast<std::size_t>(f) * nm + mu];
      double length = 0.0;
      for (int k = 0; k + 1 < n; ++k) {
        const std::size_t s =
            static_cast<std::size_t>(f) * static_cast<std::size_t>(L.slots) + static_cast<std::size_t>(L.first[mu] + k);
        length += (at(L.points, s + 1) - at(L.points, s)).norm();
      }
      const double truth = work.length(static_cast<Eigen::Index>(mu));
      if (work.wraps_active[mu] == 0) {
        r.straight = std::max(r.straight, std::abs(length - truth));
      } else {
        r.wrapped = std::max(r.wrapped, std::abs(length - truth) / truth);
        ++r.with_wrap;
      }
    }
  }
  return r;
}

TEST(ViewerLayers, DrawnMusclePathsHaveTheMuscleLength) {
  KINETRACK_REQUIRE_SHARED(path, kGaitModel);
  KINETRACK_REQUIRE_SHARED(mot, kGaitIk);
  KINETRACK_REQUIRE_SHARED(arm, "data/opensim/arm26_static_optimization/arm26.osim");
  KINETRACK_REQUIRE_SHARED(arm_mot, "data/opensim/arm26_static_optimization/arm26_InverseKinematics.mot");
  const DrawnVsTrue gait = drawnAgainstTrueLengths(path, mot);
  EXPECT_LT(gait.straight, 1e-9) << "m: straight paths are the muscle's points (gait2354)";
  // arm26's triceps wrap over the elbow's cylinder.
  const DrawnVsTrue arm26 = drawnAgainstTrueLengths(arm, arm_mot);
  EXPECT_LT(arm26.straight, 1e-9) << "m (arm26)";
  EXPECT_GT(arm26.with_wrap, 10);
  EXPECT_LT(arm26.wrapped, 0.02) << "the sampled arcs within 2 % of the wrapped length";
}

TEST(ViewerLayers, MuscleValuesComeFromTheTableAtTheMotionTimes) {
  KINETRACK_REQUIRE_SHARED(path, "data/opensim/arm26_static_optimization/arm26.osim");
  KINETRACK_REQUIRE_SHARED(mot, "data/opensim/arm26_static_optimization/arm26_InverseKinematics.mot");
  KINETRACK_REQUIRE_SHARED(sto, "data/opensim/arm26_static_optimization/std_arm26_StaticOptimization_activation.sto");
  auto osim = std::make_shared<const io::OpenSimModel>(io::readOpenSimModel(path));
  const muscles::MusclePaths paths(osim, io::readOpenSimMuscles(path));
  const viewer::Motion motion = gaitMotion(*osim, mot);
  viewer::ViewerData data = viewer::buildViewerData(*osim->model, motion);
  const io::MotTable values = io::readMot(sto);
  viewer::addMuscles(data, paths, motion, &values, sto);
  const viewer::MuscleLayer& L = data.muscles;
  EXPECT_EQ(L.value_name, "activation");
  EXPECT_EQ(L.value_scale, 1.0);
  const auto nm = L.names.size();
  int checked = 0;
  for (std::size_t c = 0; c < values.columns.size(); ++c) {
    const auto it = std::find(L.names.begin(), L.names.end(), values.columns[c]);
    if (it == L.names.end()) continue;
    const auto m = static_cast<std::size_t>(it - L.names.begin());
    for (int r = 0; r < static_cast<int>(values.times.size()); r += 2) {
      const auto f = std::find_if(motion.times.begin(), motion.times.end(), [&](double t) {
        return std::abs(t - values.times[static_cast<std::size_t>(r)]) < 1e-5;
      });
      if (f == motion.times.end()) continue;
      // The motion's times lie 2e-7 s from the table's (written with other digits): interpolated.
      EXPECT_NEAR(L.values[static_cast<std::size_t>(f - motion.times.begin()) * nm + m],
                  values.values(r, static_cast<Eigen::Index>(c)), 1e-4);
      ++checked;
    }
  }
  EXPECT_GT(checked, 10);
}

TEST(ViewerLayers, ForcesMarkersAndTheCentreOfMassMatchTheirSources) {
  KINETRACK_REQUIRE_SHARED(path, kGaitModel);
  KINETRACK_REQUIRE_SHARED(mot, kGaitIk);
  KINETRACK_REQUIRE_SHARED(grf, "data/opensim/gait2354_walk/subject01_walk1_grf.xml");
  KINETRACK_REQUIRE_SHARED(trc, "data/opensim/gait2354_walk/subject01_walk1.trc");
  const io::OpenSimModel osim = io::readOpenSimModel(path);
  const Model& m = *osim.model;
  const viewer::Motion motion = gaitMotion(osim, mot);
  viewer::ViewerData data = viewer::buildViewerData(m, motion);
  const io::ExternalLoads loads = io::readExternalLoads(grf);
  viewer::addForces(data, m, motion, loads);
  const io::MarkerTrajectories trial = io::readMarkerTrial(trc, /*model_y_up=*/true);
  viewer::addMarkers(data, m, motion, trial);
  viewer::addBody(data, m, motion);
  // Forces: the ExternalLoads sample at the frame's time, in ground (this file's frames).
  ASSERT_EQ(data.forces.names.size(), 2U);
  std::vector<io::ExternalForceSample> s(2);
  for (int f = 0; f < data.numFrames(); f += 5) {
    loads.sample(motion.times[static_cast<std::size_t>(f)], s);
    for (std::size_t k = 0; k < 2; ++k) {
      EXPECT_LT((at(data.forces.force, static_cast<std::size_t>(f) * 2 + k) - s[k].force).norm(), 1e-9);
      EXPECT_LT((at(data.forces.point, static_cast<std::size_t>(f) * 2 + k) - s[k].point).norm(), 1e-9);
    }
  }
  // Contact: the feet the forces push on, in contact when the force exceeds 20 N.
  ASSERT_EQ(data.body.feet.size(), 2U);
  EXPECT_EQ(m.linkName(LinkId(data.body.feet[0])), "calcn_r");
  int stance = 0;
  for (int f = 0; f < data.numFrames(); ++f) stance += data.body.contact[static_cast<std::size_t>(f) * 2];
  EXPECT_GT(stance, 5);
  EXPECT_LT(stance, data.numFrames());
  // Markers: the trial's at the same time; the model's by forward kinematics.
  ASSERT_EQ(data.markers.names, trial.names);
  EXPECT_GT(data.markers.matched, 20);
  Data kin(m);
  const std::size_t nmk = trial.names.size();
  for (int f = 0; f < data.numFrames(); f += 9) {
    const auto row = static_cast<int>(
        std::lower_bound(trial.times.begin(), trial.times.end(), motion.times[static_cast<std::size_t>(f)] - 1e-6) -
        trial.times.begin());
    ASSERT_LT(row, trial.numFrames());
    framesForwardKinematics(m, kin, motion.configurations[static_cast<std::size_t>(f)]);
    for (std::size_t k = 0; k < nmk; ++k) {
      const Vector3d measured = at(data.markers.measured, static_cast<std::size_t>(f) * nmk + k);
      if (trial.isValid(row, static_cast<int>(k))) {
        EXPECT_LT((measured - trial.position(row, static_cast<int>(k))).norm(), 1e-12);
      }
      if (const auto frame = m.findFrame(trial.names[k])) {
        const Vector3d model = at(data.markers.model, static_cast<std::size_t>(f) * nmk + k);
        EXPECT_LT((model - kin.frame[static_cast<std::size_t>(frame->value)].p).norm(), 1e-12);
      }
    }
  }
  // OpenSim's IK of this trial leaves marker errors of centimetres, not decimetres.
  EXPECT_LT(data.markers.rms_error, 0.04);
}

// The centre of mass drawn for the G1 walking is MuJoCo's (mj_comPos on the same MJCF).
TEST(ViewerLayers, CentreOfMassIsMujocos) {
  KINETRACK_REQUIRE_SHARED(xml, "models/unitree/g1/g1_29dof.xml");
  const Model m = io::loadMjcf(xml);
  testing::MjcfOracle oracle(readFile(xml), /*replace_meshes=*/true);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  viewer::Motion motion;
  for (int f = 0; f < 10; ++f) {
    Configuration q(m);
    for (int j = 0; j < m.numJoints(); ++j)
      q.joints[j] = m.lowerPositionLimits()[j] + (m.upperPositionLimits()[j] - m.lowerPositionLimits()[j]) * u(rng);
    q.base_position = Vector3d(u(rng), u(rng), 0.8);
    q.base_rotation = so3::exp(Vector3d(0.2 * u(rng), 0.1, M_PI * u(rng)));
    motion.configurations.push_back(q);
    motion.times.push_back(0.01 * f);
  }
  viewer::ViewerData data = viewer::buildViewerData(m, motion);
  viewer::addBody(data, m, motion);
  ASSERT_EQ(data.body.com.size(), 30U);
  double worst = 0.0;
  for (int f = 0; f < 10; ++f) {
    oracle.setConfiguration(m, motion.configurations[static_cast<std::size_t>(f)]);
    mj_comPos(oracle.model(), oracle.data());
    const mjtNum* c = oracle.data()->subtree_com + 3;  // body 1, the pelvis: the whole robot
    worst = std::max(worst, (at(data.body.com, static_cast<std::size_t>(f)) - Vector3d(c[0], c[1], c[2])).norm());
  }
  EXPECT_LT(worst, 1e-9);
  // No forces: the feet are the links named like feet (the G1's ankle_roll links).
  ASSERT_EQ(data.body.feet.size(), 2U);
  EXPECT_NE(m.linkName(LinkId(data.body.feet[0])).find("ankle_roll"), std::string::npos);
}

// ---- the script ---------------------------------------------------------------------------------

TEST(ViewerScript, TheBlobDecodesToTheFloat32Poses) {
  KINETRACK_REQUIRE_SHARED(path, kGaitModel);
  KINETRACK_REQUIRE_SHARED(mot, kGaitIk);
  const io::OpenSimModel osim = io::readOpenSimModel(path);
  const viewer::Motion motion = gaitMotion(osim, mot);
  const viewer::ViewerData data = viewer::buildViewerData(*osim.model, motion);
  const std::string script = viewer::dataScript(data);
  const auto head_end = script.find(";\nwindow.KINETRACK_BLOB = \"");
  ASSERT_NE(head_end, std::string::npos);
  const nlohmann::json head = nlohmann::json::parse(script.substr(24, head_end - 24));
  EXPECT_EQ(head["format"], 2);
  EXPECT_EQ(head["model"]["up"], nlohmann::json({0.0, 1.0, 0.0})) << "OpenSim: y up";
  const std::vector<unsigned char> blob =
      base64Decode(script.substr(head_end + 27, script.rfind('"') - head_end - 27)).value();
  ASSERT_EQ(blob.size(), head["blob_bytes"].get<std::size_t>());
  const auto& a = head["arrays"]["orientations"];
  EXPECT_EQ(a["type"], "f32");
  EXPECT_EQ(a["offset"].get<std::size_t>() % 8, 0U);
  ASSERT_EQ(a["length"].get<std::size_t>(), data.orientations.size());
  for (std::size_t i = 0; i < data.orientations.size(); i += 37) {
    float v;
    std::memcpy(&v, blob.data() + a["offset"].get<std::size_t>() + 4 * i, 4);
    EXPECT_EQ(v, static_cast<float>(data.orientations[i]));
  }
  // 73 frames of 24 links: 7 float32 per link and frame, 4/3 for base64, plus the joints.
  const double per_frame = static_cast<double>(script.size()) / data.numFrames();
  EXPECT_LT(per_frame, 24 * 7 * 4 * 4.0 / 3.0 + 23 * 4 * 4.0 / 3.0 + 120);
}

// ---- the job ------------------------------------------------------------------------------------

TEST(ViewerCli, ShowsAnOpenSimMotionUpright) {
  KINETRACK_REQUIRE_SHARED(path, kGaitModel);
  KINETRACK_REQUIRE_SHARED(mot, kGaitIk);
  KINETRACK_REQUIRE_SHARED(grf, "data/opensim/gait2354_walk/subject01_walk1_grf.xml");
  if (!viewer::bundled()) GTEST_SKIP() << "the viewer is not bundled";
  ScratchDir dir;
  const auto r = runCli({"view", "--quiet", "--model", path, "--result", mot, "--loads", grf, "--out", dir.file("v")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("19 shapes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("54 paths"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("per minute"), std::string::npos) << r.out;
  const std::string data = readFile(dir.file("v/data.js"));
  EXPECT_NE(data.find("\"up\":[0.0,1.0,0.0]"), std::string::npos);
  // Bad input: muscle values on a model without muscles, a person without a capture, a bad size.
  auto bad = runCli({"view", "--model", "human66", "--result", mot, "--out", dir.file("w")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find(".osim"), std::string::npos) << bad.err;
  bad = runCli(
      {"view", "--model", path, "--result", mot, "--muscle-values", dir.file("none.sto"), "--out", dir.file("w")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("none.sto"), std::string::npos) << bad.err;
  bad = runCli({"view", "--model", path, "--result", mot, "--person", "human66", "--out", dir.file("w")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--input"), std::string::npos) << bad.err;
  bad = runCli({"view", "--model", path, "--result", mot, "--png", "1", "--size", "12x", "--out", dir.file("w")});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--size"), std::string::npos) << bad.err;
  // A browser that is not there: named, exit 2 (the viewer directory is written first).
  ::setenv("KINETRACK_CHROMIUM", "/nonexistent/chromium", 1);
  bad = runCli({"view", "--model", path, "--result", mot, "--png", "1", "--out", dir.file("w")});
  ::unsetenv("KINETRACK_CHROMIUM");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("/nonexistent/chromium"), std::string::npos) << bad.err;
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
