#pragma once
// `kinetrack emg envelope` as a job: raw EMG from a C3D's analog channels or a Motion Analysis
// .anc file → band-passed, rectified, low-passed, normalised envelopes (an .sto at a chosen rate)
// and each muscle's on/off intervals (biomech/emg.hpp).
#include <string>
#include <vector>

#include "kinetrack/app/job.hpp"
#include "kinetrack/biomech/emg.hpp"

namespace kinetrack::app {

struct EmgJobOptions {
  std::string input;                  ///< .c3d or .anc
  std::vector<std::string> channels;  ///< EMG channel labels (required: analog files hold plates too)
  std::string out;                    ///< envelopes .sto ("" not written)
  double rate = 100.0;                ///< Hz of the written envelopes (0: the analog rate)
  biomech::EmgOptions emg;
};

struct EmgJobResult {
  biomech::EmgEnvelopes envelopes;
  std::string text;  ///< the summary table: muscle, peak, threshold, on fraction, on intervals
};

/// Reads, processes and writes. Throws ParseError for a bad file, InvalidArgument for no or
/// unknown channels and bad options (biomech::emgEnvelopes).
EmgJobResult runEmg(const EmgJobOptions& options, const Reporter& reporter = {});

/// The analog channels of a .c3d or an .anc file (by extension).
io::AnalogData readAnalogFile(const std::string& path);

}  // namespace kinetrack::app
