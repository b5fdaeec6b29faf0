#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/error.h"
#include "core/json_util.h"
#include "core/taxonomy.h"
#include "core/text.h"
#include "labeling/label_io.h"
#include "labeling/label_sets.h"
#include "labeling/manual_labels.h"
#include "labelsets/source_labels.h"

namespace convfail::cli {

namespace {

void add_import(CLI::App& parent, Context& ctx) {
  auto* cmd = parent.add_subcommand("import", "import manual labels from CSV");
  cmd->footer(
      "Import manual labels from CSV. The header needs repo and number and any of symptom,\n"
      "cause, subtype, stage; note is the note of every label of its row, symptom_note,\n"
      "cause_note, subtype_note, stage_note the note of one dimension (what export writes).\n"
      "Whose labels: a rater or annotator column names the annotator per row; --annotator NAME\n"
      "names it for every row, and a row whose column names someone else is refused (FILE:LINE;\n"
      "nothing is written): to import alice's export as alice2, drop or edit the column.\n"
      "Spreadsheet names (Wrong Code, Incompatability, Not Dis., ...) are accepted. One\n"
      "transaction: a malformed file writes nothing and the error names FILE:LINE. Rows for\n"
      "issues not in the store are reported and skipped. Values equal to the annotator's\n"
      "current label are not appended again, so re-importing is harmless. A note holds at most\n"
      "64 KB (as on the web); a longer cell is refused (FILE:LINE, column) without reading it\n"
      "all.");
  struct Args {
    std::string file;
    std::optional<std::string> annotator;
    bool create_missing = false, json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("FILE", args->file, "CSV file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--annotator", args->annotator,
                  "the annotator of every row (a row naming another one is refused)");
  cmd->add_flag("--create-missing", args->create_missing,
                "create bare placeholder issues for rows whose issue is not in the store");
  cmd->add_flag("--json", args->json, "print the counts as JSON");
  cmd->callback([&ctx, args] {
    Taxonomy tax = Taxonomy::load(ctx.data_dir);
    labeling::LabelImportResult r = labeling::import_label_csv(
        ctx.create_db(), tax, args->file, {args->annotator, args->create_missing});
    if (args->json) {
      nlohmann::json j = {{"rows", r.rows},
                          {"written", r.written},
                          {"unchanged", r.unchanged},
                          {"skipped_unknown_issues", r.skipped_unknown},
                          {"unknown_issues", r.unknown_issues},
                          {"created_issues", r.created_issues},
                          {"annotators", r.annotators}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << args->file << ": " << r.rows << " row(s), " << r.written << " label(s) written, "
                << r.unchanged << " unchanged";
      if (r.created_issues)
        std::cout << ", " << r.created_issues << " placeholder issue(s) created";
      std::cout << "\n";
    }
    if (r.skipped_unknown) {
      std::cerr << "convfail: skipped " << r.skipped_unknown << " row(s) for "
                << r.unknown_issues.size() << " issue(s) not in the store (use --create-missing):";
      for (std::size_t i = 0; i < r.unknown_issues.size() && i < 10; ++i)
        std::cerr << " " << terminal_safe(r.unknown_issues[i]);
      if (r.unknown_issues.size() > 10) std::cerr << " ...";
      std::cerr << "\n";
    }
  });
}

void add_export(CLI::App& parent, Context& ctx) {
  auto* cmd = parent.add_subcommand("export", "print the current manual labels");
  cmd->footer(
      "Print the current manual labels (latest per annotator, issue and dimension);\n"
      "the CSV reads back with `labels import`; its cells that a spreadsheet would run as a\n"
      "formula (starting with = + - @ tab or CR) get a leading ' unless --raw-csv. jsonl streams "
      "one label object a line,\n"
      "json (or --json) prints the same objects as one array.\n"
      "--source exports another label source instead, one record per issue: classifier,\n"
      "classifier:RUN_ID, consensus, or hybrid[:ANNOTATOR] (the manual label where one exists,\n"
      "else the classifier's when its confidence reaches --min-confidence; see `report --help`)\n"
      "with columns repo,number,source,symptom,cause,subtype,stage, for hybrid also\n"
      "symptom_origin,cause_origin,stage_origin (manual or automatic; JSON: \"origin\"), for\n"
      "classifier and hybrid symptom_confidence,cause_confidence,stage_confidence (the\n"
      "classifier's, calibrated where hybrid used a calibration; empty for manual labels; JSON:\n"
      "\"confidence\"); the counts of manual and automatic cells go to stderr.\n"
      "One row per issue with labels, confidences, origins and repro verdicts, for analysis:\n"
      "`report --per-issue`.");
  struct Args {
    std::optional<std::string> annotator;
    std::optional<std::string> source;
    std::optional<double> min_confidence;
    std::string format = "csv";
    bool json = false;
    bool raw_csv = false;
  };
  auto args = std::make_shared<Args>();
  auto* annotator_option =
      cmd->add_option("--annotator", args->annotator, "only this annotator (default: all)");
  cmd->add_option("--source", args->source,
                  "a label source instead of manual labels: an annotator, classifier,\n"
                  "classifier:RUN_ID, consensus, hybrid or hybrid:ANNOTATOR")
      ->excludes(annotator_option);
  cmd->add_option("--min-confidence", args->min_confidence,
                  "hybrid sources: the confidence a classifier label needs (default: the\n"
                  "stored calibration's threshold, else the raw default)")
      ->check(CLI::Range(0.0, 1.0));
  auto* format_option = cmd->add_option("--format", args->format, "csv, jsonl or json")
                            ->check(CLI::IsMember({"csv", "jsonl", "json"}))
                            ->capture_default_str();
  cmd->add_flag("--json", args->json, "same as --format json")->excludes(format_option);
  cmd->add_flag("--raw-csv", args->raw_csv,
                "CSV: write cells as they are; by default a cell starting with = + - @ tab or CR\n"
                "gets a leading ' so spreadsheets do not run it as a formula (import drops it)");
  cmd->callback([&ctx, args] {
    std::string format = args->json ? "json" : args->format;
    labeling::LabelFormat f = format == "csv"     ? labeling::LabelFormat::kCsv
                              : format == "jsonl" ? labeling::LabelFormat::kJsonl
                                                  : labeling::LabelFormat::kJson;
    const std::optional<std::string>& source = args->source;
    std::optional<labeling::LabelSource> parsed;
    if (source) parsed = labeling::LabelSource::parse(*source);
    bool manual = !parsed || parsed->manual();
    if (args->min_confidence && (!parsed || !parsed->hybrid()))
      throw UsageError("--min-confidence applies to --source hybrid[:ANNOTATOR] only");
    if (manual) {
      labeling::export_labels(ctx.read_db(), source ? source : args->annotator, f, std::cout,
                              args->raw_csv);
      return;
    }
    std::vector<labeling::IssueLabels> labels =
        labelsets::load_label_set(ctx.read_db(), *source, args->min_confidence);
    labeling::export_label_set(labels, *source, f, std::cout, args->raw_csv);
    if (parsed->hybrid()) {
      labelsets::OriginCounts c = labelsets::count_origins(labels);
      std::cerr << terminal_safe(*source) << ": " << labels.size() << " issue(s), " << c.manual
                << " label(s) manual, " << c.automatic << " automatic\n";
    }
  });
}

void add_history(CLI::App& parent, Context& ctx) {
  auto* cmd = parent.add_subcommand("history", "print every manual label row of one issue");
  cmd->footer(
      "Print every manual label row of one issue, oldest first (nothing is ever\n"
      "removed: changes, skips, undos and adjudications are all rows).");
  struct Args {
    std::string issue;
    std::optional<std::string> annotator;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("ISSUE", args->issue, "OWNER/REPO#N or its URL")->required();
  cmd->add_option("--annotator", args->annotator, "only this annotator");
  cmd->add_flag("--json", args->json, "print the rows as one JSON array");
  cmd->callback([&ctx, args] {
    Db& db = ctx.read_db();
    std::int64_t id = require_issue(db, parse_issue_ref(args->issue));
    labeling::ManualLabels store(db);
    nlohmann::json rows = nlohmann::json::array();
    for (const labeling::ManualLabelRow& r : store.history(id, args->annotator)) {
      if (args->json) {
        rows.push_back(labeling::history_row_json(r));
      } else {
        std::cout << terminal_safe(r.created_at) << "  " << terminal_safe(r.annotator) << "  "
                  << terminal_safe(r.dimension) << "  " << terminal_safe(r.kind) << "  "
                  << terminal_safe(r.value.value_or("-")) << "  "
                  << terminal_safe(r.source.value_or(""));
        if (r.note) std::cout << "  note: " << terminal_safe(*r.note);
        std::cout << "\n";
      }
    }
    if (args->json) std::cout << json_text(rows, 2) << "\n";
  });
}

}  // namespace

void add_labels_command(CLI::App* cmd, Context& ctx) {
  cmd->require_subcommand(1);
  add_import(*cmd, ctx);
  add_export(*cmd, ctx);
  add_history(*cmd, ctx);
}

}  // namespace convfail::cli
