#pragma once
// Triangle meshes of collision and visual geometry: binary and ASCII STL, Wavefront OBJ, VTK
// PolyData XML (.vtp, OpenSim's bone meshes). Only the
// geometry is read (vertices and triangles); normals, texture coordinates, materials and groups
// are skipped. No unit conversion: the coordinates are the file's (URDF and MJCF meshes are in
// metres unless a scale says otherwise; the caller applies it).
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/core/types.hpp"

namespace kinetrack::io {

/// A triangle mesh: vertices (in the file's units and frame) and triangles as vertex indices.
/// STL repeats each vertex in every triangle that uses it: the reader merges bit-identical ones,
/// so `vertices` holds each point once.
struct TriangleMesh {
  std::vector<Vector3d> vertices;
  std::vector<std::array<int, 3>> triangles;  ///< counter-clockwise seen from outside (as written)
};

/// Reads a mesh by its extension (case-insensitive): `.stl` (binary or ASCII, told apart by the
/// content: a binary file's size is 84 + 50·count), `.obj` or `.vtp`. Throws ParseError(path, line,
/// what) for a missing or unreadable file, an unknown extension, a truncated or malformed file,
/// a non-finite coordinate, a face index out of range, or a mesh without vertices.
TriangleMesh loadMesh(const std::string& path);

/// STL from its bytes (binary or ASCII); `source_name` names it in errors.
TriangleMesh parseStl(std::string_view bytes, const std::string& source_name);

/// Wavefront OBJ from its text: `v x y z [w]` vertices and `f` faces (`i`, `i/t`, `i//n`, `i/t/n`,
/// negative indices counted from the last vertex; polygons split into a fan of triangles);
/// other statements are ignored. `source_name` names it in errors.
TriangleMesh parseObj(std::string_view text, const std::string& source_name);

/// VTK PolyData XML (`.vtp`) from its text: the points and the polygons (split into fans) and
/// triangle strips of its pieces; vertices and lines are skipped. Data arrays in `ascii` or
/// uncompressed `binary` (base64 with a UInt32 or UInt64 size header) format, Float32/Float64
/// points and Int32/Int64/UInt32/UInt64 indices. Throws ParseError(source_name, line, what) for
/// a file that is not PolyData, a compressed or appended array (re-save it uncompressed, e.g.
/// with ParaView), a count that differs from the piece's, a non-finite point or an index out of
/// range.
TriangleMesh parseVtp(std::string_view text, const std::string& source_name);

}  // namespace kinetrack::io
