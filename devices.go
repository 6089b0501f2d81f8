package access

import "context"

// DevicesService reads and updates which access methods a device accepts.
// Get it from [Client.Devices]. Both operations need controller version
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

// UpdateSettings changes the access methods set in methods and leaves the
// others as they are: only non-nil members are sent.
//
//	_, err := client.Devices.UpdateSettings(ctx, id, &access.AccessMethods{
//		Face: &access.FaceMethod{Enabled: access.Yes},
//	})
//
// API: PUT /api/v1/developer/devices/{device_id}/settings (permission edit:device)
func (s *DevicesService) UpdateSettings(ctx context.Context, deviceID string, methods *AccessMethods) (*Response, error) {
	const op = "Devices.UpdateSettings"
	if err := checkID(op, "deviceID", deviceID); err != nil {
		return nil, err
	}
	if methods == nil {
		return nil, invalidArg(op, "methods", "must not be nil")
	}
	body := struct {
		AccessMethods *AccessMethods `json:"access_methods"`
	}{methods}
	_, resp, err := call[ignored](ctx, s.client, "PUT", devicePath(deviceID), nil, body, false)
	return resp, err
}

func devicePath(id string) string { return "/devices/" + pathSeg(id) + "/settings" }
