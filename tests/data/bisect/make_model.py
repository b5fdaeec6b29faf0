#!/usr/bin/env python3
"""Writes uint8_add_layernorm.onnx (committed beside this file): a uint8 Add feeding a Cast and a
LayerNormalization (opset 17). onnxruntime-node before 1.21.0 has no uint8 Add kernel
("Could not find an implementation for Add(14)": crash_reproduced); from 1.21.0 it runs
(not_reproduced). The bisect e2e test (tests/e2e/repro_bisect.sh) finds that change.
Usage: python3 make_model.py OUT.onnx"""
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

nodes = [
    h.make_node("Add", ["x", "y"], ["a"]),
    h.make_node("Cast", ["a"], ["c"], to=T.FLOAT),
    h.make_node("LayerNormalization", ["c", "scale", "bias"], ["out"], axis=-1, epsilon=1e-5),
]
graph = h.make_graph(
    nodes, "uint8_add_layernorm",
    [h.make_tensor_value_info("x", T.UINT8, [2, 8]), h.make_tensor_value_info("y", T.UINT8, [2, 8])],
    [h.make_tensor_value_info("out", T.FLOAT, [2, 8])],
    [nh.from_array(np.linspace(0.5, 1.5, 8).astype(np.float32), "scale"),
     nh.from_array(np.zeros(8, np.float32), "bias")])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], producer_name="convfail-tests")
model.ir_version = 8
onnx.checker.check_model(model, full_check=True)
onnx.save(model, sys.argv[1])
