package accesstest_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// Save a fake's state, restore it into another one, and see a file from
// a newer version refused.
func ExampleServer_WriteState() {
	src := accesstest.NewServer()
	defer src.Close()
	src.AddUser(access.User{ID: "u1", FirstName: "Ada", LastName: "Lovelace"})
	var file bytes.Buffer
	if err := src.WriteState(&file); err != nil {
		fmt.Println(err)
		return
	}

	dst := accesstest.NewServer()
	defer dst.Close()
	if err := dst.ReadState(&file); err != nil {
		fmt.Println(err)
		return
	}
	u, _ := dst.User("u1")
	fmt.Println(u.FirstName, u.LastName)

	err := dst.ReadState(strings.NewReader(`{"version":99}`))
	fmt.Println(errors.Is(err, accesstest.ErrStateVersion))
	fmt.Println(len(dst.Users()), "user, unchanged")
	// Output:
	// Ada Lovelace
	// true
	// 1 user, unchanged
}

// Count the changes of state, as a simulator that saves its state after
// each one would.
func ExampleServer_OnChange() {
	srv := accesstest.NewServer()
	defer srv.Close()
	changes := 0
	remove := srv.OnChange(func() { changes++ })
	defer remove()

	srv.AddUser(access.User{FirstName: "Ada", LastName: "Lovelace"})
	_ = srv.Users() // a read is no change
	fmt.Println(changes)
	// Output:
	// 1
}
