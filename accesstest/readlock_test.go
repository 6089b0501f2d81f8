package accesstest_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestReadsBesideWrites runs reads that share the fake's lock (a door,
// the users' list and one user, a user group, the inspection methods)
// from eight goroutines while two others write: unlocks whose relock
// timers fall due on a clock moved by a third (so that reads find timers
// due and run them), users created and added to a group, faults injected
// and consumed. Run with -race, it finds a read that writes; the checks
// find a lost journal entry, a timer not run or a membership out of
// order.
func TestReadsBesideWrites(t *testing.T) {
	var offset atomic.Int64
	base := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	srv := accesstest.New(t, accesstest.WithDemoData(),
		accesstest.WithClock(func() time.Time { return base.Add(time.Duration(offset.Load())) }))
	c := srv.Client()
	ctx := context.Background()
	gid := srv.AddUserGroup("", "Readers", "")
	uid := srv.Users()[0].ID

	const readers, reads, writes = 8, 60, 40
	var sent atomic.Int64
	call := func(err error) {
		sent.Add(1)
		assert.NoError(t, err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range reads {
				switch (g + i) % 5 {
				case 0:
					_, _, err := c.Doors.Get(ctx, accesstest.DemoDoorID)
					call(err)
				case 1:
					_, _, err := c.Users.List(ctx, nil)
					call(err)
				case 2:
					_, _, err := c.Users.Get(ctx, uid, nil)
					call(err)
				case 3:
					_, _, err := c.UserGroups.Get(ctx, gid)
					call(err)
				default:
					_, ok := srv.Door(accesstest.DemoDoorID)
					assert.True(t, ok)
					srv.GroupMembers(gid)
					srv.UserGroups()
					srv.Requests()
				}
			}
		}()
	}
	wg.Add(1)
	go func() { // the clock: every relock timer falls due while the reads run
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			offset.Add(int64(time.Second))
			time.Sleep(time.Millisecond)
		}
	}()
	var added []string
	for i := range writes {
		call(func() error { _, err := c.Doors.Unlock(ctx, accesstest.DemoDoorID, nil); return err }())
		u, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "W", LastName: fmt.Sprint(i)})
		call(err)
		require.NotNil(t, u)
		call(func() error { _, err := c.UserGroups.AddUsers(ctx, gid, []string{u.ID}); return err }())
		added = append(added, u.ID)
		if i%10 == 0 { // consumed by the reads' requests: a pure delay, answered as usual
			srv.Inject(accesstest.OpDoorsGet, accesstest.Fault{Delay: time.Millisecond, Times: 2})
		}
	}
	close(done)
	wg.Wait()

	assert.Equal(t, added, srv.GroupMembers(gid), "the members, each once, in the order added")
	offset.Add(int64(time.Hour))
	d, _, err := c.Doors.Get(ctx, accesstest.DemoDoorID)
	require.NoError(t, err)
	sent.Add(1)
	assert.Equal(t, access.DoorLocked, d.LockRelayStatus, "the last unlock's relock ran")
	direct, proxy := srv.RequestsByMode()
	assert.Equal(t, int(sent.Load()), direct+proxy, "every request journaled")
}

// TestReadDoesNotShiftSeededIDs: on a server with WithSeed, reading the
// users (or a group) between two creates gives the second create the id
// it gets without the read: a read that shares the lock makes no part of
// the state that draws from the seeded sequence.
func TestReadDoesNotShiftSeededIDs(t *testing.T) {
	secondID := func(read func(*accesstest.Server)) string {
		srv := accesstest.New(t, accesstest.WithSeed(7))
		srv.AddUser(access.User{FirstName: "Ann", LastName: "One"})
		read(srv)
		return srv.AddUser(access.User{FirstName: "Bob", LastName: "Two"}).ID
	}
	want := secondID(func(*accesstest.Server) {})
	assert.Equal(t, want, secondID(func(s *accesstest.Server) { s.Users() }), "Users()")
	assert.Equal(t, want, secondID(func(s *accesstest.Server) { s.UserGroups() }), "UserGroups()")
}
