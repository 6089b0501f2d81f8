package access

import (
	"context"
	"encoding/json"
	"io"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// SystemLogsService fetches and exports the system logs (the console's
// activity log: who opened which door and how, emergencies, device and
// admin events) and the media they refer to. Get it from
// [Client.SystemLogs].
type SystemLogsService service

// SystemLogTopic selects a category of system-log entries (the topic
// reference table, §9.1).
type SystemLogTopic string

// The system-log topics. The vendor's topic table lists all seven; the
// request enum of §9.2 and §9.3 omits [SystemLogTopicAll]. The SDK sends
// it all the same, because the table documents it and it is the only way
// to ask for every entry at once: a console that refuses it answers
// CODE_PARAMS_INVALID ([ErrInvalidParams]); then ask topic by topic.
const (
	SystemLogTopicAll           SystemLogTopic = "all"
	SystemLogTopicDoorOpenings  SystemLogTopic = "door_openings"
	SystemLogTopicCritical      SystemLogTopic = "critical"
	SystemLogTopicUpdates       SystemLogTopic = "updates"
	SystemLogTopicDeviceEvents  SystemLogTopic = "device_events"
	SystemLogTopicAdminActivity SystemLogTopic = "admin_activity"
	SystemLogTopicVisitor       SystemLogTopic = "visitor"
)

// SystemLogTopics returns every topic of the vendor's table, all first.
func SystemLogTopics() []SystemLogTopic {
	return []SystemLogTopic{SystemLogTopicAll, SystemLogTopicDoorOpenings, SystemLogTopicCritical, SystemLogTopicUpdates,
		SystemLogTopicDeviceEvents, SystemLogTopicAdminActivity, SystemLogTopicVisitor}
}

// SystemLogQuery selects and pages system-log entries for
// [SystemLogsService.List] and [SystemLogsService.All]. The filter travels
// in the JSON body, the paging in the query string.
type SystemLogQuery struct {
	// Topic is required (body "topic"); see [SystemLogTopicAll].
	Topic SystemLogTopic
	// Since and Until bound the entries' time (body "since" and "until",
	// Unix seconds); the zero time leaves a bound out.
	Since, Until time.Time
	// ActorID keeps the entries of one actor: the identity id of a user,
	// a visitor or a device (body "actor_id").
	ActorID string
	// PageNum is the 1-based page number (query "page_num"); zero leaves
	// it to the console.
	PageNum int
	// PageSize is the number of entries per page (query "page_size");
	// zero leaves it to the console.
	PageSize int
}

// systemLogFilter is the JSON body of a fetch or an export.
type systemLogFilter struct {
	Topic    SystemLogTopic `json:"topic"`
	Since    *int64         `json:"since,omitempty"`
	Until    *int64         `json:"until,omitempty"`
	Timezone string         `json:"timezone,omitempty"`
	ActorID  string         `json:"actor_id,omitempty"`
}

func unixOrNil(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	v := t.Unix()
	return &v
}

func checkTopic(op string, t SystemLogTopic) error {
	switch {
	case t == "":
		return invalidArg(op, "Topic", "is required (SystemLogTopicAll for every entry)")
	case strings.TrimSpace(string(t)) != string(t) || strings.ContainsAny(string(t), " \t\r\n"):
		return invalidArg(op, "Topic", "must not contain spaces")
	}
	return nil
}

func (q *SystemLogQuery) validate(op string) error {
	switch {
	case q == nil:
		return invalidArg(op, "req", "must not be nil")
	case q.PageNum < 0:
		return invalidArg(op, "PageNum", "must not be negative")
	case q.PageSize < 0:
		return invalidArg(op, "PageSize", "must not be negative")
	case !q.Since.IsZero() && !q.Until.IsZero() && q.Until.Before(q.Since):
		return invalidArg(op, "Until", "must not be before Since")
	}
	return checkTopic(op, q.Topic)
}

func (q *SystemLogQuery) filter() *systemLogFilter {
	return &systemLogFilter{Topic: q.Topic, Since: unixOrNil(q.Since), Until: unixOrNil(q.Until), ActorID: q.ActorID}
}

func (q *SystemLogQuery) paging() url.Values {
	v := url.Values{}
	if q.PageNum > 0 {
		v["page_num"] = []string{strconv.Itoa(q.PageNum)}
	}
	if q.PageSize > 0 {
		v["page_size"] = []string{strconv.Itoa(q.PageSize)}
	}
	return v
}

// systemLogPage is the data of a fetch: the entries and, inside data
// rather than in a pagination member, the page and the total. It is
// decoded leniently (see lenientData): a member of an unexpected JSON type
// (an id sent as a number, an object where a string was expected) is left
// zero and the rest of the page is kept, rather than failing it.
type systemLogPage struct {
	Hits  []SystemLog `json:"hits"`
	Page  looseInt    `json:"page"`
	Total looseInt    `json:"total"`
}

func (systemLogPage) lenientData() {}

// looseInt reads a number, a numeric string or null; anything else is 0.
type looseInt int

// UnmarshalJSON implements json.Unmarshaler.
func (n *looseInt) UnmarshalJSON(b []byte) error {
	*n = 0
	s := strings.Trim(string(b), `"`)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		*n = looseInt(v)
	}
	return nil
}

// List fetches one page of system-log entries, newest first as the console
// sorts them. The console returns the page number and the total inside
// data rather than in a pagination member; List copies them into
// resp.Pagination (with PageSize set to the size asked for) so that
// callers read them where every other list puts them. Consoles are known
// to report the total loosely (some send the page size): to read every
// entry, use [SystemLogsService.All].
//
// Although a POST, the fetch only reads: it is retried like a GET.
//
// Permission view:system_log.
//
// API: POST /api/v1/developer/system/logs?page_num=..&page_size=..  (permission view:system_log)
func (s *SystemLogsService) List(ctx context.Context, req *SystemLogQuery) ([]SystemLog, *Response, error) {
	const op = "SystemLogs.List"
	if err := req.validate(op); err != nil {
		return nil, nil, err
	}
	p, resp, err := call[systemLogPage](retrySafe(ctx), s.client, "POST", "/system/logs", req.paging(), req.filter(), false)
	if err != nil {
		return nil, resp, err
	}
	resp.Pagination = &Pagination{PageSize: req.PageSize}
	if p == nil || p.Hits == nil {
		return []SystemLog{}, resp, nil
	}
	resp.Pagination.PageNum, resp.Pagination.Total = int(p.Page), int(p.Total)
	return p.Hits, resp, nil
}

// All iterates over every entry that req selects, fetching pages lazily
// through the SDK's one pager, from req.PageNum (or 1) with req.PageSize
// entries a page (or [DefaultPageSize]). req is copied, never modified.
//
// The console's total is unreliable on this endpoint (some report the page
// size), so All never stops because of it: it stops after an empty page,
// or after a short page at a size the console served whole before. A
// console that caps page_size is followed at the size it serves, from the
// first page on or, when req.PageNum is later, from the page that holds
// the first wanted entry, so no entry is lost or yielded out of turn. A
// console that
// ignores page_num ends the loop with [ErrPageRepeated] rather than
// looping forever (entries without an _id, as in the vendor's sample, are
// compared by time, event and actor). The first error is yielded with a zero SystemLog and
// ends the loop.
//
//	q := &access.SystemLogQuery{Topic: access.SystemLogTopicDoorOpenings, Since: time.Now().Add(-24 * time.Hour)}
//	for e, err := range client.SystemLogs.All(ctx, q) {
//		if err != nil { return err }
//		fmt.Println(e.Source.Actor.DisplayName, e.Source.Event.DisplayMessage)
//	}
//
// API: POST /api/v1/developer/system/logs  (permission view:system_log)
func (s *SystemLogsService) All(ctx context.Context, req *SystemLogQuery) iter.Seq2[SystemLog, error] {
	if err := req.validate("SystemLogs.All"); err != nil {
		return func(yield func(SystemLog, error) bool) { yield(SystemLog{}, err) }
	}
	q := *req
	return paginate(ctx, q.PageNum, q.PageSize, logKey,
		func(ctx context.Context, num, size int) (page[SystemLog], error) {
			q.PageNum, q.PageSize = num, size
			// The total is not passed on: consoles echo the page size in it.
			items, _, err := s.List(ctx, &q)
			return page[SystemLog]{items: items}, err
		})
}

// logKey identifies an entry for the pager's repeated-page check. The
// vendor's own sample has an empty _id, so an entry without one is known
// by its time, event and actor instead.
func logKey(e *SystemLog) string {
	if e.ID != "" {
		return e.ID
	}
	src := &e.Source
	return string(e.Timestamp) + "|" + strconv.FormatInt(int64(src.Event.Published), 10) + "|" + src.Event.Type + "|" +
		src.Actor.ID + "|" + src.Actor.DisplayName + "|" + src.Event.DisplayMessage
}

// exportLimit is the latest end of an export from since: one calendar
// month later, counted in the request's time zone, on the same day of the
// month or, when the next month is shorter, on its last day (from January
// 31, February 28 or 29, not March 3 as time.AddDate would normalise it).
func exportLimit(since time.Time, loc *time.Location) time.Time {
	t := since.In(loc)
	y, m, d := t.Date()
	last := time.Date(y, m+2, 0, 0, 0, 0, 0, loc).Day() // days in the next month
	return time.Date(y, m+1, min(d, last), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
}

// SystemLogExportRequest selects the entries of a CSV export.
type SystemLogExportRequest struct {
	// Topic is required (body "topic").
	Topic SystemLogTopic
	// Since and Until are required (body "since" and "until", Unix
	// seconds); the range may not exceed one month, so export longer
	// periods month by month.
	Since, Until time.Time
	// Timezone is required: the IANA name (e.g. "Europe/Zurich") in which
	// the console writes the CSV's times (body "timezone"). It must load
	// with time.LoadLocation on this machine (import time/tzdata on
	// systems without a zone database).
	Timezone string
	// ActorID keeps the entries of one actor (body "actor_id").
	ActorID string
}

func (r *SystemLogExportRequest) validate(op string) error {
	if r == nil {
		return invalidArg(op, "req", "must not be nil")
	}
	if err := checkTopic(op, r.Topic); err != nil {
		return err
	}
	switch {
	case r.Since.IsZero():
		return invalidArg(op, "Since", "is required")
	case r.Until.IsZero():
		return invalidArg(op, "Until", "is required")
	case r.Until.Before(r.Since):
		return invalidArg(op, "Until", "must not be before Since")
	case strings.TrimSpace(r.Timezone) == "":
		return invalidArg(op, "Timezone", "is required (an IANA name such as Europe/Zurich)")
	case r.Timezone == "Local":
		return invalidArg(op, "Timezone", `must be an IANA name, not "Local"`)
	}
	loc, err := time.LoadLocation(r.Timezone)
	if err != nil {
		return invalidArg(op, "Timezone", "is not a time zone this machine knows: "+err.Error())
	}
	if r.Until.After(exportLimit(r.Since, loc)) {
		return invalidArg(op, "Until", "the range must not exceed one month")
	}
	return nil
}

// Export streams the CSV export of the entries req selects into w, as the
// console writes it, without holding it in memory: memory stays flat
// whatever the size. resp.Header carries the console's Content-Type.
//
// Before sending, it rejects with a [*ValidationError] a nil request, a
// missing topic, a missing Since or Until, Until before Since, a range of
// more than one month (calendar month in req.Timezone) and a missing or
// unknown time zone.
//
// The export only reads, so a failure before the first byte reached w is
// retried like a GET; once bytes went to w the call ends with a
// [*RequestError] (the writer cannot take them back): discard what w got.
// An error answer is an [*APIError].
//
// The per-attempt timeout ([WithTimeout], 30 s by default) bounds only the
// wait for the answer and each silence within it, never the whole transfer:
// a long download runs as long as bytes flow, bounded by ctx alone.
//
// Access 1.20.11 or later.
//
// API: POST /api/v1/developer/system/logs/export  (permission view:system_log)
func (s *SystemLogsService) Export(ctx context.Context, req *SystemLogExportRequest, w io.Writer) (*Response, error) {
	const op = "SystemLogs.Export"
	if err := req.validate(op); err != nil {
		return nil, err
	}
	if w == nil {
		return nil, invalidArg(op, "w", "must not be nil")
	}
	body := &systemLogFilter{Topic: req.Topic, Since: unixOrNil(req.Since), Until: unixOrNil(req.Until),
		Timezone: req.Timezone, ActorID: req.ActorID}
	return download(retrySafe(ctx), s.client, "POST", "/system/logs/export", nil, body, w)
}

// SystemLogResource is the media of a system-log entry (§9.4): paths to
// fetch with [SystemLogsService.DownloadStatic].
type SystemLogResource struct {
	// VideoRecord is the clip's path, e.g.
	// "/activities_resource/video/....mp4".
	VideoRecord string `json:"video_record"`
	// VideoRecordThumbnail is the thumbnail's path.
	VideoRecordThumbnail string   `json:"video_record_thumbnail"`
	CreatedAt            DateTime `json:"created_at"`
	UpdatedAt            DateTime `json:"updated_at"`
}

// GetResource fetches the media paths of a system-log entry. id is the id
// of the entry's target of type "activities_resource" (see
// [SystemLog.Target]).
//
// Access 1.24.6 or later.
//
// API: GET /api/v1/developer/system/logs/resource/:id  (permission view:system_log)
func (s *SystemLogsService) GetResource(ctx context.Context, id string) (*SystemLogResource, *Response, error) {
	if err := checkID("SystemLogs.GetResource", "id", id); err != nil {
		return nil, nil, err
	}
	return call[SystemLogResource](ctx, s.client, "GET", "/system/logs/resource/"+pathSeg(id), nil, nil, true)
}

// staticPrefixes are the folders the console serves under /system/static.
var staticPrefixes = [][]string{{"avatar"}, {"preview"}, {"activities_resource", "video"}, {"activities_resource", "thumbnail"}}

// staticPath checks a static resource's path and returns it escaped,
// segment by segment, under /system/static.
func staticPath(op, p string) (string, error) {
	const field = "path"
	switch {
	case strings.HasPrefix(p, "/system/static/"):
		p = strings.TrimPrefix(p, "/system/static/")
	case strings.HasPrefix(p, "system/static/"):
		p = strings.TrimPrefix(p, "system/static/")
	case strings.HasPrefix(p, "/"):
		p = p[1:]
	}
	if p == "" {
		return "", invalidArg(op, field, "must not be empty")
	}
	if strings.ContainsRune(p, '\\') {
		return "", invalidArg(op, field, "must not contain a backslash")
	}
	segs := strings.Split(p, "/")
	var b strings.Builder
	b.WriteString("/system/static")
	for _, seg := range segs {
		if seg == "" {
			return "", invalidArg(op, field, "must not have empty segments")
		}
		dec, err := url.PathUnescape(seg)
		if err != nil {
			dec = seg
		}
		if dec == "." || dec == ".." || strings.ContainsAny(dec, `/\`) || strings.ContainsFunc(dec, isControl) {
			return "", invalidArg(op, field, "must not traverse or hide separators (.., encoded dots or slashes, control characters)")
		}
		b.WriteByte('/')
		b.WriteString(pathSeg(seg))
	}
	for _, pre := range staticPrefixes {
		if len(segs) > len(pre) && equalStrings(segs[:len(pre)], pre) {
			return b.String(), nil
		}
	}
	return "", invalidArg(op, field, "must be under avatar/, preview/, activities_resource/video/ or activities_resource/thumbnail/")
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// DownloadStatic streams a static resource of the console (an avatar, a
// door preview, a video clip or its thumbnail) into w, without holding it
// in memory; resp.Header carries its Content-Type.
//
// path is one of the paths the API hands out, under avatar/, preview/,
// activities_resource/video/ or activities_resource/thumbnail/, with or
// without a leading "/" or "/system/static/": the paths of a
// [SystemLogResource] and a door's [LocationThumbnail] URL can be passed as
// they are. Each segment is escaped. A path outside those folders, or
// one that could traverse (a ".." segment, even percent-encoded, a
// backslash, an empty segment), is a [*ValidationError] before anything
// is sent. A failure after bytes reached w is a [*RequestError] and is
// not retried.
//
// The per-attempt timeout ([WithTimeout], 30 s by default) bounds only the
// wait for the answer and each silence within it, never the whole transfer:
// a long download runs as long as bytes flow, bounded by ctx alone.
//
// Access 1.24.6 or later.
//
// API: GET /api/v1/developer/system/static/:path  (permission view:system_log)
func (s *SystemLogsService) DownloadStatic(ctx context.Context, path string, w io.Writer) (*Response, error) {
	const op = "SystemLogs.DownloadStatic"
	p, err := staticPath(op, path)
	if err != nil {
		return nil, err
	}
	if w == nil {
		return nil, invalidArg(op, "w", "must not be nil")
	}
	return download(ctx, s.client, "GET", p, nil, nil, w)
}

// SystemLog is one system-log entry (a "hit" of §9.2; also the data of
// the WebSocket's access.logs.add, see [Notification.LogsAdd]). Decoding is
// lenient: [SystemLogsService.List] and [Notification.LogsAdd] leave a
// member of an unexpected JSON type zero rather than failing the entry,
// and [UnixMilli] reads numbers, numeric strings and null.
type SystemLog struct {
	// ID is the entry's id ("_id").
	ID string `json:"_id"`
	// Timestamp is "@timestamp" as the console writes it.
	Timestamp DateTime        `json:"@timestamp,omitempty"`
	Source    SystemLogSource `json:"_source"`
	// Tag is e.g. "access".
	Tag string `json:"tag,omitempty"`
}

// Time returns when the entry happened: the event's published time, else
// the parsed @timestamp, else the zero time.
func (l *SystemLog) Time() time.Time {
	if l.Source.Event.Published != 0 {
		return l.Source.Event.Published.Time()
	}
	t, _ := l.Timestamp.Time()
	return t
}

// Target returns the entry's first target of the given type ("door",
// "UAH", "unlock_source", "activities_resource"…).
func (l *SystemLog) Target(typ string) (SystemLogTarget, bool) {
	for _, t := range l.Source.Target {
		if t.Type == typ {
			return t, true
		}
	}
	return SystemLogTarget{}, false
}

// Door returns the entry's target of type "door".
func (l *SystemLog) Door() (SystemLogTarget, bool) { return l.Target("door") }

// UnlockSource is what a remote unlock through the API
// ([DoorsService.Unlock]) records about its caller: the target of type
// "unlock_source" embeds it as JSON in its id.
type UnlockSource struct {
	ActorID   string          `json:"actor_id"`
	ActorName string          `json:"actor_name"`
	Extra     json.RawMessage `json:"extra,omitempty"`
}

// UnlockSource decodes the entry's "unlock_source" target, present on API
// unlocks (actor type "open_api"). Its id is a JSON object, which newer
// consoles prefix with the actor type ("open_api:{...}", seen on Access
// 4.2.16); both forms decode. ok is false when there is none or its id is
// not such an object.
func (l *SystemLog) UnlockSource() (src UnlockSource, ok bool) {
	t, found := l.Target("unlock_source")
	if !found {
		return UnlockSource{}, false
	}
	id := t.ID
	if i := strings.IndexByte(id, '{'); i > 0 && strings.HasSuffix(id[:i], ":") && !strings.ContainsAny(id[:i], " \t\"") {
		id = id[i:]
	}
	if json.Unmarshal([]byte(id), &src) != nil {
		return UnlockSource{}, false
	}
	if string(src.Extra) == "null" {
		src.Extra = nil
	}
	return src, true
}

// SystemLogSource is the content of an entry ("_source").
type SystemLogSource struct {
	Actor          SystemLogActor          `json:"actor"`
	Event          SystemLogEvent          `json:"event"`
	Authentication SystemLogAuthentication `json:"authentication"`
	// Target lists what the entry concerns: the door (type "door"), the
	// hub (e.g. "UAH"), the direction ("device_config"), an API unlock's
	// caller ("unlock_source"), its media ("activities_resource")…
	Target []SystemLogTarget `json:"target"`
}

// SystemLogActor is who caused the entry: a user, a visitor, a device, an
// API token (type "open_api").
type SystemLogActor struct {
	ID            string `json:"id"`
	Type          string `json:"type"`
	DisplayName   string `json:"display_name"`
	AlternateID   string `json:"alternate_id"`
	AlternateName string `json:"alternate_name"`
	// Avatar is the user's picture: a path on the console (see
	// [SystemLogsService.DownloadStatic]) or a URL; empty when none.
	Avatar string `json:"avatar,omitempty"`
	// SSOPicture is the picture of a user from an identity provider (a
	// URL); empty when none.
	SSOPicture string `json:"sso_picture,omitempty"`
}

// SystemLogEvent says what happened.
type SystemLogEvent struct {
	// Type is e.g. "access.door.unlock".
	Type           string `json:"type"`
	DisplayMessage string `json:"display_message"`
	// Result is e.g. "ACCESS" or "BLOCKED".
	Result string `json:"result"`
	// Published is when it happened, in Unix milliseconds.
	Published UnixMilli `json:"published"`
	Reason    string    `json:"reason"`
	LogKey    string    `json:"log_key,omitempty"`
	// LogCategory groups entries as the console's activity view does,
	// e.g. "Unlocks" (newer consoles).
	LogCategory string `json:"log_category,omitempty"`
	// Tag is the event's tag as the vendor's topic reference lists it
	// (e.g. "access"); the entry's own [SystemLog.Tag] is separate.
	Tag string `json:"tag,omitempty"`
}

// SystemLogAuthentication is how the actor authenticated.
type SystemLogAuthentication struct {
	// CredentialProvider is e.g. "NFC", "PIN_CODE", "FACE", "MOBILE_TAP",
	// "REMOTE_THROUGH_UAH", "API".
	CredentialProvider string `json:"credential_provider"`
	Issuer             string `json:"issuer"`
}

// SystemLogTarget is one thing an entry concerns.
type SystemLogTarget struct {
	Type          string `json:"type"`
	ID            string `json:"id"`
	DisplayName   string `json:"display_name"`
	AlternateID   string `json:"alternate_id,omitempty"`
	AlternateName string `json:"alternate_name,omitempty"`
}

// UnixMilli is a time in milliseconds since the Unix epoch, as system-log
// entries carry it. It decodes a number (integer or not), a numeric string
// or null (zero).
type UnixMilli int64

// UnixMilliOf converts t to a UnixMilli.
func UnixMilliOf(t time.Time) UnixMilli { return UnixMilli(t.UnixMilli()) }

// Time returns the time in UTC; zero gives the zero time.Time.
func (u UnixMilli) Time() time.Time {
	if u == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(u)).UTC()
}

// UnmarshalJSON implements the lenient decoding described on [UnixMilli].
// Anything else (an object, a word) is read as zero rather than failing
// the entry.
func (u *UnixMilli) UnmarshalJSON(b []byte) error {
	*u = 0
	s := strings.TrimSpace(strings.Trim(string(b), `"`))
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		*u = UnixMilli(n)
	} else if f, err := strconv.ParseFloat(s, 64); err == nil {
		*u = UnixMilli(int64(f))
	}
	return nil
}
