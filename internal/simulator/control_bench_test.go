package simulator_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
)

// BenchmarkControlAct: one act through the control API (an exit button
// pressed: a state change, a system-log entry, WebSocket frames), one
// client over keep-alive loopback TLS, against the baseline of the same
// site's REST read of the door on the same connection.
func BenchmarkControlAct(b *testing.B) {
	sim, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", Demo: true, NoUI: true})
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	st := sim.Sites[0]
	hc := benchHTTP(1)
	defer hc.CloseIdleConnections()
	do := func(method, path, body string) error {
		req, _ := http.NewRequest(method, st.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+st.Token())
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s: status %d", method, path, resp.StatusCode)
		}
		return nil
	}
	bench := func(method, path, body string) func(*testing.B) {
		return func(b *testing.B) {
			for range b.N {
				if err := do(method, path, body); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("exit-button", bench("POST", simulator.ControlPrefix+"/door/exit", `{"door":"Main entrance"}`))
	b.Run("baseline-rest-get", bench("GET", "/api/v1/developer/doors/"+accesstest.DemoDoorID, ""))
}
