// hFF over a grounded STRIPS task (ff.hpp says what it follows). Step by step as
// genplan.planners.relaxed.FF:
// 1. the delete relaxation: positive preconditions and add effects only;
// 2. h_add by a generalised Dijkstra with unit costs: state atoms cost 0, an action fires when its
//    last positive precondition is settled and costs 1 + the sum of its preconditions' costs, an
//    atom costs the least cost of an action adding it; the exploration stops once every positive
//    goal atom is settled (a supporter's preconditions cost less than its atom, so they are all
//    settled by then: the costs and supporters read below are those of the full fixpoint);
// 3. the best supporter of an atom not in the state: the first action in index order that adds it,
//    fired, at exactly the atom's cost (one rule, independent of the order the heap settles ties in);
// 4. the relaxed plan from the positive goal atoms backwards through best supporters; hFF = its
//    number of distinct actions; a positive goal atom not reached: infinity.
#include "ff.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace wlsearch {

namespace {
std::vector<int> unique_sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}
}  // namespace

FF::FF(const Task &task)
    : pre_of_(task.n_fluents), achievers_(task.n_fluents), goal_(unique_sorted(task.goal_pos)),
      is_goal_(task.n_fluents, 0), cost_(task.n_fluents, UNREACHED), action_cost_(task.pre.size(), UNREACHED),
      pre_sum_(task.pre.size(), 0), unsatisfied_(task.pre.size(), 0), settled_(task.n_fluents, 0),
      marked_(task.n_fluents, 0), in_plan_(task.pre.size(), 0) {
  const int m = static_cast<int>(task.pre.size());
  for (int i = 0; i < m; i++) {
    pre_.push_back(unique_sorted(task.pre[i]));
    add_.push_back(unique_sorted(task.add[i]));
    for (int p : pre_[i]) pre_of_[p].push_back(i);
    for (int q : add_[i]) achievers_[q].push_back(i);
    if (pre_[i].empty()) free_.push_back(i);
  }
  for (int g : goal_) is_goal_[g] = 1;
}

void FF::fire(int action) {
  const int64_t c = 1 + pre_sum_[action];
  action_cost_[action] = c;
  touched_actions_.push_back(action);
  for (int q : add_[action]) {
    if (cost_[q] == UNREACHED || c < cost_[q]) {
      if (cost_[q] == UNREACHED) touched_atoms_.push_back(q);
      cost_[q] = c;
      heap_.push({c, q});
    }
  }
}

int FF::supporter(int atom) const {
  for (int i : achievers_[atom])
    if (action_cost_[i] == cost_[atom]) return i;
  throw std::logic_error("hFF: an atom reached without a supporter");
}

double FF::h(const int *first, const int *last) {
  // step 2: h_add until every positive goal atom is settled
  for (const int *a = first; a != last; ++a) {
    if (cost_[*a] == UNREACHED) touched_atoms_.push_back(*a);
    cost_[*a] = 0;
    heap_.push({0, *a});
  }
  for (int i : free_) fire(i);
  size_t goals_left = goal_.size();
  while (!heap_.empty() && goals_left > 0) {
    const auto [c, atom] = heap_.top();
    heap_.pop();
    if (settled_[atom] || c > cost_[atom]) continue;
    settled_[atom] = 1;
    goals_left -= is_goal_[atom];
    for (int i : pre_of_[atom]) {
      if (unsatisfied_[i] == 0) { unsatisfied_[i] = static_cast<int>(pre_[i].size()); touched_actions_.push_back(i); }
      pre_sum_[i] += c;
      if (--unsatisfied_[i] == 0) { unsatisfied_[i] = -1; fire(i); }  // -1: fired (reset below)
    }
  }
  // step 4: the relaxed plan through best supporters (step 3)
  double result = 0.0;
  bool dead_end = false;
  for (int g : goal_) dead_end = dead_end || cost_[g] == UNREACHED;
  if (dead_end) {
    result = std::numeric_limits<double>::infinity();
  } else {
    std::vector<int> plan;
    stack_.assign(goal_.begin(), goal_.end());
    std::vector<int> marked;
    while (!stack_.empty()) {
      const int atom = stack_.back();
      stack_.pop_back();
      if (marked_[atom]) continue;
      marked_[atom] = 1;
      marked.push_back(atom);
      if (cost_[atom] == 0) continue;  // in the state
      const int best = supporter(atom);
      if (in_plan_[best]) continue;
      in_plan_[best] = 1;
      plan.push_back(best);
      stack_.insert(stack_.end(), pre_[best].begin(), pre_[best].end());
    }
    result = static_cast<double>(plan.size());
    for (int a : marked) marked_[a] = 0;
    for (int i : plan) in_plan_[i] = 0;
  }
  // reset what this call touched
  while (!heap_.empty()) heap_.pop();
  for (int a : touched_atoms_) { cost_[a] = UNREACHED; settled_[a] = 0; }
  for (int i : touched_actions_) { action_cost_[i] = UNREACHED; pre_sum_[i] = 0; unsatisfied_[i] = 0; }
  touched_atoms_.clear();
  touched_actions_.clear();
  return result;
}

}  // namespace wlsearch
