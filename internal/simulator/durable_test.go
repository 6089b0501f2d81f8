package simulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/simulator"
)

// usersInFile reads the first names of the users a state file and its
// journal hold.
func usersInFile(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := simulator.StateDocument(path)
	require.NoError(t, err)
	var file struct {
		Users []struct {
			FirstName string `json:"first_name"`
		} `json:"users"`
	}
	require.NoError(t, json.Unmarshal(b, &file))
	have := map[string]bool{}
	for _, u := range file.Users {
		have[u.FirstName] = true
	}
	return have
}

// TestWriteIsAnsweredOnceSaved: with --state, the answer to a write
// comes once the change is in the file, read right after the answer.
func TestWriteIsAnsweredOnceSaved(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	st := startSim(t, simulator.Config{StatePath: path})
	c := sdkClient(t, st)
	for i := range 20 {
		name := "saved-" + string(rune('a'+i))
		_, _, err := c.Users.Create(context.Background(), &access.UserRequest{FirstName: name, LastName: "x"})
		require.NoError(t, err)
		assert.True(t, usersInFile(t, path)[name], "%s acknowledged but not in the file", name)
	}
}

// TestFailedSaveIsNotAcknowledged: a write whose save fails is answered
// 503 in the console's error shape, the page says the state is not
// saved, and once saving works again a write is acknowledged and the
// page no longer says so.
func TestFailedSaveIsNotAcknowledged(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state.json")
	var failing atomic.Bool
	cfg := simulator.Config{StatePath: path}
	simulator.SetFailSave(&cfg, func() error {
		if failing.Load() {
			return errors.New("disk full (injected)")
		}
		return nil
	})
	st := startSim(t, cfg)
	hc := insecureHTTP()
	create := func(name string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, st.URL+"/api/v1/developer/users",
			strings.NewReader(`{"first_name":"`+name+`","last_name":"x"}`))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+st.Token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(b)
	}
	page := func() string {
		resp, err := hc.Get(st.URL + "/")
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(b)
	}

	status, _ := create("before")
	require.Equal(t, http.StatusOK, status)
	assert.NotContains(t, page(), "State not saved")

	failing.Store(true)
	status, body := create("unsaved")
	assert.Equal(t, http.StatusServiceUnavailable, status)
	assert.JSONEq(t, `{"code":"CODE_SYSTEM_ERROR","msg":"The change could not be saved; it is not acknowledged."}`, body)
	assert.False(t, usersInFile(t, path)["unsaved"])
	assert.Contains(t, page(), "State not saved")
	// An act of the control API is not acknowledged either.
	req, err := http.NewRequest(http.MethodPost, st.URL+simulator.ControlPrefix+"/clock/advance", strings.NewReader(`{"by":"1m"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+st.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	ctl, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	assert.Contains(t, string(ctl), `"state_not_saved"`)
	// The SDK sees a server error, which it does not resend for a create.
	_, _, err = sdkClient(t, st).Users.Create(context.Background(), &access.UserRequest{FirstName: "sdk", LastName: "x"})
	assert.ErrorIs(t, err, access.ErrServer)

	failing.Store(false)
	status, _ = create("after")
	require.Equal(t, http.StatusOK, status)
	have := usersInFile(t, path)
	assert.True(t, have["before"])
	assert.True(t, have["after"])
	assert.NotContains(t, page(), "State not saved")
}
