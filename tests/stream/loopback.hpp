#pragma once
// Loopback helpers of the server tests: a synchronous Beast WebSocket client with a receive
// timeout, a UDP sender, ephemeral ports.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "kinetrack/io/model_source.hpp"
#include "kinetrack/stream/server.hpp"

namespace kinetrack::stream::loopback {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using nlohmann::json;

inline io::ModelSpec modelSpec(const std::string& name) {
  io::ModelSpec spec;
  spec.model = name;
  return spec;
}

/// Any free WebSocket and UDP ports.
inline ServerOptions ephemeral() {
  ServerOptions o;
  o.ws_port = 0;
  o.udp_port = 0;
  return o;
}

/// A synchronous WebSocket client with a receive timeout (no read blocks a test forever).
struct Client {
  asio::io_context io;
  websocket::stream<tcp::socket> ws{io};
  explicit Client(int port, int rcvbuf = 0) {
    ws.next_layer().open(tcp::v4());
    if (rcvbuf > 0) ws.next_layer().set_option(asio::socket_base::receive_buffer_size(rcvbuf));
    ws.next_layer().connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
    timeval tv{5, 0};
    ::setsockopt(ws.next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ws.next_layer().set_option(tcp::no_delay(true));
    ws.handshake("127.0.0.1", "/");
  }
  /// The next message as JSON, or a discarded value on timeout/close.
  json read() {
    beast::flat_buffer b;
    beast::error_code ec;
    ws.read(b, ec);
    if (ec) return json(json::value_t::discarded);
    return json::parse(beast::buffers_to_string(b.data()), nullptr, false);
  }
  json readType(const std::string& type) {
    for (int i = 0; i < 10000; ++i) {
      json j = read();
      if (j.is_discarded() || j.value("type", "") == type) return j;
    }
    return json(json::value_t::discarded);
  }
  void send(const std::string& text) {
    ws.text(true);
    ws.write(asio::buffer(text));
  }
  void sendBinary(std::span<const std::uint8_t> bytes) {
    ws.binary(true);
    ws.write(asio::buffer(bytes.data(), bytes.size()));
  }
};

struct UdpSender {
  int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  explicit UdpSender(int port) {
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  }
  ~UdpSender() { ::close(fd); }
  UdpSender(const UdpSender&) = delete;
  UdpSender& operator=(const UdpSender&) = delete;
  void send(std::span<const std::uint8_t> b) const {
    ::sendto(fd, b.data(), b.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  }
  void send(const std::string& s) const { send({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}); }
};

}  // namespace kinetrack::stream::loopback
