package main

import (
	"context"
	"strings"
	"sync"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/output"
)

// Tables show names for ids: a column that holds ids of records people
// name (a door group's doors, a user's access policies, a group's parent)
// shows their names. Only tables: JSON and YAML keep the console's answer.

// tableNameCols maps commands to their table columns that hold ids, and
// each column to the kinds of records it names.
// (Made when first used, not at every start.)
var tableNameCols = sync.OnceValue(func() map[string]map[string]string {
	return map[string]map[string]string{
		"door-groups list":       {"resources": "door"},
		"door-groups get":        {"resources": "door"},
		"door-groups create":     {"resources": "door"},
		"door-groups update":     {"resources": "door"},
		"users get":              {"access_policy_ids": "policy"},
		"user-groups list":       {"up_id": "user-group", "up_ids": "user-group"},
		"user-groups get":        {"up_id": "user-group", "up_ids": "user-group"},
		"user-groups create":     {"up_id": "user-group", "up_ids": "user-group"},
		"user-groups update":     {"up_id": "user-group", "up_ids": "user-group"},
		"access-policies list":   {"schedule_id": "schedule", "resources": "door,door-group"},
		"access-policies get":    {"schedule_id": "schedule", "resources": "door,door-group"},
		"access-policies create": {"schedule_id": "schedule", "resources": "door,door-group"},
		"access-policies update": {"schedule_id": "schedule", "resources": "door,door-group"},
		"users policies":         {"schedule_id": "schedule", "resources": "door,door-group"},
		"user-groups policies":   {"schedule_id": "schedule", "resources": "door,door-group"},
	}
})

// idNames are the names of the ids a table's cells hold: column key to
// id to name. A command loads its own (loadTableNames) and passes them to
// its output (app.emitNamed); a nil idNames names nothing.
type idNames map[string]map[string]string

// loadTableNames fetches the names of the kinds cols names (column key to
// kinds, "door,door-group" for a list of either) for the table of a
// command. A kind whose list cannot be read (a token without the
// permission) leaves its ids as they are.
func loadTableNames(ctx context.Context, c *access.Client, cols map[string]string) idNames {
	lists := map[string]map[string]string{}
	idn := idNames{}
	for col, kinds := range cols {
		names := map[string]string{}
		for _, kind := range strings.Split(kinds, ",") {
			m, ok := lists[kind]
			if !ok {
				m = map[string]string{}
				if list, err := listNamed(ctx, c, kind); err == nil {
					for _, n := range list {
						m[n.id] = n.name
					}
				}
				lists[kind] = m
			}
			for id, n := range m {
				names[id] = n
			}
		}
		idn[col] = names
	}
	return idn
}

// withNames replaces the ids in a table cell's value of column col by
// their names, where known: an id, a list of ids, records with an id and
// no name.
func (n idNames) withNames(col string, v any) any {
	names := n[col]
	if names == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		if n := names[x]; n != "" {
			return n
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = n.withNames(col, e)
		}
		return out
	case map[string]any:
		id, _ := x["id"].(string)
		if n := names[id]; n != "" && output.FirstNonNil(x["name"]) == nil {
			return map[string]any{"id": id, "name": n}
		}
	}
	return v
}
