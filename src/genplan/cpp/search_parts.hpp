// What genplan._wlsearch's searches share (search.cpp's eager and lazy GBFS,
// hybrid.cpp's hybrid GBFS): the clock of parts, the open-list entry, the search graph
// with duplicate detection, successor generation, and the Search that holds them with the limits.
// Internal to the extension (namespace wlsearch::detail); moved here unchanged from
// search.cpp when the hybrid search got a file of its own.
#pragma once

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iterator>
#include <queue>
#include <string>
#include <vector>

#include "search.hpp"
#include "wl.hpp"

namespace wlsearch {
namespace detail {

using Clock = std::chrono::steady_clock;

inline double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

// CPU seconds per part (search_parts.Clock), into an Outcome's parts; free when off.
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
enum Part { SUCCESSORS = 0, GOAL_AND_DUPLICATES = 1, HEURISTIC = 2, QUEUE = 3, NOVELTY = 4, CLASSICAL = 5 };

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

// What the searches share: the outcome, the graph, successors, limits and laps.
class Search {
 public:
  Search(const Task &task, WLModel &wl, const Limits &limits, bool timers)
      : model(wl), graph(task.init), expander(task), laps(timers, out.parts), limits_(limits), start_(Clock::now()) {}

  bool late() const { return seconds() > limits_.time_limit; }

  // before an expansion (search_parts.stopped): a limit reached, the reason set
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

  // search_parts.generate: `node`'s successors not seen before into `fresh`, in order; true at a goal
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

  // `score` of each state of `fresh` into `values` (cleared first), the clock read every 16 states so
  // that a wide expansion cannot overrun the time limit; false (reason time_limit) when it ran out
  template <typename Score>
  bool score_batch(const std::vector<int> &fresh, std::vector<double> &values, Score score) {
    values.clear();
    for (int c : fresh) {
      values.push_back(score(c));
      if (values.size() % 16 == 0 && late()) { out.reason = "time_limit"; return false; }
    }
    return true;
  }

  // the learned h of `fresh` as one batch (best_first's one heuristic call), counted; lap HEURISTIC
  bool evaluate_batch(const std::vector<int> &fresh, std::vector<double> &values) {
    const bool in_time = score_batch(fresh, values, [this](int c) { return evaluate(c); });
    out.evaluated += static_cast<int64_t>(values.size());
    out.calls += !values.empty();
    laps.lap(HEURISTIC);
    return in_time;
  }

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


}  // namespace detail
}  // namespace wlsearch
