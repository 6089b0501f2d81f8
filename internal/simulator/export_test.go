package simulator

import (
	"context"
	"os"
)

// SetFailSave sets the seam through which the tests fail the saves of a
// state file: f is called before each save, and its error fails it.
func SetFailSave(cfg *Config, f func() error) { cfg.failSave = f }

// StateDocument is the state a state file and its journal hold, as the
// next start loads it.
func StateDocument(path string) ([]byte, error) {
	snapshot, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return replayJournal(snapshot, journalPath(path))
}

// ControlRoutes lists the control API's routes as "METHOD /path" (under
// ControlPrefix), for the test that checks them against openapi.json.
func ControlRoutes() []string {
	out := make([]string, 0, len(controlRoutes))
	for _, rt := range controlRoutes {
		out = append(out, rt.method+" "+rt.path)
	}
	return out
}

// ControlKeepsState reports whether the control API's POST at path
// (under ControlPrefix) changes nothing the state file holds: it is
// never answered 503 state_not_saved.
func ControlKeepsState(path string) bool { return controlKeepsState[path] }

// SiteSaves is how many times the site's state file was saved (0
// without one).
func SiteSaves(st *Site) int {
	if st.saver == nil {
		return 0
	}
	return st.saver.Saves()
}

// SetEventsGate sets the seam through which the tests hold the page's
// live updates: the event stream's handler calls f with the request's
// context before it answers.
func SetEventsGate(cfg *Config, f func(ctx context.Context)) { cfg.eventsGate = f }
