package accesstest

import (
	"regexp"
	"testing"
)

func TestNewToken(t *testing.T) {
	t.Parallel()
	a, b := NewToken(), NewToken()
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(a) || a == b {
		t.Errorf("NewToken() = %q then %q, want two different tokens of 32 hex digits", a, b)
	}
	s := NewServer()
	defer s.Close()
	if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(s.Token()) {
		t.Errorf("a server without WithToken accepts %q, want a token of 32 hex digits", s.Token())
	}
}
