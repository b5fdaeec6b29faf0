#include <doctest/doctest.h>

#include "core/db.h"
#include "core/error.h"
#include "core/migrations.h"
#include "core/secrets.h"
#include "labeling/team_members.h"
#include "test_helpers.h"

using namespace convfail;
using namespace convfail::labeling;

TEST_CASE("team members: a token names its person, is stored only hashed, and is revocable") {
  test::TempDir dir;
  Db db(dir.file("t.db"));
  migrate(db);
  CHECK_FALSE(team_active(db));
  std::string alice = add_member(db, "alice", TeamRole::kAnnotator);
  std::string carol = add_member(db, "carol", TeamRole::kAdjudicator);
  CHECK(alice.size() == 64);
  CHECK(alice != carol);
  CHECK(team_active(db));

  auto a = member_by_token(db, alice);
  REQUIRE(a);
  CHECK(a->name == "alice");
  CHECK(a->role == TeamRole::kAnnotator);
  auto c = member_by_token(db, carol);
  REQUIRE(c);
  CHECK(c->name == "carol");
  CHECK(c->role == TeamRole::kAdjudicator);

  // Only the hash is stored.
  CHECK(db.scalar("SELECT COUNT(*) FROM team_members WHERE token_sha256 = '" + alice + "'") == 0);
  CHECK(db.scalar("SELECT COUNT(*) FROM team_members WHERE token_sha256 = '" + sha256_hex(alice) +
                  "'") == 1);

  // A wrong, truncated, upper-case or empty token names nobody.
  std::string wrong = alice;
  wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
  CHECK_FALSE(member_by_token(db, wrong));
  CHECK_FALSE(member_by_token(db, alice.substr(0, 63)));
  CHECK_FALSE(member_by_token(db, ""));
  std::string upper = alice;
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (upper != alice) CHECK_FALSE(member_by_token(db, upper));
  CHECK_FALSE(member_by_token(db, sha256_hex(alice)));  // the stored hash is not a token

  // An active name is not added twice; revoking ends the token at once; re-adding gives a new one.
  CHECK_THROWS_WITH_AS(add_member(db, "alice", TeamRole::kAdmin),
                       doctest::Contains("revoke their token first"), UserError);
  revoke_member(db, "alice");
  CHECK_FALSE(member_by_token(db, alice));
  CHECK_THROWS_AS(revoke_member(db, "alice"), UserError);
  CHECK_THROWS_AS(revoke_member(db, "nobody"), UserError);
  std::string again = add_member(db, "alice", TeamRole::kAdmin);
  CHECK(again != alice);
  CHECK_FALSE(member_by_token(db, alice));
  REQUIRE(member_by_token(db, again));
  CHECK(member_by_token(db, again)->role == TeamRole::kAdmin);

  auto all = list_members(db);
  REQUIRE(all.size() == 2);
  CHECK(all[0].name == "alice");
  CHECK(all[0].active());
  revoke_member(db, "carol");
  revoke_member(db, "alice");
  CHECK_FALSE(team_active(db));
}

TEST_CASE("team members: names follow the annotator rule, roles are three") {
  test::TempDir dir;
  Db db(dir.file("t.db"));
  migrate(db);
  CHECK_THROWS_AS(add_member(db, "", TeamRole::kAnnotator), UsageError);
  CHECK_THROWS_AS(add_member(db, "consensus", TeamRole::kAnnotator), UsageError);
  CHECK_THROWS_AS(add_member(db, "a:b", TeamRole::kAnnotator), UsageError);
  CHECK_THROWS_AS(add_member(db, "a\x01", TeamRole::kAnnotator), UsageError);
  CHECK(parse_team_role("adjudicator") == TeamRole::kAdjudicator);
  CHECK_THROWS_WITH_AS(parse_team_role("root"),
                       doctest::Contains("annotator, adjudicator or admin"), UsageError);
  CHECK(team_role_name(TeamRole::kAdmin) == "admin");
  CHECK(list_members(db).empty());
}

TEST_CASE("secrets: random tokens differ, same_secret compares whole strings") {
  CHECK(random_hex(32).size() == 64);
  CHECK(random_hex(16) != random_hex(16));
  CHECK(same_secret("abc", "abc"));
  CHECK_FALSE(same_secret("abc", "abd"));
  CHECK_FALSE(same_secret("abc", "ab"));
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
