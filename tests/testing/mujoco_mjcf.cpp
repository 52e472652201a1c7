#include "testing/mujoco_mjcf.hpp"

#include <tinyxml2.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "kinetrack/core/so3.hpp"

namespace kinetrack::testing {

namespace {

void rewrite(tinyxml2::XMLElement* e, bool replace_meshes) {
  for (const char* a : {"actuatorfrcrange", "actuatorfrclimited"}) e->DeleteAttribute(a);
  if (replace_meshes && std::strcmp(e->Name(), "geom") == 0 && e->Attribute("mesh")) {
    e->DeleteAttribute("mesh");
    e->SetAttribute("type", "sphere");
    e->SetAttribute("size", "0.001");
  }
  std::vector<tinyxml2::XMLElement*> drop;
  for (tinyxml2::XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (replace_meshes && std::strcmp(e->Name(), "asset") == 0 && std::strcmp(c->Name(), "mesh") == 0)
      drop.push_back(c);
    else
      rewrite(c, replace_meshes);
  }
  for (tinyxml2::XMLElement* c : drop) e->DeleteChild(c);
}

int indexInBody(const int* bodyid, int id) {
  int k = 0;
  for (int i = 0; i < id; ++i) k += bodyid[i] == bodyid[id];
  return k;
}

Transform placement(const mjtNum* pos, const mjtNum* mat) {
  Transform t;
  t.p = Vector3d(pos[0], pos[1], pos[2]);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) t.R(r, c) = mat[3 * r + c];
  return t;
}

}  // namespace

std::string mujoco222Mjcf(const std::string& xml, bool replace_meshes) {
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS)
    throw std::runtime_error(std::string("mujoco222Mjcf: malformed XML: ") + doc.ErrorStr());
  tinyxml2::XMLElement* root = doc.RootElement();
  rewrite(root, replace_meshes);
  tinyxml2::XMLElement* compiler = root->FirstChildElement("compiler");
  if (!compiler) {
    compiler = doc.NewElement("compiler");
    root->InsertFirstChild(compiler);
  }
  compiler->SetAttribute("autolimits", "true");
  tinyxml2::XMLPrinter printer;
  doc.Print(&printer);
  return printer.CStr();
}

MjcfOracle::MjcfOracle(const std::string& xml, bool replace_meshes) {
  const std::string text = mujoco222Mjcf(xml, replace_meshes);
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  const char* name = "kinetrack_oracle.xml";
  if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(text.size())) != 0)
    throw std::runtime_error("MuJoCo VFS refused the MJCF");
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name)], text.data(), text.size());
  char error[1024] = "";
  m_ = mj_loadXML(name, vfs.get(), error, sizeof error);
  mj_deleteVFS(vfs.get());
  if (!m_) throw std::runtime_error(std::string("MuJoCo rejected the MJCF: ") + error);
  d_ = mj_makeData(m_);
}

MjcfOracle::~MjcfOracle() {
  if (d_) mj_deleteData(d_);
  if (m_) mj_deleteModel(m_);
}

void MjcfOracle::setConfiguration(const Model& model, const Configuration& q) {
  for (int j = 0; j < m_->njnt; ++j) {
    mjtNum* qpos = d_->qpos + m_->jnt_qposadr[j];
    const char* n = mj_id2name(m_, mjOBJ_JOINT, j);
    const std::string name =
        n ? n : bodyName(m_->jnt_bodyid[j]) + "/joint" + std::to_string(indexInBody(m_->jnt_bodyid, j));
    auto value = [&](const std::string& joint) {
      const auto id = model.findJoint(joint);
      if (!id) throw std::runtime_error("the model has no joint '" + joint + "'");
      return q.joints[id->value];
    };
    switch (m_->jnt_type[j]) {
      case mjJNT_FREE: {
        const Eigen::Vector4d w = so3::toQuaternionWxyz(q.base_rotation);
        for (int k = 0; k < 3; ++k) qpos[k] = q.base_position[k];
        for (int k = 0; k < 4; ++k) qpos[3 + k] = w[k];
        break;
      }
      case mjJNT_BALL: {
        const Matrix3d R = so3::axisAngle(Vector3d::UnitX(), value(name + "_x")) *
                           so3::axisAngle(Vector3d::UnitY(), value(name + "_y")) *
                           so3::axisAngle(Vector3d::UnitZ(), value(name + "_z"));
        const Eigen::Vector4d w = so3::toQuaternionWxyz(R);
        for (int k = 0; k < 4; ++k) qpos[k] = w[k];
        break;
      }
      default: qpos[0] = value(name);
    }
  }
  mj_kinematics(m_, d_);
}

std::string MjcfOracle::bodyName(int b) const {
  const char* n = mj_id2name(m_, mjOBJ_BODY, b);
  return n ? n : "body" + std::to_string(b);
}

std::string MjcfOracle::siteName(int s) const {
  const char* n = mj_id2name(m_, mjOBJ_SITE, s);
  return n ? n : bodyName(m_->site_bodyid[s]) + "/site" + std::to_string(indexInBody(m_->site_bodyid, s));
}

std::string MjcfOracle::geomName(int g) const {
  const char* n = mj_id2name(m_, mjOBJ_GEOM, g);
  return n ? n : bodyName(m_->geom_bodyid[g]) + "/geom" + std::to_string(indexInBody(m_->geom_bodyid, g));
}

Transform MjcfOracle::body(int b) const { return placement(d_->xpos + 3 * b, d_->xmat + 9 * b); }
Transform MjcfOracle::site(int s) const { return placement(d_->site_xpos + 3 * s, d_->site_xmat + 9 * s); }
Transform MjcfOracle::geom(int g) const { return placement(d_->geom_xpos + 3 * g, d_->geom_xmat + 9 * g); }

Inertial MjcfOracle::inertial(int b) const {
  Inertial in;
  in.mass = m_->body_mass[b];
  in.com = Vector3d(m_->body_ipos[3 * b], m_->body_ipos[3 * b + 1], m_->body_ipos[3 * b + 2]);
  const Matrix3d R = so3::fromQuaternionWxyz(Eigen::Vector4d(m_->body_iquat[4 * b], m_->body_iquat[4 * b + 1],
                                                             m_->body_iquat[4 * b + 2], m_->body_iquat[4 * b + 3]));
  const Vector3d d(m_->body_inertia[3 * b], m_->body_inertia[3 * b + 1], m_->body_inertia[3 * b + 2]);
  in.inertia = R * d.asDiagonal() * R.transpose();
  return in;
}

}  // namespace kinetrack::testing
