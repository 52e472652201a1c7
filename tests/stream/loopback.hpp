#pragma once
// Loopback helpers of the server tests: the shared clients (testing/loopback.hpp), a model spec
// by name and ephemeral ports.
#include <string>

#include "kinetrack/io/model/model_source.hpp"
#include "kinetrack/stream/server.hpp"
#include "testing/loopback.hpp"

namespace kinetrack::stream::loopback {

using Client = kinetrack::testing::WsClient;
using kinetrack::testing::UdpSender;

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

}  // namespace kinetrack::stream::loopback
