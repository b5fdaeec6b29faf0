// A model file together with the external data files it names. ONNX keeps a tensor's bytes
// outside the model file when its `external_data` names a `location` relative to the model's
// folder: a model over 2 GiB (protobuf's cap) must, and torch.onnx.export then writes one file per
// weight beside model.onnx. A model's files are the model file and those, and whatever copies or
// identifies a model copies or identifies them all. Every location is checked the one way
// (reproduce's external_data_locations: relative, inside the folder with links resolved; the
// known `location` traversal of hostile models) before a data file is read or copied.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace convfail::repro {

// The one cap on what convfail hashes or copies of one model: the model file and its external
// data files together, by their sizes, checked before a byte is read (a terabyte sparse data
// file is refused at once, not read as zeros for minutes). The largest exports measured (HuBERT
// xlarge, 3.6 GB in 590 files) fit twice.
constexpr std::uint64_t kMaxModelBytes = 8ull << 30;

// The external data files `model_path` names (relative to its folder, normalised), each once,
// sorted; empty for a self-contained model. UserError when the file does not parse as a model or
// a location lies outside its folder.
std::vector<std::string> external_data_files(const std::string& model_path);

// What identifies the model's content: the sha256 of the file when it names no external data
// file that exists (or does not parse, or names one outside its folder: nothing outside is ever
// read); else the sha256 of "model SHA\n" followed by "LOCATION SHA\n" for each existing data
// file in order, so that two exports of one architecture with other weights (the same small
// model.onnx) are told apart. UserError, naming the file, when the files together are over
// kMaxModelBytes or reading them takes longer than `seconds` (> 0; 0: no bound; bisect's
// --timeout); nothing else the file holds makes it throw.
std::string model_sha256(const std::string& model_path, double seconds = 0);

// Copies the model file to `dest_dir`/`name` and its external data files to the same relative
// places beside it (folders created); returns the names copied, the model's first. UserError when
// a data file is missing, the files together are over kMaxModelBytes, or a copy fails. A sparse
// file stays sparse (exec/child_files copies holes as holes).
std::vector<std::string> copy_model_files(const std::string& model_path,
                                          const std::string& dest_dir,
                                          const std::string& name = "model.onnx");

}  // namespace convfail::repro
