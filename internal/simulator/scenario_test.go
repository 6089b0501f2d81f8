package simulator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access"
	"github.com/access-dev/access/internal/simulator"
)

func TestParseScenarioRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ doc, want string }{
		{"version: 1\nsteps:\n  - at: 0s\n    do: door/open\n    colour: red\n", "line 5: a step has no member colour: give name, at, every, for, do or with"},
		{"version: 2\nsteps:\n  - do: door/open\n", "line 1: version 2: this simulator plays version 1"},
		{"version: 1\nsteps:\n  - do: door/open\n  - at: 1s\n    do: door/explode\n", "line 4: do \"door/explode\""},
		{"version: 1\nsteps:\n  - do: door/open\n    with: {door: \"${later.result.door}\"}\n  - name: later\n    do: door/open\n", "line 3: ${later.result.door} refers to no earlier step named \"later\""},
		{"version: 1\nsteps:\n  - every: 1m\n    do: door/open\n", "line 3: every and for go together"},
		{"version: 1\nsteps:\n  - at: soon\n    do: door/open\n", "line 3: at \"soon\""},
		{"version: 1\nsteps:\n  - name: a\n    do: door/open\n  - name: a\n    do: door/open\n", "line 5: a second step named \"a\""},
		{"version: 1\nsteps:\n  - do: snapshot/restore\n", "do \"snapshot/restore\""},
	} {
		_, err := simulator.ParseScenario("x.yaml", []byte(c.doc))
		var se *simulator.ScenarioError
		require.ErrorAs(t, err, &se, c.doc)
		assert.Contains(t, err.Error(), c.want)
		assert.Equal(t, 2, se.ExitCode())
	}
}

// TestScenarioErrorsSpeakOfTheFile: a scenario of the wrong shape is
// refused with the line and the member of the file, never a Go type.
func TestScenarioErrorsSpeakOfTheFile(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ doc, want string }{
		{"", "empty: give version: 1 and steps"},
		{"- a\n", "line 1: give a mapping of version, name, description and steps"},
		{"version: 1\ncolour: red\nsteps:\n  - do: door/open\n", "line 2: a scenario has no member colour: give version, name, description or steps"},
		{"steps: hello\n", "line 1: steps: give a list of steps, each a mapping such as {do: door/open}"},
		{"version: one\nsteps:\n  - do: door/open\n", "line 1: version \"one\": give a whole number, 1"},
		{"version: 1\nname: {a: b}\nsteps:\n  - do: door/open\n", "line 2: name: give a string"},
		{"version: 1\nsteps:\n  - hello\n", "line 3: step 1: give a mapping such as {do: door/open}"},
		{"version: 1\nsteps:\n  - do: door/open\n  - do: [a]\n", "line 4: step 2: do: give a string"},
		{"version: 1\nsteps:\n  - do: door/open\n    with: [1, 2]\n", "line 4: step 1: with: give a mapping, the act's JSON body, such as {door: Main entrance}"},
	} {
		_, err := simulator.ParseScenario("x.yaml", []byte(c.doc))
		var se *simulator.ScenarioError
		require.ErrorAs(t, err, &se, c.doc)
		assert.Equal(t, "scenario x.yaml: "+c.want, err.Error(), c.doc)
		for _, goType := range []string{"simulator.", "map[", "[]", "interface", "!!", "unmarshal"} {
			assert.NotContains(t, err.Error(), goType, c.doc)
		}
	}
}

// shippedScenarios are the scenarios the repository ships.
func shippedScenarios(t *testing.T) map[string]*simulator.Scenario {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "scenarios", "*.yaml"))
	require.NoError(t, err)
	require.Len(t, files, 3, "a working day, a fire evacuation, a visitor's day")
	out := map[string]*simulator.Scenario{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		sc, err := simulator.ParseScenario(f, b)
		require.NoError(t, err, f)
		out[filepath.Base(f)] = sc
	}
	return out
}

// replay plays sc --fast on a fresh demo site with the given seed and
// clock start, with a webhook endpoint for every event, and returns the
// play's lines, the deliveries (bodies and signatures), the system log
// and the request journal as the control API lists them.
func replay(t *testing.T, sc *simulator.Scenario, recv string, seed uint64, start time.Time) (plays, deliveries, logs, journal []byte) {
	t.Helper()
	st := startSim(t, simulator.Config{Demo: true, NoUI: true, Token: "scenario-token", HasSeed: true, Seed: seed,
		ClockStart: start, FrozenClock: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := sdkClient(t, st)
	_, _, err := c.Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: recv, Name: "all", Events: access.AllEvents()})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, st.Play(ctx, sc, true, &out))
	require.NoError(t, st.Fake.WaitDeliveries(ctx))
	var ds []map[string]any
	for _, d := range st.Fake.Deliveries() {
		ds = append(ds, map[string]any{"event": d.Event, "body": string(d.Payload), "signature": d.Signature, "attempt": d.Attempt, "status": d.StatusCode})
	}
	deliveries, _ = json.Marshal(ds)
	logs, _ = json.Marshal(st.Fake.SystemLogs())
	req, _ := http.NewRequestWithContext(ctx, "GET", st.URL+simulator.ControlPrefix+"/requests", nil)
	req.Header.Set("Authorization", "Bearer "+st.Token())
	resp, err := insecureHTTP().Do(req)
	require.NoError(t, err)
	journal, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	return out.Bytes(), deliveries, logs, journal
}

// TestScenarioReplaysByteForByte: a scenario played twice with one seed
// and clock start gives the same acts, webhooks (bodies and signatures),
// system log and request journal, byte for byte; another seed does not.
func TestScenarioReplaysByteForByte(t *testing.T) {
	t.Parallel()
	sc := shippedScenarios(t)["working-day.yaml"]
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer recv.Close()
	start := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	p1, d1, l1, j1 := replay(t, sc, recv.URL, 7, start)
	p2, d2, l2, j2 := replay(t, sc, recv.URL, 7, start)
	assert.Equal(t, string(p1), string(p2), "the acts' answers")
	assert.Equal(t, string(d1), string(d2), "the webhook deliveries")
	assert.Equal(t, string(l1), string(l2), "the system log")
	assert.Equal(t, string(j1), string(j2), "the request journal")
	assert.Equal(t, 1+20+1+1+2+12+1+4+1, strings.Count(string(p1), "\n"), "one line per act")
	assert.Greater(t, strings.Count(string(d1), `"signature"`), 20, "webhooks were delivered")
	assert.Contains(t, string(p1), `"at":"2h0m25s","step":"line-34","do":"doorbell/cancel"`)
	assert.Equal(t, 21, strings.Count(string(p1), `"granted":true`), "the demo cards' taps are granted")
	assert.Equal(t, 1, strings.Count(string(p1), `"reason":"unknown card"`), "the stranger's is not")
	p3, d3, _, _ := replay(t, sc, recv.URL, 8, start)
	assert.NotEqual(t, string(p1), string(p3), "another seed, other ids")
	assert.NotEqual(t, string(d1), string(d3))
}

// TestShippedScenariosPlay: each shipped scenario plays to its end on the
// demo site, and the site shows its outcome.
func TestShippedScenariosPlay(t *testing.T) {
	t.Parallel()
	for name, sc := range shippedScenarios(t) {
		st := startSim(t, simulator.Config{Demo: true, NoUI: true, ClockStart: time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC), FrozenClock: true})
		var out bytes.Buffer
		require.NoError(t, st.Play(context.Background(), sc, true, &out), name)
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		assert.NotEmpty(t, lines, name)
		assert.Equal(t, access.EmergencyStatus{}, st.Fake.Emergency(), "%s ends without an emergency", name)
		for _, d := range st.Fake.Doors() {
			assert.NotEqual(t, access.DoorOpen, d.PositionStatus, "%s: %s closed again", name, d.Name)
		}
	}
}

// TestScenarioThroughTheControlAPIIgnoresASlowReceiver: a seeded, clocked
// scenario played --fast into a running fake through its control API,
// with a webhook receiver that answers nothing until the play ends, gives
// the same acts' answers byte for byte as a play whose every delivery was
// made before each act: the deliveries cursor counts what was caused, not
// what was delivered.
func TestScenarioThroughTheControlAPIIgnoresASlowReceiver(t *testing.T) {
	t.Parallel()
	sc := shippedScenarios(t)["working-day.yaml"]
	start := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	play := func(recv string, remote bool) string {
		st := startSim(t, simulator.Config{Demo: true, NoUI: true, Token: "scenario-token", HasSeed: true, Seed: 7,
			ClockStart: start, FrozenClock: true})
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, _, err := sdkClient(t, st).Webhooks.Create(ctx, &access.WebhookEndpointRequest{Endpoint: recv, Name: "all", Events: access.AllEvents()})
		require.NoError(t, err)
		var out bytes.Buffer
		if remote {
			cc, err := simulator.NewControlClient(st.URL, st.Token(), st.Fingerprint, "")
			require.NoError(t, err)
			require.NoError(t, cc.Play(ctx, sc, true, &out))
		} else {
			require.NoError(t, st.Play(ctx, sc, true, &out))
		}
		return out.String()
	}
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer fast.Close()
	settled := play(fast.URL, false)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	remote := play(slow.URL, true)
	assert.Equal(t, settled, remote)
	assert.Regexp(t, `"deliveries_since":[1-9]`, remote, "the deliveries caused before an act are counted")
}
