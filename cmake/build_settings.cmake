# Build speed and hygiene shared by every target: ccache, one warnings target, format-check.

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  # Precompiled headers are cacheable only with these sloppiness settings.
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      ${CCACHE_PROGRAM})
endif()

# One warnings target: every convfail target links it. CONVFAIL_WERROR turns warnings into
# errors (CI sets it through scripts/build.sh).
option(CONVFAIL_WERROR "Treat compiler warnings as errors" OFF)
add_library(convfail_warnings INTERFACE)
target_compile_options(convfail_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wpedantic -Wextra-semi -Wnon-virtual-dtor -Woverloaded-virtual
  -Wcast-align -Wimplicit-fallthrough
  $<$<BOOL:${CONVFAIL_WERROR}>:-Werror>)

# Standard headers and the heavy third-party ones, precompiled once per target.
set(CONVFAIL_PCH_HEADERS <string> <vector> <map> <memory> <optional> <functional>
    <nlohmann/json.hpp>)

# convfail_module(NAME SOURCES... [LINKS libs...]): a static library of one module.
function(convfail_module name)
  cmake_parse_arguments(M "" "" "SOURCES;LINKS" ${ARGN})
  add_library(${name} STATIC ${M_SOURCES})
  target_link_libraries(${name} PUBLIC ${M_LINKS} PRIVATE convfail_warnings)
  target_precompile_headers(${name} PRIVATE ${CONVFAIL_PCH_HEADERS})
endfunction()

# `cmake --build build --target format-check` fails when a tracked C++ file is not formatted
# as .clang-format says; `--target format` rewrites them.
find_program(CLANG_FORMAT_PROGRAM clang-format)
if(CLANG_FORMAT_PROGRAM)
  add_custom_target(format-check
    COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/format.sh --check
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} VERBATIM)
  add_custom_target(format
    COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/format.sh
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR} VERBATIM)
endif()

# Embeds the text of FILES in a generated C++ source OUT defining `SYMBOL` (an array of {name,
# text}, see embed_files.cmake), regenerated at build time when a file changes.
function(convfail_embed_files out symbol comment)
  # A ;-list would be split into separate arguments by add_custom_command: pass it |-separated.
  string(REPLACE ";" "|" files_arg "${ARGN}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=${symbol} "-DFILES=${files_arg}"
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
    DEPENDS ${ARGN} ${CMAKE_SOURCE_DIR}/cmake/embed_files.cmake
    COMMENT "${comment}"
    VERBATIM)
endfunction()
