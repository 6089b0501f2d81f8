package bounded_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/access-dev/access/internal/bounded"
)

func TestEachKeepsTheBound(t *testing.T) {
	var running, most, calls atomic.Int32
	release := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- bounded.Each(context.Background(), 3, 12, func(ctx context.Context, i int) error {
			n := running.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			calls.Add(1)
			<-release
			running.Add(-1)
			return nil
		})
	}()
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Each = %v", err)
	}
	if calls.Load() != 12 {
		t.Errorf("%d calls, want 12", calls.Load())
	}
	if most.Load() > 3 {
		t.Errorf("%d calls at once, want at most 3", most.Load())
	}
}

func TestEachStopsAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	var started atomic.Int32
	err := bounded.Each(context.Background(), 1, 10, func(ctx context.Context, i int) error {
		started.Add(1)
		if i == 2 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Each = %v, want boom", err)
	}
	if started.Load() != 3 {
		t.Errorf("%d calls started, want 3 (none after the error)", started.Load())
	}
}

func TestEachEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var started atomic.Int32
	err := bounded.Each(ctx, 2, 5, func(ctx context.Context, i int) error {
		started.Add(1)
		return nil
	})
	if !errors.Is(err, context.Canceled) || started.Load() != 0 {
		t.Fatalf("Each = %v after %d calls, want context.Canceled and none", err, started.Load())
	}
}
