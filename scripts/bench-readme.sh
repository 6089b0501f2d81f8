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
set -e
count=${1:-5}
benchtime=${2:-2000x}
out=${BENCH_OUT:-bench-readme.out}
echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# The 1-minute load average every 30 s while the benchmarks run.
(while :; do cut -d' ' -f1 /proc/loadavg; sleep 30; done) > "$out.load" &
sampler=$!
go test -run '^$' -bench '^BenchmarkInterleaved$' -benchtime "$benchtime" -count "$count" -benchmem . > "$out"
go test -run '^$' -bench '^BenchmarkNotificationsReplay$' -benchtime 50000x -count "$count" -benchmem . >> "$out"
go test -run '^$' -bench '^BenchmarkNotifications$' -benchtime 50000x -count "$count" -benchmem . >> "$out"
kill "$sampler"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); 1-minute load during the run: $(sort -n "$out.load" | head -1) to $(sort -n "$out.load" | tail -1)"
awk -v md=1 -f scripts/benchratio.awk "$out"
grep '^BenchmarkNotifications/' "$out"
