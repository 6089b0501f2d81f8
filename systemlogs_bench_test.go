package access

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

// benchFile is a download's answer.
type benchFile struct {
	contentType string
	body        []byte
}

// benchFiles are the answers of the download operations: a 256 KiB CSV
// export and a 64 KiB thumbnail.
func benchFiles() map[string]benchFile {
	row := "2023-07-11 14:11:27,door_openings,access.door.unlock,Access Granted (NFC),ACCESS,Ada Lovelace,user,NFC,Main Door,UA-HUB-3855\n"
	csv := strings.Repeat(row, (256<<10)/len(row))
	return map[string]benchFile{
		"POST /api/v1/developer/system/logs/export": {"text/csv; charset=utf-8", []byte(csv)},
		"GET /api/v1/developer/system/static/":      {"image/jpeg", bytes.Repeat([]byte{0xff, 0xd8, 0x42, 0x17}, 16<<10)},
	}
}

// benchLogPage is a page of n system-log entries shaped like the vendor's
// sample.
func benchLogPage(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"code":"SUCCESS","msg":"success","data":{"hits":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"@timestamp":"2023-07-11T12:11:27Z","_id":"log-%d","_source":{"actor":{"alternate_id":"","alternate_name":"",`+
			`"display_name":"Ada Lovelace","id":"3242d7e8-c5b3-4b84-8aa3-5c3e3eb4e3a2","type":"user"},"authentication":`+
			`{"credential_provider":"NFC","issuer":"6FC02554"},"event":{"display_message":"Access Granted (NFC)","published":%d,`+
			`"reason":"","result":"ACCESS","type":"access.door.unlock"},"target":[{"alternate_id":"","alternate_name":"",`+
			`"display_name":"UA-HUB-3855","id":"7483c2773855","type":"UAH"},{"alternate_id":"","alternate_name":"",`+
			`"display_name":"Main Door","id":"0ed545f8-2fcd-4839-9021-b39e707f6aa9","type":"door"}]},"tag":"access"}`, i, 1689077487000-int64(i))
	}
	fmt.Fprintf(&b, `],"page":1,"total":%d}}`, n)
	return b.Bytes()
}

// baselineDownload is a hand-written download: send the request, check the
// status and that the answer is a file, copy it into w.
func baselineDownload(ctx context.Context, hc *http.Client, method, url string, body any, w io.Writer) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || strings.Contains(resp.Header.Get("Content-Type"), "json") {
		return fmt.Errorf("status %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	_, err = io.Copy(w, resp.Body)
	return err
}

// baselineUpload is a hand-written multipart upload of the key and the
// certificate, built in memory, after the same check as the SDK's.
func baselineUpload(ctx context.Context, hc *http.Client, url string, key, cert []byte) error {
	// The same guarantee as the SDK's: a key that does not match the
	// certificate is refused before anything is sent. The check
	// (tls.X509KeyPair) is about 23 µs of the call.
	if _, err := tls.X509KeyPair(cert, key); err != nil {
		return err
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range []struct {
		field, file string
		data        []byte
	}{{"key", "server.key", key}, {"cert", "server.crt", cert}} {
		h := make(textproto.MIMEHeader)
		h.Set("Content-Disposition", `form-data; name="`+p.field+`"; filename="`+p.file+`"`)
		h.Set("Content-Type", "application/x-pem-file")
		pw, err := mw.CreatePart(h)
		if err != nil {
			return err
		}
		pw.Write(p.data)
	}
	if err := mw.Close(); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", url, &buf)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Code string `json:"code"`
	}
	if err := json.Unmarshal(raw, &env); err != nil || env.Code != "SUCCESS" {
		return fmt.Errorf("status %d, code %q, %v", resp.StatusCode, env.Code, err)
	}
	return nil
}

// baseLogPage is the data of a system-log fetch in plain Go types, as a
// user would declare it.
type baseLogPage struct {
	Hits []struct {
		Timestamp string `json:"@timestamp"`
		ID        string `json:"_id"`
		Source    struct {
			Actor struct {
				ID            string `json:"id"`
				Type          string `json:"type"`
				DisplayName   string `json:"display_name"`
				AlternateID   string `json:"alternate_id"`
				AlternateName string `json:"alternate_name"`
			} `json:"actor"`
			Authentication struct {
				CredentialProvider string `json:"credential_provider"`
				Issuer             string `json:"issuer"`
			} `json:"authentication"`
			Event struct {
				Type           string `json:"type"`
				DisplayMessage string `json:"display_message"`
				Result         string `json:"result"`
				Published      int64  `json:"published"`
				Reason         string `json:"reason"`
			} `json:"event"`
			Target []struct {
				Type          string `json:"type"`
				ID            string `json:"id"`
				DisplayName   string `json:"display_name"`
				AlternateID   string `json:"alternate_id"`
				AlternateName string `json:"alternate_name"`
			} `json:"target"`
		} `json:"_source"`
		Tag string `json:"tag"`
	} `json:"hits"`
	Page  int `json:"page"`
	Total int `json:"total"`
}

// withoutBoundary replaces a multipart body's random boundary, so that the
// SDK's and the baseline's bodies compare equal.
func withoutBoundary(r *http.Request, body []byte) []byte {
	if mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		return bytes.ReplaceAll(body, []byte(params["boundary"]), []byte("BOUNDARY"))
	}
	return body
}

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
	srv := testlog.NewTLSServer(b, mux)
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
