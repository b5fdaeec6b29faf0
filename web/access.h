// Who asks `convfail serve`, and what they may see. Without a team (loopback, or one shared
// token) the viewer is the name typed at login and may do everything, as before teams. With a
// team (labeling/team_members) the viewer is the member whose token the request carries, and
// labeling is blind for annotators on every route: they read only their own labels (issue page,
// label history, queues, agreement, reports and filters by label source) and never adjudicate.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>

#include "labeling/team_members.h"
#include "web/api.h"

namespace convfail::web {

struct Viewer {
  std::string name;  // "" when nobody is logged in (without a team)
  bool team = false;
  labeling::TeamRole role = labeling::TeamRole::kAdmin;
  // Reads every rater's labels and adjudicates: anyone without a team, else adjudicators and
  // admins.
  bool sees_everyone() const { return !team || role != labeling::TeamRole::kAnnotator; }
  bool admin() const { return !team || role == labeling::TeamRole::kAdmin; }
};

// A label source (a query parameter `param`, as labeling::LabelSource parses it) the viewer may
// read: anything when they see everyone; else the classifier, their own name and
// hybrid:THEIR_NAME. HttpError 400 for a malformed source, 403 for another rater's labels (a
// name, consensus, hybrid of everyone).
void require_readable_source(const Viewer& viewer, const std::optional<std::string>& source,
                             const std::string& param);

// Every value of those parameters of `params`, each checked as above.
void require_readable_sources(const Viewer& viewer, const Params& params,
                              std::initializer_list<const char*> names);

// HttpError 403 unless the viewer adjudicates (`what`: the refused action).
void require_adjudicator(const Viewer& viewer, const std::string& what);

// The parameters of GET /api/labels as the viewer may ask them: a blind viewer's `annotator` is
// their own name (given or not); another name is 403.
Params readable_history_params(const Viewer& viewer, const Params& params);

// GET /api/session as the viewer sees it: "team" (signed in by a member's token) and "role"
// added; for a blind viewer, "sources" and "annotators" hold only what they may read.
nlohmann::json viewer_session_json(nlohmann::json session, const Viewer& viewer);

// GET /api/team (admins): the members, their roles, active or revoked; never a token.
nlohmann::json team_json(Db& db, const Viewer& viewer);

}  // namespace convfail::web
