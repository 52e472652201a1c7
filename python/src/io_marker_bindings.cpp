// Marker-file readers (C3D, QTM TSV) with their metadata, and the joint trajectory CSV that
// `kinetrack track` writes.
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "kinetrack/io/capture/c3d.hpp"
#include "kinetrack/io/capture/point_cloud.hpp"
#include "kinetrack/io/capture/qtm_tsv.hpp"
#include "kinetrack/io/table/joint_csv.hpp"
#include "kinetrack/io/table/opensim_table.hpp"

namespace kinetrack::python {

void bindIoMarkerFormats(py::module_& m) {
  m.def(
      "read_c3d",
      [](const std::string& path, bool z_up, bool keep_virtual_points, bool keep_unlabeled) {
        io::C3dOptions o;
        o.z_up = z_up;
        o.keep_virtual_points = keep_virtual_points;
        o.keep_unlabeled = keep_unlabeled;
        auto file = std::make_shared<io::C3dFile>(released([&] { return io::readC3d(path, o); }));
        py::list kinds;
        for (io::C3dPointKind k : file->marker_kinds) kinds.append(io::toString(k));
        const py::array_t<double> residuals({file->markers.numFrames(), file->markers.numMarkers()},
                                            file->residuals.data());
        return py::dict(py::arg("markers") = std::make_shared<io::MarkerTrajectories>(file->markers),
                        py::arg("marker_kinds") = kinds, py::arg("residuals") = residuals,
                        py::arg("all_point_labels") = file->all_point_labels, py::arg("processor") = file->processor,
                        py::arg("point_units") = file->point_units, py::arg("first_frame") = file->first_frame,
                        py::arg("last_frame") = file->last_frame, py::arg("analog_rate") = file->analog_rate,
                        py::arg("analog_channels") = file->analog_channels, py::arg("subjects") = file->subjects,
                        py::arg("manufacturer") = file->manufacturer, py::arg("warnings") = file->warnings);
      },
      py::arg("path"), py::arg("z_up") = true, py::arg("keep_virtual_points") = false,
      py::arg("keep_unlabeled") = false,
      "A C3D file as a dict: markers (MarkerTrajectories, m), marker_kinds, residuals (N, M) in m, and the "
      "file's metadata (processor, point_units, first_frame, last_frame, analog_rate, analog_channels, "
      "subjects, manufacturer, warnings). z_up=False converts a Y-up lab frame.");
  m.def(
      "read_qtm_tsv",
      [](const std::string& path) {
        io::QtmTsv t = released([&] { return io::readQtmTsv(path); });
        return py::dict(py::arg("markers") = std::make_shared<io::MarkerTrajectories>(std::move(t.markers)),
                        py::arg("frequency") = t.frequency, py::arg("cameras") = t.cameras,
                        py::arg("time_stamp") = t.time_stamp, py::arg("description") = t.description,
                        py::arg("trajectory_types") = t.trajectory_types,
                        py::arg("missing_samples") = t.missing_samples);
      },
      py::arg("path"),
      "A Qualisys TSV export as a dict: markers (MarkerTrajectories, m, QTM's axes), frequency (Hz), cameras, "
      "time_stamp, description, trajectory_types, missing_samples.");
  m.def(
      "read_joint_csv",
      [](const std::string& path) {
        const io::JointTrajectory t = released([&] { return io::readJointCsv(path); });
        const py::ssize_t n = t.numFrames(), nj = t.numJoints();
        py::array_t<double> q({n, 7 + nj});
        py::array_t<bool> gap(n);
        Configuration c;
        for (py::ssize_t f = 0; f < n; ++f) {
          c.base_position = t.base[static_cast<std::size_t>(f)].p;
          c.base_rotation = t.base[static_cast<std::size_t>(f)].R;
          c.joints = t.joints.row(f).transpose();
          writeConfiguration(c, q.mutable_data() + f * (7 + nj));
          gap.mutable_data()[f] = t.gap[static_cast<std::size_t>(f)] != 0;
        }
        return py::dict(py::arg("joint_names") = t.joint_names, py::arg("times") = doubles(t.times), py::arg("q") = q,
                        py::arg("gap") = gap);
      },
      py::arg("path"),
      "A joint trajectory CSV (kinetrack track --out) as a dict: joint_names, times (N,), q (N, 7 + joints) in "
      "the configuration layout (base position, quaternion w, x, y, z, joints), gap (N,) bool.");

  // Writers of the formats the CLI writes (each the library's own writer, atomic).
  m.def(
      "write_joint_csv",
      [](const Model& model, py::object motion, const std::string& path) {
        const io::JointTrajectory t = toJointTrajectory(model, motion, path);
        released([&] {
          io::JointCsvWriter w(model, path);
          Configuration c(model);
          for (int f = 0; f < t.numFrames(); ++f) {
            c.base_position = t.base[static_cast<std::size_t>(f)].p;
            c.base_rotation = t.base[static_cast<std::size_t>(f)].R;
            c.joints = t.joints.row(f).transpose();
            w.write(t.times[static_cast<std::size_t>(f)], c, t.gap[static_cast<std::size_t>(f)] != 0);
          }
          w.commit();
          return 0;
        });
      },
      py::arg("model"), py::arg("motion"), py::arg("path"),
      "Writes a motion as the joint CSV `kinetrack track --out` writes: motion is a TrackResult or a dict with times "
      "(N,), q (N, nq) and optionally gaps (N,). The file appears complete or not at all.");
  m.def(
      "write_mot",
      [](const std::vector<std::string>& columns, ArrayLike times, ArrayLike values, const std::string& path,
         bool in_degrees, const std::string& name) {
        io::MotTable t;
        t.name = name;
        t.columns = columns;
        t.in_degrees = in_degrees;
        t.in_degrees_declared = true;
        const Array tm = checkedArray(times, {kAny}, "times (N,)");
        t.times.assign(tm.data(), tm.data() + tm.shape(0));
        const Array v = checkedArray(values, {tm.shape(0), static_cast<py::ssize_t>(columns.size())}, "values (N, C)");
        t.values = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
            v.data(), v.shape(0), v.shape(1));
        released([&] {
          io::writeMot(t, path);
          return 0;
        });
      },
      py::arg("columns"), py::arg("times"), py::arg("values"), py::arg("path"), py::kw_only(),
      py::arg("in_degrees") = true, py::arg("name") = "kinetrack",
      "Writes an OpenSim .mot/.sto table (read_mot's columns, times (N,), values (N, C); in_degrees as its header "
      "says), as `markers ik` and `dynamics id` write them.");
  m.def(
      "write_trc",
      [](const io::MarkerTrajectories& trial, const std::string& path, const std::string& units) {
        released([&] {
          io::writeTrc(trial, path, {.units = units, .frame_numbers = {}});
          return 0;
        });
      },
      py::arg("trial"), py::arg("path"), py::arg("units") = "mm",
      "Writes MarkerTrajectories (read_trc, read_c3d) as a TRC file in `units` (mm, cm or m), the positions as "
      "they are (no change of axes), as `markers label --out` writes it.");
}

}  // namespace kinetrack::python
