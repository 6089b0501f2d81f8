package authcmd

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/cmd/access/internal/cmdutil"
	"github.com/access-dev/access/cmd/access/internal/connect"
	"github.com/access-dev/access/cmd/access/internal/output"
	"github.com/spf13/cobra"
)

// The profile commands (config list, use, show) and auth status.

// profileRow is one profile as config list and config show print it:
// never its token, only whether one is stored.
type profileRow struct {
	Name        string `json:"name"`
	URL         string `json:"url"`
	Current     bool   `json:"current"`
	Pinned      bool   `json:"pinned"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Insecure    bool   `json:"insecure"`
	TokenStored bool   `json:"token_stored"`
	File        string `json:"file,omitempty"`
}

func rowOf(cfg *connect.Config, name string) profileRow {
	p := cfg.Profiles[name]
	return profileRow{Name: name, URL: p.URL, Current: name == cfg.Current, Pinned: p.Fingerprint != "",
		Fingerprint: p.Fingerprint, Insecure: p.Insecure, TokenStored: p.Token != ""}
}

// configCommand is access config: the profiles of the config file.
func configCommand(f *cmdutil.Factory) *cobra.Command {
	g := groupCommand("config", "Profiles of the config file: list, use, show")
	g.AddCommand(configListCommand(f), configUseCommand(f), configShowCommand(f))
	return g
}

func configListCommand(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the profiles: name, URL, pinned or not; the current one is marked *",
		Long: `List the profiles of the config file: their name, console URL and whether the
console's certificate is pinned. The current one (used when neither --url nor
--profile nor ACCESS_URL nor ACCESS_PROFILE says otherwise) is marked with *.
Tokens are never shown.`,
		Example: "  access config list\n  access config list -o json",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cfg, path, err := f.LoadConfig()
			if err != nil {
				return err
			}
			rows := []profileRow{}
			for _, n := range connect.ProfileNames(cfg) {
				rows = append(rows, rowOf(cfg, n))
			}
			cols, err := f.Shape(c, "config list", []string{"current", "name", "url", "pinned"}, reflect.TypeFor[profileRow]())
			if err != nil {
				return err
			}
			if f.Format() != "table" || f.Shaped(c) { // -o wide, --columns…: the one table path
				return f.Print(rows, cols)
			}
			if len(rows) == 0 {
				fmt.Fprintf(f.ErrOut, "no profiles in %s: run access login\n", path)
				return nil
			}
			tw := tabwriter.NewWriter(f.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CURRENT\tNAME\tURL\tPINNED")
			for _, r := range rows {
				mark := ""
				if r.Current {
					mark = "*"
				}
				pinned := "no"
				switch {
				case r.Pinned:
					pinned = "yes"
				case r.Insecure:
					pinned = "no (insecure)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", mark, r.Name, r.URL, pinned)
			}
			return tw.Flush()
		},
	}
	f.AddShapeFlags(cmd, "config list")
	return cmd
}

func configUseCommand(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "use NAME",
		Short:   "Make a profile the current one",
		Long:    "Make a profile the current one.\n\nNAME is a profile's name (access config list shows them).",
		Example: "  access config use office",
		Args:    cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			cfg, _, err := f.LoadConfig()
			if err != nil {
				return nil, cobra.ShellCompDirectiveError
			}
			return connect.ProfileNames(cfg), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cfg, path, err := f.LoadConfig()
			if err != nil {
				return err
			}
			name := args[0]
			if _, ok := cfg.Profiles[name]; !ok {
				return noProfile(f, cfg, path, name)
			}
			cfg.Current = name
			if err := connect.Save(path, cfg); err != nil {
				return err
			}
			fmt.Fprintf(f.Out, "now using profile %q (%s)\n", name, cfg.Profiles[name].URL)
			return nil
		},
	}
}

// noProfile is the not-found error of a profile name.
func noProfile(f *cmdutil.Factory, cfg *connect.Config, path, name string) error {
	names := connect.ProfileNames(cfg)
	if len(names) == 0 {
		return cmdutil.NotFoundErrorf("no profile %q in %s (there is none: run access login)", name, path)
	}
	return cmdutil.NotFoundErrorf("no profile %q in %s (have: %s)%s", name, path, strings.Join(names, ", "), f.DidYouMean(name, names))
}

func configShowCommand(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "show [NAME]",
		Short: "Show a profile (the current one by default); never its token",
		Long: `Show a profile of the config file: its console URL, the pinned fingerprint,
--insecure, whether it is the current one and whether a token is stored. The
token itself is never shown.

NAME is a profile's name (default: --profile, ACCESS_PROFILE or the current
profile).`,
		Example: "  access config show\n  access config show office -o json",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			cfg, path, err := f.LoadConfig()
			if err != nil {
				return err
			}
			name := firstNonEmpty(append(args, f.ConnectFlags().Profile, f.Getenv("ACCESS_PROFILE"), cfg.Current)...)
			if name == "" {
				return cmdutil.UsageErrorf("no current profile in %s: name one (access config show NAME), or run access login", path)
			}
			if _, ok := cfg.Profiles[name]; !ok {
				return noProfile(f, cfg, path, name)
			}
			r := rowOf(cfg, name)
			r.File = path
			if f.Format() != "table" {
				return f.Print(r, nil)
			}
			tw := tabwriter.NewWriter(f.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "name:\t%s\n", r.Name)
			fmt.Fprintf(tw, "url:\t%s\n", r.URL)
			fmt.Fprintf(tw, "current:\t%s\n", yesNo(r.Current))
			switch {
			case r.Pinned:
				fmt.Fprintf(tw, "pinned:\tyes, %s\n", r.Fingerprint)
			case r.Insecure:
				fmt.Fprintf(tw, "pinned:\tno: insecure (the certificate is not checked)\n")
			default:
				fmt.Fprintf(tw, "pinned:\tno (the system's roots are trusted)\n")
			}
			if r.TokenStored {
				fmt.Fprintf(tw, "token:\tstored (not shown)\n")
			} else {
				fmt.Fprintf(tw, "token:\tnone: run access login again\n")
			}
			fmt.Fprintf(tw, "file:\t%s\n", path)
			return tw.Flush()
		},
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// authCommand is access auth: status.
func authCommand(f *cmdutil.Factory) *cobra.Command {
	g := groupCommand("auth", "The console and credential commands use")
	g.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show which console and token the next command would use, and whether the console accepts it",
		Long: `Show the console and the token the next command would use, where each came
from (a flag, the environment or a profile), how the certificate is checked,
and whether the console accepts the token. The API has no "who am I" call:
the check is one read (the list of doors). The token is never shown.

Exit status 4 when the console refuses the token, 1 when it cannot be reached.`,
		Example: "  access --fake auth status",
		Args:    cobra.NoArgs,
		RunE:    func(c *cobra.Command, _ []string) error { return authStatus(c.Context(), f) },
	})
	return g
}

func authStatus(ctx context.Context, f *cmdutil.Factory) error {
	var conn connect.Connection
	if flags := f.ConnectFlags(); flags.Fake {
		conn = f.FakeConnection()
	} else {
		var err error
		if conn, err = f.Resolve(flags); err != nil {
			return err
		}
	}
	from := func(src string) string {
		switch src {
		case "":
			return ""
		case "--fake":
			return " (the embedded demo console of --fake)"
		}
		return " (from " + src + ")"
	}
	profile := ""
	switch conn.Profile {
	case "current":
		profile = " (the current profile)"
	case "--profile", "ACCESS_PROFILE":
		profile = " (chosen by " + conn.Profile + ")"
	}
	tw := tabwriter.NewWriter(f.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "console:\t%s%s%s\n", conn.URL, from(conn.Source), profile)
	fmt.Fprintf(tw, "token:\tfrom %s (not shown)\n", conn.TokenSource)
	switch {
	case conn.Fingerprint != "":
		fmt.Fprintf(tw, "certificate:\tpinned to %s%s\n", conn.Fingerprint, from(conn.PinSource))
	case conn.CACert != nil:
		fmt.Fprintf(tw, "certificate:\tchecked against the CA of %s (from %s)\n", conn.CAFile, conn.CASrc)
	case conn.Insecure:
		fmt.Fprintf(tw, "certificate:\tnot checked (insecure)\n")
	default:
		fmt.Fprintf(tw, "certificate:\tchecked against the system's roots (not pinned)\n")
	}
	cl, err := access.NewClient(conn.URL, conn.Token(), f.ClientOptions(conn)...)
	if err != nil {
		tw.Flush()
		return cmdutil.Exit(cmdutil.ExitUsage, err)
	}
	start := time.Now()
	doors, _, err := cl.Doors.List(ctx)
	took := time.Since(start).Round(time.Millisecond)
	switch {
	case err == nil:
		fmt.Fprintf(tw, "accepted:\tyes (listed %s in %s)\n", output.Count(len(doors), "door"), took)
	case connect.PermissionRefused(err):
		fmt.Fprintf(tw, "accepted:\tyes, but the token may not list doors (view:space)\n")
	case errors.Is(err, access.ErrUnauthorized):
		fmt.Fprintf(tw, "accepted:\tno: the console refuses the token\n")
		tw.Flush()
		return err
	default:
		fmt.Fprintf(tw, "accepted:\tunknown: the console did not answer\n")
		tw.Flush()
		return err
	}
	return tw.Flush()
}
