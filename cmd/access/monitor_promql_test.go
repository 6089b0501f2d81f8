package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// promtool returns the path of Prometheus's promtool. Without it the test
// skips, except in CI (CI=true), whose .ci/run installs Debian's
// prometheus package.
func promtool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no promtool in CI: .ci/run installs Debian's prometheus package")
		}
		t.Skip("promtool is not installed (apt-get install prometheus)")
	}
	return p
}

// grafanaVar is a Grafana template variable in a query: $name, ${name}
// or [[name]].
var grafanaVar = regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]`)

// promQL turns a Grafana query into plain PromQL: the built-in interval
// variables become a range, the dashboard's variables (used in label
// matchers) a pattern that matches anything.
func promQL(q string) string {
	return grafanaVar.ReplaceAllStringFunc(q, func(v string) string {
		m := grafanaVar.FindStringSubmatch(v)
		name := m[1] + m[2] + m[3]
		switch name {
		case "__rate_interval", "__interval", "__range":
			return "5m"
		case "__range_s", "__interval_ms", "__interval_s":
			return "300"
		}
		return ".+"
	})
}

// dashboardQueries returns every query of the Grafana dashboard at path,
// by where it is: the panels' targets (rows' panels included) and the
// template variables' queries (label_values(X, label) gives X).
func dashboardQueries(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	type panel struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
		Panels []json.RawMessage `json:"panels"`
	}
	var d struct {
		Panels     []json.RawMessage `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	require.NoError(t, json.Unmarshal(b, &d))
	out := map[string]string{}
	var walk func(prefix string, raws []json.RawMessage)
	walk = func(prefix string, raws []json.RawMessage) {
		for i, raw := range raws {
			var p panel
			require.NoError(t, json.Unmarshal(raw, &p))
			where := fmt.Sprintf("%spanel %d %q", prefix, i+1, p.Title)
			for j, tg := range p.Targets {
				if tg.Expr != "" {
					out[fmt.Sprintf("%s, query %d", where, j+1)] = tg.Expr
				}
			}
			walk(where+" > ", p.Panels)
		}
	}
	walk("", d.Panels)
	labelValues := regexp.MustCompile(`^label_values\((.+),\s*\w+\)$`)
	for _, v := range d.Templating.List {
		q, _ := v.Query.(string)
		if v.Type != "query" || q == "" {
			continue
		}
		if m := labelValues.FindStringSubmatch(q); m != nil {
			q = m[1]
		}
		out[fmt.Sprintf("variable %q", v.Name)] = q
	}
	return out
}

// TestMonitorPromQLChecks: every query of the Grafana dashboard (through
// a rule file of recording rules, one a query) and the alert rules pass
// promtool's checks, and the alerts' unit tests pass (issue 34).
func TestMonitorPromQLChecks(t *testing.T) {
	t.Parallel()
	tool := promtool(t)
	run := func(t *testing.T, args ...string) {
		t.Helper()
		out, err := exec.Command(tool, args...).CombinedOutput()
		assert.NoError(t, err, "promtool %s:\n%s", strings.Join(args, " "), out)
	}

	t.Run("dashboard", func(t *testing.T) {
		t.Parallel()
		queries := dashboardQueries(t, "../../docs/monitoring/grafana-dashboard.json")
		require.GreaterOrEqual(t, len(queries), 16)
		type rule struct {
			Record string            `yaml:"record"`
			Expr   string            `yaml:"expr"`
			Labels map[string]string `yaml:"labels"`
		}
		var rules []rule
		var index strings.Builder
		wheres := make([]string, 0, len(queries))
		for where := range queries {
			wheres = append(wheres, where)
		}
		sort.Strings(wheres)
		for _, where := range wheres {
			q := queries[where]
			name := fmt.Sprintf("dashboard:query_%d", len(rules)+1)
			rules = append(rules, rule{Record: name, Expr: promQL(q), Labels: map[string]string{"where": where}})
			fmt.Fprintf(&index, "%s: %s: %s\n", name, where, q)
		}
		b, err := yaml.Marshal(map[string]any{"groups": []any{map[string]any{"name": "grafana-dashboard", "rules": rules}}})
		require.NoError(t, err)
		file := filepath.Join(t.TempDir(), "dashboard-rules.yml")
		require.NoError(t, os.WriteFile(file, b, 0o600))
		out, err := exec.Command(tool, "check", "rules", file).CombinedOutput()
		assert.NoError(t, err, "promtool check rules of the dashboard's queries:\n%s\nthe queries:\n%s", out, index.String())
	})

	// The tables of the doors open and the devices offline list them by
	// name: their queries, evaluated by promtool on a site's series.
	t.Run("dashboard tables", func(t *testing.T) {
		t.Parallel()
		queries := dashboardQueries(t, "../../docs/monitoring/grafana-dashboard.json")
		const series = `
      - series: 'access_door_info{console="hq",door="d-main",name="Main entrance",floor="f-1"}'
        values: '1'
      - series: 'access_door_open{console="hq",door="d-main"}'
        values: '1'
      - series: 'access_door_info{console="hq",door="d-garage",name="Garage",floor="f-0"}'
        values: '1'
      - series: 'access_door_open{console="hq",door="d-garage"}'
        values: '0'
      - series: 'access_device_info{console="hq",device="aa01",name="Lobby reader",type="UA-Reader-Lite",door="d-main"}'
        values: '1'
      - series: 'access_device_online{console="hq",device="aa01"}'
        values: '0'
      - series: 'access_device_info{console="hq",device="aa02",name="Garage reader",type="UA-Reader-Lite",door="d-garage"}'
        values: '1'
      - series: 'access_device_online{console="hq",device="aa02"}'
        values: '1'`
		want := map[string]string{
			`panel 5 "Doors open", query 1`:      `access_door_info{console="hq",door="d-main",name="Main entrance",floor="f-1"}`,
			`panel 6 "Devices offline", query 1`: `access_device_info{console="hq",device="aa01",name="Lobby reader",type="UA-Reader-Lite",door="d-main"}`,
		}
		var b strings.Builder
		b.WriteString("tests:\n  - interval: 1m\n    input_series:" + series + "\n    promql_expr_test:\n")
		for where, labels := range want {
			q, ok := queries[where]
			require.True(t, ok, "the dashboard has no %s", where)
			fmt.Fprintf(&b, "      - expr: %q\n        eval_time: 0m\n        exp_samples:\n          - labels: %q\n            value: 1\n", promQL(q), labels)
		}
		file := filepath.Join(t.TempDir(), "dashboard_test.yml")
		require.NoError(t, os.WriteFile(file, []byte(b.String()), 0o600))
		run(t, "test", "rules", file)
	})

	t.Run("alert rules", func(t *testing.T) {
		t.Parallel()
		run(t, "check", "rules", "../../docs/monitoring/alerts.yml")
	})

	t.Run("alert unit tests", func(t *testing.T) {
		t.Parallel()
		run(t, "test", "rules", "../../docs/monitoring/alerts_test.yml")
		// Every alert has a test.
		b, err := os.ReadFile("../../docs/monitoring/alerts.yml")
		require.NoError(t, err)
		tests, err := os.ReadFile("../../docs/monitoring/alerts_test.yml")
		require.NoError(t, err)
		alerts := regexp.MustCompile(`(?m)^\s*- alert: (\w+)$`).FindAllStringSubmatch(string(b), -1)
		require.NotEmpty(t, alerts)
		for _, a := range alerts {
			assert.Contains(t, string(tests), "alertname: "+a[1]+"\n", "alerts_test.yml does not test %s", a[1])
		}
	})
}
