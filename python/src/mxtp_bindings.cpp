// kinetrack.encode_mxtp / parse_mxtp: the Xsens MVN network streaming (MXTP) type-02 datagram
// codec of `kinetrack serve` (stream/mxtp.hpp), for scripts that send or inspect live streams.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <string>

#include "bindings.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/stream/mxtp.hpp"

namespace kinetrack::python {

void bindMxtp(py::module_& m) {
  m.attr("MXTP_DEFAULT_PORT") = stream::kMxtpDefaultPort;
  m.def(
      "encode_mxtp",
      [](std::uint32_t sample, std::uint32_t time_ms, const py::array_t<std::int32_t>& ids,
         const py::array_t<double>& positions, const py::array_t<double>& quaternions, int character) {
        const auto n = static_cast<py::ssize_t>(ids.size());
        if (ids.ndim() != 1 || n < 1 || n > static_cast<py::ssize_t>(stream::kMxtpMaxItems))
          throw InvalidArgument("encode_mxtp: ids must be 1-D with 1 to 255 entries");
        if (positions.ndim() != 2 || positions.shape(0) != n || positions.shape(1) != 3)
          throw InvalidArgument("encode_mxtp: positions must have shape (" + std::to_string(n) + ", 3)");
        if (quaternions.ndim() != 2 || quaternions.shape(0) != n || quaternions.shape(1) != 4)
          throw InvalidArgument("encode_mxtp: quaternions must have shape (" + std::to_string(n) + ", 4) (w, x, y, z)");
        if (character < 0 || character > 255) throw InvalidArgument("encode_mxtp: character must be in [0, 255]");
        stream::MxtpPoseDatagram d;
        d.header.sample = sample;
        d.header.time_ms = time_ms;
        d.header.character = static_cast<std::uint8_t>(character);
        d.header.body_segments = static_cast<std::uint8_t>(n);
        d.count = static_cast<int>(n);
        const auto id = ids.unchecked<1>();
        const auto p = positions.unchecked<2>();
        const auto q = quaternions.unchecked<2>();
        for (py::ssize_t i = 0; i < n; ++i) {
          auto& s = d.segments[static_cast<std::size_t>(i)];
          s.id = id(i);
          for (py::ssize_t k = 0; k < 3; ++k) s.position[static_cast<std::size_t>(k)] = static_cast<float>(p(i, k));
          for (py::ssize_t k = 0; k < 4; ++k) s.quaternion[static_cast<std::size_t>(k)] = static_cast<float>(q(i, k));
        }
        std::string out(stream::kMxtpMaxDatagram, '\0');
        const std::size_t size =
            stream::encodeMxtp(d, std::span(reinterpret_cast<std::uint8_t*>(out.data()), out.size()));
        out.resize(size);
        return py::bytes(out);
      },
      py::arg("sample"), py::arg("time_ms"), py::arg("ids"), py::arg("positions"), py::arg("quaternions"),
      py::arg("character") = 0,
      "One MXTP type-02 datagram (bytes): segment ids (1-based), positions (n, 3) in m, quaternions (n, 4) "
      "w, x, y, z; fields big-endian as the Xsens MVN network streaming protocol.");
  m.def(
      "parse_mxtp",
      [](const py::bytes& data) {
        const std::string bytes = data;
        stream::MxtpPoseDatagram d;
        const stream::ParseStatus status =
            stream::parseMxtp(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), d);
        py::dict out;
        out["status"] = std::string(stream::toString(status));
        if (status != stream::ParseStatus::Ok) return out;
        const auto n = static_cast<py::ssize_t>(d.count);
        py::array_t<std::int32_t> ids(n);
        py::array_t<double> p({n, py::ssize_t{3}}), q({n, py::ssize_t{4}});
        auto idw = ids.mutable_unchecked<1>();
        auto pw = p.mutable_unchecked<2>();
        auto qw = q.mutable_unchecked<2>();
        for (py::ssize_t i = 0; i < n; ++i) {
          const auto& s = d.segments[static_cast<std::size_t>(i)];
          idw(i) = s.id;
          for (py::ssize_t k = 0; k < 3; ++k) pw(i, k) = s.position[static_cast<std::size_t>(k)];
          for (py::ssize_t k = 0; k < 4; ++k) qw(i, k) = s.quaternion[static_cast<std::size_t>(k)];
        }
        out["sample"] = d.header.sample;
        out["time_ms"] = d.header.time_ms;
        out["character"] = d.header.character;
        out["ids"] = ids;
        out["positions"] = p;
        out["quaternions"] = q;
        return out;
      },
      py::arg("data"),
      "Parses one MXTP datagram: a dict with 'status' ('ok', 'truncated', 'oversized', 'malformed', "
      "'unsupported') and, when ok, sample, time_ms, character, ids, positions (n, 3), quaternions (n, 4).");
}

}  // namespace kinetrack::python
