#pragma once
// The viewer protocol's client messages (pin, unpin, drag, release, reset) and its error reply,
// as `kinetrack serve` reads and writes them (server.cpp; docs/viewer.md).
#include <string>

#include "kinetrack/model/model.hpp"

namespace kinetrack::stream {

/// A pin/drag command from a client, applied by the interactive loop.
struct Command {
  enum class Kind : std::uint8_t { Pin, Unpin, Drag, Release, Reset } kind = Kind::Reset;
  FrameId frame;
  Vector3d target = Vector3d::Zero();
};

/// Parses one client message of the viewer protocol; returns an error text or "" for a command.
std::string parseCommand(const Model& model, const std::string& text, Command& cmd);

/// The error reply to a client: {"type": "error", "message": …}.
std::string errorJson(const std::string& message);

}  // namespace kinetrack::stream
