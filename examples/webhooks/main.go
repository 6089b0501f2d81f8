// Command webhooks is a webhook receiver. By default it runs a round trip
// on the embedded fake controller: it listens on a loopback port,
// registers that URL with a custom header, has the fake deliver a signed
// door-unlock event, verifies and prints it, and deletes the endpoint.
//
//	go run ./examples/webhooks
//
// For a console, register your receiver's URL (for example with the SDK's
// Webhooks.Ensure) and run
//
//	ACCESS_WEBHOOK_LISTEN=:8080 ACCESS_WEBHOOK_SECRET=<secret> go run ./examples/webhooks
//
// to serve deliveries on POST / forever, printing each verified event; set
// ACCESS_WEBHOOK_HEADER=Name:value to also require a custom header.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func main() {
	var err error
	if addr := os.Getenv("ACCESS_WEBHOOK_LISTEN"); addr != "" {
		err = serve(addr, os.Getenv("ACCESS_WEBHOOK_SECRET"), os.Getenv("ACCESS_WEBHOOK_HEADER"))
	} else {
		fake := accesstest.NewServer()
		err = roundTrip(context.Background(), fake, fake.Client(), os.Stdout)
		fake.Close()
	}
	if err != nil {
		log.Fatal(err)
	}
}

func describe(ev *access.WebhookEvent) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (object %s)", ev.Event, ev.EventObjectID)
	if l := ev.Data.Location; l != nil {
		fmt.Fprintf(&b, " at %s", l.Name)
	}
	if a := ev.Data.Actor; a != nil {
		fmt.Fprintf(&b, " by %s", a.Name)
	}
	switch ev.Event {
	case access.EventDoorUnlock:
		if o, err := ev.DoorUnlock(); err == nil {
			fmt.Fprintf(&b, ": %s via %s", o.Result, o.AuthenticationType)
		}
	case access.EventDoorbellIncoming, access.EventDoorbellIncomingREN, access.EventDoorbellCompleted:
		if o, err := ev.Doorbell(); err == nil {
			fmt.Fprintf(&b, ": request %s, reason %d", o.RequestID, o.ReasonCode)
		}
	case access.EventDeviceDPSStatus:
		if o, err := ev.DPSStatus(); err == nil {
			fmt.Fprintf(&b, ": door %s", o.Status)
		}
	case access.EventDeviceEmergencyStatus:
		if o, err := ev.EmergencyStatus(); err == nil {
			fmt.Fprintf(&b, ": %s %v", o.Mode, o.Value)
		}
	default:
		fmt.Fprintf(&b, ": %s", ev.Data.Object)
	}
	return b.String()
}

// serve receives deliveries from a console until the process is stopped.
func serve(addr, secret, header string) error {
	if secret == "" {
		return errors.New("set ACCESS_WEBHOOK_SECRET to the endpoint's secret")
	}
	var opts []access.WebhookOption
	if name, value, ok := strings.Cut(header, ":"); ok {
		opts = append(opts, access.WithRequiredHeader(strings.TrimSpace(name), strings.TrimSpace(value)))
	}
	h, err := access.WebhookHandler(secret, func(_ context.Context, ev *access.WebhookEvent) error {
		log.Println(describe(ev))
		return nil
	}, opts...)
	if err != nil {
		return err
	}
	log.Printf("listening on %s", addr)
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	return srv.ListenAndServe()
}

// roundTrip registers a receiver on a loopback port with the fake through
// client (either of the ways in: the API port or a UniFi OS console's
// proxy), has the fake deliver an event to it, and writes what happened
// to out.
func roundTrip(ctx context.Context, fake *accesstest.Server, client *access.Client, out io.Writer) error {

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	const token = "hook-token-123"
	ep, _, err := client.Webhooks.Ensure(ctx, &access.WebhookEndpointRequest{
		Endpoint: "http://" + ln.Addr().String() + "/",
		Name:     "example receiver",
		Events:   []access.EventType{access.EventDoorUnlock, access.EventDeviceDPSStatus},
		Headers:  map[string]string{"X-Hook-Token": token},
	})
	if err != nil {
		ln.Close()
		return err
	}
	fmt.Fprintf(out, "registered %s as %s; secret %s\n", ep.Endpoint, ep.ID, ep.Secret)

	events := make(chan *access.WebhookEvent, 2)
	h, err := access.WebhookHandler(ep.Secret.Value(), func(_ context.Context, ev *access.WebhookEvent) error {
		events <- ev
		return nil
	}, access.WithRequiredHeader("X-Hook-Token", token))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	defer func() {
		_ = srv.Shutdown(context.Background())
		<-done
	}()

	ds, err := fake.EmitEvent(ctx, &access.WebhookEvent{
		Event: access.EventDoorUnlock, EventObjectID: "4a98adf6-dbb8-4312-9b8b-593f6eba8c8e",
		Data: access.EventData{
			Location: &access.EventLocation{ID: "d2b87427", LocationType: "door", Name: "Door 3855"},
			Actor:    &access.EventActor{ID: "d62e92fd", Name: "Ada Lovelace", Type: "user"},
			Object:   []byte(`{"authentication_type":"NFC","result":"Access Granted"}`),
		},
	})
	if err != nil {
		return err
	}
	for _, d := range ds {
		fmt.Fprintf(out, "delivery to %s: HTTP %d\n", d.URL, d.StatusCode)
	}
	select {
	case ev := <-events:
		fmt.Fprintln(out, "received:", describe(ev))
	case <-time.After(5 * time.Second):
		return errors.New("no delivery arrived")
	}

	// A forged delivery (wrong secret) is refused before the handler runs.
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.Endpoint, strings.NewReader(`{"event":"access.door.unlock"}`))
	if err != nil {
		return err
	}
	req.Header.Set("X-Hook-Token", token)
	req.Header.Set(access.SignatureHeader, access.SignPayload([]byte(`{"event":"access.door.unlock"}`), "guessed", time.Now()))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	fmt.Fprintf(out, "forged delivery: HTTP %d\n", resp.StatusCode)

	if _, err := client.Webhooks.Delete(ctx, ep.ID); err != nil {
		return err
	}
	fmt.Fprintf(out, "deleted; %d endpoint(s) left\n", len(fake.Webhooks()))
	return nil
}
