// genplan._wlsearch's searches (eager, novelty and lazy GBFS). Each follows its Python reference in
// genplan.planners.best_first step for step: the same successor order (action indices, which are the
// lexicographic order of the ground actions' names), duplicate detection on the state, the goal test
// at generation, ties first in, first out, the same counters and limits checked before each expansion.
// - eager_gbfs: best_first._eager, i.e. `gbfs` (open list ordered by h) and `novelty_gbfs` (ordered by
//   (width, h), the width by best_first._width: BFWS's w_h, Lipovetzky and Geffner, AAAI 2017);
// - lazy_gbfs: best_first.lazy_gbfs, which is Fast Downward's lazy_greedy (LazySearch in
//   src/search/search_algorithms/lazy_search.cc, https://github.com/aibasel/downward) without
//   preferred operators, but with the goal test and duplicate detection at generation: h is computed
//   when a state is expanded, its successors enter the open list with their parent's h.
// Limits: expansions and wall time before each expansion (eager: the time also every 16 evaluations
// of a batch, so that a wide expansion cannot overrun it), the process's resident memory every 1024
// expansions (/proc/self/statm), reasons node_limit, time_limit, memory_limit as best_first's.
#include "search.hpp"
#include "search_parts.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iterator>
#include <limits>
#include <queue>
#include <stdexcept>
#include <unordered_map>

namespace wlsearch {

Task::Task(int n, IntLists pre_, IntLists neg_, IntLists add_, IntLists del_, std::vector<int> init_,
           std::vector<int> goal_pos_, std::vector<int> goal_neg_)
    : n_fluents(n), pre(std::move(pre_)), neg(std::move(neg_)), add(std::move(add_)), del(std::move(del_)),
      init(std::move(init_)), goal_pos(std::move(goal_pos_)), goal_neg(std::move(goal_neg_)), by_atom(n) {
  size_t m = pre.size();
  if (neg.size() != m || add.size() != m || del.size() != m)
    throw std::invalid_argument("pre, neg, add and del lists differ in length");
  auto check = [n](const std::vector<int> &atoms) {
    for (int a : atoms)
      if (a < 0 || a >= n) throw std::invalid_argument("atom id out of range");
  };
  std::vector<int> freq(n, 0);
  for (size_t i = 0; i < m; i++) {
    check(pre[i]); check(neg[i]); check(add[i]); check(del[i]);
    for (int a : pre[i]) freq[a]++;
    std::sort(add[i].begin(), add[i].end());  // successors merge it with the state (set_union)
    add[i].erase(std::unique(add[i].begin(), add[i].end()), add[i].end());
  }
  check(init); check(goal_pos); check(goal_neg);
  std::sort(init.begin(), init.end());
  init.erase(std::unique(init.begin(), init.end()), init.end());
  for (size_t i = 0; i < m; i++) {
    if (pre[i].empty()) { always.push_back(static_cast<int>(i)); continue; }
    int best = pre[i][0];
    for (int a : pre[i]) if (freq[a] < freq[best]) best = a;
    by_atom[best].push_back(static_cast<int>(i));
  }
}

double resident_mib() {
  std::FILE *f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0.0;
  long size = 0, resident = 0;
  const int read = std::fscanf(f, "%ld %ld", &size, &resident);
  std::fclose(f);
  if (read != 2) return 0.0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

namespace {

using namespace detail;

// best_first._width: 1 when the state has a fluent atom never seen before in a state of the same
// rounded h (its atoms then recorded), else 2. One bit set of atoms per rounded h.
class Novelty {
 public:
  explicit Novelty(int n_fluents) : words_((n_fluents + 63) / 64) {}

  int width(const int *first, const int *last, double h) {
    std::vector<uint64_t> &seen = seen_[rounded(h)];
    if (seen.empty()) seen.assign(words_, 0);
    const bool fresh = std::any_of(first, last, [&](int a) { return !(seen[a >> 6] >> (a & 63) & 1U); });
    if (!fresh) return 2;
    for (const int *a = first; a != last; ++a) seen[*a >> 6] |= uint64_t{1} << (*a & 63);
    return 1;
  }

 private:
  // Python's round(h): the nearest integer, ties to even, as std::nearbyint in the default rounding
  // mode; kept as a double, which holds that integer exactly (-0.0 made 0.0; NaN, where Python's
  // round raises, one bucket of its own)
  static double rounded(double h) {
    if (std::isnan(h)) return std::numeric_limits<double>::infinity();
    return std::nearbyint(h) + 0.0;
  }
  size_t words_;
  std::unordered_map<double, std::vector<uint64_t>> seen_;
};

}  // namespace

Outcome eager_gbfs(const Task &task, WLModel &model, const Limits &limits, bool novelty, bool timers) {
  Search search(task, model, limits, timers);
  Outcome &out = search.out;
  if (search.expander.is_goal(task.init)) {
    out.reason = "goal";
    return search.finish();
  }
  Novelty novel(task.n_fluents);
  out.h_init = search.evaluate(0);
  out.evaluated = out.calls = 1;
  OpenList open;
  open.push({novelty ? novel.width(search.graph.begin(0), search.graph.end(0), out.h_init) : 0, out.h_init, 0, 0});
  int64_t counter = 1;
  std::vector<int> fresh;
  std::vector<double> values;
  while (!open.empty()) {
    if (search.stopped()) break;
    search.laps.lap(QUEUE);
    const int node = open.top().node;
    open.pop();
    out.expanded++;
    if (search.generate(node, fresh)) break;
    if (!search.evaluate_batch(fresh, values)) break;
    for (size_t k = 0; k < fresh.size(); k++) {
      int width = 0;
      if (novelty) {
        width = novel.width(search.graph.begin(fresh[k]), search.graph.end(fresh[k]), values[k]);
        out.novel += width == 1;
      }
      open.push({width, values[k], counter++, fresh[k]});
    }
    if (novelty) search.laps.lap(NOVELTY);
  }
  search.laps.lap(QUEUE);
  return search.finish();  // a goal, a limit, or the open list exhausted: no plan exists
}

Outcome lazy_gbfs(const Task &task, WLModel &model, const Limits &limits, bool timers) {
  Search search(task, model, limits, timers);
  Outcome &out = search.out;
  if (search.expander.is_goal(task.init)) {
    out.reason = "goal";
    return search.finish();
  }
  OpenList open;
  open.push({0, 0.0, 0, 0});  // (parent's h, generation order)
  int64_t counter = 1;
  std::vector<int> fresh;
  while (!open.empty()) {
    if (search.stopped()) break;
    const int node = open.top().node;
    open.pop();
    search.laps.lap(QUEUE);
    const double h = search.evaluate(node);  // one state a call, at expansion
    if (out.evaluated++ == 0) out.h_init = h;
    out.calls++;
    search.laps.lap(HEURISTIC);
    out.expanded++;
    const bool goal = search.generate(node, fresh);
    for (int c : fresh) open.push({0, h, counter++, c});
    if (goal) break;
  }
  return search.finish();
}

}  // namespace wlsearch
