#include "kinetrack/io/capture/bvh.hpp"

namespace kinetrack::io {

MotionClip bvhRestPose(const BvhFile& file, const BvhOptions& options) {
  BvhFile rest;  // the hierarchy without the motion (which can be megabytes)
  rest.source = file.source;
  rest.joints = file.joints;
  rest.num_channels = file.num_channels;
  rest.frame_time = file.frame_time;
  rest.motion = Eigen::MatrixXd::Zero(1, file.num_channels);
  BvhOptions o = options;
  // Zero channels with the replace rule would put joints at their parents' origins: the rest
  // pose is the OFFSETs alone. The scale is detected from the rest pose in any case.
  o.position_channels = BvhPositionChannels::AddToOffset;
  return bvhToClip(rest, o);
}

}  // namespace kinetrack::io
