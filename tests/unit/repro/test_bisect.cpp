// The bisect search (repro/bisect.h) driven by a fake runtime: a table of verdicts per release,
// with releases that are not runnable, fail to install or give a different verdict each run.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "repro/bisect.h"
#include "repro/reproduce.h"
#include "repro/runtimes.h"

using namespace convfail;
using namespace convfail::repro;
using namespace convfail::exec;

namespace {

const char* kBad = kCrashReproduced;
const char* kGood = kNotReproduced;

// Releases r00..rNN; `verdicts` by index; `second` overrides the second run (flaky).
struct FakeRuntime {
  std::vector<std::string> releases;
  std::vector<std::string> verdicts;
  std::map<std::size_t, std::string> second;
  std::map<std::string, int> runs;  // per release
  int total = 0;

  explicit FakeRuntime(std::vector<std::string> v) : verdicts(std::move(v)) {
    for (std::size_t i = 0; i < verdicts.size(); ++i)
      releases.push_back("1." + std::to_string(i) + ".0");
  }
  ReleaseRunFn fn() {
    return [this](const std::string& version, int attempt) {
      std::size_t i = 0;
      while (releases[i] != version) ++i;
      ReleaseRun r;
      r.verdict = attempt == 2 && second.count(i) ? second[i] : verdicts[i];
      if (r.verdict == kInstallFailed) {
        r.reason = "no native library";
        return r;  // nothing ran
      }
      ++runs[version];
      ++total;
      return r;
    };
  }
};

}  // namespace

TEST_CASE("bisect finds a fix with a logarithmic number of runs") {
  // Bad in 1.0..1.20, good from 1.21 on.
  std::vector<std::string> v(32, kGood);
  for (int i = 0; i <= 20; ++i) v[i] = kBad;
  FakeRuntime rt(v);
  auto r = bisect_releases(rt.releases, rt.fn());
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].before == "1.20.0");
  CHECK(r.changes[0].after == "1.21.0");
  CHECK(r.changes[0].from == kBad);
  CHECK(r.changes[0].to == kGood);
  CHECK(r.fixed_in == std::optional<std::string>("1.21.0"));
  CHECK_FALSE(r.regressed_in);
  CHECK(r.first_bad == std::optional<std::string>("1.0.0"));
  CHECK_FALSE(r.still_failing);
  // newest + oldest + ceil(log2(31)) = 5 midpoints, + 2 confirmations; linear would be 32.
  CHECK(rt.total <= 2 + 5 + 2);
  CHECK(r.new_runs == rt.total);
  CHECK(rt.runs["1.20.0"] == 2);  // both sides of the change confirmed
  CHECK(rt.runs["1.21.0"] == 2);
  CHECK(r.order.front() == "1.31.0");  // the newest first
}

TEST_CASE("bisect finds a regression still failing in the newest release") {
  std::vector<std::string> v(9, kGood);
  for (int i = 6; i < 9; ++i) v[i] = kWrongOutputReproduced;
  FakeRuntime rt(v);
  auto r = bisect_releases(rt.releases, rt.fn());
  CHECK(r.regressed_in == std::optional<std::string>("1.6.0"));
  CHECK(r.first_bad == std::optional<std::string>("1.6.0"));
  CHECK(r.still_failing);
  CHECK_FALSE(r.fixed_in);
}

TEST_CASE("not-runnable releases are never taken for fixed") {
  // Bad until 1.3, not runnable 1.4..1.7 (a gap), good from 1.8.
  std::vector<std::string> v = {kBad,         kBad,         kBad,         kBad,  kNotRunnable,
                                kNotRunnable, kNotRunnable, kNotRunnable, kGood, kGood};
  FakeRuntime rt(v);
  auto r = bisect_releases(rt.releases, rt.fn());
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].before == "1.3.0");
  CHECK(r.changes[0].after == "1.8.0");  // the first known good after the gap, not 1.4.0
  CHECK(r.fixed_in == std::optional<std::string>("1.8.0"));
  CHECK_FALSE(r.changes[0].gap.empty());
  for (const auto& g : r.changes[0].gap) CHECK((g >= "1.4.0" && g <= "1.7.0"));
  for (const auto& t : r.tried)
    if (t.version >= "1.4.0" && t.version <= "1.7.0") CHECK(t.verdict() == kNotRunnable);

  SUBCASE("not runnable in the newest releases: the newest known verdict counts") {
    std::vector<std::string> w = {kBad, kBad, kBad, kNotRunnable, kNotRunnable};
    FakeRuntime rt2(w);
    auto r2 = bisect_releases(rt2.releases, rt2.fn());
    CHECK(r2.changes.empty());
    CHECK(r2.newest_known == std::optional<std::string>("1.2.0"));
    CHECK(r2.still_failing);
    CHECK_FALSE(r2.fixed_in);
  }
  SUBCASE("old releases not runnable (the model's opset is too new): skipped by binary search") {
    std::vector<std::string> w(16, kNotRunnable);
    for (int i = 10; i < 16; ++i) w[i] = kBad;
    FakeRuntime rt2(w);
    auto r2 = bisect_releases(rt2.releases, rt2.fn());
    CHECK(r2.first_bad == std::optional<std::string>("1.10.0"));
    CHECK(r2.changes.empty());
    CHECK(r2.still_failing);
    CHECK(rt2.total <= 1 + 1 + 4);  // newest, oldest, binary search for the oldest runnable
  }
}

TEST_CASE("a flaky release is re-run once, reported, and the search goes around it") {
  // Bad until 1.4, good from 1.5; 1.4 gives good on its second run.
  std::vector<std::string> v = {kBad, kBad, kBad, kBad, kBad, kGood, kGood, kGood};
  FakeRuntime rt(v);
  rt.second[4] = kGood;
  auto r = bisect_releases(rt.releases, rt.fn());
  const TriedRelease* flaky = nullptr;
  for (const auto& t : r.tried)
    if (t.version == "1.4.0") flaky = &t;
  REQUIRE(flaky);
  CHECK(flaky->flaky);
  CHECK(flaky->verdict() == "flaky");
  REQUIRE(flaky->runs.size() == 2);
  CHECK(flaky->runs[0].verdict == kBad);
  CHECK(flaky->runs[1].verdict == kGood);
  CHECK(rt.runs["1.4.0"] == 2);  // re-run once, not more
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].before == "1.3.0");
  CHECK(r.changes[0].after == "1.5.0");
  CHECK(r.changes[0].gap == std::vector<std::string>{"1.4.0"});
  CHECK(r.fixed_in == std::optional<std::string>("1.5.0"));
}

TEST_CASE("a release that fails to install is skipped and reported") {
  std::vector<std::string> v = {kInstallFailed, kInstallFailed, kBad, kBad,
                                kInstallFailed, kGood,          kGood};
  FakeRuntime rt(v);
  auto r = bisect_releases(rt.releases, rt.fn());
  REQUIRE(r.changes.size() == 1);
  CHECK(r.changes[0].before == "1.3.0");
  CHECK(r.changes[0].after == "1.5.0");
  CHECK(r.fixed_in == std::optional<std::string>("1.5.0"));
  CHECK(r.first_bad == std::optional<std::string>("1.2.0"));
  bool reported = false;
  for (const auto& t : r.tried)
    if (t.version == "1.4.0") reported = t.verdict() == kInstallFailed;
  CHECK(reported);
  CHECK(rt.runs.count("1.4.0") == 0);  // nothing ran
  CHECK(r.new_runs == rt.total);
}

TEST_CASE("same verdict everywhere: two runs, no change") {
  FakeRuntime rt(std::vector<std::string>(12, kGood));
  auto r = bisect_releases(rt.releases, rt.fn());
  CHECK(r.changes.empty());
  CHECK(rt.total == 2);
  CHECK_FALSE(r.still_failing);
  CHECK_FALSE(r.first_bad);
}

TEST_CASE("stored runs are reused: a second bisect runs nothing") {
  std::vector<std::string> v(10, kGood);
  for (int i = 0; i < 4; ++i) v[i] = kBad;
  FakeRuntime rt(v);
  std::map<std::pair<std::string, int>, ReleaseRun> store;
  ReleaseRunFn inner = rt.fn();
  ReleaseRunFn cached = [&](const std::string& version, int attempt) {
    auto key = std::make_pair(version, attempt);
    if (auto it = store.find(key); it != store.end()) {
      ReleaseRun r = it->second;
      r.stored = true;
      return r;
    }
    return store[key] = inner(version, attempt);
  };
  auto first = bisect_releases(rt.releases, cached);
  int runs = rt.total;
  auto second = bisect_releases(rt.releases, cached);
  CHECK(rt.total == runs);
  CHECK(second.new_runs == 0);
  CHECK(second.stored_runs == first.new_runs);
  CHECK(second.fixed_in == first.fixed_in);
}

TEST_CASE("release versions order and validate") {
  CHECK(version_less("1.9.0", "1.10.0"));
  CHECK(version_less("1.22.0-rev", "1.22.0"));
  CHECK_FALSE(version_less("1.31.1", "1.30.0"));
  CHECK(valid_runtime_version("1.21.0"));
  CHECK(valid_runtime_version("1.22.0-rev"));
  CHECK_FALSE(valid_runtime_version("../1.2.3"));
  CHECK_FALSE(valid_runtime_version("1.2"));
  CHECK_FALSE(valid_runtime_version("1.2.3/x"));
}

TEST_CASE("npm's error output becomes one line") {
  CHECK(npm_error_line("npm error code ETARGET\nnpm error notarget No matching version found for "
                       "onnxruntime-node@9.9.9.\nnpm error notarget In most cases...\nnpm error A "
                       "complete log of this run can be found in: /root/x.log\n",
                       "x") == "ETARGET: No matching version found for onnxruntime-node@9.9.9.");
  CHECK(npm_error_line("npm error code ECONNREFUSED\nnpm error syscall connect\nnpm error errno "
                       "ECONNREFUSED\nnpm error FetchError: request to http://127.0.0.1:9/x "
                       "failed, reason: connect ECONNREFUSED 127.0.0.1:9\nnpm error     at "
                       "ClientRequest.<anonymous> (/usr/lib/x.js:1:1)\n",
                       "x") ==
        "ECONNREFUSED: FetchError: request to http://127.0.0.1:9/x failed, reason: connect "
        "ECONNREFUSED 127.0.0.1:9");
  CHECK(npm_error_line("", "npm exit 1") == "npm exit 1");
}

TEST_CASE("a runtime older than the model is not_runnable, a missing kernel is a crash") {
  CHECK(runtime_lacks_support("Unsupported model IR version: 10, max supported IR version: 8")
            .find("IR version 10") != std::string::npos);
  CHECK(runtime_lacks_support("ONNX Runtime only *guarantees* support for models stamped with "
                              "official released onnx opset versions. Opset 21 is under "
                              "development and support for this is limited.")
            .find("opset 21") != std::string::npos);
  CHECK(runtime_lacks_support("[ONNXRuntimeError] : 1 : FAIL : Load model from m.onnx failed:"
                              "Fatal error: ai.onnx:Gelu(-1) is not a registered function/op"
                              " No Op registered for Gelu with domain_version of 20")
            .find("operator Gelu at opset 20") != std::string::npos);
  CHECK(runtime_lacks_support("Could not find an implementation for Add(14) node with name ''")
            .empty());
}

TEST_CASE("bisect: a missing kernel says in which release it appeared") {
  const std::string sig = "onnxruntime: no kernel for Relu(14) on int16";
  CHECK(kernel_release_text(sig, std::string("1.22.0"), std::nullopt, std::string("1.31.1"),
                            false) == "kernel Relu(14) for int16 added in 1.22.0");
  CHECK(kernel_release_text(sig, std::nullopt, std::nullopt, std::string("1.31.1"), true) ==
        "kernel Relu(14) for int16 missing in every release tried up to 1.31.1");
  CHECK(kernel_release_text(sig, std::nullopt, std::string("1.20.0"), std::string("1.31.1"),
                            true) == "kernel Relu(14) for int16 removed in 1.20.0");
  CHECK_FALSE(kernel_release_text("[onnxruntimeerror] : n : fail", std::string("1.22.0"),
                                  std::nullopt, std::string("1.31.1"), false));
  CHECK_FALSE(kernel_release_text(sig, std::nullopt, std::nullopt, std::nullopt, false));
}

TEST_CASE("bisect: the result of a missing kernel's bisect names the kernel, others do not") {
  FakeRuntime rt({kBad, kBad, kGood, kGood});
  BisectResult plain = bisect_releases(rt.releases, rt.fn());
  CHECK_FALSE(plain.kernel_text());
  CHECK(plain.to_json()["kernel"].is_null());
  ReleaseRunFn kernel_fn = [&](const std::string& version, int attempt) {
    ReleaseRun r = rt.fn()(version, attempt);
    if (r.verdict == kBad) r.signature = "onnxruntime: no kernel for Trilu(14) on uint8";
    return r;
  };
  BisectResult k = bisect_releases(rt.releases, kernel_fn);
  REQUIRE(k.fixed_in);
  CHECK(*k.fixed_in == "1.2.0");
  CHECK(k.to_json()["kernel"] == "kernel Trilu(14) for uint8 added in 1.2.0");
}
