// Package bounded runs a number of calls with a bound on how many run at
// once, for the readers of package site and package review. It imports
// only the standard library.
package bounded

import (
	"context"
	"sync"
)

// Each runs f for 0..n-1 with at most limit calls at once and returns the
// first error a call returned (or the context's error); after an error no
// new call starts, and the context each running call was given is
// cancelled. Each returns once every call it started has returned.
func Each(ctx context.Context, limit, n int, f func(ctx context.Context, i int) error) error {
	if limit < 1 {
		limit = 1
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(ctx, i); err != nil {
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && err != context.Canceled {
		return err
	}
	return ctx.Err()
}
