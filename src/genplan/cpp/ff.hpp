// genplan._wlsearch's classical heuristic: hFF (Hoffmann and Nebel, "The FF Planning System: Fast
// Plan Generation Through Heuristic Search", JAIR 14, 2001) with unit action costs, as Fast
// Downward's ff() computes it (src/search/heuristics/ff_heuristic.cc, relaxation_heuristic.cc,
// https://github.com/aibasel/downward), written here from that description: h_add best supporters,
// a relaxed plan extracted backwards from the goal, its distinct actions counted. The Python
// reference is genplan.planners.relaxed.FF (its docstring gives the rules step by step, among them
// the one tie-break for best supporters); tests/test_hybrid_search.py holds the two to the same numbers.
#pragma once

#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "core.hpp"

namespace wlsearch {

class FF {
 public:
  explicit FF(const Task &task);

  // hFF of a state given by its fluent atom ids [first, last); infinity for a relaxed dead end
  double h(const int *first, const int *last);
  double h(const std::vector<int> &state) { return h(state.data(), state.data() + state.size()); }

 private:
  void fire(int action);
  int supporter(int atom) const;

  IntLists pre_, add_;           // per action: positive preconditions, add effects (sorted, unique)
  IntLists pre_of_, achievers_;  // per atom: actions it is a precondition of; actions adding it (index order)
  std::vector<int> free_;        // actions without a precondition
  std::vector<int> goal_;        // positive goal atoms (sorted, unique)
  std::vector<char> is_goal_;
  // per call, reset through the touched lists
  static constexpr int64_t UNREACHED = -1;
  std::vector<int64_t> cost_, action_cost_, pre_sum_;  // h_add of atoms, of fired actions; sums so far
  std::vector<int> unsatisfied_;                       // per action: preconditions not settled yet
  std::vector<char> settled_, marked_, in_plan_;
  std::vector<int> touched_atoms_, touched_actions_, stack_;
  std::priority_queue<std::pair<int64_t, int>, std::vector<std::pair<int64_t, int>>,
                      std::greater<std::pair<int64_t, int>>> heap_;
};

}  // namespace wlsearch
