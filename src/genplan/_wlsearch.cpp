// genplan._wlsearch: eager greedy best-first search with a learned linear WL heuristic, all native:
// successor generation over a grounded STRIPS task, duplicate detection, an h-ordered open list
// (ties first in, first out), the goal test at generation, and per state the ILG graph, WL colour
// refinement and the dot product with the weights. One call per problem (issue 57 item 1).
//
// It follows genplan.planners.best_first.gbfs (the Python reference) step for step, and wlplan
// 2.1.0 (https://github.com/DillonZChen/wlplan, MIT licence, (c) Dillon Z. Chen) for the features:
// the ILG of src/graph_generator/graph_generators/ilg.cpp (object nodes colour 0, atom nodes
// colour 1 + 5 * predicate + {T_POS_GOAL 0, F_POS_GOAL 1, NON_GOAL 4}, edges atom <-> object
// labelled with the argument position), WLFeatures::embed_impl / refine of
// src/feature_generator/feature_generators/wl.cpp (a node whose colour or a neighbour's colour is
// unseen stays unseen; the new colour's key is the (edge label, neighbour colour, count) triples
// sorted by label then colour, then the node's own colour, as WLNeighbourContainer::to_vector),
// and Features::predict (std::inner_product of the colour histogram and the weights from 0.0 in
// index order: summing only the non-zero entries in index order gives the same double).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <iterator>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace py = pybind11;

namespace {

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

// A grounded STRIPS task over fluent atoms 0..n-1; actions in the order their successors are generated.
struct Task {
  int n_fluents;
  IntLists pre, neg, add, del;
  std::vector<int> init, goal_pos, goal_neg;
  IntLists by_atom;         // atom -> actions that this atom triggers (its rarest precondition)
  std::vector<int> always;  // actions without a positive precondition

  Task(int n, IntLists pre_, IntLists neg_, IntLists add_, IntLists del_, std::vector<int> init_,
       std::vector<int> goal_pos_, std::vector<int> goal_neg_)
      : n_fluents(n), pre(std::move(pre_)), neg(std::move(neg_)), add(std::move(add_)),
        del(std::move(del_)), init(std::move(init_)), goal_pos(std::move(goal_pos_)),
        goal_neg(std::move(goal_neg_)), by_atom(n) {
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
};

// The WL model bound to one problem: colour dictionaries, weights and the problem's base ILG.
struct WLModel {
  int iterations;
  bool multiset;
  std::vector<ColourMap> hash;
  std::vector<double> w;
  double b;
  int n_objects;
  std::vector<int> atom_pred, atom_goal;  // per fluent atom: predicate index, goal node or -1
  IntLists atom_objs;                     // per fluent atom: object nodes
  std::vector<int> base_colour;
  std::vector<std::vector<std::pair<int, int>>> base_adj;  // (edge label, node)
  std::vector<int> goal_pred;                               // goal node - n_objects -> predicate
  // buffers
  std::vector<int> col, next, raw, nodes_atom, key;
  // memos, exact by construction: a node's layer-0 colour depends only on its initial colour; an
  // atom node's iteration-1 colour only on its initial colour (every object starts with colour 0
  // and a predicate's arity fixes the edge labels), indexed by the initial colour (-2: not yet known)
  std::vector<int> layer0, atom1;
  // an object's neighbours among the static atom nodes, (label, colour) sorted, at iterations 1 and
  // 2: their colours at iterations 0 and 1 never change, so these lists are made on the first call
  int first_static = 0;  // static atom nodes are first_static..B-1
  std::vector<std::vector<std::pair<int, int>>> static_pairs[3];
  std::vector<char> static_unseen[3];
  std::vector<std::pair<int, int>> merged;
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::vector<std::pair<int, int>>> extra;
  std::vector<double> x;
  std::vector<int> touched;

  static int fact(int pred, int desc) { return 1 + 5 * pred + desc; }

  WLModel(int iterations_, bool multiset_, const std::vector<std::vector<std::pair<std::vector<int>, int>>> &layers,
          std::vector<double> w_, double b_, int n_objects_, const std::vector<std::pair<int, std::vector<int>>> &goals,
          const std::vector<std::pair<int, std::vector<int>>> &statics,
          const std::vector<std::pair<int, std::vector<int>>> &fluents)
      : iterations(iterations_), multiset(multiset_), w(std::move(w_)), b(b_), n_objects(n_objects_) {
    if (static_cast<int>(layers.size()) != iterations + 1)
      throw std::invalid_argument("colour dictionaries: one per iteration and one for the initial colours");
    for (const auto &layer : layers) {
      ColourMap m;
      for (const auto &[k, v] : layer) {
        if (v < 0 || v >= static_cast<int>(w.size())) throw std::invalid_argument("colour beyond the weights");
        m.emplace(k, v);
      }
      hash.push_back(std::move(m));
    }
    x.assign(w.size(), 0.0);
    auto check_objs = [this](const std::vector<int> &objs) {
      for (int o : objs)
        if (o < 0 || o >= n_objects) throw std::invalid_argument("object node out of range");
    };
    base_colour.assign(n_objects, 0);
    base_adj.assign(n_objects, {});
    std::unordered_map<std::vector<int>, int, VecHash> goal_node;  // (pred, objs...) -> node
    for (const auto &[p, objs] : goals) {
      check_objs(objs);
      int u = static_cast<int>(base_colour.size());
      base_colour.push_back(fact(p, 1));
      base_adj.emplace_back();
      goal_pred.push_back(p);
      for (size_t r = 0; r < objs.size(); r++) {
        base_adj[u].emplace_back(static_cast<int>(r), objs[r]);
        base_adj[objs[r]].emplace_back(static_cast<int>(r), u);
      }
      std::vector<int> k{p};
      k.insert(k.end(), objs.begin(), objs.end());
      goal_node.emplace(k, u);
    }
    auto goal_of = [&](int p, const std::vector<int> &objs) {
      std::vector<int> k{p};
      k.insert(k.end(), objs.begin(), objs.end());
      auto it = goal_node.find(k);
      return it == goal_node.end() ? -1 : it->second;
    };
    first_static = static_cast<int>(base_colour.size());
    for (const auto &[p, objs] : statics) {
      check_objs(objs);
      int g = goal_of(p, objs);
      if (g >= 0) { base_colour[g] = fact(p, 0); continue; }
      int u = static_cast<int>(base_colour.size());
      base_colour.push_back(fact(p, 4));
      base_adj.emplace_back();
      for (size_t r = 0; r < objs.size(); r++) {
        base_adj[u].emplace_back(static_cast<int>(r), objs[r]);
        base_adj[objs[r]].emplace_back(static_cast<int>(r), u);
      }
    }
    for (const auto &[p, objs] : fluents) {
      check_objs(objs);
      atom_pred.push_back(p);
      atom_objs.push_back(objs);
      atom_goal.push_back(goal_of(p, objs));
    }
    extra.assign(n_objects, {});
  }

  void count(int c) {
    if (c < 0) return;
    if (x[c] == 0.0) touched.push_back(c);
    x[c] += 1.0;
  }

  // w . phi(s) + b for a state given by its fluent atom ids
  double h(const std::vector<int> &state) {
    const int B = static_cast<int>(base_colour.size());
    col.assign(base_colour.begin(), base_colour.end());
    nodes_atom.clear();
    for (auto &e : extra) e.clear();
    for (int a : state) {
      int g = atom_goal[a];
      if (g >= 0) { col[g] = fact(goal_pred[g - n_objects], 0); continue; }
      int u = B + static_cast<int>(nodes_atom.size());
      nodes_atom.push_back(a);
      col.push_back(fact(atom_pred[a], 4));
      const auto &objs = atom_objs[a];
      for (size_t r = 0; r < objs.size(); r++) extra[objs[r]].emplace_back(static_cast<int>(r), u);
    }
    const int N = static_cast<int>(col.size());
    raw.assign(col.begin(), col.end());
    for (int u = 0; u < N; u++) {
      int c = col[u];
      if (c >= static_cast<int>(layer0.size())) { layer0.resize(c + 1, -2); atom1.resize(c + 1, -2); }
      if (layer0[c] == -2) {
        key.assign(1, c);
        auto it = hash[0].find(key);
        layer0[c] = it == hash[0].end() ? -1 : it->second;
      }
      col[u] = layer0[c];
      count(col[u]);
    }
    next.resize(N);
    for (int itr = 1; itr <= iterations; itr++) {
      const ColourMap &m = hash[itr];
      const bool split = itr <= 2;  // objects: static neighbours from static_pairs
      if (split && static_pairs[itr].empty()) {
        static_pairs[itr].assign(n_objects, {});
        static_unseen[itr].assign(n_objects, 0);
        for (int u = 0; u < n_objects; u++) {
          for (const auto &[l, v] : base_adj[u]) {
            if (v < first_static) continue;
            if (col[v] < 0) static_unseen[itr][u] = 1;
            static_pairs[itr][u].emplace_back(l, col[v]);
          }
          std::sort(static_pairs[itr][u].begin(), static_pairs[itr][u].end());
        }
      }
      for (int u = 0; u < N; u++) {
        next[u] = -1;
        if (col[u] < 0) continue;
        const bool memo = itr == 1 && u >= n_objects;
        if (memo && atom1[raw[u]] != -2) { next[u] = atom1[raw[u]]; continue; }
        pairs.clear();
        bool unseen = false;
        auto take = [&](int label, int v) {
          int c = col[v];
          if (c < 0) unseen = true;
          pairs.emplace_back(label, c);
        };
        const bool merge = split && u < n_objects;
        if (merge) {
          if (static_unseen[itr][u]) continue;
          for (const auto &[l, v] : base_adj[u]) if (v < first_static) take(l, v);
          for (const auto &[l, v] : extra[u]) take(l, v);
        } else if (u < B) {
          for (const auto &[l, v] : base_adj[u]) take(l, v);
          if (u < n_objects) for (const auto &[l, v] : extra[u]) take(l, v);
        } else {
          const auto &objs = atom_objs[nodes_atom[u - B]];
          for (size_t r = 0; r < objs.size(); r++) take(static_cast<int>(r), objs[r]);
        }
        if (unseen) { if (memo) atom1[raw[u]] = -1; continue; }
        std::sort(pairs.begin(), pairs.end());
        if (merge) {
          const auto &fixed = static_pairs[itr][u];
          merged.resize(pairs.size() + fixed.size());
          std::merge(pairs.begin(), pairs.end(), fixed.begin(), fixed.end(), merged.begin());
          pairs.swap(merged);
        }
        key.clear();
        for (size_t i = 0; i < pairs.size();) {
          size_t j = i;
          while (j < pairs.size() && pairs[j] == pairs[i]) j++;
          key.push_back(pairs[i].first);
          key.push_back(pairs[i].second);
          key.push_back(multiset ? static_cast<int>(j - i) : 1);
          i = j;
        }
        key.push_back(col[u]);
        auto it = m.find(key);
        if (it != m.end()) next[u] = it->second;
        if (memo) atom1[raw[u]] = next[u];
      }
      std::swap(col, next);
      for (int u = 0; u < N; u++) count(col[u]);
    }
    std::sort(touched.begin(), touched.end());
    double s = 0.0;
    for (int c : touched) {
      s = s + x[c] * w[c];
      x[c] = 0.0;
    }
    touched.clear();
    return s + b;
  }
};

double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

struct Laps {
  bool on;
  double last = 0.0;
  double parts[4] = {0, 0, 0, 0};  // successors, goal_and_duplicates, heuristic, queue
  explicit Laps(bool on_) : on(on_) { if (on) last = cpu_now(); }
  void lap(int part) {
    if (!on) return;
    double now = cpu_now();
    parts[part] += now - last;
    last = now;
  }
};

struct Entry {
  double h;
  int64_t order;
  int node;
  bool operator>(const Entry &o) const { return h != o.h ? h > o.h : order > o.order; }
};

py::dict gbfs(const Task &task, WLModel &model, double max_expansions, double time_limit, bool timers) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  std::vector<std::vector<int>> states;
  std::vector<int> parent, via;
  auto hasher = [&states](int i) { return VecHash()(states[i]); };
  auto equal = [&states](int i, int j) { return states[i] == states[j]; };
  std::unordered_set<int, decltype(hasher), decltype(equal)> seen(1024, hasher, equal);
  int64_t expanded = 0, generated = 0, evaluated = 0, calls = 0;  // calls: batches, as best_first's heuristic_calls
  std::string reason = "dead_end";
  std::vector<int> plan;
  double h_init = 0.0;
  Laps laps(timers);
  std::vector<char> mark(task.n_fluents, 0);
  auto is_goal = [&](const std::vector<int> &s) {
    for (int g : task.goal_pos) if (!std::binary_search(s.begin(), s.end(), g)) return false;
    for (int g : task.goal_neg) if (std::binary_search(s.begin(), s.end(), g)) return false;
    return true;
  };
  auto path = [&](int node) {
    std::vector<int> p;
    while (parent[node] >= 0) { p.push_back(via[node]); node = parent[node]; }
    std::reverse(p.begin(), p.end());
    return p;
  };
  {
    py::gil_scoped_release release;
    states.push_back(task.init);
    parent.push_back(-1);
    via.push_back(-1);
    seen.insert(0);
    if (is_goal(states[0])) {
      reason = "goal";
    } else {
      h_init = model.h(states[0]);
      evaluated = calls = 1;
      std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> open;
      open.push({h_init, 0, 0});
      int64_t counter = 1;
      std::vector<int> applicable, fresh, child, kept;
      while (!open.empty()) {
        if (expanded >= max_expansions) { reason = "node_limit"; break; }
        if (std::chrono::duration<double>(clock::now() - start).count() > time_limit) { reason = "time_limit"; break; }
        laps.lap(3);
        int node = open.top().node;
        open.pop();
        expanded++;
        const std::vector<int> s = states[node];
        for (int a : s) mark[a] = 1;
        applicable.clear();
        auto try_action = [&](int i) {
          for (int p : task.pre[i]) if (!mark[p]) return;
          for (int q : task.neg[i]) if (mark[q]) return;
          applicable.push_back(i);
        };
        for (int i : task.always) try_action(i);
        for (int a : s) for (int i : task.by_atom[a]) try_action(i);
        std::sort(applicable.begin(), applicable.end());
        for (int a : s) mark[a] = 0;
        laps.lap(0);
        fresh.clear();
        bool goal = false;
        for (int i : applicable) {
          // (s \ del) u add: del marked, s filtered, merged with add (both sorted)
          for (int d : task.del[i]) mark[d] = 1;
          kept.clear();
          for (int a : s) if (!mark[a]) kept.push_back(a);
          for (int d : task.del[i]) mark[d] = 0;
          child.clear();
          std::set_union(kept.begin(), kept.end(), task.add[i].begin(), task.add[i].end(), std::back_inserter(child));
          generated++;
          states.push_back(child);
          int c = static_cast<int>(states.size()) - 1;
          if (!seen.insert(c).second) { states.pop_back(); continue; }
          parent.push_back(node);
          via.push_back(i);
          if (is_goal(states[c])) { plan = path(c); reason = "goal"; goal = true; break; }
          fresh.push_back(c);
        }
        laps.lap(1);
        if (goal) break;
        std::vector<double> values;
        values.reserve(fresh.size());
        for (int c : fresh) values.push_back(model.h(states[c]));
        evaluated += static_cast<int64_t>(fresh.size());
        calls += !fresh.empty();
        laps.lap(2);
        for (size_t k = 0; k < fresh.size(); k++) open.push({values[k], counter++, fresh[k]});
      }
      laps.lap(3);
    }
  }
  py::dict out;
  out["plan"] = plan;
  out["reason"] = reason;
  out["expanded"] = expanded;
  out["generated"] = generated;
  out["evaluated"] = evaluated;
  out["heuristic_calls"] = calls;
  out["h_init"] = h_init;
  out["time"] = std::chrono::duration<double>(clock::now() - start).count();
  if (timers) {
    py::dict t;
    t["successors"] = laps.parts[0];
    t["goal_and_duplicates"] = laps.parts[1];
    t["heuristic"] = laps.parts[2];
    t["queue"] = laps.parts[3];
    out["timers"] = t;
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_wlsearch, m) {
  m.doc() = "Eager GBFS with a linear WL heuristic (wlplan's ILG and WL colours), native (issue 57).";
  py::class_<Task>(m, "Task")
      .def(py::init<int, IntLists, IntLists, IntLists, IntLists, std::vector<int>, std::vector<int>,
                    std::vector<int>>(),
           py::arg("n_fluents"), py::arg("pre"), py::arg("neg"), py::arg("add"), py::arg("delete"),
           py::arg("init"), py::arg("goal_pos"), py::arg("goal_neg"))
      .def_readonly("n_fluents", &Task::n_fluents);
  py::class_<WLModel>(m, "WLModel")
      .def(py::init<int, bool, const std::vector<std::vector<std::pair<std::vector<int>, int>>> &, std::vector<double>,
                    double, int, const std::vector<std::pair<int, std::vector<int>>> &,
                    const std::vector<std::pair<int, std::vector<int>>> &,
                    const std::vector<std::pair<int, std::vector<int>>> &>(),
           py::arg("iterations"), py::arg("multiset_hash"), py::arg("colour_hash"), py::arg("weights"),
           py::arg("bias"), py::arg("n_objects"), py::arg("goals"), py::arg("statics"), py::arg("fluents"))
      .def("h", [](WLModel &model, std::vector<int> state) {
        for (int a : state)
          if (a < 0 || a >= static_cast<int>(model.atom_pred.size())) throw std::invalid_argument("atom id out of range");
        return model.h(state);
      }, py::arg("state"), "w . phi(s) + b of the state given by its fluent atom ids");
  m.def("gbfs", &gbfs, py::arg("task"), py::arg("model"), py::arg("max_expansions"), py::arg("time_limit"),
        py::arg("timers") = false,
        "Eager GBFS from the task's initial state: plan (action indices), reason, counters, time.");
}
