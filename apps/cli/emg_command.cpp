// `kinetrack emg envelope`: raw EMG (a C3D's analog channels or an .anc file) → envelopes (.sto)
// and each muscle's on/off intervals.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "kinetrack/app/emg_job.hpp"

namespace kinetrack::cli {

void addEmgCommand(CLI::App& app, Action& action) {
  CLI::App* emg = app.add_subcommand("emg", "EMG: envelopes and muscle on/off timing");
  emg->require_subcommand(1);
  struct Config {
    app::EmgJobOptions job;
    bool quiet = false;
  };
  auto cfg = std::make_shared<Config>();
  CLI::App* env = emg->add_subcommand(
      "envelope", "band-pass, rectify, low-pass, normalise; on/off where the envelope stays above its baseline");
  env->add_option("input", cfg->job.input, "C3D or Motion Analysis .anc file")->required();
  env->add_option("--channels", cfg->job.channels, "EMG channel labels (e.g. SOL,GAS,TA)")->delimiter(',')->required();
  env->add_option("--out", cfg->job.out, "envelopes as an .sto (one column per muscle)");
  env->add_option("--rate", cfg->job.rate, "rate of the written envelopes (Hz; 0: the analog rate)")
      ->capture_default_str();
  env->add_option("--band-low", cfg->job.emg.band_low_hz, "band-pass high-pass corner (Hz)")->capture_default_str();
  env->add_option("--band-high", cfg->job.emg.band_high_hz, "band-pass low-pass corner (Hz)")->capture_default_str();
  env->add_option("--envelope", cfg->job.emg.envelope_hz, "envelope low-pass cut-off (Hz)")->capture_default_str();
  env->add_option("--normalise", cfg->job.emg.normalise, "peak (each muscle's trial peak) or none")
      ->check(CLI::IsMember({"peak", "none"}))
      ->capture_default_str();
  env->add_option("--onset-sd", cfg->job.emg.onset_sd, "on above baseline mean + this many SD")->capture_default_str();
  env->add_flag("--quiet", cfg->quiet, "no progress notes");
  env->callback([&action, cfg] {
    action = [cfg] {
      const app::EmgJobResult r = app::runEmg(cfg->job, cliReporter(!cfg->quiet));
      out("{}", r.text);
      if (!cfg->job.out.empty()) out("wrote {}\n", cfg->job.out);
      return kExitOk;
    };
  });
}

}  // namespace kinetrack::cli
