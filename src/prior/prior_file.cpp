// Binary prior files: "KTPRIOR\0", format version, the model's joint names, the density tables.
// Little-endian, doubles as IEEE 754 binary64 (docs/gpm.md, "Prior files").
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/table/atomic_file.hpp"
#include "kinetrack/prior/human_prior.hpp"

namespace kinetrack::prior {
namespace {

constexpr char kMagic[8] = {'K', 'T', 'P', 'R', 'I', 'O', 'R', '\0'};
constexpr std::uint32_t kVersion = 1;

struct Writer {
  std::string out;
  template <class T>
  void put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
  }
  void str(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    out += s;
  }
};

struct Reader {
  const std::string& path;
  const std::string& in;
  std::size_t pos = 0;
  template <class T>
  T get(const char* field) {
    if (pos + sizeof(T) > in.size()) throw ParseError(path, 0, std::string("truncated file while reading ") + field);
    T v;
    std::memcpy(&v, in.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  double real(const char* field) {
    const double v = get<double>(field);
    if (!std::isfinite(v)) throw ParseError(path, 0, std::string(field) + ": not a finite number");
    return v;
  }
  std::uint32_t count(const char* field, std::uint32_t max) {
    const auto n = get<std::uint32_t>(field);
    if (n > max) throw ParseError(path, 0, std::string(field) + ": " + std::to_string(n) + " is implausibly large");
    return n;
  }
  std::string str(const char* field) {
    const std::uint32_t n = count(field, 1u << 16);
    if (pos + n > in.size()) throw ParseError(path, 0, std::string("truncated file while reading ") + field);
    std::string s = in.substr(pos, n);
    pos += n;
    return s;
  }
};

}  // namespace

void writeHumanPrior(const std::string& path, const HumanPrior& prior) {
  Writer w;
  w.out.append(kMagic, sizeof(kMagic));
  w.put(kVersion);
  w.str(prior.model_name);
  w.put(static_cast<std::uint32_t>(prior.joint_names.size()));
  for (const auto& n : prior.joint_names) w.str(n);
  w.str(prior.head);
  w.str(prior.right_hand);
  w.str(prior.left_hand);
  const DensityPrior& d = prior.density;
  w.put(static_cast<std::uint32_t>(d.numJoints()));
  const WorkspaceGrid& g = d.grid();
  for (int a = 0; a < 3; ++a) w.put(g.lower[a]);
  for (int a = 0; a < 3; ++a) w.put(g.upper[a]);
  w.put(static_cast<std::uint32_t>(g.inc));
  w.put(static_cast<std::uint32_t>(d.options().min_samples));
  w.put(d.options().min_bandwidth);
  w.put(static_cast<std::uint32_t>(d.options().table_resolution));
  w.put(d.options().max_gradient);
  w.put(static_cast<std::uint32_t>(d.numGroups()));
  for (int k = 0; k < d.numGroups(); ++k) {
    w.put(static_cast<std::uint32_t>(d.group(k).size()));
    for (int j : d.group(k)) w.put(static_cast<std::uint32_t>(j));
    const auto& slots = d.cellSlots(k);
    w.put(static_cast<std::uint32_t>(slots.size()));
    for (int s : slots) w.put(static_cast<std::int32_t>(s));
    const auto& dens = d.densities(k);
    w.put(static_cast<std::uint32_t>(dens.size()));
    for (const JointDensity& jd : dens) {
      w.put(jd.lower());
      w.put(jd.step());
      w.put(jd.bandwidth());
      w.put(static_cast<std::uint32_t>(jd.samples()));
      w.put(static_cast<std::uint32_t>(jd.densityTable().size()));
      for (double v : jd.densityTable()) w.put(v);
      for (double v : jd.gradientTable()) w.put(v);
    }
  }
  io::writeFileAtomically(path, w.out);
}

HumanPrior readHumanPrior(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ParseError(path, 0, "cannot open the prior file");
  const std::string in((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Reader r{path, in};
  if (in.size() < sizeof(kMagic) || std::memcmp(in.data(), kMagic, sizeof(kMagic)) != 0)
    throw ParseError(path, 0, "not a kinetrack prior file (no KTPRIOR header)");
  r.pos = sizeof(kMagic);
  const auto version = r.get<std::uint32_t>("format version");
  if (version != kVersion)
    throw ParseError(path, 0,
                     "format version " + std::to_string(version) + "; this kinetrack reads version " +
                         std::to_string(kVersion) + " (rebuild the prior with `kinetrack prior build`)");
  HumanPrior p;
  p.model_name = r.str("model name");
  const std::uint32_t nj = r.count("joint count", 10000);
  for (std::uint32_t j = 0; j < nj; ++j) p.joint_names.push_back(r.str("joint name"));
  p.head = r.str("head frame");
  p.right_hand = r.str("right hand frame");
  p.left_hand = r.str("left hand frame");
  const auto num_joints = static_cast<int>(r.count("density joint count", 10000));
  WorkspaceGrid g;
  for (int a = 0; a < 3; ++a) g.lower[a] = r.real("grid lower");
  for (int a = 0; a < 3; ++a) g.upper[a] = r.real("grid upper");
  g.inc = static_cast<int>(r.count("inc", 100));
  DensityOptions o;
  o.inc = g.inc;
  o.min_samples = static_cast<int>(r.count("min_samples", 1u << 30));
  o.min_bandwidth = r.real("min_bandwidth");
  o.table_resolution = static_cast<int>(r.count("table_resolution", 1000));
  o.max_gradient = r.real("max_gradient");
  const std::uint32_t ng = r.count("group count", 1000);
  std::vector<std::vector<int>> groups(ng);
  std::vector<std::vector<int>> slots(ng);
  std::vector<std::vector<JointDensity>> dens(ng);
  try {
    for (std::uint32_t k = 0; k < ng; ++k) {
      const std::uint32_t n = r.count("group size", 10000);
      for (std::uint32_t i = 0; i < n; ++i) groups[k].push_back(static_cast<int>(r.get<std::uint32_t>("group joint")));
      const std::uint32_t cells = r.count("cell count", 1000000);
      for (std::uint32_t c = 0; c < cells; ++c) slots[k].push_back(r.get<std::int32_t>("cell slot"));
      const std::uint32_t nd = r.count("density count", 1u << 26);
      for (std::uint32_t i = 0; i < nd; ++i) {
        const double lo = r.real("density lower"), step = r.real("density step"), bw = r.real("bandwidth");
        const auto samples = static_cast<int>(r.count("samples", 1u << 30));
        const std::uint32_t bins = r.count("table size", 1u << 20);
        std::vector<double> pd(bins), gd(bins);
        for (double& v : pd) v = r.real("density table");
        for (double& v : gd) v = r.real("gradient table");
        dens[k].push_back(
            JointDensity::fromTables(lo, step, bw, samples, std::move(pd), std::move(gd), o.max_gradient));
      }
    }
    p.density = DensityPrior::fromParts(num_joints, std::move(groups), g, o, std::move(slots), std::move(dens));
  } catch (const InvalidArgument& e) {
    throw ParseError(path, 0, std::string("inconsistent density tables: ") + e.what());
  }
  if (r.pos != in.size()) throw ParseError(path, 0, "trailing data after the density tables");
  return p;
}

}  // namespace kinetrack::prior
