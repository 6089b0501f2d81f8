package site_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/access-dev/access"
	"github.com/access-dev/access/site"
)

// inFlight is a transport that records the most requests it had in
// flight at once.
type inFlight struct {
	next     http.RoundTripper
	mu       sync.Mutex
	now, max int
}

func (t *inFlight) RoundTrip(r *http.Request) (*http.Response, error) {
	t.mu.Lock()
	t.now++
	t.max = max(t.max, t.now)
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.now--
		t.mu.Unlock()
	}()
	return t.next.RoundTrip(r)
}

// TestPlanReadsTwoAtATime: a plan reads the users' pages beside the
// other kinds, but never more than two requests at once (net/http keeps
// two idle connections per host: a third read in flight makes new TLS
// connections; on 10,000 users it opened 4 to 9 per plan).
func TestPlanReadsTwoAtATime(t *testing.T) {
	srv := bigSite(t, 3000, 100)
	tr := &inFlight{next: srv.HTTPClient().Transport}
	c := srv.Client(access.WithHTTPClient(&http.Client{Transport: tr}))
	ctx := context.Background()
	doc, _, err := site.Export(ctx, c, []site.Kind{site.KindUsers, site.KindUserGroups})
	if err != nil {
		t.Fatal(err)
	}
	doc.Users[7].LastName = "Changed"
	p, err := site.MakePlan(ctx, c, doc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 1 {
		t.Fatalf("%d changes, want 1", len(p.Changes))
	}
	if tr.max > 2 {
		t.Fatalf("%d requests in flight at once, want at most 2", tr.max)
	}
}
