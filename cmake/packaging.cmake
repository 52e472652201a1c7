# The Debian package (docs/building.md, "Debian package"): `cpack -G DEB` in a build directory packs
# what that build made and installs (no compile of its own) into kinetrack_<version>_amd64.deb:
# the `kinetrack` binary, the static libraries, the headers, the CMake package config, the Python
# module (when built) and the viewer bundle (share/kinetrack/viewer). Its run-time dependencies are
# read off the binaries by dpkg-shlibdeps, plus python3 and numpy for the module; what a C++
# consumer of the headers needs to build is recommended.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kinetrack)
set(CPACK_PACKAGE_VENDOR "kinetrack")
set(CPACK_PACKAGE_CONTACT "kinetrack developers <kinetrack@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "real-time whole-body motion tracking of humans and humanoids")
set(CPACK_PACKAGE_DESCRIPTION
    "kinetrack finds, every frame, the joint configuration of a human, musculoskeletal or robot model that matches measured segments or markers, inside its limits, and the forces that produced it. This package holds the kinetrack command, the C++ library (static, headers, CMake config), the Python module and the browser viewer.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(kinetrack_deb_depends)
if(KINETRACK_PYTHON)
  # The extension is built for this interpreter's minor version only.
  math(EXPR kinetrack_python_next "${Python_VERSION_MINOR} + 1")
  list(APPEND kinetrack_deb_depends
       "python3 (>= ${Python_VERSION_MAJOR}.${Python_VERSION_MINOR})"
       "python3 (<< ${Python_VERSION_MAJOR}.${kinetrack_python_next})" python3-numpy)
endif()
list(JOIN kinetrack_deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "libeigen3-dev, liburdfdom-dev, libtinyxml2-dev, libfmt-dev, coinor-libipopt-dev, libglpk-dev, pkg-config")
set(CPACK_STRIP_FILES ON)
include(CPack)
