#include "viewer_protocol.hpp"

#include <nlohmann/json.hpp>

namespace kinetrack::stream {

std::string parseCommand(const Model& model, const std::string& text, Command& cmd) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return "not JSON: " + text.substr(0, 80);
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    return "expected a JSON object with a string \"type\"";
  const std::string type = j["type"].get<std::string>();
  if (type == "reset") {
    cmd.kind = Command::Kind::Reset;
    return "";
  }
  if (type == "pin")
    cmd.kind = Command::Kind::Pin;
  else if (type == "unpin")
    cmd.kind = Command::Kind::Unpin;
  else if (type == "drag")
    cmd.kind = Command::Kind::Drag;
  else if (type == "release")
    cmd.kind = Command::Kind::Release;
  else
    return "unknown message type '" + type + "' (pin, unpin, drag, release, reset)";
  if (!j.contains("link") || !j["link"].is_string()) return "'" + type + "' needs a string \"link\"";
  const std::string link = j["link"].get<std::string>();
  const auto f = model.findFrame(link);
  if (!f) return "unknown link '" + link + "'";
  cmd.frame = *f;
  if (cmd.kind == Command::Kind::Drag) {
    const auto& t = j.contains("target") ? j["target"] : nlohmann::json();
    if (!t.is_array() || t.size() != 3) return "'drag' needs \"target\": [x, y, z]";
    for (int k = 0; k < 3; ++k) {
      if (!t[static_cast<std::size_t>(k)].is_number()) return "'drag' target entries must be numbers";
      cmd.target[k] = t[static_cast<std::size_t>(k)].get<double>();
    }
    if (!cmd.target.allFinite()) return "'drag' target must be finite";
  }
  return "";
}

std::string errorJson(const std::string& message) {
  return nlohmann::json{{"type", "error"}, {"message", message}}.dump();
}

}  // namespace kinetrack::stream
