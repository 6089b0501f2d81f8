package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/internal/simulator"
)

// fakeRecordCommand is `access fake record DIR`: the console of this run
// (the usual connection), read and recorded with pseudonyms as a seed
// folder for `access fake --seed-from DIR`.
func (a *app) fakeRecordCommand() *cobra.Command {
	var keys cmdutil.PseudonymKeyFlags
	cmd := &cobra.Command{
		Use:   "record DIR",
		Short: "Record a console's site, its data pseudonymised, as a seed folder for access fake --seed-from",
		Long: `record reads the console (only reads: every page of every list) and writes
the seed folder DIR (DIR/` + simulator.SeedFile + `, mode 0600): the site's structure
(floors, doors, devices and their settings, door groups, schedules, holiday
groups, access policies, user groups, who belongs to which group and holds
which policy) with its ids, times and settings exactly, and every other value
replaced by a pseudonym. Only the values of ids, times and known enumerations
(types, states, settings) are kept; every other text is replaced through one
keyed mapping, the same value by the same pseudonym throughout: names of
doors, floors, devices, groups and schedules, touch passes' phones, visitors'
companies and remarks, and members this version does not know. Card tokens and
numbers, PINs and plates keep their form (digits, hex). People get generated
names: the same person the same name, email and employee number throughout.
A person's values are replaced by one mapping drawn from the value alone,
whatever member holds them (a name word by word), so that a capture of the
same console under the same key (access capture --pseudonym-key-file FILE)
gives the same person the same pseudonyms. The key of the pseudonyms is
random and never written, unless --pseudonym-key-file reads it from a file
(mode 0600) or --new-key-file writes a random one to a new file for the next
command; it is never a flag's value. DIR is the seed folder to write (created
if missing; a seed already in it is replaced once the new one is written).
Then:

  access fake --seed-from DIR`,
		Example: "  access fake record ./site-seed\n  access --profile office fake record ./site-seed\n" +
			"  access fake record ./site-seed --new-key-file site.key\n  access capture -O console.capture --pseudonym-key-file site.key",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			key, err := keys.Key()
			if err != nil {
				return err
			}
			rec, err := simulator.Record(a.ctx, c, args[0], simulator.WithPseudonymKey(key))
			if err != nil {
				keys.Discard() // no seed was written under the key (a seed is replaced only once written)
				return err
			}
			fmt.Fprintf(a.stdout, "recorded %d doors, %d devices, %d door groups, %d schedules, %d holiday groups, %d access policies, %d user groups, %d users, %d visitors, %d NFC cards, %d touch passes to %s\n",
				len(rec.Doors), len(rec.Devices), len(rec.DoorGroups), len(rec.Schedules), len(rec.HolidayGroups), len(rec.Policies),
				len(rec.UserGroups), len(rec.Users), len(rec.Visitors), len(rec.NFCCards), len(rec.TouchPasses), args[0])
			return nil
		},
	}
	keys.Add(cmd)
	return cmd
}
