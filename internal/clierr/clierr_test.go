package clierr

import (
	"errors"
	"testing"
)

func TestUsageErrorf(t *testing.T) {
	err := UsageErrorf("--state %s:\n  %v", "x.json", errors.New("bad  input"))
	var ue *UsageError
	if !errors.As(err, &ue) || ue.ExitCode() != 2 {
		t.Fatalf("UsageErrorf = %#v, want a *UsageError with exit code 2", err)
	}
	if got, want := err.Error(), "--state x.json: bad input"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
