package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/monitor"
)

// family is one metric family of a scrape: its type and label names.
type family struct {
	typ    string
	labels []string
}

var (
	typeLine   = regexp.MustCompile(`^# TYPE (\S+) (\S+)$`)
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? `)
	labelName  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"`)
)

// families reads the families of a text exposition.
func families(t *testing.T, text string) map[string]family {
	t.Helper()
	out := map[string]family{}
	for _, l := range strings.Split(text, "\n") {
		if m := typeLine.FindStringSubmatch(l); m != nil {
			out[m[1]] = family{typ: m[2]}
			continue
		}
		m := sampleLine.FindStringSubmatch(l)
		if m == nil || strings.HasPrefix(l, "#") {
			continue
		}
		name := m[1]
		if _, ok := out[name]; !ok {
			for _, suf := range []string{"_bucket", "_sum", "_count"} {
				if base, ok := strings.CutSuffix(name, suf); ok {
					if _, ok := out[base]; ok {
						name = base
					}
				}
			}
		}
		f, ok := out[name]
		require.True(t, ok, "sample %q without a TYPE", l)
		for _, lm := range labelName.FindAllStringSubmatch(m[2], -1) {
			if lm[1] != "le" && !slices.Contains(f.labels, lm[1]) {
				f.labels = append(f.labels, lm[1])
			}
		}
		sort.Strings(f.labels)
		out[name] = f
	}
	return out
}

// metricNames returns the access_ metric names a PromQL expression uses,
// histogram series mapped to their family.
func metricNames(expr string) []string {
	var out []string
	for _, n := range regexp.MustCompile(`\baccess_[a-z0-9_]+`).FindAllString(expr, -1) {
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(n, suf); ok && strings.HasSuffix(base, "_seconds") {
				n = base
			}
		}
		out = append(out, n)
	}
	return out
}

// fullScrape runs a monitor against the demo site and acts until every
// metric family has a series, and returns its scrape.
func fullScrape(t *testing.T) string {
	t.Helper()
	srv := accesstest.New(t, accesstest.WithDemoData(), accesstest.WithKeepalive(100*time.Millisecond))
	m := startMonitor(t, 1, fakeEnv(srv, nil), "--held-open", "1s", "--rate", "50", "--burst", "20")
	require.NoError(t, srv.WaitNotificationClients(m.ctx, 1))
	require.NoError(t, srv.PressExitButton(accesstest.DemoDoorID))
	_, err := srv.RingDoorbell(accesstest.DemoIntercomID)
	require.NoError(t, err)
	srv.NotifyRaw([]byte(`{"event":"access.data.v9.renamed","data":{}}`))
	require.NoError(t, srv.SetDoorPosition(serverRoom, true))
	m.next(monitor.TypeOpened, monitor.KindForcedEntry)
	// A door held open: its incident's start is a series while it is open.
	m.next(monitor.TypeOpened, monitor.KindHeldOpen)
	return m.scrape()
}

// TestMonitorDocsMatchScrape: the list of metrics of docs/monitor.md (name, type,
// labels) is what a scrape serves, and every metric the alert rules and
// the Grafana dashboard name exists in it; the rules' for: durations are
// the flags' defaults.
func TestMonitorDocsMatchScrape(t *testing.T) {
	t.Parallel()
	got := families(t, fullScrape(t))

	t.Run("docs/monitor.md", func(t *testing.T) {
		listed, err := metricTable("../../docs/monitor.md")
		require.NoError(t, err)
		for name, f := range got {
			if !strings.HasPrefix(name, "access_") {
				continue
			}
			l, ok := listed[name]
			if assert.True(t, ok, "docs/monitor.md does not list %s", name) {
				assert.Equal(t, f, l, "docs/monitor.md row of %s", name)
			}
		}
		for name := range listed {
			assert.Contains(t, got, name, "docs/monitor.md lists %s, which the scrape does not serve", name)
		}
	})

	t.Run("alert rules", func(t *testing.T) {
		b, err := os.ReadFile("../../docs/monitoring/alerts.yml")
		require.NoError(t, err)
		var doc struct {
			Groups []struct {
				Name  string `yaml:"name"`
				Rules []struct {
					Alert       string            `yaml:"alert"`
					Expr        string            `yaml:"expr"`
					For         string            `yaml:"for"`
					Labels      map[string]string `yaml:"labels"`
					Annotations map[string]string `yaml:"annotations"`
				} `yaml:"rules"`
			} `yaml:"groups"`
		}
		dec := yaml.NewDecoder(strings.NewReader(string(b)))
		dec.KnownFields(true)
		require.NoError(t, dec.Decode(&doc))
		// The rules whose for: stands for a flag's default.
		wantFor := map[string]time.Duration{
			"AccessDoorHeldOpen":  monitor.DefaultHeldOpen,
			"AccessDeviceOffline": monitor.DefaultDeviceOffline,
			"AccessStreamDown":    monitor.DefaultStreamSilent,
			"AccessStreamMute":    monitor.DefaultStreamMute,
		}
		seen := 0
		for _, g := range doc.Groups {
			for _, r := range g.Rules {
				require.NotEmpty(t, r.Alert)
				assert.NotEmpty(t, r.Labels["severity"], r.Alert)
				assert.NotEmpty(t, r.Annotations["summary"], r.Alert)
				if want, ok := wantFor[r.Alert]; ok {
					seen++
					d, err := time.ParseDuration(r.For)
					require.NoError(t, err, r.Alert)
					assert.Equal(t, want, d, "%s: for: %s, the flag's default is %s", r.Alert, r.For, want)
				}
				names := metricNames(r.Expr)
				assert.NotEmpty(t, names, "%s names no metric", r.Alert)
				for _, n := range names {
					assert.Contains(t, got, n, "%s uses %s, which the scrape does not serve", r.Alert, n)
				}
			}
		}
		assert.Equal(t, len(wantFor), seen, "rules for the flags' thresholds")
	})

	t.Run("dashboard", func(t *testing.T) {
		b, err := os.ReadFile("../../docs/monitoring/grafana-dashboard.json")
		require.NoError(t, err)
		var d struct {
			Panels []struct {
				Title   string `json:"title"`
				Targets []struct {
					Expr string `json:"expr"`
				} `json:"targets"`
			} `json:"panels"`
		}
		require.NoError(t, json.Unmarshal(b, &d))
		require.NotEmpty(t, d.Panels)
		for _, p := range d.Panels {
			require.NotEmpty(t, p.Targets, p.Title)
			for _, tg := range p.Targets {
				names := metricNames(tg.Expr)
				assert.NotEmpty(t, names, "%s: %s", p.Title, tg.Expr)
				for _, n := range names {
					assert.Contains(t, got, n, "panel %q uses %s, which the scrape does not serve", p.Title, n)
				}
			}
		}
	})
}

// metricTable reads the table of metrics (name, type, labels) between
// <!-- monitor-metrics --> and <!-- /monitor-metrics --> of the Markdown
// page at path.
func metricTable(path string) (map[string]family, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_, table, ok := strings.Cut(string(b), "<!-- monitor-metrics -->\n")
	if ok {
		table, _, ok = strings.Cut(table, "<!-- /monitor-metrics -->")
	}
	if !ok {
		return nil, fmt.Errorf("%s has no <!-- monitor-metrics --> table", path)
	}
	row := regexp.MustCompile("^\\| `(access_[a-z_]+)` \\| (\\w+) \\| ([a-z_, ]+) \\|$")
	listed := map[string]family{}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) < 3 {
		return nil, fmt.Errorf("%s: the metrics table has no rows", path)
	}
	for _, l := range lines[2:] {
		m := row.FindStringSubmatch(l)
		if m == nil {
			return nil, fmt.Errorf("%s: row %q", path, l)
		}
		labels := strings.Split(m[3], ", ")
		sort.Strings(labels)
		listed[m[1]] = family{typ: m[2], labels: labels}
	}
	return listed, nil
}
