#pragma once
// Loopback clients of `kinetrack serve` for the server test and the soak (tests/soak): a
// synchronous Beast WebSocket client with a receive timeout and a UDP datagram sender.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace kinetrack::testing {

/// A synchronous WebSocket client with receive and send timeouts (no read or write blocks a test
/// forever).
struct WsClient {
  boost::asio::io_context io;
  boost::beast::websocket::stream<boost::asio::ip::tcp::socket> ws{io};
  explicit WsClient(int port, int rcvbuf = 0) {
    ws.next_layer().open(boost::asio::ip::tcp::v4());
    if (rcvbuf > 0) ws.next_layer().set_option(boost::asio::socket_base::receive_buffer_size(rcvbuf));
    ws.next_layer().connect({boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
    timeval tv{5, 0};
    ::setsockopt(ws.next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(ws.next_layer().native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    ws.next_layer().set_option(boost::asio::ip::tcp::no_delay(true));
    ws.handshake("127.0.0.1", "/");
  }
  /// The next message as JSON, or a discarded value on timeout/close.
  nlohmann::json read() {
    boost::beast::flat_buffer b;
    boost::beast::error_code ec;
    ws.read(b, ec);
    if (ec) return nlohmann::json(nlohmann::json::value_t::discarded);
    return nlohmann::json::parse(boost::beast::buffers_to_string(b.data()), nullptr, false);
  }
  nlohmann::json readType(const std::string& type) {
    for (int i = 0; i < 10000; ++i) {
      nlohmann::json j = read();
      if (j.is_discarded() || j.value("type", "") == type) return j;
    }
    return nlohmann::json(nlohmann::json::value_t::discarded);
  }
  void send(const std::string& text) {
    ws.text(true);
    ws.write(boost::asio::buffer(text));
  }
  void sendBinary(std::span<const std::uint8_t> bytes) {
    ws.binary(true);
    ws.write(boost::asio::buffer(bytes.data(), bytes.size()));
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

}  // namespace kinetrack::testing
