package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/access-dev/access/site"
)

// TestAliasBombIsRefusedBeforeItExpands reads a 768-byte document whose
// aliases, nested through sites:, expand to millions of nodes: it is
// refused as a bad document, with a typed error, in a bounded number of
// allocations (the position walk used to follow every alias first, for
// tens of seconds and hundreds of megabytes).
func TestAliasBombIsRefusedBeforeItExpands(t *testing.T) {
	a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" })
	var err error
	allocs := testing.AllocsPerRun(1, func() {
		_, _, err = a.loadDocument("../../site/sitefile/testdata/aliasbomb.yaml")
	})
	var de *site.DocumentError
	if !errors.As(err, &de) || !errors.Is(err, errAliasBound) {
		t.Fatalf("err = %v, want a *site.DocumentError matching errAliasBound", err)
	}
	if allocs > 20000 {
		t.Fatalf("%.0f allocations to refuse the document, want at most 20,000", allocs)
	}
}
