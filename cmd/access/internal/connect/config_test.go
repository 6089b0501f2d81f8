package connect

import (
	"reflect"
	"strings"
	"testing"
)

// TestTOMLRoundTrip: what login writes to a config.toml reads back the
// same, quotes, backslashes, control characters and non-ASCII included.
func TestTOMLRoundTrip(t *testing.T) {
	t.Parallel()
	cfg := &Config{Current: `a "b"`, Profiles: map[string]Profile{
		`a "b"`: {URL: "https://10.0.0.1:12445", Token: "t\\o\"k\ten\n\x01é", Fingerprint: "ab:cd"},
		"lab":   {URL: "https://lab:12445", Insecure: true},
		"ünï":   {URL: "https://x"},
	}}
	b, err := FormatTOML(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := &Config{Profiles: map[string]Profile{}}
	if err := ParseTOML(b, got); err != nil {
		t.Fatalf("parseTOML: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(got, cfg) {
		t.Errorf("read back %#v\nwant %#v\nfrom\n%s", got.Profiles, cfg.Profiles, b)
	}
}

// TestTOMLHandWritten: a config.toml a person wrote (comments, single
// quotes, inline tables) reads as TOML; a key the config does not know, or
// a file that is not TOML, is an error naming it.
func TestTOMLHandWritten(t *testing.T) {
	t.Parallel()
	got := &Config{Profiles: map[string]Profile{}}
	in := "# my consoles\ncurrent = 'hq'\n[profiles]\nhq = { url = 'https://hq:12445', fingerprint = \"ab\" } # pinned\n"
	if err := ParseTOML([]byte(in), got); err != nil {
		t.Fatal(err)
	}
	want := &Config{Current: "hq", Profiles: map[string]Profile{"hq": {URL: "https://hq:12445", Fingerprint: "ab"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read %#v, want %#v", got, want)
	}
	for in, msg := range map[string]string{
		"[profiles.hq]\nurl = 'x'\ntoken_file = 'y'\n": "unknown key profiles.hq.token_file",
		"current = \n": "toml",
	} {
		err := ParseTOML([]byte(in), &Config{Profiles: map[string]Profile{}})
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseTOML(%q) = %v, want an error containing %q", in, err, msg)
		}
	}
}
