#include "classifier/rules.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/json_util.h"

namespace convfail::classifier {

namespace {

[[noreturn]] void refuse(const std::string& file, const std::string& id, const std::string& why) {
  throw UserError(file + ":" + (id.empty() ? "?" : id) + ": " + why);
}

std::vector<std::string> string_list(const Json& rule, const char* key, const std::string& file,
                                     const std::string& id) {
  std::vector<std::string> out;
  auto it = rule.find(key);
  if (it == rule.end()) return out;
  if (it->is_string()) {
    out.push_back(it->get<std::string>());
  } else if (it->is_array()) {
    for (const Json& v : *it) {
      if (!v.is_string()) refuse(file, id, std::string("\"") + key + "\" must hold strings");
      out.push_back(v.get<std::string>());
    }
  } else {
    refuse(file, id, std::string("\"") + key + "\" must be a string or a list of strings");
  }
  return out;
}

void fnv1a(std::uint64_t& h, const std::string& s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  h ^= 0xff;  // separator
  h *= 1099511628211ULL;
}

void parse_settings(const Json& j, const std::string& file, const Taxonomy& taxonomy,
                    EngineSettings& s) {
  if (!j.is_object()) refuse(file, "settings", "must be an object");
  for (auto& [key, value] : j.items()) {
    if (key == "smoothing") {
      if (!value.is_number() || value.get<double>() < 0) refuse(file, "settings", "bad smoothing");
      s.smoothing = value.get<double>();
      continue;
    }
    if (!taxonomy.has_dimension(key)) refuse(file, "settings", "unknown dimension \"" + key + "\"");
    if (!value.is_object()) refuse(file, "settings", "\"" + key + "\" must be an object");
    DimensionSettings& d = s.dimensions[key];
    for (auto& [k, v] : value.items()) {
      if (!v.is_number()) refuse(file, "settings", key + "." + k + " must be a number");
      if (k == "min_confidence")
        d.min_confidence = v.get<double>();
      else if (k == "margin")
        d.margin = v.get<double>();
      else
        refuse(file, "settings", "unknown setting " + key + "." + k);
    }
  }
}

}  // namespace

std::string compiled_pattern(const Rule& rule, const std::string& pattern) {
  return rule.case_sensitive ? pattern : "(?i)" + pattern;
}

void parse_rules_text(const std::string& text, const std::string& file, const Taxonomy& taxonomy,
                      RuleSet& out) {
  Json doc;
  try {
    doc = Json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    auto p = what.find("parse error");
    refuse(file, "", "not valid JSON: " + (p == std::string::npos ? what : what.substr(p)));
  }
  const Json* rules = &doc;
  if (doc.is_object()) {
    if (doc.contains("settings")) parse_settings(doc["settings"], file, taxonomy, out.settings);
    auto it = doc.find("rules");
    if (it == doc.end()) {
      if (doc.contains("settings")) return;
      refuse(file, "", "expected {\"rules\": [...]} or a list of rules");
    }
    rules = &*it;
  }
  if (!rules->is_array()) refuse(file, "", "\"rules\" must be a list");

  std::set<std::string> ids;
  for (const Rule& r : out.rules) ids.insert(r.id);
  int position = 0;
  for (const Json& j : *rules) {
    ++position;
    std::string id = j.is_object() ? opt_string(j, "id").value_or("") : "";
    if (!j.is_object()) refuse(file, "#" + std::to_string(position), "a rule must be an object");
    if (id.empty()) refuse(file, "#" + std::to_string(position), "missing \"id\"");
    static const std::set<std::string> known = {
        "id",     "dimension", "label",  "subtype",        "pattern",    "patterns", "unless",
        "fields", "field",     "weight", "case_sensitive", "converters", "note"};
    for (auto& [key, v] : j.items()) {
      (void)v;
      if (!known.count(key)) refuse(file, id, "unknown key \"" + key + "\"");
    }
    if (!ids.insert(id).second) refuse(file, id, "duplicate rule id");
    Rule r;
    r.id = id;
    r.file = file;
    r.dimension = opt_string(j, "dimension").value_or("");
    if (!taxonomy.has_dimension(r.dimension))
      refuse(file, id, "unknown dimension \"" + r.dimension + "\"");
    r.label = opt_string(j, "label").value_or("");
    if (!taxonomy.has_label(r.dimension, r.label))
      refuse(file, id, "unknown " + r.dimension + " label \"" + r.label + "\"");
    r.subtype = opt_string(j, "subtype").value_or("");
    if (!r.subtype.empty() && (r.dimension != "cause" || !taxonomy.has_subtype(r.label, r.subtype)))
      refuse(file, id, "unknown subtype \"" + r.subtype + "\" for " + r.label);
    auto patterns = string_list(j, "patterns", file, id);
    for (auto& p : string_list(j, "pattern", file, id)) patterns.push_back(p);
    if (patterns.empty()) refuse(file, id, "no \"patterns\"");
    r.patterns = patterns;
    r.unless = string_list(j, "unless", file, id);
    auto fields = string_list(j, "fields", file, id);
    for (auto& f : string_list(j, "field", file, id)) fields.push_back(f);
    if (fields.empty()) refuse(file, id, "no \"fields\"");
    for (const auto& f : fields) {
      FieldKind kind;
      if (!parse_field_name(f, &kind)) {
        std::string names;
        for (const auto& n : field_names()) names += (names.empty() ? "" : ", ") + n;
        refuse(file, id, "unknown field \"" + f + "\" (fields: " + names + ")");
      }
      r.fields.push_back(kind);
    }
    r.converters = string_list(j, "converters", file, id);
    if (j.contains("weight")) {
      if (!j["weight"].is_number()) refuse(file, id, "\"weight\" must be a number");
      r.weight = j["weight"].get<double>();
    }
    if (j.contains("case_sensitive")) {
      if (!j["case_sensitive"].is_boolean())
        refuse(file, id, "\"case_sensitive\" must be true/false");
      r.case_sensitive = j["case_sensitive"].get<bool>();
    }
    for (const auto* list : {&r.patterns, &r.unless}) {
      for (const auto& p : *list) {
        RE2 re(compiled_pattern(r, p), RE2::Quiet);
        if (!re.ok()) refuse(file, id, "bad pattern \"" + p + "\": " + re.error());
      }
    }
    out.rules.push_back(std::move(r));
  }
}

RuleSet load_rules(const std::string& dir, const Taxonomy& taxonomy) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UserError(dir + ": not a rules directory");
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw UserError(dir + ": no rule files (*.json)");
  RuleSet set;
  set.dir = dir;
  std::uint64_t h = 1469598103934665603ULL;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw UserError(path.string() + ": cannot read");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    fnv1a(h, path.filename().string());
    fnv1a(h, text);
    parse_rules_text(text, path.filename().string(), taxonomy, set);
  }
  if (set.rules.empty()) throw UserError(dir + ": no rules");
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  set.hash = buf;
  return set;
}

std::string fnv1a_hex(const std::vector<std::string>& parts) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const std::string& p : parts) fnv1a(h, p);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace convfail::classifier
