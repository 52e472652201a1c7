// `kinetrack serve`: Boost.Beast WebSocket + HTTP on one Asio I/O thread, the tracking (or
// pin-and-drag) loop on its own thread, bounded per-client queues between them, an eventfd to
// wake the I/O thread.
#include "kinetrack/stream/server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "frame_extras.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/ik/pin_drag.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "viewer_protocol.hpp"

namespace kinetrack::stream {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

double microsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

/// A bounded queue of messages to one client; slots keep their capacity (no allocation on push
/// once a slot has held a message of that size).
class ClientQueue {
 public:
  ClientQueue(std::size_t depth, std::size_t capacity) : slots_(depth) {
    for (auto& s : slots_) s.reserve(capacity);
  }
  bool push(std::string_view msg) {
    const std::lock_guard lock(m_);
    if (size_ == slots_.size()) return false;
    slots_[(head_ + size_) % slots_.size()].assign(msg);
    ++size_;
    return true;
  }
  bool pop(std::string& out) {
    const std::lock_guard lock(m_);
    if (size_ == 0) return false;
    std::swap(out, slots_[head_]);
    head_ = (head_ + 1) % slots_.size();
    --size_;
    return true;
  }

 private:
  std::mutex m_;
  std::vector<std::string> slots_;
  std::size_t head_ = 0, size_ = 0;
};

std::string_view mimeType(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".html" || ext == ".htm") return "text/html";
  if (ext == ".js" || ext == ".mjs") return "application/javascript";
  if (ext == ".css") return "text/css";
  if (ext == ".json") return "application/json";
  if (ext == ".png") return "image/png";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".stl") return "model/stl";
  return "application/octet-stream";
}

}  // namespace

struct Server::Impl {
  ServerOptions options;
  std::unique_ptr<LiveInput> live;
  // Live mode: KTP messages from WebSocket clients, handed to the tracking thread (bounded).
  struct Input {
    Clock::time_point received;
    std::string bytes;
    std::weak_ptr<ClientQueue> reply;  ///< where a rejection's error message goes
  };
  std::mutex input_mutex;
  std::vector<Input> inputs;  ///< ring of options.queue_depth slots
  std::size_t input_head = 0, input_size = 0;
  int input_fd = -1;  ///< eventfd: a WebSocket input is waiting
  // Interactive mode.
  std::shared_ptr<const Model> model;
  std::unique_ptr<ik::PinDragIk> ik;
  Configuration initial;
  std::unique_ptr<Data> ik_data;
  std::mutex command_mutex;
  std::vector<Command> commands;

  std::string hello;
  std::size_t message_capacity = 0;
  std::unique_ptr<MuscleFrames> muscle_frames;  ///< options.muscles' paths appended to every frame
  /// Sets up muscle_frames (options.muscles) and widens message_capacity for them.
  void prepareMuscles() {
    if (!options.muscles) return;
    muscle_frames = std::make_unique<MuscleFrames>(options.muscles, theModel());
    message_capacity += muscle_frames->messageBytes();
  }
  void appendMuscles(const Configuration& q, std::string& msg) {
    if (muscle_frames) muscle_frames->append(q, msg);
  }
  LiveCounters own_counters;  ///< interactive mode's counters
  LatencyHistogram latency;
  std::vector<LatencyRecord> records;  ///< reserved to options.latency_records: push_back never allocates
  std::atomic<bool> stopping{false};
  const Clock::time_point started = Clock::now();  ///< run time counts from construction
  std::atomic<long> clients{0}, client_errors{0}, ws_messages{0}, udp_messages{0}, inputs_dropped{0};

  asio::io_context io;
  tcp::acceptor acceptor{io};
  int udp_fd = -1, out_fd = -1, event_fd = -1;
  sockaddr_in out_addr{};
  std::mutex queues_mutex;
  std::vector<std::shared_ptr<ClientQueue>> queues;
  std::vector<std::weak_ptr<struct WsSession>> sessions;  // I/O thread only

  LiveCounters& counters() { return live ? live->counters() : own_counters; }
  const Model& theModel() const { return live ? live->model() : *model; }

  void openSockets();
  void publish(const std::string& msg);
  /// The frame message as one datagram to --udp-out (when given), counted when sent.
  void sendUdpOut(const std::string& msg);
  void trackingLoop();
  void interactiveLoop();
  void wakeIo() const {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto n = ::write(event_fd, &one, sizeof one);
  }
  void waitEvent(asio::posix::stream_descriptor& ev, std::uint64_t& value);
  void kickAll();
  void accept();
  void onClientText(const std::string& text, ClientQueue& q);
  void onClientInput(const std::string& bytes, const std::shared_ptr<ClientQueue>& q);
  bool popInput(Input& out);
  void trackOne(std::span<const std::uint8_t> bytes, Clock::time_point t0, std::string& msg,
                const std::weak_ptr<ClientQueue>* reply);
};

// -- sessions --------------------------------------------------------------------------------

struct WsSession : std::enable_shared_from_this<WsSession> {
  WsSession(tcp::socket socket, Server::Impl& server)
      : ws(std::move(socket)),
        srv(server),
        queue(std::make_shared<ClientQueue>(static_cast<std::size_t>(server.options.queue_depth),
                                            server.message_capacity)) {
    out.reserve(server.message_capacity);
  }
  websocket::stream<tcp::socket> ws;
  Server::Impl& srv;
  std::shared_ptr<ClientQueue> queue;
  std::string out;
  beast::flat_buffer in;
  bool writing = false, closed = false;

  void start(http::request<http::string_body> req) {
    ws.read_message_max(64 * 1024);
    ws.async_accept(req, [self = shared_from_this()](beast::error_code ec) {
      if (ec) return;
      {
        const std::lock_guard lock(self->srv.queues_mutex);
        self->srv.queues.push_back(self->queue);
      }
      self->srv.sessions.push_back(self);
      ++self->srv.clients;
      self->queue->push(self->srv.hello);
      self->kick();
      self->read();
    });
  }
  void kick() {
    if (writing || closed || !queue->pop(out)) return;
    writing = true;
    ws.text(true);
    ws.async_write(asio::buffer(out), [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->writing = false;
      if (ec) return self->close();
      ++self->srv.ws_messages;
      self->kick();
    });
  }
  void read() {
    ws.async_read(in, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->close();
      const std::string text = beast::buffers_to_string(self->in.data());
      self->in.consume(self->in.size());
      if (self->srv.live)
        self->srv.onClientInput(text, self->queue);
      else
        self->srv.onClientText(text, *self->queue);
      self->kick();
      self->read();
    });
  }
  void close() {
    if (closed) return;
    closed = true;
    const std::lock_guard lock(srv.queues_mutex);
    std::erase(srv.queues, queue);
  }
};

struct HttpSession : std::enable_shared_from_this<HttpSession> {
  HttpSession(tcp::socket s, Server::Impl& server) : socket(std::move(s)), srv(server) {}
  tcp::socket socket;
  Server::Impl& srv;
  beast::flat_buffer buffer;
  http::request<http::string_body> req;

  void read() {
    req = {};
    http::async_read(socket, buffer, req, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return;
      if (websocket::is_upgrade(self->req)) {
        std::make_shared<WsSession>(std::move(self->socket), self->srv)->start(std::move(self->req));
        return;
      }
      self->respond();
    });
  }
  template <class Body>
  void send(http::response<Body>&& res) {
    auto sp = std::make_shared<http::response<Body>>(std::move(res));
    sp->keep_alive(req.keep_alive());
    sp->prepare_payload();
    http::async_write(socket, *sp, [self = shared_from_this(), sp](beast::error_code ec, std::size_t) {
      if (ec || !sp->keep_alive()) {
        beast::error_code ignored;
        self->socket.shutdown(tcp::socket::shutdown_send, ignored);
        return;
      }
      self->read();
    });
  }
  void text(http::status status, const std::string& body) {
    http::response<http::string_body> res{status, req.version()};
    res.set(http::field::content_type, "text/plain");
    res.body() = body;
    send(std::move(res));
  }
  void respond() {
    if (req.method() != http::verb::get && req.method() != http::verb::head)
      return text(http::status::bad_request, "only GET and HEAD\n");
    std::string target(req.target());
    target = target.substr(0, target.find_first_of("?#"));
    if (target.empty() || target.front() != '/' || target.find("..") != std::string::npos)
      return text(http::status::bad_request, "bad path\n");
    if (target.back() == '/') target += "index.html";
    if (const auto it = srv.options.files.find(target); it != srv.options.files.end()) {
      http::response<http::string_body> res{http::status::ok, req.version()};
      res.set(http::field::content_type, std::string(mimeType(target)));
      res.body() = it->second;
      return send(std::move(res));
    }
    if (srv.options.http_root.empty())
      return text(http::status::not_found, "no --http-root: this server speaks WebSocket only\n");
    const std::string path = srv.options.http_root + target;
    http::file_body::value_type file;
    beast::error_code ec;
    file.open(path.c_str(), beast::file_mode::scan, ec);
    if (ec) return text(http::status::not_found, "not found: " + target + "\n");
    http::response<http::file_body> res{std::piecewise_construct, std::make_tuple(std::move(file)),
                                        std::make_tuple(http::status::ok, req.version())};
    res.set(http::field::content_type, std::string(mimeType(path)));
    send(std::move(res));
  }
};

// -- server ----------------------------------------------------------------------------------

void Server::Impl::openSockets() {
  beast::error_code ec;
  const auto address = asio::ip::make_address(options.host, ec);
  if (ec) throw InvalidArgument("serve: bad --host '" + options.host + "': " + ec.message());
  const tcp::endpoint ep(address, static_cast<unsigned short>(options.ws_port));
  acceptor.open(ep.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(ep, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    throw InvalidArgument("serve: cannot listen on " + options.host + ":" + std::to_string(options.ws_port) +
                          " (WebSocket/HTTP, --port): " + ec.message());
  event_fd = ::eventfd(0, EFD_CLOEXEC);
  if (event_fd < 0) throw InvalidArgument("serve: eventfd failed");
  // Frames go out as UDP datagrams in both modes: a pin-and-drag session can drive a robot too.
  if (!options.udp_out.empty()) {
    const auto colon = options.udp_out.rfind(':');
    out_addr.sin_family = AF_INET;
    int port = 0;
    try {
      port = colon == std::string::npos ? 0 : std::stoi(options.udp_out.substr(colon + 1));
    } catch (const std::exception&) {
      port = 0;
    }
    if (port <= 0 || port > 65535 ||
        ::inet_pton(AF_INET, options.udp_out.substr(0, colon).c_str(), &out_addr.sin_addr) != 1)
      throw InvalidArgument("serve: --udp-out must be IPv4:port, got '" + options.udp_out + "'");
    out_addr.sin_port = htons(static_cast<std::uint16_t>(port));
    out_fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  }
  if (!live) return;
  input_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (input_fd < 0) throw InvalidArgument("serve: eventfd failed");
  inputs.resize(static_cast<std::size_t>(options.queue_depth));
  udp_fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(options.udp_port));
  if (::inet_pton(AF_INET, options.host.c_str(), &addr.sin_addr) != 1)
    throw InvalidArgument("serve: --host must be an IPv4 address for UDP, got '" + options.host + "'");
  if (udp_fd < 0 || ::bind(udp_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    throw InvalidArgument("serve: cannot bind UDP " + options.host + ":" + std::to_string(options.udp_port) +
                          " (MXTP input, --udp-port): " + std::strerror(errno));
  int rcvbuf = 4 << 20;
  ::setsockopt(udp_fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  timeval tv{0, 100000};
  ::setsockopt(udp_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

void Server::Impl::sendUdpOut(const std::string& msg) {
  if (out_fd >= 0 &&
      ::sendto(out_fd, msg.data(), msg.size(), 0, reinterpret_cast<const sockaddr*>(&out_addr), sizeof out_addr) >= 0)
    ++udp_messages;
}

void Server::Impl::publish(const std::string& msg) {
  {
    const std::lock_guard lock(queues_mutex);
    for (const auto& q : queues)
      if (!q->push(msg)) ++counters().dropped;
  }
  wakeIo();
}

void Server::Impl::trackOne(std::span<const std::uint8_t> bytes, Clock::time_point t0, std::string& msg,
                            const std::weak_ptr<ClientQueue>* reply) {
  const DatagramResult r = live->onDatagram(bytes);
  if (r == DatagramResult::Rejected && reply) {  // a WebSocket client is told why (off the hot path)
    if (const auto q = reply->lock(); q && !q->push(errorJson(live->lastError()))) ++counters().dropped;
    wakeIo();
  }
  if (r != DatagramResult::Tracked && r != DatagramResult::Gap) return;
  live->encodeFrame(microsSince(t0), msg);
  appendMuscles(live->state(), msg);
  sendUdpOut(msg);
  publish(msg);
  const double us = microsSince(t0);
  latency.add(us);
  if (records.size() < records.capacity()) records.push_back({live->sequence(), live->sourceTime(), us});
}

bool Server::Impl::popInput(Input& out) {
  const std::lock_guard lock(input_mutex);
  if (input_size == 0) return false;
  Input& slot = inputs[input_head];
  out.received = slot.received;
  std::swap(out.bytes, slot.bytes);
  std::swap(out.reply, slot.reply);
  input_head = (input_head + 1) % inputs.size();
  --input_size;
  return true;
}

void Server::Impl::onClientInput(const std::string& bytes, const std::shared_ptr<ClientQueue>& q) {
  const auto now = Clock::now();
  {
    const std::lock_guard lock(input_mutex);
    if (input_size == inputs.size()) {  // the tracker is behind: the newest input is dropped, counted
      ++inputs_dropped;
      return;
    }
    Input& slot = inputs[(input_head + input_size) % inputs.size()];
    slot.received = now;
    slot.bytes.assign(bytes);
    slot.reply = q;
    ++input_size;
  }
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto n = ::write(input_fd, &one, sizeof one);
}

void Server::Impl::trackingLoop() {
  std::vector<std::uint8_t> buffer(65536);
  std::string msg;
  msg.reserve(message_capacity);
  Input input;
  input.bytes.reserve(65536);
  std::array<pollfd, 2> fds{pollfd{udp_fd, POLLIN, 0}, pollfd{input_fd, POLLIN, 0}};
  auto drain = [&] {
    while (popInput(input))
      trackOne({reinterpret_cast<const std::uint8_t*>(input.bytes.data()), input.bytes.size()}, input.received, msg,
               &input.reply);
  };
  while (!stopping.load(std::memory_order_relaxed)) {
    if (::poll(fds.data(), fds.size(), 100) <= 0) continue;  // timeout (checks stopping) or interrupted
    if ((fds[0].revents & POLLIN) != 0) {
      const ssize_t n = ::recv(udp_fd, buffer.data(), buffer.size(), MSG_DONTWAIT);
      if (n >= 0) trackOne({buffer.data(), static_cast<std::size_t>(n)}, Clock::now(), msg, nullptr);
    }
    if ((fds[1].revents & POLLIN) != 0) {
      std::uint64_t value = 0;
      [[maybe_unused]] const auto r = ::read(input_fd, &value, sizeof value);
      drain();
    }
  }
  drain();  // WebSocket inputs received before the stop are still tracked (never silently lost)
}

void Server::Impl::interactiveLoop() {
  std::string msg;
  msg.reserve(message_capacity);
  std::vector<Command> pending;
  std::vector<std::string> pins, drags;
  const double dt = 1.0 / options.interactive_rate;
  auto next = Clock::now();
  std::uint64_t seq = 0;
  const auto start = Clock::now();
  while (!stopping.load(std::memory_order_relaxed)) {
    next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(dt));
    std::this_thread::sleep_until(next);
    const auto t0 = Clock::now();
    {
      const std::lock_guard lock(command_mutex);
      pending.swap(commands);
    }
    bool roles_changed = false;
    for (const Command& c : pending) {
      try {
        const auto role = ik->role(c.frame);
        switch (c.kind) {
          case Command::Kind::Pin: ik->pin(c.frame); break;
          case Command::Kind::Unpin:
            if (role == ik::PinDragRole::Pinned) ik->release(c.frame);
            break;
          case Command::Kind::Drag:
            if (role != ik::PinDragRole::Dragged) ik->drag(c.frame);
            ik->setDragTarget(c.frame, c.target);
            break;
          case Command::Kind::Release:
            if (role == ik::PinDragRole::Dragged) ik->release(c.frame);
            break;
          case Command::Kind::Reset:
            ik->releaseAll();
            ik->setState(initial);
            break;
        }
        roles_changed = roles_changed || c.kind != Command::Kind::Drag || role != ik::PinDragRole::Dragged;
      } catch (const InvalidArgument&) {
        ++client_errors;
      }
    }
    pending.clear();
    if (roles_changed) {
      pins.clear();
      drags.clear();
      for (int f = 0; f < model->numFrames(); ++f) {
        const auto role = ik->role(FrameId(f));
        if (role == ik::PinDragRole::Pinned) pins.push_back(model->frameName(FrameId(f)));
        if (role == ik::PinDragRole::Dragged) drags.push_back(model->frameName(FrameId(f)));
      }
    }
    ik->update(dt);
    forwardKinematics(*model, *ik_data, ik->state());
    ++own_counters.frames;
    FrameMessage m;
    m.seq = seq++;
    m.source_time = std::chrono::duration<double>(t0 - start).count();
    m.latency_us = microsSince(t0);
    m.pins = pins;
    m.drags = drags;
    msg.clear();
    appendFrameJson(*model, ik->state(), *ik_data, m, {}, {}, msg);
    appendMuscles(ik->state(), msg);
    sendUdpOut(msg);
    publish(msg);
    latency.add(microsSince(t0));
  }
}

void Server::Impl::onClientText(const std::string& text, ClientQueue& q) {
  std::string error;
  if (!ik) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    error = j.is_discarded() ? "not JSON: " + text.substr(0, 80)
                             : "this server is in live mode: pin/drag messages need `kinetrack serve --interactive`";
  } else {
    Command c;
    error = parseCommand(*model, text, c);
    if (error.empty()) {
      const std::lock_guard lock(command_mutex);
      commands.push_back(c);
    }
  }
  if (!error.empty()) {
    ++client_errors;
    if (!q.push(errorJson(error))) ++counters().dropped;
  }
}

void Server::Impl::kickAll() {
  std::erase_if(sessions, [](const std::weak_ptr<WsSession>& w) {
    const auto s = w.lock();
    if (!s || s->closed) return true;
    s->kick();
    return false;
  });
}

void Server::Impl::waitEvent(asio::posix::stream_descriptor& ev, std::uint64_t& value) {
  ev.async_read_some(asio::buffer(&value, sizeof value), [this, &ev, &value](beast::error_code ec, std::size_t) {
    if (ec) return;
    kickAll();
    waitEvent(ev, value);
  });
}

void Server::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec) return;
    socket.set_option(tcp::no_delay(true), ec);
    std::make_shared<HttpSession>(std::move(socket), *this)->read();
    accept();
  });
}

Server::Server(std::unique_ptr<LiveInput> tracker, const ServerOptions& options) : impl_(std::make_unique<Impl>()) {
  if (!tracker) throw InvalidArgument("serve: no tracker");
  impl_->options = options;
  impl_->live = std::move(tracker);
  impl_->message_capacity = impl_->live->frameCapacity();
  impl_->prepareMuscles();
  impl_->hello = decorateHello(impl_->live->hello(options.model_name), options);
  impl_->records.reserve(options.latency_records);
  impl_->openSockets();
}

Server::Server(const Model& model, const Configuration& initial, const ServerOptions& options)
    : impl_(std::make_unique<Impl>()) {
  if (!(options.interactive_rate > 0.0 && options.interactive_rate <= 2000.0))
    throw InvalidArgument("serve: the interactive rate must be in (0, 2000] Hz");
  impl_->options = options;
  impl_->model = std::make_shared<const Model>(model);
  impl_->ik = std::make_unique<ik::PinDragIk>(impl_->model);
  impl_->initial = initial;
  impl_->ik->setState(initial);
  impl_->ik_data = std::make_unique<Data>(*impl_->model);
  impl_->commands.reserve(256);
  const Model& m = *impl_->model;
  impl_->message_capacity = 1024 + 32 * static_cast<std::size_t>(m.numJoints() + 7) +
                            200 * static_cast<std::size_t>(m.numLinks()) + 64 * static_cast<std::size_t>(m.numFrames());
  impl_->prepareMuscles();
  impl_->hello = decorateHello(helloJson(m, options.model_name, true, options.interactive_rate), options);
  impl_->openSockets();
}

Server::~Server() {
  if (impl_->udp_fd >= 0) ::close(impl_->udp_fd);
  if (impl_->out_fd >= 0) ::close(impl_->out_fd);
  if (impl_->input_fd >= 0) ::close(impl_->input_fd);
}

const std::vector<LatencyRecord>& Server::latencyRecords() const { return impl_->records; }

int Server::wsPort() const { return impl_->acceptor.local_endpoint().port(); }

int Server::udpPort() const {
  if (impl_->udp_fd < 0) return 0;
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  ::getsockname(impl_->udp_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  return ntohs(addr.sin_port);
}

void Server::stop() {
  impl_->stopping = true;
  impl_->io.stop();
}

ServerSummary Server::summary() const {
  Impl& s = *impl_;
  ServerSummary r;
  const LiveCounters& c = s.counters();
  r.datagrams = c.datagrams;
  r.frames = c.frames;
  r.truncated = c.truncated;
  r.oversized = c.oversized;
  r.malformed = c.malformed;
  r.unsupported = c.unsupported;
  r.duplicates = c.duplicates;
  r.out_of_order = c.out_of_order;
  r.skipped = c.skipped;
  r.gaps = c.gaps;
  r.failed = c.failed;
  r.dropped = c.dropped;
  r.clients = s.clients;
  r.client_errors = s.client_errors;
  r.ws_messages = s.ws_messages;
  r.udp_messages = s.udp_messages;
  r.inputs_dropped = s.inputs_dropped;
  r.latency_p50_us = s.latency.quantile(0.5);
  r.latency_p99_us = s.latency.quantile(0.99);
  r.latency_max_us = s.latency.max();
  r.seconds = std::chrono::duration<double>(Clock::now() - s.started).count();
  return r;
}

ServerSummary Server::run(bool handle_signals) {
  Impl& s = *impl_;
  asio::signal_set signals(s.io);
  if (handle_signals) {
    signals.add(SIGINT);
    signals.add(SIGTERM);
    signals.async_wait([this](beast::error_code ec, int) {
      if (!ec) stop();
    });
  }
  asio::posix::stream_descriptor ev(s.io, s.event_fd);
  std::uint64_t ev_value = 0;
  s.waitEvent(ev, ev_value);
  asio::steady_timer stats_timer(s.io);
  std::function<void()> arm_stats = [&] {
    stats_timer.expires_after(std::chrono::seconds(1));
    stats_timer.async_wait([&](beast::error_code ec) {
      if (ec) return;
      const std::string msg = statsJson(s.counters(), s.latency);
      {
        const std::lock_guard lock(s.queues_mutex);
        for (const auto& q : s.queues)
          if (!q->push(msg)) ++s.counters().dropped;
      }
      s.kickAll();
      arm_stats();
    });
  };
  arm_stats();
  asio::steady_timer deadline(s.io);
  if (s.options.duration > 0.0) {
    deadline.expires_after(
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s.options.duration)));
    deadline.async_wait([this](beast::error_code ec) {
      if (!ec) stop();
    });
  }
  s.accept();
  std::thread worker([&s] { s.live ? s.trackingLoop() : s.interactiveLoop(); });
  s.io.run();
  s.stopping = true;
  worker.join();

  return summary();
}

}  // namespace kinetrack::stream
