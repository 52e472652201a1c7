#include "kinetrack/track/retarget.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/ik/feasible.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/track/retarget_quality.hpp"

namespace kinetrack::track {
namespace {

std::string joinNames(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

int segmentIndex(const io::MotionClip& clip, const std::string& name) {
  const int i = clip.findSegment(name);
  if (i < 0)
    throw InvalidArgument("segment map: clip has no segment '" + name +
                          "' (segments: " + joinNames(clip.segment_names) + ")");
  return i;
}

// The horizontal (normal to `up`) left-right axis of a pose: left minus right of the first pair
// present.
bool lateralAxis(const std::vector<std::string>& frames, const std::vector<Vector3d>& positions, const Vector3d& up,
                 Vector3d& axis) {
  static const char* pairs[][2] = {
      {"LeftUpperLeg", "RightUpperLeg"}, {"LeftUpperArm", "RightUpperArm"}, {"LeftShoulder", "RightShoulder"}};
  for (const auto& p : pairs) {
    const auto l = std::find(frames.begin(), frames.end(), p[0]);
    const auto r = std::find(frames.begin(), frames.end(), p[1]);
    if (l == frames.end() || r == frames.end()) continue;
    Vector3d d = positions[static_cast<std::size_t>(l - frames.begin())] -
                 positions[static_cast<std::size_t>(r - frames.begin())];
    d -= d.dot(up) * up;
    if (d.norm() < 1e-6) continue;
    axis = d.normalized();
    return true;
  }
  return false;
}

/// Mean over the sides of hip → knee → ankle; 0 when no side has all three.
double legLength(const Keypoints& k) {
  double sum = 0.0;
  int sides = 0;
  for (int side = 0; side < 2; ++side) {
    const std::size_t h = keypointIndex(side, kHip), kn = keypointIndex(side, kKnee), a = keypointIndex(side, kAnkle);
    if (!(k.valid[h] && k.valid[kn] && k.valid[a])) continue;
    sum += (k.p[kn] - k.p[h]).norm() + (k.p[a] - k.p[kn]).norm();
    ++sides;
  }
  return sides > 0 ? sum / sides : 0.0;
}

/// Distance from the root to the hip centre (0 without both hips).
double rootToHips(const Keypoints& k, const Vector3d& root) {
  const std::size_t l = keypointIndex(0, kHip), r = keypointIndex(1, kHip);
  if (!(k.valid[l] && k.valid[r])) return 0.0;
  return (0.5 * (k.p[l] + k.p[r]) - root).norm();
}

/// Height of the root above the mean of the ankles along `up` (0 without both ankles).
double standingHeight(const Keypoints& k, const Vector3d& root, const Vector3d& up) {
  const std::size_t l = keypointIndex(0, kAnkle), r = keypointIndex(1, kAnkle);
  if (!(k.valid[l] && k.valid[r])) return 0.0;
  return up.dot(root - 0.5 * (k.p[l] + k.p[r]));
}

/// Where the capture stands: the 5th percentile over its frames of the lowest mapped segment's
/// height along `up` after the clip is turned by `turn` (NaN when no frame has a valid sample).
double clipGround(const io::MotionClip& clip, const std::vector<int>& seg, const Matrix3d& turn, const Vector3d& up) {
  std::vector<double> lows;
  lows.reserve(static_cast<std::size_t>(clip.numFrames()));
  for (int f = 0; f < clip.numFrames(); ++f) {
    double low = std::numeric_limits<double>::infinity();
    for (const int s : seg)
      if (clip.isValid(f, s)) low = std::min(low, up.dot(turn * clip.pose(f, s).p));
    if (std::isfinite(low)) lows.push_back(low);
  }
  if (lows.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto k = static_cast<std::size_t>(0.05 * static_cast<double>(lows.size() - 1));
  std::nth_element(lows.begin(), lows.begin() + static_cast<std::ptrdiff_t>(k), lows.end());
  return lows[k];
}

}  // namespace

std::vector<SurfacePoint> surfacePoints(const Model& model) {
  std::vector<SurfacePoint> out;
  for (const Geom& g : model.geoms()) {
    if (!g.collision) continue;
    auto add = [&](const Vector3d& local, double radius) {
      out.push_back({g.link, Vector3d(g.placement.R * local + g.placement.p), radius});
    };
    const Vector3d& s = g.size;
    switch (g.shape) {
      case GeomShape::Sphere: add(Vector3d::Zero(), s.x()); break;
      case GeomShape::Capsule:
        add(Vector3d(0, 0, s.y()), s.x());
        add(Vector3d(0, 0, -s.y()), s.x());
        break;
      case GeomShape::Box:
        for (int c = 0; c < 8; ++c)
          add(Vector3d((c & 1) ? s.x() : -s.x(), (c & 2) ? s.y() : -s.y(), (c & 4) ? s.z() : -s.z()), 0.0);
        break;
      case GeomShape::Cylinder:
        for (int k = 0; k < 8; ++k) {
          const double a = M_PI / 4.0 * k;
          add(Vector3d(s.x() * std::cos(a), s.x() * std::sin(a), s.y()), 0.0);
          add(Vector3d(s.x() * std::cos(a), s.x() * std::sin(a), -s.y()), 0.0);
        }
        break;
      case GeomShape::Ellipsoid:
        for (int axis = 0; axis < 3; ++axis)
          for (const double sign : {-1.0, 1.0}) {
            Vector3d v = Vector3d::Zero();
            v[axis] = sign * s[axis];
            add(v, 0.0);
          }
        break;
      case GeomShape::Mesh: break;
    }
  }
  return out;
}

double lowestSurfaceHeight(const Model& model, const Data& data, const std::vector<SurfacePoint>& surface,
                           const Vector3d& up) {
  double lowest = std::numeric_limits<double>::infinity();
  if (surface.empty())
    for (int l = 0; l < model.numLinks(); ++l)
      lowest = std::min(lowest, up.dot(data.link[static_cast<std::size_t>(l)].p));
  for (const SurfacePoint& s : surface) {
    const Transform& X = data.link[static_cast<std::size_t>(s.link.value)];
    lowest = std::min(lowest, up.dot(X.R * s.point + X.p) - s.radius);
  }
  return lowest;
}

Matrix3d rotationBetween(const Vector3d& a, const Vector3d& b) {
  const Vector3d u = a.normalized(), v = b.normalized();
  const Vector3d c = u.cross(v);
  const double s = c.norm(), d = u.dot(v);
  if (s < 1e-12) {
    if (d > 0.0) return Matrix3d::Identity();
    // Opposite: a half turn about any axis perpendicular to u.
    Vector3d p = u.cross(Vector3d::UnitX());
    if (p.norm() < 1e-6) p = u.cross(Vector3d::UnitY());
    return so3::exp(M_PI * p.normalized());
  }
  return so3::exp(std::atan2(s, d) * c / s);
}

Retargeting retarget(const Model& model, const io::MotionClip& clip, const std::vector<SegmentPair>& map,
                     const io::MotionClip* calib, int calib_frame, const RetargetOptions& options) {
  if (map.empty()) throw InvalidArgument("segment map: no segment of the clip is mapped to the model");
  if (clip.numFrames() == 0) throw InvalidArgument("retarget: the clip has no frames");
  const std::size_t n = map.size();
  std::vector<int> seg(n);
  std::vector<FrameId> frame(n);
  for (std::size_t e = 0; e < n; ++e) {
    seg[e] = segmentIndex(clip, map[e].clip_segment);
    frame[e] = model.frameId(map[e].model_frame);  // throws, listing the valid frames
    for (std::size_t k = 0; k < e; ++k)
      if (frame[k] == frame[e])
        throw InvalidArgument("segment map: model frame '" + map[e].model_frame + "' is mapped twice");
  }
  // The root entry: the mapped segment nearest the clip's root.
  auto depth = [&](int s) {
    int d = 0;
    while (clip.segment_parent[static_cast<std::size_t>(s)] >= 0)
      s = clip.segment_parent[static_cast<std::size_t>(s)], ++d;
    return d;
  };
  std::size_t root = 0;
  for (std::size_t e = 1; e < n; ++e)
    if (depth(seg[e]) < depth(seg[root])) root = e;

  if (!(std::abs(options.model_up.norm() - 1.0) < 1e-9))
    throw InvalidArgument("retarget: model_up must be a unit vector");
  const Vector3d up = options.model_up;
  const Matrix3d up_turn = rotationBetween(Vector3d::UnitZ(), up);  // clip world (Z up) → model world
  Retargeting out;
  out.alignment.rotation = up_turn;
  Data data(model);
  Configuration zero(model);
  framesForwardKinematics(model, data, zero);
  std::vector<Matrix3d> offset(n);
  for (std::size_t e = 0; e < n; ++e) offset[e] = map[e].offset;

  if (options.calibration == Calibration::Pose) {
    if (calib == nullptr || calib_frame < 0 || calib_frame >= calib->numFrames() ||
        calib->segment_names != clip.segment_names)
      throw InvalidArgument("retarget: the calibration pose must be a frame of a clip with the clip's segments");
    for (std::size_t e = 0; e < n; ++e)
      if (!calib->isValid(calib_frame, seg[e]))
        throw InvalidArgument("retarget: calibration frame " + std::to_string(calib_frame) +
                              " has no valid sample of '" + map[e].clip_segment + "'");
    std::vector<std::string> names(n);
    std::vector<Vector3d> pc(n), pm(n);
    for (std::size_t e = 0; e < n; ++e) {
      names[e] = map[e].role.empty() ? map[e].model_frame : map[e].role;
      pc[e] = calib->pose(calib_frame, seg[e]).p;
      pm[e] = data.frame[frame[e].value].p;
    }
    if (options.stand_on_ground) {
      // A robot's segment link often starts part-way down the limb (the G1's upper arm at the
      // shoulder yaw, 10 cm below the shoulder): a segment's point is its proximal joint, the
      // origin of the first link below its mapped parent's, like the clip's joint centres.
      for (std::size_t e = 0; e < n; ++e) {
        int k = -1;
        for (int a = clip.segment_parent[static_cast<std::size_t>(seg[e])]; a >= 0 && k < 0;
             a = clip.segment_parent[static_cast<std::size_t>(a)])
          for (std::size_t m = 0; m < n; ++m)
            if (seg[m] == a) k = static_cast<int>(m);
        if (k < 0) continue;
        std::vector<char> above(static_cast<std::size_t>(model.numLinks()), 0);
        for (LinkId l = model.frameLink(frame[static_cast<std::size_t>(k)]); l.valid(); l = model.parent(l))
          above[static_cast<std::size_t>(l.value)] = 1;
        LinkId l = model.frameLink(frame[e]);
        if (above[static_cast<std::size_t>(l.value)] != 0) continue;
        while (model.parent(l).valid() && above[static_cast<std::size_t>(model.parent(l).value)] == 0)
          l = model.parent(l);
        pm[e] = data.link[static_cast<std::size_t>(l.value)].p;
      }
    }
    // The clip's Z up onto the model's up, then the heading: turn the clip about the vertical
    // so its left-right axis is the model's.
    Vector3d lc, lm;
    Matrix3d W = up_turn;
    for (Vector3d& p : pc) p = up_turn * p;
    if (lateralAxis(names, pc, up, lc) && lateralAxis(names, pm, up, lm))
      W = so3::exp(std::atan2(lc.cross(lm).dot(up), lc.dot(lm)) * up) * up_turn;
    out.alignment.rotation = W;
    // Bone directions: segment origin → its nearest mapped descendant in the clip. Segments are
    // aligned from the root down: a segment first turns with its mapped parent, then by the
    // smallest rotation that points its bone like the clip's. The twist is thereby inherited
    // along each chain (independent smallest rotations per bone would give adjacent segments
    // inconsistent twists, which a hinge knee or elbow cannot follow).
    std::vector<int> entry_of(static_cast<std::size_t>(clip.numSegments()), -1);
    for (std::size_t e = 0; e < n; ++e) entry_of[static_cast<std::size_t>(seg[e])] = static_cast<int>(e);
    std::vector<std::size_t> order(n);
    for (std::size_t e = 0; e < n; ++e) order[e] = e;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return depth(seg[a]) < depth(seg[b]); });
    std::vector<Matrix3d> align(n, Matrix3d::Identity());
    for (const std::size_t e : order) {
      if (e == root) continue;  // the root's orientation is the heading, aligned by W
      Matrix3d parent_align = Matrix3d::Identity();
      for (int a = clip.segment_parent[static_cast<std::size_t>(seg[e])]; a >= 0;
           a = clip.segment_parent[static_cast<std::size_t>(a)])
        if (const int k = entry_of[static_cast<std::size_t>(a)]; k >= 0) {
          parent_align = align[static_cast<std::size_t>(k)];
          break;
        }
      align[e] = parent_align;
      // The bone ends at the nearest mapped descendants: at their centre when there are several
      // (the trunk's two shoulders: pointing it at one of them would roll the trunk towards
      // that side and put every angle of the other arm off by as much).
      int best_depth = std::numeric_limits<int>::max(), ends = 0;
      Vector3d end_c = Vector3d::Zero(), end_m = Vector3d::Zero();
      for (int s = 0; s < clip.numSegments(); ++s) {
        if (entry_of[static_cast<std::size_t>(s)] < 0 || s == seg[e]) continue;
        int a = s, d = 0;
        while (a >= 0 && a != seg[e]) a = clip.segment_parent[static_cast<std::size_t>(a)], ++d;
        if (a != seg[e] || d > best_depth) continue;
        if (d < best_depth) best_depth = d, ends = 0, end_c.setZero(), end_m.setZero();
        const auto k = static_cast<std::size_t>(entry_of[static_cast<std::size_t>(s)]);
        end_c += pc[k], end_m += pm[k], ++ends;
      }
      if (ends == 0) continue;  // a leaf (hand, head, toe) turns with its parent
      const Vector3d dc = W * up_turn.transpose() * (end_c / ends - pc[e]);
      const Vector3d dm = parent_align * (end_m / ends - pm[e]);
      if (dc.norm() < 1e-6 || dm.norm() < 1e-6) continue;
      align[e] = rotationBetween(dm, dc) * parent_align;
    }
    for (std::size_t e = 0; e < n; ++e) {
      const Matrix3d R_model = align[e] * data.frame[frame[e].value].R;
      // A map's own offset (JSON "offsets") turns the model segment further, in its frame.
      offset[e] = (W * calib->pose(calib_frame, seg[e]).R).transpose() * R_model * map[e].offset;
    }
    // Root trajectory: scaled by the ratio of root heights above the lowest mapped point, and
    // started above the model's origin.
    double zc = pc[root].dot(up), zm = pm[root].dot(up);
    for (std::size_t e = 0; e < n; ++e) zc = std::min(zc, pc[e].dot(up)), zm = std::min(zm, pm[e].dot(up));
    const double hc = pc[root].dot(up) - zc, hm = pm[root].dot(up) - zm;
    double s = (hc > 1e-3 && hm > 1e-3) ? hm / hc : 1.0;
    if (options.stand_on_ground) {
      // Size by leg length (pose-independent), the capture's ground from the whole clip, the
      // model's from its surface with the feet straight.
      // Standing root heights: the model's at its zero configuration (straight legs), the
      // person's from rigid lengths only (root to hip centre, then the legs straight).
      const PoseAgreement keypoints(model, *calib, map);
      const Keypoints kc = keypoints.person(*calib, calib_frame), km = keypoints.robot(data);
      const double lc = legLength(kc), lm = legLength(km);
      const double hc_stand = lc > 1e-3 ? lc + rootToHips(kc, calib->pose(calib_frame, seg[root]).p) : 0.0;
      const double hm_stand = standingHeight(km, data.frame[frame[root].value].p, up);
      if (hc_stand > 1e-3 && hm_stand > 1e-3)
        s = hm_stand / hc_stand;
      else if (lc > 1e-3 && lm > 1e-3)
        s = lm / lc;
      zc = clipGround(clip, seg, W, up);
      if (!std::isfinite(zc)) zc = pc[root].dot(up) - hc;
      const double ground = lowestSurfaceHeight(model, data, options.surface, up);
      zm += options.ground_height - ground;
    }
    out.alignment.scale = s;
    const Vector3d p0 = s * (W * clip.pose(0, seg[root]).p);
    // Vertical: the clip's floor (its lowest calibration point) on the model's floor.
    out.alignment.translation = -(p0 - p0.dot(up) * up) + (zm - s * zc) * up;
  }

  for (std::size_t e = 0; e < n; ++e) {
    TargetBinding b;
    b.segment = seg[e];
    b.frame = map[e].model_frame;
    b.offset = offset[e];
    b.weight = map[e].weight;
    b.orientation = true;
    b.position = options.root_position && e == root;
    if (b.position) b.weight *= options.root_position_weight;
    out.bindings.push_back(std::move(b));
  }
  out.initial = nearestFeasible(model, zero);  // the iCub's zero pose violates its elbow limits and a row
  const Transform& X0 = clip.pose(0, seg[root]);
  if (X0.p.allFinite()) {
    // Put the root frame's origin on its first target (base translation only).
    const Vector3d p_target = out.alignment.scale * (out.alignment.rotation * X0.p) + out.alignment.translation;
    out.initial.base_position += p_target - data.frame[frame[root].value].p;
  }
  for (int f = 0; f < model.numFrames(); ++f) {
    if (model.frameKind(FrameId(f)) != FrameKind::Link) continue;
    if (std::find(frame.begin(), frame.end(), FrameId(f)) == frame.end())
      out.model_frames_untracked.push_back(model.frameName(FrameId(f)));
  }
  return out;
}

std::vector<SegmentPair> composeMaps(const io::SegmentMap& clip_map, const io::SegmentMap& robot_map) {
  std::vector<SegmentPair> pairs;
  for (const io::SegmentMapEntry& c : clip_map.entries)
    for (const io::SegmentMapEntry& r : robot_map.entries)
      if (r.clip_segment == c.model_frame)
        pairs.push_back({c.clip_segment, r.model_frame, c.offset * r.offset, c.weight * r.weight, c.model_frame});
  if (pairs.empty())
    throw InvalidArgument("robot map '" + robot_map.name + "': none of its segments is mapped from the clip by '" +
                          clip_map.name + "'");
  return pairs;
}

Retargeting retargetFromClip(const Model& model, const io::MotionClip& clip) {
  std::vector<SegmentPair> map;
  for (const std::string& s : clip.segment_names) map.push_back({s, s, Matrix3d::Identity(), 1.0});
  RetargetOptions o;
  o.calibration = Calibration::None;
  return retarget(model, clip, map, nullptr, 0, o);
}

SphericalJointError::SphericalJointError(const Model& model, const io::MotionClip& clip)
    : model_(model), parent_(clip.segment_parent), a_(model), b_(model) {
  for (const std::string& s : clip.segment_names) frames_.push_back(model.frameId(s));
}

double SphericalJointError::sumSquared(const Configuration& tracked, const Configuration& truth, int& count) {
  framesForwardKinematics(model_, a_, tracked);
  framesForwardKinematics(model_, b_, truth);
  double sum = 0.0;
  for (std::size_t s = 0; s < frames_.size(); ++s) {
    Matrix3d Ra = a_.frame[frames_[s].value].R, Rb = b_.frame[frames_[s].value].R;
    if (parent_[s] >= 0) {
      const std::size_t p = static_cast<std::size_t>(parent_[s]);
      Ra = a_.frame[frames_[p].value].R.transpose() * Ra;
      Rb = b_.frame[frames_[p].value].R.transpose() * Rb;
    }
    sum += so3::log(Rb.transpose() * Ra).squaredNorm();
  }
  count = static_cast<int>(frames_.size());
  return sum;
}

}  // namespace kinetrack::track
