#include "kinetrack/io/table/npz.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <set>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"

namespace kinetrack::io {
namespace {

// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as ZIP stores it.
std::uint32_t crc32(const std::string& data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1U) != 0 ? 0xEDB88320U ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFU;
  for (const char ch : data) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xFFU] ^ (c >> 8);
  return c ^ 0xFFFFFFFFU;
}

void put16(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v & 0xFFU));
  out.push_back(static_cast<char>((v >> 8) & 0xFFU));
}
void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xFFFFU);
  put16(out, v >> 16);
}

std::string shapeText(const std::vector<std::size_t>& shape) {
  if (shape.empty()) return "()";
  std::string s = "(";
  for (const std::size_t d : shape) s += std::to_string(d) + ", ";
  s.erase(s.size() - (shape.size() > 1 ? 2 : 1));  // "(3, 4)"; a 1-tuple keeps its comma: "(3,)"
  return s + ")";
}

}  // namespace

std::string npyBytes(const NpyArray& a) {
  std::string descr, body;
  std::vector<std::size_t> shape = a.shape;
  if (!a.strings.empty()) {
    std::size_t width = 1;
    for (const std::string& s : a.strings) {
      for (const char c : s)
        if (static_cast<unsigned char>(c) >= 0x80)
          throw InvalidArgument("npz array '" + a.name + "': the string '" + s + "' is not ASCII");
      width = std::max(width, s.size());
    }
    descr = "<U" + std::to_string(width);
    shape = {a.strings.size()};
    for (const std::string& s : a.strings)
      for (std::size_t i = 0; i < width; ++i) {
        const auto c = static_cast<std::uint32_t>(i < s.size() ? static_cast<unsigned char>(s[i]) : 0U);
        put32(body, c);  // UTF-32 little-endian
      }
  } else {
    std::size_t count = 1;
    for (const std::size_t d : shape) count *= d;
    if (count != a.values.size())
      throw InvalidArgument(
          fmt::format("npz array '{}': {} values for shape {}", a.name, a.values.size(), shapeText(shape)));
    descr = "<f8";
    body.resize(a.values.size() * 8);
    for (std::size_t i = 0; i < a.values.size(); ++i) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &a.values[i], 8);
      for (int b = 0; b < 8; ++b)
        body[i * 8 + static_cast<std::size_t>(b)] = static_cast<char>((bits >> (8 * b)) & 0xFFU);
    }
  }
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shapeText(shape));
  // Magic (6) + version (2) + header length (2) + header + '\n', padded with spaces to 64 bytes.
  const std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back('\x01');
  out.push_back('\x00');
  put16(out, static_cast<std::uint32_t>(header.size()));
  return out + header + body;
}

std::string npzBytes(const std::vector<NpyArray>& arrays) {
  std::set<std::string> names;
  std::string out, central;
  std::uint32_t entries = 0;
  for (const NpyArray& a : arrays) {
    if (a.name.empty()) throw InvalidArgument("npz: an array without a name");
    if (!names.insert(a.name).second) throw InvalidArgument("npz: two arrays named '" + a.name + "'");
    const std::string data = npyBytes(a);
    const std::string file = a.name + ".npy";
    if (data.size() > 0xFFFFFFF0ULL || out.size() > 0xFFFFFFF0ULL)
      throw InvalidArgument("npz: array '" + a.name + "' is too large for a ZIP without ZIP64");
    const std::uint32_t crc = crc32(data), offset = static_cast<std::uint32_t>(out.size());
    const auto size = static_cast<std::uint32_t>(data.size());
    // Local file header: stored (method 0), no data descriptor, DOS time 1980-01-01 00:00.
    put32(out, 0x04034b50U);
    put16(out, 20);    // version needed
    put16(out, 0);     // flags
    put16(out, 0);     // stored
    put16(out, 0);     // time
    put16(out, 0x21);  // date: 1980-01-01
    put32(out, crc);
    put32(out, size);
    put32(out, size);
    put16(out, static_cast<std::uint32_t>(file.size()));
    put16(out, 0);
    out += file;
    out += data;
    // Central directory entry.
    put32(central, 0x02014b50U);
    put16(central, 20);  // made by
    put16(central, 20);  // needed
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0x21);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, static_cast<std::uint32_t>(file.size()));
    put16(central, 0);  // extra
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);  // internal attributes
    put32(central, 0);  // external attributes
    put32(central, offset);
    central += file;
    ++entries;
  }
  const auto central_offset = static_cast<std::uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50U);
  put16(out, 0);
  put16(out, 0);
  put16(out, entries);
  put16(out, entries);
  put32(out, static_cast<std::uint32_t>(central.size()));
  put32(out, central_offset);
  put16(out, 0);
  return out;
}

void writeNpz(const std::string& path, const std::vector<NpyArray>& arrays) {
  writeFileAtomically(path, npzBytes(arrays));
}

}  // namespace kinetrack::io
