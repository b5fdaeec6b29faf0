// Protobuf messages (ONNX models, tensors) written to files, for the tests that build models.
#pragma once

#include <fstream>
#include <string>

#include <google/protobuf/message.h>

#include "test_helpers.h"

namespace convfail::test {

// Writes `m` to DIR/NAME; returns that path.
inline std::string save(const TempDir& dir, const std::string& name,
                        const google::protobuf::Message& m) {
  std::ofstream out(dir.file(name), std::ios::binary);
  m.SerializeToOstream(&out);
  return dir.file(name);
}

}  // namespace convfail::test
