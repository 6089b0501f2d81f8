package cmdutil

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access/internal/apifacts"
	"github.com/spf13/cobra"
)

const (
	sdkLine = "SDK: "
	minLine = "Minimum Access version: "
)

// MinimumVersion is the minimum Access version of a command that calls the
// SDK methods sdks, in the spec's words (internal/apifacts, without its
// Markdown backticks): the version of their operation, or, when they
// belong to several, each operation's followed by its method
// ("1.22.16 (NFCCards.All); 3.3.10 (NFCCards.Import)"). "" when the spec
// states none. Methods that are no operation of the API (SignPayload,
// UserGroups.CreateAndGet) add nothing.
func MinimumVersion(sdks []string) string {
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

// FactsHelp is the last paragraph of the help of a command that calls
// the API: the SDK methods it calls (sdks, comma separated), the token's
// permission and, from internal/apifacts, the minimum Access version, so
// the help has one source for the versions, the one CONFORMANCE.md is
// built from.
func FactsHelp(sdks, perm string) string {
	s := sdkLine + sdks + "\nPermission: " + perm
	var methods []string
	for _, m := range strings.Split(sdks, ",") {
		methods = append(methods, strings.TrimSpace(m))
	}
	if v := MinimumVersion(methods); v != "" {
		s += "\n" + minLine + v
	}
	return s
}

// ParseWhen reads a time flag: a duration back from now ("24h", "90m",
// "7d") or a date ("2026-01-31", "2026-01-31T08:00:00Z", "2026-01-31 08:00").
func ParseWhen(s string, now time.Time) (time.Time, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.AddDate(0, 0, -d), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("%q: a duration back from now must not be negative", s)
		}
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if u, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(u, 0), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (24h, 7d) nor a date (2006-01-02, RFC 3339)", s)
}

// ExactArgs takes exactly n arguments, named names in the usage error of
// a missing one.
func ExactArgs(n int, names ...string) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < n {
			return UsageErrorf("%s: missing argument %s", c.CommandPath(), strings.Join(names[len(args):], " "))
		}
		if len(args) > n {
			return UsageErrorf("%s: too many arguments", c.CommandPath())
		}
		return nil
	}
}
