package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/access-dev/access/internal/simulator"
)

// fakeRecordCommand is `access fake record DIR`: the console of this run
// (the usual connection), read and recorded with pseudonyms as a seed
// folder for `access fake --seed-from DIR`.
func (a *app) fakeRecordCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "record DIR",
		Short: "Record a console's site, people pseudonymised, as a seed folder for access fake --seed-from",
		Long: `record reads the console (only reads: every page of every list) and writes
the seed folder DIR (DIR/` + simulator.SeedFile + `, mode 0600): the site's structure
exactly (floors, doors, devices and their settings, door groups, schedules,
holiday groups, access policies, user groups, who belongs to which group and
holds which policy), with
people's data replaced by pseudonyms: the same person gets the same generated
name, email and employee number throughout; card tokens and numbers, PINs and
plates are replaced consistently; ids and other fields are kept. The key of the
pseudonyms is random and never written. DIR is the seed folder to write
(created if missing; a seed already in it is replaced once the new one is
written). Then:

  access fake --seed-from DIR`,
		Example: "  access fake record ./site-seed\n  access --profile office fake record ./site-seed",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			c, err := a.Client()
			if err != nil {
				return err
			}
			rec, err := simulator.Record(a.ctx, c, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "recorded %d doors, %d devices, %d door groups, %d schedules, %d holiday groups, %d access policies, %d user groups, %d users, %d visitors, %d NFC cards, %d touch passes to %s\n",
				len(rec.Doors), len(rec.Devices), len(rec.DoorGroups), len(rec.Schedules), len(rec.HolidayGroups), len(rec.Policies),
				len(rec.UserGroups), len(rec.Users), len(rec.Visitors), len(rec.NFCCards), len(rec.TouchPasses), args[0])
			return nil
		},
	}
}
