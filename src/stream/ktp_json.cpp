// The JSON form of a kinetrack input protocol message, read in place: a strict RFC 8259 scanner
// over the message bytes (UTF-8 checked, escapes and surrogate pairs decoded, numbers converted
// with std::from_chars, correctly rounded) instead of a document. A frame arrives 60–240 times a
// second, so the per-message path must not allocate; a JSON document (nlohmann-json) allocates a
// node per value and took ~39 µs for 23 segments. The test keeps nlohmann-json as the oracle.
//
// Two passes: the whole text is validated first (so a message that is not JSON is "not JSON"
// whatever its fields say), then the fields are read by name, in the order the binary form
// checks them. Nesting deeper than kMaxDepth is refused; keys and names longer than kMaxText
// bytes can match no name; a key given twice is refused (RFC 8259 leaves its meaning open).
#include <array>
#include <bitset>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

#include "ktp_internal.hpp"

namespace kinetrack::stream::detail {
namespace {

constexpr int kMaxDepth = 256;
constexpr std::size_t kMaxText = 255;

/// A decoded JSON string: the first kMaxText bytes, NUL-terminated.
struct Text {
  std::array<char, kMaxText + 1> data{};
  std::size_t size = 0;
  bool overflow = false;  ///< longer than kMaxText: equal to no name
  [[nodiscard]] bool is(std::string_view s) const {
    return !overflow && size == s.size() && std::memcmp(data.data(), s.data(), size) == 0;
  }
};

struct Number {
  double value = 0.0;
  bool integer = false;  ///< no fraction, no exponent
  bool fits = false;     ///< integer and inside long long
  long long whole = 0;
};

bool isDigit(char c) { return c >= '0' && c <= '9'; }

/// The first non-digit at or after p: eight bytes at a time while all eight are digits (a
/// number's 17 significant digits are most of a KTP message), then byte by byte.
const char* skipDigits(const char* p, const char* end) {
  while (end - p >= 8) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, 8);
    if ((((v + 0x4646464646464646ULL) | (v - 0x3030303030303030ULL)) & 0x8080808080808080ULL) != 0) break;
    p += 8;
  }
  while (p < end && isDigit(*p)) ++p;
  return p;
}

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

class Scanner {
 public:
  Scanner(const char* begin, const char* end) : begin_(begin), p_(begin), end_(end) {}

  [[nodiscard]] std::size_t offset() const { return static_cast<std::size_t>(p_ - begin_); }
  void seek(std::size_t offset) { p_ = begin_ + offset; }
  [[nodiscard]] const char* error() const { return error_ != nullptr ? error_ : "text after the value"; }
  [[nodiscard]] std::size_t errorOffset() const { return error_ != nullptr ? error_at_ : offset(); }

  // (The loops below run on local pointers: a char read may alias the member p_, which would
  // otherwise be stored back on every byte.)
  void skipBlanks() {
    const char* p = p_;
    const char* const end = end_;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) ++p;
    p_ = p;
  }
  /// The next non-blank byte, '\0' at the end.
  char next() {
    skipBlanks();
    return p_ < end_ ? *p_ : '\0';
  }
  bool eat(char c) {
    if (next() != c) return false;
    ++p_;
    return true;
  }
  bool atEnd() { return next() == '\0' && p_ == end_; }

  /// A string at the cursor, validated; decoded into `out` when it is not null.
  bool string(Text* out) {
    if (next() != '"') return bad("expected a string");
    ++p_;
    if (out != nullptr) {
      out->size = 0;
      out->overflow = false;
    }
    const auto put = [out](char c) {
      if (out == nullptr) return;
      if (out->size < kMaxText)
        out->data[out->size++] = c;
      else
        out->overflow = true;
    };
    for (;;) {
      {  // the plain ASCII run, at once
        const char* p = p_;
        const char* const end = end_;
        while (p < end) {
          const auto c = static_cast<unsigned char>(*p);
          if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
          put(static_cast<char>(c));
          ++p;
        }
        p_ = p;
      }
      if (p_ == end_) return bad("a string without its closing quote");
      const auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        break;
      }
      if (c < 0x20) return bad("a control character inside a string");
      if (c == '\\') {
        if (++p_ == end_) return bad("a string without its closing quote");
        const char e = *p_++;
        switch (e) {
          case '"': put('"'); break;
          case '\\': put('\\'); break;
          case '/': put('/'); break;
          case 'b': put('\b'); break;
          case 'f': put('\f'); break;
          case 'n': put('\n'); break;
          case 'r': put('\r'); break;
          case 't': put('\t'); break;
          case 'u': {
            std::uint32_t cp = 0;
            if (!hex4(cp)) return false;
            if (cp >= 0xDC00 && cp <= 0xDFFF) return bad("a lone low surrogate (\\uDC00-\\uDFFF)");
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              std::uint32_t low = 0;
              if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return bad("a high surrogate without its low half");
              p_ += 2;
              if (!hex4(low)) return false;
              if (low < 0xDC00 || low > 0xDFFF) return bad("a high surrogate without its low half");
              cp = 0x10000 + ((cp - 0xD800) << 10U) + (low - 0xDC00);
            }
            putUtf8(cp, put);
            break;
          }
          default: return bad("an unknown escape in a string");
        }
        continue;
      }
      if (c < 0x80) {
        put(static_cast<char>(c));
        ++p_;
        continue;
      }
      // A multi-byte UTF-8 sequence: no overlong forms, no surrogates, nothing past U+10FFFF.
      int extra = 0;
      std::uint32_t cp = 0;
      if ((c & 0xE0U) == 0xC0U) {
        extra = 1;
        cp = c & 0x1FU;
      } else if ((c & 0xF0U) == 0xE0U) {
        extra = 2;
        cp = c & 0x0FU;
      } else if ((c & 0xF8U) == 0xF0U) {
        extra = 3;
        cp = c & 0x07U;
      } else {
        return bad("invalid UTF-8 in a string");
      }
      if (end_ - p_ <= extra) return bad("invalid UTF-8 in a string");
      for (int k = 1; k <= extra; ++k) {
        const auto cc = static_cast<unsigned char>(p_[k]);
        if ((cc & 0xC0U) != 0x80U) return bad("invalid UTF-8 in a string");
        cp = (cp << 6U) | (cc & 0x3FU);
      }
      if ((extra == 1 && cp < 0x80) || (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000) || cp > 0x10FFFF ||
          (cp >= 0xD800 && cp <= 0xDFFF))
        return bad("invalid UTF-8 in a string");
      for (int k = 0; k <= extra; ++k) put(p_[k]);
      p_ += extra + 1;
    }
    if (out != nullptr) out->data[out->size] = '\0';
    return true;
  }

  /// A number at the cursor (RFC 8259 grammar); one beyond double's range is refused. Converted
  /// into `out` when `convert` (otherwise only `out.integer` is meaningful).
  bool number(Number& out, bool convert) {
    skipBlanks();
    const char* p = p_;
    const char* const end = end_;
    const auto fail = [&](const char* q, const char* why) {
      p_ = q;
      return bad(why);
    };
    const char* start = p;
    if (p < end && *p == '-') ++p;
    if (p == end || !isDigit(*p)) return fail(p, "expected a value");
    const char* int_begin = p;
    p = *p == '0' ? p + 1 : skipDigits(p, end);
    const char* int_end = p;
    out.integer = true;
    if (p < end && *p == '.') {
      ++p;
      if (p == end || !isDigit(*p)) return fail(p, "a number without digits after its decimal point");
      p = skipDigits(p, end);
      out.integer = false;
    }
    const char* frac_end = p;
    long exponent = 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
      ++p;
      bool negative = false;
      if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
      if (p == end || !isDigit(*p)) return fail(p, "a number without digits in its exponent");
      for (; p < end && isDigit(*p); ++p)
        if (exponent < 100000) exponent = exponent * 10 + (*p - '0');
      if (negative) exponent = -exponent;
      out.integer = false;
    }
    p_ = p;
    // Decimal position of the first significant digit: with the exponent, the order of magnitude.
    long magnitude = 0;
    const char* d = int_begin;
    while (d < int_end && *d == '0') ++d;
    if (d < int_end) {
      magnitude = int_end - d;
    } else {
      const char* f = int_end < frac_end ? int_end + 1 : frac_end;
      while (f < frac_end && *f == '0') ++f;
      magnitude = -(f - (int_end + 1));
    }
    // Validation alone converts only what may lie beyond double's range (~1.8e308).
    if (!convert && magnitude + exponent < 300) return true;
    const auto r = std::from_chars(start, p, out.value);
    if (r.ec == std::errc::result_out_of_range) {
      // Beyond double's range (refused, as an infinity would be) or below it (a zero).
      if (magnitude + exponent > 0) return fail(start, "a number beyond the range of a double");
      out.value = *start == '-' ? -0.0 : 0.0;
    } else if (r.ec != std::errc{} || r.ptr != p) {
      return fail(start, "an unreadable number");
    }
    out.fits = false;
    if (out.integer) {
      const auto w = std::from_chars(start, p, out.whole);
      out.fits = w.ec == std::errc{} && w.ptr == p;
    }
    return true;
  }

  /// Any value at the cursor, validated (iterative: the depth is bounded by kMaxDepth, not the stack).
  bool value() {
    std::bitset<kMaxDepth> in_object;
    int depth = 0;
    for (;;) {
      // One value; a container opens a level and its first member follows.
      bool opened = false;
      const char c = next();
      if (c == '{' || c == '[') {
        if (depth == kMaxDepth) return bad("nesting deeper than 256 levels");
        ++p_;
        in_object[static_cast<std::size_t>(depth++)] = c == '{';
        if (!eat(c == '{' ? '}' : ']')) {
          if (c == '{' && !key(nullptr)) return false;
          opened = true;
        } else {
          --depth;
        }
      } else if (!scalar(c)) {
        return false;
      }
      if (opened) continue;
      // Close the levels this value ends.
      for (;;) {
        if (depth == 0) return true;
        if (eat(',')) {
          if (in_object[static_cast<std::size_t>(depth - 1)] && !key(nullptr)) return false;
          break;
        }
        if (!eat(in_object[static_cast<std::size_t>(depth - 1)] ? '}' : ']'))
          return bad("expected ',' or the end of an object or array");
        --depth;
      }
    }
  }

  /// `"key":` at the cursor, the key decoded into `out` when it is not null.
  bool key(Text* out) {
    if (!string(out)) return false;
    return eat(':') || bad("expected ':' after a key");
  }

 private:
  bool bad(const char* why) {
    if (error_ == nullptr) {
      error_ = why;
      error_at_ = offset();
    }
    return false;
  }

  bool scalar(char c) {
    if (c == '"') return string(nullptr);
    if (c == 't') return literal("true");
    if (c == 'f') return literal("false");
    if (c == 'n') return literal("null");
    Number n;
    return number(n, false);
  }

  bool literal(std::string_view word) {
    if (static_cast<std::size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0)
      return bad("expected a value");
    p_ += word.size();
    return true;
  }

  bool hex4(std::uint32_t& cp) {
    if (end_ - p_ < 4) return bad("\\u needs four hex digits");
    cp = 0;
    for (int k = 0; k < 4; ++k) {
      const int h = hexValue(p_[k]);
      if (h < 0) return bad("\\u needs four hex digits");
      cp = (cp << 4U) | static_cast<std::uint32_t>(h);
    }
    p_ += 4;
    return true;
  }

  template <class Put>
  static void putUtf8(std::uint32_t cp, const Put& put) {
    if (cp < 0x80) {
      put(static_cast<char>(cp));
    } else if (cp < 0x800) {
      put(static_cast<char>(0xC0U | (cp >> 6U)));
      put(static_cast<char>(0x80U | (cp & 0x3FU)));
    } else if (cp < 0x10000) {
      put(static_cast<char>(0xE0U | (cp >> 12U)));
      put(static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU)));
      put(static_cast<char>(0x80U | (cp & 0x3FU)));
    } else {
      put(static_cast<char>(0xF0U | (cp >> 18U)));
      put(static_cast<char>(0x80U | ((cp >> 12U) & 0x3FU)));
      put(static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU)));
      put(static_cast<char>(0x80U | (cp & 0x3FU)));
    }
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  const char* error_ = nullptr;
  std::size_t error_at_ = 0;
};

constexpr std::size_t kAbsent = std::numeric_limits<std::size_t>::max();

/// The number at `at` (a validated text); false when the value there is not a number.
bool numberAt(Scanner& s, std::size_t at, Number& n) {
  if (at == kAbsent) return false;
  s.seek(at);
  const char c = s.next();
  return (c == '-' || isDigit(c)) && s.number(n, true);
}

/// The array of exactly N numbers at `at`; false when it is not one.
template <std::size_t N>
bool numbersAt(Scanner& s, std::size_t at, std::array<double, N>& out) {
  if (at == kAbsent) return false;
  s.seek(at);
  if (!s.eat('[')) return false;
  for (std::size_t k = 0; k < N; ++k) {
    if (k > 0 && !s.eat(',')) return false;
    const char c = s.next();
    Number n;
    if (!(c == '-' || isDigit(c)) || !s.number(n, true)) return false;
    out[k] = n.value;
  }
  return s.eat(']');
}

enum Field : std::size_t { kType, kVersion, kSeq, kTime, kSegments, kMarkers, kFields };
constexpr std::array<std::string_view, kFields> kFieldNames{"type", "version", "seq", "time", "segments", "markers"};

}  // namespace

ParseStatus parseKtpJson(std::span<const std::uint8_t> bytes, KtpKind expected, std::span<const std::string> names,
                         KtpFrame& f) {
  if (bytes.size() > kKtpMaxJson)
    return ktpFail(f, ParseStatus::Oversized, "%zu bytes of JSON: more than %zu", bytes.size(), kKtpMaxJson);
  const auto* text = reinterpret_cast<const char*>(bytes.data());
  if (const void* nul = std::memchr(text, '\0', bytes.size()); nul != nullptr)
    return ktpFail(f, ParseStatus::Malformed, "not JSON: a NUL byte at offset %td",
                   static_cast<const char*>(nul) - text);
  Scanner s(text, text + bytes.size());
  if (!s.value() || !s.atEnd())
    return ktpFail(f, ParseStatus::Malformed, "not JSON: %s at byte %zu", s.error(), s.errorOffset());

  // The top-level object's fields, located (the text is valid JSON from here on).
  s.seek(0);
  if (!s.eat('{')) return ktpFail(f, ParseStatus::Malformed, "expected a JSON object");
  std::array<std::size_t, kFields> at{}, records{};
  at.fill(kAbsent);
  Text key;
  if (!s.eat('}')) {
    do {
      s.key(&key);
      std::size_t field = 0;
      while (field < kFields && !key.is(kFieldNames[field])) ++field;
      if (field == kFields)
        return ktpFail(f, ParseStatus::Malformed, "unknown field '%.40s' (type, version, seq, time, segments|markers)",
                       key.data.data());
      if (at[field] != kAbsent) return ktpFail(f, ParseStatus::Malformed, "'%s' given twice", key.data.data());
      s.skipBlanks();
      at[field] = s.offset();
      if ((field == kSegments || field == kMarkers) && s.eat('[')) {  // records counted on the way
        if (!s.eat(']')) {
          do {
            s.value();
            ++records[field];
          } while (s.eat(','));
          s.eat(']');
        }
      } else {
        s.value();
      }
    } while (s.eat(','));
  }

  int kind = 0;
  if (at[kType] != kAbsent) {
    s.seek(at[kType]);
    if (s.next() == '"') {
      s.string(&key);
      if (key.is("poses")) kind = 1;
      if (key.is("markers")) kind = 2;
      if (kind == 0)
        return ktpFail(f, ParseStatus::Malformed, "'type' \"%.40s\": expected \"poses\" or \"markers\"",
                       key.data.data());
    }
  }
  if (kind == 0) return ktpFail(f, ParseStatus::Malformed, "'type': expected \"poses\" or \"markers\"");
  Number n;
  if (!numberAt(s, at[kVersion], n) || !n.integer)
    return ktpFail(f, ParseStatus::Malformed, "'version': expected an integer (%d)", kKtpVersion);
  if (!n.fits || n.whole != kKtpVersion)
    return ktpFail(f, ParseStatus::Unsupported, "version %.0f: this server speaks version %d", n.value, kKtpVersion);
  if (const ParseStatus st = ktpCheckKind(f, kind, expected); st != ParseStatus::Ok) return st;
  if (!numberAt(s, at[kSeq], n) || !n.fits || n.whole < 0 || n.whole > static_cast<long long>(UINT32_MAX))
    return ktpFail(f, ParseStatus::Malformed, "'seq': expected an integer in [0, 4294967295]");
  f.seq = static_cast<std::uint32_t>(n.whole);
  if (!numberAt(s, at[kTime], n) || !std::isfinite(n.value) || n.value < 0.0)
    return ktpFail(f, ParseStatus::Malformed, "'time': expected a finite number of seconds >= 0");
  f.time = n.value;
  const bool poses = f.kind == KtpKind::Poses;
  const char* items_key = ktpItemsKey(f.kind);
  if (at[poses ? kMarkers : kSegments] != kAbsent)
    return ktpFail(f, ParseStatus::Malformed, "'%s' in a %s message", poses ? "markers" : "segments", toString(f.kind));
  const std::size_t items = at[poses ? kSegments : kMarkers];
  if (items != kAbsent) s.seek(items);
  if (items == kAbsent || !s.eat('['))
    return ktpFail(f, ParseStatus::Malformed, "'%s': expected an array of records", items_key);
  const std::size_t count = records[poses ? kSegments : kMarkers];
  if (count > kKtpMaxItems)
    return ktpFail(f, ParseStatus::Malformed, "'%s': %zu records, more than %zu", items_key, count, kKtpMaxItems);

  std::bitset<kKtpMaxItems> seen;
  s.seek(items);
  s.eat('[');
  for (int i = 0; i < static_cast<int>(count); ++i) {
    if (i > 0) s.eat(',');
    if (s.next() != '{') return ktpFail(f, ParseStatus::Malformed, "%s[%d]: expected an object", items_key, i);
    s.eat('{');
    std::size_t name_at = kAbsent, p_at = kAbsent, q_at = kAbsent;
    if (!s.eat('}')) {
      do {
        s.key(&key);
        std::size_t* slot = key.is("name") ? &name_at : key.is("p") ? &p_at : key.is("q") && poses ? &q_at : nullptr;
        if (slot == nullptr)
          return ktpFail(f, ParseStatus::Malformed, "%s[%d]: unknown field '%.40s'", items_key, i, key.data.data());
        if (*slot != kAbsent)
          return ktpFail(f, ParseStatus::Malformed, "%s[%d]: '%s' given twice", items_key, i, key.data.data());
        s.skipBlanks();
        *slot = s.offset();
        s.value();
      } while (s.eat(','));
      s.eat('}');
    }
    const std::size_t after = s.offset();
    if (name_at != kAbsent) s.seek(name_at);
    if (name_at == kAbsent || s.next() != '"')
      return ktpFail(f, ParseStatus::Malformed, "%s[%d]: 'name': expected a string", items_key, i);
    s.string(&key);
    std::size_t index = 0;
    while (index < names.size() && !key.is(names[index])) ++index;
    if (index == names.size())
      return ktpFail(f, ParseStatus::Malformed, "%s[%d]: unknown name '%.40s'", items_key, i, key.data.data());
    KtpItem& it = f.items[static_cast<std::size_t>(i)];
    it.index = static_cast<int>(index);
    if (!numbersAt(s, p_at, it.p))
      return ktpFail(f, ParseStatus::Malformed, "%s[%d].p: expected [x, y, z] in m", items_key, i);
    if (poses && !numbersAt(s, q_at, it.q))
      return ktpFail(f, ParseStatus::Malformed, "%s[%d].q: expected [w, x, y, z]", items_key, i);
    if (const ParseStatus st = ktpCheckItem(f, i, names.size(), seen); st != ParseStatus::Ok) return st;
    s.seek(after);
  }
  f.count = static_cast<int>(count);
  return ParseStatus::Ok;
}

}  // namespace kinetrack::stream::detail
