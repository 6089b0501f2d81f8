package access

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// exportRows is how many rows BenchmarkSystemLogsExport1M streams.
const exportRows = 1_000_000

// csvRows serves an export of n rows, generated as it is sent.
func csvRows(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		buf := make([]byte, 0, 64<<10)
		buf = append(buf, "Time,Topic,Event,Message,Result,Actor,Actor Type,Authentication,Door,Device\n"...)
		for i := range n {
			buf = append(buf, "2026-11-02 10:00:00,door_openings,access.door.unlock,Access Granted (NFC),ACCESS,User "...)
			buf = strconv.AppendInt(buf, int64(i), 10)
			buf = append(buf, ",user,NFC,Main entrance,UA-HUB-3855\n"...)
			if len(buf) > 60<<10 {
				if _, err := w.Write(buf); err != nil {
					return
				}
				buf = buf[:0]
			}
		}
		_, _ = w.Write(buf)
	}
}

// BenchmarkSystemLogsExport1M streams an export of 1,000,000 rows (about
// 100 MB) into io.Discard through the SDK and through a hand-written
// io.Copy, reporting throughput and the peak heap in use while streaming.
func BenchmarkSystemLogsExport1M(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/developer/system/logs/export", csvRows(exportRows))
	srv := httptest.NewTLSServer(mux)
	b.Cleanup(srv.Close)
	hc := srv.Client()
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(hc))
	require.NoError(b, err)
	ctx := context.Background()
	req := &SystemLogExportRequest{Topic: SystemLogTopicAll, Since: logSince, Until: logUntil, Timezone: "UTC"}
	body := &systemLogFilter{Topic: req.Topic, Since: unixOrNil(req.Since), Until: unixOrNil(req.Until), Timezone: req.Timezone}
	run := func(b *testing.B, export func(w io.Writer) error) {
		b.ReportAllocs()
		runtime.GC()
		var peak uint64
		cw := &countingWriter{each: func(n int64) {
			if n%(8<<20) < 32<<10 {
				peak = max(peak, heapInUse())
			}
		}}
		for range b.N {
			if err := export(cw); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(cw.n / int64(b.N))
		b.ReportMetric(float64(exportRows*b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	}
	b.Run("sdk", func(b *testing.B) {
		run(b, func(w io.Writer) error {
			_, err := c.SystemLogs.Export(ctx, req, w)
			return err
		})
	})
	b.Run("baseline", func(b *testing.B) {
		run(b, func(w io.Writer) error {
			return baselineDownload(ctx, hc, "POST", srv.URL+"/api/v1/developer/system/logs/export", body, w)
		})
	})
}
