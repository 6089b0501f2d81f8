package main

import (
	"strings"

	"github.com/access-dev/access/internal/apifacts"
)

const (
	sdkLine = "SDK: "
	minLine = "Minimum Access version: "
)

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
		o, ok := apifacts.Lookup(m)
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
		v := o.MinVersion()
		if v == "" {
			continue
		}
		if len(ops) > 1 {
			v += " (" + methods[i] + ")"
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "; ")
}

// factsHelp is the last paragraph of the help of a command that calls
// the API: the SDK methods it calls (sdks, comma separated), the token's
// permission and, from internal/apifacts, the minimum Access version, so
// the help has one source for the versions, the one CONFORMANCE.md is
// built from.
func factsHelp(sdks, perm string) string {
	s := sdkLine + sdks + "\nPermission: " + perm
	var methods []string
	for _, m := range strings.Split(sdks, ",") {
		methods = append(methods, strings.TrimSpace(m))
	}
	if v := minimumVersion(methods); v != "" {
		s += "\n" + minLine + v
	}
	return s
}
