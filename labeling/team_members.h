// The people of a team (table team_members): who may sign in to `convfail serve` with a token of
// their own, and with which role. A token is 32 random bytes (64 hex digits) printed once by
// add_member; only its sha256 is stored, and a sign-in compares hashes in constant time. The
// token alone names the person (web/access), so no header, cookie or body can claim another name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/db.h"

namespace convfail::labeling {

// What a member may do on the web, each role including the ones before it: annotator (label,
// blind: their own labels only), adjudicator (adjudicate, see everyone's labels), admin (manage
// the team).
enum class TeamRole { kAnnotator = 0, kAdjudicator = 1, kAdmin = 2 };

// "annotator", "adjudicator", "admin"; parse_team_role throws UsageError naming `what` else.
std::string team_role_name(TeamRole role);
TeamRole parse_team_role(std::string_view text, std::string_view what = "--role");

struct TeamMember {
  std::string name;
  TeamRole role = TeamRole::kAnnotator;
  std::string created_at;
  std::optional<std::string> revoked_at;
  bool active() const { return !revoked_at; }
};

// Adds `name` (check_annotator_name's rules) with `role` and returns their token, the only time
// it exists outside the person's hands. A revoked member of that name is re-admitted with the
// new token and role; an active one is refused (UserError: revoke first).
std::string add_member(Db& db, const std::string& name, TeamRole role);

// Revokes `name`'s token at once (their next request is refused). UserError when `name` is not
// an active member.
void revoke_member(Db& db, const std::string& name);

// Every member, active and revoked, by name.
std::vector<TeamMember> list_members(Db& db);

// Whether any member is active: `serve` then signs people in by their own tokens.
bool team_active(Db& db);

// The active member whose token this is (nullopt for an unknown or revoked token, or one not of
// the form add_member prints).
std::optional<TeamMember> member_by_token(Db& db, std::string_view token);

}  // namespace convfail::labeling
