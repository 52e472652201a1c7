#pragma once
// KINETRACK_TEST_ASAN is 1 in a build with AddressSanitizer, with g++ (__SANITIZE_ADDRESS__) or
// clang (__has_feature; clang 14 does not define g++'s macro), 0 otherwise: the tests that
// shorten their runs or skip allocation counts under the sanitizer read it.
#if defined(__SANITIZE_ADDRESS__)
#define KINETRACK_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KINETRACK_TEST_ASAN 1
#endif
#endif
#ifndef KINETRACK_TEST_ASAN
#define KINETRACK_TEST_ASAN 0
#endif
