// Command frontdesk walks through a front desk's day on the embedded fake
// controller (package accesstest) with its demo site:
//
//   - registers a visitor for this afternoon, with the main entrance and
//     the office floors, and gives them a generated PIN;
//
//   - gives the visitor a QR code and saves its image to a PNG file;
//
//   - enrolls a new NFC card at the main entrance's reader (the fake's
//     Server.TapCard plays the card held on the reader) and assigns it to
//     a user;
//
//   - cancels the visit, which keeps the record with status CANCELLED.
//
//     go run ./examples/frontdesk [directory for the QR code image]
//
// Against a console the same calls act on real readers; Enroll then waits
// for a real card, polling every second.
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

func main() {
	dir := os.TempDir()
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	srv := newSite()
	defer srv.Close()
	if err := run(context.Background(), srv, srv.Client(), os.Stdout, dir); err != nil {
		log.Fatal(err)
	}
}

// newSite is the fake's demo site, its clock at 09:30 on the day of the
// walk-through.
func newSite() *accesstest.Server {
	now := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	return accesstest.NewServer(accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return now }))
}

// run performs the walk-through on the site of srv through client (either
// of the ways in: the API port or a UniFi OS console's proxy), saves the
// QR code in dir and writes what happens to out.
func run(ctx context.Context, srv *accesstest.Server, client *access.Client, out io.Writer, dir string) error {
	now := srv.Now()

	// A visitor for this afternoon, 14:00 to 16:30.
	afternoon := time.Date(now.Year(), now.Month(), now.Day(), 14, 0, 0, 0, time.UTC)
	v, _, err := client.Visitors.Create(ctx, &access.VisitorRequest{
		FirstName: "Grace", LastName: "Hopper", VisitorCompany: "Navy", MobilePhone: "+41791234567",
		StartTime: afternoon, EndTime: afternoon.Add(150 * time.Minute),
		VisitReason: access.VisitReasonInterview,
		Resources:   []access.Resource{access.VisitDoor(accesstest.DemoDoorID), access.VisitDoorGroup(accesstest.DemoDoorGroupID)},
	})
	if err != nil {
		return fmt.Errorf("register the visitor: %w", err)
	}
	fmt.Fprintf(out, "visitor %s %s, %s from %s to %s\n", v.FirstName, v.LastName, v.Status,
		v.StartTime.Time().Format("15:04"), v.EndTime.Time().Format("15:04"))

	pin, _, err := client.PINCodes.Generate(ctx)
	if err != nil {
		return err
	}
	if _, err := client.Visitors.AssignPINCode(ctx, v.ID, pin); err != nil {
		return err
	}
	fmt.Fprintf(out, "PIN with %d digits assigned\n", len(pin))

	// A QR code, saved as a PNG file.
	if _, err := client.Visitors.AssignQRCode(ctx, v.ID); err != nil {
		return err
	}
	path := filepath.Join(dir, "visitor_qr_code.png")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	resp, err := client.QRCodes.Download(ctx, v.ID, f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("download the QR code: %w", err)
	}
	fmt.Fprintf(out, "QR code saved as %s (%s)\n", filepath.Base(path), resp.Header.Get("Content-Type"))

	// Enroll a new card at the main entrance's reader.
	ectx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	card, _, err := client.NFCCards.Enroll(ectx, accesstest.DemoDeviceID, &access.EnrollOptions{
		PollInterval: 10 * time.Millisecond,
		Started: func(string) {
			fmt.Fprintln(out, "reader awake: hold the card on it")
			if _, err := srv.TapCard(accesstest.DemoDeviceID, "100742"); err != nil {
				log.Print(err)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("enroll: %w", err)
	}
	fmt.Fprintf(out, "card %s enrolled\n", card.CardID)
	if _, err := client.Users.AssignNFCCard(ctx, accesstest.DemoUserID, &access.NFCCardAssignment{Token: card.Token}); err != nil {
		return err
	}
	info, _, err := client.NFCCards.Get(ctx, card.Token)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "card %s %s to %s\n", info.DisplayID, info.Status, info.User.Name)

	// The visit is called off.
	if _, err := client.Visitors.Delete(ctx, v.ID, nil); err != nil {
		return err
	}
	v, _, err = client.Visitors.Get(ctx, v.ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "visitor %s %s\n", v.FirstName, v.Status)
	return nil
}
