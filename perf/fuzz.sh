#!/bin/sh
# The longer fuzz run: every target of tests/fuzz/targets.py, ONE at a time, niced, for SECONDS
# each (default 300), each from a fresh corpus seeded from the repository's files. Findings go to
# $OUT/found/<target>/; the summary (the command, each target's runs, coverage and outcome) to
# $OUT/fuzz.txt, which perf/results/fuzz.txt is a copy of.
#
#   ./genplan-env sh perf/fuzz.sh [SECONDS] [OUT]       (OUT default: a new folder under /tmp)
set -u
seconds=${1:-300}
out=${2:-$(mktemp -d /tmp/genplan-fuzz-run.XXXXXX)}
root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd -P) || exit 1
mkdir -p "$out"
summary=$out/fuzz.txt
{
  echo "command: ./genplan-env sh perf/fuzz.sh $seconds  (each target: nice -n 10 python tests/fuzz/run.py TARGET -max_total_time=$seconds -timeout=10 -rss_limit_mb=2048)"
  echo "started: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $(git -C "$root" rev-parse --short HEAD), atheris $(python -c 'import importlib.metadata as m; print(m.version("atheris"))'), $(python --version 2>&1)"
} > "$summary"
status=0
for target in $(python -c "import sys; sys.path.insert(0, '$root/tests/fuzz'); import targets; print(' '.join(targets.TARGETS))" 2>/dev/null); do
  mkdir -p "$out/corpus/$target" "$out/found/$target"
  nice -n 10 python "$root/tests/fuzz/run.py" "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$out/found/$target/" "$out/corpus/$target" > "$out/$target.log" 2>&1
  rc=$?
  done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$out/$target.log" | tail -1)
  found=$(ls "$out/found/$target" | grep -v '^slow-unit-' | tr '\n' ' ')
  [ "$rc" -eq 0 ] && [ -z "$found" ] || status=1
  echo "$target: rc $rc; ${done_line:-no DONE line (see $out/$target.log)}; corpus $(ls "$out/corpus/$target" | wc -l) inputs; findings: ${found:-none}" >> "$summary"
done
echo "finished: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); exit $status" >> "$summary"
cat "$summary"
exit $status
