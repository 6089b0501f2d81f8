package scim_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/access-dev/access/dirsync/scim"
)

// An identity provider creates a person, then deactivates them; the
// store, read as a dirsync source, answers them inactive, and the
// change notification tells a sync loop to apply it at once.
func Example() {
	dir, err := os.MkdirTemp("", "scim-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store, err := scim.Open(filepath.Join(dir, "scim.json"), scim.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	// In a program: scim.TokenFromFile or scim.TokenFromEnv.
	h, err := scim.NewHandler(store, scim.Config{Token: "example-token"})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	push := func(method, path, body string) *http.Response {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer example-token")
		req.Header.Set("Content-Type", "application/scim+json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			log.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	resp := push("POST", "/scim/v2/Users", `{
  "schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"],
  "userName": "ada@example.com",
  "name": {"givenName": "Ada", "familyName": "Lovelace"},
  "active": true,
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": {"employeeNumber": "1001"}
}`)
	fmt.Println("create:", resp.Status)
	resp = push("PATCH", strings.TrimPrefix(resp.Header.Get("Location"), srv.URL), `{
  "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  "Operations": [{"op": "Replace", "path": "active", "value": "False"}]
}`)
	fmt.Println("deactivate:", resp.Status)

	<-store.Changed() // a sync loop waits here, then reads the store
	snap, err := store.Read(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range snap.People {
		fmt.Printf("%s %s %s active=%v (%s)\n", p.Key, p.FirstName, p.LastName, p.Active, p.InactiveReason)
	}
	// Output:
	// create: 201 Created
	// deactivate: 200 OK
	// 1001 Ada Lovelace active=false (scim: active is false)
}
