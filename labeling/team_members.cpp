#include "labeling/team_members.h"

#include "core/error.h"
#include "core/secrets.h"
#include "core/text.h"
#include "labeling/label_source.h"

namespace convfail::labeling {

namespace {

constexpr std::size_t kTokenBytes = 32;  // 256 bits: a sha256 of it cannot be searched back

TeamMember read_member(Stmt& s) {
  TeamMember m;
  m.name = s.text(0);
  m.role = parse_team_role(s.text(1), "team_members.role");
  m.created_at = s.text(2);
  m.revoked_at = s.opt_text(3);
  return m;
}

}  // namespace

std::string team_role_name(TeamRole role) {
  switch (role) {
    case TeamRole::kAnnotator:
      return "annotator";
    case TeamRole::kAdjudicator:
      return "adjudicator";
    case TeamRole::kAdmin:
      return "admin";
  }
  return "annotator";
}

TeamRole parse_team_role(std::string_view text, std::string_view what) {
  for (TeamRole r : {TeamRole::kAnnotator, TeamRole::kAdjudicator, TeamRole::kAdmin})
    if (text == team_role_name(r)) return r;
  throw UsageError(std::string(what) + ": annotator, adjudicator or admin, got " +
                   quoted_excerpt(std::string(text)));
}

std::string add_member(Db& db, const std::string& name, TeamRole role) {
  check_annotator_name(name, "team member");
  std::string token = random_hex(kTokenBytes);
  Transaction tx(db);
  Stmt find(db, "SELECT revoked_at IS NULL FROM team_members WHERE name = ?");
  find.bind(1, name);
  if (find.step()) {
    if (find.int64(0))
      throw UserError("team member " + quoted_excerpt(name) +
                      " exists: revoke their token first (convfail team revoke NAME)");
    Stmt readmit(db,
                 "UPDATE team_members SET role = ?, token_sha256 = ?, revoked_at = NULL, "
                 "created_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') WHERE name = ?");
    readmit.bind(1, team_role_name(role)).bind(2, sha256_hex(token)).bind(3, name).run();
  } else {
    Stmt insert(db, "INSERT INTO team_members(name, role, token_sha256) VALUES (?, ?, ?)");
    insert.bind(1, name).bind(2, team_role_name(role)).bind(3, sha256_hex(token)).run();
  }
  tx.commit();
  return token;
}

void revoke_member(Db& db, const std::string& name) {
  Stmt s(db,
         "UPDATE team_members SET revoked_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') "
         "WHERE name = ? AND revoked_at IS NULL");
  s.bind(1, name).run();
  if (db.changes() == 0)
    throw UserError("no active team member " + quoted_excerpt(name) + " (convfail team list)");
}

std::vector<TeamMember> list_members(Db& db) {
  Stmt s(db, "SELECT name, role, created_at, revoked_at FROM team_members ORDER BY name");
  std::vector<TeamMember> out;
  while (s.step()) out.push_back(read_member(s));
  return out;
}

bool team_active(Db& db) {
  return db.scalar("SELECT EXISTS (SELECT 1 FROM team_members WHERE revoked_at IS NULL)") != 0;
}

std::optional<TeamMember> member_by_token(Db& db, std::string_view token) {
  if (token.size() != 2 * kTokenBytes ||
      token.find_first_not_of("0123456789abcdef") != std::string_view::npos)
    return std::nullopt;
  std::string hash = sha256_hex(token);
  // Every active member's hash compared in constant time (a team is a few rows): the time of a
  // refusal says nothing of how close a guess came.
  Stmt s(db,
         "SELECT name, role, created_at, revoked_at, token_sha256 FROM team_members "
         "WHERE revoked_at IS NULL");
  std::optional<TeamMember> found;
  while (s.step())
    if (same_secret(s.text(4), hash)) found = read_member(s);
  return found;
}

}  // namespace convfail::labeling
