// genplan._wlsearch's learned heuristic: a linear model over wlplan's WL features of a state's ILG,
// bound to one problem (the colour dictionaries, the weights and the problem's base graph), and the
// the types it shares with the searches in core.hpp.
#pragma once

#include <utility>
#include <vector>

#include "core.hpp"

namespace wlsearch {

// The WL model bound to one problem: colour dictionaries, weights and the problem's base ILG
// (wl.cpp says what it follows in wlplan).
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
          std::vector<double> w_, double b_, int n_objects_, const Atoms &goals, const Atoms &statics,
          const Atoms &fluents);

  // w . phi(s) + b for a state given by its fluent atom ids [first, last), sorted
  double h(const int *first, const int *last);
  double h(const std::vector<int> &state) { return h(state.data(), state.data() + state.size()); }

 private:
  void count(int c) {
    if (c < 0) return;
    if (x[c] == 0.0) touched.push_back(c);
    x[c] += 1.0;
  }
};

}  // namespace wlsearch
