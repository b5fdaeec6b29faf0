// The plan of the real-architecture sources (torchvision, torchaudio, text, real): which
// libraries the worker must list, the subsets (checked before anything runs), each task's source,
// name and family.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "campaign/run/plan.h"
#include "core/error.h"

using namespace convfail;
using namespace convfail::campaign;

namespace {

nlohmann::json zoo() {
  return nlohmann::json::parse(R"([
    {"name": "resnet18", "family": "classification", "library": "torchvision"},
    {"name": "raft_small", "family": "optical_flow", "library": "torchvision"},
    {"name": "wav2letter", "family": "audio", "library": "torchaudio"},
    {"name": "bert_base", "family": "text", "library": "text"},
    {"name": "lstm_lm_1l", "family": "text", "library": "text"}])");
}

std::vector<std::string> names(const std::vector<ModelTask>& plan) {
  std::vector<std::string> out;
  for (const auto& t : plan) out.push_back(t.name + "/" + t.source + "/" + t.family);
  return out;
}

}  // namespace

TEST_CASE("campaign: zoo sources and the libraries they need listed") {
  for (const char* s : {"torchvision", "torchaudio:wav2letter", "text", "real", "real:bert_base"})
    CHECK(is_zoo_source(s));
  for (const char* s : {"synthetic", "script:x.py", "textual", "torchaudiox:a", "vision"})
    CHECK_FALSE(is_zoo_source(s));
  CHECK(zoo_libraries("real") == std::vector<std::string>{"torchvision", "torchaudio", "text"});
  CHECK(zoo_libraries("text:bert_base") == std::vector<std::string>{"text"});
  CampaignConfig c;
  c.sources = {"synthetic", "text", "torchaudio:wav2letter", "real"};
  CHECK(zoo_libraries(c) == std::vector<std::string>{"text", "torchaudio", "torchvision"});
  c.sources = {"synthetic", "script:x.py"};
  CHECK(zoo_libraries(c).empty());
  CHECK(zoo_subset("text:bert_base,lstm_lm_1l,bert_base") ==
        std::vector<std::string>{"bert_base", "lstm_lm_1l"});
  for (const char* bad : {"text:", "text:a,", "torchaudio:a b", "real:x;y", "text:\x1b[2J"}) {
    CAPTURE(std::string(bad));
    CHECK_THROWS_AS(zoo_subset(bad), UsageError);
  }
}

TEST_CASE("campaign: the plan of torchaudio, text and real sources, with each model's family") {
  CampaignConfig c;
  c.sources = {"torchaudio", "text:lstm_lm_1l"};
  CHECK(names(make_plan(c, zoo())) ==
        std::vector<std::string>{"torchaudio:wav2letter/torchaudio/audio",
                                 "text:lstm_lm_1l/text/text"});
  // real: torchvision, then torchaudio, then text, in the worker's order; families kept.
  c.sources = {"real"};
  auto plan = make_plan(c, zoo());
  CHECK(names(plan) == std::vector<std::string>{"torchvision:resnet18/torchvision/classification",
                                                "torchvision:raft_small/torchvision/optical_flow",
                                                "torchaudio:wav2letter/torchaudio/audio",
                                                "text:bert_base/text/text",
                                                "text:lstm_lm_1l/text/text"});
  for (std::size_t i = 0; i < plan.size(); ++i) CHECK(plan[i].seq == static_cast<int>(i));
  c.sources = {"real:lstm_lm_1l,resnet18"};
  CHECK(names(make_plan(c, zoo())) ==
        std::vector<std::string>{"torchvision:resnet18/torchvision/classification",
                                 "text:lstm_lm_1l/text/text"});
  // A name of another library is unknown to this source; the message names the source.
  c.sources = {"torchaudio:bert_base"};
  try {
    make_plan(c, zoo());
    FAIL("an architecture of another library was planned");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()) ==
          "--source torchaudio:bert_base: no torchaudio architecture 'bert_base' (plain --source "
          "torchaudio runs every one)");
  }
  c.sources = {"text:nosuch"};
  CHECK_THROWS_AS(make_plan(c, zoo()), UserError);
  // The external-data test hook reaches every task and is part of the campaign's key.
  c.sources = {"text"};
  c.external_data = true;
  for (const auto& t : make_plan(c, zoo())) CHECK(t.external_data);
  CampaignConfig d = c;
  d.external_data = false;
  CHECK(c.to_json() != d.to_json());
  CHECK(d.to_json().dump().find("external_data") == std::string::npos);
}
