package access

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVisitorsListQuery(t *testing.T) {
	t.Parallel()
	cases := []struct {
		opts *VisitorListOptions
		want string
	}{
		{nil, ""},
		{&VisitorListOptions{}, ""},
		{&VisitorListOptions{Status: VisitorStatusVisited}, "status=2"},
		{&VisitorListOptions{Status: VisitorStatusActive, Keyword: "H a&b", PageNum: 2, PageSize: 25},
			"keyword=H+a%26b&page_num=2&page_size=25&status=6"},
		{&VisitorListOptions{Expand: []VisitorExpand{VisitorExpandAccessPolicy, VisitorExpandResource, VisitorExpandSchedule, VisitorExpandNFCCard, VisitorExpandPINCode}},
			"expand%5B%5D=access_policy&expand%5B%5D=resource&expand%5B%5D=schedule&expand%5B%5D=nfc_card&expand%5B%5D=pin_code"},
		{&VisitorListOptions{Expand: []VisitorExpand{VisitorExpandNone}}, "expand%5B%5D=none"},
	}
	for i, tc := range cases {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			mux.HandleFunc("GET /api/v1/developer/visitors", func(w http.ResponseWriter, r *http.Request) {
				testHeaders(t, r, false)
				assert.Equal(t, tc.want, r.URL.RawQuery)
				writeRaw(w, 200, "application/json", `{"code":"SUCCESS","msg":"success","data":[{"id":"v1","status":"VISITED"}],"pagination":{"page_num":1,"page_size":1,"total":1}}`)
			})
			vs, resp, err := c.Visitors.List(context.Background(), tc.opts)
			require.NoError(t, err)
			require.Len(t, vs, 1)
			assert.Equal(t, "v1", vs[0].ID)
			assert.Equal(t, &Pagination{PageNum: 1, PageSize: 1, Total: 1}, resp.Pagination)
		})
	}
}

func TestVisitorsListExpandQueryDecodesToBrackets(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	mux.HandleFunc("GET /api/v1/developer/visitors", func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, []string{"schedule", "pin_code"}, r.URL.Query()["expand[]"])
		writeEnvelope(t, w, []any{})
	})
	_, _, err := c.Visitors.List(context.Background(), &VisitorListOptions{Expand: []VisitorExpand{VisitorExpandSchedule, VisitorExpandPINCode}})
	require.NoError(t, err)
}

func TestVisitorsListValidation(t *testing.T) {
	t.Parallel()
	c, _, _ := setup(t)
	for _, o := range []*VisitorListOptions{
		{Status: -1}, {Status: 7}, {PageNum: -1}, {PageSize: -2}, {Expand: []VisitorExpand{""}},
	} {
		_, resp, err := c.Visitors.List(context.Background(), o)
		assert.ErrorIs(t, err, ErrValidation, "%+v", o)
		assert.Nil(t, resp)
		for _, err := range c.Visitors.All(context.Background(), o) {
			assert.ErrorIs(t, err, ErrValidation)
		}
	}
}

func TestVisitorStatus(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "UPCOMING", VisitorStatusUpcoming.String())
	assert.Equal(t, "ACTIVE", VisitorStatusActive.String())
	assert.Equal(t, "VisitorStatus(9)", VisitorStatus(9).String())
	for want, in := range map[VisitorStatus]string{VisitorStatusVisited: "VISITED", VisitorStatusCancelled: "CANCELED", VisitorStatusNoVisit: "NO_VISIT"} {
		got, ok := Visitor{Status: in}.StatusCode()
		assert.True(t, ok)
		assert.Equal(t, want, got)
	}
	_, ok := Visitor{Status: "ARCHIVED"}.StatusCode()
	assert.False(t, ok)
}

// pagedVisitors serves n visitors in pages, like a controller. ignorePage
// makes it always serve page 1; total overrides the reported total (-1: omit
// pagination).
func pagedVisitors(t *testing.T, mux *http.ServeMux, n int, ignorePage bool, total int) *atomic.Int32 {
	var calls atomic.Int32
	mux.HandleFunc("GET /api/v1/developer/visitors", func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		q := r.URL.Query()
		num, _ := strconv.Atoi(q.Get("page_num"))
		size, _ := strconv.Atoi(q.Get("page_size"))
		if ignorePage {
			num = 1
		}
		var page []map[string]any
		for i := (num - 1) * size; i < min(num*size, n); i++ {
			page = append(page, map[string]any{"id": fmt.Sprintf("v%03d", i)})
		}
		body := map[string]any{"code": "SUCCESS", "msg": "success", "data": page}
		if total >= 0 {
			body["pagination"] = map[string]int{"page_num": num, "page_size": len(page), "total": total}
		}
		writeJSON(t, w, body)
	})
	return &calls
}

func TestVisitorsAll(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		n, size, total int
		ignorePage     bool
		want, calls    int
		err            error
	}{
		"short last page":           {n: 12, size: 5, total: 12, want: 12, calls: 3},
		"exact pages stop at total": {n: 10, size: 5, total: 10, want: 10, calls: 2},
		"exact pages no total":      {n: 10, size: 5, total: -1, want: 10, calls: 3},
		"empty":                     {n: 0, size: 5, total: 0, want: 0, calls: 1},
		"default page size":         {n: 30, size: 0, total: -1, want: 30, calls: 2},
		"server ignores page_num":   {n: 50, size: 5, total: -1, ignorePage: true, want: 5, calls: 2, err: ErrPageRepeated},
		"ignores page_num w/ total": {n: 50, size: 5, total: 50, ignorePage: true, want: 5, calls: 2, err: ErrPageRepeated},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			calls := pagedVisitors(t, mux, tc.n, tc.ignorePage, tc.total)
			opts := &VisitorListOptions{PageSize: tc.size, Status: VisitorStatusActive}
			var ids []string
			var gotErr error
			for v, err := range c.Visitors.All(context.Background(), opts) {
				if err != nil {
					gotErr = err
					continue
				}
				ids = append(ids, v.ID)
			}
			assert.Len(t, ids, tc.want)
			for i, id := range ids {
				assert.Equal(t, fmt.Sprintf("v%03d", i), id)
			}
			assert.Equal(t, tc.calls, int(calls.Load()))
			if tc.err != nil {
				assert.ErrorIs(t, gotErr, tc.err)
			} else {
				assert.NoError(t, gotErr)
			}
			assert.Equal(t, 0, opts.PageNum, "opts not modified")
		})
	}
}

func TestVisitorsAllBreakStopsFetching(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	calls := pagedVisitors(t, mux, 100, false, 100)
	n := 0
	for _, err := range c.Visitors.All(context.Background(), &VisitorListOptions{PageSize: 10}) {
		require.NoError(t, err)
		n++
		if n == 15 {
			break
		}
	}
	assert.Equal(t, 15, n)
	assert.Equal(t, int32(2), calls.Load())
}

func TestVisitorsAllStopsAfterError(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t, WithRetryPolicy(RetryPolicy{}))
	var calls atomic.Int32
	mux.HandleFunc("GET /api/v1/developer/visitors", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 2 {
			writeRaw(w, 403, "application/json", `{"code":"CODE_UNAUTHORIZED","msg":"no"}`)
			return
		}
		writeEnvelope(t, w, []map[string]any{{"id": "a"}, {"id": "b"}})
	})
	var ids []string
	var errs []error
	for v, err := range c.Visitors.All(context.Background(), &VisitorListOptions{PageSize: 2, PageNum: 3}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, v.ID)
	}
	assert.Equal(t, []string{"a", "b"}, ids)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrForbidden)
	assert.Equal(t, int32(2), calls.Load())
}

// TestAllKeepsTheFirstVisitor keeps a pointer to the first visitor the
// loop yields, as the quickstart does. Go 1.23.0 and 1.23.1 miscompile
// this pattern (the kept loop variable reads garbage; fixed in 1.23.2), so
// go.mod names go 1.23.2 and CI runs the suite on exactly that toolchain.
// Keep the loop as it is: small changes hide the miscompilation.
func TestAllKeepsTheFirstVisitor(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	pagedVisitors(t, mux, 60, false, 60)
	var first *Visitor
	n := 0
	byID := map[string]int{}
	for v, err := range c.Visitors.All(context.Background(), &VisitorListOptions{PageSize: 7}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		byID[v.ID]++
		if first == nil {
			first = &v
		}
	}
	require.Equal(t, 60, n)
	require.NotNil(t, first)
	assert.Equal(t, "v000", first.ID)
	assert.Len(t, byID, 60)
}

// TestGoDirectiveAvoidsMiscompiledReleases pins the go directive at or
// above 1.23.2: go1.23.0 and go1.23.1 miscompile range-over-func loops
// that keep &v (see TestAllKeepsTheFirstVisitor), which every All
// iterator invites.
func TestGoDirectiveAvoidsMiscompiledReleases(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^go (\d+)\.(\d+)(?:\.(\d+))?$`).FindSubmatch(b)
	require.NotNil(t, m, "go.mod has a go directive")
	v := [3]int{}
	for i := range v {
		v[i], _ = strconv.Atoi(string(m[i+1]))
	}
	assert.GreaterOrEqual(t, v[0]*1_000_000+v[1]*1_000+v[2], 1_023_002, "go directive %s", m[0])
}
