#include <iostream>
#include <memory>

#include "campaign/report/campaign_report.h"
#include "classifier/latest_run.h"
#include "classifier/model.h"
#include "cli/commands.h"
#include "cli/report_output.h"
#include "core/taxonomy.h"
#include "labeling/label_source.h"
#include "reports/per_issue.h"
#include "reports/render.h"
#include "reports/report_data.h"
#include "repro/bisect_history.h"
#include "repro/verdict_store.h"

namespace convfail::cli {

namespace {

// The sources of a comparison that are classifier runs of a trained model, with its training
// issues, so that the report can say when an agreement is in-sample.
std::vector<reports::TrainedSource> trained_sources(Db& db, const reports::ReportOptions& o) {
  std::vector<reports::TrainedSource> out;
  std::vector<std::string> sources{o.source};
  if (o.compare) sources.push_back(*o.compare);
  for (const std::string& text : sources) {
    labeling::LabelSource source = labeling::LabelSource::parse(text);
    if (!source.classifier()) continue;
    std::int64_t run = source.run.value_or(classifier::latest_run_id(db));
    if (auto t = classifier::run_training_set(db, run))
      out.push_back({text, run, t->model_id, std::move(t->issues)});
  }
  return out;
}

// The options of `report`.
struct ReportArgs {
  reports::ReportOptions options;
  std::string format = "md";
  std::string out;
  std::string compare;
  std::string since, until;
  bool json = false;
  bool raw_csv = false;
  bool standalone = false;
  bool per_issue = false;
  double min_confidence = -1;
  std::int64_t campaign = 0;
  std::vector<std::string> suites;
};

const char* const kReportHelp =
    "Print the study's tables from one label source: stage by converter (Table 8), symptom\n"
    "by converter (Table 9), cause by symptom (Table 10: top five causes, the rest as Other),\n"
    "subtypes of incompatibility and type problems, issues per converter per year or quarter;\n"
    "with --compare the agreement of two sources; when repro runs exist, the labeled defects\n"
    "confirmed by re-execution. The JSON holds the full unbinned counts.\n"
    "Issues without a label on a dimension are counted, not dropped: a row Abstained (the\n"
    "classifier abstained; its stage abstains as Not Distinguishable) or Unlabeled (an\n"
    "annotator, the consensus or the hybrid has no label), and a column of the same name in\n"
    "the cause-by-symptom table, printed when there are such issues, so every table adds up\n"
    "to the issues in its heading. The JSON always has that key, named in \"missing\".\n"
    "CSV is tidy long form (table,row,column,value), one number or plain label per value:\n"
    "a count and its share are two rows (Total, Share of total), a cell per converter is\n"
    "one row per converter (column \"Crash (torch.onnx)\"), an interval its two ends.\n"
    "LaTeX is table fragments to \\input (they need \\usepackage{booktabs}), labelled\n"
    "tab:stage-by-converter and so on; --standalone prints a whole document instead.\n"
    "--per-issue prints the flat table instead, one row per issue (CSV or JSON): each\n"
    "dimension's label, its confidence and origin (manual or automatic), and the latest repro\n"
    "verdict. It is here, not in `labels export`, because it joins labels with repro runs as\n"
    "the report does (same --source, --repo, --since, --until); `labels export` is the form\n"
    "that `labels import` reads back.\n"
    "With --campaign ID: the campaign's report instead (convfail test): outcomes per source\n"
    "and node count, operator types per outcome with Fisher's exact test and\n"
    "Benjamini-Hochberg, operator sequences (the study's path method made deterministic,\n"
    "n-grams along edges), coverage by test suites (--suite), and the failure groups.";

// `report`: the per-issue table, a campaign's report or the study's tables, to stdout or --out.
void run_report(Context& ctx, const ReportArgs& a, bool format_given) {
  reports::ReportOptions options = a.options;
  if (!a.since.empty()) options.since = a.since;
  if (!a.until.empty()) options.until = a.until;
  if (!a.compare.empty()) options.compare = a.compare;
  if (a.min_confidence >= 0) options.min_confidence = a.min_confidence;
  // --per-issue is a CSV unless a format is asked for.
  std::string format_name = a.json ? "json" : a.per_issue && !format_given ? "csv" : a.format;
  reports::ReportFormat format = reports::parse_report_format(format_name);
  std::string text;
  if (a.per_issue) {
    Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
    options.verdicts = repro::latest_issue_verdicts(ctx.read_db());
    text = reports::render_per_issue(ctx.read_db(), taxonomy, options, format, a.raw_csv);
  } else if (a.campaign > 0) {
    campaign::CampaignAnalysisOptions campaign_options;
    campaign_options.suites = a.suites;
    text = campaign::campaign_report(ctx.read_db(), a.campaign, format, campaign_options, a.raw_csv,
                                     a.standalone);
  } else {
    Taxonomy taxonomy = Taxonomy::load(ctx.data_dir);
    if (options.compare) options.trained = trained_sources(ctx.read_db(), options);
    // Section 7 from repro's readers: reports do not read repro's tables.
    options.verdicts = repro::latest_issue_verdicts(ctx.read_db());
    options.histories = repro::runtime_histories(ctx.read_db());
    reports::ReportData data = reports::build_report(ctx.read_db(), taxonomy, options);
    text = reports::render_report(data, taxonomy, format, a.raw_csv, a.standalone);
  }
  emit_report(text, format, a.out);
}

}  // namespace

void add_report_command(CLI::App* cmd, Context& ctx) {
  cmd->footer(kReportHelp);
  auto args = std::make_shared<ReportArgs>();
  args->options.source = "classifier";
  cmd->add_option("--source", args->options.source,
                  "label source: an annotator name, classifier (latest run), classifier:RUN_ID, "
                  "consensus, or hybrid[:ANNOTATOR] (manual labels where they exist, else the "
                  "classifier's confident ones)")
      ->capture_default_str();
  cmd->add_flag("--allow-partial", args->options.allow_partial,
                "report an unfinished classifier run (classify still running, or killed) as\n"
                "--source or --compare, saying in the title that it is partial (refused without)");
  cmd->add_option(
         "--min-confidence", args->min_confidence,
         "hybrid sources: the confidence a classifier label needs (default: the threshold\n"
         "stored by eval --store-calibration, else raw confidence 0.6)")
      ->check(CLI::Range(0.0, 1.0));
  auto* format_option = cmd->add_option("--format", args->format,
                                        "md, csv (table,row,column,value), latex, html or json")
                            ->capture_default_str();
  cmd->add_flag("--json", args->json, "same as --format json")->excludes(format_option);
  cmd->add_flag("--raw-csv", args->raw_csv,
                "CSV: write cells as they are; by default a cell starting with = + - @ tab or CR\n"
                "(not a plain number) gets a leading ' so spreadsheets do not run it as a formula");
  cmd->add_flag("--standalone", args->standalone,
                "LaTeX: a whole document (\\documentclass ... \\end{document}) instead of table "
                "fragments");
  auto* per_issue = cmd->add_flag(
      "--per-issue", args->per_issue,
      "one row per issue: labels, confidences, origins and the latest repro verdict (csv by\n"
      "default, or json; see below)");
  cmd->add_option("--out", args->out, "write the report to FILE instead of stdout");
  cmd->add_option("--repo", args->options.repos, "only issues of OWNER/NAME (repeatable)");
  cmd->add_option("--since", args->since, "only issues opened on or after YYYY-MM-DD");
  cmd->add_option("--until", args->until, "only issues opened on or before YYYY-MM-DD");
  cmd->add_option("--by", args->options.period, "trend periods: year or quarter")
      ->capture_default_str();
  cmd->add_option("--compare", args->compare,
                  "a second label source: agreement per dimension and the labels that differ "
                  "most; when either source is a classifier run of a trained model, how many of "
                  "the compared issues the model was trained on (an in-sample agreement)");
  auto* campaign =
      cmd->add_option("--campaign", args->campaign, "report campaign ID of `convfail test`")
          ->check(CLI::PositiveNumber)
          ->excludes(per_issue);
  cmd->add_option("--suite", args->suites,
                  "with --campaign: a folder of test models (*.onnx below it), or onnx-node\n"
                  "(Debian libonnx-testdata's ONNX backend node tests); repeatable")
      ->needs(campaign);
  cmd->callback(
      [&ctx, args, format_option] { run_report(ctx, *args, format_option->count() > 0); });
}

}  // namespace convfail::cli
