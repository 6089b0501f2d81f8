package review_test

import (
	"context"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/review"
)

// TestWatchZone: the zone comes from the first location update that
// names one; a stream that names none leaves it nil (the caller then
// takes the local zone).
func TestWatchZone(t *testing.T) {
	loc := zurich(t)
	srv := accesstest.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	w := review.WatchZone(ctx, srv.Client())
	if err := srv.WaitNotificationClients(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := srv.Notify(
		&access.Notification{Event: access.NotificationLocationUpdate, Data: []byte(`{"unique_id":"d1","timezone":""}`)},
		&access.Notification{Event: access.NotificationLocationUpdate, Data: []byte(`{"unique_id":"d1","timezone":"Europe/Zurich"}`)},
	); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.Found():
	case <-ctx.Done():
		t.Fatal("no zone seen")
	}
	if got := w.Stop(); got == nil || got.String() != loc.String() {
		t.Errorf("zone %v, want Europe/Zurich", got)
	}

	quiet := review.WatchZone(ctx, srv.Client())
	if got := quiet.Stop(); got != nil {
		t.Errorf("a stream without location updates gave %v", got)
	}
	if review.ZoneOf(&access.Notification{Event: access.NotificationLocationUpdate, Data: []byte(`{"timezone":"Mars/Olympus"}`)}) != nil {
		t.Errorf("an unknown zone was taken")
	}
}
