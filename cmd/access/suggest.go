package main

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Suggestions for a name that matches nothing: up to three of the closest
// names, those sharing the most words first, then by edit distance.

// maxSuggestions is how many names a "did you mean" lists at most.
const maxSuggestions = 3

// words splits a name into lower-case words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// editDistance is the Levenshtein distance of a and b, by rune.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// suggestNames returns up to maxSuggestions of the records close to
// query, each by one of its names (records[i] holds a record's names: its
// name, then another such as a full name): those sharing a word with
// query, or within an edit distance of a third of its length (at least
// 2), ordered by the words they share (most first), then the edit
// distance, then the name. A record is shown by the name that scored best.
func suggestNames(query string, records [][]string) []string {
	q := strings.ToLower(strings.TrimSpace(query))
	qWords := map[string]bool{}
	for _, w := range words(q) {
		qWords[w] = true
	}
	type cand struct {
		name         string
		shared, dist int
	}
	better := func(a, b cand) bool {
		if a.shared != b.shared {
			return a.shared > b.shared
		}
		if a.dist != b.dist {
			return a.dist < b.dist
		}
		return a.name < b.name
	}
	var cands []cand
	seen := map[string]bool{}
	for _, names := range records {
		var best *cand
		for _, n := range names {
			if n == "" {
				continue
			}
			shared := 0
			for _, w := range words(n) {
				if qWords[w] {
					shared++
				}
			}
			c := cand{n, shared, editDistance(q, strings.ToLower(n))}
			if c.shared == 0 && c.dist > max(2, len([]rune(q))/3) {
				continue
			}
			if best == nil || better(c, *best) {
				best = &c
			}
		}
		if best != nil && !seen[best.name] {
			seen[best.name] = true
			cands = append(cands, *best)
		}
	}
	sort.Slice(cands, func(i, j int) bool { return better(cands[i], cands[j]) })
	var out []string
	for i := 0; i < len(cands) && i < maxSuggestions; i++ {
		out = append(out, cands[i].name)
	}
	return out
}

// didYouMean is `: did you mean "Office 1", "Office 2"?` for the names
// close to query, or "" when none is.
func didYouMean(query string, records [][]string) string {
	s := suggestNames(query, records)
	if len(s) == 0 {
		return ""
	}
	q := make([]string, len(s))
	for i, n := range s {
		q[i] = fmt.Sprintf("%q", n)
	}
	return ": did you mean " + strings.Join(q, ", ") + "?"
}

// namesOf lists the names of each record, for didYouMean.
func namesOf(list []named) [][]string {
	out := make([][]string, len(list))
	for i, n := range list {
		out[i] = append([]string{n.name}, n.alts...)
	}
	return out
}

// eachName makes each name a record of its own, for didYouMean.
func eachName(names []string) [][]string {
	out := make([][]string, len(names))
	for i, n := range names {
		out[i] = []string{n}
	}
	return out
}

// maxTypoDistance is how far a mistyped command or flag name may be from
// the one meant, in edits.
const maxTypoDistance = 2

// typoSuggestion is `: did you mean "list"?` (or `--columns`) after a
// usage error that names an unknown command or flag of cmd: the names
// within maxTypoDistance of it, or that it starts, closest first. It is ""
// for any other error, or when no name is close.
func typoSuggestion(cmd *cobra.Command, err error) string {
	if cmd == nil || err == nil {
		return ""
	}
	msg := err.Error()
	if m := unknownCommandRE().FindStringSubmatch(msg); m != nil {
		var names []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				names = append(names, c.Name())
			}
		}
		if s := closeNames(m[1], names); len(s) > 0 {
			for i := range s {
				s[i] = strconv.Quote(s[i])
			}
			return ": did you mean " + strings.Join(s, ", ") + "?"
		}
		return ""
	}
	if m := unknownFlagRE().FindStringSubmatch(msg); m != nil {
		var names []string
		seen := map[string]bool{}
		add := func(f *pflag.Flag) {
			if !f.Hidden && !seen[f.Name] {
				seen[f.Name] = true
				names = append(names, f.Name)
			}
		}
		cmd.Flags().VisitAll(add)
		cmd.InheritedFlags().VisitAll(add)
		if s := closeNames(m[1], names); len(s) > 0 {
			for i := range s {
				s[i] = "--" + s[i]
			}
			return ": did you mean " + strings.Join(s, ", ") + "?"
		}
	}
	return ""
}

var (
	unknownCommandRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown command "([^"]*)" for "[^"]*"$`) })
	unknownFlagRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown flag: --([^\s=]+)$`) })
)

// closeNames returns up to maxSuggestions of names within maxTypoDistance
// edits of typed (case folded), or that start with it, closest first.
func closeNames(typed string, names []string) []string {
	t := strings.ToLower(typed)
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	for _, n := range names {
		d := editDistance(t, strings.ToLower(n))
		if d <= maxTypoDistance || (len(t) >= 2 && strings.HasPrefix(strings.ToLower(n), t)) {
			cands = append(cands, cand{n, d})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	for i := 0; i < len(cands) && i < maxSuggestions; i++ {
		out = append(out, cands[i].name)
	}
	return out
}
