// Command sdktools is the baseline of BenchmarkToolProcesses: a plain
// program on the SDK doing the work of `access export`, `access plan`
// and `access apply` the way a hand-written program would, with the same
// requests at the same concurrency, and the plain notifications reader
// beside `access monitor --events N`. It reads ACCESS_URL, ACCESS_TOKEN
// and ACCESS_FINGERPRINT.
//
//	sdktools export       every user, the groups, each group's members and policies; the result as JSON on stdout
//	sdktools plan         the same reads; counts on stdout
//	sdktools apply FILE   the same reads, then creates the users of FILE (JSON lines of
//	                      employee_number, first_name, last_name, group) that are not on the console, each
//	                      added to its group, two at a time
//	sdktools notifications N
//	                      subscribes to the notifications stream, reads N notifications (nothing
//	                      done with them) and exits; an error of the stream (a drop, a frame that
//	                      is no notification) fails it
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/access-dev/access"
)

type site struct {
	Users    []access.User                    `json:"users"`
	Groups   []access.UserGroup               `json:"groups"`
	Members  map[string][]string              `json:"members"`
	Policies map[string][]access.AccessPolicy `json:"policies"`
}

// parallel runs f(0..n-1), k at once, and returns one of their errors.
func parallel(n, k int, f func(int) error) error {
	sem := make(chan struct{}, k)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := f(i); err != nil {
				mu.Lock()
				first = err
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

func read(ctx context.Context, c *access.Client, policies bool) (*site, error) {
	s := &site{Members: map[string][]string{}, Policies: map[string][]access.AccessPolicy{}}
	for u, err := range c.Users.All(ctx, &access.UserListOptions{PageSize: 500}) {
		if err != nil {
			return nil, err
		}
		s.Users = append(s.Users, u)
	}
	var err error
	if s.Groups, _, err = c.UserGroups.List(ctx); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	err = parallel(len(s.Groups), 2, func(i int) error {
		g := s.Groups[i]
		us, _, err := c.UserGroups.ListUsers(ctx, g.ID)
		if err != nil {
			return err
		}
		ids := make([]string, len(us))
		for j, u := range us {
			ids[j] = u.ID
		}
		var ps []access.AccessPolicy
		if policies {
			if ps, _, err = c.UserGroups.ListAccessPolicies(ctx, g.ID); err != nil {
				return err
			}
		}
		mu.Lock()
		s.Members[g.ID], s.Policies[g.ID] = ids, ps
		mu.Unlock()
		return nil
	})
	return s, err
}

type newUser struct {
	EmployeeNumber string `json:"employee_number"`
	FirstName      string `json:"first_name"`
	LastName       string `json:"last_name"`
	Group          string `json:"group"`
}

func apply(ctx context.Context, c *access.Client, file string) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var want []newUser
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var u newUser
		if err := json.Unmarshal(sc.Bytes(), &u); err != nil {
			return 0, err
		}
		want = append(want, u)
	}
	s, err := read(ctx, c, true)
	if err != nil {
		return 0, err
	}
	have := map[string]bool{}
	for _, u := range s.Users {
		have[u.EmployeeNumber] = true
	}
	groupID := map[string]string{}
	for _, g := range s.Groups {
		groupID[g.Name] = g.ID
	}
	var todo []newUser
	for _, u := range want {
		if !have[u.EmployeeNumber] {
			todo = append(todo, u)
		}
	}
	return len(todo), parallel(len(todo), 2, func(i int) error {
		u := todo[i]
		got, _, err := c.Users.Create(ctx, &access.UserRequest{FirstName: u.FirstName, LastName: u.LastName, EmployeeNumber: u.EmployeeNumber})
		if err != nil {
			return err
		}
		_, err = c.UserGroups.AddUsers(ctx, groupID[u.Group], []string{got.ID})
		return err
	})
}

func main() {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "sdktools:", err)
		os.Exit(1)
	}
	c, err := access.NewClient(os.Getenv("ACCESS_URL"), os.Getenv("ACCESS_TOKEN"),
		access.WithPinnedCertificate(os.Getenv("ACCESS_FINGERPRINT")))
	if err != nil {
		fail(err)
	}
	ctx := context.Background()
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: sdktools export|plan|apply FILE|notifications N"))
	}
	switch os.Args[1] {
	case "export", "plan":
		s, err := read(ctx, c, true)
		if err != nil {
			fail(err)
		}
		if os.Args[1] == "plan" {
			fmt.Printf("%d users, %d groups\n", len(s.Users), len(s.Groups))
			return
		}
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		if err := json.NewEncoder(w).Encode(s); err != nil {
			fail(err)
		}
		if err := w.Flush(); err != nil {
			fail(err)
		}
	case "apply":
		n, err := apply(ctx, c, os.Args[2])
		if err != nil {
			fail(err)
		}
		fmt.Printf("%d created\n", n)
	case "notifications":
		want, err := strconv.Atoi(os.Args[2])
		if err != nil || want < 1 {
			fail(fmt.Errorf("notifications %q: want a count", os.Args[2]))
		}
		n := 0
		for _, err := range c.Notifications.Subscribe(ctx, nil) {
			if err != nil {
				fail(err)
			}
			if n++; n == want {
				break
			}
		}
		fmt.Printf("%d notifications\n", n)
	default:
		fail(fmt.Errorf("unknown %q", os.Args[1]))
	}
}
