package access

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ErrorCode is a result code sent by the controller in the envelope's code
// member. Codes not listed below are passed through unchanged: the vendor's
// list has grown over time.
type ErrorCode string

// Result codes documented by the vendor. CodeSuccess is the only success value.
const (
	CodeSuccess                              ErrorCode = "SUCCESS"
	CodeParamsInvalid                        ErrorCode = "CODE_PARAMS_INVALID"
	CodeSystemError                          ErrorCode = "CODE_SYSTEM_ERROR"
	CodeResourceNotFound                     ErrorCode = "CODE_RESOURCE_NOT_FOUND"
	CodeOperationForbidden                   ErrorCode = "CODE_OPERATION_FORBIDDEN"
	CodeAuthFailed                           ErrorCode = "CODE_AUTH_FAILED"
	CodeAccessTokenInvalid                   ErrorCode = "CODE_ACCESS_TOKEN_INVALID"
	CodeUnauthorized                         ErrorCode = "CODE_UNAUTHORIZED"
	CodeNotExists                            ErrorCode = "CODE_NOT_EXISTS"
	CodeUserEmailError                       ErrorCode = "CODE_USER_EMAIL_ERROR"
	CodeUserAccountNotExist                  ErrorCode = "CODE_USER_ACCOUNT_NOT_EXIST"
	CodeUserWorkerNotExists                  ErrorCode = "CODE_USER_WORKER_NOT_EXISTS"
	CodeUserNameDuplicated                   ErrorCode = "CODE_USER_NAME_DUPLICATED"
	CodeUserCSVImportIncompleteProp          ErrorCode = "CODE_USER_CSV_IMPORT_INCOMPLETE_PROP"
	CodeAccessPolicyUserTimezoneNotFound     ErrorCode = "CODE_ACCESS_POLICY_USER_TIMEZONE_NOT_FOUND"
	CodeAccessPolicyHolidayTimezoneNotFound  ErrorCode = "CODE_ACCESS_POLICY_HOLIDAY_TIMEZONE_NOT_FOUND"
	CodeAccessPolicyHolidayGroupNotFound     ErrorCode = "CODE_ACCESS_POLICY_HOLIDAY_GROUP_NOT_FOUND"
	CodeAccessPolicyHolidayNotFound          ErrorCode = "CODE_ACCESS_POLICY_HOLIDAY_NOT_FOUND"
	CodeAccessPolicyScheduleNotFound         ErrorCode = "CODE_ACCESS_POLICY_SCHEDULE_NOT_FOUND"
	CodeAccessPolicyHolidayNameExist         ErrorCode = "CODE_ACCESS_POLICY_HOLIDAY_NAME_EXIST"
	CodeAccessPolicyHolidayGroupNameExist    ErrorCode = "CODE_ACCESS_POLICY_HOLIDAY_GROUP_NAME_EXIST"
	CodeAccessPolicyScheduleNameExist        ErrorCode = "CODE_ACCESS_POLICY_SCHEDULE_NAME_EXIST"
	CodeAccessPolicyScheduleCanNotDelete     ErrorCode = "CODE_ACCESS_POLICY_SCHEDULE_CAN_NOT_DELETE"
	CodeAccessPolicyHolidayGroupCanNotDelete ErrorCode = "CODE_ACCESS_POLICY_HOLIDAY_GROUP_CAN_NOT_DELETE"
	CodeCredsNFCHasBindUser                  ErrorCode = "CODE_CREDS_NFC_HAS_BIND_USER"
	CodeCredsDisableTransferUIDUserNFC       ErrorCode = "CODE_CREDS_DISABLE_TRANSFER_UID_USER_NFC"
	CodeCredsNFCReadSessionNotFound          ErrorCode = "CODE_CREDS_NFC_READ_SESSION_NOT_FOUND"
	CodeCredsNFCReadPollTokenEmpty           ErrorCode = "CODE_CREDS_NFC_READ_POLL_TOKEN_EMPTY"
	CodeCredsNFCCardIsProvision              ErrorCode = "CODE_CREDS_NFC_CARD_IS_PROVISION"
	CodeCredsNFCCardProvisionFailed          ErrorCode = "CODE_CREDS_NFC_CARD_PROVISION_FAILED"
	CodeCredsNFCCardInvalid                  ErrorCode = "CODE_CREDS_NFC_CARD_INVALID"
	CodeCredsNFCCardCannotBeDelete           ErrorCode = "CODE_CREDS_NFC_CARD_CANNOT_BE_DELETE"
	CodeCredsPINCodeCredsAlreadyExist        ErrorCode = "CODE_CREDS_PIN_CODE_CREDS_ALREADY_EXIST"
	CodeCredsPINCodeCredsLengthInvalid       ErrorCode = "CODE_CREDS_PIN_CODE_CREDS_LENGTH_INVALID"
	CodeSpaceDeviceBoundLocationNotFound     ErrorCode = "CODE_SPACE_DEVICE_BOUND_LOCATION_NOT_FOUND"
	CodeDeviceDeviceVersionNotFound          ErrorCode = "CODE_DEVICE_DEVICE_VERSION_NOT_FOUND"
	CodeDeviceDeviceVersionTooOld            ErrorCode = "CODE_DEVICE_DEVICE_VERSION_TOO_OLD"
	CodeDeviceDeviceBusy                     ErrorCode = "CODE_DEVICE_DEVICE_BUSY"
	CodeDeviceDeviceNotFound                 ErrorCode = "CODE_DEVICE_DEVICE_NOT_FOUND"
	CodeDeviceDeviceOffline                  ErrorCode = "CODE_DEVICE_DEVICE_OFFLINE"
	CodeOthersUIDAdoptedNotSupported         ErrorCode = "CODE_OTHERS_UID_ADOPTED_NOT_SUPPORTED"
	CodeHolidayGroupCanNotDelete             ErrorCode = "CODE_HOLIDAY_GROUP_CAN_NOT_DELETE"
	CodeHolidayGroupCanNotEdit               ErrorCode = "CODE_HOLIDAY_GROUP_CAN_NOT_EDIT"
	CodeDeviceWebhookEndpointDuplicated      ErrorCode = "CODE_DEVICE_WEBHOOK_ENDPOINT_DUPLICATED"
	CodeDeviceAPINotSupported                ErrorCode = "CODE_DEVICE_API_NOT_SUPPORTED"
	// codeSucceed appears once in the vendor reference, almost certainly a
	// typo of SUCCESS; it is accepted as success.
	codeSucceed ErrorCode = "SUCCEED"
)

// Sentinel errors matched by [APIError] through errors.Is. They classify an
// API error by HTTP status or by result code, whichever the controller used:
//
//	if errors.Is(err, access.ErrNotFound) { ... }
var (
	ErrNotFound      = errors.New("access: not found")
	ErrUnauthorized  = errors.New("access: unauthorized")
	ErrForbidden     = errors.New("access: forbidden")
	ErrRateLimited   = errors.New("access: rate limited")
	ErrInvalidParams = errors.New("access: invalid parameters")
	ErrConflict      = errors.New("access: conflict")
	ErrServer        = errors.New("access: server error")
	// ErrUnavailable matches a device that is busy or offline
	// (CODE_DEVICE_DEVICE_BUSY, CODE_DEVICE_DEVICE_OFFLINE, which consoles
	// send on HTTP 200). GET, PUT and DELETE retry on them.
	ErrUnavailable = errors.New("access: device busy or offline")
	// ErrUnsupported matches an operation the console or device does not
	// support (CODE_DEVICE_API_NOT_SUPPORTED,
	// CODE_DEVICE_DEVICE_VERSION_TOO_OLD): update its firmware or Access.
	// It also ends [NotificationsService.Subscribe] on a console without
	// the notifications WebSocket (HTTP 404 on the upgrade).
	ErrUnsupported = errors.New("access: not supported by this console or device")
	// ErrInvalidResponse matches an APIError for a response that could not be
	// understood: not JSON, truncated, an HTML page from a proxy, a body
	// larger than the client's cap, or JSON without the envelope.
	ErrInvalidResponse = errors.New("access: invalid response")
	// ErrCardNotRead matches CODE_CREDS_NFC_READ_POLL_TOKEN_EMPTY: no card
	// has been tapped on the enrolling reader yet
	// ([NFCCardsService.Enroll] keeps polling on it).
	ErrCardNotRead = errors.New("access: no NFC card read yet")
	// ErrCardProvisioned matches CODE_CREDS_NFC_CARD_IS_PROVISION: the
	// card is enrolled at another site; enroll again with ResetUACard.
	ErrCardProvisioned = errors.New("access: NFC card already provisioned at another site")
	// ErrCardProvisionFailed matches CODE_CREDS_NFC_CARD_PROVISION_FAILED:
	// the card left the reader too early; hold it for more than 5 seconds.
	ErrCardProvisionFailed = errors.New("access: NFC card provisioning failed")
	// ErrCardInvalid matches CODE_CREDS_NFC_CARD_INVALID: only UA cards
	// can be enrolled.
	ErrCardInvalid = errors.New("access: NFC card type not supported")
)

// codeClass maps result codes to the sentinel they match.
var codeClass = map[ErrorCode]error{
	CodeParamsInvalid:                       ErrInvalidParams,
	CodeUserEmailError:                      ErrInvalidParams,
	CodeCredsPINCodeCredsLengthInvalid:      ErrInvalidParams,
	CodeSystemError:                         ErrServer,
	CodeResourceNotFound:                    ErrNotFound,
	CodeNotExists:                           ErrNotFound,
	CodeUserAccountNotExist:                 ErrNotFound,
	CodeUserWorkerNotExists:                 ErrNotFound,
	CodeAccessPolicyUserTimezoneNotFound:    ErrNotFound,
	CodeAccessPolicyHolidayTimezoneNotFound: ErrNotFound,
	CodeAccessPolicyHolidayGroupNotFound:    ErrNotFound,
	CodeAccessPolicyHolidayNotFound:         ErrNotFound,
	CodeAccessPolicyScheduleNotFound:        ErrNotFound,
	CodeSpaceDeviceBoundLocationNotFound:    ErrNotFound,
	CodeDeviceDeviceNotFound:                ErrNotFound,
	CodeAuthFailed:                          ErrUnauthorized,
	CodeAccessTokenInvalid:                  ErrUnauthorized,
	CodeUnauthorized:                        ErrForbidden,
	CodeOperationForbidden:                  ErrForbidden,
	CodeDeviceWebhookEndpointDuplicated:     ErrConflict,
	CodeUserNameDuplicated:                  ErrConflict,
	CodeAccessPolicyHolidayNameExist:        ErrConflict,
	CodeAccessPolicyHolidayGroupNameExist:   ErrConflict,
	CodeAccessPolicyScheduleNameExist:       ErrConflict,
	CodeCredsNFCHasBindUser:                 ErrConflict,
	CodeCredsPINCodeCredsAlreadyExist:       ErrConflict,
	// Still referenced (by access policies, by schedules) or the default
	// holiday group.
	CodeAccessPolicyScheduleCanNotDelete:     ErrConflict,
	CodeAccessPolicyHolidayGroupCanNotDelete: ErrConflict,
	CodeHolidayGroupCanNotDelete:             ErrConflict,
	CodeHolidayGroupCanNotEdit:               ErrConflict,
	CodeDeviceDeviceBusy:                     ErrUnavailable,
	CodeDeviceDeviceOffline:                  ErrUnavailable,
	CodeDeviceAPINotSupported:                ErrUnsupported,
	CodeDeviceDeviceVersionTooOld:            ErrUnsupported,
	CodeCredsNFCReadSessionNotFound:          ErrNotFound,
	CodeCredsNFCReadPollTokenEmpty:           ErrCardNotRead,
	CodeCredsNFCCardIsProvision:              ErrCardProvisioned,
	CodeCredsNFCCardProvisionFailed:          ErrCardProvisionFailed,
	CodeCredsNFCCardInvalid:                  ErrCardInvalid,
}

// statusClass maps HTTP statuses to the sentinel they match.
func statusClass(status int) error {
	switch {
	case status == http.StatusBadRequest:
		return ErrInvalidParams
	case status == http.StatusUnauthorized:
		return ErrUnauthorized
	case status == http.StatusForbidden:
		return ErrForbidden
	case status == http.StatusNotFound:
		return ErrNotFound
	case status == http.StatusConflict:
		return ErrConflict
	case status == http.StatusTooManyRequests:
		return ErrRateLimited
	case status >= 500 && status <= 599:
		return ErrServer
	}
	return nil
}

// APIError is returned for every request that reached the controller and did
// not succeed: a non-2xx status, an HTTP 200 whose code is not SUCCESS, or a
// response that could not be decoded (see [ErrInvalidResponse]).
//
// Use errors.As to inspect it and errors.Is with the package's sentinels to
// classify it. The URL is redacted and never contains the token.
type APIError struct {
	// StatusCode is the HTTP status of the last attempt.
	StatusCode int
	// Code is the envelope's result code, empty when the body had none.
	Code ErrorCode
	// Message is the envelope's msg, or a description of why the response
	// could not be decoded.
	Message string
	// Method and URL identify the request. URL has no userinfo.
	Method string
	URL    string
	// Attempts is the number of times the request was sent.
	Attempts int
	// Body holds the response body (at most the client's size cap) with
	// the values of members that carry secrets ("secret", "headers",
	// "token", "pin_code", "password" and the others [RedactSecrets]
	// lists) replaced by "REDACTED", so that printing, logging or
	// marshalling the error never shows a webhook secret.
	Body []byte
	// RetryAfter is the wait a 429 or 503 asked for in its Retry-After
	// header; zero when it sent none. An error with a RetryAfter also
	// matches [ErrRateLimited].
	RetryAfter time.Duration
	// Err is the decoding error for an invalid response, if any.
	Err error
	// AuthHeader is the name of the header the credential was sent in
	// ("Authorization" or "X-API-KEY"; never its value). A 401's message
	// names it: a token sent where a key is expected, or the reverse,
	// shows there.
	AuthHeader string

	// uncertain: an earlier attempt may have taken effect.
	uncertain bool
}

// Error implements error.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "access: %s %s: HTTP %d", e.Method, e.URL, e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %s", unprefixed(e.Err))
	}
	if e.StatusCode == http.StatusUnauthorized && e.AuthHeader != "" {
		fmt.Fprintf(&b, " (credential sent in the %s header)", e.AuthHeader)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (after %d attempts)", e.Attempts)
	}
	return b.String()
}

// unprefixed is err's message without a leading "access: ", so that an
// error wrapping one of this package's errors names the package once.
func unprefixed(err error) string {
	if err == nil {
		return "<nil>"
	}
	return strings.TrimPrefix(err.Error(), "access: ")
}

// Unwrap returns the decoding error of an invalid response, if any.
func (e *APIError) Unwrap() error { return e.Err }

// Is reports whether the error belongs to the class of target, one of
// [ErrNotFound], [ErrUnauthorized], [ErrForbidden], [ErrRateLimited],
// [ErrInvalidParams], [ErrConflict], [ErrServer], [ErrUnavailable],
// [ErrUnsupported], [ErrInvalidResponse] or, for NFC enrollment,
// [ErrCardNotRead], [ErrCardProvisioned], [ErrCardProvisionFailed] and
// [ErrCardInvalid]. docs/errors.md has the table.
// A known result code decides the class (an HTTP 400 carrying
// CODE_USER_WORKER_NOT_EXISTS is ErrNotFound, not ErrInvalidParams); the
// HTTP status decides when the code is empty or unknown. HTTP 429 and 5xx
// always also match ErrRateLimited and ErrServer, whatever the code, so
// that throttling and outages are never missed.
func (e *APIError) Is(target error) bool {
	if target == ErrInvalidResponse {
		return e.invalid()
	}
	if target == ErrRateLimited && e.RetryAfter > 0 {
		return true
	}
	byStatus := statusClass(e.StatusCode)
	if class, ok := codeClass[e.Code]; ok {
		return class == target || (target == byStatus && (target == ErrRateLimited || target == ErrServer))
	}
	return byStatus == target
}

func (e *APIError) invalid() bool {
	return e.Err != nil && errors.Is(e.Err, ErrInvalidResponse)
}

// RequestError is returned when no usable response was received: the
// connection failed, TLS verification or certificate pinning failed, a
// redirect was refused, or the context ended. errors.Is(err,
// context.Canceled) and errors.Is(err, context.DeadlineExceeded) work through
// it.
type RequestError struct {
	Method   string
	URL      string // redacted
	Attempts int
	Err      error
}

// Error implements error.
func (e *RequestError) Error() string {
	s := fmt.Sprintf("access: %s %s: %s", e.Method, e.URL, unprefixed(e.Err))
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return s
}

// Unwrap returns the underlying error.
func (e *RequestError) Unwrap() error { return e.Err }

// ErrValidation is matched (errors.Is) by every [ValidationError].
var ErrValidation = errors.New("access: invalid argument")

// ValidationError reports a bad argument. It is returned before any request
// is sent.
type ValidationError struct {
	// Op is the method that rejected the argument, e.g. "Users.Get".
	Op string
	// Field names the argument, e.g. "id".
	Field string
	// Reason says what is wrong with it.
	Reason string
}

// Error implements error.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("access: %s: invalid %s: %s", e.Op, e.Field, e.Reason)
}

// Is makes errors.Is(err, ErrValidation) true.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation }

func invalidArg(op, field, reason string) error {
	return &ValidationError{Op: op, Field: field, Reason: reason}
}

// checkID validates an identifier that becomes one path segment.
func checkID(op, field, id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return invalidArg(op, field, "must not be empty")
	case id == "." || id == "..":
		return invalidArg(op, field, "must not be a dot segment")
	}
	return nil
}

// secretKeys are the JSON members whose values are secrets, compared
// without regard to ASCII case: the one list both the pre-check
// (mayHoldSecret) and the redaction (redactMembers) read.
var secretKeys = []string{"secret", "token", "pin_code", "pin", "password", "passphrase", "passwd", "api_key", "apikey",
	"access_token", "refresh_token", "client_secret", "private_key", "authorization", "headers"}

// RedactSecrets returns a copy of a request or response body with the
// values of the JSON members that carry secrets replaced by "REDACTED", as
// [APIError.Body] holds them; body itself when it has none. The members
// are "secret", "token", "pin_code", "pin", "password", "passphrase",
// "passwd", "api_key", "apikey", "access_token", "refresh_token",
// "client_secret", "private_key", "authorization" and "headers", in any
// case and however their names are escaped: a string or number becomes
// "REDACTED", an object or array keeps its shape with every string and
// number in it "REDACTED", and the "headers" object of a webhook endpoint
// becomes {"REDACTED":"REDACTED"} (its names are secrets too). It works on
// bodies that are not valid JSON (one cut off) too. Use it to log or print
// the traffic of a [WithTransportWrapper].
func RedactSecrets(body []byte) []byte { return redactBody(body) }

// mayHoldSecret reports whether raw may hold a member of secretKeys: one
// of them quoted (in any ASCII case), or an escape (\u) that might spell
// one. A body without any (most error answers) is not scanned.
func mayHoldSecret(raw []byte) bool {
	if bytes.Contains(raw, []byte(`\u`)) {
		return true
	}
	for i := bytes.IndexByte(raw, '"'); i >= 0; {
		rest := raw[i+1:]
		for _, k := range secretKeys {
			if len(rest) > len(k) && rest[len(k)] == '"' && asciiEqualFold(rest[:len(k)], k) {
				return true
			}
		}
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// redactBody returns raw with the values of secret members replaced, or raw
// itself when it has none.
func redactBody(raw []byte) []byte {
	if !mayHoldSecret(raw) {
		return raw
	}
	return redactMembers(raw)
}

// redactMembers scans raw as JSON tokens (it need not be valid JSON) and
// replaces the value of every member that secretName accepts; raw itself
// when there is none.
func redactMembers(raw []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(raw); {
		if raw[i] != '"' {
			i++
			continue
		}
		end := jsonStringEnd(raw, i)
		colon := skipJSONSpace(raw, end)
		if colon >= len(raw) || raw[colon] != ':' || !secretName(raw[i:end]) {
			i = end
			continue
		}
		v := skipJSONSpace(raw, colon+1)
		vEnd := jsonValueEnd(raw, v)
		if out == nil {
			out = make([]byte, 0, len(raw)+16)
		}
		out = append(out, raw[last:v]...)
		out = appendRedacted(out, raw[v:vEnd], asciiEqualFold(bytes.Trim(raw[i:end], `"`), "headers"))
		last, i = vEnd, vEnd
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// appendRedacted appends the redacted form of the JSON value v: a string
// or number "REDACTED", an object or array its shape with every string
// and number in it "REDACTED" (but for the names of its members), the
// object of "headers" {"REDACTED":"REDACTED"}; null, true and false as
// they are.
func appendRedacted(out, v []byte, headers bool) []byte {
	if len(v) == 0 {
		return out
	}
	if headers && v[0] == '{' {
		return append(out, `{"REDACTED":"REDACTED"}`...)
	}
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"':
			end := jsonStringEnd(v, i)
			if next := skipJSONSpace(v, end); next < len(v) && v[next] == ':' {
				out = append(out, v[i:end]...) // a member's name
			} else {
				out = append(out, `"REDACTED"`...)
			}
			i = end
		case c == '-' || '0' <= c && c <= '9':
			out = append(out, `"REDACTED"`...)
			for i < len(v) && bytes.IndexByte([]byte(",]} \t\r\n"), v[i]) < 0 {
				i++
			}
		case c == '{' || c == '[' || c == '}' || c == ']' || c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\r' || c == '\n':
			out = append(out, c)
			i++
		default: // null, true, false (or what is not JSON: it goes)
			j := i
			for j < len(v) && bytes.IndexByte([]byte(",]} \t\r\n\"{[:"), v[j]) < 0 {
				j++
			}
			if w := string(v[i:j]); w == "null" || w == "true" || w == "false" {
				out = append(out, w...)
			} else {
				out = append(out, `"REDACTED"`...)
			}
			i = max(j, i+1)
		}
	}
	return out
}

// secretName reports whether the quoted JSON string q (its quotes
// included) names a member of secretKeys, its escapes decoded.
func secretName(q []byte) bool {
	if len(q) < 2 || q[len(q)-1] != '"' {
		return false
	}
	name := q[1 : len(q)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		var s string
		if json.Unmarshal(q, &s) != nil {
			return false
		}
		name = []byte(s)
	}
	for _, k := range secretKeys {
		if asciiEqualFold(name, k) {
			return true
		}
	}
	return false
}

// asciiEqualFold reports whether b is k (lower case) but for ASCII case.
func asciiEqualFold(b []byte, k string) bool {
	if len(b) != len(k) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != k[i] {
			return false
		}
	}
	return true
}

// jsonStringEnd is the index just after the string opening at raw[i], or
// len(raw) when it is cut off.
func jsonStringEnd(raw []byte, i int) int {
	for j := i + 1; j < len(raw); j++ {
		switch raw[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(raw)
}

// skipJSONSpace is the index of the first byte from i on that is no JSON
// white space.
func skipJSONSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\r' || raw[i] == '\n') {
		i++
	}
	return i
}

// jsonValueEnd is the index just after the value starting at raw[i] (a
// string, an object or array with its nesting, or a scalar), len(raw)
// when it is cut off.
func jsonValueEnd(raw []byte, i int) int {
	if i >= len(raw) {
		return i
	}
	switch raw[i] {
	case '"':
		return jsonStringEnd(raw, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(raw); {
			switch raw[j] {
			case '"':
				j = jsonStringEnd(raw, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(raw)
	case ',', '}', ']', ':':
		return i // no value
	}
	j := i
	for j < len(raw) && bytes.IndexByte([]byte(",]} \t\r\n\"{[:"), raw[j]) < 0 {
		j++
	}
	return j
}
