package simulator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// Scenarios
//
// A scenario is a YAML timeline of control-API acts on the site's clock:
//
//	version: 1
//	name: a morning
//	steps:
//	  - name: ring
//	    at: 0s
//	    do: doorbell/ring
//	    with: {device: UA Intercom Main}
//	  - at: 20s
//	    do: doorbell/cancel
//	    with: {device: "${ring.result.device}"}
//	  - every: 10m
//	    for: 1h
//	    do: card/tap
//	    with: {device: UA Reader Main, card: "100000"}
//
// Each step is one act (do: a POST path of the control API under
// ControlPrefix, with: its JSON body), at an offset from the start (at),
// optionally repeated every interval for a duration. A string of with
// may refer to an earlier named step's answer: ${name.result.request_id}.
// Unknown keys are refused with their line.

// ScenarioVersion is the scenario format this simulator plays.
const ScenarioVersion = 1

// Scenario is a parsed scenario file.
type Scenario struct {
	Version     int            `yaml:"version"`
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Steps       []ScenarioStep `yaml:"steps"`
}

// ScenarioStep is one step of a scenario.
type ScenarioStep struct {
	Name  string         `yaml:"name"`
	At    string         `yaml:"at"`
	Every string         `yaml:"every"`
	For   string         `yaml:"for"`
	Do    string         `yaml:"do"`
	With  map[string]any `yaml:"with"`
	line  int
	at    time.Duration
	every time.Duration
	dur   time.Duration
}

// ScenarioError is a scenario that cannot be played, with the line.
type ScenarioError struct {
	File string
	Line int
	Msg  string
}

// Error implements error.
func (e *ScenarioError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("scenario %s: line %d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("scenario %s: %s", e.File, e.Msg)
}

// ExitCode is 2: a scenario that cannot be played is a usage error.
func (e *ScenarioError) ExitCode() int { return 2 }

var refPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([A-Za-z0-9_-]+)\.([A-Za-z0-9_.]+)\}`) })

// scenarioActs are the control API's acts a scenario may play.
func scenarioActs() []string {
	var out []string
	for _, rt := range controlRoutes {
		if rt.method == http.MethodPost && rt.path != "/snapshot" && rt.path != "/snapshot/restore" {
			out = append(out, strings.TrimPrefix(rt.path, "/"))
		}
	}
	return out
}

// ParseScenario reads a scenario; file names it in errors.
func ParseScenario(file string, b []byte) (*Scenario, error) {
	errf := func(line int, format string, args ...any) error {
		return &ScenarioError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, errf(0, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := checkScenarioShape(file, &doc); err != nil {
		return nil, err
	}
	var sc Scenario
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&sc); err != nil {
		// checkScenarioShape refuses what the decoder would; this is a
		// last resort, in the file's words too.
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			var line int
			if _, err := fmt.Sscanf(te.Errors[0], "line %d:", &line); err != nil {
				line = 0
			}
			return nil, errf(line, "this value does not fit the scenario format (version, name, description, steps)")
		}
		return nil, errf(0, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	lines := stepLines(&doc)
	if sc.Version != ScenarioVersion {
		return nil, errf(1, "version %d: this simulator plays version %d", sc.Version, ScenarioVersion)
	}
	if len(sc.Steps) == 0 {
		return nil, errf(0, "no steps")
	}
	names := map[string]bool{}
	acts := scenarioActs()
	for i := range sc.Steps {
		st := &sc.Steps[i]
		if i < len(lines) {
			st.line = lines[i]
		}
		dur := func(what, s string) (time.Duration, error) {
			if s == "" {
				return 0, nil
			}
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				return 0, errf(st.line, "%s %q: give a duration such as 0s, 90s or 8h30m", what, s)
			}
			return d, nil
		}
		var err error
		if st.at, err = dur("at", st.At); err != nil {
			return nil, err
		}
		if st.every, err = dur("every", st.Every); err != nil {
			return nil, err
		}
		if st.dur, err = dur("for", st.For); err != nil {
			return nil, err
		}
		switch {
		case (st.every > 0) != (st.dur > 0):
			return nil, errf(st.line, "every and for go together")
		case st.dur > 0 && st.dur/st.every > 100000:
			return nil, errf(st.line, "every %s for %s: more than 100,000 acts", st.Every, st.For)
		case !slices.Contains(acts, st.Do):
			return nil, errf(st.line, "do %q: give one of %s", st.Do, strings.Join(acts, ", "))
		case st.Name != "" && names[st.Name]:
			return nil, errf(st.line, "a second step named %q", st.Name)
		}
		if err := checkRefs(st.With, names); err != nil {
			return nil, errf(st.line, "%v", err)
		}
		if st.Name != "" {
			names[st.Name] = true
		}
	}
	return &sc, nil
}

// Members of a scenario and of a step, in the order the errors list them.
var (
	scenarioMembers = []string{"version", "name", "description", "steps"}
	stepMembers     = []string{"name", "at", "every", "for", "do", "with"}
)

// checkScenarioShape refuses a document that is not a scenario's shape
// (a member unknown or of the wrong kind), naming the file's members and
// lines: the decoder's own errors name Go types.
func checkScenarioShape(file string, doc *yaml.Node) error {
	bad := func(n *yaml.Node, format string, args ...any) error {
		return &ScenarioError{File: file, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
	}
	if len(doc.Content) == 0 {
		return &ScenarioError{File: file, Msg: "empty: give version: 1 and steps"}
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return bad(top, "give a mapping of %s", listOf(scenarioMembers, "and"))
	}
	scalar := func(prefix string, k, v *yaml.Node) error {
		if v.Kind != yaml.ScalarNode {
			return bad(v, "%s%s: give a string", prefix, k.Value)
		}
		return nil
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch k.Value {
		case "version":
			var n int
			if v.Kind != yaml.ScalarNode || v.Decode(&n) != nil {
				return bad(v, "version %q: give a whole number, %d", v.Value, ScenarioVersion)
			}
		case "name", "description":
			if err := scalar("", k, v); err != nil {
				return err
			}
		case "steps":
			if v.Kind != yaml.SequenceNode {
				if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
					continue // no steps: refused after
				}
				return bad(v, "steps: give a list of steps, each a mapping such as {do: door/open}")
			}
			for j, st := range v.Content {
				prefix := fmt.Sprintf("step %d: ", j+1)
				if st.Kind != yaml.MappingNode {
					return bad(st, "%sgive a mapping such as {do: door/open}", prefix)
				}
				for m := 0; m+1 < len(st.Content); m += 2 {
					sk, sv := st.Content[m], st.Content[m+1]
					switch {
					case sk.Value == "with":
						if sv.Kind != yaml.MappingNode && sv.Tag != "!!null" {
							return bad(sv, "%swith: give a mapping, the act's JSON body, such as {door: Main entrance}", prefix)
						}
					case slices.Contains(stepMembers, sk.Value):
						if err := scalar(prefix, sk, sv); err != nil {
							return err
						}
					default:
						return bad(sk, "a step has no member %s: give %s", sk.Value, listOf(stepMembers, "or"))
					}
				}
			}
		default:
			return bad(k, "a scenario has no member %s: give %s", k.Value, listOf(scenarioMembers, "or"))
		}
	}
	return nil
}

// listOf is "a, b, c and d".
func listOf(words []string, and string) string {
	return strings.Join(words[:len(words)-1], ", ") + " " + and + " " + words[len(words)-1]
}

// stepLines are the lines of the steps' mappings.
func stepLines(doc *yaml.Node) []int {
	if len(doc.Content) == 0 {
		return nil
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "steps" {
			var out []int
			for _, s := range m.Content[i+1].Content {
				out = append(out, s.Line)
			}
			return out
		}
	}
	return nil
}

// checkRefs refuses a reference to a step not named before.
func checkRefs(v any, names map[string]bool) error {
	switch x := v.(type) {
	case string:
		for _, m := range refPattern().FindAllStringSubmatch(x, -1) {
			if !names[m[1]] {
				return fmt.Errorf("%s refers to no earlier step named %q", m[0], m[1])
			}
		}
	case map[string]any:
		for _, e := range x {
			if err := checkRefs(e, names); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := checkRefs(e, names); err != nil {
				return err
			}
		}
	}
	return nil
}

// planned is one act of the timeline.
type planned struct {
	at   time.Duration
	step *ScenarioStep
	seq  int
}

// timeline is the scenario's acts in time order (the file's order at the
// same time).
func (sc *Scenario) timeline() []planned {
	var out []planned
	for i := range sc.Steps {
		st := &sc.Steps[i]
		if st.every == 0 {
			out = append(out, planned{at: st.at, step: st})
			continue
		}
		for t := st.at; t < st.at+st.dur; t += st.every {
			out = append(out, planned{at: t, step: st})
		}
	}
	for i := range out {
		out[i].seq = i
	}
	slices.SortStableFunc(out, func(a, b planned) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	return out
}

// scenarioSite is what a scenario is played on: a fake in this process
// (its control API's routes) or a running one (ControlClient).
type scenarioSite interface {
	now(ctx context.Context) (time.Time, error)
	// settle waits until the deliveries caused so far are made, so that
	// a fast play is the same every time (the journals' cursors).
	settle(ctx context.Context) error
	act(ctx context.Context, path string, body any) (json.RawMessage, error)
}

// Play plays the scenario on the site: each act when its time comes on
// the site's clock (fast: at once, the clock advanced to it, after the
// webhook deliveries caused so far were made when the site is in this
// process, so that the play is the same every time). It writes
// one JSON line per act to w (the step, its time on the site's clock and
// the answer) and stops at ctx's end or the first refused act.
func (sc *Scenario) Play(ctx context.Context, site scenarioSite, fast bool, w io.Writer) error {
	start, err := site.now(ctx)
	if err != nil {
		return err
	}
	answers := map[string]any{}
	for _, p := range sc.timeline() {
		now, err := site.now(ctx)
		if err != nil {
			return err
		}
		if wait := start.Add(p.at).Sub(now); wait > 0 {
			if fast {
				if _, err := site.act(ctx, "/clock/advance", map[string]string{"by": wait.String()}); err != nil {
					return err
				}
			} else {
				t := time.NewTimer(wait)
				select {
				case <-ctx.Done():
					t.Stop()
					return ctx.Err()
				case <-t.C:
				}
			}
		}
		if fast {
			if err := site.settle(ctx); err != nil {
				return err
			}
		}
		body := resolve(p.step.With, answers)
		if body == nil {
			body = map[string]any{}
		}
		out, err := site.act(ctx, "/"+p.step.Do, body)
		if err != nil {
			return fmt.Errorf("step %s (line %d) at %s: %w", stepName(p.step), p.step.line, p.at, err)
		}
		var ans any
		_ = json.Unmarshal(out, &ans)
		if p.step.Name != "" {
			answers[p.step.Name] = ans
		}
		line, _ := json.Marshal(struct {
			At     string `json:"at"`
			Step   string `json:"step"`
			Do     string `json:"do"`
			Answer any    `json:"answer"`
		}{p.at.String(), stepName(p.step), p.step.Do, ans})
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}

func stepName(st *ScenarioStep) string {
	if st.Name != "" {
		return st.Name
	}
	return fmt.Sprintf("line-%d", st.line)
}

// resolve copies v with each ${name.path} replaced by the value at path
// in step name's answer.
func resolve(v any, answers map[string]any) any {
	switch x := v.(type) {
	case string:
		return refPattern().ReplaceAllStringFunc(x, func(ref string) string {
			m := refPattern().FindStringSubmatch(ref)
			var cur any = answers[m[1]]
			for _, k := range strings.Split(m[2], ".") {
				mm, _ := cur.(map[string]any)
				cur = mm[k]
			}
			switch c := cur.(type) {
			case string:
				return c
			case nil:
				return ""
			default:
				b, _ := json.Marshal(c)
				return string(b)
			}
		})
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = resolve(e, answers)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = resolve(e, answers)
		}
		return out
	}
	return v
}

// localSite plays on a control in this process, through its routes.
type localSite struct{ c *control }

func (l localSite) now(context.Context) (time.Time, error) { return l.c.fake.Now(), nil }

func (l localSite) settle(ctx context.Context) error { return l.c.fake.WaitDeliveries(ctx) }

func (l localSite) act(ctx context.Context, path string, body any) (json.RawMessage, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	for _, rt := range controlRoutes {
		if rt.method == http.MethodPost && rt.path == path {
			r, _ := http.NewRequestWithContext(ctx, http.MethodPost, ControlPrefix+path, nil)
			out, err := rt.do(l.c, r, b)
			if err != nil {
				return nil, err
			}
			return json.Marshal(out)
		}
	}
	return nil, fmt.Errorf("no act %s", path)
}

// remoteSite plays on a running fake through its control API.
type remoteSite struct{ c *ControlClient }

func (r remoteSite) now(ctx context.Context) (time.Time, error) {
	b, err := r.c.Get(ctx, "/clock")
	if err != nil {
		return time.Time{}, err
	}
	var v struct {
		Now time.Time `json:"now"`
	}
	err = json.Unmarshal(b, &v)
	return v.Now, err
}

// settle is a no-op: a running fake is played as it comes.
func (r remoteSite) settle(context.Context) error { return nil }

func (r remoteSite) act(ctx context.Context, path string, body any) (json.RawMessage, error) {
	return r.c.Post(ctx, path, body)
}

// Play plays sc on the site in this process (see Scenario.Play).
func (st *Site) Play(ctx context.Context, sc *Scenario, fast bool, w io.Writer) error {
	return sc.Play(ctx, localSite{st.ctl}, fast, w)
}

// Play plays sc on the running fake the client calls.
func (c *ControlClient) Play(ctx context.Context, sc *Scenario, fast bool, w io.Writer) error {
	return sc.Play(ctx, remoteSite{c}, fast, w)
}
