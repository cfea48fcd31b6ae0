// genplan._wlsearch's searches over a grounded STRIPS task with the linear WL heuristic
// (wl.hpp): eager GBFS, eager GBFS ordered by novelty then h, lazy GBFS, and the hybrid
// eager GBFS that alternates the learned h with hFF (ff.hpp). Each is one call
// per problem and follows its Python reference in genplan.planners.best_first step for step.
#pragma once

#include "core.hpp"
#include "wl.hpp"

namespace wlsearch {

// best_first.gbfs (novelty false) and best_first.novelty_gbfs (novelty true)
Outcome eager_gbfs(const Task &task, WLModel &model, const Limits &limits, bool novelty, bool timers);
// best_first.lazy_gbfs
Outcome lazy_gbfs(const Task &task, WLModel &model, const Limits &limits, bool timers);
// genplan.planners.hybrid.hybrid_gbfs: eager GBFS alternating an open list on the learned h with
// one on hFF (hybrid.cpp)
Outcome hybrid_gbfs(const Task &task, WLModel &model, const Limits &limits, bool timers);
}  // namespace wlsearch
