// Segment mass properties of the built-in human models from
//   P. de Leva (1996), "Adjustments to Zatsiorsky-Seluyanov's segment inertia parameters",
//   J. Biomech. 29(9):1223-1230, Table 4,
// cross-checked against two independent reproductions of the table (the BMClab "Body segment
// parameters" notebook data files BSPmale/BSPfemale_ZdeLeva.txt, M. Duarte, and the deleva.m
// lookup table of R. Gurchiek, 2018). docs/anthropometry.md lists the values and the mapping.
#include "anthropometry.hpp"

#include <array>
#include <cmath>

#include "kinetrack/core/errors.hpp"

namespace kinetrack::detail {

namespace {

// One row of Table 4: segment mass as a fraction of body mass; COM position from the row's
// proximal endpoint and radii of gyration about the sagittal (antero-posterior), transverse
// (medio-lateral) and longitudinal axes, all as fractions of the segment length.
struct Row {
  double mass, com, r_sag, r_trans, r_long;
};

// The rows used, by the endpoints their lengths are measured between (de Leva's abbreviations):
// the ones whose endpoints are the model's joints.
struct Table {
  Row head;          // VERT-CERV: vertex → C7 ("head 2": head and neck)
  Row upper_trunk;   // CERV-XYPH: C7 → xiphoid ("upper trunk 2")
  Row middle_trunk;  // XYPH-OMPH: xiphoid → omphalion
  Row lower_trunk;   // OMPH-MIDH: omphalion → mid-point of the hip joint centres
  Row upper_arm;     // SJC-EJC: shoulder → elbow joint centre
  Row forearm;       // EJC-WJC: elbow → wrist joint centre
  Row hand;          // WJC-DAC3: wrist joint centre → tip of the middle finger ("hand 2")
  Row thigh;         // HJC-KJC: hip → knee joint centre
  Row shank;         // KJC-AJC: knee → ankle joint centre
  Row foot;          // HEEL-TTIP: heel → tip of the longest toe
};

// clang-format off
constexpr Table kMale = {
    {0.0694, 0.5002, 0.303, 0.315, 0.261},
    {0.1596, 0.5066, 0.505, 0.320, 0.465},
    {0.1633, 0.4502, 0.482, 0.383, 0.468},
    {0.1117, 0.6115, 0.615, 0.551, 0.587},
    {0.0271, 0.5772, 0.285, 0.269, 0.158},
    {0.0162, 0.4574, 0.276, 0.265, 0.121},
    {0.0061, 0.3624, 0.288, 0.235, 0.184},
    {0.1416, 0.4095, 0.329, 0.329, 0.149},
    {0.0433, 0.4395, 0.251, 0.246, 0.102},
    {0.0137, 0.4415, 0.257, 0.245, 0.124},
};
constexpr Table kFemale = {
    {0.0668, 0.4841, 0.271, 0.295, 0.261},
    {0.1545, 0.5050, 0.466, 0.314, 0.449},
    {0.1465, 0.4512, 0.433, 0.354, 0.415},
    {0.1247, 0.4920, 0.433, 0.402, 0.444},
    {0.0255, 0.5754, 0.278, 0.260, 0.148},
    {0.0138, 0.4559, 0.261, 0.257, 0.094},
    {0.0056, 0.3427, 0.244, 0.208, 0.154},
    {0.1478, 0.3612, 0.369, 0.364, 0.162},
    {0.0481, 0.4352, 0.267, 0.263, 0.092},
    {0.0129, 0.4014, 0.299, 0.279, 0.139},
};
// clang-format on

// Modelling choices, not from the table: each Shoulder link (clavicle and scapula) takes this
// share of the upper trunk, and the Toe this share of the foot.
constexpr double kShoulderShare = 0.1;
constexpr double kToeShare = 0.15;

// A segment link's part of a table row. The part runs from its link origin along `v` (link
// frame, m) to the next joint or the segment's end; `flipped` when the row's proximal endpoint
// is at the far end of `v` (trunk, neck and head: de Leva measures them from the top).
struct Part {
  const char* link;
  const Row* row;
  double share;  // fraction of the row's mass
  Vector3d v;
  bool flipped;
};

// The part's inertial at body mass fraction `fraction` of `mass`: COM on v at the row's
// fraction (from the proximal end), inertia diagonal in the link axes with the longitudinal
// radius about the link axis nearest v, the sagittal one about x (about z when x is the
// longitudinal axis, as for the foot) and the transverse one about the remaining axis.
Inertial partInertial(const Part& p, double mass) {
  Inertial in;
  in.mass = mass;
  const double c = p.flipped ? 1.0 - p.row->com : p.row->com;
  in.com = c * p.v;
  int lon = 0;
  p.v.cwiseAbs().maxCoeff(&lon);
  const int sag = lon == 0 ? 2 : 0;
  const int trans = 3 - lon - sag;
  const double len = p.v.norm();
  auto moment = [&](double r) { return mass * (r * len) * (r * len); };
  in.inertia(lon, lon) = moment(p.row->r_long);
  in.inertia(sag, sag) = moment(p.row->r_sag);
  in.inertia(trans, trans) = moment(p.row->r_trans);
  return in;
}

// Shares of a row split over consecutive links in proportion to their lengths a and b.
std::array<double, 2> byLength(double a, double b) {
  if (a + b <= 0.0) return {0.5, 0.5};
  return {a / (a + b), b / (a + b)};
}

}  // namespace

std::vector<SegmentInertial> humanSegmentInertials(const HumanDimensions& d, double mass, Sex sex) {
  if (!(mass >= 20.0 && mass <= 300.0))
    throw InvalidArgument("human model: body mass must be within [20, 300] kg, got " + std::to_string(mass));
  const Table& t = sex == Sex::Female ? kFemale : kMale;
  const auto mid = byLength(d.l5_to_l3, d.l3_to_t12);
  const auto up = byLength(d.t12_to_t8, d.t8_to_neck);
  const auto head = byLength(d.neck_to_head, d.head_length);
  const double trunk_up = 1.0 - 2.0 * kShoulderShare;
  const Vector3d foot(d.ankle_to_ball_forward, 0, -d.ankle_to_ball_down);
  const Vector3d z = Vector3d::UnitZ(), y = Vector3d::UnitY(), x = Vector3d::UnitX();
  // humanSegmentNames() order.
  const std::vector<Part> parts = {
      {"Pelvis", &t.lower_trunk, 1.0, d.pelvis_to_l5 * z, true},
      {"L5", &t.middle_trunk, mid[0], d.l5_to_l3 * z, true},
      {"L3", &t.middle_trunk, mid[1], d.l3_to_t12 * z, true},
      {"T12", &t.upper_trunk, trunk_up * up[0], d.t12_to_t8 * z, true},
      {"T8", &t.upper_trunk, trunk_up * up[1], d.t8_to_neck * z, true},
      {"Neck", &t.head, head[0], d.neck_to_head * z, true},
      {"Head", &t.head, head[1], d.head_length * z, true},
      {"RightShoulder", &t.upper_trunk, kShoulderShare, -d.clavicle * y, false},
      {"RightUpperArm", &t.upper_arm, 1.0, -d.upper_arm * y, false},
      {"RightForeArm", &t.forearm, 1.0, -d.forearm * y, false},
      {"RightHand", &t.hand, 1.0, -d.hand_length * y, false},
      {"LeftShoulder", &t.upper_trunk, kShoulderShare, d.clavicle * y, false},
      {"LeftUpperArm", &t.upper_arm, 1.0, d.upper_arm * y, false},
      {"LeftForeArm", &t.forearm, 1.0, d.forearm * y, false},
      {"LeftHand", &t.hand, 1.0, d.hand_length * y, false},
      {"RightUpperLeg", &t.thigh, 1.0, -d.thigh * z, false},
      {"RightLowerLeg", &t.shank, 1.0, -d.shank * z, false},
      {"RightFoot", &t.foot, 1.0 - kToeShare, foot, false},
      {"RightToe", &t.foot, kToeShare, d.toe_length * x, false},
      {"LeftUpperLeg", &t.thigh, 1.0, -d.thigh * z, false},
      {"LeftLowerLeg", &t.shank, 1.0, -d.shank * z, false},
      {"LeftFoot", &t.foot, 1.0 - kToeShare, foot, false},
      {"LeftToe", &t.foot, kToeShare, d.toe_length * x, false},
  };
  // The fractions are normalised so the masses sum to `mass` (the male column sums to 1.0000,
  // the female one to 0.9999).
  double sum = 0.0;
  for (const Part& p : parts) sum += p.row->mass * p.share;
  std::vector<SegmentInertial> out;
  out.reserve(parts.size());
  for (const Part& p : parts) out.push_back({p.link, partInertial(p, mass * p.row->mass * p.share / sum)});
  return out;
}

}  // namespace kinetrack::detail
