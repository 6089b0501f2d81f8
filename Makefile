# make test   - the test suite, as CI runs it
# make bench  - benchmarks: every operation through the SDK and through a
#               hand-written net/http + encoding/json baseline, same run,
#               same loopback TLS server; prints the ratio table
# make bench-tools - the command line's and the simulator's benchmarks
# make fuzz   - each fuzz target for FUZZTIME (default 30s)
# make release - cross-compile access for linux, macOS and Windows on amd64
#               and arm64 into dist/, with SHA256SUMS (scripts/release.sh)

BENCHCOUNT ?= 5
FUZZTIME ?= 30s

.PHONY: test bench bench-tools fuzz release
test:
	bash .ci/run

bench:
	go test -run '^$$' -bench . -benchmem -count $(BENCHCOUNT) . | tee bench.out
	awk -f scripts/benchratio.awk bench.out

bench-tools:
	go test -run '^$$' -bench . -benchtime 4x ./cmd/access
	go test -run '^$$' -bench . -benchtime 2s -count 3 ./internal/simulator

fuzz:
	for f in $$(go test -list '^Fuzz' . | grep '^Fuzz'); do \
		go test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) . || exit 1; \
	done

release:
	bash scripts/release.sh
