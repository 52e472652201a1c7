// `kinetrack emg envelope`: EMG envelopes and on/off timing.
#include "kinetrack/app/emg_job.hpp"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>

#include "kinetrack/app/c3d_job.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/c3d.hpp"

namespace kinetrack::app {

io::AnalogData readAnalogFile(const std::string& path) {
  if (isC3dPath(path)) return io::readC3d(path).analog;
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".anc") return io::readAnc(path);
  throw InvalidArgument(path + ": analog data are read from .c3d or .anc files");
}

EmgJobResult runEmg(const EmgJobOptions& o, const Reporter& reporter) {
  if (o.channels.empty()) throw InvalidArgument("name the EMG channels (--channels SOL,GAS,…)");
  if (!(o.rate >= 0)) throw InvalidArgument("envelope rate " + std::to_string(o.rate) + " Hz: expected ≥ 0");
  reporter.say(fmt::format("reading {}\n", o.input));
  const io::AnalogData a = readAnalogFile(o.input);
  EmgJobResult r;
  r.envelopes = biomech::emgEnvelopes(a, o.channels, o.emg);
  const double duration = a.numSamples() > 0 ? (a.numSamples() - 1) / a.rate : 0.0;
  std::vector<std::vector<std::string>> rows{{"muscle", "peak", "threshold", "on (%)", "on intervals (s)"}};
  for (const biomech::EmgChannel& c : r.envelopes.channels) {
    double on = 0;
    std::string list;
    for (std::size_t k = 0; k < c.on.size(); ++k) {
      on += c.on[k].second - c.on[k].first;
      if (k < 6) list += fmt::format("{}{:.3f}–{:.3f}", list.empty() ? "" : ", ", c.on[k].first, c.on[k].second);
    }
    if (c.on.size() > 6) list += fmt::format(", … ({} in all)", c.on.size());
    rows.push_back({c.label, fmt::format("{:.4g}", c.peak), fmt::format("{:.3f}", c.threshold),
                    fmt::format("{:.0f}", duration > 0 ? 100.0 * on / duration : 0.0), list.empty() ? "-" : list});
  }
  r.text = fmt::format(
               "{}: {} EMG channels at {:g} Hz, {:.3f} s; band {:g}–{:g} Hz, envelope {:g} Hz, normalised "
               "{}\n",
               std::filesystem::path(o.input).filename().string(), r.envelopes.channels.size(), a.rate, duration,
               o.emg.band_low_hz, o.emg.band_high_hz, o.emg.envelope_hz, o.emg.normalise) +
           textTable(rows);
  if (!o.out.empty()) io::writeMot(biomech::envelopeTable(r.envelopes, o.rate), o.out);
  return r;
}

}  // namespace kinetrack::app
