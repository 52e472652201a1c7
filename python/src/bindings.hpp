#pragma once
// The Python module's pieces, one file per concept (module.cpp calls them in order), and the
// Python-side per-thread workspaces. Model (immutable, shared) and Data (per thread) stay
// separate as in C++: a Data holds its model's pointer only to check that it is used with it.
#include <pybind11/pybind11.h>

#include <memory>

#include "kinetrack/model/configuration.hpp"
#include "kinetrack/model/data.hpp"
#include "kinetrack/model/model.hpp"

namespace kinetrack::ik {
class TaskSet;
}  // namespace kinetrack::ik

namespace kinetrack::python {

namespace py = pybind11;

/// Python `kinetrack.Data`: the kinematics workspace plus the scratch the bindings convert into
/// (a configuration, a Jacobian), all sized once, so a call from Python does not allocate on the
/// C++ side.
struct PyData {
  explicit PyData(std::shared_ptr<const Model> m)
      : model(std::move(m)), data(*model), q(*model), J(Matrix6Xd::Zero(6, model->nv())) {}
  std::shared_ptr<const Model> model;
  Data data;
  Configuration q;
  Matrix6Xd J;
  /// Throws ValueError unless this data was built for `m`.
  void check(const Model& m) const;
};

void bindErrors(py::module_& m);
void bindModel(py::module_& m);
void bindKinematics(py::module_& m);
void bindIk(py::module_& m);
void bindIo(py::module_& m);
void bindIoMarkerFormats(py::module_& m);  ///< C3D, QTM TSV, joint CSV (io_marker_bindings.cpp)
void bindC3d(py::module_& m);              ///< analog, force plates, c3d_export (c3d_bindings.cpp)
void bindTrack(py::module_& m);
void bindStream(py::module_& m);
void bindMxtp(py::module_& m);  ///< MXTP datagram codec of `kinetrack serve` (mxtp_bindings.cpp)
void bindKtp(py::module_& m);   ///< kinetrack input protocol codec of `kinetrack serve` (ktp_bindings.cpp)
void bindDynamics(py::module_& m);
void bindBiomech(py::module_& m);         ///< OpenSim external loads and ID (biomech_bindings.cpp)
void bindMapping(py::module_& m);         ///< human figure <-> musculoskeletal mapping (mapping_bindings.cpp)
void bindDynamicsFilter(py::module_& m);  ///< the dynamics filter (dynamics_filter_bindings.cpp)
void bindMarkers(py::module_& m);
/// TaskSet's marker, coordinate and posture tasks (MarkerIk.tasks), on the class bindIk made
/// (markers_bindings.cpp).
void bindMarkerTasks(py::class_<ik::TaskSet>& tasks);
void bindHand(py::module_& m);
void bindPrior(py::module_& m);     ///< kinetrack.prior (prior_bindings.cpp)
void bindPinDrag(py::module_& m);   ///< pin-and-drag IK (pin_drag_bindings.cpp)
void bindLabeller(py::module_& m);  ///< markers::Labeller (labeller_bindings.cpp)
void bindViewer(py::module_& m);    ///< write_viewer: `kinetrack view` (viewer_bindings.cpp)
void bindMuscles(py::module_& m);   ///< OpenSim muscles (muscles_bindings.cpp)
void bindScale(py::module_& m);     ///< OpenSim's Scale tool (scale_bindings.cpp)
void bindImu(py::module_& m);       ///< OpenSense: imu_place, imu_ik (imu_bindings.cpp)
void bindGait(py::module_& m);      ///< `kinetrack gait`: scale → IK → ID → muscles → EMG (gait_bindings.cpp)
void bindExperiments(py::module_& m);  ///< kinetrack.experiments (experiments_bindings.cpp)
void bindServe(py::module_& m);        ///< Server, replay: `kinetrack serve`/`replay` (serve_bindings.cpp)

}  // namespace kinetrack::python
