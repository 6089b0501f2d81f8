package main

import (
	"context"
	"testing"
)

// TestCheckEventTypes: short names, event names and names without
// "access." are accepted; anything else is a usage error (2).
func TestCheckEventTypes(t *testing.T) {
	t.Parallel()
	if err := checkEventTypes([]string{"doorbell", "door.unlock", "access.logs.add", "remote_view.change", "data.v2.location.update"}); err != nil {
		t.Errorf("known types refused: %v", err)
	}
	for _, bad := range [][]string{{"doorbel"}, {"logs", "access.base.info"}, {"access."}, {""}} {
		err := checkEventTypes(bad)
		if err == nil {
			t.Errorf("%q accepted", bad)
			continue
		}
		if code := exitCode(context.Background(), err); code != 2 {
			t.Errorf("%q: exit %d, want 2", bad, code)
		}
	}
}
