#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "classifier/engine.h"
#include "classifier/run_store.h"
#include "cli/commands.h"

namespace convfail::cli {

void add_classify_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(
      "Label every stored issue (or those of one repository) with a symptom, a cause (with\n"
      "subtype) and a stage using the rules in data/rules/*.json, and store the result as one\n"
      "classifier run: labels with confidence (NULL label = abstained; stage abstains as\n"
      "not_distinguishable), the evidence of every fired rule, and extracted facts (error type,\n"
      "operators, opset, framework versions). Stored in one transaction.");
  struct Args {
    std::string rules;
    std::vector<std::string> repos;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--rules", args->rules, "rules folder (default: DATA_DIR/rules)");
  cmd->add_option("--repo", args->repos, "only issues of OWNER/NAME (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--json", args->json, "print the run summary as JSON");
  cmd->callback([&ctx, args] {
    Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
    std::string dir = args->rules.empty() ? ctx.data_dir + "/rules" : args->rules;
    classifier::Engine engine(classifier::load_rules(dir, taxonomy), taxonomy);
    bool tty = Context::stderr_is_tty();
    classifier::RunSummary s = classifier::classify_and_store(
        ctx.db(), engine, args->repos, [tty](std::int64_t d, std::int64_t n) {
          if (tty && (d % 500 == 0 || d == n))
            std::cerr << "\rclassified " << d << "/" << n << std::flush;
        });
    if (tty) std::cerr << "\n";
    if (args->json) {
      nlohmann::json out = {{"run_id", s.run_id},         {"issues", s.issues},
                            {"rules_hash", s.rules_hash}, {"rules", s.rule_count},
                            {"labels", s.counts},         {"abstained", s.abstained}};
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::cout << "classifier run " << s.run_id << ": " << s.issues << " issue(s), " << s.rule_count
              << " rules (hash " << s.rules_hash << ")\n";
    for (const auto& [dim, counts] : s.counts) {
      std::cout << "  " << dim << ":";
      for (const auto& [label, n] : counts)
        std::cout << " " << (label.empty() ? "abstained" : label) << "=" << n;
      std::cout << "  (abstained " << (s.abstained.count(dim) ? s.abstained.at(dim) : 0) << ")\n";
    }
  });
}

}  // namespace convfail::cli
