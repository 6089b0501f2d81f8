package access_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// Send a raw request for an operation by its path, and decode the data
// member into any type; the Response carries the envelope's code.
func ExampleClient_Do() {
	srv := accesstest.NewServer()
	defer srv.Close()
	srv.AddHolidayGroup(access.HolidayGroup{ID: "hg-1", Name: "Public Holidays"})
	client := srv.Client()

	var groups []struct {
		Name string `json:"name"`
	}
	resp, err := client.Do(context.Background(), "GET", "/access_policies/holiday_groups", nil, &groups)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.StatusCode, resp.Code, groups[0].Name)

	// A create is sent exactly once, whatever the retry policy.
	var created struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	body := json.RawMessage(`{"name": "Company Days"}`)
	if _, err := client.Do(context.Background(), "POST", "/access_policies/holiday_groups", body, &created); err != nil {
		log.Fatal(err)
	}
	fmt.Println(created.Name, created.ID != "")
	// Output:
	// 200 SUCCESS Public Holidays
	// Company Days true
}

// Iterate over every record of a paged list by its path, through the
// SDK's pager: page_size is where the pages start, and a console that
// caps it is followed.
func ExampleClient_DoAll() {
	srv := accesstest.NewServer()
	defer srv.Close()
	for _, name := range []string{"Ada", "Alan", "Grace"} {
		srv.AddUser(access.User{FirstName: name})
	}
	client := srv.Client()

	for rec, err := range client.DoAll(context.Background(), "/users?page_size=2") {
		if err != nil {
			log.Fatal(err)
		}
		var u struct {
			FirstName string `json:"first_name"`
		}
		if err := json.Unmarshal(rec, &u); err != nil {
			log.Fatal(err)
		}
		fmt.Println(u.FirstName)
	}
	// Output:
	// Ada
	// Alan
	// Grace
}
