// Base64 (core/base64.hpp) against RFC 4648's test vectors, a round trip of every byte value, and
// refused characters.
#include "kinetrack/core/base64.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kinetrack {
namespace KINETRACK_UNITY_ID {

std::vector<unsigned char> bytesOf(const std::string& s) { return {s.begin(), s.end()}; }

TEST(Base64, Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(base64Encode(bytesOf(plain)), coded) << plain;
    EXPECT_EQ(base64Decode(coded).value(), bytesOf(plain)) << coded;
  }
}

TEST(Base64, EveryByteRoundTripsAndBadCharactersAreNamed) {
  std::vector<unsigned char> all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<unsigned char>(i));
  const std::string coded = base64Encode(all);
  EXPECT_EQ(base64Decode(coded).value(), all);
  EXPECT_EQ(base64Decode(coded.substr(0, 20) + "\n  " + coded.substr(20)).value(), all) << "whitespace is skipped";
  char bad = 0;
  EXPECT_FALSE(base64Decode("Zm9v*mFy", &bad).has_value());
  EXPECT_EQ(bad, '*');
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack
