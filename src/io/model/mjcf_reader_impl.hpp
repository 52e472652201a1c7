#pragma once
// Private to the MJCF reader: the Reader that walks the documents and default classes
// (mjcf_xml.hpp) into a ModelBuilder. The top level (compiler, option, assets, actuators, the
// world) is in mjcf_reader.cpp, bodies, joints, geoms and sites in mjcf_bodies.cpp; the mapping
// is documented in include/kinetrack/io/model/mjcf.hpp and docs/models.md.
#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kinetrack/io/model/mjcf.hpp"
#include "kinetrack/model/model_builder.hpp"
#include "mesh_path.hpp"
#include "mjcf_xml.hpp"

namespace kinetrack::io::mjcf {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr const char* kWorld = "world";
constexpr int kMaxDepth = 1000;  // bodies within bodies (and frames): real models nest < 50

inline bool is(const Element* e, const char* name) { return std::strcmp(e->Name(), name) == 0; }

inline Transform translation(const Vector3d& p) { return {Matrix3d::Identity(), p}; }

struct MeshAsset {
  std::string path;
  bool found = false;
  Vector3d scale = Vector3d::Ones();
};

// One 1-DoF joint of a body's chain (a ball gives three).
struct ChainJoint {
  std::string name;
  JointType type = JointType::Revolute;
  Vector3d axis = Vector3d::UnitZ();   // unit, in the body frame
  Vector3d anchor = Vector3d::Zero();  // a point of the axis in the body frame (0 for a slide)
  double ref = 0.0;                    // MuJoCo's qpos0 (rad or m)
  double lower = -kInf, upper = kInf, effort = kInf;
  const Element* element = nullptr;
};

// Where a body's contents go and how its unnamed children are numbered.
struct BodyContext {
  std::string name;   // the body's name (unnamed: "body<id>")
  std::string frame;  // the builder frame at the body frame
  int geoms = 0, sites = 0;
};

class Reader {
 public:
  Reader(const std::string& text, const std::string& source, const MjcfOptions& options)
      : xml_(text, source), options_(options), dir_(detail::folderOf(source)) {}

  Model read(std::vector<std::string>* warnings);

 private:
  void readCompiler(const Element* e);
  void readOption(const Element* e);
  void readAssets(const Element* e);
  void readActuators(const Element* e);
  void numberBodies(const Element* e, int depth);
  void readWorld(const std::vector<const Element*>& worldbodies);
  void readBody(const Element* e, const std::string& parent, const Transform& offset, int inherited, bool root);
  void readContents(const Element* container, BodyContext& body, const Transform& offset, int cls);
  std::vector<ChainJoint> chainJoints(const std::vector<const Element*>& joints, const std::string& body_name, int cls);
  Inertial readInertial(const Element* e, const std::string& body_name);
  void readGeom(const Element* e, BodyContext& body, const Transform& offset, int inherited);
  void readSite(const Element* e, BodyContext& body, const Transform& offset, int inherited);
  bool limited(const Attrs& a, const char* flag, const char* range) const;
  bool isFreeJoint(const Element* e, int cls) const;
  void unique(std::set<std::string>& names, const std::string& name, const Element* e, const char* kind);
  template <class F>
  void build(const Element* e, F&& f) {
    try {
      f();
    } catch (const InvalidArgument& ex) {
      xml_.fail(e, ex.what());
    }
  }
  void ignore(const Element* e) {
    const std::string n = std::string("<") + e->Name() + ">";
    if (std::find(ignored_.begin(), ignored_.end(), n) == ignored_.end()) ignored_.push_back(n);
  }

  Xml xml_;
  MjcfOptions options_;
  std::string dir_;
  Compiler compiler_;
  std::optional<Vector3d> up_;
  std::map<std::string, MeshAsset> meshes_;
  std::map<std::string, Vector4d> materials_;
  std::map<std::string, double> actuator_effort_;  // joint → effort limit
  std::vector<std::pair<std::string, const Element*>> actuator_joints_;
  std::map<const Element*, int> body_ids_;
  std::set<std::string> bodies_, joints_, geoms_, sites_;
  std::unique_ptr<ModelBuilder> builder_;
  std::vector<std::string> ignored_, skipped_, no_inertial_, missing_meshes_;
  bool skipped_bodies_ = false;
  int mesh_geoms_ = 0;
  std::string model_name_;
};

}  // namespace kinetrack::io::mjcf
