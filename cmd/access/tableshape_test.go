package main

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/access-dev/access/accesstest"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryListTakesTableShapes walks the command tree: every list
// command has --columns and --no-headers, and runs against the fake with
// -o wide --no-headers and with --columns of a member of its records;
// --watch is on exactly the lists of watchLists; every list of the
// registry knows its records' type (so --columns is checked before any
// request).
func TestEveryListTakesTableShapes(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	a := newApp(context.Background(), nil, nil, nil, func(string) string { return "" })
	var lists []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "list" {
			path := strings.TrimPrefix(c.CommandPath(), "access ")
			lists = append(lists, path)
			for _, f := range []string{"columns", "no-headers"} {
				assert.NotNil(t, c.Flags().Lookup(f), "%s has no --%s", path, f)
			}
			assert.Equal(t, watchLists[path], c.Flags().Lookup("watch") != nil, "%s: --watch", path)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	root := a.rootCommand()
	walk(root)
	require.GreaterOrEqual(t, len(lists), 14)
	for _, spec := range operations() {
		if isList(spec) {
			assert.NotNil(t, recordType(spec.sdk), "%s: no record type from %q", spec.path, spec.sdk)
			c, _, err := root.Find(strings.Fields(spec.path))
			require.NoError(t, err)
			for _, f := range []string{"columns", "no-headers"} {
				assert.NotNil(t, c.Flags().Lookup(f), "%s has no --%s", spec.path, f)
			}
		}
	}
	for _, path := range []string{"users search", "user-groups users", "touch-passes assignable", "door-groups topology"} {
		c, _, _ := root.Find(strings.Fields(path))
		assert.NotNil(t, c.Flags().Lookup("columns"), "%s: a list by another name", path)
	}
	env := fakeEnv(srv, map[string]string{"ACCESS_CONFIG_DIR": t.TempDir()})
	// The column each list is shown with: a member of its records.
	member := map[string]string{"config list": "name"}
	for _, spec := range operations() {
		if isList(spec) {
			m := members(recordType(spec.sdk))
			member[spec.path] = m.list[len(m.list)-1]
		}
	}
	for _, path := range lists {
		for _, shape := range [][]string{{"-o", "wide", "--no-headers"}, {"--columns", member[path] + ":N"}} {
			var out, errb bytes.Buffer
			args := append(strings.Fields(path), shape...)
			code := run(context.Background(), args, strings.NewReader(""), &out, &errb, env)
			assert.Equal(t, 0, code, "%s %v: %s", path, shape, errb.String())
			if shape[0] == "--columns" && out.Len() > 0 {
				assert.True(t, strings.HasPrefix(out.String(), "N\n") || strings.HasPrefix(out.String(), "N "), "%s: %q", path, out.String())
			}
		}
	}
}

// TestMembersDotted: the members of a record type are its JSON names,
// nested structs as dotted paths, free-form JSON open below its member.
func TestMembersDotted(t *testing.T) {
	t.Parallel()
	type inner struct {
		Name string `json:"name"`
	}
	type rec struct {
		ID    string         `json:"id"`
		User  *inner         `json:"user,omitempty"`
		Extra map[string]any `json:"extra"`
		Skip  string         `json:"-"`
	}
	m := members(reflectTypeOf[rec]())
	assert.Equal(t, []string{"extra", "id", "user", "user.name"}, m.list)
	assert.True(t, m.has("extra.anything"))
	assert.True(t, m.has("user.name"))
	assert.False(t, m.has("user.age"))
	assert.False(t, m.has("Skip"))
}

func reflectTypeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// signalWriter is a syncBuffer that signals each write on wrote.
type signalWriter struct {
	syncBuffer
	wrote chan struct{}
}

func (s *signalWriter) Write(p []byte) (int, error) {
	n, err := s.syncBuffer.Write(p)
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return n, err
}

// TestWatchEndsOnInterrupt: --watch runs until Ctrl-C, which ends it with
// the interrupted exit code, the stream left and the first table whole.
func TestWatchEndsOnInterrupt(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t, accesstest.WithDemoData())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &signalWriter{wrote: make(chan struct{}, 1)}
	var errb syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"doors", "list", "--watch", "--columns", "name", "--no-headers"}, strings.NewReader(""), out, &errb, fakeEnv(srv, nil))
	}()
	<-out.wrote
	require.NoError(t, srv.WaitNotificationClients(ctx, 1))
	cancel() // Ctrl-C
	assert.Equal(t, 130, <-code, errb.String())
	assert.Equal(t, "Main entrance\nVisitor lobby\nLoading dock\nServer room\nGarage\nOffice 1\nOffice 2\nRoof hatch\n", out.String())
	assert.Equal(t, "access: interrupted (context canceled)\n", errb.String())
	require.NoError(t, srv.WaitNotificationClients(context.Background(), 0))
}
