// Package syncconfig reads the directory sync's configuration — its
// sources (LDAP or Active Directory, SCIM pushes, an HR file), each
// source's group mapping, scope, guard and what becomes of a leaver's
// credentials, the evidence log and the interval — from one YAML (or JSON)
// file, and opens what it describes for a [dirsync.Runner].
//
// The file is read by the strict reader of site documents
// (site/sitefile.Decode): a member the types do not know, or of the wrong
// shape, is refused with its file, line and column. A secret is never a
// value of the file: the LDAP bind password and the SCIM bearer token are
// named by a file (password_file, token_file) or an environment variable
// (password_env, token_env), and a literal password or token is refused.
// [JSONSchema] generates the file's JSON Schema; the repository keeps it
// in dirsync/syncconfig/sync.schema.json, for editors.
//
// It is apart from package dirsync so that a program that reads a
// directory does not take the YAML parser: it may import package dirsync,
// dirsync/scim, site and site/sitefile.
package syncconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/access-dev/access/dirsync"
	"github.com/access-dev/access/dirsync/scim"
	"github.com/access-dev/access/site"
	"github.com/access-dev/access/site/sitefile"
)

// SchemaID is the $id of the configuration's JSON Schema: the raw URL of
// the checked-in file dirsync/syncconfig/sync.schema.json.
const SchemaID = "https://raw.githubusercontent.com/access-dev/access/main/dirsync/syncconfig/sync.schema.json"

// The values of Source.Credentials: what becomes of a leaver's
// credentials once they are deactivated.
const (
	// CredentialsUnassign unassigns them all (the default).
	CredentialsUnassign = "unassign"
	// CredentialsKeep leaves them assigned.
	CredentialsKeep = "keep"
	// CredentialsSuspend unassigns them but suspends touch passes.
	CredentialsSuspend = "suspend_touch_passes"
)

// Config is the directory sync's configuration file.
type Config struct {
	// Sources are reconciled one after the other, each with its own
	// scope. At most one is a SCIM source.
	Sources []Source `json:"sources" yaml:"sources"`
	// Evidence is the path of the evidence log (relative to the file's
	// directory); none is written when empty.
	Evidence string `json:"evidence,omitempty" yaml:"evidence,omitempty"`
	// Interval is how often every source is read (dirsync.DefaultInterval
	// when 0); a SCIM push is applied at once.
	Interval time.Duration `json:"interval,omitempty" yaml:"interval,omitempty"`

	// dir is the directory relative paths are read from.
	dir string
}

// Source is one source of people and how the console follows it.
type Source struct {
	// Name names the source in plans, evidence and metrics; unique.
	Name string `json:"name" yaml:"name"`
	// Exactly one of LDAP, SCIM and CSV says where the people come from.
	LDAP *LDAP `json:"ldap,omitempty" yaml:"ldap,omitempty"`
	SCIM *SCIM `json:"scim,omitempty" yaml:"scim,omitempty"`
	CSV  *CSV  `json:"csv,omitempty" yaml:"csv,omitempty"`
	// Groups maps a directory group to a console user group, which must
	// exist (dirsync.ReconcileOptions.Groups); memberships are not
	// managed when empty.
	Groups map[string]string `json:"groups,omitempty" yaml:"groups,omitempty"`
	// Scope limits the console users the source manages (site's scope).
	Scope *site.Scope `json:"scope,omitempty" yaml:"scope,omitempty"`
	// Guard bounds the leavers one run may deactivate.
	Guard *Guard `json:"guard,omitempty" yaml:"guard,omitempty"`
	// Credentials says what becomes of a leaver's credentials:
	// "unassign" (the default), "keep" or "suspend_touch_passes".
	Credentials string `json:"credentials,omitempty" yaml:"credentials,omitempty"`
	// DeleteUsers deletes leavers from the console (after deactivating
	// them) instead of keeping them deactivated.
	DeleteUsers bool `json:"delete_users,omitempty" yaml:"delete_users,omitempty"`
}

// Guard is site's guard on mass deactivation.
type Guard struct {
	// MaxDeactivate is the most leavers one run deactivates (site's
	// default 10 when 0; a negative value: no limit).
	MaxDeactivate int `json:"max_deactivate,omitempty" yaml:"max_deactivate,omitempty"`
	// MaxDeactivateShare is the most, in per cent of the users in scope
	// (site's default 20 when 0; a negative value: no limit).
	MaxDeactivateShare float64 `json:"max_deactivate_share,omitempty" yaml:"max_deactivate_share,omitempty"`
}

// LDAP is an LDAP or Active Directory source: the fields of
// dirsync.LDAPConfig, the bind password from a file or a variable.
type LDAP struct {
	URL            string `json:"url" yaml:"url"`
	StartTLS       bool   `json:"start_tls,omitempty" yaml:"start_tls,omitempty"`
	AllowPlaintext bool   `json:"allow_plaintext,omitempty" yaml:"allow_plaintext,omitempty"`
	CAFile         string `json:"ca_file,omitempty" yaml:"ca_file,omitempty"`
	PinSHA256      string `json:"pin_sha256,omitempty" yaml:"pin_sha256,omitempty"`
	ServerName     string `json:"server_name,omitempty" yaml:"server_name,omitempty"`
	BindDN         string `json:"bind_dn,omitempty" yaml:"bind_dn,omitempty"`
	// PasswordFile and PasswordEnv name where the bind password is:
	// exactly one with a bind DN. Read again at each read.
	PasswordFile   string         `json:"password_file,omitempty" yaml:"password_file,omitempty"`
	PasswordEnv    string         `json:"password_env,omitempty" yaml:"password_env,omitempty"`
	BaseDN         string         `json:"base_dn" yaml:"base_dn"`
	Filter         string         `json:"filter,omitempty" yaml:"filter,omitempty"`
	GroupBaseDN    string         `json:"group_base_dn,omitempty" yaml:"group_base_dn,omitempty"`
	GroupFilter    string         `json:"group_filter,omitempty" yaml:"group_filter,omitempty"`
	PageSize       int            `json:"page_size,omitempty" yaml:"page_size,omitempty"`
	Attributes     LDAPAttributes `json:"attributes,omitempty" yaml:"attributes,omitempty"`
	InactiveValues []string       `json:"inactive_values,omitempty" yaml:"inactive_values,omitempty"`
	Timeout        time.Duration  `json:"timeout,omitempty" yaml:"timeout,omitempty"`
}

// LDAPAttributes are dirsync.LDAPAttributes: the attribute each field of
// a person is read from; an empty one takes dirsync's default.
type LDAPAttributes struct {
	EmployeeNumber string `json:"employee_number,omitempty" yaml:"employee_number,omitempty"`
	FirstName      string `json:"first_name,omitempty" yaml:"first_name,omitempty"`
	LastName       string `json:"last_name,omitempty" yaml:"last_name,omitempty"`
	Email          string `json:"email,omitempty" yaml:"email,omitempty"`
	Groups         string `json:"groups,omitempty" yaml:"groups,omitempty"`
	AccountControl string `json:"account_control,omitempty" yaml:"account_control,omitempty"`
	Status         string `json:"status,omitempty" yaml:"status,omitempty"`
	Modified       string `json:"modified,omitempty" yaml:"modified,omitempty"`
	Member         string `json:"member,omitempty" yaml:"member,omitempty"`
	GroupName      string `json:"group_name,omitempty" yaml:"group_name,omitempty"`
}

// SCIM is the source an identity provider (Okta, Entra) pushes to: a
// durable store, served by access sync --scim-listen.
type SCIM struct {
	// Store is the file the pushes are kept in (and Store + ".journal").
	Store string `json:"store" yaml:"store"`
	// Key is the user attribute a person's key comes from:
	// employeeNumber (the default), externalId or userName.
	Key string `json:"key,omitempty" yaml:"key,omitempty"`
	// TokenFile and TokenEnv name where the bearer token the provider
	// sends is: exactly one.
	TokenFile string `json:"token_file,omitempty" yaml:"token_file,omitempty"`
	TokenEnv  string `json:"token_env,omitempty" yaml:"token_env,omitempty"`
	// MaxBodyBytes bounds a request's body (scim.DefaultMaxBodyBytes
	// when 0).
	MaxBodyBytes int64 `json:"max_body_bytes,omitempty" yaml:"max_body_bytes,omitempty"`
}

// CSV is an HR file, watched: site's users_csv (the path, the delimiter and
// the mapping of its columns, site.CSVOptions), read again when it changed
// and held still for one poll.
type CSV struct {
	Path      string            `json:"path" yaml:"path"`
	Delimiter string            `json:"delimiter,omitempty" yaml:"delimiter,omitempty"`
	Columns   map[string]string `json:"columns,omitempty" yaml:"columns,omitempty"`
	// AllowNoFinalNewline reads a file whose last row has no line end
	// (Google Sheets' exports); by default it is taken for one being
	// written.
	AllowNoFinalNewline bool `json:"allow_no_final_newline,omitempty" yaml:"allow_no_final_newline,omitempty"`
	// Poll is how often the file is looked at (dirsync.DefaultCSVPoll
	// when 0).
	Poll time.Duration `json:"poll,omitempty" yaml:"poll,omitempty"`
}

// secretMembers are the members a literal secret would be written in, and
// where to put it instead.
var secretMembers = map[string]string{
	"password":      "password_file or password_env",
	"bind_password": "password_file or password_env",
	"token":         "token_file or token_env",
	"bearer_token":  "token_file or token_env",
	"secret":        "a _file or _env member",
}

// ErrLiteralSecret is the kind (errors.Is of a site.Problem's Err) of a
// password or token written as a value in the file.
var ErrLiteralSecret = errors.New("syncconfig: a secret is never a value of the file")

// Load reads and checks the configuration at path. A problem is a
// *site.DocumentError listing each with its file, line and column; an
// error opening path is returned as it is. Nothing is opened or
// connected to.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var c Config
	loc, err := sitefile.Decode(f, path, &c)
	var de *site.DocumentError
	if errors.As(err, &de) {
		for i, p := range de.Problems {
			_, member := cutLast(p.Path)
			if instead, ok := secretMembers[member]; ok && strings.HasPrefix(p.Message, "unknown member") {
				de.Problems[i].Message = "a literal secret is refused (it would be read by whoever reads the file): name a file or an environment variable with " + instead
				de.Problems[i].Err = ErrLiteralSecret
			}
		}
	}
	if err != nil {
		return nil, err
	}
	c.dir = filepath.Dir(path)
	if probs := c.check(loc); len(probs) > 0 {
		return nil, &site.DocumentError{Problems: probs}
	}
	return &c, nil
}

// cutLast splits a path at its last member: "sources[0].ldap.password"
// is "sources[0].ldap", "password".
func cutLast(p string) (string, string) {
	i := strings.LastIndex(p, ".")
	return p[:max(i, 0)], p[i+1:]
}

// check returns what is wrong with the configuration beyond its shape.
func (c *Config) check(loc site.Locator) []site.Problem {
	var probs []site.Problem
	bad := func(path, format string, a ...any) {
		probs = append(probs, site.Problem{Path: path, Pos: loc(path), Message: fmt.Sprintf(format, a...)})
	}
	if len(c.Sources) == 0 {
		bad("sources", "no source: give at least one (ldap, scim or csv)")
	}
	if c.Interval < 0 {
		bad("interval", "the interval must not be negative")
	}
	names := map[string]bool{}
	scims := 0
	for i, s := range c.Sources {
		at := fmt.Sprintf("sources[%d]", i)
		switch {
		case s.Name == "":
			bad(at, "the source has no name")
		case names[s.Name]:
			bad(at+".name", "two sources are named %q", s.Name)
		}
		names[s.Name] = true
		if kinds := count(s.LDAP != nil, s.SCIM != nil, s.CSV != nil); kinds != 1 {
			bad(at, "give exactly one of ldap, scim and csv (%d given)", kinds)
		}
		switch s.Credentials {
		case "", CredentialsUnassign, CredentialsKeep, CredentialsSuspend:
		default:
			bad(at+".credentials", "%q: want %s, %s or %s", s.Credentials, CredentialsUnassign, CredentialsKeep, CredentialsSuspend)
		}
		if s.Guard != nil && s.Guard.MaxDeactivateShare > 100 {
			bad(at+".guard.max_deactivate_share", "a share is at most 100 (per cent)")
		}
		if l := s.LDAP; l != nil {
			at := at + ".ldap"
			if l.URL == "" {
				bad(at, "no url")
			}
			if l.BaseDN == "" {
				bad(at, "no base_dn")
			}
			n := count(l.PasswordFile != "", l.PasswordEnv != "")
			switch {
			case l.BindDN != "" && n != 1:
				bad(at, "a bind_dn needs its password from exactly one of password_file and password_env")
			case l.BindDN == "" && n != 0:
				bad(at, "a password without a bind_dn: give the bind_dn")
			}
			if l.PageSize < 0 || l.Timeout < 0 {
				bad(at, "page_size and timeout must not be negative")
			}
		}
		if cs := s.CSV; cs != nil {
			if cs.Path == "" {
				bad(at+".csv", "no path")
			}
			if utf8.RuneCountInString(cs.Delimiter) > 1 {
				bad(at+".csv.delimiter", "the delimiter %q is not one character", cs.Delimiter)
			}
			if cs.Poll < 0 {
				bad(at+".csv.poll", "must not be negative")
			}
		}
		if sc := s.SCIM; sc != nil {
			scims++
			at := at + ".scim"
			if sc.Store == "" {
				bad(at, "no store: the file the pushes are kept in")
			}
			switch scim.KeyAttribute(sc.Key) {
			case "", scim.KeyEmployeeNumber, scim.KeyExternalID, scim.KeyUserName:
			default:
				bad(at+".key", "%q: want employeeNumber, externalId or userName", sc.Key)
			}
			if count(sc.TokenFile != "", sc.TokenEnv != "") != 1 {
				bad(at, "the bearer token comes from exactly one of token_file and token_env")
			}
			if sc.MaxBodyBytes < 0 {
				bad(at+".max_body_bytes", "must not be negative")
			}
			if scims > 1 {
				bad(at, "a second scim source: one listener serves one store")
			}
		}
	}
	return probs
}

func count(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// Path returns p read from the configuration's directory when relative.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || c.dir == "" {
		return p
	}
	return filepath.Join(c.dir, p)
}

// Options returns the reconcile options of s.
func (s *Source) Options() *dirsync.ReconcileOptions {
	o := &dirsync.ReconcileOptions{
		Groups:             s.Groups,
		Scope:              s.Scope,
		KeepCredentials:    s.Credentials == CredentialsKeep,
		SuspendTouchPasses: s.Credentials == CredentialsSuspend,
		DeleteUsers:        s.DeleteUsers,
	}
	if s.Guard != nil {
		o.MaxDeactivate, o.MaxDeactivateShare = s.Guard.MaxDeactivate, s.Guard.MaxDeactivateShare
	}
	return o
}

// SCIMSource returns the configuration's SCIM source, nil when it has
// none.
func (c *Config) SCIMSource() *Source {
	for i := range c.Sources {
		if c.Sources[i].SCIM != nil {
			return &c.Sources[i]
		}
	}
	return nil
}

// SCIMToken reads the SCIM source's bearer token from its file or
// variable, with getenv (os.Getenv when nil). The error never holds the
// token.
func (c *Config) SCIMToken(getenv func(string) string) (string, error) {
	s := c.SCIMSource()
	if s == nil {
		return "", fmt.Errorf("%w: no scim source", dirsync.ErrConfig)
	}
	if s.SCIM.TokenFile != "" {
		return scim.TokenFromFile(c.Path(s.SCIM.TokenFile))
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := getenv(s.SCIM.TokenEnv); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("%w: source %s: the environment variable %s of the bearer token is unset or empty", dirsync.ErrConfig, s.Name, s.SCIM.TokenEnv)
}

// Opened are the sources of a configuration, opened: the runner's sources
// with their options, and the SCIM store (nil without a SCIM source),
// which holds a lock until Close.
type Opened struct {
	Sources []dirsync.RunnerSource
	Store   *scim.Store
	// CSV are the HR files: a long-running sync runs each one's Watch, so
	// that a change is applied at once.
	CSV []*dirsync.CSVSource
}

// Close closes the SCIM store, if any.
func (o *Opened) Close() error {
	if o == nil || o.Store == nil {
		return nil
	}
	return o.Store.Close()
}

// Open opens every source: it checks the LDAP sources (connecting to
// nothing) and opens the SCIM store (refused with scim.ErrLocked when
// another process holds it). An error matches dirsync.ErrConfig, or is
// the store's.
func (c *Config) Open() (*Opened, error) {
	o := &Opened{}
	for i := range c.Sources {
		s := &c.Sources[i]
		var src dirsync.Source
		switch {
		case s.LDAP != nil:
			l := s.LDAP
			ls, err := dirsync.NewLDAPSource(dirsync.LDAPConfig{
				Name: s.Name, URL: l.URL, StartTLS: l.StartTLS, AllowPlaintext: l.AllowPlaintext,
				CAFile: c.Path(l.CAFile), PinSHA256: l.PinSHA256, ServerName: l.ServerName,
				BindDN: l.BindDN, PasswordFile: c.Path(l.PasswordFile), PasswordEnv: l.PasswordEnv,
				BaseDN: l.BaseDN, Filter: l.Filter, GroupBaseDN: l.GroupBaseDN, GroupFilter: l.GroupFilter,
				PageSize: l.PageSize, InactiveValues: l.InactiveValues, Timeout: l.Timeout,
				Attributes: dirsync.LDAPAttributes(l.Attributes),
			})
			if err != nil {
				o.Close()
				return nil, err
			}
			src = ls
		case s.CSV != nil:
			var delim rune
			if s.CSV.Delimiter != "" {
				delim, _ = utf8.DecodeRuneInString(s.CSV.Delimiter)
			}
			cs, err := dirsync.NewCSVSource(c.Path(s.CSV.Path), &dirsync.CSVOptions{Name: s.Name,
				CSV:                 site.CSVOptions{Delimiter: delim, Columns: s.CSV.Columns},
				AllowNoFinalNewline: s.CSV.AllowNoFinalNewline, Poll: s.CSV.Poll})
			if err != nil {
				o.Close()
				return nil, err
			}
			o.CSV, src = append(o.CSV, cs), cs
		case s.SCIM != nil:
			st, err := scim.Open(c.Path(s.SCIM.Store), scim.Options{Name: s.Name, Key: scim.KeyAttribute(s.SCIM.Key)})
			if err != nil {
				o.Close()
				return nil, fmt.Errorf("source %s: %w", s.Name, err)
			}
			o.Store, src = st, st
		}
		o.Sources = append(o.Sources, dirsync.RunnerSource{Source: src, Options: s.Options()})
	}
	return o, nil
}

// JSONSchema returns the JSON Schema (draft 2020-12) of the configuration
// file, generated from the Go types as site's is.
func JSONSchema() ([]byte, error) {
	return site.JSONSchemaFor(Config{}, SchemaID, "access sync configuration", map[string]map[string]any{
		"Source": {"oneOf": []any{
			map[string]any{"required": []string{"ldap"}},
			map[string]any{"required": []string{"scim"}},
			map[string]any{"required": []string{"csv"}},
		}},
		"Source.name":                {"minLength": 1},
		"Source.credentials":         {"enum": []string{CredentialsUnassign, CredentialsKeep, CredentialsSuspend}},
		"Guard.max_deactivate_share": {"maximum": 100},
		"SCIM.key":                   {"enum": []string{string(scim.KeyEmployeeNumber), string(scim.KeyExternalID), string(scim.KeyUserName)}},
		"SCIM.store":                 {"minLength": 1},
		"CSV.path":                   {"minLength": 1},
		"CSV.delimiter":              {"minLength": 1, "maxLength": 1},
		"CSV.columns": {"propertyNames": map[string]any{"enum": site.CSVColumns},
			"additionalProperties": map[string]any{"type": "string", "minLength": 1}},
		"LDAP.url":       {"pattern": "^ldaps?://"},
		"LDAP.base_dn":   {"minLength": 1},
		"Config.sources": {"minItems": 1},
	})
}
