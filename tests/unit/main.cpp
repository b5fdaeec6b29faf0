#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "repro/reproduce.h"

int main(int argc, char** argv) {
  // reproduce_model runs the libonnx checker in a child: this executable as `__check-model FILE`.
  if (int code = convfail::repro::check_model_main(argc, argv); code >= 0) return code;
  return doctest::Context(argc, argv).run();
}
