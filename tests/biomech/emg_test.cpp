// EMG envelopes and on/off timing: synthetic bursts on noise with a slow movement artefact (the
// bursts found within 40 ms, the artefact removed), and the Rajagopal walk's raw EMG.
#include "kinetrack/biomech/emg.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>

#include "kinetrack/core/errors.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::biomech {
namespace KINETRACK_UNITY_ID {

io::AnalogData bursts(std::uint32_t seed) {
  io::AnalogData a;
  a.source = "synthetic";
  a.rate = 2000;
  a.labels = {"TA", "Artefact"};
  a.units = {"V", "V"};
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 1.0);
  const int n = 6000;
  for (int s = 0; s < n; ++s) {
    const double t = s / a.rate;
    const bool on = (t >= 0.5 && t < 0.9) || (t >= 1.8 && t < 2.3);
    const double artefact = 0.8 * std::sin(2 * std::numbers::pi * 1.0 * t);  // 1 Hz: movement
    a.values.push_back(artefact + (on ? 0.5 : 0.01) * noise(rng));
    a.values.push_back(artefact + 0.01 * noise(rng));  // artefact only: no burst
  }
  return a;
}

TEST(Emg, BurstsAreFoundAndTheMovementArtefactRemoved) {
  const EmgEnvelopes e = emgEnvelopes(bursts(7), {});
  ASSERT_EQ(e.channels.size(), 2u);
  const EmgChannel& ta = e.channels[0];
  ASSERT_EQ(ta.on.size(), 2u);
  // The 50 Hz zero-lag onset envelope spreads a 50:1 burst by ~30 ms each side.
  EXPECT_NEAR(ta.on[0].first, 0.5, 0.04);
  EXPECT_NEAR(ta.on[0].second, 0.9, 0.04);
  EXPECT_NEAR(ta.on[1].first, 1.8, 0.04);
  EXPECT_NEAR(ta.on[1].second, 2.3, 0.04);
  EXPECT_DOUBLE_EQ(*std::max_element(ta.envelope.begin(), ta.envelope.end()), 1.0);  // peak-normalised
  // Between bursts the envelope is the noise floor (~1/50 of the burst), not the 0.8 V artefact.
  EXPECT_LT(e.at(0, 1.4), 0.1);
  EXPECT_GT(e.at(0, 0.7), 0.5);
  const EmgChannel& art = e.channels[1];
  EXPECT_LT(art.peak, 0.03) << "the 1 Hz artefact passes the band-pass";
  const io::MotTable t = envelopeTable(e, 100);
  EXPECT_EQ(t.columns, (std::vector<std::string>{"TA", "Artefact"}));
  EXPECT_EQ(t.times.size(), 300u);
  EXPECT_NEAR(t.values(70, 0), e.at(0, 0.7), 1e-12);
}

TEST(Emg, BadOptionsAreClearErrors) {
  const io::AnalogData a = bursts(1);
  EmgOptions o;
  o.band_low_hz = 500;
  EXPECT_THROW(emgEnvelopes(a, {}, o), InvalidArgument);
  o = {};
  o.normalise = "mvc";
  o.mvc = {1.0};
  try {
    emgEnvelopes(a, {}, o);
    ADD_FAILURE();
  } catch (const InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "EMG normalisation by MVC: 1 values for 2 channels");
  }
  EXPECT_THROW(emgEnvelopes(a, {"SOL"}, {}), InvalidArgument);
  io::AnalogData bad = a;
  bad.values[2 * 1000] = std::numeric_limits<double>::quiet_NaN();
  try {
    emgEnvelopes(bad, {"TA"}, {});
    ADD_FAILURE();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.message(), "EMG channel 'TA': sample 1000 (t = 0.5 s) is NaN or infinite");
  }
}

TEST(Emg, TheRajagopalWalksMusclesSwitchOnAndOff) {
  KINETRACK_REQUIRE_SHARED(path, "data/opensim/rajagopal_run_walk/emg_walk_raw.anc");
  const io::AnalogData a = io::readAnc(path);
  const std::vector<std::string> muscles = {"SOL", "GAS", "TA", "MH", "BF", "VL", "VM", "RF", "GMAX", "GMED"};
  const EmgEnvelopes e = emgEnvelopes(a, muscles);
  ASSERT_EQ(e.channels.size(), 10u);
  for (const EmgChannel& c : e.channels) {
    EXPECT_FALSE(c.on.empty()) << c.label;
    double on_time = 0;
    for (const auto& [b, f] : c.on) on_time += f - b;
    // A 2.4 s walk: each muscle is on for part of it, never all of it.
    EXPECT_GT(on_time, 0.05) << c.label;
    EXPECT_LT(on_time, 0.9 * a.numSamples() / a.rate) << c.label;
  }
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::biomech
