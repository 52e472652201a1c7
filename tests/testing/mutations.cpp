// Fixtures, seeded mutations, crash notes and the fuzz driver of tests/testing/mutations.hpp.
#include "testing/mutations.hpp"

#include "kinetrack/model/model_builder.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <typeinfo>

#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "testing/sanitizer.hpp"
#include "testing/shared_paths.hpp"

#if KINETRACK_TEST_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

namespace kinetrack::testing {

// ---- fixtures ----------------------------------------------------------------------------------

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

std::vector<std::size_t> lineStarts(const std::string& s) {
  std::vector<std::size_t> out{0};
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n' && i + 1 < s.size()) out.push_back(i + 1);
  return out;
}

std::vector<Fixture> sharedFixtures(const std::vector<std::string>& relative,
                                    std::string (*shrink)(const std::string&)) {
  std::vector<Fixture> out;
  for (const std::string& r : relative) {
    const std::string path = sharedFile(r);
    if (path.empty()) continue;
    const std::string text = slurp(path);
    out.push_back({r, shrink ? shrink(text) : text});
  }
  return out;
}

// ---- mutations ---------------------------------------------------------------------------------

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
  std::string out = "'";  // appended, not "'" + …: GCC 12 warns falsely (-Wrestrict) on that
  out += printable(std::string_view(s).substr(b, 120));
  return out += '\'';
}

// clang-format off
namespace {

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

}  // namespace

Mutated mutated(const std::string& base, std::uint32_t seed, const Vocabulary& vocabulary) {
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

namespace {

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
  put("\n*** fuzz test: crashed in ");
  put(g_current.reader);
  put(" on ");
  put(g_current.fixture);
  put(", seed ");
  put(digits + k);
  put(" (");
  put(g_current.what);
  put(")\n");
}

#if KINETRACK_TEST_ASAN
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

}  // namespace

// ---- the driver --------------------------------------------------------------------------------

void require(bool ok, const char* what) {
  if (!ok) throw Inconsistent{what};
}

Stats::~Stats() {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[  fuzz    ] %-9s %6d inputs: %6d parsed, %6d ParseError, %d failures (%.1f s)\n", reader, inputs,
              parsed, rejected, failures, s);
}

void Stats::fail(std::string message) {
  if (++failures <= kMaxReported) reports.push_back(std::move(message));
}

namespace {

// Runs `read` (parse and check) on one input; anything but success or ParseError is a failure.
void runOne(Stats& st, const Fixture& fx, const std::string& text, const std::string& what, std::size_t at,
            std::uint32_t seed, const Read& read) {
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
  st.fail(std::string(st.reader) + " on " + fx.name + ", seed " + std::to_string(seed) + " (" + what + "): " + failure +
          "\n  excerpt at byte " + std::to_string(at) + ": " + excerpt(text, at));
}

}  // namespace

void fuzz(Stats& st, const std::vector<Fixture>& fixtures, const Plan& plan, const Read& read) {
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
      const Mutated m = plan.mutate ? plan.mutate(fx.text, seed) : mutated(fx.text, seed, plan.vocabulary);
      runOne(st, fx, m.text, m.what, m.at, seed, read);
    }
  }
}

namespace {

// "parsed", "ParseError" or what else happened.
template <class F>
std::string outcome(F&& f) {
  try {
    f();
    return "parsed";
  } catch (const ParseError&) {
    return "ParseError";
  } catch (const std::exception& e) {
    return std::string("unexpected exception ") + typeid(e).name() + ": " + e.what();
  } catch (...) {
    return "unexpected non-std exception";
  }
}

}  // namespace

void viaFiles(Stats& st, const Fixture& fx, const char* ext, const std::function<void(const std::string&)>& read_file,
              const std::function<void(const std::string&, const std::string&)>& parse) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("kinetrack_fuzz_" + std::to_string(::getpid()) + ext)).string();
  for (std::uint32_t seed = 7; seed < 12; ++seed) {
    const Mutated m = mutated(fx.text, seed);
    std::ofstream(path, std::ios::binary) << m.text;
    const std::string parsed = outcome([&] { parse(m.text, path); });
    const std::string read = outcome([&] { read_file(path); });
    if (read != parsed || (parsed != "parsed" && parsed != "ParseError"))
      st.fail(std::string(st.reader) + " via a file: " + fx.name + ", seed " + std::to_string(seed) + " (" + m.what +
              "): parse: " + parsed + "; read: " + read);
  }
  std::filesystem::remove(path);
  if (const std::string missing = outcome([&] { read_file(path); }); missing != "ParseError")
    st.fail(std::string(st.reader) + ": a missing file gave " + missing + " instead of ParseError");
}

std::string edited(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::logic_error("edited: '" + printable(from) + "' is not in the text");
  return text.replace(at, from.size(), to);
}
// ---- contracts shared by the readers' results --------------------------------------------------

bool rotation(const Matrix3d& R) {
  return R.allFinite() && (R.transpose() * R - Matrix3d::Identity()).cwiseAbs().maxCoeff() < 1e-6;
}

void checkClip(const io::MotionClip& c, bool computed_velocity) {
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

void checkKinematics(const Model& m, Data& d, const Configuration& q) {
  if (!q.joints.allFinite() || !q.base_position.allFinite() || !q.base_rotation.allFinite()) return;
  framesForwardKinematics(m, d, q);
  for (const Transform& T : d.frame) require(T.p.allFinite() && rotation(T.R), "model: forward kinematics not finite");
}

Model twoJointModel() {
  ModelBuilder b("two", "base", BaseType::Fixed);
  JointSpec j;
  j.name = "hip";
  j.parent = "base";
  j.child = "thigh";
  b.addJoint(j);
  j.name = "knee";
  j.parent = "thigh";
  j.child = "shank";
  j.type = JointType::Prismatic;
  b.addJoint(j);
  return b.build();
}

}  // namespace kinetrack::testing
