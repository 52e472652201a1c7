#pragma once
// The browser viewer (web/, docs/viewer.md): the page and its bundle, embedded into the library at
// build time, and the data a tracked result shows in it. Every link pose is computed here with
// kinetrack's forward kinematics, so the page draws without kinematics of its own; the model's
// visual geometry (URDF/MJCF meshes and primitives, OpenSim bones) is read here too and sent as
// binary arrays, so the page needs no mesh loaders.
//
//   const auto data = viewer::buildViewerData(model, io::readJointCsv("walk_q.csv"), &capture, &plan);
//   viewer::writeViewerDirectory("walk_view", data);   // open walk_view/index.html
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/model.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "kinetrack/viewer/layers.hpp"

namespace kinetrack::viewer {

/// One file of the page (index.html, viewer.js).
struct Asset {
  std::string_view name;
  std::string_view text;
};

/// False when the library was built without node/npm: the page was not bundled and assets() is
/// empty.
bool bundled();
/// The page's files, embedded at build time (web/build.mjs).
std::vector<Asset> assets();

/// One drawn shape of the model, in its link's frame.
struct ViewerGeom {
  std::string name;
  int link = 0;
  GeomShape shape = GeomShape::Sphere;
  Vector3d size = Vector3d::Zero();  ///< as Geom::size (a mesh's scale)
  Vector3d position = Vector3d::Zero();
  Eigen::Vector4d quaternion = Eigen::Vector4d(0, 0, 0, 1);  ///< (x, y, z, w), three.js order
  Eigen::Vector4d rgba = Eigen::Vector4d(0.7, 0.7, 0.7, 1.0);
  int mesh = -1;  ///< index into ViewerGeometry::meshes (Mesh shapes whose file was read)
};

/// A mesh file read once for every geom that names it.
struct ViewerMesh {
  std::string file;
  std::vector<float> vertices;         ///< x, y, z per vertex (the file's units; the geom scales)
  std::vector<std::uint32_t> indices;  ///< three per triangle
};

/// The model's visual geometry: URDF <visual>, MJCF geoms MuJoCo's viewer shows (groups 0–2),
/// OpenSim bones. A mesh that cannot be read is left out with a note, its link then drawn by the
/// skeleton alone.
struct ViewerGeometry {
  std::vector<ViewerGeom> geoms;
  std::vector<ViewerMesh> meshes;
  std::vector<std::string> notes;  ///< "mesh '<path>' of link '<link>': <reason>; not drawn"
  [[nodiscard]] std::size_t triangles() const;
};

/// The display detail `kinetrack view` and `kinetrack serve` simplify meshes to (m).
inline constexpr double kDefaultMeshCell = 0.003;

/// The visual geometry of `model`, meshes read (each file once, bit-identical vertices merged).
/// `cell` > 0 (m, in the drawn size: the geom's scale applied) simplifies each mesh for display by
/// vertex clustering: vertices in one cube of that edge become their mean, triangles that
/// collapse are dropped. A G1 drawn at 3 mm keeps its look (0.2 % of a 1280×720 frame's pixels
/// change) with 130k of its 383k triangles, which software WebGL (a machine without a GPU) draws
/// about twice as fast.
/// 0 keeps every triangle.
ViewerGeometry viewerGeometry(const Model& model, double cell = 0.0);
/// Vertex clustering of one mesh (see viewerGeometry); returns the simplified mesh.
ViewerMesh simplifyMesh(const ViewerMesh& mesh, double cell);

/// A motion on a model: one configuration per frame.
struct Motion {
  std::string source;  ///< the file it came from (named in errors)
  std::vector<double> times;
  std::vector<Configuration> configurations;
  std::vector<std::uint8_t> gap;  ///< per frame; empty: no gaps
};

/// A joint CSV's rows as a Motion on `model`. Throws InvalidArgument naming the file when its joint
/// columns are not the model's (missing and unknown ones listed).
Motion motionOf(const io::JointTrajectory& result, const Model& model);

/// A tracked result ready to draw.
struct ViewerData {
  std::string model_name;
  std::string result;                   ///< the joint CSV it came from
  Vector3d up = Vector3d::UnitZ();      ///< the model's up direction (OpenSim: +Y); the page turns it to +Z
  std::vector<std::string> link_names;  ///< every link, model order
  std::vector<int> link_parent;         ///< parent index or −1
  /// Links moved by a prismatic joint: no bone is drawn to them (an OpenSim pelvis's translations
  /// from the ground are not a bone).
  std::vector<int> slides;
  std::vector<double> times;         ///< s, one per frame
  std::vector<std::uint8_t> gap;     ///< per frame (joint CSV gap flag)
  std::vector<double> positions;     ///< world origin of every link: (frame · links + link) · 3
  std::vector<double> orientations;  ///< world orientation of every link, (x, y, z, w): (frame · links + link) · 4
  ViewerGeometry geometry;
  std::vector<std::string> joint_names;  ///< the model's joints, for the chart
  std::vector<std::string> joint_units;  ///< "deg" (revolute) or "m" (prismatic)
  std::vector<double> joint_values;      ///< frame · joints + joint, in joint_units
  // The input capture, in the model's world (the tracker's alignment), when given: with a plan,
  // its targeted segments (parent = nearest targeted ancestor), else every segment.
  std::string input;  ///< capture file, empty when none
  std::vector<std::string> segment_names;
  std::vector<int> segment_parent;
  std::vector<double> input_positions;    ///< (frame · segments + segment) · 3
  std::vector<std::uint8_t> input_valid;  ///< frame · segments + segment
  /// Target error per link and frame (frame · links + link), −1 for links without a target:
  /// the angle between target and tracked orientation (deg) when the targets carry orientations,
  /// else the position distance (mm). Empty without an input.
  std::vector<double> errors;
  std::vector<double> frame_error;  ///< mean over the targeted links, per frame
  std::string error_unit;           ///< "deg" or "mm"
  double error_p95 = 0.0;           ///< 95th percentile of errors over links and frames
  double error_max = 0.0;
  double error_scale = 0.0;  ///< colour scale top: error_p95, at least 1
  /// Other models in the scene, synchronised with this one frame by frame (the person beside the
  /// robot retargeted from them): drawn as skeletons (their link positions), shifted by `offset`.
  struct Companion {
    std::string label;
    Vector3d offset = Vector3d::Zero();
    std::shared_ptr<const ViewerData> data;
  };
  std::vector<Companion> companions;
  // Layers (layers.hpp), empty unless added.
  MuscleLayer muscles;
  MarkerLayer markers;
  ForceLayer forces;
  BodyLayer body;

  [[nodiscard]] int numFrames() const { return static_cast<int>(times.size()); }
  [[nodiscard]] int numLinks() const { return static_cast<int>(link_names.size()); }
};

/// The result's link positions per frame (forward kinematics of each row) and, with a capture
/// and the plan it was tracked with (track::setupOnModel), its segments and per-link target
/// errors. Throws InvalidArgument when the result's joints do not match the model (naming the
/// file and the missing or unknown columns) or when the capture's frame count differs from the
/// result's.
/// The geometry is viewerGeometry(model, mesh_cell).
ViewerData buildViewerData(const Model& model, const io::JointTrajectory& result,
                           const track::Capture* capture = nullptr, const track::Retargeting* plan = nullptr,
                           double mesh_cell = 0.0);
/// The same from configurations (an OpenSim .mot read on its model, an in-memory result).
ViewerData buildViewerData(const Model& model, const Motion& motion, const track::Capture* capture = nullptr,
                           const track::Retargeting* plan = nullptr, double mesh_cell = 0.0);

/// data.js: `window.KINETRACK_DATA = {...};` with the header as JSON and every per-frame array
/// as little-endian binary (float32 poses and errors, float64 times, uint8 flags) in
/// `window.KINETRACK_BLOB`, base64: the page decodes it into typed arrays (`arrays` in the header
/// names each one's type, byte offset and length). A script, not a fetched file, so that
/// `file://` pages load it.
std::string dataScript(const ViewerData& data);
/// meshes.js: `window.KINETRACK_GEOMETRY = {...}` (geoms, notes) with the meshes' float32
/// vertices and uint32 indices in `window.KINETRACK_GEOMETRY_BLOB`, base64.
std::string geometryScript(const ViewerGeometry& geometry);

/// Writes index.html, viewer.js, data.js and meshes.js into `dir` (created with its parents). Throws
/// InvalidArgument when the viewer was not bundled (build it with node and npm installed: see
/// docs/viewer.md), ParseError when a file cannot be written.
void writeViewerDirectory(const std::string& dir, const ViewerData& data);

}  // namespace kinetrack::viewer
