// The translation unit that compiles the library's precompiled header (src/CMakeLists.txt, kinetrack_pch).
