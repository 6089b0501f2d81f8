package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/output"
	"github.com/itchyny/gojq"
)

// TestSecondSignalExits: the first signal cancels the run, the second
// ends the process with 130.
func TestSecondSignalExits(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal)
	exited := make(chan int, 1)
	done := make(chan struct{})
	go func() {
		onSignals(ctx, sigs, cancel, func(code int) { exited <- code })
		close(done)
	}()
	sigs <- os.Interrupt
	<-ctx.Done() // the first cancels
	select {
	case code := <-exited:
		t.Fatalf("exit(%d) after the first signal", code)
	default:
	}
	sigs <- syscall.SIGTERM
	if code := <-exited; code != 130 {
		t.Errorf("exit(%d) after the second signal, want 130", code)
	}
	<-done
}

// TestJQRunsWithTheContext: a jq program that computes without end stops
// when the run is interrupted.
func TestJQRunsWithTheContext(t *testing.T) {
	t.Parallel()
	q, err := gojq.Parse("last(range(1e18))")
	if err != nil {
		t.Fatal(err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = output.WriteJSON(ctx, io.Discard, []int{1}, code, false)
	if !errors.Is(err, context.Canceled) || exitCode(ctx, err) != 130 {
		t.Errorf("output.WriteJSON = %v, want context.Canceled (exit 130)", err)
	}
}

// waitingStdin is a stdin that never gives a byte; reading tells the
// test that the command is waiting for it.
type waitingStdin struct {
	once    sync.Once
	reading chan struct{}
	block   chan struct{}
}

func (w *waitingStdin) Read(p []byte) (int, error) {
	w.once.Do(func() { close(w.reading) })
	<-w.block
	return 0, io.EOF
}

// TestStdinReadEndsOnInterrupt: a command waiting for stdin (login's
// token, --data -, --token-file -, an import from -) ends with 130 when
// the run is interrupted.
func TestStdinReadEndsOnInterrupt(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	for _, args := range [][]string{
		{"login", "--url", "https://127.0.0.1:1"},
		{"users", "create", "--data", "-"},
		{"--token-file", "-", "doors", "list"},
		{"users", "import", "-"},
	} {
		in := &waitingStdin{reading: make(chan struct{}), block: make(chan struct{})}
		ctx, cancel := context.WithCancel(context.Background())
		var stderr bytes.Buffer
		env := map[string]string{}
		if args[0] == "login" || args[0] == "--token-file" {
			env["ACCESS_TOKEN"] = ""
		}
		code := make(chan int, 1)
		go func() { code <- run(ctx, args, in, io.Discard, &stderr, fakeEnv(srv, env)) }()
		<-in.reading
		cancel()
		if got := <-code; got != 130 {
			t.Errorf("%s: exit %d, want 130 (stderr %q)", strings.Join(args, " "), got, stderr.String())
		}
		if !strings.HasPrefix(stderr.String(), "access: interrupted (") {
			t.Errorf("%s: stderr %q", strings.Join(args, " "), stderr.String())
		}
		close(in.block)
	}
}

// BenchmarkStdinRead compares reading 8 MiB of stdin through the reader
// that ends on Ctrl-C with reading it directly (an import from -).
func BenchmarkStdinRead(b *testing.B) {
	data := bytes.Repeat([]byte("first,last,e@example.com\n"), 8<<20/25)
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			_, _ = io.Copy(io.Discard, struct{ io.Reader }{bytes.NewReader(data)})
		}
	})
	b.Run("ctxReader", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for range b.N {
			_, _ = io.Copy(io.Discard, struct{ io.Reader }{newCtxReader(context.Background(), bytes.NewReader(data))})
		}
	})
}
