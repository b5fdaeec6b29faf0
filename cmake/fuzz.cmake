# -DCONVFAIL_FUZZ=ON: the libFuzzer build (scripts/fuzz.sh). Clang only: every object is built
# with ASan, UBSan (aborting on the first report) and libFuzzer's coverage instrumentation; only
# the modules the fuzz targets of tests/fuzz/ need are built, and nothing else (no convfail
# binary, no unit or e2e tests).
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "CONVFAIL_FUZZ=ON needs clang (CXX=clang++), not ${CMAKE_CXX_COMPILER_ID}")
endif()
add_compile_options(-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer -g)
add_link_options(-fsanitize=address,undefined)
