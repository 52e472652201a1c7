#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_map>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/mesh.hpp"

namespace kinetrack::io {

namespace {

// Merges bit-identical vertices (−0 taken as +0): STL writes every vertex once per triangle.
class VertexPool {
 public:
  explicit VertexPool(TriangleMesh& mesh) : mesh_(mesh) {}
  int add(double x, double y, double z) {
    Key k{bits(x), bits(y), bits(z)};
    const auto [it, inserted] = index_.try_emplace(k, static_cast<int>(mesh_.vertices.size()));
    if (inserted) mesh_.vertices.emplace_back(x + 0.0, y + 0.0, z + 0.0);
    return it->second;
  }

 private:
  struct Key {
    std::uint64_t x, y, z;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Key& k) const noexcept {
      std::uint64_t h = k.x * 0x9E3779B97F4A7C15ull;
      h ^= k.y + 0x7F4A7C159E3779B9ull + (h << 6) + (h >> 2);
      h ^= k.z + 0x94D049BB133111EBull + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h);
    }
  };
  static std::uint64_t bits(double v) {
    v += 0.0;  // −0 → +0
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  }
  TriangleMesh& mesh_;
  std::unordered_map<Key, int, Hash> index_;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::uint32_t readU32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
         static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}

float readF32(const char* p) {
  const std::uint32_t u = readU32(p);  // STL is little-endian
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

bool startsWithSolid(std::string_view bytes) {
  std::size_t i = 0;
  while (i < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[i]))) ++i;
  return bytes.substr(i, 5) == "solid" &&
         (i + 5 == bytes.size() || std::isspace(static_cast<unsigned char>(bytes[i + 5])));
}

// --- binary STL: 80-byte header, uint32 count, per triangle 12 floats (normal, 3 vertices) and
// a 2-byte attribute count ------------------------------------------------------------------------

TriangleMesh parseBinaryStl(std::string_view bytes, const std::string& source) {
  const std::uint64_t count = readU32(bytes.data() + 80);
  TriangleMesh mesh;
  mesh.triangles.reserve(static_cast<std::size_t>(count));
  VertexPool pool(mesh);
  for (std::uint64_t t = 0; t < count; ++t) {
    const char* p = bytes.data() + 84 + 50 * t + 12;  // skip the normal
    std::array<int, 3> tri{};
    for (int v = 0; v < 3; ++v) {
      const double x = readF32(p + 12 * v), y = readF32(p + 12 * v + 4), z = readF32(p + 12 * v + 8);
      if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
        throw ParseError(source, 0,
                         "binary STL: triangle " + std::to_string(t) + ", vertex " + std::to_string(v) +
                             ": coordinate is not a finite number");
      tri[static_cast<std::size_t>(v)] = pool.add(x, y, z);
    }
    mesh.triangles.push_back(tri);
  }
  return mesh;
}

// --- ASCII STL ------------------------------------------------------------------------------------

class Tokens {
 public:
  Tokens(std::string_view text, const std::string& source) : text_(text), source_(source) {}
  // The next whitespace-separated token ("" at the end); line() is its line.
  std::string_view next() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    const std::size_t b = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return text_.substr(b, pos_ - b);
  }
  void skipLine() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }
  [[nodiscard]] int line() const { return line_; }
  void expect(std::string_view word, std::string_view context) {
    const std::string_view t = next();
    if (t != word) fail(context, word, t);
  }
  [[noreturn]] void fail(std::string_view context, std::string_view expected, std::string_view got) const {
    throw ParseError(
        source_, line_,
        "ASCII STL: " + std::string(context) + ": expected '" + std::string(expected) + "', got " +
            (got.empty() ? std::string("the end of the file") : "'" + std::string(got.substr(0, 40)) + "'"));
  }
  double number(std::string_view context) {
    const std::string_view t = next();
    double v = 0.0;
    if (!detail::parseNumber(t, v)) fail(context, "a number", t);
    if (!std::isfinite(v))
      throw ParseError(source_, line_,
                       "ASCII STL: " + std::string(context) + ": '" + std::string(t) + "' is not finite");
    return v;
  }

 private:
  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  int line_ = 1;
};

TriangleMesh parseAsciiStl(std::string_view text, const std::string& source) {
  TriangleMesh mesh;
  VertexPool pool(mesh);
  Tokens tok(text, source);
  tok.expect("solid", "start");
  tok.skipLine();  // the solid's name
  for (;;) {
    const std::string_view t = tok.next();
    if (t == "endsolid") {
      tok.skipLine();
      const std::string_view after = tok.next();  // another solid, or the end
      if (after.empty()) break;
      if (after != "solid") tok.fail("after 'endsolid'", "solid", after);
      tok.skipLine();
      continue;
    }
    if (t != "facet") tok.fail("facet " + std::to_string(mesh.triangles.size()), "facet' or 'endsolid", t);
    tok.expect("normal", "facet");
    for (int i = 0; i < 3; ++i) (void)tok.number("facet normal");
    tok.expect("outer", "facet");
    tok.expect("loop", "facet");
    std::array<int, 3> tri{};
    for (int v = 0; v < 3; ++v) {
      tok.expect("vertex", "loop");
      const double x = tok.number("vertex"), y = tok.number("vertex"), z = tok.number("vertex");
      tri[static_cast<std::size_t>(v)] = pool.add(x, y, z);
    }
    tok.expect("endloop", "loop (a facet has 3 vertices)");
    tok.expect("endfacet", "facet");
    mesh.triangles.push_back(tri);
  }
  return mesh;
}

void requireVertices(const TriangleMesh& mesh, const std::string& source, const char* format) {
  if (mesh.vertices.empty()) throw ParseError(source, 0, std::string(format) + ": no vertices");
}

// One vertex reference of an OBJ face ("i", "i/t", "i//n", "i/t/n") as a 0-based index, or −1.
long long objIndex(std::string_view ref, long long vertex_count) {
  const std::size_t slash = ref.find('/');
  const std::string_view head = ref.substr(0, slash);
  if (head.empty() || head.size() > 18) return std::numeric_limits<long long>::min();
  long long v = 0;
  std::size_t i = 0;
  const bool negative = head[0] == '-';
  if (negative || head[0] == '+') i = 1;
  if (i == head.size()) return std::numeric_limits<long long>::min();
  for (; i < head.size(); ++i) {
    if (head[i] < '0' || head[i] > '9') return std::numeric_limits<long long>::min();
    v = 10 * v + (head[i] - '0');
  }
  if (v == 0) return std::numeric_limits<long long>::min();
  return negative ? vertex_count - v : v - 1;  // negative: relative to the vertices read so far
}

}  // namespace

TriangleMesh parseStl(std::string_view bytes, const std::string& source_name) {
  TriangleMesh mesh;
  const bool ascii_header = startsWithSolid(bytes);
  if (bytes.size() >= 84) {
    const std::uint64_t count = readU32(bytes.data() + 80);
    const std::uint64_t expected = 84 + 50 * count;
    // "solid" opens ASCII files and, against the format's advice, some binary headers: the size
    // decides; extra bytes after a binary file's triangles are ignored.
    if (bytes.size() == expected || (!ascii_header && bytes.size() > expected))
      mesh = parseBinaryStl(bytes, source_name);
    else if (!ascii_header)
      throw ParseError(source_name, 0,
                       "binary STL: truncated: the header announces " + std::to_string(count) + " triangles (" +
                           std::to_string(expected) + " bytes), the file has " + std::to_string(bytes.size()) +
                           " bytes");
    else
      mesh = parseAsciiStl(bytes, source_name);
  } else if (ascii_header) {
    mesh = parseAsciiStl(bytes, source_name);
  } else {
    throw ParseError(source_name, 0,
                     "STL: " + std::to_string(bytes.size()) +
                         " bytes: neither ASCII ('solid …') nor a binary STL (84-byte header and count)");
  }
  requireVertices(mesh, source_name, "STL");
  return mesh;
}

TriangleMesh parseObj(std::string_view text, const std::string& source_name) {
  TriangleMesh mesh;
  std::vector<long long> face;  // 0-based indices of one face (resolved at the end when positive)
  std::vector<std::pair<std::array<long long, 3>, int>> pending;  // triangles and their lines
  std::size_t pos = 0;
  int line_number = 0;
  std::string_view line;
  std::vector<std::string_view> fields;
  while (detail::nextDataLine(text, pos, line_number, line)) {
    fields.clear();
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      std::size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
      if (j > i) fields.push_back(line.substr(i, j - i));
      i = j;
    }
    if (fields.empty()) continue;
    if (fields[0] == "v") {
      // x y z, x y z w, or x y z r g b (vertex colours): the first three are the point
      if (fields.size() != 4 && fields.size() != 5 && fields.size() != 7)
        throw ParseError(source_name, line_number,
                         "OBJ: 'v' needs 3 coordinates (optionally w, or r g b), got " +
                             std::to_string(fields.size() - 1) + " fields");
      double xyz[3];
      for (std::size_t k = 1; k < fields.size(); ++k) {
        double v = 0.0;
        if (!detail::parseNumber(fields[k], v) || !std::isfinite(v))
          throw ParseError(source_name, line_number,
                           "OBJ: 'v' field " + std::to_string(k) + ": '" + std::string(fields[k].substr(0, 40)) +
                               "' is not a finite number");
        if (k <= 3) xyz[k - 1] = v;
      }
      mesh.vertices.emplace_back(xyz[0], xyz[1], xyz[2]);
    } else if (fields[0] == "f") {
      if (fields.size() < 4)
        throw ParseError(source_name, line_number,
                         "OBJ: a face needs at least 3 vertices, got " + std::to_string(fields.size() - 1));
      face.clear();
      const auto count = static_cast<long long>(mesh.vertices.size());
      for (std::size_t k = 1; k < fields.size(); ++k) {
        const long long idx = objIndex(fields[k], count);
        if (idx < 0)
          throw ParseError(source_name, line_number,
                           "OBJ: face vertex '" + std::string(fields[k].substr(0, 40)) +
                               "' is not a vertex index (1-based, or negative from the last vertex)");
        face.push_back(idx);
      }
      for (std::size_t k = 2; k < face.size(); ++k) pending.push_back({{face[0], face[k - 1], face[k]}, line_number});
    }
    // vt, vn, vp, g, o, s, usemtl, mtllib, l, p: not geometry we need
  }
  const auto count = static_cast<long long>(mesh.vertices.size());
  mesh.triangles.reserve(pending.size());
  for (const auto& [tri, at] : pending) {
    for (const long long idx : tri)
      if (idx >= count)
        throw ParseError(
            source_name, at,
            "OBJ: face vertex " + std::to_string(idx + 1) + " out of range (" + std::to_string(count) + " vertices)");
    mesh.triangles.push_back({static_cast<int>(tri[0]), static_cast<int>(tri[1]), static_cast<int>(tri[2])});
  }
  requireVertices(mesh, source_name, "OBJ");
  return mesh;
}

TriangleMesh loadMesh(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::string ext = dot == std::string::npos ? "" : lower(path.substr(dot));
  if (ext != ".stl" && ext != ".obj" && ext != ".vtp")
    throw ParseError(path, 0, "mesh: unknown extension '" + ext + "' (expected .stl, .obj or .vtp)");
  const std::string bytes = detail::readTextFile(path);
  if (ext == ".vtp") return parseVtp(bytes, path);
  return ext == ".stl" ? parseStl(bytes, path) : parseObj(bytes, path);
}

}  // namespace kinetrack::io
