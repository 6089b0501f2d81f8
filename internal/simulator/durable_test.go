package simulator_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
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

// openAPIDoc is openapi.json, decoded.
func openAPIDoc(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("openapi.json")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	return doc
}

// resolve follows a {"$ref": "#/..."} of doc, once; anything else is
// returned as it is.
func resolve(t *testing.T, doc, v map[string]any) map[string]any {
	t.Helper()
	ref, ok := v["$ref"].(string)
	if !ok {
		return v
	}
	var cur any = doc
	for _, k := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := cur.(map[string]any)
		require.True(t, ok, "%s: %s is not an object", ref, k)
		cur = m[k]
	}
	m, ok := cur.(map[string]any)
	require.True(t, ok, "%s resolves to no object", ref)
	return m
}

// violations lists how v, decoded JSON, breaks schema: the subset of JSON
// Schema openapi.json uses ($ref, type, properties, required,
// additionalProperties false, enum, items).
func violations(t *testing.T, doc, schema map[string]any, v any, at string) []string {
	t.Helper()
	schema = resolve(t, doc, schema)
	var out []string
	if enum, ok := schema["enum"].([]any); ok && !slices.Contains(enum, v) {
		out = append(out, fmt.Sprintf("%s: %v is none of %v", at, v, enum))
	}
	switch typ, _ := schema["type"].(string); typ {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return append(out, fmt.Sprintf("%s: %T, want an object", at, v))
		}
		props, _ := schema["properties"].(map[string]any)
		for _, k := range schema["required"].([]any) {
			if _, ok := m[k.(string)]; !ok {
				out = append(out, fmt.Sprintf("%s: %s is missing", at, k))
			}
		}
		for k, sub := range m {
			p, ok := props[k].(map[string]any)
			switch {
			case ok:
				out = append(out, violations(t, doc, p, sub, at+"."+k)...)
			case schema["additionalProperties"] == false:
				out = append(out, fmt.Sprintf("%s: %s is not documented", at, k))
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return append(out, fmt.Sprintf("%s: %T, want an array", at, v))
		}
		items, _ := schema["items"].(map[string]any)
		for i, e := range a {
			out = append(out, violations(t, doc, items, e, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "string":
		if _, ok := v.(string); !ok {
			out = append(out, fmt.Sprintf("%s: %T, want a string", at, v))
		}
	case "integer", "number":
		if _, ok := v.(float64); !ok {
			out = append(out, fmt.Sprintf("%s: %T, want a number", at, v))
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			out = append(out, fmt.Sprintf("%s: %T, want a boolean", at, v))
		}
	}
	return out
}

// TestControlDocumentsStateNotSaved: openapi.json gives the 503
// state_not_saved answer to every POST that changes the site's state,
// and to no other operation (a snapshot and faults are not saved state:
// they are never held for a save).
func TestControlDocumentsStateNotSaved(t *testing.T) {
	t.Parallel()
	doc := openAPIDoc(t)
	paths := doc["paths"].(map[string]any)
	for _, r := range simulator.ControlRoutes() {
		method, path, _ := strings.Cut(r, " ")
		op, ok := paths[path].(map[string]any)[strings.ToLower(method)].(map[string]any)
		require.True(t, ok, "%s is not in openapi.json", r)
		resp, documented := op["responses"].(map[string]any)["503"].(map[string]any)
		if method != http.MethodPost || simulator.ControlKeepsState(path) {
			// Never held for a save (a journal read's 503 is wait_ended).
			if documented {
				assert.NotEqual(t, "#/components/responses/StateNotSaved", resp["$ref"], "%s documents state_not_saved: it is never held for a save", r)
			}
			continue
		}
		if assert.True(t, documented, "%s changes the site's state: a failed save answers it 503", r) {
			assert.Equal(t, "#/components/responses/StateNotSaved", resp["$ref"], r)
		}
	}
	schema := resolve(t, doc, resolve(t, doc, map[string]any{"$ref": "#/components/responses/StateNotSaved"})["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any))
	assert.Empty(t, violations(t, doc, schema, map[string]any{"error": map[string]any{"code": "state_not_saved", "message": "m"}}, "answer"))
	assert.NotEmpty(t, violations(t, doc, schema, map[string]any{"error": map[string]any{"code": "not_found", "message": "m"}}, "answer"),
		"the documented answer has the code state_not_saved only")
}

// TestFailedSaveControlAnswerMatchesTheDocument: while saves fail, the
// control API's acts that change the site are answered 503 with the
// body openapi.json documents for that operation's 503, and those that
// change no saved state (faults) are answered as usual.
func TestFailedSaveControlAnswerMatchesTheDocument(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	cfg := simulator.Config{StatePath: filepath.Join(t.TempDir(), "state.json"), Demo: true, NoUI: true}
	simulator.SetFailSave(&cfg, func() error {
		if failing.Load() {
			return errors.New("disk full (injected)")
		}
		return nil
	})
	st := startSim(t, cfg)
	doc := openAPIDoc(t)
	post := func(path, body string) (int, string, []byte) {
		req, err := http.NewRequest(http.MethodPost, st.URL+simulator.ControlPrefix+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+st.Token())
		req.Header.Set("Content-Type", "application/json")
		resp, err := insecureHTTP().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.Header.Get("Content-Type"), b
	}
	failing.Store(true)
	for _, act := range []struct{ path, body string }{
		{"/clock/advance", `{"by":"1m"}`},
		{"/door/open", `{"door":"Main entrance"}`},
		{"/emergency", `{"mode":"lockdown"}`},
		{"/reset", `{"site":"empty"}`},
	} {
		status, ctype, body := post(act.path, act.body)
		require.Equal(t, http.StatusServiceUnavailable, status, "%s: %s", act.path, body)
		assert.Equal(t, "application/json", ctype, act.path)
		op := doc["paths"].(map[string]any)[act.path].(map[string]any)["post"].(map[string]any)
		ref, ok := op["responses"].(map[string]any)["503"].(map[string]any)
		require.True(t, ok, "openapi.json documents no 503 for POST %s", act.path)
		documented := resolve(t, doc, ref)
		schema := documented["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)
		var got any
		require.NoError(t, json.Unmarshal(body, &got), act.path)
		assert.Empty(t, violations(t, doc, schema, got, "answer"), "%s: %s", act.path, body)
		assert.Equal(t, "state_not_saved", got.(map[string]any)["error"].(map[string]any)["code"], act.path)
	}
	status, _, body := post("/faults", `{"op":"Doors.List","status":503,"times":1}`)
	assert.Equal(t, http.StatusOK, status, "faults are not saved state: %s", body)
	status, _, body = post("/faults/clear", `{}`)
	assert.Equal(t, http.StatusOK, status, "faults are not saved state: %s", body)
}
