// Package apifacts holds the vendor's facts about every operation of the
// developer API: its SDK methods, route, permission and minimum Access
// version. They come from the project's spec, full-api.md: the root
// package's TestConformance writes operations.tsv from it (go test -run
// TestConformance -update .) and fails when the two disagree, builds
// CONFORMANCE.md from this file, and the command line's help reads it,
// so the facts have one source.
package apifacts

import (
	_ "embed"
	"strings"
	"sync"
)

//go:embed operations.tsv
var operationsTSV string

// Operation is one operation of the developer API.
type Operation struct {
	Section   string   // the vendor's § number, "3.4"
	SDK       []string // the SDK's methods, "Users.List", "Users.All"
	Operation string   // the vendor's title
	Method    string
	Path      string // under /api/v1/developer, the vendor's spelling (":id")
	Perm      string // the token permission, "view:user"
	Since     string // the minimum Access version as the spec states it, "—" when none
}

// Operations returns every operation, in the spec's order.
func Operations() []Operation {
	lines := strings.Split(strings.TrimSuffix(operationsTSV, "\n"), "\n")
	ops := make([]Operation, 0, len(lines))
	for _, l := range lines[1:] { // the header
		f := strings.Split(l, "\t")
		if len(f) != 7 {
			panic("apifacts: malformed operations.tsv line: " + l)
		}
		ops = append(ops, Operation{Section: f[0], SDK: strings.Split(f[1], ", "), Operation: f[2], Method: f[3], Path: f[4], Perm: f[5], Since: f[6]})
	}
	return ops
}

// bySDK maps each SDK method to its operation.
var bySDK = sync.OnceValue(func() map[string]Operation {
	m := map[string]Operation{}
	for _, o := range Operations() {
		for _, sdk := range o.SDK {
			m[sdk] = o
		}
	}
	return m
})

// Lookup returns the operation an SDK method ("Users.All") belongs to;
// false for a method that is no operation of the API
// (UserGroups.CreateAndGet, SignPayload).
func Lookup(sdk string) (Operation, bool) {
	o, ok := bySDK()[sdk]
	return o, ok
}

// MinVersion is the operation's minimum Access version as help text shows
// it (the spec's text without its Markdown backticks), or "" when the spec
// states none.
func (o Operation) MinVersion() string {
	if o.Since == "—" || o.Since == "" {
		return ""
	}
	return strings.ReplaceAll(o.Since, "`", "")
}
