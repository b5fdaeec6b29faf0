// Per-dimension choice between rules, model and blend (predictor_choice.h, fit_model).
#include <doctest/doctest.h>

#include <cmath>

#include "classifier/model.h"
#include "classifier/predictor_choice.h"

using namespace convfail;
using namespace convfail::classifier;

namespace {

std::uint64_t lcg(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return state >> 33;
}

// 80 examples in 4 folds, labels a/b/c. Dimension "words": the words name the label, the rules
// are right only on half of the issues (and say "a" on the rest): the model fixes them.
// Dimension "rules": the rules are always right, but nothing the model sees tells the labels
// apart (the rules' decision for "rules" is not a feature, the words are noise): the model is
// worse. "rules" must keep the rules, "words" must not.
TrainingData mixed() {
  TrainingData data;
  std::uint64_t state = 7;
  const char* names[] = {"a", "b", "c"};
  for (int i = 0; i < 80; ++i) {
    std::string w = names[i % 3];
    std::string r = names[(i / 3) % 3];
    std::string rules_words = i % 2 ? w : "a";
    data.examples.push_back({"w:" + w, "rules:words=" + rules_words,
                             "w:noise" + std::to_string(lcg(state) % 5),
                             "w:more" + std::to_string(lcg(state) % 5)});
    data.labels["words"].push_back(w);
    data.labels["rules"].push_back(r);
    data.rules_labels["words"].push_back(rules_words);
    data.rules_labels["rules"].push_back(r);
    data.rules_confidence["words"].push_back(0.6);
    data.rules_confidence["rules"].push_back(0.8);
    data.cv_group.push_back(i % 4);
  }
  return data;
}

}  // namespace

TEST_CASE("choice: where the model is worse, that dimension keeps the rules") {
  TrainedModel m = fit_model(mixed(), FitOptions{});
  const DimensionModel* rules = m.dimension("rules");
  const DimensionModel* words = m.dimension("words");
  REQUIRE(rules);
  REQUIRE(words);
  CHECK(rules->predictor == "rules");
  CHECK(rules->choice.rules.kappa == doctest::Approx(1.0));
  CHECK(rules->choice.model.kappa < 0.5);
  CHECK(rules->choice.gain < rules->choice.options.margin);
  CHECK(words->predictor != "rules");
  CHECK(words->choice.gain >= words->choice.options.margin);
  CHECK(words->choice.win_share >= 0.8);
  CHECK(words->choice.rules.kappa < 0.6);
  // Without the correction the figures are the same (no rule firings were given).
  CHECK_FALSE(words->choice.corrected);
  CHECK(words->choice.rules.raw_kappa == doctest::Approx(words->choice.rules.kappa));
  // The rules' confidence is calibrated on their out-of-fold accuracy: always right -> 1.
  CHECK(rules->rules_calibration.apply(0.8) == doctest::Approx(1.0));
}

TEST_CASE("choice: a gain under the margin, or one the bootstrap does not back, keeps the rules") {
  // 200 rows; the rules are right on 160, the challenger on 161 (one more): gain 0.01 < 0.02.
  std::vector<std::string> gold, rules, model;
  for (int i = 0; i < 200; ++i) {
    std::string g = i % 2 ? "x" : "y", other = i % 2 ? "y" : "x";
    gold.push_back(g);
    rules.push_back(i < 160 ? g : other);
    model.push_back(i < 161 ? g : other);
  }
  PredictorChoice c = choose_predictor(gold, rules, model, rules, 1);
  CHECK(c.challenger == "model");
  CHECK(c.gain > 0);
  CHECK(c.gain < 0.02);
  CHECK(c.predictor == "rules");
  // A clear win: the model right on 190.
  for (int i = 160; i < 190; ++i) model[i] = gold[i];
  c = choose_predictor(gold, rules, model, rules, 1);
  CHECK(c.predictor == "model");
  CHECK(c.win_share > 0.95);
  // The same gain with a demanding win share is refused, and a better blend is the challenger.
  ChoiceOptions strict;
  strict.min_win_share = 1.01;
  CHECK(choose_predictor(gold, rules, model, rules, 1, strict).predictor == "rules");
  std::vector<std::string> blend = gold;
  c = choose_predictor(gold, rules, model, blend, 4);
  CHECK(c.predictor == "blend");
  CHECK(c.blend_weight == 4);
  CHECK(c.blend.kappa == doctest::Approx(1.0));
}

TEST_CASE("choice: the bootstrap is deterministic and paired") {
  std::vector<std::string> gold, a, b;
  std::uint64_t state = 3;
  for (int i = 0; i < 60; ++i) {
    gold.push_back(lcg(state) % 2 ? "p" : "q");
    a.push_back(lcg(state) % 4 ? gold.back() : "z");
    b.push_back(lcg(state) % 2 ? gold.back() : "z");
  }
  double s1 = bootstrap_win_share(gold, a, b, 500, 9);
  CHECK(s1 == bootstrap_win_share(gold, a, b, 500, 9));
  CHECK(s1 > 0.9);
  CHECK(bootstrap_win_share(gold, b, a, 500, 9) < 0.1);
  CHECK(bootstrap_win_share(gold, a, a, 500, 9) == 0);  // ties are not wins
}

TEST_CASE("correction: rules only the held-out fold supports are left out") {
  // 8 examples, folds 0/1. "memo" fires on the two fold-0 issues only; "good" fires on four
  // issues across both folds and is right; "bad" fires twice in fold 1 and is wrong (precision
  // below the base rate); "prior" fires everywhere (precision = base rate: kept).
  std::vector<std::vector<RuleHit>> fired(8);
  std::map<std::string, std::vector<std::string>> gold;
  std::vector<int> group;
  for (int i = 0; i < 8; ++i) {
    group.push_back(i < 4 ? 0 : 1);
    gold["d"].push_back(i % 2 ? "x" : "y");
    fired[i].push_back({"prior", "d", "x"});
  }
  fired[0].push_back({"memo", "d", "y"});
  fired[2].push_back({"memo", "d", "y"});
  for (int i : {1, 3, 5, 7}) fired[i].push_back({"good", "d", "x"});
  for (int i : {4, 6}) fired[i].push_back({"bad", "d", "x"});
  std::set<std::string> without0 = rules_unsupported_without(fired, gold, group, 0);
  std::set<std::string> without1 = rules_unsupported_without(fired, gold, group, 1);
  CHECK(without0 == std::set<std::string>{"bad", "memo"});  // memo: no fold-1 support
  CHECK(without1 == std::set<std::string>{"bad"});          // memo and good: twice in fold 0, right
}

TEST_CASE("correction: the corrected figures decide, the uncorrected ones are reported") {
  // The rules look perfect on the training folds, but as written without each fold they say
  // "a" everywhere; the words tell the labels apart. Uncorrected the rules win; corrected the
  // model does.
  TrainingData data;
  std::uint64_t state = 11;
  for (int i = 0; i < 80; ++i) {
    std::string l = i % 2 ? "b" : "a";
    data.examples.push_back(
        {"rule:memo", "rules:d=" + l, "w:" + l + std::to_string(lcg(state) % 2), "w:" + l});
    data.labels["d"].push_back(l);
    data.rules_labels["d"].push_back(l);
    data.rules_confidence["d"].push_back(0.9);
    data.cv_group.push_back(i % 4);
  }
  for (int g = 0; g < 4; ++g) {
    RulesView& v = data.rules_without[g];
    v.dropped = {"memo"};
    for (std::size_t i = 0; i < data.examples.size(); ++i) {
      std::set<std::string> ex;
      for (const std::string& f : data.examples[i])
        if (f.rfind("rule", 0) != 0) ex.insert(f);
      ex.insert("rules:d=a");
      v.examples.push_back(ex);
      v.rules_labels["d"].push_back("a");
      v.rules_confidence["d"].push_back(0.3);
    }
  }
  TrainedModel m = fit_model(data, FitOptions{});
  const DimensionModel& d = m.dimensions.at(0);
  CHECK(d.choice.corrected);
  CHECK(d.choice.dropped_rules == doctest::Approx(1.0));
  CHECK(d.choice.rules.raw_kappa == doctest::Approx(1.0));
  CHECK(d.choice.rules.kappa == doctest::Approx(0.0));
  CHECK(d.choice.model.kappa > 0.9);
  CHECK(d.predictor != "rules");
}

TEST_CASE("blend: the rules' vote shifts the model's probabilities, abstention leaves them") {
  std::vector<double> p = {0.6, 0.3, 0.1};
  CHECK(blend_probabilities(p, std::nullopt, 4) == p);
  std::vector<double> b = blend_probabilities(p, 1, std::log(4.0));
  // odds of label 1 times 4: 0.3*4 / (0.6 + 1.2 + 0.1)
  CHECK(b[1] == doctest::Approx(1.2 / 1.9));
  CHECK(b[0] + b[1] + b[2] == doctest::Approx(1.0));
}
