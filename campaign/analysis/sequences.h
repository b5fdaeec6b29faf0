// Operator sequences of models: the study's path method made deterministic, n-grams along
// edges, and whether a sequence occurs in a graph.
//
// The study (Jajal et al. 2024) compared every pair of input->output paths with Python's
// SequenceMatcher and reduced its set in Python's set order, so its counts change between runs.
// Here every set is defined by a property, not by an order of work:
//   - paths: every simple path from a node without predecessors to one without successors, as
//     operator types, found depth first in node order, at most `max_paths` per model;
//   - frequent blocks: contiguous runs of >= min_block operators on the paths of at least
//     `min_support` mismatched models (what pairwise matching finds, without its greedy choice);
//   - common blocks: the maximal frequent blocks (no frequent block extends them);
//   - only in mismatched: common blocks on no path of a correct model;
//   - reduced: the frequent blocks on no correct path whose every shorter frequent sub-block is on
//     a correct path (the minimal ones: each holds no other member of the set);
//   - the mismatched models that hold a reduced block (equivalently: any block of the set).
// The same models in any order give the same sets (with capped paths, the chosen paths follow
// each model's node order).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "campaign/analysis/op_graph.h"

namespace convfail::campaign {

// "Conv > Relu > Add": how a sequence is printed and keyed everywhere.
std::string sequence_text(const std::vector<std::string>& ops);

// Every simple source->sink path as node indices, depth first with successors in index order,
// at most `max_paths` (then `*capped` is set). A node with no edges is a path of its own.
std::vector<std::vector<int>> simple_paths(const OpGraph& g, std::size_t max_paths,
                                           bool* capped = nullptr);

// True when `ops` (>= 1 operator) occurs as a walk along the graph's edges.
bool contains_walk(const OpGraph& g, const std::vector<std::string>& ops);

// Distinct sequence_text of every walk of min_n..max_n nodes along edges; stops after visiting
// `max_walks` walks (then `*capped` is set).
std::set<std::string> edge_ngrams(const OpGraph& g, int min_n, int max_n, std::size_t max_walks,
                                  bool* capped = nullptr);

struct SequenceOptions {
  std::size_t max_paths = 1000;  // per model
  std::size_t min_block = 3;
  std::size_t max_block = 128;
  long min_support = 2;  // mismatched models a block must be on
};

struct SequenceFinding {
  std::vector<std::string> ops;
  long mismatched_models = 0;  // mismatched models with the block on a path
};

struct SequenceStudy {
  long mismatched_models = 0, correct_models = 0;
  long capped_models = 0;                        // models whose paths hit max_paths
  long paths = 0;                                // distinct paths over all models
  std::vector<SequenceFinding> common_blocks;    // sorted by sequence_text
  std::vector<SequenceFinding> only_mismatched;  // sorted by sequence_text
  std::vector<SequenceFinding> reduced;          // sorted by sequence_text
  long mismatched_holding = 0;                   // mismatched models that hold a reduced block
};

SequenceStudy sequence_study(const std::vector<const OpGraph*>& mismatched,
                             const std::vector<const OpGraph*>& correct,
                             const SequenceOptions& options = {});

}  // namespace convfail::campaign
