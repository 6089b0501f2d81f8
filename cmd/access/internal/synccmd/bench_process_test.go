//go:build unix

package synccmd

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/scim"
)

// benchStaying is how many people stay active while the benchmark's
// leavers go.
const benchStaying = 100

// entraUser is a user as Microsoft Entra's provisioning POSTs it.
func entraUser(key string) string {
	return fmt.Sprintf(`{"schemas":[%q,%q],"externalId":"ext-%s","userName":"%s@example.com","active":true,`+
		`"name":{"givenName":"P","familyName":%q},"emails":[{"primary":true,"type":"work","value":"%s@example.com"}],`+
		`%q:{"employeeNumber":%q,"department":"Ops"}}`,
		scim.UserSchema, scim.EnterpriseSchema, key, strings.ToLower(key), key, strings.ToLower(key), scim.EnterpriseSchema, key)
}

// BenchmarkCommandSCIMDeactivation measures, at the command level, how
// long an Entra-shaped SCIM deactivation takes to reach the console: the
// built access command runs `access sync --scim-listen` as a process
// against an accesstest console served by the benchmark (loopback HTTPS),
// with an evidence log. Each op is one leaver (of b.N, with
// benchStaying people staying, each holding an NFC card): the clock runs
// from just before Entra's PATCH `active "False"` is sent to when the
// console holds the user DEACTIVATED without a card and the evidence file
// holds the person's revoke_credentials record (polled every 0.2 ms after
// the console's change). The process's run line is awaited off the
// clock before the next push. p50-ms/p99-ms (nearest rank) are reported
// with b.ReportMetric; console-p50-ms is the console's change alone.
func BenchmarkCommandSCIMDeactivation(b *testing.B) {
	n := b.N
	srv := accesstest.New(b)
	dir := b.TempDir()
	keys := make([]string, 0, n+benchStaying)
	ids := map[string]string{}
	for i := range n + benchStaying {
		k := fmt.Sprintf("E%05d", i)
		keys = append(keys, k)
		ids[k] = srv.AddUser(access.User{FirstName: "P", LastName: k, EmployeeNumber: k, UserEmail: strings.ToLower(k) + "@example.com",
			NFCCards: []access.NFCCard{{ID: fmt.Sprint(500000 + i), Token: fmt.Sprint("tok-", i)}}}).ID
	}
	st, err := scim.Open(filepath.Join(dir, "store.jsonl"), scim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	h, err := scim.NewHandler(st, scim.Config{Token: scimToken})
	if err != nil {
		b.Fatal(err)
	}
	scimIDs := map[string]string{}
	for _, k := range keys {
		var u struct{ ID string }
		if err := json.Unmarshal(scimDo(b, h, "POST", "/Users", entraUser(k)), &u); err != nil {
			b.Fatal(err)
		}
		scimIDs[k] = u.ID
	}
	st.Close()
	writeConfig(b, dir, openGuard)
	evPath := filepath.Join(dir, "evidence.jsonl")

	p := startSync(b, srv, dir, "--config", "sync.yaml", "--scim-listen", "127.0.0.1:0")
	m := scimAt.FindStringSubmatch(p.errs.await(b, "SCIM at "))
	p.errs.await(b, "okta (start): no change")
	changed := make(chan struct{}, 1)
	defer srv.OnChange(func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	})()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	gone := func(id string) bool {
		u, _ := srv.User(id)
		return u.Status == access.UserStatusDeactivated && len(u.NFCCards) == 0
	}
	recorded := func(key string) bool {
		ev, err := dirsync.ReadEvidenceFile(evPath)
		if err != nil {
			return false
		}
		return slices.ContainsFunc(ev.Records, func(r dirsync.Record) bool {
			return r.Key == key && r.Action == dirsync.ActionRevokeCredentials && r.Status == "done"
		})
	}

	total := make([]time.Duration, 0, n)
	atConsole := make([]time.Duration, 0, n)
	b.ResetTimer()
	for i := range n {
		k := keys[i]
		req, _ := http.NewRequest("PATCH", m[1]+"/Users/"+scimIDs[k], strings.NewReader(deactivate))
		req.Header.Set("Content-Type", "application/scim+json")
		req.Header.Set("Authorization", "Bearer "+scimToken)
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("push %s: %v %v", k, resp, err)
		}
		resp.Body.Close()
		for !gone(ids[k]) {
			select {
			case <-changed:
			case <-ctx.Done():
				b.Fatalf("%s never reached the console", k)
			}
		}
		atConsole = append(atConsole, time.Since(start))
		for !recorded(k) {
			if ctx.Err() != nil {
				b.Fatalf("%s never reached the evidence log", k)
			}
			time.Sleep(200 * time.Microsecond)
		}
		total = append(total, time.Since(start))
		b.StopTimer()
		p.errs.await(b, "okta (push): 1 deactivated")
		b.StartTimer()
	}
	b.StopTimer()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	<-p.done
	slices.Sort(total)
	slices.Sort(atConsole)
	pct := func(d []time.Duration, q float64) float64 {
		i := max(int(float64(len(d))*q/100+0.999999)-1, 0)
		return float64(d[i].Microseconds()) / 1000
	}
	b.ReportMetric(pct(total, 50), "p50-ms")
	b.ReportMetric(pct(total, 99), "p99-ms")
	b.ReportMetric(pct(atConsole, 50), "console-p50-ms")
	b.ReportMetric(float64(total[len(total)-1].Microseconds())/1000, "max-ms")
}
