package access

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Ptr returns a pointer to a copy of v, for optional request fields.
func Ptr[T any](v T) *T { return &v }

// YesNo is a flag the controller writes as the string "yes" or "no" (device
// access-method settings). Decoding is lenient: "yes"/"no", "true"/"false"
// (any case) and JSON booleans all become [Yes] or [No]; any other string is
// kept as it is. Encoding writes the value as a string, so a YesNo decoded
// from any of those forms is sent back as "yes" or "no". The empty value
// means "not set" and is omitted from requests.
type YesNo string

// The two flag values.
const (
	Yes YesNo = "yes"
	No  YesNo = "no"
)

// YesNoOf returns [Yes] for true and [No] for false.
func YesNoOf(b bool) YesNo {
	if b {
		return Yes
	}
	return No
}

// Bool reports whether the flag is set to yes.
func (v YesNo) Bool() bool { return v == Yes }

// UnmarshalJSON implements the lenient decoding described on [YesNo].
func (v *YesNo) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null":
		return nil
	case "true":
		*v = Yes
		return nil
	case "false":
		*v = No
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("access: yes/no flag: want a string or boolean, got %.40s", b)
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "yes", "true":
		*v = Yes
	case "no", "false":
		*v = No
	default:
		*v = YesNo(s)
	}
	return nil
}

// UnixTime is a time in whole seconds since the Unix epoch, as the API
// writes start_time, end_time and onboard_time. It decodes JSON numbers,
// numeric strings, null and "" (the last two as 0) and encodes a number.
type UnixTime int64

// UnixTimeOf converts t to a UnixTime, dropping sub-second precision.
func UnixTimeOf(t time.Time) UnixTime { return UnixTime(t.Unix()) }

// Time returns the time in UTC; the zero UnixTime gives the zero time.Time.
func (u UnixTime) Time() time.Time {
	if u == 0 {
		return time.Time{}
	}
	return time.Unix(int64(u), 0).UTC()
}

// IsZero reports whether the time is unset (0).
func (u UnixTime) IsZero() bool { return u == 0 }

// UnmarshalJSON implements the lenient decoding described on [UnixTime].
func (u *UnixTime) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(b) >= 2 && b[0] == '"' {
		var str string
		if err := json.Unmarshal(b, &str); err != nil {
			return err
		}
		s = strings.TrimSpace(str)
		if s == "" {
			*u = 0
			return nil
		}
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		*u = UnixTime(n)
		return nil
	}
	// 1.7e9 or 1700000000.0: accept a float holding a whole number of seconds.
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) {
		return fmt.Errorf("access: unix time: want whole seconds, got %.40s", b)
	}
	*u = UnixTime(int64(f))
	return nil
}

// DateTime is a date-time string as the controller writes it. Holiday
// times come as "2023-08-26 00:00:00Z" (a space instead of RFC 3339's "T",
// sometimes a lower-case "z"), touch-pass activity as RFC 3339 with an
// offset. The string is kept verbatim; [DateTime.Time] parses every form.
type DateTime string

var dateTimeLayouts = [...]string{
	time.RFC3339Nano,
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04:05",
	"2006-01-02",
}

// Time parses the string. A trailing lower-case "z" is read as "Z"; a value
// without a zone is taken as UTC. The empty DateTime gives the zero time
// and no error.
func (d DateTime) Time() (time.Time, error) {
	s := strings.TrimSpace(string(d))
	if s == "" {
		return time.Time{}, nil
	}
	if strings.HasSuffix(s, "z") {
		s = s[:len(s)-1] + "Z"
	}
	for _, layout := range dateTimeLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("access: cannot parse date-time %q", string(d))
}

// TimeRange is a span within a day, both ends formatted "HH:MM:SS"; the end
// second is inclusive ("10:00:00" to "17:00:59").
type TimeRange struct {
	StartTime string `json:"start_time"`
	EndTime   string `json:"end_time"`
}

// WeekSchedule holds a schedule's time ranges per weekday; an empty day has
// no ranges.
type WeekSchedule struct {
	Sunday    []TimeRange `json:"sunday"`
	Monday    []TimeRange `json:"monday"`
	Tuesday   []TimeRange `json:"tuesday"`
	Wednesday []TimeRange `json:"wednesday"`
	Thursday  []TimeRange `json:"thursday"`
	Friday    []TimeRange `json:"friday"`
	Saturday  []TimeRange `json:"saturday"`
}

// Day returns the ranges of one weekday; nil for a nil schedule.
func (w *WeekSchedule) Day(d time.Weekday) []TimeRange {
	if w == nil {
		return nil
	}
	switch d {
	case time.Sunday:
		return w.Sunday
	case time.Monday:
		return w.Monday
	case time.Tuesday:
		return w.Tuesday
	case time.Wednesday:
		return w.Wednesday
	case time.Thursday:
		return w.Thursday
	case time.Friday:
		return w.Friday
	case time.Saturday:
		return w.Saturday
	}
	return nil
}

// Resource is a door or door group an access policy or visitor may use.
type Resource struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Type is ResourceDoor or ResourceDoorGroup.
	Type ResourceType `json:"type"`
}

// ResourceType is the kind of a [Resource].
type ResourceType string

// The resource types access policies and visitors name.
const (
	ResourceDoor      ResourceType = "door"
	ResourceDoorGroup ResourceType = "door_group"
)

// checkResources validates the doors and door groups of a request.
func checkResources(op string, rs []Resource) error {
	for i, r := range rs {
		field := "Resources[" + strconv.Itoa(i) + "]"
		if strings.TrimSpace(r.ID) == "" {
			return invalidArg(op, field+".ID", "must not be empty")
		}
		if r.Type != ResourceDoor && r.Type != ResourceDoorGroup {
			return invalidArg(op, field+".Type", "must be door or door_group")
		}
	}
	return nil
}

// fullWeek returns a copy of w with every day present, an empty list for
// a day without ranges, as the console expects them written; nil stays
// nil.
func fullWeek(w *WeekSchedule) *WeekSchedule {
	if w == nil {
		return nil
	}
	c := *w
	for _, d := range []*[]TimeRange{&c.Sunday, &c.Monday, &c.Tuesday, &c.Wednesday, &c.Thursday, &c.Friday, &c.Saturday} {
		if *d == nil {
			*d = []TimeRange{}
		}
	}
	return &c
}

// LicensePlate is a licence-plate credential (controller 3.3.10 or later).
type LicensePlate struct {
	ID         string `json:"id"`
	Credential string `json:"credential"`
	// CredentialType is "license".
	CredentialType   string `json:"credential_type"`
	CredentialStatus string `json:"credential_status"`
}

// DeviceSettings is the access-method configuration of a device.
type DeviceSettings struct {
	DeviceID      string        `json:"device_id"`
	AccessMethods AccessMethods `json:"access_methods"`
}

// AccessMethods lists a device's access methods. A nil member is a method
// the device does not report (in a response) or that is left unchanged (in
// an update).
type AccessMethods struct {
	NFC        *AccessMethod  `json:"nfc,omitempty"`
	BTTap      *AccessMethod  `json:"bt_tap,omitempty"`
	BTButton   *AccessMethod  `json:"bt_button,omitempty"`
	BTShake    *AccessMethod  `json:"bt_shake,omitempty"`
	MobileWave *AccessMethod  `json:"mobile_wave,omitempty"`
	PINCode    *PINCodeMethod `json:"pin_code,omitempty"`
	Face       *FaceMethod    `json:"face,omitempty"`
	Wave       *AccessMethod  `json:"wave,omitempty"`
	QRCode     *AccessMethod  `json:"qr_code,omitempty"`
	TouchPass  *AccessMethod  `json:"touch_pass,omitempty"`
}

// AccessMethod is an access method with only an on/off switch.
type AccessMethod struct {
	Enabled YesNo `json:"enabled,omitempty"`
}

// PINCodeMethod configures PIN entry. PINCodeShuffle (shuffled keypad)
// takes effect only while the method is enabled.
type PINCodeMethod struct {
	Enabled        YesNo `json:"enabled,omitempty"`
	PINCodeShuffle YesNo `json:"pin_code_shuffle,omitempty"`
}

// FaceMethod configures face unlock. The tuning takes effect only while
// the method is enabled, and only in the combinations no/far, no/medium,
// medium/near and high/near (anti-spoofing/distance).
type FaceMethod struct {
	Enabled           YesNo             `json:"enabled,omitempty"`
	AntiSpoofingLevel AntiSpoofingLevel `json:"anti_spoofing_level,omitempty"`
	DetectDistance    DetectDistance    `json:"detect_distance,omitempty"`
}

// AntiSpoofingLevel is the face-unlock liveness check level.
type AntiSpoofingLevel string

// Anti-spoofing levels.
const (
	AntiSpoofingHigh   AntiSpoofingLevel = "high"
	AntiSpoofingMedium AntiSpoofingLevel = "medium"
	AntiSpoofingNo     AntiSpoofingLevel = "no"
)

// DetectDistance is the face-unlock detection distance.
type DetectDistance string

// Detection distances.
const (
	DetectNear   DetectDistance = "near"
	DetectMedium DetectDistance = "medium"
	DetectFar    DetectDistance = "far"
)

// Secret is a webhook signing secret. It formats as "REDACTED" with every
// fmt verb and in slog, so that printing or logging a [WebhookEndpoint]
// does not leak it; [Secret.Value] returns the real value, and JSON
// encoding writes it.
type Secret string

const redacted = "REDACTED"

// Value returns the secret itself.
func (s Secret) Value() string { return string(s) }

// String returns "REDACTED" (or "" for an empty secret).
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString returns a redacted Go-syntax form.
func (s Secret) GoString() string { return `access.Secret("` + s.String() + `")` }

// Format writes the redacted form for every verb.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(s.GoString()))
		return
	}
	_, _ = f.Write([]byte(s.String()))
}

// LogValue implements slog.LogValuer with the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// WebhookEndpoint is a registered webhook endpoint (spec §2.2).
type WebhookEndpoint struct {
	ID       string      `json:"id"`
	Endpoint string      `json:"endpoint"`
	Name     string      `json:"name"`
	Secret   Secret      `json:"secret"`
	Events   []EventType `json:"events"`
	// Headers are added to every delivery. They often carry a credential,
	// so String and LogValue print only their names.
	Headers map[string]string `json:"headers,omitempty"`
}

// String describes the endpoint without its secret or header values.
func (e WebhookEndpoint) String() string {
	return fmt.Sprintf("WebhookEndpoint{ID:%s Name:%q Endpoint:%s Events:%v Headers:%v Secret:%s}",
		e.ID, e.Name, e.Endpoint, e.Events, headerNames(e.Headers), e.Secret)
}

// GoString is String, so that %#v does not print the secret either.
func (e WebhookEndpoint) GoString() string { return e.String() }

// LogValue implements slog.LogValuer without the secret or header values.
func (e WebhookEndpoint) LogValue() slog.Value {
	return slog.GroupValue(slog.String("id", e.ID), slog.String("name", e.Name),
		slog.String("endpoint", e.Endpoint), slog.Any("events", e.Events),
		slog.Any("headers", headerNames(e.Headers)))
}

// WebhookEndpointRequest is the body of [WebhooksService.Create].
type WebhookEndpointRequest struct {
	// Endpoint is the http or https URL deliveries are posted to.
	Endpoint string `json:"endpoint"`
	Name     string `json:"name"`
	// Events names the events to deliver; at least one.
	Events []EventType `json:"events"`
	// Headers are added to every delivery (controller 3.1.30 or later);
	// use them to authenticate deliveries, see [WebhookHandler].
	Headers map[string]string `json:"headers,omitempty"`
}

// String describes the request without header values.
func (r WebhookEndpointRequest) String() string {
	return fmt.Sprintf("WebhookEndpointRequest{Name:%q Endpoint:%s Events:%v Headers:%v}",
		r.Name, r.Endpoint, r.Events, headerNames(r.Headers))
}

// GoString is String, so that %#v does not print header values either.
func (r WebhookEndpointRequest) GoString() string { return r.String() }

func headerNames(h map[string]string) []string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
