#pragma once
// Private to kinetrack_io_model: where a model file's mesh reference points (URDF <mesh
// filename>, MJCF <mesh file>). Meshes are not read here; the path is kept in Geom::mesh.
#include <string>

namespace kinetrack::io::detail {

/// The folder of a model file (its `source_name`), "." when it has none.
std::string folderOf(const std::string& model_file);

struct MeshPath {
  std::string path;    ///< absolute, lexically normalised
  bool found = false;  ///< a regular file exists there
};

/// A URDF mesh filename resolved against the URDF's folder `dir`:
///   - "file:///abs" and absolute paths are taken as they are; a relative path is relative to `dir`;
///   - "package://pkg/rest" (ROS packages, which kinetrack does not look up): the first existing
///     of dir/rest, dir/../rest, then for each ancestor A of dir (dir itself first, up to the
///     filesystem root) A/rest and A/pkg/rest; when none exists, dir/rest (found = false).
MeshPath resolveUrdfMesh(const std::string& filename, const std::string& dir);

/// An MJCF mesh file resolved as MuJoCo does: an absolute `file` as it is, else relative to
/// `meshdir` (the compiler's meshdir, else assetdir), itself relative to the model's folder `dir`
/// unless absolute. With `strippath` (compiler strippath="true") only the file name is kept.
MeshPath resolveMjcfMesh(const std::string& file, const std::string& meshdir, const std::string& dir, bool strippath);

/// An OpenSim geometry file (<mesh_file>, <geometry_file>) looked up as OpenSim does: absolute as
/// it is, else in the model's folder `dir`, then `dir/Geometry`, then — standing in for the
/// Geometry folder of an OpenSim install — the `Geometry` folder of each ancestor of `dir`
/// (nearest first). When none exists, dir/Geometry/file (found = false).
MeshPath resolveOpenSimMesh(const std::string& file, const std::string& dir);

}  // namespace kinetrack::io::detail
