package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileContentAndMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	// A file that others could read is replaced by one they cannot.
	if err := os.WriteFile(path, []byte("old and longer content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("token: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "token: x\n" {
		t.Errorf("content %q, want %q", got, "token: x\n")
	}
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
		// The mode asked for, not the temporary file's 0600.
		other := filepath.Join(dir, "public.txt")
		if err := WriteFile(other, []byte("hello"), 0o644); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(other); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("mode %v (%v), want 0644", fi.Mode().Perm(), err)
		}
	}
	if names := entries(t, dir); len(names) != 2 {
		t.Errorf("directory holds %q, want the two files only", names)
	}
}

// TestWriteFileFailureLeavesNoTemporary: a write that fails after the
// temporary file was made (here the rename: the path is a directory
// that is not empty) removes it and leaves what was at path.
func TestWriteFileFailureLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "inside"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("secret"), 0o600); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "taken" {
		t.Errorf("directory holds %q after the failed write, want only %q", names, "taken")
	}
	if fi, err := os.Stat(path); err != nil || !fi.IsDir() {
		t.Errorf("the directory at path is gone: %v", err)
	}
}

func TestWriteFileMissingDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "no", "such"), []byte("x"), 0o600); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	if names := entries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q, want nothing", names)
	}
}
