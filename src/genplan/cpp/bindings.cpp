// genplan._wlsearch: greedy best-first searches with a learned linear WL heuristic, all native:
// successor generation over a grounded STRIPS task, duplicate detection, the open list, the goal
// test at generation, and per state the ILG graph, WL colour refinement and the dot product with
// the weights. One call per problem (genplan.planners.compiled drives it).
//
// This file holds the Python bindings only: the heuristic is in wl.cpp (what it follows
// in wlplan), the searches in search.cpp (what each follows in genplan.planners.best_first
// and Fast Downward), the hybrid search in hybrid.cpp and its classical heuristic hFF in
// ff.cpp (genplan.planners.hybrid, genplan.planners.relaxed). setup.py compiles the five
// into one extension.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "ff.hpp"
#include "search.hpp"
#include "wl.hpp"

namespace py = pybind11;
using namespace wlsearch;

namespace {

using Layers = std::vector<std::vector<std::pair<std::vector<int>, int>>>;

// One search, the GIL released while it runs; its outcome as the dict genplan.planners.compiled reads.
template <typename Run>
py::dict run(Run search, bool novelty, bool timers, bool hybrid = false) {
  Outcome o;
  {
    py::gil_scoped_release release;
    o = search();
  }
  py::dict out;
  out["plan"] = o.plan;
  out["reason"] = o.reason;
  out["expanded"] = o.expanded;
  out["generated"] = o.generated;
  out["evaluated"] = o.evaluated;
  out["heuristic_calls"] = o.calls;
  out["h_init"] = o.h_init;
  out["time"] = o.time;
  if (novelty) out["novel"] = o.novel;
  if (hybrid) out["ff_init"] = o.ff_init;
  if (timers) {
    py::dict t;
    for (int k = 0; k < 6; k++)
      if (k < 4 || (k == 4 && novelty) || (k == 5 && hybrid)) t[PARTS[k]] = o.parts[k];
    out["timers"] = t;
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_wlsearch, m) {
  m.doc() = "Greedy best-first searches with a linear WL heuristic (wlplan's ILG and WL colours), native.";
  py::class_<Task>(m, "Task")
      .def(py::init<int, IntLists, IntLists, IntLists, IntLists, std::vector<int>, std::vector<int>,
                    std::vector<int>>(),
           py::arg("n_fluents"), py::arg("pre"), py::arg("neg"), py::arg("add"), py::arg("delete"),
           py::arg("init"), py::arg("goal_pos"), py::arg("goal_neg"))
      .def_readonly("n_fluents", &Task::n_fluents);
  py::class_<WLModel>(m, "WLModel")
      .def(py::init<int, bool, const Layers &, std::vector<double>, double, int, const Atoms &, const Atoms &,
                    const Atoms &>(),
           py::arg("iterations"), py::arg("multiset_hash"), py::arg("colour_hash"), py::arg("weights"),
           py::arg("bias"), py::arg("n_objects"), py::arg("goals"), py::arg("statics"), py::arg("fluents"))
      .def("h", [](WLModel &model, std::vector<int> state) {
        for (int a : state)
          if (a < 0 || a >= static_cast<int>(model.atom_pred.size()))
            throw std::invalid_argument("atom id out of range");
        return model.h(state);
      }, py::arg("state"), "w . phi(s) + b of the state given by its fluent atom ids");

  const char *returns = "plan (action indices), reason, counters, time";
  m.def("gbfs", [](const Task &task, WLModel &model, double max_expansions, double time_limit, bool timers,
                   double memory_limit_mb) {
    const Limits limits{max_expansions, time_limit, memory_limit_mb};
    return run([&] { return eager_gbfs(task, model, limits, false, timers); }, false, timers);
  }, py::arg("task"), py::arg("model"), py::arg("max_expansions"), py::arg("time_limit"), py::arg("timers") = false,
        py::arg("memory_limit_mb") = 0.0,
        (std::string("Eager GBFS from the task's initial state (best_first.gbfs): ") + returns).c_str());
  m.def("novelty_gbfs", [](const Task &task, WLModel &model, double max_expansions, double time_limit, bool timers,
                           double memory_limit_mb) {
    const Limits limits{max_expansions, time_limit, memory_limit_mb};
    return run([&] { return eager_gbfs(task, model, limits, true, timers); }, true, timers);
  }, py::arg("task"), py::arg("model"), py::arg("max_expansions"), py::arg("time_limit"), py::arg("timers") = false,
        py::arg("memory_limit_mb") = 0.0,
        (std::string("Eager GBFS ordered by (novelty given h, h) (best_first.novelty_gbfs): ") + returns +
         ", novel").c_str());
  m.def("lazy_gbfs", [](const Task &task, WLModel &model, double max_expansions, double time_limit, bool timers,
                        double memory_limit_mb) {
    const Limits limits{max_expansions, time_limit, memory_limit_mb};
    return run([&] { return lazy_gbfs(task, model, limits, timers); }, false, timers);
  }, py::arg("task"), py::arg("model"), py::arg("max_expansions"), py::arg("time_limit"), py::arg("timers") = false,
        py::arg("memory_limit_mb") = 0.0,
        (std::string("Lazy GBFS (best_first.lazy_gbfs, Fast Downward's lazy_greedy): ") + returns).c_str());
  m.def("hybrid_gbfs", [](const Task &task, WLModel &model, double max_expansions, double time_limit, bool timers,
                          double memory_limit_mb) {
    const Limits limits{max_expansions, time_limit, memory_limit_mb};
    return run([&] { return hybrid_gbfs(task, model, limits, timers); }, false, timers, true);
  }, py::arg("task"), py::arg("model"), py::arg("max_expansions"), py::arg("time_limit"), py::arg("timers") = false,
        py::arg("memory_limit_mb") = 0.0,
        (std::string("Eager GBFS alternating open lists on the learned h and on hFF (genplan.planners.hybrid, "
                     "Fast Downward's eager_greedy([h, ff()])): ") + returns + ", ff_init").c_str());
  m.def("ff", [](const Task &task, std::vector<int> state) {
    for (int a : state)
      if (a < 0 || a >= task.n_fluents) throw std::invalid_argument("atom id out of range");
    std::sort(state.begin(), state.end());
    state.erase(std::unique(state.begin(), state.end()), state.end());
    return FF(task).h(state);
  }, py::arg("task"), py::arg("state"),
        "hFF (unit costs; genplan.planners.relaxed.FF) of the state given by its fluent atom ids; inf: a relaxed dead end");
  m.def("resident_mib", &resident_mib, "the process's resident memory in MiB (/proc/self/statm)");
}
