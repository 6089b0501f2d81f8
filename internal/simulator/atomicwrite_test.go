package simulator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
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

// TestStateSavesAreDurable: a whole save syncs the state file's
// directory once; a durable save's compaction twice (the snapshot and
// the new journal), and the lines appended after it go to the new
// journal, so that the next start loads every change.
func TestStateSavesAreDurable(t *testing.T) {
	dir := t.TempDir()
	syncs := dirSyncs(t, dir, func(int) error { return atomicfile.SyncDir(dir) })
	user := func(fake *accesstest.Server, n int) {
		fake.AddUser(access.User{FirstName: "User", LastName: fmt.Sprint(n), Status: access.UserStatusActive})
	}
	loads := func(path string, want int) {
		t.Helper()
		loaded := accesstest.New(t)
		ok, err := loadState(loaded, path)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Len(t, loaded.Users(), want, "users the next start loads")
	}

	whole := accesstest.New(t)
	sv, err := newSaver(whole, filepath.Join(dir, "whole.json"), time.Hour, false, nil, nil)
	require.NoError(t, err)
	sv.remove() // no saves of its own after changes: the test makes each
	assert.Equal(t, 1, syncs(), "the first whole save")
	user(whole, 1)
	require.NoError(t, sv.attempt())
	assert.Equal(t, 2, syncs(), "a whole save")
	require.NoError(t, sv.close())
	loads(filepath.Join(dir, "whole.json"), len(whole.Users()))

	before := syncs()
	fake := accesstest.New(t)
	path := filepath.Join(dir, "durable.json")
	sv, err = newSaver(fake, path, time.Hour, true, nil, nil)
	require.NoError(t, err)
	sv.remove()
	defer sv.close()
	require.NotNil(t, sv.parts, "a journal")
	assert.Equal(t, before+2, syncs(), "the first save, a compaction: snapshot and journal")
	user(fake, 1)
	require.NoError(t, sv.attempt())
	assert.Equal(t, before+2, syncs(), "a journal line is appended and synced, no rename")
	sv.fileMu.Lock()
	sv.prev = nil // the next save compacts
	sv.fileMu.Unlock()
	user(fake, 2)
	require.NoError(t, sv.attempt())
	assert.Equal(t, before+4, syncs(), "a compaction")
	user(fake, 3)
	require.NoError(t, sv.attempt())
	journal, err := os.ReadFile(journalPath(path))
	require.NoError(t, err)
	assert.Equal(t, 2, bytes.Count(journal, []byte("\n")), "the new journal: its head and the line after the compaction")
	loads(path, len(fake.Users()))
	noTempFiles(t, dir)
}

// TestCertOutIsWrittenWhole: --cert-out's file is renamed into place
// whole (a script that waits for it to appear never hands curl part of
// it), mode 0644, and its directory is synced after the rename; a
// missing directory is a usage error naming the flag and the path, with
// the cause and no temporary file's name.
func TestCertOutIsWrittenWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ca.pem")
	cert, err := selfSigned("127.0.0.1")
	require.NoError(t, err)
	syncs := dirSyncs(t, dir, func(int) error {
		got, err := os.ReadFile(path)
		assert.NoError(t, err, "the file is in place when its directory is synced")
		assert.Equal(t, certPEM(cert), got)
		return nil
	})
	require.NoError(t, writeCertOut(path, cert))
	assert.Equal(t, 1, syncs())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "the file and no temporary one")

	missing := filepath.Join(t.TempDir(), "no", "ca.pem")
	err = writeCertOut(missing, cert)
	require.Error(t, err)
	assert.Equal(t, "--cert-out "+missing+": no such file or directory", err.Error())
}
