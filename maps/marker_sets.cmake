# Built-in marker sets (include/kinetrack/io/model/marker_set.hpp): maps/markersets/*.json are embedded
# into kinetrack_io_model as raw string literals in a generated source, like the segment maps, and
# installed to <datadir>/kinetrack/maps/markersets. Included from src/CMakeLists.txt after
# maps/segment_maps.cmake (which defines kinetrack_embed_maps and links nlohmann-json).
kinetrack_embed_maps(kinetrack_marker_sets ${PROJECT_SOURCE_DIR}/maps/markersets/*.json "markersets/")
set(_kms_generated ${CMAKE_CURRENT_BINARY_DIR}/marker_sets_builtin.cpp)
file(WRITE ${_kms_generated}.in
  "// Generated from maps/markersets/*.json by maps/marker_sets.cmake: do not edit.\n"
  "#include <cstddef>\n\n"
  "namespace kinetrack::io::detail {\n\n"
  "extern const std::size_t kBuiltinMarkerSetCount = ${kinetrack_marker_sets_count};\n"
  "extern const char* const kBuiltinMarkerSetFiles[] = {\n${kinetrack_marker_sets_files}    nullptr};\n"
  "extern const char* const kBuiltinMarkerSetJson[] = {\n${kinetrack_marker_sets_texts}    nullptr};\n\n"
  "}  // namespace kinetrack::io::detail\n")
configure_file(${_kms_generated}.in ${_kms_generated} COPYONLY)
target_sources(kinetrack_io_model PRIVATE ${_kms_generated})
install(FILES ${kinetrack_marker_sets} DESTINATION ${CMAKE_INSTALL_DATADIR}/kinetrack/maps/markersets)
