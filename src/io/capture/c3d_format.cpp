// Bounds-checked C3D bytes in the processor's number formats, and the parameter section.
#include "c3d_format.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::io::detail {

double unitMetres(std::string_view unit) {
  std::string u;
  for (const char c : unit) u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (u == "mm") return 1e-3;
  if (u == "cm") return 1e-2;
  if (u == "dm") return 1e-1;
  if (u == "m") return 1.0;
  return 0.0;
}

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Printable form of a name read from the file (which may hold any byte).
std::string printableName(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}

std::string dimsText(const std::vector<int>& dims) {
  if (dims.empty()) return "scalar";
  std::string out;
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? "×" : "") + std::to_string(dims[i]);
  return out;
}

}  // namespace

double vaxToDouble(const std::uint8_t* p) {
  const std::uint32_t hi = static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8;
  const std::uint32_t lo = static_cast<std::uint32_t>(p[2]) | static_cast<std::uint32_t>(p[3]) << 8;
  const bool negative = (hi >> 15) != 0;
  const int exponent = static_cast<int>((hi >> 7) & 0xffu);
  const std::uint32_t fraction = (hi & 0x7fu) << 16 | lo;
  if (exponent == 0) return negative ? std::numeric_limits<double>::quiet_NaN() : 0.0;
  // 0.1f × 2^(e − 128) = 1.f × 2^(e − 129).
  const double v = std::ldexp(1.0 + static_cast<double>(fraction) / 8388608.0, exponent - 129);
  return negative ? -v : v;
}

// ---- C3dBytes ----------------------------------------------------------------------------------

void C3dBytes::fail(std::size_t at, const std::string& message) const {
  throw ParseError(source_, 0, "byte " + std::to_string(at) + ": " + message);
}

void C3dBytes::need(std::size_t at, std::size_t n, std::string_view field) const {
  if (at > bytes_.size() || n > bytes_.size() - at)
    fail(at, std::string(field) + ": needs " + std::to_string(n) + " bytes, the file ends at byte " +
                 std::to_string(bytes_.size()));
}

std::uint8_t C3dBytes::u8(std::size_t at, std::string_view field) const {
  need(at, 1, field);
  return bytes_[at];
}

std::int8_t C3dBytes::i8(std::size_t at, std::string_view field) const {
  return static_cast<std::int8_t>(u8(at, field));
}

std::uint16_t C3dBytes::u16(std::size_t at, std::string_view field) const {
  need(at, 2, field);
  return u16At(at);
}

std::int16_t C3dBytes::i16(std::size_t at, std::string_view field) const {
  return static_cast<std::int16_t>(u16(at, field));
}

double C3dBytes::f32(std::size_t at, std::string_view field) const {
  need(at, 4, field);
  return f32At(at);
}

std::uint16_t C3dBytes::u16At(std::size_t at) const {
  const std::uint16_t a = bytes_[at], b = bytes_[at + 1];
  return processor_ == C3dProcessor::Mips ? static_cast<std::uint16_t>(a << 8 | b)
                                          : static_cast<std::uint16_t>(b << 8 | a);
}

double C3dBytes::f32At(std::size_t at) const {
  const std::uint8_t* p = bytes_.data() + at;
  if (processor_ == C3dProcessor::Dec) return vaxToDouble(p);
  std::uint32_t u = 0;
  if (processor_ == C3dProcessor::Mips)
    u = static_cast<std::uint32_t>(p[0]) << 24 | static_cast<std::uint32_t>(p[1]) << 16 |
        static_cast<std::uint32_t>(p[2]) << 8 | p[3];
  else
    u = static_cast<std::uint32_t>(p[3]) << 24 | static_cast<std::uint32_t>(p[2]) << 16 |
        static_cast<std::uint32_t>(p[1]) << 8 | p[0];
  return static_cast<double>(std::bit_cast<float>(u));
}

// ---- the parameter section ---------------------------------------------------------------------

C3dParameters::C3dParameters(const C3dBytes& b, std::size_t begin, std::size_t end, std::vector<std::string>& warnings)
    : bytes_(b) {
  // The section [begin, end) lies in the file (checked by the caller).
  struct Item {
    C3dParameter p;
    int group_id;
  };
  std::vector<Item> items;
  std::unordered_map<int, std::string> groups;
  auto section = [&](std::size_t at, std::size_t n, const std::string& what) {
    if (at > end || n > end - at)
      b.fail(at, what + ": runs past the parameter section (ends at byte " + std::to_string(end) + ")");
  };
  std::size_t pos = begin;
  while (pos < end) {
    const std::size_t at = pos;
    section(at, 2, "parameter item header");
    const int name_length = b.i8(at, "parameter name length");
    if (name_length == 0) break;  // the end marker
    const int id = b.i8(at + 1, "parameter group id");
    const std::size_t len = static_cast<std::size_t>(std::abs(name_length));
    section(at + 2, len, "parameter name");
    std::string raw(len, '\0');
    for (std::size_t k = 0; k < len; ++k) raw[k] = static_cast<char>(b.u8(at + 2 + k, "name"));
    const std::string name = upper(raw);
    const std::size_t offset_at = at + 2 + len;
    section(offset_at, 2, (id < 0 ? "group " : "parameter ") + printableName(name) + ": offset to the next item");
    const std::size_t offset = b.u16(offset_at, "offset");
    if (id == 0) b.fail(at + 1, "item " + printableName(name) + ": group id 0");
    if (id < 0) {
      section(offset_at + 2, 1, "group " + printableName(name) + ": description length");
      const std::size_t dl = b.u8(offset_at + 2, "description length");
      section(offset_at + 3, dl, "group " + printableName(name) + ": description");
      if (!groups.emplace(-id, name).second)
        warnings.push_back("byte " + std::to_string(at) + ": group id " + std::to_string(-id) + " defined twice (" +
                           printableName(groups[-id]) + ", " + printableName(name) + "): the first is used");
    } else {
      const auto known = groups.find(id);
      const std::string label =
          "parameter " + (known != groups.end() ? printableName(known->second) : "of group " + std::to_string(id)) +
          ":" + printableName(name);
      section(offset_at + 2, 2, label + ": type and number of dimensions");
      C3dParameter p;
      p.name = name;
      p.at = at;
      p.type = b.i8(offset_at + 2, "type");
      if (p.type != -1 && p.type != 1 && p.type != 2 && p.type != 4)
        b.fail(offset_at + 2, label + ": type " + std::to_string(p.type) + " (expected −1, 1, 2 or 4)");
      const std::size_t nd = b.u8(offset_at + 3, "number of dimensions");
      section(offset_at + 4, nd, label + ": dimensions");
      p.dims.resize(nd);
      const std::size_t element_size = static_cast<std::size_t>(std::abs(p.type));
      p.data_at = offset_at + 4 + nd;
      const std::size_t room = end > p.data_at ? end - p.data_at : 0;
      std::size_t elements = 1;
      bool zero = false, too_big = false;
      for (std::size_t k = 0; k < nd; ++k) {
        p.dims[k] = b.u8(offset_at + 4 + k, "dimension");
        if (p.dims[k] == 0) zero = true;
        if (zero || too_big) continue;
        elements *= static_cast<std::size_t>(p.dims[k]);  // ≤ (room + 1) × 255 × 4 bytes: no overflow
        too_big = elements * element_size > room;
      }
      if (zero) elements = 0;
      if (!zero && too_big)
        b.fail(at, label + ": dimensions " + dimsText(p.dims) + " of " + std::to_string(element_size) +
                       "-byte elements run past the parameter section (ends at byte " + std::to_string(end) + ")");
      p.elements = elements;
      const std::size_t desc_at = p.data_at + elements * element_size;
      section(desc_at, 1, label + ": description length");
      section(desc_at + 1, b.u8(desc_at, "description length"), label + ": description");
      items.push_back({std::move(p), id});
    }
    if (offset == 0) break;  // the last item
    pos = offset_at + offset;
    if (pos > end)
      b.fail(offset_at, "item " + printableName(name) + ": offset " + std::to_string(offset) +
                            " to the next item points past the parameter section (ends at byte " + std::to_string(end) +
                            ")");
  }
  params_.reserve(items.size());
  for (Item& it : items) {
    const auto g = groups.find(it.group_id);
    if (g == groups.end()) {
      warnings.push_back("byte " + std::to_string(it.p.at) + ": parameter " + printableName(it.p.name) +
                         " belongs to group id " + std::to_string(it.group_id) + ", which is not defined: ignored");
      continue;
    }
    it.p.group = g->second;
    const std::string key = it.p.fullName();
    if (!index_.emplace(key, params_.size()).second) {
      warnings.push_back("byte " + std::to_string(it.p.at) + ": parameter " + printableName(key) +
                         " defined twice: the first is used");
      continue;
    }
    params_.push_back(std::move(it.p));
  }
}

void C3dParameters::failParam(const C3dParameter& p, const std::string& message) const {
  bytes_.fail(p.at, "parameter " + printableName(p.fullName()) + ": " + message);
}

const C3dParameter* C3dParameters::find(std::string_view group, std::string_view name) const {
  const auto it = index_.find(upper(group) + ":" + upper(name));
  return it == index_.end() ? nullptr : &params_[it->second];
}

double C3dParameters::number(const C3dParameter& p, std::size_t i) const {
  if (p.type == -1) failParam(p, "is text, expected a number");
  if (i >= p.elements)
    failParam(p, "has " + std::to_string(p.elements) + " elements, element " + std::to_string(i + 1) + " is needed");
  switch (p.type) {
    case 1: return bytes_.u8(p.data_at + i, "byte");
    case 2: return bytes_.i16(p.data_at + 2 * i, "int16");
    default: return bytes_.f32(p.data_at + 4 * i, "float");
  }
}

long long C3dParameters::count(const C3dParameter& p, std::size_t i) const {
  const double v = number(p, i);
  if (p.type == 2) return bytes_.u16(p.data_at + 2 * i, "int16");  // 0–65535: counts above 32767
  if (!(v >= 0 && v < 2147483648.0 && v == std::floor(v)))
    failParam(p, "value " + std::to_string(v) + " is not a count (an integer from 0 to 2³¹ − 1)");
  return static_cast<long long>(v);
}

std::vector<std::string> C3dParameters::strings(const C3dParameter& p) const {
  if (p.type != -1) failParam(p, "is a number, expected text");
  std::vector<std::string> out;
  auto text = [&](std::size_t from, std::size_t n) {
    std::string s(n, '\0');
    for (std::size_t k = 0; k < n; ++k) s[k] = static_cast<char>(bytes_.u8(from + k, "text"));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
    return s;
  };
  if (p.dims.size() <= 1) {
    out.push_back(text(p.data_at, p.elements));
    return out;
  }
  const std::size_t width = static_cast<std::size_t>(p.dims[0]);
  if (width == 0) return out;  // strings of no characters: as if absent
  const std::size_t n = p.elements / width;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) out.push_back(text(p.data_at + k * width, width));
  return out;
}

std::vector<std::string> C3dParameters::stringsWithContinuations(std::string_view group, std::string_view name) const {
  std::vector<std::string> out;
  const C3dParameter* p = find(group, name);
  for (int k = 2; p != nullptr && p->type == -1; ++k) {
    const std::vector<std::string> more = strings(*p);
    out.insert(out.end(), more.begin(), more.end());
    p = find(group, std::string(name) + std::to_string(k));
  }
  return out;
}

std::string C3dParameters::text(std::string_view group, std::string_view name) const {
  const C3dParameter* p = find(group, name);
  if (p == nullptr || p->type != -1) return {};
  const std::vector<std::string> s = strings(*p);
  if (s.empty()) return {};
  std::string_view v = s[0];
  while (!v.empty() && (v.front() == ' ' || v.front() == '\0')) v.remove_prefix(1);
  return std::string(v);
}

}  // namespace kinetrack::io::detail
