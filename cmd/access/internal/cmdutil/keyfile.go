package cmdutil

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/access-dev/access/internal/atomicfile"
)

// MinPseudonymKeyLength is the fewest bytes a key file of pseudonyms
// holds (white space around them left out); --new-key-file writes 64.
const MinPseudonymKeyLength = 32

// The reasons a key file is refused, matched (errors.Is) by a
// [KeyFileError].
var (
	// ErrKeyFileOpen: others than its owner may read the key file.
	ErrKeyFileOpen = errors.New("readable by group or others")
	// ErrKeyFileShort: the key file holds fewer than
	// MinPseudonymKeyLength bytes.
	ErrKeyFileShort = errors.New("too short")
	// ErrKeyFileExists: --new-key-file names a file that exists.
	ErrKeyFileExists = errors.New("exists")
)

// KeyFileError is a key file of pseudonyms refused or unreadable. It is a
// usage error (exit status 2) and never holds the key.
type KeyFileError struct {
	// Flag is the flag that named the file ("--pseudonym-key-file").
	Flag string
	// Path is the file.
	Path string
	// Err is why: ErrKeyFileOpen, ErrKeyFileShort, ErrKeyFileExists or
	// the error of the file system.
	Err error
	// Hint tells what to do.
	Hint string
}

// Error implements error.
func (e *KeyFileError) Error() string {
	s := fmt.Sprintf("%s %s: %v", e.Flag, e.Path, e.Err)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Unwrap is Err.
func (e *KeyFileError) Unwrap() error { return e.Err }

// ExitCode is 2, a usage error's.
func (e *KeyFileError) ExitCode() int { return 2 }

// PseudonymKeyFlags are the flags of a command that writes pseudonyms
// (access capture, access fake record) that choose their key: read from a
// file (--pseudonym-key-file), or drawn at random and written to a new
// file (--new-key-file) for the next command to read, so that a seed and
// a capture of one console give one person one pseudonym. The key is
// never a flag's value. Without either, the key is random and never
// written.
type PseudonymKeyFlags struct {
	// KeyFile is the key file to read.
	KeyFile string
	// NewKeyFile is the key file to write, with a random key.
	NewKeyFile string

	wrote bool // Key wrote NewKeyFile in this run
}

// Add declares --pseudonym-key-file and --new-key-file on cmd, into k.
func (k *PseudonymKeyFlags) Add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&k.KeyFile, "pseudonym-key-file", "", "read the key of the pseudonyms from `FILE` (mode 0600, at least 32 bytes; default: a random key, never written)")
	fl.StringVar(&k.NewKeyFile, "new-key-file", "", "draw a random key of the pseudonyms and write it to the new `FILE` (mode 0600), for --pseudonym-key-file of the next command")
}

// Key is the key the flags choose: the key file's content (white space
// around it left out), or a random key written to the new key file, or
// nil (the command draws a random key of its own) when neither is given.
// A key file that others than its owner may read, or shorter than
// MinPseudonymKeyLength, or a new key file that exists, is a
// *KeyFileError.
func (k *PseudonymKeyFlags) Key() ([]byte, error) {
	switch {
	case k.KeyFile != "" && k.NewKeyFile != "":
		return nil, UsageErrorf("--pseudonym-key-file and --new-key-file: give one")
	case k.KeyFile != "":
		return ReadPseudonymKey("--pseudonym-key-file", k.KeyFile)
	case k.NewKeyFile != "":
		key, err := WritePseudonymKey("--new-key-file", k.NewKeyFile)
		k.wrote = err == nil
		return key, err
	}
	return nil, nil
}

// Discard removes the new key file Key wrote in this run, for a command
// that failed before it wrote anything under the key: the same command
// run again can then write it, instead of being refused a key file that
// exists and serves nothing. It does nothing when Key wrote no file.
func (k *PseudonymKeyFlags) Discard() {
	if k.wrote {
		_ = os.Remove(k.NewKeyFile)
		k.wrote = false
	}
}

// ReadPseudonymKey reads the key file path (named by flag): its content,
// white space around it left out.
func ReadPseudonymKey(flag, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &KeyFileError{Flag: flag, Path: path, Err: unwrapPath(err)}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &KeyFileError{Flag: flag, Path: path, Err: unwrapPath(err)}
	}
	if st.Mode().Perm()&0o077 != 0 && runtime.GOOS != "windows" {
		return nil, &KeyFileError{Flag: flag, Path: path, Err: ErrKeyFileOpen,
			Hint: fmt.Sprintf("mode %04o; chmod 600 %s", st.Mode().Perm(), path)}
	}
	b, err := io.ReadAll(io.LimitReader(f, 4<<10))
	if err != nil {
		return nil, &KeyFileError{Flag: flag, Path: path, Err: unwrapPath(err)}
	}
	key := bytes.TrimSpace(b)
	if len(key) < MinPseudonymKeyLength {
		return nil, &KeyFileError{Flag: flag, Path: path, Err: ErrKeyFileShort,
			Hint: fmt.Sprintf("%d bytes, at least %d; write one with --new-key-file", len(key), MinPseudonymKeyLength)}
	}
	return key, nil
}

// WritePseudonymKey draws a random key, writes it (64 hex digits and a
// newline) to the new file path (named by flag) with mode 0600, and
// returns it as ReadPseudonymKey will read it. A file that exists is
// left alone.
func WritePseudonymKey(flag, path string) ([]byte, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, err
	}
	key := []byte(hex.EncodeToString(raw))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, &KeyFileError{Flag: flag, Path: path, Err: ErrKeyFileExists, Hint: "a key file is never overwritten"}
	}
	if err != nil {
		return nil, &KeyFileError{Flag: flag, Path: path, Err: unwrapPath(err)}
	}
	_, err = f.Write(append(key, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// The new name durable too, as atomicfile makes the seed's: a
		// seed that outlives a crash without its key is never matched.
		err = atomicfile.SyncDir(filepath.Dir(path))
	}
	if err != nil {
		_ = os.Remove(path)
		return nil, &KeyFileError{Flag: flag, Path: path, Err: unwrapPath(err)}
	}
	return key, nil
}

// unwrapPath is the error of a *fs.PathError without its path (the
// KeyFileError names it).
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
