// The KTP JSON reader (src/stream/ktp_json.cpp, an in-place scanner) against an independent
// reader written here on a nlohmann-json document: the same verdict (Ok or the same fault class)
// on valid messages and on tens of thousands of mutants built from JSON's own alphabet, and
// exactly the same decoded frame when both accept. Also: the JSON grammar's corners (escapes,
// surrogates, UTF-8, numbers at double's limits), a key given twice, and no allocation per
// message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "kinetrack/stream/ktp.hpp"
#include "testing/alloc_guard.hpp"

namespace kinetrack::stream {
namespace KINETRACK_UNITY_ID {

const std::vector<std::string> kNames{"Pelvis", "L5", "L3", "T12", "T8", "Mé\xC3\xA9", "A\"B"};

std::span<const std::uint8_t> bytesOf(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

/// The oracle: the documented rules applied to a nlohmann-json document. Returns the status
/// only (reasons are worded differently).
ParseStatus oracle(const std::string& text, KtpKind expected, KtpFrame& f) {
  f.count = 0;
  if (text.size() > kKtpMaxJson) return ParseStatus::Oversized;
  if (text.find('\0') != std::string::npos) return ParseStatus::Malformed;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return ParseStatus::Malformed;
  for (const auto& [key, value] : j.items())
    if (key != "type" && key != "version" && key != "seq" && key != "time" && key != "segments" && key != "markers")
      return ParseStatus::Malformed;
  const auto type = j.find("type");
  if (type == j.end() || !type->is_string()) return ParseStatus::Malformed;
  const std::string t = type->get<std::string>();
  if (t != "poses" && t != "markers") return ParseStatus::Malformed;
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer()) return ParseStatus::Malformed;
  if (version->get<long long>() != kKtpVersion) return ParseStatus::Unsupported;
  const KtpKind kind = t == "poses" ? KtpKind::Poses : KtpKind::Markers;
  if (kind != expected) return ParseStatus::Unsupported;
  const auto seq = j.find("seq");
  if (seq == j.end() || !seq->is_number_integer() || seq->get<long long>() < 0 || seq->get<long long>() > 4294967295LL)
    return ParseStatus::Malformed;
  const auto time = j.find("time");
  if (time == j.end() || !time->is_number() || !std::isfinite(time->get<double>()) || time->get<double>() < 0.0)
    return ParseStatus::Malformed;
  const bool poses = kind == KtpKind::Poses;
  if (j.contains(poses ? "markers" : "segments")) return ParseStatus::Malformed;
  const auto items = j.find(poses ? "segments" : "markers");
  if (items == j.end() || !items->is_array() || items->size() > kKtpMaxItems) return ParseStatus::Malformed;
  std::vector<bool> seen(kNames.size(), false);
  int i = 0;
  const auto numbers = [](const nlohmann::json& a, auto& out) {
    if (!a.is_array() || a.size() != out.size()) return false;
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (!a[k].is_number()) return false;
      out[k] = a[k].get<double>();
    }
    return true;
  };
  for (const auto& r : *items) {
    if (!r.is_object()) return ParseStatus::Malformed;
    for (const auto& [k, v] : r.items())
      if (k != "name" && k != "p" && (k != "q" || !poses)) return ParseStatus::Malformed;
    if (!r.contains("name") || !r["name"].is_string()) return ParseStatus::Malformed;
    const auto at = std::find(kNames.begin(), kNames.end(), r["name"].get<std::string>());
    if (at == kNames.end()) return ParseStatus::Malformed;
    KtpItem& it = f.items[static_cast<std::size_t>(i)];
    it.index = static_cast<int>(at - kNames.begin());
    if (!r.contains("p") || !numbers(r["p"], it.p)) return ParseStatus::Malformed;
    if (poses && (!r.contains("q") || !numbers(r["q"], it.q))) return ParseStatus::Malformed;
    if (seen[static_cast<std::size_t>(it.index)]) return ParseStatus::Malformed;
    seen[static_cast<std::size_t>(it.index)] = true;
    double n2 = 0.0;
    for (double v : it.p)
      if (!std::isfinite(v)) return ParseStatus::Malformed;
    if (poses) {
      for (double v : it.q) n2 += v * v;
      if (!std::isfinite(n2) || std::abs(n2 - 1.0) > 1e-3) return ParseStatus::Malformed;
    }
    ++i;
  }
  f.seq = static_cast<std::uint32_t>(seq->get<long long>());
  f.time = time->get<double>();
  f.count = i;
  return ParseStatus::Ok;
}

std::string message(bool poses) {
  std::string s = std::string(R"({"type":")") + (poses ? "poses" : "markers") +
                  R"(","version":1,"seq":42,"time":1.25e-1,")" + (poses ? "segments" : "markers") + R"(":[)";
  for (int i = 0; i < 3; ++i) {
    s += i > 0 ? "," : "";
    s += R"({"name":")" +
         std::string(i == 2   ? "L3"
                     : i == 1 ? "T8"
                              : "Pelvis") +
         R"(","p":[0.5,-1.25e0,)" + std::to_string(i) + "]";
    if (poses) s += R"(,"q":[0.6,0,0.8,-0])";
    s += "}";
  }
  return s + "]}";
}

/// Both decoded frames are the same, doubles exactly (compared with ==: the document reader reads
/// the integer "-0" as +0, this reader as the double -0; equal values, different bits).
void expectSameFrame(const KtpFrame& a, const KtpFrame& b, const std::string& text) {
  ASSERT_EQ(a.count, b.count) << text;
  EXPECT_EQ(a.seq, b.seq) << text;
  EXPECT_EQ(a.time, b.time) << text;
  for (int i = 0; i < a.count; ++i) {
    const KtpItem& x = a.items[static_cast<std::size_t>(i)];
    const KtpItem& y = b.items[static_cast<std::size_t>(i)];
    EXPECT_EQ(x.index, y.index) << text;
    EXPECT_EQ(x.p, y.p) << text;
    if (a.kind == KtpKind::Poses) {
      EXPECT_EQ(x.q, y.q) << text;
    }
  }
}

TEST(KtpJson, AgreesWithADocumentReaderOnMutantsOfValidMessages) {
  std::mt19937 rng(2026);
  const std::string alphabet = "{}[]\",:0123456789.-+eE \t\ntruefalsnul\\/u\xC3\xA9\x80\xFF";
  const std::vector<std::string> words{R"("type")", R"("poses")", R"("markers")", R"("seq")",   R"("time")",
                                       R"("name")", R"("p")",     R"("q")",       R"("L5")",    R"("Head")",
                                       "1e999",     "1e-999",     "-0",           "null",       "[]",
                                       "{}",        "4294967296", "1.0",          R"("\u00e9")"};
  auto a = std::make_unique<KtpFrame>();
  auto b = std::make_unique<KtpFrame>();
  int agreed = 0, accepted = 0, twice = 0;
  const int trials = 40000;
  for (int trial = 0; trial < trials; ++trial) {
    const bool poses = trial % 3 != 0;
    std::string text = message(poses);
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % (text.size() + 1);
      switch (rng() % 4) {
        case 0:  // replace a byte
          if (at < text.size()) text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:  // insert a byte
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
        case 2:  // delete a few bytes
          text.erase(at, 1 + rng() % 3);
          break;
        default:  // insert a JSON word
          text.insert(at, words[rng() % words.size()]);
      }
    }
    const KtpKind kind = poses ? KtpKind::Poses : KtpKind::Markers;
    const ParseStatus got = parseKtp(bytesOf(text), kind, kNames, *a);
    if (got == ParseStatus::Malformed && std::strstr(a->errorText(), "given twice") != nullptr &&
        std::strstr(a->errorText(), "index") == nullptr) {
      ++twice;  // a key given twice: refused here, the last one wins in the document
      continue;
    }
    const ParseStatus want = oracle(text, kind, *b);
    EXPECT_EQ(got, want) << "text: " << text << "\nreason: " << a->errorText();
    if (got == want) ++agreed;
    if (got == ParseStatus::Ok && want == ParseStatus::Ok) {
      ++accepted;
      expectSameFrame(*a, *b, text);
    }
  }
  EXPECT_EQ(agreed + twice, trials);
  EXPECT_GT(accepted, 1000);  // enough mutants stay valid to compare the decoded values
  EXPECT_LT(twice, trials / 20);
  std::printf("KTP JSON vs document reader: %d of %d mutants agreed (%d accepted by both), %d with a key twice\n",
              agreed, trials, accepted, twice);
}

TEST(KtpJson, GrammarCorners) {
  auto f = std::make_unique<KtpFrame>();
  const auto parse = [&](const std::string& text) { return parseKtp(bytesOf(text), KtpKind::Markers, kNames, *f); };
  const auto with = [](const std::string& name, const std::string& p) {
    return R"({"type":"markers","version":1,"seq":1,"time":0,"markers":[{"name":)" + name + R"(,"p":)" + p + "}]}";
  };
  // Escapes: \u00e9 and the two-byte UTF-8 é are the same name; \" inside a name; \/ = /.
  EXPECT_EQ(parse(with(R"("M\u00e9\u00E9")", "[1,2,3]")), ParseStatus::Ok) << f->errorText();
  EXPECT_EQ(f->items[0].index, 5);
  EXPECT_EQ(parse(with("\"M\xC3\xA9\xC3\xA9\"", "[1,2,3]")), ParseStatus::Ok) << f->errorText();
  EXPECT_EQ(parse(with(R"("A\"B")", "[1,2,3]")), ParseStatus::Ok) << f->errorText();
  EXPECT_EQ(f->items[0].index, 6);
  EXPECT_EQ(parse(with(R"("\u0050elvis")", "[1,2,3]")), ParseStatus::Ok) << f->errorText();
  // A surrogate pair decodes; a lone half, an overlong or truncated UTF-8 sequence are not JSON.
  EXPECT_EQ(parse(with(R"("\ud83d\ude00")", "[1,2,3]")), ParseStatus::Malformed);
  EXPECT_NE(std::string(f->errorText()).find("unknown name"), std::string::npos) << f->errorText();
  for (const std::string bad : {R"("\ud83d")", R"("\ude00")", "\"\xC0\xAF\"", "\"\xE2\x82\"", "\"\xED\xA0\x80\"",
                                "\"\xF4\x90\x80\x80\"", R"("\x")", R"("\u12")", "\"a\tb\""}) {
    EXPECT_EQ(parse(with(bad, "[1,2,3]")), ParseStatus::Malformed) << bad;
    EXPECT_NE(std::string(f->errorText()).find("not JSON"), std::string::npos) << bad << " → " << f->errorText();
  }
  // Numbers: the grammar is strict; below double's range is zero, beyond it is refused.
  EXPECT_EQ(parse(with(R"("L5")", "[1e-400,-0.0,2.5E+2]")), ParseStatus::Ok) << f->errorText();
  EXPECT_EQ(f->items[0].p[0], 0.0);
  EXPECT_TRUE(std::signbit(f->items[0].p[1]));
  EXPECT_EQ(f->items[0].p[2], 250.0);
  EXPECT_EQ(parse(with(R"("L5")", "[0.1,0.2,0.30000000000000004]")), ParseStatus::Ok);
  EXPECT_EQ(f->items[0].p[2], 0.1 + 0.2);  // correctly rounded
  for (const std::string bad : {"[01,2,3]", "[1.,2,3]", "[.5,2,3]", "[+1,2,3]", "[1e,2,3]", "[NaN,2,3]",
                                "[Infinity,2,3]", "[1,2,3,]", "[1 2 3]", "[0x10,2,3]", "[1e309,2,3]", "[-1e309,2,3]"}) {
    EXPECT_EQ(parse(with(R"("L5")", bad)), ParseStatus::Malformed) << bad;
    EXPECT_NE(std::string(f->errorText()).find("not JSON"), std::string::npos) << bad << " → " << f->errorText();
  }
  // A key given twice is refused (at the top level and in a record), naming the key.
  EXPECT_EQ(parse(R"({"type":"markers","version":1,"seq":1,"seq":2,"time":0,"markers":[]})"), ParseStatus::Malformed);
  EXPECT_NE(std::string(f->errorText()).find("'seq' given twice"), std::string::npos) << f->errorText();
  EXPECT_EQ(parse(with(R"("L5","name":"T8")", "[1,2,3]")), ParseStatus::Malformed);
  EXPECT_NE(std::string(f->errorText()).find("markers[0]: 'name' given twice"), std::string::npos) << f->errorText();
  // Nesting: 256 levels of an unknown field's value still scan; 257 are refused, not a stack overflow.
  const auto nested = [](int depth) {
    return R"({"type":"markers","x":)" + std::string(static_cast<std::size_t>(depth), '[') +
           std::string(static_cast<std::size_t>(depth), ']') + "}";
  };
  EXPECT_EQ(parse(nested(255)), ParseStatus::Malformed);
  EXPECT_NE(std::string(f->errorText()).find("unknown field 'x'"), std::string::npos) << f->errorText();
  EXPECT_EQ(parse(nested(20000)), ParseStatus::Malformed);
  EXPECT_NE(std::string(f->errorText()).find("nesting deeper than 256"), std::string::npos) << f->errorText();
  // The reason names where the text stops being JSON.
  EXPECT_EQ(parse(R"({"type":"markers",})"), ParseStatus::Malformed);
  EXPECT_NE(std::string(f->errorText()).find("at byte 18"), std::string::npos) << f->errorText();
}

TEST(KtpJson, ParsingDoesNotAllocate) {
  std::vector<std::string> texts{message(true), message(false)};
  texts.push_back(texts[0].substr(0, 40));                                                           // not JSON
  texts.push_back(R"({"type":"poses","version":1,"seq":1,"time":0,"segments":[{"name":"Head"}]})");  // unknown name
  std::string many = R"({"type":"poses","version":1,"seq":1,"time":0,"segments":[)";
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    std::string name = nlohmann::json(kNames[i]).dump();
    many += (i > 0 ? "," : "") + std::string(R"({"name":)") + name + R"(,"p":[1,2,3],"q":[1,0,0,0]})";
  }
  texts.push_back(many + "]}");
  auto f = std::make_unique<KtpFrame>();
  std::vector<ParseStatus> status(texts.size());
  long allocations = 0;
  {
    const testing::AllocationCounter guard;
    for (int round = 0; round < 100; ++round)
      for (std::size_t k = 0; k < texts.size(); ++k)
        status[k] = parseKtp(bytesOf(texts[k]), k == 1 ? KtpKind::Markers : KtpKind::Poses, kNames, *f);
    allocations = guard.count();
  }
  EXPECT_EQ(allocations, 0);
  EXPECT_EQ(status[0], ParseStatus::Ok);
  EXPECT_EQ(status[1], ParseStatus::Ok);
  EXPECT_EQ(status[2], ParseStatus::Malformed);
  EXPECT_EQ(status[3], ParseStatus::Malformed);
  EXPECT_EQ(status[4], ParseStatus::Ok);
  EXPECT_EQ(f->count, static_cast<int>(kNames.size()));
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::stream
