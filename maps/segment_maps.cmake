# Built-in segment maps (include/kinetrack/io/segment_map.hpp): maps/*.json are embedded into
# kinetrack_io as raw string literals in a generated source (rewritten only when a map changes;
# editing, adding or removing a map re-runs CMake) and installed to <datadir>/kinetrack/maps.
# Included from src/CMakeLists.txt after kinetrack_io is defined.
find_package(nlohmann_json 3.2 REQUIRED)
# Header-only and build-only: kept out of the exported link interface, so that
# find_package(kinetrack) needs no nlohmann_json.
target_link_libraries(kinetrack_io PRIVATE $<BUILD_INTERFACE:nlohmann_json::nlohmann_json>)

file(GLOB kinetrack_segment_maps CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/maps/*.json)
list(SORT kinetrack_segment_maps)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${kinetrack_segment_maps})
set(_km_files "")
set(_km_texts "")
foreach(_km_map ${kinetrack_segment_maps})
  get_filename_component(_km_file ${_km_map} NAME)
  file(READ ${_km_map} _km_text)
  string(FIND "${_km_text}" ")kinetrack_json\"" _km_clash)
  if(NOT _km_clash EQUAL -1)
    message(FATAL_ERROR "${_km_map} contains the raw-string delimiter )kinetrack_json\"")
  endif()
  string(APPEND _km_files "    \"${_km_file}\",\n")
  string(APPEND _km_texts "    R\"kinetrack_json(${_km_text})kinetrack_json\",\n")
endforeach()
list(LENGTH kinetrack_segment_maps _km_count)
# Robot maps (maps/robots/*.json): canonical human segment → robot frame, for `kinetrack retarget`.
file(GLOB kinetrack_robot_maps CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/maps/robots/*.json)
list(SORT kinetrack_robot_maps)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${kinetrack_robot_maps})
set(_km_robot_files "")
set(_km_robot_texts "")
foreach(_km_map ${kinetrack_robot_maps})
  get_filename_component(_km_file ${_km_map} NAME)
  file(READ ${_km_map} _km_text)
  string(FIND "${_km_text}" ")kinetrack_json\"" _km_clash)
  if(NOT _km_clash EQUAL -1)
    message(FATAL_ERROR "${_km_map} contains the raw-string delimiter )kinetrack_json\"")
  endif()
  string(APPEND _km_robot_files "    \"robots/${_km_file}\",\n")
  string(APPEND _km_robot_texts "    R\"kinetrack_json(${_km_text})kinetrack_json\",\n")
endforeach()
list(LENGTH kinetrack_robot_maps _km_robot_count)
set(_km_generated ${CMAKE_CURRENT_BINARY_DIR}/segment_maps_builtin.cpp)
file(WRITE ${_km_generated}.in
  "// Generated from maps/*.json by maps/segment_maps.cmake: do not edit.\n"
  "#include <cstddef>\n\n"
  "namespace kinetrack::io::detail {\n\n"
  "extern const std::size_t kBuiltinSegmentMapCount = ${_km_count};\n"
  "extern const char* const kBuiltinSegmentMapFiles[] = {\n${_km_files}    nullptr};\n"
  "extern const char* const kBuiltinSegmentMapJson[] = {\n${_km_texts}    nullptr};\n\n"
  "extern const std::size_t kBuiltinRobotMapCount = ${_km_robot_count};\n"
  "extern const char* const kBuiltinRobotMapFiles[] = {\n${_km_robot_files}    nullptr};\n"
  "extern const char* const kBuiltinRobotMapJson[] = {\n${_km_robot_texts}    nullptr};\n\n"
  "}  // namespace kinetrack::io::detail\n")
configure_file(${_km_generated}.in ${_km_generated} COPYONLY)
target_sources(kinetrack_io PRIVATE ${_km_generated})
install(FILES ${kinetrack_segment_maps} DESTINATION ${CMAKE_INSTALL_DATADIR}/kinetrack/maps)
install(FILES ${kinetrack_robot_maps} DESTINATION ${CMAKE_INSTALL_DATADIR}/kinetrack/maps/robots)
