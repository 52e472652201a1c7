// The capture readers (BVH, MVNX, TRC/MOT, C3D, QTM TSV, joint CSV) into numpy arrays plus
// metadata. Every reader raises kinetrack.ParseError (file, line) for a missing or malformed
// file and releases the GIL while it parses.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/io/capture/bvh.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/capture/mvnx.hpp"
#include "kinetrack/io/capture/qtm_tsv.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/io/table/opensim_table.hpp"
#include "kinetrack/io/table/orientation_table.hpp"

namespace kinetrack::python {

namespace {

// (frames, items, 3) positions and (frames, items, 3, 3) rotations of a frame-major pose array.
py::array_t<double> positionsOf(const std::vector<Transform>& poses, py::ssize_t frames, py::ssize_t items) {
  py::array_t<double> a({frames, items, py::ssize_t(3)});
  double* d = a.mutable_data();
  for (std::size_t i = 0; i < poses.size(); ++i) Eigen::Map<Vector3d>(d + 3 * i) = poses[i].p;
  return a;
}

py::array_t<double> rotationsOf(const std::vector<Transform>& poses, py::ssize_t frames, py::ssize_t items) {
  py::array_t<double> a({frames, items, py::ssize_t(3), py::ssize_t(3)});
  double* d = a.mutable_data();
  for (std::size_t i = 0; i < poses.size(); ++i)
    Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(d + 9 * i) = poses[i].R;
  return a;
}

py::array_t<double> vectorsOf(const std::vector<Vector3d>& v, py::ssize_t frames, py::ssize_t items) {
  if (v.empty()) return py::array_t<double>(std::vector<py::ssize_t>{frames, items, 3});
  py::array_t<double> a({frames, items, py::ssize_t(3)});
  for (std::size_t i = 0; i < v.size(); ++i) Eigen::Map<Vector3d>(a.mutable_data() + 3 * i) = v[i];
  return a;
}

}  // namespace

void bindMotionClip(py::module_& m) {
  py::class_<io::MotionClip, std::shared_ptr<io::MotionClip>>(m, "MotionClip", R"doc(
A capture clip in kinetrack's conventions (m, Z up): per frame and segment a world pose. Arrays
are copies: times (N,) s, positions (N, S, 3) m, rotations (N, S, 3, 3) R_WS, valid (N, S) bool,
linear_velocity / angular_velocity (N, S, 3) in m/s and rad/s (world; shape (N, S, 3) of zeros
length 0 when the reader did not compute them).)doc")
      .def_readonly("source", &io::MotionClip::source)
      .def_readonly("segment_names", &io::MotionClip::segment_names)
      .def_readonly("segment_parents", &io::MotionClip::segment_parent, "parent index per segment, -1 for the root")
      .def_property_readonly("num_frames", &io::MotionClip::numFrames)
      .def_property_readonly("num_segments", &io::MotionClip::numSegments)
      .def_property_readonly("times", [](const io::MotionClip& c) { return doubles(c.times); })
      .def_property_readonly(
          "positions", [](const io::MotionClip& c) { return positionsOf(c.poses, c.numFrames(), c.numSegments()); })
      .def_property_readonly(
          "rotations", [](const io::MotionClip& c) { return rotationsOf(c.poses, c.numFrames(), c.numSegments()); })
      .def_property_readonly("linear_velocity",
                             [](const io::MotionClip& c) {
                               return vectorsOf(c.linear_velocity, c.linear_velocity.empty() ? 0 : c.numFrames(),
                                                c.numSegments());
                             })
      .def_property_readonly("angular_velocity",
                             [](const io::MotionClip& c) {
                               return vectorsOf(c.angular_velocity, c.angular_velocity.empty() ? 0 : c.numFrames(),
                                                c.numSegments());
                             })
      .def_property_readonly("valid",
                             [](const io::MotionClip& c) {
                               py::array_t<bool> a({c.numFrames(), c.numSegments()});
                               for (std::size_t i = 0; i < c.valid.size(); ++i) a.mutable_data()[i] = c.valid[i] != 0;
                               return a;
                             })
      .def("__repr__", [](const io::MotionClip& c) {
        return "<kinetrack.MotionClip '" + c.source + "': " + std::to_string(c.numFrames()) + " frames, " +
               std::to_string(c.numSegments()) + " segments>";
      });
}

void bindMarkerTrajectories(py::module_& m) {
  py::class_<io::MarkerTrajectories, std::shared_ptr<io::MarkerTrajectories>>(m, "MarkerTrajectories", R"doc(
Marker trajectories in m: names (M markers), times (N,) s, positions (N, M, 3) with NaN for a
missing sample, data_rate (Hz), up (the lab's up axis: compare Model.up; with_up(model) converts).)doc")
      .def_readonly("source", &io::MarkerTrajectories::source)
      .def_readonly("names", &io::MarkerTrajectories::names)
      .def_readonly("data_rate", &io::MarkerTrajectories::data_rate)
      .def_property_readonly(
          "up", [](const io::MarkerTrajectories& t) { return toNumpy(t.up); },
          "the lab's up direction in these positions: +Z once converted (read_trc(y_up=True), C3D), +Y for a "
          "TRC read as it is; must be the model's (Model.up) for marker IK")
      .def(
          "with_up",
          [](const io::MarkerTrajectories& t, const Model& model) {
            return std::make_shared<io::MarkerTrajectories>(io::withUp(t, model.up()));
          },
          py::arg("model"), "A copy in the model's axes (the permutation between +Y and +Z up).")
      .def_property_readonly("num_frames", &io::MarkerTrajectories::numFrames)
      .def_property_readonly("num_markers", &io::MarkerTrajectories::numMarkers)
      .def_property_readonly("times", [](const io::MarkerTrajectories& t) { return doubles(t.times); })
      .def_property_readonly(
          "positions",
          [](const io::MarkerTrajectories& t) { return vectorsOf(t.positions, t.numFrames(), t.numMarkers()); })
      .def("__repr__", [](const io::MarkerTrajectories& t) {
        return "<kinetrack.MarkerTrajectories '" + t.source + "': " + std::to_string(t.numFrames()) + " frames, " +
               std::to_string(t.numMarkers()) + " markers>";
      });
}

void bindIo(py::module_& m) {
  bindMotionClip(m);
  bindMarkerTrajectories(m);

  m.def(
      "read_bvh",
      [](const std::string& path, const std::string& units, bool velocities) {
        io::BvhOptions o;
        o.units = io::parseBvhUnits(units);
        o.velocities = velocities;
        return std::make_shared<io::MotionClip>(released([&] { return io::bvhToClip(io::readBvh(path), o); }));
      },
      py::arg("path"), py::arg("units") = "auto", py::arg("velocities") = true,
      "A BVH file as a MotionClip: converted to m (units 'auto' detects m/cm/in/CMU units from the skeleton's "
      "height) and Z up ((x, y, z)_BVH -> (z, x, y)).");
  m.def(
      "read_mvnx",
      [](const std::string& path) {
        return std::make_shared<io::MotionClip>(released([&] { return io::mvnxToClip(io::readMvnx(path)); }));
      },
      py::arg("path"), "An Xsens MVNX file (v3/v4) as a MotionClip (SI, Z up, with velocities).");
  m.def(
      "read_trc",
      [](const std::string& path, bool y_up) {
        return std::make_shared<io::MarkerTrajectories>(released([&] { return io::readTrc(path, {.y_up = y_up}); }));
      },
      py::arg("path"), py::arg("y_up") = true,
      "A TRC file as MarkerTrajectories in m; y_up converts a Y-up file to Z up ((x, y, z) -> (z, x, y)).");
  m.def(
      "read_mot",
      [](const std::string& path) {
        const io::MotTable t = released([&] { return io::readMot(path); });
        return py::dict(py::arg("name") = t.name, py::arg("columns") = t.columns, py::arg("times") = doubles(t.times),
                        py::arg("values") = toNumpy(t.values), py::arg("in_degrees") = t.in_degrees);
      },
      py::arg("path"),
      "An OpenSim .mot/.sto table as a dict: name, columns (list, without time), times (N,), values (N, C), "
      "in_degrees.");
  m.def(
      "read_orientations",
      [](const std::string& path) {
        const io::OrientationTable t = released([&] { return io::readOrientationTable(path); });
        py::array_t<double> q({py::ssize_t(t.numFrames()), py::ssize_t(t.numSensors()), py::ssize_t(4)});
        auto a = q.mutable_unchecked<3>();
        for (int f = 0; f < t.numFrames(); ++f)
          for (int i = 0; i < t.numSensors(); ++i) {
            const Eigen::Quaterniond& o = t.orientation(f, i);
            a(f, i, 0) = o.w(), a(f, i, 1) = o.x(), a(f, i, 2) = o.y(), a(f, i, 3) = o.z();
          }
        return py::dict(py::arg("names") = t.names, py::arg("times") = doubles(t.times),
                        py::arg("data_rate") = t.data_rate, py::arg("quaternions") = q);
      },
      py::arg("path"),
      "An OpenSense orientation table (.sto, DataType=Quaternion, cells w,x,y,z) as a dict: names (the IMU "
      "columns), times (N,), data_rate (Hz, 0 when absent), quaternions (N, S, 4) as w, x, y, z, normalised, "
      "NaN for a missing orientation.");
  bindIoMarkerFormats(m);
  bindC3d(m);
}

}  // namespace kinetrack::python
