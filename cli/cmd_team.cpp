#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/json_util.h"
#include "core/text.h"
#include "labeling/team_members.h"

namespace convfail::cli {

namespace {

const char* const kTeamHelp =
    "The people of a team `convfail serve`: each signs in with a token of their own, printed\n"
    "once by `team add` (only its sha256 is stored). While any member is active, `serve` answers\n"
    "only requests carrying a member's token, and the token alone says who is asking: no header,\n"
    "cookie or login can claim another name. Roles: annotator (labels blind: sees only their\n"
    "own labels, on every page and route), adjudicator (also adjudicates and sees everyone's\n"
    "labels), admin (also lists the team on the web). `team revoke NAME` ends a token at once;\n"
    "`team add NAME` again gives a revoked member a new one. Open the page with\n"
    "http://HOST:PORT/?token=TOKEN (it sets a cookie) or send `Authorization: Bearer TOKEN`.";

void add_team_add(CLI::App* cmd, Context& ctx) {
  struct AddArgs {
    std::string name, role = "annotator";
  };
  auto a = std::make_shared<AddArgs>();
  auto* add = cmd->add_subcommand("add", "add a person and print their token (shown once)");
  add->add_option("NAME", a->name, "their annotator name (the labels they write carry it)")
      ->required();
  add->add_option("--role", a->role, "annotator, adjudicator or admin")->capture_default_str();
  add->callback([&ctx, a] {
    labeling::TeamRole role = labeling::parse_team_role(a->role);
    std::string token = labeling::add_member(ctx.db(), a->name, role);
    std::cout << "team member " << terminal_safe(a->name) << " (" << labeling::team_role_name(role)
              << ") added; their token, shown once:\n"
              << token << "\n";
  });
}

void add_team_list(CLI::App* cmd, Context& ctx) {
  auto json = std::make_shared<bool>(false);
  auto* list = cmd->add_subcommand("list", "the members, their roles, active or revoked");
  list->add_flag("--json", *json, "print JSON");
  list->callback([&ctx, json] {
    auto members = labeling::list_members(ctx.read_db());
    if (*json) {
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& m : members)
        rows.push_back({{"name", m.name},
                        {"role", labeling::team_role_name(m.role)},
                        {"created_at", m.created_at},
                        {"revoked_at", m.revoked_at ? nlohmann::json(*m.revoked_at) : nullptr}});
      std::cout << json_text(rows) << "\n";
      return;
    }
    if (members.empty()) std::cout << "no team member (convfail team add NAME --role ROLE)\n";
    for (const auto& m : members)
      std::cout << terminal_safe(m.name) << "  " << labeling::team_role_name(m.role) << "  "
                << (m.revoked_at ? "revoked " + terminal_safe(*m.revoked_at)
                                 : "since " + terminal_safe(m.created_at))
                << "\n";
  });
}

void add_team_revoke(CLI::App* cmd, Context& ctx) {
  auto name = std::make_shared<std::string>();
  auto* revoke = cmd->add_subcommand("revoke", "end a member's token at once");
  revoke->add_option("NAME", *name, "the member")->required();
  revoke->callback([&ctx, name] {
    labeling::revoke_member(ctx.db(), *name);
    std::cout << "team member " << terminal_safe(*name) << " revoked\n";
  });
}

}  // namespace

void add_team_command(CLI::App* cmd, Context& ctx) {
  cmd->require_subcommand(1);
  cmd->footer(kTeamHelp);
  add_team_add(cmd, ctx);
  add_team_list(cmd, ctx);
  add_team_revoke(cmd, ctx);
}

}  // namespace convfail::cli
