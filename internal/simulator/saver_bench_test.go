package simulator

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// BenchmarkSave10000Users is one whole save (the state encoded, a
// temporary file, fsync, rename, directory fsync, and the journal begun
// again: a compaction) of a site of 10,000 users on top of the demo
// site: /cached with the users' encodings the store keeps from the last
// save (none changed), /cold with every user read by id before the save
// (which drops each one's encoding: every user encoded again, as at the
// first save).
func BenchmarkSave10000Users(b *testing.B) {
	fake := accesstest.NewServer(accesstest.WithDemoData())
	defer fake.Close()
	for i := len(fake.Users()); i < 10000; i++ {
		fake.AddUser(access.User{FirstName: "User", LastName: fmt.Sprint(i), UserEmail: fmt.Sprintf("user%d@example.com", i),
			EmployeeNumber: fmt.Sprint(100000 + i), Status: access.UserStatusActive})
	}
	ids := make([]string, 0, 10000)
	for _, u := range fake.Users() {
		ids = append(ids, u.ID)
	}
	sv, err := newSaver(fake, filepath.Join(b.TempDir(), "state.json"), time.Hour, true, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sv.close()
	for _, cold := range []bool{false, true} {
		name := "cached"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				if cold {
					b.StopTimer()
					for _, id := range ids {
						fake.User(id) // a user handed out by id may change: its encoding is dropped
					}
					b.StartTimer()
				}
				sv.fileMu.Lock()
				sv.prev = nil // a whole save: the journal's compaction
				sv.fileMu.Unlock()
				if err := sv.attempt(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
