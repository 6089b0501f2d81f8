package dirsync

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/access-dev/access/internal/filelock"
)

// The actions of an evidence [Record].
const (
	ActionCreate            = "create"
	ActionUpdate            = "update"
	ActionReactivate        = "reactivate"
	ActionDeactivate        = "deactivate"
	ActionDelete            = "delete"
	ActionRevokeCredentials = "revoke_credentials"
	// ActionReentry flags a leaver who opened a door after the console
	// acknowledged their deactivation (a record of status "flagged").
	ActionReentry = "reentry"
)

// Record is one line of the evidence log: one change to one console
// user, as the console acknowledged it (or as it failed).
type Record struct {
	// Source is the directory the change came from.
	Source string `json:"source"`
	// Key and Name are who: the employee number (or email) and full name.
	Key  string `json:"key"`
	Name string `json:"name,omitempty"`
	// UserID is the console user's id, for a leaver's records
	// (deactivate, delete, revoke_credentials, reentry): what a
	// system-log entry names them by.
	UserID string `json:"user_id,omitempty"`
	// Action is what: create, update, reactivate, deactivate, delete or
	// revoke_credentials.
	Action string `json:"action"`
	// Fields are the user's members changed (site's field names).
	Fields []string `json:"fields,omitempty"`
	// Status is "done", "failed" or "skipped" ("flagged" for a
	// re-entry); Error says why.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// FoundDone marks a deactivation the console had made when the sync
	// looked but whose answer was lost (the process killed between the
	// console's write and its answer): Acknowledged is when it was found
	// done, so LatencySeconds is an upper bound. See [Plan.Unrecorded].
	FoundDone bool `json:"found_done,omitempty"`
	// SourceChanged is the source's time of the change (LDAP
	// modifyTimestamp, a SCIM request's arrival), when it says.
	SourceChanged *time.Time `json:"source_changed,omitempty"`
	// Observed is when the read that saw the change finished.
	Observed time.Time `json:"observed"`
	// Acknowledged is when the console answered the change (for
	// revoke_credentials, the last unassignment); nil when it failed.
	Acknowledged *time.Time `json:"acknowledged,omitempty"`
	// LatencySeconds is Acknowledged less SourceChanged, or less Observed
	// when the source gives no time (a person removed from the directory).
	LatencySeconds float64 `json:"latency_seconds,omitempty"`
	// Credentials are those unassigned (revoke_credentials, delete).
	Credentials []Credential `json:"credentials,omitempty"`
	// Reissue are the credentials taken from a re-enabled person earlier,
	// to be issued again (reactivate).
	Reissue []Credential `json:"reissue,omitempty"`
	// Revoked, Opened, Door and Via are a re-entry's: the console's
	// acknowledgement of the person's deactivation, when a door opened
	// for them after it, which door, and how (the system log's credential
	// provider: NFC, PIN_CODE, …).
	Revoked *time.Time `json:"revoked,omitempty"`
	Opened  *time.Time `json:"opened,omitempty"`
	Door    string     `json:"door,omitempty"`
	Via     string     `json:"via,omitempty"`
}

func (r *Record) setLatency() {
	from := r.Observed
	if r.SourceChanged != nil {
		from = *r.SourceChanged
	}
	if r.Acknowledged == nil || from.IsZero() {
		return
	}
	r.LatencySeconds = math.Round(r.Acknowledged.Sub(from).Seconds()*1000) / 1000
}

// Latency is the record's latency as a duration.
func (r *Record) Latency() time.Duration {
	return time.Duration(math.Round(r.LatencySeconds * float64(time.Second)))
}

// EvidenceLog is an append-only file of [Record]s, one JSON line each.
// Each line is written whole with one write and synced to the disk before
// [EvidenceLog.Append] returns, so a record returned is a record kept. A
// line cut short by a crash is set apart by a newline when the log is
// opened again, and skipped (and counted) by [ReadEvidence].
type EvidenceLog struct {
	mu      sync.Mutex
	f       *os.File
	lock    *filelock.Lock
	revoked map[string][]Credential // key -> credentials revoked and not yet re-issued
	leavers map[string]leaver       // console user id -> deactivation in force
	flagged map[string]bool         // reentryKey of the re-entries flagged
	// start is when the log began: its earliest record's Observed, or,
	// for a log without records, the file's modification time at open.
	start time.Time
}

// ErrEvidenceLocked is matched by the error of [OpenEvidence] when the
// log is open for writing elsewhere (another access sync on the same
// configuration, or another open in this process).
var ErrEvidenceLocked = filelock.ErrLocked

// OpenEvidence opens (or creates, mode 0600) the evidence log at path for
// appending, and reads what it holds to know the credentials taken from
// each person. It holds the exclusive lock of path+".lock" until
// [EvidenceLog.Close], so that two writers never append from two views of
// who was revoked; a second opener gets an error matching
// [ErrEvidenceLocked].
func OpenEvidence(path string) (l *EvidenceLog, err error) {
	lock, err := filelock.TryLock(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("dirsync: evidence log: %w", err)
	}
	defer func() {
		if err != nil {
			lock.Unlock()
		}
	}()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("dirsync: evidence log: %w", err)
	}
	l = &EvidenceLog{f: f, lock: lock, revoked: map[string][]Credential{}, leavers: map[string]leaver{}, flagged: map[string]bool{}}
	ev, err := ReadEvidence(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	for _, r := range ev.Records {
		l.note(&r)
		if !r.Observed.IsZero() && (l.start.IsZero() || r.Observed.Before(l.start)) {
			l.start = r.Observed
		}
	}
	if l.start.IsZero() {
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("dirsync: evidence log: %w", err)
		}
		l.start = fi.ModTime()
	}
	if ev.Torn {
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, fmt.Errorf("dirsync: evidence log: %w", err)
		}
	}
	return l, nil
}

// note keeps what a record says of a person's credentials.
func (l *EvidenceLog) note(r *Record) {
	l.noteLeaver(r)
	if r.Status != "done" && r.Action != ActionRevokeCredentials {
		return
	}
	switch r.Action {
	case ActionRevokeCredentials, ActionDelete:
		l.revoked[r.Key] = append(l.revoked[r.Key], r.Credentials...)
	case ActionReactivate:
		delete(l.revoked, r.Key)
	}
}

// Append writes r as one line and syncs the file.
func (l *EvidenceLog) Append(r *Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.append(r)
}

// append is Append with l.mu held.
func (l *EvidenceLog) append(r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("dirsync: evidence log: %w", err)
	}
	b = append(b, '\n')
	if l.f == nil {
		return fmt.Errorf("dirsync: evidence log: %w", os.ErrClosed)
	}
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("dirsync: evidence log: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("dirsync: evidence log: %w", err)
	}
	l.note(r)
	return nil
}

// Revoked returns the credentials the log records as taken from the
// person with key and not yet re-issued (by a reactivation record).
func (l *EvidenceLog) Revoked(key string) []Credential {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.revoked[key])
}

// records reports whether a deactivation of console user id, which the
// source dates at changed (zero: no date), is to be recorded as found
// done: the log holds no deactivation (or deletion) of theirs in force,
// and the source does not date the change before the log began.
func (l *EvidenceLog) records(id string, changed time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.leavers[id]; ok || id == "" {
		return false
	}
	return changed.IsZero() || !changed.Before(l.start)
}

// Close closes the file.
func (l *EvidenceLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	l.lock.Unlock()
	return err
}

// Evidence is what [ReadEvidence] read.
type Evidence struct {
	Records []Record
	// Damaged are the numbers (from 1) of the lines that are not records:
	// a write cut short by a crash, set apart by a newline on the next
	// open.
	Damaged []int
	// Torn is true when the last line has no newline (a write cut short).
	Torn bool
}

// ReadEvidence reads an evidence log from its start.
func ReadEvidence(r io.Reader) (*Evidence, error) {
	if s, ok := r.(io.Seeker); ok {
		if _, err := s.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("dirsync: evidence log: %w", err)
		}
	}
	ev := &Evidence{Records: []Record{}}
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			complete := line[len(line)-1] == '\n'
			if !complete {
				ev.Torn = true
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				var rec Record
				if json.Unmarshal(t, &rec) != nil || rec.Action == "" {
					ev.Damaged = append(ev.Damaged, n)
				} else {
					ev.Records = append(ev.Records, rec)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return ev, nil
		}
		if err != nil {
			return nil, fmt.Errorf("dirsync: evidence log: %w", err)
		}
	}
}

// ReadEvidenceFile reads the evidence log at path.
func ReadEvidenceFile(path string) (*Evidence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dirsync: evidence log: %w", err)
	}
	defer f.Close()
	return ReadEvidence(f)
}

// Leaver is one person deactivated (or deleted), with how long it took.
type Leaver struct {
	Key          string        `json:"key"`
	Name         string        `json:"name"`
	Source       string        `json:"source"`
	Acknowledged time.Time     `json:"acknowledged"`
	Latency      time.Duration `json:"latency"`
	// Credentials counts the credentials taken from them.
	Credentials int `json:"credentials"`
}

// Summary summarises an evidence log's leavers since a time, for a
// report: their number, their revocation latencies' percentiles and the
// slowest by name.
type Summary struct {
	Since time.Time `json:"since"`
	// Leavers counts the deactivations (and deletions) acknowledged.
	Leavers int `json:"leavers"`
	// Reactivated counts the people given their status back.
	Reactivated int `json:"reactivated"`
	// CredentialsRevoked counts the credentials unassigned.
	CredentialsRevoked int `json:"credentials_revoked"`
	// Failed counts the records of failed changes.
	Failed int `json:"failed"`
	// P50, P95, P99 and Max are the leavers' latencies (nearest rank;
	// nanoseconds in JSON).
	P50 time.Duration `json:"p50"`
	P95 time.Duration `json:"p95"`
	P99 time.Duration `json:"p99"`
	Max time.Duration `json:"max"`
	// Slowest are the slowest leavers, slowest first.
	Slowest []Leaver `json:"slowest"`
	// Reentries are the leavers flagged for opening a door after their
	// revocation, in the order of the log.
	Reentries []Reentry `json:"reentries"`
}

// Reentry is a leaver who opened a door after the console acknowledged
// their deactivation (a reader's offline cache honouring a revoked card).
type Reentry struct {
	Key    string `json:"key"`
	Name   string `json:"name"`
	Source string `json:"source"`
	// Revoked is the console's acknowledgement of the deactivation.
	Revoked time.Time `json:"revoked"`
	// Opened is when the door opened for them; Door names it.
	Opened time.Time `json:"opened"`
	Door   string    `json:"door,omitempty"`
}

// Summarize summarises the records acknowledged (or failed) at or after
// since, with at most slowest leavers named.
func Summarize(records []Record, since time.Time, slowest int) Summary {
	s := Summary{Since: since, Slowest: []Leaver{}, Reentries: []Reentry{}}
	var leavers []Leaver
	creds := map[string]int{}
	for i := range records {
		r := &records[i]
		t := r.Observed
		if r.Acknowledged != nil {
			t = *r.Acknowledged
		}
		if r.Action == ActionReentry {
			if r.Opened != nil {
				t = *r.Opened
			}
			if !t.Before(since) {
				e := Reentry{Key: r.Key, Name: r.Name, Source: r.Source, Opened: t, Door: r.Door}
				if r.Revoked != nil {
					e.Revoked = *r.Revoked
				}
				s.Reentries = append(s.Reentries, e)
			}
			continue
		}
		if t.Before(since) {
			continue
		}
		if r.Status != "done" {
			s.Failed++
		}
		s.CredentialsRevoked += len(r.Credentials)
		creds[r.Key] += len(r.Credentials)
		if r.Status != "done" {
			continue
		}
		switch r.Action {
		case ActionDeactivate, ActionDelete:
			leavers = append(leavers, Leaver{Key: r.Key, Name: r.Name, Source: r.Source, Acknowledged: t, Latency: r.Latency()})
		case ActionReactivate:
			s.Reactivated++
		}
	}
	s.Leavers = len(leavers)
	if len(leavers) == 0 {
		return s
	}
	for i := range leavers {
		leavers[i].Credentials = creds[leavers[i].Key]
	}
	slices.SortStableFunc(leavers, func(a, b Leaver) int {
		switch {
		case a.Latency > b.Latency:
			return -1
		case a.Latency < b.Latency:
			return 1
		}
		return 0
	})
	asc := make([]time.Duration, len(leavers))
	for i, l := range leavers {
		asc[len(leavers)-1-i] = l.Latency
	}
	s.P50, s.P95, s.P99, s.Max = rank(asc, 50), rank(asc, 95), rank(asc, 99), asc[len(asc)-1]
	s.Slowest = leavers[:min(slowest, len(leavers))]
	return s
}

// rank is the nearest-rank percentile of sorted d.
func rank(d []time.Duration, pct float64) time.Duration {
	i := int(math.Ceil(pct/100*float64(len(d)))) - 1
	return d[max(i, 0)]
}
