package access

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Ptr returns a pointer to a copy of v, to set an optional member of an
// update (a nil member keeps the value):
//
//	&access.UserUpdate{EmployeeNumber: access.Ptr("E-42"), Status: access.Ptr(access.UserStatusDeactivated)}
func Ptr[T any](v T) *T { return &v }

// unixOrZero is t in Unix seconds, or 0 for the zero time.
func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// beforeEpoch reports whether t is set and cannot be sent as Unix seconds.
func beforeEpoch(t time.Time) bool { return !t.IsZero() && t.Unix() < 0 }

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

// redacted is what a secret value is shown as.
const redacted = "REDACTED"
