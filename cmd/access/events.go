package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/access-dev/access"
	"github.com/spf13/cobra"
)

// eventAliases are short names for the notifications a person watches.
// (Made when first used, not at every start.)
var eventAliases = sync.OnceValue(func() map[string][]access.NotificationEvent {
	return map[string][]access.NotificationEvent{
		"doorbell":    {access.NotificationRemoteView, access.NotificationRemoteViewChange, access.NotificationDoorBell},
		"door.unlock": {access.NotificationRemoteUnlock},
		"emergency":   {access.NotificationSettingUpdate},
		"logs":        {access.NotificationLogsAdd},
		"location":    {access.NotificationLocationUpdate, access.NotificationLocationUpdateV2},
		"device":      {access.NotificationDeviceUpdate, access.NotificationDeviceUpdateV2, access.NotificationDeviceLocationUpdateV2},
	}
})

// eventFilter matches notifications against --type values: an alias, a
// full event name, or a name without its "access." prefix.
type eventFilter map[access.NotificationEvent]bool

func newEventFilter(types []string) eventFilter {
	if len(types) == 0 {
		return nil
	}
	f := eventFilter{}
	for _, t := range types {
		if evs, ok := eventAliases()[t]; ok {
			for _, e := range evs {
				f[e] = true
			}
			continue
		}
		f[access.NotificationEvent(t)] = true
		f[access.NotificationEvent("access."+t)] = true
	}
	return f
}

func (f eventFilter) match(e access.NotificationEvent) bool { return f == nil || f[e] }

func eventTypeCompletions() []string {
	out := make([]string, 0, len(eventAliases()))
	for k := range eventAliases() {
		out = append(out, k)
	}
	return out
}

func (a *app) eventsCommand() *cobra.Command {
	g := groupCommand("events", "Live notifications: tail them, or forward them as signed webhooks")
	var types []string
	var count int
	tail := &cobra.Command{
		Use:   "tail",
		Short: "Print live notifications (the notifications WebSocket)",
		Long: `Print the console's notifications as they happen: a line per event on a terminal,
JSONL otherwise. The stream reconnects by itself; a "down" line on stderr says when
a reconnection failed (once per outage) and a "gap" line when it is back and
events may have been missed.

--type takes event names (access.remote_view), names without "access." or the
short names doorbell, door.unlock, emergency, logs, location and device.

With --fake the demo site is busy while the command listens: every half second
someone leaves through the main entrance, a visitor rings the intercom and gives
up, or an unknown card is held to the main reader.

` + factsHelp("Notifications.Subscribe", "view:device"),
		Example: "  access --fake events tail --type doorbell,door.unlock --count 3",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return a.subscribe(types, count, false, func(n *access.Notification) (bool, error) { return true, a.printNotification(n) })
		},
	}
	tail.Flags().StringSliceVar(&types, "type", nil, "only these events (comma separated)")
	tail.Flags().IntVar(&count, "count", 0, "stop after N events (0: run until Ctrl-C)")
	_ = tail.RegisterFlagCompletionFunc("type", cobra.FixedCompletions(eventTypeCompletions(), cobra.ShellCompDirectiveNoFileComp))

	var forward, secretFile string
	var all bool
	var ltypes []string
	var lcount int
	listen := &cobra.Command{
		Use:   "listen --forward-to URL",
		Short: "Forward live notifications to a local webhook handler, signed",
		Long: `Turn every notification into a webhook delivery in the vendor's format, signed
with a webhook secret as the console signs (the Signature header, verified by
access.ConstructEvent), and POST it to --forward-to: a webhook handler on a laptop
can then run against a real console without registering an endpoint the console
can reach. Each delivery's status and latency is printed.

Doorbells become access.doorbell.incoming and access.doorbell.completed, remote
unlocks access.door.unlock and emergency changes access.device.emergency_status;
--all-events forwards the other notifications too, under their own names.
The secret comes from $ACCESS_WEBHOOK_SECRET or --secret-file FILE (- for stdin), never
from a flag value; without either a random secret is made and printed.
With --fake the demo site is busy while the command listens (see events tail).

` + factsHelp("Notifications.Subscribe, SignPayload", "view:device"),
		Example: "  access --fake events listen --forward-to http://localhost:8080/webhook --secret-file secret.txt --count 2",
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if forward == "" {
				return usageErrorf("events listen: --forward-to URL is required")
			}
			if !strings.HasPrefix(forward, "http://") && !strings.HasPrefix(forward, "https://") {
				return usageErrorf("--forward-to %q: want an http:// or https:// URL", forward)
			}
			secret := a.getenv("ACCESS_WEBHOOK_SECRET")
			if secretFile != "" {
				var err error
				if secret, err = a.readSecretFile("--secret-file", secretFile); err != nil {
					return err
				}
			}
			if secret == "" {
				b := make([]byte, 16)
				_, _ = rand.Read(b)
				secret = "whsec_" + hex.EncodeToString(b)
				fmt.Fprintf(a.stderr, "signing with the new secret %s\n", secret)
			}
			f := &forwarder{a: a, url: forward, secret: secret, all: all, hc: &http.Client{Timeout: 10 * time.Second}}
			return a.subscribe(ltypes, lcount, false, f.forward)
		},
	}
	lf := listen.Flags()
	lf.StringVar(&forward, "forward-to", "", "the URL to POST deliveries to")
	lf.StringVar(&secretFile, "secret-file", "", "read the webhook secret to sign with from `FILE` (- for stdin; default $ACCESS_WEBHOOK_SECRET or a new one)")
	lf.Var(refusedFlag{&secretFlagError{"a webhook secret", "ACCESS_WEBHOOK_SECRET or --secret-file FILE"}}, "secret", "not accepted: a secret on the command line shows in ps and the shell history")
	_ = lf.MarkHidden("secret")
	lf.BoolVar(&all, "all-events", false, "forward every notification, not only those with a webhook event")
	lf.StringSliceVar(&ltypes, "type", nil, "only these notifications (as for tail)")
	lf.IntVar(&lcount, "count", 0, "stop after N deliveries")
	g.AddCommand(tail, listen)
	return g
}

// subscribe runs the notifications stream, calling fn for each matching
// notification until count of them were handled or the context ends.
// With resyncOnGap (--watch), fn is called with nil after a gap.
func (a *app) subscribe(types []string, count int, resyncOnGap bool, fn func(*access.Notification) (bool, error)) error {
	if err := checkEventTypes(types); err != nil {
		return err
	}
	cl, err := a.Client()
	if err != nil {
		return err
	}
	filter := newEventFilter(types)
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	if a.fakeSrv != nil { // --fake: the demo site is busy while we listen
		played := make(chan struct{})
		go func() {
			defer close(played)
			playFakeSite(ctx, a.fakeSrv, fakeActivityEvery)
		}()
		defer func() { cancel(); <-played }()
	}
	seen := 0
	for n, err := range cl.Notifications.Subscribe(ctx, nil) {
		if err != nil {
			var re *access.ReconnectedError
			if errors.As(err, &re) {
				fmt.Fprintf(a.stderr, "gap: the stream was down from %s to %s (%v); events may have been missed\n",
					re.Disconnected.Format(time.TimeOnly), re.Reconnected.Format(time.TimeOnly), re.Cause)
			} else if errors.Is(err, access.ErrReconnected) {
				fmt.Fprintf(a.stderr, "gap: %v\n", err)
			}
			if errors.Is(err, access.ErrReconnected) {
				if stop, err := a.resync(fn, &seen, count, resyncOnGap); stop || err != nil {
					return err
				}
				continue
			}
			// The stream is down (once per outage): say so, and keep
			// waiting for the reconnection the SDK is attempting.
			var de *access.DisconnectedError
			if errors.As(err, &de) {
				fmt.Fprintf(a.stderr, "down: the stream is down since %s (%v); reconnecting\n",
					de.Disconnected.Format(time.TimeOnly), de.Cause)
				continue
			}
			if errors.Is(err, access.ErrDisconnected) {
				fmt.Fprintf(a.stderr, "down: %v; reconnecting\n", err)
				continue
			}
			if a.ctx.Err() != nil {
				return a.ctx.Err()
			}
			return err
		}
		if !filter.match(n.Event) {
			continue
		}
		handled, err := fn(n)
		if err != nil {
			return err
		}
		if !handled {
			continue
		}
		seen++
		if count > 0 && seen >= count {
			return nil
		}
	}
	return a.ctx.Err()
}

// printNotification writes one notification: a line on a terminal, JSON
// otherwise.
func (a *app) printNotification(n *access.Notification) error {
	switch f := a.format(); f {
	case "json", "jsonl":
		return a.emitAs("jsonl", []*access.Notification{n}, nil)
	case "yaml":
		return a.emitAs("yaml", []*access.Notification{n}, nil)
	}
	_, err := fmt.Fprintf(a.stdout, "%s  %-34s %s\n", time.Now().Format(time.TimeOnly), n.Event, describe(n))
	return err
}

// describe summarises a notification for a person.
func describe(n *access.Notification) string {
	switch n.Event {
	case access.NotificationRemoteView:
		if d, err := n.RemoteView(); err == nil {
			return fmt.Sprintf("doorbell at %s (%s) request %s", firstNonEmpty(d.DoorName, d.DeviceName), d.DeviceName, d.RequestID)
		}
	case access.NotificationRemoteViewChange:
		if d, err := n.RemoteViewChange(); err == nil {
			return fmt.Sprintf("doorbell %s ended: %d", d.RemoteCallRequestID, d.ReasonCode)
		}
	case access.NotificationRemoteUnlock:
		if d, err := n.RemoteUnlock(); err == nil {
			return "remote unlock of " + firstNonEmpty(d.FullName, d.Name, d.UniqueID)
		}
	case access.NotificationSettingUpdate:
		if d, err := n.SettingUpdate(); err == nil {
			return fmt.Sprintf("emergency: lockdown=%t evacuation=%t", d.Lockdown, d.Evacuation)
		}
	case access.NotificationLogsAdd:
		if d, err := n.LogsAdd(); err == nil {
			return firstNonEmpty(d.Source.Event.DisplayMessage, d.Source.Event.Type)
		}
	}
	return n.EventObjectID
}

// forwarder posts notifications as signed webhook deliveries.
type forwarder struct {
	a      *app
	url    string
	secret string
	all    bool
	hc     *http.Client
}

// webhookEvent converts a notification to the vendor's delivery format
// {event, event_object_id, data{location, device, actor, object}}; nil
// when it has no webhook counterpart (and --all-events is off).
func (f *forwarder) webhookEvent(n *access.Notification) (*access.WebhookEvent, error) {
	ev := &access.WebhookEvent{EventObjectID: n.EventObjectID}
	obj := func(v any) error {
		b, err := json.Marshal(v)
		ev.Data.Object = b
		return err
	}
	switch n.Event {
	case access.NotificationRemoteView:
		d, err := n.RemoteView()
		if err != nil {
			return nil, err
		}
		ev.Event = access.EventDoorbellIncoming
		ev.EventObjectID = d.RequestID
		ev.Data.Device = &access.EventDevice{ID: d.DeviceID, Name: d.DeviceName, DeviceType: d.DeviceType, ConnectedHubID: d.ConnectedUAHID}
		ev.Data.Location = &access.EventLocation{ID: d.RoomID, Name: d.DoorName, LocationType: "door"}
		return ev, obj(access.DoorbellObject{RequestID: d.RequestID, HostDeviceMAC: d.HostDeviceMAC})
	case access.NotificationRemoteViewChange:
		d, err := n.RemoteViewChange()
		if err != nil {
			return nil, err
		}
		ev.Event = access.EventDoorbellCompleted
		ev.EventObjectID = d.RemoteCallRequestID
		return ev, obj(access.DoorbellObject{RequestID: d.RemoteCallRequestID, ReasonCode: int(d.ReasonCode)})
	case access.NotificationRemoteUnlock:
		d, err := n.RemoteUnlock()
		if err != nil {
			return nil, err
		}
		ev.Event = access.EventDoorUnlock
		ev.EventObjectID = d.UniqueID
		ev.Data.Location = &access.EventLocation{ID: d.UniqueID, Name: d.Name, UpID: d.UpID, LocationType: firstNonEmpty(d.LocationType, "door")}
		ev.Data.Actor = &access.EventActor{Type: "open_api"}
		return ev, obj(access.DoorUnlockObject{AuthenticationType: "API", Result: "Access Granted"})
	case access.NotificationSettingUpdate:
		d, err := n.SettingUpdate()
		if err != nil {
			return nil, err
		}
		ev.Event = access.EventDeviceEmergencyStatus
		mode, on := "lockdown", d.Lockdown
		if d.Evacuation {
			mode, on = "evacuation", true
		}
		return ev, obj(access.EmergencyStatusObject{Global: true, Mode: mode, Value: on})
	}
	if !f.all {
		return nil, nil
	}
	ev.Event = access.EventType(n.Event)
	ev.Data.Object = n.Data
	return ev, nil
}

// forward delivers one notification; it reports whether one was sent.
func (f *forwarder) forward(n *access.Notification) (bool, error) {
	ev, err := f.webhookEvent(n)
	if err != nil {
		fmt.Fprintf(f.a.stderr, "skipped %s: %v\n", n.Event, err)
		return false, nil
	}
	if ev == nil {
		return false, nil
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return false, err
	}
	req, err := http.NewRequestWithContext(f.a.ctx, http.MethodPost, f.url, bytes.NewReader(payload))
	if err != nil {
		return false, usageErrorf("--forward-to: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(access.SignatureHeader, access.SignPayload(payload, f.secret, time.Now()))
	start := time.Now()
	resp, err := f.hc.Do(req)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		if f.a.ctx.Err() != nil {
			return false, f.a.ctx.Err()
		}
		fmt.Fprintf(f.a.stdout, "%s -> %s: %v (%s)\n", ev.Event, f.url, err, took)
		return true, nil
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	fmt.Fprintf(f.a.stdout, "%s -> %s [%d] (%s)\n", ev.Event, f.url, resp.StatusCode, took)
	return true, nil
}
