// Analog channels: lookup, the OpenSim table, and Motion Analysis .anc files.
#include "kinetrack/io/capture/analog.hpp"

#include <cctype>
#include <cmath>

#include "../table/text_util.hpp"
#include "kinetrack/core/errors.hpp"

namespace kinetrack::io {

namespace {

bool sameIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

}  // namespace

int AnalogData::channel(std::string_view label) const {
  for (std::size_t c = 0; c < labels.size(); ++c)
    if (labels[c] == label) return static_cast<int>(c);
  for (std::size_t c = 0; c < labels.size(); ++c)
    if (sameIgnoringCase(labels[c], label)) return static_cast<int>(c);
  return -1;
}

MotTable analogTable(const AnalogData& analog) {
  MotTable t;
  t.name = "analog";
  t.columns = analog.labels;
  const int n = analog.numSamples(), m = analog.numChannels();
  t.times.resize(static_cast<std::size_t>(n));
  t.values.resize(n, m);
  for (int s = 0; s < n; ++s) {
    t.times[static_cast<std::size_t>(s)] = static_cast<double>(s) / analog.rate;
    for (int c = 0; c < m; ++c) t.values(s, c) = analog.value(s, c);
  }
  return t;
}

AnalogData selectChannels(const AnalogData& analog, const std::vector<std::string>& labels) {
  std::vector<int> index;
  for (const std::string& l : labels) {
    const int c = analog.channel(l);
    if (c < 0) {
      std::string have;
      for (const std::string& h : analog.labels) have += (have.empty() ? "" : ", ") + h;
      throw InvalidArgument(analog.source + ": no analog channel '" + l + "' (channels: " + have + ")");
    }
    index.push_back(c);
  }
  AnalogData out;
  out.source = analog.source;
  out.rate = analog.rate;
  for (const int c : index) {
    const auto k = static_cast<std::size_t>(c);
    out.labels.push_back(analog.labels[k]);
    out.units.push_back(k < analog.units.size() ? analog.units[k] : "");
    out.descriptions.push_back(k < analog.descriptions.size() ? analog.descriptions[k] : "");
  }
  const int n = analog.numSamples();
  out.values.resize(static_cast<std::size_t>(n) * index.size());
  for (int s = 0; s < n; ++s)
    for (std::size_t j = 0; j < index.size(); ++j)
      out.values[static_cast<std::size_t>(s) * index.size() + j] = analog.value(s, index[j]);
  return out;
}

AnalogData parseAnc(const std::string& text, const std::string& source) {
  AnalogData out;
  out.source = source;
  std::vector<std::string_view> f;
  std::size_t pos = 0;
  int line_number = 0;
  std::string_view line;
  int bits = 16;
  bool bipolar = true;
  double precise_rate = 0;
  std::vector<double> rates, ranges;
  int range_line = 0;
  auto fail = [&](const std::string& m) -> void { throw ParseError(source, line_number, m); };
  // Header: "Key:<tab>value" pairs, then the Name, Rate and Range rows.
  while (detail::nextDataLine(text, pos, line_number, line)) {
    detail::splitOn(line, '\t', f);
    while (!f.empty() && detail::trim(f.back()).empty()) f.pop_back();
    if (f.empty()) continue;
    const std::string_view key = detail::trim(f[0]);
    for (std::size_t i = 0; i + 1 < f.size(); ++i) {
      const std::string_view k = detail::trim(f[i]), v = detail::trim(f[i + 1]);
      double x = 0;
      if (k == "BitDepth:") {
        if (!detail::parseNumber(v, x) || x < 1 || x > 32 || x != std::floor(x))
          fail("BitDepth: '" + std::string(v) + "' is not a bit count (1–32)");
        bits = static_cast<int>(x);
      } else if (k == "PreciseRate:") {
        if (!detail::parseNumber(v, x) || !(x > 0))
          fail("PreciseRate: '" + std::string(v) + "' is not a positive rate");
        precise_rate = x;
      } else if (k == "Polarity:") {
        bipolar = v != "Unipolar";
      }
    }
    if (key == "Name") {
      for (std::size_t i = 1; i < f.size(); ++i) out.labels.emplace_back(detail::trim(f[i]));
    } else if (key == "Rate" || key == "Range") {
      std::vector<double>& dst = key == "Rate" ? rates : ranges;
      if (key == "Range") range_line = line_number;
      for (std::size_t i = 1; i < f.size(); ++i) {
        double x = 0;
        const std::string label = i - 1 < out.labels.size() ? out.labels[i - 1] : std::to_string(i);
        if (!detail::parseNumber(detail::trim(f[i]), x) || !(x > 0))
          fail(std::string(key) + " of channel '" + label + "': '" + std::string(detail::trim(f[i])) +
               "' is not a positive number");
        dst.push_back(x);
      }
      if (key == "Range") break;
    }
  }
  if (out.labels.empty()) throw ParseError(source, 0, "no 'Name' row: not a Motion Analysis .anc file");
  if (ranges.size() != out.labels.size())
    throw ParseError(source, range_line,
                     "the Range row has " + std::to_string(ranges.size()) + " values for " +
                         std::to_string(out.labels.size()) + " channels");
  if (rates.size() != out.labels.size())
    throw ParseError(source, range_line,
                     "the Rate row has " + std::to_string(rates.size()) + " values for " +
                         std::to_string(out.labels.size()) + " channels");
  out.rate = precise_rate > 0 ? precise_rate : rates[0];
  for (std::size_t c = 0; c < rates.size(); ++c)
    if (std::abs(rates[c] - out.rate) > 1e-6 * out.rate)
      throw ParseError(source, range_line,
                       "channel '" + out.labels[c] + "' is sampled at " + std::to_string(rates[c]) +
                           " Hz, the file at " + std::to_string(out.rate) +
                           " Hz: channels at other rates are not read");
  const std::size_t m = out.labels.size();
  out.units.assign(m, "V");
  out.descriptions.assign(m, "");
  const double full = std::ldexp(1.0, bipolar ? bits - 1 : bits);
  std::vector<double> volts(m);
  for (std::size_t c = 0; c < m; ++c) volts[c] = ranges[c] * 1e-3 / full;
  double last_time = -1e300;
  while (detail::nextDataLine(text, pos, line_number, line)) {
    detail::splitOn(line, '\t', f);
    while (!f.empty() && detail::trim(f.back()).empty()) f.pop_back();
    if (f.empty()) continue;
    if (f.size() != m + 1)
      fail("expected a time and " + std::to_string(m) + " values, found " + std::to_string(f.size()) + " fields");
    double t = 0;
    if (!detail::parseNumber(detail::trim(f[0]), t) || !std::isfinite(t))
      fail("time: '" + std::string(detail::trim(f[0])) + "' is not a number");
    if (t <= last_time) fail("time " + std::string(detail::trim(f[0])) + " does not increase");
    last_time = t;
    for (std::size_t c = 0; c < m; ++c) {
      double v = 0;
      if (!detail::parseNumber(detail::trim(f[c + 1]), v))
        fail("channel '" + out.labels[c] + "': '" + std::string(detail::trim(f[c + 1])) + "' is not a number");
      out.values.push_back(v * volts[c]);
    }
  }
  if (out.values.empty()) throw ParseError(source, line_number, "no samples after the Range row");
  return out;
}

AnalogData readAnc(const std::string& path) { return parseAnc(detail::readTextFile(path), path); }

}  // namespace kinetrack::io
