#!/bin/sh
# bench-readme.sh: measures what docs/performance.md reports
# and prints its tables, with the machine and its load:
#   - BenchmarkInterleaved (default configuration: every operation, SDK and
#     baseline alternating), COUNT runs of BENCHTIME iterations, as Markdown
#     tables by scripts/benchratio.awk (-v md=1);
#   - BenchmarkNotificationsReplay (the SDK's reader against a hand-written
#     coder/websocket + json.Unmarshal reader on a recorded stream) and
#     BenchmarkNotifications (from the fake: as fast as it sends, one at a
#     time, and offered at 50,000/s).
# Usage: scripts/bench-readme.sh [COUNT [BENCHTIME]]   (default 5, 2000x)
# With BENCH_DOC=docs/performance.md the tables also replace those between
# the lines <!-- bench-tables --> and <!-- /bench-tables --> of that page
# (the text around them, which reads the figures, is to be updated by
# hand). With BENCH_IN=FILE no benchmark runs: FILE's output is formatted.
set -e
count=${1:-5}
benchtime=${2:-2000x}
out=${BENCH_OUT:-bench-readme.out}
if [ -n "$BENCH_DOC" ] && ! { grep -qx '<!-- bench-tables -->' "$BENCH_DOC" && grep -qx '<!-- /bench-tables -->' "$BENCH_DOC"; }; then
  echo "bench-readme.sh: $BENCH_DOC has no <!-- bench-tables --> ... <!-- /bench-tables --> lines" >&2
  exit 2
fi
if [ -n "$BENCH_IN" ]; then
  out=$BENCH_IN
else
echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The 1-minute load average every 30 s while the benchmarks run.
(while :; do cut -d' ' -f1 /proc/loadavg; sleep 30; done) > "$out.load" &
sampler=$!
go test -run '^$' -bench '^BenchmarkInterleaved$' -benchtime "$benchtime" -count "$count" -benchmem . > "$out"
go test -run '^$' -bench '^BenchmarkNotificationsReplay$' -benchtime 50000x -count "$count" -benchmem . >> "$out"
go test -run '^$' -bench '^BenchmarkNotifications$' -benchtime 50000x -count "$count" -benchmem . >> "$out"
kill "$sampler"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); 1-minute load during the run: $(sort -n "$out.load" | head -1) to $(sort -n "$out.load" | tail -1)"
fi
tables=$(mktemp)
trap 'rm -f "$tables"' EXIT
awk -v md=1 -f "$(dirname "$0")/benchratio.awk" "$out" > "$tables"
cat "$tables"
grep '^BenchmarkNotifications/' "$out" || :
if [ -n "$BENCH_DOC" ]; then
  awk -v tables="$tables" '
    $0 == "<!-- /bench-tables -->" { skip = 0; print "" }
    !skip { print }
    $0 == "<!-- bench-tables -->" { print ""; while ((getline l < tables) > 0) print l; skip = 1 }
  ' "$BENCH_DOC" > "$BENCH_DOC.tmp"
  mv "$BENCH_DOC.tmp" "$BENCH_DOC"
  echo "bench-readme.sh: the tables of $BENCH_DOC rewritten"
fi
