// `kinetrack serve` and `kinetrack replay` from Python (app/serve_job.hpp, the CLI's jobs): a
// Server set up as the CLI sets it up, run on a thread of its own (start / stop, or a `with`
// block), and replay() sending a capture or a marker trial to a server.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <thread>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/serve_job.hpp"

namespace kinetrack::python {
namespace {

py::dict summaryDict(const stream::ServerSummary& s) {
  py::dict d;
  d["datagrams"] = s.datagrams, d["frames"] = s.frames, d["gaps"] = s.gaps, d["truncated"] = s.truncated;
  d["oversized"] = s.oversized, d["malformed"] = s.malformed, d["unsupported"] = s.unsupported;
  d["duplicates"] = s.duplicates, d["out_of_order"] = s.out_of_order, d["skipped"] = s.skipped;
  d["failed"] = s.failed, d["dropped"] = s.dropped, d["clients"] = s.clients, d["client_errors"] = s.client_errors;
  d["ws_messages"] = s.ws_messages, d["udp_messages"] = s.udp_messages, d["inputs_dropped"] = s.inputs_dropped;
  d["latency_p50_us"] = s.latency_p50_us, d["latency_p99_us"] = s.latency_p99_us;
  d["latency_max_us"] = s.latency_max_us, d["seconds"] = s.seconds;
  return d;
}

/// The server and the thread it runs on.
struct PyServer {
  std::unique_ptr<stream::Server> server;
  std::thread thread;
  std::optional<stream::ServerSummary> final;
  bool interactive = false;

  void start() {
    if (thread.joinable()) throw py::value_error("the server is already running");
    thread = std::thread([this] { final = server->run(false); });
  }
  py::dict stop() {
    {
      py::gil_scoped_release release;
      server->stop();
      if (thread.joinable()) thread.join();
    }
    return summaryDict(final ? *final : server->summary());
  }
  ~PyServer() {
    if (thread.joinable()) {
      server->stop();
      thread.join();
    }
  }
};

}  // namespace

void bindServe(py::module_& m) {
  py::class_<PyServer>(m, "Server", R"doc(
`kinetrack serve` (the same job, app::makeServer): live tracking of segment poses (layout: the
subject's MVNX; MXTP or KTP poses over UDP/WebSocket), live marker IK (marker_set, optionally
calibrated on static), live IMU IK (imus=True: model an .osim calibrated by imu_place, KTP poses
carrying one quaternion per <body>_imu frame; imu_setup an IMU IK setup for the rotations, weights
and accuracy) or interactive pin-and-drag (interactive=True). retarget=True: the model is a
robot (URDF, MJCF) and the capture is retargeted onto it as `kinetrack retarget` does (robot map, on the
ground, soles held while the person's feet are down with contacts found as frames arrive, collision
rows; contacts / collisions / collision_margin as retarget's). udp_out="host:port": each frame's joint
state as JSON to that UDP endpoint. port / udp_port 0: free ports
(read ws_port, udp_port). start() runs it on a thread of its own, stop() ends it and returns the
summary (dict: frames, datagrams, rejected counts, latency µs, …); `with kt.Server(...) as s:`
starts and stops it.)doc")
      .def(py::init([](const std::string& model, const std::string& layout, const std::string& marker_set,
                       const std::string& static_trial, bool interactive, bool retarget, const std::string& map,
                       const std::string& solver, double rate, const std::string& host, int port, int udp_port,
                       const std::string& udp_out, bool contacts, bool collisions, double collision_margin, bool imus,
                       const std::string& imu_setup) {
             app::ServeOptions o;
             o.model.model = model;
             o.layout = layout, o.markerset = marker_set, o.static_trial = static_trial;
             o.interactive = interactive, o.retarget = retarget, o.map = map, o.solver = solver, o.rate = rate;
             o.contacts = contacts, o.collisions = collisions, o.collision_margin = collision_margin;
             o.imus = imus, o.imu_setup = imu_setup;
             o.quiet = true;
             o.server.host = host, o.server.ws_port = port, o.server.udp_port = udp_port, o.server.udp_out = udp_out;
             o.server.model_name = model;
             auto s = std::make_unique<PyServer>();
             s->server = released([&] { return app::makeServer(o); });
             s->interactive = interactive;
             return s;
           }),
           py::arg("model") = "human66", py::kw_only(), py::arg("layout") = "", py::arg("marker_set") = "",
           py::arg("static") = "", py::arg("interactive") = false, py::arg("retarget") = false, py::arg("map") = "",
           py::arg("solver") = "dynamical", py::arg("rate") = 0.0, py::arg("host") = "127.0.0.1", py::arg("port") = 0,
           py::arg("udp_port") = 0, py::arg("udp_out") = "", py::arg("contacts") = true, py::arg("collisions") = true,
           py::arg("collision_margin") = 0.01, py::arg("imus") = false, py::arg("imu_setup") = "")
      .def_property_readonly("ws_port", [](const PyServer& s) { return s.server->wsPort(); })
      .def_property_readonly("udp_port", [](const PyServer& s) { return s.server->udpPort(); })
      .def("start", &PyServer::start, "Runs the server on a thread of its own.")
      .def("stop", &PyServer::stop, "Stops it; returns the summary (dict).")
      .def(
          "summary", [](const PyServer& s) { return summaryDict(s.server->summary()); }, "The figures so far (dict).")
      .def(
          "summary_text",
          [](const PyServer& s) {
            return app::serverSummaryText(s.final ? *s.final : s.server->summary(), s.interactive);
          },
          "The table `kinetrack serve` prints.")
      .def("__enter__",
           [](PyServer& s) -> PyServer& {
             s.start();
             return s;
           })
      .def("__exit__", [](PyServer& s, py::object, py::object, py::object) { s.stop(); });

  m.def(
      "replay",
      [](const std::string& input, const std::string& to, const std::string& ws, const std::string& protocol,
         const std::string& marker_set, const std::string& faults, double rate, int loops, int fault_every) {
        app::ReplayOptions o;
        o.input = input, o.to = to, o.ws = ws, o.protocol = protocol, o.markerset = marker_set, o.faults = faults;
        o.rate = rate, o.loops = loops, o.fault_every = fault_every;
        if (o.rate < 0.0) throw py::value_error("rate must be >= 0 (0: the file's own frame rate)");
        if (o.loops < 1) throw py::value_error("loops must be >= 1");
        if (o.fault_every < 1) throw py::value_error("fault_every must be >= 1");
        const app::ReplayResult r = released([&] { return app::runReplay(o); });
        return py::dict(py::arg("protocol") = r.protocol, py::arg("rate") = r.rate, py::arg("frames") = r.frames,
                        py::arg("sent") = r.sent,
                        py::arg("injected") = std::vector<long>(std::begin(r.injected), std::end(r.injected)),
                        py::arg("error_replies") = r.error_replies, py::arg("summary") = app::summaryText(r, o));
      },
      py::arg("input"), py::kw_only(), py::arg("to") = "127.0.0.1:9763", py::arg("ws") = "", py::arg("protocol") = "",
      py::arg("marker_set") = "", py::arg("faults") = "", py::arg("rate") = 0.0, py::arg("loops") = 1,
      py::arg("fault_every") = 10,
      R"doc(`kinetrack replay` (the same job): an MVNX capture (segment poses) or a .c3d/.trc marker trial sent
as MXTP (UDP) or KTP (UDP or WebSocket: ws="host:port") messages at its recorded rate or `rate`,
`loops` times, with faults injected (malformed, truncated, oversized, duplicate, reorder, all) every
fault_every messages. Returns a dict: protocol, rate, frames, sent, injected (5 counts), error_replies
(WebSocket: the server's; -1 over UDP), summary (the CLI's table). Releases the GIL.)doc");
}

}  // namespace kinetrack::python
