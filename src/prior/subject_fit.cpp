// A subject's 25-DoF model and recorded joint angles from its captures (GPM §III).
#include "kinetrack/prior/subject_fit.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "../subject/rigid_fit.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/core/so3.hpp"
#include "kinetrack/io/model/segment_map.hpp"

namespace kinetrack::prior {

namespace {

constexpr double kDeg = M_PI / 180.0;
const std::array<const char*, 2> kSideName = {"Right", "Left"};

/// Pelvis-relative segment poses of one frame.
struct FrameGeometry {
  Vector3d lumbar, neck;
  Transform chest;
  std::array<Transform, 2> clavicle, upper_arm, forearm, hand;  // hand.p = the wrist
};

Transform relative(const Transform& P, const Transform& S) {
  Transform T;
  T.R = P.R.transpose() * S.R;
  T.p = P.R.transpose() * (S.p - P.p);
  return T;
}

FrameGeometry geometry(const io::MotionClip& clip, int f, const UpperBodySegments& seg) {
  const Transform& P = clip.pose(f, seg.pelvis);
  FrameGeometry g;
  g.lumbar = relative(P, clip.pose(f, seg.lumbar)).p;
  g.neck = relative(P, clip.pose(f, seg.neck)).p;
  g.chest = relative(P, clip.pose(f, seg.chest));
  for (std::size_t s = 0; s < 2; ++s) {
    g.clavicle[s] = relative(P, clip.pose(f, seg.clavicle[s]));
    g.upper_arm[s] = relative(P, clip.pose(f, seg.upper_arm[s]));
    g.forearm[s] = relative(P, clip.pose(f, seg.forearm[s]));
    if (seg.hand[s] >= 0) {
      g.hand[s] = relative(P, clip.pose(f, seg.hand[s]));
    } else {
      g.hand[s].R = g.forearm[s].R;
      g.hand[s].p = g.forearm[s].p + g.forearm[s].R * seg.wrist_in_forearm[s];
    }
  }
  return g;
}

bool frameValid(const io::MotionClip& clip, int f, const UpperBodySegments& seg) {
  std::vector<int> used = {seg.pelvis, seg.lumbar, seg.neck, seg.chest};
  for (std::size_t s = 0; s < 2; ++s)
    for (int i : {seg.clavicle[s], seg.upper_arm[s], seg.forearm[s], seg.hand[s]})
      if (i >= 0) used.push_back(i);
  for (int i : used)
    if (!clip.isValid(f, i)) return false;
  return true;
}

/// Orthonormal right-handed axes (e1, e2, e3) of a ball joint: e3 along the bone b (twist last),
/// e1 = the forward direction made perpendicular to b, e2 = e3 × e1.
Matrix3d ballAxes(const Vector3d& forward, const Vector3d& up, const Vector3d& bone) {
  Vector3d e1 = forward - forward.dot(bone) * bone;
  if (e1.norm() < 0.1) e1 = up - up.dot(bone) * bone;
  e1.normalize();
  Matrix3d E;
  E.col(0) = e1;
  E.col(1) = bone.cross(e1);
  E.col(2) = bone;
  return E;
}

/// Unit vector from a to b, or `fallback` when they (nearly) coincide.
Vector3d direction(const Vector3d& a, const Vector3d& b, const Vector3d& fallback) {
  const Vector3d d = b - a;
  return d.norm() > 1e-3 ? Vector3d(d.normalized()) : fallback;
}

/// Angles (q1, q2, q3) with L = Rot(e1,q1)·Rot(e2,q2)·Rot(e3,q3), E = [e1 e2 e3] right-handed.
Vector3d cardan(const Matrix3d& L, const Matrix3d& E) {
  return so3::toBodyXyz(E.transpose() * L * E);  // = Rx(q1)·Ry(q2)·Rz(q3)
}

std::vector<JointAxis> axesOf(const Vector3d& point, const Matrix3d& E) {
  return {{point, E.col(0)}, {point, E.col(1)}, {point, E.col(2)}};
}

/// Rotation of each segment from its calibration pose, pelvis frame: G = R(t)·R_restᵀ.
Matrix3d fromRest(const Transform& now, const Transform& rest) { return now.R * rest.R.transpose(); }

int clipStride(const io::MotionClip& clip, const SubjectFitOptions& o) {
  if (o.rate > 0.0 && clip.numFrames() > 1) {
    const double dt = (clip.times.back() - clip.times.front()) / (clip.numFrames() - 1);
    return std::max(1, static_cast<int>(std::lround(1.0 / (o.rate * dt))));
  }
  return std::max(1, o.stride);
}

const io::MotionClip& calibrationPose(const track::Capture& c) {
  for (const char* name : {"rest", "tpose", "npose", "identity"})
    for (const auto& [n, clip] : c.calibrations)
      if (n == name) return clip;
  return c.clip;
}

/// Largest rotation (rad) between the upper-body segments of two frames (pelvis-relative).
double largestRotation(const FrameGeometry& g, const FrameGeometry& h) {
  double worst = 0.0;
  auto check = [&](const std::array<Transform, 2>& a, const std::array<Transform, 2>& b) {
    for (std::size_t s = 0; s < 2; ++s) worst = std::max(worst, so3::log(a[s].R * b[s].R.transpose()).norm());
  };
  check(g.clavicle, h.clavicle);
  check(g.upper_arm, h.upper_arm);
  check(g.forearm, h.forearm);
  check(g.hand, h.hand);
  return worst;
}

/// The anatomical frame [forward, left, up] of a pose (pelvis coordinates): up from the lumbar
/// joint to the clavicles' midpoint, left from the right to the left shoulder joint.
Matrix3d anatomicalFrame(const FrameGeometry& g) {
  const Vector3d up = direction(g.lumbar, 0.5 * (g.clavicle[0].p + g.clavicle[1].p), Vector3d::UnitZ());
  Vector3d left = g.upper_arm[1].p - g.upper_arm[0].p;  // CMU's clavicles start at one point
  left = (left - left.dot(up) * up).normalized();
  Matrix3d A;
  A << left.cross(up), left, up;
  return A;
}

/// The subject's reference (zero) pose: the calibration pose's bones and segment frames, the
/// torso turned so that its anatomical frame is the one of `upright` (a standing motion frame),
/// and the clavicle, upper-arm and forearm bones swung (minimal rotation, twist kept) to point
/// straight sideways: a canonical T-pose whatever the file's rest pose (Bandai's lies along x).
FrameGeometry canonicalReference(const FrameGeometry& rest, const Matrix3d& A) {
  const Matrix3d Rt = A * anatomicalFrame(rest).transpose();
  FrameGeometry ref = rest;
  auto torso = [&](const Vector3d& p) { return Vector3d(rest.lumbar + Rt * (p - rest.lumbar)); };
  ref.neck = torso(rest.neck);
  ref.chest.p = torso(rest.chest.p);
  ref.chest.R = Rt * rest.chest.R;
  for (std::size_t s = 0; s < 2; ++s) {
    const Vector3d lateral = s == 0 ? Vector3d(-A.col(1)) : Vector3d(A.col(1));
    // Swing taking the bone from `from` to `to` (rest) onto the lateral direction.
    auto swing = [&](const Vector3d& from, const Vector3d& to) -> Matrix3d {
      const Vector3d b = Rt * (to - from);
      if (b.norm() < 1e-3) return Matrix3d::Identity();
      return Eigen::Quaterniond::FromTwoVectors(b, lateral).toRotationMatrix() * Rt;
    };
    const Matrix3d Sc = swing(rest.clavicle[s].p, rest.upper_arm[s].p);
    const Matrix3d Su = swing(rest.upper_arm[s].p, rest.forearm[s].p);
    const Matrix3d Sf = swing(rest.forearm[s].p, rest.hand[s].p);
    ref.clavicle[s].p = torso(rest.clavicle[s].p);
    ref.clavicle[s].R = Sc * rest.clavicle[s].R;
    ref.upper_arm[s].p = ref.clavicle[s].p + Sc * (rest.upper_arm[s].p - rest.clavicle[s].p);
    ref.upper_arm[s].R = Su * rest.upper_arm[s].R;
    ref.forearm[s].p = ref.upper_arm[s].p + Su * (rest.forearm[s].p - rest.upper_arm[s].p);
    ref.forearm[s].R = Sf * rest.forearm[s].R;
    ref.hand[s].p = ref.forearm[s].p + Sf * (rest.hand[s].p - rest.forearm[s].p);
    ref.hand[s].R = Sf * rest.hand[s].R;
  }
  return ref;
}

}  // namespace

void genericLimits(Vector25d& lower, Vector25d& upper) {
  // Symmetric ranges about the calibration pose (deg); the arms mirror each other.
  const std::array<double, kTorsoDof> torso = {45, 80, 60};
  const std::array<double, kArmDof> arm = {30, 30, 45, 120, 120, 100, 160, 30, 120, 80, 45};
  for (int k = 0; k < kChainLength; ++k)
    for (Side s : {Side::Right, Side::Left}) {
      const double r =
          (k < kTorsoDof ? torso[static_cast<std::size_t>(k)] : arm[static_cast<std::size_t>(k - kTorsoDof)]) * kDeg;
      lower[thetaIndex(s, k)] = -r;
      upper[thetaIndex(s, k)] = r;
    }
}

UpperBodySegments findUpperBodySegments(const track::Capture& capture, const std::string& map_spec) {
  const io::MotionClip& clip = capture.clip;
  const io::SegmentMap map = io::resolveSegmentMap(clip.segment_names, map_spec);
  auto find = [&](const std::string& frame) {
    for (const auto& e : map.entries)
      if (e.model_frame == frame) return clip.findSegment(e.clip_segment);
    return -1;
  };
  UpperBodySegments seg;
  std::vector<std::string> missing;
  auto need = [&](const std::string& frame) {
    const int i = find(frame);
    if (i < 0) missing.push_back(frame);
    return i;
  };
  seg.pelvis = need("Pelvis");
  seg.neck = find("Neck") >= 0 ? find("Neck") : find("Head");
  if (seg.neck < 0) missing.emplace_back("Neck or Head");
  std::array<int, 2> mapped_hand{};
  for (std::size_t s = 0; s < 2; ++s) {
    const std::string side = kSideName[s];
    seg.clavicle[s] = need(side + "Shoulder");
    seg.upper_arm[s] = need(side + "UpperArm");
    seg.forearm[s] = need(side + "ForeArm");
    mapped_hand[s] = find(side + "Hand");
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
    throw InvalidArgument(clip.source + ": upper-body segments missing from the segment map '" + map.name +
                          "': " + list +
                          " (the GPM model needs the pelvis, a neck or head, and per side shoulder, upper arm "
                          "and forearm)");
  }
  // Lumbar: the highest ancestor of the right clavicle that is not an ancestor of the pelvis.
  std::set<int> pelvis_line;
  for (int i = seg.pelvis; i >= 0; i = clip.segment_parent[static_cast<std::size_t>(i)]) pelvis_line.insert(i);
  int x = seg.clavicle[0];
  while (x >= 0 && clip.segment_parent[static_cast<std::size_t>(x)] >= 0 &&
         !pelvis_line.contains(clip.segment_parent[static_cast<std::size_t>(x)]))
    x = clip.segment_parent[static_cast<std::size_t>(x)];
  if (x == seg.clavicle[0] || pelvis_line.contains(x))
    throw InvalidArgument(clip.source + ": no trunk segment between the pelvis and the shoulders");
  seg.lumbar = x;
  seg.chest = clip.segment_parent[static_cast<std::size_t>(seg.clavicle[0])];
  for (std::size_t s = 0; s < 2; ++s) {
    int h = mapped_hand[s];
    while (h >= 0 && clip.segment_parent[static_cast<std::size_t>(h)] != seg.forearm[s])
      h = clip.segment_parent[static_cast<std::size_t>(h)];
    seg.hand[s] = h;
    if (h >= 0) continue;
    // No hand segment below the forearm: the wrist is the forearm's End Site (BVH).
    bool found = false;
    if (capture.bvh) {
      const auto& joints = capture.bvh->joints;
      const std::string& name = clip.segment_names[static_cast<std::size_t>(seg.forearm[s])];
      for (std::size_t j = 0; j < joints.size() && !found; ++j) {
        if (!joints[j].end_site || joints[j].parent < 0 ||
            joints[static_cast<std::size_t>(joints[j].parent)].name != name)
          continue;
        const double scale = io::bvhScale(*capture.bvh, io::BvhUnits::Auto);
        const Vector3d o = joints[j].offset;
        const Vector3d kt(o.z(), o.x(), o.y());  // BVH Y-up axes → kinetrack Z-up (io/bvh.hpp)
        seg.wrist_in_forearm[s] = kt * scale;    // the End Site offset is in the forearm's own frame
        found = true;
      }
    }
    if (!found)
      throw InvalidArgument(clip.source + ": no " + std::string(kSideName[s]) +
                            "Hand segment below the forearm and no forearm End Site to put the wrist at");
  }
  return seg;
}

SubjectFit fitSubject(const std::string& subject, const std::vector<std::string>& clip_paths,
                      const SubjectFitOptions& options) {
  if (clip_paths.empty()) throw InvalidArgument("fitSubject '" + subject + "': no clips");
  std::vector<track::Capture> captures;
  for (const auto& p : clip_paths) captures.push_back(track::loadCapture(p));
  std::vector<UpperBodySegments> segs;
  for (const auto& c : captures) segs.push_back(findUpperBodySegments(c, options.map_spec));
  const UpperBodySegments& seg = segs.front();
  auto names = [&](std::size_t c) {
    const auto& n = captures[c].clip.segment_names;
    const UpperBodySegments& g = segs[c];
    std::vector<std::string> out = {n[static_cast<std::size_t>(g.pelvis)], n[static_cast<std::size_t>(g.lumbar)],
                                    n[static_cast<std::size_t>(g.neck)], n[static_cast<std::size_t>(g.chest)]};
    for (std::size_t s = 0; s < 2; ++s)
      for (int i : {g.clavicle[s], g.upper_arm[s], g.forearm[s], g.hand[s]})
        out.push_back(i >= 0 ? n[static_cast<std::size_t>(i)] : std::string("(end site)"));
    return out;
  };
  for (std::size_t c = 1; c < captures.size(); ++c)
    if (names(c) != names(0))
      throw InvalidArgument("fitSubject '" + subject + "': " + clip_paths[c] + " has other upper-body segments than " +
                            clip_paths.front());

  // --- the model from the calibration pose -----------------------------------------------------
  const FrameGeometry rest = geometry(calibrationPose(captures.front()), 0, seg);
  std::vector<std::vector<FrameGeometry>> frames(captures.size());
  for (std::size_t c = 0; c < captures.size(); ++c) {
    const io::MotionClip& clip = captures[c].clip;
    const int stride = clipStride(clip, options);
    // A first frame that is the calibration pose or jumps to the motion (the synthetic T-pose
    // frames of CMU cgspeed and Xsens) is not motion: dropped.
    int first = 0;
    if (clip.numFrames() > 1 && frameValid(clip, 0, segs[c]) && frameValid(clip, 1, segs[c])) {
      const FrameGeometry g0 = geometry(clip, 0, segs[c]);
      if (largestRotation(g0, rest) < 1.0 * kDeg || largestRotation(g0, geometry(clip, 1, segs[c])) > 20.0 * kDeg)
        first = 1;
    }
    for (int f = first; f < clip.numFrames(); f += stride) {
      if (!frameValid(clip, f, segs[c])) continue;
      frames[c].push_back(geometry(clip, f, segs[c]));
    }
  }

  if (frames.front().empty())
    throw InvalidArgument("fitSubject '" + subject + "': " + clip_paths.front() + " has no usable frame");
  // Zero pose: a canonical T-pose on the subject's own bones, upright as in its first motion frame.
  const Matrix3d E_torso = anatomicalFrame(frames.front().front());
  const Vector3d forward = E_torso.col(0), left = E_torso.col(1), up = E_torso.col(2);
  const FrameGeometry ref = canonicalReference(rest, E_torso);

  std::array<Matrix3d, 2> E_sc, E_gh, E_elbow, E_wrist;
  std::array<std::vector<JointAxis>, 2> axes;
  std::array<Transform, 2> hands_at_zero;
  for (std::size_t s = 0; s < 2; ++s) {
    const Vector3d lateral = s == 0 ? Vector3d(-left) : left;
    const Vector3d sc = ref.clavicle[s].p, gh = ref.upper_arm[s].p, el = ref.forearm[s].p, wr = ref.hand[s].p;
    const Vector3d clavicle_dir = direction(sc, gh, lateral);
    const Vector3d humerus_dir = direction(gh, el, lateral);
    const Vector3d p = direction(el, wr, humerus_dir);
    E_sc[s] = ballAxes(forward, up, clavicle_dir);
    E_gh[s] = ballAxes(forward, up, humerus_dir);
    // Functional elbow flexion axis: the principal direction of the elbow's rotation vectors
    // (perpendicular to the forearm), signed so that flexion is mostly positive.
    Matrix3d C = Matrix3d::Zero();
    Vector3d sum = Vector3d::Zero();
    int n = 0;
    for (const auto& clip_frames : frames)
      for (const FrameGeometry& g : clip_frames) {
        const Matrix3d L =
            fromRest(g.upper_arm[s], ref.upper_arm[s]).transpose() * fromRest(g.forearm[s], ref.forearm[s]);
        Vector3d w = so3::log(L);
        w -= w.dot(p) * p;
        C += w * w.transpose();
        sum += w;
        ++n;
      }
    Vector3d flex;
    if (n > 0 && C.trace() / n > (10.0 * kDeg) * (10.0 * kDeg)) {
      const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(C);
      flex = eig.eigenvectors().col(2);
    } else {
      flex = up - up.dot(p) * p;
      if (flex.norm() < 0.1) flex = forward - forward.dot(p) * p;
    }
    flex = (flex - flex.dot(p) * p).normalized();
    if (flex.dot(sum) < 0.0) flex = -flex;
    E_elbow[s] << flex, p.cross(flex), p;
    E_wrist[s] << p, flex, p.cross(flex);
    auto& a = axes[s];
    for (const auto& ax : axesOf(ref.lumbar, E_torso)) a.push_back(ax);
    for (const auto& ax : axesOf(sc, E_sc[s])) a.push_back(ax);
    for (const auto& ax : axesOf(gh, E_gh[s])) a.push_back(ax);
    for (const auto& ax : axesOf(el, E_elbow[s])) a.push_back(ax);
    a.push_back({wr, E_wrist[s].col(1)});
    a.push_back({wr, E_wrist[s].col(2)});
    hands_at_zero[s] = ref.hand[s];
  }

  SubjectFit fit;
  fit.subject = subject;
  fit.model = upperBodyFromAxes(subject, axes, hands_at_zero);

  // --- recorded joint angles ------------------------------------------------------------------
  // Torso rotation: the rigid fit of the shoulder and neck joints about the lumbar joint, plus
  // three points 10 cm along the chest segment's axes (never degenerate: CMU's clavicles and neck
  // start at one point).
  auto torsoPoints = [](const FrameGeometry& g) {
    std::vector<Vector3d> pts = {g.lumbar, g.clavicle[0].p, g.clavicle[1].p, g.neck};
    for (int a = 0; a < 3; ++a) pts.push_back(g.chest.p + 0.1 * g.chest.R.col(a));
    return pts;
  };
  const std::vector<Vector3d> torso_rest = torsoPoints(ref);
  std::vector<Vector3d> torso_now;
  std::vector<Transform> truth_hands;
  for (std::size_t c = 0; c < captures.size(); ++c) {
    FittedClip fc{clip_paths[c], static_cast<int>(fit.theta.size()), static_cast<int>(frames[c].size())};
    Vector25d prev = Vector25d::Zero();
    for (std::size_t f = 0; f < frames[c].size(); ++f) {
      const FrameGeometry& g = frames[c][f];
      torso_now = torsoPoints(g);
      Matrix3d G_torso;
      Vector3d unused;
      if (!subject::detail::rigidFit(torso_rest, torso_now, G_torso, unused))
        throw InvalidArgument(clip_paths[c] + ": degenerate torso points (shoulders, neck, chest axes)");
      Vector25d th;
      th.head<3>() = cardan(G_torso, E_torso);
      for (std::size_t s = 0; s < 2; ++s) {
        const Side side = static_cast<Side>(s);
        const Matrix3d Gc = fromRest(g.clavicle[s], ref.clavicle[s]), Gu = fromRest(g.upper_arm[s], ref.upper_arm[s]);
        const Matrix3d Gf = fromRest(g.forearm[s], ref.forearm[s]), Gh = fromRest(g.hand[s], ref.hand[s]);
        const Vector3d sc = cardan(G_torso.transpose() * Gc, E_sc[s]);
        const Vector3d gh = cardan(Gc.transpose() * Gu, E_gh[s]);
        Vector3d elbow = cardan(Gu.transpose() * Gf, E_elbow[s]);
        const Vector3d wrist = cardan(Gf.transpose() * Gh, E_wrist[s]);
        elbow[2] += wrist[0];  // the twist at the wrist is the forearm's pronation (same axis)
        const std::array<double, kArmDof> q = {sc[0],    sc[1],    sc[2],    gh[0],    gh[1],   gh[2],
                                               elbow[0], elbow[1], elbow[2], wrist[1], wrist[2]};
        for (int k = 0; k < kArmDof; ++k) th[thetaIndex(side, kTorsoDof + k)] = q[static_cast<std::size_t>(k)];
      }
      // Continuous angles: the 2π multiple nearest the previous frame.
      if (f > 0)
        for (int i = 0; i < kUpperBodyDof; ++i) th[i] -= 2.0 * M_PI * std::round((th[i] - prev[i]) / (2.0 * M_PI));
      prev = th;
      fit.theta.push_back(th);
      truth_hands.push_back(g.hand[0]);
      truth_hands.push_back(g.hand[1]);
    }
    fit.clips.push_back(fc);
  }
  if (fit.theta.empty()) throw InvalidArgument("fitSubject '" + subject + "': no usable frame in its clips");

  // Twist zeros: a skeleton's bone frames fix where a twist about the bone is "0" (Bandai's
  // clavicles sit 90° away from every other skeleton's); with center_twists the zero of each
  // bone-axis twist (clavicle, humerus, pronation) is the subject's median, moved into the DH
  // offset so the kinematics do not change.
  if (options.center_twists)
    for (Side side : {Side::Right, Side::Left})
      for (int k : {kTorsoDof + 2, kTorsoDof + 5, kTorsoDof + 8}) {
        const int i = thetaIndex(side, k);
        std::vector<double> v;
        for (const Vector25d& th : fit.theta) v.push_back(th[i]);
        std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
        const double median = v[v.size() / 2];
        for (Vector25d& th : fit.theta) th[i] -= median;
        fit.model.chain[static_cast<std::size_t>(side)][static_cast<std::size_t>(k)].theta_offset += median;
      }

  // Limits: generic ranges, widened where this subject's recorded range exceeds them.
  genericLimits(fit.model.lower, fit.model.upper);
  for (int i = 0; i < kUpperBodyDof; ++i) {
    double lo = fit.model.lower[i], hi = fit.model.upper[i];
    for (const Vector25d& th : fit.theta) lo = std::min(lo, th[i] - 2.0 * kDeg), hi = std::max(hi, th[i] + 2.0 * kDeg);
    if (lo < fit.model.lower[i] || hi > fit.model.upper[i]) ++fit.quality.limits_widened;
    fit.model.lower[i] = lo;
    fit.model.upper[i] = hi;
  }

  // Targets and fit quality: the model at the recorded angles against the capture's wrists.
  UpperBodyData data;
  double pos2 = 0.0, ang2 = 0.0;
  for (std::size_t f = 0; f < fit.theta.size(); ++f) {
    upperBodyForwardKinematics(fit.model, data, fit.theta[f]);
    fit.hands.push_back(data.hand);
    for (std::size_t s = 0; s < 2; ++s) {
      const Transform& t = truth_hands[2 * f + s];
      const double e = (t.p - data.hand[s].p).norm();
      pos2 += e * e;
      fit.quality.hand_position_max = std::max(fit.quality.hand_position_max, e);
      const double a = so3::log(t.R * data.hand[s].R.transpose()).norm();
      ang2 += a * a;
    }
  }
  const auto n = static_cast<double>(2 * fit.theta.size());
  fit.quality.hand_position_rms = std::sqrt(pos2 / n);
  fit.quality.hand_orientation_rms = std::sqrt(ang2 / n);
  fit.quality.frames = static_cast<int>(fit.theta.size());
  return fit;
}

}  // namespace kinetrack::prior
