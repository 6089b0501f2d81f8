package accesstest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/access-dev/access"
)

// recode converts v to a T through its JSON form.
func recode[T any](v any) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic("accesstest: recode: " + err.Error())
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic("accesstest: recode: " + err.Error())
	}
	return out
}

// clone deep-copies a record, so that callers and the server never share
// slices or pointers.
func clone[T any](v T) T { return recode[T](v) }

// weeklySchedule encodes a schedule the way controllers do: the weekly
// ranges under "weekly" rather than the spec's "week_schedule".
type weeklySchedule struct {
	access.Schedule
	Hidden *access.WeekSchedule `json:"week_schedule,omitempty"`
	Weekly *access.WeekSchedule `json:"weekly"`
}

func wireSchedule(sc *access.Schedule) *weeklySchedule {
	if sc == nil {
		return nil
	}
	return &weeklySchedule{Schedule: *sc, Weekly: sc.WeekSchedule}
}

// ---- seeding and inspection ----

// seed runs f under the lock and fails the test (or panics) on error.
func seed[T any](s *Server, f func() (T, error)) T {
	s.mu.Lock()
	v, err := f()
	if err == nil {
		s.mu.touch()
	}
	s.mu.Unlock()
	if err != nil {
		s.fail("%v", err)
	}
	return v
}

// addRecord is the seeding the AddXxx methods of plain records share,
// under the lock: fill sets v's defaults and returns its id; a record
// whose id (or anything else) taken reports is refused as a duplicate
// ("accesstest: <what>: duplicate <noun> id ..."); otherwise store
// keeps a private copy, and a copy of it is returned.
func addRecord[T any](s *Server, what, noun string, v T, fill func(*T) string, taken func(*T) bool, store func(*T)) T {
	return seed(s, func() (T, error) {
		id := fill(&v)
		if taken(&v) {
			var zero T
			return zero, fmt.Errorf("accesstest: %s: duplicate %s %q", what, noun, id)
		}
		c := clone(v)
		store(&c)
		return clone(c), nil
	})
}

// appendTo is a store for addRecord that appends to a list.
func appendTo[T any](list *[]*T) func(*T) { return func(v *T) { *list = append(*list, v) } }

// AddDevice stores a device's access-method settings; an empty DeviceID
// gets a random 12-hex-digit id.
func (s *Server) AddDevice(d access.DeviceSettings) access.DeviceSettings {
	return addRecord(s, "AddDevice", "device id", d,
		func(d *access.DeviceSettings) string {
			if d.DeviceID == "" {
				d.DeviceID = randomHex(6)
			}
			return d.DeviceID
		},
		func(d *access.DeviceSettings) bool { return s.devices[d.DeviceID] != nil },
		func(d *access.DeviceSettings) {
			s.devices[d.DeviceID] = d
			s.deviceOrder = append(s.deviceOrder, d.DeviceID)
		})
}

// Device returns a device's current settings, as updates left them.
func (s *Server) Device(id string) (access.DeviceSettings, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.devices[id]
	if !ok {
		return access.DeviceSettings{}, false
	}
	return clone(*d), true
}

// DeviceIDs returns the ids of the stored devices, in insertion order.
func (s *Server) DeviceIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deviceOrder)
}

// AddWebhook registers an endpoint directly; an empty ID or Secret is
// generated. Registering a URL twice fails the test.
func (s *Server) AddWebhook(ep access.WebhookEndpoint) access.WebhookEndpoint {
	return addRecord(s, "AddWebhook", "endpoint or id", ep,
		func(ep *access.WebhookEndpoint) string {
			if ep.ID == "" {
				ep.ID = newID()
			}
			if ep.Secret == "" {
				ep.Secret = access.Secret(randomHex(8))
			}
			return ep.Endpoint + " " + ep.ID
		},
		func(ep *access.WebhookEndpoint) bool {
			return slices.ContainsFunc(s.webhooks, func(x *access.WebhookEndpoint) bool { return x.Endpoint == ep.Endpoint || x.ID == ep.ID })
		},
		appendTo(&s.webhooks))
}

// Webhooks returns the registered webhook endpoints, secrets included.
func (s *Server) Webhooks() []access.WebhookEndpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]access.WebhookEndpoint, len(s.webhooks))
	for i, ep := range s.webhooks {
		out[i] = clone(*ep)
	}
	return out
}

// ---- operations ----

func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data")
	}
	return nil
}

// webhookRequest decodes and checks the body of a create or an update (the
// vendor requires the same fields for both); it answers the request and
// returns false when the body is bad.
func webhookRequest(w http.ResponseWriter, r *http.Request) (access.WebhookEndpointRequest, bool) {
	var req access.WebhookEndpointRequest
	if err := decodeBody(r, &req); err != nil {
		badParams(w, "Body is not a JSON endpoint.")
		return req, false
	}
	u, err := url.Parse(req.Endpoint)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		badParams(w, "endpoint must be an http or https URL.")
		return req, false
	case strings.TrimSpace(req.Name) == "":
		badParams(w, "name is required.")
		return req, false
	case len(req.Events) == 0:
		badParams(w, "events is required.")
		return req, false
	}
	for _, e := range req.Events {
		if !e.Known() {
			badParams(w, "unknown event "+strconv.Quote(string(e))+".")
			return req, false
		}
	}
	return req, true
}

// webhookURLTaken reports whether another endpoint than id has the URL.
// Controllers report a duplicate on HTTP 200. s.mu is held.
func (s *Server) webhookURLTaken(w http.ResponseWriter, url, id string) bool {
	for _, x := range s.webhooks {
		if x.Endpoint == url && x.ID != id {
			writeError(w, http.StatusOK, access.CodeDeviceWebhookEndpointDuplicated, "The provided endpoint already exists.")
			return true
		}
	}
	return false
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) {
	req, ok := webhookRequest(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.webhookURLTaken(w, req.Endpoint, "") {
		return
	}
	ep := &access.WebhookEndpoint{ID: newID(), Endpoint: req.Endpoint, Name: req.Name, Secret: access.Secret(randomHex(8)),
		Events: slices.Clone(req.Events), Headers: req.Headers}
	s.webhooks = append(s.webhooks, ep)
	s.publish(change{Log: "webhook endpoint created: " + ep.ID})
	writeData(w, clone(*ep))
}

// updateWebhook replaces an endpoint's URL, name, events and headers; the
// id and the secret stay.
func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request) {
	req, ok := webhookRequest(w, r)
	if !ok {
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.webhooks, func(ep *access.WebhookEndpoint) bool { return ep.ID == id })
	if i < 0 {
		writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The requested resource was not found.")
		return
	}
	if s.webhookURLTaken(w, req.Endpoint, id) {
		return
	}
	ep := s.webhooks[i]
	ep.Endpoint, ep.Name, ep.Events, ep.Headers = req.Endpoint, req.Name, slices.Clone(req.Events), req.Headers
	s.publish(change{Log: "webhook endpoint updated: " + ep.ID})
	writeData(w, clone(*ep))
}

func (s *Server) listWebhooks(w http.ResponseWriter, _ *http.Request) {
	writeData(w, s.Webhooks())
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	s.mu.Lock()
	i := slices.IndexFunc(s.webhooks, func(ep *access.WebhookEndpoint) bool { return ep.ID == id })
	if i >= 0 {
		s.webhooks = slices.Delete(s.webhooks, i, i+1)
		s.publish(change{Log: "webhook endpoint deleted: " + id})
	}
	s.mu.Unlock()
	if i < 0 {
		writeError(w, http.StatusBadRequest, access.CodeResourceNotFound, "The requested resource was not found.")
		return
	}
	writeData(w, nil)
}

// positiveParam reads an optional positive integer query parameter.
func positiveParam(q url.Values, key string, def int) (int, bool) {
	if !q.Has(key) {
		return def, true
	}
	n, err := strconv.Atoi(q.Get(key))
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
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
// allowed values.
var methodFields = map[string]map[string][]string{
	"nfc": {"enabled": yesNo}, "bt_tap": {"enabled": yesNo}, "bt_button": {"enabled": yesNo},
	"bt_shake": {"enabled": yesNo}, "mobile_wave": {"enabled": yesNo}, "wave": {"enabled": yesNo},
	"qr_code": {"enabled": yesNo}, "touch_pass": {"enabled": yesNo},
	"pin_code": {"enabled": yesNo, "pin_code_shuffle": yesNo},
	"face":     {"enabled": yesNo, "anti_spoofing_level": {"high", "medium", "no"}, "detect_distance": {"near", "medium", "far"}},
}

var yesNo = []string{"yes", "no"}

// validateMethods checks an update's access methods against methodFields.
func validateMethods(methods map[string]map[string]string) string {
	for m, fields := range methods {
		allowed, ok := methodFields[m]
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
	d, ok := s.devices[r.PathValue("id")]
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
