// Heap-allocation counting for tests (see alloc_guard.hpp). Linking this object replaces the
// global operator new/delete (and, in non-sanitized glibc builds, malloc & co.) of the whole
// executable with forwarding versions that count while a guard is armed on the thread.
#include "testing/alloc_guard.hpp"

#include <cerrno>
#include <cstdlib>
#include <new>

#include "testing/sanitizer.hpp"

#if !KINETRACK_TEST_ASAN && defined(__GLIBC__) && defined(__linux__)
#define KINETRACK_TEST_COUNT_MALLOC 1
#endif

namespace {
// Plain thread_local PODs in the executable: static TLS, no allocation on first access.
thread_local bool g_armed = false;
thread_local long g_count = 0;
inline void noteAllocation() {
  if (g_armed) ++g_count;
}

void* countedNew(std::size_t n) {
  noteAllocation();
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void* countedAlignedNew(std::size_t n, std::align_val_t al) {
  noteAllocation();
  const std::size_t a = static_cast<std::size_t>(al);
  const std::size_t size = ((n ? n : 1) + a - 1) / a * a;
  if (void* p = std::aligned_alloc(a, size)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return countedNew(n); }
void* operator new[](std::size_t n) { return countedNew(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  noteAllocation();
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  noteAllocation();
  return std::malloc(n ? n : 1);
}
void* operator new(std::size_t n, std::align_val_t al) { return countedAlignedNew(n, al); }
void* operator new[](std::size_t n, std::align_val_t al) { return countedAlignedNew(n, al); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

#ifdef KINETRACK_TEST_COUNT_MALLOC
// glibc exports its allocator under __libc_* names, so replacing malloc & co. in the executable
// and forwarding keeps every pointer in one allocator (free() of any of them is valid).
extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);

void* malloc(std::size_t n) {
  noteAllocation();
  return __libc_malloc(n);
}
void* calloc(std::size_t a, std::size_t b) {
  noteAllocation();
  return __libc_calloc(a, b);
}
void* realloc(void* p, std::size_t n) {
  noteAllocation();
  return __libc_realloc(p, n);
}
void free(void* p) { __libc_free(p); }
void* memalign(std::size_t a, std::size_t n) {
  noteAllocation();
  return __libc_memalign(a, n);
}
void* aligned_alloc(std::size_t a, std::size_t n) {
  noteAllocation();
  return __libc_memalign(a, n);
}
int posix_memalign(void** out, std::size_t a, std::size_t n) {
  noteAllocation();
  void* p = __libc_memalign(a, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
}
#endif

namespace kinetrack::testing {

AllocationCounter::AllocationCounter() {
  g_count = 0;
  g_armed = true;
}
AllocationCounter::~AllocationCounter() { g_armed = false; }
long AllocationCounter::count() const { return g_count; }
bool AllocationCounter::countsMalloc() {
#ifdef KINETRACK_TEST_COUNT_MALLOC
  return true;
#else
  return false;
#endif
}

}  // namespace kinetrack::testing
