package main

import (
	"context"
	"testing"
)

func TestRun(t *testing.T) {
	t.Parallel()
	if err := run(context.Background()); err != nil {
		t.Fatal(err)
	}
}
