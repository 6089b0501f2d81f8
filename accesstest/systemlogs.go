package accesstest

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
)

// ViewSystemLog is the permission key of the system-log operations.
const ViewSystemLog Permission = "view:system_log"

// The system-log operations.
const (
	OpSystemLogsList           Op = "SystemLogs.List"
	OpSystemLogsExport         Op = "SystemLogs.Export"
	OpSystemLogsGetResource    Op = "SystemLogs.GetResource"
	OpSystemLogsDownloadStatic Op = "SystemLogs.DownloadStatic"
)

// SystemLogEntry is one entry of the fake's system log: the entry as the
// API returns it and its topic.
type SystemLogEntry struct {
	Topic access.SystemLogTopic
	access.SystemLog
}

type staticFile struct {
	contentType string
	data        []byte
}

// logState is the system log, the media its entries refer to, the static
// files and the API server's certificate.
type logState struct {
	log       logStore // retention.go: in time order, bounded, indexed
	resources map[string]access.SystemLogResource
	static    map[string]staticFile
	cert      *APICertificate
}

// The topics of the fake's state changes (see [Server.SystemLogs]).
func topicOf(e access.EventType) access.SystemLogTopic {
	switch e {
	case access.EventDoorUnlock, access.EventUnlockScheduleActivate, access.EventUnlockScheduleDeactivate:
		return access.SystemLogTopicDoorOpenings
	case access.EventDeviceEmergencyStatus:
		return access.SystemLogTopicCritical
	case access.EventTemporaryUnlockStart, access.EventTemporaryUnlockEnd:
		return access.SystemLogTopicAdminActivity
	case access.EventVisitorStatusChanged:
		return access.SystemLogTopicVisitor
	case "": // users, groups, policies, schedules: changes without an event
		return access.SystemLogTopicAdminActivity
	}
	return access.SystemLogTopicDeviceEvents // doorbells, door position
}

// apiActor is the actor of a change an API call made without naming one.
func apiActor() access.SystemLogActor {
	return access.SystemLogActor{Type: "open_api", DisplayName: APIActorName}
}

var systemActor = access.SystemLogActor{Type: "system", DisplayName: "System"}

// logEntryOf builds the system-log entry of a state change. The caller
// holds s.mu.
func (s *Server) logEntryOf(c change, at time.Time) SystemLogEntry {
	e := access.SystemLog{
		ID:        s.newID(),
		Timestamp: access.DateTime(at.UTC().Format("2006-01-02T15:04:05.000Z")),
		Tag:       "access",
		Source: access.SystemLogSource{
			Event:  access.SystemLogEvent{Type: string(c.Event), Published: access.UnixMilliOf(at), LogKey: "dashboard." + string(c.Event)},
			Target: []access.SystemLogTarget{},
		},
	}
	src := &e.Source
	switch {
	case c.Actor != nil:
		src.Actor = access.SystemLogActor{ID: c.Actor.ID, Type: c.Actor.Type, DisplayName: c.Actor.Name}
	case c.AtSite:
		src.Actor = systemActor
	case c.ByAPI || c.Event == "" || c.Event == access.EventTemporaryUnlockStart || c.Event == access.EventDeviceEmergencyStatus || c.Event == access.EventDoorbellIncoming:
		src.Actor = apiActor() // only API calls cause these in the fake
	default:
		src.Actor = systemActor // timers: relocks, rule ends, unanswered rings
	}
	if c.Device != nil {
		typ := c.Device.DeviceType
		if typ == "" {
			typ = "device"
		}
		src.Target = append(src.Target, access.SystemLogTarget{Type: typ, ID: c.Device.ID, DisplayName: c.Device.Name})
	}
	if c.Location != nil {
		src.Target = append(src.Target, access.SystemLogTarget{Type: c.Location.LocationType, ID: c.Location.ID, DisplayName: c.Location.Name})
	}
	ev := &src.Event
	switch o := c.Object.(type) {
	case access.DoorUnlockObject:
		ev.DisplayMessage, ev.Result = "Access Granted (Remote)", "ACCESS"
		if o.AuthenticationType != "API" {
			ev.DisplayMessage = "Access Granted (" + o.AuthenticationType + ")"
		}
		ev.LogKey = "dashboard.access.door.unlock.success"
		src.Authentication.CredentialProvider = o.AuthenticationType
		if c.Actor != nil && c.Actor.Type == "open_api" {
			id, _ := json.Marshal(struct {
				ActorID   string          `json:"actor_id"`
				ActorName string          `json:"actor_name"`
				Extra     json.RawMessage `json:"extra"`
			}{c.Actor.ID, c.Actor.Name, o.Extra})
			src.Target = append(src.Target, access.SystemLogTarget{Type: "unlock_source", ID: string(id), DisplayName: c.Actor.Name})
		}
	case temporaryObject:
		if c.Event == access.EventTemporaryUnlockStart {
			ev.DisplayMessage = "Temporary unlock started (" + string(o.LockRule) + ")"
		} else {
			ev.DisplayMessage = "Temporary unlock ended (" + string(o.LockRule) + ")"
		}
	case access.EmergencyStatusObject:
		state := "ended"
		if o.Value {
			state = "started"
		}
		ev.DisplayMessage = strings.ToUpper(o.Mode[:1]) + o.Mode[1:] + " " + state
	case access.DPSStatusObject:
		ev.DisplayMessage = "Door " + map[string]string{"open": "opened", "close": "closed"}[o.Status]
	case access.DoorbellObject:
		if c.Event == access.EventDoorbellIncoming {
			ev.DisplayMessage = "Doorbell rang"
		} else {
			ev.DisplayMessage = "Doorbell call ended (" + access.RemoteViewReason(o.ReasonCode).String() + ")"
			ev.Reason = strconv.Itoa(o.ReasonCode)
		}
	default:
		ev.DisplayMessage = string(c.Event)
	}
	if c.Event == "" { // an administrative change without a webhook event
		ev.Type, ev.DisplayMessage, ev.LogKey = "access.admin.activity", c.Log, "dashboard.admin_activity"
	}
	topic := topicOf(c.Event)
	if c.LogTopic != "" {
		topic = c.LogTopic
	}
	return SystemLogEntry{Topic: topic, SystemLog: e}
}

// ---- seeding and inspection ----

// SystemLogs returns the system log, oldest entry first (by Published
// time; at the same time, in the order they were added): an entry for
// every state change of the fake (see the package documentation for the
// topics, actors and targets) and those added with [Server.AddSystemLog],
// as many as [Retention] keeps.
func (s *Server) SystemLogs() []SystemLogEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runDue()
	return clone(s.logs.log.all())
}

// AddSystemLog appends entries to the system log, as a console's history
// would hold them; they are not sent to WebSocket subscribers. An empty
// ID gets a UUID, an empty Topic is [access.SystemLogTopicDeviceEvents], a
// zero Published time the fake's current time. Entries are listed newest
// first by their Published time.
func (s *Server) AddSystemLog(entries ...SystemLogEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	batch := make([]SystemLogEntry, 0, len(entries))
	for _, e := range entries {
		e = clone(e)
		if e.ID == "" {
			e.ID = s.newID()
		}
		if e.Topic == "" {
			e.Topic = access.SystemLogTopicDeviceEvents
		}
		if e.Source.Event.Published == 0 {
			e.Source.Event.Published = access.UnixMilliOf(s.clockNow())
		}
		if e.Timestamp == "" {
			e.Timestamp = access.DateTime(e.Source.Event.Published.Time().Format("2006-01-02T15:04:05.000Z"))
		}
		batch = append(batch, e)
	}
	s.logs.log.add(s.clockNow(), batch...)
}

// AddSystemLogResource stores the media of a system-log entry, served by
// SystemLogs.GetResource under id (the id of the entry's
// activities_resource target).
func (s *Server) AddSystemLogResource(id string, r access.SystemLogResource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	if s.logs.resources == nil {
		s.logs.resources = map[string]access.SystemLogResource{}
	}
	s.logs.resources[id] = r
}

// AddStaticFile stores a file served by SystemLogs.DownloadStatic at
// path, e.g. "avatar/u1.png" or "/activities_resource/video/v1.mp4" (a
// leading "/" or "/system/static/" is dropped).
func (s *Server) AddStaticFile(path, contentType string, data []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mu.touch()
	if s.logs.static == nil {
		s.logs.static = map[string]staticFile{}
	}
	s.logs.static[staticKey(path)] = staticFile{contentType: contentType, data: slices.Clone(data)}
}

func staticKey(p string) string {
	p = strings.TrimPrefix(p, "/")
	return strings.TrimPrefix(p, "system/static/")
}

// ---- handlers ----

var knownTopics = access.SystemLogTopics()

// logFilter is the body of a fetch or an export.
type logFilter struct {
	Topic    access.SystemLogTopic `json:"topic"`
	Since    *json.Number          `json:"since"`
	Until    *json.Number          `json:"until"`
	Timezone *string               `json:"timezone"`
	ActorID  string                `json:"actor_id"`
	since    time.Time
	until    time.Time
}

// readFilter decodes and checks the body; it answers and returns false on
// bad input.
func readFilter(w http.ResponseWriter, r *http.Request, export bool) (*logFilter, bool) {
	var f logFilter
	if err := decodeBody(r, &f); err != nil {
		badParams(w, "Body must be an object with topic, since, until and actor_id.")
		return nil, false
	}
	if !slices.Contains(knownTopics, f.Topic) {
		badParams(w, "topic must be one of all, door_openings, critical, updates, device_events, admin_activity, visitor.")
		return nil, false
	}
	for _, b := range []struct {
		n *json.Number
		t *time.Time
	}{{f.Since, &f.since}, {f.Until, &f.until}} {
		if b.n == nil {
			continue
		}
		v, err := b.n.Int64()
		if err != nil || v < 0 {
			badParams(w, "since and until are Unix times in seconds.")
			return nil, false
		}
		*b.t = time.Unix(v, 0)
	}
	if !f.since.IsZero() && !f.until.IsZero() && f.until.Before(f.since) {
		badParams(w, "until is before since.")
		return nil, false
	}
	if export {
		if f.Since == nil || f.Until == nil {
			badParams(w, "since and until are required.")
			return nil, false
		}
		if f.Timezone == nil || *f.Timezone == "" || *f.Timezone == "Local" {
			badParams(w, "timezone is required.")
			return nil, false
		}
		loc, err := time.LoadLocation(*f.Timezone)
		if err != nil {
			badParams(w, "timezone is not a known IANA time zone.")
			return nil, false
		}
		if f.until.After(oneMonthAfter(f.since.In(loc))) {
			badParams(w, "The time range cannot exceed one month.")
			return nil, false
		}
	}
	return &f, true
}

// selected returns the matching entries (listed newest first; at the
// same time, the one added last first) from the store's indexes, without
// a walk of the log: since and until are whole seconds, until's second
// included. The caller holds s.mu and must not change the log while it
// uses the span.
func (s *Server) selected(f *logFilter) logSpan {
	s.logs.log.trim(s.clockNow())
	since, until := int64(math.MinInt64), int64(math.MaxInt64)
	if !f.since.IsZero() {
		since = f.since.UnixMilli()
	}
	if !f.until.IsZero() {
		until = f.until.UnixMilli() + 999
	}
	return s.logs.log.match(f.Topic, f.ActorID, since, until)
}

func (s *Server) listSystemLogs(w http.ResponseWriter, r *http.Request) {
	num, size, ok := pageParams(w, r)
	if !ok {
		return
	}
	f, ok := readFilter(w, r, false)
	if !ok {
		return
	}
	s.mu.Lock()
	s.runDue()
	all := s.selected(f)
	hits := []logWire{}
	if num-1 <= all.n/size { // (num-1)*size cannot overflow
		for _, e := range all.newest((num-1)*size, size) {
			hits = append(hits, logView(e.SystemLog))
		}
	}
	b, err := json.Marshal(envelope{Code: access.CodeSuccess, Msg: "success", Data: map[string]any{"hits": hits, "page": num, "total": all.n}})
	s.mu.Unlock()
	if err != nil {
		writeError(w, http.StatusInternalServerError, access.CodeSystemError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// csvHeader is the first line of an export.
var csvHeader = []string{"Time", "Topic", "Event", "Message", "Result", "Actor", "Actor Type", "Authentication", "Door", "Device"}

func (s *Server) exportSystemLogs(w http.ResponseWriter, r *http.Request) {
	f, ok := readFilter(w, r, true)
	if !ok {
		return
	}
	loc, _ := time.LoadLocation(*f.Timezone)
	s.mu.Lock()
	s.runDue()
	var rows [][]string
	all := s.selected(f)
	for _, e := range all.newest(0, all.n) {
		var door, dev string
		for _, t := range e.Source.Target {
			switch {
			case t.Type == "door":
				door = t.DisplayName
			case t.Type != "unlock_source" && t.Type != "device_config" && t.Type != "activities_resource" && dev == "":
				dev = t.DisplayName
			}
		}
		src := &e.Source
		rows = append(rows, []string{e.Source.Event.Published.Time().In(loc).Format("2006-01-02 15:04:05"), string(e.Topic),
			src.Event.Type, src.Event.DisplayMessage, src.Event.Result, src.Actor.DisplayName, src.Actor.Type,
			src.Authentication.CredentialProvider, door, dev})
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="system_logs.csv"`)
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	_ = cw.WriteAll(rows)
}

func (s *Server) getSystemLogResource(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	res, ok := s.logs.resources[r.PathValue("id")]
	s.mu.Unlock()
	if !ok {
		resourceNotFound(w)
		return
	}
	writeData(w, res)
}

func (s *Server) downloadStatic(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	f, ok := s.logs.static[r.PathValue("path")]
	s.mu.Unlock()
	if !ok {
		resourceNotFound(w)
		return
	}
	ct := f.contentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", fmt.Sprint(len(f.data)))
	_, _ = w.Write(f.data)
}

// oneMonthAfter is the same day of the next month, or its last day when
// the next month is shorter (the export limit, as the SDK checks it).
func oneMonthAfter(t time.Time) time.Time {
	y, m, d := t.Date()
	last := time.Date(y, m+2, 0, 0, 0, 0, 0, t.Location()).Day()
	return time.Date(y, m+1, min(d, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), t.Location())
}
