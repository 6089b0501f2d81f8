package dirsync

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	ber "github.com/go-asn1-ber/asn1-ber"
	"github.com/go-ldap/ldap/v3"
)

// Defaults of an [LDAPConfig].
const (
	// DefaultLDAPFilter selects the entries read when Filter is empty.
	DefaultLDAPFilter = "(objectClass=person)"
	// DefaultLDAPGroupFilter selects the group entries when GroupFilter
	// is empty: OpenLDAP's groupOfNames, Active Directory's group.
	DefaultLDAPGroupFilter = "(|(objectClass=groupOfNames)(objectClass=group))"
	// DefaultLDAPPageSize is the page size when PageSize is 0: below
	// Active Directory's MaxPageSize of 1,000.
	DefaultLDAPPageSize = 500
	// DefaultLDAPTimeout bounds the dial and each request when Timeout is 0.
	DefaultLDAPTimeout = 30 * time.Second
)

// LDAPConfig configures an LDAP or Active Directory source.
type LDAPConfig struct {
	// Name names the source; "ldap" when empty.
	Name string
	// URL is the directory's address: ldaps://host[:636] or
	// ldap://host[:389] with StartTLS (or AllowPlaintext).
	URL string
	// StartTLS upgrades an ldap:// connection to TLS before the bind.
	StartTLS bool
	// AllowPlaintext allows ldap:// without StartTLS: the bind password
	// then crosses the network in clear. For tests and loopback only.
	AllowPlaintext bool
	// CAFile is a PEM file of the certificate authorities that sign the
	// directory's certificate; the system's when empty.
	CAFile string
	// PinSHA256 is the SHA-256 fingerprint of the directory's own
	// certificate, in hex (colons allowed). With a pin and no CAFile the
	// certificate need not chain to an authority but must be that one;
	// with both it must be both.
	PinSHA256 string
	// ServerName is the name the certificate must carry; the URL's host
	// when empty.
	ServerName string

	// BindDN is the account the source binds as (for Active Directory
	// also user@domain); anonymous when empty.
	BindDN string
	// Password, PasswordFile and PasswordEnv give the bind password:
	// exactly one of them when BindDN is set. A file or variable is read
	// again at each Read, so that a rotated password is picked up.
	Password     Secret
	PasswordFile string
	PasswordEnv  string

	// BaseDN is where the search starts (the whole subtree is read).
	BaseDN string
	// Filter selects the people; DefaultLDAPFilter when empty. For Active
	// Directory "(&(objectCategory=person)(objectClass=user))".
	Filter string
	// GroupBaseDN, if set, is where group entries are read (for
	// directories without memberOf): a person is a member of each group
	// whose Attributes.Member lists their DN, besides their memberOf.
	GroupBaseDN string
	// GroupFilter selects the group entries; DefaultLDAPGroupFilter when
	// empty.
	GroupFilter string
	// PageSize is the number of entries per page of the paged results
	// (RFC 2696); DefaultLDAPPageSize when 0.
	PageSize int
	// Attributes maps a person's fields to attributes.
	Attributes LDAPAttributes
	// InactiveValues are the values of Attributes.Status (compared
	// without case) that make a person inactive.
	InactiveValues []string
	// Timeout bounds the dial and each request; DefaultLDAPTimeout when 0.
	Timeout time.Duration
}

// LDAPAttributes names the attributes a person's fields are read from.
// An empty name takes the default given with each field.
type LDAPAttributes struct {
	// EmployeeNumber is the person's key: "employeeNumber". An entry
	// without it is skipped.
	EmployeeNumber string
	// FirstName: "givenName".
	FirstName string
	// LastName: "sn".
	LastName string
	// Email: "mail".
	Email string
	// Groups holds the DNs of the person's groups: "memberOf". A group's
	// name is the value of its DN's first RDN.
	Groups string
	// AccountControl is Active Directory's userAccountControl: a person
	// with bit 2 (ACCOUNTDISABLE) set is inactive. "userAccountControl".
	AccountControl string
	// Status, if set, is an attribute whose InactiveValues make a person
	// inactive (for directories without userAccountControl). No default.
	Status string
	// Modified is the entry's time of change: "modifyTimestamp".
	Modified string
	// Member lists a group entry's members' DNs: "member".
	Member string
	// GroupName is a group entry's name: "cn" (the DN's first RDN when
	// the entry has none).
	GroupName string
}

func (a LDAPAttributes) withDefaults() LDAPAttributes {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&a.EmployeeNumber, "employeeNumber")
	def(&a.FirstName, "givenName")
	def(&a.LastName, "sn")
	def(&a.Email, "mail")
	def(&a.Groups, "memberOf")
	def(&a.AccountControl, "userAccountControl")
	def(&a.Modified, "modifyTimestamp")
	def(&a.Member, "member")
	def(&a.GroupName, "cn")
	return a
}

func (a LDAPAttributes) list() []string {
	var l []string
	for _, s := range []string{a.EmployeeNumber, a.FirstName, a.LastName, a.Email, a.Groups, a.AccountControl, a.Status, a.Modified} {
		if s != "" && !slices.ContainsFunc(l, func(x string) bool { return strings.EqualFold(x, s) }) {
			l = append(l, s)
		}
	}
	return l
}

// LDAPSource is a [Source] that reads an LDAP directory or Active
// Directory. Make one with [NewLDAPSource].
type LDAPSource struct {
	cfg      LDAPConfig
	attrs    LDAPAttributes
	addr     string // host:port
	ldaps    bool
	tls      *tls.Config
	pageSize uint32

	afterPage func(page int) // tests: called after each page read
}

var _ Source = (*LDAPSource)(nil)

// NewLDAPSource checks cfg and returns its source. It connects to
// nothing; an error matches [ErrConfig].
func NewLDAPSource(cfg LDAPConfig) (*LDAPSource, error) {
	if cfg.Name == "" {
		cfg.Name = "ldap"
	}
	bad := func(format string, a ...any) (*LDAPSource, error) {
		return nil, fmt.Errorf("%w: source %s: %s", ErrConfig, cfg.Name, fmt.Sprintf(format, a...))
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
		return bad("url %q: want ldaps://host[:port] or ldap://host[:port]", cfg.URL)
	}
	s := &LDAPSource{cfg: cfg, attrs: cfg.Attributes.withDefaults()}
	port := u.Port()
	switch u.Scheme {
	case "ldaps":
		s.ldaps = true
		if cfg.StartTLS {
			return bad("StartTLS is for ldap:// URLs; ldaps:// is TLS from the start")
		}
		if port == "" {
			port = "636"
		}
	case "ldap":
		if !cfg.StartTLS && !cfg.AllowPlaintext {
			return bad("ldap:// without StartTLS sends the password in clear: use ldaps://, StartTLS, or AllowPlaintext for a test")
		}
		if port == "" {
			port = "389"
		}
	default:
		return bad("url %q: the scheme must be ldaps or ldap", cfg.URL)
	}
	s.addr = net.JoinHostPort(u.Hostname(), port)
	if s.ldaps || cfg.StartTLS {
		if s.tls, err = cfg.tlsConfig(u.Hostname()); err != nil {
			return bad("%v", err)
		}
	} else if cfg.CAFile != "" || cfg.PinSHA256 != "" || cfg.ServerName != "" {
		return bad("a CA file, a pin or a server name needs TLS (ldaps:// or StartTLS)")
	}

	n := 0
	for _, set := range []bool{!cfg.Password.IsZero(), cfg.PasswordFile != "", cfg.PasswordEnv != ""} {
		if set {
			n++
		}
	}
	switch {
	case cfg.BindDN == "" && n > 0:
		return bad("a password without a bind DN")
	case cfg.BindDN != "" && n != 1:
		return bad("bind DN %q needs exactly one of a password, a password file and a password variable (got %d)", cfg.BindDN, n)
	}
	if _, err := s.password(); err != nil {
		return nil, err
	}

	if cfg.BaseDN == "" {
		return bad("no base DN")
	}
	if _, err := ldap.ParseDN(cfg.BaseDN); err != nil {
		return bad("base DN %q: %v", cfg.BaseDN, err)
	}
	if cfg.GroupBaseDN != "" {
		if _, err := ldap.ParseDN(cfg.GroupBaseDN); err != nil {
			return bad("group base DN %q: %v", cfg.GroupBaseDN, err)
		}
		if s.cfg.GroupFilter == "" {
			s.cfg.GroupFilter = DefaultLDAPGroupFilter
		}
		if _, err := ldap.CompileFilter(s.cfg.GroupFilter); err != nil {
			return bad("group filter %q: %v", s.cfg.GroupFilter, err)
		}
	} else if cfg.GroupFilter != "" {
		return bad("a group filter without a group base DN")
	}
	if s.cfg.Filter == "" {
		s.cfg.Filter = DefaultLDAPFilter
	}
	if _, err := ldap.CompileFilter(s.cfg.Filter); err != nil {
		return bad("filter %q: %v", s.cfg.Filter, err)
	}
	switch {
	case cfg.PageSize < 0 || cfg.PageSize > 1<<20:
		return bad("page size %d: want 1 to %d, or 0 for %d", cfg.PageSize, 1<<20, DefaultLDAPPageSize)
	case cfg.PageSize == 0:
		s.pageSize = DefaultLDAPPageSize
	default:
		s.pageSize = uint32(cfg.PageSize)
	}
	if cfg.Timeout < 0 {
		return bad("negative timeout")
	}
	if s.cfg.Timeout == 0 {
		s.cfg.Timeout = DefaultLDAPTimeout
	}
	if len(cfg.InactiveValues) > 0 && cfg.Attributes.Status == "" {
		return bad("inactive values without a status attribute")
	}
	return s, nil
}

// tlsConfig makes the TLS configuration: the CA file's pool (or the
// system's), the pin checked on the leaf certificate.
func (c LDAPConfig) tlsConfig(host string) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host}
	if c.ServerName != "" {
		tc.ServerName = c.ServerName
	}
	if c.CAFile != "" {
		b, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", c.CAFile)
		}
		tc.RootCAs = pool
	}
	if c.PinSHA256 != "" {
		pin, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(c.PinSHA256), ":", ""))
		if err != nil || len(pin) != sha256.Size {
			return nil, errors.New("pin: want the certificate's SHA-256 fingerprint, 64 hex digits (colons allowed)")
		}
		// Without a CA file the pin replaces the chain's verification;
		// with one it is checked as well.
		tc.InsecureSkipVerify = c.CAFile == ""
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the server sent no certificate")
			}
			got := sha256.Sum256(cs.PeerCertificates[0].Raw)
			if subtle.ConstantTimeCompare(got[:], pin) != 1 {
				return fmt.Errorf("the server's certificate (SHA-256 %x) is not the pinned one", got)
			}
			return nil
		}
	}
	return tc, nil
}

// password returns the bind password, reading the file or variable.
func (s *LDAPSource) password() (Secret, error) {
	var (
		p   Secret
		err error
	)
	switch {
	case s.cfg.PasswordFile != "":
		p, err = SecretFromFile(s.cfg.PasswordFile)
	case s.cfg.PasswordEnv != "":
		p, err = SecretFromEnv(s.cfg.PasswordEnv)
	default:
		p = s.cfg.Password
	}
	if err != nil {
		return Secret{}, fmt.Errorf("source %s: %w", s.cfg.Name, err)
	}
	return p, nil
}

// Name returns the source's name.
func (s *LDAPSource) Name() string { return s.cfg.Name }

// Read binds and reads every entry under the base DN that the filter
// selects, page by page. Referrals (Active Directory's other partitions)
// are not followed. On error the snapshot has Complete false, no People
// and no Skipped: only its counters and times.
func (s *LDAPSource) Read(ctx context.Context) (*Snapshot, error) {
	snap := &Snapshot{Source: s.cfg.Name, Started: time.Now()}
	err := s.read(ctx, snap)
	snap.Finished = time.Now()
	if err != nil {
		snap.People, snap.Skipped = nil, nil
		snap.Complete = false
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w: source %s: %w (%v)", ErrIncomplete, s.cfg.Name, ctx.Err(), err)
		}
		return snap, err
	}
	snap.Complete = true
	return snap, nil
}

func (s *LDAPSource) read(ctx context.Context, snap *Snapshot) error {
	name := s.cfg.Name
	pw, err := s.password()
	if err != nil {
		return err
	}
	conn, err := s.dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// The context's end closes the connection: a request waiting on it
	// then fails at once.
	defer context.AfterFunc(ctx, func() { _ = conn.Close() })()
	conn.SetTimeout(s.cfg.Timeout)

	if s.cfg.StartTLS {
		if err := conn.StartTLS(s.tls); err != nil {
			return fmt.Errorf("%w: source %s: StartTLS with %s: %v", ErrTLS, name, s.addr, err)
		}
	}
	if s.cfg.BindDN != "" {
		if err := conn.Bind(s.cfg.BindDN, pw.reveal()); err != nil {
			if ldap.IsErrorWithCode(err, ldap.LDAPResultInvalidCredentials) {
				return fmt.Errorf("%w: source %s: bind as %q", ErrInvalidCredentials, name, s.cfg.BindDN)
			}
			return fmt.Errorf("%w: source %s: bind as %q: %v", ErrUnavailable, name, s.cfg.BindDN, err)
		}
	}

	seen := map[string]string{} // key -> DN
	var dups []string
	err = s.search(ctx, conn, snap, s.cfg.BaseDN, s.cfg.Filter, s.attrs.list(), func(e *ldap.Entry) error {
		snap.Entries++
		p, skip := s.person(e)
		if skip != nil {
			snap.Skipped = append(snap.Skipped, *skip)
			return nil
		}
		if dn, ok := seen[p.Key]; ok {
			if len(dups) < 5 {
				dups = append(dups, fmt.Sprintf("%q (%s and %s)", p.Key, dn, p.SourceID))
			}
			return nil
		}
		seen[p.Key] = p.SourceID
		snap.People = append(snap.People, p)
		return nil
	})
	if err != nil {
		return err
	}
	if s.cfg.GroupBaseDN != "" && len(snap.People) > 0 {
		if err := s.groupEntries(ctx, conn, snap); err != nil {
			return err
		}
	}
	if ctx.Err() != nil { // the last page raced the context's end
		return fmt.Errorf("%w: source %s: %w", ErrIncomplete, name, ctx.Err())
	}
	if len(dups) > 0 {
		return fmt.Errorf("%w: source %s: employee number %s", ErrDuplicateKey, name, strings.Join(dups, ", "))
	}
	if len(snap.People) == 0 {
		return fmt.Errorf("%w: source %s: %d entries under %q match %s, %d of them skipped",
			ErrEmpty, name, snap.Entries, s.cfg.BaseDN, s.cfg.Filter, len(snap.Skipped))
	}
	slices.SortFunc(snap.People, func(a, b Person) int { return strings.Compare(a.Key, b.Key) })
	return nil
}

// search reads every entry of a paged search, page by page, and gives
// each to fn; any page's failure is the search's.
func (s *LDAPSource) search(ctx context.Context, conn *ldap.Conn, snap *Snapshot, base, filter string, attrs []string, fn func(*ldap.Entry) error) error {
	paging := ldap.NewControlPaging(s.pageSize)
	req := ldap.NewSearchRequest(base, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases,
		0, 0, false, filter, attrs, []ldap.Control{paging})
	entries := 0
	for {
		res, err := conn.Search(req)
		if err != nil {
			return s.searchError(ctx, snap, base, entries, err)
		}
		snap.Pages++
		entries += len(res.Entries)
		for _, e := range res.Entries {
			if err := fn(e); err != nil {
				return err
			}
		}
		if s.afterPage != nil {
			s.afterPage(snap.Pages)
		}
		// No paging control in the answer: the server does not page, and
		// its answer was whole (a size limit would have been an error).
		c, _ := ldap.FindControl(res.Controls, ldap.ControlTypePaging).(*ldap.ControlPaging)
		if c == nil || len(c.Cookie) == 0 {
			return nil
		}
		paging.SetCookie(c.Cookie)
	}
}

// groupEntries reads the group entries under GroupBaseDN and adds each
// group's name to its members' Groups.
func (s *LDAPSource) groupEntries(ctx context.Context, conn *ldap.Conn, snap *Snapshot) error {
	byDN := make(map[string]*Person, len(snap.People))
	for i := range snap.People {
		byDN[normalDN(snap.People[i].SourceID)] = &snap.People[i]
	}
	a := s.attrs
	err := s.search(ctx, conn, snap, s.cfg.GroupBaseDN, s.cfg.GroupFilter, []string{a.GroupName, a.Member}, func(e *ldap.Entry) error {
		if r := rangedAttribute(e, a.Member); r != "" {
			return fmt.Errorf("%w: source %s: group %s answers its %s in ranges (%s), which this source does not read: use memberOf",
				ErrIncomplete, s.cfg.Name, e.DN, a.Member, r)
		}
		name := strings.TrimSpace(e.GetAttributeValue(a.GroupName))
		if name == "" {
			name = groupName(e.DN)
		}
		for _, m := range e.GetAttributeValues(a.Member) {
			if p := byDN[normalDN(m)]; p != nil && !slices.Contains(p.Groups, name) {
				p.Groups = append(p.Groups, name)
			}
		}
		return nil
	})
	for i := range snap.People {
		slices.Sort(snap.People[i].Groups)
	}
	return err
}

// rangedAttribute returns the name of the entry's ranged value of attr
// ("member;range=0-1499"), or "". Active Directory answers a group of
// more than 1,500 members in ranges: reading the first range only would
// drop members without a word.
func rangedAttribute(e *ldap.Entry, attr string) string {
	for _, a := range e.Attributes {
		if strings.HasPrefix(strings.ToLower(a.Name), strings.ToLower(attr)+";range=") {
			return a.Name
		}
	}
	return ""
}

// normalDN is a DN's form for comparison: parsed, and lower case.
func normalDN(dn string) string {
	if d, err := ldap.ParseDN(dn); err == nil {
		dn = d.String()
	}
	return strings.ToLower(dn)
}

// dial connects, with the TLS handshake for ldaps://, bounded by the
// context and the timeout.
func (s *LDAPSource) dial(ctx context.Context) (*ldap.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(dctx, "tcp", s.addr)
	if err != nil {
		return nil, fmt.Errorf("%w: source %s: %w", ErrUnavailable, s.cfg.Name, err)
	}
	if !s.ldaps {
		return startConn(c, false), nil
	}
	tc := tls.Client(c, s.tls)
	if err := tc.HandshakeContext(dctx); err != nil {
		_ = c.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w: source %s: %w", ErrIncomplete, s.cfg.Name, ctx.Err())
		}
		return nil, fmt.Errorf("%w: source %s: %s: %w", ErrTLS, s.cfg.Name, s.addr, err)
	}
	return startConn(tc, true), nil
}

func startConn(c net.Conn, isTLS bool) *ldap.Conn {
	conn := ldap.NewConn(c, isTLS)
	conn.Start()
	return conn
}

// searchError turns a failed page into an error: everything but a
// missing base DN is an incomplete read.
func (s *LDAPSource) searchError(ctx context.Context, snap *Snapshot, base string, entries int, err error) error {
	name := s.cfg.Name
	if ctx.Err() != nil {
		return fmt.Errorf("%w: source %s: %w after %d entries under %q", ErrIncomplete, name, ctx.Err(), entries, base)
	}
	switch {
	case ldap.IsErrorWithCode(err, ldap.LDAPResultNoSuchObject) && base == s.cfg.BaseDN:
		return fmt.Errorf("%w: source %s: base DN %q does not exist: %v", ErrEmpty, name, base, err)
	case ldap.IsErrorWithCode(err, ldap.LDAPResultSizeLimitExceeded):
		return fmt.Errorf("%w: source %s: the directory's size limit stopped the read after %d entries under %q (page size %d above its limit?): %v",
			ErrIncomplete, name, entries, base, s.pageSize, err)
	case ldap.IsErrorWithCode(err, ldap.LDAPResultAdminLimitExceeded):
		return fmt.Errorf("%w: source %s: the directory refuses page size %d (lower PageSize; Active Directory's limit is 1000): %v",
			ErrIncomplete, name, s.pageSize, err)
	}
	return fmt.Errorf("%w: source %s: page %d after %d entries under %q: %v", ErrIncomplete, name, snap.Pages+1, entries, base, err)
}

// person maps an entry to a person, or says why it is skipped.
func (s *LDAPSource) person(e *ldap.Entry) (Person, *Skipped) {
	a := s.attrs
	key := strings.TrimSpace(e.GetAttributeValue(a.EmployeeNumber))
	if key == "" {
		return Person{}, &Skipped{SourceID: e.DN, Reason: "no " + a.EmployeeNumber}
	}
	p := Person{
		Key:       key,
		FirstName: strings.TrimSpace(e.GetAttributeValue(a.FirstName)),
		LastName:  strings.TrimSpace(e.GetAttributeValue(a.LastName)),
		Email:     strings.TrimSpace(e.GetAttributeValue(a.Email)),
		Active:    true,
		SourceID:  e.DN,
	}
	for _, g := range e.GetAttributeValues(a.Groups) {
		p.Groups = append(p.Groups, groupName(g))
	}
	slices.Sort(p.Groups)
	p.Groups = slices.Compact(p.Groups)
	if v := e.GetAttributeValue(a.Modified); v != "" {
		if t, err := ber.ParseGeneralizedTime([]byte(v)); err == nil {
			p.Modified = t.UTC()
		}
	}
	var reasons []string
	if v := strings.TrimSpace(e.GetAttributeValue(a.AccountControl)); v != "" {
		// Active Directory writes it signed or unsigned 32-bit.
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			// A status that cannot be read does not open doors.
			reasons = append(reasons, fmt.Sprintf("%s %q is not a number", a.AccountControl, v))
		case n&2 != 0:
			reasons = append(reasons, fmt.Sprintf("%s %s has ACCOUNTDISABLE (2) set", a.AccountControl, v))
		}
	}
	if a.Status != "" {
		for _, v := range e.GetAttributeValues(a.Status) {
			if slices.ContainsFunc(s.cfg.InactiveValues, func(x string) bool { return strings.EqualFold(x, strings.TrimSpace(v)) }) {
				reasons = append(reasons, fmt.Sprintf("%s is %q", a.Status, v))
			}
		}
	}
	if len(reasons) > 0 {
		p.Active = false
		p.InactiveReason = strings.Join(reasons, "; ")
	}
	return p, nil
}

// groupName is the value of a group DN's first RDN ("Night shift" for
// cn=Night shift,ou=groups,dc=example,dc=com); the DN itself when it does
// not parse.
func groupName(dn string) string {
	d, err := ldap.ParseDN(dn)
	if err != nil || len(d.RDNs) == 0 || len(d.RDNs[0].Attributes) == 0 {
		return dn
	}
	return d.RDNs[0].Attributes[0].Value
}
