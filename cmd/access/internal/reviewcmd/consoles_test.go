package reviewcmd

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	access "github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
)

// TestADeadOrHungConsoleEndsTheReview: with --profile live,X where X
// refuses connections or accepts and never answers, review ends within the
// client's timeout (--timeout) with an error naming X, and a cancelled
// context (Ctrl-C) ends a review stuck on a hung console.
func TestADeadOrHungConsoleEndsTheReview(t *testing.T) {
	srv := accesstest.New(t, accesstest.WithDemoData())
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(release) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadURL := "http://" + ln.Addr().String()
	ln.Close()
	const timeout = 300 * time.Millisecond
	factory := func(timeout time.Duration, names ...string) *cmdutil.Factory {
		var out, errb bytes.Buffer
		return &cmdutil.Factory{IOStreams: cmdutil.IOStreams{Out: &out, ErrOut: &errb},
			Getenv: func(string) string { return "" },
			Consoles: func(bool) (*cmdutil.Consoles, error) {
				return &cmdutil.Consoles{Names: names, Client: func(name string, _ float64) (*access.Client, error) {
					switch name {
					case "dead":
						return access.NewClient(deadURL, "tok", access.WithTimeout(timeout))
					case "hung":
						return access.NewClient(hung.URL, "tok", access.WithTimeout(timeout))
					}
					return srv.Client(), nil
				}}, nil
			},
		}
	}
	for _, bad := range []string{"dead", "hung"} {
		t.Run(bad, func(t *testing.T) {
			cmd := New(factory(timeout, "live", bad))
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			cmd.SetArgs([]string{"doors", "-o", "json"})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			err := cmd.ExecuteContext(ctx)
			took := time.Since(start)
			if err == nil || !strings.Contains(err.Error(), "console "+bad) {
				t.Fatalf("err = %v, want one naming console %s", err, bad)
			}
			if ctx.Err() != nil || took > 10*time.Second {
				t.Errorf("took %s, not ended by the %s timeout", took, timeout)
			}
		})
	}
	t.Run("cancel", func(t *testing.T) {
		select {
		case <-arrived:
		default:
		}
		cmd := New(factory(time.Hour, "hung"))
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		cmd.SetArgs([]string{"doors", "-o", "json"})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- cmd.ExecuteContext(ctx) }()
		select {
		case err := <-done:
			t.Fatalf("ended before the cancel: %v", err)
		case <-arrived:
		}
		cancel()
		select {
		case err := <-done:
			if err == nil || !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a cancelled review did not end")
		}
	})
}
