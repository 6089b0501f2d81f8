package output

import "testing"

func TestCountSingularAndPlural(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 rows"}, {1, "1 row"}, {2, "2 rows"}, {76, "76 rows"}} {
		if got := Count(tc.n, "row"); got != tc.want {
			t.Errorf("Count(%d, row) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
