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

TEST_CASE("taxonomy: a malformed file is refused with its name") {
  CHECK_THROWS_WITH_AS(Taxonomy::from_json_text("{\"dimensions\": [{}]}", "t.json"),
                       doctest::Contains("t.json"), UserError);
}
