// kinetrack.encode_ktp / encode_ktp_json / parse_ktp: the kinetrack input protocol (KTP) of
// `kinetrack serve` (stream/ktp.hpp), for scripts that stream segment poses or markers into it.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/stream/ktp.hpp"

namespace kinetrack::python {
namespace {

/// A frame from (n, 3) positions and optional (n, 4) quaternions (poses when given).
std::unique_ptr<stream::KtpFrame> frameOf(std::uint32_t seq, double time, const std::vector<int>& indices,
                                          py::handle positions, py::handle quaternions) {
  const auto n = static_cast<py::ssize_t>(indices.size());
  if (static_cast<std::size_t>(n) > stream::kKtpMaxItems)
    throw InvalidArgument("KTP: at most " + std::to_string(stream::kKtpMaxItems) + " records per message");
  auto f = std::make_unique<stream::KtpFrame>();
  const bool poses = !quaternions.is_none();
  f->kind = poses ? stream::KtpKind::Poses : stream::KtpKind::Markers;
  f->seq = seq;
  f->time = time;
  f->count = static_cast<int>(n);
  const Array p = checkedArray(positions, {n, 3}, "positions (m)");
  Array q;
  if (poses) q = checkedArray(quaternions, {n, 4}, "quaternions (w, x, y, z)");
  for (py::ssize_t i = 0; i < n; ++i) {
    auto& it = f->items[static_cast<std::size_t>(i)];
    it.index = indices[static_cast<std::size_t>(i)];
    for (py::ssize_t k = 0; k < 3; ++k) it.p[static_cast<std::size_t>(k)] = p.at(i, k);
    if (poses)
      for (py::ssize_t k = 0; k < 4; ++k) it.q[static_cast<std::size_t>(k)] = q.at(i, k);
  }
  return f;
}

stream::KtpKind kindOf(const std::string& kind) {
  if (kind == "poses") return stream::KtpKind::Poses;
  if (kind == "markers") return stream::KtpKind::Markers;
  throw InvalidArgument("KTP kind must be 'poses' or 'markers', got '" + kind + "'");
}

}  // namespace

void bindKtp(py::module_& m) {
  m.attr("KTP_VERSION") = stream::kKtpVersion;
  m.def(
      "encode_ktp",
      [](std::uint32_t seq, double time, const std::vector<int>& indices, py::handle positions,
         py::handle quaternions) {
        const auto f = frameOf(seq, time, indices, positions, quaternions);
        std::string out(stream::kKtpMaxBinary, '\0');
        const std::size_t size =
            stream::encodeKtp(*f, std::span(reinterpret_cast<std::uint8_t*>(out.data()), out.size()));
        if (size == 0) throw InvalidArgument("encode_ktp: indices must be in [0, 65535]");
        out.resize(size);
        return py::bytes(out);
      },
      py::arg("seq"), py::arg("time"), py::arg("indices"), py::arg("positions"), py::arg("quaternions") = py::none(),
      "One binary KTP message (bytes, little-endian): a poses frame when quaternions (n, 4; w, x, y, z) are "
      "given, else a markers frame; indices into the server's input list (hello 'input.names'), positions "
      "(n, 3) in m, time in s. docs/streaming.md.");
  m.def(
      "encode_ktp_json",
      [](std::uint32_t seq, double time, const std::vector<std::string>& names, py::handle positions,
         py::handle quaternions) {
        std::vector<int> indices(names.size());
        for (std::size_t i = 0; i < names.size(); ++i) indices[i] = static_cast<int>(i);
        const auto f = frameOf(seq, time, indices, positions, quaternions);
        std::string out;
        stream::encodeKtpJson(*f, names, out);
        return out;
      },
      py::arg("seq"), py::arg("time"), py::arg("names"), py::arg("positions"), py::arg("quaternions") = py::none(),
      "One JSON KTP message (str): records named by segment or marker name; poses when quaternions are given.");
  m.def(
      "parse_ktp",
      [](py::object data, const std::string& kind, const std::vector<std::string>& names) {
        std::string bytes;
        if (py::isinstance<py::str>(data))
          bytes = data.cast<std::string>();
        else
          bytes = data.cast<py::bytes>();
        auto f = std::make_unique<stream::KtpFrame>();
        const stream::ParseStatus status = stream::parseKtp(
            std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), kindOf(kind), names, *f);
        py::dict out;
        out["status"] = std::string(stream::toString(status));
        out["error"] = std::string(f->errorText());
        if (status != stream::ParseStatus::Ok) return out;
        const auto n = static_cast<py::ssize_t>(f->count);
        py::array_t<std::int32_t> idx(n);
        py::array_t<double> p({n, py::ssize_t{3}}), q({n, py::ssize_t{4}});
        auto iw = idx.mutable_unchecked<1>();
        auto pw = p.mutable_unchecked<2>();
        auto qw = q.mutable_unchecked<2>();
        for (py::ssize_t i = 0; i < n; ++i) {
          const auto& it = f->items[static_cast<std::size_t>(i)];
          iw(i) = it.index;
          for (py::ssize_t k = 0; k < 3; ++k) pw(i, k) = it.p[static_cast<std::size_t>(k)];
          for (py::ssize_t k = 0; k < 4; ++k) qw(i, k) = it.q[static_cast<std::size_t>(k)];
        }
        out["kind"] = std::string(stream::toString(f->kind));
        out["seq"] = f->seq;
        out["time"] = f->time;
        out["indices"] = idx;
        out["positions"] = p;
        if (f->kind == stream::KtpKind::Poses) out["quaternions"] = q;
        return out;
      },
      py::arg("data"), py::arg("kind"), py::arg("names"),
      "Parses one KTP message (bytes: binary or JSON; str: JSON) of kind 'poses' or 'markers' against the "
      "server's input names: a dict with 'status' ('ok', 'truncated', 'oversized', 'malformed', 'unsupported'), "
      "'error' (the reason, naming the field) and, when ok, kind, seq, time, indices, positions (n, 3) and, "
      "for poses, quaternions (n, 4).");
}

}  // namespace kinetrack::python
