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
// site.
func BenchmarkSave10000Users(b *testing.B) {
	fake := accesstest.NewServer(accesstest.WithDemoData())
	defer fake.Close()
	for i := len(fake.Users()); i < 10000; i++ {
		fake.AddUser(access.User{FirstName: "User", LastName: fmt.Sprint(i), UserEmail: fmt.Sprintf("user%d@example.com", i),
			EmployeeNumber: fmt.Sprint(100000 + i), Status: access.UserStatusActive})
	}
	sv, err := newSaver(fake, filepath.Join(b.TempDir(), "state.json"), time.Hour, true, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sv.close()
	b.ResetTimer()
	for range b.N {
		sv.fileMu.Lock()
		sv.prev = nil // a whole save: the journal's compaction
		sv.fileMu.Unlock()
		if err := sv.attempt(); err != nil {
			b.Fatal(err)
		}
	}
}
