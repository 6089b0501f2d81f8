package dirsync_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/access-dev/access/dirsync"
)

// TestSecretNeverPrints: no fmt verb, JSON nor slog shows a secret, alone
// or inside a configuration.
func TestSecretNeverPrints(t *testing.T) {
	s := dirsync.NewSecret("hunter2-secret")
	cfg := dirsync.LDAPConfig{URL: "ldaps://x", Password: s}
	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s"} {
		out = append(out, fmt.Sprintf(verb, s), fmt.Sprintf(verb, cfg), fmt.Sprintf(verb, &cfg))
	}
	out = append(out, s.String(), s.GoString(), fmt.Sprint(s), fmt.Sprintln(s))
	b, err := json.Marshal(map[string]any{"s": s, "cfg": cfg})
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, string(b))
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("bind", "password", s, "cfg", cfg)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("bind", "password", s)
	out = append(out, logged.String())
	for _, o := range out {
		if strings.Contains(o, "hunter2") || strings.Contains(o, fmt.Sprintf("%x", "hunter2")) {
			t.Errorf("the secret shows: %s", o)
		}
	}
	if got := fmt.Sprintf("%v|%#v|%q", s, s, s); got != "[redacted]|[redacted]|[redacted]" {
		t.Errorf("got %s", got)
	}
	if !strings.Contains(string(b), `"s":"[redacted]"`) || !strings.Contains(logged.String(), `"password":"[redacted]"`) {
		t.Errorf("json %s, log %s", b, &logged)
	}
}

// TestSecretFromFileAndEnv: one trailing newline goes; an empty or
// missing source is ErrConfig, whose message does not hold the value.
func TestSecretFromFileAndEnv(t *testing.T) {
	dir := t.TempDir()
	for content, ok := range map[string]bool{"pw\n": true, "pw\r\n": true, "pw": true, "": false, "\n": false} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := dirsync.SecretFromFile(p)
		if ok != (err == nil) || (ok && s.IsZero()) {
			t.Errorf("%q: %v", content, err)
		}
		if !ok && !errorsIsConfig(err) {
			t.Errorf("%q: err = %v, want ErrConfig", content, err)
		}
	}
	t.Setenv("DIRSYNC_SECRET", "from-env")
	if s, err := dirsync.SecretFromEnv("DIRSYNC_SECRET"); err != nil || s.IsZero() {
		t.Errorf("SecretFromEnv: %v", err)
	}
	if _, err := dirsync.SecretFromEnv("DIRSYNC_SECRET_UNSET"); !errorsIsConfig(err) {
		t.Errorf("unset variable: %v", err)
	}
}

func errorsIsConfig(err error) bool { return errors.Is(err, dirsync.ErrConfig) }
