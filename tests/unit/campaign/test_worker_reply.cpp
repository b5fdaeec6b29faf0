// The campaign worker's reply is data to validate (campaign/run/worker_reply): only the outcomes
// the worker may give, finite numbers in range, edges within the node count, texts terminal-safe.
#include <doctest/doctest.h>

#include <string>

#include "campaign/run/worker_reply.h"

using namespace convfail::campaign;

TEST_CASE("worker reply: an exported model's reply is taken, its texts made safe") {
  std::string why;
  auto r = parse_worker_reply(
      R"({"ok":true,"outcome":null,"stage":"exported","nodes":3,"ops":["Add","com.x:Op\u001b[2J"],)"
      R"("edges":[[0,1]],"durations":{"build":0.5,"export":1.25}})",
      &why);
  REQUIRE(r);
  CHECK(r->exported);
  CHECK(r->nodes == 3);
  CHECK(r->ops.size() == 2);
  CHECK(r->ops[1].get<std::string>().find('\x1b') == std::string::npos);
  CHECK(r->edges == nlohmann::json::parse("[[0,1]]"));
  CHECK(r->durations["export"] == 1.25);
  auto f = parse_worker_reply(
      R"({"ok":true,"outcome":"conversion_failure","stage":"export","error":"aten::fft\u0007 x"})",
      &why);
  REQUIRE(f);
  CHECK(f->outcome == "conversion_failure");
  CHECK(f->error.find('\x07') == std::string::npos);
  CHECK(f->raw_error == "aten::fft\x07 x");
}

TEST_CASE("worker reply: forged outcomes, out-of-range edges and bad numbers are refused") {
  std::string why;
  for (const char* bad : {
           R"({"ok":true,"outcome":"success"})",
           R"({"ok":true,"outcome":"mismatch"})",
           R"({"ok":true,"outcome":"ort_failure"})",
           R"({"ok":true,"outcome":"success\u001b]0;title\u0007"})",
           R"({"ok":true,"outcome":7})",
           R"({"ok":true,"outcome":null,"ops":["Add"],"edges":[[0,99999]]})",
           R"({"ok":true,"outcome":null,"ops":["Add"],"edges":[[-1,0]]})",
           R"({"ok":true,"outcome":null,"ops":["Add"],"edges":[[0]]})",
           R"({"ok":true,"outcome":null,"ops":[1]})",
           R"({"ok":true,"outcome":null,"nodes":-5})",
           R"({"ok":true,"outcome":null,"nodes":1e300})",
           R"({"ok":true,"outcome":null,"durations":{"x":"fast"}})",
           R"({"ok":true,"outcome":null,"durations":{"x":-1}})",
           R"({"ok":"yes"})",
           R"([1,2])",
           "not json",
       }) {
    CAPTURE(bad);
    why.clear();
    CHECK_FALSE(parse_worker_reply(bad, &why));
    CHECK_FALSE(why.empty());
    CHECK(why.find('\x1b') == std::string::npos);
  }
  // Deeply nested: refused before any recursive walk.
  std::string deep =
      R"({"ok":true,"ops":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  CHECK_FALSE(parse_worker_reply(deep, &why));
  CHECK(why.find("deeper") != std::string::npos);
  auto forged = parse_worker_reply(R"({"ok":true,"outcome":"pwned\u001b]52;c;eA==\u0007"})", &why);
  CHECK_FALSE(forged);
  CHECK(why.find('\x1b') == std::string::npos);
  CHECK(why.find("not one the worker may give") != std::string::npos);
}

TEST_CASE("worker reply: a synthetic model's types are names of the nine, each once") {
  std::string why;
  auto r = parse_worker_reply(
      R"({"ok":true,"outcome":"conversion_failure","dtypes":["float32","int16","bool"]})", &why);
  REQUIRE(r);
  CHECK(r->dtypes == std::vector<std::string>{"float32", "int16", "bool"});
  for (const char* bad : {R"({"ok":true,"dtypes":["float32","complex64"]})",
                          R"({"ok":true,"dtypes":["int8","int8"]})",
                          R"({"ok":true,"dtypes":"int8"})", R"({"ok":true,"dtypes":[1]})"}) {
    CHECK_FALSE(parse_worker_reply(bad, &why));
    CHECK(why.find("dtype") != std::string::npos);
  }
}

TEST_CASE("worker reply: a synthetic model's main type is one of the nine") {
  std::string why;
  auto r =
      parse_worker_reply(R"({"ok":true,"dtypes":["float32","int16"],"main_dtype":"int16"})", &why);
  REQUIRE(r);
  CHECK(r->main_dtype == "int16");
  auto none = parse_worker_reply(R"({"ok":true})", &why);
  REQUIRE(none);
  CHECK(none->main_dtype.empty());
  for (const char* bad :
       {R"({"ok":true,"main_dtype":"complex64"})", R"({"ok":true,"main_dtype":3})",
        R"({"ok":true,"main_dtype":"\u001b[2J"})"}) {
    CHECK_FALSE(parse_worker_reply(bad, &why));
    CHECK(why.find("main_dtype") != std::string::npos);
    CHECK(why.find('\x1b') == std::string::npos);
  }
}
