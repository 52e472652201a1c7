#pragma once
// The `kinetrack serve` server: MXTP or the kinetrack protocol (KTP) over UDP, KTP over
// WebSocket in, one tracked frame per message (LiveInput: LiveTracker, MarkerLiveTracker) on
// the tracking thread, joint states out over UDP and WebSocket (viewer protocol v1,
// docs/streaming.md), static files over HTTP on the WebSocket port. Or, in interactive mode,
// pin-and-drag IK driven by WebSocket clients. Boost.Beast/Asio on one I/O thread; the tracking
// thread never waits for a client: each client has a bounded queue, a full queue drops the
// message and counts it.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/stream/live_tracker.hpp"

namespace kinetrack::muscles {
class MusclePaths;
}

namespace kinetrack::stream {

struct ServerOptions {
  std::string host = "127.0.0.1";   ///< address of the WebSocket/HTTP and UDP sockets
  int ws_port = 8765;               ///< WebSocket + HTTP (0: any free port)
  int udp_port = kMxtpDefaultPort;  ///< MXTP input (0: any free port)
  std::string udp_out;              ///< "host:port" for joint states over UDP (JSON), empty: none
  std::string http_root;            ///< static files (GET / → index.html), empty: none
  /// Files served from memory before http_root (path → body: the bundled page, "/meshes.js" the
  /// model's geometry, which the hello then names as "geometry").
  std::map<std::string, std::string> files;
  /// Muscle paths of the streamed model (an OpenSim model's): every frame message then carries
  /// "muscles", each muscle's drawn path as flat x, y, z (muscles::MusclePaths::drawnPath), and
  /// the hello their names. Must be of the same model file as the streamed model.
  std::shared_ptr<const muscles::MusclePaths> muscles;
  std::string model_name = "human66";
  int queue_depth = 32;             ///< messages per client before drops
  double interactive_rate = 60.0;   ///< Hz of the pin-and-drag loop
  double duration = 0.0;            ///< s before stopping by itself (0: until stop() or a signal)
  std::size_t latency_records = 0;  ///< per-frame latency records kept (reserved up front; 0: none)
};

/// One frame's latency (live mode): MXTP sample, source time (s), receive → sent (µs).
struct LatencyRecord {
  std::uint32_t seq = 0;
  double source_time = 0.0;
  double latency_us = 0.0;
};

/// Figures of a run (the summary table of `kinetrack serve`).
struct ServerSummary {
  long datagrams = 0, frames = 0, truncated = 0, oversized = 0, malformed = 0, unsupported = 0;
  long duplicates = 0, out_of_order = 0, skipped = 0, gaps = 0, failed = 0, dropped = 0;
  long clients = 0, client_errors = 0, ws_messages = 0, udp_messages = 0;
  /// WebSocket input messages dropped because the tracking thread was --queue messages behind.
  long inputs_dropped = 0;
  double latency_p50_us = 0, latency_p99_us = 0, latency_max_us = 0;
  double seconds = 0;
};

class Server {
 public:
  /// Live mode on `tracker`. Binds the sockets now: throws InvalidArgument naming the port
  /// when one is in use or the address is bad.
  Server(std::unique_ptr<LiveInput> tracker, const ServerOptions& options);
  /// Interactive mode: pin-and-drag on `model` from `initial`.
  Server(const Model& model, const Configuration& initial, const ServerOptions& options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  [[nodiscard]] int wsPort() const;
  [[nodiscard]] int udpPort() const;
  /// Runs until stop(), SIGINT/SIGTERM (when `handle_signals`) or options.duration.
  ServerSummary run(bool handle_signals = true);
  /// Thread-safe; run() returns soon after.
  void stop();
  /// The figures so far (thread-safe: counters are atomics); run() returns the final ones.
  [[nodiscard]] ServerSummary summary() const;
  /// The first options.latency_records frames' latencies (read after run() returned).
  [[nodiscard]] const std::vector<LatencyRecord>& latencyRecords() const;

  struct Impl;  ///< public so the session types of server.cpp can hold it

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinetrack::stream
