#pragma once
// Private to kinetrack_stream: what the server adds to the viewer protocol besides the tracker's
// own messages (docs/streaming.md): the hello's `geometry` and `muscles`, and each frame's muscle
// paths.
#include <memory>
#include <string>
#include <vector>

#include "kinetrack/muscles/muscle_paths.hpp"
#include "kinetrack/stream/server.hpp"

namespace kinetrack::stream {

/// The hello with `"geometry": "/meshes.js"` when options.files serves it and the muscle names
/// when options.muscles is set; unchanged otherwise.
std::string decorateHello(const std::string& hello, const ServerOptions& options);

/// Appends every muscle's drawn path (MusclePaths::drawnPath, 0.1 mm) to frame messages. Not
/// thread-safe: the tracking (or interactive) thread owns it.
class MuscleFrames {
 public:
  /// Throws InvalidArgument when the paths' model is not `streamed` (other link or joint count).
  MuscleFrames(std::shared_ptr<const muscles::MusclePaths> paths, const Model& streamed);
  /// The bytes append() adds at most (for the message's reserve).
  [[nodiscard]] std::size_t messageBytes() const { return message_bytes_; }
  /// Turns the frame message's closing brace into `,"muscles":[[x,y,z,…],…]}` at q. No allocation
  /// once `msg` has reserved messageBytes() more.
  void append(const Configuration& q, std::string& msg);

 private:
  std::shared_ptr<const muscles::MusclePaths> paths_;
  muscles::MusclePathData data_;
  std::vector<Vector3d> points_;
  std::size_t message_bytes_ = 0;
};

}  // namespace kinetrack::stream
