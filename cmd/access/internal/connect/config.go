package connect

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/access-dev/access/internal/atomicfile"
	"go.yaml.in/yaml/v3"
)

// Profile is one named console of the config file.
type Profile struct {
	URL         string `yaml:"url" toml:"url"`
	Token       string `yaml:"token,omitempty" toml:"token,omitempty"`
	Fingerprint string `yaml:"fingerprint,omitempty" toml:"fingerprint,omitempty"`
	Insecure    bool   `yaml:"insecure,omitempty" toml:"insecure,omitempty"`
}

// String never shows the token.
func (p Profile) String() string {
	return fmt.Sprintf("{url=%s fingerprint=%s insecure=%t token=REDACTED}", p.URL, p.Fingerprint, p.Insecure)
}

// Config is the config file: profiles and the current one.
type Config struct {
	Current  string             `yaml:"current,omitempty" toml:"current,omitempty"`
	Profiles map[string]Profile `yaml:"profiles" toml:"profiles"`
}

// GoString never shows the token.
func (p Profile) GoString() string { return p.String() }

// Load reads the config file of dir: config.yaml (or config.yml or
// config.toml); a missing file is an empty config. It also returns the
// path it read, which Save writes back to, or config.yaml, and whether
// it read a file.
func Load(dir string) (cfg *Config, path string, read bool, err error) {
	cfg = &Config{Profiles: map[string]Profile{}}
	yamlPath := filepath.Join(dir, "config.yaml")
	for _, p := range []string{yamlPath, filepath.Join(dir, "config.yml"), filepath.Join(dir, "config.toml")} {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", false, fmt.Errorf("config: %w", err)
		}
		if strings.HasSuffix(p, ".toml") {
			err = ParseTOML(b, cfg)
		} else {
			err = yaml.Unmarshal(b, cfg)
		}
		if err != nil {
			return nil, "", false, fmt.Errorf("config %s: %v", p, err)
		}
		if cfg.Profiles == nil {
			cfg.Profiles = map[string]Profile{}
		}
		return cfg, p, true, nil
	}
	return cfg, yamlPath, false, nil
}

// ParseTOML reads a config.toml: a top-level current = "name" and
// [profiles.NAME] tables; a key the config does not know is an error.
func ParseTOML(b []byte, cfg *Config) error {
	md, err := toml.Decode(string(b), cfg)
	if err != nil {
		return err
	}
	if extra := md.Undecoded(); len(extra) > 0 {
		return fmt.Errorf("unknown key %s", extra[0])
	}
	return nil
}

// Save writes the config back to path, in its format (TOML for a
// .toml file, YAML otherwise), with mode 0600: it goes to a new file of
// that mode renamed over the old one, so a file that was readable by
// others no longer is.
func Save(path string, cfg *Config) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	var b []byte
	var err error
	if strings.HasSuffix(path, ".toml") {
		b, err = FormatTOML(cfg)
	} else {
		b, err = yaml.Marshal(cfg)
	}
	if err != nil {
		return err
	}
	// A crash never leaves an empty or partial config behind.
	return atomicfile.WriteFile(path, b, 0o600)
}

// FormatTOML writes the config as TOML.
func FormatTOML(cfg *Config) ([]byte, error) {
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.Indent = ""
	err := enc.Encode(cfg)
	return b.Bytes(), err
}

// ProfileNames are the names of cfg's profiles, sorted.
func ProfileNames(cfg *Config) []string {
	names := make([]string, 0, len(cfg.Profiles))
	for n := range cfg.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
