package access

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	logSince = time.Date(2023, 7, 1, 0, 0, 0, 0, time.UTC)
	logUntil = time.Date(2023, 7, 12, 0, 0, 0, 0, time.UTC)
)

func TestSystemLogsListWireAndSample(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	sample, err := os.ReadFile("testdata/samples/system_logs_list.json")
	require.NoError(t, err)
	mux.HandleFunc("POST /api/v1/developer/system/logs", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, true)
		assert.Equal(t, "page_num=2&page_size=10", r.URL.RawQuery, "paging in the query string")
		b, _ := io.ReadAll(r.Body)
		assert.Equal(t, `{"topic":"door_openings","since":1688169600,"until":1689120000,"actor_id":"3e763e5d"}`, string(b))
		writeRaw(w, 200, "application/json", string(sample))
	})
	logs, resp, err := c.SystemLogs.List(logCtx, &SystemLogQuery{Topic: SystemLogTopicDoorOpenings, Since: logSince, Until: logUntil,
		ActorID: "3e763e5d", PageNum: 2, PageSize: 10})
	require.NoError(t, err)
	assert.Equal(t, &Pagination{PageNum: 1, PageSize: 10, Total: 3}, resp.Pagination, "page and total from inside data")
	require.Len(t, logs, 1)
	e := logs[0]
	assert.Equal(t, DateTime("2023-07-11T12:11:27Z"), e.Timestamp)
	assert.Equal(t, "access", e.Tag)
	assert.Equal(t, SystemLogActor{DisplayName: "N/A", Type: "user"}, e.Source.Actor)
	assert.Equal(t, SystemLogAuthentication{CredentialProvider: "NFC", Issuer: "6FC02554"}, e.Source.Authentication)
	assert.Equal(t, SystemLogEvent{Type: "access.door.unlock", DisplayMessage: "Access Denied / Unknown (NFC)", Result: "BLOCKED",
		Published: 1689077487000}, e.Source.Event)
	assert.Equal(t, time.Date(2023, 7, 11, 12, 11, 27, 0, time.UTC), e.Time())
	require.Len(t, e.Source.Target, 4)
	door, ok := e.Door()
	require.True(t, ok)
	assert.Equal(t, SystemLogTarget{Type: "door", ID: "0ed545f8-2fcd-4839-9021-b39e707f6aa9", DisplayName: "Main Door"}, door)
	res, ok := e.Target("activities_resource")
	require.True(t, ok)
	assert.Equal(t, "67e2d3d4-8b17-4b55-9a3e-a6e5a9f0a5b3", res.ID)
	_, ok = e.UnlockSource()
	assert.False(t, ok, "not an API unlock")
}

func TestSystemLogsListMinimalAndEmpty(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var n atomic.Int32
	mux.HandleFunc("POST /api/v1/developer/system/logs", func(w http.ResponseWriter, r *http.Request) {
		assert.Empty(t, r.URL.RawQuery, "no paging asked for")
		b, _ := io.ReadAll(r.Body)
		assert.Equal(t, `{"topic":"all"}`, string(b))
		if n.Add(1) == 1 {
			writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"hits":null,"page":1,"total":0}}`)
			return
		}
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":null}`)
	})
	for range 2 {
		logs, resp, err := c.SystemLogs.List(logCtx, &SystemLogQuery{Topic: SystemLogTopicAll})
		require.NoError(t, err)
		assert.NotNil(t, logs)
		assert.Empty(t, logs)
		assert.NotNil(t, resp.Pagination)
	}
}

func TestSystemLogDecodingIsLenient(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("POST /api/v1/developer/system/logs", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":{"hits":[
		{"_id":7,"@timestamp":null,"_source":{"actor":{"id":"a1","type":"user","display_name":null},"event":{"published":"1689077487000","type":"x"},"target":null},"tag":null},
		{"_id":"b","_source":{"event":{"published":1.689077487e12},"authentication":null,"target":[{"type":"door","id":"d1"}]}},
		{"_id":"c","_source":{"event":{"published":{"oops":1}},"target":"door","actor":{"id":["x"],"type":"user"}}}
	],"page":"2","total":null}}`)
	})
	hits, resp, err := c.SystemLogs.List(logCtx, &SystemLogQuery{Topic: SystemLogTopicAll})
	require.NoError(t, err)
	assert.Equal(t, 2, resp.Pagination.PageNum)
	assert.Equal(t, 0, resp.Pagination.Total)
	require.Len(t, hits, 3)
	assert.Equal(t, "", hits[0].ID, "a number where a string is expected is skipped")
	assert.Equal(t, "a1", hits[0].Source.Actor.ID, "the rest of the entry is kept")
	assert.Equal(t, UnixMilli(1689077487000), hits[0].Source.Event.Published)
	assert.Equal(t, UnixMilli(1689077487000), hits[1].Source.Event.Published)
	assert.Equal(t, "d1", hits[1].Source.Target[0].ID)
	assert.Equal(t, "c", hits[2].ID)
	assert.Equal(t, "user", hits[2].Source.Actor.Type, "after a bad member")
	assert.Equal(t, UnixMilli(0), hits[2].Source.Event.Published)
	assert.True(t, hits[2].Time().IsZero())
	assert.True(t, UnixMilli(0).Time().IsZero())

	// Broken JSON, or a code of another type, is still an invalid response.
	for _, body := range []string{`{"code":"SUCCESS","data":{"hits":[{"_id":"x"}`, `{"code":7,"data":{"hits":[]}}`, `{"code":"SUCCESS","data":[]}`} {
		c2 := rtClient(roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Request: r,
				Body: io.NopCloser(strings.NewReader(body))}, nil
		}))
		_, _, err := c2.SystemLogs.List(logCtx, &SystemLogQuery{Topic: SystemLogTopicAll})
		assert.ErrorIs(t, err, ErrInvalidResponse, body)
	}

	// The WebSocket's access.logs.add decodes into the same type.
	n, err := ParseNotification([]byte(`{"event":"access.logs.add","data":{"_id":"x","_source":{"actor":{"type":"open_api"},` +
		`"target":[{"type":"unlock_source","id":"{\"actor_id\":\"a1\",\"actor_name\":\"Front desk\",\"extra\":{\"ticket\":42}}"}]}}}`))
	require.NoError(t, err)
	var l *SystemLog
	l, err = n.LogsAdd()
	require.NoError(t, err)
	src, ok := l.UnlockSource()
	require.True(t, ok)
	assert.Equal(t, "a1", src.ActorID)
	assert.Equal(t, "Front desk", src.ActorName)
	assert.JSONEq(t, `{"ticket":42}`, string(src.Extra))
}

func TestSystemLogsValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t) // any request fails the test
	for name, q := range map[string]*SystemLogQuery{
		"nil":           nil,
		"no topic":      {},
		"spaced topic":  {Topic: "door openings"},
		"negative page": {Topic: SystemLogTopicAll, PageNum: -1},
		"negative size": {Topic: SystemLogTopicAll, PageSize: -1},
		"until<since":   {Topic: SystemLogTopicAll, Since: logUntil, Until: logSince},
	} {
		_, resp, err := c.SystemLogs.List(logCtx, q)
		var ve *ValidationError
		assert.ErrorAs(t, err, &ve, name)
		assert.Nil(t, resp, name)
		for _, err := range c.SystemLogs.All(logCtx, q) {
			assert.ErrorAs(t, err, &ve, name)
		}
	}
	var nilCtx context.Context // a nil context is what is tested
	_, _, err := c.SystemLogs.List(nilCtx, &SystemLogQuery{Topic: SystemLogTopicAll})
	var ve *ValidationError
	assert.ErrorAs(t, err, &ve, "nil logCtx")
}

// logPages serves total entries, page by page, reporting totalOf(page).
func logPages(t *testing.T, mux *http.ServeMux, total int, ignorePage bool, totalOf func(hits int) int) *atomic.Int32 {
	var calls atomic.Int32
	mux.HandleFunc("POST /api/v1/developer/system/logs", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		num, _ := strconv.Atoi(r.URL.Query().Get("page_num"))
		size, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
		if ignorePage {
			num = 1
		}
		var hits []string
		for i := (num - 1) * size; i < min(num*size, total); i++ {
			hits = append(hits, fmt.Sprintf(`{"_id":"log-%d","_source":{"event":{"published":%d}}}`, i, 1689077487000-int64(i)))
		}
		fmt.Fprintf(w, `{"code":"SUCCESS","msg":"success","data":{"hits":[%s],"page":%d,"total":%d}}`,
			strings.Join(hits, ","), num, totalOf(len(hits)))
	})
	return &calls
}

func TestSystemLogsAllTotalIsUnreliable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		total   int
		totalOf func(hits int) int
		calls   int32
	}{
		// The known quirk: total echoes the page's size. All must not stop
		// after the first page.
		{"total is the page size", 60, func(hits int) int { return hits }, 3},
		{"total is the page size, exact pages", 50, func(hits int) int { return hits }, 3},
		{"total is right", 60, func(int) int { return 60 }, 3},
		// A short page after a full one of the same size is the end,
		// whatever the total says.
		{"total too large", 30, func(int) int { return 1000 }, 2},
		{"no total", 60, func(int) int { return 0 }, 3},
		{"empty", 0, func(int) int { return 0 }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			calls := logPages(t, mux, tc.total, false, tc.totalOf)
			var ids []string
			for e, err := range c.SystemLogs.All(logCtx, &SystemLogQuery{Topic: SystemLogTopicCritical, PageSize: 25}) {
				require.NoError(t, err)
				ids = append(ids, e.ID)
			}
			require.Len(t, ids, tc.total)
			if tc.total > 0 {
				assert.Equal(t, "log-0", ids[0])
				assert.Equal(t, fmt.Sprint("log-", tc.total-1), ids[len(ids)-1])
			}
			assert.Equal(t, tc.calls, calls.Load(), "requests")
		})
	}
}

func TestSystemLogsAllDoesNotLoopForever(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	calls := logPages(t, mux, 100, true, func(hits int) int { return hits })
	var n int
	var last error
	for _, err := range c.SystemLogs.All(logCtx, &SystemLogQuery{Topic: SystemLogTopicAll, PageSize: 10}) {
		if err != nil {
			last = err
			break
		}
		n++
	}
	assert.ErrorIs(t, last, ErrPageRepeated)
	assert.Equal(t, 10, n)
	assert.Equal(t, int32(2), calls.Load())
}

// The vendor's sample has an empty _id: a console that ignores page_num
// is still caught.
func TestSystemLogsAllWithoutIDsDoesNotLoopForever(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	sample, err := os.ReadFile("testdata/samples/system_logs_list.json")
	require.NoError(t, err)
	var calls atomic.Int32
	mux.HandleFunc("POST /api/v1/developer/system/logs", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeRaw(w, 200, "application/json", string(sample)) // one hit, total 3, whatever the page
	})
	var n int
	var last error
	for _, err := range c.SystemLogs.All(logCtx, &SystemLogQuery{Topic: SystemLogTopicAll, PageSize: 1}) {
		if err != nil {
			last = err
			break
		}
		n++
	}
	assert.ErrorIs(t, last, ErrPageRepeated)
	assert.Equal(t, 1, n)
	assert.Equal(t, int32(2), calls.Load())
}

func TestSystemLogsAllStartsAtPageAndBreaks(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	calls := logPages(t, mux, 100, false, func(int) int { return 100 })
	q := &SystemLogQuery{Topic: SystemLogTopicAll, PageNum: 3, PageSize: 10}
	var ids []string
	for e, err := range c.SystemLogs.All(logCtx, q) {
		require.NoError(t, err)
		if ids = append(ids, e.ID); len(ids) == 15 {
			break
		}
	}
	assert.Equal(t, "log-20", ids[0])
	assert.Equal(t, "log-34", ids[14])
	assert.Equal(t, int32(2), calls.Load())
	assert.Equal(t, 3, q.PageNum, "the request is not modified")
}

func TestSystemLogsExportWire(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	const csvBody = "Time,Topic,Event\n2023-07-11 14:11:27,door_openings,access.door.unlock\n"
	mux.HandleFunc("POST /api/v1/developer/system/logs/export", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, true)
		assert.Empty(t, r.URL.RawQuery)
		b, _ := io.ReadAll(r.Body)
		assert.Equal(t, `{"topic":"door_openings","since":1688169600,"until":1689120000,"timezone":"Europe/Zurich","actor_id":"a1"}`, string(b))
		writeRaw(w, 200, "text/csv; charset=utf-8", csvBody)
	})
	var out bytes.Buffer
	resp, err := c.SystemLogs.Export(logCtx, &SystemLogExportRequest{Topic: SystemLogTopicDoorOpenings, Since: logSince, Until: logUntil,
		Timezone: "Europe/Zurich", ActorID: "a1"}, &out)
	require.NoError(t, err)
	assert.Equal(t, csvBody, out.String())
	assert.Equal(t, "text/csv; charset=utf-8", resp.Header.Get("Content-Type"))
}

func TestSystemLogsExportValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t) // any request fails the test
	ok := SystemLogExportRequest{Topic: SystemLogTopicAll, Since: logSince, Until: logUntil, Timezone: "UTC"}
	with := func(f func(r *SystemLogExportRequest)) *SystemLogExportRequest {
		r := ok
		f(&r)
		return &r
	}
	for name, tc := range map[string]struct {
		req   *SystemLogExportRequest
		field string
	}{
		"nil":               {nil, "req"},
		"no topic":          {with(func(r *SystemLogExportRequest) { r.Topic = "" }), "Topic"},
		"no since":          {with(func(r *SystemLogExportRequest) { r.Since = time.Time{} }), "Since"},
		"no until":          {with(func(r *SystemLogExportRequest) { r.Until = time.Time{} }), "Until"},
		"until before":      {with(func(r *SystemLogExportRequest) { r.Since, r.Until = r.Until, r.Since }), "Until"},
		"over a month":      {with(func(r *SystemLogExportRequest) { r.Until = r.Since.AddDate(0, 1, 0).Add(time.Second) }), "Until"},
		"a year":            {with(func(r *SystemLogExportRequest) { r.Until = r.Since.AddDate(1, 0, 0) }), "Until"},
		"no time zone":      {with(func(r *SystemLogExportRequest) { r.Timezone = "" }), "Timezone"},
		"blank time zone":   {with(func(r *SystemLogExportRequest) { r.Timezone = "  " }), "Timezone"},
		"unknown time zone": {with(func(r *SystemLogExportRequest) { r.Timezone = "Mars/Olympus_Mons" }), "Timezone"},
		"Local":             {with(func(r *SystemLogExportRequest) { r.Timezone = "Local" }), "Timezone"},
		"traversing zone":   {with(func(r *SystemLogExportRequest) { r.Timezone = "../../etc/passwd" }), "Timezone"},
	} {
		var out bytes.Buffer
		resp, err := c.SystemLogs.Export(logCtx, tc.req, &out)
		var ve *ValidationError
		if assert.ErrorAs(t, err, &ve, name) {
			assert.Equal(t, tc.field, ve.Field, name)
		}
		assert.Nil(t, resp, name)
	}
	_, err := c.SystemLogs.Export(logCtx, &ok, nil)
	var ve *ValidationError
	assert.ErrorAs(t, err, &ve, "nil writer")
}

func TestSystemLogsExportAcceptsExactlyOneMonth(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var calls atomic.Int32
	mux.HandleFunc("POST /api/v1/developer/system/logs/export", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		writeRaw(w, 200, "text/csv", "Time\n")
	})
	// 31 January + one month, counted in the request's zone.
	zurich, err := time.LoadLocation("Europe/Zurich")
	require.NoError(t, err)
	since := time.Date(2024, 3, 1, 0, 0, 0, 0, zurich)
	_, err = c.SystemLogs.Export(logCtx, &SystemLogExportRequest{Topic: SystemLogTopicAll, Since: since, Until: since.AddDate(0, 1, 0),
		Timezone: "Europe/Zurich"}, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
}

// An export of 50 MB, generated on the fly, streams into the writer
// without the heap growing with it.
func TestSystemLogsExportStreamsWithFlatMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 50 MB")
	}
	// Not parallel: the heap is shared with whatever else runs.
	const size = 50 << 20
	c, mux, _ := setup(t)
	row := []byte(strings.Repeat("2023-07-11 14:11:27,door_openings,access.door.unlock,Access Granted,ACCESS,Ada,user,NFC,Main,Hub\n", 10))
	mux.HandleFunc("POST /api/v1/developer/system/logs/export", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Content-Length", strconv.Itoa(size))
		for sent := 0; sent < size; {
			n := min(len(row), size-sent)
			if _, err := w.Write(row[:n]); err != nil {
				return
			}
			sent += n
		}
	})
	runtime.GC()
	before := heapInUse()
	cw := &countingWriter{}
	var peak uint64
	cw.each = func(n int64) {
		if n%(4<<20) < 32<<10 {
			peak = max(peak, heapInUse())
		}
	}
	_, err := c.SystemLogs.Export(logCtx, &SystemLogExportRequest{Topic: SystemLogTopicAll, Since: logSince, Until: logUntil, Timezone: "UTC"}, cw)
	require.NoError(t, err)
	assert.Equal(t, int64(size), cw.n)
	t.Logf("heap in use: %.1f MiB before, peak %.1f MiB during a 50 MiB export", float64(before)/(1<<20), float64(peak)/(1<<20))
	assert.Less(t, peak, before+16<<20, "the heap does not grow with the export")
}

type countingWriter struct {
	n    int64
	each func(n int64)
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	if w.each != nil {
		w.each(w.n)
	}
	return len(p), nil
}

func TestSystemLogsExportRetries(t *testing.T) {
	t.Parallel()
	req := &SystemLogExportRequest{Topic: SystemLogTopicAll, Since: logSince, Until: logUntil, Timezone: "UTC"}
	t.Run("broken after bytes were written: RequestError, no retry", func(t *testing.T) {
		t.Parallel()
		c, mux, _ := setup(t)
		var calls atomic.Int32
		mux.HandleFunc("POST /api/v1/developer/system/logs/export", func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			conn, buf, err := w.(http.Hijacker).Hijack()
			require.NoError(t, err)
			fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/csv\r\nContent-Length: 100000\r\n\r\nTime,Topic\n2023-07-11,critical\n")
			buf.Flush()
			conn.Close()
		})
		var out bytes.Buffer
		_, err := c.SystemLogs.Export(logCtx, req, &out)
		var re *RequestError
		require.ErrorAs(t, err, &re)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
		assert.Equal(t, "Time,Topic\n2023-07-11,critical\n", out.String(), "what was written stays")
		assert.Equal(t, int32(1), calls.Load(), "not retried")
	})
	t.Run("503 before any byte: retried like a GET", func(t *testing.T) {
		t.Parallel()
		c, mux, _ := setup(t)
		var calls atomic.Int32
		mux.HandleFunc("POST /api/v1/developer/system/logs/export", func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			assert.Contains(t, string(b), `"timezone":"UTC"`, "the body is sent again")
			if calls.Add(1) == 1 {
				writeRaw(w, 503, "application/json", `{"code":"CODE_SYSTEM_ERROR","msg":"busy"}`)
				return
			}
			writeRaw(w, 200, "text/csv", "Time\n")
		})
		var out bytes.Buffer
		_, err := c.SystemLogs.Export(logCtx, req, &out)
		require.NoError(t, err)
		assert.Equal(t, "Time\n", out.String())
		assert.Equal(t, int32(2), calls.Load())
	})
	t.Run("error code", func(t *testing.T) {
		t.Parallel()
		c, mux, _ := setup(t)
		mux.HandleFunc("POST /api/v1/developer/system/logs/export", func(w http.ResponseWriter, r *http.Request) {
			writeRaw(w, 200, "application/json", `{"code":"CODE_PARAMS_INVALID","msg":"The time range cannot exceed one month."}`)
		})
		var out bytes.Buffer
		resp, err := c.SystemLogs.Export(logCtx, req, &out)
		var ae *APIError
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, CodeParamsInvalid, ae.Code)
		assert.ErrorIs(t, err, ErrInvalidParams)
		assert.NotNil(t, resp)
		assert.Zero(t, out.Len())
	})
}

func TestSystemLogsGetResource(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	sample, err := os.ReadFile("testdata/samples/system_log_resource.json")
	require.NoError(t, err)
	mux.HandleFunc("GET /api/v1/developer/system/logs/resource/{id}", func(w http.ResponseWriter, r *http.Request) {
		testHeaders(t, r, false)
		assert.Equal(t, "/api/v1/developer/system/logs/resource/r%2F1%3F", r.URL.EscapedPath(), "the id is one segment")
		writeRaw(w, 200, "application/json", string(sample))
	})
	res, _, err := c.SystemLogs.GetResource(logCtx, "r/1?")
	require.NoError(t, err)
	assert.Equal(t, "/activities_resource/video/6d7d8b5e-3e4b-4fd5-9e1b-1e2f0b3c4d5e.mp4", res.VideoRecord)
	assert.Equal(t, "/activities_resource/thumbnail/6d7d8b5e-3e4b-4fd5-9e1b-1e2f0b3c4d5e.jpg", res.VideoRecordThumbnail)
	created, err := res.CreatedAt.Time()
	require.NoError(t, err)
	assert.True(t, created.Equal(time.Date(2023, 9, 5, 11, 43, 38, 0, time.UTC)))
	assert.Equal(t, DateTime("2023-09-05T19:43:41+08:00"), res.UpdatedAt)

	_, resp, err := c.SystemLogs.GetResource(logCtx, " ")
	var ve *ValidationError
	assert.ErrorAs(t, err, &ve)
	assert.Nil(t, resp)
}

func TestSystemLogsDownloadStaticPaths(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var got []string
	mux.HandleFunc("GET /api/v1/developer/system/static/", func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.EscapedPath())
		writeRaw(w, 200, "image/jpeg", "\xff\xd8jpeg")
	})
	for in, want := range map[string]string{
		"avatar/u1.png":       "/system/static/avatar/u1.png",
		"/preview/door 1.jpg": "/system/static/preview/door%201.jpg",
		"/system/static/activities_resource/video/v1.mp4":    "/system/static/activities_resource/video/v1.mp4",
		"system/static/activities_resource/thumbnail/t1.jpg": "/system/static/activities_resource/thumbnail/t1.jpg",
		"activities_resource/thumbnail/a?b#c.jpg":            "/system/static/activities_resource/thumbnail/a%3Fb%23c.jpg",
		"avatar/sub/dir/ü.png":                               "/system/static/avatar/sub/dir/%C3%BC.png",
	} {
		got = nil
		var out bytes.Buffer
		resp, err := c.SystemLogs.DownloadStatic(logCtx, in, &out)
		require.NoError(t, err, in)
		assert.Equal(t, "\xff\xd8jpeg", out.String(), in)
		assert.Equal(t, "image/jpeg", resp.Header.Get("Content-Type"), in)
		assert.Equal(t, []string{"/api/v1/developer" + want}, got, in)
	}
}

func TestSystemLogsDownloadStaticRejects(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t) // any request fails the test
	for _, p := range []string{
		"", "/", "/system/static/", "avatar", "avatar/", "preview//x.jpg", "avatar/../../etc/passwd", "avatar/..", "avatar/./x",
		"avatar/%2e%2e/x", "avatar/%2E%2E/x", "avatar/.%2e/x", "avatar/a%2Fb", "avatar/a%5cb", `avatar\..\x`, `avatar/a\b`,
		"activities_resource/x.mp4", "activities_resource/video", "etc/passwd", "/api/v1/developer/users/u1", "Avatar/x.png",
		"../avatar/x.png", "avatar/x\x00.png", "avatar/x\n.png", "https://evil.example/avatar/x.png", "//evil.example/avatar/x",
	} {
		resp, err := c.SystemLogs.DownloadStatic(logCtx, p, io.Discard)
		var ve *ValidationError
		assert.ErrorAs(t, err, &ve, "%q", p)
		assert.Nil(t, resp, "%q", p)
	}
	_, err := c.SystemLogs.DownloadStatic(logCtx, "avatar/x.png", nil)
	var ve *ValidationError
	assert.ErrorAs(t, err, &ve, "nil writer")
}

func TestSystemLogsDownloadStaticNotFound(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/system/static/", func(w http.ResponseWriter, r *http.Request) {
		writeRaw(w, 400, "application/json", `{"code":"CODE_RESOURCE_NOT_FOUND","msg":"The requested resource was not found."}`)
	})
	var out bytes.Buffer
	_, err := c.SystemLogs.DownloadStatic(logCtx, "avatar/none.png", &out)
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Zero(t, out.Len())
	assert.False(t, errors.Is(err, ErrInvalidResponse))
}

// logCtx is the context of the system-log and API-server tests.
var logCtx = context.Background()

// FuzzStaticPath checks that whatever path DownloadStatic accepts stays
// under one of the static folders: each escaped segment decodes back to a
// name with no separator and no dot segment.
func FuzzStaticPath(f *testing.F) {
	for _, s := range []string{"avatar/u1.png", "/system/static/preview/a b.jpg", "avatar/%2e%2e/x", "avatar/..", `avatar\x`,
		"activities_resource/video/v.mp4", "avatar/a%2Fb", "avatar/%zz", "avatar//x", "avatar/\u202e.png"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := staticPath("SystemLogs.DownloadStatic", in)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("%q: %T", in, err)
			}
			return
		}
		rest, ok := strings.CutPrefix(p, "/system/static/")
		if !ok {
			t.Fatalf("%q -> %q", in, p)
		}
		segs := strings.Split(rest, "/")
		allowed := map[string]bool{"avatar": true, "preview": true, "activities_resource/video": true, "activities_resource/thumbnail": true}
		if !allowed[segs[0]] && !(len(segs) > 2 && allowed[segs[0]+"/"+segs[1]]) {
			t.Fatalf("%q -> %q: outside the static folders", in, p)
		}
		for _, seg := range segs {
			dec, err := url.PathUnescape(seg)
			if err != nil || dec == "" || dec == "." || dec == ".." || strings.ContainsAny(dec, `/\`) {
				t.Fatalf("%q -> %q: segment %q", in, p, seg)
			}
			// Decoding twice (a proxy that unescapes again) must not
			// traverse either.
			if dec2, err := url.PathUnescape(dec); err == nil && (dec2 == ".." || dec2 == "." || strings.ContainsAny(dec2, `/\`)) {
				t.Fatalf("%q -> %q: segment %q decodes twice to %q", in, p, seg, dec2)
			}
		}
	})
}

// One month from January 31 ends on the last day of February, not on
// March 3 as time.AddDate normalises it.
func TestExportLimitClampsToTheNextMonth(t *testing.T) {
	t.Parallel()
	utc := time.UTC
	for since, want := range map[string]string{
		"2026-01-31T08:00:00Z": "2026-02-28T08:00:00Z",
		"2028-01-31T08:00:00Z": "2028-02-29T08:00:00Z",
		"2026-03-15T00:00:00Z": "2026-04-15T00:00:00Z",
		"2026-12-31T23:00:00Z": "2027-01-31T23:00:00Z",
		"2026-05-31T00:00:00Z": "2026-06-30T00:00:00Z",
	} {
		s, _ := time.Parse(time.RFC3339, since)
		assert.Equal(t, want, exportLimit(s, utc).Format(time.RFC3339), since)
	}
	c, _, _ := setup(t) // any request would fail the test
	jan31 := time.Date(2026, 1, 31, 0, 0, 0, 0, utc)
	_, err := c.SystemLogs.Export(context.Background(), &SystemLogExportRequest{Topic: SystemLogTopicAll, Since: jan31,
		Until: time.Date(2026, 3, 2, 0, 0, 0, 0, utc), Timezone: "UTC"}, io.Discard)
	assert.ErrorIs(t, err, ErrValidation)
}
