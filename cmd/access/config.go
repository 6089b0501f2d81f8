package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"go.yaml.in/yaml/v3"
)

// profile is one named console of the config file.
type profile struct {
	URL         string `yaml:"url" toml:"url"`
	Token       string `yaml:"token,omitempty" toml:"token,omitempty"`
	Fingerprint string `yaml:"fingerprint,omitempty" toml:"fingerprint,omitempty"`
	Insecure    bool   `yaml:"insecure,omitempty" toml:"insecure,omitempty"`
}

// String never shows the token.
func (p profile) String() string {
	return fmt.Sprintf("{url=%s fingerprint=%s insecure=%t token=REDACTED}", p.URL, p.Fingerprint, p.Insecure)
}

// config is the config file: profiles and the current one.
type config struct {
	Current  string             `yaml:"current,omitempty" toml:"current,omitempty"`
	Profiles map[string]profile `yaml:"profiles" toml:"profiles"`
}

// connection is what a client is built from.
type connection struct {
	URL, Fingerprint string
	Insecure         bool
	Source           string // where the URL came from, for doctor
	// token is a function, not a string: fmt prints unexported fields by
	// reflection, without their String methods, so a %v of a struct that
	// holds a connection would otherwise show the token.
	token func() string
}

// tokenOf wraps a token for a connection.
func tokenOf(s string) func() string { return func() string { return s } }

// Token returns the connection's token ("" when none).
func (c connection) Token() string {
	if c.token == nil {
		return ""
	}
	return c.token()
}

// GoString never shows the token.
func (c connection) GoString() string { return c.String() }

// GoString never shows the token.
func (p profile) GoString() string { return p.String() }

// String never shows the token.
func (c connection) String() string {
	return fmt.Sprintf("{url=%s fingerprint=%s insecure=%t token=REDACTED}", c.URL, c.Fingerprint, c.Insecure)
}

// configDir is the directory of the config file: $ACCESS_CONFIG_DIR or
// os.UserConfigDir()/access.
func (a *app) configDir() (string, error) {
	if d := a.getenv("ACCESS_CONFIG_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "access"), nil
}

// loadConfig reads config.yaml (or config.yml or config.toml); a missing
// file is an empty config. It also returns the path it read, which
// saveConfig writes back to, or config.yaml.
func (a *app) loadConfig() (*config, string, error) {
	dir, err := a.configDir()
	if err != nil {
		return nil, "", err
	}
	cfg := &config{Profiles: map[string]profile{}}
	yamlPath := filepath.Join(dir, "config.yaml")
	for _, p := range []string{yamlPath, filepath.Join(dir, "config.yml"), filepath.Join(dir, "config.toml")} {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("config: %w", err)
		}
		if strings.HasSuffix(p, ".toml") {
			err = parseTOML(b, cfg)
		} else {
			err = yaml.Unmarshal(b, cfg)
		}
		if err != nil {
			return nil, "", fmt.Errorf("config %s: %v", p, err)
		}
		if cfg.Profiles == nil {
			cfg.Profiles = map[string]profile{}
		}
		return cfg, p, nil
	}
	return cfg, yamlPath, nil
}

// parseTOML reads a config.toml: a top-level current = "name" and
// [profiles.NAME] tables; a key the config does not know is an error.
func parseTOML(b []byte, cfg *config) error {
	md, err := toml.Decode(string(b), cfg)
	if err != nil {
		return err
	}
	if extra := md.Undecoded(); len(extra) > 0 {
		return fmt.Errorf("unknown key %s", extra[0])
	}
	return nil
}

// saveConfig writes the config back to path, in its format (TOML for a
// .toml file, YAML otherwise), with mode 0600: it goes to a new file of
// that mode renamed over the old one, so a file that was readable by
// others no longer is.
func saveConfig(path string, cfg *config) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var b []byte
	var err error
	if strings.HasSuffix(path, ".toml") {
		b, err = formatTOML(cfg)
	} else {
		b, err = yaml.Marshal(cfg)
	}
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".config-*"+filepath.Ext(path))
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// formatTOML writes the config as TOML.
func formatTOML(cfg *config) ([]byte, error) {
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	err := enc.Encode(cfg)
	return b.Bytes(), err
}

func profileNames(cfg *config) []string {
	names := make([]string, 0, len(cfg.Profiles))
	for n := range cfg.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// resolveConnection merges flags, environment and profile.
func (a *app) resolveConnection() (connection, error) {
	var c connection
	cfg, path, err := a.loadConfig()
	if err != nil {
		return c, err
	}
	name := firstNonEmpty(a.profile, a.getenv("ACCESS_PROFILE"))
	var p profile
	if name != "" {
		var ok bool
		if p, ok = cfg.Profiles[name]; !ok {
			return c, usageErrorf("no profile %q in %s (have: %s)", name, path, strings.Join(profileNames(cfg), ", "))
		}
	} else if cfg.Current != "" {
		p = cfg.Profiles[cfg.Current]
		name = cfg.Current
	}
	c.URL = firstNonEmpty(a.urlFlag, a.getenv("ACCESS_URL"), p.URL)
	switch {
	case a.urlFlag != "":
		c.Source = "--url"
	case a.getenv("ACCESS_URL") != "":
		c.Source = "ACCESS_URL"
	case p.URL != "":
		c.Source = "profile " + name
	}
	if c.URL == "" {
		return c, usageErrorf("no console: set ACCESS_URL or --url, run access login, or try --fake")
	}
	c.Fingerprint = firstNonEmpty(a.fingerprint, a.getenv("ACCESS_FINGERPRINT"), p.Fingerprint)
	c.Insecure = a.insecure || p.Insecure
	switch {
	case a.tokenFile != "":
		tok, err := a.readTokenFile(a.tokenFile)
		if err != nil {
			return c, err
		}
		c.token = tokenOf(tok)
	case a.getenv("ACCESS_TOKEN") != "":
		c.token = tokenOf(strings.TrimSpace(a.getenv("ACCESS_TOKEN")))
	default:
		c.token = tokenOf(p.Token)
	}
	if c.Token() == "" {
		return c, usageErrorf("no token: set ACCESS_TOKEN, use --token-file FILE or run access login")
	}
	return c, nil
}

func (a *app) readTokenFile(path string) (string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(a.stdin, 64<<10))
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		// The error names the file, never its content.
		return "", usageErrorf("--token-file: %v", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", usageErrorf("--token-file %s is empty", path)
	}
	return tok, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// startFake starts the embedded demo console once and returns the
// connection to it, pinned by its certificate's fingerprint.
func (a *app) startFake() connection {
	if a.fakeSrv == nil {
		a.fakeSrv = accesstest.NewServer(accesstest.WithDemoData())
		seedFakeDemo(a.fakeSrv)
	}
	return connection{URL: a.fakeSrv.URL(), token: tokenOf(a.fakeSrv.Token()), Fingerprint: a.fakeSrv.Fingerprint(), Source: "--fake"}
}

// clientOptions are the SDK options for a connection.
func clientOptions(c connection) []access.Option {
	opts := []access.Option{access.WithUserAgent("access-cli/" + version)}
	switch {
	case c.Fingerprint != "":
		opts = append(opts, access.WithPinnedCertificate(c.Fingerprint))
	case c.Insecure:
		opts = append(opts, access.WithInsecureSkipVerify())
	}
	return opts
}

// Client returns the client of this run, built on first use.
func (a *app) Client() (*access.Client, error) {
	if a.client != nil {
		return a.client, nil
	}
	var c connection
	if a.fake {
		c = a.startFake()
	} else {
		var err error
		if c, err = a.resolveConnection(); err != nil {
			return nil, err
		}
	}
	a.sent = &sentKeys{}
	cl, err := access.NewClient(c.URL, c.Token(), append(clientOptions(c), access.WithTransportWrapper(a.sent.wrap))...)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	a.client, a.conn = cl, c
	return cl, nil
}
