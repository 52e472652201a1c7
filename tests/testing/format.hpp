#pragma once
// Numbers for GoogleTest's RecordProperty and test logs.
#include <cstdio>
#include <string>

namespace kinetrack::testing {

/// Three significant digits, readable when tiny ("3.2e-10").
inline std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

}  // namespace kinetrack::testing
