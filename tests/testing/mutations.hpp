#pragma once
// Fuzz-style robustness tests of the file readers (tests/io/fuzz_*_test.cpp): small fixtures cut
// from real files, seeded mutations of them, and a driver that runs a reader on every mutated
// input. An input must either parse into a self-consistent result (the test's `read` checks it
// and throws Inconsistent otherwise) or throw kinetrack::ParseError naming the fixture and a line
// of the input; any other outcome is a failure, reported with the fixture, the seed and an
// excerpt (mutated(base, seed, vocabulary) reproduces the input). A crash or a sanitizer report
// cannot go through GoogleTest: a note naming the reader, fixture, seed and mutation is written
// to stderr first. No GoogleTest here; a test reports through KINETRACK_EXPECT_FUZZ_CLEAN.
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/types.hpp"
#include "kinetrack/io/capture/motion_clip.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::testing {

/// Multiplier of the mutated inputs per fixture: Debug/ASan runs the same code on fewer inputs.
#ifdef NDEBUG
inline constexpr int kScale = 12;
#else
inline constexpr int kScale = 1;
#endif

// ---- fixtures ----------------------------------------------------------------------------------

struct Fixture {
  std::string name;  ///< also the `source` given to the parser
  std::string text;
};

/// The whole file (binary), "" when it cannot be read.
std::string slurp(const std::string& path);
/// The lines of `s`, each with its '\n' (the last one may lack it).
std::vector<std::string_view> splitLines(std::string_view s);
/// True when `line` is only whitespace.
bool blank(std::string_view line);
/// Byte offsets of the line starts of `s` (0 first; none after a final '\n').
std::vector<std::size_t> lineStarts(const std::string& s);

/// The ../shared files (paths relative to ../shared) that are present, optionally shrunk; a test
/// skips when none is.
std::vector<Fixture> sharedFixtures(const std::vector<std::string>& relative,
                                    std::string (*shrink)(const std::string&) = nullptr);

// ---- mutations ---------------------------------------------------------------------------------

/// What a format's mutations aim at, beyond uniformly chosen bytes.
struct Vocabulary {
  /// Keys followed by header numbers (counts, rates, sizes) that a uniformly chosen number would
  /// rarely hit; one of the next four numbers after the key is replaced.
  std::vector<std::string> hot;
  /// Keywords of the format; one occurrence is replaced by another (a dictionary, as in AFL).
  std::vector<std::string> words;
};

struct Mutated {
  std::string text;
  std::string what;    ///< the mutations applied, e.g. "number@1234 '0.5'→'nan'"
  std::size_t at = 0;  ///< byte of the last mutation, for the excerpt
};

/// One to four mutations of `base`, all from `seed`: truncation, bit flips, random bytes, a span
/// deleted or copied, a number replaced (special values, overflow, garbage) or negated or made
/// huge, line edits (duplicate, delete, swap), NUL and non-UTF-8 bytes, line-ending and
/// separator changes, a token or a vocabulary word replaced by another.
Mutated mutated(const std::string& base, std::uint32_t seed, const Vocabulary& vocabulary = {});

/// `s` with \n, \r, \t and non-printable bytes escaped (\xNN).
std::string printable(std::string_view s);
/// Up to 120 bytes of `s` around byte `at`, printable and quoted.
std::string excerpt(const std::string& s, std::size_t at);

// ---- the driver --------------------------------------------------------------------------------

/// Thrown by a test's checks: the reader returned a result that breaks its own contract.
struct Inconsistent {
  std::string what;
};
/// Throws Inconsistent{what} unless `ok`.
void require(bool ok, const char* what);

/// Outcomes of one reader's inputs; a summary line is printed when it is destroyed.
struct Stats {
  static constexpr int kMaxReported = 8;  ///< failures reported in full
  explicit Stats(const char* reader_name) : reader(reader_name) {}
  Stats(const Stats&) = delete;
  Stats& operator=(const Stats&) = delete;
  ~Stats();
  /// Counts a failure; keeps its message when it is among the first kMaxReported.
  void fail(std::string message);

  const char* reader;
  int inputs = 0, parsed = 0, rejected = 0, failures = 0;
  std::vector<std::string> reports;  ///< the first kMaxReported failure messages
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

struct Plan {
  int random_truncations;                  ///< at random byte offsets
  int mutations;                           ///< random mutations (1–4 stacked)
  std::size_t line_truncations_below = 0;  ///< every line boundary when the text is smaller (bytes)
  Vocabulary vocabulary = {};
  bool unchanged = true;  ///< the fixture itself too
  /// Mutations of a binary format (C3D): replaces mutated(base, seed, vocabulary) when set.
  std::function<Mutated(const std::string& base, std::uint32_t seed)> mutate = nullptr;
};

/// Parses `text` as the content of `fixture` and checks the result (throws Inconsistent).
using Read = std::function<void(const Fixture& fixture, const std::string& text)>;

/// Every fixture: the unchanged text, truncations (every line boundary for small files, random
/// byte offsets; generator seeded with fixture index + 1), then `plan.mutations` mutated copies
/// (seeds fixture index × 1e6 + case). Anything but success or a ParseError naming the fixture
/// and a line of the input (0 … lines + 1) is recorded in `st`.
void fuzz(Stats& st, const std::vector<Fixture>& fixtures, const Plan& plan, const Read& read);

/// The file reader (readBvh, …) on five mutated copies (seeds 7–11) of `fixture` written to a
/// temporary file with extension `ext`: the same outcome as `parse` on the text; then on a
/// missing file: ParseError. Differences are recorded in `st`.
void viaFiles(Stats& st, const Fixture& fixture, const char* ext,
              const std::function<void(const std::string& path)>& read_file,
              const std::function<void(const std::string& text, const std::string& path)>& parse);

/// In a GoogleTest body: one failure per recorded report of `stats` and one for the count.
#define KINETRACK_EXPECT_FUZZ_CLEAN(stats)                                                             \
  do {                                                                                                 \
    for (const std::string& kinetrack_report_ : (stats).reports) ADD_FAILURE() << kinetrack_report_;   \
    EXPECT_EQ((stats).failures, 0) << (stats).reader << ": inputs that broke the contract (the first " \
                                   << ::kinetrack::testing::Stats::kMaxReported << " above)";          \
  } while (false)

// ---- contracts shared by the readers' results --------------------------------------------------

/// Finite and orthonormal within 1e-6.
bool rotation(const Matrix3d& R);

/// MotionClip: sizes agree, parents come first, times increase, valid samples are finite poses;
/// `computed_velocity`: velocities by computeVelocities, never NaN where valid (absurd but finite
/// input, a 1e306 m position or a 1e-320 s frame time, may overflow them to ±inf).
void checkClip(const io::MotionClip& c, bool computed_velocity);

/// Model: sizes, unit axes, finite placements and inertials, ordered limits, unique frame names.
void checkModel(const Model& m);

/// Forward kinematics of q: finite everywhere when q is.
void checkKinematics(const Model& m, Data& d, const Configuration& q);

// ---- regression cases --------------------------------------------------------------------------

/// `text` with the first occurrence of `from` replaced by `to`; throws std::logic_error when
/// `from` does not occur (a regression input that no longer applies).
std::string edited(std::string text, const std::string& from, const std::string& to);

/// The ParseError's line, or −1 when `f` does not throw one.
template <class F>
int parseErrorLine(F&& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e.line();
  }
  return -1;
}

/// A fixed-base model with a revolute hip and a prismatic knee, for hand-written joint files.
Model twoJointModel();

}  // namespace kinetrack::testing
