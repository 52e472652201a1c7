// VTK PolyData XML (.vtp): OpenSim's bone meshes (../shared/data/opensim/Geometry). Only what a
// surface needs: the points, the polygons and the triangle strips of every piece.
#include <tinyxml2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "kinetrack/core/base64.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/mesh.hpp"

namespace kinetrack::io {

namespace {

using tinyxml2::XMLElement;

class VtpReader {
 public:
  explicit VtpReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const XMLElement* at, const std::string& what) const {
    throw ParseError(source_, at != nullptr ? at->GetLineNum() : 0, "VTP: " + what);
  }

  /// The numbers of a DataArray: ascii text or uncompressed base64 binary.
  std::vector<double> numbers(const XMLElement* array, bool header64, bool compressed) const {
    const char* fmt = array->Attribute("format");
    const std::string format = fmt != nullptr ? fmt : "ascii";
    const char* type_attr = array->Attribute("type");
    const std::string type = type_attr != nullptr ? type_attr : "";
    const char* text = array->GetText();
    std::vector<double> out;
    if (format == "ascii") {
      const char* p = text != nullptr ? text : "";
      const char* end = p + std::strlen(p);
      while (true) {
        while (p < end && std::isspace(static_cast<unsigned char>(*p))) ++p;
        if (p >= end) break;
        double v = 0.0;
        const auto r = std::from_chars(p, end, v);
        if (r.ec != std::errc()) {
          const char* q = p;
          while (q < end && !std::isspace(static_cast<unsigned char>(*q))) ++q;
          fail(array, "DataArray '" + name(array) + "': '" + std::string(p, std::min<std::size_t>(q - p, 40)) +
                          "' is not a number");
        }
        out.push_back(v);
        p = r.ptr;
      }
      return out;
    }
    if (format == "appended")
      fail(array, "DataArray '" + name(array) +
                      "': appended data is not read; save the file with ascii or binary (inline) arrays");
    if (format != "binary") fail(array, "DataArray '" + name(array) + "': unknown format '" + format + "'");
    if (compressed)
      fail(array, "DataArray '" + name(array) +
                      "': compressed binary data is not read; save the file uncompressed (ascii or binary)");
    const std::vector<unsigned char> bytes = decodeBase64(array, text != nullptr ? text : "");
    const std::size_t header = header64 ? 8 : 4;
    if (bytes.size() < header) fail(array, "DataArray '" + name(array) + "': binary data without its size header");
    std::uint64_t size = 0;
    for (std::size_t k = 0; k < header; ++k) size |= static_cast<std::uint64_t>(bytes[k]) << (8 * k);
    if (size > bytes.size() - header)
      fail(array, "DataArray '" + name(array) + "': binary data is shorter than its header says (" +
                      std::to_string(bytes.size() - header) + " of " + std::to_string(size) + " bytes)");
    const unsigned char* b = bytes.data() + header;
    const auto read = [&](auto tag) {
      using T = decltype(tag);
      for (std::uint64_t at = 0; at + sizeof(T) <= size; at += sizeof(T)) {
        T v;
        std::memcpy(&v, b + at, sizeof(T));
        out.push_back(static_cast<double>(v));
      }
    };
    if (type == "Float32")
      read(float{});
    else if (type == "Float64")
      read(double{});
    else if (type == "Int32")
      read(std::int32_t{});
    else if (type == "Int64")
      read(std::int64_t{});
    else if (type == "UInt32")
      read(std::uint32_t{});
    else if (type == "UInt64")
      read(std::uint64_t{});
    else
      fail(array, "DataArray '" + name(array) + "': type '" + type + "' is not read");
    return out;
  }

  static std::string name(const XMLElement* array) {
    const char* n = array->Attribute("Name");
    return n != nullptr ? n : "points";
  }

  std::vector<unsigned char> decodeBase64(const XMLElement* at, std::string_view text) const {
    char bad = 0;
    std::optional<std::vector<unsigned char>> bytes = base64Decode(text, &bad);
    if (!bytes) fail(at, std::string("binary data: '") + bad + "' is not base64");
    return std::move(*bytes);
  }

 private:
  std::string source_;
};

const XMLElement* arrayNamed(const XMLElement* cells, const char* wanted) {
  for (const XMLElement* a = cells->FirstChildElement("DataArray"); a != nullptr;
       a = a->NextSiblingElement("DataArray")) {
    const char* n = a->Attribute("Name");
    if (n != nullptr && std::strcmp(n, wanted) == 0) return a;
  }
  return nullptr;
}

}  // namespace

TriangleMesh parseVtp(std::string_view text, const std::string& source_name) {
  VtpReader reader(source_name);
  tinyxml2::XMLDocument doc;
  if (doc.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS)
    throw ParseError(source_name, doc.ErrorLineNum(), std::string("VTP: not XML: ") + doc.ErrorStr());
  const XMLElement* root = doc.RootElement();
  if (root == nullptr || std::strcmp(root->Name(), "VTKFile") != 0)
    reader.fail(root, "the root element is not <VTKFile>");
  const char* type = root->Attribute("type");
  if (type == nullptr || std::strcmp(type, "PolyData") != 0)
    reader.fail(root, std::string("VTKFile type '") + (type != nullptr ? type : "") + "': only PolyData is read");
  const char* header_type = root->Attribute("header_type");
  const bool header64 = header_type != nullptr && std::strcmp(header_type, "UInt64") == 0;
  const bool compressed = root->Attribute("compressor") != nullptr;
  const XMLElement* poly = root->FirstChildElement("PolyData");
  if (poly == nullptr) reader.fail(root, "no <PolyData>");
  TriangleMesh mesh;
  for (const XMLElement* piece = poly->FirstChildElement("Piece"); piece != nullptr;
       piece = piece->NextSiblingElement("Piece")) {
    const auto base = static_cast<long long>(mesh.vertices.size());
    const long long n_points = piece->Int64Attribute("NumberOfPoints", -1);
    const XMLElement* points = piece->FirstChildElement("Points");
    const XMLElement* pa = points != nullptr ? points->FirstChildElement("DataArray") : nullptr;
    if (pa == nullptr) reader.fail(piece, "a <Piece> without <Points><DataArray>");
    if (pa->IntAttribute("NumberOfComponents", 1) != 3) reader.fail(pa, "points need NumberOfComponents=\"3\"");
    // Only binary data needs the compressor flag: an ascii array in a file that names a compressor
    // (OpenSim's bones) is plain text.
    const std::vector<double> xyz = reader.numbers(pa, header64, compressed);
    if (xyz.size() % 3 != 0) reader.fail(pa, std::to_string(xyz.size()) + " point coordinates: not a multiple of 3");
    if (n_points >= 0 && static_cast<long long>(xyz.size() / 3) != n_points)
      reader.fail(pa, std::to_string(xyz.size() / 3) + " points, but the piece says NumberOfPoints=\"" +
                          std::to_string(n_points) + "\"");
    for (std::size_t k = 0; k < xyz.size(); k += 3) {
      if (!std::isfinite(xyz[k]) || !std::isfinite(xyz[k + 1]) || !std::isfinite(xyz[k + 2]))
        reader.fail(pa, "point " + std::to_string(k / 3) + " is not finite");
      mesh.vertices.emplace_back(xyz[k], xyz[k + 1], xyz[k + 2]);
    }
    const long long count = static_cast<long long>(xyz.size() / 3);
    for (const char* kind : {"Polys", "Strips"}) {
      const XMLElement* cells = piece->FirstChildElement(kind);
      if (cells == nullptr) continue;
      const XMLElement* ca = arrayNamed(cells, "connectivity");
      const XMLElement* oa = arrayNamed(cells, "offsets");
      if (ca == nullptr || oa == nullptr)
        reader.fail(cells, std::string("<") + kind + "> needs DataArrays named connectivity and offsets");
      const std::vector<double> conn = reader.numbers(ca, header64, compressed);
      const std::vector<double> offsets = reader.numbers(oa, header64, compressed);
      const char* count_attr = std::strcmp(kind, "Polys") == 0 ? "NumberOfPolys" : "NumberOfStrips";
      const long long declared = piece->Int64Attribute(count_attr, -1);
      if (declared >= 0 && static_cast<long long>(offsets.size()) != declared)
        reader.fail(oa, std::to_string(offsets.size()) + " offsets, but the piece says " + count_attr + "=\"" +
                            std::to_string(declared) + "\"");
      std::size_t begin = 0;
      std::vector<int> cell;
      for (std::size_t c = 0; c < offsets.size(); ++c) {
        const double end_d = offsets[c];
        if (!(end_d >= static_cast<double>(begin)) || end_d > static_cast<double>(conn.size()))
          reader.fail(oa, std::string(kind) + " cell " + std::to_string(c) + ": offset " + std::to_string(end_d) +
                              " out of order or past the " + std::to_string(conn.size()) + " indices");
        const auto end = static_cast<std::size_t>(end_d);
        cell.clear();
        for (std::size_t k = begin; k < end; ++k) {
          const double v = conn[k];
          if (!(v >= 0.0) || v >= static_cast<double>(count) || v != std::floor(v))
            reader.fail(ca, std::string(kind) + " cell " + std::to_string(c) + ": point index " + std::to_string(v) +
                                " out of range (" + std::to_string(count) + " points)");
          cell.push_back(static_cast<int>(base + static_cast<long long>(v)));
        }
        begin = end;
        if (std::strcmp(kind, "Polys") == 0) {
          for (std::size_t k = 2; k < cell.size(); ++k) mesh.triangles.push_back({cell[0], cell[k - 1], cell[k]});
        } else {
          for (std::size_t k = 2; k < cell.size(); ++k) {
            if (k % 2 == 0)
              mesh.triangles.push_back({cell[k - 2], cell[k - 1], cell[k]});
            else
              mesh.triangles.push_back({cell[k - 1], cell[k - 2], cell[k]});
          }
        }
      }
    }
  }
  if (mesh.vertices.empty()) throw ParseError(source_name, 0, "VTP: the mesh has no points");
  return mesh;
}

}  // namespace kinetrack::io
