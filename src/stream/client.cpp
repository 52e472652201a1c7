// WebSocketSender: a Beast WebSocket client on its own I/O thread (every operation of the stream
// runs there: an implicit strand); send() posts one write and waits for it, while a read loop
// counts the server's messages.
#include "kinetrack/stream/client.hpp"

#include <utility>  // before Boost.Asio 1.74, which uses std::exchange without it

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <future>
#include <thread>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::stream {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

struct WebSocketSender::Impl {
  asio::io_context io;
  websocket::stream<tcp::socket> ws{io};
  beast::flat_buffer in;
  std::atomic<long> received{0}, errors{0};
  std::atomic<bool> open{true};
  asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(io);
  std::thread runner;  ///< runs io until the destructor releases the work guard

  void read() {
    ws.async_read(in, [this](beast::error_code ec, std::size_t) {
      if (ec) {
        open = false;
        return;
      }
      ++received;
      if (beast::buffers_to_string(in.data()).find(R"("type":"error")") != std::string::npos) ++errors;
      in.consume(in.size());
      read();
    });
  }
};

WebSocketSender::WebSocketSender(const std::string& host, int port) : impl_(std::make_unique<Impl>()) {
  const std::string where = "ws://" + host + ":" + std::to_string(port) + "/";
  beast::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec || port <= 0 || port > 65535) throw InvalidArgument("WebSocket: bad address " + where);
  auto& socket = impl_->ws.next_layer();
  socket.connect({address, static_cast<unsigned short>(port)}, ec);
  if (!ec) socket.set_option(tcp::no_delay(true), ec);
  if (!ec) impl_->ws.handshake(host, "/", ec);
  if (ec) throw InvalidArgument("WebSocket: cannot connect to " + where + ": " + ec.message());
  impl_->ws.read_message_max(1U << 20U);
  impl_->read();
  impl_->runner = std::thread([s = impl_.get()] { s->io.run(); });
}

WebSocketSender::~WebSocketSender() {
  asio::post(impl_->io, [s = impl_.get()] {
    beast::error_code ec;
    s->ws.next_layer().shutdown(tcp::socket::shutdown_both, ec);
    s->ws.next_layer().close(ec);  // ends the read loop
    s->work.reset();               // then io.run() returns
  });
  if (impl_->runner.joinable()) impl_->runner.join();
}

bool WebSocketSender::send(std::span<const std::uint8_t> bytes, bool binary) {
  if (!impl_->open) return false;
  std::promise<bool> done;
  asio::post(impl_->io, [&, s = impl_.get()] {
    s->ws.binary(binary);
    s->ws.async_write(asio::buffer(bytes.data(), bytes.size()),
                      [&](beast::error_code ec, std::size_t) { done.set_value(!ec); });
  });
  return done.get_future().get();
}

long WebSocketSender::received() const { return impl_->received; }
long WebSocketSender::errors() const { return impl_->errors; }

}  // namespace kinetrack::stream
