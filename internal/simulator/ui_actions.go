package simulator

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// The web console's actions: its buttons, each a method of the fake.

// knownOps are offered for fault injection (any Service.Method works).
var knownOps = []string{
	string(accesstest.OpDoorsList), string(accesstest.OpDoorsGet), string(accesstest.OpDoorsUnlock),
	string(accesstest.OpDevicesList), string(accesstest.OpDevicesTriggerDoorbell),
	string(accesstest.OpUsersGet), "Users.List", "Users.Create", string(accesstest.OpVisitorsList), "Visitors.Create",
	string(accesstest.OpNotificationsSubscribe), string(accesstest.OpWebhooksCreate), string(accesstest.OpSystemLogsList),
}

// act runs one button. A form posted without JavaScript is redirected
// back to the page; the page's script gets 204 or the error as text.
func (c *console) act(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	msg, err := c.do(r.Form)
	c.kick()
	script := r.Header.Get("X-Console") != ""
	switch {
	case err != nil && script:
		http.Error(w, err.Error(), http.StatusBadRequest)
	case err != nil:
		http.Error(w, err.Error()+" (go back to the page)", http.StatusBadRequest)
	case script:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, msg)
	default:
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}

// do runs the action named by form's "do" on the fake, through the same
// Server methods Go tests call. It returns a line for the page.
func (c *console) do(form url.Values) (string, error) {
	f := c.fake
	dev, door := form.Get("device"), form.Get("door")
	switch form.Get("do") {
	case "ring":
		id, err := f.RingDoorbell(dev)
		return "Doorbell rings (request " + id + ")", err
	case "cancel-ring":
		return "Doorbell call cancelled", f.CancelDoorbell(dev)
	case "tap":
		card := strings.TrimSpace(form.Get("card"))
		if card == "" {
			return "", errors.New("give the card number to tap")
		}
		res, err := f.PresentCard(dev, card)
		switch {
		case err != nil:
			return "", err
		case res.Enrolled:
			return "Card " + card + " enrolled", nil
		case res.Granted:
			return "Access granted: card " + card, nil
		}
		return "Access denied: " + res.Reason, nil
	case "open":
		return "Door opened", f.SetDoorPosition(door, true)
	case "close":
		return "Door closed", f.SetDoorPosition(door, false)
	case "exit":
		return "Exit button pressed", f.PressExitButton(door)
	case "lockdown":
		return "Lockdown started", f.SetEmergency(access.EmergencyStatus{Lockdown: true})
	case "evacuation":
		return "Evacuation started", f.SetEmergency(access.EmergencyStatus{Evacuation: true})
	case "emergency-off":
		return "Emergency ended", f.SetEmergency(access.EmergencyStatus{})
	case "advance":
		d, err := time.ParseDuration(strings.TrimSpace(form.Get("by")))
		if err != nil || d <= 0 || d > 366*24*time.Hour {
			return "", errors.New("advance: give a duration such as 30s, 5m or 2h (up to a year)")
		}
		f.Advance(d)
		return "Clock advanced by " + d.String(), nil
	case "fault":
		op, fault, err := parseFault(form)
		if err != nil {
			return "", err
		}
		f.Inject(op, fault)
		return "Fault injected into " + string(op), nil
	case "clear-faults":
		f.ClearFaults()
		return "Faults cleared", nil
	}
	return "", fmt.Errorf("unknown action %q", form.Get("do"))
}

func parseFault(form url.Values) (accesstest.Op, accesstest.Fault, error) {
	var fault accesstest.Fault
	op := accesstest.Op(strings.TrimSpace(form.Get("op")))
	if svc, m, ok := strings.Cut(string(op), "."); !ok || svc == "" || m == "" || strings.ContainsAny(string(op), " /") {
		return "", fault, errors.New("fault: the operation is Service.Method, e.g. Doors.List")
	}
	num := func(name string, lo, hi int) (int, error) {
		s := strings.TrimSpace(form.Get(name))
		if s == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("fault: %s must be a whole number from %d to %d", name, lo, hi)
		}
		return n, nil
	}
	var err error
	if fault.Status, err = num("status", 0, 599); err != nil {
		return "", fault, err
	}
	if fault.Status != 0 && fault.Status < 200 {
		return "", fault, errors.New("fault: status must be from 200 to 599")
	}
	fault.Code = access.ErrorCode(strings.TrimSpace(form.Get("code")))
	ra, err := num("retry_after", 0, 3600)
	if err != nil {
		return "", fault, err
	}
	fault.RetryAfter = time.Duration(ra) * time.Second
	delay, err := num("delay_ms", 0, 60000)
	if err != nil {
		return "", fault, err
	}
	fault.Delay = time.Duration(delay) * time.Millisecond
	fault.DropConnection = form.Get("drop") != ""
	if fault.Times, err = num("times", 0, 1000000); err != nil {
		return "", fault, err
	}
	if fault == (accesstest.Fault{Times: fault.Times}) {
		return "", fault, errors.New("fault: give a status, an error code, a Retry-After, a delay or a dropped connection")
	}
	return op, fault, nil
}
