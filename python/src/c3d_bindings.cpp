// C3D analog channels and force plates, Motion Analysis .anc files, and `kinetrack c3d export`
// (the same job): ground reactions as arrays, a C3D as OpenSim's files.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/app/c3d_job.hpp"
#include "kinetrack/app/emg_job.hpp"
#include "kinetrack/io/capture/analog.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/capture/force_plates.hpp"

namespace kinetrack::python {

namespace {

py::dict analogDict(const io::AnalogData& a) {
  py::array_t<double> values({static_cast<py::ssize_t>(a.numSamples()), static_cast<py::ssize_t>(a.numChannels())});
  std::copy(a.values.begin(), a.values.end(), values.mutable_data());
  return py::dict(py::arg("source") = a.source, py::arg("rate") = a.rate, py::arg("labels") = a.labels,
                  py::arg("units") = a.units, py::arg("values") = values);
}

py::array_t<double> vectors(const std::vector<Vector3d>& v) {
  py::array_t<double> a({static_cast<py::ssize_t>(v.size()), py::ssize_t(3)});
  for (std::size_t i = 0; i < v.size(); ++i) Eigen::Map<Vector3d>(a.mutable_data() + 3 * i) = v[i];
  return a;
}

py::array_t<double> matrix(const Matrix3d& m) {
  py::array_t<double> a({py::ssize_t(3), py::ssize_t(3)});
  Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(a.mutable_data()) = m;
  return a;
}

py::dict reactionsDict(const io::GroundReactions& g) {
  py::list plates;
  for (const io::PlateReactions& p : g.plates) {
    py::array_t<double> centre(3);
    Eigen::Map<Vector3d>(centre.mutable_data()) = p.centre;
    plates.append(py::dict(py::arg("type") = p.type, py::arg("centre") = centre, py::arg("axes") = matrix(p.axes),
                           py::arg("force") = vectors(p.force), py::arg("point") = vectors(p.point),
                           py::arg("moment") = vectors(p.moment), py::arg("peak_vertical") = p.peak_vertical,
                           py::arg("loaded_samples") = p.loaded_samples));
  }
  std::vector<double> times(static_cast<std::size_t>(g.samples));
  for (std::size_t s = 0; s < times.size(); ++s) times[s] = static_cast<double>(s) / g.rate;
  return py::dict(py::arg("rate") = g.rate, py::arg("times") = doubles(times),
                  py::arg("location") = io::toString(g.location), py::arg("plates") = plates,
                  py::arg("warnings") = g.warnings);
}

}  // namespace

void bindC3d(py::module_& m) {
  m.def(
      "read_analog",
      [](const std::string& path) {
        const io::AnalogData a = released([&] { return app::readAnalogFile(path); });
        return analogDict(a);
      },
      py::arg("path"),
      R"doc(The analog channels of a C3D file or a Motion Analysis .anc file as a dict: source, rate (Hz),
labels, units, values (samples, channels) in the file's units after its offsets and scales (.anc:
volts from the counts, Range and BitDepth). Sample s is at time s / rate.)doc");
  m.def(
      "emg_envelopes",
      [](const std::string& path, const std::vector<std::string>& channels, const std::string& out, double rate,
         double band_low, double band_high, double envelope, const std::string& normalise, double onset_sd) {
        app::EmgJobOptions o;
        o.input = path;
        o.channels = channels;
        o.out = out;
        o.rate = rate;
        o.emg.band_low_hz = band_low;
        o.emg.band_high_hz = band_high;
        o.emg.envelope_hz = envelope;
        o.emg.normalise = normalise;
        o.emg.onset_sd = onset_sd;
        const app::EmgJobResult r = released([&] { return app::runEmg(o); });
        const auto& ch = r.envelopes.channels;
        const py::ssize_t n = ch.empty() ? 0 : static_cast<py::ssize_t>(ch[0].envelope.size());
        py::array_t<double> env({n, static_cast<py::ssize_t>(ch.size())});
        for (py::ssize_t s = 0; s < n; ++s)
          for (std::size_t c = 0; c < ch.size(); ++c)
            env.mutable_data()[s * static_cast<py::ssize_t>(ch.size()) + static_cast<py::ssize_t>(c)] =
                ch[c].envelope[static_cast<std::size_t>(s)];
        py::dict on, peak, threshold;
        std::vector<std::string> labels;
        for (const auto& c : ch) {
          labels.push_back(c.label);
          on[py::str(c.label)] = c.on;
          peak[py::str(c.label)] = c.peak;
          threshold[py::str(c.label)] = c.threshold;
        }
        return py::dict(py::arg("rate") = r.envelopes.rate, py::arg("labels") = labels, py::arg("envelopes") = env,
                        py::arg("on") = on, py::arg("peak") = peak, py::arg("threshold") = threshold,
                        py::arg("text") = r.text);
      },
      py::arg("path"), py::arg("channels"), py::kw_only(), py::arg("out") = "", py::arg("rate") = 100.0,
      py::arg("band_low") = 20.0, py::arg("band_high") = 450.0, py::arg("envelope") = 6.0,
      py::arg("normalise") = "peak", py::arg("onset_sd") = 3.0,
      R"doc(`kinetrack emg envelope` (the same job): the named EMG channels of a .c3d or .anc file band-passed
(band_low-band_high Hz, zero lag), rectified, low-passed (envelope Hz) and normalised ('peak' or
'none'); a dict with rate, labels, envelopes (samples, channels) at the analog rate, on {label:
[(on_s, off_s), ...]} where the envelope stays above its quietest 0.1 s baseline + onset_sd SD for
50 ms, peak, threshold and the summary text. out writes the envelopes as an .sto at rate Hz.)doc");
  m.def(
      "ground_reactions",
      [](const std::string& path, const std::string& location, double threshold, bool zero, const std::string& rotate) {
        io::GroundReactionOptions o;
        o.location = io::parseForceLocation(location);
        o.threshold = threshold;
        o.zero = zero;
        const Matrix3d r = app::parseRotation(rotate);
        const io::GroundReactions g =
            released([&] { return io::rotated(io::groundReactions(io::readC3d(path), o), r); });
        return reactionsDict(g);
      },
      py::arg("path"), py::arg("location") = "origin", py::arg("threshold") = 0.0, py::arg("zero") = true,
      py::arg("rotate") = "",
      R"doc(The force plates of a C3D file (FORCE_PLATFORM types 1-4) as ground reactions, as OpenSim's
C3DFileAdapter reads them: a dict with rate, times, location and per plate type, centre, axes
(3, 3: plate axes as columns), force (N, 3) N, point (N, 3) m, moment (N, 3) N m, peak_vertical,
loaded_samples. location: 'origin' (the surface centre, the moment about it) or 'cop' (the centre
of pressure, the free moment). threshold (N): smaller vertical forces give zero force and moment.
rotate: '' (lab axes), 'y-up' or 'x:-90,...'.)doc");
  m.def(
      "c3d_export",
      [](const std::string& input, const std::string& trc, const std::string& grf, const std::string& external_loads,
         const std::string& analog, const std::string& location, double threshold, bool zero, const std::string& rotate,
         const std::vector<std::string>& apply_to, const std::vector<std::string>& channels,
         const std::string& right_body, const std::string& left_body) {
        app::C3dExportOptions o;
        o.input = input;
        o.trc = trc;
        o.grf = grf;
        o.external_loads = external_loads;
        o.analog = analog;
        o.location = io::parseForceLocation(location);
        o.threshold = threshold;
        o.zero = zero;
        o.rotate = rotate;
        o.apply_to = apply_to;
        o.channels = channels;
        o.right_body = right_body;
        o.left_body = left_body;
        std::vector<std::string> warnings;
        app::Reporter reporter;
        reporter.warning = [&warnings](const std::string& w) { warnings.push_back(w); };
        const app::C3dExportResult r = released([&] { return app::runC3dExport(o, reporter); });
        py::list feet;
        for (std::size_t p = 0; p < r.feet.size(); ++p)
          feet.append(py::dict(py::arg("plate") = p + 1, py::arg("side") = std::string(1, r.feet[p].side),
                               py::arg("loaded_frames") = r.feet[p].loaded_frames,
                               py::arg("right_votes") = r.feet[p].right_votes,
                               py::arg("left_votes") = r.feet[p].left_votes, py::arg("distance") = r.feet[p].distance,
                               py::arg("body") = r.bodies[p]));
        return py::dict(py::arg("text") = r.text, py::arg("written") = r.written, py::arg("plates") = feet,
                        py::arg("warnings") = warnings);
      },
      py::arg("input"), py::kw_only(), py::arg("trc") = "", py::arg("grf") = "", py::arg("external_loads") = "",
      py::arg("analog") = "", py::arg("location") = "origin", py::arg("threshold") = 0.0, py::arg("zero") = true,
      py::arg("rotate") = "", py::arg("apply_to") = std::vector<std::string>{},
      py::arg("channels") = std::vector<std::string>{}, py::arg("right_body") = "calcn_r",
      py::arg("left_body") = "calcn_l",
      R"doc(`kinetrack c3d export` (the same job): writes the markers (trc, mm), the ground reactions (grf:
OpenSim's P_ground_force_v*/p*, P_ground_torque_* columns) with their ExternalLoads XML (each
loaded plate applied to the foot that stood on it, or apply_to=['1=calcn_r']), the analog channels
(analog .sto; channels to pick some). Returns a dict: text (the summary), written, plates (side,
votes, body per plate), warnings. Raises ParseError / ValueError; nothing is written on error.)doc");
}

}  // namespace kinetrack::python
