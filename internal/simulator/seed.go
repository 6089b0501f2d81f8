package simulator

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/atomicfile"
)

// SeedFile is the file of a seed folder holding the recorded site (the
// state format of accesstest.Server.ReadState, without tokens).
const SeedFile = "site.json"

// RecordOption tunes [Record].
type RecordOption func(*recordOptions)

type recordOptions struct{ key []byte }

// WithPseudonymKey makes [Record] draw its pseudonyms from key rather than
// from a random key: a capture of the same console under the same key
// (capture.WriterOptions.Key, access capture --pseudonym-key-file) gives
// the same person the same pseudonyms. The key is never written. A nil
// or empty key is a random one.
func WithPseudonymKey(key []byte) RecordOption {
	return func(o *recordOptions) { o.key = bytes.Clone(key) }
}

// Record reads the site of the console c talks to (read-only, every
// page of every list), replaces people's data by pseudonyms under a
// random key that is never written, or the key of [WithPseudonymKey]
// (the same person gets the same pseudonym throughout this recording, and
// no recording can be reversed without the key), and writes the seed
// folder dir (created, mode 0700; dir/site.json, mode 0600). An existing
// seed in dir is replaced whole, only once the new one is written.
func Record(ctx context.Context, c *access.Client, dir string, opts ...RecordOption) (*accesstest.SiteRecord, error) {
	var o recordOptions
	for _, opt := range opts {
		opt(&o)
	}
	rec, err := accesstest.RecordSite(ctx, c)
	if err != nil {
		return nil, err
	}
	key := o.key
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	}
	if err := rec.Pseudonymise(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("seed folder %s: %w", dir, errors.Unwrap(err))
	}
	// Atomically and durably (atomicfile): a crash leaves the old seed
	// or the new one, and not the old once the new is reported.
	if err := atomicfile.Write(filepath.Join(dir, SeedFile), 0o600, rec.WriteState); err != nil {
		return nil, fmt.Errorf("seed folder %s: %w", dir, withoutTempName(err))
	}
	return rec, nil
}

// loadSeed loads the seed folder dir into fake; dir is only read.
func loadSeed(fake *accesstest.Server, dir string) error {
	path := filepath.Join(dir, SeedFile)
	f, err := os.Open(path)
	if err != nil {
		return usageErrorf("--seed-from %s: no recorded site (%s, written by access fake record): %v", dir, SeedFile, errors.Unwrap(err))
	}
	defer f.Close()
	if err := fake.ReadState(f); err != nil {
		return usageErrorf("--seed-from %s: refused: %v", dir, err)
	}
	return nil
}
