// C3D analog channels and force-platform parameters.
#include "c3d_analog.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace kinetrack::io::detail {

namespace {

// The numbers of GROUP:NAME followed by those of NAME2, NAME3, … (channels beyond 255).
std::vector<double> numbersWithContinuations(const C3dParameters& P, const char* group, const char* name) {
  std::vector<double> out;
  const C3dParameter* p = P.find(group, name);
  for (int k = 2; p != nullptr && p->type != -1; ++k) {
    for (std::size_t i = 0; i < p->elements; ++i) out.push_back(P.number(*p, i));
    p = P.find(group, std::string(name) + std::to_string(k));
  }
  return out;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void readC3dAnalog(const C3dBytes& b, const C3dParameters& P, const C3dDataLayout& layout, C3dFile& out) {
  AnalogData& a = out.analog;
  a.source = b.source();
  a.rate = out.analog_rate;
  const std::size_t stride = layout.analog_stride;
  std::size_t channels = static_cast<std::size_t>(std::max(out.analog_channels, 0));
  if (channels > stride) {
    out.warnings.push_back("ANALOG:USED is " + std::to_string(channels) + " but each analog sample holds " +
                           std::to_string(stride) + " values: " + std::to_string(stride) + " channels read");
    channels = stride;
  }
  if (channels == 0 || layout.analog_samples == 0) return;

  std::vector<std::string> raw = P.stringsWithContinuations("ANALOG", "LABELS");
  raw.resize(channels);
  // Unique names: trimmed, without a "SUBJECT:" prefix; an empty label becomes "Channel<n>", a
  // repeated one "<label>_2", "_3", … (Vicon names every plate's channels alike).
  std::vector<std::string> names;
  for (std::size_t c = 0; c < channels; ++c) {
    std::string base = raw[c].empty() ? "Channel" + std::to_string(c + 1) : raw[c];
    std::string name = base;
    for (int k = 2; std::find(names.begin(), names.end(), name) != names.end(); ++k)
      name = base + "_" + std::to_string(k);
    names.push_back(name);
  }
  a.labels = std::move(names);
  a.units = P.stringsWithContinuations("ANALOG", "UNITS");
  a.units.resize(channels);
  a.descriptions = P.stringsWithContinuations("ANALOG", "DESCRIPTIONS");
  a.descriptions.resize(channels);

  const bool unsigned_format = upper(P.text("ANALOG", "FORMAT")) == "UNSIGNED";
  std::vector<double> scale = numbersWithContinuations(P, "ANALOG", "SCALE");
  if (scale.size() < channels) {
    out.warnings.push_back("ANALOG:SCALE has " + std::to_string(scale.size()) + " values for " +
                           std::to_string(channels) + " channels: 1 used for the others");
    scale.resize(channels, 1.0);
  }
  std::vector<double> offset = numbersWithContinuations(P, "ANALOG", "OFFSET");
  if (offset.size() < channels) offset.resize(channels, 0.0);
  if (unsigned_format)
    for (double& o : offset)
      if (o < 0) o += 65536.0;  // int16 parameters hold unsigned offsets
  double general = 1.0;
  if (const C3dParameter* p = P.find("ANALOG", "GEN_SCALE"); p != nullptr && p->type != -1) general = P.number(*p);
  if (!std::isfinite(general) || general == 0) {
    out.warnings.push_back("ANALOG:GEN_SCALE is not a non-zero number: 1 used");
    general = 1.0;
  }
  for (std::size_t c = 0; c < channels; ++c)
    if (!std::isfinite(scale[c])) {
      out.warnings.push_back("ANALOG:SCALE of channel " + std::to_string(c + 1) + " (" + a.labels[c] +
                             ") is not finite: 1 used");
      scale[c] = 1.0;
    }

  const std::size_t word = layout.float_data ? 4 : 2;
  const std::size_t samples = layout.frames * layout.analog_samples;
  a.values.resize(samples * channels);
  long long non_finite = 0;
  for (std::size_t f = 0; f < layout.frames; ++f) {
    const std::size_t at0 = layout.data_at + f * layout.frame_bytes + layout.points * 4 * word;
    for (std::size_t s = 0; s < layout.analog_samples; ++s) {
      const std::size_t row = f * layout.analog_samples + s;
      for (std::size_t c = 0; c < channels; ++c) {
        const std::size_t at = at0 + (s * stride + c) * word;
        double raw_value;
        if (layout.float_data)
          raw_value = b.f32At(at);
        else
          raw_value = unsigned_format ? static_cast<double>(b.u16At(at)) : static_cast<double>(b.i16At(at));
        double v = (raw_value - offset[c]) * scale[c] * general;
        if (!std::isfinite(v)) {
          ++non_finite;
          v = std::numeric_limits<double>::quiet_NaN();
        }
        a.values[row * channels + c] = v;
      }
    }
  }
  if (non_finite > 0)
    out.warnings.push_back(std::to_string(non_finite) + " analog samples are NaN or infinite: kept as NaN (gaps)");
}

void readC3dForcePlates(const C3dParameters& P, double metres, bool z_up, C3dFile& out) {
  const C3dParameter* used = P.find("FORCE_PLATFORM", "USED");
  if (used == nullptr) return;
  const auto n = static_cast<std::size_t>(P.count(*used));
  if (n == 0) return;
  auto lab = [&](const Vector3d& p) { return z_up ? p : Vector3d(p.z(), p.x(), p.y()); };
  const C3dParameter* type = P.find("FORCE_PLATFORM", "TYPE");
  const C3dParameter* channel = P.find("FORCE_PLATFORM", "CHANNEL");
  const C3dParameter* corners = P.find("FORCE_PLATFORM", "CORNERS");
  const C3dParameter* origin = P.find("FORCE_PLATFORM", "ORIGIN");
  const C3dParameter* cal = P.find("FORCE_PLATFORM", "CAL_MATRIX");
  auto missing = [&](const char* what) {
    out.warnings.push_back(std::string("FORCE_PLATFORM:USED is ") + std::to_string(n) + " but FORCE_PLATFORM:" + what +
                           " is absent or too short");
  };
  const auto channel_rows =
      channel != nullptr && !channel->dims.empty() ? static_cast<std::size_t>(channel->dims[0]) : 0;
  for (std::size_t i = 0; i < n; ++i) {
    C3dForcePlate plate;
    if (type != nullptr && type->type != -1 && i < type->elements)
      plate.type = static_cast<int>(P.number(*type, i));
    else if (i == 0)
      missing("TYPE");
    if (channel != nullptr && channel->type != -1 && channel_rows > 0 && (i + 1) * channel_rows <= channel->elements) {
      for (std::size_t k = 0; k < channel_rows; ++k) {
        const int number = static_cast<int>(P.number(*channel, i * channel_rows + k));
        plate.channel_numbers.push_back(number);
        plate.channels.push_back(number >= 1 && number <= out.analog.numChannels() ? number - 1 : -1);
      }
    } else if (i == 0) {
      missing("CHANNEL");
    }
    if (corners != nullptr && corners->type != -1 && (i + 1) * 12 <= corners->elements) {
      for (std::size_t k = 0; k < 4; ++k) {
        Vector3d c;
        for (std::size_t d = 0; d < 3; ++d) c[static_cast<int>(d)] = P.number(*corners, i * 12 + k * 3 + d) * metres;
        plate.corners[k] = lab(c);
      }
    } else {
      const double nan = std::numeric_limits<double>::quiet_NaN();
      plate.corners.fill(Vector3d::Constant(nan));
      if (i == 0) missing("CORNERS");
    }
    if (origin != nullptr && origin->type != -1 && (i + 1) * 3 <= origin->elements)
      for (std::size_t d = 0; d < 3; ++d) plate.origin[static_cast<int>(d)] = P.number(*origin, i * 3 + d) * metres;
    else if (i == 0)
      missing("ORIGIN");
    if (cal != nullptr && cal->type != -1 && cal->dims.size() >= 2) {
      const auto rows = static_cast<std::size_t>(cal->dims[0]), cols = static_cast<std::size_t>(cal->dims[1]);
      if ((i + 1) * rows * cols <= cal->elements && rows > 0 && cols > 0) {
        plate.calibration.resize(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
        // Stored column by column (the first dimension varies fastest).
        for (std::size_t c = 0; c < cols; ++c)
          for (std::size_t r = 0; r < rows; ++r)
            plate.calibration(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) =
                P.number(*cal, i * rows * cols + c * rows + r);
      }
    }
    out.force_plates.push_back(std::move(plate));
  }
  if (const C3dParameter* zero = P.find("FORCE_PLATFORM", "ZERO");
      zero != nullptr && zero->type != -1 && zero->elements >= 2)
    out.force_plate_zero = {static_cast<int>(P.count(*zero, 0)), static_cast<int>(P.count(*zero, 1))};
}

}  // namespace kinetrack::io::detail
