package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/spf13/cobra"
)

// notFakeExamples are the help examples that cannot run against --fake,
// and why.
var notFakeExamples = map[string]string{
	"login":  "it stores a profile of a real console, read from a token file",
	"logout": "it removes a stored profile, which --fake has none of",
	"fake":   "it serves a simulated console until Ctrl-C (internal/simulator's tests start it)",
	// access fake trigger acts on a running access fake (ACCESS_URL), not
	// on --fake: testdata/script/fake_trigger.txtar runs each against one.
	"fake trigger":                "it acts on a running access fake: fake_trigger.txtar",
	"capture diff":                "it compares two capture files: capture.txtar runs it",
	"capture check":               "it reads a capture file: capture.txtar runs it",
	"fake record":                 "it writes a seed folder (here, the working directory): fake_record.txtar runs it against --fake",
	"fake trigger tap-card":       "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger fail-tap":       "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger doorbell":       "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger door-open":      "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger door-close":     "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger exit-button":    "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger device":         "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger emergency":      "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger advance":        "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger fault":          "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger clear-faults":   "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger scenario":       "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger reset":          "it acts on a running access fake: fake_trigger.txtar",
	"fake trigger restart":        "it acts on a running access fake: fake_trigger.txtar",
	"nfc-cards enrollment-status": "its session comes from start-enrollment on the same console; each --fake run is a new one (nfc-cards enroll runs a whole enrollment)",
	"nfc-cards end-enrollment":    "its session comes from start-enrollment on the same console; each --fake run is a new one (nfc-cards enroll runs a whole enrollment)",
	// The profiles of the config file: --fake uses none.
	"config":      "its commands work on the profiles of the config file, which --fake does not use",
	"config list": "it lists the profiles of the config file, which --fake does not use",
	"config use":  "it switches the profiles of the config file, which --fake does not use",
	"config show": "it shows a profile of the config file, which --fake does not use",
	"review diff": "it compares two saved reviews (files of review -o json): testdata/script/review.txtar runs it",
}

// noConsoleExamples are commands whose examples need no console: they
// run as written, without --fake and with no console configured.
var noConsoleExamples = map[string]bool{
	"completion": true, "completion bash": true, "completion zsh": true, "completion fish": true, "completion powershell": true,
}

// mustRunExamples are commands whose --fake examples need the demo's
// extras (history, activity, a card at the reader): they must be among
// the examples run.
var mustRunExamples = []string{
	"events tail", "events listen", "nfc-cards enroll", "system-logs list", "system-logs export",
	"user-groups list", "user-groups users",
}

// TestHelpExamplesWithFakeRun runs every "access --fake ..." example of
// every command's help, as a terminal shows it, in a directory holding the
// files they name, and expects success and output: a table, a line, or
// the file -O names. Every example of the help runs against --fake but
// those of notFakeExamples. The events listen example forwards to a
// handler of the test instead of localhost:8080, which must receive the
// deliveries signed with the example's secret. It changes the working
// directory, so it is not parallel (parallel tests start after it).
func TestHelpExamplesWithFakeRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"people.csv": "first_name,last_name,email\nGrace,Hopper,grace@example.com\n",
		"cards.csv":  "nfc_id,alias\n0A1B2C3D,lobby-1\n",
		"site.yaml":  "user_groups:\n  - name: Facilities\n  - name: Night crew\n    parent: Facilities\n",
		"secret.txt": "s3cret\n",
		// access sync's configuration and the SCIM store it names (E01004
		// deactivated by the identity provider).
		"sync.yaml": "sources:\n  - name: okta\n    scim: {store: scim-store.json, token_env: SCIM_TOKEN}\n    scope: {user_group: Facilities}\n",
		"scim-store.json": `{"seq":2,"users":[{"id":"u1","user_name":"elena.eriksen3@example.com","given_name":"Elena","family_name":"Eriksen","emails":[{"value":"elena.eriksen3@example.com","type":"work"}],"active":true,"employee_number":"E01003","created":"2026-03-01T09:00:00Z","modified":"2026-03-01T09:00:00Z","seq":1},` +
			`{"id":"u2","user_name":"blake.castillo4@example.com","given_name":"Blake","family_name":"Castillo","emails":[{"value":"blake.castillo4@example.com","type":"work"}],"active":false,"employee_number":"E01004","created":"2026-03-01T09:00:00Z","modified":"2026-03-02T17:30:00Z","seq":2}],"groups":[]}`,
		"evidence.jsonl": `{"source":"okta","key":"E01004","name":"Blake Castillo","action":"deactivate","fields":["status"],"status":"done","source_changed":"2026-03-02T17:30:00Z","observed":"2026-03-02T17:30:01Z","acknowledged":"2026-03-02T17:30:01Z","latency_seconds":1}` + "\n",
	}
	certPEM, keyPEM := selfSignedPEM(t)
	files["cert.pem"], files["key.pem"] = certPEM, keyPEM
	files["ada.png"] = "\x89PNG\r\n\x1a\n"
	writeFiles := func() {
		for name, content := range files {
			if err := os.WriteFile(dir+"/"+name, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	writeFiles()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd) //nolint:errcheck // back to the package directory

	var mu sync.Mutex
	var delivered []string
	handler := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := access.ConstructEvent(body, r.Header.Get(access.SignatureHeader), "s3cret")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		delivered = append(delivered, string(ev.Event))
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer handler.Close()

	a := newApp(context.Background(), nil, nil, nil, func(string) string { return "" })
	var examples []string
	seen := map[string]bool{}
	ran := map[string]bool{}
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		path := strings.TrimPrefix(c.CommandPath(), "access ")
		if !c.Hidden && c.Example == "" {
			t.Errorf("%s: no example in its help", c.CommandPath())
		}
		for _, line := range strings.Split(c.Example, "\n") {
			l := strings.TrimSpace(line)
			switch {
			case seen[l]: // a group's example is one of its commands'
				ran[path] = true
			case strings.HasPrefix(l, "access --fake "), strings.HasPrefix(l, "access ") && noConsoleExamples[path]:
				examples = append(examples, l)
				seen[l] = true
				ran[path] = true
			case strings.HasPrefix(l, "access ") && notFakeExamples[path] == "":
				t.Errorf("%s: the example %q does not run against --fake", path, l)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(a.rootCommand())
	if len(examples) < 25 {
		t.Fatalf("found %d examples with --fake, want at least 25", len(examples))
	}
	for _, path := range mustRunExamples {
		if !ran[path] {
			t.Errorf("no --fake example of %s ran", path)
		}
	}
	env := map[string]string{"ACCESS_CONFIG_DIR": dir, "ACCESS_FORCE_TTY": "1", "NO_COLOR": "1"}
	// Every example runs in both modes: --fake's console reached directly,
	// and through the UniFi OS proxy layout with the token as an X-API-KEY.
	for _, mode := range []access.Mode{access.ModeDirect, access.ModeProxy} {
		writeFiles() // the files as the examples expect them, not as the last round left them
		mu.Lock()
		delivered = nil
		mu.Unlock()
		for _, ex := range examples {
			args, err := shellWords(strings.ReplaceAll(ex, "http://localhost:8080/webhook", handler.URL))
			if err != nil {
				t.Fatalf("%s: %v", ex, err)
			}
			// A hang (events waiting for activity, enroll for a card) is
			// a failure, not a test timeout.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			var out, errb bytes.Buffer
			a := newApp(ctx, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
			a.fakeMode = mode
			code := a.execute(args[1:])
			cancel()
			if code != 0 {
				t.Errorf("%s (%s): exit %d: %s", ex, mode, code, errb.String())
				continue
			}
			if i := indexOf(args, "-O"); i > 0 {
				b, err := os.ReadFile(args[i+1])
				switch {
				case strings.HasSuffix(args[i+1], ".csv") && (err != nil || strings.Count(string(b), "\n") < 2):
					t.Errorf("%s (%s): %s holds no records (%v): %q", ex, mode, args[i+1], err, b)
				case err != nil || len(b) == 0:
					t.Errorf("%s (%s): %s is empty (%v)", ex, mode, args[i+1], err)
				}
				continue
			}
			if strings.TrimSpace(out.String()) == "" {
				t.Errorf("%s (%s): printed nothing (stderr %q)", ex, mode, errb.String())
			}
			if a.client != nil && a.client.Mode() != mode {
				t.Errorf("%s: ran in %s mode, want %s", ex, a.client.Mode(), mode)
			}
		}
		mu.Lock()
		if len(delivered) != 2 {
			t.Errorf("the events listen example (%s) delivered %q, want 2 signed deliveries", mode, delivered)
		}
		mu.Unlock()
	}
}

func indexOf(ss []string, s string) int {
	for i, v := range ss {
		if v == s {
			return i
		}
	}
	return -1
}

// selfSignedPEM makes a certificate and its key, for the example of
// api-server upload-certificate.
func selfSignedPEM(t *testing.T) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "console"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}))
}
