// The types genplan._wlsearch's parts share: the grounded STRIPS task the searches expand, their limits
// and outcome, and the containers of the WL heuristic (wl.hpp), hFF (ff.hpp) and the searches
// (search.hpp, search_parts.hpp) build on. The bindings (bindings.cpp) convert these to and from Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace wlsearch {

struct VecHash {
  size_t operator()(const std::vector<int> &v) const noexcept {
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ v.size();
    for (int x : v) {
      h ^= static_cast<uint32_t>(x) + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    }
    return static_cast<size_t>(h);
  }
};
using ColourMap = std::unordered_map<std::vector<int>, int, VecHash>;
using IntLists = std::vector<std::vector<int>>;
using Atoms = std::vector<std::pair<int, std::vector<int>>>;  // (predicate index, object nodes) each

// A grounded STRIPS task over fluent atoms 0..n-1; actions in the order their successors are generated.
struct Task {
  int n_fluents;
  IntLists pre, neg, add, del;
  std::vector<int> init, goal_pos, goal_neg;
  IntLists by_atom;         // atom -> actions that this atom triggers (its rarest precondition)
  std::vector<int> always;  // actions without a positive precondition

  Task(int n, IntLists pre_, IntLists neg_, IntLists add_, IntLists del_, std::vector<int> init_,
       std::vector<int> goal_pos_, std::vector<int> goal_neg_);
};

// search_parts.SearchLimits: expansions, seconds of wall time, MiB of the process's resident memory
// (checked every 1024 expansions; <= 0: none). Infinite limits come as huge numbers.
struct Limits {
  double max_expansions;
  double time_limit;
  double memory_limit_mb = 0.0;
};

// search_parts.SearchResult's fields, the plan as action indices of the task.
struct Outcome {
  std::vector<int> plan;
  std::string reason = "dead_end";  // goal | node_limit | time_limit | memory_limit | dead_end
  int64_t expanded = 0, generated = 0, evaluated = 0, calls = 0;  // calls: heuristic batches
  int64_t novel = 0;                                              // novelty_gbfs: novel generated states
  double h_init = 0.0;                                            // meaningful when evaluated > 0
  double ff_init = 0.0;                                           // hybrid_gbfs: hFF of the initial state
  double time = 0.0;                                              // seconds of wall time
  // CPU seconds per part (when asked for): successors, goal_and_duplicates, heuristic, queue, novelty,
  // classical (hybrid_gbfs's hFF)
  double parts[6] = {0, 0, 0, 0, 0, 0};
};
inline const char *const PARTS[6] = {"successors", "goal_and_duplicates", "heuristic", "queue", "novelty",
                                     "classical"};

// the process's resident memory in MiB (/proc/self/statm; 0 where it cannot be read)
double resident_mib();


}  // namespace wlsearch
