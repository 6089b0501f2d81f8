package access_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"log"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// Enroll a new NFC card at a reader and hand it to a user. The fake's
// TapCard plays the card held on the reader; Started is where a front
// desk application tells the holder to tap.
func ExampleNFCCardsService_Enroll() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	client := srv.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	card, _, err := client.NFCCards.Enroll(ctx, accesstest.DemoDeviceID, &access.EnrollOptions{
		PollInterval: 10 * time.Millisecond, // the default is one second
		Started: func(sessionID string) {
			fmt.Println("reader awake: please tap the card")
			if _, err := srv.TapCard(accesstest.DemoDeviceID, "100742"); err != nil {
				log.Fatal(err)
			}
		},
	})
	switch {
	case errors.Is(err, access.ErrCardProvisioned):
		log.Fatal("card belongs to another site: enroll again with ResetUACard")
	case err != nil:
		log.Fatal(err)
	}
	fmt.Println("card", card.CardID, "read; sessions left open:", len(srv.EnrollmentSessions()))

	_, err = client.Users.AssignNFCCard(ctx, accesstest.DemoUserID, &access.NFCCardAssignment{Token: card.Token})
	if err != nil {
		log.Fatal(err)
	}
	got, _, err := client.NFCCards.Get(ctx, card.Token)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Status, "to", got.User.Name)
	// Output:
	// reader awake: please tap the card
	// card 100742 read; sessions left open: 0
	// assigned to Ada Lovelace
}

// Import third-party cards from typed rows; the SDK writes and streams
// the CSV. Rows the controller did not take come back in an
// *access.NFCImportError.
func ExampleNFCCardsService_Import() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	rows := []access.NFCImportRow{{NFCID: "04a2b3c4d5e680", Alias: "Contractor 1"}, {NFCID: "04a2b3c4d5e681", Alias: "Contractor 2"}}
	if _, _, err := client.NFCCards.Import(ctx, rows); err != nil {
		log.Fatal(err)
	}
	// The same cards again, and a new one: two rows fail.
	results, _, err := client.NFCCards.Import(ctx, append(rows, access.NFCImportRow{NFCID: "04A2B3C4D5E682", Alias: "Contractor 3"}))
	var ie *access.NFCImportError
	if errors.As(err, &ie) {
		for _, r := range results {
			fmt.Println(r.NFCID, r.Alias, "failed:", r.Failed())
		}
	}
	// Output:
	// 04A2B3C4D5E680 Contractor 1 failed: true
	// 04A2B3C4D5E681 Contractor 2 failed: true
	// 04A2B3C4D5E682 Contractor 3 failed: false
}

// Register a visitor for this afternoon with a generated PIN, watch the
// visit start on the fake's clock, cancel it, then remove the record.
func ExampleVisitorsService_Create() {
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	srv := accesstest.NewServer(accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return now }))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	v, _, err := client.Visitors.Create(ctx, &access.VisitorRequest{
		FirstName: "Grace", LastName: "Hopper", VisitorCompany: "Navy",
		StartTime: now.Add(5 * time.Hour), EndTime: now.Add(7 * time.Hour),
		VisitReason: access.VisitReasonInterview,
		Resources:   []access.Resource{access.VisitDoor(accesstest.DemoDoorID), access.VisitDoorGroup(accesstest.DemoDoorGroupID)},
	})
	if err != nil {
		log.Fatal(err)
	}
	pin, _, err := client.PINCodes.Generate(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Visitors.AssignPINCode(ctx, v.ID, pin); err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.FirstName, v.Status, v.StartTime.Time().Format("15:04"), len(pin), "digits")

	for range 2 {
		srv.Advance(3 * time.Hour)
		got, _, err := client.Visitors.Get(ctx, v.ID)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(srv.Now().Format("15:04"), got.Status)
	}

	// Without Force a delete only cancels the visit.
	if _, err := client.Visitors.Delete(ctx, v.ID, nil); err != nil {
		log.Fatal(err)
	}
	got, _, _ := client.Visitors.Get(ctx, v.ID)
	fmt.Println(got.Status)
	// With Force it removes the record, and frees the PIN.
	if _, err := client.Visitors.Delete(ctx, v.ID, &access.VisitorDeleteOptions{Force: true}); err != nil {
		log.Fatal(err)
	}
	_, _, err = client.Visitors.Get(ctx, v.ID)
	fmt.Println(errors.Is(err, access.ErrNotFound), srv.PINHolder(pin) == "")
	// Output:
	// Grace UPCOMING 14:00 6 digits
	// 12:00 UPCOMING
	// 15:00 VISITING
	// CANCELLED
	// true true
}

// Give a visitor a QR code and save its image: Download streams it into
// any io.Writer (a file, an HTTP response), never holding it in memory.
func ExampleQRCodesService_Download() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	visitors, _, err := client.Visitors.List(ctx, &access.VisitorListOptions{PageSize: 1})
	if err != nil {
		log.Fatal(err)
	}
	id := visitors[0].ID
	if _, err := client.Visitors.AssignQRCode(ctx, id); err != nil {
		log.Fatal(err)
	}
	var img bytes.Buffer // or an *os.File
	resp, err := client.QRCodes.Download(ctx, id, &img)
	if err != nil {
		log.Fatal(err)
	}
	decoded, err := png.Decode(&img)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Header.Get("Content-Type"), decoded.Bounds().Dx(), "px square")
	// Output:
	// image/png 148 px square
}

// Hand an unused touch pass to a user and follow it as they add it to a
// wallet and an administrator suspends it.
func ExampleUsersService_AssignTouchPass() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	user := srv.AddUser(access.User{FirstName: "Bob", LastName: "Ng", UserEmail: "bob@example.com"})

	if _, _, err := client.TouchPasses.Purchase(ctx, 1); err != nil {
		log.Fatal(err)
	}
	free, _, err := client.TouchPasses.ListAssignable(ctx)
	if err != nil {
		log.Fatal(err)
	}
	tp, _, err := client.Users.AssignTouchPass(ctx, user.ID, free[0].ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tp.Status, tp.UserEmail)

	srv.AddToWallet(tp.ID, access.SourceApple, "Bob's iPhone") // the user's side
	tp, _, err = client.TouchPasses.Get(ctx, tp.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(tp.Status, tp.Bundles[0].Source, tp.Bundles[0].DeviceName)

	tp, _, err = client.TouchPasses.Update(ctx, tp.ID, &access.TouchPassUpdate{Status: access.Ptr(access.TouchPassSuspended)})
	if err != nil {
		log.Fatal(err)
	}
	for p, err := range client.TouchPasses.All(ctx, &access.TouchPassListOptions{Status: access.TouchPassSuspended}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(p.Status, p.UserName)
	}
	// Output:
	// PENDING bob@example.com
	// ACTIVE apple Bob's iPhone
	// SUSPENDED Bob Ng
}

// Generate a PIN and give it to a user; a PIN someone already uses is
// refused with ErrConflict (generate another).
func ExamplePINCodesService_Generate() {
	srv := accesstest.NewServer(accesstest.WithDemoData())
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	pin, _, err := client.PINCodes.Generate(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.Users.AssignPINCode(ctx, accesstest.DemoUserID, pin); err != nil {
		log.Fatal(err)
	}
	visitors, _, err := client.Visitors.List(ctx, &access.VisitorListOptions{PageSize: 1})
	if err != nil {
		log.Fatal(err)
	}
	_, err = client.Visitors.AssignPINCode(ctx, visitors[0].ID, pin)
	var ae *access.APIError
	if errors.As(err, &ae) && errors.Is(err, access.ErrConflict) {
		fmt.Println(ae.Code)
	}
	user, _ := srv.User(accesstest.DemoUserID)
	fmt.Println(user.PINCode.Token == accesstest.PINToken(pin))
	// Output:
	// CODE_CREDS_PIN_CODE_CREDS_ALREADY_EXIST
	// true
}
