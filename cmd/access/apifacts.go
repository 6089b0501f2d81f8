package main

import (
	"strings"
	"sync"

	"github.com/access-dev/access/internal/apifacts"
	"github.com/spf13/cobra"
)

const (
	sdkLine = "SDK: "
	minLine = "Minimum Access version: "
)

// operationOf maps each SDK method to its operation of the API.
var operationOf = sync.OnceValue(func() map[string]apifacts.Operation {
	m := map[string]apifacts.Operation{}
	for _, o := range apifacts.Operations() {
		for _, sdk := range o.SDK {
			m[sdk] = o
		}
	}
	return m
})

// minimumVersion is the minimum Access version of a command that calls the
// SDK methods sdks, in the spec's words (internal/apifacts, without its
// Markdown backticks): the version of their operation, or, when they
// belong to several, each operation's followed by its method
// ("1.22.16 (NFCCards.All); 3.3.10 (NFCCards.Import)"). "" when the spec
// states none. Methods that are no operation of the API (SignPayload,
// UserGroups.CreateAndGet) add nothing.
func minimumVersion(sdks []string) string {
	var ops []apifacts.Operation
	var methods []string
	for _, m := range sdks {
		o, ok := operationOf()[m]
		if !ok {
			continue
		}
		dup := false
		for _, p := range ops {
			dup = dup || p.Section == o.Section
		}
		if !dup {
			ops, methods = append(ops, o), append(methods, m)
		}
	}
	var parts []string
	for i, o := range ops {
		v := strings.ReplaceAll(o.Since, "`", "")
		if v == "—" || v == "" {
			continue
		}
		if len(ops) > 1 {
			v += " (" + methods[i] + ")"
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "; ")
}

// setMinimumVersions writes the "Minimum Access version" line of every
// command whose help names the SDK methods it calls ("SDK: ..."), from
// internal/apifacts, after its "Permission" line; a line the command had
// is replaced, so the help has one source for the versions, the one
// CONFORMANCE.md is built from.
func setMinimumVersions(c *cobra.Command) {
	if strings.Contains(c.Long, "\n"+sdkLine) {
		lines := strings.Split(c.Long, "\n")
		out := make([]string, 0, len(lines)+1)
		var sdks []string
		at := -1
		for _, l := range lines {
			if strings.HasPrefix(l, minLine) {
				continue
			}
			out = append(out, l)
			if list, ok := strings.CutPrefix(l, sdkLine); ok {
				for _, m := range strings.Split(list, ",") {
					sdks = append(sdks, strings.TrimSpace(m))
				}
				at = len(out)
			}
			if strings.HasPrefix(l, "Permission: ") && at == len(out)-1 {
				at = len(out)
			}
		}
		if v := minimumVersion(sdks); v != "" && at >= 0 {
			out = append(out[:at], append([]string{minLine + v}, out[at:]...)...)
		}
		c.Long = strings.Join(out, "\n")
	}
	for _, sub := range c.Commands() {
		setMinimumVersions(sub)
	}
}
