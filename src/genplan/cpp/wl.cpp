// genplan._wlsearch's heuristic: w . phi(s) + b, phi(s) the WL colour histogram of the state's ILG.
//
// It follows wlplan 2.1.0 (https://github.com/DillonZChen/wlplan, MIT licence, (c) Dillon Z. Chen):
// the ILG of src/graph_generator/graph_generators/ilg.cpp (object nodes colour 0, atom nodes
// colour 1 + 5 * predicate + {T_POS_GOAL 0, F_POS_GOAL 1, NON_GOAL 4}, edges atom <-> object
// labelled with the argument position), WLFeatures::embed_impl / refine of
// src/feature_generator/feature_generators/wl.cpp (a node whose colour or a neighbour's colour is
// unseen stays unseen; the new colour's key is the (edge label, neighbour colour, count) triples
// sorted by label then colour, then the node's own colour, as WLNeighbourContainer::to_vector),
// and Features::predict (std::inner_product of the colour histogram and the weights from 0.0 in
// index order: summing only the non-zero entries in index order gives the same double).
#include "wl.hpp"

#include <algorithm>
#include <stdexcept>

namespace wlsearch {

WLModel::WLModel(int iterations_, bool multiset_,
                 const std::vector<std::vector<std::pair<std::vector<int>, int>>> &layers, std::vector<double> w_,
                 double b_, int n_objects_, const Atoms &goals, const Atoms &statics, const Atoms &fluents)
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

double WLModel::h(const int *first, const int *last) {
  const int B = static_cast<int>(base_colour.size());
  col.assign(base_colour.begin(), base_colour.end());
  nodes_atom.clear();
  for (auto &e : extra) e.clear();
  for (const int *it = first; it != last; ++it) {
    const int a = *it;
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

}  // namespace wlsearch
