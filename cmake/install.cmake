# convfail finds its data folder, ONNX Runtime runner and PyTorch harness under share/convfail/
# beside its executable (core/resources.cpp):
#   installed:  PREFIX/bin/convfail   -> PREFIX/share/convfail/{data,runner,python_helpers,torch_harness}
#   build tree: build/convfail        -> build/share/convfail/{data,runner,python_helpers,torch_harness}
# In the build tree these are symbolic links to the source folders, so rules stay live-editable.

set(CONVFAIL_BUILD_SHARE ${CMAKE_BINARY_DIR}/share/convfail)
file(MAKE_DIRECTORY ${CONVFAIL_BUILD_SHARE})
foreach(link data:data runner:exec/runner python_helpers:exec/python
             torch_harness:repro/torch_harness campaign_harness:campaign/harness)
  string(REPLACE ":" ";" parts ${link})
  list(GET parts 0 name)
  list(GET parts 1 target)
  file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${target} ${CONVFAIL_BUILD_SHARE}/${name} SYMBOLIC)
endforeach()

# cmake --install build --prefix P. fake-github is test-only and not installed.
set(CONVFAIL_SHARE ${CMAKE_INSTALL_DATADIR}/convfail)
install(TARGETS convfail RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES data/taxonomy.json data/opset_releases.json DESTINATION ${CONVFAIL_SHARE}/data)
# sample/ is small and the README demo imports it.
install(DIRECTORY data/rules data/sample DESTINATION ${CONVFAIL_SHARE}/data)
install(FILES exec/runner/runner.js exec/runner/package.json exec/runner/package-lock.json
        DESTINATION ${CONVFAIL_SHARE}/runner)
# node_modules/ (onnxruntime-node, from scripts/install-deps.sh) when present at install time;
# without it reproduce says onnxruntime-node is not installed.
install(DIRECTORY exec/runner/node_modules DESTINATION ${CONVFAIL_SHARE}/runner
        USE_SOURCE_PERMISSIONS OPTIONAL)
install(FILES repro/torch_harness/harness.py DESTINATION ${CONVFAIL_SHARE}/torch_harness)
install(FILES exec/python/child_tensors.py DESTINATION ${CONVFAIL_SHARE}/python_helpers)
install(FILES campaign/harness/campaign_worker.py campaign/harness/synth.py
              campaign/harness/audio_zoo.py campaign/harness/text_zoo.py
        DESTINATION ${CONVFAIL_SHARE}/campaign_harness)
