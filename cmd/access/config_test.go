package main

import (
	"reflect"
	"testing"
)

// TestTOMLRoundTrip: what login writes to a config.toml reads back the
// same, quotes, backslashes, control characters and non-ASCII included.
func TestTOMLRoundTrip(t *testing.T) {
	t.Parallel()
	cfg := &config{Current: `a "b"`, Profiles: map[string]profile{
		`a "b"`: {URL: "https://10.0.0.1:12445", Token: "t\\o\"k\ten\n\x01é", Fingerprint: "ab:cd"},
		"lab":   {URL: "https://lab:12445", Insecure: true},
		"ünï":   {URL: "https://x"},
	}}
	b := formatTOML(cfg)
	got := &config{Profiles: map[string]profile{}}
	if err := parseTOML(b, got); err != nil {
		t.Fatalf("parseTOML: %v\n%s", err, b)
	}
	if !reflect.DeepEqual(got, cfg) {
		t.Errorf("read back %#v\nwant %#v\nfrom\n%s", got.Profiles, cfg.Profiles, b)
	}
	want := "current = \"a \\\"b\\\"\"\n\n[profiles.\"a \\\"b\\\"\"]\nurl = \"https://10.0.0.1:12445\"\ntoken = \"t\\\\o\\\"k\\u0009en\\u000A\\u0001é\"\nfingerprint = \"ab:cd\"\n\n" +
		"[profiles.lab]\nurl = \"https://lab:12445\"\ninsecure = true\n\n[profiles.\"ünï\"]\nurl = \"https://x\"\n"
	if string(b) != want {
		t.Errorf("formatTOML wrote\n%s\nwant\n%s", b, want)
	}
}
