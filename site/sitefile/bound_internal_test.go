package sitefile

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/access-dev/access/site"
)

// TestAliasBombIsRefusedBeforeItExpands reads testdata/aliasbomb.yaml, 699
// bytes whose aliases, nested through sites:, expand to about six million
// nodes: it is refused as a bad document matching ErrAliasBound, at the
// alias that crosses the bound, without the position walk visiting a node
// and in a bounded number of allocations. (The command's walk used to
// follow every alias first: a minute and 1.3 GB.)
func TestAliasBombIsRefusedBeforeItExpands(t *testing.T) {
	b, err := os.ReadFile("testdata/aliasbomb.yaml")
	if err != nil {
		t.Fatal(err)
	}
	visits := -1
	allocs := testing.AllocsPerRun(1, func() {
		_, err = read(strings.NewReader(string(b)), "aliasbomb.yaml", nil, &visits)
	})
	var de *site.DocumentError
	if !errors.As(err, &de) || !errors.Is(err, ErrAliasBound) || len(de.Problems) != 1 {
		t.Fatalf("err = %v, want one problem matching ErrAliasBound", err)
	}
	if got := de.Problems[0].Pos.String(); got != "aliasbomb.yaml:6:71" {
		t.Errorf("the problem is at %s, want the alias that crosses the bound, aliasbomb.yaml:6:71", got)
	}
	if visits != -1 {
		t.Errorf("the position walk visited %d nodes of a refused document", visits)
	}
	if allocs > 20000 {
		t.Errorf("%.0f allocations to refuse the document, want at most 20,000", allocs)
	}
}

// TestTheWalkVisitsBoundedNodes reads documents whose aliases stay within
// the bound, up to its edge: they are accepted, and the position walk
// visits at most the bound's number of nodes.
func TestTheWalkVisitsBoundedNodes(t *testing.T) {
	for _, n := range []int{10, 700, 1000, 3000} {
		var b strings.Builder
		b.WriteString("user_groups:\n  - &g {name: G0, policies: [a, b, c, d, e, f, g, h]}\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "  - *g\n")
		}
		visits := 0
		_, err := read(strings.NewReader(b.String()), "site.yaml", nil, &visits)
		// The anchored group is 13 nodes; the document, its member and
		// the list 3 more; each alias 1 written, 13 expanded.
		written, expanded := 3+13+(n-1), 3+13*n
		limit := max(AliasFloor, AliasFactor*written)
		switch {
		case expanded <= limit && err != nil:
			t.Errorf("%d aliases: %v", n, err)
		case expanded > limit && !errors.Is(err, ErrAliasBound):
			t.Errorf("%d aliases: err = %v, want ErrAliasBound", n, err)
		}
		if visits > limit {
			t.Errorf("%d aliases: the walk visited %d nodes, more than the bound %d", n, visits, limit)
		}
	}
}

// TestAnAnchorThatContainsItselfIsRefused: `&a [*a]` is a cycle, refused
// at the alias, not walked forever.
func TestAnAnchorThatContainsItselfIsRefused(t *testing.T) {
	_, err := Read(strings.NewReader("user_groups: &a [*a]\n"), "site.yaml", nil)
	var de *site.DocumentError
	if !errors.As(err, &de) || !errors.Is(err, ErrAliasBound) || de.Problems[0].String() != "site.yaml:1:18: document: the anchor &a contains itself" {
		t.Fatalf("err = %v", err)
	}
}
