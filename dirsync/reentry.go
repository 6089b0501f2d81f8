package dirsync

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// leaver is a deactivation in force, as the evidence log records it.
type leaver struct {
	key, name, source string
	revoked           time.Time
}

// noteLeaver keeps the deactivations in force (by console user id) and
// the re-entries flagged. The caller holds l.mu (or owns l).
func (l *EvidenceLog) noteLeaver(r *Record) {
	switch {
	case r.Action == ActionReentry && r.UserID != "" && r.Opened != nil:
		l.flagged[reentryKey(r.UserID, *r.Opened)] = true
	case r.Status != "done":
	case (r.Action == ActionDeactivate || r.Action == ActionDelete) && r.UserID != "" && r.Acknowledged != nil:
		l.leavers[r.UserID] = leaver{key: r.Key, name: r.Name, source: r.Source, revoked: *r.Acknowledged}
	case r.Action == ActionReactivate:
		for id, lv := range l.leavers {
			if lv.key == r.Key {
				delete(l.leavers, id)
			}
		}
	}
}

// reentryKey identifies one door opening of one user.
func reentryKey(userID string, at time.Time) string {
	return userID + "|" + strconv.FormatInt(at.UnixMilli(), 10)
}

// Opening is a door opened for a console user, as a system-log entry
// records it.
type Opening struct {
	// UserID and Name are the user's (the entry's actor).
	UserID, Name string
	// DoorID and Door are the door's id and name (the entry's target of
	// type "door").
	DoorID, Door string
	// At is when it opened.
	At time.Time
	// Via is how: the credential provider (NFC, PIN_CODE, MOBILE_TAP…).
	Via string
}

// OpeningOf reads a door opening from a system-log entry — one of
// [access.SystemLogsService.List] or the data of the notifications
// stream's access.logs.add ([access.Notification.LogsAdd]) — as package
// monitor recognises the grant of its inactive_credential incident: a
// grant (event access.door.unlock, result ACCESS or a message "Access
// Granted…", and no refusal) to an actor of type "user" at a door. ok is
// false for any other entry.
func OpeningOf(e *access.SystemLog) (o Opening, ok bool) {
	if e == nil {
		return Opening{}, false
	}
	src := &e.Source
	ev := &src.Event
	switch {
	case strings.HasPrefix(ev.DisplayMessage, "Access Denied"), strings.EqualFold(ev.Result, "BLOCKED"), strings.EqualFold(ev.Result, "DENIED"):
		return Opening{}, false
	case ev.Type == string(access.EventDoorUnlock), strings.EqualFold(ev.Result, "ACCESS"), strings.HasPrefix(ev.DisplayMessage, "Access Granted"):
	default:
		return Opening{}, false
	}
	door, found := e.Door()
	if src.Actor.Type != "user" || src.Actor.ID == "" || !found || door.ID == "" {
		return Opening{}, false
	}
	at := e.Time()
	if at.IsZero() {
		return Opening{}, false
	}
	return Opening{UserID: src.Actor.ID, Name: src.Actor.DisplayName, DoorID: door.ID, Door: firstNonEmpty(door.DisplayName, door.ID),
		At: at.UTC(), Via: src.Authentication.CredentialProvider}, true
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// FlagReentries flags each leaver who opened a door after the console
// acknowledged their deactivation: for every entry that is a door opening
// ([OpeningOf]) of a console user whose deactivation (or deletion) the log
// holds as done, with the user's id, and not undone by a reactivation
// since, and that happened after its acknowledgement, it appends a record
// of action [ActionReentry] and status "flagged" (who, the revocation's
// acknowledgement, the opening's time, door and credential provider;
// Observed is now) and returns the records appended. An opening already
// flagged — in this log, before a restart too — is not flagged again, so
// that the same entries may be given twice. Entries of other users, and
// openings at or before the acknowledgement, are ignored. [Summarize]
// lists the records as [Summary].Reentries.
//
// Records written before the log held user ids (an older version) cannot
// be matched to a system-log entry and are not flagged.
func (l *EvidenceLog) FlagReentries(entries []access.SystemLog, now time.Time) ([]Record, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []Record{}
	for i := range entries {
		o, ok := OpeningOf(&entries[i])
		if !ok {
			continue
		}
		lv, ok := l.leavers[o.UserID]
		if !ok || !o.At.After(lv.revoked) || l.flagged[reentryKey(o.UserID, o.At)] {
			continue
		}
		revoked, opened := lv.revoked, o.At
		r := Record{Source: lv.source, Key: lv.key, Name: firstNonEmpty(lv.name, o.Name), UserID: o.UserID, Action: ActionReentry,
			Status: "flagged", Observed: now.UTC(), Revoked: &revoked, Opened: &opened, Door: o.Door, Via: o.Via}
		if err := l.append(&r); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// RevokedSince returns the earliest acknowledgement of a deactivation in
// force that the log holds (the zero time when it holds none): the
// system log need not be read before it for [EvidenceLog.FlagReentries].
func (l *EvidenceLog) RevokedSince() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	var first time.Time
	for _, lv := range l.leavers {
		if first.IsZero() || lv.revoked.Before(first) {
			first = lv.revoked
		}
	}
	return first
}

// CheckReentries reads the console's door openings (system-log topic
// door_openings) from the later of since and [EvidenceLog.RevokedSince]
// to now, and flags with [EvidenceLog.FlagReentries] the leavers who
// opened a door after their revocation. It sends no request when the log
// holds no deactivation in force. The system log is the console's
// record, so an opening is flagged once the console has logged it, even
// when the reader decided from its offline cache.
func CheckReentries(ctx context.Context, c *access.Client, l *EvidenceLog, since time.Time) ([]Record, error) {
	if c == nil || l == nil {
		return nil, fmt.Errorf("dirsync: CheckReentries: nil client or log")
	}
	first := l.RevokedSince()
	if first.IsZero() {
		return []Record{}, nil
	}
	if since.Before(first) {
		since = first
	}
	q := &access.SystemLogQuery{Topic: access.SystemLogTopicDoorOpenings, Since: since.Truncate(time.Second)}
	var entries []access.SystemLog
	for e, err := range c.SystemLogs.All(ctx, q) {
		if err != nil {
			return nil, fmt.Errorf("dirsync: reading the console's door openings: %w", err)
		}
		entries = append(entries, e)
	}
	return l.FlagReentries(entries, time.Now())
}
