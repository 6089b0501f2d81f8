package simulator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/atomicfile"
)

// dirSyncs makes atomicfile's directory syncs of dir, until the test
// ends, call seen (with the sync's number, from 1) and answer with its
// error instead of syncing; it returns how many there were. Syncs of
// other directories go on as usual. A test that calls it must not be
// parallel.
func dirSyncs(t *testing.T, dir string, seen func(n int) error) func() int {
	t.Helper()
	var mu sync.Mutex
	n := 0
	t.Cleanup(atomicfile.SetSyncDirHook(func(d string) error {
		if d != dir {
			return atomicfile.SyncDir(d)
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		return seen(n)
	}))
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// TestKeptCertificateIsDurable: the kept certificate is renamed into
// place and then its directory (the state file's) is synced, so that a
// crash right after the first start cannot lose it, and the next start
// make a new one with another fingerprint.
func TestKeptCertificateIsDurable(t *testing.T) {
	dir := t.TempDir()
	statePath := filepath.Join(dir, "state.json")
	cert, err := selfSigned("127.0.0.1")
	require.NoError(t, err)
	syncs := dirSyncs(t, dir, func(int) error {
		// The sync comes after the rename, and makes it durable.
		_, err := os.Stat(keptCertPath(statePath))
		assert.NoError(t, err, "the certificate is in place when its directory is synced")
		return atomicfile.SyncDir(dir)
	})
	require.NoError(t, writeKeptCert(statePath, cert))
	assert.Equal(t, 1, syncs(), "syncs of the state file's directory")
	kept, write, err := keptCert(statePath, "127.0.0.1")
	require.NoError(t, err)
	assert.False(t, write, "the kept certificate is used")
	assert.Equal(t, fingerprint(cert), fingerprint(kept))
}

// TestKeptCertificateWriteErrors: the errors of writing the kept
// certificate keep their wording: the file's path, and the cause without
// the temporary file's name; a failed directory sync is one of them.
func TestKeptCertificateWriteErrors(t *testing.T) {
	cert, err := selfSigned("127.0.0.1")
	require.NoError(t, err)

	missing := filepath.Join(t.TempDir(), "no", "state.json")
	err = writeKeptCert(missing, cert)
	require.Error(t, err)
	assert.Equal(t, "certificate "+missing+".tls.pem: cannot write it: no such file or directory", err.Error())

	dir := t.TempDir()
	statePath := filepath.Join(dir, "state.json")
	dirSyncs(t, dir, func(int) error { return errors.New("sync failed") })
	err = writeKeptCert(statePath, cert)
	require.Error(t, err)
	assert.Equal(t, "certificate "+statePath+".tls.pem: cannot write it: sync failed", err.Error())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the certificate and no temporary file")
	assert.Equal(t, "state.json.tls.pem", entries[0].Name())
}

// TestSeedFolderIsDurable: the seed folder's site.json is renamed into
// place and then the folder is synced, so that a seed reported written
// survives a crash; a failed sync is the record's error, in the seed
// folder's wording.
func TestSeedFolderIsDurable(t *testing.T) {
	fake := accesstest.New(t)
	dir := filepath.Join(t.TempDir(), "seed")
	syncs := dirSyncs(t, dir, func(int) error {
		_, err := os.Stat(filepath.Join(dir, SeedFile))
		assert.NoError(t, err, "site.json is in place when the folder is synced")
		return atomicfile.SyncDir(dir)
	})
	_, err := Record(context.Background(), fake.Client(), dir)
	require.NoError(t, err)
	assert.Equal(t, 1, syncs(), "syncs of the seed folder")
	fi, err := os.Stat(filepath.Join(dir, SeedFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	failed := filepath.Join(t.TempDir(), "failed")
	dirSyncs(t, failed, func(int) error { return errors.New("sync failed") })
	_, err = Record(context.Background(), fake.Client(), failed)
	require.Error(t, err)
	assert.Equal(t, "seed folder "+failed+": sync failed", err.Error())
	entries, err := os.ReadDir(failed)
	require.NoError(t, err)
	require.Len(t, entries, 1, "site.json and no temporary file")
	assert.Equal(t, SeedFile, entries[0].Name())
}

// TestSeedFolderWriteErrors: a seed folder that takes no new file is the
// cause alone, without the temporary file's name.
func TestSeedFolderWriteErrors(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into a read-only folder")
	}
	fake := accesstest.New(t)
	dir := filepath.Join(t.TempDir(), "seed")
	require.NoError(t, os.Mkdir(dir, 0o500))
	_, err := Record(context.Background(), fake.Client(), dir)
	require.Error(t, err)
	assert.Equal(t, "seed folder "+dir+": permission denied", err.Error())
}
