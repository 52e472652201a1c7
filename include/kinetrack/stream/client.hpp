#pragma once
// A minimal blocking WebSocket client of `kinetrack serve`: connects, sends KTP input messages
// (binary or text) and discards what the server sends back on a background reader, so that a
// sender never fills its own queue on the server. Used by `kinetrack replay --ws` and the Python
// module; Boost.Beast behind a pimpl.
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace kinetrack::stream {

class WebSocketSender {
 public:
  /// Connects to ws://host:port/ (IPv4). Throws InvalidArgument naming the address when the
  /// connection or the handshake fails.
  WebSocketSender(const std::string& host, int port);
  ~WebSocketSender();
  WebSocketSender(const WebSocketSender&) = delete;
  WebSocketSender& operator=(const WebSocketSender&) = delete;

  /// Sends one message (binary frame or text frame). False once the connection is closed.
  bool send(std::span<const std::uint8_t> bytes, bool binary);
  /// Messages received from the server so far (hello, frames, stats, errors).
  [[nodiscard]] long received() const;
  /// Error messages received ({"type":"error"}): the server rejected an input.
  [[nodiscard]] long errors() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kinetrack::stream
