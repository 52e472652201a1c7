// EMG: band-pass, rectification, linear envelope, normalisation, on/off timing.
#include "kinetrack/biomech/emg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/dynamics/trajectory.hpp"

namespace kinetrack::biomech {

namespace {

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

double EmgEnvelopes::at(std::size_t c, double t) const {
  const std::vector<double>& e = channels[c].envelope;
  if (e.empty()) return 0.0;
  const double s = std::clamp(t * rate, 0.0, static_cast<double>(e.size() - 1));
  const auto i = static_cast<std::size_t>(s);
  if (i + 1 >= e.size()) return e.back();
  const double w = s - static_cast<double>(i);
  return (1.0 - w) * e[i] + w * e[i + 1];
}

EmgEnvelopes emgEnvelopes(const io::AnalogData& analog, const std::vector<std::string>& labels, const EmgOptions& o) {
  const io::AnalogData a = labels.empty() ? analog : io::selectChannels(analog, labels);
  const double fs = a.rate;
  if (!(o.band_low_hz > 0) || !(o.band_high_hz > o.band_low_hz))
    throw InvalidArgument("EMG band " + fmt(o.band_low_hz) + "–" + fmt(o.band_high_hz) +
                          " Hz: expected 0 < low < high");
  const double high = std::min(o.band_high_hz, 0.45 * fs);
  if (!(fs > 0) || high <= o.band_low_hz || !(o.envelope_hz > 0) || o.envelope_hz >= fs / 2)
    throw InvalidArgument(a.source + ": analog rate " + fmt(fs) + " Hz is too low for the band " + fmt(o.band_low_hz) +
                          "–" + fmt(o.band_high_hz) + " Hz and the " + fmt(o.envelope_hz) + " Hz envelope");
  if (o.normalise != "peak" && o.normalise != "none" && o.normalise != "mvc")
    throw InvalidArgument("EMG normalisation '" + o.normalise + "': expected peak, none or mvc");
  if (o.normalise == "mvc" && o.mvc.size() != static_cast<std::size_t>(a.numChannels()))
    throw InvalidArgument("EMG normalisation by MVC: " + std::to_string(o.mvc.size()) + " values for " +
                          std::to_string(a.numChannels()) + " channels");
  const int n = a.numSamples();
  const auto window = static_cast<std::size_t>(std::max(1.0, std::round(o.baseline_seconds * fs)));
  if (static_cast<std::size_t>(n) < 3 * window)
    throw InvalidArgument(a.source + ": " + std::to_string(n) + " samples, fewer than 3 baseline windows of " +
                          std::to_string(window));
  EmgEnvelopes out;
  out.source = a.source;
  out.rate = fs;
  for (int c = 0; c < a.numChannels(); ++c) {
    EmgChannel ch;
    ch.label = a.labels[static_cast<std::size_t>(c)];
    std::vector<double> x(static_cast<std::size_t>(n));
    for (int s = 0; s < n; ++s) {
      x[static_cast<std::size_t>(s)] = a.value(s, c);
      if (!std::isfinite(x[static_cast<std::size_t>(s)]))
        throw ParseError(a.source, 0,
                         "EMG channel '" + ch.label + "': sample " + std::to_string(s) + " (t = " + fmt(s / fs) +
                             " s) is NaN or infinite");
    }
    highPassFilter(x, fs, o.band_low_hz);
    lowPassFilter(x, fs, high);
    for (double& v : x) v = std::abs(v);
    // Timing from a faster envelope (Hodges and Bui: 50 Hz): the display envelope's low cut-off
    // would spread each burst by tens of milliseconds.
    std::vector<double> fast = x;
    if (o.onset_hz > o.envelope_hz && o.onset_hz < fs / 2) lowPassFilter(fast, fs, o.onset_hz);
    lowPassFilter(x, fs, o.envelope_hz);
    for (double& v : x) v = std::max(v, 0.0);  // the low-pass may undershoot below zero
    ch.peak = *std::max_element(x.begin(), x.end());
    double scale = 1.0;
    if (o.normalise == "peak" && ch.peak > 0) scale = 1.0 / ch.peak;
    if (o.normalise == "mvc") {
      const double m = o.mvc[static_cast<std::size_t>(c)];
      if (!(m > 0) || !std::isfinite(m))
        throw InvalidArgument("EMG MVC of '" + ch.label + "' is " + fmt(m) + ": expected a positive number");
      scale = 1.0 / m;
    }
    for (double& v : x) v *= scale;
    for (double& v : fast) v = std::max(v, 0.0) * scale;
    // Baseline: the window of least mean.
    std::vector<double> prefix(fast.size() + 1, 0.0), prefix2(fast.size() + 1, 0.0);
    for (std::size_t s = 0; s < fast.size(); ++s)
      prefix[s + 1] = prefix[s] + fast[s], prefix2[s + 1] = prefix2[s] + fast[s] * fast[s];
    std::size_t best = 0;
    for (std::size_t s = 0; s + window <= fast.size(); ++s)
      if (prefix[s + window] - prefix[s] < prefix[best + window] - prefix[best]) best = s;
    const double w = static_cast<double>(window);
    const double mean = (prefix[best + window] - prefix[best]) / w;
    const double var = std::max(0.0, (prefix2[best + window] - prefix2[best]) / w - mean * mean);
    const double fast_peak = *std::max_element(fast.begin(), fast.end());
    ch.threshold = std::max(mean + o.onset_sd * std::sqrt(var), o.onset_fraction * fast_peak);
    // Runs above the threshold; gaps and bursts shorter than the minimum merged away.
    const auto min_len = static_cast<std::size_t>(std::max(1.0, std::round(o.min_on_seconds * fs)));
    std::vector<std::pair<std::size_t, std::size_t>> runs;
    for (std::size_t s = 0; s < fast.size();) {
      if (fast[s] <= ch.threshold) {
        ++s;
        continue;
      }
      std::size_t e = s;
      while (e < fast.size() && fast[e] > ch.threshold) ++e;
      if (!runs.empty() && s - runs.back().second < min_len)
        runs.back().second = e;
      else
        runs.emplace_back(s, e);
      s = e;
    }
    for (const auto& [s, e] : runs)
      if (e - s >= min_len) ch.on.emplace_back(static_cast<double>(s) / fs, static_cast<double>(e) / fs);
    ch.envelope = std::move(x);
    out.channels.push_back(std::move(ch));
  }
  return out;
}

io::MotTable envelopeTable(const EmgEnvelopes& e, double rate) {
  io::MotTable t;
  t.name = "emg_envelopes";
  const double r = rate > 0 ? rate : e.rate;
  const std::size_t n = e.channels.empty() ? 0 : e.channels[0].envelope.size();
  const double duration = n > 0 ? static_cast<double>(n - 1) / e.rate : 0.0;
  const auto rows = static_cast<Eigen::Index>(std::floor(duration * r + 1e-9)) + (n > 0 ? 1 : 0);
  for (const EmgChannel& c : e.channels) t.columns.push_back(c.label);
  t.times.resize(static_cast<std::size_t>(rows));
  t.values.resize(rows, static_cast<Eigen::Index>(e.channels.size()));
  for (Eigen::Index k = 0; k < rows; ++k) {
    const double time = static_cast<double>(k) / r;
    t.times[static_cast<std::size_t>(k)] = time;
    for (std::size_t c = 0; c < e.channels.size(); ++c) t.values(k, static_cast<Eigen::Index>(c)) = e.at(c, time);
  }
  return t;
}

}  // namespace kinetrack::biomech
