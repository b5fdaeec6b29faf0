#include "web/access.h"

#include "core/error.h"
#include "core/text.h"
#include "labeling/label_source.h"

namespace convfail::web {

using labeling::LabelSource;

namespace {

std::string blind_refusal(const Viewer& v, const std::string& what) {
  return "blind labeling: " + v.name + " (annotator) may not read " + what +
         "; adjudicators and admins may";
}

}  // namespace

void require_readable_source(const Viewer& viewer, const std::optional<std::string>& source,
                             const std::string& param) {
  if (!source || source->empty()) return;
  LabelSource s;
  try {
    s = LabelSource::parse(*source);
  } catch (const UsageError& e) {
    throw HttpError(400, param + ": " + e.what());
  }
  if (viewer.sees_everyone() || s.classifier()) return;
  bool own = (s.manual() || s.hybrid()) && !s.annotator.empty() && s.annotator == viewer.name;
  if (!own)
    throw HttpError(
        403, param + ": " + blind_refusal(viewer, "the labels of " + quoted_excerpt(s.text())));
}

void require_readable_sources(const Viewer& viewer, const Params& params,
                              std::initializer_list<const char*> names) {
  for (const char* name : names) {
    auto [from, to] = params.equal_range(name);
    for (auto it = from; it != to; ++it) require_readable_source(viewer, it->second, name);
  }
}

void require_adjudicator(const Viewer& viewer, const std::string& what) {
  if (!viewer.sees_everyone())
    throw HttpError(403, what + ": " + viewer.name +
                             " is an annotator; adjudication needs the "
                             "adjudicator or admin role");
}

Params readable_history_params(const Viewer& viewer, const Params& params) {
  if (viewer.sees_everyone()) return params;
  Params out;
  for (const auto& [key, value] : params) {
    if (key != "annotator") {
      out.emplace(key, value);
      continue;
    }
    if (!value.empty() && value != viewer.name)
      throw HttpError(
          403, "annotator: " + blind_refusal(viewer, "the labels of " + quoted_excerpt(value)));
  }
  out.emplace("annotator", viewer.name);
  return out;
}

nlohmann::json viewer_session_json(nlohmann::json session, const Viewer& viewer) {
  session["team"] = viewer.team;
  session["role"] = viewer.team ? nlohmann::json(labeling::team_role_name(viewer.role)) : nullptr;
  if (viewer.sees_everyone()) return session;
  auto readable = [&](const nlohmann::json& names) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& n : names) {
      const std::string& name = n.get_ref<const std::string&>();
      if (name == viewer.name || name == "classifier") out.push_back(name);
    }
    return out;
  };
  session["sources"] = readable(session["sources"]);
  session["annotators"] = readable(session["annotators"]);
  return session;
}

nlohmann::json team_json(Db& db, const Viewer& viewer) {
  if (!viewer.admin()) throw HttpError(403, "the team: " + viewer.name + " is not an admin");
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& m : labeling::list_members(db))
    rows.push_back({{"name", m.name},
                    {"role", labeling::team_role_name(m.role)},
                    {"created_at", m.created_at},
                    {"revoked_at", m.revoked_at ? nlohmann::json(*m.revoked_at) : nullptr}});
  return {{"team", viewer.team}, {"members", rows}};
}

}  // namespace convfail::web
