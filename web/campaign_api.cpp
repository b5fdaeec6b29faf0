#include "web/campaign_api.h"

#include <cerrno>
#include <cstdlib>

#include "campaign/analysis/campaign_compare.h"
#include "campaign/outcomes.h"
#include "campaign/report/campaign_compare_report.h"
#include "campaign/report/campaign_report.h"
#include "campaign/report/support_report.h"
#include "campaign/store/campaign_store.h"
#include "core/error.h"
#include "core/text.h"
#include "reports/render.h"

namespace convfail::web {

using nlohmann::json;

json campaigns_json(Db& db) {
  json out = json::array();
  std::vector<campaign::StoredCampaign> all = campaign::load_campaigns(db);
  for (auto c = all.rbegin(); c != all.rend(); ++c)  // newest first
    out.push_back(campaign::campaign_status(db, c->id).to_json());
  // The outcome classes in the order tables show them, so the page never keeps its own list.
  return {{"campaigns", out}, {"outcomes", campaign::outcome_classes()}};
}

namespace {

// A stored campaign's id: 400 when malformed, 404 when unknown.
long long stored_campaign_id(Db& db, const std::string& id) {
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(id.c_str(), &end, 10);
  if (id.empty() || id.size() > 18 || errno || *end || n < 1)
    throw HttpError(400, "campaign: expected a campaign id, got " + quoted_excerpt(id));
  bool known = false;
  for (const campaign::StoredCampaign& c : campaign::load_campaigns(db)) known |= c.id == n;
  if (!known) throw HttpError(404, "no campaign " + std::to_string(n));
  return n;
}

std::string format_param(const Params& params, reports::ReportFormat* rf) {
  auto f = params.find("format");
  std::string format = f == params.end() || f->second.empty() ? "html" : f->second;
  try {
    *rf = reports::parse_report_format(format);
  } catch (const UsageError& e) {
    throw HttpError(400, e.what());
  }
  return format;
}

}  // namespace

ReportText campaign_compare_text(Db& db, const std::string& a, const std::string& b,
                                 const Params& params) {
  long long ia = stored_campaign_id(db, a), ib = stored_campaign_id(db, b);
  reports::ReportFormat rf;
  std::string format = format_param(params, &rf);
  std::string text;
  try {
    campaign::Comparison c = campaign::compare_campaigns(
        campaign::load_compare_side(db, ia, "A", ""), campaign::load_compare_side(db, ib, "B", ""));
    text = campaign::comparison_report(c, rf);
  } catch (const UserError& e) {
    throw HttpError(500, e.what());  // a malformed stored row
  }
  ReportText r = typed_report(std::move(text), format);
  r.name = "convfail-campaign-" + std::to_string(ia) + "-vs-" + std::to_string(ib);
  return r;
}

ReportText campaign_report_text(Db& db, const std::string& id, const Params& params) {
  long long n = stored_campaign_id(db, id);
  reports::ReportFormat rf;
  std::string format = format_param(params, &rf);
  std::string text;
  try {
    text = campaign::campaign_report(db, n, rf);
  } catch (const UserError& e) {
    throw HttpError(500, e.what());  // a malformed stored row
  }
  ReportText r = typed_report(std::move(text), format);
  r.name = "convfail-campaign-" + std::to_string(n);  // one file per campaign, not one name
  return r;
}

ReportText support_text(Db& db, const Params& params) {
  Params with_default;  // format json unless one is asked for
  for (const auto& kv : params)
    if (kv.first != "format" || !kv.second.empty()) with_default.insert(kv);
  if (with_default.find("format") == with_default.end()) with_default.emplace("format", "json");
  reports::ReportFormat rf;
  std::string format = format_param(with_default, &rf);
  std::string text;
  try {
    text = campaign::render_support(campaign::load_matrix_views(db, {}), {}, rf);
  } catch (const UserError& e) {
    throw HttpError(500, e.what());
  }
  return typed_report(std::move(text), format);
}

}  // namespace convfail::web
