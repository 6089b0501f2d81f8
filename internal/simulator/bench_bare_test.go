package simulator_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/access-dev/access/accesstest"
	"github.com/access-dev/access/internal/simulator"
)

// BenchmarkRESTVsBareTLS is issue 38's measure of the fake's REST: 32
// concurrent keep-alive clients GET a door from the standalone fake
// (simulator.Start, as `access fake` runs it) and from a bare Go TLS
// server (httptest.NewTLSServer) answering the same status, Content-Type
// and body, in rounds of 2,000 calls that alternate between the two
// (which goes first alternates too). x-bare is the fake's rate over the
// bare server's in the same run (goal: at least 0.7).
func BenchmarkRESTVsBareTLS(b *testing.B) {
	const clients, round = 32, 2000
	sim, err := simulator.Start(simulator.Config{Addr: "127.0.0.1:0", Demo: true, NoUI: true})
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	st := sim.Sites[0]
	path := "/api/v1/developer/doors/" + accesstest.DemoDoorID
	hc := benchHTTP(clients)
	defer hc.CloseIdleConnections()
	get := func(url, token string) ([]byte, string, error) {
		req, _ := http.NewRequest(http.MethodGet, url+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		return body, resp.Header.Get("Content-Type"), err
	}
	body, ctype, err := get(st.URL, st.Token())
	if err != nil {
		b.Fatal(err)
	}
	bare := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path || r.Header.Get("Authorization") != "Bearer "+st.Token() {
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(body)
	}))
	defer bare.Close()
	// rate runs n calls with clients goroutines against url and returns
	// the time they took.
	rate := func(url string, n int) time.Duration {
		var wg sync.WaitGroup
		work := make(chan struct{}, n)
		for range n {
			work <- struct{}{}
		}
		close(work)
		start := time.Now()
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range work {
					if _, _, err := get(url, st.Token()); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(start)
	}
	rate(st.URL, clients) // the connections, on both sides
	rate(bare.URL, clients)
	var tSim, tBare time.Duration
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			tSim += rate(st.URL, round)
			tBare += rate(bare.URL, round)
		} else {
			tBare += rate(bare.URL, round)
			tSim += rate(st.URL, round)
		}
	}
	b.StopTimer()
	calls := float64(b.N * round)
	b.ReportMetric(calls/tSim.Seconds(), "fake-calls/s")
	b.ReportMetric(calls/tBare.Seconds(), "bare-calls/s")
	b.ReportMetric(tBare.Seconds()/tSim.Seconds(), "x-bare")
}
