// The failure taxonomy (symptom, cause + subtype, stage), read from data/taxonomy.json.
// Nothing else in convfail lists label ids: ask the Taxonomy.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace convfail {

struct TaxonomyLabel {
  std::string id;
  std::string title;
  std::vector<std::string> names;  // accepted spellings (spreadsheet names)
  std::string definition;  // the codebook: one to three sentences saying when the label applies
  std::string example;     // the codebook: a short made-up case of the label
  std::vector<TaxonomyLabel> subtypes;  // cause subtypes, empty elsewhere
  bool catch_all = false;  // "catch_all": true, e.g. cause `others`: never ranked as a top label
};

struct TaxonomyDimension {
  std::string id;  // symptom | cause | stage
  std::string title;
  std::optional<std::string> abstain_label;  // the label an abstaining classifier stores
  std::vector<TaxonomyLabel> labels;
};

class Taxonomy {
 public:
  // Reads DATA_DIR/taxonomy.json; throws UserError "file: reason" when it is malformed or a
  // label (or subtype) lacks its codebook "definition" or "example".
  static Taxonomy load(const std::string& data_dir);
  static Taxonomy from_json_text(const std::string& text, const std::string& origin);

  const std::vector<TaxonomyDimension>& dimensions() const { return dimensions_; }
  const TaxonomyDimension& dimension(const std::string& id) const;  // throws UserError
  bool has_dimension(const std::string& id) const;
  bool has_label(const std::string& dimension, const std::string& label) const;
  bool has_subtype(const std::string& cause, const std::string& subtype) const;
  // Label ids of a dimension in taxonomy order.
  std::vector<std::string> label_ids(const std::string& dimension) const;
  std::vector<std::string> subtype_ids(const std::string& cause) const;
  // Whether the label is its dimension's catch-all bin (taxonomy.json "catch_all").
  bool is_catch_all(const std::string& dimension, const std::string& label) const;

  // Maps an id or an accepted name (case-insensitive, surrounding space ignored) to the id;
  // nullopt when unknown. Empty input is nullopt.
  std::optional<std::string> normalize_label(const std::string& dimension,
                                             const std::string& value) const;
  std::optional<std::string> normalize_subtype(const std::string& cause,
                                               const std::string& value) const;

  // The label (or, for dimension "subtype", the subtype of any cause) with this id; nullptr
  // when unknown. Gives the codebook entry (definition, example) of a choice.
  const TaxonomyLabel* find_label(const std::string& dimension, const std::string& id) const;

  // Converter name for a repository ("pytorch/pytorch" -> "torch.onnx"); other repos keep
  // their own name.
  std::string converter_for_repo(const std::string& repo) const;
  // Of `repos` (OWNER/NAME; core's stored_repositories), in their order, those whose converter is
  // `converter` (without case): the ones taxonomy.json maps to it, and any it does not map whose
  // own name it is.
  std::vector<std::string> repositories_of(const std::string& converter,
                                           const std::vector<std::string>& repos) const;

 private:
  std::vector<TaxonomyDimension> dimensions_;
  std::map<std::string, std::string> converters_;  // lower-cased repo -> converter
};

}  // namespace convfail
