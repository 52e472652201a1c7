#pragma once
// Per-segment scaling of a built-in human model (human66, human48) to a subject from a static
// trial, the model-scaling half of OpenSim's Scale tool (the marker-placement half is
// calibrateMarkers). Instead of OpenSim's marker-pair distances, the segment scales are fitted by
// least squares: with the marker set's offsets scaled along with their segments, minimise over
// the scales s and the static pose q
//
//   Σ_i w_i ‖m_i(q; s) − m̂_i‖²  +  w_p ‖s_joints(q)‖²  +  w_s Σ_g (ln s_g)²
//
// (m̂_i the mean static marker positions, w_p the posture prior of MarkerCalibrationOptions, w_s
// the scale prior). Levenberg–Marquardt on the log-scales, the pose re-solved (ik::MarkerIk,
// warm-started) for each evaluation, finite-difference Jacobians. The scale groups (HumanDimensions
// fields; links whose marker offsets scale with them, along the segment's axis or uniformly):
//
//   trunk      pelvis_to_l5 … t8_to_neck, t8_to_shoulder_vertical   L5, L3, T12, T8 (z)
//   head       neck_to_head, head_length                             Neck, Head (uniform)
//   shoulders  t8_to_shoulder_lateral, clavicle                      Right/LeftShoulder (y)
//   upper_arm  upper_arm                                             *UpperArm (y)
//   forearm    forearm                                               *ForeArm (y)
//   hand       hand_com, hand_length                                 *Hand (uniform)
//   pelvis     hip_half_width                                        Pelvis (uniform)
//   thigh      thigh                                                 *UpperLeg (z)
//   shank      shank                                                 *LowerLeg (z)
//   foot       ankle_to_ball_forward, ankle_to_ball_down, toe_length *Foot, *Toe (uniform)
//
// Both sides share a scale (HumanDimensions is symmetric); calibration absorbs the rest.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/ik/marker_ik.hpp"
#include "kinetrack/io/model/marker_set.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::subject {

struct HumanScalingOptions {
  std::string model = "human66";  ///< "human66" or "human48"
  double time_start = -std::numeric_limits<double>::infinity();
  double time_end = std::numeric_limits<double>::infinity();
  /// w_s (m²): a scale of e^±0.1 (±10 %) costs as much as w_s · 0.01 m² of squared marker error.
  double scale_prior = 0.01;
  double min_scale = 0.6, max_scale = 1.6;
  double posture_weight = 1e-3;  ///< w_p (m² per rad²), as MarkerCalibrationOptions::posture_weight
  int max_iterations = 40;
  ik::MarkerIkOptions ik;
};

struct HumanScaling {
  HumanModelOptions options;  ///< the input options with the scaled dimensions: build the model from it
  io::MarkerSet markers;      ///< the input set with every offset scaled along with its segment
  std::vector<std::pair<std::string, double>> scales;  ///< group name → factor, in the order above
  Configuration pose;                                  ///< static pose at the fitted scales
  /// Marker RMS (m) of the static fit with the input dimensions and with the fitted ones.
  double rms_before = 0.0, rms_after = 0.0;
  int iterations = 0;
  int frames_used = 0;  ///< static frames averaged
};

/// Names of the scale groups, in order.
const std::vector<std::string>& humanScaleGroups();

/// `dimensions` with each group's fields multiplied by its factor (one per group, in order), and
/// `set` with its offsets scaled the same way (the links of each group as above; a dummy link
/// <Segment>_f1 counts as its segment). Throws InvalidArgument for a wrong number of factors or a
/// non-positive one.
HumanDimensions scaledHumanDimensions(const HumanDimensions& dimensions, const std::vector<double>& factors);
io::MarkerSet scaledHumanMarkerSet(const io::MarkerSet& set, const std::vector<double>& factors);

/// Fits the segment scales of the built-in human model `options.model` built with `base` (the
/// subject's height and mass) to the mean marker positions of `static_trial`. Throws
/// InvalidArgument for an unknown model, bad options, a set that does not fit the model, or a
/// static trial with no frame in range or fewer than 3 weighted markers.
HumanScaling fitHumanScales(const HumanModelOptions& base, const io::MarkerSet& set,
                            const io::MarkerTrajectories& static_trial, const HumanScalingOptions& options = {});

}  // namespace kinetrack::subject
