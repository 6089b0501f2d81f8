package access

import (
	"bytes"
	"encoding/json"
)

// validJSON reports what json.Valid reports, in a plain loop over the
// bytes rather than encoding/json's scanner (a function call per byte).
// Nesting deeper than scanValue's stack (64) is left to json.Valid.
func validJSON(b []byte) bool {
	end, r := scanValue(b, skipSpace(b, 0))
	if r == scanTooDeep {
		return json.Valid(b)
	}
	return r == scanOK && skipSpace(b, end) == len(b)
}

// scanResult is what scanValue found.
type scanResult uint8

const (
	scanOK      scanResult = iota // a valid value
	scanInvalid                   // not a valid value
	scanTooDeep                   // nested deeper than scanValue's stack: not checked
)

// scanValue checks the JSON value that starts at b[i] (no space before it)
// as json.Valid checks a whole document, and returns the index just after
// it. It is the one pass over a notification: the envelope's walk
// (splitEnvelope) validates each member's value with it while finding
// where the value ends.
func scanValue(b []byte, i int) (int, scanResult) {
	var stack [64]byte // the open containers: '{' or '['
	depth := 0
	needValue := true
	for {
		if needValue {
			if i >= len(b) {
				return i, scanInvalid
			}
			switch c := b[i]; {
			case c == '{' || c == '[':
				if depth == len(stack) {
					return i, scanTooDeep
				}
				stack[depth] = c
				depth++
				i = skipSpace(b, i+1)
				if i < len(b) && b[i] == c+2 { // '}' or ']'
					depth--
					i++
					needValue = false
					break
				}
				if c == '{' {
					var ok bool
					if i, ok = scanKey(b, i); !ok {
						return i, scanInvalid
					}
				}
				continue
			case c == '"':
				var ok bool
				if i, ok = scanString(b, i); !ok {
					return i, scanInvalid
				}
			case c == '-' || '0' <= c && c <= '9':
				var ok bool
				if i, ok = scanNumber(b, i); !ok {
					return i, scanInvalid
				}
			case c == 't' && bytes.HasPrefix(b[i:], []byte("true")):
				i += 4
			case c == 'f' && bytes.HasPrefix(b[i:], []byte("false")):
				i += 5
			case c == 'n' && bytes.HasPrefix(b[i:], []byte("null")):
				i += 4
			default:
				return i, scanInvalid
			}
			needValue = false
		}
		// After a value.
		if depth == 0 {
			return i, scanOK
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, scanInvalid
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
			if stack[depth-1] == '{' {
				var ok bool
				if i, ok = scanKey(b, i); !ok {
					return i, scanInvalid
				}
			}
			needValue = true
		case stack[depth-1] + 2: // the closing bracket of the open container
			depth--
			i++
		default:
			return i, scanInvalid
		}
	}
}

// scanKey reads an object's key and its colon from b[i] and returns the
// index of the value after them.
func scanKey(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := scanString(b, i)
	if !ok {
		return i, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

// plainStringByte tells the bytes that stand for themselves in a JSON
// string: all but a quote, a backslash and the control characters.
var plainStringByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// scanString reads the JSON string that starts at b[i] (a quote) and
// returns the index after it: no control character, only JSON's escapes.
func scanString(b []byte, i int) (int, bool) {
	for i++; i < len(b); {
		if plainStringByte[b[i]] {
			i++
			continue
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default: // a control character
			return i, false
		}
	}
	return i, false
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// scanNumber reads the JSON number that starts at b[i] and returns the
// index after it.
func scanNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	return i, true
}
