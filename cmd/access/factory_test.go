package main

import (
	"context"
	"io"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFactorySetsEveryFunction: every function of the cmdutil.Factory a
// run gives the command packages is set, so that a member added to the
// factory and left unset fails here rather than as a nil call in a command.
func TestFactorySetsEveryFunction(t *testing.T) {
	t.Parallel()
	a := newApp(context.Background(), nil, io.Discard, io.Discard, func(string) string { return "" })
	f := a.factory()
	v := reflect.ValueOf(f).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Kind() == reflect.Func {
			assert.False(t, v.Field(i).IsNil(), "Factory.%s is not set", v.Type().Field(i).Name)
		}
	}
	assert.Equal(t, "json", f.Format(), "a run that is not on a terminal prints JSON")
	_, err := f.PacedClient(-1)
	require.Error(t, err, "no console is configured")
	assert.Equal(t, 2, exitCode(context.Background(), err), "a missing console is a usage error: %v", err)
}
