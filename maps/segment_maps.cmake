# Built-in segment maps (include/kinetrack/io/model/segment_map.hpp): maps/*.json are embedded into
# kinetrack_io_model as raw string literals in a generated source (rewritten only when a map changes;
# editing, adding or removing a map re-runs CMake) and installed to <datadir>/kinetrack/maps.
# Included from src/CMakeLists.txt after kinetrack_io_model is defined.
find_package(nlohmann_json 3.2 REQUIRED)
# Header-only and build-only: kept out of the exported link interface, so that
# find_package(kinetrack) needs no nlohmann_json.
target_link_libraries(kinetrack_io_model PRIVATE $<BUILD_INTERFACE:nlohmann_json::nlohmann_json>)

# Globs maps matching `pattern`, sets <var> to the sorted list, <var>_count to its length and
# <var>_files / <var>_texts to the C++ initialisers of the file names (prefixed by `prefix`) and
# of the JSON texts as raw string literals.
function(kinetrack_embed_maps var pattern prefix)
  file(GLOB maps CONFIGURE_DEPENDS ${pattern})
  list(SORT maps)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${maps})
  set(files "")
  set(texts "")
  foreach(map ${maps})
    get_filename_component(name ${map} NAME)
    file(READ ${map} text)
    string(FIND "${text}" ")kinetrack_json\"" clash)
    if(NOT clash EQUAL -1)
      message(FATAL_ERROR "${map} contains the raw-string delimiter )kinetrack_json\"")
    endif()
    string(APPEND files "    \"${prefix}${name}\",\n")
    string(APPEND texts "    R\"kinetrack_json(${text})kinetrack_json\",\n")
  endforeach()
  list(LENGTH maps count)
  set(${var} ${maps} PARENT_SCOPE)
  set(${var}_count ${count} PARENT_SCOPE)
  set(${var}_files "${files}" PARENT_SCOPE)
  set(${var}_texts "${texts}" PARENT_SCOPE)
endfunction()

kinetrack_embed_maps(kinetrack_segment_maps ${PROJECT_SOURCE_DIR}/maps/*.json "")
# Robot maps (maps/robots/*.json): canonical human segment → robot frame, for `kinetrack retarget`.
kinetrack_embed_maps(kinetrack_robot_maps ${PROJECT_SOURCE_DIR}/maps/robots/*.json "robots/")
set(_km_generated ${CMAKE_CURRENT_BINARY_DIR}/segment_maps_builtin.cpp)
file(WRITE ${_km_generated}.in
  "// Generated from maps/*.json by maps/segment_maps.cmake: do not edit.\n"
  "#include <cstddef>\n\n"
  "namespace kinetrack::io::detail {\n\n"
  "extern const std::size_t kBuiltinSegmentMapCount = ${kinetrack_segment_maps_count};\n"
  "extern const char* const kBuiltinSegmentMapFiles[] = {\n${kinetrack_segment_maps_files}    nullptr};\n"
  "extern const char* const kBuiltinSegmentMapJson[] = {\n${kinetrack_segment_maps_texts}    nullptr};\n\n"
  "extern const std::size_t kBuiltinRobotMapCount = ${kinetrack_robot_maps_count};\n"
  "extern const char* const kBuiltinRobotMapFiles[] = {\n${kinetrack_robot_maps_files}    nullptr};\n"
  "extern const char* const kBuiltinRobotMapJson[] = {\n${kinetrack_robot_maps_texts}    nullptr};\n\n"
  "}  // namespace kinetrack::io::detail\n")
configure_file(${_km_generated}.in ${_km_generated} COPYONLY)
target_sources(kinetrack_io_model PRIVATE ${_km_generated})
install(FILES ${kinetrack_segment_maps} DESTINATION ${CMAKE_INSTALL_DATADIR}/kinetrack/maps)
install(FILES ${kinetrack_robot_maps} DESTINATION ${CMAKE_INSTALL_DATADIR}/kinetrack/maps/robots)
