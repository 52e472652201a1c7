// An independent check of the retargeting quality figures: MuJoCo (Debian's libmujoco 2.2.2)
// loads the Unitree G1 from its own MJCF file (with its floor and the four contact spheres under
// each foot), replays the retargeted motion (root position, root quaternion w x y z, joints by
// name) and measures, by its own kinematics, how low the soles go and how far a sole moves while
// the person's foot is down, and by its own collision detection when the feet touch the floor.
// The figures must be the quality report's: an error in our FK, the motion file's layout or the
// report would show here.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <vector>

#include "kinetrack/app/track_job.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

namespace fs = std::filesystem;

struct MjDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
  void operator()(mjData* d) const { mj_deleteData(d); }
};

// The G1's MJCF as MuJoCo 2.2.2 accepts it: without the actuator force ranges it does not know,
// limits from the ranges (autolimits), and without the meshes (only the floor and the feet's
// spheres matter here; each body keeps its <inertial>).
std::unique_ptr<mjModel, MjDeleter> loadG1(const std::string& xml_path, const fs::path& scratch) {
  std::ifstream in(xml_path);
  std::stringstream text;
  text << in.rdbuf();
  std::string xml = text.str();
  xml = std::regex_replace(xml, std::regex(R"(\s+actuatorfrc(range|limited)="[^"]*")"), "");
  xml = std::regex_replace(xml, std::regex(R"(<geom[^>]*type="mesh"[^>]*/>)"), "");
  xml = std::regex_replace(xml, std::regex(R"(<mesh [^>]*/>)"), "");
  xml = std::regex_replace(xml, std::regex(R"(<compiler )"), R"(<compiler autolimits="true" )");
  const fs::path path = scratch / "g1_for_mujoco.xml";
  std::ofstream(path) << xml;
  char error[1000] = "";
  std::unique_ptr<mjModel, MjDeleter> m(mj_loadXML(path.c_str(), nullptr, error, sizeof(error)));
  EXPECT_TRUE(m) << error;
  return m;
}

TEST(RetargetMujoco, MujocoMeasuresTheSameSolesAndGroundAsTheQualityReport) {
  KINETRACK_REQUIRE_SHARED(urdf, "models/unitree/g1/g1_29dof.urdf");
  KINETRACK_REQUIRE_SHARED(mjcf, "models/unitree/g1/g1_29dof.xml");
  KINETRACK_REQUIRE_SHARED(walk, "data/bvh/bandai/dataset-2_walk_normal_001.bvh");
  const fs::path scratch = fs::temp_directory_path() / ("kinetrack_retarget_mujoco_" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  app::RetargetOptions o;
  o.robot = urdf;
  o.input = walk;
  o.quaternion_order = "wxyz";
  const app::TrackResult r = app::runRetarget(o);
  ASSERT_TRUE(r.motion && r.quality);
  const track::RobotMotion& motion = *r.motion;

  auto model = loadG1(mjcf, scratch);
  ASSERT_TRUE(model);
  std::unique_ptr<mjData, MjDeleter> data(mj_makeData(model.get()));
  // Joints by name; the free joint first.
  std::vector<int> qpos_of;
  for (const std::string& name : motion.joint_names) {
    const int j = mj_name2id(model.get(), mjOBJ_JOINT, name.c_str());
    ASSERT_GE(j, 0) << name;
    qpos_of.push_back(model->jnt_qposadr[j]);
  }
  const int floor = mj_name2id(model.get(), mjOBJ_GEOM, "floor");
  ASSERT_GE(floor, 0);
  // The feet's spheres: the sphere geoms on each ankle roll body.
  std::vector<std::vector<int>> feet(2);
  const char* foot_bodies[2] = {"left_ankle_roll_link", "right_ankle_roll_link"};
  for (int k = 0; k < 2; ++k) {
    const int body = mj_name2id(model.get(), mjOBJ_BODY, foot_bodies[k]);
    for (int g = 0; g < model->ngeom; ++g)
      if (model->geom_bodyid[g] == body && model->geom_type[g] == mjGEOM_SPHERE)
        feet[static_cast<std::size_t>(k)].push_back(g);
    ASSERT_EQ(feet[static_cast<std::size_t>(k)].size(), 4U);
    // The ground rows keep the spheres on the floor, not in it: MuJoCo reports a contact within
    // 1 mm of it.
    for (const int g : feet[static_cast<std::size_t>(k)]) model->geom_margin[g] = 1e-3;
  }

  const track::FootContacts& person = *r.contacts;
  ASSERT_EQ(person.feet, (std::vector<std::string>{"LeftFoot", "RightFoot"}));
  double lowest = 1e9;
  std::vector<double> slides;
  std::vector<Vector3d> previous(2);
  int touching_frames = 0;
  const std::size_t n = motion.times.size();
  ASSERT_EQ(static_cast<int>(n), person.frames);
  for (std::size_t f = 0; f < n; ++f) {
    for (int i = 0; i < 3; ++i) data->qpos[i] = motion.root_position[f][i];
    for (int i = 0; i < 4; ++i) data->qpos[3 + i] = motion.root_quaternion[f][i];
    for (std::size_t j = 0; j < qpos_of.size(); ++j)
      data->qpos[qpos_of[j]] = motion.joints[f][static_cast<Eigen::Index>(j)];
    mj_forward(model.get(), data.get());
    double slide = -1.0;
    for (int k = 0; k < 2; ++k) {
      Vector3d centre = Vector3d::Zero();
      for (const int g : feet[static_cast<std::size_t>(k)]) {
        lowest = std::min(lowest, data->geom_xpos[3 * g + 2] - model->geom_size[3 * g]);
        centre += Vector3d(data->geom_xpos[3 * g], data->geom_xpos[3 * g + 1], data->geom_xpos[3 * g + 2]);
      }
      // The sole point: the spheres' centre moved down by their radius along the foot's z (the
      // report's sole frame, placed at the zero pose where the foot's z is up).
      const int body = model->geom_bodyid[feet[static_cast<std::size_t>(k)][0]];
      const Vector3d foot_z(data->xmat[9 * body + 2], data->xmat[9 * body + 5], data->xmat[9 * body + 8]);
      centre = centre / 4.0 - model->geom_size[3 * feet[static_cast<std::size_t>(k)][0]] * foot_z;
      // MuJoCo's own contacts between this foot's spheres and the floor.
      for (int c = 0; c < data->ncon; ++c) {
        const mjContact& con = data->contact[c];
        const int other = con.geom1 == floor ? con.geom2 : con.geom2 == floor ? con.geom1 : -1;
        const auto& g = feet[static_cast<std::size_t>(k)];
        if (other >= 0 && std::find(g.begin(), g.end(), other) != g.end() && con.dist <= 1e-3) {
          ++touching_frames;
          break;
        }
      }
      if (f > 0 && person.inContact(static_cast<int>(f), k) && person.inContact(static_cast<int>(f) - 1, k)) {
        const Vector3d d = centre - previous[static_cast<std::size_t>(k)];
        slide = std::max(slide, 1e3 * std::hypot(d.x(), d.y()));
      }
      previous[static_cast<std::size_t>(k)] = centre;
    }
    if (slide >= 0.0) {
      slides.push_back(slide);
      EXPECT_NEAR(slide, r.quality->slide_mm[f], 1e-3)
          << "frame " << f;  // mm; the MJCF rounds some rotations to 6 digits
    }
  }
  ASSERT_EQ(static_cast<int>(slides.size()), r.quality->slide_samples);
  RecordProperty("mujoco_lowest_mm", std::to_string(1e3 * lowest));
  RecordProperty("mujoco_touching_foot_frames", std::to_string(touching_frames));
  // The lowest sole point: MuJoCo's equals the report's (the sole spheres are the lowest geometry).
  EXPECT_NEAR(r.quality->below_ground_mm, std::max(0.0, -1e3 * lowest), 1e-3);
  // The feet are on MuJoCo's floor at least as often as the person's were down.
  EXPECT_GE(touching_frames, (person.count(0) + person.count(1)) / 2);
  fs::remove_all(scratch);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
