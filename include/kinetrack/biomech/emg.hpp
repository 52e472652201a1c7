#pragma once
// EMG envelopes and muscle on/off timing from raw analog EMG (a C3D's or an .anc file's
// channels): band-pass (zero-lag Butterworth, removing movement artefact and high-frequency
// noise), full-wave rectification, a zero-lag low-pass (the linear envelope), normalisation to
// the trial's peak or to a given maximum (MVC), then on/off intervals where a faster envelope
// (50 Hz) stays above its quietest baseline by k standard deviations (Hodges and Bui 1996) and
// above a fraction of its peak (a noisy baseline alone puts the threshold in the noise) for a
// minimum time (docs/c3d.md).
#include <string>
#include <vector>

#include "kinetrack/io/capture/analog.hpp"

namespace kinetrack::biomech {

struct EmgOptions {
  double band_low_hz = 20.0;    ///< high-pass corner of the band (movement artefact below)
  double band_high_hz = 450.0;  ///< low-pass corner of the band (clamped to 0.45 × the rate)
  double envelope_hz = 6.0;     ///< the envelope's low-pass cut-off
  double onset_hz = 50.0;       ///< the cut-off of the envelope on/off timing is read from (Hodges and Bui)
  /// "peak": each envelope divided by its largest value in the trial; "none": the band-passed,
  /// rectified signal's units; "mvc": divided by `mvc` (one value per channel, same units).
  std::string normalise = "peak";
  std::vector<double> mvc;
  double baseline_seconds = 0.1;  ///< the baseline: the quietest window of this length
  double onset_sd = 3.0;          ///< on when above baseline mean + onset_sd × baseline SD
  double onset_fraction = 0.1;    ///< … and above this fraction of the onset envelope's peak …
  double min_on_seconds = 0.05;   ///< … for at least this long (shorter bursts and gaps are merged away)
};

/// One muscle's processed EMG.
struct EmgChannel {
  std::string label;
  std::vector<double> envelope;  ///< per analog sample, normalised as asked
  double peak = 0.0;             ///< largest envelope value before normalisation
  double threshold = 0.0;        ///< the on/off threshold on the onset envelope (normalised like `envelope`)
  /// Intervals [on, off) in seconds where the muscle is on.
  std::vector<std::pair<double, double>> on;
};

struct EmgEnvelopes {
  std::string source;
  double rate = 0.0;  ///< Hz, the analog rate (sample s at s / rate)
  std::vector<EmgChannel> channels;
  /// Envelope of channel c at time t (linear interpolation; clamped to the trial).
  [[nodiscard]] double at(std::size_t c, double t) const;
};

/// Processes the named channels (all when `labels` is empty). Throws InvalidArgument for an
/// unknown channel (listing the channels), band corners not 0 < low < high, a rate too low for
/// the band, an mvc list of the wrong size or with a value ≤ 0, fewer samples than 3 baseline
/// windows; a NaN sample is a ParseError naming the channel and time.
EmgEnvelopes emgEnvelopes(const io::AnalogData& analog, const std::vector<std::string>& labels,
                          const EmgOptions& options = {});

/// The envelopes as an OpenSim storage table at `rate` Hz (0: the analog rate), one column per
/// channel named by its label.
io::MotTable envelopeTable(const EmgEnvelopes& envelopes, double rate = 0.0);

}  // namespace kinetrack::biomech
