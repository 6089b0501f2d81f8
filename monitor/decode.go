package monitor

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// The engine reads a notification's data itself, once, and only the
// members it uses: a walk over the raw JSON that takes the members it
// needs and skips the others, where the SDK's typed accessors decode the
// whole payload into its struct with encoding/json (most of the monitor's
// time on real console frames, whose payloads are large records). The
// values read are those the typed accessors give for the same members:
// keys match ignoring ASCII case, the last of a repeated member counts, a
// member of an unexpected JSON type is left zero, and a pointer member
// (a state, a lock rule) counts as present for any value but null.
// Members the engine does not use are not decoded: a frame whose unused
// members are of an unexpected type is still recognised. Data that is
// not JSON, or not an object, is an error; null or absent data reads as
// an empty object.

// errData is the error of data that is not a JSON object.
var errData = errors.New("monitor: notification data is not a JSON object")

// maxDepth is how deeply the walk follows nested values.
const maxDepth = 256

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipWS(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// members calls fn with the key and the raw value of each member of the
// JSON object b, in order. Empty b and null are an object without
// members; anything else that is not a JSON object is errData.
func members(b []byte, fn func(key, val []byte)) error {
	i := skipWS(b, 0)
	if i == len(b) || isNullAt(b, i) && skipWS(b, i+4) == len(b) {
		return nil
	}
	end, err := walkObject(b, i, 0, fn)
	if err != nil || skipWS(b, end) != len(b) {
		return errData
	}
	return nil
}

// elements calls fn with the raw value of each element of the JSON array
// b; b that is not an array is ignored (the members of that name are
// left empty).
func elements(b []byte, fn func(val []byte)) {
	if len(b) == 0 || b[0] != '[' {
		return
	}
	i := skipWS(b, 1)
	if i < len(b) && b[i] == ']' {
		return
	}
	for i < len(b) {
		end, ok := skipValue(b, i, 1)
		if !ok {
			return
		}
		fn(b[i:end])
		i = skipWS(b, end)
		if i >= len(b) || b[i] != ',' {
			return
		}
		i = skipWS(b, i+1)
	}
}

func isNullAt(b []byte, i int) bool { return len(b)-i >= 4 && string(b[i:i+4]) == "null" }

// walkObject walks the object opening at b[i], calling fn (when not nil)
// with each member, and returns the index after it.
func walkObject(b []byte, i, depth int, fn func(key, val []byte)) (int, error) {
	if i >= len(b) || b[i] != '{' || depth > maxDepth {
		return 0, errData
	}
	i = skipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errData
		}
		kend, ok := skipString(b, i)
		if !ok {
			return 0, errData
		}
		key := b[i+1 : kend-1]
		i = skipWS(b, kend)
		if i >= len(b) || b[i] != ':' {
			return 0, errData
		}
		i = skipWS(b, i+1)
		vend, ok := skipValue(b, i, depth+1)
		if !ok {
			return 0, errData
		}
		if fn != nil {
			fn(unescapeKey(key), b[i:vend])
		}
		i = skipWS(b, vend)
		if i >= len(b) {
			return 0, errData
		}
		switch b[i] {
		case ',':
			i = skipWS(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errData
		}
	}
}

// unescapeKey returns a key as encoding/json decodes it (keys with
// escapes are rare).
func unescapeKey(key []byte) []byte {
	for _, c := range key {
		if c == '\\' {
			var s string
			if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) == nil {
				return []byte(s)
			}
			return key
		}
	}
	return key
}

// skipString returns the index after the string opening at b[i]. It
// looks for the closing quote only (the SDK's reader has validated the
// frame; the characters of a string the engine keeps are taken as they
// are).
func skipString(b []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		// The quote is escaped when an odd number of backslashes
		// precedes it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		j++
	}
}

// skipValue returns the index after the JSON value starting at b[i],
// checking its form as it goes.
func skipValue(b []byte, i, depth int) (int, bool) {
	if i >= len(b) || depth > maxDepth {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{':
		end, err := walkObject(b, i, depth, nil)
		return end, err == nil
	case c == '[':
		i = skipWS(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			end, ok := skipValue(b, i, depth+1)
			if !ok {
				return 0, false
			}
			i = skipWS(b, end)
			if i >= len(b) {
				return 0, false
			}
			switch b[i] {
			case ',':
				i = skipWS(b, i+1)
			case ']':
				return i + 1, true
			default:
				return 0, false
			}
		}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit {
				return i + len(lit), true
			}
		}
		return 0, false
	case c == '-' || '0' <= c && c <= '9':
		j := i + 1
		for j < len(b) && ('0' <= b[j] && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, true
	}
	return 0, false
}

// is reports whether a key names the member name (an ASCII lower-case
// name), ignoring ASCII case as encoding/json does.
func is(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}

// setString sets *s to the JSON string v; v of another type leaves *s
// unchanged.
func setString(s *string, v []byte) {
	if len(v) < 2 || v[0] != '"' {
		return
	}
	raw := v[1 : len(v)-1]
	plain := utf8.Valid(raw)
	for _, c := range raw {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		*s = string(raw)
		return
	}
	var d string
	if json.Unmarshal(v, &d) == nil {
		*s = d
	}
}

// setBool sets *p to the JSON boolean v; v of another type leaves *p
// unchanged.
func setBool(p *bool, v []byte) {
	switch string(v) {
	case "true":
		*p = true
	case "false":
		*p = false
	}
}

// unquote returns the JSON string v ("" when v is not one).
func unquote(v []byte) string {
	var s string
	setString(&s, v)
	return s
}

func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }

func isArray(v []byte) bool { return len(v) > 0 && v[0] == '[' }

func notNull(v []byte) bool { return len(v) > 0 && string(v) != "null" }

// doorState is what the engine reads of a door's state (access's
// LocationState).
type doorState struct {
	locationID, lock, dps string
	dpsConnected          bool
	// remainUnlock: a keep-unlocked rule is in force.
	remainUnlock bool
	// emergency is the software or hardware emergency state.
	emergencySoftware, emergencyHardware string
}

// readDoorState reads a door's state from the object v into s.
func readDoorState(s *doorState, v []byte) {
	if !isObject(v) {
		return
	}
	_ = members(v, func(k, v []byte) {
		switch {
		case is(k, "location_id"):
			setString(&s.locationID, v)
		case is(k, "lock"):
			setString(&s.lock, v)
		case is(k, "dps"):
			setString(&s.dps, v)
		case is(k, "dps_connected"):
			setBool(&s.dpsConnected, v)
		case is(k, "remain_unlock"):
			s.remainUnlock = notNull(v)
		case is(k, "emergency"):
			if isObject(v) {
				_ = members(v, func(k, v []byte) {
					switch {
					case is(k, "software"):
						setString(&s.emergencySoftware, v)
					case is(k, "hardware"):
						setString(&s.emergencyHardware, v)
					}
				})
			}
		}
	})
}

// locationV2 is what the engine reads of a v2 location update.
type locationV2 struct {
	id, name string
	// hasState: the update carries a state.
	hasState bool
	state    doorState
}

func readLocationV2(data []byte) (v locationV2, err error) {
	err = members(data, func(k, val []byte) {
		switch {
		case is(k, "id"):
			setString(&v.id, val)
		case is(k, "name"):
			setString(&v.name, val)
		case is(k, "state"):
			// A pointer: null drops the state, another state is read
			// over the first.
			if v.hasState = notNull(val); !v.hasState {
				v.state = doorState{}
			}
			readDoorState(&v.state, val)
		}
	})
	return v, err
}

// locationV1 is what the engine reads of a v1 location (a location update,
// a remote unlock).
type locationV1 struct {
	uniqueID, name, locationType string
	// dps is the extras' "uah-input_state_dps" ("on": open, "off").
	dps string
}

func readLocationV1(data []byte) (v locationV1, err error) {
	err = members(data, func(k, val []byte) {
		switch {
		case is(k, "unique_id"):
			setString(&v.uniqueID, val)
		case is(k, "name"):
			setString(&v.name, val)
		case is(k, "location_type"):
			setString(&v.locationType, val)
		case is(k, "extras"):
			v.dps = ""
			if isObject(val) {
				// A map: its keys match exactly.
				_ = members(val, func(k, val []byte) {
					if string(k) == "uah-input_state_dps" {
						v.dps = ""
						setString(&v.dps, val)
					}
				})
			}
		}
	})
	return v, err
}

// deviceUpdate is what the engine reads of a device update (v1 or v2).
type deviceUpdate struct {
	id, name string
	// online is "online" or "is_online"; hasOnline tells that either is
	// given.
	online, hasOnline bool
	states            []doorState
}

// readDeviceUpdate reads a v1 device update (idKey "unique_id") or a v2
// one ("id", with the states of its doors).
func readDeviceUpdate(data []byte, idKey string) (v deviceUpdate, err error) {
	var online, isOnline bool
	err = members(data, func(k, val []byte) {
		switch {
		case is(k, idKey):
			setString(&v.id, val)
		case is(k, "name"):
			setString(&v.name, val)
		case is(k, "online"):
			setBool(&online, val)
			v.hasOnline = v.hasOnline || notNull(val)
		case is(k, "is_online"):
			setBool(&isOnline, val)
			v.hasOnline = v.hasOnline || notNull(val)
		case idKey == "id" && is(k, "location_states"):
			if isArray(val) || !notNull(val) {
				v.states = v.states[:0]
			}
			elements(val, func(e []byte) {
				var s doorState
				readDoorState(&s, e)
				v.states = append(v.states, s)
			})
		}
	})
	v.online = online || idKey == "unique_id" && isOnline
	return v, err
}

// logEntry is what the engine reads of an access-log entry.
type logEntry struct {
	actorID, actorType                string
	eventType, displayMessage, result string
	provider                          string
	// door is the id of the entry's first target of type "door".
	door    string
	hasDoor bool
}

func readLogEntry(data []byte) (l logEntry, err error) {
	err = members(data, func(k, val []byte) {
		if !is(k, "_source") || !isObject(val) {
			return
		}
		_ = members(val, func(k, val []byte) {
			if !isObject(val) && !is(k, "target") {
				return
			}
			switch {
			case is(k, "actor"):
				_ = members(val, func(k, val []byte) {
					switch {
					case is(k, "id"):
						setString(&l.actorID, val)
					case is(k, "type"):
						setString(&l.actorType, val)
					}
				})
			case is(k, "event"):
				_ = members(val, func(k, val []byte) {
					switch {
					case is(k, "type"):
						setString(&l.eventType, val)
					case is(k, "display_message"):
						setString(&l.displayMessage, val)
					case is(k, "result"):
						setString(&l.result, val)
					}
				})
			case is(k, "authentication"):
				_ = members(val, func(k, val []byte) {
					if is(k, "credential_provider") {
						setString(&l.provider, val)
					}
				})
			case is(k, "target"):
				if !isArray(val) && notNull(val) {
					return
				}
				l.door, l.hasDoor = "", false
				elements(val, func(e []byte) {
					if l.hasDoor || !isObject(e) {
						return
					}
					// The raw values: only the door's id becomes a string.
					var typ, id []byte
					_ = members(e, func(k, val []byte) {
						switch {
						case is(k, "type"):
							if len(val) > 0 && val[0] == '"' {
								typ = val
							}
						case is(k, "id"):
							if len(val) > 0 && val[0] == '"' {
								id = val
							}
						}
					})
					if string(typ) == `"door"` || bytes.IndexByte(typ, '\\') >= 0 && unquote(typ) == "door" {
						l.hasDoor = true
						setString(&l.door, id)
					}
				})
			}
		})
	})
	return l, err
}

// readString reads one string member of data (a doorbell's door, a
// ring's room).
func readString(data []byte, name string) (s string, err error) {
	err = members(data, func(k, val []byte) {
		if is(k, name) {
			setString(&s, val)
		}
	})
	return s, err
}

// readSetting reads the emergency settings.
func readSetting(data []byte) (lockdown, evacuation bool, err error) {
	err = members(data, func(k, val []byte) {
		switch {
		case is(k, "lockdown"):
			setBool(&lockdown, val)
		case is(k, "evacuation"):
			setBool(&evacuation, val)
		}
	})
	return lockdown, evacuation, err
}
