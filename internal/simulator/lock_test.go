package simulator_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/simulator"
)

// TestOneProcessPerStateFile: a second simulator given a state file in
// use, directly or through a symbolic link, is refused at once with a
// usage error naming the file and the holder's pid, and the first keeps
// serving; once the first has closed, the file can be used again.
func TestOneProcessPerStateFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("state.json", link))
	cfg := simulator.Config{Addr: "127.0.0.1:0", StatePath: path, NoUI: true}
	first, err := simulator.Start(cfg)
	require.NoError(t, err)
	defer first.Close()

	for _, p := range []string{path, link} {
		second, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", StatePath: p, NoUI: true})
		if second != nil {
			second.Close()
		}
		var usage *simulator.UsageError
		require.True(t, errors.As(err, &usage), "%s: %v", p, err)
		assert.Equal(t, 2, usage.ExitCode())
		assert.Equal(t, "state file "+path+" is in use by another access fake (pid "+strconv.Itoa(os.Getpid())+")", err.Error())
	}
	_, _, err = sdkClient(t, first.Sites[0]).Users.Create(context.Background(), &access.UserRequest{FirstName: "Still", LastName: "Served"})
	require.NoError(t, err)
	require.NoError(t, first.Close())

	again, err := simulator.Start(cfg)
	require.NoError(t, err, "the lock went with the first process's Close")
	defer again.Close()
	require.Len(t, again.Sites[0].Fake.Users(), 1)
}

// TestStatePathThroughASymlink: a state path that is a symbolic link is
// followed once, at start: the saves go to the link's target (created
// when missing), and the link stays a link.
func TestStatePathThroughASymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "data", "real.json")
	require.NoError(t, os.Mkdir(filepath.Dir(target), 0o700))
	link := filepath.Join(dir, "state.json")
	require.NoError(t, os.Symlink(filepath.Join("data", "real.json"), link)) // dangling until the first save
	sim, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", StatePath: link, NoUI: true})
	require.NoError(t, err)
	assert.Equal(t, target, sim.Sites[0].StatePath)
	_, _, err = sdkClient(t, sim.Sites[0]).Users.Create(context.Background(), &access.UserRequest{FirstName: "Through", LastName: "Link"})
	require.NoError(t, err)
	require.NoError(t, sim.Close())

	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link is still a link")
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"Through"`)
}
