package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/access-dev/access/internal/testlog"
)

// TestDoctorCertificateName: doctor names the certificate by its common
// name, else by its subject alternative names, else "(no name)".
func TestDoctorCertificateName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		tmpl x509.Certificate
		want string
	}{
		{"common name", x509.Certificate{Subject: pkix.Name{CommonName: "console.test"}, DNSNames: []string{"other.test"}}, "console.test"},
		{"SANs", x509.Certificate{Subject: pkix.Name{Organization: []string{"Acme"}}, DNSNames: []string{"console.test"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}, "SAN console.test 127.0.0.1"},
		{"no name", x509.Certificate{Subject: pkix.Name{Organization: []string{"Acme"}}}, "(no name)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewUnstartedServer(http.NotFoundHandler())
			srv.TLS = &tls.Config{Certificates: []tls.Certificate{selfSigned(t, tc.tmpl)}}
			srv.Config.ErrorLog = testlog.New(t)
			srv.StartTLS()
			t.Cleanup(srv.Close)
			env := map[string]string{"ACCESS_URL": srv.URL, "ACCESS_TOKEN": "some-token", "ACCESS_CONFIG_DIR": t.TempDir()}
			var out, errb bytes.Buffer
			run(context.Background(), []string{"--insecure", "doctor"}, nil, &out, &errb, func(k string) string { return env[k] })
			want := regexp.MustCompile(`(?m)^ok +certificate +` + regexp.QuoteMeta(tc.want) + `, expires 2099-01-02$`)
			if !want.MatchString(out.String()) {
				t.Errorf("doctor printed\n%s\nwant a line matching %s", out.String(), want)
			}
		})
	}
}

// selfSigned makes a certificate from tmpl, valid until 2099-01-02.
func selfSigned(t *testing.T, tmpl x509.Certificate) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = big.NewInt(1)
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Date(2099, 1, 2, 0, 0, 0, 0, time.UTC)
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
