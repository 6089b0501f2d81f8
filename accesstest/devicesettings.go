package accesstest

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/access-dev/access"
)

// Device settings: the access methods of each device, part of the space
// store (spaceState.settings).

// AddDevice stores a device's access-method settings; an empty DeviceID
// gets a random 12-hex-digit id.
func (s *Server) AddDevice(d access.DeviceSettings) access.DeviceSettings {
	return addRecord(s, "AddDevice", "device id", d,
		func(d *access.DeviceSettings) string {
			if d.DeviceID == "" {
				d.DeviceID = s.randomHex(6)
			}
			return d.DeviceID
		},
		func(d *access.DeviceSettings) bool { return s.space.settings[d.DeviceID] != nil },
		func(d *access.DeviceSettings) {
			s.space.settings[d.DeviceID] = d
			s.space.settingsOrder = append(s.space.settingsOrder, d.DeviceID)
		})
}

// Device returns a device's current settings, as updates left them.
func (s *Server) Device(id string) (access.DeviceSettings, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.space.settings[id]
	if !ok {
		return access.DeviceSettings{}, false
	}
	return clone(*d), true
}

// DeviceIDs returns the ids of the stored devices, in insertion order.
func (s *Server) DeviceIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.space.settingsOrder)
}

func (s *Server) getDeviceSettings(w http.ResponseWriter, r *http.Request) {
	d, ok := s.Device(r.PathValue("id"))
	if !ok {
		writeError(w, http.StatusBadRequest, access.CodeDeviceDeviceNotFound, "The device was not found.")
		return
	}
	writeData(w, d)
}

// methodFields lists, per access method, the fields it accepts and their
// allowed values; made when first used, not at every start of a program
// that links the fake.
var methodFields = sync.OnceValue(func() map[string]map[string][]string {
	return map[string]map[string][]string{
		"nfc": {"enabled": yesNo}, "bt_tap": {"enabled": yesNo}, "bt_button": {"enabled": yesNo},
		"bt_shake": {"enabled": yesNo}, "mobile_wave": {"enabled": yesNo}, "wave": {"enabled": yesNo},
		"qr_code": {"enabled": yesNo}, "touch_pass": {"enabled": yesNo},
		"pin_code": {"enabled": yesNo, "pin_code_shuffle": yesNo},
		"face":     {"enabled": yesNo, "anti_spoofing_level": {"high", "medium", "no"}, "detect_distance": {"near", "medium", "far"}},
	}
})

var yesNo = []string{"yes", "no"}

// validateMethods checks an update's access methods against methodFields.
func validateMethods(methods map[string]map[string]string) string {
	for m, fields := range methods {
		allowed, ok := methodFields()[m]
		if !ok {
			return "unknown access method " + strconv.Quote(m) + "."
		}
		for f, v := range fields {
			values, ok := allowed[f]
			if !ok {
				return "unknown field " + strconv.Quote(m+"."+f) + "."
			}
			if !slices.Contains(values, v) {
				return m + "." + f + " must be one of " + strings.Join(values, ", ") + "."
			}
		}
	}
	return ""
}

// updateDeviceSettings applies a partial update: members and fields
// absent from the request keep their value. The settings are merged in
// their wire form (method -> field -> value), which all fields share.
func (s *Server) updateDeviceSettings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		AccessMethods map[string]map[string]string `json:"access_methods"`
	}
	if err := decodeBody(r, &req); err != nil || req.AccessMethods == nil {
		badParams(w, "Body must be an object with access_methods, whose values are strings.")
		return
	}
	if msg := validateMethods(req.AccessMethods); msg != "" {
		badParams(w, msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.space.settings[r.PathValue("id")]
	if !ok {
		writeError(w, http.StatusBadRequest, access.CodeDeviceDeviceNotFound, "The device was not found.")
		return
	}
	current := recode[map[string]map[string]string](d.AccessMethods)
	for m, fields := range req.AccessMethods {
		if current[m] == nil {
			current[m] = map[string]string{}
		}
		maps.Copy(current[m], fields)
	}
	d.AccessMethods = recode[access.AccessMethods](current)
	s.publish(change{Log: "access methods updated on device: " + d.DeviceID})
	writeJSON(w, http.StatusOK, envelope{Code: access.CodeSuccess, Msg: "success", Data: "success"})
}
