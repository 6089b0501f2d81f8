package scim_test

import (
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	"github.com/access-dev/access/dirsync/scim"
)

// TestDuplicateUserNameUnderConcurrency: of many clients creating one
// userName at once exactly one gets 201, the others 409 uniqueness; a
// PATCH or PUT onto a taken userName is 409 too.
func TestDuplicateUserNameUnderConcurrency(t *testing.T) {
	s, err := scim.Open(filepath.Join(t.TempDir(), "scim.json"), scim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	h, err := scim.NewHandler(s, scim.Config{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes <- do(h, "POST", "/scim/v2/Users", adaBody).Code
		}()
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	if count[http.StatusCreated] != 1 || count[http.StatusConflict] != n-1 {
		t.Errorf("statuses %v", count)
	}
	rec := do(h, "POST", "/scim/v2/Users", `{"userName":"grace@example.com"}`)
	if rec.Code != 201 {
		t.Fatal(rec.Code)
	}
	grace := rec.Header().Get("Location")[len("http://scim.test"):]
	scimError(t, do(h, "PATCH", grace, `{"Operations":[{"op":"replace","path":"userName","value":"Ada@Example.com"}]}`), 409, "uniqueness")
	scimError(t, do(h, "PUT", grace, `{"userName":"ada@example.com"}`), 409, "uniqueness")
	if rec := do(h, "PUT", grace, `{"userName":"grace.hopper@example.com","active":false}`); rec.Code != 200 {
		t.Errorf("PUT: %d %s", rec.Code, rec.Body)
	}
}
