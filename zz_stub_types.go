package access

import "encoding/json"

// Temporary stubs until types.go lands.
type Visitor struct {
	ID        string `json:"id"`
	FirstName string `json:"first_name"`
	Status    string `json:"status"`
}
type User struct {
	ID        string `json:"id"`
	FirstName string `json:"first_name"`
}
type DeviceSettings struct {
	DeviceID      string        `json:"device_id"`
	AccessMethods AccessMethods `json:"access_methods"`
}
type YesNo string
type AccessMethods struct {
	NFC *AccessMethod `json:"nfc,omitempty"`
}
type AccessMethod struct {
	Enabled *YesNo `json:"enabled,omitempty"`
}
type Schedule struct {
	ID string `json:"id"`
}
type HolidayGroupSummary struct {
	ID string `json:"id"`
}
type TouchPass struct {
	ID     string `json:"id"`
	CardID string `json:"card_id"`
}
type TouchPasses []TouchPass

func (t *TouchPasses) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		var one TouchPass
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*t = TouchPasses{one}
		return nil
	}
	var many []TouchPass
	err := json.Unmarshal(b, &many)
	*t = many
	return err
}

type EventType string
type WebhookEndpoint struct {
	ID       string      `json:"id"`
	Endpoint string      `json:"endpoint"`
	Secret   string      `json:"secret"`
	Events   []EventType `json:"events"`
}
type WebhookEndpointRequest struct {
	Endpoint string            `json:"endpoint"`
	Name     string            `json:"name"`
	Events   []EventType       `json:"events"`
	Headers  map[string]string `json:"headers,omitempty"`
}

func Ptr[T any](v T) *T { return &v }

const (
	Yes YesNo = "yes"
	No  YesNo = "no"
)
