#include "core/taxonomy.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/text.h"

namespace convfail {
namespace {

std::string fold(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\r\n");
  std::size_t e = s.find_last_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  std::string out = s.substr(b, e - b + 1);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

TaxonomyLabel parse_label(const nlohmann::json& j, const std::string& origin) {
  TaxonomyLabel l;
  if (!j.is_object() || !j.contains("id") || !j["id"].is_string())
    throw UserError(origin + ": every label needs a string \"id\"");
  l.id = j["id"].get<std::string>();
  l.title = j.value("title", l.id);
  for (auto [key, field] : {std::pair<const char*, std::string*>{"definition", &l.definition},
                            std::pair<const char*, std::string*>{"example", &l.example}}) {
    if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty())
      throw UserError(origin + ": label \"" + l.id + "\" needs a non-empty \"" + key +
                      "\" (the codebook)");
    *field = j[key].get<std::string>();
  }
  if (j.contains("names")) l.names = j["names"].get<std::vector<std::string>>();
  l.catch_all = j.value("catch_all", false);
  if (j.contains("subtypes"))
    for (const auto& s : j["subtypes"]) l.subtypes.push_back(parse_label(s, origin));
  return l;
}

std::optional<std::string> match(const std::vector<TaxonomyLabel>& labels,
                                 const std::string& value) {
  std::string v = fold(value);
  if (v.empty()) return std::nullopt;
  for (const TaxonomyLabel& l : labels) {
    if (fold(l.id) == v) return l.id;
    for (const std::string& n : l.names)
      if (fold(n) == v) return l.id;
  }
  return std::nullopt;
}

}  // namespace

Taxonomy Taxonomy::load(const std::string& data_dir) {
  std::string path = data_dir + "/taxonomy.json";
  std::ifstream in(path);
  if (!in)
    throw UserError(path + ": cannot open the taxonomy (set --data-dir or CONVFAIL_DATA_DIR)");
  std::stringstream ss;
  ss << in.rdbuf();
  return from_json_text(ss.str(), path);
}

Taxonomy Taxonomy::from_json_text(const std::string& text, const std::string& origin) {
  Taxonomy t;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, nullptr, true, /*ignore_comments=*/true);
    for (const auto& d : j.at("dimensions")) {
      TaxonomyDimension dim;
      dim.id = d.at("id").get<std::string>();
      dim.title = d.value("title", dim.id);
      if (d.contains("abstain_label")) dim.abstain_label = d["abstain_label"].get<std::string>();
      for (const auto& l : d.at("labels")) dim.labels.push_back(parse_label(l, origin));
      t.dimensions_.push_back(std::move(dim));
    }
    if (j.contains("converters"))
      for (auto& [repo, conv] : j["converters"].items()) t.converters_[fold(repo)] = conv;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(origin + ": " + e.what());
  }
  return t;
}

bool Taxonomy::has_dimension(const std::string& id) const {
  return std::any_of(dimensions_.begin(), dimensions_.end(),
                     [&](const TaxonomyDimension& d) { return d.id == id; });
}

const TaxonomyDimension& Taxonomy::dimension(const std::string& id) const {
  for (const auto& d : dimensions_)
    if (d.id == id) return d;
  throw UserError("unknown dimension \"" + id + "\" (symptom, cause or stage)");
}

bool Taxonomy::has_label(const std::string& dimension, const std::string& label) const {
  if (!has_dimension(dimension)) return false;
  for (const auto& l : this->dimension(dimension).labels)
    if (l.id == label) return true;
  return false;
}

bool Taxonomy::has_subtype(const std::string& cause, const std::string& subtype) const {
  auto ids = subtype_ids(cause);
  return std::find(ids.begin(), ids.end(), subtype) != ids.end();
}

std::vector<std::string> Taxonomy::label_ids(const std::string& dimension) const {
  std::vector<std::string> out;
  for (const auto& l : this->dimension(dimension).labels) out.push_back(l.id);
  return out;
}

bool Taxonomy::is_catch_all(const std::string& dimension, const std::string& label) const {
  if (!has_dimension(dimension)) return false;
  for (const TaxonomyLabel& l : this->dimension(dimension).labels)
    if (l.id == label) return l.catch_all;
  return false;
}

std::vector<std::string> Taxonomy::subtype_ids(const std::string& cause) const {
  std::vector<std::string> out;
  if (!has_dimension("cause")) return out;
  for (const auto& l : dimension("cause").labels)
    if (l.id == cause)
      for (const auto& s : l.subtypes) out.push_back(s.id);
  return out;
}

std::optional<std::string> Taxonomy::normalize_label(const std::string& dimension,
                                                     const std::string& value) const {
  return match(this->dimension(dimension).labels, value);
}

std::optional<std::string> Taxonomy::normalize_subtype(const std::string& cause,
                                                       const std::string& value) const {
  for (const auto& l : dimension("cause").labels)
    if (l.id == cause) return match(l.subtypes, value);
  return std::nullopt;
}

const TaxonomyLabel* Taxonomy::find_label(const std::string& dimension,
                                          const std::string& id) const {
  if (dimension == "subtype") {
    if (!has_dimension("cause")) return nullptr;
    for (const TaxonomyLabel& l : this->dimension("cause").labels)
      for (const TaxonomyLabel& s : l.subtypes)
        if (s.id == id) return &s;
    return nullptr;
  }
  if (!has_dimension(dimension)) return nullptr;
  for (const TaxonomyLabel& l : this->dimension(dimension).labels)
    if (l.id == id) return &l;
  return nullptr;
}

std::string Taxonomy::converter_for_repo(const std::string& repo) const {
  auto it = converters_.find(fold(repo));
  return it == converters_.end() ? repo : it->second;
}

std::vector<std::string> Taxonomy::repositories_of(const std::string& converter,
                                                   const std::vector<std::string>& repos) const {
  std::vector<std::string> out;
  for (const std::string& repo : repos)
    if (iequals(converter_for_repo(repo), converter)) out.push_back(repo);
  return out;
}

}  // namespace convfail
