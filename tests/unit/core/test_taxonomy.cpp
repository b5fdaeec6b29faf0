#include <doctest/doctest.h>

#include "core/error.h"
#include "core/taxonomy.h"
#include "test_helpers.h"

using namespace convfail;

TEST_CASE("taxonomy: the shipped file lists the documented dimensions and names") {
  Taxonomy t = Taxonomy::load(test::data_dir());
  CHECK(t.label_ids("symptom").size() == 6);
  CHECK(t.label_ids("cause").size() == 14);
  CHECK(t.label_ids("stage").size() == 6);
  CHECK(t.normalize_label("symptom", "Wrong Code") == "wrong_model");
  CHECK(t.normalize_label("cause", " incompatability ") == "incompatibility");
  CHECK(t.normalize_label("cause", "Tensor Shape Problem") == "shape_problem");
  CHECK(t.normalize_label("stage", "Not Dis.") == "not_distinguishable");
  CHECK(t.normalize_label("stage", "Tracer") == "load_model");
  CHECK_FALSE(t.normalize_label("stage", "nonsense"));
  CHECK(t.normalize_subtype("type_problem", "Node") == "node");
  CHECK_FALSE(t.normalize_subtype("type_problem", "external"));
  CHECK(t.has_subtype("incompatibility", "resource"));
  CHECK(t.converter_for_repo("PyTorch/pytorch") == "torch.onnx");
  CHECK(t.converter_for_repo("onnx/tensorflow-onnx") == "tf2onnx");
  CHECK(t.converter_for_repo("someone/else") == "someone/else");
  CHECK_THROWS_AS(t.dimension("colour"), UserError);
}

TEST_CASE("taxonomy: the repositories of a converter, in the given order") {
  Taxonomy t = Taxonomy::load(test::data_dir());
  std::vector<std::string> repos = {"onnx/tensorflow-onnx", "PyTorch/PyTorch", "someone/else",
                                    "pytorch/pytorch"};
  CHECK(t.repositories_of("torch.onnx", repos) ==
        std::vector<std::string>{"PyTorch/PyTorch", "pytorch/pytorch"});
  CHECK(t.repositories_of("TF2ONNX", repos) == std::vector<std::string>{"onnx/tensorflow-onnx"});
  // A repository the taxonomy does not map is its own converter.
  CHECK(t.repositories_of("someone/else", repos) == std::vector<std::string>{"someone/else"});
  CHECK(t.repositories_of("paddle2onnx", repos).empty());
}

TEST_CASE("taxonomy: a malformed file is refused with its name") {
  CHECK_THROWS_WITH_AS(Taxonomy::from_json_text("{\"dimensions\": [{}]}", "t.json"),
                       doctest::Contains("t.json"), UserError);
}

TEST_CASE("taxonomy: the codebook gives every label and subtype a definition and an example") {
  Taxonomy t = Taxonomy::load(test::data_dir());
  std::size_t entries = 0;
  auto check = [&](const TaxonomyLabel& l) {
    CAPTURE(l.id);
    CHECK(l.definition.size() >= 30);
    CHECK(l.example.size() >= 20);
    CHECK(l.definition != l.example);
    // One to three sentences.
    std::size_t sentences = 0;
    for (std::size_t i = 0; i + 1 < l.definition.size(); ++i)
      if (l.definition[i] == '.' && l.definition[i + 1] == ' ') ++sentences;
    CHECK(sentences + 1 <= 3);
    ++entries;
  };
  for (const TaxonomyDimension& d : t.dimensions())
    for (const TaxonomyLabel& l : d.labels) {
      check(l);
      for (const TaxonomyLabel& s : l.subtypes) check(s);
    }
  CHECK(entries == 6 + 14 + 6 + 6);
  REQUIRE(t.find_label("cause", "shape_problem") != nullptr);
  CHECK(t.find_label("cause", "shape_problem")->definition.find("broadcasting") !=
        std::string::npos);
  REQUIRE(t.find_label("subtype", "tensor") != nullptr);
  CHECK(t.find_label("subtype", "tensor")->title == "Tensor");
  CHECK(t.find_label("stage", "nonsense") == nullptr);
}

TEST_CASE("taxonomy: a label without its codebook entry is refused, naming the label") {
  const std::string ok =
      R"({"dimensions": [{"id": "symptom", "labels": [{"id": "crash", "definition": "d", "example": "e"}]}]})";
  CHECK(Taxonomy::from_json_text(ok, "t.json").find_label("symptom", "crash")->example == "e");
  CHECK_THROWS_WITH_AS(
      Taxonomy::from_json_text(
          R"({"dimensions": [{"id": "symptom", "labels": [{"id": "crash", "definition": "d"}]}]})",
          "t.json"),
      doctest::Contains("t.json: label \"crash\" needs a non-empty \"example\""), UserError);
  CHECK_THROWS_WITH_AS(
      Taxonomy::from_json_text(
          R"({"dimensions": [{"id": "cause", "labels": [{"id": "x", "definition": "d", "example": "e", "subtypes": [{"id": "s", "example": "e"}]}]}]})",
          "t.json"),
      doctest::Contains("label \"s\" needs a non-empty \"definition\""), UserError);
}
