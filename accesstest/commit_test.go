package accesstest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// TestWithCommit: a request that changed state waits for the commit hook
// before its answer; a read or a refused write does not call it; a
// failing commit answers 503 in the console's error shape.
func TestWithCommit(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	var fail atomic.Bool
	fake := accesstest.New(t, accesstest.WithCommit(func(ctx context.Context) error {
		calls.Add(1)
		if fail.Load() {
			return errors.New("disk full")
		}
		return nil
	}))
	c := fake.Client()
	ctx := context.Background()
	_, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: "A", LastName: "B"})
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load(), "a create waits for one commit")
	_, _, err = c.Users.List(ctx, nil)
	require.NoError(t, err)
	_, _, err = c.Users.Create(ctx, &access.UserRequest{FirstName: ""})
	require.Error(t, err)
	assert.Equal(t, int32(1), calls.Load(), "neither a read nor a refused write commits")

	fail.Store(true)
	req, err := http.NewRequest(http.MethodPost, fake.URL()+"/api/v1/developer/users", strings.NewReader(`{"first_name":"C","last_name":"D"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+fake.Token())
	resp, err := fake.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.JSONEq(t, `{"code":"CODE_SYSTEM_ERROR","msg":"The change could not be saved; it is not acknowledged."}`, string(body))
	assert.Equal(t, int32(2), calls.Load())
}

// TestStateParts: the parts of the demo site's state, composed as an
// object (lists as arrays of their elements), load into another server
// that then writes the same state; again after the system log, whose
// entries are encoded once, has had entries added and dropped by its
// bound.
func TestStateParts(t *testing.T) {
	t.Parallel()
	fake := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithRetention(accesstest.Retention{SystemLogs: 50}))
	same := func(msg string) {
		t.Helper()
		parts, err := fake.StateParts()
		require.NoError(t, err)
		doc := map[string]json.RawMessage{}
		for _, p := range parts {
			if !p.List {
				doc[p.Key] = p.Value
				continue
			}
			elems := make([]json.RawMessage, len(p.Elems))
			for i, e := range p.Elems {
				elems[i] = e
			}
			b, err := json.Marshal(elems)
			require.NoError(t, err)
			doc[p.Key] = b
		}
		assert.Greater(t, len(doc["users"]), 1000, "the users are a list part")
		b, err := json.Marshal(doc)
		require.NoError(t, err)
		other := accesstest.New(t)
		require.NoError(t, other.ReadState(bytes.NewReader(b)))
		var want, got bytes.Buffer
		require.NoError(t, fake.WriteState(&want))
		require.NoError(t, other.WriteState(&got))
		assert.Equal(t, want.String(), got.String(), msg)
	}
	same("the demo site")
	c := fake.Client()
	for range 60 {
		_, err := c.Doors.Unlock(context.Background(), accesstest.DemoDoorID, nil)
		require.NoError(t, err)
	}
	same("after 60 unlocks, the log bounded to 50")
}
