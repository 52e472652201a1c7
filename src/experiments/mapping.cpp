// `kinetrack experiment mapping`: the human figure ↔ musculoskeletal model mapping of the Nakamura
// seed (Eq. 14–15, Fig. 14; SPEC §5). Real clips are tracked on the human figure (human66 or
// human48) and on the musculoskeletal model (gait2354) from the same segment orientations
// (track::pairPostures); φ = M f(θ) and θ = N g(φ) are fitted on the pairs of the training clips by
// the truncated SVD pseudo-inverse (biomech::PolynomialMapFit) and tested on the other clips, for
// every number of singular values. Writes DIR/mapping_error.csv, mapping_coordinates.csv,
// mapping_series.csv, mapping_clips.csv and mapping.png (scripts/plot_mapping.py).
#include "kinetrack/experiments/mapping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <numbers>

#include "kinetrack/app/track_job.hpp"
#include "kinetrack/biomech/posture_mapping.hpp"
#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/model/opensim_model.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/track/posture_pairs.hpp"
#include "kinetrack/track/segment_pairs.hpp"

namespace kinetrack::experiments {
namespace {

namespace fs = std::filesystem;

constexpr double kRadToDegMapping = 180.0 / std::numbers::pi;

/// The pairs of one clip, restricted to the posture joints.
struct ClipPairs {
  std::string path;
  bool train = true;
  int frames = 0, gaps = 0, poor = 0;
  double human_mnte = 0.0, model_mnte = 0.0;
  std::vector<double> times;
  MatrixXd theta, phi;  // human posture × pairs, model posture × pairs
};

MatrixXd rows(const MatrixXd& m, const std::vector<int>& idx) {
  MatrixXd out(static_cast<Eigen::Index>(idx.size()), m.cols());
  for (std::size_t i = 0; i < idx.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = m.row(idx[i]);
  return out;
}

MatrixXd stack(const std::vector<ClipPairs>& clips, bool train, bool human) {
  Eigen::Index n = 0, r = 0;
  for (const ClipPairs& c : clips)
    if (c.train == train) {
      n += c.theta.cols();
      r = human ? c.theta.rows() : c.phi.rows();
    }
  MatrixXd out(r, n);
  Eigen::Index at = 0;
  for (const ClipPairs& c : clips)
    if (c.train == train) {
      const MatrixXd& m = human ? c.theta : c.phi;
      out.middleCols(at, m.cols()) = m;
      at += m.cols();
    }
  return out;
}

std::vector<std::string> names(const Model& m, const std::vector<int>& idx) {
  std::vector<std::string> out;
  for (int j : idx) out.push_back(m.jointName(JointId(j)));
  return out;
}

/// One direction of the mapping: fit, errors for every k, the best k on the test clips.
struct Direction {
  std::string name;  // "human->model" or "model->human"
  std::vector<std::string> inputs, outputs;
  std::unique_ptr<biomech::PolynomialMapFit> fit;
  MatrixXd train_rms, test_rms;  // (outputs + 1) × rank, degrees
  int best = 1;                  // k with the smallest test RMS
};

Direction fitDirection(std::string name, std::vector<std::string> in, std::vector<std::string> out,
                       const MatrixXd& x_train, const MatrixXd& y_train, const MatrixXd& x_test, const MatrixXd& y_test,
                       int degree) {
  Direction d{std::move(name), std::move(in), std::move(out), nullptr, {}, {}, 1};
  d.fit = std::make_unique<biomech::PolynomialMapFit>(x_train, y_train, degree);
  d.train_rms = d.fit->rmsErrorByRank(x_train, y_train) * kRadToDegMapping;
  d.test_rms = d.fit->rmsErrorByRank(x_test, y_test) * kRadToDegMapping;
  Eigen::Index best = 0;
  d.test_rms.row(d.test_rms.rows() - 1).minCoeff(&best);
  d.best = static_cast<int>(best) + 1;
  return d;
}

std::string clipName(const std::string& path) { return fs::path(path).stem().string(); }

}  // namespace

MappingExperimentResult runMappingExperiment(const MappingExperimentOptions& cfg, const app::Reporter& reporter) {
  if (cfg.degree < 1 || cfg.degree > 4) throw InvalidArgument("--degree: expected 1 to 4");
  if (!(cfg.rate > 0.0)) throw InvalidArgument("--rate: expected > 0");
  if (!(cfg.transient >= 0.0)) throw InvalidArgument("--transient: expected ≥ 0");
  if (cfg.train.empty() || cfg.test.empty()) throw InvalidArgument("--train and --test need at least one clip each");
  io::ModelSpec hs;
  hs.model = cfg.human;
  const Model human = app::loadModel(hs, reporter).model;
  // The musculoskeletal model in its own (Y-up) world: up = −gravity.
  const io::OpenSimModel osim = io::readOpenSimModel(cfg.model);
  const Model& model = *osim.model;

  // Posture variables: the joints between the root segment and the segments the model map drives.
  const io::SegmentMap robot_map = track::resolveRobotMap(model, cfg.map);
  std::vector<std::string> human_frames, model_frames;
  std::string human_root, model_root;
  for (const io::SegmentMapEntry& e : robot_map.entries) {
    if (e.clip_segment == "Pelvis") {
      human_root = e.clip_segment;
      model_root = e.model_frame;
    } else {
      human_frames.push_back(e.clip_segment);
      model_frames.push_back(e.model_frame);
    }
  }
  if (human_root.empty()) throw InvalidArgument("--map '" + cfg.map + "' does not map the Pelvis");
  const std::vector<int> theta_idx = track::postureJoints(human, human_root, human_frames);
  const std::vector<int> phi_idx = track::postureJoints(model, model_root, model_frames);

  track::PosturePairOptions po;
  po.model_map = cfg.map;
  po.transient = cfg.transient;
  po.second_up = -osim.gravity.normalized();
  po.max_mnte = cfg.max_mnte;
  po.plan.root_position = false;  // postures only: the pelvis translations stay put (gait2354 limits them to ±3–5 m)
  po.limit_margin = cfg.limit_margin_deg / kRadToDegMapping;
  app::setSolver(po.tracker, cfg.solver, 0);
  std::vector<ClipPairs> clips;
  std::vector<std::pair<std::string, bool>> jobs;
  for (const auto& p : cfg.train) jobs.emplace_back(p, true);
  for (const auto& p : cfg.test) jobs.emplace_back(p, false);
  const int bar_total = static_cast<int>(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    reporter.report(static_cast<int>(i), bar_total, clipName(jobs[i].first));
    const track::Capture capture = track::loadCapture(jobs[i].first);
    const double fps =
        (capture.clip.numFrames() - 1) / std::max(1e-9, capture.clip.times.back() - capture.clip.times.front());
    po.stride = std::max(1, static_cast<int>(std::lround(fps / cfg.rate)));
    const track::PosturePairs pairs = track::pairPostures(human, model, capture, po);
    ClipPairs c{jobs[i].first,
                jobs[i].second,
                capture.clip.numFrames(),
                pairs.gaps,
                pairs.poor,
                pairs.first_mnte,
                pairs.second_mnte,
                pairs.times,
                rows(pairs.first, theta_idx),
                rows(pairs.second, phi_idx)};
    if (c.theta.cols() == 0) throw InvalidArgument("clip '" + jobs[i].first + "': no frame tracked on both models");
    clips.push_back(std::move(c));
  }
  reporter.report(bar_total, bar_total);

  const MatrixXd th_train = stack(clips, true, true), ph_train = stack(clips, true, false);
  const MatrixXd th_test = stack(clips, false, true), ph_test = stack(clips, false, false);
  const std::vector<std::string> theta_names = names(human, theta_idx), phi_names = names(model, phi_idx);
  std::vector<Direction> dirs;
  dirs.push_back(
      fitDirection("human->model", theta_names, phi_names, th_train, ph_train, th_test, ph_test, cfg.degree));
  dirs.push_back(
      fitDirection("model->human", phi_names, theta_names, ph_train, th_train, ph_test, th_test, cfg.degree));

  // Real musculoskeletal postures (OpenSim's marker IK of a walk) through both maps: φ → θ = N g(φ)
  // → M f(θ), against φ. No human-figure truth exists for them; the round trip shows whether the
  // two maps agree on postures from another source.
  io::MotTable ik;
  MatrixXd phi_ik, phi_rt;
  if (!cfg.roundtrip.empty()) {
    ik = io::readMot(cfg.roundtrip);
    const bool degrees = ik.in_degrees || !ik.in_degrees_declared;
    phi_ik.resize(static_cast<Eigen::Index>(phi_names.size()), static_cast<Eigen::Index>(ik.times.size()));
    for (std::size_t o = 0; o < phi_names.size(); ++o) {
      const auto c = std::find(ik.columns.begin(), ik.columns.end(), phi_names[o]);
      if (c == ik.columns.end())
        throw ParseError(cfg.roundtrip, 0, "no column '" + phi_names[o] + "' (a posture coordinate of the model)");
      phi_ik.row(static_cast<Eigen::Index>(o)) =
          ik.values.col(c - ik.columns.begin()).transpose() * (degrees ? 1.0 / kRadToDegMapping : 1.0);
    }
    phi_rt = dirs[0].fit->map(dirs[0].best).applyAll(dirs[1].fit->map(dirs[1].best).applyAll(phi_ik));
  }

  MappingExperimentResult result;
  result.out = cfg.out;
  result.human_name = human.name();
  result.model_name = model.name();
  result.solver = cfg.solver;
  result.roundtrip = cfg.roundtrip;
  result.human_joints = static_cast<int>(theta_idx.size());
  result.model_coordinates = static_cast<int>(phi_idx.size());
  result.degree = cfg.degree;
  for (const ClipPairs& c : clips)
    result.clips.push_back(
        {c.path, c.train, c.frames, static_cast<int>(c.theta.cols()), c.gaps, c.poor, c.human_mnte, c.model_mnte});
  for (const Direction& d : dirs) {
    result.directions.push_back(
        {d.name, static_cast<int>(d.fit->features().size()), static_cast<int>(th_train.cols()), d.fit->rank(), d.best});
    const Eigen::Index last = d.train_rms.rows() - 1;
    // Error against the number of singular values.
    for (int k = 1; k <= d.fit->rank(); ++k)
      result.error.push_back(
          {d.name, k, d.fit->singularValues()[k - 1], d.train_rms(last, k - 1), d.test_rms(last, k - 1)});
  }
  // Per output coordinate at the best k and at full rank.
  for (const Direction& d : dirs)
    for (std::size_t o = 0; o < d.outputs.size(); ++o) {
      const auto r = static_cast<Eigen::Index>(o);
      result.coordinates.push_back({d.name, d.outputs[o], d.train_rms(r, d.best - 1), d.test_rms(r, d.best - 1),
                                    d.train_rms(r, d.fit->rank() - 1), d.test_rms(r, d.fit->rank() - 1)});
    }
  if (phi_ik.size() > 0) {
    std::string rt = "time,coordinate,ik_deg,roundtrip_deg\n";
    for (Eigen::Index j = 0; j < phi_ik.cols(); ++j)
      for (std::size_t o = 0; o < phi_names.size(); ++o)
        rt += fmt::format("{:.4f},{},{:.5g},{:.5g}\n", ik.times[static_cast<std::size_t>(j)], phi_names[o],
                          phi_ik(static_cast<Eigen::Index>(o), j) * kRadToDegMapping,
                          phi_rt(static_cast<Eigen::Index>(o), j) * kRadToDegMapping);
    result.roundtrip_csv = std::move(rt);
    const VectorXd per =
        ((phi_rt - phi_ik).rowwise().squaredNorm() / static_cast<double>(phi_ik.cols())).cwiseSqrt() * kRadToDegMapping;
    Eigen::Index worst = 0;
    per.maxCoeff(&worst);
    result.roundtrip_frames = static_cast<int>(phi_ik.cols());
    result.roundtrip_rms_deg =
        std::sqrt((phi_rt - phi_ik).squaredNorm() / static_cast<double>(phi_ik.size())) * kRadToDegMapping;
    result.roundtrip_worst = phi_names[static_cast<std::size_t>(worst)];
    result.roundtrip_worst_deg = per[worst];
  }
  // Fig. 14's idea as time series: the model's coordinates on the first test clip, tracked and
  // mapped from the human figure with few, the best and all singular values.
  const Direction& hm = dirs[0];
  const int k_few = std::max(1, hm.best / 4);
  const biomech::PolynomialMap m_few = hm.fit->map(k_few), m_best = hm.fit->map(hm.best),
                               m_full = hm.fit->map(hm.fit->rank());
  std::string csv =
      fmt::format("clip,time,coordinate,tracked_deg,k{}_deg,k{}_deg,k{}_deg\n", k_few, hm.best, hm.fit->rank());
  for (const ClipPairs& c : clips) {
    if (c.train) continue;
    const MatrixXd a = m_few.applyAll(c.theta) * kRadToDegMapping, b = m_best.applyAll(c.theta) * kRadToDegMapping,
                   f = m_full.applyAll(c.theta) * kRadToDegMapping;
    for (Eigen::Index j = 0; j < c.theta.cols(); ++j)
      for (std::size_t o = 0; o < phi_names.size(); ++o) {
        const auto r = static_cast<Eigen::Index>(o);
        csv += fmt::format("{},{:.4f},{},{:.5g},{:.5g},{:.5g},{:.5g}\n", clipName(c.path),
                           c.times[static_cast<std::size_t>(j)], phi_names[o], c.phi(r, j) * kRadToDegMapping, a(r, j),
                           b(r, j), f(r, j));
      }
    break;
  }
  result.series_csv = std::move(csv);
  // The pairs themselves (radians), for refitting elsewhere (python: kinetrack.PolynomialMapFit).
  csv = "clip,role,time";
  for (const std::string& n : theta_names) csv += ",human:" + n;
  for (const std::string& n : phi_names) csv += ",model:" + n;
  csv += '\n';
  for (const ClipPairs& c : clips)
    for (Eigen::Index j = 0; j < c.theta.cols(); ++j) {
      csv += fmt::format("{},{},{:.4f}", clipName(c.path), c.train ? "train" : "test",
                         c.times[static_cast<std::size_t>(j)]);
      for (Eigen::Index i = 0; i < c.theta.rows(); ++i) csv += fmt::format(",{:.7g}", c.theta(i, j));
      for (Eigen::Index i = 0; i < c.phi.rows(); ++i) csv += fmt::format(",{:.7g}", c.phi(i, j));
      csv += '\n';
    }
  result.pairs_csv = std::move(csv);

  const fs::path dir(cfg.out);
  fs::create_directories(dir);
  if (!result.roundtrip_csv.empty())
    io::writeFileAtomically((dir / "mapping_roundtrip.csv").string(), result.roundtrip_csv);
  io::writeFileAtomically((dir / "mapping_error.csv").string(), mappingErrorCsv(result));
  io::writeFileAtomically((dir / "mapping_coordinates.csv").string(), mappingCoordinatesCsv(result));
  io::writeFileAtomically((dir / "mapping_series.csv").string(), result.series_csv);
  io::writeFileAtomically((dir / "mapping_pairs.csv").string(), result.pairs_csv);
  io::writeFileAtomically((dir / "mapping_clips.csv").string(), mappingClipsCsv(result));
  return result;
}

std::string mappingErrorCsv(const MappingExperimentResult& result) {
  std::string csv = "direction,k,singular_value,train_rms_deg,test_rms_deg\n";
  for (const MappingErrorRow& e : result.error)
    csv += fmt::format("{},{},{:.9g},{:.9g},{:.9g}\n", e.direction, e.k, e.singular_value, e.train_rms_deg,
                       e.test_rms_deg);
  return csv;
}

std::string mappingCoordinatesCsv(const MappingExperimentResult& result) {
  std::string csv = "direction,coordinate,train_rms_deg_best,test_rms_deg_best,train_rms_deg_full,test_rms_deg_full\n";
  for (const MappingCoordinateRow& c : result.coordinates)
    csv += fmt::format("{},{},{:.6g},{:.6g},{:.6g},{:.6g}\n", c.direction, c.coordinate, c.train_best, c.test_best,
                       c.train_full, c.test_full);
  return csv;
}

std::string mappingClipsCsv(const MappingExperimentResult& result) {
  std::string csv = "clip,role,frames,pairs,gaps,dropped,human_mnte_median,model_mnte_median\n";
  for (const MappingClip& c : result.clips)
    csv += fmt::format("{},{},{},{},{},{},{:.5g},{:.5g}\n", c.path, c.train ? "train" : "test", c.frames, c.pairs,
                       c.gaps, c.dropped, c.human_mnte, c.model_mnte);
  return csv;
}

std::string summaryText(const MappingExperimentResult& result) {
  std::string text = fmt::format(
      "mapping {} ({} posture joints) <-> {} ({} coordinates), degree {} polynomials, solver {}\n", result.human_name,
      result.human_joints, result.model_name, result.model_coordinates, result.degree, result.solver);
  std::vector<std::vector<std::string>> t{{"clip", "role", "frames", "pairs", "dropped", "MNTE human", "MNTE model"}};
  for (const MappingClip& c : result.clips)
    t.push_back({clipName(c.path), c.train ? "train" : "test", std::to_string(c.frames), std::to_string(c.pairs),
                 std::to_string(c.dropped + c.gaps), fmt::format("{:.4f}", c.human_mnte),
                 fmt::format("{:.4f}", c.model_mnte)});
  text += app::textTable(t);
  text += "\nRMS error (deg) against the number k of singular values:\n";
  t = {{"direction", "features", "samples", "rank", "k", "train RMS", "test RMS"}};
  for (const MappingDirection& d : result.directions) {
    std::vector<int> ks{1, d.best, d.rank};
    for (int k : {5, 20, 50})
      if (k < d.rank) ks.push_back(k);
    std::sort(ks.begin(), ks.end());
    ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
    for (int k : ks)
      for (const MappingErrorRow& e : result.error)
        if (e.direction == d.name && e.k == k)
          t.push_back({d.name, std::to_string(d.features), std::to_string(d.samples), std::to_string(d.rank),
                       std::to_string(k) + (k == d.best ? " (best test)" : ""), fmt::format("{:.3f}", e.train_rms_deg),
                       fmt::format("{:.3f}", e.test_rms_deg)});
  }
  text += app::textTable(t);
  if (result.roundtrip_frames > 0)
    text += fmt::format(
        "\nOpenSim IK walk {} ({} frames) through N then M (k = {}, {}): RMS {:.3f} deg, worst {} {:.3f} deg\n",
        fs::path(result.roundtrip).filename().string(), result.roundtrip_frames, result.directions[1].best,
        result.directions[0].best, result.roundtrip_rms_deg, result.roundtrip_worst, result.roundtrip_worst_deg);
  text += fmt::format("wrote {}\n", (fs::path(result.out) / "mapping_error.csv").string());
  return text;
}

}  // namespace kinetrack::experiments
