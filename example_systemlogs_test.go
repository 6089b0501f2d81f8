package access_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"log"
	"math/big"
	"os"
	"time"

	"github.com/access-dev/access"
	"github.com/access-dev/access/accesstest"
)

// Find out who opened which door: the API unlock on the demo site is in
// the system log, with the caller recorded as an "open_api" actor.
func ExampleSystemLogsService_List() {
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	srv := accesstest.NewServer(accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return start }))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	_, err := client.Doors.Unlock(ctx, accesstest.DemoDoorID, &access.UnlockRequest{ActorID: "desk-1", ActorName: "Visitor desk"})
	if err != nil {
		log.Fatal(err)
	}
	logs, resp, err := client.SystemLogs.List(ctx, &access.SystemLogQuery{
		Topic: access.SystemLogTopicDoorOpenings,
		Since: start.Add(-time.Hour),
		Until: start.Add(time.Hour),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("entries:", resp.Pagination.Total)
	for _, e := range logs {
		door, _ := e.Door()
		src, _ := e.UnlockSource()
		fmt.Println(e.Time().Format(time.RFC3339), e.Source.Event.DisplayMessage, door.DisplayName)
		fmt.Println(" by", e.Source.Actor.DisplayName, "("+e.Source.Actor.Type+"), caller", src.ActorID)
	}
	// Output:
	// entries: 1
	// 2026-11-02T09:00:00Z Access Granted (Remote) Main entrance
	//  by Visitor desk (open_api), caller desk-1
}

// Read every entry, page by page: All asks for the next page as the loop
// advances and does not trust the console's total.
func ExampleSystemLogsService_All() {
	srv := accesstest.NewServer()
	defer srv.Close()
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for i := range 5 {
		var e accesstest.SystemLogEntry
		e.Topic = access.SystemLogTopicCritical
		e.Source.Event = access.SystemLogEvent{Type: "access.device.emergency_status", DisplayMessage: fmt.Sprint("Alarm ", i+1),
			Published: access.UnixMilliOf(start.Add(time.Duration(i) * time.Minute))}
		srv.AddSystemLog(e)
	}
	client := srv.Client()

	for e, err := range client.SystemLogs.All(context.Background(), &access.SystemLogQuery{Topic: access.SystemLogTopicCritical, PageSize: 2}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Time().Format("15:04"), e.Source.Event.DisplayMessage)
	}
	fmt.Println("requests:", len(srv.RequestsFor(accesstest.OpSystemLogsList)))
	// Output:
	// 09:04 Alarm 5
	// 09:03 Alarm 4
	// 09:02 Alarm 3
	// 09:01 Alarm 2
	// 09:00 Alarm 1
	// requests: 3
}

// Export a day of the log as CSV, straight into a file or any io.Writer;
// a range over one month is refused before anything is sent.
func ExampleSystemLogsService_Export() {
	start := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	srv := accesstest.NewServer(accesstest.WithDemoData(), accesstest.WithClock(func() time.Time { return start }))
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Doors.SetEmergency(ctx, &access.EmergencyStatus{Lockdown: true}); err != nil {
		log.Fatal(err)
	}

	day := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	req := &access.SystemLogExportRequest{Topic: access.SystemLogTopicAll, Since: day, Until: day.Add(24 * time.Hour), Timezone: "Europe/Zurich"}
	if _, err := client.SystemLogs.Export(ctx, req, os.Stdout); err != nil {
		log.Fatal(err)
	}

	req.Until = day.AddDate(0, 2, 0)
	_, err := client.SystemLogs.Export(ctx, req, os.Stdout)
	fmt.Println(errors.Is(err, access.ErrValidation))
	// Output:
	// Time,Topic,Event,Message,Result,Actor,Actor Type,Authentication,Door,Device
	// 2026-11-02 10:00:00,critical,access.device.emergency_status,Lockdown started,,accesstest API token,open_api,,,UA-HUB-3855
	// true
}

// Install a certificate for the API server (port 12445). A key that is not
// the certificate's is refused before anything is sent; the console uses
// the new certificate once Access has been restarted.
func ExampleAPIServerService_UploadCertificate() {
	srv := accesstest.NewServer()
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()

	certPEM, keyPEM := exampleCertificate("access.example.org")
	if _, err := client.APIServer.UploadCertificate(ctx, &access.CertificateUpload{Key: keyPEM, Cert: certPEM}); err != nil {
		log.Fatal(err)
	}
	installed, _ := srv.APICertificate()
	fmt.Println("installed:", installed.Leaf.Subject.CommonName)

	otherCert, _ := exampleCertificate("other.example.org")
	_, err := client.APIServer.UploadCertificate(ctx, &access.CertificateUpload{Key: keyPEM, Cert: otherCert})
	var ve *access.ValidationError
	fmt.Println(errors.As(err, &ve), ve.Field)
	fmt.Println(bytes.Equal(installed.CertPEM, certPEM))
	// Output:
	// installed: access.example.org
	// true Key
	// true
}

// exampleCertificate makes a self-signed certificate and its key, in PEM.
func exampleCertificate(name string) (certPEM, keyPEM []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(90 * 24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		log.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb})
}
