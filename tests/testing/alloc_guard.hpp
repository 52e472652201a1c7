#pragma once
// Counts heap allocations made on the current thread while an AllocationCounter is alive:
// every global operator new, and in non-sanitized glibc builds also malloc/calloc/realloc/
// aligned allocations (Eigen allocates through malloc). Under AddressSanitizer only operator
// new is counted (the sanitizer owns malloc); countsMalloc() tells which.
namespace kinetrack::testing {

class AllocationCounter {
 public:
  AllocationCounter();
  ~AllocationCounter();
  AllocationCounter(const AllocationCounter&) = delete;
  AllocationCounter& operator=(const AllocationCounter&) = delete;
  [[nodiscard]] long count() const;
  [[nodiscard]] static bool countsMalloc();
};

}  // namespace kinetrack::testing
