package access

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// PINCodesService generates PIN codes. Assign one with
// [UsersService.AssignPINCode] or [VisitorsService.AssignPINCode]. Get it
// from [Client.PINCodes].
type PINCodesService service

// PINCode is a PIN credential as users and visitors embed it: the
// controller reports only a hash of the PIN (Token), never the digits.
type PINCode struct {
	Token string `json:"token"`
}

// pinString decodes the generated PIN, which the vendor documents as a
// string; a console that sends it as a number is accepted too.
type pinString string

// UnmarshalJSON implements json.Unmarshaler.
func (p *pinString) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	} else {
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("access: PIN code: want a string, got %.20s", b)
		}
		s = n.String()
	}
	*p = pinString(s)
	return nil
}

// Generate asks the controller for a PIN code that no one uses yet. It
// assigns nothing and changes no state: the PIN is reserved only once it
// is assigned (a PIN taken in between is refused with
// CODE_CREDS_PIN_CODE_CREDS_ALREADY_EXIST, [ErrConflict]; generate
// another). Although it is a POST, it is therefore retried like a read.
// The vendor lists the permission view:credential for it.
//
// API: POST /api/v1/developer/credentials/pin_codes (permission view:credential)
func (s *PINCodesService) Generate(ctx context.Context) (string, *Response, error) {
	v, resp, err := call[pinString](retrySafe(ctx), s.client, "POST", "/credentials/pin_codes", nil, nil, true)
	if err != nil {
		return "", resp, err
	}
	if strings.TrimSpace(string(*v)) == "" {
		return "", resp, invalidData(resp, "the controller returned an empty PIN code")
	}
	return string(*v), resp, nil
}

func checkPIN(op, pin string) error {
	if pin == "" {
		return invalidArg(op, "pin", "must not be empty")
	}
	for _, c := range pin {
		if c < '0' || c > '9' {
			return invalidArg(op, "pin", "must be digits only")
		}
	}
	return nil
}
