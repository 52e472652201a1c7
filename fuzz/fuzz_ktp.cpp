// libFuzzer harness of the kinetrack input protocol parser (stream/ktp.hpp): every input is
// parsed as a poses message (the 23 MVN segments) and as a markers message (a marker list); the
// parser must classify it without crashing, reading out of bounds, leaking or throwing. On Ok,
// the decoded frame must satisfy the documented guarantees (indices in range and unique, finite
// values, unit quaternions) and survive a binary round trip unchanged up to float rounding; a
// violation aborts (a finding).
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kinetrack/stream/ktp.hpp"

namespace {

namespace ks = kinetrack::stream;

const std::vector<std::string>& segments() {
  static const std::vector<std::string> names{"Pelvis",
                                              "L5",
                                              "L3",
                                              "T12",
                                              "T8",
                                              "Neck",
                                              "Head",
                                              "RightShoulder",
                                              "RightUpperArm",
                                              "RightForeArm",
                                              "RightHand",
                                              "LeftShoulder",
                                              "LeftUpperArm",
                                              "LeftForeArm",
                                              "LeftHand",
                                              "RightUpperLeg",
                                              "RightLowerLeg",
                                              "RightFoot",
                                              "RightToe",
                                              "LeftUpperLeg",
                                              "LeftLowerLeg",
                                              "LeftFoot",
                                              "LeftToe"};
  return names;
}

const std::vector<std::string>& markers() {
  static const std::vector<std::string> names{"LASI", "RASI", "LPSI", "RPSI", "LKNE", "RKNE", "LANK", "RANK"};
  return names;
}

void require(bool ok) {
  if (!ok) std::abort();
}

void check(std::span<const std::uint8_t> bytes, ks::KtpKind kind, const std::vector<std::string>& names) {
  static auto frame = std::make_unique<ks::KtpFrame>();
  static auto again = std::make_unique<ks::KtpFrame>();
  static std::vector<std::uint8_t> buffer(ks::kKtpMaxBinary);
  const ks::ParseStatus s = ks::parseKtp(bytes, kind, names, *frame);
  if (s != ks::ParseStatus::Ok) {
    require(frame->count == 0 && frame->errorText()[0] != '\0');
    return;
  }
  require(frame->kind == kind && frame->count >= 0 && static_cast<std::size_t>(frame->count) <= ks::kKtpMaxItems);
  require(std::isfinite(frame->time) && frame->time >= 0.0);
  std::vector<bool> seen(names.size(), false);
  for (int i = 0; i < frame->count; ++i) {
    const ks::KtpItem& it = frame->items[static_cast<std::size_t>(i)];
    require(it.index >= 0 && static_cast<std::size_t>(it.index) < names.size() &&
            !seen[static_cast<std::size_t>(it.index)]);
    seen[static_cast<std::size_t>(it.index)] = true;
    double n2 = 0.0;
    for (double v : it.q) n2 += v * v;
    require(kind == ks::KtpKind::Markers || std::abs(n2 - 1.0) <= 1e-3);
  }
  const std::size_t size = ks::encodeKtp(*frame, buffer);
  require(size > 0);
  // Positions beyond float range become infinite in the binary form (JSON allows them): rejected.
  const ks::ParseStatus back = ks::parseKtp(std::span(buffer.data(), size), kind, names, *again);
  if (back != ks::ParseStatus::Ok) return;
  require(again->seq == frame->seq && again->time == frame->time && again->count == frame->count);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  check(bytes, ks::KtpKind::Poses, segments());
  check(bytes, ks::KtpKind::Markers, markers());
  return 0;
}
