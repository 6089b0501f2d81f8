#!/bin/sh
# bench-readme.sh: measures what the README's Performance section reports
# and prints its tables, with the machine and its load:
#   - BenchmarkInterleaved (default configuration: every operation, SDK and
#     baseline alternating), COUNT runs of BENCHTIME iterations, as Markdown
#     tables by scripts/benchratio.awk (-v md=1);
#   - BenchmarkNotificationsReplay (the SDK's reader against a hand-written
#     coder/websocket + json.Unmarshal reader on a recorded stream) and
#     BenchmarkNotifications/offered50k (the fake sending at 50,000/s).
# Usage: scripts/bench-readme.sh [COUNT [BENCHTIME]]   (default 5, 2000x)
set -e
count=${1:-5}
benchtime=${2:-2000x}
out=${BENCH_OUT:-bench-readme.out}
echo "machine: $(nproc) CPUs, $(go version | cut -d' ' -f3-), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
go test -run '^$' -bench '^BenchmarkInterleaved$' -benchtime "$benchtime" -count "$count" -benchmem . > "$out"
go test -run '^$' -bench '^BenchmarkNotificationsReplay$' -benchtime 50000x -count "$count" -benchmem . >> "$out"
go test -run '^$' -bench '^BenchmarkNotifications$/^offered50k$' -benchtime 50000x -count "$count" -benchmem . >> "$out"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v md=1 -f scripts/benchratio.awk "$out"
grep '^BenchmarkNotifications/offered50k' "$out"
