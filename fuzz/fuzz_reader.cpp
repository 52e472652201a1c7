// libFuzzer harness of one file reader (issue 20): the input bytes are written to a temporary
// file with the reader's extension and read with the library's public reader. A reader may
// reject the input only with kinetrack::ParseError or kinetrack::InvalidArgument; any other
// exception, a crash, a sanitizer report, a leak or a hang is a finding. KINETRACK_FUZZ_READER
// selects the reader (fuzz/CMakeLists.txt builds one binary per reader).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "kinetrack/core/errors.hpp"
#include "kinetrack/io/bvh.hpp"
#include "kinetrack/io/c3d.hpp"
#include "kinetrack/io/marker_set.hpp"
#include "kinetrack/io/mvnx.hpp"
#include "kinetrack/io/opensim.hpp"
#include "kinetrack/io/opensim_model.hpp"
#include "kinetrack/io/opensim_setup.hpp"
#include "kinetrack/io/qtm_tsv.hpp"
#include "kinetrack/io/segment_map.hpp"
#include "kinetrack/io/urdf.hpp"

namespace {

namespace io = kinetrack::io;

#define KINETRACK_FUZZ_STR2(x) #x
#define KINETRACK_FUZZ_STR(x) KINETRACK_FUZZ_STR2(x)

/// The temporary file of this process (in /dev/shm when present: no disk traffic).
const std::string& tempPath() {
  static const std::string path = std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
                                  "/kinetrack_fuzz_" + std::to_string(getpid()) + "_" +
                                  KINETRACK_FUZZ_STR(KINETRACK_FUZZ_READER) + KINETRACK_FUZZ_EXTENSION;
  return path;
}

void readWith(const std::string& path, const std::string& text) {
  const std::string reader = KINETRACK_FUZZ_STR(KINETRACK_FUZZ_READER);
  if (reader == "bvh") {
    (void)io::parseBvh(text, "fuzz.bvh");
  } else if (reader == "mvnx") {
    (void)io::readMvnx(path);
  } else if (reader == "trc") {
    (void)io::parseTrc(text, "fuzz.trc");
  } else if (reader == "mot") {
    (void)io::readMot(path);
  } else if (reader == "c3d") {
    (void)io::readC3d(path);
  } else if (reader == "osim") {
    (void)io::readOpenSimModel(path);
  } else if (reader == "urdf") {
    (void)io::parseUrdf(text, "fuzz.urdf");
  } else if (reader == "setup") {
    (void)io::parseIkSetup(text, "fuzz_Setup_IK.xml");
  } else if (reader == "segment_map") {
    (void)io::readSegmentMap(path);
  } else if (reader == "marker_set") {
    (void)io::readMarkerSet(path);
  } else if (reader == "qtm") {
    (void)io::readQtmTsv(path);
  } else {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string& path = tempPath();
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  try {
    readWith(path, text);
  } catch (const kinetrack::ParseError&) {
  } catch (const kinetrack::InvalidArgument&) {
  }
  return 0;
}
