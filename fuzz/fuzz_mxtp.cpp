// libFuzzer harness of the Xsens MVN streaming parser (stream/mxtp.hpp, issue 17/20): every input
// is one datagram. The parser must classify it without crashing, reading outside the datagram or
// throwing; on Ok the decoded datagram must satisfy what the header promises (item count =
// records, finite values, unit quaternions) and survive an encode → parse round trip bit for bit.
// The first four bytes also drive the frame sequencer, whose counters must add up. A violated
// guarantee aborts (a finding).
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>

#include "kinetrack/stream/mxtp.hpp"

namespace {

namespace ks = kinetrack::stream;

void require(bool ok) {
  if (!ok) std::abort();
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static auto datagram = std::make_unique<ks::MxtpPoseDatagram>();
  static auto again = std::make_unique<ks::MxtpPoseDatagram>();
  static std::array<std::uint8_t, ks::kMxtpMaxDatagram> buffer{};
  static ks::FrameSequencer sequencer;

  const std::span<const std::uint8_t> bytes(data, size);
  const ks::ParseStatus s = ks::parseMxtp(bytes, *datagram);
  require(!ks::toString(s).empty());
  if (s == ks::ParseStatus::Ok) {
    const ks::MxtpPoseDatagram& d = *datagram;
    require(d.count >= 0 && static_cast<std::size_t>(d.count) <= ks::kMxtpMaxItems && d.count == d.header.items);
    require(size == ks::kMxtpHeaderSize + static_cast<std::size_t>(d.count) * ks::kMxtpPoseRecordSize);
    for (int i = 0; i < d.count; ++i) {
      const ks::MxtpSegmentPose& p = d.segments[static_cast<std::size_t>(i)];
      double n2 = 0.0;
      for (float v : p.quaternion) {
        require(std::isfinite(v));
        n2 += static_cast<double>(v) * v;
      }
      for (float v : p.position) require(std::isfinite(v));
      require(std::abs(n2 - 1.0) <= 1e-2);
    }
    const std::size_t n = ks::encodeMxtp(d, buffer);
    require(n == size);
    require(ks::parseMxtp(std::span(buffer.data(), n), *again) == ks::ParseStatus::Ok);
    require(again->count == d.count && again->header.sample == d.header.sample &&
            again->header.time_ms == d.header.time_ms);
    for (int i = 0; i < d.count; ++i) {
      const auto& a = d.segments[static_cast<std::size_t>(i)];
      const auto& b = again->segments[static_cast<std::size_t>(i)];
      require(a.id == b.id);
      for (std::size_t k = 0; k < 3; ++k) require(sameBits(a.position[k], b.position[k]));
      for (std::size_t k = 0; k < 4; ++k) require(sameBits(a.quaternion[k], b.quaternion[k]));
    }
  }
  // Sequencer bookkeeping: every offer is counted exactly once.
  std::uint32_t sample = 0;
  if (size >= 4) std::memcpy(&sample, data, 4);
  const long before = sequencer.accepted() + sequencer.duplicates() + sequencer.outOfOrder();
  if (size % 7 == 0) sequencer.reset();
  sequencer.offer(sample);
  require(sequencer.accepted() + sequencer.duplicates() + sequencer.outOfOrder() == before + 1);
  require(sequencer.skipped() >= 0);
  return 0;
}
