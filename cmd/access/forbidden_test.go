package main

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/access-dev/access"
)

// TestNamePermission: a 403 names the permission of the refused request's
// operation (a literal route winning over a parameter), or else the
// command's; a 401 and other errors are left as they are.
func TestNamePermission(t *testing.T) {
	t.Parallel()
	forbidden := func(method, url string) error {
		return fmt.Errorf("wrapped: %w", &access.APIError{StatusCode: 403, Code: "CODE_UNAUTHORIZED", Message: "no", Method: method, URL: url})
	}
	for _, tc := range []struct {
		err  error
		perm string
		want string
	}{
		{forbidden("GET", "https://h:12445/api/v1/developer/users/search?keyword=x"), "view:user",
			"the token lacks the permission view:user, which Search Users needs)"},
		{forbidden("PUT", "https://h/proxy/access/api/v1/developer/doors/d1/lock_rule"), "edit:space",
			"the token lacks the permission edit:space, which Set Temporary Door Locking Rule needs)"},
		{forbidden("GET", "https://h/api/v1/developer/doors"), "edit:space",
			"(the token lacks the permission view:space, which Fetch All Doors needs; this command needs edit:space)"},
		{forbidden("GET", "https://h/elsewhere"), "view:system_log", "(the token lacks the permission view:system_log)"},
	} {
		got := namePermission(tc.err, tc.perm)
		if !errors.Is(got, access.ErrForbidden) || exitCode(context.Background(), got) != 4 {
			t.Errorf("%v: lost its class", got)
		}
		if s := got.Error(); len(s) < len(tc.want) || s[len(s)-len(tc.want):] != tc.want {
			t.Errorf("namePermission = %q, want it to end with %q", s, tc.want)
		}
	}
	unauth := &access.APIError{StatusCode: 401, Code: "CODE_ACCESS_TOKEN_INVALID", Method: "GET", URL: "https://h/api/v1/developer/doors"}
	other := errors.New("boom")
	for _, err := range []error{unauth, other, nil} {
		if got := namePermission(err, "view:space"); got != err {
			t.Errorf("namePermission(%v) = %v, want it unchanged", err, got)
		}
	}
}
