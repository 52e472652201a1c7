// Test-only C3D writer and parameter-section walker (tests/testing/c3d_writer.hpp).
#include "testing/c3d_writer.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace kinetrack::testing {

namespace {

constexpr std::size_t kBlock = 512;

void append(std::vector<std::uint8_t>& out, const std::vector<std::uint8_t>& v) {
  out.insert(out.end(), v.begin(), v.end());
}

// VAX F_floating: two little-endian words, the first with sign, exponent (bias 128) and the high
// fraction bits; value 0.1f × 2^(e − 128).
std::vector<std::uint8_t> vax(float v) {
  if (v == 0.0f) return {0, 0, 0, 0};
  int e = 0;
  const double m = std::frexp(static_cast<double>(std::abs(v)), &e);  // |v| = m × 2^e, m ∈ [0.5, 1)
  const int exponent = e + 128;
  if (exponent < 1 || exponent > 255) throw std::logic_error("c3dFloat: value out of the VAX F range");
  const auto fraction = static_cast<std::uint32_t>(std::ldexp(2.0 * m - 1.0, 23));  // exact for a float
  const std::uint32_t hi = (v < 0 ? 0x8000u : 0u) | static_cast<std::uint32_t>(exponent) << 7 | fraction >> 16;
  const std::uint32_t lo = fraction & 0xffffu;
  return {static_cast<std::uint8_t>(hi & 0xff), static_cast<std::uint8_t>(hi >> 8),
          static_cast<std::uint8_t>(lo & 0xff), static_cast<std::uint8_t>(lo >> 8)};
}

std::vector<std::uint8_t> chars(const std::vector<std::string>& s, std::size_t width) {
  std::vector<std::uint8_t> out;
  for (const std::string& x : s) {
    std::string padded = x.substr(0, width);
    padded.resize(width, ' ');
    out.insert(out.end(), padded.begin(), padded.end());
  }
  return out;
}

std::size_t widthOf(const std::vector<std::string>& s) {
  std::size_t w = 1;
  for (const std::string& x : s) w = std::max(w, x.size());
  return w;
}

struct Writer {
  C3dCpu cpu;
  std::vector<std::string> groups;  // id = index + 1
  std::vector<C3dExtraParameter> params;

  int groupId(const std::string& g) {
    const auto it = std::find(groups.begin(), groups.end(), g);
    if (it != groups.end()) return static_cast<int>(it - groups.begin()) + 1;
    groups.push_back(g);
    return static_cast<int>(groups.size());
  }
  void add(const std::string& g, const std::string& n, int type, std::vector<int> dims,
           std::vector<std::uint8_t> data) {
    groupId(g);
    params.push_back({g, n, type, std::move(dims), std::move(data)});
  }
  void ints(const std::string& g, const std::string& n, const std::vector<int>& v, bool scalar = true) {
    std::vector<std::uint8_t> d;
    for (const int x : v) append(d, c3dInt16(cpu, x));
    add(g, n, 2, scalar && v.size() == 1 ? std::vector<int>{} : std::vector<int>{static_cast<int>(v.size())}, d);
  }
  void floats(const std::string& g, const std::string& n, const std::vector<float>& v) {
    std::vector<std::uint8_t> d;
    for (const float x : v) append(d, c3dFloat(cpu, x));
    add(g, n, 4, v.size() == 1 ? std::vector<int>{} : std::vector<int>{static_cast<int>(v.size())}, d);
  }
  void text(const std::string& g, const std::string& n, const std::string& s) {
    add(g, n, -1, {static_cast<int>(s.size())}, std::vector<std::uint8_t>(s.begin(), s.end()));
  }
  void strings(const std::string& g, const std::string& n, const std::vector<std::string>& s) {
    const std::size_t w = widthOf(s);
    add(g, n, -1, {static_cast<int>(w), static_cast<int>(s.size())}, chars(s, w));
  }
  // Strings split into NAME, NAME2, NAME3, … of at most `per` each.
  void stringsSplit(const std::string& g, const std::string& n, const std::vector<std::string>& s, int per) {
    const std::size_t w = widthOf(s), step = static_cast<std::size_t>(per);
    for (std::size_t k = 0, part = 1; k < s.size() || part == 1; k += step, ++part) {
      const std::vector<std::string> chunk(s.begin() + static_cast<std::ptrdiff_t>(std::min(k, s.size())),
                                           s.begin() + static_cast<std::ptrdiff_t>(std::min(k + step, s.size())));
      add(g, part == 1 ? n : n + std::to_string(part), -1, {static_cast<int>(w), static_cast<int>(chunk.size())},
          chars(chunk, w));
      if (k + step >= s.size()) break;
    }
  }

  // The parameter section: 4-byte header, groups, parameters, the end (padded to whole blocks).
  std::vector<std::uint8_t> section(bool last_offset_zero) const {
    std::vector<std::vector<std::uint8_t>> items;
    auto item = [&](const std::string& name, int id, const std::vector<std::uint8_t>& body) {
      std::vector<std::uint8_t> it = {static_cast<std::uint8_t>(name.size()), static_cast<std::uint8_t>(id)};
      it.insert(it.end(), name.begin(), name.end());
      const std::size_t offset = 2 + body.size();
      append(it, c3dInt16(cpu, static_cast<int>(offset)));
      append(it, body);
      items.push_back(std::move(it));
    };
    for (std::size_t g = 0; g < groups.size(); ++g) item(groups[g], -static_cast<int>(g + 1), {0});  // no description
    for (const C3dExtraParameter& p : params) {
      std::vector<std::uint8_t> body = {static_cast<std::uint8_t>(p.type), static_cast<std::uint8_t>(p.dims.size())};
      for (const int d : p.dims) body.push_back(static_cast<std::uint8_t>(d));
      append(body, p.data);
      const std::string desc = "test";
      body.push_back(static_cast<std::uint8_t>(desc.size()));
      body.insert(body.end(), desc.begin(), desc.end());
      const auto it = std::find(groups.begin(), groups.end(), p.group);
      item(p.name, static_cast<int>(it - groups.begin()) + 1, body);
    }
    if (last_offset_zero) {
      std::vector<std::uint8_t>& last = items.back();
      const std::size_t name_length = last[0];
      const std::vector<std::uint8_t> zero = c3dInt16(cpu, 0);
      last[2 + name_length] = zero[0];
      last[3 + name_length] = zero[1];
    }
    std::vector<std::uint8_t> out = {1, 0x50, 0, static_cast<std::uint8_t>(cpu)};
    for (const auto& it : items) append(out, it);
    out.push_back(0);  // end marker (name length 0)
    out.resize((out.size() + kBlock - 1) / kBlock * kBlock, 0);
    out[2] = static_cast<std::uint8_t>(out.size() / kBlock);
    return out;
  }
};

}  // namespace

std::vector<std::uint8_t> c3dInt16(C3dCpu cpu, int v) {
  const auto u = static_cast<std::uint16_t>(v);
  const auto lo = static_cast<std::uint8_t>(u & 0xff), hi = static_cast<std::uint8_t>(u >> 8);
  return cpu == C3dCpu::Mips ? std::vector<std::uint8_t>{hi, lo} : std::vector<std::uint8_t>{lo, hi};
}

std::vector<std::uint8_t> c3dFloat(C3dCpu cpu, float v) {
  if (cpu == C3dCpu::Dec) return vax(v);
  const auto u = std::bit_cast<std::uint32_t>(v);
  std::vector<std::uint8_t> le = {static_cast<std::uint8_t>(u), static_cast<std::uint8_t>(u >> 8),
                                  static_cast<std::uint8_t>(u >> 16), static_cast<std::uint8_t>(u >> 24)};
  if (cpu == C3dCpu::Mips) std::reverse(le.begin(), le.end());
  return le;
}

std::string writeC3d(const C3dSpec& s) {
  Writer w{s.cpu, {}, {}};
  const int points = static_cast<int>(s.labels.size());
  const int frames = static_cast<int>(s.frames.size());
  const float scale = s.float_data ? -s.scale : s.scale;
  const int analog_values = s.analog_channels * s.analog_samples;
  w.groupId("POINT");
  w.groupId("ANALOG");
  w.ints("POINT", "USED", {points});
  if (s.write_point_frames) {
    if (s.point_frames_as_float)
      w.floats("POINT", "FRAMES", {static_cast<float>(frames)});
    else
      w.ints("POINT", "FRAMES", {frames & 0xffff});
  }
  w.ints("POINT", "DATA_START", {0});  // patched below
  w.floats("POINT", "SCALE", {scale});
  w.floats("POINT", "RATE", {s.rate});
  w.text("POINT", "UNITS", s.units);
  w.stringsSplit("POINT", "LABELS", s.labels, s.labels_per_parameter);
  if (!s.descriptions.empty()) w.stringsSplit("POINT", "DESCRIPTIONS", s.descriptions, s.labels_per_parameter);
  for (const auto& [name, list] : s.point_lists) w.strings("POINT", name, list);
  w.ints("ANALOG", "USED", {s.analog_channels});
  w.floats("ANALOG", "RATE", {s.rate * static_cast<float>(s.analog_samples)});
  const bool extra_scale = std::any_of(s.extra.begin(), s.extra.end(), [](const C3dExtraParameter& p) {
    return p.group == "ANALOG" && p.name == "SCALE";
  });
  if (s.analog_channels > 0 && !extra_scale)
    w.floats("ANALOG", "SCALE", std::vector<float>(static_cast<std::size_t>(s.analog_channels), 1.0f));
  if (s.trial_fields) {
    const int last = s.first_frame + frames - 1;
    w.ints("TRIAL", "ACTUAL_START_FIELD", {s.first_frame & 0xffff, s.first_frame >> 16}, false);
    w.ints("TRIAL", "ACTUAL_END_FIELD", {last & 0xffff, last >> 16}, false);
  }
  if (!s.subjects.empty()) w.strings("SUBJECTS", "NAMES", s.subjects);
  w.text("MANUFACTURER", "COMPANY", "kinetrack");
  for (const C3dExtraParameter& p : s.extra) w.add(p.group, p.name, p.type, p.dims, p.data);

  std::vector<std::uint8_t> section = w.section(s.last_offset_zero);
  const int data_start = 2 + static_cast<int>(section.size() / kBlock);
  // Patch POINT:DATA_START: it is the only parameter whose data is int16 0 (before it was known).
  section = [&] {
    Writer again = w;
    for (C3dExtraParameter& p : again.params)
      if (p.group == "POINT" && p.name == "DATA_START") p.data = c3dInt16(s.cpu, data_start);
    return again.section(s.last_offset_zero);
  }();

  std::vector<std::uint8_t> out(kBlock, 0);
  auto put16 = [&](std::size_t word, int v) {  // 1-based header word
    const auto b = c3dInt16(s.cpu, v);
    out[2 * (word - 1)] = b[0];
    out[2 * (word - 1) + 1] = b[1];
  };
  auto putFloat = [&](std::size_t word, float v) {
    const auto b = c3dFloat(s.cpu, v);
    std::copy(b.begin(), b.end(), out.begin() + static_cast<std::ptrdiff_t>(2 * (word - 1)));
  };
  out[0] = 2;
  out[1] = 0x50;
  put16(2, points);
  put16(3, analog_values);
  put16(4, s.first_frame & 0xffff);
  put16(5, (s.first_frame + frames - 1) & 0xffff);
  put16(6, 10);
  putFloat(7, scale);
  put16(9, data_start);
  put16(10, s.analog_samples);
  putFloat(11, s.rate);
  append(out, section);
  for (int f = 0; f < frames; ++f) {
    for (int p = 0; p < points; ++p) {
      const Vector3d& x = s.frames[static_cast<std::size_t>(f)][static_cast<std::size_t>(p)];
      const bool missing = !x.allFinite();
      for (int c = 0; c < 3; ++c) {
        const double v = missing ? 0.0 : x[c];
        append(out, s.float_data ? c3dFloat(s.cpu, static_cast<float>(v))
                                 : c3dInt16(s.cpu, static_cast<int>(std::lround(v / s.scale))));
      }
      const int r = missing ? -1 : s.residual_word;
      append(out, s.float_data ? c3dFloat(s.cpu, static_cast<float>(r)) : c3dInt16(s.cpu, r));
    }
    for (int k = 0; k < analog_values; ++k) {
      double v = (f * 131 + k * 7) % 20000 - 10000;
      if (!s.analog.empty() && s.analog_channels > 0)
        v = s.analog[static_cast<std::size_t>(f * s.analog_samples + k / s.analog_channels)]
                    [static_cast<std::size_t>(k % s.analog_channels)];
      append(out,
             s.float_data ? c3dFloat(s.cpu, static_cast<float>(v)) : c3dInt16(s.cpu, static_cast<int>(std::lround(v))));
    }
  }
  return std::string(out.begin(), out.end());
}

// ---- walking an existing file ------------------------------------------------------------------

namespace {

bool bigEndian(const std::string& f) {
  const std::size_t section = (static_cast<std::uint8_t>(f[0]) - 1) * kBlock;
  return static_cast<std::uint8_t>(f[section + 3]) == 86;
}

std::size_t word(const std::string& f, std::size_t at) {
  const auto a = static_cast<std::uint8_t>(f.at(at)), b = static_cast<std::uint8_t>(f.at(at + 1));
  return bigEndian(f) ? (std::size_t{a} << 8 | b) : (std::size_t{b} << 8 | a);
}

void setWord(std::string& f, std::size_t at, int v) {
  const auto b = c3dInt16(bigEndian(f) ? C3dCpu::Mips : C3dCpu::Intel, v);
  f.at(at) = static_cast<char>(b[0]);
  f.at(at + 1) = static_cast<char>(b[1]);
}

}  // namespace

std::vector<C3dItem> c3dItems(const std::string& f) {
  std::vector<C3dItem> items;
  std::vector<std::string> groups(128);
  if (f.size() < kBlock || static_cast<std::uint8_t>(f[0]) == 0) return items;
  const std::size_t section = (static_cast<std::uint8_t>(f[0]) - 1) * kBlock;
  const std::size_t end = std::min(f.size(), section + static_cast<std::uint8_t>(f.at(section + 2)) * kBlock);
  std::size_t pos = section + 4;
  while (pos + 4 < end) {
    const int nl = static_cast<std::int8_t>(f[pos]);
    const int id = static_cast<std::int8_t>(f[pos + 1]);
    if (nl == 0 || id == 0) break;
    C3dItem it;
    it.at = pos;
    it.name = f.substr(pos + 2, static_cast<std::size_t>(std::abs(nl)));
    it.offset_at = pos + 2 + it.name.size();
    if (it.offset_at + 4 > end) break;
    const std::size_t offset = word(f, it.offset_at);
    if (id < 0) {
      groups[static_cast<std::size_t>(-id)] = it.name;
    } else {
      it.group = groups[static_cast<std::size_t>(id)];
      it.type = static_cast<std::int8_t>(f[it.offset_at + 2]);
      const std::size_t nd = static_cast<std::uint8_t>(f[it.offset_at + 3]);
      for (std::size_t k = 0; k < nd && it.offset_at + 4 + k < end; ++k)
        it.dims.push_back(static_cast<std::uint8_t>(f[it.offset_at + 4 + k]));
      it.data_at = it.offset_at + 4 + nd;
    }
    items.push_back(it);
    if (offset == 0) break;
    pos = it.offset_at + offset;
  }
  return items;
}

C3dItem c3dItem(const std::string& file, const std::string& group, const std::string& name) {
  for (const C3dItem& it : c3dItems(file))
    if (it.type != 0 && it.group == group && it.name == name) return it;
  throw std::logic_error("c3dItem: no parameter " + group + ":" + name);
}

std::size_t c3dDataStart(const std::string& file) { return (word(file, 16) - 1) * kBlock; }

std::string shrinkC3d(const std::string& file, int frames) {
  std::string f = file;
  const std::size_t first = word(f, 6);
  setWord(f, 8, static_cast<int>(first) + frames - 1);
  const C3dItem pf = c3dItem(f, "POINT", "FRAMES");
  setWord(f, pf.data_at, frames);
  for (const C3dItem& it : c3dItems(f))
    if (it.group == "TRIAL" && it.name == "ACTUAL_END_FIELD") {
      const std::size_t start = word(f, c3dItem(f, "TRIAL", "ACTUAL_START_FIELD").data_at);
      setWord(f, it.data_at, static_cast<int>(start) + frames - 1);
      setWord(f, it.data_at + 2, 0);
    }
  const std::size_t points = word(f, 2), analog = word(f, 4);
  const std::uint32_t scale_bits = static_cast<std::uint32_t>(static_cast<std::uint8_t>(f[15])) << 24;
  const std::size_t bytes_per_value = (scale_bits & 0x80000000u) ? 4 : 2;  // Intel: the sign of the scale
  const std::size_t frame_bytes = (points * 4 + analog) * bytes_per_value;
  f.resize(c3dDataStart(f) + static_cast<std::size_t>(frames) * frame_bytes);
  return f;
}

}  // namespace kinetrack::testing
