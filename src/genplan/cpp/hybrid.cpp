// genplan._wlsearch.hybrid_gbfs: eager GBFS with two open lists, one on the learned
// WL h and one on hFF (ff.hpp), alternated as Fast Downward's eager_greedy([learned, ff()])
// alternates them (AlternationOpenList with boost 0, no preferred operators: src/search/open_lists/
// alternation_open_list.cc and src/search/search_algorithms/eager_search.cc,
// https://github.com/aibasel/downward; our own code). It follows its Python reference,
// genplan.planners.hybrid.hybrid_gbfs, step for step (that module's docstring gives the rules):
// - every new successor gets h (one batch) and hFF and enters both lists, (h, order) and (hFF,
//   order), ties first in, first out; a state of infinite hFF is pruned (enters neither list);
// - a pop takes from the non-empty list popped the fewest times so far, ties to the learned list;
//   a popped state expanded already is skipped, not counted;
// - the rest as eager_gbfs: successors in action index order, duplicates and the goal test at
//   generation, the limits before each expansion, the time also every 16 evaluations.
#include <cmath>
#include <limits>

#include "search_parts.hpp"
#include "ff.hpp"
#include "search.hpp"

namespace wlsearch {

using namespace detail;

Outcome hybrid_gbfs(const Task &task, WLModel &model, const Limits &limits, bool timers) {
  Search search(task, model, limits, timers);
  Outcome &out = search.out;
  if (search.expander.is_goal(task.init)) {
    out.reason = "goal";
    return search.finish();
  }
  FF ff(task);
  const double inf = std::numeric_limits<double>::infinity();
  out.h_init = search.evaluate(0);
  out.evaluated = out.calls = 1;
  search.laps.lap(HEURISTIC);
  out.ff_init = ff.h(search.graph.begin(0), search.graph.end(0));
  search.laps.lap(CLASSICAL);
  OpenList lists[2];  // the learned h's, hFF's
  if (out.ff_init < inf) {
    lists[0].push({0, out.h_init, 0, 0});
    lists[1].push({0, out.ff_init, 0, 0});
  }
  int64_t pops[2] = {0, 0};
  std::vector<char> expanded(1, 0);  // node -> expanded already
  int64_t counter = 1;
  std::vector<int> fresh;
  std::vector<double> values, classical;
  while (!lists[0].empty() || !lists[1].empty()) {
    if (search.stopped()) break;
    int node = -1;
    while (!lists[0].empty() || !lists[1].empty()) {
      const int k = !lists[0].empty() && (lists[1].empty() || pops[0] <= pops[1]) ? 0 : 1;
      pops[k]++;
      const int n = lists[k].top().node;
      lists[k].pop();
      if (!expanded[n]) { node = n; break; }
    }
    search.laps.lap(QUEUE);
    if (node < 0) break;  // both lists held only expanded states: no plan exists
    expanded[node] = 1;
    out.expanded++;
    if (search.generate(node, fresh)) break;
    expanded.resize(search.graph.parent.size(), 0);
    if (!search.evaluate_batch(fresh, values)) break;
    const bool in_time = search.score_batch(
        fresh, classical, [&](int c) { return ff.h(search.graph.begin(c), search.graph.end(c)); });
    search.laps.lap(CLASSICAL);
    if (!in_time) break;
    for (size_t k = 0; k < fresh.size(); k++) {
      if (classical[k] == inf) continue;  // a relaxed dead end: pruned
      lists[0].push({0, values[k], counter, fresh[k]});
      lists[1].push({0, classical[k], counter, fresh[k]});
      counter++;
    }
    search.laps.lap(QUEUE);
  }
  return search.finish();  // a goal, a limit, or both lists exhausted: no plan exists
}

}  // namespace wlsearch
