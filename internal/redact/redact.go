// Package redact decides which values of the API's JSON may leave a
// console as they are, when its data is written somewhere else (a seed
// recorded by access fake record, the capture of access doctor --capture),
// and replaces the others.
//
// It works by an allow-list of members: the values of ids, times and known
// enumerations (types, states, settings) are kept ([Kept]); every other
// string is replaced ([Walk]), a member this version does not know
// included, so members the console adds later are covered too.
// [Pseudonyms] replaces them through a keyed mapping: the same value gets
// the same replacement throughout one run, in the same form (digits for
// digits, hex for hex), and the original cannot be recovered from it
// without the key. A person's values ([Person]: names, emails, phones,
// employee numbers) are replaced by one mapping drawn from the value
// alone ([Pseudonyms.Person]), whatever member holds them, so that one
// person has one pseudonym in a seed and in a capture made under the
// same key.
package redact

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
)

// ids are the members whose values are ids of records, devices or
// requests: no one's personal data. A card's number (display_id, card_id,
// nfc_id) or an alternate id is not among them.
var ids = []string{
	"id", "ids", "_id", "guid", "unique_id", "user_id", "visitor_id", "device_id", "device_ids", "door_id", "door_guard_ids",
	"floor_id", "room_id", "location_id", "building_id", "schedule_id", "holiday_group_id", "policy_id", "access_policy_ids",
	"resource_ids", "up_id", "up_ids", "inviter_id", "actor_id", "bundle_id", "session_id", "request_id", "clear_request_id",
	"remote_call_request_id", "event_object_id", "reader_id", "receiver_id", "controller_id", "connected_hub_id",
	"connected_uah_id", "work_time_id", "mac", "host_device_mac", "ip",
}

// enumerations are the members whose values are one of a known set:
// types, states, results, settings, versions. A visit's reason is not
// among them: it tells about the visitor.
var enumerations = []string{
	"code", "type", "user_type", "device_type", "resource_type", "location_type", "card_type", "credential_type",
	"extra_type", "authentication_type", "credential_provider", "credential_status", "status", "user_status",
	"previous_status", "bundle_status", "email_status", "state", "result", "reason_code", "error_code", "level", "mode",
	"model", "hw_type", "category", "tag", "topic", "source", "log_category", "log_key", "in_or_out",
	"door_lock_relay_status", "door_position_status", "lock", "lockdown", "evacuation", "emergency", "enable", "enabled",
	"repeat", "weekly", "online", "deleted", "adopting", "is_adopted", "is_bind_hub", "is_connected", "is_default",
	"is_managed", "is_online", "is_rebooting", "is_template", "is_unavailable", "need_advisory", "security_check",
	"save_to_history", "pin_code_shuffle", "reset_ua_card", "anti_spoofing_level", "detect_distance", "interval",
	"remain_lock", "remain_unlock", "bt_button", "bt_shake", "bt_tap", "wave", "mobile_wave", "nfc", "face", "dps",
	"dps_connected", "glocal", "capabilities", "firmware", "software", "hardware", "version", "revision", "bom_rev", "cap",
	"issuer", "timezone", "published", "hits", "top_log_count", "video_record", "video_record_thumbnail", "event_type",
	"events", "event", "object_type", "target_field",
}

// times are the members whose values are times, dates or spans of the
// day (the days of a week schedule hold spans).
var times = []string{
	"@timestamp", "since", "until", "start_time", "end_time", "ended_time", "create_time", "update_time", "created_at",
	"updated_at", "activated_at", "expired_at", "onboard_time", "last_activity", "last_seen", "door_thumbnail_last_update",
	"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "work_time",
}

// kept is the set of ids, enumerations and times, made when first used
// (a program that links the package, every start of access, need not).
var kept = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, l := range [][]string{ids, enumerations, times} {
		for _, k := range l {
			m[k] = true
		}
	}
	return m
})

// Kept reports whether the value of a JSON member (by its name, in any
// case) is kept as it is: an id, a time or a known enumeration.
func Kept(member string) bool { return kept()[strings.ToLower(member)] }

// Members returns the members [Kept] accepts, by what they hold: "ids",
// "times" and "enumerations".
func Members() map[string][]string {
	return map[string][]string{"ids": clone(ids), "times": clone(times), "enumerations": clone(enumerations)}
}

func clone(l []string) []string { return append([]string(nil), l...) }

// Walk replaces, in v (JSON decoded into map[string]any, []any and
// scalars), every non-empty string held by a member that [Kept] refuses
// by what replace returns for it, and returns v. A string in an array
// belongs to the array's member; an object's members are judged by their
// own names, whatever member holds the object. A string at the top (held
// by no member) is replaced. Numbers, booleans and nulls are kept.
func Walk(v any, replace func(member, s string) string) any {
	return WalkIn(v, func(_, member, s string) string { return replace(member, s) })
}

// WalkIn is [Walk] telling replace also the parent: the member that holds
// the object the string's member is in ("" at the top; an array's member
// for an object in an array), as [Person] takes it.
func WalkIn(v any, replace func(parent, member, s string) string) any {
	return walk(v, "", "", false, replace)
}

func walk(v any, parent, member string, keep bool, replace func(parent, member, s string) string) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = walk(e, member, k, Kept(k), replace)
		}
	case []any:
		for i, e := range x {
			x[i] = walk(e, parent, member, keep, replace)
		}
	case string:
		if x != "" && !keep {
			return replace(parent, member, x)
		}
	}
	return v
}

// Pseudonyms replaces values through a keyed mapping (HMAC-SHA256): the
// same value always gets the same replacement under one key, another key
// gives others, and without the key the originals cannot be recovered.
// Keep the key unwritten.
type Pseudonyms struct{ key []byte }

// NewPseudonyms returns the mapping under key.
func NewPseudonyms(key []byte) *Pseudonyms { return &Pseudonyms{key: bytes.Clone(key)} }

// Sum is the keyed digest of v under the label kind.
func (p *Pseudonyms) Sum(kind, v string) []byte {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(kind))
	m.Write([]byte{0})
	m.Write([]byte(v))
	return m.Sum(nil)
}

// Digits is n decimal digits drawn from the keyed digest of v.
func (p *Pseudonyms) Digits(kind, v string, n int) string {
	s := p.Sum(kind, v)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte('0' + s[i%len(s)]%10)
	}
	return b.String()
}

// Hex is n lower-case hex digits drawn from the keyed digest of v.
func (p *Pseudonyms) Hex(kind, v string, n int) string {
	s := hex.EncodeToString(p.Sum(kind, v))
	for len(s) < n {
		s += hex.EncodeToString(p.Sum(kind, s))
	}
	return s[:n]
}

// Replace is the pseudonym of the string s held by member, drawn from s
// alone (so the same value gets the same pseudonym wherever it is) in the
// form of s: digits for digits, hex digits for hex digits (upper case
// kept), an address at example.invalid for an email address, otherwise
// the member's name and eight hex digits ("visitor company 3f0c9a1e").
// The empty string stays empty.
func (p *Pseudonyms) Replace(member, s string) string {
	switch {
	case s == "":
		return ""
	case allOf(s, "0123456789"):
		return p.Digits("value", s, len(s))
	case len(s) >= 6 && allOf(s, "0123456789abcdef"):
		return p.Hex("value", s, len(s))
	case len(s) >= 4 && allOf(s, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
		return strings.ToUpper(p.Hex("value", s, len(s)))
	case strings.Count(s, "@") == 1 && !strings.ContainsAny(s, " \t\n"):
		return p.Hex("value", s, 12) + "@example.invalid"
	}
	label := strings.Trim(strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(strings.ToLower(member)), " ")
	if label == "" || len(label) > 32 || strings.ContainsFunc(label, func(r rune) bool { return r != ' ' && (r < 'a' || r > 'z') && (r < '0' || r > '9') }) {
		label = "value"
	}
	return label + " " + p.Hex("value", s, 8)
}

func allOf(s, set string) bool {
	for _, r := range s {
		if !strings.ContainsRune(set, r) {
			return false
		}
	}
	return true
}

// JSON returns the JSON document b with every string [Walk] replaces
// replaced by its pseudonym ([Pseudonyms.ReplaceIn]: a person's value by
// [Pseudonyms.Person], another by [Pseudonyms.Replace]); numbers are kept
// as they are written. b must be one JSON value.
func (p *Pseudonyms) JSON(b []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(WalkIn(v, p.ReplaceIn))
}
