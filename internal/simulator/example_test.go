package simulator_test

import (
	"fmt"

	"github.com/access-dev/access/internal/simulator"
)

func ExampleParsePermissions() {
	perms, err := simulator.ParsePermissions("view:space,edit:space")
	fmt.Println(perms, err)
	_, err = simulator.ParsePermissions("view:everything")
	fmt.Println(err != nil)
	// Output:
	// [view:space edit:space] <nil>
	// true
}
