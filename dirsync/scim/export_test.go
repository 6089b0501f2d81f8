package scim

import (
	"fmt"
	"time"
)

// SetDeterministic makes s's clock start at start and tick one second a
// call, and its ids count up from 1, for golden answers.
func SetDeterministic(s *Store, start time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, n := start, 0
	s.now = func() time.Time { t = t.Add(time.Second); return t }
	s.newID = func() string { n++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }
}

// BreakJournal closes s's journal under it, so that the next change
// cannot be written.
func BreakJournal(s *Store) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.journal.Close()
}

// BreakDir makes s compact into a directory that does not exist, so
// that recovery from a broken journal fails too.
func BreakDir(s *Store, path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.path = path
}

// SetCompactAfter makes stores compact after n journal lines, and
// returns a function that undoes it.
func SetCompactAfter(n int) (restore func()) {
	prev := compactAfter
	compactAfter = n
	return func() { compactAfter = prev }
}
