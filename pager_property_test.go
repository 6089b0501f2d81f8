package access

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// pagingConsole is how the test console pages: n records, at most cap a
// page, the page offsets counted in the size it serves or in the size
// asked for, and which total it reports.
type pagingConsole struct {
	n, cap   int
	byAsked  bool   // page k starts at (k-1)·asked instead of (k-1)·served
	total    string // "none", "true" (n) or "echo" (the records on the page)
	requests atomic.Int32
}

// page returns the record indexes of one page and the total to report (-1
// for none).
func (pc *pagingConsole) page(r *http.Request) (idx []int, total int) {
	pc.requests.Add(1)
	num, _ := strconv.Atoi(r.URL.Query().Get("page_num"))
	asked, _ := strconv.Atoi(r.URL.Query().Get("page_size"))
	served := min(asked, pc.cap)
	off := (num - 1) * served
	if pc.byAsked {
		off = (num - 1) * asked
	}
	for i := off; i < min(off+served, pc.n); i++ {
		idx = append(idx, i)
	}
	switch pc.total {
	case "true":
		return idx, pc.n
	case "echo":
		return idx, len(idx)
	}
	return idx, -1
}

// pagedIterator is one All iterator of the SDK, reduced to the ids it
// yields.
type pagedIterator struct {
	name, pattern, idKey string
	echo                 bool // the iterator must survive a total that echoes the page size
	all                  func(ctx context.Context, c *Client, start, size int) iter.Seq2[string, error]
}

func ids[T any](seq iter.Seq2[T, error], id func(*T) string) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		for v, err := range seq {
			if !yield(id(&v), err) {
				return
			}
		}
	}
}

var pagedIterators = []pagedIterator{
	{"Visitors.All", "GET /api/v1/developer/visitors", "id", false,
		func(ctx context.Context, c *Client, start, size int) iter.Seq2[string, error] {
			return ids(c.Visitors.All(ctx, &VisitorListOptions{PageNum: start, PageSize: size}), func(v *Visitor) string { return v.ID })
		}},
	{"Users.All", "GET /api/v1/developer/users", "id", false,
		func(ctx context.Context, c *Client, start, size int) iter.Seq2[string, error] {
			return ids(c.Users.All(ctx, &UserListOptions{PageNum: start, PageSize: size}), func(u *User) string { return u.ID })
		}},
	{"Users.SearchAll", "GET /api/v1/developer/users/search", "id", true,
		func(ctx context.Context, c *Client, start, size int) iter.Seq2[string, error] {
			return ids(c.Users.SearchAll(ctx, &UserSearchOptions{Keyword: "a", PageNum: start, PageSize: size}), func(u *User) string { return u.ID })
		}},
	{"NFCCards.All", "GET /api/v1/developer/credentials/nfc_cards/tokens", "token", false,
		func(ctx context.Context, c *Client, start, size int) iter.Seq2[string, error] {
			return ids(c.NFCCards.All(ctx, &NFCCardListOptions{PageNum: start, PageSize: size}), func(n *NFCCard) string { return n.Token })
		}},
	{"TouchPasses.All", "GET /api/v1/developer/credentials/touch_passes", "id", false,
		func(ctx context.Context, c *Client, start, size int) iter.Seq2[string, error] {
			return ids(c.TouchPasses.All(ctx, &TouchPassListOptions{PageNum: start, PageSize: size}), func(p *TouchPass) string { return p.ID })
		}},
	{"SystemLogs.All", "POST /api/v1/developer/system/logs", "_id", true,
		func(ctx context.Context, c *Client, start, size int) iter.Seq2[string, error] {
			return ids(c.SystemLogs.All(ctx, &SystemLogQuery{Topic: SystemLogTopicAll, PageNum: start, PageSize: size}), func(e *SystemLog) string { return e.ID })
		}},
	{"Client.DoAll", "GET /api/v1/developer/credentials/pin_codes/any", "id", true,
		func(ctx context.Context, c *Client, start, size int) iter.Seq2[string, error] {
			return ids(c.DoAll(ctx, fmt.Sprintf("/credentials/pin_codes/any?page_num=%d&page_size=%d", start, size)), func(r *json.RawMessage) string {
				var rec struct{ ID string }
				_ = json.Unmarshal(*r, &rec)
				return rec.ID
			})
		}},
}

// TestAllYieldsExactlyTheRecordsAskedFor is the pager's property: for every
// All iterator, every page size cap from 1 to twice the page size, every
// start page, consoles with and without totals (and, where the SDK must
// not trust it, one whose total echoes the page size), and consoles that
// count page offsets in the served or in the asked size, an iteration
// yields exactly the records from the start page on, in order, and no
// error. It also bounds the requests: one a record at worst, plus three.
func TestAllYieldsExactlyTheRecordsAskedFor(t *testing.T) {
	t.Parallel()
	for _, it := range pagedIterators {
		t.Run(it.name, func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			var console atomic.Pointer[pagingConsole]
			mux.HandleFunc(it.pattern, func(w http.ResponseWriter, r *http.Request) {
				idx, total := console.Load().page(r)
				recs := make([]map[string]any, 0, len(idx))
				for _, i := range idx {
					recs = append(recs, map[string]any{it.idKey: fmt.Sprintf("r%03d", i)})
				}
				body := map[string]any{"code": "SUCCESS", "msg": "success", "data": recs}
				switch {
				case it.idKey == "_id":
					data := map[string]any{"hits": recs, "page": r.URL.Query().Get("page_num")}
					if total >= 0 {
						data["total"] = total
					}
					body["data"] = data
				case total >= 0:
					body["pagination"] = map[string]int{"total": total, "page_size": len(idx)}
				}
				writeJSON(t, w, body)
			})
			totals := []string{"none", "true"}
			if it.echo {
				totals = append(totals, "echo")
			}
			cases := 0
			for _, n := range []int{0, 1, 10, 13} {
				for _, size := range []int{3, 4} {
					for capped := 1; capped <= 2*size; capped++ {
						for _, total := range totals {
							for _, byAsked := range []bool{false, true} {
								for start := 1; start <= n/size+2; start++ {
									cases++
									pc := &pagingConsole{n: n, cap: capped, byAsked: byAsked, total: total}
									console.Store(pc)
									var want []string
									for i := (start - 1) * size; i < n; i++ {
										want = append(want, fmt.Sprintf("r%03d", i))
									}
									var got []string
									for id, err := range it.all(context.Background(), c, start, size) {
										require.NoError(t, err, "n %d cap %d byAsked %v total %s start %d size %d", n, capped, byAsked, total, start, size)
										got = append(got, id)
									}
									require.Equal(t, want, got, "n %d cap %d byAsked %v total %s start %d size %d", n, capped, byAsked, total, start, size)
									require.LessOrEqual(t, int(pc.requests.Load()), len(want)+3, "requests: n %d cap %d start %d size %d", n, capped, start, size)
								}
							}
						}
					}
				}
			}
			t.Logf("%d cases", cases)
		})
	}
}

// The two cases of issue 16: Users.SearchAll (no total) on a console that
// caps page_size at 100 yields all 250 users, not the first 100; and
// Visitors.All resumed at page 3 of 25 on a console that caps at 10 starts
// at visitor 50, not 20, after fetching the start again at the served size.
func TestAllOnCappingConsole(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		it          int // index in pagedIterators
		n, cap      int
		total       string
		start, size int
		queries     []string
	}{
		{2, 250, 100, "none", 1, 250, []string{"1/250", "2/100", "3/100"}},
		{5, 250, 100, "echo", 1, 250, []string{"1/250", "2/100", "3/100"}},
		{0, 100, 10, "true", 3, 25, []string{"3/25", "6/10", "7/10", "8/10", "9/10", "10/10"}},
		{0, 100, 10, "none", 3, 25, []string{"3/25", "6/10", "7/10", "8/10", "9/10", "10/10", "11/10"}},
		// 7 is no divisor of 50: the page holding record 50 starts at 49,
		// and the short page after it, at a size served whole, is the end.
		{1, 60, 7, "none", 3, 25, []string{"3/25", "8/7", "9/7"}},
	} {
		it := pagedIterators[tc.it]
		t.Run(fmt.Sprintf("%s/%d", it.name, tc.start), func(t *testing.T) {
			t.Parallel()
			c, mux, _ := setup(t)
			pc := &pagingConsole{n: tc.n, cap: tc.cap, total: tc.total}
			var queries []string
			mux.HandleFunc(it.pattern, func(w http.ResponseWriter, r *http.Request) {
				queries = append(queries, r.URL.Query().Get("page_num")+"/"+r.URL.Query().Get("page_size"))
				idx, total := pc.page(r)
				recs := make([]map[string]any, 0, len(idx))
				for _, i := range idx {
					recs = append(recs, map[string]any{it.idKey: fmt.Sprintf("r%03d", i)})
				}
				var body map[string]any
				if it.idKey == "_id" {
					body = map[string]any{"code": "SUCCESS", "data": map[string]any{"hits": recs, "total": total}}
				} else {
					body = map[string]any{"code": "SUCCESS", "data": recs}
					if total >= 0 {
						body["pagination"] = map[string]int{"total": total}
					}
				}
				writeJSON(t, w, body)
			})
			var got []string
			for id, err := range it.all(context.Background(), c, tc.start, tc.size) {
				require.NoError(t, err)
				got = append(got, id)
			}
			first := (tc.start - 1) * tc.size
			require.Len(t, got, tc.n-first)
			require.Equal(t, fmt.Sprintf("r%03d", first), got[0])
			require.Equal(t, fmt.Sprintf("r%03d", tc.n-1), got[len(got)-1])
			require.Equal(t, tc.queries, queries)
		})
	}
}

// A console that serves more records than asked for on the first page
// (it ignores page_size) is followed at its size; one that does so after
// serving that size whole gives an error, not records out of turn.
func TestAllOnConsoleServingMoreThanAsked(t *testing.T) {
	t.Parallel()
	c, mux, _ := setup(t)
	var grow atomic.Bool
	mux.HandleFunc("GET /api/v1/developer/visitors", func(w http.ResponseWriter, r *http.Request) {
		num, _ := strconv.Atoi(r.URL.Query().Get("page_num"))
		off, served := (num-1)*5, 5 // whatever page_size says
		if grow.Load() && num > 1 {
			served = 7
		}
		var recs []map[string]any
		for i := off; i < min(off+served, 12); i++ {
			recs = append(recs, map[string]any{"id": fmt.Sprintf("r%03d", i)})
		}
		writeJSON(t, w, map[string]any{"code": "SUCCESS", "data": recs})
	})
	collect := func() (got []string, errs []error) {
		for id, err := range pagedIterators[0].all(context.Background(), c, 1, 3) {
			if err != nil {
				errs = append(errs, err)
				continue
			}
			got = append(got, id)
		}
		return got, errs
	}
	got, errs := collect()
	require.Empty(t, errs)
	require.Len(t, got, 12)
	require.Equal(t, "r011", got[11])

	grow.Store(true)
	got, errs = collect()
	require.Equal(t, []string{"r000", "r001", "r002", "r003", "r004"}, got)
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], ErrInvalidResponse)
}
