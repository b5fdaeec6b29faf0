-- The people of a team `convfail serve` (labeling/team_members writes them; `convfail team`):
-- each signs in with a token of their own, stored only as its sha256 (the token is printed once
-- by `team add`). The token alone names the person; the role says what they may do on the web:
-- annotator (label blind), adjudicator (also adjudicate and see everyone's labels), admin (also
-- manage the team). A revoked member keeps the row (revoked_at set) and signs in no more.
CREATE TABLE team_members (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  role TEXT NOT NULL CHECK (role IN ('annotator', 'adjudicator', 'admin')),
  token_sha256 TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  revoked_at TEXT
);
