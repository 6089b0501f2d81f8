package main

import (
	"slices"

	"github.com/access-dev/access/cmd/access/internal/authcmd"
	"github.com/access-dev/access/cmd/access/internal/capturecmd"
	"github.com/access-dev/access/cmd/access/internal/doctorcmd"
	"github.com/access-dev/access/cmd/access/internal/monitorcmd"
	"github.com/access-dev/access/cmd/access/internal/reviewcmd"
	"github.com/access-dev/access/cmd/access/internal/sitecmd"
	"github.com/access-dev/access/cmd/access/internal/synccmd"
	"github.com/access-dev/access/internal/simulator"
	"github.com/spf13/cobra"
)

// otherCommand is one or a few of root's commands outside the registry's
// services (site, sync, review, fake…), made together, with the names
// (aliases included) that they answer to: a run builds them only when
// its word is one of names, or when it needs the whole tree (issue 38).
// TestOtherCommandNames keeps names equal to what build makes, and the
// list complete, so that a new command cannot be left out of a run.
type otherCommand struct {
	names []string
	build func() []*cobra.Command
}

// otherCommands are root's commands outside the registry. It is a
// function, not a table, so that a start makes none of it before it
// needs it.
func (a *app) otherCommands() []otherCommand {
	one := func(f func() *cobra.Command) func() []*cobra.Command {
		return func() []*cobra.Command { return []*cobra.Command{f()} }
	}
	return []otherCommand{
		{[]string{"events"}, one(a.eventsCommand)},
		{[]string{"doctor"}, one(func() *cobra.Command { return doctorcmd.New(a.factory()) })},
		{[]string{"monitor"}, one(func() *cobra.Command { return monitorcmd.New(a.factory()) })},
		{[]string{"fake"}, one(a.fakeCommand)},
		{[]string{"login", "logout", "config", "auth"}, func() []*cobra.Command { return authcmd.New(a.factory()) }},
		{[]string{"export", "plan", "apply"}, func() []*cobra.Command { return sitecmd.New(a.factory()) }},
		{[]string{"version"}, one(a.versionCommand)},
		{[]string{"api"}, one(a.apiCommand)},
		{[]string{"sync"}, one(func() *cobra.Command { return synccmd.New(a.factory()) })},
		{[]string{"review"}, one(func() *cobra.Command { return reviewcmd.New(a.factory()) })},
		{[]string{"capture"}, one(func() *cobra.Command { return capturecmd.New(a.factory()) })},
	}
}

// addOtherCommands adds to root the other commands the run needs: all of
// them, or those that answer to word.
func (a *app) addOtherCommands(root *cobra.Command, all bool, word string) {
	for _, o := range a.otherCommands() {
		if all || slices.Contains(o.names, word) {
			root.AddCommand(o.build()...)
		}
	}
}

// fakeCommand is access fake: the simulator's command, with trigger
// (reaching the fake as every command reaches a console) and record.
func (a *app) fakeCommand() *cobra.Command {
	fake := simulator.NewCommand()
	fake.AddCommand(simulator.TriggerCommand(a.triggerIO()))
	fake.AddCommand(a.fakeRecordCommand())
	if fake.Example == "" {
		fake.Example = "  access fake\n  access fake --state site.json --addr 127.0.0.1:12445"
	}
	return fake
}
