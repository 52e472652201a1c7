// OpenSim's ScaleTool, the library pieces: the setup reader (gait2354's Setup_Scale.xml, broken
// setups naming file and line), the scale factors of the ModelScaler against the factors OpenSim
// wrote into subject01_simbody.osim (its geometry scale_factors), the document scaling against
// the same file (joint frames, mass centres, masses, path points, the knee's translation
// functions), and the errors (unknown marker in a pair, unknown body, missing files).
// Figures and their explanation: docs/scaling.md.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/capture/marker_file.hpp"
#include "kinetrack/io/model/opensim_model_edit.hpp"
#include "kinetrack/io/model/opensim_muscles.hpp"
#include "kinetrack/io/model/opensim_scale_setup.hpp"
#include "kinetrack/kinematics/forward_kinematics.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/subject/opensim_scale.hpp"
#include "testing/shared_paths.hpp"

namespace KINETRACK_UNITY_ID {

using namespace kinetrack;

#define GAIT_FILES                                                                                     \
  KINETRACK_REQUIRE_SHARED(setup_path, "data/opensim/gait2354_walk/subject01_Setup_Scale.xml");        \
  KINETRACK_REQUIRE_SHARED(generic_path, "data/opensim/gait2354_walk/gait2354_simbody_GENERIC.osim");  \
  KINETRACK_REQUIRE_SHARED(markerset_path, "data/opensim/gait2354_walk/gait2354_Scale_MarkerSet.xml"); \
  KINETRACK_REQUIRE_SHARED(static_path, "data/opensim/gait2354_walk/subject01_static.trc");            \
  KINETRACK_REQUIRE_SHARED(reference_path, "data/opensim/gait2354_walk/subject01_simbody.osim")

/// OpenSim's factors for subject01, as its scaled model records them (the geometry scale_factors
/// of each body, printed with 6 significant digits).
const std::map<std::string, double> kOpenSimFactors = {
    {"pelvis", 1.02458},   {"femur_r", 1.14724}, {"femur_l", 1.14724}, {"tibia_r", 0.988523},
    {"tibia_l", 0.988523}, {"talus_r", 1.11398}, {"talus_l", 1.11398}, {"calcn_r", 1.02708},
    {"calcn_l", 1.02708},  {"toes_r", 1.02708},  {"toes_l", 1.02708},  {"torso", 1.07972}};

/// The generic model with the setup's marker set, as the GenericModelMaker makes it.
io::OpenSimModelDocument genericDocument(const std::string& generic, const std::string& markerset) {
  io::OpenSimModelDocument doc = io::OpenSimModelDocument::read(generic);
  doc.setMarkers(io::readOpenSimMarkerSet(markerset));
  return doc;
}

TEST(OpenSimScaleSetup, ReadsGait2354) {
  KINETRACK_REQUIRE_SHARED(setup_path, "data/opensim/gait2354_walk/subject01_Setup_Scale.xml");
  const io::ScaleSetup s = io::readScaleSetup(setup_path);
  EXPECT_DOUBLE_EQ(s.mass, 72.6);
  EXPECT_EQ(s.model_file, "gait2354_simbody.osim");
  EXPECT_EQ(s.marker_set_file, "gait2354_Scale_MarkerSet.xml");
  EXPECT_EQ(s.scaling_order, (std::vector<std::string>{"measurements", "manualScale"}));
  ASSERT_EQ(s.measurements.size(), 5u);
  EXPECT_EQ(s.measurements[0].name, "torso");
  ASSERT_EQ(s.measurements[0].pairs.size(), 1u);
  EXPECT_EQ(s.measurements[0].pairs[0].first, "V.Sacral");
  EXPECT_EQ(s.measurements[0].pairs[0].second, "Top.Head");
  EXPECT_GT(s.measurements[0].pairs[0].line, 0);
  EXPECT_EQ(s.measurements[2].bodies.size(), 4u);  // femur_r/l, patella_r/l
  EXPECT_TRUE(s.measurements[2].bodies[0].axes[0] && s.measurements[2].bodies[0].axes[2]);
  ASSERT_EQ(s.manual_scales.size(), 4u);
  EXPECT_EQ(s.manual_scales[2].body, "tibia_r");
  EXPECT_DOUBLE_EQ(s.manual_scales[2].factors.y(), 0.988523);
  EXPECT_DOUBLE_EQ(s.scaler_time_start, 1.0);
  EXPECT_DOUBLE_EQ(s.scaler_time_end, 2.0);
  EXPECT_TRUE(s.preserve_mass_distribution);
  EXPECT_EQ(s.marker_tasks.size(), 39u);
  EXPECT_EQ(s.coordinate_tasks.size(), 5u);
  EXPECT_DOUBLE_EQ(s.placer_time_end, 1.01);
  EXPECT_EQ(s.output_motion_file, "subject01_static_output.mot");
  EXPECT_EQ(s.output_model_file, "subject01_simbody.osim");
  EXPECT_TRUE(s.output_marker_file.empty());  // "Unassigned"
  EXPECT_DOUBLE_EQ(s.max_marker_movement, -1.0);
  EXPECT_EQ(s.resolve(s.scaler_marker_file),
            (std::filesystem::path(setup_path).parent_path() / "subject01_static.trc").string());
}

/// A minimal setup with one measurement, for the error cases.
std::string setupText(const std::string& pair, const std::string& body, const std::string& axes) {
  return "<OpenSimDocument Version=\"40000\">\n<ScaleTool name=\"t\">\n<mass>70</mass>\n<ModelScaler>\n"
         "<scaling_order> measurements </scaling_order>\n<MeasurementSet><objects>\n<Measurement name=\"torso\">\n"
         "<MarkerPairSet><objects><MarkerPair>\n<markers> " +
         pair + " </markers>\n</MarkerPair></objects></MarkerPairSet>\n<BodyScaleSet><objects>\n<BodyScale name=\"" +
         body + "\">\n<axes> " + axes +
         " </axes>\n</BodyScale></objects></BodyScaleSet>\n</Measurement>\n</objects></MeasurementSet>\n"
         "<time_range> 1 2 </time_range>\n</ModelScaler>\n</ScaleTool>\n</OpenSimDocument>\n";
}

template <typename F>
std::string parseErrorOf(F&& f, int* line = nullptr) {
  try {
    f();
  } catch (const ParseError& e) {
    if (line) *line = e.line();
    return e.what();
  }
  return "no ParseError";
}

TEST(OpenSimScaleSetup, BrokenSetupsNameFileLineAndItem) {
  int line = 0;
  std::string msg = parseErrorOf([] { io::parseScaleSetup(setupText("V.Sacral", "torso", "X Y Z"), "s.xml"); }, &line);
  EXPECT_NE(msg.find("s.xml"), std::string::npos) << msg;
  EXPECT_EQ(line, 9) << msg;
  EXPECT_NE(msg.find("Measurement 'torso': <markers> 'V.Sacral' names 1 marker, expected 2"), std::string::npos) << msg;
  msg = parseErrorOf([] { io::parseScaleSetup(setupText("A B", "torso", "X W"), "s.xml"); }, &line);
  EXPECT_EQ(line, 13) << msg;
  EXPECT_NE(msg.find("BodyScale 'torso': axis 'W' is not X, Y or Z"), std::string::npos) << msg;
  msg = parseErrorOf([] { io::readScaleSetup("/nonexistent/Setup_Scale.xml"); });
  EXPECT_NE(msg.find("/nonexistent/Setup_Scale.xml"), std::string::npos) << msg;
  msg = parseErrorOf([] { io::parseScaleSetup("<OpenSimDocument><IKTool/></OpenSimDocument>", "ik.xml"); });
  EXPECT_NE(msg.find("no <ScaleTool>"), std::string::npos) << msg;
}

TEST(OpenSimScale, FactorsAreOpenSims) {
  GAIT_FILES;
  const io::ScaleSetup setup = io::readScaleSetup(setup_path);
  const io::OpenSimModelDocument doc = genericDocument(generic_path, markerset_path);
  const io::OpenSimModel generic = io::parseOpenSimModel(doc.text(), generic_path);
  const io::MarkerTrajectories trial = io::readMarkerTrial(static_path, true);
  const subject::OpenSimScaleFactors f = subject::computeOpenSimScaleFactors(generic, setup, &trial);
  EXPECT_EQ(f.frames, 61);  // 1.0 … 2.0 s at 60 Hz
  // patella_r/l of the thigh measurement are not bodies of the Simbody model: ignored, as OpenSim.
  ASSERT_EQ(f.warnings.size(), 2u);
  EXPECT_NE(f.warnings[0].find("patella_r"), std::string::npos);
  double worst = 0.0;
  for (const auto& [body, factor] : kOpenSimFactors) {
    const Vector3d* ours = f.find(body);
    ASSERT_NE(ours, nullptr) << body;
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::abs((*ours)[k] - factor));
  }
  // Measured: 4.8e-6 (calcn: 1.0270848 against the printed 1.02708); OpenSim printed 6 digits.
  EXPECT_LT(worst, 5e-6);
  // The thigh measurement is computed but overwritten by the manual scale (femur 1.14724).
  EXPECT_NEAR(f.measurements[2].factor, 1.07063, 1e-5);
  ASSERT_EQ(f.measurements[2].pairs.size(), 2u);
  EXPECT_GT(f.measurements[2].pairs[0].model_distance, 0.3);
}

TEST(OpenSimScale, UnknownMarkerOrBodyAndMissingTrialAreErrors) {
  GAIT_FILES;
  const io::OpenSimModelDocument doc = genericDocument(generic_path, markerset_path);
  const io::OpenSimModel generic = io::parseOpenSimModel(doc.text(), generic_path);
  const io::MarkerTrajectories trial = io::readMarkerTrial(static_path, true);
  int line = 0;
  // A marker the model has but the trial lacks.
  io::ScaleSetup s = io::parseScaleSetup(setupText("V.Sacral R.ASIS", "torso", "X Y Z"), "Setup_Scale.xml");
  io::MarkerTrajectories without = trial;
  without.names[static_cast<std::size_t>(std::find(without.names.begin(), without.names.end(), "R.ASIS") -
                                         without.names.begin())] = "XYZ";
  std::string msg = parseErrorOf([&] { subject::computeOpenSimScaleFactors(generic, s, &without); }, &line);
  EXPECT_EQ(line, 9) << msg;
  EXPECT_NE(msg.find("Setup_Scale.xml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Measurement 'torso': marker 'R.ASIS' is not in the static trial"), std::string::npos) << msg;
  // A marker neither the model nor its marker set has.
  s = io::parseScaleSetup(setupText("V.Sacral XYZ", "torso", "X Y Z"), "Setup_Scale.xml");
  msg = parseErrorOf([&] { subject::computeOpenSimScaleFactors(generic, s, &trial); }, &line);
  EXPECT_EQ(line, 9) << msg;
  EXPECT_NE(msg.find("Measurement 'torso': marker 'XYZ' is not a marker of the model"), std::string::npos) << msg;
  // An unknown body: a warning (OpenSim ignores it), an error when strict.
  s = io::parseScaleSetup(setupText("V.Sacral Top.Head", "thorax", "X Y Z"), "Setup_Scale.xml");
  const subject::OpenSimScaleFactors lenient = subject::computeOpenSimScaleFactors(generic, s, &trial);
  ASSERT_EQ(lenient.warnings.size(), 1u);
  EXPECT_NE(lenient.warnings[0].find("body 'thorax' is not a body of the model"), std::string::npos);
  msg = parseErrorOf([&] { subject::computeOpenSimScaleFactors(generic, s, &trial, {.unknown_body_is_error = true}); },
                     &line);
  EXPECT_EQ(line, 12) << msg;
  EXPECT_NE(msg.find("body 'thorax' is not a body of the model (bodies: pelvis, femur_r"), std::string::npos) << msg;
  // Measurements without a trial.
  s = io::parseScaleSetup(setupText("V.Sacral Top.Head", "torso", "X Y Z"), "Setup_Scale.xml");
  EXPECT_THROW(subject::computeOpenSimScaleFactors(generic, s, nullptr), InvalidArgument);
  // Missing files.
  EXPECT_THROW(io::readMarkerTrial("/nonexistent/static.trc", true), ParseError);
  EXPECT_THROW(io::OpenSimModelDocument::read("/nonexistent/generic.osim"), ParseError);
}

TEST(OpenSimScale, ScaledDocumentIsOpenSims) {
  GAIT_FILES;
  const io::ScaleSetup setup = io::readScaleSetup(setup_path);
  io::OpenSimModelDocument doc = genericDocument(generic_path, markerset_path);
  const io::OpenSimModel generic = io::parseOpenSimModel(doc.text(), generic_path);
  const io::MarkerTrajectories trial = io::readMarkerTrial(static_path, true);
  const subject::OpenSimScaleFactors f = subject::computeOpenSimScaleFactors(generic, setup, &trial);
  std::vector<std::pair<std::string, Vector3d>> factors;
  for (const subject::BodyScaleFactors& b : f.bodies) factors.emplace_back(b.body, b.factors);
  const io::OpenSimScaleReport rep = doc.scale(factors, setup.mass, setup.preserve_mass_distribution);
  EXPECT_NEAR(rep.mass_before, 75.1646, 1e-9);
  EXPECT_DOUBLE_EQ(rep.mass_after, 72.6);
  EXPECT_EQ(rep.bodies, 12);
  // The three translations of the 11 joints whose parent is scaled (all but ground_pelvis), as
  // OpenSim wraps them (subject01_simbody.osim has the same 33 plus the moving points' 12).
  EXPECT_EQ(rep.translation_functions, 33);
  EXPECT_EQ(rep.moving_points, 4);  // rect_fem_r/l-P3, vas_int_r/l-P4
  const std::string text = doc.text();
  const io::OpenSimModel ours = io::parseOpenSimModel(text, "scaled.osim");
  const io::OpenSimModel ref = io::readOpenSimModel(reference_path);

  // Joint frames: every body's origin in the generic model's default pose (the joint offsets and
  // the knee's scaled translation functions together; the reference's own default pelvis_ty is
  // 1.015, the generic's 0.95). Measured: 0.0003 mm.
  Data d_ours(*ours.model), d_ref(*ref.model);
  framesForwardKinematics(*ours.model, d_ours, ours.defaultConfiguration());
  framesForwardKinematics(*ref.model, d_ref, ours.defaultConfiguration());
  double worst_origin = 0.0;
  for (const std::string& b : ref.bodies) {
    const FrameId fo = ours.model->frameId(b), fr = ref.model->frameId(b);
    worst_origin = std::max(worst_origin, (d_ours.frame[fo.value].p - d_ref.frame[fr.value].p).norm());
  }
  EXPECT_LT(worst_origin, 2e-6);
  // Masses (preserve_mass_distribution: × 72.6 / 75.1646 each) and mass centres. Measured:
  // 2e-15 relative; 0.0005 mm (OpenSim printed the centres with 6 digits).
  EXPECT_NEAR(ours.model->totalMass(), 72.6, 1e-9);
  EXPECT_NEAR(ref.model->totalMass(), 72.6, 1e-9);
  for (const std::string& b : ref.bodies) {
    const auto lo = ours.model->findLink(b), lr = ref.model->findLink(b);
    if (!lo || !lr) continue;
    const Inertial& io_ = ours.model->inertial(*lo);
    const Inertial& ir = ref.model->inertial(*lr);
    EXPECT_NEAR(io_.mass, ir.mass, 1e-12) << b;
    EXPECT_LT((io_.com - ir.com).norm(), 1e-6) << b;
    // The inertia: OpenSim 4 scales it by s² too; the reference, made by OpenSim 3.x, only by the
    // mass ratio (docs/scaling.md). Ours / s² = the reference to its 6 printed digits: measured
    // 2.6e-6 of the largest moment (femur: 0.129331 printed).
    const double s2 = f.find(b)->x() * f.find(b)->x();
    EXPECT_LT((io_.inertia / s2 - ir.inertia).cwiseAbs().maxCoeff(), 3e-6 * ir.inertia.cwiseAbs().maxCoeff() + 1e-9)
        << b;
  }
  // Muscle path points (fixed and conditional). Measured: 0.0005 mm.
  const io::OpenSimMuscleSet mo = io::parseOpenSimMuscles(text, "scaled.osim");
  const io::OpenSimMuscleSet mr = io::readOpenSimMuscles(reference_path);
  ASSERT_EQ(mo.muscles.size(), mr.muscles.size());
  double worst_point = 0.0;
  for (std::size_t i = 0; i < mr.muscles.size(); ++i)
    for (std::size_t k = 0; k < mr.muscles[i].points.size(); ++k)
      if (mr.muscles[i].points[k].kind != io::OpenSimPathPoint::Kind::Moving)
        worst_point =
            std::max(worst_point, (mo.muscles[i].points[k].location - mr.muscles[i].points[k].location).norm());
  EXPECT_LT(worst_point, 1e-6);
}

}  // namespace KINETRACK_UNITY_ID
