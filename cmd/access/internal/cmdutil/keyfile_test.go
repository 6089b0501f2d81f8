package cmdutil

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A new key file is written 0600 and read back as the key it returned;
// it is never overwritten; a key file others may read, or too short, is
// refused with a *KeyFileError (exit status 2) that holds no key.
func TestPseudonymKeyFlags(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "site.key")
	key, err := (&PseudonymKeyFlags{NewKeyFile: path}).Key()
	if err != nil || len(key) < MinPseudonymKeyLength {
		t.Fatalf("new key of %d bytes: %v", len(key), err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 && runtime.GOOS != "windows" {
		t.Fatalf("key file: %v %v", st, err)
	}
	got, err := (&PseudonymKeyFlags{KeyFile: path}).Key()
	if err != nil || string(got) != string(key) {
		t.Fatalf("read back %v", err)
	}
	if k, err := (&PseudonymKeyFlags{}).Key(); k != nil || err != nil {
		t.Errorf("no flag: %v %v", k, err)
	}
	refused := func(what string, f PseudonymKeyFlags, want error) {
		t.Helper()
		_, err := f.Key()
		var ke *KeyFileError
		if !errors.As(err, &ke) || !errors.Is(err, want) || ke.ExitCode() != 2 {
			t.Errorf("%s: %v", what, err)
		}
		if err != nil && strings.Contains(err.Error(), string(key)) {
			t.Errorf("%s: the key in %q", what, err)
		}
	}
	refused("an existing new key file", PseudonymKeyFlags{NewKeyFile: path}, ErrKeyFileExists)
	if got, _ := os.ReadFile(path); strings.TrimSpace(string(got)) != string(key) {
		t.Error("the existing key file was changed")
	}
	if runtime.GOOS != "windows" {
		if err := os.Chmod(path, 0o640); err != nil {
			t.Fatal(err)
		}
		refused("a key file the group may read", PseudonymKeyFlags{KeyFile: path}, ErrKeyFileOpen)
	}
	short := filepath.Join(dir, "short.key")
	if err := os.WriteFile(short, []byte("  0123456789  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused("a short key file", PseudonymKeyFlags{KeyFile: short}, ErrKeyFileShort)
	refused("a missing key file", PseudonymKeyFlags{KeyFile: filepath.Join(dir, "none")}, os.ErrNotExist)
	if _, err := (&PseudonymKeyFlags{KeyFile: path, NewKeyFile: short}).Key(); err == nil {
		t.Error("both flags accepted")
	}
}
