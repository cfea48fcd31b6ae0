// genplan._wlsearch's searches over a grounded STRIPS task with the linear WL heuristic
// (_wlsearch_wl.hpp): eager GBFS, eager GBFS ordered by novelty then h, lazy GBFS, and the hybrid
// eager GBFS that alternates the learned h with hFF (_wlsearch_ff.hpp). Each is one call
// per problem and follows its Python reference in genplan.planners.best_first step for step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "_wlsearch_wl.hpp"

namespace wlsearch {

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

// best_first.SearchLimits: expansions, seconds of wall time, MiB of the process's resident memory
// (checked every 1024 expansions; <= 0: none). Infinite limits come as huge numbers.
struct Limits {
  double max_expansions;
  double time_limit;
  double memory_limit_mb = 0.0;
};

// best_first.SearchResult's fields, the plan as action indices of the task.
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

// best_first.gbfs (novelty false) and best_first.novelty_gbfs (novelty true)
Outcome eager_gbfs(const Task &task, WLModel &model, const Limits &limits, bool novelty, bool timers);
// best_first.lazy_gbfs
Outcome lazy_gbfs(const Task &task, WLModel &model, const Limits &limits, bool timers);
// genplan.planners.hybrid.hybrid_gbfs: eager GBFS alternating an open list on the learned h with
// one on hFF (_wlsearch_hybrid.cpp)
Outcome hybrid_gbfs(const Task &task, WLModel &model, const Limits &limits, bool timers);
// the process's resident memory in MiB (/proc/self/statm; 0 where it cannot be read)
double resident_mib();

}  // namespace wlsearch
