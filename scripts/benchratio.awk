# benchratio.awk: reads `go test -bench -benchmem` output and prints, per
# operation, the SDK's and the baseline's time and allocations per call and
# their ratio. Sub-benchmarks must be named <op>/sdk and <op>/baseline;
# BenchmarkInterleaved* (one table each: the default configuration, and
# NoTimeout) report sdk-ns/call, base-ns/call, ratio and allocations.
# With -count N, the median of the N runs is used.
#
# With -v md=1 it prints instead the tables of docs/performance.md (Markdown): one row
# per operation of BenchmarkInterleaved as measured (median time per call
# of each side, the median ratio and the range of the N runs' ratios,
# the median of the runs' per-call median ratios (p50-ratio: each side's
# median call over the run, which a call that waited for a core moves
# less than a sum), allocations per call and the difference),
# single-request operations first, then the iterators and composite calls (reported with the
# "composite" metric); a ratio above 1.05 or more than 8 extra
# allocations is marked with "over", a ratio whose runs straddle 1.05
# with "straddles"; then the <op>/sdk and <op>/baseline pairs.
#
#   go test -run '^$' -bench 'BenchmarkInterleaved$' -benchtime 2000x -count 5 -benchmem . | awk -v md=1 -f scripts/benchratio.awk
function minof(list,    n, a, i, m) {
	n = split(list, a, " "); m = a[1] + 0
	for (i = 2; i <= n; i++) if (a[i] + 0 < m) m = a[i] + 0
	return m
}
function maxof(list,    n, a, i, m) {
	n = split(list, a, " "); m = a[1] + 0
	for (i = 2; i <= n; i++) if (a[i] + 0 > m) m = a[i] + 0
	return m
}
function mdrows(grp, composite,    k, n, parts, r, lo, hi, note, extra, cnt, over, all, strad, p50, allp) {
	printf "| operation | SDK µs/call | baseline µs/call | ratio (median) | ratio (runs) | per-call median ratio | SDK allocs | baseline allocs | extra allocs | |\n"
	printf "|---|---:|---:|---:|---|---:|---:|---:|---:|---|\n"
	for (k = 1; k <= ni; k++) {
		n = iorder[k]
		split(n, parts, SUBSEP)
		if (parts[1] != grp || (n in comp) != composite) continue
		r = median(inr[n]); lo = minof(inr[n]); hi = maxof(inr[n]); extra = ina[n] - inba[n]
		note = ""
		if (r > 1.05 || extra > 8) { note = "over"; over++ }
		else if (hi > 1.05) { note = "straddles"; strad++ }
		cnt++
		all = all " " r
		p50 = (inp[n] == "") ? "" : sprintf("%.3f", median(inp[n]))
		if (p50 != "") allp = allp " " median(inp[n])
		printf "| %s | %.1f | %.1f | %.3f | %.3f–%.3f | %s | %d | %d | %+d | %s |\n", parts[2], median(ins[n]) / 1000, median(inb[n]) / 1000, r, lo, hi, p50, ina[n], inba[n], extra, note
	}
	printf "\n%d operations (medians of %d runs): median ratio %.3f", cnt, split(inr[iorder[1]], parts, " "), median(all)
	if (allp != "") printf " (per-call median ratio %.3f)", median(allp)
	printf "; %d over 1.05 or +8 allocations, %d more straddling 1.05.\n\n", over, strad
}
function median(list,    n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
/^Benchmark.*\/(sdk|baseline)(-[0-9]+)? / {
	name = $1; sub(/-[0-9]+$/, "", name)
	kind = name; sub(/.*\//, "", kind)
	op = name; sub(/\/[^\/]*$/, "", op); sub(/^Benchmark/, "", op)
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "ns/op") ns[op, kind] = ns[op, kind] " " $i
		if ($(i+1) == "allocs/op") al[op, kind] = al[op, kind] " " $i
		if ($(i+1) == "records/s" || $(i+1) == "events/s") rs[op, kind] = rs[op, kind] " " $i
	}
	if (!(op in seen)) { seen[op] = 1; order[++nops] = op }
}
/^BenchmarkInterleaved[A-Za-z]*\// {
	name = $1; sub(/-[0-9]+$/, "", name)
	grp = name; sub(/\/.*/, "", grp); sub(/^Benchmark/, "", grp)
	sub(/^BenchmarkInterleaved[A-Za-z]*\//, "", name)
	name = grp SUBSEP name
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "sdk-ns/call") ins[name] = ins[name] " " $i
		if ($(i+1) == "base-ns/call") inb[name] = inb[name] " " $i
		if ($(i+1) == "ratio") inr[name] = inr[name] " " $i
		if ($(i+1) == "p50-ratio") inp[name] = inp[name] " " $i
		if ($(i+1) == "sdk-allocs/call") ina[name] = $i
		if ($(i+1) == "base-allocs/call") inba[name] = $i
		if ($(i+1) == "composite") comp[name] = 1
	}
	if (!(grp in gseen)) { gseen[grp] = 1; gorder[++ng] = grp }
	if (!(name in iseen)) { iseen[name] = 1; iorder[++ni] = name }
}
END {
	if (md) {
		for (g = 1; g <= ng; g++) {
			printf "%s, single requests:\n\n", gorder[g]
			mdrows(gorder[g], 0)
			printf "%s, iterators and composite calls:\n\n", gorder[g]
			mdrows(gorder[g], 1)
		}
		if (nops > 0) {
			printf "| benchmark | SDK ns/op | baseline ns/op | ratio | SDK allocs/op | baseline allocs/op | SDK rate | baseline rate |\n"
			printf "|---|---:|---:|---:|---:|---:|---:|---:|\n"
			for (k = 1; k <= nops; k++) {
				op = order[k]
				if (ns[op, "sdk"] == "" || ns[op, "baseline"] == "") continue
				s = median(ns[op, "sdk"]); b = median(ns[op, "baseline"])
				printf "| %s | %.0f | %.0f | %.3f | %d | %d |", op, s, b, s / b, median(al[op, "sdk"]), median(al[op, "baseline"])
				if (rs[op, "sdk"] != "") printf " %.0f/s | %.0f/s |\n", median(rs[op, "sdk"]), median(rs[op, "baseline"])
				else printf " | |\n"
			}
		}
		exit
	}
	for (g = 1; g <= ng; g++) {
		grp = gorder[g]
		printf "%s (SDK and baseline call alternate in every iteration):\n", grp
		printf "%-26s %12s %12s %7s %7s %8s %8s\n", "operation", "sdk ns/call", "base ns/call", "ratio", "p50", "sdk alc", "base alc"
		for (k = 1; k <= ni; k++) {
			n = iorder[k]
			split(n, parts, SUBSEP)
			if (parts[1] != grp) continue
			printf "%-26s %12.0f %12.0f %7.3f %7.3f %8d %8d\n", parts[2], median(ins[n]), median(inb[n]), median(inr[n]), median(inp[n]), ina[n], inba[n]
		}
		printf "\n"
	}
	if (nops == 0) exit
	if (ng > 0) printf "Separate runs (BenchmarkOperations, BenchmarkVisitorsAll100k):\n"
	printf "%-44s %12s %12s %7s %8s %8s\n", "operation", "sdk ns/op", "base ns/op", "ratio", "sdk alc", "base alc"
	for (k = 1; k <= nops; k++) {
		op = order[k]
		if (ns[op, "sdk"] == "" || ns[op, "baseline"] == "") continue
		s = median(ns[op, "sdk"]); b = median(ns[op, "baseline"])
		printf "%-44s %12.0f %12.0f %7.3f %8d %8d", op, s, b, s / b, median(al[op, "sdk"]), median(al[op, "baseline"])
		if (rs[op, "sdk"] != "") printf "   records/s %.0f vs %.0f (%.1f%%)", median(rs[op, "sdk"]), median(rs[op, "baseline"]), 100 * median(rs[op, "sdk"]) / median(rs[op, "baseline"])
		printf "\n"
	}
}
