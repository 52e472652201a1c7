// The server on loopback with a minimal Beast WebSocket client written here: every well-formed
// frame of a replayed capture reaches a reading client while a stalled client only loses its
// own messages (counted), faults are counted per class, a port in use and garbage from a client
// are clear errors, and interactive pin-and-drag answers pin/drag messages.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/muscles/muscle_paths.hpp"
#include "kinetrack/stream/server.hpp"
#include "kinetrack/track/clip_tracker.hpp"
#include "loopback.hpp"
#include "testing/shared_paths.hpp"

namespace kinetrack::stream {
namespace KINETRACK_UNITY_ID {
using loopback::Client;
using loopback::ephemeral;
using loopback::modelSpec;
using loopback::UdpSender;
using nlohmann::json;
namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

std::unique_ptr<LiveTracker> liveTracker(const track::Capture& capture) {
  const track::TrackSetup setup = track::setupOnModel(io::loadModel(modelSpec("human66")).model, capture, "");
  return std::make_unique<LiveTracker>(setup, capture.clip.segment_names, track::TrackerOptions{}, 60.0);
}

TEST(Server, ReadingClientGetsEveryFrameStalledClientDoesNotStallTrackingFaultsCounted) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  const track::Capture capture = track::loadCapture(path);
  ServerOptions o = ephemeral();
  o.queue_depth = 512;
  Server server(liveTracker(capture), o);
  ServerSummary summary;
  std::thread runner([&] { summary = server.run(false); });

  Client stalled(server.wsPort(), 4096);  // handshakes, then never reads
  Client good(server.wsPort());
  const json hello = good.readType("hello");
  ASSERT_FALSE(hello.is_discarded());
  EXPECT_EQ(hello["version"], 1);
  EXPECT_EQ(hello["mode"], "live");
  const int links = static_cast<int>(hello["model"]["links"].size());
  EXPECT_EQ(hello["model"]["links"][0]["parent"], -1);

  const io::MotionClip& clip = capture.clip;
  const int loops = 12, total = clip.numFrames() * loops;
  std::vector<std::uint32_t> received;
  std::thread reader([&] {
    while (static_cast<int>(received.size()) < total - total / 50) {
      const json j = good.read();
      if (j.is_discarded()) return;
      if (j.value("type", "") != "frame") continue;
      received.push_back(j["seq"].get<std::uint32_t>());
      EXPECT_EQ(static_cast<int>(j["links"].size()), links);
      EXPECT_EQ(j["status"], "ok");
    }
  });
  UdpSender udp(server.udpPort());
  MxtpPoseDatagram d;
  std::vector<std::uint8_t> buf(kMxtpMaxDatagram);
  std::vector<std::uint32_t> expected;
  long truncated = 0, oversized = 0, malformed = 0, duplicates = 0, late = 0;
  std::vector<std::uint8_t> held;
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < total; ++k) {
    std::this_thread::sleep_until(start + std::chrono::microseconds(500 * k));  // 2 kHz
    clipFrameDatagram(clip, k % clip.numFrames(), 60.0, d);
    d.header.sample = static_cast<std::uint32_t>(k);
    d.header.time_ms = static_cast<std::uint32_t>(k * 1000 / 60 + k);  // strictly increasing
    const std::size_t n = encodeMxtp(d, buf);
    std::vector<std::uint8_t> good_bytes(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n));
    const int fault = k % 50 == 7 ? (k / 50) % 5 : -1;
    if (fault == 4 && k + 1 < total) {  // reorder: sent after the next frame, then late
      held = good_bytes;
      ++late;
      continue;
    }
    udp.send(good_bytes);
    expected.push_back(static_cast<std::uint32_t>(k));
    if (!held.empty()) {
      udp.send(held);
      held.clear();
    }
    auto bad = good_bytes;
    if (fault == 0) bad.resize(n / 3), ++truncated;
    if (fault == 1) bad.resize(n + 5, 0), ++oversized;
    if (fault == 2) bad[0] = 'Z', ++malformed;
    if (fault == 3) ++duplicates;
    if (fault >= 0 && fault <= 3) udp.send(bad);
  }
  reader.join();
  // Let the tracker finish the last datagrams, then stop.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  server.stop();
  runner.join();

  EXPECT_EQ(summary.frames, static_cast<long>(expected.size()));
  EXPECT_EQ(summary.truncated, truncated);
  EXPECT_EQ(summary.oversized, oversized);
  EXPECT_EQ(summary.malformed, malformed);
  EXPECT_EQ(summary.duplicates, duplicates);
  EXPECT_EQ(summary.out_of_order, late);
  EXPECT_GT(truncated * oversized * malformed * duplicates * late, 0);
  // The reading client got every tracked frame, in order (it stops reading at 98 %).
  ASSERT_GE(received.size(), expected.size() - expected.size() / 50 - 1);
  for (std::size_t i = 0; i < received.size(); ++i) ASSERT_EQ(received[i], expected[i]) << i;
  // The stalled client's queue overflowed: its messages were dropped and counted, not waited for.
  EXPECT_GT(summary.dropped, 0);
  EXPECT_EQ(summary.clients, 2);
}

TEST(Server, PortInUseIsAClearError) {
  KINETRACK_REQUIRE_SHARED(path, "data/mvnx/test_mocap.mvnx");
  const track::Capture capture = track::loadCapture(path);
  Server first(liveTracker(capture), ephemeral());
  ServerOptions o = ephemeral();
  o.ws_port = first.wsPort();
  try {
    Server second(liveTracker(capture), o);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(first.wsPort())), std::string::npos) << e.what();
  }
  o = ephemeral();
  o.udp_port = first.udpPort();
  try {
    Server second(liveTracker(capture), o);
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("UDP"), std::string::npos) << e.what();
  }
}

/// A UDP socket bound to an ephemeral loopback port, with a receive timeout.
struct UdpReceiver {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  int port = 0;
  UdpReceiver() {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    timeval tv{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~UdpReceiver() { ::close(fd); }
  UdpReceiver(const UdpReceiver&) = delete;
  UdpReceiver& operator=(const UdpReceiver&) = delete;
  /// The next datagram as text, empty on timeout.
  std::string receive() const {
    std::string buf(1 << 16, '\0');
    const auto n = ::recv(fd, buf.data(), buf.size(), 0);
    buf.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return buf;
  }
};

TEST(Server, InteractivePinAndDragAnswersClientsAndSurvivesGarbage) {
  const Model model = io::loadModel(modelSpec("human66")).model;
  Configuration q0(model);
  ServerOptions o = ephemeral();
  o.interactive_rate = 200.0;
  const UdpReceiver robot;  // --udp-out: the dragged pose also goes out as UDP datagrams
  o.udp_out = "127.0.0.1:" + std::to_string(robot.port);
  Server server(model, q0, o);
  ServerSummary summary;
  std::thread runner([&] { summary = server.run(false); });
  Client c(server.wsPort());
  const json hello = c.readType("hello");
  ASSERT_EQ(hello["mode"], "interactive");
  for (const std::string bad : {"garbage", "[1,2]", R"({"type":"pin","link":"NoSuchLink"})",
                                R"({"type":"drag","link":"RightHand","target":[1,"x",0]})", R"({"type":"fly"})"}) {
    c.send(bad);
    const json e = c.readType("error");
    ASSERT_FALSE(e.is_discarded()) << bad;
    EXPECT_FALSE(e["message"].get<std::string>().empty());
  }
  // Hand target 10 cm away from where it is.
  Data data(model);
  forwardKinematics(model, data, q0);
  const auto hand = model.linkId("RightHand");
  const auto foot = model.linkId("LeftFoot");
  const Vector3d start = data.link[static_cast<std::size_t>(hand.value)].p;
  const Vector3d foot0 = data.link[static_cast<std::size_t>(foot.value)].p;
  const Vector3d target = start + Vector3d(0.0, -0.1, 0.05);
  c.send(R"({"type":"pin","link":"LeftFoot"})");
  c.send(json{{"type", "drag"}, {"link", "RightHand"}, {"target", {target.x(), target.y(), target.z()}}}.dump());
  json last;
  for (int i = 0; i < 400; ++i) {  // 2 s at 200 Hz
    last = c.readType("frame");
    ASSERT_FALSE(last.is_discarded());
  }
  EXPECT_EQ(last["pins"], json::array({"LeftFoot"}));
  EXPECT_EQ(last["drags"], json::array({"RightHand"}));
  const auto& h = last["links"][static_cast<std::size_t>(hand.value)];
  const auto& f = last["links"][static_cast<std::size_t>(foot.value)];
  EXPECT_LT((Vector3d(h[0], h[1], h[2]) - target).norm(), 0.01);
  EXPECT_LT((Vector3d(f[0], f[1], f[2]) - foot0).norm(), 1e-3);
  const json datagram = json::parse(robot.receive(), nullptr, false);
  ASSERT_FALSE(datagram.is_discarded());
  EXPECT_EQ(datagram["type"], "frame");
  EXPECT_EQ(datagram["q"].size(), last["q"].size());
  c.send(R"({"type":"reset"})");
  for (int i = 0; i < 20; ++i) last = c.readType("frame");
  EXPECT_TRUE(last["pins"].empty());
  server.stop();
  runner.join();
  EXPECT_EQ(summary.client_errors, 5);
  EXPECT_GT(summary.udp_messages, 400);

  ServerOptions bad = ephemeral();
  bad.udp_out = "127.0.0.1";
  EXPECT_THROW(Server(model, q0, bad), InvalidArgument);
}

/// GET `target` from the server; returns (status, body).
std::pair<int, std::string> httpGet(int port, const std::string& target) {
  namespace http = beast::http;
  asio::io_context io;
  tcp::socket socket(io);
  socket.connect({asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(port)});
  http::request<http::empty_body> req{http::verb::get, target, 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(socket, req);
  beast::flat_buffer b;
  http::response<http::string_body> res;
  http::read(socket, b, res);
  return {static_cast<int>(res.result_int()), res.body()};
}

TEST(Server, HttpRootServesStaticFilesOnTheWebSocketPort) {
  const Model model = io::loadModel(modelSpec("human48")).model;
  const auto root = std::filesystem::temp_directory_path() / ("kinetrack_http_root_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "js");
  std::ofstream(root / "index.html") << "<html>viewer</html>";
  std::ofstream(root / "js" / "app.js") << "console.log(1);";
  ServerOptions o = ephemeral();
  o.http_root = root.string();
  Server server(model, Configuration(model), o);
  std::thread runner([&] { server.run(false); });
  EXPECT_EQ(httpGet(server.wsPort(), "/?ws=auto"), std::make_pair(200, std::string("<html>viewer</html>")));
  EXPECT_EQ(httpGet(server.wsPort(), "/js/app.js").second, "console.log(1);");
  EXPECT_EQ(httpGet(server.wsPort(), "/missing.html").first, 404);
  EXPECT_EQ(httpGet(server.wsPort(), "/../etc/passwd").first, 400);
  Client c(server.wsPort());  // and WebSocket on the same port
  EXPECT_EQ(c.readType("hello")["mode"], "interactive");
  server.stop();
  runner.join();
  std::filesystem::remove_all(root);
}

// Files from memory (the bundled page, the model's meshes) before --http-root, the hello naming
// the geometry and the muscles, and every frame of an OpenSim model carrying its muscle paths,
// each the muscle's drawn path at the streamed pose.
TEST(Server, ServesFilesFromMemoryAndStreamsMusclePaths) {
  KINETRACK_REQUIRE_SHARED(osim_path, "data/opensim/gait2354_walk/subject01_simbody.osim");
  auto osim = std::make_shared<const io::OpenSimModel>(io::readOpenSimModel(osim_path));
  auto paths = std::make_shared<const muscles::MusclePaths>(osim, io::readOpenSimMuscles(osim_path));
  const Model& model = *osim->model;
  ServerOptions o = ephemeral();
  o.interactive_rate = 200.0;
  o.files["/meshes.js"] = "window.KINETRACK_GEOMETRY = {};";
  o.files["/index.html"] = "<html>bundled</html>";
  o.muscles = paths;
  Server server(model, Configuration(model), o);
  std::thread runner([&] { server.run(false); });
  EXPECT_EQ(httpGet(server.wsPort(), "/"), std::make_pair(200, std::string("<html>bundled</html>")));
  EXPECT_EQ(httpGet(server.wsPort(), "/meshes.js").second, "window.KINETRACK_GEOMETRY = {};");
  EXPECT_EQ(httpGet(server.wsPort(), "/missing.js").first, 404);
  Client c(server.wsPort());
  const json hello = c.readType("hello");
  EXPECT_EQ(hello["geometry"], "/meshes.js");
  ASSERT_EQ(hello["muscles"].size(), 54U);
  EXPECT_EQ(hello["model"]["up"], json::array({0.0, 1.0, 0.0}));
  const json frame = c.readType("frame");
  ASSERT_EQ(frame["muscles"].size(), 54U);
  // Each muscle's points are its drawn path at the frame's pose (4 decimals: 0.1 mm).
  Configuration q(model);
  for (int j = 0; j < model.numJoints(); ++j) q.joints[j] = frame["q"][static_cast<std::size_t>(7 + j)].get<double>();
  muscles::MusclePathData work(*paths);
  framesForwardKinematics(paths->model(), work.kin, q);
  double worst = 0.0;
  for (int k = 0; k < 54; ++k) {
    std::vector<Vector3d> expected;
    paths->drawnPath(k, q, work, expected);
    const json& got = frame["muscles"][static_cast<std::size_t>(k)];
    ASSERT_EQ(got.size(), 3 * expected.size()) << paths->set().muscles[static_cast<std::size_t>(k)].name;
    for (std::size_t i = 0; i < expected.size(); ++i)
      worst =
          std::max(worst, (Vector3d(got[3 * i], got[3 * i + 1], got[3 * i + 2]) - expected[i]).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(worst, 5.1e-5);
  server.stop();
  runner.join();
  // Muscles of another model are refused.
  ServerOptions wrong = ephemeral();
  wrong.muscles = paths;
  const Model human = io::loadModel(modelSpec("human48")).model;
  EXPECT_THROW(Server(human, Configuration(human), wrong), InvalidArgument);
}

}  // namespace KINETRACK_UNITY_ID
}  // namespace kinetrack::stream
