// C3D reader: the header, the point parameters, the frame count and the 3-D point data.
#include "kinetrack/io/capture/c3d.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "../table/text_util.hpp"
#include "c3d_analog.hpp"
#include "c3d_format.hpp"
#include "c3d_points.hpp"
#include "kinetrack/core/errors.hpp"

namespace kinetrack::io {

namespace {

using detail::C3dBytes;
using detail::C3dParameter;
using detail::C3dParameters;
using detail::C3dProcessor;

constexpr std::size_t kBlock = 512;
// Frames accepted without any data per frame (no points, no analog channels).
constexpr long long kMaxEmptyFrames = 1000000;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The fixed fields of the header block (words 2–12), in the processor's formats.
struct Header {
  long long points, analog_values, first, last, max_gap, data_start, analog_samples;
  double scale, rate;
};

Header readHeader(const C3dBytes& b) {
  Header h{};
  h.points = b.u16(2, "header: number of points");
  h.analog_values = b.u16(4, "header: analog values per frame");
  h.first = b.u16(6, "header: first frame");
  h.last = b.u16(8, "header: last frame");
  h.max_gap = b.u16(10, "header: maximum interpolation gap");
  h.scale = b.f32(12, "header: scale factor");
  h.data_start = b.u16(16, "header: data start block");
  h.analog_samples = b.u16(18, "header: analog samples per frame");
  h.rate = b.f32(20, "header: frame rate");
  return h;
}

// A count from parameter GROUP:NAME when present (warning when the header disagrees), else the
// header's value.
long long countOr(const C3dParameters& P, const char* group, const char* name, long long header_value,
                  std::vector<std::string>& warnings) {
  const C3dParameter* p = P.find(group, name);
  if (p == nullptr) return header_value;
  const long long v = P.count(*p);
  if (v != header_value)
    warnings.push_back(std::string(group) + ":" + name + " is " + std::to_string(v) + " but the header says " +
                       std::to_string(header_value) + ": the parameter is used");
  return v;
}

struct Frames {
  long long first = 1, count = 0;
};

// The frame count and first frame: TRIAL:ACTUAL_START_FIELD/END_FIELD (32-bit, for files beyond
// 65535 frames) when present, else POINT:FRAMES, else the header's last − first + 1.
Frames frameRange(const C3dBytes& b, const C3dParameters& P, const Header& h, std::vector<std::string>& warnings) {
  auto field = [&](const char* name, long long& v) {
    const C3dParameter* p = P.find("TRIAL", name);
    if (p == nullptr || p->type != 2 || p->elements < 2) return false;
    v = P.count(*p, 0) + 65536 * P.count(*p, 1);
    return true;
  };
  long long start = 0, end = 0;
  const bool trial = field("ACTUAL_START_FIELD", start) && field("ACTUAL_END_FIELD", end) && end + 1 >= start;
  const C3dParameter* pf = P.find("POINT", "FRAMES");
  const long long header_count = h.last + 1 >= h.first ? h.last - h.first + 1 : -1;
  Frames f;
  if (trial) {
    f = {start, end - start + 1};
    const long long pf_count = pf != nullptr ? P.count(*pf) : f.count % 65536;
    if (pf_count != f.count && pf_count != f.count % 65536)
      warnings.push_back("POINT:FRAMES is " + std::to_string(pf_count) +
                         " but TRIAL:ACTUAL_START_FIELD/END_FIELD give " + std::to_string(f.count) +
                         " frames: the TRIAL fields are used");
  } else if (pf != nullptr) {
    f = {h.first, P.count(*pf)};
  } else {
    if (header_count < 0)
      b.fail(8, "header: last frame " + std::to_string(h.last) + " is before the first frame " +
                    std::to_string(h.first) + " and there is no POINT:FRAMES parameter");
    f = {h.first, header_count};
  }
  if (header_count != f.count && f.count <= 65535)
    warnings.push_back("the header's frames " + std::to_string(h.first) + "–" + std::to_string(h.last) +
                       " are not the " + std::to_string(f.count) +
                       " frames of the parameters: the parameters are used");
  if (f.first + f.count - 1 > std::numeric_limits<int>::max())
    b.fail(6, "frame numbers beyond 2³¹ − 1 (first frame " + std::to_string(f.first) + ", " + std::to_string(f.count) +
                  " frames)");
  return f;
}

}  // namespace

C3dFile parseC3d(std::span<const std::uint8_t> bytes, const std::string& source, const C3dOptions& options) {
  C3dBytes b(bytes, source);
  C3dFile out;
  std::vector<std::string>& warnings = out.warnings;
  if (b.size() < kBlock)
    b.fail(0, "not a C3D file: " + std::to_string(b.size()) + " bytes, less than the 512-byte header block");
  if (const int magic = b.u8(1, "header"); magic != 0x50)
    b.fail(1, "not a C3D file: byte 1 is " + std::to_string(magic) + ", expected 80 (0x50)");

  // The parameter section: its block (header byte 0) and its 4-byte header (number of blocks,
  // processor type).
  const std::size_t parameter_block = b.u8(0, "header: parameter block");
  if (parameter_block == 0) b.fail(0, "header: the parameter section is at block 0 (blocks count from 1)");
  const std::size_t section = (parameter_block - 1) * kBlock;
  b.need(section, 4, "parameter section header (block " + std::to_string(parameter_block) + ")");
  switch (const int processor = b.u8(section + 3, "processor type")) {
    case 84: b.setProcessor(C3dProcessor::Intel), out.processor = "Intel"; break;
    case 85: b.setProcessor(C3dProcessor::Dec), out.processor = "DEC"; break;
    case 86: b.setProcessor(C3dProcessor::Mips), out.processor = "MIPS"; break;
    default:
      b.fail(section + 3, "processor type " + std::to_string(processor) + " (expected 84 Intel, 85 DEC or 86 MIPS)");
  }
  const Header h = readHeader(b);
  const std::size_t blocks = b.u8(section + 2, "number of parameter blocks");
  std::size_t section_end = section + blocks * kBlock;
  if (blocks == 0) {  // unknown: up to the data section, or the end of the file
    const std::size_t data = h.data_start > 0 ? (static_cast<std::size_t>(h.data_start) - 1) * kBlock : 0;
    section_end = data > section ? std::min(data, b.size()) : b.size();
    warnings.push_back("the parameter section header gives 0 blocks: read up to byte " + std::to_string(section_end));
  }
  if (section_end > b.size())
    b.fail(section + 2, "parameter section of " + std::to_string(blocks) + " blocks (bytes " + std::to_string(section) +
                            "–" + std::to_string(section_end) + ") runs past the end of the file (" +
                            std::to_string(b.size()) + " bytes)");
  const C3dParameters P(b, section + 4, section_end, warnings);

  // Points: count, scale (its sign gives the data format), rate, units, data start.
  const long long points = countOr(P, "POINT", "USED", h.points, warnings);
  double scale = h.scale;
  if (const C3dParameter* p = P.find("POINT", "SCALE")) {
    scale = P.number(*p);
    if (static_cast<float>(scale) != static_cast<float>(h.scale) && std::isfinite(scale))
      warnings.push_back("POINT:SCALE is " + number(scale) + " but the header says " + number(h.scale) +
                         ": the parameter is used");
  }
  if (!std::isfinite(scale) || scale == 0)
    b.fail(12, "POINT:SCALE (or the header's scale factor) is " + number(scale) + ", expected a non-zero number");
  double rate = h.rate;
  if (const C3dParameter* p = P.find("POINT", "RATE")) rate = P.number(*p);
  if (!(rate > 0) || !std::isfinite(rate))
    b.fail(20, "POINT:RATE (or the header's frame rate) is " + number(rate) + ", expected a positive number");
  const long long data_start = countOr(P, "POINT", "DATA_START", h.data_start, warnings);
  out.point_units = P.text("POINT", "UNITS");
  if (out.point_units.empty() && points > 0) {
    out.point_units = "mm";
    warnings.push_back("no POINT:UNITS: millimetres assumed");
  }
  const double metres = out.point_units.empty() ? 1e-3 : detail::unitMetres(out.point_units);
  if (metres == 0) {
    const C3dParameter* u = P.find("POINT", "UNITS");
    b.fail(u != nullptr ? u->at : 0, "POINT:UNITS '" + out.point_units + "' (expected mm, cm, dm or m)");
  }
  out.float_data = scale < 0;
  out.point_scale = scale;
  out.angle_units = P.text("POINT", "ANGLE_UNITS");
  out.force_units = P.text("POINT", "FORCE_UNITS");
  out.moment_units = P.text("POINT", "MOMENT_UNITS");
  out.power_units = P.text("POINT", "POWER_UNITS");

  // Analog data, interleaved after the points of each frame: its layout is the header's (values
  // per frame, samples per frame); ANALOG:USED and ANALOG:RATE describe it.
  const long long analog_values = h.analog_values;
  long long channels = h.analog_samples > 0 ? analog_values / h.analog_samples : 0;
  if (const C3dParameter* p = P.find("ANALOG", "USED")) channels = P.count(*p);
  long long samples = h.analog_samples;
  if (samples == 0 && channels > 0) samples = analog_values / channels;
  if (channels * samples != analog_values)
    warnings.push_back("ANALOG:USED " + std::to_string(channels) + " × " + std::to_string(samples) +
                       " samples per frame is not the header's " + std::to_string(analog_values) +
                       " analog values per frame: the header's layout is used");
  out.analog_channels = static_cast<int>(channels);
  out.analog_samples_per_frame = static_cast<int>(samples);
  out.analog_rate = rate * static_cast<double>(samples);
  if (const C3dParameter* p = P.find("ANALOG", "RATE"); p != nullptr && p->type != -1) {
    const double r = P.number(*p);
    if (r >= 0 && std::isfinite(r))
      out.analog_rate = r;
    else
      warnings.push_back("ANALOG:RATE is " + number(r) + ": point rate × samples per frame used");
  }

  // Frames and the data section.
  const Frames frames = frameRange(b, P, h, warnings);
  out.first_frame = static_cast<int>(frames.first);
  out.last_frame = static_cast<int>(frames.first + frames.count - 1);
  out.max_interpolation_gap = static_cast<int>(h.max_gap);
  const std::size_t word = out.float_data ? 4 : 2;
  const std::size_t frame_bytes =
      (static_cast<std::size_t>(points) * 4 + static_cast<std::size_t>(analog_values)) * word;
  if (data_start == 0) b.fail(16, "the data section is at block 0 (blocks count from 1)");
  const std::size_t data_at = (static_cast<std::size_t>(data_start) - 1) * kBlock;
  if (data_at < section_end && frames.count > 0 && frame_bytes > 0)
    warnings.push_back("the data section (block " + std::to_string(data_start) +
                       ") starts inside the parameter section");
  if (frame_bytes == 0) {
    if (frames.count > kMaxEmptyFrames)
      b.fail(6, std::to_string(frames.count) + " frames without points or analog data");
  } else {
    const std::size_t available = data_at > b.size() ? 0 : (b.size() - data_at) / frame_bytes;
    if (static_cast<unsigned long long>(frames.count) > available)
      b.fail(std::min(data_at, b.size()),
             "data section (block " + std::to_string(data_start) + "): expected " + std::to_string(frames.count) +
                 " frames of " + std::to_string(frame_bytes) + " bytes (" + std::to_string(points) + " points, " +
                 std::to_string(analog_values) + " analog values), the file holds " + std::to_string(available) +
                 " complete frames");
  }

  // Labels, kinds, the kept points and their names.
  out.all_point_labels = P.stringsWithContinuations("POINT", "LABELS");
  if (out.all_point_labels.size() < static_cast<std::size_t>(points))
    warnings.push_back("POINT:LABELS has " + std::to_string(out.all_point_labels.size()) + " labels for " +
                       std::to_string(points) + " points: the others are named Point<index>");
  out.all_point_labels.resize(static_cast<std::size_t>(points));
  out.point_descriptions = P.stringsWithContinuations("POINT", "DESCRIPTIONS");
  out.point_descriptions.resize(static_cast<std::size_t>(points));
  out.all_point_kinds = detail::classifyC3dPoints(P, out.all_point_labels);
  std::vector<int> kept;
  for (std::size_t i = 0; i < out.all_point_kinds.size(); ++i) {
    const C3dPointKind k = out.all_point_kinds[i];
    if (k == C3dPointKind::Marker || (k == C3dPointKind::Unlabeled && options.keep_unlabeled) ||
        (k != C3dPointKind::Marker && k != C3dPointKind::Unlabeled && options.keep_virtual_points))
      kept.push_back(static_cast<int>(i));
  }
  MarkerTrajectories& m = out.markers;
  m.source = source;
  m.data_rate = rate;
  m.names = detail::uniqueC3dNames(out.all_point_labels, kept, warnings);
  out.marker_point_index = kept;
  for (const int i : kept) out.marker_kinds.push_back(out.all_point_kinds[static_cast<std::size_t>(i)]);

  // The point data. Integer data: int16 coordinates × scale, then a residual word (int16: camera
  // mask in the high byte, residual / |scale| in the low byte; negative: the point is missing).
  // Float data: coordinates in POINT:UNITS, the fourth float converted to int16 likewise.
  const auto n = static_cast<std::size_t>(frames.count);
  m.times.resize(n);
  m.positions.resize(n * kept.size());
  out.residuals.resize(n * kept.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double abs_scale = std::abs(scale);
  long long non_finite = 0;
  for (std::size_t f = 0; f < n; ++f) {
    m.times[f] = static_cast<double>(f) / rate;
    const std::size_t frame_at = data_at + f * frame_bytes;
    for (std::size_t j = 0; j < kept.size(); ++j) {
      const std::size_t at = frame_at + static_cast<std::size_t>(kept[j]) * 4 * word;
      Vector3d p;
      int residual_word = -1;
      if (out.float_data) {
        p = Vector3d(b.f32At(at), b.f32At(at + 4), b.f32At(at + 8));
        const double r = b.f32At(at + 12);
        // As int16: truncated, then wrapped (65535.0 is −1); beyond ±2³¹ or NaN: missing.
        if (std::abs(r) < 2147483648.0)
          residual_word = static_cast<std::int16_t>(static_cast<std::uint16_t>(static_cast<std::int32_t>(r) & 0xffff));
      } else {
        p = Vector3d(b.i16At(at), b.i16At(at + 2), b.i16At(at + 4)) * scale;
        residual_word = b.i16At(at + 6);
      }
      const std::size_t k = f * kept.size() + j;
      if (residual_word >= 0 && !p.allFinite()) ++non_finite;
      if (residual_word < 0 || !p.allFinite()) {
        m.positions[k] = Vector3d::Constant(nan);
        out.residuals[k] = nan;
        continue;
      }
      const bool positional = isPositional(out.marker_kinds[j]);
      const double unit = positional ? metres : 1.0;
      p *= unit;
      m.positions[k] = positional && !options.z_up ? Vector3d(p.z(), p.x(), p.y()) : p;
      out.residuals[k] = static_cast<double>(residual_word & 0xff) * abs_scale * unit;
    }
  }
  if (non_finite > 0)
    warnings.push_back(std::to_string(non_finite) + " point samples had NaN or infinite coordinates: read as missing");

  // Analog channels (after the points of each frame, sample by sample) and the force platforms.
  detail::C3dDataLayout layout;
  layout.data_at = data_at;
  layout.frame_bytes = frame_bytes;
  layout.frames = n;
  layout.points = static_cast<std::size_t>(points);
  layout.analog_samples = static_cast<std::size_t>(samples > 0 ? samples : 0);
  layout.analog_stride = samples > 0 ? static_cast<std::size_t>(analog_values / samples) : 0;
  layout.float_data = out.float_data;
  detail::readC3dAnalog(b, P, layout, out);
  detail::readC3dForcePlates(P, metres, options.z_up, out);

  out.subjects = P.stringsWithContinuations("SUBJECTS", "NAMES");
  const std::string company = P.text("MANUFACTURER", "COMPANY"), software = P.text("MANUFACTURER", "SOFTWARE");
  out.manufacturer = company + (company.empty() || software.empty() ? "" : " ") + software;
  return out;
}

C3dFile readC3d(const std::string& path, const C3dOptions& options) {
  const std::string bytes = detail::readTextFile(path);
  return parseC3d(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), path, options);
}

MarkerTrajectories readC3dMarkers(const std::string& path, const C3dOptions& options) {
  return readC3d(path, options).markers;
}

}  // namespace kinetrack::io
