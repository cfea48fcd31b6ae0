"""The FF heuristic hFF over a grounded STRIPS task (genplan.planners.grounding.GroundTask), in
pure Python: the reference that genplan._wlsearch's native hFF (src/genplan/_wlsearch_ff.cpp) is
held to, number for number (tests/test_hybrid_search.py), and the classical heuristic of the
hybrid searches (genplan.planners.hybrid, strategies `hybrid-ff-gbfs`, `compiled-hybrid-ff-gbfs`).

hFF follows Hoffmann and Nebel, "The FF Planning System: Fast Plan Generation Through Heuristic
Search", JAIR 14 (2001), as Fast Downward computes it with `ff()` (src/search/heuristics/
ff_heuristic.cc and relaxation_heuristic.cc, https://github.com/aibasel/downward): a relaxed plan
extracted from h_add's best supporters, with unit action costs. This is our own code, written from
that description:

1. The delete relaxation: positive preconditions and add effects only (negative preconditions,
   negative goals and delete effects are ignored).
2. h_add costs (Bonet and Geffner 2001) by a generalised Dijkstra over unit costs: an atom of the
   state costs 0; an action whose positive preconditions are all reached costs 1 + the sum of
   their costs; an atom costs the least cost of an action that adds it. Atoms are settled in
   order of cost (a heap; an action fires when its last precondition is settled), and the
   exploration stops once every positive goal atom is settled (nothing later can change the
   costs or supporters that the plan extraction reads: a supporter's preconditions cost less than
   the atom it supports).
3. Best supporters, ONE deterministic rule (so that the C++ and this module give the same
   numbers, whatever order their queues settle equal costs in): the best supporter of a reached
   atom not in the state is the first action in index order (the task's actions are sorted by
   name) that adds it, has all its preconditions reached, and costs exactly the atom's cost.
   (Fast Downward keeps the first action that strictly improved the atom's cost in its queue
   order; the rule here is the same idea, made independent of that order.)
4. The relaxed plan: from the positive goal atoms backwards, each atom not in the state adds its
   best supporter to the plan and that supporter's preconditions to the atoms to support; hFF is
   the number of distinct actions in the plan (unit costs). A positive goal atom that is not
   reached: infinity (a dead end of the relaxation, hence of the task).
"""

from __future__ import annotations

import heapq
import math

from genplan.planners.grounding import GroundTask


class FF:
    """hFF of states of one grounded task: `FF(task)(state_ids)`, the state given by its dense
    fluent atom ids (GroundTask.state_ids); a float, math.inf for a relaxed dead end."""

    def __init__(self, task: GroundTask):
        self.pre = [sorted(set(p)) for p in task.pre]
        self.add = [sorted(set(a)) for a in task.add]
        self.goal = sorted(set(task.goal_pos))
        n = len(task.atoms)
        self.pre_of: list[list[int]] = [[] for _ in range(n)]  # atom -> actions it is a precondition of
        self.achievers: list[list[int]] = [[] for _ in range(n)]  # atom -> actions that add it, index order
        for i, (pre, add) in enumerate(zip(self.pre, self.add)):
            for p in pre:
                self.pre_of[p].append(i)
            for q in add:
                self.achievers[q].append(i)
        self.free = [i for i, p in enumerate(self.pre) if not p]  # actions without a precondition

    def __call__(self, state) -> float:
        cost, action_cost = self.costs(state)
        if any(g not in cost for g in self.goal):
            return math.inf
        plan: set[int] = set()
        marked: set[int] = set()
        stack = [g for g in self.goal]
        while stack:
            atom = stack.pop()
            if atom in marked:
                continue
            marked.add(atom)
            if cost[atom] == 0:  # in the state
                continue
            best = self.supporter(atom, cost, action_cost)
            if best not in plan:
                plan.add(best)
                stack.extend(self.pre[best])
        return float(len(plan))

    def costs(self, state) -> tuple[dict[int, int], dict[int, int]]:
        """h_add of the reached atoms (atom -> cost) and of the actions that fired (action -> cost),
        until every positive goal atom is settled (the module docstring, step 2)."""
        cost: dict[int, int] = {}
        heap = []
        for atom in sorted(set(state)):
            cost[atom] = 0
            heap.append((0, atom))
        unsatisfied = [len(p) for p in self.pre]
        pre_sum = [0] * len(self.pre)
        action_cost: dict[int, int] = {}
        settled: set[int] = set()
        goals_left = len(self.goal)
        goal = set(self.goal)

        def fire(i: int) -> None:
            c = 1 + pre_sum[i]
            action_cost[i] = c
            for q in self.add[i]:
                if q not in cost or c < cost[q]:
                    cost[q] = c
                    heapq.heappush(heap, (c, q))

        for i in self.free:
            fire(i)
        while heap and goals_left:
            c, atom = heapq.heappop(heap)
            if atom in settled or c > cost[atom]:
                continue
            settled.add(atom)
            goals_left -= atom in goal
            for i in self.pre_of[atom]:
                unsatisfied[i] -= 1
                pre_sum[i] += c
                if unsatisfied[i] == 0:
                    fire(i)
        return cost, action_cost

    def supporter(self, atom: int, cost: dict, action_cost: dict) -> int:
        """The first action in index order that adds `atom`, fired, at exactly its cost (step 3)."""
        for i in self.achievers[atom]:
            if action_cost.get(i) == cost[atom]:
                return i
        raise AssertionError(f"atom {atom} reached without a supporter")
