package access

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
)

// DevicesService lists the site's devices, rings doorbells, and reads and
// updates which access methods a device accepts. Get it from
// [Client.Devices]. The settings operations need controller version
// 3.3.10 or later; a device without the feature answers
// CODE_DEVICE_API_NOT_SUPPORTED.
type DevicesService service

// GetSettings fetches the access-method settings of a device (typically a
// hub or reader; the id is the 12-hex-digit device id).
//
// API: GET /api/v1/developer/devices/{device_id}/settings (permission view:device)
func (s *DevicesService) GetSettings(ctx context.Context, deviceID string) (*DeviceSettings, *Response, error) {
	if err := checkID("Devices.GetSettings", "deviceID", deviceID); err != nil {
		return nil, nil, err
	}
	return call[DeviceSettings](ctx, s.client, "GET", devicePath(deviceID), nil, nil, true)
}

// UpdateSettings changes the access methods set in upd and leaves the
// others as they are: only non-nil members are sent. To write back what
// [DevicesService.GetSettings] read, convert its access methods:
// (*access.DeviceSettingsUpdate)(&settings.AccessMethods).
//
//	_, err := client.Devices.UpdateSettings(ctx, id, &access.DeviceSettingsUpdate{
//		Face: &access.FaceMethod{Enabled: access.Yes},
//	})
//
// API: PUT /api/v1/developer/devices/{device_id}/settings (permission edit:device)
func (s *DevicesService) UpdateSettings(ctx context.Context, deviceID string, upd *DeviceSettingsUpdate) (*Response, error) {
	const op = "Devices.UpdateSettings"
	if err := checkID(op, "deviceID", deviceID); err != nil {
		return nil, err
	}
	if upd == nil {
		return nil, invalidArg(op, "upd", "must not be nil")
	}
	body := struct {
		AccessMethods *DeviceSettingsUpdate `json:"access_methods"`
	}{upd}
	_, resp, err := call[ignored](ctx, s.client, "PUT", devicePath(deviceID), nil, body, false)
	return resp, err
}

func devicePath(id string) string { return "/devices/" + pathSeg(id) + "/settings" }

// Device is a device of the site (hub, reader, intercom) as
// [DevicesService.List] returns it.
type Device struct {
	// ID is the 12-hex-digit device id used by the other device operations.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Type is the model, e.g. "UAH", "UA-G2-PRO", "UA-Intercom".
	Type  string `json:"type"`
	Alias string `json:"alias"`
	// Capabilities are e.g. "pin_code", "nfc", "face", "is_hub".
	Capabilities []string `json:"capabilities"`
	// ConnectedUAHID is the id of the hub the device is wired to; empty
	// for hubs.
	ConnectedUAHID string `json:"connected_uah_id"`
	IsAdopted      bool   `json:"is_adopted"`
	IsConnected    bool   `json:"is_connected"`
	IsManaged      bool   `json:"is_managed"`
	IsOnline       bool   `json:"is_online"`
	// LocationID is the id of the door the device is bound to.
	LocationID string `json:"location_id"`
}

// DeviceGroups is the devices list as the controller sends it: one group
// per door (or location), each holding that door's devices. A device that
// serves several doors, such as a hub, appears in each of their groups;
// [DeviceGroups.Devices] gives the flat view without duplicates.
type DeviceGroups [][]Device

// UnmarshalJSON decodes the array of arrays, and leniently a flat array of
// devices (each then forms its own group). Null groups are dropped.
func (g *DeviceGroups) UnmarshalJSON(b []byte) error {
	// Fast path: the documented array of arrays.
	var groups [][]Device
	if err := json.Unmarshal(b, &groups); err == nil {
		*g = dropNullGroups(groups)
		return nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	out := make(DeviceGroups, 0, len(raw))
	for _, r := range raw {
		r = bytes.TrimLeft(r, " \t\r\n")
		switch {
		case len(r) == 0 || r[0] == 'n':
			continue
		case r[0] == '{':
			var d Device
			if err := json.Unmarshal(r, &d); err != nil {
				return err
			}
			out = append(out, []Device{d})
		default:
			var grp []Device
			if err := json.Unmarshal(r, &grp); err != nil {
				return err
			}
			if grp == nil {
				grp = []Device{}
			}
			out = append(out, grp)
		}
	}
	*g = out
	return nil
}

// Devices returns every device once, in the order of first appearance.
func (g DeviceGroups) Devices() []Device {
	seen := make(map[string]bool)
	out := []Device{}
	for _, grp := range g {
		for _, d := range grp {
			if seen[d.ID] {
				continue
			}
			seen[d.ID] = true
			out = append(out, d)
		}
	}
	return out
}

// DeviceListOptions are the options of [DevicesService.List].
type DeviceListOptions struct {
	// Refresh asks the controller for live device information instead of
	// its cache; slower.
	Refresh bool `url:"refresh,omitempty"`
}

// List fetches the site's devices, grouped by door; use
// [DeviceGroups.Devices] for a flat list without duplicates. Opts may be
// nil. Available on every controller version with the developer API.
//
// API: GET /api/v1/developer/devices (permission view:device)
func (s *DevicesService) List(ctx context.Context, opts *DeviceListOptions) (DeviceGroups, *Response, error) {
	var q any
	if opts != nil && opts.Refresh {
		q = url.Values{"refresh": {"true"}}
	}
	// The documented shape decodes directly; anything else is retried
	// from the kept body with the lenient DeviceGroups decoding.
	v, resp, err := call[[][]Device](ctx, s.client, "GET", "/devices", q, nil, false)
	if err != nil {
		if g, ok := lenientDevices(resp, err); ok {
			return g, resp, nil
		}
		return nil, resp, err
	}
	if v == nil {
		return DeviceGroups{}, resp, nil
	}
	return dropNullGroups(*v), resp, nil
}

// lenientDevices decodes a successful devices answer whose data is not
// an array of arrays (a flat array, say) from the body kept in err.
func lenientDevices(resp *Response, err error) (DeviceGroups, bool) {
	var e *APIError
	if resp == nil || !errors.As(err, &e) || !errors.Is(err, ErrInvalidResponse) || len(e.Body) == 0 {
		return nil, false
	}
	var env struct {
		Code ErrorCode     `json:"code"`
		Msg  string        `json:"msg"`
		Data *DeviceGroups `json:"data"`
	}
	if json.Unmarshal(e.Body, &env) != nil || !isSuccess(env.Code) {
		return nil, false
	}
	resp.Code, resp.Message = env.Code, env.Msg
	if env.Data == nil {
		return DeviceGroups{}, true
	}
	return *env.Data, true
}

// dropNullGroups removes the groups that were null on the wire.
func dropNullGroups(groups [][]Device) DeviceGroups {
	out := groups[:0]
	for _, grp := range groups {
		if grp != nil {
			out = append(out, grp)
		}
	}
	if out == nil {
		return DeviceGroups{}
	}
	return out
}

// DoorbellRequest rings (or stops) the doorbell of an intercom or a
// reader pro.
type DoorbellRequest struct {
	// RoomName is the intercom directory entry to ring; "" rings the
	// default doorbell. It is always sent (the controller requires it).
	RoomName string `json:"room_name"`
	// Cancel stops the previous ring if it is still ringing.
	Cancel bool `json:"cancel,omitempty"`
}

// TriggerDoorbell rings the doorbell of an intercom or a reader pro, or
// with req.Cancel stops the ring. It acts on a physical device, so, like
// [DoorsService.Unlock], it is retried only after a failure that proves
// the console did not act (no connection, 429, 503, a busy or offline
// device), whatever RetryPolicy.RetryWrites says. Needs controller version
// 4.0.10 or later; other devices answer CODE_DEVICE_API_NOT_SUPPORTED.
//
// API: POST /api/v1/developer/devices/{device_id}/doorbell (permission edit:device)
func (s *DevicesService) TriggerDoorbell(ctx context.Context, deviceID string, req *DoorbellRequest) (*Response, error) {
	const op = "Devices.TriggerDoorbell"
	if err := checkID(op, "deviceID", deviceID); err != nil {
		return nil, err
	}
	if req == nil {
		return nil, invalidArg(op, "req", "must not be nil")
	}
	if ctx == nil {
		return nil, invalidArg(op, "ctx", "must not be nil")
	}
	_, resp, err := call[ignored](physicalAct(ctx), s.client, "POST", "/devices/"+pathSeg(deviceID)+"/doorbell", nil, req, false)
	return resp, err
}

// DeviceSettings is the access-method configuration of a device.
type DeviceSettings struct {
	DeviceID      string        `json:"device_id"`
	AccessMethods AccessMethods `json:"access_methods"`
}

// AccessMethods lists a device's access methods, as
// [DevicesService.GetSettings] reads them. A nil member is a method the
// device does not report. [DeviceSettingsUpdate] has the same members, so
// one converts to the other.
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

// DeviceSettingsUpdate is the update of [DevicesService.UpdateSettings]:
// a nil member keeps the method as it is, a non-nil one is sent. Within a
// method, a member left empty ("") is not sent and keeps its value; none
// of them can be cleared, each is a choice from a fixed set. It has the
// members of [AccessMethods]: convert a read configuration with
// (*access.DeviceSettingsUpdate)(&settings.AccessMethods) to write it back.
type DeviceSettingsUpdate AccessMethods

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
