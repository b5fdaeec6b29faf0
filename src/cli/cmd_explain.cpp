#include <iostream>
#include <memory>

#include "classifier/engine.h"
#include "classifier/explain.h"
#include "cli/commands.h"
#include "core/error.h"

namespace convfail::cli {

void add_explain_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand(
      "explain",
      "Classify one stored issue with the current rules and show why: each dimension's label,\n"
      "confidence and score table, and the evidence (rule, field, byte span) with the matched\n"
      "text highlighted in context (colour on a terminal, >>text<< on a pipe), then the\n"
      "extracted facts.");
  struct Args {
    std::string issue;
    std::string rules;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("ISSUE", args->issue, "OWNER/REPO#NUMBER")->required();
  cmd->add_option("--rules", args->rules, "rules folder (default: DATA_DIR/rules)");
  cmd->callback([&ctx, args] {
    const std::string& ref = args->issue;
    auto hash = ref.rfind('#');
    std::int64_t number = 0;
    std::string repo = hash == std::string::npos ? "" : ref.substr(0, hash);
    try {
      std::size_t used = 0;
      number = std::stoll(ref.substr(hash + 1), &used);
      if (used != ref.size() - hash - 1 || number <= 0) throw std::invalid_argument("");
    } catch (const std::exception&) {
      repo.clear();
    }
    if (repo.find('/') == std::string::npos)
      throw UsageError("ISSUE: \"" + ref + "\" is not OWNER/REPO#NUMBER");
    Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
    std::string dir = args->rules.empty() ? ctx.data_dir + "/rules" : args->rules;
    classifier::Engine engine(classifier::load_rules(dir, taxonomy), taxonomy);
    auto issue = classifier::load_issue_text(ctx.db(), repo, number);
    if (!issue) throw UserError(ref + " is not stored (import or crawl it first)");
    std::cout << classifier::explain_issue(engine, *issue, Context::stdout_is_tty());
  });
}

}  // namespace convfail::cli
