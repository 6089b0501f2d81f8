package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/access-dev/access/accesstest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTokenNeverInAValue: no formatting of the values that hold a token
// shows it: the connection, the profile, the config, the whole app.
func TestTokenNeverInAValue(t *testing.T) {
	t.Parallel()
	srv := accesstest.New(t)
	a := newApp(context.Background(), strings.NewReader(""), io.Discard, io.Discard, fakeEnv(srv, nil))
	_, err := a.Client()
	require.NoError(t, err)
	require.Equal(t, srv.Token(), a.conn.Token())
	p := profile{URL: srv.URL(), Token: srv.Token()}
	cfg := &config{Current: "x", Profiles: map[string]profile{"x": p}}
	for _, v := range []any{a.conn, &a.conn, p, &p, cfg, *cfg, a, *a} {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			assert.NotContains(t, fmt.Sprintf(verb, v), srv.Token(), "%s of %T", verb, v)
		}
	}
}
