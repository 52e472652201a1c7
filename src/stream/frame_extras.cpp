#include "frame_extras.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"

namespace kinetrack::stream {

std::string decorateHello(const std::string& hello, const ServerOptions& options) {
  const bool geometry = options.files.count("/meshes.js") > 0;
  if (!geometry && !options.muscles) return hello;
  nlohmann::json j = nlohmann::json::parse(hello);
  if (geometry) j["geometry"] = "/meshes.js";
  if (options.muscles) {
    std::vector<std::string> names;
    for (const auto& m : options.muscles->set().muscles) names.push_back(m.name);
    j["muscles"] = names;
  }
  return j.dump();
}

MuscleFrames::MuscleFrames(std::shared_ptr<const muscles::MusclePaths> paths, const Model& streamed)
    : paths_(std::move(paths)), data_(*paths_) {
  const Model& m = paths_->model();
  if (m.numLinks() != streamed.numLinks() || m.numJoints() != streamed.numJoints())
    throw InvalidArgument("serve: the muscles' model (" + std::to_string(m.numJoints()) +
                          " joints) is not the streamed model (" + std::to_string(streamed.numJoints()) + " joints)");
  std::size_t points = 0, most = 0;
  for (int k = 0; k < paths_->numMuscles(); ++k) {
    const auto n = static_cast<std::size_t>(paths_->maxDrawnPoints(k));
    points += n;
    most = std::max(most, n);
  }
  points_.reserve(most);
  message_bytes_ = 32 + 8 * static_cast<std::size_t>(paths_->numMuscles()) + 3 * 16 * points;
}

void MuscleFrames::append(const Configuration& q, std::string& msg) {
  if (msg.empty() || msg.back() != '}') return;
  const muscles::MusclePaths& p = *paths_;
  framesForwardKinematics(p.model(), data_.kin, q);
  msg.pop_back();
  auto it = std::back_inserter(msg);
  fmt::format_to(it, ",\"muscles\":[");
  for (int k = 0; k < p.numMuscles(); ++k) {
    points_.clear();
    p.drawnPath(k, q, data_, points_);
    fmt::format_to(it, "{}[", k == 0 ? "" : ",");
    for (std::size_t i = 0; i < points_.size(); ++i)
      fmt::format_to(it, "{}{:.4f},{:.4f},{:.4f}", i == 0 ? "" : ",", points_[i].x(), points_[i].y(), points_[i].z());
    fmt::format_to(it, "]");
  }
  fmt::format_to(it, "]}}");
}

}  // namespace kinetrack::stream
