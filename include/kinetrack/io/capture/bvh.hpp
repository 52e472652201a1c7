#pragma once
// BVH (Biovision hierarchy) reading. Any channel order and rotation order per joint, End Sites,
// position channels on any joint, CRLF line endings, tabs, numbers like ".0083". Errors name the
// file, line and field (kinetrack::ParseError).
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "kinetrack/io/capture/motion_clip.hpp"

namespace kinetrack::io {

enum class BvhChannel : std::uint8_t { Xposition, Yposition, Zposition, Xrotation, Yrotation, Zrotation };

struct BvhJoint {
  std::string name;
  int parent = -1;                     ///< index into BvhFile::joints, −1 for the root
  Vector3d offset = Vector3d::Zero();  ///< in the parent's frame, file units, file axes (Y up)
  std::vector<BvhChannel> channels;    ///< in file order
  int first_channel = 0;               ///< column of its first channel in a motion row
  bool end_site = false;               ///< an "End Site" (no channels, no name in the file)
};

struct BvhFile {
  std::string source;
  std::vector<BvhJoint> joints;  ///< parents before children, End Sites included
  int num_channels = 0;
  double frame_time = 0.0;  ///< s
  Eigen::MatrixXd motion;   ///< (frames × num_channels), file units and degrees; NaN kept
};

/// Parses a BVH file. Throws ParseError (file:line: what) for a missing file, a malformed
/// hierarchy (unexpected token, bad channel name or count, duplicate joint name), a frame time
/// ≤ 0, a frame row with the wrong number of values or a non-numeric value (naming the joint and
/// channel), and fewer frames than declared (truncated file). "nan" values are kept as NaN.
BvhFile readBvh(const std::string& path);
BvhFile parseBvh(const std::string& text, const std::string& source);

enum class BvhUnits : std::uint8_t { Auto, Metres, Centimetres, Inches, CmuUnits };

/// How a joint's position channels combine with its OFFSET. Exporters differ: reactidle and
/// iClone roots store motion relative to the OFFSET (channels near 0), Bandai's Hips and
/// reactidle's non-root joints store the absolute local position (channels ≈ OFFSET).
enum class BvhPositionChannels : std::uint8_t {
  Auto,          ///< per joint: replace when the mean vertical channel is nearer the OFFSET than 0
  AddToOffset,   ///< translation = OFFSET + channels
  ReplaceOffset  ///< translation = channels
};

struct BvhOptions {
  /// Length unit of the file. Auto: from the rest-pose height of the skeleton (a person of
  /// 1–2.3 m): 1–2.3 → m, 100–230 → cm, 40–90 → inches, 17–40 → CMU units (0.056444 m).
  BvhUnits units = BvhUnits::Auto;
  /// Convert the Y-up BVH world to kinetrack's Z-up world: (x, y, z)_BVH → (z, x, y).
  bool y_up = true;
  /// Fill MotionClip::linear_velocity / angular_velocity (computeVelocities). Off leaves them
  /// empty (the tracker interpolates between frames and does not read them).
  bool velocities = true;
  BvhPositionChannels position_channels = BvhPositionChannels::Auto;
};

/// Per joint (index into BvhFile::joints): 1 when its position channels replace its OFFSET under
/// `rule` (Auto: decided from the data, see BvhPositionChannels), 0 when they add to it.
std::vector<std::uint8_t> bvhChannelsReplaceOffset(const BvhFile& file, BvhPositionChannels rule);

/// Metres per file unit for `units` (Auto: detected from `file`'s rest pose).
double bvhScale(const BvhFile& file, BvhUnits units);

/// World poses of every joint (End Sites excluded) at every frame by forward kinematics of the
/// BVH skeleton: local transform = translation(offset and position channels, see
/// BvhPositionChannels) · rotation channels in file order (intrinsic). Converted to metres and Z up; velocities by
/// central differences. Frames with a NaN channel mark the joints it affects (and their descendants) invalid.
MotionClip bvhToClip(const BvhFile& file, const BvhOptions& options = {});

/// The skeleton's rest pose (every channel 0, position channels added to the OFFSETs) as a
/// one-frame clip with bvhToClip's segments, units and axes: the calibration pose of most BVH
/// skeletons (a T-pose for CMU, Bandai, iClone; see ../shared/data/README.md).
MotionClip bvhRestPose(const BvhFile& file, const BvhOptions& options = {});

const char* toString(BvhChannel c);

/// The units of a name: "auto", "m", "cm", "in", "cmu" (the CLI's --units, the Python readers'
/// units=). Throws InvalidArgument listing the names otherwise.
BvhUnits parseBvhUnits(std::string_view name);

}  // namespace kinetrack::io

#include <vector>

#include "kinetrack/model/configuration.hpp"

namespace kinetrack::io {

/// A model that reproduces the BVH skeleton exactly (`--model from-clip`): floating base = the
/// root joint (its channels drive the base pose); every other joint's position channels become
/// prismatic joints and its rotation channels revolute joints in channel order (intermediate
/// massless links "<name>_f1", …; the last link carries the BVH joint's name), with axes and
/// OFFSETs in kinetrack's frame (metres, Z up, same mapping as bvhToClip); a joint without
/// channels becomes a fixed link; End Sites become Fixed frames "<parent>_End". Joint names are
/// "<bvh joint>_<channel>" (e.g. "LeftArm_Zrotation"). Joints are continuous (no limits).
Model modelFromBvh(const BvhFile& file, const BvhOptions& options = {});

/// Every frame of the file as a configuration of modelFromBvh(file, options): the clip's own
/// joint angles (rad) and translations (m) — ground truth for tracking it. NaN channels give NaN
/// coordinates (gaps). Throws InvalidArgument when `model` lacks a joint of the file.
std::vector<Configuration> bvhConfigurations(const Model& model, const BvhFile& file, const BvhOptions& options = {});

}  // namespace kinetrack::io
