#include <doctest/doctest.h>

#include "repro/fetch.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::repro;

TEST_CASE("sha256 of a string and of a file agree with the FIPS 180-2 'abc' vector") {
  const std::string abc_digest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  CHECK(repro::sha256_hex("abc") == abc_digest);
  test::TempDir dir;
  CHECK(repro::sha256_file(dir.write("abc.txt", "abc")) == abc_digest);
  CHECK(repro::sha256_hex("") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
