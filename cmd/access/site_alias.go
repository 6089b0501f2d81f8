package main

import (
	"fmt"

	"github.com/access-dev/access/site"
	"go.yaml.in/yaml/v3"
)

// aliasFloor and aliasFactor bound what aliases may add: the document as
// its aliases expand it may hold at most max(aliasFloor, aliasFactor ×
// the nodes written) nodes.
const (
	aliasFloor  = 10000
	aliasFactor = 10
)

// checkAliases refuses a document whose aliases expand it beyond the
// bound, or an anchor that contains itself, without expanding anything:
// each node's expanded size is computed once.
func checkAliases(root *yaml.Node, file string) *site.Problem {
	written := 0
	var count func(n *yaml.Node)
	count = func(n *yaml.Node) {
		written++
		for _, c := range n.Content {
			count(c)
		}
	}
	count(root)
	limit := max(aliasFloor, aliasFactor*written)
	size := map[*yaml.Node]int{}
	busy := map[*yaml.Node]bool{}
	var cycle *yaml.Node
	var expanded func(n *yaml.Node) int
	expanded = func(n *yaml.Node) int {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if s, ok := size[n]; ok {
			return s
		}
		if busy[n] {
			cycle = n
			return limit + 1
		}
		busy[n] = true
		s := 1
		for _, c := range n.Content {
			s = min(s+expanded(c), limit+1)
		}
		busy[n] = false
		size[n] = s
		return s
	}
	// Sum in document order to place the problem at the alias that
	// crosses the bound.
	total := 0
	var sum func(n *yaml.Node) *site.Problem
	sum = func(n *yaml.Node) *site.Problem {
		if n.Kind == yaml.AliasNode {
			total += expanded(n)
			switch {
			case cycle != nil:
				return &site.Problem{Path: "document", Pos: site.Position{File: file, Line: n.Line, Column: n.Column}, Err: errAliasBound,
					Message: fmt.Sprintf("the anchor &%s contains itself", cycle.Anchor)}
			case total > limit:
				return &site.Problem{Path: "document", Pos: site.Position{File: file, Line: n.Line, Column: n.Column}, Err: errAliasBound,
					Message: fmt.Sprintf("the aliases expand the document beyond %d nodes (%d written; the bound is %d, or %d times the nodes written); refused", limit, written, aliasFloor, aliasFactor)}
			}
			return nil
		}
		total++
		for _, c := range n.Content {
			if p := sum(c); p != nil {
				return p
			}
		}
		return nil
	}
	return sum(root)
}
