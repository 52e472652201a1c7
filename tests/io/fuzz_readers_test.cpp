// Fuzz-style robustness of every reader in kinetrack/io (issue 4): truncated and corrupted copies
// of the real fixtures (../shared/data, ../shared/models, tests/data) must either parse into a
// self-consistent result, which the downstream converters then take without crashing, or throw
// kinetrack::ParseError (InvalidArgument only where the API documents it). Another exception
// type, an inconsistent result, a crash or a sanitizer report is a failure, reported with the
// fixture, the seed and an excerpt: mutated(base, seed) reproduces the input. Run it under
// ASan/UBSan too: scripts/test.sh --sanitize, then ctest --test-dir build-asan -R Fuzz.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <typeinfo>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/bvh.hpp"
#include "kinetrack/io/mvnx.hpp"
#include "kinetrack/io/opensim.hpp"
#include "kinetrack/io/urdf.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/data.hpp"
#include "testing/shared_paths.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace kinetrack::io {
namespace {

// Mutated inputs per fixture. Debug/ASan runs the same code on fewer inputs.
#ifdef NDEBUG
constexpr int kScale = 12;
#else
constexpr int kScale = 1;
#endif

// ---- fixtures ----------------------------------------------------------------------------------

struct Fixture {
  std::string name;  ///< also the `source` given to the parser
  std::string text;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string_view> splitLines(std::string_view s) {  // each with its '\n'
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t end = s.find('\n', pos);
    end = end == std::string_view::npos ? s.size() : end + 1;
    out.push_back(s.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

bool blank(std::string_view l) {
  return std::all_of(l.begin(), l.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
}

// A BVH clip cut to its first `frames` motion rows, "Frames:" rewritten: a small valid file.
std::string shrinkBvh(const std::string& text, int frames) {
  const std::size_t count = text.find("Frames:", text.find("MOTION"));
  const std::size_t eol = text.find('\n', count);
  const std::size_t time_eol = text.find('\n', eol + 1);
  std::string out = text.substr(0, count) + "Frames: " + std::to_string(frames) +
                    (text[eol - 1] == '\r' ? "\r\n" : "\n") + text.substr(eol + 1, time_eol - eol);
  int kept = 0;
  for (std::string_view l : splitLines(std::string_view(text).substr(time_eol + 1))) {
    if (kept == frames) break;
    out += l;
    kept += blank(l) ? 0 : 1;
  }
  return out;
}

// A TRC file cut to its first `frames` data rows, NumFrames rewritten.
std::string shrinkTrc(const std::string& text, int frames) {
  const auto L = splitLines(text);
  std::string out;
  for (std::size_t i = 0; i < 5; ++i) out += L[i];
  // Line 3 holds the values of line 2's keys; NumFrames is the third.
  std::string values(L[2]);
  std::size_t b = 0;
  for (int k = 0; k < 2; ++k) b = values.find('\t', b) + 1;
  values.replace(b, values.find('\t', b) - b, std::to_string(frames));
  out.replace(L[0].size() + L[1].size(), L[2].size(), values);
  int kept = 0;
  for (std::size_t i = 5; i < L.size() && kept < frames; ++i) {
    out += L[i];
    kept += blank(L[i]) ? 0 : 1;
  }
  return out;
}

// A MOT file cut to its first `rows` rows after the column names.
std::string shrinkMot(const std::string& text, int rows) {
  std::string out;
  bool table = false;
  int kept = -1;  // the column-name line comes first
  for (std::string_view l : splitLines(text)) {
    if (table && kept == rows) break;
    out += l;
    if (table && !blank(l)) ++kept;
    if (l.substr(0, 9) == "endheader") table = true;
  }
  return out;
}

// An MVNX file cut after its first `frames` <frame> elements and closed again.
std::string shrinkMvnx(const std::string& text, int frames) {
  std::size_t pos = text.find("<frames>");
  for (int k = 0; k < frames; ++k) pos = text.find("</frame>", pos) + 8;
  return text.substr(0, pos) + "\n\t\t</frames>\n\t</subject>\n</mvnx>\n";
}

// ../shared fixtures that are present (the test skips when none is).
std::vector<Fixture> sharedFixtures(const std::vector<std::string>& relative,
                                    std::string (*shrink)(const std::string&) = nullptr) {
  std::vector<Fixture> out;
  for (const std::string& r : relative) {
    const std::string path = testing::sharedFile(r);
    if (path.empty()) continue;
    const std::string text = slurp(path);
    out.push_back({r, shrink ? shrink(text) : text});
  }
  return out;
}

// ---- mutations ---------------------------------------------------------------------------------

struct Mutated {
  std::string text;
  std::string what;    ///< the mutations applied, e.g. "number@1234 '0.5'→'nan'"
  std::size_t at = 0;  ///< byte of the last mutation, for the excerpt
};

bool numberChar(char c) { return std::isdigit(static_cast<unsigned char>(c)) || std::strchr(".+-eE", c); }

// [b, e) of the number-like token at or after `from` (wrapping around); false without digits.
bool findNumber(const std::string& s, std::size_t from, std::size_t& b, std::size_t& e) {
  for (std::size_t k = 0; k < s.size(); ++k) {
    const std::size_t i = (from + k) % s.size();
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) continue;
    b = e = i;
    while (b > 0 && numberChar(s[b - 1])) --b;
    while (e < s.size() && numberChar(s[e])) ++e;
    return true;
  }
  return false;
}

std::vector<std::size_t> lineStarts(const std::string& s) {
  std::vector<std::size_t> out{0};
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n' && i + 1 < s.size()) out.push_back(i + 1);
  return out;
}

std::string printable(std::string_view s) {
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

std::string excerpt(const std::string& s, std::size_t at) {
  const std::size_t b = std::min(s.size(), at > 60 ? at - 60 : 0);
  return "'" + printable(std::string_view(s).substr(b, 120)) + "'";
}

// clang-format off
// Replacements for a number: special values, overflow, garbage, nothing.
const char* const kNumbers[] = {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e999", "-1e999", "1e-999",
                                "1e200", "-1e200", "1e308", "1e-320", "-", "+", ".", "", "e", "1e", "--1", "0x10",
                                "1,5", "1.5.5", "0", "-0", "123456789012345678901234567890",
                                "-123456789012345678901234567890", "2147483647", "2147483648", "-2147483649",
                                "99999999", "4294967296", "9e18"};
// Bytes that are not UTF-8 (lone continuation, overlong, surrogate, beyond U+10FFFF, a UTF-16
// BOM), and a UTF-8 BOM where no BOM belongs.
const char* const kNotUtf8[] = {"\xff", "\xfe\xff", "\x80", "\xc3\x28", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                "\xef\xbb\xbf"};
// clang-format on

/// What a format's mutations aim at, beyond uniformly chosen bytes.
struct Vocabulary {
  /// Keys followed by header numbers (counts, rates, sizes) that a uniformly chosen number would
  /// rarely hit; one of the next four numbers after the key is replaced.
  std::vector<std::string> hot;
  /// Keywords of the format; one occurrence is replaced by another (a dictionary, as in AFL).
  std::vector<std::string> words;
};

bool tokenChar(char c) { return !std::isspace(static_cast<unsigned char>(c)) && !std::strchr("\"'<>=/", c); }

// [b, e) of the token (no whitespace, quotes, <>=/) at or after `from`; false without one.
bool findToken(const std::string& s, std::size_t from, std::size_t& b, std::size_t& e) {
  b = from;
  while (b < s.size() && !tokenChar(s[b])) ++b;
  if (b >= s.size()) return false;
  while (b > 0 && tokenChar(s[b - 1])) --b;
  e = b;
  while (e < s.size() && tokenChar(s[e])) ++e;
  return true;
}

// One mutation of s in place, described in m.
void mutateOnce(std::string& s, std::mt19937& rng, Mutated& m, const Vocabulary& v) {
  const std::vector<std::string>& hot = v.hot;
  auto uniform = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n)(rng); };  // [0, n]
  auto note = [&](std::size_t at, const std::string& what) {
    m.at = at;
    m.what += (m.what.empty() ? "" : "; ") + what + "@" + std::to_string(at);
  };
  const std::size_t n = s.size();
  switch (uniform(17)) {
    case 0: {  // truncation
      const std::size_t at = uniform(n);
      s.resize(at);
      note(at, "truncate");
      break;
    }
    case 1: {  // bit flips
      if (n == 0) break;
      const std::size_t at = uniform(n - 1);
      const int bit = static_cast<int>(uniform(7));
      s[at] = static_cast<char>(s[at] ^ (1 << bit));
      note(at, "flip bit " + std::to_string(bit));
      break;
    }
    case 2: {  // a random byte
      if (n == 0) break;
      const std::size_t at = uniform(n - 1);
      s[at] = static_cast<char>(uniform(255));
      note(at, "set byte " + std::to_string(static_cast<unsigned char>(s[at])));
      break;
    }
    case 3: {  // random bytes inserted
      const std::size_t at = uniform(n);
      std::string bytes(1 + uniform(7), '\0');
      for (char& c : bytes) c = static_cast<char>(uniform(255));
      s.insert(at, bytes);
      note(at, "insert '" + printable(bytes) + "'");
      break;
    }
    case 4: {  // a span deleted
      if (n == 0) break;
      const std::size_t at = uniform(n - 1), len = 1 + uniform(31);
      s.erase(at, len);
      note(at, "delete " + std::to_string(len) + " bytes");
      break;
    }
    case 5:
    case 6: {  // a number replaced: anywhere, or the first after a hot key
      std::size_t b = 0, e = 0, from = uniform(n);
      if (!hot.empty() && uniform(1)) {
        const std::string& key = hot[uniform(hot.size() - 1)];
        from = s.find(key, from);
        if (from == std::string::npos) from = s.find(key);
        if (from == std::string::npos) break;
      }
      if (!findNumber(s, from, b, e)) break;
      for (std::size_t skip = hot.empty() ? 0 : uniform(3); skip > 0; --skip) findNumber(s, e, b, e);
      const std::string by = kNumbers[uniform(std::size(kNumbers) - 1)];
      note(b, "number '" + s.substr(b, e - b) + "'→'" + by + "'");
      s.replace(b, e - b, by);
      break;
    }
    case 7: {  // a number negated or made huge
      std::size_t b = 0, e = 0;
      if (!findNumber(s, uniform(n), b, e)) break;
      if (uniform(1)) {
        s.insert(b, "-");
        note(b, "negate");
      } else {
        s.insert(e, "0000000000");
        note(b, "number ×1e10");
      }
      break;
    }
    case 8:
    case 9: {  // a line duplicated, deleted, or two lines swapped
      const auto starts = lineStarts(s);
      auto line = [&](std::size_t k) {
        const std::size_t b = starts[k], e = k + 1 < starts.size() ? starts[k + 1] : s.size();
        return std::pair{b, e};
      };
      const std::size_t k = uniform(starts.size() - 1);
      const auto [b, e] = line(k);
      const std::size_t op = uniform(2);
      if (op == 0) {
        s.insert(b, s.substr(b, e - b));
        note(b, "duplicate line " + std::to_string(k + 1));
      } else if (op == 1) {
        s.erase(b, e - b);
        note(b, "delete line " + std::to_string(k + 1));
      } else {
        // Swap with a near line most of the time (structure nearby), any line otherwise.
        std::size_t j = uniform(1) ? std::min(starts.size() - 1, k + 1 + uniform(3)) : uniform(starts.size() - 1);
        if (j == k) break;
        const auto [lo, hi] = std::minmax(k, j);
        const auto [b1, e1] = line(lo);
        const auto [b2, e2] = line(hi);
        std::string a = s.substr(b1, e1 - b1), c = s.substr(b2, e2 - b2);
        if (!a.empty() && a.back() != '\n') a += '\n';
        if (!c.empty() && c.back() != '\n') c += '\n';
        s = s.substr(0, b1) + c + s.substr(e1, b2 - e1) + a + s.substr(e2);
        note(b1, "swap lines " + std::to_string(lo + 1) + " and " + std::to_string(hi + 1));
      }
      break;
    }
    case 10: {  // NUL bytes
      const std::size_t at = uniform(n);
      s.insert(at, std::string(1 + uniform(2), '\0'));
      note(at, "insert NUL");
      break;
    }
    case 11: {  // non-UTF-8 bytes
      const std::size_t at = uniform(n);
      const std::string bytes = kNotUtf8[uniform(std::size(kNotUtf8) - 1)];
      s.insert(at, bytes);
      note(at, "insert '" + printable(bytes) + "'");
      break;
    }
    case 12: {  // line endings: LF→CRLF, CRLF→LF, LF→CR (all), or one line's LF→CRLF
      std::string out;
      out.reserve(s.size() + s.size() / 16);
      const std::size_t op = uniform(3);
      const std::size_t one = op == 3 ? s.find('\n', uniform(n)) : std::string::npos;
      if (op == 3) {
        if (one == std::string::npos) break;
        s.insert(one, "\r");
        note(one, "CR before one LF");
        break;
      }
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (op == 0 && s[i] == '\n')
          out += "\r\n";
        else if (op == 1 && s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')
          continue;
        else if (op == 2 && s[i] == '\n')
          out += '\r';
        else
          out += s[i];
      }
      s = std::move(out);
      note(0, op == 0 ? "LF→CRLF" : op == 1 ? "CRLF→LF" : "LF→CR");
      break;
    }
    case 13: {  // separators: a tab becomes a space or the reverse, or a whitespace run goes
      if (n == 0) break;
      const std::size_t at = s.find_first_of(" \t", uniform(n - 1));
      if (at == std::string::npos) break;
      const std::size_t op = uniform(2);
      if (op == 2) {
        const std::size_t e = s.find_first_not_of(" \t", at);
        s.erase(at, (e == std::string::npos ? s.size() : e) - at);
      } else {
        s[at] = op == 0 ? ' ' : '\t';
      }
      note(at, op == 2 ? "delete whitespace" : op == 0 ? "separator→space" : "separator→tab");
      break;
    }
    case 15: {  // a token replaced by another token of the file (names, types, keywords)
      std::size_t b = 0, e = 0, b2 = 0, e2 = 0;
      if (n == 0 || !findToken(s, uniform(n - 1), b, e) || !findToken(s, uniform(n - 1), b2, e2)) break;
      const std::string by = s.substr(b2, e2 - b2);
      note(b, "token '" + printable(s.substr(b, e - b)) + "'→'" + printable(by) + "'");
      s.replace(b, e - b, by);
      break;
    }
    case 16: {  // a keyword of the format replaced by another
      if (v.words.empty()) break;
      const std::string& from = v.words[uniform(v.words.size() - 1)];
      const std::string& to = v.words[uniform(v.words.size() - 1)];
      std::size_t at = s.find(from, uniform(n));
      if (at == std::string::npos) at = s.find(from);
      if (at == std::string::npos) break;
      s.replace(at, from.size(), to);
      note(at, "word '" + from + "'→'" + to + "'");
      break;
    }
    default: {  // a span copied elsewhere (structure: tags, blocks)
      if (n == 0) break;
      const std::size_t from = uniform(n - 1), len = 1 + uniform(199), to = uniform(n);
      const std::string span = s.substr(from, len);
      s.insert(to, span);
      note(to, "copy " + std::to_string(span.size()) + " bytes from " + std::to_string(from));
      break;
    }
  }
}

// One to four mutations of base, all from `seed`.
Mutated mutated(const std::string& base, std::uint32_t seed, const Vocabulary& vocabulary = {}) {
  std::mt19937 rng(seed);
  Mutated m;
  m.text = base;
  const int count =
      std::uniform_int_distribution<int>(0, 9)(rng) < 7 ? 1 : std::uniform_int_distribution<int>(2, 4)(rng);
  for (int k = 0; k < count; ++k) mutateOnce(m.text, rng, m, vocabulary);
  if (m.what.empty()) m.what = "unchanged";
  return m;
}

// ---- crash notes: a crash or sanitizer report cannot go through GoogleTest ---------------------

struct Current {
  const char* reader = "";
  const char* fixture = "";
  const char* what = "";
  std::uint32_t seed = 0;
};
Current g_current;

void writeCurrent() {
  // async-signal-safe: write(2) only.
  auto put = [](const char* s) { (void)!::write(2, s, std::strlen(s)); };
  char digits[16];
  int k = 15;
  digits[k] = '\0';
  std::uint32_t v = g_current.seed;
  do digits[--k] = static_cast<char>('0' + v % 10);
  while ((v /= 10) != 0 && k > 0);
  put("\n*** fuzz_readers_test: crashed in ");
  put(g_current.reader);
  put(" on ");
  put(g_current.fixture);
  put(", seed ");
  put(digits + k);
  put(" (");
  put(g_current.what);
  put(")\n");
}

#if defined(__SANITIZE_ADDRESS__)
// ASan handles the signals itself; it calls this before it exits.
struct CrashNote {
  CrashNote() { __sanitizer_set_death_callback(&writeCurrent); }
  ~CrashNote() { __sanitizer_set_death_callback(nullptr); }
};
#else
extern "C" void onFatalSignal(int sig) {
  writeCurrent();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}
struct CrashNote {
  static constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  void (*previous[std::size(kSignals)])(int) = {};
  CrashNote() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) previous[i] = std::signal(kSignals[i], &onFatalSignal);
  }
  ~CrashNote() {
    for (std::size_t i = 0; i < std::size(kSignals); ++i) std::signal(kSignals[i], previous[i]);
  }
};
#endif

// ---- the driver --------------------------------------------------------------------------------

/// Thrown by the checks below: the reader returned a result that breaks its own contract.
struct Inconsistent {
  std::string what;
};
void require(bool ok, const char* what) {
  if (!ok) throw Inconsistent{what};
}

struct Stats {
  const char* reader;
  int inputs = 0, parsed = 0, rejected = 0, failures = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  ~Stats() {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("[  fuzz    ] %-5s %6d inputs: %6d parsed, %6d ParseError, %d failures (%.1f s)\n", reader, inputs,
                parsed, rejected, failures, s);
  }
};

constexpr int kMaxReported = 8;

// Runs `read` (parse and check) on one input; anything but success or ParseError is a failure.
template <class Read>
void runOne(Stats& st, const Fixture& fx, const std::string& text, const std::string& what, std::size_t at,
            std::uint32_t seed, Read&& read) {
  g_current = {st.reader, fx.name.c_str(), what.c_str(), seed};
  struct Forget {  // `what` does not outlive this call
    ~Forget() { g_current.what = ""; }
  } forget;
  ++st.inputs;
  std::string failure;
  try {
    read(fx, text);
    ++st.parsed;
    return;
  } catch (const ParseError& e) {
    ++st.rejected;
    // The error names the source and a line of the input (0: not tied to a line).
    const long lines = std::count(text.begin(), text.end(), '\n') + 1;
    if (e.file() == fx.name && e.line() >= 0 && e.line() <= lines + 1 && !e.message().empty()) return;
    failure = "ParseError without a valid file/line: file '" + e.file() + "', line " + std::to_string(e.line()) +
              " of " + std::to_string(lines) + ": " + e.what();
  } catch (const Inconsistent& e) {
    failure = "inconsistent result: " + e.what;
  } catch (const std::exception& e) {
    failure = std::string("unexpected exception ") + typeid(e).name() + ": " + e.what();
  } catch (...) {
    failure = "unexpected non-std exception";
  }
  if (++st.failures <= kMaxReported)
    ADD_FAILURE() << st.reader << " on " << fx.name << ", seed " << seed << " (" << what << "): " << failure
                  << "\n  excerpt at byte " << at << ": " << excerpt(text, at);
}

struct Plan {
  int random_truncations;                  ///< at random byte offsets
  int mutations;                           ///< random mutations (1–4 stacked)
  std::size_t line_truncations_below = 0;  ///< every line boundary when the text is smaller (bytes)
  Vocabulary vocabulary = {};
  bool unchanged = true;  ///< the fixture itself too
};

// Every fixture: the unchanged text, truncations (every line boundary for small files, random
// byte offsets), then random mutations. Seeds: fixture index × 1e6 + case.
template <class Read>
void fuzz(Stats& st, const std::vector<Fixture>& fixtures, const Plan& plan, Read&& read) {
  const CrashNote crash_note;
  for (std::size_t fi = 0; fi < fixtures.size(); ++fi) {
    const Fixture& fx = fixtures[fi];
    if (plan.unchanged) runOne(st, fx, fx.text, "unchanged", 0, 0, read);
    if (fx.text.size() < plan.line_truncations_below)
      for (const std::size_t at : lineStarts(fx.text)) {
        const std::string what = "truncate at line start " + std::to_string(at);
        runOne(st, fx, fx.text.substr(0, at), what, at, 0, read);
      }
    std::mt19937 rng(static_cast<std::uint32_t>(fi + 1));
    for (int k = 0; k < plan.random_truncations; ++k) {
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, fx.text.size())(rng);
      const std::string what = "truncate at byte " + std::to_string(at);
      runOne(st, fx, fx.text.substr(0, at), what, at, 0, read);
    }
    for (int k = 0; k < plan.mutations; ++k) {
      const auto seed = static_cast<std::uint32_t>(fi * 1000000 + static_cast<std::size_t>(k));
      const Mutated m = mutated(fx.text, seed, plan.vocabulary);
      runOne(st, fx, m.text, m.what, m.at, seed, read);
    }
  }
}

// ---- contracts of the results ------------------------------------------------------------------

bool rotation(const Matrix3d& R) {
  return R.allFinite() && (R.transpose() * R - Matrix3d::Identity()).cwiseAbs().maxCoeff() < 1e-6;
}

// MotionClip: sizes agree, parents come first, times increase, valid samples are finite poses;
// `computed_velocity`: velocities by computeVelocities, never NaN where valid (absurd but finite
// input, a 1e306 m position or a 1e-320 s frame time, may overflow them to ±inf).
void checkClip(const MotionClip& c, bool computed_velocity) {
  const std::size_t n = static_cast<std::size_t>(c.numFrames()) * static_cast<std::size_t>(c.numSegments());
  require(c.segment_parent.size() == c.segment_names.size(), "clip: segment_parent size");
  for (int s = 0; s < c.numSegments(); ++s)
    require(c.segment_parent[static_cast<std::size_t>(s)] >= -1 && c.segment_parent[static_cast<std::size_t>(s)] < s,
            "clip: a parent does not come before its child");
  require(c.poses.size() == n && c.valid.size() == n, "clip: poses/valid size is not frames × segments");
  require(c.linear_velocity.size() == c.angular_velocity.size() &&
              (c.linear_velocity.empty() || c.linear_velocity.size() == n),
          "clip: velocity size");
  for (std::size_t f = 0; f < c.times.size(); ++f)
    require(std::isfinite(c.times[f]) && (f == 0 || c.times[f] > c.times[f - 1]),
            "clip: times not finite and increasing");
  for (std::size_t k = 0; k < n; ++k) {
    if (!c.valid[k]) continue;
    require(c.poses[k].p.allFinite() && rotation(c.poses[k].R), "clip: a valid pose is not finite or not a rotation");
    if (computed_velocity)
      require(!c.linear_velocity[k].hasNaN() && !c.angular_velocity[k].hasNaN(), "clip: a valid velocity is NaN");
  }
}

void checkModel(const Model& m) {
  require(m.nv() == m.nvBase() + m.numJoints() && m.numLinks() == m.numJoints() + 1, "model: sizes");
  for (int j = 0; j < m.numJoints(); ++j) {
    const JointId id(j);
    require(std::abs(m.jointAxis(id).norm() - 1.0) < 1e-9, "model: joint axis not unit");
    require(m.jointPlacement(id).p.allFinite() && rotation(m.jointPlacement(id).R), "model: joint placement");
    require(!(m.lowerPositionLimits()[j] > m.upperPositionLimits()[j]), "model: lower limit above upper");
  }
  for (int l = 0; l < m.numLinks(); ++l) {
    const Inertial& in = m.inertial(LinkId(l));
    require(std::isfinite(in.mass) && in.mass >= 0 && in.com.allFinite() && in.inertia.allFinite(), "model: inertial");
  }
  require(std::set<std::string>(m.frameNames().begin(), m.frameNames().end()).size() == m.frameNames().size(),
          "model: frame names not unique");
}

// Forward kinematics of q: finite everywhere when q is.
void checkKinematics(const Model& m, Data& d, const Configuration& q) {
  if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite()) return;
  framesForwardKinematics(m, d, q);
  for (const Transform& T : d.frame) require(T.p.allFinite() && rotation(T.R), "model: forward kinematics not finite");
}

void checkBvh(const BvhFile& f, std::uint32_t variant) {
  require(!f.joints.empty() && f.joints[0].parent == -1 && !f.joints[0].end_site, "bvh: root");
  int channels = 0;
  std::set<std::string> names;
  for (std::size_t i = 0; i < f.joints.size(); ++i) {
    const BvhJoint& j = f.joints[i];
    require(j.offset.allFinite(), "bvh: OFFSET not finite");
    if (i > 0)
      require(j.parent >= 0 && static_cast<std::size_t>(j.parent) < i &&
                  !f.joints[static_cast<std::size_t>(j.parent)].end_site,
              "bvh: parent index");
    if (j.end_site) {
      require(j.channels.empty(), "bvh: End Site with channels");
      continue;
    }
    require(names.insert(j.name).second, "bvh: duplicate joint name");
    // first_channel is only meaningful for a joint with channels.
    require((j.channels.empty() || j.first_channel == channels) && j.channels.size() <= 6, "bvh: channel layout");
    channels += static_cast<int>(j.channels.size());
  }
  require(channels == f.num_channels && f.motion.cols() == f.num_channels, "bvh: channel count");
  require(f.frame_time > 0 && std::isfinite(f.frame_time), "bvh: frame time");

  // The converters on whatever parsed: detected units (or ParseError), then explicit units.
  try {
    checkClip(bvhToClip(f), true);
  } catch (const ParseError&) {
  }
  BvhOptions o;
  o.units = BvhUnits::Centimetres;
  o.y_up = variant % 2 == 0;
  o.position_channels = static_cast<BvhPositionChannels>(variant % 3);
  const MotionClip clip = bvhToClip(f, o);
  checkClip(clip, true);
  checkClip(bvhRestPose(f, o), true);
  require(clip.numFrames() == f.motion.rows() && clip.numSegments() == static_cast<int>(names.size()),
          "bvh: clip size");
  std::optional<Model> built;
  try {
    built = modelFromBvh(f, o);
  } catch (const ParseError&) {  // generated names that collide with the file's
    return;
  }
  const Model& model = *built;
  checkModel(model);
  require(model.numJoints() == f.num_channels - static_cast<int>(f.joints[0].channels.size()), "bvh: model joints");
  const std::vector<Configuration> qs = bvhConfigurations(model, f, o);
  require(qs.size() == static_cast<std::size_t>(f.motion.rows()), "bvh: configuration count");
  Data data(model);
  for (std::size_t k = 0; k < qs.size(); ++k) {
    require(qs[k].joints.size() == model.numJoints(), "bvh: configuration size");
    if (f.motion.row(static_cast<Eigen::Index>(k)).allFinite()) {
      require(qs[k].joints.allFinite() && qs[k].base_position.allFinite() && rotation(qs[k].base_rotation),
              "bvh: configuration of a finite frame not finite");
      if (k < 2) checkKinematics(model, data, qs[k]);
    }
  }
}

void checkMvnxFrame(const MvnxFrame& fr, std::size_t ns) {
  for (const auto* v : {&fr.position, &fr.velocity, &fr.acceleration, &fr.angular_velocity, &fr.angular_acceleration})
    require(v->empty() || v->size() == ns, "mvnx: a frame field is not one value per segment");
  require(fr.orientation.empty() || fr.orientation.size() == ns, "mvnx: orientation size");
}

void checkMvnx(const MvnxFile& f) {
  require(f.frame_rate > 0 && std::isfinite(f.frame_rate), "mvnx: frame rate");
  require(!f.segments.empty(), "mvnx: no segments");
  std::set<std::string> labels;
  for (const MvnxSegment& s : f.segments) require(!s.label.empty() && labels.insert(s.label).second, "mvnx: labels");
  const std::size_t ns = f.segments.size();
  for (std::size_t k = 0; k < f.frames.size(); ++k) {
    const MvnxFrame& fr = f.frames[k];
    require(fr.type == "normal", "mvnx: a calibration frame among the frames");
    require(fr.orientation.size() == ns && fr.position.size() == ns, "mvnx: normal frame without pose");
    checkMvnxFrame(fr, ns);
    require(std::isfinite(fr.time) && (k == 0 || (fr.time > f.frames[k - 1].time && fr.index > f.frames[k - 1].index)),
            "mvnx: frame times not finite and increasing");
  }
  for (const auto& [type, fr] : f.calibration) {
    require(type == fr.type && type != "normal", "mvnx: calibration key");
    checkMvnxFrame(fr, ns);
  }
  const MotionClip clip = mvnxToClip(f);
  checkClip(clip, false);
  require(clip.numFrames() == static_cast<int>(f.frames.size()) && clip.numSegments() == static_cast<int>(ns),
          "mvnx: clip size");
  for (const auto& [type, fr] : f.calibration) {
    const MotionClip pose = mvnxCalibrationPose(f, type);
    checkClip(pose, false);
    require(pose.numFrames() == 1, "mvnx: calibration pose is not one frame");
  }
  try {  // documented: InvalidArgument for an absent type
    (void)mvnxCalibrationPose(f, "no-such-pose");
    require(false, "mvnx: an absent calibration type did not throw");
  } catch (const InvalidArgument&) {
  }
}

void checkTrc(const MarkerTrajectories& m) {
  require(m.data_rate > 0 && std::isfinite(m.data_rate), "trc: data rate");
  std::set<std::string> names;
  for (const std::string& n : m.names) require(!n.empty() && names.insert(n).second, "trc: marker names");
  require(m.positions.size() == m.times.size() * m.names.size(), "trc: positions size");
  for (std::size_t f = 0; f < m.times.size(); ++f)
    require(std::isfinite(m.times[f]) && (f == 0 || m.times[f] > m.times[f - 1]),
            "trc: times not finite and increasing");
}

bool sameValues(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    if (!(a.data()[i] == b.data()[i] || (std::isnan(a.data()[i]) && std::isnan(b.data()[i])))) return false;
  return true;
}

void checkMot(const MotTable& t, const std::string& source) {
  require(t.values.rows() == static_cast<Eigen::Index>(t.times.size()) &&
              t.values.cols() == static_cast<Eigen::Index>(t.columns.size()),
          "mot: values are not (times × columns)");
  for (std::size_t f = 0; f < t.times.size(); ++f)
    require(std::isfinite(t.times[f]) && (f == 0 || t.times[f] > t.times[f - 1]),
            "mot: times not finite and increasing");
  // Downstream: the writer's output reads back to the same table.
  MotTable r;
  try {
    r = parseMot(toMot(t), source);
  } catch (const ParseError& e) {
    throw Inconsistent{std::string("mot: toMot output does not read back: ") + e.what()};
  }
  require(
      r.columns == t.columns && r.times == t.times && r.in_degrees == t.in_degrees && sameValues(r.values, t.values),
      "mot: toMot → parseMot round trip differs");
}

bool validUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    i += n;
  }
  return true;
}

void checkUrdf(const Model& m, const std::string& source, const UrdfOptions& o) {
  checkModel(m);
  Data data(m);
  checkKinematics(m, data, Configuration(m));
  // Downstream: the writer's output loads back to the same structure. Not for names that are not
  // UTF-8: the writer escapes '<' as "&lt;", and urdfdom's TinyXML reads a broken multi-byte
  // sequence followed by '&' differently from tinyxml2 (a clean ParseError, reported as a
  // limitation, not checked here).
  for (const auto* names : {&m.linkNames(), &m.jointNames(), &m.frameNames()})
    for (const std::string& n : *names)
      if (!validUtf8(n)) return;
  for (int f = 0; f < m.numFrames(); ++f)  // fixed joints are written under these names
    if (!validUtf8(m.frameJointName(FrameId(f)))) return;
  Model r = m;
  try {
    r = parseUrdf(toUrdf(m), source, o);
  } catch (const ParseError& e) {
    throw Inconsistent{std::string("urdf: toUrdf output does not load back: ") + e.what()};
  }
  require(r.jointNames() == m.jointNames() && r.linkNames() == m.linkNames() && r.numFrames() == m.numFrames(),
          "urdf: toUrdf → parseUrdf round trip differs");
}

// The file readers (readBvh, …) on a few mutated copies written to disk: same outcome as parsing.
template <class ReadFile, class Parse>
void viaFiles(const Fixture& fx, const char* ext, ReadFile&& read_file, Parse&& parse) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kinetrack_fuzz_" + std::to_string(::getpid()) + ext)).string();
  for (std::uint32_t seed = 7; seed < 12; ++seed) {
    const Mutated m = mutated(fx.text, seed);
    std::ofstream(path, std::ios::binary) << m.text;
    bool parsed = true, read = true;
    try {
      parse(m.text, path);
    } catch (const ParseError&) {
      parsed = false;
    }
    try {
      read_file(path);
    } catch (const ParseError&) {
      read = false;
    }
    EXPECT_EQ(read, parsed) << fx.name << ", seed " << seed << " (" << m.what << ")";
  }
  std::filesystem::remove(path);
  EXPECT_THROW(read_file(path), ParseError);  // missing file
}

// ---- the tests ---------------------------------------------------------------------------------

TEST(FuzzReaders, Bvh) {
  const std::vector<std::string> files = {
      "data/bvh/xsens/xsens_test_mocap.bvh",           "data/bvh/bandai/dataset-2_raise-up-both-hands_normal_001.bvh",
      "data/bvh/cmu_cgspeed/cmu_131_01.bvh",           "data/bvh/cmu_iclone/cmu_ic_007_12.bvh",
      "data/bvh/pymo/AV_8Walk_Meredith_HVHA_Rep1.bvh", "data/bvh/reactidle/003_genuine.bvh"};
  // Every clip cut to 6 frames (a small valid file) and mutated; then the whole clips truncated.
  const std::vector<Fixture> small = sharedFixtures(files, [](const std::string& t) { return shrinkBvh(t, 6); });
  if (small.empty()) GTEST_SKIP() << "../shared/data/bvh not found";
  Stats st{"bvh"};
  std::uint32_t variant = 0;
  auto read = [&](const Fixture& fx, const std::string& text) { checkBvh(parseBvh(text, fx.name), variant++); };
  for (const Fixture& fx : small) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name << " cut to 6 frames";
  const Vocabulary words = {{"Frames:", "CHANNELS", "OFFSET"},
                            {"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation", "JOINT",
                             "End Site", "ROOT", "OFFSET", "CHANNELS", "MOTION", "{", "}", "Frame Time:", "Frames:"}};
  fuzz(st, small, {25 * kScale, 300 * kScale, 20000, words}, read);
  fuzz(st, sharedFixtures(files), {3 * kScale, 0, 0, {}, false}, read);
  viaFiles(
      small[0], ".bvh", [](const std::string& p) { readBvh(p); },
      [](const std::string& t, const std::string& p) { parseBvh(t, p); });
}

TEST(FuzzReaders, Mvnx) {
  std::vector<Fixture> fixtures = sharedFixtures({"data/mvnx/Meri-020.mvnx"});       // v3: 2 calibration + 4 frames
  const std::vector<Fixture> large = sharedFixtures({"data/mvnx/test_mocap.mvnx"});  // v4: 3 + 112
  for (const Fixture& fx : large) fixtures.push_back({fx.name, shrinkMvnx(fx.text, 5)});
  if (fixtures.empty()) GTEST_SKIP() << "../shared/data/mvnx not found";
  Stats st{"mvnx"};
  auto read = [](const Fixture& fx, const std::string& text) { checkMvnx(parseMvnx(text, fx.name)); };
  for (const Fixture& fx : fixtures) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  const Vocabulary words = {
      {"frameRate=", "index=", "<orientation>", "<position>", "<pos_", "<velocity>"},
      {"normal", "tpose", "npose", "identity", "index=", "type=", "<frame ", "</frame>", "<segment ", "</segment>",
       "label=", "orientation", "position", "velocity", "subject", "segments", "frames"}};
  fuzz(st, fixtures, {25 * kScale, 150 * kScale, 0, words}, read);
  fuzz(st, large, {3 * kScale, 0, 0, {}, false}, read);
  viaFiles(
      fixtures[0], ".mvnx", [](const std::string& p) { readMvnx(p); },
      [](const std::string& t, const std::string& p) { parseMvnx(t, p); });
}

TEST(FuzzReaders, Trc) {
  const std::vector<std::string> files = {"data/opensim/gait2354_walk/subject01_walk1.trc",
                                          "data/opensim/gait2354_walk/subject01_static.trc"};
  const std::vector<Fixture> small = sharedFixtures(files, [](const std::string& t) { return shrinkTrc(t, 6); });
  if (small.empty()) GTEST_SKIP() << "../shared/data/opensim not found";
  Stats st{"trc"};
  auto read = [](const Fixture& fx, const std::string& text) {
    checkTrc(parseTrc(text, fx.name));
    checkTrc(parseTrc(text, fx.name, TrcOptions{false}));
  };
  for (const Fixture& fx : small) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name << " cut to 6 frames";
  const Vocabulary words = {{"Units", "PathFileType"}, {"\t", "\t\t", "mm", "cm", "m", "Frame#", "Time", "X1", "\n"}};
  fuzz(st, small, {25 * kScale, 400 * kScale, 20000, words}, read);
  fuzz(st, sharedFixtures(files), {3 * kScale, 0, 0, {}, false}, read);
  viaFiles(
      small[0], ".trc", [](const std::string& p) { readTrc(p); },
      [](const std::string& t, const std::string& p) { parseTrc(t, p); });
}

TEST(FuzzReaders, Mot) {
  const std::vector<std::string> files = {"data/opensim/gait2354_walk/subject01_walk1_ik_REFERENCE.mot",
                                          "data/opensim/gait2354_walk/subject01_static_output_REFERENCE.mot",
                                          "data/opensim/opensense_imu_walk/placement_orientations.sto"};
  const std::vector<Fixture> small = sharedFixtures(files, [](const std::string& t) { return shrinkMot(t, 6); });
  if (small.empty()) GTEST_SKIP() << "../shared/data/opensim not found";
  Stats st{"mot"};
  auto read = [](const Fixture& fx, const std::string& text) { checkMot(parseMot(text, fx.name), fx.name); };
  for (const Fixture& fx : small)  // the .sto holds quaternions "w,x,y,z": not a MOT table, always rejected
    if (fx.name.ends_with(".mot")) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name << " cut to 6 rows";
  const Vocabulary words = {{"endheader", "inDegrees"},
                            {"endheader", "inDegrees=yes", "inDegrees=no", "time", "\t", "\n"}};
  fuzz(st, small, {25 * kScale, 400 * kScale, 20000, words}, read);
  fuzz(st, sharedFixtures(files), {3 * kScale, 0, 0, {}, false}, read);
  viaFiles(
      small[0], ".mot", [](const std::string& p) { readMot(p); },
      [](const std::string& t, const std::string& p) { parseMot(t, p); });
}

TEST(FuzzReaders, Urdf) {
  // The small hand-written fixtures (several deliberately broken), then real models.
  std::vector<Fixture> small;
  for (const auto& e : std::filesystem::directory_iterator(std::string(KINETRACK_TEST_DATA) + "/urdf"))
    small.push_back({e.path().filename().string(), slurp(e.path().string())});
  std::sort(small.begin(), small.end(), [](const Fixture& a, const Fixture& b) { return a.name < b.name; });
  const std::vector<Fixture> large = sharedFixtures(
      {"models/human-gazebo/humanSubject01/humanSubject01_48dof.urdf", "models/icub/iCubGazeboV2_5_model.urdf"});
  Stats st{"urdf"};
  std::uint32_t variant = 0;
  auto read = [&](const Fixture& fx, const std::string& text) {
    UrdfOptions o;
    o.base = variant++ % 2 ? BaseType::Fixed : BaseType::Floating;
    std::vector<std::string> warnings;
    checkUrdf(parseUrdf(text, fx.name, o, &warnings), fx.name, o);
  };
  for (const Fixture& fx : large) EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  for (const Fixture& fx : small)  // the other hand-written fixtures are broken on purpose
    if (fx.name == "mimic.urdf") EXPECT_NO_THROW(read(fx, fx.text)) << fx.name;
  const Vocabulary words = {{"<origin", "<axis", "<limit", "<mass", "<inertia ", "<mimic"},
                            {"revolute", "continuous", "prismatic", "fixed",  "floating", "planar",     "<link",
                             "<joint",   "</link>",    "</joint>",  "parent", "child",    "name",       "link",
                             "joint",    "<limit",     "<mimic",    "<axis",  "<origin",  "<inertial>", "</inertial>",
                             "lower",    "upper",      "velocity",  "effort", "xyz",      "rpy",        "robot"}};
  fuzz(st, small, {20 * kScale, 150 * kScale, 20000, words}, read);
  fuzz(st, large, {5 * kScale, 25 * kScale, 0, words}, read);
  viaFiles(
      small[0], ".urdf", [](const std::string& p) { loadUrdf(p); },
      [](const std::string& t, const std::string& p) { parseUrdf(t, p); });
}

// ---- regressions: the bugs the fuzzing found, one input each ----------------------------------

constexpr const char* kBvh =
    "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
    "Yrotation\n"
    "\tJOINT A\n\t{\n\t\tOFFSET 0 100 0\n\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n"
    "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 50 0\n\t\t}\n\t}\n}\n"
    "MOTION\nFrames: 2\nFrame Time: 0.01\n"
    "0 90 0 0 0 0 0 0 0\n"
    "0 90 0 0 0 0 0 0 0\n";

std::string edited(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// The ParseError's line, or −1 when `f` does not throw one.
template <class F>
int parseErrorLine(F&& f) {
  try {
    f();
  } catch (const ParseError& e) {
    return e.line();
  }
  return -1;
}

TEST(FuzzReaders, RegressionsBvh) {
  BvhOptions cm;
  cm.units = BvhUnits::Centimetres;
  // "Frames: 99999999" allocated the declared rows up front: std::bad_alloc (ASan: allocation
  // size too big) instead of the truncated-file error.
  EXPECT_EQ(parseErrorLine([&] { parseBvh(edited(kBvh, "Frames: 2", "Frames: 99999999"), "f.bvh"); }), 21);
  // A channel twice in one joint parsed, then modelFromBvh threw InvalidArgument (two model
  // joints "A_Xrotation").
  EXPECT_EQ(parseErrorLine([&] { parseBvh(edited(kBvh, "CHANNELS 3 Zrotation", "CHANNELS 3 Xrotation"), "f.bvh"); }),
            9);
  // Generated names that collide with the file's ("A_End" is A's End Site, "A_f1" an intermediate
  // link of A): modelFromBvh threw InvalidArgument.
  for (const char* name : {"A_End", "A_f1"}) {
    const std::string text =
        edited(edited(kBvh, "\t}\n}\n",
                      std::string("\t}\n\tJOINT ") + name +
                          "\n\t{\n\t\tOFFSET 0 -100 0\n\t\tCHANNELS 1 Zrotation\n"
                          "\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 -50 0\n\t\t}\n\t}\n}\n"),
               "0 90 0 0 0 0 0 0 0\n0 90 0 0 0 0 0 0 0\n", "0 90 0 0 0 0 0 0 0 0\n0 90 0 0 0 0 0 0 0 0\n");
    const BvhFile f = parseBvh(text, "f.bvh");
    EXPECT_THROW(modelFromBvh(f, cm), ParseError) << name;
  }
  // Frame Time 1e308 is finite but the third frame's time (2e308) is not.
  EXPECT_EQ(parseErrorLine([&] { parseBvh(edited(edited(kBvh, "Frames: 2", "Frames: 3"), "0.01", "1e308"), "f.bvh"); }),
            18);
  // 1e308° overflowed v·π to inf: a NaN rotation marked valid by bvhToClip, an infinite angle in
  // bvhConfigurations. Now converted as v·(π/180): finite.
  {
    const BvhFile f = parseBvh(edited(kBvh, "0 90 0 0 0 0 0 0 0\n0 90", "0 90 0 0 0 0 1e308 0 0\n0 90"), "f.bvh");
    const MotionClip clip = bvhToClip(f, cm);
    EXPECT_TRUE(clip.isValid(0, 1));
    EXPECT_TRUE(clip.pose(0, 1).R.allFinite());
    const Model model = modelFromBvh(f, cm);
    EXPECT_TRUE(bvhConfigurations(model, f, cm)[0].joints.allFinite());
  }
  // A position that overflows after scaling and accumulation (1e308 + 1e308 m) was a valid pose
  // with an infinite position: now a gap.
  {
    BvhOptions m;
    m.units = BvhUnits::Metres;
    const BvhFile f = parseBvh(edited(edited(kBvh, "OFFSET 0 0 0", "OFFSET 1e308 0 0"), "0 90 0 0 0 0 0 0 0\n0 90",
                                      "1e308 90 0 0 0 0 0 0 0\n0 90"),
                               "f.bvh");
    const MotionClip clip = bvhToClip(f, m);
    EXPECT_FALSE(clip.isValid(0, 0));
    EXPECT_FALSE(clip.isValid(0, 1));
    EXPECT_TRUE(clip.isValid(1, 0));
  }
}

constexpr const char* kMvnx =
    "<?xml version=\"1.0\"?>\n<mvnx version=\"4\">\n<subject frameRate=\"60\">\n<segments>\n"
    "<segment label=\"Pelvis\" id=\"1\"/>\n<segment label=\"Head\" id=\"2\"/>\n</segments>\n<frames>\n"
    "<frame index=\"0\" type=\"normal\">\n<orientation>1 0 0 0 1 0 0 0</orientation>\n<position>0 0 1 0 0 "
    "1.6</position>\n</frame>\n"
    "<frame index=\"1\" type=\"normal\">\n<orientation>1 0 0 0 1 0 0 0</orientation>\n<position>0 0 1 0 0 "
    "1.6</position>\n</frame>\n"
    "</frames>\n</subject>\n</mvnx>\n";

TEST(FuzzReaders, RegressionsMvnx) {
  // A quaternion with finite entries whose norm overflows (1e200): so3::fromQuaternionWxyz threw
  // InvalidArgument out of mvnxToClip. Now a gap.
  const MvnxFile f = parseMvnx(edited(kMvnx, "<orientation>1 0 0 0 1", "<orientation>1e200 0 0 0 1"), "f.mvnx");
  const MotionClip clip = mvnxToClip(f);
  EXPECT_FALSE(clip.isValid(0, 0));
  EXPECT_TRUE(clip.isValid(0, 1));
  // frameRate 1e-320 (positive, finite) made the times infinite: frame 1 (line 13) at 1e320 s.
  EXPECT_EQ(parseErrorLine([&] { parseMvnx(edited(kMvnx, "frameRate=\"60\"", "frameRate=\"1e-320\""), "f.mvnx"); }),
            13);
}

constexpr const char* kTrc =
    "PathFileType\t4\t(X/Y/Z)\tx.trc\n"
    "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\n"
    "100\t100\t2\t1\tmm\n"
    "Frame#\tTime\tA\t\t\n"
    "\t\tX1\tY1\tZ1\n"
    "\n"
    "1\t0.00\t1\t2\t3\n"
    "2\t0.01\t1\t2\t3\n";

TEST(FuzzReaders, RegressionsOpenSim) {
  // DataRate inf was accepted; NumFrames and NumMarkers went through static_cast<int> unchecked
  // (NaN or 1e30: undefined behaviour).
  for (const char* header : {"inf\t100\t2\t1\tmm", "100\t100\tnan\t1\tmm", "100\t100\t1e30\t1\tmm",
                             "100\t100\t2\t1e30\tmm", "100\t100\t2.5\t1\tmm"})
    EXPECT_EQ(parseErrorLine([&] { parseTrc(edited(kTrc, "100\t100\t2\t1\tmm", header), "f.trc"); }), 3) << header;
  // A first time of -inf (or nan) was kept: times not finite.
  EXPECT_EQ(parseErrorLine([&] { parseTrc(edited(kTrc, "1\t0.00", "1\t-inf"), "f.trc"); }), 7);
  const std::string mot = "x\nendheader\ntime\ta\n0\t1\n0.1\t2\n";
  EXPECT_EQ(parseErrorLine([&] { parseMot(edited(mot, "0\t1", "-inf\t1"), "f.mot"); }), 4);
  EXPECT_EQ(parseErrorLine([&] { parseMot(edited(mot, "0\t1", "nan\t1"), "f.mot"); }), 4);
}

constexpr const char* kUrdf =
    "<robot name=\"r\">\n"
    "  <link name=\"base\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
    "izz=\"1\"/></inertial></link>\n"
    "  <link name=\"a\"/>\n"
    "  <link name=\"b\"/>\n"
    "  <joint name=\"j1\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/><axis xyz=\"0 0 1\"/>\n"
    "    <limit lower=\"-1\" upper=\"1\" velocity=\"1\" effort=\"1\"/></joint>\n"
    "  <joint name=\"j2\" type=\"continuous\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 1 0\"/></joint>\n"
    "</robot>\n";

TEST(FuzzReaders, RegressionsUrdf) {
  EXPECT_EQ(parseUrdf(kUrdf, "f.urdf").numJoints(), 2);
  // <limit> without "upper" and lower > 0: the message appended a null attribute text (SIGSEGV).
  EXPECT_EQ(parseErrorLine([&] { parseUrdf(edited(kUrdf, "lower=\"-1\" upper=\"1\"", "lower=\"1\""), "f.urdf"); }), 6);
  // A negative mass on the root link: the builder's InvalidArgument escaped parseUrdf.
  EXPECT_GE(parseErrorLine([&] { parseUrdf(edited(kUrdf, "mass value=\"1\"", "mass value=\"-1\""), "f.urdf"); }), 0);
  // A CRLF inside a joint name: urdfdom (TinyXML 1) reads it as LF, tinyxml2 keeps it, and the
  // joint looked up by tinyxml2's name was null (SIGSEGV).
  EXPECT_GE(parseErrorLine([&] { parseUrdf(edited(kUrdf, "name=\"j2\"", "name=\"j\r\n2\""), "f.urdf"); }), 0);
  // A cycle apart from the root's tree (a → b → a under a lone root) passed the one-root check and
  // its joints were silently left out of the model.
  EXPECT_GE(parseErrorLine([&] {
              parseUrdf(edited(edited(kUrdf, "<parent link=\"base\"/><child link=\"a\"/>",
                                      "<parent link=\"b\"/><child link=\"a\"/>"),
                               "<robot name=\"r\">\n", "<robot name=\"r\">\n  <link name=\"root\"/>\n"),
                        "f.urdf");
            }),
            0);
  // A fixed child whose inertial sits at 1e200 m: merging it into its parent overflowed the
  // parent's inertia, and the model was built with an infinite inertial.
  const std::string fixed = edited(edited(kUrdf, "  <link name=\"b\"/>\n",
                                          "  <link name=\"b\"/>\n  <link name=\"c\"><inertial><mass "
                                          "value=\"1\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" "
                                          "iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>\n"),
                                   "</robot>",
                                   "  <joint name=\"j3\" type=\"fixed\"><parent link=\"base\"/><child "
                                   "link=\"c\"/><origin xyz=\"1e200 0 0\"/></joint>\n</robot>");
  EXPECT_EQ(parseErrorLine([&] { parseUrdf(fixed, "f.urdf"); }), 0);
  EXPECT_EQ(parseUrdf(edited(fixed, "1e200", "1"), "f.urdf").numJoints(), 2);
  // An axis whose norm overflows ("1e200 1 0"): the builder normalised it to zero.
  const Model m = parseUrdf(edited(kUrdf, "<axis xyz=\"0 0 1\"/>", "<axis xyz=\"1e200 1 0\"/>"), "f.urdf");
  EXPECT_LT((m.jointAxis(JointId(0)) - Vector3d::UnitX()).norm(), 1e-12);
}

}  // namespace
}  // namespace kinetrack::io
