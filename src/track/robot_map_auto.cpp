// The automatic robot map (robot_map_auto.hpp): the limbs of a humanoid from its kinematic tree
// and its zero-pose geometry, then the links that carry the person's segments along each limb.
#include "kinetrack/track/robot_map_auto.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/human_models.hpp"

namespace kinetrack::track {
namespace {

// Fractions of the robot's height H (its extent along up) unless stated otherwise.
constexpr double kLimbMin = 0.2;     // a limb runs at least this far along the tree from its branch
constexpr double kFootBand = 0.25;   // both feet end within this of the lowest foot
constexpr double kHandSpan = 0.15;   // children all ending within this of a link: fingers, toes
constexpr double kSideMin = 0.02;    // an arm ends at least this far to its side of its branch
constexpr double kBoneRatio = 0.35;  // × the limb's largest gap: a bone between joint clusters …
constexpr double kBoneMin = 0.06;    // … or this, whichever is shorter
constexpr double kSideTie = 1e-6;    // lateral means closer than this are a tie (names decide)
constexpr double kSamePlace = 0.01;  // joints closer than this are at one place (one ball joint)

// The model's tree and zero-pose geometry, and the tree walks the rules need.
class Tree {
 public:
  explicit Tree(const Model& m) : model(m), data(m) {
    framesForwardKinematics(m, data, Configuration(m));
    const auto n = static_cast<std::size_t>(m.numLinks());
    children.resize(n);
    depth.assign(n, 0);
    frames.resize(n);
    for (int l = 1; l < m.numLinks(); ++l) {  // parents come before children
      const int p = m.parent(LinkId(l)).value;
      children[static_cast<std::size_t>(p)].push_back(l);
      depth[static_cast<std::size_t>(l)] = depth[static_cast<std::size_t>(p)] + 1;
    }
    up = m.up();
    face(std::abs(up.x()) < 0.9 ? Vector3d::UnitX() : Vector3d::UnitY());
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (int f = 0; f < m.numFrames(); ++f) {
      if (m.frameKind(FrameId(f)) == FrameKind::User) continue;  // markers and sites are not the body
      frames[static_cast<std::size_t>(m.frameLink(FrameId(f)).value)].push_back(f);
      const double h = up.dot(data.frame[static_cast<std::size_t>(f)].p);
      lo = std::min(lo, h);
      hi = std::max(hi, h);
    }
    height = hi - lo;
  }

  // Forward (made normal to up) and left = up × forward.
  void face(const Vector3d& direction) {
    forward = (direction - up.dot(direction) * up).normalized();
    left = up.cross(forward);
  }

  [[nodiscard]] const Vector3d& at(int l) const { return data.link[static_cast<std::size_t>(l)].p; }
  [[nodiscard]] const std::string& name(int l) const { return model.linkName(LinkId(l)); }
  [[nodiscard]] int parent(int l) const { return model.parent(LinkId(l)).value; }
  [[nodiscard]] double lateral(const Vector3d& p) const { return left.dot(p); }
  [[nodiscard]] double lowest(int l) const {  // along up, over the link's own and fixed frames
    double h = std::numeric_limits<double>::infinity();
    for (const int f : frames[static_cast<std::size_t>(l)])
      h = std::min(h, up.dot(data.frame[static_cast<std::size_t>(f)].p));
    return h;
  }
  [[nodiscard]] bool isLeaf(int l) const { return children[static_cast<std::size_t>(l)].empty(); }
  [[nodiscard]] bool within(int l, int ancestor) const {  // l is `ancestor` or below it
    while (l >= 0 && depth[static_cast<std::size_t>(l)] > depth[static_cast<std::size_t>(ancestor)]) l = parent(l);
    return l == ancestor;
  }
  [[nodiscard]] int commonLink(int a, int b) const {  // deepest common ancestor (or a, b)
    while (depth[static_cast<std::size_t>(a)] > depth[static_cast<std::size_t>(b)]) a = parent(a);
    while (depth[static_cast<std::size_t>(b)] > depth[static_cast<std::size_t>(a)]) b = parent(b);
    while (a != b) a = parent(a), b = parent(b);
    return a;
  }
  [[nodiscard]] int childToward(int ancestor, int l) const {  // the child of `ancestor` above l
    while (parent(l) != ancestor) l = parent(l);
    return l;
  }
  // Distance along the tree (joint to joint) from `ancestor` down to l.
  [[nodiscard]] double treeLength(int ancestor, int l) const {
    double s = 0.0;
    for (; l != ancestor; l = parent(l)) s += (at(l) - at(parent(l))).norm();
    return s;
  }
  [[nodiscard]] std::vector<int> leavesBelow(int l) const {
    std::vector<int> out, stack{l};
    while (!stack.empty()) {
      const int k = stack.back();
      stack.pop_back();
      if (isLeaf(k)) out.push_back(k);
      for (const int c : children[static_cast<std::size_t>(k)]) stack.push_back(c);
    }
    return out;
  }
  // The end of the limb that starts at `first` and leads to `leaf`: the first link on the way
  // whose (several) children all end within kHandSpan·H of it (a palm before its fingers, a foot
  // before its toes), else the leaf.
  [[nodiscard]] int limbEnd(int first, int leaf) const {
    std::vector<int> path;
    for (int l = leaf; l != first; l = parent(l)) path.push_back(l);
    path.push_back(first);
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      if (children[static_cast<std::size_t>(*it)].size() < 2) continue;
      const auto ends = leavesBelow(*it);
      if (std::all_of(ends.begin(), ends.end(), [&](int e) { return treeLength(*it, e) <= kHandSpan * height; }))
        return *it;
    }
    return leaf;
  }
  // Links from `first` down to `last`, in that order.
  [[nodiscard]] std::vector<int> links(int first, int last) const {
    std::vector<int> out;
    for (int l = last; l != first; l = parent(l)) out.push_back(l);
    out.push_back(first);
    std::reverse(out.begin(), out.end());
    return out;
  }

  const Model& model;
  Data data;
  std::vector<std::vector<int>> children;
  std::vector<int> depth;
  std::vector<std::vector<int>> frames;  // per link: its body frame and fixed frames
  Vector3d up, forward, left;
  double height = 0.0;
};

// Left (+1), right (−1) or undecided (0) by name: left/l_/L… against right/r_/R….
int sideOfName(const std::string& name) {
  std::string s;
  for (const char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto marks = [&](const std::string& word, const std::string& letter) {
    return s.starts_with(word) || s.find("_" + word) != std::string::npos || s.starts_with(letter + "_") ||
           s.find("_" + letter + "_") != std::string::npos || s.ends_with("_" + letter) ||
           (name.size() > 1 && name[0] == static_cast<char>(std::toupper(letter[0])) &&
            std::isupper(static_cast<unsigned char>(name[1])));
  };
  return (marks("left", "l") ? 1 : 0) - (marks("right", "r") ? 1 : 0);
}

// One limb: its links from the branch on, the joint clusters and the links that carry segments.
struct Limb {
  std::vector<int> links;                   // the link after the branch … the limb's end
  std::vector<std::vector<int>> clusters;   // indices into links, each a run of joints close together
  int upper = -1, lower = -1, distal = -1;  // UpperArm/Leg, ForeArm/LowerLeg, Hand/Foot (links)
  int before = -1, after = -1;              // Shoulder (arms) and Toe (legs), when found
  std::size_t middle = 0;                   // the elbow/knee cluster
};

[[noreturn]] void fail(const Model& m, const std::string& what) {
  throw InvalidArgument("auto robot map for '" + m.name() + "': " + what);
}

std::string jointList(const Tree& t, const Limb& limb, const std::vector<int>& cluster) {
  std::string s;
  for (const int i : cluster) s += (s.empty() ? "" : " ") + t.model.jointName(JointId(limb.links[i] - 1));
  return "[" + s + "]";
}

// Clusters the joints of `links` and picks the segment links (robot_map_auto.hpp).
Limb analyseLimb(const Tree& t, std::vector<int> links, const std::string& what, const char* middle) {
  Limb limb;
  limb.links = std::move(links);
  const std::size_t m = limb.links.size();
  // Each joint at the point of its axis line nearest the previous joint's.
  std::vector<Vector3d> e(m);
  for (std::size_t i = 0; i < m; ++i) {
    const int j = limb.links[i] - 1;
    const Vector3d& p = t.at(limb.links[i]);
    const JointType type = t.model.jointType(JointId(j));
    if (i > 0 && (type == JointType::Revolute || type == JointType::Continuous)) {
      const Vector3d& a = t.data.joint_axis[static_cast<std::size_t>(j)];
      e[i] = p + a * a.dot(e[i - 1] - p);
    } else {
      e[i] = p;
    }
  }
  std::vector<double> gap(m - 1);
  double largest = 0.0;
  for (std::size_t i = 0; i + 1 < m; ++i) largest = std::max(largest, gap[i] = (e[i + 1] - e[i]).norm());
  double end_gap = 0.0;  // to the end link's farthest frame
  for (const int f : t.frames[static_cast<std::size_t>(limb.links.back())])
    end_gap = std::max(end_gap, (t.data.frame[static_cast<std::size_t>(f)].p - e[m - 1]).norm());
  largest = std::max(largest, end_gap);
  const double bone = std::min(kBoneRatio * largest, kBoneMin * t.height);
  std::vector<double> bones;
  limb.clusters.push_back({0});
  for (std::size_t i = 0; i + 1 < m; ++i) {
    if (gap[i] >= bone && gap[i] > 0.0) {
      bones.push_back(gap[i]);
      limb.clusters.emplace_back();
    }
    limb.clusters.back().push_back(static_cast<int>(i + 1));
  }
  // A joint at the place of the next cluster's first joint is part of that joint (a ball joint
  // whose first axis runs along the bone before it, e.g. a toe's roll: its nearest point lies back
  // at the ankle).
  for (std::size_t c = 0; c + 1 < limb.clusters.size(); ++c)
    while (limb.clusters[c].size() > 1 && (t.at(limb.links[static_cast<std::size_t>(limb.clusters[c].back())]) -
                                           t.at(limb.links[static_cast<std::size_t>(limb.clusters[c + 1].front())]))
                                                  .norm() < kSamePlace * t.height) {
      limb.clusters[c + 1].insert(limb.clusters[c + 1].begin(), limb.clusters[c].back());
      limb.clusters[c].pop_back();
    }
  const std::size_t real = limb.clusters.size();  // a last bone to the end frame adds no joints
  if (end_gap >= bone && end_gap > 0.0) bones.push_back(end_gap);
  // The upper and lower limb: the consecutive bones whose shorter one is longest (then the
  // longer pair, then the first), around the elbow/knee cluster k.
  std::size_t k = 1;
  for (std::size_t i = 2; i < bones.size(); ++i) {
    const double a = std::min(bones[i - 1], bones[i]), b = std::min(bones[k - 1], bones[k]);
    if (a > b || (a == b && bones[i - 1] + bones[i] > bones[k - 1] + bones[k])) k = i;
  }
  if (bones.empty() || k >= real)
    fail(t.model,
         fmt::format("the {} (links '{}' … '{}') has no {}: its joints lie within {:.3f} m of each other", what,
                     t.name(limb.links.front()), t.name(limb.links.back()), middle, bones.empty() ? largest : bone));
  auto last = [&](std::size_t c) { return limb.links[static_cast<std::size_t>(limb.clusters[c].back())]; };
  // The elbow/knee's link: after the cluster's last joint at the joint centre (where its first
  // joint is). The calibration takes a segment's bone from its frame origin to the next segment's,
  // so a forearm link whose origin lies down the forearm (the G1's wrist roll, mid-forearm) would
  // bend the upper arm's bone; the joints beyond then belong to the hand when no wrist follows.
  const std::vector<int>& joint_centre = limb.clusters[k];
  std::size_t centre = 0;
  for (std::size_t i = 1; i < joint_centre.size(); ++i)
    if ((t.at(limb.links[static_cast<std::size_t>(joint_centre[i])]) -
         t.at(limb.links[static_cast<std::size_t>(joint_centre[0])]))
            .norm() < kSamePlace * t.height)
      centre = i;
  limb.middle = k;
  limb.upper = last(k - 1);
  limb.lower = limb.links[static_cast<std::size_t>(joint_centre[centre])];
  if (k + 1 < real)
    limb.distal = last(k + 1);
  else if (centre + 1 < joint_centre.size())
    limb.distal = last(k);
  if (k >= 2) limb.before = last(k - 2);
  if (k + 2 < real) limb.after = last(k + 2);
  return limb;
}

// Forward from the knees: a knee bends (towards its farther limit) so that the foot moves
// backwards. The sum over both knees' joints of the foot's horizontal motion, weighted by how
// lopsided each joint's range is; zero when the knees do not tell (symmetric or no limits).
Vector3d backwardsFromKnees(const Tree& t, const std::vector<const Limb*>& legs) {
  Vector3d v = Vector3d::Zero();
  for (const Limb* leg : legs) {
    const Vector3d& end = t.at(leg->links.back());
    for (const int i : leg->clusters[leg->middle]) {
      const int j = leg->links[static_cast<std::size_t>(i)] - 1;
      const JointType type = t.model.jointType(JointId(j));
      const double lo = t.model.lowerPositionLimits()[j], hi = t.model.upperPositionLimits()[j];
      if ((type != JointType::Revolute && type != JointType::Continuous) || !std::isfinite(lo) || !std::isfinite(hi))
        continue;
      const double bend = std::abs(hi) - std::abs(lo);  // > 0: bends towards +; the weight
      const Vector3d& a = t.data.joint_axis[static_cast<std::size_t>(j)];
      v += bend * a.cross(end - t.at(leg->links[static_cast<std::size_t>(i)]));
    }
  }
  return v - t.up.dot(v) * t.up;
}

double meanLateral(const Tree& t, const std::vector<int>& links, const Vector3d& origin) {
  double s = 0.0;
  for (const int l : links) s += t.lateral(t.at(l) - origin);
  return s / static_cast<double>(links.size());
}

// Orders a pair of limbs (first, second) as (left, right): by mean lateral coordinate, names on a tie.
bool firstIsLeft(const Tree& t, const std::vector<int>& a, const std::vector<int>& b, const Vector3d& origin,
                 const std::string& what) {
  const double la = meanLateral(t, a, origin), lb = meanLateral(t, b, origin);
  if (std::abs(la - lb) > kSideTie * t.height) return la > lb;
  int sa = 0, sb = 0;
  for (const int l : a) sa += sideOfName(t.name(l)) + sideOfName(t.model.jointName(JointId(l - 1)));
  for (const int l : b) sb += sideOfName(t.name(l)) + sideOfName(t.model.jointName(JointId(l - 1)));
  if (sa == sb)
    fail(t.model, fmt::format("cannot tell the left {0} from the right: the {0}s ending at '{1}' and '{2}' lie at the "
                              "same lateral coordinate and their names do not say",
                              what, t.name(a.back()), t.name(b.back())));
  return sa > sb;
}

std::string describeLimb(const Tree& t, const Limb& limb, const std::string& side, const char* const roles[3],
                         const char* const segments[3]) {
  std::string s = side + ":";
  const int picked[3] = {limb.upper, limb.lower, limb.distal};
  for (std::size_t c = 0; c < limb.clusters.size(); ++c) {
    const int l = limb.links[static_cast<std::size_t>(limb.clusters[c].back())];
    std::string role = "extra";
    for (int r = 0; r < 3; ++r)
      if (picked[r] == l) role = std::string(roles[r]) + " -> " + t.name(l) + " (" + side + segments[r] + ")";
    if (c == limb.middle && l != limb.lower)  // the joint centre's link, and the joints beyond it
      role = std::string(roles[1]) + " -> " + t.name(limb.lower) + " (" + side + segments[1] + ")" +
             (l == limb.distal ? ", then " + t.name(l) + " (" + side + segments[2] + ")" : "");
    if (l == limb.before) role = "shoulder girdle -> " + t.name(l) + " (" + side + "Shoulder)";
    if (l == limb.after) role = "toes -> " + t.name(l) + " (" + side + "Toe)";
    s += " " + role + " " + jointList(t, limb, limb.clusters[c]) + ";";
  }
  s.back() = '.';
  return s;
}

double clean(double x) { return std::abs(x) < 5e-4 ? 0.0 : x; }  // no "-0" in the description

}  // namespace

io::SegmentMap autoRobotMap(const Model& robot) {
  Tree t(robot);
  const double H = t.height;
  std::vector<int> leaves;
  for (int l = 1; l < robot.numLinks(); ++l)
    if (t.isLeaf(l)) leaves.push_back(l);
  std::stable_sort(leaves.begin(), leaves.end(), [&](int a, int b) { return t.lowest(a) < t.lowest(b); });
  if (leaves.empty()) fail(robot, "found 0 leg chains (needs 2): the model has no moving joint");

  // Legs: the lowest leaf, and the lowest other leaf near the ground on another branch.
  const int foot_a = leaves.front();
  int foot_b = -1;
  for (std::size_t i = 1; i < leaves.size() && foot_b < 0; ++i) {
    const int l = leaves[i];
    if (t.lowest(l) - t.lowest(foot_a) > kFootBand * H) break;
    const int c = t.commonLink(foot_a, l);
    if (t.treeLength(c, foot_a) >= kLimbMin * H && t.treeLength(c, l) >= kLimbMin * H) foot_b = l;
  }
  if (foot_b < 0) {
    const int legs = t.treeLength(0, foot_a) >= kLimbMin * H ? 1 : 0;
    std::string next = "no other chain";
    for (std::size_t i = 1; i < leaves.size(); ++i)
      if (t.commonLink(foot_a, leaves[i]) == 0 || !t.within(leaves[i], t.childToward(0, foot_a))) {
        next = fmt::format("the next lowest chain on another branch ends at '{}', {:.3f} m higher", t.name(leaves[i]),
                           t.lowest(leaves[i]) - t.lowest(foot_a));
        break;
      }
    fail(robot, fmt::format("found {} leg chain{} (needs 2): the lowest chain ends at '{}'; {} (legs end within {:.3f} "
                            "m, a quarter of the robot's height {:.3f} m, of each other and branch at least {:.3f} m "
                            "up the tree)",
                            legs, legs == 1 ? "" : "s", t.name(foot_a), next, kFootBand * H, H, kLimbMin * H));
  }
  const int pelvis = t.commonLink(foot_a, foot_b);
  const int hip_a = t.childToward(pelvis, foot_a), hip_b = t.childToward(pelvis, foot_b);
  const std::vector<int> leg_a = t.links(hip_a, t.limbEnd(hip_a, foot_a));
  const std::vector<int> leg_b = t.links(hip_b, t.limbEnd(hip_b, foot_b));
  const Limb limb_a = analyseLimb(t, leg_a, "leg ending at '" + t.name(leg_a.back()) + "'", "knee");
  const Limb limb_b = analyseLimb(t, leg_b, "leg ending at '" + t.name(leg_b.back()) + "'", "knee");
  const Vector3d backwards = backwardsFromKnees(t, {&limb_a, &limb_b});
  const bool knees_tell = backwards.norm() > 1e-9 * H;
  if (knees_tell) t.face(-backwards);

  // Arms: two long chains from one link, ending on either side of it, the farthest apart.
  std::vector<int> others;
  for (const int l : leaves)
    if (!t.within(l, hip_a) && !t.within(l, hip_b)) others.push_back(l);
  int hand_a = -1, hand_b = -1;
  double widest = -1.0;
  for (std::size_t i = 0; i < others.size(); ++i)
    for (std::size_t j = i + 1; j < others.size(); ++j) {
      const int p = others[i], q = others[j], c = t.commonLink(p, q);
      if (t.treeLength(c, p) < kLimbMin * H || t.treeLength(c, q) < kLimbMin * H) continue;
      const double lp = t.lateral(t.at(p) - t.at(c)), lq = t.lateral(t.at(q) - t.at(c));
      if (!((lp > kSideMin * H && lq < -kSideMin * H) || (lp < -kSideMin * H && lq > kSideMin * H))) continue;
      if (std::abs(lp - lq) > widest) widest = std::abs(lp - lq), hand_a = p, hand_b = q;
    }
  if (hand_a < 0) {
    std::vector<std::string> sides;
    for (const int l : others) {
      const double lat = t.lateral(t.at(l) - t.at(pelvis));
      const std::string side = lat > 0 ? "left" : "right";
      if (std::abs(lat) > kSideMin * H && t.treeLength(t.commonLink(l, pelvis), l) >= kLimbMin * H &&
          std::find_if(sides.begin(), sides.end(), [&](const std::string& s) { return s.starts_with(side); }) ==
              sides.end())
        sides.push_back(side + " (ending at '" + t.name(l) + "')");
    }
    std::string found;
    for (const auto& s : sides) found += (found.empty() ? "" : " and ") + s;
    fail(robot,
         fmt::format("found {} arm chain{} (needs 2){}: arms are two chains of at least {:.3f} m along the tree from "
                     "the link where they branch, ending on either side of it, apart from the legs (ending at '{}' "
                     "and '{}')",
                     sides.size(), sides.size() == 1 ? "" : "s", found.empty() ? "" : ", " + found, kLimbMin * H,
                     t.name(foot_a), t.name(foot_b)));
  }
  const int trunk = t.commonLink(hand_a, hand_b);
  const int shoulder_a = t.childToward(trunk, hand_a), shoulder_b = t.childToward(trunk, hand_b);
  const std::vector<int> arm_a = t.links(shoulder_a, t.limbEnd(shoulder_a, hand_a));
  const std::vector<int> arm_b = t.links(shoulder_b, t.limbEnd(shoulder_b, hand_b));

  // Head: the highest remaining leaf below the trunk that rises above it.
  int head = -1;
  for (const int l : others)
    if (l != trunk && t.within(l, trunk) && !t.within(l, shoulder_a) && !t.within(l, shoulder_b) &&
        t.up.dot(t.at(l) - t.at(trunk)) > 0.0 && (head < 0 || t.up.dot(t.at(l)) > t.up.dot(t.at(head))))
      head = l;
  if (head >= 0) {
    const int neck = t.childToward(trunk, head);
    head = t.limbEnd(neck, head);
  }

  const bool a_left_leg = firstIsLeft(t, leg_a, leg_b, t.at(pelvis), "leg");
  const bool a_left_arm = firstIsLeft(t, arm_a, arm_b, t.at(trunk), "arm");
  const Limb& left_leg = a_left_leg ? limb_a : limb_b;
  const Limb& right_leg = a_left_leg ? limb_b : limb_a;
  const Limb left_arm = analyseLimb(t, a_left_arm ? arm_a : arm_b, "left arm", "elbow");
  const Limb right_arm = analyseLimb(t, a_left_arm ? arm_b : arm_a, "right arm", "elbow");

  std::vector<std::pair<std::string, int>> segment;  // canonical segment → link
  segment.emplace_back("Pelvis", pelvis);
  if (trunk != pelvis) segment.emplace_back("T8", trunk);
  if (head >= 0) segment.emplace_back("Head", head);
  for (const auto& [side, arm] : {std::pair<std::string, const Limb*>{"Right", &right_arm}, {"Left", &left_arm}}) {
    if (arm->before >= 0) segment.emplace_back(side + "Shoulder", arm->before);
    segment.emplace_back(side + "UpperArm", arm->upper);
    segment.emplace_back(side + "ForeArm", arm->lower);
    if (arm->distal >= 0) segment.emplace_back(side + "Hand", arm->distal);
  }
  for (const auto& [side, leg] : {std::pair<std::string, const Limb*>{"Right", &right_leg}, {"Left", &left_leg}}) {
    segment.emplace_back(side + "UpperLeg", leg->upper);
    segment.emplace_back(side + "LowerLeg", leg->lower);
    if (leg->distal >= 0) segment.emplace_back(side + "Foot", leg->distal);
    if (leg->after >= 0) segment.emplace_back(side + "Toe", leg->after);
  }

  io::SegmentMap map;
  map.name = "auto";
  for (const std::string& canonical : humanSegmentNames())  // canonical order
    for (const auto& [name, link] : segment)
      if (name == canonical) map.entries.push_back({name, robot.linkName(LinkId(link)), Matrix3d::Identity(), 1.0});
  static const char* const kArm[3] = {"shoulder", "elbow", "wrist"};
  static const char* const kArmSegments[3] = {"UpperArm", "ForeArm", "Hand"};
  static const char* const kLeg[3] = {"hip", "knee", "ankle"};
  static const char* const kLegSegments[3] = {"UpperLeg", "LowerLeg", "Foot"};
  map.description = fmt::format(
      "Automatic robot map of '{}' (track::autoRobotMap, docs/segment_maps.md): from the kinematic tree and the zero "
      "pose; up ({:.3g}, {:.3g}, {:.3g}), forward ({:.3g}, {:.3g}, {:.3g}) ({}), left = up x forward; height {:.3f} "
      "m. Pelvis: '{}', where the "
      "legs branch (their ends, the lowest: '{}', '{}'). T8: {}, where the arms branch (their ends: '{}', '{}'). "
      "Head: {}. Joint clusters (a cluster's last joint moves the segment's link): {} {} {} {}",
      robot.name(), t.up.x(), t.up.y(), t.up.z(), clean(t.forward.x()), clean(t.forward.y()), clean(t.forward.z()),
      knees_tell ? "the feet move back as the knees bend" : "+X: the knees' limits do not tell", H, t.name(pelvis),
      t.name(foot_a), t.name(foot_b),
      trunk != pelvis ? "'" + t.name(trunk) + "'" : "none (the arms branch at the pelvis link)", t.name(hand_a),
      t.name(hand_b),
      head >= 0 ? "'" + t.name(head) + "', the end of the highest chain above the trunk"
                : "none (no chain rises above the trunk)",
      describeLimb(t, left_arm, "Left", kArm, kArmSegments), describeLimb(t, right_arm, "Right", kArm, kArmSegments),
      describeLimb(t, left_leg, "Left", kLeg, kLegSegments), describeLimb(t, right_leg, "Right", kLeg, kLegSegments));
  return map;
}

}  // namespace kinetrack::track
