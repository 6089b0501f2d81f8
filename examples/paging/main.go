// Command paging shows the two ways to read the visitor list: one page at a
// time with Visitors.List, and every visitor with the Visitors.All
// iterator, which fetches pages as the loop advances.
//
//	go run ./examples/paging
//
// It runs against the embedded fake controller's demo site (250 visitors).
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"maps"
	"os"
	"slices"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func main() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	if err := run(context.Background(), srv, srv.Client(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run reads the visitors of the site of srv through client (either of the
// ways in: the API port or a UniFi OS console's proxy), counting the
// requests srv saw, and writes what it found to out.
func run(ctx context.Context, srv *accesstest.Server, client *access.Client, out io.Writer) error {

	// One page: the response carries the controller's pagination.
	page, resp, err := client.Visitors.List(ctx, &access.VisitorListOptions{PageNum: 2, PageSize: 10, Status: access.VisitorStatusVisited})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "page 2 of VISITED: %d visitors", len(page))
	if p := resp.Pagination; p != nil {
		fmt.Fprintf(out, " (page_num %d, page_size %d, total %d)", p.PageNum, p.PageSize, p.Total)
	}
	fmt.Fprintln(out)

	// Every visitor: All stops on an empty page, on a short page at a size
	// the console served whole, at the total, or on error.
	byStatus := map[string]int{}
	n := 0
	for v, err := range client.Visitors.All(ctx, &access.VisitorListOptions{PageSize: 40}) {
		if err != nil {
			return err
		}
		n++
		byStatus[v.Status]++
	}
	fmt.Fprintf(out, "all visitors: %d, in %d requests of up to 40\n", n, len(srv.RequestsFor(accesstest.OpVisitorsList))-1)
	for _, s := range slices.Sorted(maps.Keys(byStatus)) {
		fmt.Fprintf(out, "  %-10s %3d\n", s, byStatus[s])
	}

	// Breaking out of the loop stops the fetching: no page is read beyond
	// the one holding the fifth visitor.
	srv.ResetRequests()
	found := 0
	for v, err := range client.Visitors.All(ctx, &access.VisitorListOptions{Keyword: "a", PageSize: 3}) {
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  found %s %s\n", v.FirstName, v.LastName)
		if found++; found == 5 {
			break
		}
	}
	fmt.Fprintf(out, "stopped after %d visitors and %d requests\n", found, len(srv.Requests()))
	return nil
}
