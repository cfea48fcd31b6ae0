// genplan._wlsearch's searches (issue 57 items 1 and 3). Each follows its Python reference in
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
#include "_wlsearch_search.hpp"

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

using Clock = std::chrono::steady_clock;

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// CPU seconds per part (best_first._Clock), into an Outcome's parts; free when off.
struct Laps {
  bool on;
  double *parts;
  double last = 0.0;
  Laps(bool on_, double *parts_) : on(on_), parts(parts_) { if (on) last = cpu_now(); }
  void lap(int part) {
    if (!on) return;
    double now = cpu_now();
    parts[part] += now - last;
    last = now;
  }
};
enum Part { SUCCESSORS = 0, GOAL_AND_DUPLICATES = 1, HEURISTIC = 2, QUEUE = 3, NOVELTY = 4 };

// An open-list entry: (width, h, generation order) ascending; width 0 throughout without novelty.
struct Entry {
  int width;
  double h;
  int64_t order;
  int node;
  bool operator>(const Entry &o) const {
    if (width != o.width) return width > o.width;
    return h != o.h ? h > o.h : order > o.order;
  }
};
using OpenList = std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>>;

// The search graph: node -> state (sorted fluent atom ids), parent node, action; duplicate
// detection on the state. The states lie end to end in one array and the seen set is an open-addressing
// table of node ids, so that a search of millions of states is a few large blocks of memory, freed
// at once when the search returns (not millions of small ones, which took 0.4 s to free after a
// 3 s search of 2 million states).
class Graph {
 public:
  explicit Graph(const std::vector<int> &init) : start_{0}, table_(1024, -1) { add(init, -1, -1); }

  // the new node of `state`, reached from `node` by `action`; -1 when the state was seen before
  int add(const std::vector<int> &state, int node, int action) {
    const uint64_t h = mix(VecHash()(state));
    size_t slot = h & (table_.size() - 1);
    for (; table_[slot] >= 0; slot = (slot + 1) & (table_.size() - 1)) {
      const int other = table_[slot];
      if (hashes_[other] == h && std::equal(begin(other), end(other), state.begin(), state.end())) return -1;
    }
    const int c = static_cast<int>(parent.size());
    table_[slot] = c;
    hashes_.push_back(h);
    atoms_.insert(atoms_.end(), state.begin(), state.end());
    start_.push_back(atoms_.size());
    parent.push_back(node);
    via.push_back(action);
    if (2 * parent.size() > table_.size()) grow();
    return c;
  }

  const int *begin(int node) const { return atoms_.data() + start_[node]; }
  const int *end(int node) const { return atoms_.data() + start_[node + 1]; }

  std::vector<int> path(int node) const {
    std::vector<int> p;
    while (parent[node] >= 0) { p.push_back(via[node]); node = parent[node]; }
    std::reverse(p.begin(), p.end());
    return p;
  }

  std::vector<int> parent, via;

 private:
  static uint64_t mix(uint64_t h) {  // MurmurHash3's fmix64: the table's slot is the hash's low bits
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
  }
  void grow() {
    std::vector<int> table(2 * table_.size(), -1);
    for (int c = 0; c < static_cast<int>(parent.size()); c++) {
      size_t slot = hashes_[c] & (table.size() - 1);
      while (table[slot] >= 0) slot = (slot + 1) & (table.size() - 1);
      table[slot] = c;
    }
    table_.swap(table);
  }
  std::vector<int> atoms_;       // the states' atoms, end to end
  std::vector<size_t> start_;    // node -> its first atom in atoms_ (and one past the last node)
  std::vector<uint64_t> hashes_;  // node -> its state's hash
  std::vector<int> table_;       // open addressing, linear probing: node or -1; at most half full
};

// Successor generation: a state's applicable actions in index order, and their results.
class Expander {
 public:
  explicit Expander(const Task &task) : task_(task), mark_(task.n_fluents, 0) {}

  bool is_goal(const int *first, const int *last) const {
    for (int g : task_.goal_pos) if (!std::binary_search(first, last, g)) return false;
    for (int g : task_.goal_neg) if (std::binary_search(first, last, g)) return false;
    return true;
  }
  bool is_goal(const std::vector<int> &s) const { return is_goal(s.data(), s.data() + s.size()); }

  const std::vector<int> &applicable(const std::vector<int> &s) {
    for (int a : s) mark_[a] = 1;
    applicable_.clear();
    auto try_action = [&](int i) {
      for (int p : task_.pre[i]) if (!mark_[p]) return;
      for (int q : task_.neg[i]) if (mark_[q]) return;
      applicable_.push_back(i);
    };
    for (int i : task_.always) try_action(i);
    for (int a : s) for (int i : task_.by_atom[a]) try_action(i);
    std::sort(applicable_.begin(), applicable_.end());
    for (int a : s) mark_[a] = 0;
    return applicable_;
  }

  // (s \ del) u add of action i: del marked, s filtered, merged with add (both sorted)
  void apply(const std::vector<int> &s, int i, std::vector<int> &child) {
    for (int d : task_.del[i]) mark_[d] = 1;
    kept_.clear();
    for (int a : s) if (!mark_[a]) kept_.push_back(a);
    for (int d : task_.del[i]) mark_[d] = 0;
    child.clear();
    std::set_union(kept_.begin(), kept_.end(), task_.add[i].begin(), task_.add[i].end(), std::back_inserter(child));
  }

 private:
  const Task &task_;
  std::vector<char> mark_;
  std::vector<int> applicable_, kept_;
};

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

// What the searches share: the outcome, the graph, successors, limits and laps.
class Search {
 public:
  Search(const Task &task, WLModel &wl, const Limits &limits, bool timers)
      : model(wl), graph(task.init), expander(task), laps(timers, out.parts), limits_(limits), start_(Clock::now()) {}

  bool late() const { return seconds() > limits_.time_limit; }

  // before an expansion (best_first._stopped): a limit reached, the reason set
  bool stopped() {
    if (out.expanded >= limits_.max_expansions) {
      out.reason = "node_limit";
    } else if (late()) {
      out.reason = "time_limit";
    } else if (limits_.memory_limit_mb > 0 && out.expanded % 1024 == 0 && resident_mib() > limits_.memory_limit_mb) {
      out.reason = "memory_limit";
    } else {
      return false;
    }
    return true;
  }

  // best_first._generate: `node`'s successors not seen before into `fresh`, in order; true at a goal
  // successor (the plan and reason set, the successors before it in `fresh`)
  bool generate(int node, std::vector<int> &fresh) {
    state_.assign(graph.begin(node), graph.end(node));  // a copy: the graph grows below
    const std::vector<int> &s = state_;
    const std::vector<int> &actions = expander.applicable(s);
    laps.lap(SUCCESSORS);
    fresh.clear();
    bool goal = false;
    for (int i : actions) {
      expander.apply(s, i, child_);
      out.generated++;
      const int c = graph.add(child_, node, i);
      if (c < 0) continue;
      if (expander.is_goal(child_)) {
        out.plan = graph.path(c);
        out.reason = "goal";
        goal = true;
        break;
      }
      fresh.push_back(c);
    }
    laps.lap(GOAL_AND_DUPLICATES);
    return goal;
  }

  double evaluate(int node) { return model.h(graph.begin(node), graph.end(node)); }

  Outcome finish() {
    out.time = seconds();
    return out;
  }

  Outcome out;
  WLModel &model;
  Graph graph;
  Expander expander;
  Laps laps;

 private:
  double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  Limits limits_;
  Clock::time_point start_;
  std::vector<int> state_, child_;
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
    values.clear();
    bool late = false;
    for (int c : fresh) {  // one batch, as best_first's one heuristic call
      values.push_back(search.evaluate(c));
      if (values.size() % 16 == 0 && search.late()) { late = true; break; }
    }
    out.evaluated += static_cast<int64_t>(values.size());
    out.calls += !values.empty();
    search.laps.lap(HEURISTIC);
    if (late) { out.reason = "time_limit"; break; }
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
