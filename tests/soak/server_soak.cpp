// Server soak (issue 20): `kinetrack serve`'s Server in live mode on loopback for a given time,
// fed MXTP at 240 Hz (the shared test capture looped) with malformed, truncated, oversized,
// 64 kB, random-garbage, duplicated and reordered datagrams mixed in, while WebSocket clients
// connect, read, stall, send garbage and drop. One client reads everything.
//
// Pass (exit 0) when: no crash; every well-formed in-order datagram was tracked and its frame
// reached the reading client, in order; every fault was counted in its class; the process's
// resident memory (VmRSS of /proc/self/status, sampled every second) grew by at most
// --max-rss-growth-mb between the end of the warm-up (the first quarter of the run, at least
// 20 s: allocator arenas, one cycle of every client kind, a stalled client's full queue) and
// the end. Reports frames, faults, clients, drops, RSS and the
// latency p50/p99/max (server histogram: datagram received → frame sent). Exit 77 (skipped)
// without ../shared/data/mvnx/test_mocap.mvnx.
//
//   kinetrack_soak [--seconds 60] [--rate 240] [--rss-csv FILE] [--max-rss-growth-mb 8]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/stream/server.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "kinetrack/track/pipeline.hpp"
#include "testing/loopback.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::soak {
namespace {

using Clock = std::chrono::steady_clock;

struct Config {
  double seconds = 60.0, rate = 240.0, max_rss_growth_mb = 8.0;
  std::string rss_csv;
};

long rssKb() {
  std::ifstream in("/proc/self/status");
  std::string key;
  long value = 0;
  while (in >> key) {
    if (key == "VmRSS:") {
      in >> value;
      return value;
    }
    in.ignore(4096, '\n');
  }
  return -1;
}

/// UDP datagrams the kernel dropped because a socket's receive buffer was full (RcvbufErrors of
/// /proc/net/snmp: this network namespace, every socket), -1 when unreadable.
long udpReceiveBufferErrors() {
  std::ifstream in("/proc/net/snmp");
  std::string header, values;
  while (std::getline(in, header) && std::getline(in, values)) {
    if (header.rfind("Udp:", 0) != 0) continue;
    std::istringstream h(header), v(values);
    std::string name, value;
    while (h >> name && v >> value)
      if (name == "RcvbufErrors") return std::stol(value);
  }
  return -1;
}

// Fault classes mixed into the stream, one every `kFaultEvery` frames, cycling.
enum Fault { Malformed, Truncated, Oversized, Huge, Garbage, Duplicate, Reorder, kFaults };
constexpr const char* kFaultNames[kFaults] = {"malformed",    "truncated", "oversized (+5 bytes)", "64 kB",
                                              "random bytes", "duplicate", "reordered (late)"};
constexpr int kFaultEvery = 7;

// WebSocket churn: clients that read a little and close, stall and drop, send garbage, or
// open a TCP connection that never finishes the handshake.
struct Churn {
  int port;
  std::atomic<bool>& running;
  std::atomic<long> connected{0}, failed{0};
  /// Garbage messages a client got onto the wire: in live mode the server reads WebSocket
  /// messages as kinetrack-protocol input (docs/streaming.md), so each may count as a rejected input.
  std::atomic<long> garbage_sent{0};
  void run() {
    std::mt19937 rng(5);
    for (long i = 0; running; ++i) {
      try {
        switch (i % 4) {
          case 0: {  // reads a few messages, closes properly
            testing::WsClient c(port);
            for (int k = 0; k < 20; ++k) c.read();
            c.ws.close(boost::beast::websocket::close_code::normal);
            break;
          }
          case 1: {  // stalls (tiny receive buffer, never reads) for 8 s (its queue fills), then drops
            testing::WsClient c(port, 4096);
            for (int k = 0; k < 80 && running; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            break;
          }
          case 2: {  // garbage text and a 1 MB message, then drops
            testing::WsClient c(port);
            c.send("{\"type\":\"pin\",\"frame\":");
            ++garbage_sent;
            c.send(std::string(1 << 20, 'x'));
            ++garbage_sent;
            c.read();
            break;
          }
          default: {  // TCP connection with half an HTTP upgrade request, dropped
            boost::asio::io_context io;
            boost::asio::ip::tcp::socket s(io);
            s.connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
            const std::string half = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n";
            boost::asio::write(s, boost::asio::buffer(half));
            std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(10, 300)(rng)));
            break;
          }
        }
        ++connected;
      } catch (const std::exception&) {
        ++failed;  // the server closing a garbage client mid-write is expected
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
};

int run(const Config& cfg) {
  const std::string path = testing::sharedFile("data/mvnx/test_mocap.mvnx");
  if (path.empty()) {
    std::puts("soak: skipped (../shared/data/mvnx/test_mocap.mvnx not found)");
    return 77;
  }
  const track::Capture capture = track::loadCapture(path);
  io::ModelSpec spec;
  spec.model = "human66";
  const track::TrackSetup setup = track::setupOnModel(io::loadModel(spec).model, capture, "");
  auto tracker =
      std::make_unique<stream::LiveTracker>(setup, capture.clip.segment_names, track::TrackerOptions{}, cfg.rate);
  stream::ServerOptions o;
  o.ws_port = 0;
  o.udp_port = 0;
  // ~4 s at 240 Hz: the reading client (a few % of a core) does not lag that far even at nice 19
  // on a loaded machine; a stalled client (8 s) does.
  o.queue_depth = 1024;
  stream::Server server(std::move(tracker), o);
  stream::ServerSummary summary;
  std::thread runner([&] { summary = server.run(false); });

  // The reading client.
  testing::WsClient reader_ws(server.wsPort());
  if (reader_ws.readType("hello").is_discarded()) {
    std::puts("soak: FAIL no hello");
    server.stop();
    runner.join();
    return 1;
  }
  const auto total = static_cast<long>(cfg.seconds * cfg.rate);
  // The bookkeeping vectors are touched now (assign, then clear: the capacity and its resident
  // pages stay), so that filling them does not show as RSS growth (2 × 4 bytes × 240 Hz).
  std::vector<std::uint32_t> received;
  received.assign(static_cast<std::size_t>(total), 0U);
  received.clear();
  std::atomic<long> last_expected{-1};
  std::atomic<bool> sending{true}, running{true};
  std::thread reader([&] {
    // After the stream ends: until the last well-formed frame, or 5 s without a frame (other
    // messages, e.g. stats, keep coming).
    auto last_frame = Clock::now();
    while (true) {
      const nlohmann::json j = reader_ws.read();
      const bool frame = !j.is_discarded() && j.value("type", "") == "frame";
      if (frame) {
        received.push_back(j["seq"].get<std::uint32_t>());
        last_frame = Clock::now();
      }
      if (!sending && ((frame && static_cast<long>(received.back()) >= last_expected) ||
                       Clock::now() - last_frame > std::chrono::seconds(5)))
        return;
    }
  });

  // RSS every second.
  std::vector<std::pair<double, long>> rss;
  rss.reserve(static_cast<std::size_t>(cfg.seconds) + 16);
  std::mutex rss_mutex;
  const auto start = Clock::now();
  std::thread monitor([&] {
    while (running) {
      {
        const std::lock_guard lock(rss_mutex);
        rss.emplace_back(std::chrono::duration<double>(Clock::now() - start).count(), rssKb());
      }
      for (int k = 0; k < 10 && running; ++k) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  Churn churn{server.wsPort(), running};
  std::thread churner([&] { churn.run(); });

  // A watchdog: a hang names its phase and fails (exit 3) instead of timing out mute.
  static std::atomic<const char*> phase{"sending"};
  std::thread([deadline = start + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(cfg.seconds + 90.0))] {
    std::this_thread::sleep_until(deadline);
    std::fprintf(stderr, "soak: FAIL still running 90 s after the end of the stream, while %s\n", phase.load());
    std::fflush(stderr);
    std::_Exit(3);
  }).detach();

  // The stream.
  const long rcvbuf_errors_before = udpReceiveBufferErrors();
  testing::UdpSender udp(server.udpPort());
  stream::MxtpPoseDatagram d;
  std::vector<std::uint8_t> buf(stream::kMxtpMaxDatagram), held, bad;
  std::vector<std::uint32_t> expected;
  expected.assign(static_cast<std::size_t>(total), 0U);
  expected.clear();
  long faults[kFaults] = {};
  std::mt19937 rng(11);
  const io::MotionClip& clip = capture.clip;
  for (long k = 0; k < total; ++k) {
    std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(static_cast<double>(k) / cfg.rate)));
    stream::clipFrameDatagram(clip, static_cast<int>(k % clip.numFrames()), cfg.rate, d);
    d.header.sample = static_cast<std::uint32_t>(k);
    d.header.time_ms = static_cast<std::uint32_t>(std::llround(static_cast<double>(k) * 1e3 / cfg.rate));
    const std::size_t n = stream::encodeMxtp(d, buf);
    const std::span<const std::uint8_t> good(buf.data(), n);
    const int fault = k % kFaultEvery == 3 ? static_cast<int>((k / kFaultEvery) % kFaults) : -1;
    if (fault == Reorder && k + 1 < total) {  // held back, sent after the next frame: late
      held.assign(good.begin(), good.end());
      ++faults[Reorder];
      continue;
    }
    udp.send(good);
    expected.push_back(static_cast<std::uint32_t>(k));
    if (!held.empty()) {
      udp.send(held);
      held.clear();
    }
    if (fault < 0 || fault == Reorder) continue;
    ++faults[fault];
    bad.assign(good.begin(), good.end());
    switch (fault) {
      case Malformed: bad[0] = 'Z'; break;
      case Truncated: bad.resize(n / 3); break;
      case Oversized: bad.resize(n + 5, 0); break;
      case Huge: bad.resize(65000, 0xA5); break;
      case Garbage:
        bad.resize(static_cast<std::size_t>(std::uniform_int_distribution<int>(1, 400)(rng)));
        for (std::uint8_t& b : bad) b = static_cast<std::uint8_t>(rng());
        bad[0] = 'X';  // not "MXTP": never a well-formed datagram by chance
        break;
      default: break;  // Duplicate: the same bytes again
    }
    udp.send(bad);
  }
  if (!expected.empty()) last_expected = expected.back();
  sending = false;
  phase = "reading the last frames";
  const long rcvbuf_errors = udpReceiveBufferErrors() - rcvbuf_errors_before;
  reader.join();
  running = false;
  phase = "stopping the client churn";
  churner.join();
  monitor.join();
  phase = "stopping the server";
  server.stop();
  runner.join();
  phase = "reporting";

  // Checks.
  bool ok = true;
  auto check = [&](bool cond, const std::string& what) {
    if (!cond) {
      std::printf("soak: FAIL %s\n", what.c_str());
      ok = false;
    }
  };
  check(summary.frames == static_cast<long>(expected.size()), "tracked frames " + std::to_string(summary.frames) +
                                                                  " != well-formed in-order datagrams " +
                                                                  std::to_string(expected.size()));
  check(received == expected, "the reading client's frames (" + std::to_string(received.size()) +
                                  ") are not every well-formed datagram in order (" + std::to_string(expected.size()) +
                                  ")");
  check(summary.oversized == faults[Oversized] + faults[Huge], "oversized datagrams not counted");
  check(summary.duplicates == faults[Duplicate], "duplicates not counted");
  check(summary.out_of_order == faults[Reorder], "late datagrams not counted");
  const long rejected = summary.truncated + summary.oversized + summary.malformed + summary.unsupported;
  const long injected = faults[Malformed] + faults[Truncated] + faults[Oversized] + faults[Huge] + faults[Garbage];
  // Every injected datagram rejected; beyond them only the churn clients' garbage WebSocket
  // messages (live mode reads WebSocket messages as input), at most one rejection each.
  check(rejected >= injected && rejected <= injected + churn.garbage_sent.load(),
        "rejected inputs " + std::to_string(rejected) + " not within injected datagrams " + std::to_string(injected) +
            " + garbage WebSocket messages " + std::to_string(churn.garbage_sent.load()));
  // RSS: the sample after the warm-up (the first quarter, at least 20 s: every kind of client
  // has come and gone once, a stalled client's queue has filled) against the last one.
  std::size_t warm = rss.size() / 4;
  while (warm + 1 < rss.size() && rss[warm].first < 20.0) ++warm;
  long rss_max = 0;
  for (const auto& [t, kb] : rss) rss_max = std::max(rss_max, kb);
  const double growth_mb = rss.empty() ? 0.0 : static_cast<double>(rss.back().second - rss[warm].second) / 1024.0;
  check(!rss.empty() && growth_mb <= cfg.max_rss_growth_mb,
        "RSS grew by " + std::to_string(growth_mb) + " MB after the warm-up");
  if (!cfg.rss_csv.empty()) {
    std::ofstream out(cfg.rss_csv);
    out << "t_s,rss_kb\n";
    for (const auto& [t, kb] : rss) out << t << ',' << kb << '\n';
  }

  std::printf("server soak: %.0f s at %.0f Hz\n", summary.seconds, cfg.rate);
  std::printf(
      "  datagrams received %ld, frames tracked %ld (well-formed in order sent %zu), frames read by the "
      "reading client %zu\n",
      summary.datagrams, summary.frames, expected.size(), received.size());
  std::printf("  faults injected:");
  for (int f = 0; f < kFaults; ++f) std::printf(" %s %ld;", kFaultNames[f], faults[f]);
  std::printf(
      "\n  counted: malformed %ld, truncated %ld, oversized %ld, duplicates %ld, out of order %ld, gaps %ld, "
      "failed %ld\n",
      summary.malformed, summary.truncated, summary.oversized, summary.duplicates, summary.out_of_order, summary.gaps,
      summary.failed);
  std::printf(
      "  WebSocket clients: %ld served (%ld churn cycles, %ld ended by an error), %ld messages dropped for "
      "slow clients, %ld client errors\n",
      summary.clients, churn.connected.load(), churn.failed.load(), summary.dropped, summary.client_errors);
  if (!rss.empty())
    std::printf(
        "  RSS: start %.1f MB, after warm-up (%.0f s) %.1f MB, end %.1f MB, max %.1f MB; growth after "
        "warm-up %.2f MB (limit %.1f)\n",
        rss.front().second / 1024.0, rss[warm].first, rss[warm].second / 1024.0, rss.back().second / 1024.0,
        rss_max / 1024.0, growth_mb, cfg.max_rss_growth_mb);
  std::printf("  kernel UDP receive-buffer drops during the run (RcvbufErrors, whole network namespace): %ld\n",
              rcvbuf_errors);
  std::printf("  latency (datagram received -> frame sent): p50 %.1f us, p99 %.1f us, max %.1f us\n",
              summary.latency_p50_us, summary.latency_p99_us, summary.latency_max_us);
  std::printf("soak: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace kinetrack::soak

int main(int argc, char** argv) {
  kinetrack::soak::Config cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--seconds" && has_value)
      cfg.seconds = std::atof(argv[++i]);
    else if (a == "--rate" && has_value)
      cfg.rate = std::atof(argv[++i]);
    else if (a == "--rss-csv" && has_value)
      cfg.rss_csv = argv[++i];
    else if (a == "--max-rss-growth-mb" && has_value)
      cfg.max_rss_growth_mb = std::atof(argv[++i]);
    else {
      std::fprintf(stderr,
                   "usage: kinetrack_soak [--seconds S] [--rate HZ] [--rss-csv FILE] [--max-rss-growth-mb M]\n");
      return 2;
    }
  }
  if (!(cfg.seconds > 0.0) || !(cfg.rate > 0.0)) {
    std::fprintf(stderr, "kinetrack_soak: --seconds and --rate must be > 0\n");
    return 2;
  }
  try {
    return kinetrack::soak::run(cfg);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soak: FAIL %s\n", e.what());
    return 1;
  }
}
