// `convfail test compare` and `convfail test merge` (cmd_test_campaigns.cpp) and `convfail test
// support` (cmd_test_support.cpp): subcommands of `convfail test` registered by
// add_test_command; and `test run`'s shard.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "campaign/run/campaign_pipeline.h"
#include "campaign/run/shard.h"
#include "cli/context.h"

namespace convfail::cli {

void add_test_compare(CLI::App& parent, Context& ctx);
void add_test_merge(CLI::App& parent, Context& ctx);
// `convfail test support` (cmd_test_support.cpp): the measured support matrix.
void add_test_support(CLI::App& parent, Context& ctx);
// Beside a synthetic campaign's summary: the support matrix of the release it ran on (its
// versions) at its opset and types, cells per class ({"onnxruntime", "opset", "cells_per_class"}),
// null when none is stored or the campaign has no synthetic models; and its printed line.
nlohmann::json matrix_summary_json(Db& db, const nlohmann::json& versions,
                                   const campaign::CampaignConfig& config);
void print_matrix_summary(const nlohmann::json& summary, bool filtered);

// --no-minimise, --minimise-budget and --minimise-time of `test run` and `test merge`, into
// `settle` (after parsing, settle->minimise = !*no_minimise).
void add_settle_options(CLI::App* cmd, campaign::SettleOptions* settle, bool* no_minimise);

// `test run --shard K/N` into `*text`.
CLI::Option* add_shard_option(CLI::App* cmd, std::string* text);
// The shard of a run: --shard when given, else SLURM_ARRAY_TASK_ID/COUNT when set, else none
// (UsageError for a bad K/N). A shard says on stderr which it is and where it came from.
campaign::Shard chosen_shard(const CLI::Option& option, const std::string& text);

}  // namespace convfail::cli
