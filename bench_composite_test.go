package access

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/access-dev/access/internal/testlog"
)

// Iterators and composite calls (issue 16 item 7), benchmarked like the
// single operations: the SDK's call against a hand-written loop making the
// same requests, on a server of their own that serves pages by number.

const (
	pagedTotal = 100 // records behind every paged list
	pagedSize  = 25  // records a page: four pages
)

// benchExtra is one iterator or composite call and its baseline.
type benchExtra struct {
	name     string
	sdk      func(ctx context.Context, c *Client) error
	baseline func(ctx context.Context, hc *http.Client, api string) error
}

// pagedItem returns record i of a list, from the first record of a sample
// with its key member replaced.
func pagedItem(tb testing.TB, sample, key string) func(i int) json.RawMessage {
	tb.Helper()
	raw, err := os.ReadFile("testdata/samples/" + sample + ".json")
	require.NoError(tb, err)
	var env struct{ Data []map[string]any }
	require.NoError(tb, json.Unmarshal(raw, &env))
	require.NotEmpty(tb, env.Data, sample)
	return func(i int) json.RawMessage {
		env.Data[0][key] = fmt.Sprintf("%s-%04d", key, i)
		b, err := json.Marshal(env.Data[0])
		require.NoError(tb, err)
		return b
	}
}

// pagedBodies precomputes the page_num → body of a list of pagedTotal
// records served pagedSize at a time (and an empty page after them).
func pagedBodies(item func(i int) json.RawMessage, wrap func(items []json.RawMessage, num int) any) map[string][]byte {
	out := map[string][]byte{}
	for num := 1; num <= pagedTotal/pagedSize+1; num++ {
		items := []json.RawMessage{}
		for i := (num - 1) * pagedSize; i < min(num*pagedSize, pagedTotal); i++ {
			items = append(items, item(i))
		}
		b, _ := json.Marshal(wrap(items, num))
		out[strconv.Itoa(num)] = b
	}
	return out
}

func listEnvelope(items []json.RawMessage, num int) any {
	return map[string]any{"code": "SUCCESS", "msg": "success", "data": items,
		"pagination": map[string]int{"page_num": num, "page_size": pagedSize, "total": pagedTotal}}
}

// searchEnvelope is a page of the user search, which carries no
// pagination (the vendor's sample): every client has to read on to an
// empty page.
func searchEnvelope(items []json.RawMessage, num int) any {
	return map[string]any{"code": "SUCCESS", "msg": "success", "data": items}
}

func logEnvelope(items []json.RawMessage, num int) any {
	return map[string]any{"code": "SUCCESS", "msg": "success", "data": map[string]any{"hits": items, "page": num, "total": pagedTotal}}
}

// compositeServer serves the paged lists and the bodies the composite
// calls need; it counts requests.
func compositeServer(tb testing.TB) (*httptest.Server, *atomic.Int64) {
	tb.Helper()
	var count atomic.Int64
	mux := http.NewServeMux()
	serve := func(pattern string, body func(r *http.Request) []byte) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			count.Add(1)
			_, _ = io.Copy(io.Discard, r.Body)
			b := body(r)
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			_, _ = w.Write(b)
		})
	}
	paged := func(pattern string, pages map[string][]byte) {
		serve(pattern, func(r *http.Request) []byte {
			if b, ok := pages[r.URL.Query().Get("page_num")]; ok {
				return b
			}
			return pages[strconv.Itoa(pagedTotal/pagedSize+1)]
		})
	}
	fixed := func(pattern string, body []byte) { serve(pattern, func(*http.Request) []byte { return body }) }
	sample := func(name string) []byte {
		b, err := os.ReadFile("testdata/samples/" + name + ".json")
		require.NoError(tb, err)
		return b
	}
	users := pagedBodies(pagedItem(tb, "users_list", "id"), listEnvelope)
	paged("GET /api/v1/developer/users", users)
	paged("GET /api/v1/developer/users/search", pagedBodies(pagedItem(tb, "users_list", "id"), searchEnvelope))
	paged("GET /api/v1/developer/visitors", pagedBodies(func(i int) json.RawMessage {
		return json.RawMessage(benchVisitor(fmt.Sprintf("v-%04d", i)))
	}, listEnvelope))
	paged("GET /api/v1/developer/credentials/nfc_cards/tokens", pagedBodies(pagedItem(tb, "nfc_cards_list", "token"), listEnvelope))
	paged("GET /api/v1/developer/credentials/touch_passes", pagedBodies(pagedItem(tb, "touch_pass_list", "id"), listEnvelope))
	var logPage bytes.Buffer
	logPage.Write(benchLogPage(1))
	var one struct {
		Data struct{ Hits []map[string]any }
	}
	require.NoError(tb, json.Unmarshal(logPage.Bytes(), &one))
	paged("POST /api/v1/developer/system/logs", pagedBodies(func(i int) json.RawMessage {
		one.Data.Hits[0]["_id"] = fmt.Sprintf("log-%04d", i)
		b, _ := json.Marshal(one.Data.Hits[0])
		return b
	}, logEnvelope))

	// Webhooks.Ensure on an endpoint registered under another name:
	// create (duplicated), list, update.
	fixed("POST /api/v1/developer/webhooks/endpoints", []byte(`{"code":"CODE_DEVICE_WEBHOOK_ENDPOINT_DUPLICATED","msg":"The endpoint already exists.","data":null}`))
	fixed("GET /api/v1/developer/webhooks/endpoints", sample("webhook_list"))
	fixed("PUT /api/v1/developer/webhooks/endpoints/{id}", sample("webhook_create"))
	// UserGroups.CreateAndGet and Find.
	fixed("POST /api/v1/developer/user_groups", sample("success"))
	fixed("GET /api/v1/developer/user_groups", sample("user_groups_list"))
	// NFCCards.Enroll with a card read at the first poll.
	fixed("POST /api/v1/developer/credentials/nfc_cards/sessions", sample("nfc_session_start"))
	fixed("GET /api/v1/developer/credentials/nfc_cards/sessions/{id}", sample("nfc_session_status"))
	fixed("DELETE /api/v1/developer/credentials/nfc_cards/sessions/{id}", sample("success"))
	srv := testlog.NewTLSServer(tb, mux)
	tb.Cleanup(srv.Close)
	return srv, &count
}

// drain counts an iterator's records and checks there are pagedTotal.
func drain[T any](seq func(func(T, error) bool)) error {
	n := 0
	for _, err := range seq {
		if err != nil {
			return err
		}
		n++
	}
	if n != pagedTotal {
		return fmt.Errorf("%d records", n)
	}
	return nil
}

// baselinePages pages through a list by hand as a careful user does:
// page after page until the reported total is reached or a page is short.
func baselinePages[T any](ctx context.Context, hc *http.Client, method, url string, body any, items func(*T) int, total func(*T) int) error {
	seen := 0
	for num := 1; ; num++ {
		sep := "?"
		if bytes.ContainsRune([]byte(url), '?') {
			sep = "&"
		}
		p, err := baselineCallPaged[T](ctx, hc, method, fmt.Sprintf("%s%spage_num=%d&page_size=%d", url, sep, num, pagedSize), body)
		if err != nil {
			return err
		}
		n := items(&p.data)
		seen += n
		if t := total(&p.data) + p.total; n < pagedSize || (t > 0 && seen >= t) {
			if seen != pagedTotal {
				return fmt.Errorf("%d records", seen)
			}
			return nil
		}
	}
}

type pagedAnswer[T any] struct {
	data  T
	total int
}

// baselineCallPaged is baselineCall that also reads the pagination total.
func baselineCallPaged[T any](ctx context.Context, hc *http.Client, method, url string, body any) (*pagedAnswer[T], error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var env struct {
		Code       string `json:"code"`
		Data       T      `json:"data"`
		Pagination *struct {
			Total int `json:"total"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, err
	}
	if env.Code != "SUCCESS" {
		return nil, fmt.Errorf("code %s", env.Code)
	}
	a := &pagedAnswer[T]{data: env.Data}
	if env.Pagination != nil {
		a.total = env.Pagination.Total
	}
	return a, nil
}

func sliceLen[T any](v *[]T) int { return len(*v) }
func noTotal[T any](*T) int      { return 0 }

var logQuery = &SystemLogQuery{Topic: SystemLogTopicDoorOpenings, Since: time.Unix(1688169600, 0), Until: time.Unix(1689120000, 0), PageSize: pagedSize}

func benchExtras() []benchExtra {
	ensureReq := &WebhookEndpointRequest{Endpoint: "http://192.168.1.1:8080", Name: "renamed", Events: []EventType{EventDoorUnlock}}
	return []benchExtra{
		{"Users.All", func(ctx context.Context, c *Client) error {
			return drain(c.Users.All(ctx, &UserListOptions{PageSize: pagedSize}))
		}, func(ctx context.Context, hc *http.Client, api string) error {
			return baselinePages(ctx, hc, "GET", api+"/users", nil, sliceLen[User], noTotal[[]User])
		}},
		{"Users.SearchAll", func(ctx context.Context, c *Client) error {
			return drain(c.Users.SearchAll(ctx, &UserSearchOptions{Keyword: "Ada", PageSize: pagedSize}))
		}, func(ctx context.Context, hc *http.Client, api string) error {
			return baselinePages(ctx, hc, "GET", api+"/users/search?keyword=Ada", nil, sliceLen[User], noTotal[[]User])
		}},
		{"Visitors.All", func(ctx context.Context, c *Client) error {
			return drain(c.Visitors.All(ctx, &VisitorListOptions{PageSize: pagedSize}))
		}, func(ctx context.Context, hc *http.Client, api string) error {
			return baselinePages(ctx, hc, "GET", api+"/visitors", nil, sliceLen[Visitor], noTotal[[]Visitor])
		}},
		{"NFCCards.All", func(ctx context.Context, c *Client) error {
			return drain(c.NFCCards.All(ctx, &NFCCardListOptions{PageSize: pagedSize}))
		}, func(ctx context.Context, hc *http.Client, api string) error {
			return baselinePages(ctx, hc, "GET", api+"/credentials/nfc_cards/tokens", nil, sliceLen[NFCCard], noTotal[[]NFCCard])
		}},
		{"TouchPasses.All", func(ctx context.Context, c *Client) error {
			return drain(c.TouchPasses.All(ctx, &TouchPassListOptions{PageSize: pagedSize}))
		}, func(ctx context.Context, hc *http.Client, api string) error {
			return baselinePages(ctx, hc, "GET", api+"/credentials/touch_passes", nil, sliceLen[TouchPass], noTotal[[]TouchPass])
		}},
		{"SystemLogs.All", func(ctx context.Context, c *Client) error {
			return drain(c.SystemLogs.All(ctx, logQuery))
		}, func(ctx context.Context, hc *http.Client, api string) error {
			body := &struct {
				Topic string `json:"topic"`
				Since int64  `json:"since"`
				Until int64  `json:"until"`
			}{"door_openings", 1688169600, 1689120000}
			// Consoles echo the page size as the logs' total (vendor
			// notes): a careful loop stops at a short or empty page.
			return baselinePages(ctx, hc, "POST", api+"/system/logs", body,
				func(p *baseLogPage) int { return len(p.Hits) }, noTotal[baseLogPage])
		}},
		{"Webhooks.Ensure", func(ctx context.Context, c *Client) error {
			_, _, err := c.Webhooks.Ensure(ctx, ensureReq)
			return err
		}, func(ctx context.Context, hc *http.Client, api string) error {
			_, err := baselineCall[WebhookEndpoint](ctx, hc, "POST", api+"/webhooks/endpoints", ensureReq)
			if err == nil || err.Error() != "code CODE_DEVICE_WEBHOOK_ENDPOINT_DUPLICATED" {
				return fmt.Errorf("create: %v", err)
			}
			all, err := baselineCall[[]WebhookEndpoint](ctx, hc, "GET", api+"/webhooks/endpoints", nil)
			if err != nil {
				return err
			}
			for _, e := range *all {
				if e.Endpoint == ensureReq.Endpoint {
					_, err := baselineCall[WebhookEndpoint](ctx, hc, "PUT", api+"/webhooks/endpoints/"+e.ID, ensureReq)
					return err
				}
			}
			return fmt.Errorf("not found")
		}},
		{"UserGroups.CreateAndGet", func(ctx context.Context, c *Client) error {
			_, _, err := c.UserGroups.CreateAndGet(ctx, &UserGroupRequest{Name: "Firmware", UpID: "a1f2c3d4-0000-4000-8000-000000000001"})
			return err
		}, func(ctx context.Context, hc *http.Client, api string) error {
			if _, err := baselineCall[json.RawMessage](ctx, hc, "POST", api+"/user_groups", map[string]string{"name": "Firmware", "up_id": "a1f2c3d4-0000-4000-8000-000000000001"}); err != nil {
				return err
			}
			return baselineFindGroup(ctx, hc, api, "Firmware", "a1f2c3d4-0000-4000-8000-000000000001")
		}},
		{"UserGroups.Find", func(ctx context.Context, c *Client) error {
			_, _, err := c.UserGroups.Find(ctx, "Firmware", "a1f2c3d4-0000-4000-8000-000000000001")
			return err
		}, func(ctx context.Context, hc *http.Client, api string) error {
			return baselineFindGroup(ctx, hc, api, "Firmware", "a1f2c3d4-0000-4000-8000-000000000001")
		}},
		{"NFCCards.Enroll", func(ctx context.Context, c *Client) error {
			_, _, err := c.NFCCards.Enroll(ctx, "942a6f4247b2", nil)
			return err
		}, func(ctx context.Context, hc *http.Client, api string) error {
			s, err := baselineCall[EnrollmentSession](ctx, hc, "POST", api+"/credentials/nfc_cards/sessions", map[string]string{"device_id": "942a6f4247b2"})
			if err != nil {
				return err
			}
			defer baselineCall[json.RawMessage](ctx, hc, "DELETE", api+"/credentials/nfc_cards/sessions/"+s.SessionID, nil)
			_, err = baselineCall[EnrolledCard](ctx, hc, "GET", api+"/credentials/nfc_cards/sessions/"+s.SessionID, nil)
			return err
		}},
	}
}

func baselineFindGroup(ctx context.Context, hc *http.Client, api, name, upID string) error {
	all, err := baselineCall[[]UserGroup](ctx, hc, "GET", api+"/user_groups", nil)
	if err != nil {
		return err
	}
	for _, g := range *all {
		if g.Name == name && g.UpID == upID {
			return nil
		}
	}
	return fmt.Errorf("group not found")
}

// TestBenchExtrasMatch checks that each iterator's and composite's
// baseline succeeds and makes as many requests as the SDK's call.
func TestBenchExtrasMatch(t *testing.T) {
	t.Parallel()
	srv, count := compositeServer(t)
	c, err := NewClient(srv.URL, testToken, WithHTTPClient(srv.Client()))
	require.NoError(t, err)
	api := srv.URL + "/api/v1/developer"
	ctx := context.Background()
	for _, x := range benchExtras() {
		count.Store(0)
		require.NoError(t, x.sdk(ctx, c), x.name)
		sdk := count.Swap(0)
		require.NoError(t, x.baseline(ctx, srv.Client(), api), x.name)
		assert.Equal(t, sdk, count.Load(), "%s: requests", x.name)
		assert.Positive(t, sdk, x.name)
	}
}
