package main

import (
	"context"
	"io"
	"os"
	"sync"
)

// onSignals cancels the run at the first signal of sigs and calls exit
// with 130 at the second: the first Ctrl-C lets the command stop cleanly
// (a partial export removed, exit 130), a second one ends the process
// whatever it is doing. It returns when ctx ends.
func onSignals(ctx context.Context, sigs <-chan os.Signal, cancel context.CancelFunc, exit func(int)) {
	select {
	case <-sigs:
		cancel()
	case <-ctx.Done():
		return
	}
	<-sigs
	exit(130)
}

// ctxReader is stdin read so that a read waiting for input ends when the
// run's context does (Ctrl-C during login's prompt, --data -,
// --token-file -, an import from -). One goroutine reads the underlying
// reader, a chunk at a time and only when asked; a read that the context
// ended leaves it blocked, which ends with the process.
type ctxReader struct {
	ctx  context.Context
	r    io.Reader
	once sync.Once
	ch   chan chunk
	rest []byte
	err  error
}

type chunk struct {
	b   []byte
	err error
}

func newCtxReader(ctx context.Context, r io.Reader) io.Reader {
	if r == nil {
		return r
	}
	return &ctxReader{ctx: ctx, r: r}
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(c.rest) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		c.once.Do(func() {
			c.ch = make(chan chunk)
			go c.pump()
		})
		select {
		case <-c.ctx.Done():
			return 0, c.ctx.Err()
		case ch := <-c.ch:
			c.rest, c.err = ch.b, ch.err
		}
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	if len(c.rest) == 0 && c.err != nil {
		return n, c.err
	}
	return n, nil
}

// pump reads the underlying reader a chunk ahead of the reads at most.
func (c *ctxReader) pump() {
	for {
		buf := make([]byte, 32<<10)
		n, err := c.r.Read(buf)
		select {
		case c.ch <- chunk{buf[:n], err}:
		case <-c.ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}
