// A model with its external data files (repro/model_files): which files it names (only inside its
// folder), the content hash that covers them, and the copy that carries them.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "core/error.h"
#include "repro/fetch.h"
#include "repro/model_files.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;
namespace fs = std::filesystem;

namespace {

// A model whose initializers keep their data at these locations ("" = inside the model).
std::string write_model(const convfail::test::TempDir& dir, const std::vector<std::string>& locs,
                        const std::string& name = "model.onnx") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  for (std::size_t i = 0; i < locs.size(); ++i) {
    auto* w = g->add_initializer();
    w->set_name("w" + std::to_string(i));
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(1);
    if (locs[i].empty()) {
      w->add_float_data(1);
      continue;
    }
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = w->add_external_data();
    kv->set_key("location");
    kv->set_value(locs[i]);
  }
  std::ofstream out(dir.file(name), std::ios::binary);
  m.SerializeToOstream(&out);
  return dir.file(name);
}

}  // namespace

TEST_CASE("model_files: the external data a model names, inside its folder only") {
  convfail::test::TempDir dir;
  fs::create_directories(dir.path() / "sub");
  CHECK(external_data_files(write_model(dir, {"", ""})).empty());
  CHECK(external_data_files(write_model(dir, {"b.bin", "sub/../a.bin", "b.bin", ""})) ==
        std::vector<std::string>{"a.bin", "b.bin"});
  for (const char* bad : {"../secret", "/etc/passwd", "sub/../../x"}) {
    CAPTURE(std::string(bad));
    CHECK_THROWS_AS(external_data_files(write_model(dir, {"a.bin", bad})), UserError);
  }
  // A link inside the folder that leads outside is outside.
  fs::create_symlink("/etc/passwd", dir.path() / "link.bin");
  CHECK_THROWS_AS(external_data_files(write_model(dir, {"link.bin"})), UserError);
  CHECK_THROWS_AS(external_data_files(dir.write("junk.onnx", "not a model")), UserError);
}

TEST_CASE("model_files: the content hash covers the external data") {
  convfail::test::TempDir dir;
  // Self-contained: the file's own sha256 (stored models and bisect keys stay what they were).
  std::string plain = write_model(dir, {""});
  CHECK(model_sha256(plain) == sha256_file(plain));
  // Two models that differ only in their weights' bytes differ.
  std::string m = write_model(dir, {"w0.bin", "sub/w1.bin"});
  fs::create_directories(dir.path() / "sub");
  CHECK(model_sha256(m) == sha256_file(m));  // no data file exists yet: the file alone
  dir.write("w0.bin", std::string(4, '\1'));
  dir.write("sub/w1.bin", std::string(4, '\2'));
  std::string first = model_sha256(m);
  CHECK(first != sha256_file(m));
  CHECK(model_sha256(m) == first);
  dir.write("sub/w1.bin", std::string(4, '\3'));
  CHECK(model_sha256(m) != first);
  // Data outside the folder is never read: the file alone.
  std::string escaping = write_model(dir, {"../outside.bin"}, "escape.onnx");
  CHECK(model_sha256(escaping) == sha256_file(escaping));
}

TEST_CASE("model_files: a copy carries the external data, and refuses what is outside") {
  convfail::test::TempDir src, dest;
  fs::create_directories(src.path() / "sub");
  src.write("w0.bin", "abcd");
  src.write("sub/w1.bin", "efgh");
  src.write("unrelated.txt", "not named by the model");
  std::string m = write_model(src, {"w0.bin", "sub/w1.bin", ""});
  CHECK(copy_model_files(m, dest.path().string()) ==
        std::vector<std::string>{"model.onnx", "sub/w1.bin", "w0.bin"});
  CHECK(fs::is_regular_file(dest.path() / "sub" / "w1.bin"));
  CHECK_FALSE(fs::exists(dest.path() / "unrelated.txt"));
  CHECK(model_sha256(dest.file("model.onnx")) == model_sha256(m));
  // A named data file that is missing, or a location outside: refused.
  convfail::test::TempDir d2, d3;
  CHECK_THROWS_AS(copy_model_files(write_model(src, {"gone.bin"}, "g.onnx"), d2.path().string()),
                  UserError);
  CHECK(fs::is_empty(d2.path()));  // nothing copied when a data file is missing
  CHECK_THROWS_AS(
      copy_model_files(write_model(src, {"../../etc/passwd"}, "e.onnx"), d3.path().string()),
      UserError);
  CHECK_FALSE(fs::exists(d3.path() / "passwd"));
}

TEST_CASE("model_files: one cap on the bytes hashed and copied, checked before reading") {
  convfail::test::TempDir dir, out;
  std::string m = write_model(dir, {"huge.bin"});
  {  // a terabyte of holes: before, hashed as zeros for an hour
    std::ofstream(dir.file("huge.bin"));
    fs::resize_file(dir.file("huge.bin"), 1ull << 40);
  }
  auto t0 = std::chrono::steady_clock::now();
  try {
    model_sha256(m);
    FAIL("a terabyte data file was hashed");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("the cap on a model") != std::string::npos);
    CHECK(std::string(e.what()).find("huge.bin") != std::string::npos);
  }
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 2);
  CHECK_THROWS_AS(copy_model_files(m, out.path().string()), UserError);
  CHECK_FALSE(fs::exists(out.path() / "huge.bin"));
  // Under the cap, a time bound (bisect's --timeout) covers the hashing.
  fs::resize_file(dir.file("huge.bin"), 64ull << 20);
  try {
    model_sha256(m, 1e-6);
    FAIL("hashing ignored its time bound");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("took longer than the timeout") != std::string::npos);
  }
  CHECK(model_sha256(m, 600).size() == 64);
}
