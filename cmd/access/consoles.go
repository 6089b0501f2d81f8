package main

import (
	"slices"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
)

// consoles is the Factory's Consoles: the profiles of a command that runs
// against several ([app.siteProfiles]), each client built whole from its
// profile ([app.profileClient]); nil for the usual single console.
func (a *app) consoles(all bool) (*cmdutil.Consoles, error) {
	names, cfg, multi, err := a.siteProfiles(all)
	if !multi || err != nil {
		return nil, err
	}
	return &cmdutil.Consoles{Names: names, Client: func(name string, rate float64) (*access.Client, error) {
		return a.profileClient(cfg, name, rate)
	}}, nil
}

// consoleName is the profile a single console comes from, for the site
// document's sites: overrides: --profile, ACCESS_PROFILE, or the config's
// current profile when no flag or environment names a console.
func (a *app) consoleName() string {
	if n := firstNonEmpty(a.profile, a.getenv("ACCESS_PROFILE")); n != "" || a.fake || a.urlFlag != "" || a.getenv("ACCESS_URL") != "" {
		return n
	}
	if cfg, _, err := a.loadConfig(); err == nil {
		return cfg.Current
	}
	return ""
}

// siteProfiles returns the profiles a site command runs against when it
// runs against several: --all-profiles, or a --profile list with a comma
// ("a,b"). multi is false for the usual single console.
func (a *app) siteProfiles(all bool) (names []string, cfg *config, multi bool, err error) {
	if !all && !strings.Contains(a.profile, ",") {
		return nil, nil, false, nil
	}
	if a.fake || a.urlFlag != "" || a.tokenFile != "" || a.getenv("ACCESS_URL") != "" || a.getenv("ACCESS_TOKEN") != "" {
		return nil, nil, true, usageErrorf("several consoles come from profiles, each whole: --fake, --url, --token-file, ACCESS_URL and ACCESS_TOKEN do not combine with --all-profiles or --profile a,b")
	}
	if firstNonEmpty(a.fingerprint, a.getenv("ACCESS_FINGERPRINT")) != "" {
		return nil, nil, true, usageErrorf("a pin (--fingerprint, ACCESS_FINGERPRINT) is one console's certificate: each profile has its own")
	}
	if all && a.profile != "" {
		return nil, nil, true, usageErrorf("--all-profiles and --profile do not combine")
	}
	cfg, path, err := a.loadConfig()
	if err != nil {
		return nil, nil, true, err
	}
	if all {
		names = profileNames(cfg)
	} else {
		for _, n := range strings.Split(a.profile, ",") {
			if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(names) == 0 {
		return nil, nil, true, usageErrorf("no profiles in %s: run access login", path)
	}
	for _, n := range names {
		if _, ok := cfg.Profiles[n]; !ok {
			return nil, nil, true, usageErrorf("no profile %q in %s (have: %s)", n, path, strings.Join(profileNames(cfg), ", "))
		}
	}
	return names, cfg, true, nil
}

// profileConnection is the connection of one profile, whole (URL, token,
// fingerprint, insecure): flags and environment name one console, not
// several. Every command that runs against several consoles (plan,
// apply, monitor) takes its connections from here.
func (a *app) profileConnection(cfg *config, name string) (connection, error) {
	p := cfg.Profiles[name]
	if p.URL == "" || p.Token == "" {
		return connection{}, usageErrorf("profile %q has no url or no token: run access login again", name)
	}
	conn := connection{URL: p.URL, Fingerprint: p.Fingerprint, Insecure: p.Insecure, Source: "profile " + name}.WithToken(p.Token)
	if err := a.checkScheme(conn.URL, conn.Source); err != nil {
		return connection{}, err
	}
	return conn, nil
}

// profileClient builds the client of one profile ([app.profileConnection]),
// paced at rate requests per second (apply's --rate; 0 for plan).
func (a *app) profileClient(cfg *config, name string, rate float64) (*access.Client, error) {
	conn, err := a.profileConnection(cfg, name)
	if err != nil {
		return nil, err
	}
	opts := clientOptions(conn)
	if rate > 0 {
		opts = append(opts, access.WithRateLimit(rate, 1)) // apply's --rate, per console
	}
	return access.NewClient(conn.URL, conn.Token(), opts...)
}

// watched is the Factory's Watched: the consoles of monitor
// ([app.monitorConnections]), each client built from its connection with
// the command's options added.
func (a *app) watched(all bool) ([]cmdutil.Console, error) {
	conns, err := a.monitorConnections(all)
	if err != nil {
		return nil, err
	}
	out := make([]cmdutil.Console, len(conns))
	for i, nc := range conns {
		conn := nc.conn
		out[i] = cmdutil.Console{Name: nc.name, Client: func(opts ...access.Option) (*access.Client, error) {
			return access.NewClient(conn.URL, conn.Token(), append(clientOptions(conn), opts...)...)
		}}
	}
	return out, nil
}

// namedConnection is a console to watch and its name.
type namedConnection struct {
	name string
	conn connection
}

// monitorConnections returns the consoles to watch: the one the global
// flags, the environment or the current profile name (as for every
// command), or with a comma-separated --profile or --all-profiles the
// profiles of the config file, each whole, as plan and apply take them
// ([app.siteProfiles], [app.profileConnection]).
func (a *app) monitorConnections(all bool) ([]namedConnection, error) {
	names, cfg, multi, err := a.siteProfiles(all)
	if err != nil {
		return nil, err
	}
	if !multi {
		var c connection
		if a.fake {
			c = a.startFake()
		} else if c, err = a.resolveConnection(); err != nil {
			return nil, err
		}
		fromProfile, _ := strings.CutPrefix(c.Source, "profile ")
		if fromProfile == c.Source {
			fromProfile = ""
		}
		name := firstNonEmpty(a.profile, a.getenv("ACCESS_PROFILE"), fromProfile)
		if name == "" {
			name = "default"
			if a.fake {
				name = "fake"
			}
		}
		return []namedConnection{{name: name, conn: c}}, nil
	}
	out := make([]namedConnection, 0, len(names))
	for _, n := range names {
		c, err := a.profileConnection(cfg, n)
		if err != nil {
			return nil, err
		}
		out = append(out, namedConnection{name: n, conn: c})
	}
	return out, nil
}
