package main

import (
	"context"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	if err := roundTrip(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestServeNeedsASecret(t *testing.T) {
	t.Parallel()
	if err := serve("127.0.0.1:0", "", ""); err == nil {
		t.Fatal("serve started without a secret")
	}
}
